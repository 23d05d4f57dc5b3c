package tasks

import (
	"cmp"
	"slices"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// A Graph is a validated task graph. It is immutable: accessors return
// pointers into it that callers must not modify.
type Graph struct {
	spec        Spec
	target      Target
	sizes       map[string]int64
	tasks       []*Task // sorted by name
	taskByName  map[string]*Task
	invocations []*Invocation
	invByID     map[string]*Invocation
	edges       []*Edge
	groups      []*Group
	measured    Measured
	topo        []*Invocation
	components  [][]*Invocation
	warnings    jsonv.Problems
	// limits are the limits g was validated under, which WithTarget,
	// WithMeasured and WithPins validate again under.
	limits Limits
}

// A Task is a logical computation with named ports and its alternatives.
type Task struct {
	Name         string
	Kind         TaskKind
	Ports        []*Port // in declaration order
	Alternatives []*Alternative

	// byID indexes Alternatives by id, the first of an id (validation
	// reports the others); nil in a Task not made by validation.
	byID map[string]*Alternative
	// byName indexes Ports by name, the first of a name (validation reports
	// the others); nil in a Task not made by validation.
	byName map[string]*Port
}

// Port returns the named port, or nil.
func (t *Task) Port(name string) *Port {
	if t.byName != nil {
		return t.byName[name]
	}
	for _, p := range t.Ports {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Alternative returns the alternative with the id, or nil.
func (t *Task) Alternative(id string) *Alternative {
	if t.byID != nil {
		return t.byID[id]
	}
	for _, a := range t.Alternatives {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// A Port is a task's port. Index is its position in Task.Ports.
type Port struct {
	Name      string
	Index     int
	Direction Direction
	Tile      indexspace.Space
	Element   storage.ElementType
	Memory    storage.MemorySpace // zero for a register port

	axes []axis // Tile's top-level axes
}

// IsMemory reports whether p is the memory side of a load or store.
func (p *Port) IsMemory() bool { return p.Memory != 0 }

// An Alternative is one realization of a task.
type Alternative struct {
	Task           *Task
	Index          int // position in Task.Alternatives
	ID             string
	Implementation string
	// Bindings realize the ports, indexed like Task.Ports.
	Bindings     []Binding
	Resources    Resources
	Requires     []string // sorted
	Cost         CostSpec
	Multiplicity Expr
}

// Binding returns the realization of the named port.
func (a *Alternative) Binding(port string) *Binding {
	if p := a.Task.Port(port); p != nil {
		return &a.Bindings[p.Index]
	}
	return nil
}

// A Binding is how an alternative realizes a port: a distribution (the tile
// in registers) or a storage layout (the tile in memory).
type Binding struct {
	Port *Port
	// Name is the distribution's or layout's name: the key in the graph's
	// definitions, a built-in atom's name, or "" for an inline one.
	Name         string
	Distribution *distribution.Distribution // nil for a layout
	Layout       *storage.Layout            // nil for a distribution
	// Multiplicity is how many tiles cross the port per invocation; it is the
	// alternative's unless the binding overrides it.
	Multiplicity Expr
	// Loop is the loop nest the port's tiles move in, "" for any.
	Loop string
}

// InMemory reports whether the binding holds the tile in global memory: the
// port's data crosses a kernel boundary.
func (b *Binding) InMemory() bool {
	return b.Layout != nil && b.Layout.Memory() == storage.Global
}

// An Invocation is a use of a task. Candidates are the alternatives its pins
// and forbids allow, in the task's order, with their multiplicities
// evaluated under the invocation's sizes.
type Invocation struct {
	Index      int // position in Graph.Invocations
	ID         string
	Task       *Task
	Sizes      map[string]int64 // the graph's sizes overlaid with the invocation's
	Pin        []string
	Forbid     []string
	Candidates []*Candidate
	In, Out    []*Edge // incident edges, in edge order

	group *Group // the group holding it, nil if none
}

// Candidate returns the candidate for the alternative id, or nil when the
// alternative is not allowed.
func (v *Invocation) Candidate(id string) *Candidate {
	if v.Task != nil && v.Task.byID != nil {
		// The candidates are in the task's order of alternatives.
		a := v.Task.byID[id]
		if a == nil {
			return nil
		}
		i, ok := slices.BinarySearchFunc(v.Candidates, a.Index, func(c *Candidate, index int) int {
			return cmp.Compare(c.Alternative.Index, index)
		})
		if !ok || v.Candidates[i].Alternative != a {
			return nil
		}
		return v.Candidates[i]
	}
	for _, c := range v.Candidates {
		if c.Alternative.ID == id {
			return c
		}
	}
	return nil
}

// EdgesFrom returns the edges leaving v's output port (its fan-out), in
// edge order.
func (v *Invocation) EdgesFrom(port *Port) []*Edge {
	var out []*Edge
	for _, e := range v.Out {
		if e.From.Port == port {
			out = append(out, e)
		}
	}
	return out
}

// EdgeInto returns the edge feeding v's input port, or nil.
func (v *Invocation) EdgeInto(port *Port) *Edge {
	for _, e := range v.In {
		if e.To.Port == port {
			return e
		}
	}
	return nil
}

// A Candidate is an alternative allowed for an invocation, with its
// multiplicity and each port's tile count evaluated.
type Candidate struct {
	Invocation  *Invocation
	Alternative *Alternative
	// Multiplicity is how many times the tile body runs; the execution cost is
	// the per-execution cost × Multiplicity, divided by the target's
	// sm_count for a declared or measured cost (SM time per tile; not for
	// the cost model's whole-GPU roofline): docs/format.md, "The cost rule".
	Multiplicity int64
	// PortMultiplicity[i] is how many tiles cross port i (Task.Ports order).
	PortMultiplicity []int64
}

// Binding returns the realization of the named port.
func (c *Candidate) Binding(port string) *Binding { return c.Alternative.Binding(port) }

// An Endpoint is one end of an edge.
type Endpoint struct {
	Invocation *Invocation
	Port       *Port
}

// An Edge carries the tiles of a producer's output port to a consumer's input
// port.
type Edge struct {
	Index    int // position in Graph.Edges
	From, To Endpoint
	// Rename maps producer tile axes to the consumer axes holding the same
	// coordinates; axes it does not name keep their names (nil: none).
	Rename distribution.Rename
	// Kernel is the boundary the file declares; MustCross says whether the
	// edge must cross one.
	Kernel KernelBoundary
	// betweenGroups: the ends are fused in two different groups, two
	// kernels.
	betweenGroups bool
	// crossedOnPath: an edge on another path between the ends that
	// crosses a kernel boundary in every plan (nil: none).
	crossedOnPath *Edge
}

// MustCross reports whether tiles must cross a kernel boundary on e: the
// edge is declared must_cross, or its ends are fused in two different
// groups, which are two kernels, or another path between its ends crosses
// a kernel boundary in every plan (CrossedOnPath).
func (e *Edge) MustCross() bool {
	return e.Kernel == MustCrossKernel || e.betweenGroups || e.crossedOnPath != nil
}

// CrossedOnPath returns, when another path between e's ends crosses a
// kernel boundary in every plan, an edge of that path where it crosses:
// the producer's kernel then runs before the consumer's, and e must cross
// too. Nil when no such path is known (docs/format.md, "Edges").
func (e *Edge) CrossedOnPath() *Edge { return e.crossedOnPath }

// BetweenGroups reports whether e's ends are fused in two different
// groups: then it must cross a kernel boundary whatever it declares.
func (e *Edge) BetweenGroups() bool { return e.betweenGroups }

// Renamed reports whether the edge renames any axis.
func (e *Edge) Renamed() bool {
	for k, v := range e.Rename {
		if k != v {
			return true
		}
	}
	return false
}

// SourceBinding is how producer candidate a realizes the edge's output port.
func (e *Edge) SourceBinding(a *Candidate) *Binding {
	return &a.Alternative.Bindings[e.From.Port.Index]
}

// TargetBinding is how consumer candidate b realizes the edge's input port.
func (e *Edge) TargetBinding(b *Candidate) *Binding { return &b.Alternative.Bindings[e.To.Port.Index] }

// A Crossing says how tiles cross an edge under a chosen pair.
type Crossing uint8

// The crossings.
const (
	// InKernel: producer and consumer run in one kernel; a conversion between
	// the two realizations runs inside it.
	InKernel Crossing = iota
	// GlobalRoundTrip: the tile goes through global memory across one kernel
	// boundary.
	GlobalRoundTrip
)

func (c Crossing) String() string {
	if c == GlobalRoundTrip {
		return "global_round_trip"
	}
	return "in_kernel"
}

// Crossing says how tiles cross e when the producer uses candidate a and the
// consumer candidate b: a global round trip when the edge must cross a kernel
// (MustCross) or either side holds the tile in global memory, else in one
// kernel.
func (e *Edge) Crossing(a, b *Candidate) Crossing {
	if e.MustCross() || e.SourceBinding(a).InMemory() || e.TargetBinding(b).InMemory() {
		return GlobalRoundTrip
	}
	return InKernel
}

// Compatible reports whether the pair (a, b) may realize e: a round trip
// through global memory always may; inside one kernel both ports must move
// their tiles in the same loop (or either name none).
func (e *Edge) Compatible(a, b *Candidate) bool {
	if e.Crossing(a, b) == GlobalRoundTrip {
		return true
	}
	la, lb := e.SourceBinding(a).Loop, e.TargetBinding(b).Loop
	return la == "" || lb == "" || la == lb
}

// Moves is how many tiles move across e under the pair (a, b): the number of
// tiles the producer emits on its port, a's PortMultiplicity. A conversion on
// the edge is paid Moves times (docs/format.md states the rule).
func (e *Edge) Moves(a, b *Candidate) int64 {
	return a.PortMultiplicity[e.From.Port.Index]
}

// Reads is how many tiles consumer candidate b reads on the edge's input
// port, b's PortMultiplicity: in a global round trip the consumer loads
// that many (docs/format.md).
func (e *Edge) Reads(b *Candidate) int64 { return b.PortMultiplicity[e.To.Port.Index] }

// A Group is a fused kernel: its invocations run in one kernel, whose budgets
// (0: none) the plan must respect.
type Group struct {
	Index              int
	ID                 string
	Invocations        []*Invocation
	SharedMemoryBytes  int64
	RegistersPerThread int64
}

// Measured holds measured costs, which override the cost model.
type Measured struct {
	// Target names the target the costs were measured on ("": not said).
	Target string
	// Alternatives maps (task, alternative, invocation) to ns per execution;
	// an empty invocation applies to every invocation of the task.
	Alternatives map[MeasuredKey]float64
	// Conversions maps (source, target, renaming) names to ns per moved
	// tile.
	Conversions map[ConversionKey]float64
}

// A MeasuredKey identifies a measured alternative.
type MeasuredKey struct{ Task, Alternative, Invocation string }

// A ConversionKey identifies a measured conversion: the names of the source
// and target distributions or layouts and the tile renaming in
// distribution.Rename's String form ("" for none).
type ConversionKey struct{ Source, Target, Rename string }

// AlternativeNS returns the measured ns per execution of c's alternative, if
// any (a measurement for the invocation wins over one for the task).
func (m Measured) AlternativeNS(c *Candidate) (float64, bool) {
	k := MeasuredKey{c.Alternative.Task.Name, c.Alternative.ID, c.Invocation.ID}
	if ns, ok := m.Alternatives[k]; ok {
		return ns, true
	}
	k.Invocation = ""
	ns, ok := m.Alternatives[k]
	return ns, ok
}

// ConversionNS returns the measured ns per moved tile from source to target
// under the renaming (nil or empty for none).
func (m Measured) ConversionNS(source, target string, rename distribution.Rename) (float64, bool) {
	ns, ok := m.Conversions[ConversionKey{source, target, rename.String()}]
	return ns, ok
}

// Name returns the graph's name.
func (g *Graph) Name() string { return g.spec.Name }

// Target returns the graph's target.
func (g *Graph) Target() Target { return g.target }

// Sizes returns a copy of the graph's named sizes.
func (g *Graph) Sizes() map[string]int64 {
	out := make(map[string]int64, len(g.sizes))
	for k, v := range g.sizes {
		out[k] = v
	}
	return out
}

// Tasks returns the tasks, sorted by name.
func (g *Graph) Tasks() []*Task { return slices.Clone(g.tasks) }

// Task returns the named task, or nil.
func (g *Graph) Task(name string) *Task { return g.taskByName[name] }

// Invocations returns the invocations in document order.
func (g *Graph) Invocations() []*Invocation { return slices.Clone(g.invocations) }

// Invocation returns the invocation with the id, or nil.
func (g *Graph) Invocation(id string) *Invocation { return g.invByID[id] }

// Edges returns the edges in document order.
func (g *Graph) Edges() []*Edge { return slices.Clone(g.edges) }

// Groups returns the fused groups in document order.
func (g *Graph) Groups() []*Group { return slices.Clone(g.groups) }

// GroupOf returns the group holding v, or nil.
func (g *Graph) GroupOf(v *Invocation) *Group {
	if v == nil || v.Index < 0 || v.Index >= len(g.invocations) || g.invocations[v.Index] != v {
		return nil // not one of g's invocations
	}
	return v.group
}

// Measured returns the measured costs.
func (g *Graph) Measured() Measured { return g.measured }

// TopologicalOrder returns the invocations in an order where every producer
// comes before its consumers: gonum's topo.SortStabilized, deterministic
// (the same graph gives the same order).
func (g *Graph) TopologicalOrder() []*Invocation { return slices.Clone(g.topo) }

// Components returns the weakly connected components, each in document
// order, ordered by their first invocation.
func (g *Graph) Components() [][]*Invocation {
	out := make([][]*Invocation, len(g.components))
	for i, c := range g.components {
		out[i] = slices.Clone(c)
	}
	return out
}

// Warnings returns the problems that did not stop validation (an output that
// nothing consumes, an input that nothing feeds), sorted.
func (g *Graph) Warnings() jsonv.Problems { return slices.Clone(g.warnings) }

// Spec returns a copy of the declaration the graph was built from. It shares
// the distributions and the custom target's figures (immutable) with the
// graph.
func (g *Graph) Spec() Spec { return cloneSpec(g.spec) }

// A Summary counts what a graph holds.
type Summary struct {
	Tasks, Alternatives     int
	Invocations, Candidates int // candidates summed over invocations
	Edges, Renamed          int
	MustCross               int // edges that must cross a kernel boundary (Edge.MustCross)
	Groups, Components      int
	Sizes                   map[string]int64
	Measured                int // measured alternatives and conversions
	Warnings                int
}

// Summary counts the graph's parts.
func (g *Graph) Summary() Summary {
	s := Summary{Tasks: len(g.tasks), Invocations: len(g.invocations), Edges: len(g.edges),
		Groups: len(g.groups), Components: len(g.components), Sizes: g.Sizes(),
		Measured: len(g.measured.Alternatives) + len(g.measured.Conversions), Warnings: len(g.warnings)}
	for _, t := range g.tasks {
		s.Alternatives += len(t.Alternatives)
	}
	for _, v := range g.invocations {
		s.Candidates += len(v.Candidates)
	}
	for _, e := range g.edges {
		if e.Renamed() {
			s.Renamed++
		}
		if e.MustCross() {
			s.MustCross++
		}
	}
	return s
}

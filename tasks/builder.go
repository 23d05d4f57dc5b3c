package tasks

import (
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// A Builder constructs a Spec in Go, for compilers that plan without writing
// JSON. Build validates it exactly as Load validates a file: problems carry
// the JSON paths the same graph would have in the format. Methods return
// their receiver's sub-builders so that calls chain; a Builder is not safe for
// concurrent use.
type Builder struct {
	spec  Spec
	tasks map[string]*TaskBuilder
	order []string
}

// NewBuilder starts a graph with a name and a built-in target name.
func NewBuilder(name, target string) *Builder {
	return &Builder{spec: Spec{Version: Version, Name: name, Target: TargetSpec{Name: target}},
		tasks: map[string]*TaskBuilder{}}
}

// CustomTarget replaces the target by a custom one.
func (b *Builder) CustomTarget(name string, t Target) *Builder {
	b.spec.Target = TargetSpec{Name: name, Custom: &t}
	return b
}

// Size sets a named size.
func (b *Builder) Size(name string, n int64) *Builder {
	if b.spec.Sizes == nil {
		b.spec.Sizes = map[string]int64{}
	}
	b.spec.Sizes[name] = n
	return b
}

// Space defines a named tile space (indexspace text).
func (b *Builder) Space(name, text string) *Builder {
	if b.spec.Spaces == nil {
		b.spec.Spaces = map[string]string{}
	}
	b.spec.Spaces[name] = text
	return b
}

// IndexMap defines a named index map (indexmap text).
func (b *Builder) IndexMap(name, text string) *Builder {
	if b.spec.IndexMaps == nil {
		b.spec.IndexMaps = map[string]string{}
	}
	b.spec.IndexMaps[name] = text
	return b
}

// Layout defines a named storage layout (storage text; the address map may
// be the name of an index map).
func (b *Builder) Layout(name, text string) *Builder {
	if b.spec.Layouts == nil {
		b.spec.Layouts = map[string]string{}
	}
	b.spec.Layouts[name] = text
	return b
}

// Distribution defines a named distribution.
func (b *Builder) Distribution(name string, d *distribution.Distribution) *Builder {
	if b.spec.Distributions == nil {
		b.spec.Distributions = map[string]*distribution.Distribution{}
	}
	b.spec.Distributions[name] = d
	return b
}

// Task starts (or continues) a compute task.
func (b *Builder) Task(name string) *TaskBuilder { return b.task(name, ComputeTask) }

// LoadTask starts a load: memory input ports read into register outputs.
func (b *Builder) LoadTask(name string) *TaskBuilder { return b.task(name, LoadTask) }

// StoreTask starts a store: register inputs written to memory output ports.
func (b *Builder) StoreTask(name string) *TaskBuilder { return b.task(name, StoreTask) }

func (b *Builder) task(name string, kind TaskKind) *TaskBuilder {
	if t, ok := b.tasks[name]; ok {
		return t
	}
	t := &TaskBuilder{b: b, spec: TaskSpec{Kind: kind}}
	b.tasks[name] = t
	b.order = append(b.order, name)
	return t
}

// Invoke adds an invocation of a task. Its id is an identifier, as every
// name of a graph is ([A-Za-z_][A-Za-z0-9_]*: "layer0_gemm", not
// "layer0.gemm", whose dot separates an invocation from its port in an
// edge's ends); Build reports one that is not.
func (b *Builder) Invoke(id, task string) *InvocationBuilder {
	b.spec.Invocations = append(b.spec.Invocations, InvocationSpec{ID: id, Task: task})
	return &InvocationBuilder{b, len(b.spec.Invocations) - 1}
}

// Edge connects "producer.port" to "consumer.port".
func (b *Builder) Edge(from, to string) *EdgeBuilder {
	b.spec.Edges = append(b.spec.Edges, EdgeSpec{From: from, To: to})
	return &EdgeBuilder{b, len(b.spec.Edges) - 1}
}

// Group fuses invocations into one kernel with budgets (0: none).
func (b *Builder) Group(id string, sharedMemoryBytes, registersPerThread int64, invocations ...string) *Builder {
	b.spec.Groups = append(b.spec.Groups, GroupSpec{ID: id, Invocations: invocations,
		SharedMemoryBytes: sharedMemoryBytes, RegistersPerThread: registersPerThread})
	return b
}

// MeasuredOn names the target the measured costs were measured on: a plan
// on another target refuses them ("target" of the file's "measured").
func (b *Builder) MeasuredOn(target string) *Builder {
	b.spec.Measured.Target = target
	return b
}

// MeasuredAlternative records a measured time per execution of an
// alternative ("" invocation: all of the task's).
func (b *Builder) MeasuredAlternative(task, alternative, invocation string, ns float64) *Builder {
	b.spec.Measured.Alternatives = append(b.spec.Measured.Alternatives,
		MeasuredAlternative{Task: task, Alternative: alternative, Invocation: invocation, NS: ns})
	return b
}

// MeasuredConversion records a measured time per moved tile.
func (b *Builder) MeasuredConversion(source, target string, ns float64) *Builder {
	return b.MeasuredRenamedConversion(source, target, "", ns)
}

// MeasuredRenamedConversion records a measured time per moved tile of the
// conversion under a renaming of the tile's axes (as in an edge's
// rename, written "n=k"), which is measured apart from the conversion
// without it.
func (b *Builder) MeasuredRenamedConversion(source, target, rename string, ns float64) *Builder {
	b.spec.Measured.Conversions = append(b.spec.Measured.Conversions, MeasuredConversion{Source: source, Target: target, Rename: rename, NS: ns})
	return b
}

// Spec returns the Spec built so far.
func (b *Builder) Spec() Spec {
	s := b.spec
	s.Tasks = make(map[string]TaskSpec, len(b.tasks))
	for _, name := range b.order {
		t := b.tasks[name]
		ts := t.spec
		ts.Alternatives = nil
		for _, a := range t.alts {
			ts.Alternatives = append(ts.Alternatives, a.spec)
		}
		s.Tasks[name] = ts
	}
	return cloneSpec(s)
}

// Build validates the graph (see New).
func (b *Builder) Build() (*Graph, error) { return New(b.Spec()) }

// A TaskBuilder declares a task's ports and alternatives.
type TaskBuilder struct {
	b    *Builder
	spec TaskSpec
	alts []*AlternativeBuilder
}

// In declares a register input port; tile is a space name or indexspace text.
func (t *TaskBuilder) In(name, tile string, elem storage.ElementType) *TaskBuilder {
	t.spec.Ports = append(t.spec.Ports, PortSpec{Name: name, Direction: In, Tile: tile, Element: elem})
	return t
}

// Out declares a register output port.
func (t *TaskBuilder) Out(name, tile string, elem storage.ElementType) *TaskBuilder {
	t.spec.Ports = append(t.spec.Ports, PortSpec{Name: name, Direction: Out, Tile: tile, Element: elem})
	return t
}

// MemoryIn declares the memory input of a load.
func (t *TaskBuilder) MemoryIn(name, tile string, elem storage.ElementType, mem storage.MemorySpace) *TaskBuilder {
	t.spec.Ports = append(t.spec.Ports, PortSpec{Name: name, Direction: In, Tile: tile, Element: elem, Memory: mem})
	return t
}

// MemoryOut declares the memory output of a store.
func (t *TaskBuilder) MemoryOut(name, tile string, elem storage.ElementType, mem storage.MemorySpace) *TaskBuilder {
	t.spec.Ports = append(t.spec.Ports, PortSpec{Name: name, Direction: Out, Tile: tile, Element: elem, Memory: mem})
	return t
}

// Alternative adds an alternative with the id.
func (t *TaskBuilder) Alternative(id string) *AlternativeBuilder {
	a := &AlternativeBuilder{t: t, spec: AlternativeSpec{ID: id}}
	t.alts = append(t.alts, a)
	return a
}

// An AlternativeBuilder declares one alternative.
type AlternativeBuilder struct {
	t    *TaskBuilder
	spec AlternativeSpec
}

// Implementation sets the implementation id.
func (a *AlternativeBuilder) Implementation(id string) *AlternativeBuilder {
	a.spec.Implementation = id
	return a
}

// Dist realizes a port by a named distribution (defined or a built-in atom)
// moving in the named loop ("" for any).
func (a *AlternativeBuilder) Dist(port, name, loop string) *AlternativeBuilder {
	return a.Bind(BindingSpec{Port: port, Distribution: name, Loop: loop})
}

// InlineDist realizes a port by a distribution given in place.
func (a *AlternativeBuilder) InlineDist(port string, d *distribution.Distribution, loop string) *AlternativeBuilder {
	return a.Bind(BindingSpec{Port: port, InlineDistribution: d, Loop: loop})
}

// Layout realizes a port by a named storage layout.
func (a *AlternativeBuilder) Layout(port, name string) *AlternativeBuilder {
	return a.Bind(BindingSpec{Port: port, Layout: name})
}

// Bind realizes a port in full.
func (a *AlternativeBuilder) Bind(b BindingSpec) *AlternativeBuilder {
	a.spec.Ports = append(a.spec.Ports, b)
	return a
}

// Resources sets the resource needs.
func (a *AlternativeBuilder) Resources(r Resources) *AlternativeBuilder {
	a.spec.Resources = r
	return a
}

// Requires adds required target features.
func (a *AlternativeBuilder) Requires(features ...string) *AlternativeBuilder {
	a.spec.Requires = append(a.spec.Requires, features...)
	return a
}

// CostNS declares the time of one execution of the tile body: SM time per
// tile (one SM's time on one tile with every SM busy), so the planner
// divides ns × multiplicity by the target's sm_count (docs/format.md, "The
// cost rule").
func (a *AlternativeBuilder) CostNS(ns float64) *AlternativeBuilder {
	a.spec.Cost = CostSpec{Kind: DeclaredCost, NS: ns}
	return a
}

// CostWork gives one execution's work for the cost model.
func (a *AlternativeBuilder) CostWork(w Work) *AlternativeBuilder {
	a.spec.Cost = CostSpec{Kind: WorkCost, Work: w}
	return a
}

// Multiplicity sets how many times the tile body runs (Expr text).
func (a *AlternativeBuilder) Multiplicity(expr string) *AlternativeBuilder {
	a.spec.Multiplicity = expr
	return a
}

// An InvocationBuilder refines an invocation.
type InvocationBuilder struct {
	b *Builder
	i int
}

// Size binds a size for this invocation's multiplicities.
func (v *InvocationBuilder) Size(name string, n int64) *InvocationBuilder {
	inv := &v.b.spec.Invocations[v.i]
	if inv.Sizes == nil {
		inv.Sizes = map[string]int64{}
	}
	inv.Sizes[name] = n
	return v
}

// Pin restricts the invocation to the listed alternatives.
func (v *InvocationBuilder) Pin(ids ...string) *InvocationBuilder {
	v.b.spec.Invocations[v.i].Pin = append(v.b.spec.Invocations[v.i].Pin, ids...)
	return v
}

// Forbid removes alternatives from the invocation's candidates.
func (v *InvocationBuilder) Forbid(ids ...string) *InvocationBuilder {
	v.b.spec.Invocations[v.i].Forbid = append(v.b.spec.Invocations[v.i].Forbid, ids...)
	return v
}

// An EdgeBuilder refines an edge.
type EdgeBuilder struct {
	b *Builder
	i int
}

// Rename maps a producer tile axis to a consumer tile axis.
func (e *EdgeBuilder) Rename(producerAxis, consumerAxis string) *EdgeBuilder {
	es := &e.b.spec.Edges[e.i]
	if es.Rename == nil {
		es.Rename = map[string]string{}
	}
	es.Rename[producerAxis] = consumerAxis
	return e
}

// MustCrossKernel requires a kernel boundary on the edge.
func (e *EdgeBuilder) MustCrossKernel() *EdgeBuilder {
	e.b.spec.Edges[e.i].Kernel = MustCrossKernel
	return e
}

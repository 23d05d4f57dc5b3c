package tasks

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// The problem codes of task-graph validation, beside jsonv's (Syntax, Type,
// UnknownField, DuplicateKey, Missing, Range, Invalid, Limit, UnknownName,
// DuplicateName). docs/format.md lists them all.
const (
	CodeDirection       jsonv.Code = "direction"            // an edge from an input or into an output
	CodeTileMismatch    jsonv.Code = "tile_mismatch"        // tiles that should agree do not
	CodeElementMismatch jsonv.Code = "element_mismatch"     // element types that should agree do not
	CodeBinding         jsonv.Code = "binding"              // a port realized or connected in the wrong memory
	CodeCycle           jsonv.Code = "cycle"                // a cycle of edges
	CodeFedTwice        jsonv.Code = "fed_twice"            // an input port fed by two edges
	CodeUnconsumed      jsonv.Code = "unconsumed"           // warning: an output nothing consumes
	CodeTileCount       jsonv.Code = "tile_count"           // warning: a producer emits more tiles than its consumer reads
	CodeLoop            jsonv.Code = "loop"                 // warning: a loop name only one port uses
	CodeUnfed           jsonv.Code = "unfed"                // warning: a register input nothing feeds
	CodeDistribution    jsonv.Code = "invalid_distribution" // a distribution that is not valid
	CodeUnrunnable      jsonv.Code = "unrunnable"           // an alternative no target can run
	CodeMultiplicity    jsonv.Code = "multiplicity"         // a multiplicity that cannot be evaluated
	CodeOverflow        jsonv.Code = "overflow"             // a size or multiplicity beyond int64
	CodePin             jsonv.Code = "pin"                  // pins and forbids that leave nothing
	CodeKernel          jsonv.Code = "kernel"               // a fused group crossed by a must_cross edge
	CodeResources       jsonv.Code = "resources"            // a realization that needs more than its alternative's block
	CodeBudget          jsonv.Code = "budget"               // warning: a fused group's budget that no choice of alternatives fits
	CodeUnusedMeasured  jsonv.Code = "unused_measurement"   // warning: a measured conversion no edge's pair of realizations matches
	CodeUnusedSize      jsonv.Code = "unused_size"          // warning: a size no multiplicity of the task (or of any task) names
	CodeMeasuredTarget  jsonv.Code = "measured_target"      // warning: costs measured on another target than the graph's
	CodeKernelPath      jsonv.Code = "kernel_path"          // warning: an edge that must cross because another path between its ends does
	CodeOutsideBudget   jsonv.Code = "outside_budget"       // warning: an invocation in no group that may run in a budgeted group's kernel
	CodeGroupBridge     jsonv.Code = "group_bridge"         // warning: invocations in no group that may join two groups into one kernel
)

// The default limits on a graph, so that hostile input fails with a clear
// message rather than exhausting memory; MaxSize is the largest named size.
const (
	MaxFileBytes   = 256 << 20
	MaxInvocations = 1 << 20
	MaxEdges       = 1 << 22
	MaxSize        = indexspace.MaxSize
)

// Limits bound what Load and New accept; a zero field takes the default
// (MaxFileBytes, MaxInvocations, MaxEdges).
type Limits struct {
	FileBytes   int64
	Invocations int
	Edges       int
}

func (l Limits) withDefaults() Limits {
	if l.FileBytes <= 0 {
		l.FileBytes = MaxFileBytes
	}
	if l.Invocations <= 0 {
		l.Invocations = MaxInvocations
	}
	if l.Edges <= 0 {
		l.Edges = MaxEdges
	}
	return l
}

var root = jsonv.Path{}

// New validates spec and returns the graph. The error, if any, is a
// jsonv.Problems listing every problem found, sorted by JSON path; warnings
// alone are not an error and are kept in Graph.Warnings.
func New(spec Spec) (*Graph, error) { return Limits{}.New(spec) }

// New is the package's New under the limits l.
func (l Limits) New(spec Spec) (*Graph, error) { return l.build(cloneSpec(spec), nil) }

// build validates a Spec the graph may keep: one New copied, or one Decode
// made.
func (l Limits) build(spec Spec, prelude func(*Prelude)) (*Graph, error) {
	v := &validator{d: &jsonv.Decoder{}, spec: spec, lim: l.withDefaults()}
	g := v.graph(prelude)
	if err := v.d.Err(); err != nil {
		return nil, err
	}
	g.warnings = v.d.Problems()
	g.limits = l
	return g, nil
}

type validator struct {
	lim      Limits
	badSizes map[string]bool // sizes already reported
	d        *jsonv.Decoder
	spec     Spec
	g        *Graph
	spaces   map[string]indexspace.Space
	layout   map[string]*storage.Layout
	badMaps  map[string]bool // index maps reported invalid
	// loops are the ports naming each loop, by path, in the order seen.
	loops map[string][]jsonv.Path
	// pairs are the edges' realization pairs (edgePairs), each true when
	// an edge that may stay inside one kernel forms it, made when a
	// measured conversion first asks.
	pairs map[ConversionKey]bool
	// specEdges is the first index of each edge of the Spec by its ends
	// (specEdgeIndex), made when a problem at an edge first asks.
	specEdges map[[2]string]int
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func (v *validator) graph(prelude func(*Prelude)) *Graph {
	s := v.spec
	g := &Graph{spec: s, taskByName: map[string]*Task{}, invByID: make(map[string]*Invocation, len(s.Invocations))}
	v.g = g
	if s.Version != Version {
		v.d.Report(root.Key("version"), jsonv.Invalid, "unsupported version %d: this cklplan reads version %d", s.Version, Version)
	}
	v.target()
	v.sizes()
	v.definitions()
	for _, name := range sortedKeys(s.Tasks) {
		v.task(name, s.Tasks[name])
	}
	v.loneLoops()
	v.prelude(prelude)
	v.invocations()
	v.edges()
	v.groups()
	v.measured()
	v.order()
	v.kernelPaths()
	v.outsideBudgets()
	return g
}

// loneLoops warns of a loop only one port names: a port in loop L meets a
// port in another loop inside a kernel only through a kernel boundary, so a
// misspelt loop name silently rules fusions out.
func (v *validator) loneLoops() {
	for _, name := range sortedKeys(v.loops) {
		if len(v.loops[name]) != 1 {
			continue
		}
		var others []string
		for _, o := range sortedKeys(v.loops) {
			if o != name {
				others = append(others, strconv.Quote(o))
			}
		}
		also := ""
		if len(others) > 0 {
			also = "; the others are " + strings.Join(others, ", ")
		}
		v.d.Warn(v.loops[name][0], CodeLoop, "loop %q is named by this port only: inside a kernel it meets no other port's loop%s", name, also)
	}
}

func cloneSpec(s Spec) Spec {
	c := s
	c.Sizes = maps.Clone(s.Sizes)
	c.Spaces = maps.Clone(s.Spaces)
	c.IndexMaps = maps.Clone(s.IndexMaps)
	c.Layouts = maps.Clone(s.Layouts)
	c.Distributions = maps.Clone(s.Distributions)
	if s.Target.Custom != nil {
		t := *s.Target.Custom
		t.Features = slices.Clone(t.Features)
		c.Target.Custom = &t
	}
	c.Tasks = make(map[string]TaskSpec, len(s.Tasks))
	for k, t := range s.Tasks {
		t.Ports = slices.Clone(t.Ports)
		alts := make([]AlternativeSpec, len(t.Alternatives))
		for i, a := range t.Alternatives {
			a.Ports = slices.Clone(a.Ports)
			a.Requires = slices.Clone(a.Requires)
			alts[i] = a
		}
		t.Alternatives = alts
		c.Tasks[k] = t
	}
	c.Invocations = make([]InvocationSpec, len(s.Invocations))
	for i, inv := range s.Invocations {
		inv.Sizes = maps.Clone(inv.Sizes)
		inv.Pin = slices.Clone(inv.Pin)
		inv.Forbid = slices.Clone(inv.Forbid)
		c.Invocations[i] = inv
	}
	c.Edges = make([]EdgeSpec, len(s.Edges))
	for i, e := range s.Edges {
		e.Rename = maps.Clone(e.Rename)
		c.Edges[i] = e
	}
	c.Groups = make([]GroupSpec, len(s.Groups))
	for i, gr := range s.Groups {
		gr.Invocations = slices.Clone(gr.Invocations)
		c.Groups[i] = gr
	}
	c.Measured.Alternatives = slices.Clone(s.Measured.Alternatives)
	c.Measured.Conversions = slices.Clone(s.Measured.Conversions)
	return c
}

func (v *validator) target() {
	p := root.Key("target")
	t := v.spec.Target
	if t.Custom == nil {
		bt, ok := BuiltinTarget(t.Name)
		if !ok {
			v.d.Report(p, jsonv.UnknownName, "unknown target %q (want %s, or a custom target object)", t.Name, strings.Join(TargetNames(), ", "))
		}
		v.g.target = bt
		return
	}
	if t.Name == "" {
		v.d.Report(p.Key("name"), jsonv.Missing, "a custom target needs a name")
	} else if _, builtin := BuiltinTarget(t.Name); builtin {
		v.d.Report(p.Key("name"), jsonv.DuplicateName, "custom target named %q like a built-in target", t.Name)
	}
	for i, f := range t.Custom.Features {
		if !slices.Contains(Features, f) {
			v.d.Report(p.Key("features").Index(i), jsonv.UnknownName, "unknown feature %q (want one of %s)", f, strings.Join(Features, ", "))
		}
	}
	if t.Custom.Model == nil && !t.Custom.figuresReported {
		v.d.Report(p.Key("figures"), jsonv.Missing, "a custom target needs the cost model's figures")
	}
	v.g.target = CustomTarget(t.Name, t.Custom.Features, t.Custom.Model)
}

// checkSizes reports sizes that are not positive or too large, and
// remembers them so that multiplicities over them are not reported again.
func (v *validator) checkSizes(p jsonv.Path, sizes map[string]int64) {
	for _, name := range sortedKeys(sizes) {
		if !indexspace.IsIdent(name) {
			v.d.Report(p.Key(name), jsonv.Invalid, "size name %q is not an identifier", name)
		}
		n := sizes[name]
		if n <= 0 {
			v.d.Report(p.Key(name), jsonv.Range, "size %s must be positive, have %d", name, n)
		} else if n > MaxSize {
			v.d.Report(p.Key(name), CodeOverflow, "size %s = %d exceeds the largest size, %d", name, n, int64(MaxSize))
		}
		if n <= 0 || n > MaxSize {
			if v.badSizes == nil {
				v.badSizes = map[string]bool{}
			}
			v.badSizes[name] = true
		}
	}
}

func (v *validator) sizes() {
	v.checkSizes(root.Key("sizes"), v.spec.Sizes)
	v.g.sizes = maps.Clone(v.spec.Sizes)
	if v.g.sizes == nil {
		v.g.sizes = map[string]int64{}
	}
}

func (v *validator) definitions() {
	s := v.spec
	v.spaces = map[string]indexspace.Space{}
	for _, name := range sortedKeys(s.Spaces) {
		p := root.Key("spaces").Key(name)
		v.checkName(p, name)
		sp, err := indexspace.Parse(s.Spaces[name])
		if err != nil {
			v.d.Wrap(p, jsonv.Invalid, fmt.Errorf("invalid space: %w", err))
			continue
		}
		v.spaces[name] = sp
	}
	for _, name := range sortedKeys(s.IndexMaps) {
		p := root.Key("index_maps").Key(name)
		v.checkName(p, name)
		if _, err := indexmap.Parse(s.IndexMaps[name]); err != nil {
			v.d.Wrap(p, jsonv.Invalid, fmt.Errorf("invalid index map: %w", err))
			if v.badMaps == nil {
				v.badMaps = map[string]bool{}
			}
			v.badMaps[name] = true
		}
	}
	v.layout = map[string]*storage.Layout{}
	for _, name := range sortedKeys(s.Layouts) {
		p := root.Key("layouts").Key(name)
		v.checkName(p, name)
		if l, ok := v.parseLayout(p, s.Layouts[name]); ok {
			v.layout[name] = l
		}
	}
	for _, name := range sortedKeys(s.Distributions) {
		p := root.Key("distributions").Key(name)
		if strings.TrimSpace(name) == "" {
			v.d.Report(p, jsonv.Invalid, "a distribution needs a non-empty name")
		}
		if s.Distributions[name] == nil {
			v.d.Report(p, CodeDistribution, "distribution %q is nil", name)
		}
		if _, builtin := distribution.BuiltinSpec(name); builtin {
			v.d.Report(p, jsonv.DuplicateName, "distribution %q has the name of a built-in atom", name)
		}
		if _, clash := s.Layouts[name]; clash {
			v.d.Report(p, jsonv.DuplicateName, "%q names both a distribution and a layout", name)
		}
	}
}

// parseLayout parses storage text; a map written as the name of an index map
// of the graph ("global u4 elements align 16: w_tile") is substituted first.
func (v *validator) parseLayout(p jsonv.Path, text string) (*storage.Layout, bool) {
	if i := strings.LastIndexByte(text, ':'); i >= 0 {
		name := strings.TrimSpace(text[i+1:])
		if v.badMaps[name] {
			// Its error is the index map's, said there.
			v.d.Report(p, jsonv.Invalid, "invalid storage layout: its index map %s is invalid (at $.index_maps.%s)", name, name)
			return nil, false
		}
		if m, ok := v.spec.IndexMaps[name]; ok {
			text = text[:i+1] + " " + m
		}
	}
	l, err := storage.Parse(text)
	if err != nil {
		v.d.Wrap(p, jsonv.Invalid, fmt.Errorf("invalid storage layout: %w", err))
		return nil, false
	}
	return &l, true
}

func (v *validator) checkName(p jsonv.Path, name string) {
	if !indexspace.IsIdent(name) {
		v.d.Report(p, jsonv.Invalid, "name %q is not an identifier (letters, digits, _)", name)
	}
}

// tile resolves a space reference: a name of Spec.Spaces or indexspace text.
func (v *validator) tile(p jsonv.Path, ref string) (indexspace.Space, bool) {
	if indexspace.IsIdent(ref) {
		if sp, ok := v.spaces[ref]; ok {
			return sp, true
		}
		if _, defined := v.spec.Spaces[ref]; !defined {
			v.d.Report(p, jsonv.UnknownName, "unknown space %q", ref)
		}
		return indexspace.Space{}, false
	}
	sp, err := indexspace.Parse(ref)
	if err != nil {
		v.d.Wrap(p, jsonv.Invalid, fmt.Errorf("invalid tile: %w", err))
		return indexspace.Space{}, false
	}
	return sp, true
}

type axis struct {
	name string
	size int
}

func spaceAxes(s indexspace.Space) []axis {
	var out []axis
	for _, a := range s.Axes() {
		out = append(out, axis{a.Name(), a.Size()})
	}
	return out
}

func distAxes(d *distribution.Distribution) []axis {
	var out []axis
	for _, a := range d.Tile() {
		out = append(out, axis{a.Name, a.Size})
	}
	return out
}

func axesText(as []axis) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = fmt.Sprintf("%s:%d", a.name, a.size)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// sameAxes compares tiles by axis name and size, in any order.
func sameAxes(a, b []axis) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x.name] = x.size
	}
	for _, y := range b {
		if s, ok := m[y.name]; !ok || s != y.size {
			return false
		}
	}
	return true
}

func (v *validator) task(name string, ts TaskSpec) {
	p := root.Key("tasks").Key(name)
	v.checkName(p, name)
	t := &Task{Name: name, Kind: ts.Kind, byName: make(map[string]*Port, len(ts.Ports))}
	if int(ts.Kind) >= len(taskKindNames) {
		v.d.Report(p.Key("kind"), jsonv.Invalid, "invalid task kind %d", ts.Kind)
	}
	if len(ts.Ports) == 0 {
		v.d.Report(p.Key("ports"), jsonv.Missing, "task %s has no ports", name)
	}
	var memIn, memOut, regIn, regOut int
	for i, ps := range ts.Ports {
		pp := p.Key("ports").Key(ps.Name)
		v.checkName(pp, ps.Name)
		if t.Port(ps.Name) != nil {
			v.d.Report(pp, jsonv.DuplicateName, "port %s declared twice", ps.Name)
		}
		port := &Port{Name: ps.Name, Index: i, Direction: ps.Direction, Element: ps.Element, Memory: ps.Memory}
		if ps.Direction != In && ps.Direction != Out {
			v.d.Report(pp.Key("direction"), CodeDirection, "port %s has no direction: want in or out", ps.Name)
		}
		if tile, ok := v.tile(pp.Key("tile"), ps.Tile); ok {
			if len(tile.Axes()) == 0 {
				// The checks of realizations and edges take a port
				// without axes for one whose tile was reported: a
				// tile of no axes would pass them unchecked.
				v.d.Report(pp.Key("tile"), jsonv.Invalid, "port %s has a tile of no axes %s: a tile has at least one axis", ps.Name, tile)
			} else {
				port.Tile, port.axes = tile, spaceAxes(tile)
			}
		}
		if !ps.Element.Valid() {
			v.d.Report(pp.Key("element"), jsonv.Invalid, "port %s has no valid element type", ps.Name)
		}
		switch ps.Memory {
		case 0:
			if ps.Direction == In {
				regIn++
			} else {
				regOut++
			}
		case storage.Global, storage.Shared:
			if ps.Direction == In {
				memIn++
			} else {
				memOut++
			}
		default:
			v.d.Report(pp.Key("memory"), jsonv.Invalid, "a memory port lives in global or shared memory, not %s", ps.Memory)
		}
		if t.byName[ps.Name] == nil {
			t.byName[ps.Name] = port
		}
		t.Ports = append(t.Ports, port)
	}
	switch ts.Kind {
	case ComputeTask:
		if memIn+memOut > 0 {
			v.d.Report(p.Key("kind"), CodeBinding, "compute task %s has memory ports: make it a load or a store", name)
		}
	case LoadTask:
		if memIn == 0 || memOut > 0 || regIn > 0 {
			v.d.Report(p.Key("kind"), CodeBinding, "load %s must read memory input ports into register outputs (has %d memory inputs, %d memory outputs, %d register inputs)", name, memIn, memOut, regIn)
		}
	case StoreTask:
		if memOut == 0 || memIn > 0 || regOut > 0 {
			v.d.Report(p.Key("kind"), CodeBinding, "store %s must write register inputs to memory output ports (has %d memory outputs, %d memory inputs, %d register outputs)", name, memOut, memIn, regOut)
		}
	}
	if len(ts.Alternatives) == 0 {
		v.d.Report(p.Key("alternatives"), jsonv.Missing, "task %s has no alternatives", name)
	}
	t.byID = make(map[string]*Alternative, len(ts.Alternatives))
	for i, as := range ts.Alternatives {
		a := v.alternative(p.Key("alternatives").Index(i), t, i, as)
		if prev := t.Alternative(a.ID); prev == nil {
			t.byID[a.ID] = a
		} else if a.ID != "" {
			v.d.Report(p.Key("alternatives").Index(i).Key("id"), jsonv.DuplicateName, "alternative id %q is also alternatives[%d]", a.ID, prev.Index)
		}
		t.Alternatives = append(t.Alternatives, a)
	}
	v.g.tasks = append(v.g.tasks, t)
	v.g.taskByName[name] = t
}

func (v *validator) expr(p jsonv.Path, text string) Expr {
	if text == "" {
		return Expr{}
	}
	e, err := ParseExpr(text)
	if err != nil {
		code := CodeMultiplicity
		if ee, ok := err.(*ExprError); ok {
			switch ee.Kind {
			case ExprLimit:
				code = jsonv.Limit
			case ExprOverflow:
				code = CodeOverflow
			}
		}
		v.d.Wrap(p, code, err)
		return Expr{}
	}
	return e
}

func (v *validator) alternative(p jsonv.Path, t *Task, index int, as AlternativeSpec) *Alternative {
	a := &Alternative{Task: t, Index: index, ID: as.ID, Implementation: as.Implementation,
		Resources: as.Resources, Cost: as.Cost, Bindings: make([]Binding, len(t.Ports))}
	a.Cost.NS = positiveZero(a.Cost.NS)
	if as.ID == "" {
		v.d.Report(p.Key("id"), jsonv.Missing, "alternative %d of %s has no id", index, t.Name)
	} else {
		v.checkName(p.Key("id"), as.ID)
	}
	a.Multiplicity = v.expr(p.Key("multiplicity"), as.Multiplicity)
	bound := make([]bool, len(t.Ports))
	for _, bs := range as.Ports {
		bp := p.Key("ports").Key(bs.Port)
		port := t.Port(bs.Port)
		if port == nil {
			v.d.Report(bp, jsonv.UnknownName, "task %s has no port %q (it has %s)", t.Name, bs.Port, t.portNames())
			continue
		}
		if bound[port.Index] {
			v.d.Report(bp, jsonv.DuplicateName, "port %s realized twice", bs.Port)
			continue
		}
		bound[port.Index] = true
		a.Bindings[port.Index] = v.binding(bp, port, bs, a.Multiplicity)
	}
	for i, port := range t.Ports {
		if !bound[i] {
			a.Bindings[i] = Binding{Port: port, Multiplicity: a.Multiplicity}
			v.d.Report(p.Key("ports"), jsonv.Missing, "alternative %s does not realize port %s", as.ID, port.Name)
		}
	}
	r := as.Resources
	for _, f := range []struct {
		name string
		val  int64
	}{{"registers_per_thread", r.RegistersPerThread}, {"shared_memory_bytes", r.SharedMemoryBytes},
		{"threads_per_block", r.ThreadsPerBlock}, {"cluster_size", r.ClusterSize}} {
		if f.val < 0 {
			v.d.Report(p.Key("resources").Key(f.name), jsonv.Range, "%s must not be negative, have %d", f.name, f.val)
		}
	}
	a.Requires = slices.Clone(as.Requires)
	for i, f := range as.Requires {
		if !slices.Contains(Features, f) {
			v.d.Report(p.Key("requires").Index(i), jsonv.UnknownName, "unknown feature %q (want one of %s)", f, strings.Join(Features, ", "))
		}
	}
	slices.Sort(a.Requires)
	a.Requires = slices.Compact(a.Requires)
	if r.ClusterSize > 1 && !slices.Contains(a.Requires, "clusters") {
		a.Requires = append(a.Requires, "clusters")
		slices.Sort(a.Requires)
	}
	for _, b := range a.Bindings {
		d := b.Distribution
		if d == nil {
			continue
		}
		if d.BlocksPerCluster() > 1 && !slices.Contains(a.Requires, "clusters") {
			a.Requires = append(a.Requires, "clusters")
			slices.Sort(a.Requires)
		}
		// A distribution's warps and lanes are threads of one block.
		if threads := int64(d.LevelSize(distribution.LevelWarp)) * int64(d.LevelSize(distribution.LevelLane)); r.ThreadsPerBlock > 0 && threads > r.ThreadsPerBlock {
			v.d.Report(p.Key("ports").Key(b.Port.Name), CodeResources,
				"distribution %s spans %d threads of a block, the alternative declares %d threads per block", d.Name(), threads, r.ThreadsPerBlock)
		}
	}
	v.cost(p.Key("cost"), as.Cost)
	v.runnable(p, a)
	return a
}

func (v *validator) cost(p jsonv.Path, c CostSpec) {
	switch c.Kind {
	case DeclaredCost:
		if math.IsNaN(c.NS) || math.IsInf(c.NS, 0) || c.NS < 0 {
			v.d.Report(p.Key("ns"), jsonv.Range, "cost must be a finite non-negative number of ns, have %v", c.NS)
		}
	case WorkCost:
		if c.Work.Flops < 0 {
			v.d.Report(p.Key("work").Key("flops"), jsonv.Range, "flops must not be negative, have %d", c.Work.Flops)
		}
		if c.Work.Bytes < 0 {
			v.d.Report(p.Key("work").Key("bytes"), jsonv.Range, "bytes must not be negative, have %d", c.Work.Bytes)
		}
		switch {
		case c.Work.Instruction == "" && c.Work.Flops > 0:
			v.d.Report(p.Key("work").Key("instruction"), jsonv.Missing, "%d flops need an instruction kind (%s)", c.Work.Flops, strings.Join(InstructionKinds, ", "))
		case c.Work.Instruction != "" && !slices.Contains(InstructionKinds, c.Work.Instruction):
			v.d.Report(p.Key("work").Key("instruction"), jsonv.UnknownName, "unknown instruction kind %q (want one of %s)", c.Work.Instruction, strings.Join(InstructionKinds, ", "))
		}
	default:
		v.d.Report(p, jsonv.Missing, "no execution cost: give ns or work")
	}
}

// runnable reports an alternative that no target can run: neither a built-in
// target nor the graph's custom one.
func (v *validator) runnable(p jsonv.Path, a *Alternative) {
	var targets []Target
	for _, name := range TargetNames() {
		t, _ := BuiltinTarget(name)
		targets = append(targets, t)
	}
	if v.g.target.Custom {
		targets = append(targets, v.g.target)
	}
	// The reasons, each need once: "needs 300000 bytes of shared memory,
	// h200 allows 232448 per block, sm80 allows 166912 per block".
	var needs []string
	allows := map[string][]string{}
	for _, t := range targets {
		ok, reason := t.CanRun(a)
		if ok {
			return
		}
		need, allow, _ := strings.Cut(reason, ", ")
		if _, seen := allows[need]; !seen {
			needs = append(needs, need)
		}
		if allow != "" {
			allows[need] = append(allows[need], allow)
		}
	}
	why := make([]string, len(needs))
	for i, need := range needs {
		why[i] = strings.Join(append([]string{need}, allows[need]...), ", ")
	}
	v.d.Report(p, CodeUnrunnable, "no target can run alternative %s: %s", a.ID, strings.Join(why, "; "))
}

func (v *validator) binding(p jsonv.Path, port *Port, bs BindingSpec, altMult Expr) Binding {
	b := Binding{Port: port, Multiplicity: altMult, Loop: bs.Loop}
	if bs.Loop != "" {
		v.checkName(p.Key("loop"), bs.Loop)
		if v.loops == nil {
			v.loops = map[string][]jsonv.Path{}
		}
		v.loops[bs.Loop] = append(v.loops[bs.Loop], p.Key("loop"))
	}
	if bs.Multiplicity != "" {
		b.Multiplicity = v.expr(p.Key("multiplicity"), bs.Multiplicity)
	}
	n := 0
	for _, set := range []bool{bs.Distribution != "", bs.InlineDistribution != nil, bs.Layout != "", bs.InlineLayout != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		v.d.Report(p, CodeBinding, "port %s needs exactly one of a distribution or a layout, has %d", port.Name, n)
		return b
	}
	switch {
	case bs.Distribution != "":
		b.Name = bs.Distribution
		if d, ok := v.spec.Distributions[bs.Distribution]; ok {
			if d == nil {
				return b // reported at its definition
			}
			b.Distribution = d
		} else if d, err := distribution.Builtin(bs.Distribution); err == nil {
			b.Distribution = d
		} else {
			v.d.Report(p.Key("distribution"), jsonv.UnknownName, "unknown distribution %q: neither defined in distributions nor a built-in atom", bs.Distribution)
			return b
		}
	case bs.InlineDistribution != nil:
		b.Distribution = bs.InlineDistribution
	case bs.Layout != "":
		b.Name = bs.Layout
		l, ok := v.layout[bs.Layout]
		if !ok {
			if _, defined := v.spec.Layouts[bs.Layout]; !defined {
				v.d.Report(p.Key("layout"), jsonv.UnknownName, "unknown layout %q", bs.Layout)
			}
			return b
		}
		b.Layout = l
	default:
		l, ok := v.parseLayout(p.Key("layout"), bs.InlineLayout)
		if !ok {
			return b
		}
		b.Layout = l
	}
	var got []axis
	what := "distribution"
	if b.Distribution != nil {
		if port.IsMemory() {
			v.d.Report(p, CodeBinding, "memory port %s needs a %s layout, not a distribution", port.Name, port.Memory)
		}
		// The port gives the element type; the distribution gives who owns
		// which element and in which register slot.
		if port.Element.Valid() && b.Distribution.Element() != port.Element {
			d, err := b.Distribution.WithElement(port.Element)
			if err != nil {
				v.d.Wrap(p, CodeDistribution, err)
				return b
			}
			b.Distribution = d
		}
		if r := b.Distribution.NumRegisters(); r > registersPerThread {
			// No thread holds more: and classifying conversions of such
			// a tile (a 2048×2048 tile over 1,024 threads) took minutes
			// and gigabytes.
			v.d.Report(p, jsonv.Range, "distribution %s holds %d values of %s per thread, %d registers: a thread has at most %d",
				b.Distribution.Name(), b.Distribution.NumValues(), b.Distribution.Element(), r, registersPerThread)
		} else if d, threads := b.Distribution, b.Distribution.NumExecutors()/b.Distribution.LevelSize(distribution.LevelBlock); int64(r)*int64(threads) > registersPerBlock {
			// Nor a block: packed 32 to a register, b1 values pass the
			// thread's limit where a block's threads together could not
			// hold them (a 2048×2048 b1 tile over 1,024 threads, 128
			// registers each, ran plan out of memory).
			v.d.Report(p, jsonv.Range, "distribution %s holds %d registers per thread over %d threads of a block, %d in all: a block has at most %d",
				d.Name(), r, threads, r*threads, registersPerBlock)
		} else if all := int64(r) * int64(d.NumExecutors()); all > registersPerTile {
			// Nor the blocks of one tile together, past what the largest
			// cluster's register files hold: a 4096×32×32 f32 tile over
			// 4,096 blocks of 32 lanes passed both limits above, and
			// classifying its transpose took 47 s and 7 GB.
			v.d.Report(p, jsonv.Range, "distribution %s holds %d registers over its %d threads in %d blocks, %d in all: one invocation's tile holds at most %d (the register files of %d blocks, the largest cluster); give the task a multiplicity over the rest",
				d.Name(), r, d.NumExecutors(), d.LevelSize(distribution.LevelBlock), all, registersPerTile, maxTileBlocks)
		}
		got = distAxes(b.Distribution)
		what = "distribution " + b.Distribution.Name()
	} else {
		what = "layout"
		if bs.Layout != "" {
			what = "layout " + bs.Layout
		}
		if port.IsMemory() && b.Layout.Memory() != port.Memory {
			v.d.Report(p, CodeBinding, "memory port %s is in %s memory, the layout in %s", port.Name, port.Memory, b.Layout.Memory())
		}
		if !port.IsMemory() && b.Layout.Memory() == storage.Register {
			v.d.Report(p, CodeBinding, "register port %s takes a distribution, or a global or shared layout; a register layout says nothing of who owns what", port.Name)
		}
		if b.Layout.Element() != port.Element && port.Element.Valid() {
			v.d.Report(p, CodeElementMismatch, "%s element %s does not match port element %s", what, b.Layout.Element(), port.Element)
		}
		got = spaceAxes(b.Layout.Tile())
	}
	if want := port.axes; len(want) > 0 && !sameAxes(got, want) {
		v.d.Report(p, CodeTileMismatch, "%s tile %s does not match port tile %s", what, axesText(got), axesText(want))
	}
	return b
}

// Codes lists the package's own problem codes (beside jsonv's), in the order
// of their declaration.
func Codes() []jsonv.Code {
	return []jsonv.Code{CodeDirection, CodeTileMismatch, CodeElementMismatch, CodeBinding, CodeCycle,
		CodeFedTwice, CodeUnconsumed, CodeTileCount, CodeLoop, CodeUnfed, CodeDistribution, CodeUnrunnable, CodeMultiplicity,
		CodeOverflow, CodePin, CodeKernel, CodeResources, CodeBudget, CodeUnusedMeasured, CodeUnusedSize, CodeMeasuredTarget, CodeKernelPath, CodeOutsideBudget, CodeGroupBridge}
}

// positiveZero is x with a negative zero made 0: a time of -0 ns passes
// the checks (it is not below 0), and reports would print it "-0 ns".
func positiveZero(x float64) float64 {
	if x == 0 {
		return 0
	}
	return x
}

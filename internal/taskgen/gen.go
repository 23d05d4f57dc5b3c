// Package taskgen generates synthetic task graphs for benchmarks and for
// "cklplan gen": transformer-like stacks of layers with residual edges,
// random DAGs and random trees. Every graph is deterministic in its seed.
//
// The graphs share one vocabulary: every port carries a (m:16, n:16) f16
// tile, and every alternative binds each port to one of four Triton blocked
// distributions of one warp (Distributions), so conversions between them are
// register permutations or warp shuffles that conversion.Classify costs.
// Task kinds differ in their alternatives' costs, drawn from the seed.
package taskgen

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// Distributions are the four distributions every port chooses from: one
// warp holding a 16×16 f16 tile, eight elements per thread, in four
// arrangements.
func Distributions() (map[string]*distribution.Distribution, error) {
	shapes := []struct {
		name          string
		spt, tpw, ord []int
	}{
		{"rows8", []int{1, 8}, []int{16, 2}, []int{1, 0}},
		{"cols8", []int{8, 1}, []int{2, 16}, []int{0, 1}},
		{"rows4", []int{2, 4}, []int{8, 4}, []int{1, 0}},
		{"cols4", []int{4, 2}, []int{4, 8}, []int{0, 1}},
	}
	out := map[string]*distribution.Distribution{}
	for _, s := range shapes {
		d, err := distribution.NewBlocked(distribution.Blocked{
			Name: s.name, Axes: []string{"m", "n"}, Shape: []int{16, 16},
			SizePerThread: s.spt, ThreadsPerWarp: s.tpw, WarpsPerCTA: []int{1, 1}, Order: s.ord,
			Element: storage.F16,
		})
		if err != nil {
			return nil, fmt.Errorf("taskgen: %s: %w", s.name, err)
		}
		out[s.name] = d
	}
	return out, nil
}

var distNames = []string{"rows8", "cols8", "rows4", "cols4"}

// Alternatives is how many alternatives every generated task has.
const Alternatives = 8

// base starts a Spec with the shared vocabulary.
func base(name string) (tasks.Spec, error) {
	ds, err := Distributions()
	if err != nil {
		return tasks.Spec{}, err
	}
	return tasks.Spec{
		Version: tasks.Version, Name: name, Target: tasks.TargetSpec{Name: "h200"},
		Sizes:         map[string]int64{"T": 4096},
		Spaces:        map[string]string{"tile": "(m:16, n:16)"},
		Distributions: ds,
		Tasks:         map[string]tasks.TaskSpec{},
	}, nil
}

// addTask adds task name with the inputs, one output "y", and eight
// alternatives: alternative i reads every input in distribution (i+k) mod 4
// for input k and writes its output in (i/2) mod 4, at a cost drawn around
// baseNS (the cheapest alternatives rarely agree with their neighbours').
func addTask(s *tasks.Spec, r *rand.Rand, name string, inputs []string, baseNS float64) {
	t := tasks.TaskSpec{Kind: tasks.ComputeTask}
	for _, in := range inputs {
		t.Ports = append(t.Ports, tasks.PortSpec{Name: in, Direction: tasks.In, Tile: "tile", Element: storage.F16})
	}
	t.Ports = append(t.Ports, tasks.PortSpec{Name: "y", Direction: tasks.Out, Tile: "tile", Element: storage.F16})
	for i := range Alternatives {
		a := tasks.AlternativeSpec{
			ID: fmt.Sprintf("a%d", i), Implementation: fmt.Sprintf("%s variant %d", name, i),
			Cost:         tasks.CostSpec{Kind: tasks.DeclaredCost, NS: baseNS * (0.8 + 0.4*r.Float64())},
			Multiplicity: "T",
		}
		for k, in := range inputs {
			a.Ports = append(a.Ports, tasks.BindingSpec{Port: in, Distribution: distNames[(i+k)%4]})
		}
		a.Ports = append(a.Ports, tasks.BindingSpec{Port: "y", Distribution: distNames[(i/2)%4]})
		t.Alternatives = append(t.Alternatives, a)
	}
	s.Tasks[name] = t
}

// Transformer is a stack of layers, each ten invocations with two residual
// edges:
//
//	x → norm1 → qkv → attn → proj → add1(x) → norm2 → up → act → down → add2(add1)
//
// The first layer's x is a source invocation.
func Transformer(layers int, seed uint64) (tasks.Spec, error) {
	return transformer(layers, seed, false)
}

// GatedTransformer is Transformer with a gated MLP (SwiGLU, as in Llama)
// in each layer, eleven invocations:
//
//	x → norm1 → qkv → attn → proj → add1(x) → norm2 → up, gate → mul → down → add2(add1)
//
// so that the MLP's two branches make a diamond inside the one that its
// residual edge makes. Every other task costs what Transformer's does.
func GatedTransformer(layers int, seed uint64) (tasks.Spec, error) {
	return transformer(layers, seed, true)
}

func transformer(layers int, seed uint64, gated bool) (tasks.Spec, error) {
	name := fmt.Sprintf("transformer-L%d-seed%d", layers, seed)
	if gated {
		name = fmt.Sprintf("gated-transformer-L%d-seed%d", layers, seed)
	}
	s, err := base(name)
	if err != nil {
		return s, err
	}
	r := rand.New(rand.NewPCG(seed, 0x7a5c))
	unary := []string{"norm", "qkv", "attn", "proj", "up", "act", "down"}
	cost := map[string]float64{"norm": 2, "qkv": 12, "attn": 20, "proj": 8, "up": 16, "act": 1, "down": 16}
	for _, u := range unary {
		addTask(&s, r, u, []string{"x"}, cost[u])
	}
	addTask(&s, r, "add", []string{"x", "r"}, 1)
	addTask(&s, r, "embed", nil, 4)
	if gated {
		// From a stream of their own: every other cost is Transformer's.
		rg := rand.New(rand.NewPCG(seed, 0x9a7e))
		addTask(&s, rg, "gate", []string{"x"}, 16)
		addTask(&s, rg, "mul", []string{"x", "g"}, 1)
	}
	inv := func(id, task string) string {
		s.Invocations = append(s.Invocations, tasks.InvocationSpec{ID: id, Task: task})
		return id
	}
	edge := func(from, to string) {
		s.Edges = append(s.Edges, tasks.EdgeSpec{From: from + ".y", To: to})
	}
	x := inv("embed", "embed")
	for l := range layers {
		p := func(n string) string { return fmt.Sprintf("l%d_%s", l, n) }
		n1 := inv(p("norm1"), "norm")
		edge(x, n1+".x")
		prev := n1
		for _, n := range []string{"qkv", "attn", "proj"} {
			id := inv(p(n), n)
			edge(prev, id+".x")
			prev = id
		}
		a1 := inv(p("add1"), "add")
		edge(prev, a1+".x")
		edge(x, a1+".r")
		n2 := inv(p("norm2"), "norm")
		edge(a1, n2+".x")
		prev = n2
		mlp := []string{"up", "act", "down"}
		if gated {
			mlp = []string{"up", "mul", "down"}
		}
		for _, n := range mlp {
			id := inv(p(n), n)
			edge(prev, id+".x")
			prev = id
			if n == "mul" {
				gate := inv(p("gate"), "gate")
				edge(n2, gate+".x")
				edge(gate, id+".g")
			}
		}
		a2 := inv(p("add2"), "add")
		edge(prev, a2+".x")
		edge(a1, a2+".r")
		x = a2
	}
	addSink(&s, r, nil, nil)
	out := inv("out", "sink")
	edge(x, out+".x")
	return s, nil
}

// DAG is a random DAG of n invocations: invocation i > 0 takes 1 to
// degree−1 inputs from earlier invocations (on average degree/2, so the
// average degree is about degree), preferring recent ones; every output
// that nothing reads is read by a final sink chain so that no output is
// left unconsumed.
func DAG(n, degree int, seed uint64) (tasks.Spec, error) {
	s, err := base(fmt.Sprintf("dag-n%d-d%d-seed%d", n, degree, seed))
	if err != nil {
		return s, err
	}
	if n < 1 || degree < 2 {
		// Every invocation but the first reads at least one: degree 1
		// would be degree 2 under another name.
		return s, fmt.Errorf("taskgen: a DAG needs n ≥ 1 and degree ≥ 2, got %d and %d", n, degree)
	}
	r := rand.New(rand.NewPCG(seed, 0xda6))
	// In-degrees uniform in 1…degree−1 average degree/2, so the average
	// degree (in and out) is about degree.
	maxIn := degree - 1
	for k := 0; k <= maxIn; k++ {
		var names []string
		for j := range k {
			names = append(names, fmt.Sprintf("x%d", j))
		}
		addTask(&s, r, fmt.Sprintf("op%d", k), names, float64(2+3*k))
	}
	consumed := make([]bool, n)
	for i := range n {
		k := 0
		if i > 0 {
			k = min(i, 1+r.IntN(maxIn))
		}
		id := fmt.Sprintf("v%d", i)
		s.Invocations = append(s.Invocations, tasks.InvocationSpec{ID: id, Task: fmt.Sprintf("op%d", k)})
		picked := map[int]bool{}
		for j := range k {
			var src int
			for {
				// Mostly recent producers: a kernel graph is local.
				src = i - 1 - int(float64(i)*r.Float64()*r.Float64())
				if !picked[src] || len(picked) >= i {
					break
				}
			}
			if picked[src] {
				continue
			}
			picked[src] = true
			consumed[src] = true
			s.Edges = append(s.Edges, tasks.EdgeSpec{From: fmt.Sprintf("v%d.y", src), To: fmt.Sprintf("%s.x%d", id, j)})
		}
	}
	// Only edges to consecutive inputs are valid: renumber each consumer's
	// inputs so that x0…x(k-1) are all fed, shrinking its task to op(k').
	fed := map[string]int{}
	for _, e := range s.Edges {
		to, _, _ := cut(e.To)
		fed[to]++
	}
	for i := range s.Invocations {
		s.Invocations[i].Task = fmt.Sprintf("op%d", fed[s.Invocations[i].ID])
	}
	next := map[string]int{}
	for i, e := range s.Edges {
		to, _, _ := cut(e.To)
		s.Edges[i].To = fmt.Sprintf("%s.x%d", to, next[to])
		next[to]++
	}
	addSink(&s, r, consumed, func(i int) string { return fmt.Sprintf("v%d", i) })
	return s, nil
}

// Tree is a random in-tree of n invocations: each invocation but the root
// feeds exactly one later invocation, which takes up to three inputs.
func Tree(n int, seed uint64) (tasks.Spec, error) {
	s, err := base(fmt.Sprintf("tree-n%d-seed%d", n, seed))
	if err != nil {
		return s, err
	}
	if n < 1 {
		return s, fmt.Errorf("taskgen: a tree needs n ≥ 1, got %d", n)
	}
	r := rand.New(rand.NewPCG(seed, 0x77ee))
	for k := 0; k <= 3; k++ {
		var names []string
		for j := range k {
			names = append(names, fmt.Sprintf("x%d", j))
		}
		addTask(&s, r, fmt.Sprintf("op%d", k), names, float64(2+3*k))
	}
	// Build parents from the root down: invocation i > 0 feeds a parent
	// among 0…i-1 that has fewer than three inputs.
	parent := make([]int, n)
	fanIn := make([]int, n)
	open := []int{0}
	for i := 1; i < n; i++ {
		j := r.IntN(len(open))
		p := open[j]
		parent[i] = p
		fanIn[p]++
		if fanIn[p] == 3 {
			open = slices.Delete(open, j, j+1)
		}
		open = append(open, i)
	}
	// Invocations in reverse, so producers (children) come first.
	id := func(i int) string { return fmt.Sprintf("v%d", i) }
	for i := n - 1; i >= 0; i-- {
		s.Invocations = append(s.Invocations, tasks.InvocationSpec{ID: id(i), Task: fmt.Sprintf("op%d", fanIn[i])})
	}
	next := make([]int, n)
	for i := n - 1; i >= 1; i-- {
		p := parent[i]
		s.Edges = append(s.Edges, tasks.EdgeSpec{From: id(i) + ".y", To: fmt.Sprintf("%s.x%d", id(p), next[p])})
		next[p]++
	}
	consumed := make([]bool, n)
	for i := 1; i < n; i++ {
		consumed[i] = true
	}
	addSink(&s, r, consumed, id)
	return s, nil
}

// addSink adds a "sink" task reading one tile and feeds every unconsumed
// output to a sink invocation of its own.
func addSink(s *tasks.Spec, r *rand.Rand, consumed []bool, id func(int) string) {
	if _, ok := s.Tasks["sink"]; !ok {
		addTask(s, r, "sink", []string{"x"}, 1)
	}
	t := s.Tasks["sink"]
	// A sink's output is the graph's result: it stores, so it has none.
	t.Ports = t.Ports[:1]
	for i := range t.Alternatives {
		t.Alternatives[i].Ports = t.Alternatives[i].Ports[:1]
	}
	s.Tasks["sink"] = t
	for i, c := range consumed {
		if c {
			continue
		}
		sid := id(i) + "_out"
		s.Invocations = append(s.Invocations, tasks.InvocationSpec{ID: sid, Task: "sink"})
		s.Edges = append(s.Edges, tasks.EdgeSpec{From: id(i) + ".y", To: sid + ".x"})
	}
}

func cut(endpoint string) (inv, port string, ok bool) {
	for i := len(endpoint) - 1; i >= 0; i-- {
		if endpoint[i] == '.' {
			return endpoint[:i], endpoint[i+1:], true
		}
	}
	return endpoint, "", false
}

// smemStages are the shared-memory footprints FuseLayers gives a task's
// alternatives, cheapest first: the faster an alternative, the more it
// stages in shared memory (up to 48 KiB, as a multi-stage pipeline would).
var smemStages = [Alternatives]int64{48 << 10, 32 << 10, 32 << 10, 16 << 10, 16 << 10, 8 << 10, 0, 0}

// FuseLayers makes every layer of a Transformer graph one fused kernel (a
// group of the invocations named l<k>_…; the embedding joins the first,
// the output's sink the last) with a shared-memory budget of smemBytes, and gives every alternative a shared-memory footprint: the
// i-th cheapest of a task's alternatives (by declared cost, the first on
// ties) takes smemStages[i]. The budget then trades the kernels' fastest
// alternatives against each other and against conversions through shared
// memory, whose scratch counts against it too. It draws no random number:
// the graph is otherwise Transformer's.
func FuseLayers(s *tasks.Spec, smemBytes int64) error {
	return FuseLayersBy(s, smemBytes, 1)
}

// FuseLayersBy is FuseLayers with perKernel consecutive layers in each
// kernel (the last may have fewer), each kernel's budget smemBytes and
// its name "layers<first>_<last>" where it holds more than one layer. A
// whole model in one kernel (perKernel at least its layers) is what a
// persistent megakernel plans.
func FuseLayersBy(s *tasks.Spec, smemBytes int64, perKernel int) error {
	if smemBytes < 1 {
		return fmt.Errorf("taskgen: a kernel's shared-memory budget must be positive, got %d", smemBytes)
	}
	if perKernel < 1 {
		return fmt.Errorf("taskgen: a kernel must hold at least one layer, got %d", perKernel)
	}
	layers := 0
	for _, inv := range s.Invocations {
		if k, ok := layerOf(inv.ID); ok {
			layers = max(layers, k+1)
		}
	}
	for name, t := range s.Tasks {
		order := make([]int, len(t.Alternatives))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Compare(t.Alternatives[a].Cost.NS, t.Alternatives[b].Cost.NS)
		})
		for rank, a := range order {
			if rank < len(smemStages) {
				t.Alternatives[a].Resources.SharedMemoryBytes = smemStages[rank]
			}
		}
		s.Tasks[name] = t
	}
	byKernel := map[int]int{}
	for _, inv := range s.Invocations {
		layer, ok := layerOf(inv.ID)
		if !ok {
			continue
		}
		kernel := layer / perKernel
		gi, seen := byKernel[kernel]
		if !seen {
			gi = len(s.Groups)
			byKernel[kernel] = gi
			id := fmt.Sprintf("layer%d", layer)
			if perKernel > 1 {
				id = fmt.Sprintf("layers%d_%d", kernel*perKernel, min(layers, (kernel+1)*perKernel)-1)
			}
			s.Groups = append(s.Groups, tasks.GroupSpec{ID: id, SharedMemoryBytes: smemBytes})
		}
		s.Groups[gi].Invocations = append(s.Groups[gi].Invocations, inv.ID)
	}
	if len(s.Groups) == 0 {
		return errors.New("taskgen: no layers to fuse (invocations named l<k>_…)")
	}
	// The embedding runs in the first kernel and the output's sink in the
	// last: left in no group, each would share its neighbour's kernel
	// outside its budget (check warns of it, outside_budget).
	for _, inv := range s.Invocations {
		switch inv.ID {
		case "embed":
			s.Groups[0].Invocations = append([]string{inv.ID}, s.Groups[0].Invocations...)
		case "out":
			last := len(s.Groups) - 1
			s.Groups[last].Invocations = append(s.Groups[last].Invocations, inv.ID)
		}
	}
	s.Name += fmt.Sprintf("-smem%d", smemBytes)
	if perKernel > 1 {
		s.Name += fmt.Sprintf("-by%d", perKernel)
	}
	return nil
}

// layerOf is the layer k of a Transformer invocation named l<k>_….
func layerOf(id string) (int, bool) {
	layer, _, ok := strings.Cut(id, "_")
	if !ok || !strings.HasPrefix(layer, "l") {
		return 0, false
	}
	k, err := strconv.Atoi(layer[1:])
	return k, err == nil && k >= 0
}

// ScaleExecution multiplies every alternative's declared execution cost by
// factor, leaving the conversions (costed by the model from the
// distributions) as they are. The generated tasks execute in about 1 to 25 ns a
// tile, their alternatives within ±20 % of one another, while a conversion
// between their distributions costs 6 to 11 ns a tile (TestExecScaleFigures),
// so conversions decide the choice; a factor of 10 to 100 makes the
// alternatives' execution differ by as much as a conversion costs, as tile
// tasks that do real work (an mma's k-loop, a reduction) would. It draws no
// random number: the graph is otherwise the one generated.
func ScaleExecution(s *tasks.Spec, factor float64) error {
	if !(factor > 0) || math.IsInf(factor, 0) {
		return fmt.Errorf("taskgen: an execution scale must be a positive number, got %v", factor)
	}
	if factor == 1 {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(s.Tasks)) {
		for _, a := range s.Tasks[name].Alternatives {
			if c := a.Cost.NS * factor; math.IsInf(c, 0) || math.IsNaN(c) {
				return fmt.Errorf("taskgen: an execution scale of %v makes %s's alternative %s cost %v ns", factor, name, a.ID, c)
			}
		}
	}
	for name, t := range s.Tasks {
		alts := slices.Clone(t.Alternatives)
		for i := range alts {
			alts[i].Cost.NS *= factor
		}
		t.Alternatives = alts
		s.Tasks[name] = t
	}
	s.Name += fmt.Sprintf("-exec%g", factor)
	return nil
}

// AddUnfused gives every task with ports three unfused alternatives, each
// its own kernel's work: one that reads its inputs from global memory,
// one that writes its output there, and one that does both (for a task
// with inputs and an output; one alternative for a source or a sink), each
// binding the other ports as the task's cheapest alternative does, at
// factor times that alternative's execution cost. An edge at a global
// binding is a kernel boundary (a global round trip, docs/format.md), so
// the plan chooses where the kernels split; around each transformer
// layer's residual edges that choice can leave the kernels without an
// order. It draws no random number: the graph is otherwise the one
// generated.
func AddUnfused(s *tasks.Spec, factor float64) error {
	if !(factor > 0) || math.IsInf(factor, 0) {
		return fmt.Errorf("taskgen: an unfused alternative's cost factor must be a positive number, got %v", factor)
	}
	if s.Layouts == nil {
		s.Layouts = map[string]string{}
	}
	s.Layouts["global"] = "global f16 elements align 16: logical(m:16, n:16) -> physical(addr:256) = (m * 16 + n)"
	for _, name := range slices.Sorted(maps.Keys(s.Tasks)) {
		t := s.Tasks[name]
		if len(t.Alternatives) == 0 || len(t.Ports) == 0 {
			continue
		}
		best := t.Alternatives[0]
		for _, a := range t.Alternatives[1:] {
			if a.Cost.NS < best.Cost.NS {
				best = a
			}
		}
		var in, out bool
		for _, p := range t.Ports {
			in, out = in || p.Direction == tasks.In, out || p.Direction == tasks.Out
		}
		alts := slices.Clone(t.Alternatives)
		for _, kind := range []struct {
			id         string
			ins, outs  bool
			applicable bool
		}{{"unfused_in", true, false, in && out}, {"unfused_out", false, true, in && out}, {"unfused", true, true, true}} {
			if !kind.applicable {
				continue
			}
			a := best
			a.ID, a.Implementation = kind.id, fmt.Sprintf("%s, its own kernel (%s)", name, kind.id)
			a.Cost.NS *= factor
			a.Ports = slices.Clone(best.Ports)
			for i, b := range a.Ports {
				dir := tasks.In
				for _, p := range t.Ports {
					if p.Name == b.Port {
						dir = p.Direction
					}
				}
				if dir == tasks.In && kind.ins || dir == tasks.Out && kind.outs {
					a.Ports[i] = tasks.BindingSpec{Port: b.Port, Layout: "global"}
				}
			}
			alts = append(alts, a)
		}
		t.Alternatives = alts
		s.Tasks[name] = t
	}
	s.Name += fmt.Sprintf("-unfused%g", factor)
	return nil
}

package planner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// orderOf is an order system of edges u → w (no groups), one block per
// biconnected component.
func orderOf(n int, edges [][2]int) *orderSystem {
	o := &orderSystem{}
	for _, e := range edges {
		o.edges = append(o.edges, orderSysEdge{u: e[0], w: e[1]})
	}
	block, blocks := edgeBlocks(n, edges)
	o.blocks, o.blockEdges = blocks, make([][]int, blocks)
	for i, b := range block {
		o.edges[i].block = b
		o.blockEdges[b] = append(o.blockEdges[b], i)
	}
	return o
}

func TestFindDiamond(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     int
		edges [][2]int
		want  bool
		s, t  int
		nodes []int
	}{
		// s=0 → 1 → 2 → t=3, and 0 → 3: a residual edge beside a chain.
		{"residual", 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {0, 3}}, true, 0, 3, []int{1, 2, 3}},
		// Two edges from one port to two ports of one consumer.
		{"parallel edges", 2, [][2]int{{0, 1}, {0, 1}}, true, 0, 1, []int{1}},
		// 0 → 1 ← 2 → 3 ← 0: two sources and two sinks.
		{"two sources", 4, [][2]int{{0, 1}, {2, 1}, {2, 3}, {0, 3}}, false, 0, 0, nil},
		// Three paths from 0 to 4: a router beside two experts.
		{"three paths", 5, [][2]int{{0, 1}, {1, 4}, {0, 2}, {2, 4}, {0, 4}}, true, 0, 4, []int{1, 2, 4}},
		// Paths that share an inner node (1): a diamond 1 ⇒ 4 in series
		// after 0 → 1, beside 0 → 4.
		{"nested", 5, [][2]int{{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {0, 4}}, true, 0, 4, []int{1, 2, 3, 4}},
		// A gated MLP beside its residual edge: 0 → norm 1 → up 2, gate
		// 3 → act 4 → down 5 → add 6, and 0 → 6.
		{"gated", 7, [][2]int{{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}, {5, 6}, {0, 6}}, true, 0, 6, []int{1, 2, 3, 4, 5, 6}},
		// Attention: 0 → q 1, k 2, v 3; q, k → s 4 → p 5; p, v → o 6.
		{"attention", 7, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 4}, {4, 5}, {5, 6}, {3, 6}}, true, 0, 6, []int{1, 2, 3, 4, 5, 6}},
		// The Wheatstone bridge: 0 → 1, 0 → 2, 1 → 2, 1 → 3, 2 → 3 is
		// not series-parallel.
		{"bridge", 4, [][2]int{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}, false, 0, 0, nil},
		// A path against the others' direction: 0 → 1 → 2 and 0 → 2 → 1.
		{"crossed", 3, [][2]int{{0, 1}, {1, 2}, {0, 2}, {2, 1}}, false, 0, 0, nil},
		{"a bridge", 2, [][2]int{{0, 1}}, false, 0, 0, nil},
	} {
		o := orderOf(c.n, c.edges)
		found := false
		for b := range o.blocks {
			d, ok := findDiamond(o, b)
			if !ok {
				continue
			}
			found = true
			nodes := slices.Sorted(slices.Values(append(slices.Clone(d.nodes), d.t)))
			nodes = slices.Compact(nodes)
			if d.s != c.s || d.t != c.t || !slices.Equal(nodes, c.nodes) || len(d.edges) != len(c.edges) {
				t.Errorf("%s: s %d, t %d, flagged %v, %d edges; want %d, %d, %v, %d", c.name, d.s, d.t, nodes, len(d.edges), c.s, c.t, c.nodes, len(c.edges))
			}
		}
		if found != c.want {
			t.Errorf("%s: a diamond %v, want %v", c.name, found, c.want)
		}
	}
}

// TestDiamondExhaustive plans random diamonds of two to four paths whose
// every task binds its ports in registers or a global layout at random
// (orderGraphOf's bindings): the planner flags them (no levels) and its
// plan and every regret equal those of enumerating every plan.
func TestDiamondExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 23))
	cache := NewCache()
	graphs, flaggedCut := 60, 0
	if testing.Short() {
		graphs = 15
	}
	for gi := range graphs {
		// s = 0; each path 0 to 2 inner invocations; t last, reading
		// each path's end.
		k := 2 + rng.IntN(3)
		var ends []int
		inputs := [][]int{nil}
		for range k {
			end := 0
			for range rng.IntN(3) {
				inputs = append(inputs, []int{end})
				end = len(inputs) - 1
			}
			ends = append(ends, end)
		}
		inputs = append(inputs, ends)
		if len(inputs) > 7 {
			continue // at most 4^7 plans to enumerate
		}
		g := orderGraphFrom(t, rng, len(inputs), gi%2 == 1, func(i int) []int { return inputs[i] })
		lw := lowered(t, g)
		if lw.choosesCrossings() {
			if o := lw.orderSystemOf(); len(o.diamonds) != 1 {
				t.Errorf("graph %d (inputs %v): %d diamonds flagged, want 1", gi, inputs, len(o.diamonds))
			}
		}
		best, using := orderedOptimum(t, g, cache, nil)
		r, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
		if !checkOrderedPlan(t, fmt.Sprintf("graph %d (inputs %v)", gi, inputs), r, err, best, using) {
			continue
		}
		if len(r.KernelOrder) > 0 {
			flaggedCut++
		}
	}
	t.Logf("%d of %d diamonds kept a cheaper plan without an order out", flaggedCut, graphs)
	if !testing.Short() && flaggedCut == 0 {
		t.Error("no diamond ruled a cheaper plan out: the test tests too little")
	}
}

// randomSeriesParallel is a random series-parallel DAG from node 0 to its
// last node, of at most n nodes, as each node's producers (nodes in
// topological order; a producer twice is two edges).
func randomSeriesParallel(rng *rand.Rand, n int) [][]int {
	type edge struct{ u, w int }
	nodes := 2
	var edges []edge
	var gen func(u, w, depth int)
	gen = func(u, w, depth int) {
		switch r := rng.IntN(5); {
		case depth > 0 && r < 2 && nodes < n:
			m := nodes
			nodes++
			gen(u, m, depth-1)
			gen(m, w, depth-1)
		case depth > 0 && r < 4:
			gen(u, w, depth-1)
			gen(u, w, depth-1)
		default:
			edges = append(edges, edge{u, w})
		}
	}
	gen(0, 1, 4)
	// Number the nodes in topological order: the sink (1) last.
	in := make([]int, nodes)
	for _, e := range edges {
		in[e.w]++
	}
	index, queue := make([]int, nodes), []int{0}
	for k := 0; len(queue) > 0; k++ {
		v := queue[0]
		queue = queue[1:]
		index[v] = k
		for _, e := range edges {
			if e.u == v {
				if in[e.w]--; in[e.w] == 0 {
					queue = append(queue, e.w)
				}
			}
		}
	}
	inputs := make([][]int, nodes)
	for _, e := range edges {
		inputs[index[e.w]] = append(inputs[index[e.w]], index[e.u])
	}
	return inputs
}

// TestSeriesParallelExhaustive plans random series-parallel graphs of up
// to seven invocations (diamonds in one another's paths, in series and in
// parallel) whose every task binds its ports in registers or a global
// layout at random: every block of two or more edges whose crossings the
// choices decide is kept in order by flags (no levels; the bound on a
// node's flag sets raised, for the sinks of many compositions), and the
// plan and every regret equal those of enumerating every plan.
func TestSeriesParallelExhaustive(t *testing.T) {
	defer func(n int) { maxStatesPerNode = n }(maxStatesPerNode)
	maxStatesPerNode = 64
	rng := rand.New(rand.NewPCG(7, 29))
	cache := NewCache()
	graphs, nested, cut := 150, 0, 0
	if testing.Short() || raceEnabled {
		graphs = 30
	}
	for gi := 0; gi < graphs; {
		inputs := randomSeriesParallel(rng, 7)
		if len(inputs) < 4 {
			continue // a diamond of at most two invocations inside
		}
		gi++
		g := orderGraphFrom(t, rng, len(inputs), gi%2 == 1, func(i int) []int { return inputs[i] })
		lw := lowered(t, g)
		name := fmt.Sprintf("graph %d (inputs %v)", gi, inputs)
		if lw.choosesCrossings() {
			o := lw.orderSystemOf()
			if !lw.everyBlockAdded() {
				t.Errorf("%s: a block that may conflict is neither flagged nor added", name)
			}
			for _, d := range o.diamonds {
				if slices.ContainsFunc(d.states, func(s []uint64) bool { return len(s) > 2 }) {
					nested++
					break
				}
			}
		}
		best, using := orderedOptimum(t, g, cache, nil)
		r, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
		if checkOrderedPlan(t, name, r, err, best, using) && len(r.KernelOrder) > 0 {
			cut++
		}
	}
	t.Logf("%d of %d graphs flag nested compositions; %d kept a cheaper plan without an order out", nested, graphs, cut)
	if graphs >= 100 && (nested < graphs/4 || cut == 0) {
		t.Error("too few nested compositions or cheaper plans ruled out: the test tests too little")
	}
}

// unfusedTransformerOf is cklplan gen transformer --layers layers
// --exec-scale 100 --unfused factor of the family gen (taskgen.Transformer
// or taskgen.GatedTransformer): every task may run as its own kernel,
// through global memory, so the plan chooses where kernels split, and
// each layer's two residual edges make two diamonds (a gated layer's MLP
// one inside the second).
func unfusedTransformerOf(t testing.TB, gen func(int, uint64) (tasks.Spec, error), layers int, factor float64) *tasks.Graph {
	t.Helper()
	s, err := gen(layers, 1)
	if err == nil {
		err = taskgen.ScaleExecution(&s, 100)
	}
	if err == nil {
		err = taskgen.AddUnfused(&s, factor)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestDiamondFlagsAgainstLevels plans graphs whose every block that may
// conflict is a diamond (a gated one's MLP diamond nested in its residual
// one) twice: with the flags, and with the levels alone
// (the rounds and a pinned solve per regret, without a time bound). Both
// are exact over the plans whose kernels have an order, so the plan and
// every regret must agree; the flags need no pinned solve and no round.
func TestDiamondFlagsAgainstLevels(t *testing.T) {
	for _, c := range []struct {
		family string
		gen    func(int, uint64) (tasks.Spec, error)
		factor float64
	}{{"plain", taskgen.Transformer, 0.3}, {"gated", taskgen.GatedTransformer, 0.3}, {"plain", taskgen.Transformer, 2}, {"gated", taskgen.GatedTransformer, 2}} {
		if raceEnabled && c.factor > 1 {
			continue // the cases where the flags rule a plan out are enough
		}
		factor := c.factor
		g := unfusedTransformerOf(t, c.gen, 1, factor)
		cache := NewCache()
		flags, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if flags.UnprovenRegrets > 0 || len(flags.KernelConflicts) > 0 {
			t.Fatalf("factor %v: with flags, %d regrets unproven, conflicts %v", factor, flags.UnprovenRegrets, flags.KernelConflicts)
		}
		// Started from the plan, or from the cheaper plan whose kernels
		// have no order (a start the flags cannot take), the plan is the
		// same.
		again, err := Plan(context.Background(), g, PlanOptions{Cache: cache, Start: flags, Solve: Options{NoRegrets: true}})
		if err != nil || again.ObjectiveNS != flags.ObjectiveNS {
			t.Errorf("factor %v: from the plan, %v (%v), want %v", factor, again.ObjectiveNS, err, flags.ObjectiveNS)
		}
		rounds := orderRounds
		orderRounds, orderFlags = 0, false
		free, err := Plan(context.Background(), g, PlanOptions{Cache: cache, Solve: Options{NoRegrets: true}})
		orderRounds, orderFlags = rounds, true
		if err != nil {
			t.Fatal(err)
		}
		if factor < 1 && len(free.KernelConflicts) == 0 {
			t.Errorf("factor %v: the plan without an order has no conflict: the test tests too little", factor)
		}
		again, err = Plan(context.Background(), g, PlanOptions{Cache: cache, Start: free, Solve: Options{NoRegrets: true}})
		if err != nil || again.ObjectiveNS != flags.ObjectiveNS || len(again.KernelConflicts) > 0 {
			t.Errorf("factor %v: from a plan without an order, %v (%v), want %v", factor, again.ObjectiveNS, err, flags.ObjectiveNS)
		}
		func() {
			defer func(solves int, least time.Duration) {
				orderFlags, orderRegretSolves, orderMinTime = true, solves, least
			}(orderRegretSolves, orderMinTime)
			orderFlags, orderRegretSolves, orderMinTime = false, 1<<20, time.Hour
			levels, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(flags.ObjectiveNS-levels.ObjectiveNS) > 1e-9*levels.ObjectiveNS {
				t.Fatalf("factor %v: the plan costs %v with flags, %v with levels", factor, flags.ObjectiveNS, levels.ObjectiveNS)
			}
			if factor < 1 && len(levels.KernelOrder) == 0 {
				t.Errorf("factor %v: the levels added no block: the test tests too little", factor)
			}
			n := 0
			for i, c := range flags.Choices {
				lc := levels.Choices[i]
				if len(c.Rejected) != len(lc.Rejected) {
					t.Fatalf("%s: %d rejected with flags, %d with levels", c.Invocation, len(c.Rejected), len(lc.Rejected))
				}
				for k, r := range c.Rejected {
					lr := lc.Rejected[k]
					if !lr.Exact || !r.Exact {
						t.Fatalf("%s %s: exact %v with flags, %v with levels", c.Invocation, r.Alternative, r.Exact, lr.Exact)
					}
					if r.Alternative != lr.Alternative || (r.RegretNS == nil) != (lr.RegretNS == nil) ||
						r.RegretNS != nil && math.Abs(*r.RegretNS-*lr.RegretNS) > 1e-6*math.Max(1, math.Abs(*lr.RegretNS)) {
						t.Errorf("%s %s: regret %v with flags, %s %v with levels", c.Invocation, r.Alternative, r.RegretNS, lr.Alternative, lr.RegretNS)
					}
					n++
				}
			}
			t.Logf("%s, factor %v: plan %.1f ns, %d regrets equal, %d blocks added by the levels, %d conflicts named with flags", c.family, factor, flags.ObjectiveNS, n, len(levels.KernelOrder), len(flags.KernelOrder))
		}()
	}
}

// BenchmarkUnfusedTransformer plans cklplan gen transformer --exec-scale
// 100 --unfused 0.3, every regret explained (up to 1,000 invocations):
// every block that may conflict is a diamond. With --unfused 1.5 (the
// crossing alternatives cost more; "unfused=1.5") the plan without the
// diamonds' flags has an order, and a graph of more than 1,000
// invocations is planned without them (solveCrossings).
//
//	go test ./planner -run '^$' -bench UnfusedTransformer -benchtime 3x
func BenchmarkUnfusedTransformer(b *testing.B) {
	for _, c := range []struct {
		family string
		gen    func(int, uint64) (tasks.Spec, error)
		layers int
		factor float64
	}{
		{"plain", taskgen.Transformer, 10, 0.3}, {"plain", taskgen.Transformer, 99, 0.3},
		{"gated", taskgen.GatedTransformer, 9, 0.3}, {"gated", taskgen.GatedTransformer, 99, 0.3}, {"gated", taskgen.GatedTransformer, 1000, 0.3},
		{"plain", taskgen.Transformer, 1000, 1.5}, {"gated", taskgen.GatedTransformer, 1000, 1.5},
	} {
		g := unfusedTransformerOf(b, c.gen, c.layers, c.factor)
		name := fmt.Sprintf("%s/layers=%d", c.family, c.layers)
		if c.factor != 0.3 {
			name += fmt.Sprintf("/unfused=%g", c.factor)
		}
		b.Run(name, func(b *testing.B) {
			cache := NewCache()
			var r *Result
			for b.Loop() {
				var err error
				if r, err = Plan(context.Background(), g, PlanOptions{Cache: cache}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.UnprovenRegrets), "unproven")
		})
	}
}

// The flagged problem that Solve hands on without validating it again
// (solveValid) is valid: on gated and plain layers that may run each task
// as its own kernel, and on random series-parallel graphs, half of them
// with several bindings per port.
func TestFlaggedProblemsValidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 43))
	graphs := []*tasks.Graph{
		unfusedTransformerOf(t, taskgen.GatedTransformer, 3, 1.5),
		unfusedTransformerOf(t, taskgen.Transformer, 3, 1.5),
	}
	for len(graphs) < 40 {
		inputs := randomSeriesParallel(rng, 7)
		if len(inputs) >= 4 {
			graphs = append(graphs, orderGraphFrom(t, rng, len(inputs), len(graphs)%2 == 1, func(i int) []int { return inputs[i] }))
		}
	}
	flagged := 0
	for gi, g := range graphs {
		lw := lowered(t, g)
		if !lw.choosesCrossings() {
			continue
		}
		lw.orderSystemOf()
		f := flagDiamonds(&lw.problem)
		if f == nil {
			continue
		}
		flagged++
		if err := f.q.Validate(); err != nil {
			t.Errorf("graph %d: the flagged problem is not valid: %v", gi, err)
		}
	}
	if flagged < 10 {
		t.Errorf("%d of %d graphs flagged: the test tests too little", flagged, len(graphs))
	}
}

// Why blocks that are not series-parallel keep the levels: in the bridge
// s→a, s→c, a→b, c→d, a→d, c→b, b→t, d→t with a→b and c→d inside kernels
// and every other edge crossing, any two paths between the same two
// invocations agree (both cross or neither does), the condition that the
// flags of a series-parallel block keep, and still the kernels {a, b} and
// {c, d} each feed the other: no order exists.
func TestBridgeAgreeingPathsHaveNoOrder(t *testing.T) {
	type arc struct {
		u, w  string
		cross bool
	}
	arcs := []arc{{"s", "a", true}, {"s", "c", true}, {"a", "b", false}, {"c", "d", false},
		{"a", "d", true}, {"c", "b", true}, {"b", "t", true}, {"d", "t", true}}
	// crossed[x][y] holds what the paths from x to y do: 1 none crosses, 2
	// one crosses, 3 both kinds.
	crossed := map[string]map[string]int{}
	var walk func(from, at string, cross bool)
	walk = func(from, at string, cross bool) {
		for _, e := range arcs {
			if e.u != at {
				continue
			}
			c := cross || e.cross
			if crossed[from] == nil {
				crossed[from] = map[string]int{}
			}
			if c {
				crossed[from][e.w] |= 2
			} else {
				crossed[from][e.w] |= 1
			}
			walk(from, e.w, c)
		}
	}
	for _, v := range []string{"s", "a", "b", "c", "d", "t"} {
		walk(v, v, false)
	}
	for x, ys := range crossed {
		for y, k := range ys {
			if k == 3 {
				t.Errorf("paths from %s to %s disagree: the example does not show what it should", x, y)
			}
		}
	}
	var costs []EdgeCost
	for _, e := range arcs {
		c := EdgeCost{Edge: e.u + ".y -> " + e.w + ".x", Crossing: tasks.InKernel}
		if e.cross {
			c.Crossing = tasks.GlobalRoundTrip
		}
		costs = append(costs, c)
	}
	if hasKernelOrder(costs) {
		t.Error("the bridge's kernels have an order: agreeing paths would do")
	}
}

// A block's description, in an infeasibility's rows: a diamond names its
// paths, a block of nested diamonds says what its paths must do.
func TestDescribeDiamond(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 31))
	for _, c := range []struct {
		inputs [][]int
		want   []string
	}{
		{[][]int{nil, {0}, {1}, {2, 0}}, []string{"the paths v0 -> v1 -> v2 -> v3 and v0 -> v3 either both cross", "the paths v0 -> v3 and v0 -> v1 -> v2 -> v3 either both cross"}},
		{[][]int{nil, {0}, {0}, {0}, {1, 2, 3}}, []string{"the paths v0 -> v1 -> v4, v0 -> v2 -> v4 and v0 -> v3 -> v4 either all cross a kernel boundary or none does"}},
		{[][]int{nil, {0}, {1}, {1}, {2, 3}, {4}, {5, 0}}, []string{"every two paths between v0 and v6 (a series-parallel block of 7 invocations) that part at one invocation and meet again at another either both cross a kernel boundary between the two or neither does"}},
	} {
		var o *orderSystem
		var lw *lowering
		for range 20 { // bindings drawn until the choices decide a crossing
			lw = lowered(t, orderGraphFrom(t, rng, len(c.inputs), false, func(i int) []int { return c.inputs[i] }))
			if lw.choosesCrossings() {
				o = lw.orderSystemOf()
				break
			}
		}
		if o == nil || len(o.diamonds) != 1 {
			t.Fatalf("inputs %v: no diamond flagged", c.inputs)
		}
		got := o.diamonds[0].describe
		if !slices.ContainsFunc(c.want, func(w string) bool { return strings.HasPrefix(got, w) }) {
			t.Errorf("inputs %v: %q, want one of %q", c.inputs, got, c.want)
		}
	}
}

// The flags of a series-parallel block admit exactly the crossings that
// leave its kernels an order: for random small DAGs (random
// series-parallel ones, and random DAGs, whose blocks findDiamond mostly
// refuses), every block it takes, and every way its edges may cross, some flag
// set per node satisfies every edge (admits) if and only if the
// invocations joined by edges inside one kernel, with the crossing edges
// between them, have an order; and flagsFor, which starts a solve from a
// plan, finds such flags exactly then.
func TestDiamondFlagsAreKernelOrder(t *testing.T) {
	defer func(n int) { maxStatesPerNode = n }(maxStatesPerNode)
	maxStatesPerNode = 1 << 10
	rng := rand.New(rand.NewPCG(11, 37))
	blocks, nested, refused := 0, 0, 0
	graphs := 900
	if raceEnabled {
		graphs = 200
	}
	for gi := range graphs {
		var n int
		var edges [][2]int
		if gi%2 == 0 {
			inputs := randomSeriesParallel(rng, 9)
			n = len(inputs)
			for w, us := range inputs {
				for _, u := range us {
					edges = append(edges, [2]int{u, w})
				}
			}
		} else {
			n = 3 + rng.IntN(5)
			for w := 1; w < n; w++ {
				for range 1 + rng.IntN(2) {
					edges = append(edges, [2]int{rng.IntN(w), w})
				}
			}
		}
		if len(edges) > 14 {
			continue
		}
		o := orderOf(n, edges)
		for b := range o.blocks {
			d, ok := findDiamond(o, b)
			if !ok {
				if len(o.blockEdges[b]) > 1 {
					refused++
				}
				continue
			}
			blocks++
			if slices.ContainsFunc(d.states, func(s []uint64) bool { return len(s) > 2 }) {
				nested++
			}
			be := o.blockEdges[b]
			for mask := 0; mask < 1<<len(be); mask++ {
				cross := map[int]bool{} // order edge → crosses
				for k, ei := range be {
					cross[ei] = mask>>k&1 == 1
				}
				want := blockHasOrder(o, be, cross)
				if got := flagsSatisfiable(o, &d, cross); got != want {
					t.Fatalf("edges %v, block %d crossing %v: flags admit it %v, an order exists %v", edges, b, cross, got, want)
				}
				// A start's flags (flagsFor): where there is an order,
				// flags that satisfy every edge.
				along := make([]bool, len(d.edges))
				for i, ei := range d.edges {
					along[i] = cross[ei]
				}
				flags, ok := d.flagsFor(o, along)
				if ok != want {
					t.Fatalf("edges %v, block %d crossing %v: flagsFor %v, an order exists %v", edges, b, cross, ok, want)
				}
				for i, ei := range d.edges {
					e := &o.edges[ei]
					if ok && !d.admits(i, flags[e.u]*b2u(e.u != d.s), flags[e.w], along[i]) {
						t.Fatalf("edges %v, block %d crossing %v: flagsFor's %v break edge %d", edges, b, cross, flags, ei)
					}
				}
			}
		}
	}
	t.Logf("%d blocks checked at every crossing (%d with nested compositions); %d blocks refused", blocks, nested, refused)
	if !raceEnabled && (blocks < 200 || nested < 50) {
		t.Error("too few blocks: the test tests too little")
	}
}

// b2u is 1 for true, 0 for false.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// flagsSatisfiable reports whether some flag set of each of d's nodes
// satisfies every edge of d under the crossings: a search in d's
// topological order.
func flagsSatisfiable(o *orderSystem, d *orderDiamond, cross map[int]bool) bool {
	index := map[int]int{}
	for i, v := range d.nodes {
		index[v] = i
	}
	state := make([]uint64, len(d.nodes))
	var assign func(i int) bool
	assign = func(i int) bool {
		if i == len(d.nodes) {
			return true
		}
		w := d.nodes[i]
	next:
		for _, mw := range d.states[i] {
			for k, ei := range d.edges {
				e := &o.edges[ei]
				if e.w != w {
					continue
				}
				var mu uint64
				if e.u != d.s {
					mu = state[index[e.u]]
				}
				if !d.admits(k, mu, mw, cross[ei]) {
					continue next
				}
			}
			state[i] = mw
			if assign(i + 1) {
				return true
			}
		}
		return false
	}
	return assign(0)
}

// blockHasOrder reports whether the invocations joined by the block's
// edges that stay inside one kernel, as kernels, have an order
// (hasKernelOrder, the oracle of the planner's other kernel-order tests).
func blockHasOrder(o *orderSystem, edges []int, cross map[int]bool) bool {
	costs := make([]EdgeCost, len(edges))
	for k, ei := range edges {
		costs[k] = EdgeCost{Edge: fmt.Sprintf("v%d.y -> v%d.x", o.edges[ei].u, o.edges[ei].w), Crossing: tasks.InKernel}
		if cross[ei] {
			costs[k].Crossing = tasks.GlobalRoundTrip
		}
	}
	return hasKernelOrder(costs)
}

// TestDiamondsWaitForAConflict plans layers whose every task may run as
// its own kernel without regrets, where the plan without the diamonds'
// flags comes first (solveCrossings), and with every regret, where the
// flags are there from the start. Where the crossing alternatives cost
// 1.5× (plain execution costs), the first plan has an order: it stands,
// and the flags' groups are never built. Where they cost 0.3× and
// execution outweighs conversion, it has conflicts: the flags rule them
// out, and the report names the same ones. Both ways plan at one cost.
func TestDiamondsWaitForAConflict(t *testing.T) {
	for _, c := range []struct {
		name      string
		gen       func(int, uint64) (tasks.Spec, error)
		scale     float64
		factor    float64
		conflicts bool
	}{
		{"plain 1.5", taskgen.Transformer, 1, 1.5, false},
		{"gated 1.5", taskgen.GatedTransformer, 1, 1.5, false},
		{"plain, exec ×100, 0.3", taskgen.Transformer, 100, 0.3, true},
		{"gated, exec ×100, 0.3", taskgen.GatedTransformer, 100, 0.3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.gen(3, 1)
			if err == nil && c.scale != 1 {
				err = taskgen.ScaleExecution(&s, c.scale)
			}
			if err == nil {
				err = taskgen.AddUnfused(&s, c.factor)
			}
			if err != nil {
				t.Fatal(err)
			}
			g, err := tasks.New(s)
			if err != nil {
				t.Fatal(err)
			}
			var lw *lowering
			plantInLowering = func(l *lowering) { lw = l }
			defer func() { plantInLowering = nil }()
			plain, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
			if err != nil {
				t.Fatal(err)
			}
			o := lw.problem.order
			if o == nil {
				t.Fatal("no order system: the graph chooses no crossing, and the test tests nothing")
			}
			if got := lw.unflaggedPlan != nil; got != c.conflicts {
				t.Errorf("the first plan had kernel-order conflicts: %v, want %v", got, c.conflicts)
			}
			if built := o.flagGroups != nil || len(o.diamonds) > 0; built != c.conflicts {
				t.Errorf("the diamonds' flags were built: %v, want %v", built, c.conflicts)
			}
			explained, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if plain.Status != Optimal || explained.Status != Optimal {
				t.Fatalf("status %v without regrets, %v with them; want both optimal", plain.Status, explained.Status)
			}
			if d := math.Abs(plain.ObjectiveNS - explained.ObjectiveNS); d > 1e-9*explained.ObjectiveNS {
				t.Errorf("objective %.6f ns without regrets, %.6f ns with them", plain.ObjectiveNS, explained.ObjectiveNS)
			}
			if len(plain.KernelConflicts) > 0 {
				t.Errorf("the plan without regrets has kernel conflicts: %v", plain.KernelConflicts)
			}
			if !slices.Equal(plain.KernelOrder, explained.KernelOrder) {
				t.Errorf("kernel order without regrets:\n  %v\nwith them:\n  %v", plain.KernelOrder, explained.KernelOrder)
			}
			if c.conflicts && len(plain.KernelOrder) == 0 {
				t.Error("no conflict named: the flags ruled nothing out, and the test tests too little")
			}
		})
	}
}

package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// orderGraph is a random DAG of n invocations whose ports hold the tile in
// registers (the mma A fragment, "r") or in a global layout ("g"): each
// invocation but the first reads one or two earlier ones, and each is its
// own task with up to four of the ways to bind its ports, at random costs.
// An alternative that writes or reads the global layout is a kernel
// boundary on its edges, chosen by the plan, so the plan decides which
// paths cross: the graphs kernelOrderGraph's must_cross cannot make.
func orderGraph(t testing.TB, rng *rand.Rand, n int) *tasks.Graph {
	t.Helper()
	return orderGraphOf(t, rng, n, false)
}

// orderGraphOf is orderGraph's DAG, and with pairs, one with a third
// binding: the tile in registers split over two blocks, "r" with block b
// holding row b and "s" with the rows swapped. Between "r" and "s" the data
// crosses blocks, which no kernel without a cluster can do: the edge splits
// the kernel there (TestCrossBlockConversionSplitsTheKernel). So whether
// such an edge crosses depends on both of its ends' choices, not on one
// alone.
func orderGraphOf(t testing.TB, rng *rand.Rand, n int, pairs bool) *tasks.Graph {
	t.Helper()
	return orderGraphFrom(t, rng, n, pairs, func(i int) []int {
		var ins []int
		if i > 0 {
			ins = append(ins, rng.IntN(i))
			if i > 1 && rng.IntN(2) == 0 {
				if j := rng.IntN(i); j != ins[0] {
					ins = append(ins, j)
				}
			}
		}
		return ins
	})
}

// orderGraphFrom is orderGraphOf's graph of n invocations, invocation i
// reading its inputs x0, x1, … from the outputs of inputs(i), earlier
// invocations (called for each i in turn).
func orderGraphFrom(t testing.TB, rng *rand.Rand, n int, pairs bool, inputs func(i int) []int) *tasks.Graph {
	t.Helper()
	kinds := []string{"r", "g"}
	bind := map[string]string{"r": `"mma.m16n8k16.a.f16"`, "g": `{"layout": "g"}`}
	// M tiles: 64, one wave on the H200's 132 SMs; with pairs 4,096, 31
	// waves, over which a conversion across blocks inside the kernel costs
	// more than splitting the kernel once (the costs scaled to keep the
	// same ratio to a tile's round trip).
	tiles := 64.0
	space, element, layout, dists := "(m:16, k:16)", "f16", "global f16 elements align 16: logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)", ""
	if pairs {
		kinds, tiles = []string{"r", "s", "g"}, 4096
		bind = map[string]string{"r": `"rows"`, "s": `"swapped"`, "g": `{"layout": "g"}`}
		space, element, layout = "(b:2, x:32)", "f32", "global f32 elements align 16: logical(b:2, x:32) -> physical(addr:64) = (b * 32 + x)"
		dists = `
  "distributions": {
    "rows": {"name": "rows", "executors": [{"name": "block", "size": 2, "level": "block"}, {"name": "lane", "size": 32, "level": "lane"}],
             "tile": [{"name": "b", "size": 2}, {"name": "x", "size": 32}], "ownership": {"b": "block", "x": "lane"}},
    "swapped": {"name": "swapped", "executors": [{"name": "block", "size": 2, "level": "block"}, {"name": "lane", "size": 32, "level": "lane"}],
             "tile": [{"name": "b", "size": 2}, {"name": "x", "size": 32}], "ownership": {"b": "1 - block", "x": "lane"}}
  },`
	}
	var tasksJSON, invs, edges []string
	for i := range n {
		ins := inputs(i)
		ports := []string{fmt.Sprintf(`"y": {"direction": "out", "tile": "t", "element": %q}`, element)}
		for k := range ins {
			ports = append(ports, fmt.Sprintf(`"x%d": {"direction": "in", "tile": "t", "element": %q}`, k, element))
			edges = append(edges, fmt.Sprintf(`{"from": "v%d.y", "to": "v%d.x%d"}`, ins[k], i, k))
		}
		// Every binding of the ports, a random four of them.
		nPorts := 1 + len(ins)
		all := 1
		for range nPorts {
			all *= len(kinds)
		}
		binds := rng.Perm(all)[:min(4, all)]
		slices.Sort(binds)
		var alts []string
		for _, b := range binds {
			var ps []string
			name := ""
			for k := range nPorts {
				port := "y"
				if k > 0 {
					port = fmt.Sprintf("x%d", k-1)
				}
				kind := kinds[b%len(kinds)]
				b /= len(kinds)
				ps = append(ps, fmt.Sprintf(`"%s": %s`, port, bind[kind]))
				name += kind
			}
			alts = append(alts, fmt.Sprintf(`{"id": "%s", "ports": {%s}, "cost": {"ns": %g}, "multiplicity": "M"}`,
				name, strings.Join(ps, ", "), float64(1+rng.IntN(4000))*64/tiles))
		}
		tasksJSON = append(tasksJSON, fmt.Sprintf(`"t%d": {"ports": {%s}, "alternatives": [%s]}`, i, strings.Join(ports, ", "), strings.Join(alts, ", ")))
		invs = append(invs, fmt.Sprintf(`{"id": "v%d", "task": "t%d"}`, i, i))
	}
	src := fmt.Sprintf(`{"version": 1, "name": "order", "target": "h200", "sizes": {"M": %d},
  "spaces": {"t": %q},%s
  "layouts": {"g": %q},
  "tasks": {%s},
  "invocations": [%s],
  "edges": [%s]}`, int(tiles), space, dists, layout, strings.Join(tasksJSON, ",\n"), strings.Join(invs, ", "), strings.Join(edges, ", "))
	g, err := tasks.Load([]byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return g
}

// hasKernelOrder reports whether the edges' crossings leave the kernels an
// order: the invocations joined by edges inside one kernel are one kernel,
// no crossing edge has both ends in one, and the crossing edges between
// kernels make no cycle.
func hasKernelOrder(edges []EdgeCost) bool {
	inside, cycle := kernelOrderConflicts(edges)
	return !inside && !cycle
}

// kernelOrderConflicts reports whether a plan's edges have an edge that
// crosses between two invocations of one kernel, and otherwise whether
// its kernels have a cycle.
func kernelOrderConflicts(edges []EdgeCost) (inside, cycle bool) {
	parent := map[string]string{}
	var find func(string) string
	find = func(v string) string {
		if p, ok := parent[v]; ok && p != v {
			r := find(p)
			parent[v] = r
			return r
		}
		return v
	}
	ends := func(e string) (string, string) {
		from, to, _ := strings.Cut(e, " -> ")
		return from[:strings.IndexByte(from, '.')], to[:strings.IndexByte(to, '.')]
	}
	for _, e := range edges {
		if e.Crossing == tasks.InKernel {
			u, w := ends(e.Edge)
			if ru, rw := find(u), find(w); ru != rw {
				parent[ru] = rw
			}
		}
	}
	succ := map[string][]string{}
	indeg := map[string]int{}
	nodes := map[string]bool{}
	for _, e := range edges {
		if e.Crossing == tasks.InKernel {
			continue
		}
		u, w := ends(e.Edge)
		ku, kw := find(u), find(w)
		if ku == kw {
			return true, false
		}
		succ[ku] = append(succ[ku], kw)
		indeg[kw]++
		nodes[ku], nodes[kw] = true, true
	}
	var ready []string
	for k := range nodes {
		if indeg[k] == 0 {
			ready = append(ready, k)
		}
	}
	seen := 0
	for len(ready) > 0 {
		k := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		seen++
		for _, s := range succ[k] {
			if indeg[s]--; indeg[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	return false, seen != len(nodes)
}

// The plan is the cheapest of the plans whose kernels have an order, on
// random DAGs whose alternatives choose which edges cross: every plan
// enumerated and recomputed from the graph (EvaluateGraph), the planner's
// rows against kernel-order conflicts checked against it. On orderGraph's
// DAGs an edge crosses where one of its ends binds the global layout; on
// orderGraphOf's with pairs also where its ends bind the two register
// distributions that split the tile over blocks differently, so that a
// row's alternative sets must keep the pair's state against the other
// end's set.
//
// Each runs twice: with the search over the edges' states (ordersearch.go)
// and with the levels alone (orderSearchSolves 0), which the search leaves
// the plans and regrets to past its solves.
func TestKernelOrderExhaustive(t *testing.T) {
	defer func(n int) { orderSearchSolves = n }(orderSearchSolves)
	for _, levels := range []bool{false, true} {
		solves, suffix := 200, ""
		if levels {
			solves, suffix = 0, ", levels"
		}
		t.Run("one end"+suffix, func(t *testing.T) {
			orderSearchSolves = solves
			kernelOrderExhaustive(t, rand.New(rand.NewPCG(7, 11)), false, levels)
		})
		t.Run("both ends"+suffix, func(t *testing.T) {
			orderSearchSolves = solves
			kernelOrderExhaustive(t, rand.New(rand.NewPCG(13, 17)), true, levels)
		})
	}
}

func kernelOrderExhaustive(t *testing.T, rng *rand.Rand, pairs, levels bool) {
	cache := NewCache()
	cut, pairCut, graphs := 0, 0, 120
	inside, cycles := 0, 0
	searched := 0    // the regrets' searches over the edges' states that branched
	searchPlans := 0 // the plans that search found instead of levels
	levelPlans := 0  // the plans whose levels stayed in the problem
	rounds, minTime := orderRounds, orderMinTime
	defer func() { orderRounds, orderMinTime = rounds, minTime }()
	orderMinTime = time.Hour // exact, however slow the machine
	if testing.Short() {
		graphs = 30
	}
	for gi := range graphs {
		g := orderGraphOf(t, rng, 3+rng.IntN(3), pairs)
		bestAny := math.Inf(1)
		// anyPairs: the edges crossing between register bindings in the
		// plan of cost bestAny.
		anyPairs := 0
		// unordered: the plans whose kernels have no order, by cost and
		// kind of conflict.
		type unorderedPlan struct {
			cost          float64
			inside, cycle bool
		}
		var unordered []unorderedPlan
		best, using := orderedOptimum(t, g, cache, func(ev *GraphEvaluation, choice []GraphChoice, in, cy bool) {
			if ev.Cost < bestAny {
				bestAny, anyPairs = ev.Cost, registerCrossings(ev.Edges, choice)
			}
			if in || cy {
				unordered = append(unordered, unorderedPlan{ev.Cost, in, cy})
			}
		})
		var lw *lowering
		plantInLowering = func(l *lowering) { lw = l }
		r, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
		plantInLowering = nil
		if !checkOrderedPlan(t, fmt.Sprintf("graph %d", gi), r, err, best, using) {
			continue
		}
		searched += lw.orderSearchBranched
		searchPlans += lw.orderSearchPlans
		if o := lw.problem.order; o != nil && slices.Contains(o.added, true) {
			levelPlans++
		}
		ev, err := EvaluateGraph(g, ChoicesOf(r), PlanOptions{Cache: cache})
		if err != nil || !hasKernelOrder(ev.Edges) {
			t.Errorf("graph %d: the plan's kernels have no order (%v)", gi, err)
		}
		if best > bestAny {
			cut++
			if anyPairs > 0 {
				pairCut++
			}
			// Without the levels, the plan is one that has no order.
			orderRounds, orderFlags = 0, false
			r, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
			orderRounds, orderFlags = rounds, true
			if err != nil || !(r.ObjectiveNS < best) || len(r.KernelConflicts) == 0 {
				t.Errorf("graph %d: without the levels, %v (%v), want a cheaper plan with a conflict", gi, r, err)
				continue
			}
			// The kinds of conflict the levels ruled out: those of the
			// plans cheaper than the plan.
			in, cy := false, false
			for _, u := range unordered {
				if u.cost < best {
					in, cy = in || u.inside, cy || u.cycle
				}
			}
			if in {
				inside++
			}
			if cy {
				cycles++
			}
		}
	}
	t.Logf("%d of %d graphs needed levels against kernel-order conflicts (%d where the cheapest plan without an order splits a kernel between register bindings); cheaper plans with an edge crossing inside one kernel in %d, with a cycle of kernels in %d; %d plans and %d regrets' searches over the edges' states branched",
		cut, graphs, pairCut, inside, cycles, searchPlans, searched)
	if testing.Short() {
		return // too few graphs to need every kind of row
	}
	if levels {
		if searchPlans > 0 || searched > 0 {
			t.Errorf("%d plans and %d regrets searched with orderSearchSolves 0", searchPlans, searched)
		}
		if levelPlans == 0 {
			t.Error("no plan needed levels: the test tests too little of them")
		}
		return
	}
	if searchPlans == 0 {
		t.Error("no plan was the search's: the test tests too little of it")
	}
	if !pairs && searched == 0 {
		// (Where both ends decide, the plans that need levels keep them
		// for their regrets: their pinned plans have an order already.)
		t.Error("no regret's search over the edges' states branched: the test tests too little of it")
	}
	if cut == 0 || inside == 0 || cycles == 0 {
		t.Error("the graphs did not need the levels against both kinds of conflict: the test tests too little")
	}
	if pairs && pairCut == 0 {
		t.Error("no row was against a conflict through an edge whose crossing depends on both ends: the test tests too little")
	}
}

// orderedOptimum enumerates every plan of g: it returns the cost of the
// cheapest whose kernels have an order (+Inf when none has) and, for each
// invocation's alternative, the cheapest such plan using it; visit, when
// not nil, sees every feasible plan with the kinds of kernel-order
// conflict it has.
func orderedOptimum(t *testing.T, g *tasks.Graph, cache *Cache, visit func(ev *GraphEvaluation, choice []GraphChoice, inside, cycle bool)) (float64, map[[2]string]float64) {
	t.Helper()
	invs := g.Invocations()
	best := math.Inf(1)
	using := map[[2]string]float64{}
	choice := make([]GraphChoice, len(invs))
	var walk func(i int)
	walk = func(i int) {
		if i < len(invs) {
			for _, a := range invs[i].Task.Alternatives {
				choice[i] = GraphChoice{Alternative: a.ID}
				walk(i + 1)
			}
			return
		}
		ev, err := EvaluateGraph(g, choice, PlanOptions{Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if !ev.Feasible() {
			return
		}
		in, cy := kernelOrderConflicts(ev.Edges)
		if visit != nil {
			visit(ev, choice, in, cy)
		}
		if in || cy {
			return
		}
		best = math.Min(best, ev.Cost)
		for v, c := range choice {
			k := [2]string{invs[v].ID, c.Alternative}
			if old, ok := using[k]; !ok || ev.Cost < old {
				using[k] = ev.Cost
			}
		}
	}
	walk(0)
	return best, using
}

// checkOrderedPlan checks Plan's result r (err) against orderedOptimum's
// enumeration: the plan is the cheapest with an order of kernels, and
// every regret that of the cheapest such plan using the alternative. It
// reports whether r is a plan to check further.
func checkOrderedPlan(t *testing.T, name string, r *Result, err error, best float64, using map[[2]string]float64) bool {
	t.Helper()
	if math.IsInf(best, 1) {
		if !errors.Is(err, ErrInfeasible) {
			t.Errorf("%s: no plan has an order of kernels, but Plan gives %v", name, err)
		}
		return false
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if math.Abs(r.ObjectiveNS-best) > 1e-6*best {
		t.Errorf("%s: plan %v ns, the cheapest with an order of kernels %v ns; rows %q", name, r.ObjectiveNS, best, r.KernelOrder)
	}
	if len(r.KernelConflicts) > 0 {
		t.Errorf("%s: conflicts %q", name, r.KernelConflicts)
	}
	for _, c := range r.Choices {
		for _, rj := range c.Rejected {
			want, ok := using[[2]string{c.Invocation, rj.Alternative}]
			switch {
			case !ok && rj.Infeasible:
			case !ok || rj.Infeasible || rj.RegretNS == nil:
				t.Errorf("%s: %s's %s: regret %v (infeasible %v), want %v", name, c.Invocation, rj.Alternative, rj.RegretNS, rj.Infeasible, want-best)
			case math.Abs(*rj.RegretNS-(want-best)) > 1e-6*best || !rj.Exact:
				t.Errorf("%s: %s's %s: regret %v (exact %v), want %v: the cheapest plan with an order using it", name, c.Invocation, rj.Alternative, *rj.RegretNS, rj.Exact, want-best)
			}
		}
	}
	return true
}

// registerCrossings counts the edges that cross a kernel boundary under
// choice although neither end binds the global layout (orderGraphOf's
// alternative names give each port's binding, "y" first, then x0, x1).
func registerCrossings(edges []EdgeCost, choice []GraphChoice) int {
	binding := func(end string) byte {
		inv, port, _ := strings.Cut(end, ".")
		v, _ := strconv.Atoi(strings.TrimPrefix(inv, "v"))
		k := 0
		if port != "y" {
			k, _ = strconv.Atoi(strings.TrimPrefix(port, "x"))
			k++
		}
		return choice[v].Alternative[k]
	}
	n := 0
	for _, e := range edges {
		from, to, _ := strings.Cut(e.Edge, " -> ")
		if e.Crossing != tasks.InKernel && binding(from) != 'g' && binding(to) != 'g' {
			n++
		}
	}
	return n
}

// TestOrderRegretsTakeTheirLevelsOut plans a random DAG whose every
// invocation may run as its own kernel (gen dag --unfused), every regret
// exact: the plan needs no levels, and the pinned solves of the regrets
// whose best plans have a kernel-order conflict add some. A query's levels
// are taken out after it, so the problem the reasons re-plan is the
// plan's, which the reduction solves whole: no re-plan leaves a core to
// HiGHS (they did, 10 s each on a 20-invocation DAG, 64 of them, for
// reasons left as they were).
func TestOrderRegretsTakeTheirLevelsOut(t *testing.T) {
	// The levels, not the search over the edges' states (which needs
	// none: TestOrderSearchAgreesWithLevels).
	defer func(n int) { orderSearchSolves = n }(orderSearchSolves)
	orderSearchSolves = 0
	g := unfusedDAG(t, 6, 1)
	var lw *lowering
	plantInLowering = func(l *lowering) { lw = l }
	defer func() { plantInLowering = nil }()
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	regretCuts := 0
	for _, c := range lw.orderCuts {
		if c.regret {
			regretCuts++
		} else {
			t.Errorf("the plan added the levels of block %d (%s): the test wants a plan without", c.block, c.what)
		}
	}
	if regretCuts == 0 {
		t.Error("no regret's plan had a kernel-order conflict: the test tests too little")
	}
	if o := lw.problem.order; o != nil && slices.Contains(o.added, true) {
		t.Errorf("levels left in the problem after the regrets: %v", o.added)
	}
	if !dissolves(&lw.problem) {
		t.Error("the plan's problem leaves a core after the regrets")
	}
	if n := lw.replanCores.Load(); n > 0 {
		t.Errorf("%d of the reasons' re-plans left a core to HiGHS", n)
	}
	if r.UnprovenRegrets > 0 {
		t.Errorf("%d regrets unproven without limits", r.UnprovenRegrets)
	}
	named := 0
	for _, c := range r.Choices {
		for _, rj := range c.Rejected {
			if strings.Contains(rj.Reason, replannedNote[:len(replannedNote)-2]+": ") || strings.Contains(rj.Reason, replannedAlsoAt) {
				named++
			}
		}
	}
	t.Logf("%d pinned solves' levels taken out; %d reasons name the re-planned choices", regretCuts, named)
}

// unfusedDAG is gen dag --invocations n --seed seed --unfused 1.2: a
// random DAG whose every task may run as its own kernel.
func unfusedDAG(t testing.TB, n int, seed uint64) *tasks.Graph {
	t.Helper()
	return editedDAG(t, n, seed, func(s *tasks.Spec) error { return taskgen.AddUnfused(s, 1.2) })
}

// cliRegretLimits are cklplan plan's default regret limits.
var cliRegretLimits = CommandLineOptions()

// TestKernelOrderUntimed plans random DAGs whose every invocation may run
// as its own kernel without any time bound: nothing is timed then (no
// window for the kernel order's rounds or re-solves), so every regret is
// exact and two plans are the same byte for byte, however slow the
// machine. With a regret time limit, the re-solves get their window.
func TestKernelOrderUntimed(t *testing.T) {
	for _, seed := range []uint64{2, 3} {
		g := unfusedDAG(t, 8, seed)
		var reports [2]string
		for i := range reports {
			r, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != Optimal || r.UnprovenRegrets > 0 {
				t.Errorf("seed %d: %s, %d regrets unproven, without any time bound", seed, r.Status, r.UnprovenRegrets)
			}
			var b strings.Builder
			if err := r.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			reports[i] = b.String()
		}
		if reports[0] != reports[1] {
			t.Errorf("seed %d: two plans differ", seed)
		}
	}
	// A regret time limit of a nanosecond: the window is the regrets',
	// and it stops the pinned solves at once.
	g := unfusedDAG(t, 8, 2)
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{RegretTimeLimit: time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	if r.UnprovenRegrets == 0 {
		t.Error("a regret time limit of a nanosecond left every regret proven: the window is not the regrets'")
	}
}

// TestKernelOrderRegretsWorkBudget: under a work budget (Options.RegretWork)
// and no time limit, the kernel order's regret searches and solves with
// levels heed the budget and no time window (a regret time limit of a
// nanosecond here): the regrets they leave unproven are named the budget's,
// are the same from run to run and on any number of workers, and their
// intervals hold the exact regrets, which a plan without any bound gives.
func TestKernelOrderRegretsWorkBudget(t *testing.T) {
	defer func(s, e, i int64) { orderRegretSearchSolves, orderRegretEntries, orderRegretIterations = s, e, i }(
		orderRegretSearchSolves, orderRegretEntries, orderRegretIterations)
	cut := 0
	for _, seed := range []uint64{1, 2, 3} {
		g := unfusedDAG(t, 10, seed)
		exact, err := Plan(context.Background(), g, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if exact.UnprovenRegrets > 0 {
			t.Fatalf("seed %d: %d regrets unproven without any bound", seed, exact.UnprovenRegrets)
		}
		// A budget of a few solves and entries, and one iteration.
		orderRegretSearchSolves, orderRegretEntries, orderRegretIterations = 8, 1<<12, 1
		var first string
		for run, workers := range []int{1, 2, 1, 4} {
			so := Options{RegretWork: DefaultRegretWork, RegretTimeLimit: time.Nanosecond, RegretSolves: DefaultRegretSolves, Workers: workers}
			r, err := Plan(context.Background(), g, PlanOptions{Solve: so})
			if err != nil {
				t.Fatal(err)
			}
			if r.ObjectiveNS != exact.ObjectiveNS {
				t.Fatalf("seed %d: plan of %v ns, want %v", seed, r.ObjectiveNS, exact.ObjectiveNS)
			}
			var b strings.Builder
			if err := r.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			if run == 0 {
				first = b.String()
				if r.UnprovenRegrets > 0 && r.UnprovenBy != UnprovenByWorkLimit {
					t.Errorf("seed %d: %d regrets unproven by %q, want %q", seed, r.UnprovenRegrets, r.UnprovenBy, UnprovenByWorkLimit)
				}
				cut += r.UnprovenRegrets
				for ci, c := range r.Choices {
					for k, rj := range c.Rejected {
						want := exact.Choices[ci].Rejected[k]
						if rj.Alternative != want.Alternative || want.RegretNS == nil {
							t.Fatalf("seed %d: %s: rejected %s against %s (%v)", seed, c.Invocation, rj.Alternative, want.Alternative, want.RegretNS)
						}
						lo, hi := 0.0, math.Inf(1)
						if rj.RegretLowerNS != nil {
							lo = *rj.RegretLowerNS
						}
						if rj.RegretNS != nil {
							hi = *rj.RegretNS
						}
						if rj.Exact {
							lo = hi
						}
						if tol := 1e-6 * math.Max(1, *want.RegretNS); *want.RegretNS < lo-tol || *want.RegretNS > hi+tol {
							t.Errorf("seed %d: %s %s: [%v, %v] misses the exact regret %v", seed, c.Invocation, rj.Alternative, lo, hi, *want.RegretNS)
						}
					}
				}
			} else if b.String() != first {
				t.Fatalf("seed %d: run %d on %d workers: the JSON plan differs from the first run's", seed, run, workers)
			}
		}
		orderRegretSearchSolves, orderRegretEntries, orderRegretIterations = 4000, 1<<26, 10_000
	}
	if cut == 0 {
		t.Fatal("no regret left unproven: the budget was never exercised")
	}
	t.Logf("%d regrets unproven by the budget", cut)
}

// BenchmarkKernelOrder plans random DAGs whose alternatives choose which
// edges cross a kernel boundary (orderGraph), with every regret: the
// rounds that rule kernel-order conflicts out, and a pinned solve per
// regret (at most orderRegretSolves), under cklplan plan's regret limits
// (which give the regrets' pinned solves their window: untimed, 50
// invocations took 5.5 min; the rounds, the plan, run until it is proven).
//
//	go test ./planner -run '^$' -bench KernelOrder -benchtime 3x
func BenchmarkKernelOrder(b *testing.B) {
	for _, n := range []int{20, 50, 100} {
		g := orderGraph(b, rand.New(rand.NewPCG(uint64(n), 3)), n)
		b.Run(fmt.Sprintf("invocations=%d", n), func(b *testing.B) {
			cache := NewCache()
			var r *Result
			for b.Loop() {
				var err error
				if r, err = Plan(context.Background(), g, PlanOptions{Cache: cache, Solve: cliRegretLimits}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(r.KernelOrder)), "blocks")
			b.ReportMetric(float64(len(r.KernelConflicts)), "conflicts")
			b.ReportMetric(float64(r.UnprovenRegrets), "unproven")
		})
	}
}

// TestKernelOrderRoundsArePlan plans a random DAG whose alternatives choose
// which edges cross (orderGraph) by the levels, under cklplan plan's
// regret limits and a kernel-order window of a nanosecond: the rounds are
// the plan, which the regrets' limits do not bound, so it is proven and
// has an order of kernels (while the regrets' limits gave the rounds the
// window, the plan came back unproven, "time limit").
// The first plan, which the rounds replace, gets no regrets: the plan that
// ends them does.
func TestKernelOrderRoundsArePlan(t *testing.T) {
	defer func(n int, f float64, d time.Duration) {
		orderSearchSolves, orderTimeFactor, orderMinTime = n, f, d
	}(orderSearchSolves, orderTimeFactor, orderMinTime)
	orderSearchSolves, orderTimeFactor, orderMinTime = 0, 0, time.Nanosecond
	g := orderGraph(t, rand.New(rand.NewPCG(20, 3)), 20)
	var lw *lowering
	plantInLowering = func(l *lowering) { lw = l }
	defer func() { plantInLowering = nil }()
	opts := cliRegretLimits
	opts.RegretSolves = 1 // a few regrets re-solved are enough
	r, err := Plan(context.Background(), g, PlanOptions{Solve: opts})
	if err != nil {
		t.Fatal(err)
	}
	rounds := 0
	for _, c := range lw.orderCuts {
		if !c.regret {
			rounds++
		}
	}
	if rounds == 0 {
		t.Fatal("the first plan had no kernel-order conflict: the test tests too little")
	}
	if r.Status != Optimal || len(r.KernelConflicts) > 0 {
		t.Errorf("%s with %d kernel conflicts, want optimal with none: the regrets' limits cut the rounds short", r.Status, len(r.KernelConflicts))
	}
	if lw.regretsSkipped != 1 {
		t.Errorf("%d plans' regrets skipped, want 1 (the first, which the rounds replace)", lw.regretsSkipped)
	}
	rejected := 0
	for _, c := range r.Choices {
		rejected += len(c.Rejected)
	}
	if rejected == 0 {
		t.Error("the plan has no regret: the rounds' last solve did not compute them")
	}
	t.Logf("%d blocks added by the rounds; %d regrets, %d unproven", rounds, rejected, r.UnprovenRegrets)
}

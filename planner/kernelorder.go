package planner

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cklplan/cklplan/tasks"
)

// Kernel order, enforced lazily.
//
// Each edge's crossing is decided by its pair: a producer that writes a
// global layout, a consumer that reads one, a kernel split at a conversion
// across blocks. Decided edge by edge, a plan may keep two invocations in
// one kernel through edges planned inside it while another path between
// them crosses a kernel boundary, or close a cycle of kernels: no kernel
// schedule runs it (kernelConflicts). Plan therefore solves, looks for
// such a conflict among the plan's edges, and rules it out with a row
// over the invocations whose choices make it, then solves again, until
// the plan has an order of kernels (or orderRounds have passed).
//
// The row is exact. A conflict is a set of edges, each in the state the
// plan gives it (crossing, or inside one kernel), and whatever the other
// edges do, those states admit no order of kernels. Each edge's state is a
// function of its two ends' alternatives (the pair they choose). The row
// forbids a product of alternative sets, one per invocation the conflict
// touches, each set grown from the plan's alternative by every other that
// keeps all of the conflict's edges at that invocation in their state
// against every alternative in the sets of their other ends: every plan
// inside the product has the conflict, so no plan with an order of kernels
// is lost. As a budget: every alternative in an invocation's set takes 1,
// and the capacity is one less than the invocations whose set is not
// all of their alternatives (the others have the conflict's states
// whatever they choose). Each round's rows cut off the plan just found, so
// the rounds end; the last plan has an order of kernels and is optimal
// among all that have one.

// orderRounds bounds the solves that rule kernel-order conflicts out (a
// variable: tests set it to 0 to see a conflict warned of);
// orderCutsPerRound bounds the rows one round adds.
var orderRounds = 32

const orderCutsPerRound = 64

// The rows' cores go to HiGHS, where each solve takes tens to hundreds of
// milliseconds even on a few hundred columns (their relaxation is weak): on
// graphs whose every invocation may cross, the rounds could take minutes
// where the plan took milliseconds. So the rounds, and the regrets' pinned
// solves, get orderTimeFactor times the first plan's solve, at least
// orderMinTime; past it the rounds give the first plan back with its
// conflicts warned of, and the regrets left are intervals. Variables:
// tests change them.
var (
	orderTimeFactor = 3.0
	orderMinTime    = 500 * time.Millisecond
)

// orderTime is the time the rounds (or the pinned solves) get after a
// plan solved in t.
func orderTime(t time.Duration) time.Duration {
	return max(orderMinTime, time.Duration(orderTimeFactor*float64(t)))
}

// An orderEdge is a main group's consumer: an edge with a crossing state.
type orderEdge struct {
	gi, ci int
	u, w   int // producer and consumer nodes
	cross  bool
}

// An orderCut is a row added against a kernel-order conflict.
type orderCut struct {
	budget int    // index into the Problem's budgets
	what   string // the conflict, in words
	// regret says a regret's pinned solve found it (orderRegrets), not
	// the plan's rounds.
	regret bool
	// inside are the conflict's edges that stay inside one kernel.
	inside []string
}

// hint says how the graph could let a plan that the row rules out split
// its kernels instead: the planner never splits a kernel at an edge that
// its pair keeps inside one.
func (c orderCut) hint() string {
	if len(c.inside) == 0 {
		return ""
	}
	one := "mark "
	if len(c.inside) > 1 {
		one = "mark one of "
	}
	return " (to split the kernel there instead, " + one + edgeList(c.inside) + " must_cross)"
}

// edgeCrosses is the state of group gi's consumer ci when its producer
// takes alternative au and its consumer aw: whether the edge crosses a
// kernel boundary, and false for known when the pair cannot be converted
// (no plan has it).
func (lw *lowering) edgeCrosses(gi, ci, au, aw int) (cross, known bool) {
	g := &lw.problem.Groups[gi]
	if au >= len(g.Sources) || aw >= len(g.Consumers[ci].Targets) {
		return false, false
	}
	sk, tk := g.Sources[au], g.Consumers[ci].Targets[aw]
	if lw.endpoints[sk] == nil || lw.endpoints[tk] == nil {
		return false, false
	}
	pi, _ := lw.edgePair(sk, tk, lw.groups[gi].edges[ci], aw)
	if pi == nil || math.IsInf(pi.total, 1) {
		return false, false
	}
	return pi.crossing == tasks.GlobalRoundTrip, true
}

// orderEdges lists the edges of the main groups in their states under
// choices (edges whose pair is not convertible are left out).
func (lw *lowering) orderEdges(choices []int) []orderEdge {
	var out []orderEdge
	for gi, info := range lw.groups {
		if info.loads || info.boundary {
			continue
		}
		g := &lw.problem.Groups[gi]
		for ci, c := range g.Consumers {
			cross, known := lw.edgeCrosses(gi, ci, choices[g.Producer], choices[c.Node])
			if known {
				out = append(out, orderEdge{gi: gi, ci: ci, u: g.Producer, w: c.Node, cross: cross})
			}
		}
	}
	return out
}

// orderConflicts finds kernel-order conflicts among edges (each as the
// indices of its edges into edges, sorted): every crossing edge whose ends
// the edges inside kernels join, with the path that joins them; then one
// cycle of kernels, if any, with the paths inside each of its kernels. At
// most limit conflicts.
func orderConflicts(n int, edges []orderEdge, limit int) [][]int {
	kernels := newUnionFind(n)
	find := kernels.find
	adj := map[int][]int{} // node → its edges inside kernels
	for i, e := range edges {
		if e.cross {
			continue
		}
		adj[e.u] = append(adj[e.u], i)
		adj[e.w] = append(adj[e.w], i)
		kernels.union(e.u, e.w)
	}
	// path is the shortest chain of edges inside kernels from a to b
	// (in either direction), by breadth-first search.
	path := func(a, b int) []int {
		if a == b {
			return nil
		}
		via := map[int]int{a: -1}
		queue := []int{a}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, i := range adj[x] {
				y := edges[i].w
				if y == x {
					y = edges[i].u
				}
				if _, seen := via[y]; seen {
					continue
				}
				via[y] = i
				if y == b {
					var out []int
					for z := b; z != a; {
						j := via[z]
						out = append(out, j)
						if edges[j].w == z {
							z = edges[j].u
						} else {
							z = edges[j].w
						}
					}
					return out
				}
				queue = append(queue, y)
			}
		}
		return nil
	}
	var out [][]int
	seen := map[string]bool{}
	add := func(c []int) {
		slices.Sort(c)
		c = slices.Compact(c)
		var key []byte
		for _, i := range c {
			key = strconv.AppendInt(key, int64(i), 10)
			key = append(key, ',')
		}
		if !seen[string(key)] && len(out) < limit {
			seen[string(key)] = true
			out = append(out, c)
		}
	}
	type arc struct{ from, to, edge int } // kernels, by their roots
	var arcs []arc
	for i, e := range edges {
		if !e.cross {
			continue
		}
		ku, kw := find(e.u), find(e.w)
		if ku == kw {
			if len(out) < limit {
				add(append(path(e.u, e.w), i))
			}
			continue
		}
		arcs = append(arcs, arc{ku, kw, i})
	}
	if len(out) > 0 {
		return out
	}
	// A cycle of kernels: Kahn's algorithm leaves every kernel on or after
	// a cycle, each with an arc in from another left; walking such arcs
	// back from one of them closes a cycle.
	indeg := map[int]int{}
	succ := map[int][]int{}
	for _, a := range arcs {
		indeg[a.to]++
		succ[a.from] = append(succ[a.from], a.to)
	}
	var ready []int
	for _, a := range arcs {
		if indeg[a.from] == 0 && !slices.Contains(ready, a.from) {
			ready = append(ready, a.from)
		}
	}
	done := ordered(ready, succ, indeg)
	into := map[int]int{} // a kernel left → an arc into it from another left
	start := -1
	for ai, a := range arcs {
		if !done[a.from] && !done[a.to] {
			if _, ok := into[a.to]; !ok {
				into[a.to] = ai
			}
			if start < 0 {
				start = a.to
			}
		}
	}
	if start < 0 {
		return out
	}
	order := map[int]int{} // kernel → its position on the walk
	var walk []int         // arcs, walked backwards
	k := start
	for {
		if _, ok := order[k]; ok {
			break
		}
		order[k] = len(walk)
		a := into[k]
		walk = append(walk, a)
		k = arcs[a].from
	}
	cycle := walk[order[k]:] // arcs into k, …, back to k, walked backwards
	slices.Reverse(cycle)    // now forwards: each arc's head's kernel is the next's tail's
	var c []int
	for i, a := range cycle {
		next := cycle[(i+1)%len(cycle)]
		c = append(c, arcs[a].edge)
		c = append(c, path(edges[arcs[a].edge].w, edges[arcs[next].edge].u)...)
	}
	add(c)
	return out
}

// orderCut is the row against the conflict c (indices into edges) of the
// plan choices: for each node the conflict touches whose set is not all
// of its alternatives, the set (ascending); when every set is all of its
// node's alternatives (every plan has the conflict), every node and set.
func (lw *lowering) orderCut(edges []orderEdge, c []int, choices []int) (nodes []int, sets [][]int) {
	for _, i := range c {
		nodes = append(nodes, edges[i].u, edges[i].w)
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	sets = make([][]int, len(nodes))
	at := func(v int) int { k, _ := slices.BinarySearch(nodes, v); return k }
	for k, v := range nodes {
		sets[k] = []int{choices[v]}
	}
	for k, v := range nodes {
		// Removed alternatives count as any other: a row must hold for
		// every plan of the graph, and the regrets' pinned solves remove
		// alternatives for a while (pinnedOrderCost).
		for a := range lw.problem.Nodes[v].Alternatives {
			if a == choices[v] {
				continue
			}
			keeps := true
			for _, i := range c {
				e := edges[i]
				if e.u != v && e.w != v {
					continue
				}
				other := e.w
				if other == v {
					other = e.u
				}
				for _, b := range sets[at(other)] {
					au, aw := a, b
					if e.w == v {
						au, aw = b, a
					}
					if cross, known := lw.edgeCrosses(e.gi, e.ci, au, aw); known && cross != e.cross {
						keeps = false
						break
					}
				}
				if !keeps {
					break
				}
			}
			if keeps {
				sets[k] = append(sets[k], a)
			}
		}
		slices.Sort(sets[k])
	}
	kept := 0
	for k, v := range nodes {
		if len(sets[k]) < len(lw.problem.Nodes[v].Alternatives) {
			nodes[kept], sets[kept] = v, sets[k]
			kept++
		}
	}
	if kept == 0 {
		// Every plan has the conflict (the pins, or the target's
		// features, left no alternative that avoids it): the row over
		// every node's whole set rules out every plan, and the solve
		// that follows finds the graph infeasible, naming the row and
		// the invocations. Dropping it would return a plan no order of
		// kernels runs.
		return nodes, sets
	}
	return nodes[:kept], sets[:kept]
}

// describeConflict says what the conflict c (indices into edges) is, in
// words: the edges that cross and those that stay inside one kernel.
func (lw *lowering) describeConflict(edges []orderEdge, c []int) string {
	var cross, inside []string
	for _, i := range c {
		name := edgeName(lw.groups[edges[i].gi].edges[edges[i].ci])
		if edges[i].cross {
			cross = append(cross, name)
		} else {
			inside = append(inside, name)
		}
	}
	verb := "crosses"
	if len(cross) > 1 {
		verb = "cross"
	}
	s := edgeList(cross) + " " + verb + " a kernel boundary"
	if len(inside) > 0 {
		s += " while " + edgeList(inside) + " stay inside one kernel"
	}
	return s
}

// addOrderCuts looks for kernel-order conflicts in the plan choices and
// adds a row against each (at most orderCutsPerRound), returning how many
// it added; 0 when the plan has an order of kernels or no conflict can be
// ruled out (every plan has it).
func (lw *lowering) addOrderCuts(choices []int) int {
	edges := lw.orderEdges(choices)
	added := 0
	for _, c := range orderConflicts(len(lw.invs), edges, orderCutsPerRound) {
		nodes, sets := lw.orderCut(edges, c, choices)
		if nodes == nil {
			continue
		}
		b := len(lw.problem.Budgets)
		lw.problem.Budgets = append(lw.problem.Budgets, Budget{
			Name: "kernel order: " + lw.describeConflict(edges, c), Capacity: float64(len(nodes) - 1)})
		var inside []string
		for _, i := range c {
			if !edges[i].cross {
				inside = append(inside, edgeName(lw.groups[edges[i].gi].edges[edges[i].ci]))
			}
		}
		lw.orderCuts = append(lw.orderCuts, orderCut{budget: b, what: lw.describeConflict(edges, c), regret: lw.orderForRegrets, inside: inside})
		for k, v := range nodes {
			node := &lw.problem.Nodes[v]
			if lw.ownAlts == nil {
				lw.ownAlts = map[int]bool{}
			}
			if !lw.ownAlts[v] {
				// Invocations of one class share their alternatives:
				// this one's become its own.
				node.Alternatives = slices.Clone(node.Alternatives)
				lw.ownAlts[v] = true
			}
			for _, a := range sets[k] {
				alt := &node.Alternatives[a]
				alt.Uses = append(slices.Clip(alt.Uses), Use{Budget: b, Amount: 1})
			}
		}
		added++
	}
	return added
}

// isOrderBudget reports whether budget b is a kernel-order row, its
// conflict in words, and whether a regret's solve found it.
func (lw *lowering) isOrderBudget(b int) (what string, regret, ok bool) {
	if c := lw.orderCutOf(b); c != nil {
		return c.what, c.regret, true
	}
	return "", false, false
}

// orderCutOf is budget b's kernel-order row, or nil.
func (lw *lowering) orderCutOf(b int) *orderCut {
	for i := range lw.orderCuts {
		if lw.orderCuts[i].budget == b {
			return &lw.orderCuts[i]
		}
	}
	return nil
}

// keepKernelOrder rules out the kernel-order conflicts of sol, the plan
// solved under so, and solves again until the plan has none (orderRounds
// at most; the time limit, when there is one, covering them all). The
// rounds skip the regrets: when a row was added, the last plan is solved
// once more with them. The solve time is the rounds' together.
func (lw *lowering) keepKernelOrder(ctx context.Context, sol *Solution, so Options) (*Solution, error) {
	if !lw.choosesCrossings() {
		return sol, nil
	}
	begun := time.Now().Add(-sol.SolveTime)
	// Without HiGHS, which the rows' cores may need, or past the rounds'
	// time (orderTime), the plan found first stands, with its conflicts
	// warned of: the Problem is put back.
	nodes, budgets := slices.Clone(lw.problem.Nodes), len(lw.problem.Budgets)
	first := sol
	quiet := so
	quiet.NoRegrets = true
	cut := false
	giveBack := func() (*Solution, error) {
		lw.problem.Nodes, lw.problem.Budgets = nodes, lw.problem.Budgets[:budgets]
		lw.orderCuts, lw.ownAlts = nil, nil
		return first, nil
	}
	noSolver := func(err error) (*Solution, error) {
		if !errors.Is(err, ErrNoSolver) {
			return nil, err
		}
		return giveBack()
	}
	lw.orderPlanTime = first.SolveTime
	roundsEnd := time.Now().Add(orderTime(first.SolveTime))
	for range orderRounds {
		if len(sol.Choices) != len(lw.invs) || ctx.Err() != nil || lw.addOrderCuts(sol.alternatives()) == 0 {
			break
		}
		cut = true
		quiet.TimeLimit = time.Until(roundsEnd)
		if so.TimeLimit > 0 {
			quiet.TimeLimit = min(quiet.TimeLimit, so.TimeLimit-time.Since(begun))
		}
		if quiet.TimeLimit <= 0 {
			return giveBack()
		}
		s, err := Solve(ctx, &lw.problem, quiet)
		if err != nil {
			return noSolver(err)
		}
		if s.Status != Optimal {
			// The rounds' time is up before a plan with an order was
			// proven.
			return giveBack()
		}
		sol = s
	}
	if cut && !so.NoRegrets && ctx.Err() == nil {
		final := so
		if so.TimeLimit > 0 {
			final.TimeLimit = max(so.TimeLimit-time.Since(begun), time.Millisecond)
		}
		s, err := Solve(ctx, &lw.problem, final)
		if err != nil {
			return noSolver(err)
		}
		sol = s
	}
	if cut {
		sol.SolveTime = time.Since(begun)
	}
	return sol, nil
}

// orderViolations rewrites the violations of kernel-order rows among vs
// (Evaluate's "budget NAME: use U exceeds capacity C") in words.
func (lw *lowering) orderViolations(vs []string) []string {
	if len(lw.orderCuts) == 0 {
		return vs
	}
	out := slices.Clone(vs)
	for i, v := range out {
		for _, c := range lw.orderCuts {
			if strings.HasPrefix(v, "budget "+lw.problem.Budgets[c.budget].Name+": ") {
				out[i] = "no order of kernels runs it: " + c.what
				break
			}
		}
	}
	return out
}

// choosesCrossings reports whether the plan may decide which edges cross a
// kernel boundary: a binding in a global layout, or a pair that splits the
// kernel, on an edge that need not cross. Without one, every plan's edges
// cross as the graph says, and the load's rule (an edge beside a path that
// must cross crosses too) leaves no kernel-order conflict to rule out.
func (lw *lowering) choosesCrossings() bool {
	for _, e := range lw.endpoints {
		if e.inGlobal() && !e.mustCross {
			return true
		}
	}
	for k, p := range lw.pairs {
		if p != nil && p.crossing == tasks.GlobalRoundTrip {
			if dst := lw.endpoints[k[1]]; dst == nil || !dst.mustCross {
				return true
			}
		}
	}
	return false
}

// orderRegretSolves bounds the pinned solves that make regrets those of
// plans with an order of kernels (orderRegrets).
var orderRegretSolves = 256

// orderRegrets makes the regrets of sol, a plan with an order of kernels,
// exact over the plans that have one too, where the plan chooses crossings:
// the regrets were computed over the plans that keep the rows found so
// far, and the best plan using a rejected alternative may have a conflict
// of its own. Each regret is solved again with its alternative pinned,
// ruling out conflicts as the plan did (the rows hold for every plan, so
// they stay for the regrets after); the first orderRegretSolves of them,
// in order; the others become intervals from the regret computed, a lower
// bound, with no plan known. It returns the rows' budgets' uses under the
// plan, for the rows added.
func (lw *lowering) orderRegrets(ctx context.Context, sol *Solution, so Options) error {
	if lw.hasOrderConflict(sol.alternatives()) {
		// The rounds gave the first plan back, conflicts and all: its
		// regrets stay those of plans that may have conflicts too.
		return nil
	}
	begun := time.Now()
	lw.orderForRegrets = true
	defer func() {
		lw.orderForRegrets = false
		sol.SolveTime += time.Since(begun)
	}()
	quiet := so
	quiet.NoRegrets = true
	tol := 1e-6 * math.Max(1, math.Abs(sol.Objective))
	// The regrets' time limit bounds these solves too.
	deadline := time.Now().Add(orderTime(lw.orderPlanTime))
	if !sol.regretDeadline.IsZero() && sol.regretDeadline.Before(deadline) {
		deadline = sol.regretDeadline
	}
	rctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	solves := 0
	for i := range sol.Regrets {
		r := &sol.Regrets[i]
		if math.IsInf(r.Regret, 1) && r.Exact {
			continue // no plan keeps the rows: none has an order either
		}
		if solves == orderRegretSolves || rctx.Err() != nil {
			r.Regret, r.Exact, r.Tie = math.Inf(1), false, false
			switch {
			case ctx.Err() != nil:
				sol.regretsInterrupted = true
			case rctx.Err() != nil:
				sol.regretsTimedOut = true
			default:
				sol.regretsCapped++
			}
			continue
		}
		solves++
		cost, exact, err := lw.pinnedOrderCost(rctx, r.Node, r.Alternative, quiet)
		if errors.Is(err, ErrNoSolver) {
			// The rows' core needs HiGHS: the regret computed stays, a
			// lower bound, with no plan known.
			r.Regret, r.Exact, r.Tie = math.Inf(1), false, false
			sol.regretsCapped++
			continue
		}
		if err != nil {
			return err
		}
		if !exact || math.Abs(cost-sol.Objective-r.Regret) > tol {
			r.DominatedBy = -1
		}
		switch {
		case exact && !math.IsInf(cost, 1) && r.Exact && math.Abs(cost-sol.Objective-r.Regret) <= tol:
			// The regret's best plan has an order already: as it was
			// computed, to the last bit.
			continue
		case math.IsInf(cost, 1) && exact:
			r.Regret, r.Lower, r.Exact, r.Tie = math.Inf(1), math.Inf(1), true, false
		case exact:
			d := math.Max(cost-sol.Objective, 0)
			r.Tie = d <= tol
			if r.Tie {
				d = 0
			}
			r.Regret, r.Lower, r.Exact = d, d, true
		default:
			r.Regret, r.Exact, r.Tie = math.Max(cost-sol.Objective, r.Lower), false, false
		}
	}
	// The rows added since the plan: its uses of them.
	for b := len(sol.BudgetUse); b < len(lw.problem.Budgets); b++ {
		used := 0.0
		for v, c := range sol.Choices {
			for _, u := range lw.problem.Nodes[v].Alternatives[c.Alternative].Uses {
				if u.Budget == b {
					used += u.Amount
				}
			}
		}
		sol.BudgetUse = append(sol.BudgetUse, used)
	}
	return nil
}

// pinnedOrderCost is the cost of the best plan with an order of kernels
// whose node v takes alternative a (+Inf when none), solved under so with
// v's other alternatives removed and its conflicts ruled out by rows, which
// stay; exact is false when a solve stopped before proving it.
func (lw *lowering) pinnedOrderCost(ctx context.Context, v, a int, so Options) (cost float64, exact bool, err error) {
	node := &lw.problem.Nodes[v]
	saved := node.Alternatives
	pinned := slices.Clone(saved)
	for i := range pinned {
		if i != a && pinned[i].Removed == "" {
			pinned[i].Removed = "pinned away for a regret"
		}
	}
	node.Alternatives = pinned
	if lw.ownAlts == nil {
		lw.ownAlts = map[int]bool{}
	}
	lw.ownAlts[v] = true
	defer func() {
		// The rows added meanwhile stay on the alternatives.
		for i := range node.Alternatives {
			node.Alternatives[i].Removed = saved[i].Removed
		}
	}()
	for range orderRounds + 1 {
		s, err := Solve(ctx, &lw.problem, so)
		switch {
		case errors.Is(err, ErrInfeasible):
			return math.Inf(1), true, nil
		case errors.Is(err, ErrNoPlan) && ctx.Err() != nil:
			// Stopped before a plan: nothing known above.
			return math.Inf(1), false, nil
		case err != nil:
			return 0, false, err
		}
		choices := s.alternatives()
		if lw.addOrderCuts(choices) == 0 {
			return s.Objective, s.Status == Optimal && !lw.hasOrderConflict(choices), nil
		}
	}
	return math.Inf(1), false, nil
}

// hasOrderConflict reports whether choices leave a kernel-order conflict.
func (lw *lowering) hasOrderConflict(choices []int) bool {
	return len(orderConflicts(len(lw.invs), lw.orderEdges(choices), 1)) > 0
}

// alternatives is the plan's alternative of each node, by node.
func (s *Solution) alternatives() []int {
	out := make([]int, len(s.Choices))
	for i, c := range s.Choices {
		out[i] = c.Alternative
	}
	return out
}

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
// such a conflict among the plan's edges, and adds the levels of the
// conflict's block (order.go: a conflict is a cycle of the graph, so it
// lies in one biconnected component, whose levels rule out every conflict
// in it exactly), then solves again, until the plan has an order of
// kernels (or orderRounds have passed). Each round adds a block, so the
// rounds end; the last plan is optimal among all that have an order.
//
// Until 2026-12-05 each round added a row against the conflict found (a
// product of alternative sets that keep it): on random DAGs whose every
// invocation may cross, 50 invocations spent 4 min 26 s in 32 rounds and
// still had conflicts; with the levels they take one round.

// orderRounds bounds the solves that rule kernel-order conflicts out (a
// variable: tests set it to 0 to see a conflict warned of);
// orderCutsPerRound bounds the conflicts one round looks at.
var orderRounds = 32

const orderCutsPerRound = 64

// The levels' cores go to HiGHS, where a solve takes tenths of a second to
// tens of seconds even on a hundred invocations (the levels' rows are big-M
// rows: their relaxation is weak). So where the caller bounds the plan's
// time (a time limit or a deadline: limited), the rounds get
// orderTimeFactor times the first plan's solve, at least orderMinTime, or
// the time limit where that is longer; past it they return the best plan
// HiGHS found, unproven, where its kernels have an order, and else give
// the first plan back with its conflicts warned of. The regrets' pinned
// solves (orderRegrets) get such a window wherever the caller bounds any
// time, the regrets' included (Options.timeBounded): the regrets left are
// intervals, which then depend on the machine's speed. Without a bound the
// rounds run to the end (orderRounds bounds their number), and the regrets'
// limits do not bound them: they are the plan, which the same input gives
// the same. Variables: tests change them. At 0.5 s (until 2026-12-05)
// BenchmarkKernelOrder's 50 invocations came back at twice the optimum; at
// 2 s, at the optimum, unproven (5.8 s to prove). Until 2026-12-07 the
// regrets' limits gave the rounds the window too, and the first plan's
// regrets were computed before the rounds threw them away (37 s of 178 s on
// gen dag --invocations 60 --unfused 0.5 --exec-scale 100).
var (
	orderTimeFactor = 3.0
	orderMinTime    = 2 * time.Second
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

// An orderCut is a kernel-order conflict a plan had, whose block's levels
// were added against it.
type orderCut struct {
	block int    // the block of the order system
	what  string // the conflict, in words
	// regret says a regret's pinned solve found it (orderRegrets), not
	// the plan's rounds.
	regret bool
	// inside are the conflict's edges that stay inside one kernel.
	inside []string
}

// hint says how the graph could let a plan that the levels rule out split
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
	src, dst := lw.endpoints[sk], lw.endpoints[tk]
	if src == nil || dst == nil {
		return false, false
	}
	if ownTrip(src, dst) {
		// The edge's own round trip (edgePairOf): a kernel boundary,
		// at a finite cost, whatever the consumer's alternative.
		return true, true
	}
	pi, _ := lw.edgePairOf(src, dst, sk, tk, lw.groups[gi].edges[ci], aw)
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

// orderEdgesNear is orderEdges of the blocks that hold an edge of a node
// that change changes, under choices changed by change: where choices had
// no conflict, the only blocks in which the changed plan may have one
// (every conflict lies in one block).
func (lw *lowering) orderEdgesNear(choices []int, change map[int]int) []orderEdge {
	at := func(v int) int {
		if a, ok := change[v]; ok {
			return a
		}
		return choices[v]
	}
	o := lw.orderSystemOf()
	var blocks []int
	for v := range change {
		for _, ei := range o.nodeEdges[v] {
			if b := o.edges[ei].block; !slices.Contains(blocks, b) {
				blocks = append(blocks, b)
			}
		}
	}
	slices.Sort(blocks) // the same edges, in the same order, every run
	var out []orderEdge
	for _, b := range blocks {
		for _, ei := range o.blockEdges[b] {
			e := &o.edges[ei]
			if cross, known := lw.edgeCrosses(e.gi, e.ci, at(e.u), at(e.w)); known {
				out = append(out, orderEdge{gi: e.gi, ci: e.ci, u: e.u, w: e.w, cross: cross})
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
func orderConflicts(edges []orderEdge, limit int) [][]int {
	// The kernels are classes of the edges' ends alone, by their rank among
	// them (so that a class's root, its least, is the same node as by the
	// nodes' indices): a reason asks for the few edges of the blocks near
	// one invocation, in a graph of thousands.
	ends := make([]int, 0, 2*len(edges))
	for _, e := range edges {
		ends = append(ends, e.u, e.w)
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	rank := func(v int) int {
		r, _ := slices.BinarySearch(ends, v)
		return r
	}
	kernels := newUnionFind(len(ends))
	find := func(v int) int { return kernels.find(rank(v)) }
	adj := map[int][]int{} // node → its edges inside kernels
	for i, e := range edges {
		if e.cross {
			continue
		}
		adj[e.u] = append(adj[e.u], i)
		adj[e.w] = append(adj[e.w], i)
		kernels.union(rank(e.u), rank(e.w))
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

// orderSystemOf builds the graph's order system (order.go) on first use:
// every edge of the main groups, with its block; no block added.
func (lw *lowering) orderSystemOf() *orderSystem {
	if o := lw.problem.order; o != nil {
		return o
	}
	o := &orderSystem{}
	lw.orderIndex = make([]int, len(lw.groups))
	var ends [][2]int
	for gi, info := range lw.groups {
		lw.orderIndex[gi] = -1
		if info.loads || info.boundary {
			continue
		}
		g := &lw.problem.Groups[gi]
		lw.orderIndex[gi] = len(o.edges)
		for ci, c := range g.Consumers {
			o.edges = append(o.edges, orderSysEdge{u: g.Producer, w: c.Node, gi: gi, ci: ci, name: edgeName(lw.groups[gi].edges[ci])})
			ends = append(ends, [2]int{g.Producer, c.Node})
		}
	}
	var block []int
	block, o.blocks = edgeBlocks(len(lw.problem.Nodes), ends)
	o.added = make([]bool, o.blocks)
	o.blockEdges = make([][]int, o.blocks)
	o.nodeEdges = make([][]int, len(lw.problem.Nodes))
	for i, b := range block {
		e := &o.edges[i]
		e.block = b
		o.blockEdges[b] = append(o.blockEdges[b], i)
		o.nodeEdges[e.u] = append(o.nodeEdges[e.u], i)
		o.nodeEdges[e.w] = append(o.nodeEdges[e.w], i)
	}
	lw.problem.order = o
	if !lw.unmarked {
		lw.markDiamonds(o)
	}
	return o
}

// addBlock adds block b's levels to the order system, with its edges'
// states over every pair of alternatives.
func (lw *lowering) addBlock(b int) {
	o := lw.orderSystemOf()
	for _, ei := range o.blockEdges[b] {
		lw.fillStates(ei)
	}
	o.added[b] = true
}

// fillStates sets order edge ei's states over every pair of its ends'
// alternatives, once.
func (lw *lowering) fillStates(ei int) {
	e := &lw.problem.order.edges[ei]
	if e.state != nil {
		return
	}
	nu, nw := len(lw.problem.Nodes[e.u].Alternatives), len(lw.problem.Nodes[e.w].Alternatives)
	e.nw, e.state = nw, make([]int8, nu*nw)
	gi, ci := lw.orderGroup(ei)
	for au := range nu {
		for aw := range nw {
			cross, known := lw.edgeCrosses(gi, ci, au, aw)
			switch {
			case !known:
				e.state[au*nw+aw] = -1
			case cross:
				e.state[au*nw+aw] = 1
			}
		}
	}
}

// orderGroup is the group and consumer of order edge ei.
func (lw *lowering) orderGroup(ei int) (gi, ci int) {
	e := &lw.problem.order.edges[ei]
	return e.gi, e.ci
}

// addOrderBlocks looks for kernel-order conflicts in the plan choices and
// adds the levels of each one's block (order.go), returning how many
// blocks it added; 0 when the plan has an order of kernels, or when its
// conflicts are in blocks added already (the solve that follows then
// finds the graph infeasible).
func (lw *lowering) addOrderBlocks(choices []int) int {
	edges := lw.orderEdges(choices)
	o := lw.orderSystemOf()
	added := 0
	for _, c := range orderConflicts(edges, orderCutsPerRound) {
		first := edges[c[0]]
		b := o.edges[lw.orderIndex[first.gi]+first.ci].block
		if o.added[b] {
			continue
		}
		lw.addBlock(b)
		lw.orderCuts = append(lw.orderCuts, orderCut{block: b, what: lw.describeConflict(edges, c), regret: lw.orderForRegrets, inside: lw.insideEdges(edges, c)})
		added++
	}
	return added
}

// insideEdges names the edges of conflict c (indices into edges) that stay
// inside one kernel.
func (lw *lowering) insideEdges(edges []orderEdge, c []int) []string {
	var inside []string
	for _, i := range c {
		if !edges[i].cross {
			inside = append(inside, edgeName(lw.groups[edges[i].gi].edges[edges[i].ci]))
		}
	}
	return inside
}

// conflictHint is the hint of conflict c (indices into edges).
func (lw *lowering) conflictHint(edges []orderEdge, c []int) string {
	return orderCut{inside: lw.insideEdges(edges, c)}.hint()
}

// orderConflictLines says which kernel-order conflicts an infeasible
// graph's conflict holds: those that added the blocks of its rows, or,
// where HiGHS found no conflicting rows (the LP relaxation is feasible),
// every conflict the plans had.
func (lw *lowering) orderConflictLines(ie *InfeasibleError) []string {
	o := lw.problem.order
	if o == nil {
		return nil
	}
	var blocks []int
	for _, ei := range ie.orderEdges {
		if b := o.edges[ei].block; !slices.Contains(blocks, b) {
			blocks = append(blocks, b)
		}
	}
	var out []string
	for _, c := range lw.orderCuts {
		if len(ie.Rows) > 0 && !slices.Contains(blocks, c.block) {
			continue
		}
		line := "the kernel order: no kernel schedule runs a plan where " + c.what + c.hint()
		if !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	for _, d := range o.diamonds {
		// A diamond's flags (diamond.go) in the conflict.
		if slices.Contains(blocks, d.block) {
			out = append(out, "the kernel order: "+d.describe)
		}
	}
	return out
}

// everyBlockAdded reports whether the order system has every block in
// which a plan may have a conflict: each block of two or more edges (a
// conflict is a cycle) one of whose edges the choices decide.
func (lw *lowering) everyBlockAdded() bool {
	o := lw.problem.order
	if o == nil {
		return false
	}
	for b, edges := range o.blockEdges {
		if o.added[b] || o.isDiamond(b) || len(edges) < 2 {
			continue
		}
		for _, ei := range edges {
			gi, ci := lw.orderGroup(ei)
			g := &lw.problem.Groups[gi]
			state := -1
			for au := range lw.problem.Nodes[g.Producer].Alternatives {
				for aw := range lw.problem.Nodes[g.Consumers[ci].Node].Alternatives {
					cross, known := lw.edgeCrosses(gi, ci, au, aw)
					if !known {
						continue
					}
					s := 0
					if cross {
						s = 1
					}
					if state >= 0 && s != state {
						return false
					}
					state = s
				}
			}
		}
	}
	return true
}

// keepKernelOrder rules out the kernel-order conflicts of sol, the plan
// solved under so: by the search over the edges' states where it applies
// and ends (searchPlan), else by levels, solving again until the plan has
// none (orderRounds at most; the time limit, when there is one, covering
// them all). The rounds skip the regrets: when a block was added, the last
// plan is solved once more with them. The solve time is the rounds'
// together.
func (lw *lowering) keepKernelOrder(ctx context.Context, sol *Solution, so Options) (*Solution, error) {
	if !lw.choosesCrossings() {
		return sol, nil
	}
	begun := time.Now().Add(-sol.SolveTime)
	// Without HiGHS, which the levels' cores need, or past the rounds'
	// time (orderTime), the plan found first stands, with its conflicts
	// warned of: the Problem is put back.
	nodes := slices.Clone(lw.problem.Nodes)
	var added []bool
	if lw.problem.order != nil {
		added = slices.Clone(lw.problem.order.added)
	}
	first := sol
	quiet := so
	quiet.NoRegrets = true
	cut, timedOut := false, false
	// explained is s with its regrets where the first solve skipped them
	// (levelsReplace) and s stands after all: solved again from itself,
	// where that gives the same plan back.
	explained := func(s *Solution) *Solution {
		if !s.regretsSkipped || ctx.Err() != nil {
			return s
		}
		again := so
		again.Start = s.alternatives()
		if so.TimeLimit > 0 {
			again.TimeLimit = max(so.TimeLimit-time.Since(begun), time.Millisecond)
		}
		if e, err := Solve(ctx, &lw.problem, again); err == nil && e.Status == Optimal && slices.Equal(e.alternatives(), s.alternatives()) {
			e.SolveTime = time.Since(begun)
			return e
		}
		return s
	}
	giveBack := func() (*Solution, error) {
		lw.problem.Nodes = nodes
		if o := lw.problem.order; o != nil {
			if added == nil {
				added = make([]bool, o.blocks)
			}
			o.added = added
		}
		lw.orderCuts, lw.ownAlts = nil, nil
		return explained(first), nil
	}
	noSolver := func(err error) (*Solution, error) {
		if !errors.Is(err, ErrNoSolver) {
			return nil, err
		}
		return giveBack()
	}
	lw.orderPlanTime = first.SolveTime
	if first.planTime > 0 {
		lw.orderPlanTime = first.planTime
	}
	lw.orderPlanIterations, lw.orderPlanEntries = first.iterations, int64(first.entries)
	// The rounds get orderTime, or the caller's time limit where that is
	// longer; without a time limit or a deadline (limited), no time: they
	// are the plan, which the regrets' limits do not bound.
	bounded := limited(ctx, &so)
	var roundsEnd time.Time
	if bounded {
		roundsEnd = time.Now().Add(max(orderTime(first.SolveTime), so.TimeLimit-first.SolveTime))
	}
	if orderRounds > 0 && len(sol.Choices) == len(lw.invs) && ctx.Err() == nil && lw.hasOrderConflict(sol.alternatives()) {
		// A plan with an order by the search over the edges' states,
		// where it applies (ordersearch.go), before any level.
		if s, ok := lw.searchPlan(ctx, sol, so, roundsEnd); ok {
			s.SolveTime = time.Since(begun)
			return s, nil
		}
	}
	for range orderRounds {
		if len(sol.Choices) != len(lw.invs) || ctx.Err() != nil || lw.addOrderBlocks(sol.alternatives()) == 0 {
			break
		}
		cut = true
		// A plan without conflicts, if one is near, starts HiGHS: where
		// the time is up, that plan is the one (HiGHS returns its start).
		// (The repair gets a second at least, past the rounds' time.)
		repairEnd := roundsEnd
		if atLeast := time.Now().Add(time.Second); bounded && atLeast.After(repairEnd) {
			repairEnd = atLeast
		}
		quiet.Start = lw.orderRepair(sol.alternatives(), repairEnd)
		if bounded {
			quiet.TimeLimit = time.Until(roundsEnd)
			if so.TimeLimit > 0 {
				quiet.TimeLimit = min(quiet.TimeLimit, so.TimeLimit-time.Since(begun))
			}
			if quiet.TimeLimit <= 0 {
				if quiet.Start == nil {
					return giveBack()
				}
				quiet.TimeLimit = time.Millisecond
			}
		}
		// A round whose plan has an order ends them: that solve
		// computes the regrets too (not a plan with a conflict's).
		round := quiet
		round.NoRegrets, round.regretsUnless = so.NoRegrets, lw.hasOrderConflict
		before := time.Since(begun)
		s, err := Solve(ctx, &lw.problem, round)
		if err == nil {
			lw.orderPlanTime = before + s.planTime
			lw.orderPlanIterations += s.iterations
			lw.orderPlanEntries += int64(s.entries)
		}
		if errors.Is(err, ErrNoPlan) {
			// The rounds' time was up before any plan keeping the
			// levels.
			return giveBack()
		}
		if err != nil {
			return noSolver(err)
		}
		if s.Status != Optimal {
			// The rounds' time is up before a plan with an order was
			// proven: the best plan found stands, unproven, where its
			// kernels have an order (no block it has not added has a
			// conflict); else the first plan, with its conflicts.
			if len(s.Choices) != len(lw.invs) || lw.hasOrderConflict(s.alternatives()) {
				return giveBack()
			}
			sol, timedOut = s, true
			break
		}
		sol = s
	}
	if cut && !so.NoRegrets && ctx.Err() == nil && !timedOut && !sol.explained {
		// The last plan once more, with the regrets, from itself, where
		// its round skipped them (a plan the rounds did not prove has
		// none: regrets are measured from a proven plan).
		final := so
		final.Start = sol.alternatives()
		if so.TimeLimit > 0 {
			final.TimeLimit = max(so.TimeLimit-time.Since(begun), time.Millisecond)
		}
		s, err := Solve(ctx, &lw.problem, final)
		if err != nil && !errors.Is(err, ErrNoPlan) {
			return noSolver(err)
		}
		if err == nil && !lw.hasOrderConflict(s.alternatives()) {
			sol = s
		}
	}
	if cut {
		sol.SolveTime = time.Since(begun)
	}
	return explained(sol), nil
}

// orderViolations is vs, the local choice's violations, with its
// kernel-order conflict, if it has one, in words.
func (lw *lowering) orderViolations(vs []string, choices []int) []string {
	if !lw.choosesCrossings() {
		return vs
	}
	// Evaluate's words for a conflict in a block with levels give way
	// to the conflict's own.
	vs = slices.DeleteFunc(slices.Clone(vs), func(v string) bool { return strings.HasPrefix(v, "kernel order: ") })
	edges := lw.orderEdges(choices)
	cs := orderConflicts(edges, 1)
	if len(cs) == 0 {
		return vs
	}
	return append(vs, "no order of kernels runs it: "+lw.describeConflict(edges, cs[0]))
}

// orderRepair is a plan near choices whose kernels have an order, or nil:
// while the plan has a conflict, the move of one invocation of its
// conflicts to another alternative that leaves the fewest conflicts, then
// costs least, provided it leaves fewer conflicts or as many at a lower
// cost. A start for the levels' solve (HiGHS has none where the first
// plan has a conflict in a block it adds), so that a solve its time stops
// still returns a plan that runs.
func (lw *lowering) orderRepair(choices []int, deadline time.Time) []int {
	if plan := lw.orderRepairFrom(choices, deadline); plan != nil {
		return plan
	}
	// From the plan that crosses most: each invocation's alternative whose
	// edges cross whatever their other ends choose, the most of them
	// (then the cheapest). A plan whose every edge crosses has an order.
	o := lw.orderSystemOf()
	crosses := make([][]int, len(lw.problem.Nodes))
	for v, n := range lw.problem.Nodes {
		crosses[v] = make([]int, len(n.Alternatives))
	}
	for ei := range o.edges {
		gi, ci := lw.orderGroup(ei)
		e := &o.edges[ei]
		always := func(v, a int, producer bool) bool {
			other := e.w
			if !producer {
				other = e.u
			}
			for b := range lw.problem.Nodes[other].Alternatives {
				au, aw := a, b
				if !producer {
					au, aw = b, a
				}
				if cross, known := lw.edgeCrosses(gi, ci, au, aw); known && !cross {
					return false
				}
			}
			return true
		}
		for a := range crosses[e.u] {
			if always(e.u, a, true) {
				crosses[e.u][a]++
			}
		}
		for a := range crosses[e.w] {
			if always(e.w, a, false) {
				crosses[e.w][a]++
			}
		}
	}
	plan := slices.Clone(choices)
	for v, n := range lw.problem.Nodes {
		best := -1
		for a, alt := range n.Alternatives {
			if alt.Removed != "" {
				continue
			}
			if best < 0 || crosses[v][a] > crosses[v][best] || crosses[v][a] == crosses[v][best] && alt.Cost < n.Alternatives[best].Cost {
				best = a
			}
		}
		if best >= 0 {
			plan[v] = best
		}
	}
	return lw.orderRepairFrom(plan, deadline)
}

// orderRepairFrom is orderRepair's descent from choices.
func (lw *lowering) orderRepairFrom(choices []int, deadline time.Time) []int {
	plan := slices.Clone(choices)
	m := newOrderMeasure(len(lw.invs))
	count := func(plan []int) int { return m.of(lw.orderEdges(plan)) }
	cost := func(plan []int) float64 {
		ev, err := lw.problem.evaluate(plan, false)
		if err != nil {
			return math.Inf(1)
		}
		return ev.Execution + ev.Conversion
	}
	conflicts, now := count(plan), cost(plan)
	for range 4 * len(plan) {
		if conflicts == 0 {
			return plan
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return nil
		}
		edges := lw.orderEdges(plan)
		// The moves of the invocations of one conflict first, then of
		// every conflict's.
		bestV := -1
		var bestA, bestN int
		var bestCost float64
		for _, limit := range []int{1, orderCutsPerRound} {
			var nodes []int
			for _, c := range orderConflicts(edges, limit) {
				for _, i := range c {
					nodes = append(nodes, edges[i].u, edges[i].w)
				}
			}
			slices.Sort(nodes)
			bestV, bestA, bestN, bestCost = -1, -1, conflicts, now
			for _, v := range slices.Compact(nodes) {
				was := plan[v]
				for a, alt := range lw.problem.Nodes[v].Alternatives {
					if a == was || alt.Removed != "" {
						continue
					}
					plan[v] = a
					n := count(plan)
					if n > bestN {
						continue
					}
					if c := cost(plan); !math.IsInf(c, 1) && (n < bestN || c < bestCost) {
						bestV, bestA, bestN, bestCost = v, a, n, c
					}
				}
				plan[v] = was
			}
			if bestV >= 0 {
				break
			}
		}
		if bestV < 0 {
			return nil
		}
		plan[bestV], conflicts, now = bestA, bestN, bestCost
	}
	if conflicts == 0 {
		return plan
	}
	return nil
}

// orderMeasure counts how far a plan's edges are from an order of
// kernels, in time linear in the edges: each edge that crosses between
// two invocations of one kernel counts len(edges)+1, and each crossing
// edge whose kernel Kahn's algorithm leaves on or after a cycle counts 1;
// 0 exactly when the kernels have an order.
type orderMeasure struct {
	uf    unionFind
	indeg []int
	succ  [][]int
}

func newOrderMeasure(n int) *orderMeasure {
	return &orderMeasure{uf: make(unionFind, n), indeg: make([]int, n), succ: make([][]int, n)}
}

func (m *orderMeasure) of(edges []orderEdge) int {
	for i := range m.uf {
		m.uf[i], m.indeg[i], m.succ[i] = i, 0, m.succ[i][:0]
	}
	for _, e := range edges {
		if !e.cross {
			if a, b := m.uf.find(e.u), m.uf.find(e.w); a != b {
				m.uf[a] = b
			}
		}
	}
	count := 0
	for _, e := range edges {
		if !e.cross {
			continue
		}
		ku, kw := m.uf.find(e.u), m.uf.find(e.w)
		if ku == kw {
			count += len(edges) + 1
			continue
		}
		m.succ[ku] = append(m.succ[ku], kw)
		m.indeg[kw]++
	}
	var ready []int
	for k := range m.uf {
		if m.uf[k] == k && m.indeg[k] == 0 {
			ready = append(ready, k)
		}
	}
	for len(ready) > 0 {
		k := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		for _, s := range m.succ[k] {
			if m.indeg[s]--; m.indeg[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	for _, e := range edges {
		if e.cross && m.indeg[m.uf.find(e.w)] > 0 && m.uf.find(e.u) != m.uf.find(e.w) {
			count++
		}
	}
	return count
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
// plans with an order of kernels (orderRegrets), and Options.RegretSolves
// where lower.
var orderRegretSolves = 256

// orderRegrets makes the regrets of sol, a plan with an order of kernels,
// exact over the plans that have one too, where the plan chooses crossings:
// the regrets were computed over the plans that keep the blocks added so
// far, and the best plan using a rejected alternative may have a conflict
// of its own. Each regret is solved again with its alternative pinned,
// ruling out conflicts as the plan did: by the search over the edges'
// states, or with the plan's levels and those its own plans' conflicts add
// (pinnedOrderCost: taken out again after it, so that the next query is
// not a MILP for levels it does not need). The first orderRegretSolves
// queries, in order, whose pinned plans have a conflict are solved so;
// past them a query gets its one pinned solve, and where that plan has a
// conflict its regret becomes an interval from the regret computed, a
// lower bound, with no plan known. Where every block that may have a conflict
// is added, the regrets are exact already and none is solved again.
func (lw *lowering) orderRegrets(ctx context.Context, sol *Solution, so Options) error {
	if lw.hasOrderConflict(sol.alternatives()) {
		// The rounds gave the first plan back, conflicts and all: its
		// regrets stay those of plans that may have conflicts too.
		return nil
	}
	if lw.everyBlockAdded() {
		// The regrets were computed with every block's levels: over the
		// plans whose kernels have an order, exactly.
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
	// The regrets' time limit bounds these solves too; without any time
	// bound (timeBounded), only orderRegretSolves does. Under a work
	// budget (Options.RegretWork) without a time limit or a deadline,
	// the budget does instead (orderWork), the same from run to run.
	rctx := ctx
	var work *orderWork
	if so.RegretWork > 0 && !limited(ctx, &so) {
		work = &orderWork{
			solves:     orderRegretSearchSolves,
			entries:    max(int64(so.RegretWork*float64(lw.orderPlanEntries)), orderRegretEntries),
			iterations: max(int64(so.RegretWork*float64(lw.orderPlanIterations)), orderRegretIterations),
		}
		if so.iterationFloor > 0 {
			work.iterations = max(int64(so.RegretWork*float64(lw.orderPlanIterations)), so.iterationFloor)
		}
		defer func() { sol.regretsWorkSpent = sol.regretsWorkSpent || work.cut }()
	} else if so.timeBounded(ctx) {
		deadline := time.Now().Add(orderTime(lw.orderPlanTime))
		if !sol.regretDeadline.IsZero() && sol.regretDeadline.Before(deadline) {
			deadline = sol.regretDeadline
		}
		var cancel context.CancelFunc
		rctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	// Options.RegretSolves bounds them too, where it is lower.
	limit := orderRegretSolves
	if so.RegretSolves > 0 {
		limit = min(limit, so.RegretSolves)
	}
	unproven := func(r *Regret) {
		r.Regret, r.Exact, r.Tie = math.Inf(1), false, false
		switch {
		case ctx.Err() != nil:
			sol.regretsInterrupted = true
		case rctx.Err() != nil:
			sol.regretsTimedOut = true
		default:
			sol.regretsCapped++
		}
	}
	// noSolver leaves r where a solve needs HiGHS (the rows' core) and
	// there is none: the regret computed stays, a lower bound, with no
	// plan known.
	noSolver := func(r *Regret) {
		r.Regret, r.Exact, r.Tie = math.Inf(1), false, false
		sol.regretsCapped++
	}
	// record sets r from what its query proved.
	record := func(r *Regret, cost, lower float64, exact bool) {
		if !exact || math.Abs(cost-sol.Objective-r.Regret) > tol {
			r.DominatedBy = -1
		}
		switch {
		case exact && !math.IsInf(cost, 1) && r.Exact && math.Abs(cost-sol.Objective-r.Regret) <= tol:
			// The regret's best plan has an order already: as it was
			// computed, to the last bit.
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
			if !math.IsInf(lower, 0) {
				// What the search or the levels proved below.
				r.Lower = math.Max(r.Lower, math.Min(lower, cost)-sol.Objective)
			}
			r.Regret, r.Exact, r.Tie = math.Max(cost-sol.Objective, r.Lower), false, false
		}
	}
	// First every query's pinned solve alone, which answers it where that
	// plan has an order (most do: 188 of the 230 of gen dag --invocations
	// 20 --unfused 1.2 --seed 2); then the others' searches, in the same
	// order. Under a time limit the window is spent on the searches only
	// once every query that needs none is answered: taken one query
	// after the other, the first searches spent it, and the queries after
	// them were left unproven, 194 of those 230 under cklplan plan's
	// defaults. Without one, it is the same as one after the other: a
	// query counts against the limit where its pinned plan has a conflict
	// (one the reduction answers alone costs a solve, as a min-marginal
	// does), and past the limit only that solve is tried.
	var searched []int
	solves := 0
	// ask answers r's query: by its pinned solve alone (first), or by its
	// search; it reports whether r still needs a search.
	ask := func(i int, first bool) (bool, error) {
		r := &sol.Regrets[i]
		if work != nil && work.entries <= 0 {
			work.cut = true
			unproven(r)
			return false, nil
		}
		if rctx.Err() != nil || !first && solves == limit {
			unproven(r)
			return false, nil
		}
		cost, lower, exact, more, err := lw.pinnedOrderCost(rctx, r.Node, r.Alternative, quiet, first, work)
		switch {
		case errors.Is(err, ErrNoSolver):
			noSolver(r)
			return false, nil
		case err != nil:
			return false, err
		case first && !exact:
			return true, nil
		}
		if more {
			solves++
		}
		record(r, cost, lower, exact)
		return false, nil
	}
	for i := range sol.Regrets {
		if r := &sol.Regrets[i]; math.IsInf(r.Regret, 1) && r.Exact {
			continue // no plan keeps the levels: none has an order either
		}
		search, err := ask(i, true)
		if err != nil {
			return err
		}
		if search {
			searched = append(searched, i)
		}
	}
	for k, i := range searched {
		if plantBeforeOrderSearch != nil {
			plantBeforeOrderSearch()
		}
		if work != nil {
			work.share = min(len(searched)-k, regretShare)
		}
		if _, err := ask(i, false); err != nil {
			return err
		}
	}
	return nil
}

// An orderWork is what is left of the work budget of orderRegrets'
// searches and solves with levels (Options.RegretWork): the searches'
// solves and their reductions' entries, and HiGHS's simplex iterations
// for the levels. The queries take it one after the other, each search at
// most a share-th of what is left (share: regretShare, or the queries
// left where fewer); every query's pinned solve (the first pass) and
// levels' reductions take their entries from it too, and once they are
// spent the queries left are unproven. cut says it left a query
// unproven.
type orderWork struct {
	solves, entries, iterations int64
	share                       int
	cut                         bool
}

// The least budgets of orderRegrets' searches under Options.RegretWork,
// in all: orderRegretSearchSolves solves, and orderRegretEntries entries
// or RegretWork times the plan's reductions' where that is more; the
// levels' solves get orderRegretIterations simplex iterations, or
// RegretWork times the plan's (its reductions' entries include the
// search that found it). On cklplan gen dag --invocations 16 and 20
// --unfused 1.2 (seeds 1, 2 and 1) the default plan takes 2.7, 2.4 and
// 3.6 s and leaves 120, 177 and 222 regrets unproven, the same every run
// (under the time window before: 2.7, 2.8 and 3.5 s, and 125, 160 and 221,
// differing from run to run); most of the entries go to every query's
// pinned solve, 160 ms each on the second 20-invocation DAG. With 2^29
// entries and 200,000 iterations the first took 48 s and left 26.
// Variables for tests.
var (
	orderRegretSearchSolves int64 = 4000
	orderRegretEntries      int64 = 1 << 27
	orderRegretIterations   int64 = 10_000
)

// slice is one query's part of what is left of n (at least 1 where any
// is left, 0 where none).
func (w *orderWork) slice(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return max(n/int64(max(w.share, 1)), 1)
}

// plantBeforeOrderSearch, when set (by a test), is called before each
// regret's search (orderRegrets' second pass).
var plantBeforeOrderSearch func()

// pinnedOrderCost is the cost of the best plan with an order of kernels
// whose node v takes alternative a (+Inf when none), solved under so with
// v's other alternatives removed: first by the search over the edges'
// states (ordersearch.go), then, where that stops short, with its
// conflicts ruled out by levels, which it takes out again when it returns
// (those added before it stay). exact is false when a solve stopped before
// proving it; lower is then what is proven below (-Inf: nothing). more
// says it took more than one solve. capped, it takes that one alone: the
// answer where the best plan so pinned has an order, else not exact.
//
// With w (a work budget: orderWork), the search takes at most w's share of
// its solves and entries (capped, its one solve whatever it takes), and
// the levels' solves of its simplex iterations, each taken from w as it
// is spent.
func (lw *lowering) pinnedOrderCost(ctx context.Context, v, a int, so Options, capped bool, w *orderWork) (cost, lower float64, exact, more bool, err error) {
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
		for i := range node.Alternatives {
			node.Alternatives[i].Removed = saved[i].Removed
		}
	}()
	lower = math.Inf(-1)
	limit := orderSearchSolves
	if so.NoReduce {
		limit = 0 // HiGHS alone, with levels: a check of the search
	}
	if capped {
		limit = 1
	}
	entries := orderSearchEntries
	if w != nil && limit > 0 && !capped {
		limit = int(min(int64(limit), w.slice(w.solves)))
		entries = int(min(int64(entries), w.slice(w.entries)))
		if limit == 0 || entries == 0 {
			limit, w.cut = 0, true
		}
	}
	if limit > 0 {
		s, err := lw.searchOrder(ctx, so, limit, entries)
		if err != nil {
			return 0, lower, false, false, err
		}
		if w != nil {
			if !capped {
				w.solves -= int64(s.solves)
			}
			w.entries -= int64(s.entries)
		}
		more = s.solves > 1
		if more {
			lw.orderSearchBranched++
		}
		if s.exact {
			lw.orderSearches++
			if more && s.plan != nil {
				// The reasons name what this plan changes (the pinned
				// solve they would make again has a conflict).
				if lw.orderPlans == nil {
					lw.orderPlans = map[[2]int]orderPlan{}
				}
				lw.orderPlans[[2]int{v, a}] = orderPlan{cost: s.upper, choices: s.plan}
			}
			return s.upper, s.upper, true, more, nil
		}
		lower = s.lower
		if capped {
			return math.Inf(1), lower, false, more, nil
		}
		lw.orderSearchesShort++
	}
	more = true
	// The levels this query adds are taken out after it: the next
	// query starts from the plan's, so that one whose best plan has an
	// order of kernels is solved by the reduction alone, not by HiGHS
	// over levels that only other queries needed.
	o := lw.orderSystemOf()
	added := slices.Clone(o.added)
	defer copy(o.added, added)
	for range orderRounds + 1 {
		if w != nil {
			if so.iterationLimit = w.slice(w.iterations); so.iterationLimit == 0 {
				w.cut = true
				return math.Inf(1), lower, false, more, nil
			}
		}
		s, err := Solve(ctx, &lw.problem, so)
		switch {
		case errors.Is(err, ErrInfeasible):
			return math.Inf(1), math.Inf(1), true, more, nil
		case errors.Is(err, ErrNoPlan) && (ctx.Err() != nil || so.iterationLimit > 0):
			// Stopped before a plan: nothing known above.
			if w != nil {
				w.cut = true
				w.iterations -= so.iterationLimit // at least (no plan to count them)
			}
			return math.Inf(1), lower, false, more, nil
		case err != nil:
			return 0, lower, false, more, err
		}
		if w != nil {
			w.iterations -= s.iterations
			w.entries -= int64(s.entries)
			w.cut = w.cut || s.iterationLimited
		}
		choices := s.alternatives()
		if lw.addOrderBlocks(choices) == 0 {
			exact := s.Status == Optimal && !lw.hasOrderConflict(choices)
			if exact {
				lower = s.Objective
			} else if !math.IsNaN(s.Bound) && !math.IsInf(s.Bound, 0) {
				lower = math.Max(lower, s.Bound)
			}
			return s.Objective, lower, exact, more, nil
		}
	}
	return math.Inf(1), lower, false, more, nil
}

// hasOrderConflict reports whether choices leave a kernel-order conflict.
func (lw *lowering) hasOrderConflict(choices []int) bool {
	return len(orderConflicts(lw.orderEdges(choices), 1)) > 0
}

// alternatives is the plan's alternative of each node, by node.
func (s *Solution) alternatives() []int {
	out := make([]int, len(s.Choices))
	for i, c := range s.Choices {
		out[i] = c.Alternative
	}
	return out
}

// levelsReplace is Options.regretsUnless for the first plan of a problem
// that chooses crossings: true where the plan has a kernel-order conflict
// that the levels' rounds will rule out (keepKernelOrder), solving again
// and computing the regrets of the plan they end with. Where the search
// over the edges' states may take the plan instead (searchPlan), the first
// plan's regrets are its lower bounds, and they are kept.
func (lw *lowering) levelsReplace(so Options) func([]int) bool {
	if !lw.choosesCrossings() || orderRounds == 0 {
		return nil
	}
	searches := orderSearchSolves != 0 && !so.NoReduce && len(lw.problem.Budgets) == 0 && !lw.problem.ordered() && dissolves(&lw.problem)
	if searches {
		return nil
	}
	return func(choices []int) bool {
		if lw.hasOrderConflict(choices) {
			lw.regretsSkipped++
			return true
		}
		return false
	}
}

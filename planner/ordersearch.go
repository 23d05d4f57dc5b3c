package planner

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"time"
)

// Kernel order by a search over the edges' states.
//
// A regret whose best plan has a kernel-order conflict was solved again
// with the levels of the conflict's block (pinnedOrderCost), by HiGHS,
// whose big-M rows relax weakly: 0.2–2.5 s a query on DAGs of a dozen
// invocations whose every task may run as its own kernel, where the plan
// itself takes milliseconds. But a conflict is a handful of edges in their
// states (crossing a kernel boundary, or inside one kernel), and every
// plan that keeps each of those states has the same conflict
// (kernelorder.go). So the best plan that has an order is found by a
// best-first branch and bound whose every step is the exact reduction:
//
//   - a search node requires some edges' states (each a zero-cost group
//     over its edge's ends that admits only the pairs of alternatives in
//     the state, stateGroup) and holds the best plan that keeps them;
//   - a node whose plan has an order bounds the search above; one whose
//     plan has a conflict branches on the conflict's edges not yet
//     required, e_1 … e_k: child i requires e_1 … e_{i−1} as they are and
//     e_i in the other state. A plan with an order differs from the
//     conflict at some edge, and the first such edge puts it in exactly one
//     child; each child requires one edge more, so the search ends;
//   - the nodes are taken cheapest first (their plans' costs are lower
//     bounds on what their children find), and the search ends when the
//     cheapest left costs no less than the best plan with an order.
//
// The result is exact, as the levels' solve is. The search is bounded by
// a count of solves and of their work (orderSearchSolves,
// orderSearchEntries: counts, so that what it proves does not depend on
// the machine's speed); past them, the levels take the query as before,
// with the search's bounds kept.

// orderSearchSolves bounds the solves of one query's search, and
// orderSearchEntries their reductions' buckets, in entries together (the
// work of an elimination, about 10 ns an entry here: 0.5 ms a solve on a
// 12-invocation DAG whose every task may run as its own kernel, 3 ms on a
// 16-invocation one, 2.8 M entries and 70 ms on the 50-invocation DAG of
// BenchmarkKernelOrder, whose plan's search did not end in 200 solves);
// orderSearchConflicts bounds the conflicts of a plan it chooses from.
// A plan's search (searchPlan) gets orderPlanSolves and orderPlanEntries:
// where it does not end, the levels solve the plan once, whereas each
// regret it leaves is a solve of its own, which on those DAGs takes HiGHS
// several seconds (8 s a query at 20 invocations). So a regret's search
// goes on longer: at 200 solves and 2^28 entries, 8 of the 16-invocation
// DAG's searches (seed 1) and 10 of the 20-invocation one's (seed 2)
// stopped short, and every regret took 51 s and 142 s; at 2,000 solves and
// 2^30 entries, none and 1, 32 s and 64 s (docs/benchmarks.md, "Bucket
// rows that go on from the last").
var (
	orderSearchSolves  = 2000
	orderSearchEntries = 1 << 30
	orderPlanSolves    = 200
	orderPlanEntries   = 1 << 24
)

const orderSearchConflicts = 16

// An orderPlan is a plan a regret's search found: its cost and its
// alternative of each node.
type orderPlan struct {
	cost    float64
	choices []int
}

// A stateReq requires order edge edge to be in state (0 inside one
// kernel, 1 crossing).
type stateReq struct {
	edge  int
	state int8
}

// An orderNode is a search node: its requirements (sorted by edge) and
// the best plan that keeps them.
type orderNode struct {
	reqs    []stateReq
	cost    float64
	choices []int
}

// orderSearch is the outcome of searchOrder: the least cost of a plan with
// an order of kernels lies in [lower, upper] (upper +Inf: no such plan
// found), exactly when exact; solves counts the solves it took.
type orderSearch struct {
	lower, upper float64
	exact        bool
	solves       int
	entries      int       // the solves' reductions' entries together (Solution.entries)
	plan         []int     // the alternatives of a plan of cost upper (nil: none)
	sol          *Solution // that plan's solve
}

// searchOrder finds the best plan of lw.problem, as it stands (a
// regret's pin included), whose kernels have an order, by the search
// above, solving each node under so within ctx, at most limit solves and
// work entries of their reductions (the last solve may pass it).
// An error is Solve's, but for infeasibility (a node without plans, which
// the search prunes) and a stop (ctx ended, a node's solve not proven),
// which end the search with exact false.
func (lw *lowering) searchOrder(ctx context.Context, so Options, limit, work int) (orderSearch, error) {
	out := orderSearch{lower: math.Inf(1), upper: math.Inf(1)}
	so.noIIS = true // a node without plans is pruned, its reasons unread
	o := lw.orderSystemOf()
	var open []orderNode
	// solve adds the node of reqs: to open when its plan has a conflict,
	// to upper when it has none. It reports false when the search must
	// stop short (a limit, a solve not proven).
	solve := func(reqs []stateReq) (bool, error) {
		if out.solves == limit || out.entries >= work || ctx.Err() != nil {
			return false, nil
		}
		out.solves++
		s, err := lw.solveRequiring(ctx, reqs, so)
		if s != nil {
			out.entries += s.entries
		}
		switch {
		case errors.Is(err, ErrInfeasible):
			return true, nil
		case errors.Is(err, ErrNoPlan) && ctx.Err() != nil:
			return false, nil
		case err != nil:
			return false, err
		case s.Status != Optimal:
			return false, nil
		}
		choices := s.alternatives()
		if !lw.hasOrderConflict(choices) {
			if s.Objective < out.upper {
				out.upper, out.plan, out.sol = s.Objective, choices, s
			}
			return true, nil
		}
		if s.Objective < out.upper {
			open = append(open, orderNode{reqs: reqs, cost: s.Objective, choices: choices})
		}
		return true, nil
	}
	// stopped ends the search short: what is proven is the least node
	// left (or nothing, when none is).
	stopped := func(err error) (orderSearch, error) {
		out.lower = out.upper
		for _, n := range open {
			out.lower = math.Min(out.lower, n.cost)
		}
		if math.IsInf(out.lower, 1) && math.IsInf(out.upper, 1) {
			out.lower = math.Inf(-1) // nothing proven
		}
		return out, err
	}
	if ok, err := solve(nil); !ok || err != nil {
		return stopped(err)
	}
	for {
		// The cheapest node left; ties by the order they were made in.
		best := -1
		for i, n := range open {
			if best < 0 || n.cost < open[best].cost {
				best = i
			}
		}
		if best < 0 || open[best].cost >= out.upper {
			out.lower, out.exact = out.upper, true
			return out, nil
		}
		n := open[best]
		open = slices.Delete(open, best, best+1)
		edges := lw.orderEdges(n.choices)
		// Of the plan's conflicts, the one with the fewest edges not yet
		// required branches: the fewest children.
		var free []stateReq // that conflict's edges not yet required, as they are
		for k, c := range orderConflicts(edges, orderSearchConflicts) {
			var f []stateReq
			for _, i := range c {
				e := edges[i]
				ei := lw.orderIndex[e.gi] + e.ci
				if !slices.ContainsFunc(n.reqs, func(r stateReq) bool { return r.edge == ei }) {
					f = append(f, stateReq{edge: ei, state: boolState(e.cross)})
				}
			}
			if k == 0 || len(f) < len(free) {
				free = f
			}
		}
		for i, r := range free {
			lw.fillStates(r.edge)
			flipped := stateReq{edge: r.edge, state: 1 - r.state}
			if !o.edges[r.edge].admits(&lw.problem, flipped.state) {
				continue // no pair of alternatives left is in that state
			}
			reqs := make([]stateReq, 0, len(n.reqs)+i+1)
			reqs = append(reqs, n.reqs...)
			reqs = append(reqs, free[:i]...)
			reqs = append(reqs, flipped)
			slices.SortFunc(reqs, func(a, b stateReq) int { return a.edge - b.edge })
			ok, err := solve(reqs)
			if err != nil || !ok {
				open = append(open, n) // its subtree is not searched through
				return stopped(err)
			}
		}
	}
}

// boolState is an edge's state: 1 crossing, 0 inside one kernel.
func boolState(cross bool) int8 {
	if cross {
		return 1
	}
	return 0
}

// admits reports whether some pair of e's ends' alternatives left in p
// (not removed) puts e in state s. Its states must be filled.
func (e *orderSysEdge) admits(p *Problem, s int8) bool {
	for au, alt := range p.Nodes[e.u].Alternatives {
		if alt.Removed != "" {
			continue
		}
		for aw, alt := range p.Nodes[e.w].Alternatives {
			if alt.Removed == "" && e.state[au*e.nw+aw] == s {
				return true
			}
		}
	}
	return false
}

// solveRequiring solves lw.problem with the edges' states reqs required
// (one stateGroup each), under so.
func (lw *lowering) solveRequiring(ctx context.Context, reqs []stateReq, so Options) (*Solution, error) {
	if len(reqs) == 0 {
		return Solve(ctx, &lw.problem, so)
	}
	q := lw.problem
	n := len(q.Groups)
	q.Groups = slices.Grow(q.Groups[:n:n], len(reqs))
	for _, r := range reqs {
		lw.fillStates(r.edge)
		q.Groups = append(q.Groups, lw.stateGroup(r))
	}
	return Solve(ctx, &q, so)
}

// stateGroup is the zero-cost group that admits, of order edge r.edge's
// ends' alternatives, only the pairs that put it in state r.state. Its
// labels are classes: the producer's alternatives with the same consumer
// alternatives admitted share one, and the consumer's alike, so that the
// reduction's tables over the group grow by its classes, not by the
// alternatives.
func (lw *lowering) stateGroup(r stateReq) Group {
	e := &lw.problem.order.edges[r.edge]
	nu, nw := len(lw.problem.Nodes[e.u].Alternatives), len(lw.problem.Nodes[e.w].Alternatives)
	row := func(au int) string {
		b := make([]byte, nw)
		for aw := range nw {
			b[aw] = '0' + byte(boolInt(e.state[au*nw+aw] == r.state))
		}
		return string(b)
	}
	col := func(aw int) string {
		b := make([]byte, nu)
		for au := range nu {
			b[au] = '0' + byte(boolInt(e.state[au*nw+aw] == r.state))
		}
		return string(b)
	}
	uClass, wClass := map[string]string{}, map[string]string{}
	class := func(classes map[string]string, key, prefix string) string {
		l, ok := classes[key]
		if !ok {
			l = prefix + strconv.Itoa(len(classes))
			classes[key] = l
		}
		return l
	}
	g := Group{Name: "state of " + e.name, Producer: e.u, Sources: make([]string, nu),
		Consumers: []Consumer{{Node: e.w, Targets: make([]string, nw)}}}
	for au := range nu {
		g.Sources[au] = class(uClass, row(au), "u")
	}
	for aw := range nw {
		g.Consumers[0].Targets[aw] = class(wClass, col(aw), "w")
	}
	seen := map[[2]string]bool{}
	for au := range nu {
		for aw := range nw {
			pair := [2]string{g.Sources[au], g.Consumers[0].Targets[aw]}
			if e.state[au*nw+aw] == r.state && !seen[pair] {
				seen[pair] = true
				g.Pairs = append(g.Pairs, Pair{Source: pair[0], Target: pair[1]})
			}
		}
	}
	return g
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// searchPlan is the plan of the rounds (keepKernelOrder) found by the
// search instead of levels, where first, the plan without them, has a
// conflict, the problem is eliminated whole without levels (each step a
// reduction) and has no budget, and the caller did not ask for HiGHS alone
// (Options.NoReduce keeps the levels: a check of the search). It is first
// with the best plan that has an order in its place (its choices, cost and
// conversions, from the search's solve that found it), the conflicts of first kept for the report, and each regret left
// for orderRegrets to make exact from a lower bound: what the plan without
// levels proved, less the new optimum. ok is false where the search does
// not apply, or does not prove a plan within its solves or by half the time
// to deadline (zero: none): the levels take the plan then, as before.
func (lw *lowering) searchPlan(ctx context.Context, first *Solution, so Options, deadline time.Time) (*Solution, bool) {
	if orderSearchSolves == 0 || so.NoReduce || first.Status != Optimal || len(first.Choices) != len(lw.invs) ||
		len(lw.problem.Budgets) > 0 || lw.problem.ordered() || !dissolves(&lw.problem) {
		return nil, false
	}
	if !deadline.IsZero() {
		// Half the rounds' window at most: the levels get the rest
		// where the search does not end.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/2))
		defer cancel()
	}
	quiet := so
	quiet.NoRegrets, quiet.Start, quiet.Explain = true, nil, nil
	res, err := lw.searchOrder(ctx, quiet, min(orderSearchSolves, orderPlanSolves), orderPlanEntries)
	lw.orderPlanEntries += int64(res.entries) // the plan's work, whatever came of it
	if err != nil || !res.exact || res.plan == nil {
		return nil, false
	}
	s := res.sol
	sol := *first
	sol.Objective, sol.Bound, sol.Gap, sol.BoundFrom = s.Objective, s.Objective, 0, ""
	sol.Choices, sol.Execution, sol.Conversion = s.Choices, s.Execution, s.Conversion
	sol.Groups, sol.BudgetUse = s.Groups[:len(lw.problem.Groups)], s.BudgetUse
	if first.Regrets != nil {
		sol.Regrets = make([]Regret, 0, len(first.Regrets))
		swapped := map[int]bool{} // the nodes whose choice the plan changed, explained
		for _, r := range first.Regrets {
			lowest := first.Objective + r.Lower // no plan using it costs less
			if a := res.plan[r.Node]; r.Alternative == a {
				// The plan's choice now: the first plan's is rejected.
				a = first.Choices[r.Node].Alternative
				r = Regret{Node: r.Node, Alternative: a, ID: lw.problem.Nodes[r.Node].Alternatives[a].ID}
				lowest = first.Objective
				swapped[r.Node] = true
			} else if math.IsInf(r.Regret, 1) && r.Exact {
				sol.Regrets = append(sol.Regrets, r) // no plan uses it
				continue
			}
			r.Regret, r.Lower, r.Exact, r.Tie, r.DominatedBy = math.Inf(1), math.Max(0, lowest-sol.Objective), false, false, -1
			sol.Regrets = append(sol.Regrets, r)
		}
		slices.SortFunc(sol.Regrets, func(a, b Regret) int {
			return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Alternative, b.Alternative))
		})
		for _, r := range first.Regrets {
			if v := r.Node; res.plan[v] != first.Choices[v].Alternative && !swapped[v] {
				// The plan chose what the first plan's regrets do not
				// list (an alternative pruned there): the levels take it.
				return nil, false
			}
		}
	}
	// The conflicts the plan was kept from: the first plan's, one a block.
	o := lw.orderSystemOf()
	edges := lw.orderEdges(first.alternatives())
	var blocks []int
	for _, c := range orderConflicts(edges, orderCutsPerRound) {
		e := edges[c[0]]
		if b := o.edges[lw.orderIndex[e.gi]+e.ci].block; !slices.Contains(blocks, b) {
			blocks = append(blocks, b)
			lw.orderCuts = append(lw.orderCuts, orderCut{block: b, what: lw.describeConflict(edges, c), inside: lw.insideEdges(edges, c)})
		}
	}
	lw.orderSearchPlans++
	return &sol, true
}

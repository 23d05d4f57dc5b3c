package planner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOrderSearchAgreesWithLevels: on random DAGs whose every task may run
// as its own kernel (gen dag --unfused), every regret is the same whether
// the search over the edges' states proves its plan with an order
// (ordersearch.go), the levels do (orderSearchSolves 0), or the search
// stops after two solves, or after one by its work, and hands the query
// to the levels with its bounds: each exact, within 1e-9 of the plan's cost. The plans the
// searches keep for the reasons pin their alternatives, cost what they say
// and have an order, and the reasons name what they change where the
// levels' words could not. TestKernelOrderExhaustive checks the search
// against every plan enumerated.
func TestOrderSearchAgreesWithLevels(t *testing.T) {
	defer func(n, e int) { orderSearchSolves, orderSearchEntries = n, e }(orderSearchSolves, orderSearchEntries)
	branched, short, kept, named := 0, 0, 0, 0
	worked := 0 // the searches stopped short by their work
	for _, c := range []struct {
		n    int
		seed uint64
	}{{6, 1}, {7, 2}, {8, 2}} {
		g := unfusedDAG(t, c.n, c.seed)
		plan := func(solves, entries int) (*Result, *lowering) {
			t.Helper()
			orderSearchSolves, orderSearchEntries = solves, entries
			var lw *lowering
			plantInLowering = func(l *lowering) { lw = l }
			defer func() { plantInLowering = nil }()
			r, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatalf("n=%d seed=%d, %d solves: %v", c.n, c.seed, solves, err)
			}
			if r.UnprovenRegrets > 0 {
				t.Errorf("n=%d seed=%d, %d solves: %d regrets unproven without limits", c.n, c.seed, solves, r.UnprovenRegrets)
			}
			return r, lw
		}
		levels, _ := plan(0, 1<<28)
		for _, limits := range [][2]int{{200, 1 << 28}, {2, 1 << 28}, {200, 1}} {
			solves := limits[0]
			r, lw := plan(solves, limits[1])
			name := fmt.Sprintf("n=%d seed=%d, %d solves, %d entries", c.n, c.seed, solves, limits[1])
			switch {
			case solves == 2:
				short += lw.orderSearchesShort
			case limits[1] == 1:
				worked += lw.orderSearchesShort
			default:
				branched += lw.orderSearchBranched
				if lw.orderSearchesShort > 0 {
					t.Errorf("%s: %d searches stopped short", name, lw.orderSearchesShort)
				}
				// The plans kept for the reasons: each pins its
				// alternative, costs what it says and has an order.
				for va, op := range lw.orderPlans {
					ev, err := lw.problem.Evaluate(op.choices)
					switch {
					case err != nil || op.choices[va[0]] != va[1]:
						t.Errorf("%s: the plan kept for node %d's alternative %d: %v, choices %v", name, va[0], va[1], err, op.choices)
					case math.Abs(ev.Cost-op.cost) > 1e-9*op.cost || lw.hasOrderConflict(op.choices):
						t.Errorf("%s: the plan kept for node %d's alternative %d costs %v, kept as %v; conflict %v", name, va[0], va[1], ev.Cost, op.cost, lw.hasOrderConflict(op.choices))
					}
				}
				kept += len(lw.orderPlans)
			}
			if r.ObjectiveNS != levels.ObjectiveNS {
				t.Fatalf("%s: plan %v ns, with the levels %v ns", name, r.ObjectiveNS, levels.ObjectiveNS)
			}
			tol := 1e-9 * levels.ObjectiveNS
			for i, ch := range r.Choices {
				for j, rj := range ch.Rejected {
					want := levels.Choices[i].Rejected[j]
					if limits == [2]int{200, 1 << 28} && strings.HasSuffix(want.Reason, replannedAlone) && strings.Contains(rj.Reason, replannedAlsoAt) {
						named++ // the levels' replan had a conflict: words only
					}
					switch {
					case rj.Infeasible != want.Infeasible || (rj.RegretNS == nil) != (want.RegretNS == nil):
						t.Errorf("%s: %s's %s: %+v, with the levels %+v", name, ch.Invocation, rj.Alternative, rj, want)
					case rj.RegretNS != nil && (math.Abs(*rj.RegretNS-*want.RegretNS) > tol || !rj.Exact || !want.Exact):
						t.Errorf("%s: %s's %s: regret %v (exact %v), with the levels %v (exact %v)", name, ch.Invocation, rj.Alternative, *rj.RegretNS, rj.Exact, *want.RegretNS, want.Exact)
					}
				}
			}
		}
	}
	t.Logf("%d searches branched; %d stopped short after 2 solves and %d by their work, and went on with the levels; %d plans kept, %d reasons name their changes where the levels' said only that there are some", branched, short, worked, kept, named)
	if branched == 0 || short == 0 || worked == 0 || named == 0 {
		t.Error("no search branched, none stopped short, or no reason named a search's plan: the test tests too little")
	}
}

// TestStateGroupAdmitsTheState: an edge's state group admits a pair of its
// ends' alternatives exactly where the edge is in the state asked for, on
// random state tables (a state that depends on both ends, as a kernel
// split between register bindings does), and labels the alternatives by
// classes: no more labels than distinct rows (producer) or columns
// (consumer) of the table.
func TestStateGroupAdmitsTheState(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 200 {
		nu, nw := 1+rng.IntN(6), 1+rng.IntN(6)
		state := make([]int8, nu*nw)
		for i := range state {
			state[i] = int8(rng.IntN(3)) - 1 // -1 not convertible, 0 inside, 1 crossing
		}
		lw := &lowering{}
		lw.problem.Nodes = []Node{{Alternatives: make([]Alternative, nu)}, {Alternatives: make([]Alternative, nw)}}
		lw.problem.order = &orderSystem{edges: []orderSysEdge{{u: 0, w: 1, name: "v0.y -> v1.x0", state: state, nw: nw}}}
		for _, s := range []int8{0, 1} {
			g := lw.stateGroup(stateReq{edge: 0, state: s})
			admitted := map[[2]string]bool{}
			for _, p := range g.Pairs {
				if p.Cost != 0 {
					t.Fatalf("trial %d: pair %+v costs something", trial, p)
				}
				admitted[[2]string{p.Source, p.Target}] = true
			}
			rows, cols := map[string]bool{}, map[string]bool{}
			for au := range nu {
				rows[fmt.Sprint(state[au*nw:(au+1)*nw])] = true
				for aw := range nw {
					want := state[au*nw+aw] == s
					if got := admitted[[2]string{g.Sources[au], g.Consumers[0].Targets[aw]}]; got != want {
						t.Fatalf("trial %d, state %d: (%d, %d) in state %d admitted %v", trial, s, au, aw, state[au*nw+aw], got)
					}
				}
			}
			for aw := range nw {
				var col []int8
				for au := range nu {
					col = append(col, state[au*nw+aw])
				}
				cols[fmt.Sprint(col)] = true
			}
			if labels(g.Sources) > len(rows) || labels(g.Consumers[0].Targets) > len(cols) {
				t.Errorf("trial %d: %d and %d labels for %d rows and %d columns", trial, labels(g.Sources), labels(g.Consumers[0].Targets), len(rows), len(cols))
			}
			if g.Producer != 0 || len(g.Consumers) != 1 || g.Consumers[0].Node != 1 {
				t.Fatalf("trial %d: the group is over %d and %+v", trial, g.Producer, g.Consumers)
			}
		}
	}
}

// labels counts the distinct labels of a group's side.
func labels(ls []string) int {
	seen := map[string]bool{}
	for _, l := range ls {
		seen[l] = true
	}
	return len(seen)
}

// BenchmarkOrderRegrets plans random DAGs whose every task may run as its
// own kernel (gen dag --invocations n --seed 2 --unfused 1.2) with every
// regret exact (no limits): the regrets whose best plans have a
// kernel-order conflict are the search's (ordersearch.go), or the levels'
// with levels=only (orderSearchSolves 0).
//
//	go test ./planner -run '^$' -bench OrderRegrets -benchtime 1x
func BenchmarkOrderRegrets(b *testing.B) {
	search := orderSearchSolves
	defer func() { orderSearchSolves = search }()
	for _, n := range []int{8, 12, 16} {
		g := unfusedDAG(b, n, 2)
		for _, levels := range []bool{false, true} {
			name := fmt.Sprintf("invocations=%d", n)
			if levels {
				if n > 12 {
					continue // 89 s at 16 (docs/benchmarks.md)
				}
				name += "/levels=only"
			}
			b.Run(name, func(b *testing.B) {
				orderSearchSolves = search
				if levels {
					orderSearchSolves = 0
				}
				cache := NewCache()
				var lw *lowering
				plantInLowering = func(l *lowering) { lw = l }
				defer func() { plantInLowering = nil }()
				var r *Result
				for b.Loop() {
					var err error
					if r, err = Plan(context.Background(), g, PlanOptions{Cache: cache}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.UnprovenRegrets), "unproven")
				b.ReportMetric(float64(lw.orderSearchBranched), "searches-branched")
			})
		}
	}
}

// TestOrderRegretsSearchLast: a regret whose pinned plan has an order is
// answered by that one solve before any query is searched, so a window
// that ends at the first search leaves only the searched queries
// unproven. Untimed, the same DAGs count the searches (those queries) and
// every regret is exact; stopped by the caller as the first search would
// begin, every other regret is exact still, and the searched ones are
// unproven, by the interrupt.
func TestOrderRegretsSearchLast(t *testing.T) {
	defer func() { plantBeforeOrderSearch = nil }()
	for _, c := range []struct {
		n    int
		seed uint64
	}{{8, 2}, {10, 2}, {12, 1}} {
		g := unfusedDAG(t, c.n, c.seed)
		searched := 0
		plantBeforeOrderSearch = func() { searched++ }
		var lw *lowering
		plantInLowering = func(l *lowering) { lw = l }
		r, err := Plan(context.Background(), g, PlanOptions{})
		plantInLowering = nil
		if err != nil {
			t.Fatal(err)
		}
		all, exact := exactRegrets(r)
		// Each query searched has a conflict in its pinned plan, and
		// branches on it.
		if exact != all || searched == 0 || searched != lw.orderSearchBranched {
			t.Fatalf("%d invocations, seed %d, untimed: %d of %d regrets exact, %d searched, %d branched",
				c.n, c.seed, exact, all, searched, lw.orderSearchBranched)
		}
		ctx, cancel := context.WithCancel(context.Background())
		plantBeforeOrderSearch = cancel
		r, err = Plan(ctx, g, PlanOptions{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		all2, exact2 := exactRegrets(r)
		if all2 != all || exact2 != all-searched || r.UnprovenRegrets != searched || r.UnprovenBy != UnprovenByInterrupt {
			t.Errorf("%d invocations, seed %d, stopped at the first search: %d of %d regrets exact, %d unproven (by %q); want %d exact, the %d searched unproven",
				c.n, c.seed, exact2, all2, r.UnprovenRegrets, r.UnprovenBy, all-searched, searched)
		}
		t.Logf("%d invocations, seed %d: %d regrets, %d searched", c.n, c.seed, all, searched)
	}
}

// exactRegrets counts the rejected alternatives with a regret (neither
// removed nor unexplained) and those exact.
func exactRegrets(r *Result) (all, exact int) {
	for _, c := range r.Choices {
		for _, rj := range c.Rejected {
			if rj.Removed || rj.RegretNS == nil && !rj.Infeasible && rj.RegretLowerNS == nil {
				continue
			}
			all++
			if rj.Exact {
				exact++
			}
		}
	}
	return all, exact
}

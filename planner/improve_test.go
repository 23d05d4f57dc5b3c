package planner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestImprove: the large-neighbourhood search never makes a plan worse nor
// infeasible, and where every connected part of a problem fits in one window
// it reaches the exhaustive optimum (each window is re-planned exactly), even
// from a local choice that needs a conversion that cannot be done.
func TestImprove(t *testing.T) {
	reached, better, repaired := 0, 0, 0
	for seed := range uint64(400) {
		p := randomProblem(seed, 10)
		if len(p.Budgets) > 0 {
			continue
		}
		ex := exhaustive(p)
		lc := localChoice(p)
		all := make([]int, len(p.Nodes))
		for v := range all {
			all[v] = v
		}
		plan := improve(p, lc.Choices, all, 10, nil)
		ev, err := p.Evaluate(plan)
		if err != nil {
			if _, lerr := p.Evaluate(lc.Choices); lerr != nil {
				continue // a node has no alternative left: nothing to plan
			}
			t.Fatalf("seed %d: %v", seed, err)
		}
		name := fmt.Sprintf("seed %d", seed)
		if lc.Feasible() && (!ev.Feasible() || ev.Cost > lc.Cost+1e-9*math.Abs(lc.Cost)) {
			t.Fatalf("%s: local choice %v (feasible), improved %v (feasible %v)", name, lc.Cost, ev.Cost, ev.Feasible())
		}
		if ev.Cost < lc.Cost-1e-9*math.Abs(lc.Cost) {
			better++
		}
		if len(p.Nodes) <= improveWindow && !math.IsInf(ex.opt, 1) {
			if !lc.Feasible() {
				repaired++
			}
			if !near(ev.Cost, ex.opt) {
				t.Fatalf("%s: %d nodes fit one window; improved %v, exhaustive optimum %v", name, len(p.Nodes), ev.Cost, ex.opt)
			}
			reached++
		}
	}
	if reached == 0 || better == 0 || repaired == 0 {
		t.Fatalf("%d problems reached the optimum, %d improved, %d repaired from an infeasible local choice: the test exercises too little",
			reached, better, repaired)
	}
}

// TestImproveStops: the search asks before each window whether to stop,
// and once told, re-plans no more windows and keeps what it has: a plan
// no worse than its start.
func TestImproveStops(t *testing.T) {
	p := randomDAG(1, 300, 4)
	lc := localChoice(p)
	all := make([]int, len(p.Nodes))
	for v := range all {
		all[v] = v
	}
	for _, after := range []int{0, 1, 5} {
		asked := 0
		plan := improve(p, lc.Choices, all, improvePasses, func() bool {
			asked++
			return asked > after
		})
		if asked != after+1 {
			t.Errorf("told to stop at its question %d, the search asked %d times", after+1, asked)
		}
		ev, err := p.Evaluate(plan)
		if err != nil || ev.Cost > lc.Cost+1e-9*math.Abs(lc.Cost) {
			t.Errorf("stopped after %d windows: %v, %v; the start costs %v", after, ev.Cost, err, lc.Cost)
		}
	}
}

// TestWindowMoves checks the windows of one node that price every move of
// it at once (windower.moves, the regrets' windows) against the window
// re-planned for each move alone (windower.best with the node restricted
// to that alternative): on random DAGs and problems, from random plans,
// the same cost before bit for bit, and after each move the same cost
// within rounding, +Inf where the other's is.
func TestWindowMoves(t *testing.T) {
	compared, infinite := 0, 0
	for seed := range uint64(200) {
		p := randomDAG(seed, 12, 4)
		if seed%2 == 1 {
			p = randomProblem(seed, 10)
		}
		if len(p.Budgets) > 0 {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 3))
		plan := make([]int, len(p.Nodes))
		for v, nd := range p.Nodes {
			plan[v] = r.IntN(len(nd.Alternatives))
		}
		w := newWindower(p)
		w.size = 1
		for v, nd := range p.Nodes {
			var alts []int
			for a, alt := range nd.Alternatives {
				if alt.Removed == "" {
					alts = append(alts, a)
				}
			}
			before, after, ok := w.moves(v, alts, plan)
			for k, a := range alts {
				b, aft, ok1 := w.best([]int{v}, [][]int{{a}}, plan, false)
				if ok1 != ok {
					t.Fatalf("seed %d: node %d to %d: moves ok %v, best ok %v", seed, v, a, ok, ok1)
				}
				if !ok {
					continue
				}
				if math.Float64bits(b) != math.Float64bits(before) {
					t.Fatalf("seed %d: node %d: before %v by moves, %v by best", seed, v, before, b)
				}
				if math.IsInf(aft, 1) != math.IsInf(after[k], 1) || math.Abs(aft-after[k]) > 1e-9*math.Max(1, math.Abs(aft)) {
					t.Fatalf("seed %d: node %d to %d: after %v by moves, %v by best", seed, v, a, after[k], aft)
				}
				compared++
				if math.IsInf(aft, 1) {
					infinite++
				}
			}
		}
	}
	t.Logf("%d moves compared, %d of them without a plan", compared, infinite)
	if compared == 0 || infinite == 0 {
		t.Errorf("%d moves compared, %d without a plan", compared, infinite)
	}
}

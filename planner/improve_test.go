package planner

import (
	"fmt"
	"math"
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
		plan := improve(p, lc.Choices, all, 10)
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

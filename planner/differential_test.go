package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// differentialProblems is how many seeded random problems the differential
// tests compare with exhaustive search.
const differentialProblems = 1000

func near(a, b float64) bool {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return math.IsInf(a, 1) && math.IsInf(b, 1)
	}
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// checkAgainst compares a Solve result with exhaustive search: the same
// optimum (or both infeasible), a plan that costs it, and, when regrets were
// computed, every rejected alternative's regret equal to the exhaustive one.
func checkAgainst(t *testing.T, name string, p *Problem, ex exhaustiveResult, sol *Solution, err error, regrets bool) {
	t.Helper()
	if math.IsInf(ex.opt, 1) {
		if !errors.Is(err, ErrInfeasible) {
			t.Fatalf("%s: exhaustive search finds no plan; Solve: %v, %v", name, sol, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: exhaustive optimum %v (plan %v); Solve: %v", name, ex.opt, ex.choices, err)
	}
	if sol.Status != Optimal || !near(sol.Objective, ex.opt) {
		t.Fatalf("%s: Solve: %v %v, exhaustive optimum %v (plan %v)", name, sol.Status, sol.Objective, ex.opt, ex.choices)
	}
	choices := make([]int, len(sol.Choices))
	for v, c := range sol.Choices {
		choices[v] = c.Alternative
	}
	ev, err := p.Evaluate(choices)
	if err != nil || !ev.Feasible() || !near(ev.Cost, ex.opt) {
		t.Fatalf("%s: the plan %v evaluates to %+v, %v; optimum %v", name, choices, ev, err, ex.opt)
	}
	if sol.Bound > sol.Objective+1e-6*math.Max(1, math.Abs(sol.Objective)) {
		t.Fatalf("%s: bound %v above the objective %v", name, sol.Bound, sol.Objective)
	}
	if !regrets {
		return
	}
	if want := rejectedCount(p, choices); len(sol.Regrets) != want {
		t.Fatalf("%s: %d regrets, want one per rejected alternative (%d)", name, len(sol.Regrets), want)
	}
	for _, r := range sol.Regrets {
		exact := ex.best[r.Node][r.Alternative] - ex.opt
		if !near(r.Regret, exact) || !r.Exact || r.Tie != near(exact, 0) {
			t.Fatalf("%s: node %d alternative %d: regret %+v, exhaustive %v", name, r.Node, r.Alternative, r, exact)
		}
	}
}

// TestDifferential compares the reduced path, with regrets (certified
// wherever a certificate holds, however few the queries; kernels over
// budgets contracted where they can be; on every fifth problem also with
// one round of certificates, whose misses go to re-solves), against
// exhaustive search on seeded random problems; the NoReduce path must find
// the same optimum (and, on every tenth problem, the same regrets, all by
// re-solves), and so must the reduction with a tiny table limit (with
// certificates; and without dominance pruning, with certificates only
// after a fractional LP).
func TestDifferential(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	stats := map[string]int{}
	for seed := range uint64(differentialProblems) {
		p := randomProblem(seed, 10)
		ex := exhaustive(p)
		name := fmt.Sprintf("seed %d", seed)
		sol, err := Solve(ctx, p, Options{certify: certifyAlways})
		checkAgainst(t, name+" reduced", p, ex, sol, err, true)
		if err == nil {
			stats["feasible"]++
			switch {
			case sol.Model.CoreNodes == 0:
				stats["core empty"]++
			case sol.Model.Eliminated > 0:
				stats["core and eliminated"]++
			}
			if sol.RegretCertified > 0 {
				stats["certified"]++
			}
			if sol.dualsAhead {
				stats["duals solved beside the plan"]++
			}
			if sol.certifiedLater > 0 {
				stats["certified in a later pass"]++
			}
			if sol.clusterDuals {
				stats["certificates priced with the fan-outs' clusters"]++
			}
			if sol.Model.ContractedKernels > 0 {
				stats["kernels contracted"]++
			}
			if slackBudgets(p) != nil {
				stats["slack budgets dropped"]++
			}
			if seed%5 == 0 {
				// Certificates of one round, which leave queries to
				// re-solves.
				sol, err := Solve(ctx, p, Options{certify: certifyAlways, certifyRounds: 1})
				checkAgainst(t, name+" one round of certificates", p, ex, sol, err, true)
				if err == nil && sol.RegretSolves > 0 && sol.RegretCertified > 0 {
					stats["certificate missed: re-solves"]++
				}
			}
			for _, r := range sol.Regrets {
				if r.Tie {
					stats["ties"]++
				}
				if math.IsInf(r.Regret, 1) {
					stats["infinite regrets"]++
				}
				if r.DominatedBy >= 0 {
					stats["dominated"]++
				}
			}
		}
		// Every tenth problem's regrets, unreduced, come from re-solves
		// alone (no certificate).
		sol, err = Solve(ctx, p, Options{NoReduce: true, NoRegrets: seed%10 != 0, certify: certifyNone})
		checkAgainst(t, name+" NoReduce", p, ex, sol, err, seed%10 == 0)
		if err == nil && sol.RegretSolves > 0 {
			stats["re-solves"]++
		}
		if err == nil && sol.RegretMILPSolves > 0 {
			stats["MILP re-solves"]++
		}
		if seed%2 == 1 {
			// A small table limit leaves cores without budgets, whose
			// certificates eliminate their regions (certelim.go); those
			// over budgets still solve small LPs.
			sol, err = Solve(ctx, p, Options{MaxTable: 8, certify: certifyAlways})
			checkAgainst(t, name+" MaxTable 8", p, ex, sol, err, true)
			if err == nil && sol.certifiedEliminated > 0 {
				stats["certified by elimination"]++
			}
			if err == nil && sol.RegretCertified > sol.certifiedEliminated {
				stats["certified by a small LP"]++
			}
		}
		if seed%3 == 2 {
			// From a given start (Options.Start): the optimum, or a random
			// plan with some nodes left to the local choice and some
			// removed alternatives (ignored); the same optimum, reduced
			// (every regret) and whole.
			rng := rand.New(rand.NewPCG(seed, 0x57a7))
			start := make([]int, len(p.Nodes))
			for v, n := range p.Nodes {
				switch {
				case seed%6 == 2 && ex.choices != nil:
					start[v] = ex.choices[v]
				case rng.IntN(4) == 0:
					start[v] = -1
				default:
					start[v] = rng.IntN(len(n.Alternatives))
				}
			}
			sol, err = Solve(ctx, p, Options{Start: start, certify: certifyAlways})
			checkAgainst(t, name+" Start", p, ex, sol, err, true)
			if err == nil && sol.started {
				stats["started from the given plan"]++
			}
			sol, err = Solve(ctx, p, Options{Start: start, NoReduce: true, NoRegrets: true})
			checkAgainst(t, name+" Start, NoReduce", p, ex, sol, err, false)
			if err == nil && sol.started {
				stats["started from the given plan, NoReduce"]++
			}
		}
		if seed%4 == 0 {
			// Re-solves alone, the MILP re-solves' columns fixed by the
			// LP's reduced costs against a plan found before; budgets stay
			// rows (no kernel contracted).
			sol, err = Solve(ctx, p, Options{MaxTable: 8, KeepDominated: true, certify: certifyFixings, noContract: true})
			checkAgainst(t, name+" MaxTable 8, KeepDominated", p, ex, sol, err, true)
			if err == nil && sol.milpFixed > 0 {
				stats["MILP re-solves with columns fixed"]++
			}
		}
	}
	t.Logf("%d problems: %v", differentialProblems, stats)
	// The generator must exercise every path; these fail if it drifts.
	for _, k := range []string{"feasible", "core empty", "core and eliminated", "certified", "duals solved beside the plan", "certified in a later pass", "certificates priced with the fan-outs' clusters", "certificate missed: re-solves", "re-solves",
		"certified by elimination", "certified by a small LP", "MILP re-solves with columns fixed", "MILP re-solves", "ties", "infinite regrets", "dominated", "kernels contracted", "slack budgets dropped",
		"started from the given plan", "started from the given plan, NoReduce"} {
		if stats[k] == 0 {
			t.Errorf("no problem exercised %q", k)
		}
	}
	if stats["feasible"] == differentialProblems {
		t.Errorf("no infeasible problem")
	}
}

// TestLooseGapNoRegrets: a plan proven only within a looser gap than the
// default is not measured from: no regrets, and the bound says what proved
// it; a plan the loose solve proves at the default gaps anyway gets its
// regrets, exact (as exhaustive search's), from re-solves at the default
// gaps.
func TestLooseGapNoRegrets(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	loose, tight := 0, 0
	for seed := range uint64(200) {
		p := randomProblem(seed, 10)
		ex := exhaustive(p)
		for _, o := range []Options{{RelativeGap: 0.3, MaxTable: 8}, {AbsoluteGap: 1e3, MaxTable: 8, NoReduce: true}} {
			sol, err := Solve(ctx, p, o)
			if err != nil {
				continue // infeasible: TestDifferential checks those
			}
			name := fmt.Sprintf("seed %d, %+v", seed, o)
			if sol.Objective < ex.opt-1e-6*max(1, math.Abs(ex.opt)) || sol.Bound > ex.opt+1e-6*max(1, math.Abs(ex.opt)) {
				t.Fatalf("%s: plan %v, bound %v around the optimum %v", name, sol.Objective, sol.Bound, ex.opt)
			}
			if !sol.provedTight() {
				loose++
				if sol.Regrets != nil || sol.BoundFrom == "" {
					t.Fatalf("%s: proven only within the gap (%v, optimum %v): regrets %v, bound from %q", name, sol.Objective, ex.opt, sol.Regrets, sol.BoundFrom)
				}
				continue
			}
			tight++
			for _, r := range sol.Regrets {
				want := ex.best[r.Node][r.Alternative] - ex.opt
				if !r.Exact || !(math.IsInf(want, 1) && math.IsInf(r.Regret, 1) || math.Abs(r.Regret-want) <= 1e-6*max(1, math.Abs(want))) {
					t.Fatalf("%s: node %d alternative %d: regret %+v, exhaustive %v", name, r.Node, r.Alternative, r, want)
				}
			}
		}
	}
	if loose == 0 || tight == 0 {
		t.Errorf("%d plans proven only within the gap, %d at the default gaps: want some of each", loose, tight)
	}
}

// A solve stopped before HiGHS ran (an interrupt) whose start plan meets
// the bound it has proven (no conversion needed, every node at its
// cheapest: the execution floor) is proven optimal, with its regrets; a
// start plan above the floor stays interrupted.
func TestStoppedAtTheBoundIsOptimal(t *testing.T) {
	highstest.Library(t)
	free := &Problem{}
	for v := range 3 {
		free.Nodes = append(free.Nodes, Node{Name: fmt.Sprint("v", v), Alternatives: []Alternative{{ID: "a", Cost: 1}, {ID: "b", Cost: 2}}})
	}
	pairs := []Pair{{Source: "x", Target: "x"}, {Source: "x", Target: "y", Cost: 0}, {Source: "y", Target: "x"}, {Source: "y", Target: "y"}}
	free.Groups = []Group{
		{Name: "g0", Producer: 0, Sources: []string{"x", "y"}, Consumers: []Consumer{{Node: 1, Targets: []string{"x", "y"}}}, Pairs: pairs},
		{Name: "g1", Producer: 1, Sources: []string{"x", "y"}, Consumers: []Consumer{{Node: 2, Targets: []string{"y", "x"}}}, Pairs: pairs},
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sol, err := Solve(ctx, free, Options{NoReduce: true})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != Optimal || sol.Objective != 3 || sol.Regrets == nil {
		t.Errorf("free conversions: %v at %v (bound %v), %d regrets; want optimal at 3, the floor", sol.Status, sol.Objective, sol.Bound, len(sol.Regrets))
	}
	// A conversion the cheapest choices need: the start is above the
	// floor, and nothing proves it.
	costly := *free
	costly.Groups = slices.Clone(free.Groups)
	costly.Groups[1].Pairs = []Pair{{Source: "x", Target: "x"}, {Source: "x", Target: "y", Cost: 0.5}, {Source: "y", Target: "x"}, {Source: "y", Target: "y"}}
	if sol, err = Solve(ctx, &costly, Options{NoReduce: true}); err != nil {
		t.Fatal(err)
	}
	if sol.Status != Interrupted {
		t.Errorf("a conversion to pay: %v at %v (bound %v); want interrupted", sol.Status, sol.Objective, sol.Bound)
	}
}

// rejectedCount is the number of alternatives, not removed, that the plan
// choices does not choose: one regret each.
func rejectedCount(p *Problem, choices []int) int {
	n := 0
	for v, node := range p.Nodes {
		for a, alt := range node.Alternatives {
			if alt.Removed == "" && a != choices[v] {
				n++
			}
		}
	}
	return n
}

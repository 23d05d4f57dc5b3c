package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// midSizeProblems is how many seeded problems TestMidSizeRegretsByRestriction
// checks.
const midSizeProblems = 23

// midSizeProblem is a seeded random problem beyond exhaustive search's
// reach: 15–44 nodes with 2 to 6 alternatives (some removed, costs
// sometimes negative), groups to the next few nodes and now and then to a
// far one, a node, the producer itself or a repeated consumer (fan-outs),
// pair costs with some pairs absent or +Inf, and sometimes budgets: fused
// kernels over runs of consecutive nodes (their alternatives' and inner
// pairs' uses; contract.go) and a budget over the whole problem (a row in
// the core), their capacities 50–110 % of the largest use. One problem in
// four is dense: 15–17 nodes, each consuming about three earlier ones, every
// label on every port, no budgets, so that a core is left to the branch and
// bound or HiGHS.
func midSizeProblem(seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, 0x41d5))
	dense := rng.IntN(4) == 0
	n, nl := 15+rng.IntN(30), 2+rng.IntN(3)
	if dense {
		n, nl = 15+rng.IntN(3), 3+rng.IntN(2)
	}
	labels := []string{"a", "b", "c", "d"}[:nl]
	scale := []int{5, 20, 100}[rng.IntN(3)]
	negative := rng.IntN(6) == 0
	p := &Problem{}
	for v := range n {
		node := Node{Name: fmt.Sprintf("v%d", v)}
		for a := range 2 + rng.IntN(5) {
			alt := Alternative{ID: fmt.Sprintf("a%d", a), Cost: float64(rng.IntN(scale))}
			if negative && rng.IntN(3) == 0 {
				alt.Cost = -alt.Cost
			}
			if rng.IntN(30) == 0 {
				alt.Removed = "pinned away"
			}
			node.Alternatives = append(node.Alternatives, alt)
		}
		p.Nodes = append(p.Nodes, node)
	}
	portLabels := func(v int) []string {
		k := nl
		if !dense {
			k = 1 + rng.IntN(nl)
		}
		ls := make([]string, len(p.Nodes[v].Alternatives))
		for i := range ls {
			ls[i] = labels[rng.IntN(k)]
		}
		return ls
	}
	type kernel struct{ lo, hi, b int }
	var kernels []kernel
	if !dense && rng.IntN(2) == 0 {
		for range 1 + rng.IntN(3) {
			lo := rng.IntN(n)
			kernels = append(kernels, kernel{lo, min(n, lo+2+rng.IntN(6)), len(kernels)})
		}
	}
	if !dense && rng.IntN(5) == 0 {
		kernels = append(kernels, kernel{0, n, len(kernels)})
	}
	for _, k := range kernels {
		p.Budgets = append(p.Budgets, Budget{Name: fmt.Sprintf("smem%d", k.b)})
		most := 0.0
		for v := k.lo; v < k.hi; v++ {
			if k.hi-k.lo > 10 && rng.IntN(3) != 0 {
				continue
			}
			alts, top := p.Nodes[v].Alternatives, 0.0
			for a := range alts {
				if rng.IntN(2) == 0 {
					amount := float64(1 + rng.IntN(6))
					alts[a].Uses = append(alts[a].Uses, Use{Budget: k.b, Amount: amount})
					top = math.Max(top, amount)
				}
			}
			most += top
		}
		p.Budgets[k.b].Capacity = math.Floor(most * (0.5 + 0.6*rng.Float64()))
	}
	for u := range n {
		var consumers []int
		switch {
		case dense:
			for w := u + 1; w < n; w++ {
				if rng.IntN(max(1, (w+1)/3)) == 0 {
					consumers = append(consumers, w)
				}
			}
		case rng.IntN(3) != 0 && u+1 < n:
			consumers = append(consumers, u+1+rng.IntN(min(4, n-u-1)))
			if rng.IntN(4) == 0 {
				consumers = append(consumers, u+1+rng.IntN(n-u-1))
			}
		}
		if rng.IntN(20) == 0 {
			consumers = append(consumers, rng.IntN(n)) // any node: the producer, a repeat
		}
		if len(consumers) == 0 {
			continue
		}
		g := Group{Name: fmt.Sprintf("g%d", u), Producer: u, Sources: portLabels(u)}
		for _, w := range consumers {
			g.Consumers = append(g.Consumers, Consumer{Node: w, Targets: portLabels(w)})
		}
		for _, s := range labels {
			for _, t := range labels {
				switch r := rng.IntN(60); {
				case r < 2 && s != t:
					continue // absent: not convertible
				case r == 2 && s != t:
					g.Pairs = append(g.Pairs, Pair{Source: s, Target: t, Cost: math.Inf(1)})
				default:
					pr := Pair{Source: s, Target: t, Cost: float64(rng.IntN(2 * scale))}
					if s == t {
						pr.Cost = float64(rng.IntN(2) * rng.IntN(scale))
					}
					for _, k := range kernels {
						if u >= k.lo && u < k.hi && rng.IntN(3) == 0 {
							pr.Uses = append(pr.Uses, Use{Budget: k.b, Amount: float64(1 + rng.IntN(3))})
						}
					}
					g.Pairs = append(g.Pairs, pr)
				}
			}
		}
		p.Groups = append(p.Groups, g)
	}
	return p
}

// restricted is a copy of p whose node v has only its alternative a: the
// other alternatives and their labels are cut out of the problem, not
// marked removed, so that the solve shares no pin or pruning with the
// regret it checks.
func restricted(p *Problem, v, a int) *Problem {
	q := &Problem{Budgets: slices.Clone(p.Budgets)}
	for i, n := range p.Nodes {
		alts := slices.Clone(n.Alternatives)
		if i == v {
			alts = []Alternative{alts[a]}
		}
		q.Nodes = append(q.Nodes, Node{Name: n.Name, Alternatives: alts})
	}
	cut := func(node int, ls []string) []string {
		if node == v {
			return []string{ls[a]}
		}
		return slices.Clone(ls)
	}
	for _, g := range p.Groups {
		h := Group{Name: g.Name, Producer: g.Producer, Sources: cut(g.Producer, g.Sources), Pairs: slices.Clone(g.Pairs)}
		for _, c := range g.Consumers {
			h.Consumers = append(h.Consumers, Consumer{Node: c.Node, Targets: cut(c.Node, c.Targets)})
		}
		q.Groups = append(q.Groups, h)
	}
	return q
}

// TestMidSizeRegretsByRestriction checks problems beyond exhaustive
// search (midSizeProblem) by solving them again from scratch: the optimum
// against the NoReduce path's, the plan against the verifier, the bound and
// gap of an optimal plan, and every regret against the optimum of the
// problem with the node restricted to the alternative (restricted; +Inf
// when that is infeasible), solved with the reduction and by
// HiGHS whole (NoReduce), every tenth. The solve's options vary by seed: workers, small
// table limits (cores over budgets, certificates), and regret time limits
// of milliseconds, whose intervals must hold the truth.
func TestMidSizeRegretsByRestriction(t *testing.T) {
	highstest.Library(t)
	if testing.Short() {
		t.Skip("re-solves every regret")
	}
	ctx := context.Background()
	variants := []struct {
		name string
		opt  Options
	}{
		{"default", Options{}},
		{"one worker, table limit 8", Options{Workers: 1, MaxTable: 8}},
		{"table limit 64, certificates", Options{Workers: 2, MaxTable: 64, certify: certifyAlways}},
		{"regret time limit 1 ms", Options{Workers: 2, RegretTimeLimit: time.Millisecond}},
		{"table limit 8, dominated kept, budgets rows", Options{Workers: 1, MaxTable: 8, KeepDominated: true, certify: certifyFixings, noContract: true}},
		{"table limit 1, regret time limit 2 ms", Options{Workers: 2, MaxTable: 1, RegretTimeLimit: 2 * time.Millisecond}},
	}
	stats := map[string]int{}
	for seed := range uint64(midSizeProblems) {
		p := midSizeProblem(seed)
		vr := variants[seed%uint64(len(variants))]
		o := vr.opt
		name := fmt.Sprintf("seed %d (%d nodes, %d budgets), %s", seed, len(p.Nodes), len(p.Budgets), vr.name)
		sol, err := Solve(ctx, p, o)
		whole, wholeErr := Solve(ctx, p, Options{NoReduce: true, NoRegrets: true})
		if errors.Is(err, ErrInfeasible) || errors.Is(wholeErr, ErrInfeasible) {
			if !errors.Is(err, ErrInfeasible) || !errors.Is(wholeErr, ErrInfeasible) {
				t.Fatalf("%s: %v; NoReduce: %v", name, err, wholeErr)
			}
			stats["infeasible"]++
			continue
		}
		if err != nil || wholeErr != nil {
			t.Fatalf("%s: %v; NoReduce: %v", name, err, wholeErr)
		}
		opt := sol.Objective
		tol := objectiveTolerance(opt)
		if sol.Status != Optimal || whole.Status != Optimal || math.Abs(opt-whole.Objective) > tol {
			t.Fatalf("%s: %v at %v; NoReduce %v at %v", name, sol.Status, opt, whole.Status, whole.Objective)
		}
		if math.Abs(sol.Bound-opt) > tol || sol.Gap > 1e-6 || sol.BoundFrom != "" {
			t.Fatalf("%s: optimal at %v with bound %v (from %q), gap %v", name, opt, sol.Bound, sol.BoundFrom, sol.Gap)
		}
		choices := make([]int, len(p.Nodes))
		for v, c := range sol.Choices {
			choices[v] = c.Alternative
		}
		if ev, err := p.Evaluate(choices); err != nil || !ev.Feasible() || math.Abs(ev.Cost-opt) > tol {
			t.Fatalf("%s: the plan %v evaluates to %+v, %v; objective %v", name, choices, ev, err, opt)
		}
		if want := rejectedCount(p, choices); len(sol.Regrets) != want {
			t.Fatalf("%s: %d regrets, want one per rejected alternative (%d)", name, len(sol.Regrets), want)
		}
		stats["feasible"]++
		switch {
		case sol.Search != nil:
			stats["core searched"]++
		case sol.Model.CoreNodes > 0 && len(p.Budgets) > 0:
			stats["core with budgets"]++
		case sol.Model.CoreNodes > 0:
			stats["core"]++
		}
		if sol.Model.ContractedKernels > 0 {
			stats["kernels contracted"]++
		}
		if sol.RegretCertified > 0 {
			stats["certified"]++
		}
		for i, r := range sol.Regrets {
			ro := Options{NoRegrets: true}
			if i%10 == 0 {
				ro.NoReduce = true
			}
			rs, err := Solve(ctx, restricted(p, r.Node, r.Alternative), ro)
			truth := math.Inf(1)
			switch {
			case errors.Is(err, ErrInfeasible):
				stats["infinite regrets"]++
			case err != nil || rs.Status != Optimal:
				t.Fatalf("%s: node %d restricted to alternative %d: %v, %v", name, r.Node, r.Alternative, rs, err)
			default:
				truth = rs.Objective - opt
			}
			stats["regrets"]++
			// The regret is a difference of two optima, each within the
			// solver's tolerance.
			slack := tol + objectiveTolerance(truth)
			if math.IsInf(truth, 1) {
				slack = 0
			}
			if r.Exact {
				if !near(r.Regret, truth) && !(math.Abs(r.Regret-truth) <= slack) || r.Lower != r.Regret || r.Tie != (truth <= slack) {
					t.Fatalf("%s: node %d alternative %d: regret %+v; restricted, the optimum is %v more", name, r.Node, r.Alternative, r, truth)
				}
				if r.Tie {
					stats["ties"]++
				}
				if r.DominatedBy >= 0 {
					stats["dominated"]++
				}
				continue
			}
			stats["intervals"]++
			if r.Lower > r.Regret || r.Lower > truth+slack || !math.IsInf(truth, 1) && r.Regret < truth-slack {
				t.Fatalf("%s: node %d alternative %d: interval [%v, %v]; restricted, the optimum is %v more", name, r.Node, r.Alternative, r.Lower, r.Regret, truth)
			}
		}
	}
	t.Logf("%d problems: %v", midSizeProblems, stats)
	for _, k := range []string{"feasible", "core searched", "core with budgets", "core", "kernels contracted", "certified", "infinite regrets", "ties", "dominated", "intervals"} {
		if stats[k] == 0 {
			t.Errorf("no problem exercised %q", k)
		}
	}
}

// TestMidSizeKernelRegretsDirectly checks seed 23 (38 nodes, 3 budgets):
// its contracted kernel has 4,937 boundary tuples, and its auxiliary node
// is left in the core, so its interior's regrets are each one solve of the
// contracted problem (directRegrets) rather than a re-solve per tuple (67 s
// so). Every regret is exact, and every eighth agrees with the problem
// restricted to its alternative.
func TestMidSizeKernelRegretsDirectly(t *testing.T) {
	highstest.Library(t)
	if testing.Short() {
		t.Skip("solves the contracted problem once per interior alternative")
	}
	ctx := context.Background()
	p := midSizeProblem(23)
	sol, err := Solve(ctx, p, Options{})
	if err != nil || sol.Status != Optimal {
		t.Fatalf("%v, %v", sol, err)
	}
	if sol.Model.ContractedKernels != 1 || sol.RegretSolves > 200 {
		t.Fatalf("%d kernels contracted, %d regret solves: want 1 and the interior's regrets solved directly", sol.Model.ContractedKernels, sol.RegretSolves)
	}
	choices := make([]int, len(p.Nodes))
	for v, c := range sol.Choices {
		choices[v] = c.Alternative
	}
	if want := rejectedCount(p, choices); len(sol.Regrets) != want {
		t.Fatalf("%d regrets, want %d", len(sol.Regrets), want)
	}
	opt := sol.Objective
	tol := objectiveTolerance(opt)
	for i, r := range sol.Regrets {
		if !r.Exact {
			t.Fatalf("node %d alternative %d: regret %+v, want exact", r.Node, r.Alternative, r)
		}
		if i%8 != 0 {
			continue
		}
		rs, err := Solve(ctx, restricted(p, r.Node, r.Alternative), Options{NoRegrets: true})
		truth := math.Inf(1)
		if !errors.Is(err, ErrInfeasible) {
			if err != nil || rs.Status != Optimal {
				t.Fatalf("node %d restricted to alternative %d: %v, %v", r.Node, r.Alternative, rs, err)
			}
			truth = rs.Objective - opt
		}
		slack := tol + objectiveTolerance(truth)
		if math.IsInf(truth, 1) {
			slack = 0
		}
		if !near(r.Regret, truth) && !(math.Abs(r.Regret-truth) <= slack) || r.Tie != (truth <= slack) {
			t.Fatalf("node %d alternative %d: regret %+v; restricted, the optimum is %v more", r.Node, r.Alternative, r, truth)
		}
	}
	// At most 3 solves of the interior's alternatives (and 3 re-solves of
	// the core's queries): the rest are intervals that hold the exact
	// regrets above.
	capped, err := Solve(ctx, p, Options{RegretSolves: 3})
	if err != nil || capped.Status != Optimal {
		t.Fatalf("RegretSolves 3: %v, %v", capped, err)
	}
	if capped.RegretSolves > 6 || capped.regretsCapped == 0 || len(capped.Regrets) != len(sol.Regrets) {
		t.Fatalf("RegretSolves 3: %d solves, %d left, %d regrets (want at most 6, some, %d)", capped.RegretSolves, capped.regretsCapped, len(capped.Regrets), len(sol.Regrets))
	}
	unproven := 0
	for i, r := range capped.Regrets {
		exact := sol.Regrets[i]
		if r.Node != exact.Node || r.Alternative != exact.Alternative {
			t.Fatalf("regret %d: node %d alternative %d, unlimited node %d alternative %d", i, r.Node, r.Alternative, exact.Node, exact.Alternative)
		}
		slack := tol + objectiveTolerance(exact.Regret)
		if r.Exact && math.Abs(r.Regret-exact.Regret) > slack || r.Lower > exact.Regret+slack || r.Regret < exact.Regret-slack {
			t.Fatalf("node %d alternative %d: %+v under RegretSolves 3, exactly %v", r.Node, r.Alternative, r, exact.Regret)
		}
		if !r.Exact {
			unproven++
		}
	}
	if unproven == 0 {
		t.Fatal("RegretSolves 3 left no regret unproven")
	}
}

// TestMILPReSolvesFixedByEarlierPlans: on the random DAG of 60 nodes
// (seed 2) most queries that a fractional LP re-solve leaves go on to
// MILPs, and for some of them a plan found before the re-solve (a
// window's, a certificate pass's) bounds the MILP: its columns are then
// fixed by that plan's bound and the LP's reduced costs. Every regret
// stays exact: the same as from re-solves without certificates (so
// without any fixing), and every sixth as the problem restricted to its
// alternative.
func TestMILPReSolvesFixedByEarlierPlans(t *testing.T) {
	highstest.Library(t)
	if testing.Short() {
		t.Skip("re-solves every regret twice, then restricted problems")
	}
	ctx := context.Background()
	p := randomDAG(2, 60, 4)
	sol, err := Solve(ctx, p, Options{})
	if err != nil || sol.Status != Optimal {
		t.Fatalf("%v, %v", sol, err)
	}
	if sol.milpFixed == 0 {
		t.Fatalf("%d MILP re-solves, none fixed by a plan found before it: the test no longer reaches that path", sol.RegretMILPSolves)
	}
	plain, err := Solve(ctx, p, Options{certify: certifyNone})
	if err != nil || len(plain.Regrets) != len(sol.Regrets) {
		t.Fatalf("without certificates: %v, %v", plain, err)
	}
	opt := sol.Objective
	for i, r := range sol.Regrets {
		if w := plain.Regrets[i]; w.Node != r.Node || w.Alternative != r.Alternative {
			t.Fatalf("regret %d: node %d alternative %d; without certificates node %d alternative %d", i, r.Node, r.Alternative, w.Node, w.Alternative)
		}
		truth := plain.Regrets[i].Regret
		if i%6 == 0 {
			rs, err := Solve(ctx, restricted(p, r.Node, r.Alternative), Options{NoRegrets: true})
			if err != nil || rs.Status != Optimal {
				t.Fatalf("node %d restricted to alternative %d: %v, %v", r.Node, r.Alternative, rs, err)
			}
			truth = rs.Objective - opt
		}
		if !r.Exact || !near(r.Regret, truth) && math.Abs(r.Regret-truth) > objectiveTolerance(opt)+objectiveTolerance(truth) {
			t.Fatalf("node %d alternative %d: regret %+v; the optimum restricted to it is %v more", r.Node, r.Alternative, r, truth)
		}
	}
	t.Logf("%d regrets, %d re-solves, %d MILP re-solves, %d of them fixed by an earlier plan", len(sol.Regrets), sol.RegretSolves, sol.RegretMILPSolves, sol.milpFixed)
}

package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func validProblem() *Problem {
	return &Problem{
		Nodes: []Node{
			{Name: "p", Alternatives: []Alternative{{ID: "x", Cost: 1}, {ID: "y", Cost: 2, Uses: []Use{{Budget: 0, Amount: 3}}}}},
			{Name: "c", Alternatives: []Alternative{{ID: "x", Cost: 1}}},
		},
		Groups: []Group{{Name: "p.out", Producer: 0, Sources: []string{"r", "c"},
			Consumers: []Consumer{{Node: 1, Targets: []string{"r"}}},
			Pairs:     []Pair{{Source: "r", Target: "r"}, {Source: "c", Target: "r", Cost: 2}}}},
		Budgets: []Budget{{Name: "smem", Capacity: 4}},
	}
}

// TestValidate: each fault is reported at its path, and every fault of a
// problem is reported.
func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(p *Problem)
		paths  []string
	}{
		{"no nodes", func(p *Problem) { p.Nodes, p.Groups = nil, nil }, []string{"nodes"}},
		{"no alternatives", func(p *Problem) { p.Nodes[1].Alternatives = nil }, []string{"nodes[1].alternatives", "groups[0].consumers[0].targets"}},
		{"empty and repeated ids", func(p *Problem) {
			p.Nodes[0].Alternatives[0].ID = ""
			p.Nodes[0].Alternatives = append(p.Nodes[0].Alternatives, Alternative{ID: "y"})
		},
			[]string{"nodes[0].alternatives[0].id", "nodes[0].alternatives[2].id", "groups[0].sources"}},
		{"NaN and infinite cost", func(p *Problem) {
			p.Nodes[0].Alternatives[0].Cost = math.NaN()
			p.Nodes[1].Alternatives[0].Cost = math.Inf(1)
		},
			[]string{"nodes[0].alternatives[0].cost", "nodes[1].alternatives[0].cost"}},
		{"bad use", func(p *Problem) {
			p.Nodes[0].Alternatives[1].Uses = []Use{{Budget: 1, Amount: 1}, {Budget: 0, Amount: -1}, {Budget: 0, Amount: 1}}
		}, []string{"nodes[0].alternatives[1].uses[0].budget", "nodes[0].alternatives[1].uses[1].amount", "nodes[0].alternatives[1].uses[2].budget"}},
		{"producer out of range", func(p *Problem) { p.Groups[0].Producer = 2 }, []string{"groups[0].producer"}},
		{"consumer out of range and no consumers", func(p *Problem) {
			p.Groups = append(p.Groups, Group{Producer: 1, Sources: []string{"r"}})
			p.Groups[0].Consumers[0].Node = -1
		}, []string{"groups[0].consumers[0].node", "groups[1].consumers"}},
		{"repeated pair, negative and NaN costs", func(p *Problem) {
			p.Groups[0].Pairs = append(p.Groups[0].Pairs, Pair{Source: "r", Target: "r"}, Pair{Source: "a", Target: "b", Cost: -1}, Pair{Source: "b", Target: "b", Cost: math.NaN()})
		}, []string{"groups[0].pairs[2]", "groups[0].pairs[3].cost", "groups[0].pairs[4].cost"}},
		{"infinite capacity", func(p *Problem) { p.Budgets[0].Capacity = math.Inf(1) }, []string{"budgets[0].capacity"}},
		{"amount over the limit", func(p *Problem) {
			p.Nodes[0].Alternatives[1].Uses = []Use{{Budget: 0, Amount: 1e15}}
		}, []string{"nodes[0].alternatives[1].uses[0].amount"}},
		{"costs over the limit", func(p *Problem) {
			p.Nodes[0].Alternatives[1].Cost = 2 * MaxCostNS
			p.Nodes[1].Alternatives[0].Cost = -2 * MaxCostNS
			p.Groups[0].Pairs = append(p.Groups[0].Pairs, Pair{Source: "a", Target: "b", Cost: 1e20}, Pair{Source: "b", Target: "b", Cost: math.Inf(1)})
		}, []string{"nodes[0].alternatives[1].cost", "nodes[1].alternatives[0].cost", "groups[0].pairs[2].cost"}},
	}
	if err := validProblem().Validate(); err != nil {
		t.Fatalf("valid problem: %v", err)
	}
	for _, tc := range tests {
		p := validProblem()
		tc.break_(p)
		err := p.Validate()
		var inv *InvalidError
		if !errors.As(err, &inv) {
			t.Fatalf("%s: %v, want an *InvalidError", tc.name, err)
		}
		var paths []string
		for _, f := range inv.Faults {
			paths = append(paths, f.Path)
		}
		if diff := cmp.Diff(tc.paths, paths); diff != "" {
			t.Errorf("%s: fault paths (-want +got):\n%s\n%v", tc.name, diff, err)
		}
		if _, err := Solve(context.Background(), p, Options{}); !errors.As(err, &inv) {
			t.Errorf("%s: Solve: %v, want the *InvalidError", tc.name, err)
		}
	}
}

func TestStatusText(t *testing.T) {
	for s := Optimal; s <= Interrupted; s++ {
		text, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Status
		if err := back.UnmarshalText(text); err != nil || back != s {
			t.Errorf("%v: round trip gives %v, %v", s, back, err)
		}
	}
	if _, err := Status(7).MarshalText(); err == nil {
		t.Error("Status(7) marshals")
	}
	if _, err := ParseStatus("optimal-ish"); err == nil {
		t.Error("ParseStatus accepts an unknown name")
	}
}

// TestDeterministic: solving the same problem twice, serially or on many
// workers, gives the same Solution (SolveTime and the regrets' deadline
// aside).
func TestDeterministic(t *testing.T) {
	highstest.Library(t)
	// The work counts that depend on which worker took which query
	// (Solution.RegretCertified) are left out.
	ignore := cmp.Options{cmpopts.IgnoreFields(Solution{}, "SolveTime", "RegretMILPSolves", "RegretCertified"), cmpopts.IgnoreUnexported(Solution{})}
	for seed := range uint64(40) {
		p := randomProblem(seed, 10)
		for _, opt := range []Options{{}, {NoReduce: true}} {
			a, errA := Solve(context.Background(), p, opt)
			opt.Workers = 1
			b, errB := Solve(context.Background(), p, opt)
			if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
				t.Fatalf("seed %d: errors differ: %v, %v", seed, errA, errB)
			}
			if diff := cmp.Diff(a, b, ignore, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("seed %d NoReduce=%v: solutions differ (-first +second):\n%s", seed, opt.NoReduce, diff)
			}
		}
	}
}

// TestInfeasibleEvidence: a budget two nodes cannot share is named with
// both nodes' choice rows; a node whose alternatives were all removed is
// named without a solve.
func TestInfeasibleEvidence(t *testing.T) {
	highstest.Library(t)
	p := &Problem{
		Nodes: []Node{
			{Name: "a", Alternatives: []Alternative{{ID: "big", Uses: []Use{{Budget: 1, Amount: 3}}}, {ID: "huge", Uses: []Use{{Budget: 1, Amount: 5}}}}},
			{Name: "b", Alternatives: []Alternative{{ID: "big", Uses: []Use{{Budget: 1, Amount: 3}}}}},
			{Name: "free", Alternatives: []Alternative{{ID: "x"}}},
		},
		Budgets: []Budget{{Name: "regs", Capacity: 100}, {Name: "smem", Capacity: 5}},
	}
	for _, opt := range []Options{{}, {NoReduce: true}} {
		_, err := Solve(context.Background(), p, opt)
		var inf *InfeasibleError
		if !errors.As(err, &inf) || !errors.Is(err, ErrInfeasible) {
			t.Fatalf("%v, want an *InfeasibleError", err)
		}
		if !slices.Equal(inf.Budgets, []int{1}) || !slices.Equal(inf.Nodes, []int{0, 1}) {
			t.Errorf("evidence %+v, want budget 1 and nodes 0, 1", inf)
		}
		// a takes at least 3 (big), b 3: every plan at least 6 of smem's 5.
		if !slices.Equal(inf.Least, []float64{6}) || len(inf.NodeLeast) != 2 ||
			!slices.Equal(inf.NodeLeast[0], []float64{3}) || !slices.Equal(inf.NodeLeast[1], []float64{3}) {
			t.Errorf("least uses %v, per node %v; want [6], [[3] [3]]", inf.Least, inf.NodeLeast)
		}
		if !strings.Contains(err.Error(), "budget smem (capacity 5; every plan takes at least 6)") {
			t.Errorf("the error does not say the budget's need: %v", err)
		}
	}
	// Two budgets that three nodes share between them: each node can take
	// 2 of either, 6 in all against 4. Neither budget alone is short.
	p2 := &Problem{Budgets: []Budget{{Name: "regs", Capacity: 2}, {Name: "smem", Capacity: 2}}}
	for _, name := range []string{"a", "b", "c"} {
		p2.Nodes = append(p2.Nodes, Node{Name: name, Alternatives: []Alternative{
			{ID: "in_regs", Uses: []Use{{Budget: 0, Amount: 2}}}, {ID: "in_smem", Uses: []Use{{Budget: 1, Amount: 2}}}}})
	}
	_, err := Solve(context.Background(), p2, Options{})
	var inf2 *InfeasibleError
	if !errors.As(err, &inf2) || !slices.Equal(inf2.Budgets, []int{0, 1}) || !slices.Equal(inf2.Least, []float64{0, 0}) {
		t.Fatalf("%v (%+v), want both budgets in conflict, neither short alone", err, inf2)
	}
	if !strings.Contains(err.Error(), "budget regs (capacity 2);") {
		t.Errorf("the error does not say the capacity alone: %v", err)
	}
	// A fan-out's scratch counts once: both consumers can take C, whose
	// conversion needs 3, against a capacity of 2.
	p3 := &Problem{
		Nodes: []Node{{Name: "p", Alternatives: []Alternative{{ID: "a"}}},
			{Name: "c1", Alternatives: []Alternative{{ID: "b"}, {ID: "c"}}},
			{Name: "c2", Alternatives: []Alternative{{ID: "c"}}}},
		Groups: []Group{{Name: "p.out", Producer: 0, Sources: []string{"A"},
			Consumers: []Consumer{{Node: 1, Targets: []string{"B", "C"}}, {Node: 2, Targets: []string{"C"}}},
			Pairs: []Pair{{Source: "A", Target: "B", Cost: 1, Uses: []Use{{Budget: 0, Amount: 5}}},
				{Source: "A", Target: "C", Cost: 1, Uses: []Use{{Budget: 0, Amount: 3}}}}}},
		Budgets: []Budget{{Name: "smem", Capacity: 2}},
	}
	_, err = Solve(context.Background(), p3, Options{NoReduce: true})
	var inf3 *InfeasibleError
	if !errors.As(err, &inf3) || !slices.Equal(inf3.Least, []float64{3}) {
		t.Errorf("%v (%+v), want every plan to take at least 3 of smem", err, inf3)
	}
	p.Forbid(2, "x", "the target lacks the feature")
	_, err = Solve(context.Background(), p, Options{})
	var inf *InfeasibleError
	if !errors.As(err, &inf) || !slices.Equal(inf.Empty, []int{2}) {
		t.Errorf("%v, want node 2 without alternatives", err)
	}
}

// TestExplainSubset: regrets asked for some nodes equal those of a full
// run, for those nodes only.
func TestExplainSubset(t *testing.T) {
	highstest.Library(t)
	for seed := range uint64(60) {
		p := randomProblem(seed, 10)
		all, err := Solve(context.Background(), p, Options{})
		if err != nil {
			continue
		}
		explain := []int{len(p.Nodes) - 1, 0}
		some, err := Solve(context.Background(), p, Options{Explain: explain})
		if err != nil {
			t.Fatal(err)
		}
		var want []Regret
		for _, r := range all.Regrets {
			if slices.Contains(explain, r.Node) {
				want = append(want, r)
			}
		}
		if diff := cmp.Diff(want, some.Regrets); diff != "" {
			t.Fatalf("seed %d: regrets of %v (-all +explain):\n%s", seed, explain, diff)
		}
	}
}

func TestEvaluateErrors(t *testing.T) {
	p := validProblem()
	if _, err := p.Evaluate([]int{0}); err == nil {
		t.Error("one choice for two nodes accepted")
	}
	if _, err := p.Evaluate([]int{0, 1}); err == nil {
		t.Error("choice out of range accepted")
	}
	ev, err := p.Evaluate([]int{1, 0})
	if err != nil || !ev.Feasible() || ev.Cost != 2+1+2 || ev.BudgetUse[0] != 3 {
		t.Errorf("Evaluate([1 0]) = %+v, %v", ev, err)
	}
	p.Budgets[0].Capacity = 2
	if ev, _ := p.Evaluate([]int{1, 0}); ev.Feasible() {
		t.Error("a plan over budget is feasible")
	}
	if _, err := Solve(context.Background(), p, Options{Explain: []int{5}}); err == nil {
		t.Error("Explain naming node 5 of 2 accepted")
	}
}

// TestTimeLimit: a solve stopped by its time limit returns the best plan
// found, verified, with its bound and gap and without regrets; the local
// choice is HiGHS's first incumbent, so a plan exists when it is feasible.
func TestTimeLimit(t *testing.T) {
	highstest.Library(t)
	p := randomDAG(3, 1000, 8)
	sol, err := Solve(context.Background(), p, Options{TimeLimit: time.Millisecond})
	if err != nil {
		t.Fatalf("time limit: %v", err)
	}
	if sol.Status != TimeLimit || sol.Regrets != nil {
		t.Fatalf("status %v, %d regrets; want a time-limited plan without regrets", sol.Status, len(sol.Regrets))
	}
	choices := make([]int, len(sol.Choices))
	for v, c := range sol.Choices {
		choices[v] = c.Alternative
	}
	ev, err := p.Evaluate(choices)
	if err != nil || !ev.Feasible() || ev.Cost != sol.Objective {
		t.Fatalf("plan evaluates to %v, %v; objective %v", ev, err, sol.Objective)
	}
	if sol.Objective > sol.Local.Cost || !(sol.Bound <= sol.Objective) || sol.Gap < 0 {
		t.Fatalf("objective %v, local %v, bound %v, gap %v", sol.Objective, sol.Local.Cost, sol.Bound, sol.Gap)
	}
	// A millisecond ends HiGHS and the root LP inside their first LPs:
	// the bound is the execution floor, and says so.
	if sol.BoundFrom != BoundFloor || sol.Bound != executionFloor(p) {
		t.Errorf("bound %v from %q; want the execution floor %v", sol.Bound, sol.BoundFrom, executionFloor(p))
	}

	// Cancelled before HiGHS starts, the solve still returns its start,
	// the local choice completed by back-substitution: no worse than it.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sol, err = Solve(ctx, p, Options{})
	if err != nil {
		t.Fatalf("a cancelled context: %v", err)
	}
	if sol.Status != Interrupted || sol.Regrets != nil || sol.Objective > sol.Local.Cost || !(sol.Bound <= sol.Objective) || sol.BoundFrom == "" {
		t.Fatalf("a cancelled context: status %v, %d regrets, objective %v (local %v), bound %v",
			sol.Status, len(sol.Regrets), sol.Objective, sol.Local.Cost, sol.Bound)
	}
}

// TestInfeasibleIntegersOnly: an odd cycle of edges that each need the two
// ends in different layouts has no plan, though its LP relaxation (every
// choice one half) is feasible: no conflicting rows exist, and the error
// says so.
func TestInfeasibleIntegersOnly(t *testing.T) {
	highstest.Library(t)
	p := &Problem{}
	for _, name := range []string{"a", "b", "c"} {
		p.Nodes = append(p.Nodes, Node{Name: name, Alternatives: []Alternative{{ID: "x"}, {ID: "y"}}})
	}
	for u := range 3 {
		p.Groups = append(p.Groups, Group{Name: p.Nodes[u].Name + ".out", Producer: u, Sources: []string{"x", "y"},
			Consumers: []Consumer{{Node: (u + 1) % 3, Targets: []string{"x", "y"}}},
			Pairs:     []Pair{{Source: "x", Target: "y"}, {Source: "y", Target: "x"}}})
	}
	if ex := exhaustive(p); !math.IsInf(ex.opt, 1) {
		t.Fatalf("exhaustive search finds a plan %v", ex.choices)
	}
	for _, opt := range []Options{{}, {NoReduce: true}} {
		_, err := Solve(context.Background(), p, opt)
		var inf *InfeasibleError
		if !errors.As(err, &inf) || len(inf.Rows) != 0 || inf.Note == "" {
			t.Errorf("NoReduce=%v: %v, want infeasible with a note and no rows", opt.NoReduce, err)
		}
	}
}

// Past 32 pairs, repeats are found by a map: each is reported at its path,
// naming the first pair it repeats, as the search of the pairs before it
// does for fewer.
func TestValidateRepeatedPairsPastTheMap(t *testing.T) {
	for _, extra := range []int{3, 40} {
		p := validProblem()
		for i := range extra {
			p.Groups[0].Pairs = append(p.Groups[0].Pairs, Pair{Source: "c", Target: strings.Repeat("t", i+1)})
		}
		n := len(p.Groups[0].Pairs)
		p.Groups[0].Pairs = append(p.Groups[0].Pairs, Pair{Source: "c", Target: "tt"}, Pair{Source: "r", Target: "r"}, Pair{Source: "c", Target: "tt"})
		var inv *InvalidError
		if err := p.Validate(); !errors.As(err, &inv) {
			t.Fatalf("%d pairs: %v, want an *InvalidError", n+3, err)
		}
		var got []string
		for _, f := range inv.Faults {
			got = append(got, f.String())
		}
		want := []string{
			fmt.Sprintf(`groups[0].pairs[%d]: pair ("c", "tt") repeats pairs[3]`, n),
			fmt.Sprintf(`groups[0].pairs[%d]: pair ("r", "r") repeats pairs[0]`, n+1),
			fmt.Sprintf(`groups[0].pairs[%d]: pair ("c", "tt") repeats pairs[3]`, n+2),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d pairs: faults (-want +got):\n%s", n+3, diff)
		}
	}
}

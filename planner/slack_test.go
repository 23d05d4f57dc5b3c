package planner

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// TestMostUseBoundsEveryPlan: on random problems, no plan (every choice
// of an alternative not removed at every node, within its budgets or not,
// each convertible conversion counted) uses more of a budget than mostUse
// says.
func TestMostUseBoundsEveryPlan(t *testing.T) {
	checked := 0
	for seed := range uint64(1000) {
		p := randomProblem(seed, 5)
		most, used := mostUse(p)
		plans := 1
		for _, n := range p.Nodes {
			plans *= len(n.Alternatives)
		}
		if plans > 1<<12 {
			continue
		}
		choices := make([]int, len(p.Nodes))
	plan:
		for i := range plans {
			k := i
			for v, n := range p.Nodes {
				choices[v] = k % len(n.Alternatives)
				k /= len(n.Alternatives)
				if n.Alternatives[choices[v]].Removed != "" {
					continue plan
				}
			}
			ev, err := p.evaluate(choices, false)
			if err != nil {
				t.Fatal(err)
			}
			for b, u := range ev.BudgetUse {
				if u > most[b]+1e-9 {
					t.Fatalf("seed %d, plan %v: budget %s used %g, more than the bound %g", seed, choices, p.Budgets[b].Name, u, most[b])
				}
				if u > 0 && !used[b] {
					t.Fatalf("seed %d, plan %v: budget %s used %g, but said unused", seed, choices, p.Budgets[b].Name, u)
				}
			}
			checked++
		}
	}
	if checked < 10000 {
		t.Errorf("%d plans checked; the test tests too little", checked)
	}
}

// TestSlackBudgetDropped plans a three-layer megakernel (cklplan gen
// transformer --kernel-layers 3) under a budget it cannot fill, with the
// budget dropped and kept: the same plan, the same use of the budget and
// every regret the same; dropped, no kernel is contracted. Under a budget
// that binds nothing is dropped.
func TestSlackBudgetDropped(t *testing.T) {
	highstest.Library(t)
	for _, c := range []struct {
		bytes int64
		slack bool
	}{{100_000_000, true}, {36_864, false}} {
		t.Run(fmt.Sprint(c.bytes), func(t *testing.T) {
			s, err := taskgen.Transformer(3, 1)
			if err == nil {
				err = taskgen.FuseLayersBy(&s, c.bytes, 3)
			}
			if err != nil {
				t.Fatal(err)
			}
			g, err := tasks.New(s)
			if err != nil {
				t.Fatal(err)
			}
			plan := func(drop bool) *Result {
				t.Helper()
				dropSlack = drop
				defer func() { dropSlack = true }()
				r, err := Plan(context.Background(), g, PlanOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			dropped, kept := plan(true), plan(false)
			if got := dropped.Model.ContractedKernels == 0; got != c.slack {
				t.Errorf("no kernel contracted: %v, want %v (kept: %d contracted)", got, c.slack, kept.Model.ContractedKernels)
			}
			if dropped.Status != Optimal || kept.Status != Optimal {
				t.Fatalf("status %v dropped, %v kept", dropped.Status, kept.Status)
			}
			if math.Abs(dropped.ObjectiveNS-kept.ObjectiveNS) > 1e-9*kept.ObjectiveNS {
				t.Errorf("objective %.6f ns dropped, %.6f ns kept", dropped.ObjectiveNS, kept.ObjectiveNS)
			}
			for i, ch := range dropped.Choices {
				kc := kept.Choices[i]
				if ch.Alternative != kc.Alternative {
					t.Errorf("%s: %s dropped, %s kept", ch.Invocation, ch.Alternative, kc.Alternative)
				}
				if len(ch.Rejected) != len(kc.Rejected) {
					t.Fatalf("%s: %d rejected dropped, %d kept", ch.Invocation, len(ch.Rejected), len(kc.Rejected))
				}
				for j, r := range ch.Rejected {
					kr := kc.Rejected[j]
					if r.Alternative != kr.Alternative || (r.RegretNS == nil) != (kr.RegretNS == nil) ||
						r.RegretNS != nil && math.Abs(*r.RegretNS-*kr.RegretNS) > 1e-6*math.Max(1, math.Abs(*kr.RegretNS)) {
						t.Errorf("%s %s: regret %v dropped, %s %v kept", ch.Invocation, r.Alternative, r.RegretNS, kr.Alternative, kr.RegretNS)
					}
				}
			}
			if len(dropped.Budgets) != 1 || len(kept.Budgets) != 1 || dropped.Budgets[0] != kept.Budgets[0] {
				t.Errorf("budgets %+v dropped, %+v kept", dropped.Budgets, kept.Budgets)
			}
		})
	}
}

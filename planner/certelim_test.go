package planner

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// TestEliminatedBound checks the certificates' bound over integral
// choices (certelim.go) on small random cores without budgets, for every
// core node's other choices and growing random regions: it lies between
// the small LP's bound over the same region and the query's optimum by
// exhaustive search (LP ≤ eliminated ≤ optimum), and its argmin, the
// optimum elsewhere, is a plan costing at least that optimum. The bound
// must be stronger than the LP's somewhere, or the test compares nothing.
func TestEliminatedBound(t *testing.T) {
	lib := highstest.Library(t)
	ctx := context.Background()
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	compared, stronger, plans := 0, 0, 0
	for seed := range uint64(400) {
		p := randomProblem(seed, 9)
		if len(p.Budgets) > 0 {
			continue // budgets keep regions to small LPs
		}
		in := newInstance(p, true)
		if len(in.empty) > 0 {
			continue // no plan
		}
		r := reduce(in, 8, true)
		if len(r.core) == 0 || math.IsInf(r.offset, 1) {
			continue
		}
		cm := buildCore(r)
		opt := &Options{}
		res, err := cm.solve(ctx, lib, r, opt.solverOptions())
		if err != nil {
			t.Fatal(err)
		}
		if res.status != highs.Optimal {
			continue
		}
		lp := relaxation(&cm.model)
		lpOpt := opt.solverOptions()
		lpOpt.Duals, lpOpt.InteriorPoint = true, true
		root, err := lib.Solve(ctx, &lp, lpOpt)
		if err != nil {
			t.Fatal(err)
		}
		if root.Status != highs.Optimal {
			continue
		}
		rg := &regrets{ctx: ctx, r: r, cm: cm, lib: lib, opt: opt, asg: res.asg, opt0: res.objective}
		c := newCertifier(rg, root.RowDuals)
		w := c.newWorker(s)
		ex := exhaustive(p)
		rng := rand.New(rand.NewPCG(seed, 7))
		tol := 1e-6 * math.Max(1, math.Abs(ex.opt))
		for _, v := range r.core {
			for k := range in.domain[v] {
				if k == res.asg[v] {
					continue
				}
				q := &query{nodes: []int{v}, sets: [][]int{{k}}}
				want := ex.best[v][in.domain[v][k]]
				region := []int{v}
				for range 3 {
					c.keepRegion(region, w)
					min, feasible, ok := c.eliminate(q, region, w)
					if !ok {
						t.Fatalf("seed %d: node %d at %d, region %v: not eliminated", seed, v, k, region)
					}
					elim := inf
					if feasible {
						elim = c.lowerBound(min, w)
						if d, ok := c.delta(w); ok {
							plans++
							if opt0 := res.objective; opt0+d < want-tol {
								t.Fatalf("seed %d: node %d at %d, region %v: a plan at %v below the optimum %v", seed, v, k, region, opt0+d, want)
							}
						}
					}
					c.keepRegion(region, w)
					small, err := s.Solve(ctx, c.smallModel(q, w), opt.solverOptions())
					if err != nil {
						t.Fatal(err)
					}
					lpBound := inf
					switch small.Status {
					case highs.Optimal:
						lpBound = c.lowerBound(small.DualBound, w)
					case highs.Infeasible:
					default:
						t.Fatalf("seed %d: the small LP: %v", seed, small.Status)
					}
					if lpBound > elim+tol && !math.IsInf(elim, 1) || math.IsInf(lpBound, 1) && !math.IsInf(elim, 1) {
						t.Fatalf("seed %d: node %d at %d, region %v: eliminated bound %v below the LP's %v", seed, v, k, region, elim, lpBound)
					}
					if elim > want+tol && !math.IsInf(want, 1) || math.IsInf(elim, 1) && !math.IsInf(want, 1) {
						t.Fatalf("seed %d: node %d at %d, region %v: eliminated bound %v above the optimum %v", seed, v, k, region, elim, want)
					}
					compared++
					if elim > lpBound+tol {
						stronger++
					}
					if u := r.core[rng.IntN(len(r.core))]; !slices.Contains(region, u) {
						region = append(region, u)
					}
				}
			}
		}
	}
	t.Logf("%d bounds compared, %d stronger than the LP's; %d plans", compared, stronger, plans)
	if stronger == 0 || plans == 0 {
		t.Errorf("no bound stronger than the LP's (%d) or no plan (%d)", stronger, plans)
	}
}

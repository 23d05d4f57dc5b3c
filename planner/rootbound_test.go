package planner

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// The Lagrangian bound of a generated DAG's whole model (its LP relaxation
// fractional): with the interior point method's duals it is the LP's
// optimum, to the solver's tolerance; with any other multipliers it is
// still below it. A rootLP finds it and the same duals, and neither when it is
// stopped.
func TestLagrangeBound(t *testing.T) {
	p := &lowered(t, generatedDAG(t, 24, 1)).problem
	in := newInstance(p, false)
	_, cm := reduceAndBuild(in, DefaultMaxTable, false, false, 0, func() ModelSize { return fullSize(in) }, nil)
	if cm == nil {
		t.Fatal("no model")
	}
	lib, err := loadHiGHS()
	if err != nil {
		t.Fatal(err)
	}
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lp := relaxation(&cm.model)
	res, err := s.Solve(context.Background(), &lp, highs.Options{InteriorPoint: true, Duals: true})
	if err != nil || res.Status != highs.Optimal {
		t.Fatalf("the LP: %v, %v", res.Status, err)
	}
	fractional := false
	for j, c := range cm.model.Columns {
		if x := res.Values[j]; c.Integer && math.Abs(x-math.Round(x)) > 1e-4 {
			fractional = true
		}
	}
	if !fractional {
		t.Fatal("the relaxation is integral: the case tests little")
	}
	opt := res.Objective
	tol := 1e-6 * math.Abs(opt)
	if got := lagrangeBound(&lp, res.RowDuals); got > opt+tol || got < opt-tol {
		t.Errorf("bound %v with the LP's duals, want its optimum %v", got, opt)
	}
	rl := startRootLP(context.Background(), lib, &cm.model, highs.Options{})
	if !rl.wait(context.Background()) {
		t.Fatal("rootLP stopped")
	}
	if got := rl.bound; math.Abs(got-lagrangeBound(&lp, res.RowDuals)) > tol {
		t.Errorf("rootLP's bound %v, want %v", got, lagrangeBound(&lp, res.RowDuals))
	}
	if !slices.Equal(rl.duals, res.RowDuals) {
		t.Error("rootLP's duals differ from the same solve's")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		y := slices.Clone(res.RowDuals)
		for i := range y {
			switch trial % 3 {
			case 0: // the duals, perturbed
				y[i] *= 1 + 0.2*(rng.Float64()-0.5)
			case 1: // some rows dropped
				if rng.IntN(4) == 0 {
					y[i] = 0
				}
			default: // anything
				y[i] = 1000 * (rng.Float64() - 0.5)
			}
		}
		if got := lagrangeBound(&lp, y); got > opt+tol {
			t.Fatalf("trial %d: bound %v above the LP's optimum %v", trial, got, opt)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rl = startRootLP(ctx, lib, &cm.model, highs.Options{TimeLimit: time.Minute})
	if rl.wait(context.Background()); !math.IsNaN(rl.bound) || rl.duals != nil {
		t.Errorf("rootLP of a stopped solve: bound %v, %d duals, want NaN and none", rl.bound, len(rl.duals))
	}
}

// TestLoadedLPRegrets answers every core node's other choices of small
// random cores by a re-solve worker (worker, without certificates) that
// takes the LP loaded ahead (loadLP), by one that starts its LP from the
// optimal basis of an LP loaded ahead for another, and by one that loads
// its own: the answers must be the same, bit for bit. The queries go in
// chains of three (chains); each answer must also equal, within rounding,
// the one of a re-solve of its own from the LP's optimal basis.
func TestLoadedLPRegrets(t *testing.T) {
	lib := highstest.Library(t)
	ctx := context.Background()
	compared := 0
	for seed := range uint64(100) {
		sc, ok := solveCore(t, ctx, lib, seed, 1)
		if !ok {
			continue
		}
		in, r, cm, res, opt := sc.in, sc.r, sc.cm, sc.res, sc.opt
		answers := func(ahead, fromBasis bool, chain int) []query {
			rg := &regrets{ctx: ctx, r: r, cm: cm, lib: lib, opt: opt, asg: res.asg, opt0: res.objective, index: map[string]int{}}
			for _, v := range r.core {
				for k := range in.domain[v] {
					rg.ask([]int{v}, [][]int{{k}})
				}
			}
			lp := relaxation(&cm.model)
			var pre, from *loadedLP
			if ahead {
				pre = rg.loadLP(&lp)
				defer pre.close()
			}
			if fromBasis {
				// Another worker's LP loaded ahead, whose optimal basis
				// this worker's LP starts from.
				from = rg.loadLP(&lp)
				defer from.close()
				if from.optimalBasis() == nil {
					t.Fatalf("seed %d: no basis of the LP loaded ahead", seed)
				}
			}
			i := 0
			err := rg.worker(&lp, nil, pre, from, false, func() (int, bool, *chainBudget, bool) {
				i++
				return i - 1, (i-1)%chain == 0, nil, i <= len(rg.queries)
			})
			if err != nil {
				t.Fatal(err)
			}
			if ahead && !rg.lpAhead {
				t.Fatalf("seed %d: the worker did not take the LP loaded ahead", seed)
			}
			return rg.queries
		}
		want := answers(false, false, 3)
		for i, alone := range answers(false, false, 1) {
			if tol := objectiveTolerance(res.objective); math.Abs(alone.lo-want[i].lo) > tol || math.Abs(alone.hi-want[i].hi) > tol {
				t.Fatalf("seed %d: query %v at %v: [%v, %v] in a chain, [%v, %v] alone", seed, alone.nodes, alone.sets, want[i].lo, want[i].hi, alone.lo, alone.hi)
			}
		}
		for _, mode := range []struct {
			name            string
			ahead, fromBase bool
		}{{"with the LP loaded ahead", true, false}, {"from the basis of an LP loaded ahead", false, true}} {
			got := answers(mode.ahead, mode.fromBase, 3)
			for i := range got {
				if math.Float64bits(got[i].lo) != math.Float64bits(want[i].lo) || math.Float64bits(got[i].hi) != math.Float64bits(want[i].hi) {
					t.Fatalf("seed %d: query %v at %v: [%v, %v] %s, [%v, %v] without", seed, got[i].nodes, got[i].sets, got[i].lo, got[i].hi, mode.name, want[i].lo, want[i].hi)
				}
				compared++
			}
		}
	}
	t.Logf("%d answers compared", compared)
	if compared == 0 {
		t.Error("nothing compared")
	}
}

// HiGHS's postsolve can leave the interior point of a presolved LP with
// dual infeasibilities, and then reports no duals (model status unknown):
// it does on the relaxation of a knapsack of ten items (HiGHS 1.15.1), and
// did on the core of cklplan gen dag --invocations 60 --exec-scale 100
// --seed 5 before presolve kept its dependent equations
// (highs.Options.InteriorPoint). solveDuals then solves the LP again
// without presolve, whose duals prove its optimum; and every regret of that
// graph is priced by the duals: the certificates answer its queries, where
// without them every query was re-solved.
func TestDualsWithoutPostsolve(t *testing.T) {
	_, ctx, s := certSolver(t)
	// max value·x subject to weight·x ≤ half the weights, 0 ≤ x ≤ 1.
	rng := rand.New(rand.NewPCG(5, 2))
	lp := highs.Model{Maximize: true}
	row := highs.Row{Lower: math.Inf(-1)}
	for j := range 10 {
		lp.Columns = append(lp.Columns, highs.Column{Cost: float64(1 + rng.IntN(100)), Upper: 1})
		w := float64(1 + rng.IntN(60))
		row.Terms = append(row.Terms, highs.Term{Col: j, Coef: w})
		row.Upper += w
	}
	row.Upper = math.Floor(row.Upper / 2)
	lp.Rows = []highs.Row{row}
	opt := highs.Options{InteriorPoint: true, Duals: true}
	if res, err := s.Solve(ctx, &lp, opt); err != nil {
		t.Fatal(err)
	} else if res.Status != highs.SolverError {
		t.Logf("this HiGHS solves the presolved LP to %v (HiGHS status %s): the case tests less", res.Status, highs.HighsModelStatusName(res.HighsStatus))
	}
	res, err := solveDuals(ctx, s, &lp, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != highs.Optimal || len(res.RowDuals) != len(lp.Rows) {
		t.Fatalf("without presolve: %v, %d duals for %d rows", res.Status, len(res.RowDuals), len(lp.Rows))
	}
	// The minimization of −value·x, whose multipliers are the duals
	// negated, is bounded below by −(the optimum).
	neg := lp
	neg.Maximize = false
	neg.Columns = slices.Clone(lp.Columns)
	y := make([]float64, len(res.RowDuals))
	for j := range neg.Columns {
		neg.Columns[j].Cost = -neg.Columns[j].Cost
	}
	for i := range y {
		y[i] = -res.RowDuals[i]
	}
	if got, tol := lagrangeBound(&neg, y), 1e-7*math.Abs(res.Objective); math.Abs(got+res.Objective) > tol {
		t.Errorf("the duals prove %v, want the LP's optimum %v", -got, res.Objective)
	}

	p := &lowered(t, scaledDAG(t, 60, 5, 100)).problem
	sol, err := Solve(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d regrets, %d queries certified, %d re-solved", len(sol.Regrets), sol.RegretCertified, sol.RegretSolves)
	if !sol.dualsAhead || sol.RegretCertified < sol.RegretSolves {
		t.Errorf("duals beside the plan: %v; %d queries certified, %d re-solved", sol.dualsAhead, sol.RegretCertified, sol.RegretSolves)
	}
}

package planner

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWShareMatchesEachKernelsProgram: the interior regrets of fused
// layers whose kernels alike share their program's min-marginals, W the
// same up to a constant (wShare), are those of each kernel's own program
// to 1e-12 of the objective, and some kernels do share.
func TestWShareMatchesEachKernelsProgram(t *testing.T) {
	for _, c := range []struct {
		layers int
		budget int64
	}{{12, 300_000}, {12, 250_000}, {8, 400_000}} {
		p := &lowered(t, fusedTransformer(t, c.layers, 1, c.budget)).problem
		var sols [2]*Solution
		for i, off := range []bool{false, true} {
			sol, err := Solve(context.Background(), p, Options{noWShare: off})
			if err != nil {
				t.Fatal(err)
			}
			sols[i] = sol
		}
		shared, own := sols[0], sols[1]
		if shared.Objective != own.Objective {
			t.Fatalf("%d layers, budget %d: optimum %v shared, %v each its own", c.layers, c.budget, shared.Objective, own.Objective)
		}
		if shared.kernelsSharingW == 0 || own.kernelsSharingW != 0 {
			t.Fatalf("%d layers, budget %d: %d kernels shared, %d with noWShare", c.layers, c.budget, shared.kernelsSharingW, own.kernelsSharingW)
		}
		if len(shared.Regrets) != len(own.Regrets) {
			t.Fatalf("%d regrets shared, %d each its own", len(shared.Regrets), len(own.Regrets))
		}
		tol := wShareTolerance * math.Max(1, math.Abs(own.Objective))
		for i, r := range shared.Regrets {
			o := own.Regrets[i]
			if r.Node != o.Node || r.Alternative != o.Alternative || r.Exact != o.Exact || r.Tie != o.Tie ||
				!within(r.Regret, o.Regret, tol) || !within(r.Lower, o.Lower, tol) {
				t.Fatalf("%d layers, budget %d: node %d alternative %d: regret %v (lower %v, exact %v) shared, %v (%v, %v) its own",
					c.layers, c.budget, r.Node, r.Alternative, r.Regret, r.Lower, r.Exact, o.Regret, o.Lower, o.Exact)
			}
		}
		t.Logf("%d layers, budget %d: %d kernels shared another's program; %d regrets compared", c.layers, c.budget, shared.kernelsSharingW, len(own.Regrets))
	}
}

// within says x and y are both +Inf or at most tol apart.
func within(x, y, tol float64) bool {
	return x == y || math.Abs(x-y) <= tol
}

// TestWShareShiftsAndGroups: a kernel given another's min-marginals gets
// them shifted by the difference of the Ws' least entries, the program's
// own with its W to rounding; and Ws alike to within wShareTolerance
// group, while one that differs past it does not.
func TestWShareShiftsAndGroups(t *testing.T) {
	c := contractKernels(context.Background(), &lowered(t, fusedTransformer(t, 4, 3, 250_000)).problem, 1)
	all := func(int) bool { return true }
	rng := rand.New(rand.NewPCG(37, 41))
	for ki, k := range c.kernels {
		if len(k.internal) == 0 || len(k.tuples) < 2 {
			continue
		}
		// Two Ws of the kernel a constant apart.
		w := make([]float64, len(k.tuples))
		for i := range w {
			w[i] = float64(rng.IntN(200)) + rng.Float64()
		}
		shift := 37.25
		w2 := slices.Clone(w)
		for i := range w2 {
			w2[i] += shift
		}
		ws := &wShare{kernels: []*budgetKernel{k, k}, explained: all, rep: []int{0, 0},
			low: []float64{leastFinite(w), leastFinite(w2)}, high: []float64{leastFinite(w), leastFinite(w2)},
			w: [][2][]float64{{w, w}, {w2, w2}}, exact: []bool{true, true}, groups: []*wGroup{{}, nil}}
		got, _ := ws.marginals(1)
		want, _ := k.wMarginals(all, w2, w2, true)
		if got == nil || want == nil {
			t.Fatalf("kernel %d: no marginals", ki)
		}
		for li := range want {
			for a := range want[li] {
				if !within(got[li][a], want[li][a], 1e-9*math.Max(1, math.Abs(want[li][a]))) {
					t.Fatalf("kernel %d, node %d, alternative %d: shared %v, its own %v", ki, li, a, got[li][a], want[li][a])
				}
			}
		}
		// Grouping, from the auxiliary node's regrets.
		s := &Solution{Objective: 1e5, Choices: make([]Choice, k.aux+1)}
		aux := func(bump float64) []*Regret {
			out := make([]*Regret, len(k.tuples))
			for tu := range out {
				out[tu] = &Regret{Regret: float64(tu%7) + 0.5, Lower: float64(tu%7) + 0.5, Exact: true}
			}
			out[1].Regret += bump
			out[1].Lower += bump
			return out
		}
		for _, g := range []struct {
			bump  float64
			alike bool
		}{{0, true}, {1e-3 * wShareTolerance * s.Objective, true}, {1e-6, false}, {1, false}} {
			ws := newWShare([]*budgetKernel{k, k}, s, [][]*Regret{aux(0), aux(g.bump)}, all, true)
			if (ws.rep[1] == 0) != g.alike {
				t.Fatalf("kernel %d: a W %v off grouped: %v, want %v", ki, g.bump, ws.rep[1] == 0, g.alike)
			}
		}
		return
	}
	t.Fatal("no kernel with an interior and two tuples")
}

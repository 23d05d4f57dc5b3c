package highs_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// forcedKnapsack is the knapsack's optimum with item i fixed to force[i] (0
// or 1) where force[i] >= 0: over 0/1 choices by enumeration, or, relaxed to
// an LP, by the greedy fill in order of value per weight (the fractional
// knapsack's optimum).
func (k knapsack) forcedOptimum(force []int, relaxed bool) float64 {
	if !relaxed {
		best := math.Inf(-1)
		for set := 0; set < 1<<len(k.value); set++ {
			v, w, ok := 0.0, 0.0, true
			for i := range k.value {
				in := set&(1<<i) != 0
				if force[i] >= 0 && in != (force[i] == 1) {
					ok = false
				}
				if in {
					v += k.value[i]
					w += k.weight[i]
				}
			}
			if ok && w <= k.capacity && v > best {
				best = v
			}
		}
		return best
	}
	v, room := 0.0, k.capacity
	var free []int
	for i := range k.value {
		switch force[i] {
		case 1:
			v += k.value[i]
			room -= k.weight[i]
		case -1:
			free = append(free, i)
		}
	}
	if room < 0 {
		return math.Inf(-1)
	}
	slices.SortStableFunc(free, func(a, b int) int {
		ra, rb := k.value[a]/k.weight[a], k.value[b]/k.weight[b]
		switch {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return 0
	})
	for _, i := range free {
		take := math.Min(1, room/k.weight[i])
		v += take * k.value[i]
		room -= take * k.weight[i]
		if room <= 0 {
			break
		}
	}
	return v
}

// TestResolve: after SetBounds, Resolve finds the optimum of the model with
// those bounds, for MIPs and (warm-started) LPs, and changing the bounds back
// gives the first optimum again.
func TestResolve(t *testing.T) {
	lib := highstest.Library(t)
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for seed := range uint64(12) {
		k := randomKnapsack(10, seed)
		for _, relaxed := range []bool{false, true} {
			m := k.model()
			for j := range m.Columns {
				m.Columns[j].Integer = !relaxed
			}
			first, err := s.Solve(ctx, m, highs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(seed, 9))
			for trial := range 6 {
				force := make([]int, len(k.value))
				var changes []highs.BoundChange
				for i := range force {
					force[i] = rng.IntN(4) - 2 // -2, -1: free; 0, 1: fixed
					if force[i] < 0 {
						force[i] = -1
						changes = append(changes, highs.BoundChange{Col: i, Lower: 0, Upper: 1})
					} else {
						changes = append(changes, highs.BoundChange{Col: i, Lower: float64(force[i]), Upper: float64(force[i])})
					}
				}
				if err := s.SetBounds(m, changes); err != nil {
					t.Fatal(err)
				}
				res, err := s.Resolve(ctx, m, highs.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := k.forcedOptimum(force, relaxed)
				if math.IsInf(want, -1) {
					if res.Status != highs.Infeasible {
						t.Fatalf("seed %d relaxed=%v trial %d: %v, want infeasible", seed, relaxed, trial, res.Status)
					}
					continue
				}
				if res.Status != highs.Optimal || math.Abs(res.Objective-want) > tol*math.Max(1, want) {
					t.Fatalf("seed %d relaxed=%v trial %d force %v: %v %v, want %v", seed, relaxed, trial, force, res.Status, res.Objective, want)
				}
			}
			var back []highs.BoundChange
			for j := range m.Columns {
				back = append(back, highs.BoundChange{Col: j, Lower: 0, Upper: 1})
			}
			if err := s.SetBounds(m, back); err != nil {
				t.Fatal(err)
			}
			res, err := s.Resolve(ctx, m, highs.Options{})
			if err != nil || math.Abs(res.Objective-first.Objective) > tol*math.Max(1, first.Objective) {
				t.Fatalf("seed %d relaxed=%v: bounds restored: %v, %v; first solve %v", seed, relaxed, res, err, first.Objective)
			}
		}
	}
	other := randomKnapsack(3, 1).model()
	if err := s.SetBounds(other, nil); !errors.Is(err, highs.ErrNotLoaded) {
		t.Errorf("SetBounds on a model not loaded: %v", err)
	}
	if _, err := s.Resolve(ctx, other, highs.Options{}); !errors.Is(err, highs.ErrNotLoaded) {
		t.Errorf("Resolve on a model not loaded: %v", err)
	}
	m := randomKnapsack(3, 1).model()
	if _, err := s.Solve(ctx, m, highs.Options{}); err != nil {
		t.Fatal(err)
	}
	var me *highs.ModelError
	if err := s.SetBounds(m, []highs.BoundChange{{Col: 3}}); !errors.As(err, &me) {
		t.Errorf("a change of column 3 of 3: %v", err)
	}
	if err := s.SetBounds(m, []highs.BoundChange{{Col: 0, Lower: 1, Upper: 0}}); !errors.As(err, &me) {
		t.Errorf("lower above upper: %v", err)
	}
	if _, err := s.Resolve(ctx, m, highs.Options{Threads: 2}); err == nil {
		t.Error("Resolve with another thread count accepted")
	}
}

// TestDuals: an optimal LP's RowDuals and ReducedCosts, by the simplex
// method and by the interior point method, are a dual solution: the reduced
// costs are Cost − Aᵀ RowDuals, each row's dual has the sign its bound
// allows, and the Lagrangian at the duals (Σ y_i b_i plus each column at the
// end of its box its reduced cost prices lower) is the optimum.
func TestDuals(t *testing.T) {
	lib := highstest.Library(t)
	ctx := context.Background()
	optimal := 0
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 17))
		// Assign 6 workers to 6 jobs (equality rows), under a budget on
		// the first three jobs (a ≤ row) and a floor on the last three (a ≥ row).
		const n = 6
		m := &highs.Model{}
		budget := highs.Row{Lower: math.Inf(-1), Upper: float64(n + rng.IntN(2*n))}
		floor := highs.Row{Lower: float64(rng.IntN(n)), Upper: math.Inf(1)}
		rows := make([]highs.Row, 2*n)
		for i := range n {
			rows[i] = highs.Row{Lower: 1, Upper: 1}
			rows[n+i] = highs.Row{Lower: 1, Upper: 1}
		}
		for w := range n {
			for j := range n {
				col := m.AddColumn(highs.Column{Cost: float64(rng.IntN(100)), Upper: 1})
				rows[w].Terms = append(rows[w].Terms, highs.Term{Col: col, Coef: 1})
				rows[n+j].Terms = append(rows[n+j].Terms, highs.Term{Col: col, Coef: 1})
				if j < n/2 {
					budget.Terms = append(budget.Terms, highs.Term{Col: col, Coef: float64(1 + rng.IntN(3))})
				} else {
					floor.Terms = append(floor.Terms, highs.Term{Col: col, Coef: float64(rng.IntN(3))})
				}
			}
		}
		m.Rows = append(rows, budget, floor)
		for _, ipm := range []bool{false, true} {
			res, err := lib.Solve(ctx, m, highs.Options{Duals: true, InteriorPoint: ipm})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status == highs.Infeasible {
				if res.RowDuals != nil || res.ReducedCosts != nil {
					t.Errorf("seed %d ipm=%v: duals of an infeasible LP", seed, ipm)
				}
				continue
			}
			optimal++
			if res.Status != highs.Optimal || len(res.RowDuals) != len(m.Rows) || len(res.ReducedCosts) != len(m.Columns) {
				t.Fatalf("seed %d ipm=%v: %v, %d row duals, %d reduced costs", seed, ipm, res.Status, len(res.RowDuals), len(res.ReducedCosts))
			}
			d := make([]float64, len(m.Columns))
			for j, c := range m.Columns {
				d[j] = c.Cost
			}
			lagrangian := 0.0
			for i, r := range m.Rows {
				y := res.RowDuals[i]
				if (math.IsInf(r.Lower, -1) && y > 1e-7) || (math.IsInf(r.Upper, 1) && y < -1e-7) {
					t.Errorf("seed %d ipm=%v: row %d [%v, %v] has dual %v", seed, ipm, i, r.Lower, r.Upper, y)
				}
				switch {
				case y > 0:
					lagrangian += y * r.Lower
				case y < 0:
					lagrangian += y * r.Upper
				}
				for _, tm := range r.Terms {
					d[tm.Col] -= y * tm.Coef
				}
			}
			for j, c := range m.Columns {
				if math.Abs(d[j]-res.ReducedCosts[j]) > 1e-6 {
					t.Errorf("seed %d ipm=%v: column %d: reduced cost %v, Cost − Aᵀy %v", seed, ipm, j, res.ReducedCosts[j], d[j])
				}
				lagrangian += math.Min(d[j]*c.Lower, d[j]*c.Upper)
			}
			if math.Abs(lagrangian-res.Objective) > 1e-6*math.Max(1, math.Abs(res.Objective)) {
				t.Errorf("seed %d ipm=%v: Lagrangian at the duals %v, optimum %v", seed, ipm, lagrangian, res.Objective)
			}
		}
		res, err := lib.Solve(ctx, m, highs.Options{})
		if err != nil || res.RowDuals != nil || res.ReducedCosts != nil {
			t.Errorf("seed %d: duals not asked for: %v, %v", seed, res, err)
		}
	}
	if optimal < 10 {
		t.Errorf("%d of 40 solves optimal: the generator hardly tests the duals", optimal)
	}
}

// TestBasis: the basis one Solver's simplex ends at starts another's solve
// of the same LP at its optimum, with no iteration; a basis of another
// shape is refused before HiGHS sees it, and a MIP or a model not loaded
// has none to take.
func TestBasis(t *testing.T) {
	lib := highstest.Library(t)
	ctx := context.Background()
	m := randomAssignment(20, 5).model()
	for j := range m.Columns {
		m.Columns[j].Integer = false // its LP relaxation, integral at a vertex
	}
	opt := highs.Options{Presolve: highs.PresolveOff}
	a, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cold, err := a.Solve(ctx, m, opt)
	if err != nil || cold.Status != highs.Optimal {
		t.Fatalf("%v, %v", cold, err)
	}
	if cold.SimplexIterations == 0 {
		t.Fatal("the cold solve took no simplex iteration: the test shows nothing")
	}
	basis, err := a.Basis(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	warm := opt
	warm.Basis = basis
	res, err := b.Solve(ctx, m, warm)
	if err != nil || res.Status != highs.Optimal {
		t.Fatalf("from the basis: %v, %v", res, err)
	}
	if res.SimplexIterations != 0 || math.Abs(res.Objective-cold.Objective) > 1e-9*math.Abs(cold.Objective) {
		t.Errorf("from the basis: %d iterations to %v; cold: %d to %v", res.SimplexIterations, res.Objective, cold.SimplexIterations, cold.Objective)
	}

	other := randomAssignment(19, 5).model()
	if _, err := b.Solve(ctx, other, warm); !errors.As(err, new(*highs.OptionError)) {
		t.Errorf("a basis of 400 columns for a model of 361: %v, want an OptionError", err)
	}
	if _, err := b.Basis(other); !errors.Is(err, highs.ErrNotLoaded) {
		t.Errorf("Basis of a model not loaded: %v, want ErrNotLoaded", err)
	}
	mip := randomAssignment(5, 5).model()
	if _, err := b.Solve(ctx, mip, highs.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Basis(mip); err == nil {
		t.Error("a MIP's basis taken")
	}
}

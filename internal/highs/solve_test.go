package highs_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/google/go-cmp/cmp"
)

// The expected optimum of every model here comes from enumerating its
// solutions (brute force), never from HiGHS or from a number copied by hand.

const tol = 1e-6

// knapsack is a 0/1 knapsack: maximize Σ value·x subject to Σ weight·x ≤ capacity.
type knapsack struct {
	value, weight []float64
	capacity      float64
}

func randomKnapsack(n int, seed uint64) knapsack {
	rng := rand.New(rand.NewPCG(seed, 2))
	k := knapsack{value: make([]float64, n), weight: make([]float64, n)}
	total := 0.0
	for i := range n {
		k.value[i] = float64(1 + rng.IntN(100))
		k.weight[i] = float64(1 + rng.IntN(60))
		total += k.weight[i]
	}
	k.capacity = math.Floor(total / 2)
	return k
}

func (k knapsack) model() *highs.Model {
	m := &highs.Model{Maximize: true}
	row := highs.Row{Name: "capacity", Lower: math.Inf(-1), Upper: k.capacity}
	for i := range k.value {
		j := m.AddColumn(highs.Binary(fmt.Sprintf("item%d", i), k.value[i]))
		row.Terms = append(row.Terms, highs.Term{Col: j, Coef: k.weight[i]})
	}
	m.AddRow(row)
	return m
}

// bruteForce is the best value over all 2^n subsets that fit.
func (k knapsack) bruteForce() float64 {
	best := 0.0
	for set := 0; set < 1<<len(k.value); set++ {
		v, w := 0.0, 0.0
		for i := range k.value {
			if set&(1<<i) != 0 {
				v += k.value[i]
				w += k.weight[i]
			}
		}
		if w <= k.capacity && v > best {
			best = v
		}
	}
	return best
}

// assignment: n workers, n jobs, minimize the total cost of a perfect matching.
type assignment struct{ cost [][]float64 }

func randomAssignment(n int, seed uint64) assignment {
	rng := rand.New(rand.NewPCG(seed, 3))
	a := assignment{cost: make([][]float64, n)}
	for i := range a.cost {
		a.cost[i] = make([]float64, n)
		for j := range a.cost[i] {
			a.cost[i][j] = float64(rng.IntN(1000))
		}
	}
	return a
}

func (a assignment) model() *highs.Model {
	n := len(a.cost)
	m := &highs.Model{}
	for i := range n {
		for j := range n {
			m.AddColumn(highs.Binary(fmt.Sprintf("x%d_%d", i, j), a.cost[i][j]))
		}
	}
	for i := range n {
		worker := highs.Row{Name: fmt.Sprintf("worker%d", i), Lower: 1, Upper: 1}
		job := highs.Row{Name: fmt.Sprintf("job%d", i), Lower: 1, Upper: 1}
		for j := range n {
			worker.Terms = append(worker.Terms, highs.Term{Col: i*n + j, Coef: 1})
			job.Terms = append(job.Terms, highs.Term{Col: j*n + i, Coef: 1})
		}
		m.AddRow(worker)
		m.AddRow(job)
	}
	return m
}

// bruteForce is the cheapest of all n! permutations (Heap's algorithm).
func (a assignment) bruteForce() float64 {
	n := len(a.cost)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	cost := func() float64 {
		s := 0.0
		for i, j := range perm {
			s += a.cost[i][j]
		}
		return s
	}
	best := cost()
	c := make([]int, n)
	for i := 0; i < n; {
		if c[i] < i {
			if i%2 == 0 {
				perm[0], perm[i] = perm[i], perm[0]
			} else {
				perm[c[i]], perm[i] = perm[i], perm[c[i]]
			}
			best = math.Min(best, cost())
			c[i]++
			i = 0
		} else {
			c[i] = 0
			i++
		}
	}
	return best
}

// setCover: choose sets of minimum total cost covering every element.
type setCover struct {
	elements int
	sets     [][]int
	cost     []float64
}

func randomSetCover(elements, sets int, seed uint64) setCover {
	rng := rand.New(rand.NewPCG(seed, 4))
	s := setCover{elements: elements, sets: make([][]int, sets), cost: make([]float64, sets)}
	for k := range s.sets {
		for e := range elements {
			if rng.IntN(4) == 0 {
				s.sets[k] = append(s.sets[k], e)
			}
		}
		s.cost[k] = float64(1 + rng.IntN(20))
	}
	// Every element is in some set, so a cover exists.
	for e := range elements {
		k := rng.IntN(sets)
		if !contains(s.sets[k], e) {
			s.sets[k] = append(s.sets[k], e)
		}
	}
	return s
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func (s setCover) model() *highs.Model {
	m := &highs.Model{}
	rows := make([]highs.Row, s.elements)
	for e := range rows {
		rows[e] = highs.Row{Name: fmt.Sprintf("element%d", e), Lower: 1, Upper: math.Inf(1)}
	}
	for k, set := range s.sets {
		j := m.AddColumn(highs.Binary(fmt.Sprintf("set%d", k), s.cost[k]))
		for _, e := range set {
			rows[e].Terms = append(rows[e].Terms, highs.Term{Col: j, Coef: 1})
		}
	}
	m.Rows = rows
	return m
}

// coverCosts calls yield with the cost of every choice of sets that covers
// every element.
func (s setCover) coverCosts(yield func(cost float64)) {
	for choice := 0; choice < 1<<len(s.sets); choice++ {
		covered := make([]bool, s.elements)
		c := 0.0
		for k, set := range s.sets {
			if choice&(1<<k) != 0 {
				c += s.cost[k]
				for _, e := range set {
					covered[e] = true
				}
			}
		}
		all := true
		for _, ok := range covered {
			all = all && ok
		}
		if all {
			yield(c)
		}
	}
}

func (s setCover) bruteForce() float64 {
	best := math.Inf(1)
	s.coverCosts(func(c float64) { best = math.Min(best, c) })
	return best
}

// optimalCovers counts the covers of minimum cost.
func (s setCover) optimalCovers() int {
	best, n := s.bruteForce(), 0
	s.coverCosts(func(c float64) {
		if c == best {
			n++
		}
	})
	return n
}

// checkSolution checks that r's values satisfy m (bounds, integrality, rows)
// and that r.Objective is the objective at them.
func checkSolution(t *testing.T, m *highs.Model, r *highs.Result) {
	t.Helper()
	const feas = 1e-6
	if len(r.Values) != len(m.Columns) {
		t.Fatalf("%d values for %d columns", len(r.Values), len(m.Columns))
	}
	for j, c := range m.Columns {
		x := r.Values[j]
		if x < c.Lower-feas || x > c.Upper+feas {
			t.Errorf("column %d = %v outside [%v, %v]", j, x, c.Lower, c.Upper)
		}
		if c.Integer && math.Abs(x-math.Round(x)) > feas {
			t.Errorf("integer column %d = %v", j, x)
		}
	}
	for i, row := range m.Rows {
		a := m.Activity(i, r.Values)
		if a < row.Lower-feas || a > row.Upper+feas {
			t.Errorf("row %d activity %v outside [%v, %v]", i, a, row.Lower, row.Upper)
		}
	}
	if got := m.Objective(r.Values); math.Abs(got-r.Objective) > tol*math.Max(1, math.Abs(got)) {
		t.Errorf("Objective = %v, objective at Values = %v", r.Objective, got)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// exact asks for a proven optimum, so that brute force and HiGHS must agree.
var exact = highs.Options{RelativeGap: 1e-9, AbsoluteGap: 1e-9}

func TestKnownOptima(t *testing.T) {
	lib := highstest.Library(t)
	type optimumCase struct {
		name  string
		model *highs.Model
		want  float64 // by brute force
	}
	var tests []optimumCase
	for seed := range uint64(3) {
		k := randomKnapsack(16, seed)
		a := randomAssignment(7, seed)
		s := randomSetCover(14, 12, seed)
		tests = append(tests,
			optimumCase{fmt.Sprintf("knapsack n=16 seed=%d", seed), k.model(), k.bruteForce()},
			optimumCase{fmt.Sprintf("assignment 7x7 seed=%d", seed), a.model(), a.bruteForce()},
			optimumCase{fmt.Sprintf("set cover 14 elements 12 sets seed=%d", seed), s.model(), s.bruteForce()})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := lib.Solve(context.Background(), tt.model, exact)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != highs.Optimal {
				t.Fatalf("status %v (HiGHS: %s), want optimal", r.Status, highs.HighsModelStatusName(r.HighsStatus))
			}
			checkSolution(t, tt.model, r)
			if !near(r.Objective, tt.want) {
				t.Errorf("objective %v, brute force %v", r.Objective, tt.want)
			}
			if r.Gap > 1e-9 || !near(r.DualBound, tt.want) {
				t.Errorf("dual bound %v gap %v at a proven optimum %v", r.DualBound, r.Gap, tt.want)
			}
		})
	}
}

// An LP's optimum can be checked against its dual: for
// min cᵀx, Ax ≥ b, x ≥ 0 and a dual feasible y (Aᵀy ≤ c, y ≥ 0) with
// bᵀy = cᵀx, both are optimal.
func TestLPOptimumMatchesDual(t *testing.T) {
	lib := highstest.Library(t)
	// min 2x + 3y s.t. x + y ≥ 4, x + 3y ≥ 6, x, y ≥ 0.
	// Vertex x=3, y=1 (both rows tight), value 9; dual y1=3/2, y2=1/2:
	// Aᵀy = (2, 3) ≤ c and bᵀy = 6 + 3 = 9.
	m := &highs.Model{}
	x := m.AddColumn(highs.Column{Name: "x", Cost: 2, Upper: math.Inf(1)})
	y := m.AddColumn(highs.Column{Name: "y", Cost: 3, Upper: math.Inf(1)})
	m.AddRow(highs.Row{Lower: 4, Upper: math.Inf(1), Terms: []highs.Term{{Col: x, Coef: 1}, {Col: y, Coef: 1}}})
	m.AddRow(highs.Row{Lower: 6, Upper: math.Inf(1), Terms: []highs.Term{{Col: x, Coef: 1}, {Col: y, Coef: 3}}})
	dual := []float64{1.5, 0.5}
	dualValue := 4*dual[0] + 6*dual[1]
	r, err := lib.Solve(context.Background(), m, highs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != highs.Optimal {
		t.Fatalf("status %v", r.Status)
	}
	checkSolution(t, m, r)
	if !near(r.Objective, dualValue) || !near(r.DualBound, dualValue) || r.Gap != 0 || r.Nodes != 0 {
		t.Errorf("got objective %v bound %v gap %v nodes %d, want %v (dual value), gap 0, no nodes",
			r.Objective, r.DualBound, r.Gap, r.Nodes, dualValue)
	}
}

func TestStatuses(t *testing.T) {
	lib := highstest.Library(t)
	inf := math.Inf(1)
	tests := []struct {
		name  string
		model *highs.Model
		opt   highs.Options
		want  []highs.Status // any of these
	}{
		{
			name: "infeasible MIP: x + y ≥ 3 with binaries",
			model: &highs.Model{
				Columns: []highs.Column{highs.Binary("x", 1), highs.Binary("y", 1)},
				Rows:    []highs.Row{{Lower: 3, Upper: inf, Terms: []highs.Term{{Col: 0, Coef: 1}, {Col: 1, Coef: 1}}}},
			},
			want: []highs.Status{highs.Infeasible},
		},
		{
			name: "infeasible LP: x ≤ 1 and x ≥ 2",
			model: &highs.Model{
				Columns: []highs.Column{{Name: "x", Cost: 1, Upper: inf}},
				Rows: []highs.Row{
					{Lower: math.Inf(-1), Upper: 1, Terms: []highs.Term{{Col: 0, Coef: 1}}},
					{Lower: 2, Upper: inf, Terms: []highs.Term{{Col: 0, Coef: 1}}},
				},
			},
			opt:  highs.Options{Presolve: highs.PresolveOff},
			want: []highs.Status{highs.Infeasible},
		},
		{
			name: "unbounded LP: max x + y with x − y ≤ 1",
			model: &highs.Model{
				Maximize: true,
				Columns:  []highs.Column{{Name: "x", Cost: 1, Upper: inf}, {Name: "y", Cost: 1, Upper: inf}},
				Rows:     []highs.Row{{Lower: math.Inf(-1), Upper: 1, Terms: []highs.Term{{Col: 0, Coef: 1}, {Col: 1, Coef: -1}}}},
			},
			opt:  highs.Options{Presolve: highs.PresolveOff},
			want: []highs.Status{highs.Unbounded},
		},
		{
			name: "unbounded LP with presolve: min −x over x ≥ 0",
			model: &highs.Model{
				Columns: []highs.Column{{Name: "x", Cost: -1, Upper: inf}},
			},
			want: []highs.Status{highs.Unbounded, highs.UnboundedOrInfeasible},
		},
		{
			name:  "empty model: the offset is the optimum",
			model: &highs.Model{Offset: 4.5},
			want:  []highs.Status{highs.Optimal},
		},
		{
			name:  "no columns, rows that hold at 0: optimal",
			model: &highs.Model{Offset: -2, Rows: []highs.Row{{Lower: -1, Upper: 0}, {Lower: 0, Upper: math.Inf(1)}}},
			want:  []highs.Status{highs.Optimal},
		},
		{
			name:  "no columns, a row that excludes 0: infeasible",
			model: &highs.Model{Rows: []highs.Row{{Lower: -1, Upper: 0}, {Lower: 1, Upper: 2}}},
			want:  []highs.Status{highs.Infeasible},
		},
		{
			name: "a row without terms that excludes 0: infeasible",
			model: &highs.Model{
				Columns: []highs.Column{{Name: "x", Cost: 1, Upper: 1}},
				Rows:    []highs.Row{{Name: "empty", Lower: 1, Upper: 2}},
			},
			want: []highs.Status{highs.Infeasible},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := lib.Solve(context.Background(), tt.model, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			ok := false
			for _, w := range tt.want {
				ok = ok || r.Status == w
			}
			if !ok {
				t.Fatalf("status %v (HiGHS: %s), want one of %v", r.Status, highs.HighsModelStatusName(r.HighsStatus), tt.want)
			}
			if r.Status.HasSolution() {
				checkSolution(t, tt.model, r)
				if len(tt.model.Columns) == 0 && r.Objective != tt.model.Offset {
					t.Errorf("objective %v of a model without columns, want its offset %v", r.Objective, tt.model.Offset)
				}
			} else if r.Values != nil {
				t.Errorf("values %v without a solution", r.Values)
			}
		})
	}
}

// hardModel is a multidimensional knapsack (100 items, 10 capacity rows) that
// HiGHS does not prove optimal within seconds, while its heuristics find
// incumbents at once.
func hardModel() *highs.Model {
	const n, rows = 100, 10
	rng := rand.New(rand.NewPCG(1, 1))
	m := &highs.Model{Maximize: true}
	w := make([][]float64, rows)
	for i := range w {
		w[i] = make([]float64, n)
		for j := range w[i] {
			w[i][j] = float64(1 + rng.IntN(1000))
		}
	}
	for j := range n {
		s := 0.0
		for i := range rows {
			s += w[i][j]
		}
		m.AddColumn(highs.Binary("", math.Round(s/rows)+float64(rng.IntN(500))))
	}
	for i := range rows {
		r := highs.Row{Lower: math.Inf(-1)}
		for j := range n {
			r.Terms = append(r.Terms, highs.Term{Col: j, Coef: w[i][j]})
			r.Upper += w[i][j]
		}
		r.Upper = math.Floor(r.Upper / 2)
		m.AddRow(r)
	}
	return m
}

// TestTimeLimit stops hardModel, which HiGHS does not prove optimal within
// seconds, by a time limit. At 0.05 s HiGHS has found an incumbent on this
// machine (it finds one within 5 ms), but the limit is wall-clock time, so on
// a loaded machine the no-solution outcome is accepted and checked too; at
// 0.3 s an incumbent is required.
func TestTimeLimit(t *testing.T) {
	lib := highstest.Library(t)
	m := hardModel()
	for _, tt := range []struct {
		name      string
		limit     time.Duration
		incumbent bool // required
	}{
		{"0.05 s", 50 * time.Millisecond, false},
		{"0.3 s, with an incumbent", 300 * time.Millisecond, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := lib.Solve(context.Background(), m, highs.Options{TimeLimit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status == highs.TimeLimitNoSolution && !tt.incumbent {
				if r.Values != nil || !math.IsNaN(r.Objective) || !math.IsInf(r.Gap, 1) {
					t.Errorf("no solution, yet values %v objective %v gap %v", r.Values, r.Objective, r.Gap)
				}
				return
			}
			if r.Status != highs.TimeLimitFeasible {
				t.Fatalf("status %v (HiGHS: %s), want %v", r.Status, highs.HighsModelStatusName(r.HighsStatus), highs.TimeLimitFeasible)
			}
			checkSolution(t, m, r)
			// Maximizing: the dual bound is above the incumbent, and the gap is
			// HiGHS's relative one, (bound − objective) / |objective|.
			if !(r.DualBound >= r.Objective) || !(r.Gap > 0) {
				t.Errorf("objective %v, dual bound %v, gap %v: want bound ≥ objective and a positive gap", r.Objective, r.DualBound, r.Gap)
			}
			if want := (r.DualBound - r.Objective) / math.Abs(r.Objective); math.Abs(r.Gap-want) > 1e-6 {
				t.Errorf("gap %v, (bound − objective)/|objective| = %v", r.Gap, want)
			}
		})
	}
}

// TestIterationLimit: a work limit stops hardModel, which HiGHS does not
// prove within seconds, at the same point of its search every run, unlike a
// time limit: the same status, incumbent, bound, iterations and nodes. A MIP
// is stopped at HiGHS's first limit check past the limit, so it takes at
// least that many iterations; an LP stops at HiGHS's own limit.
func TestIterationLimit(t *testing.T) {
	lib := highstest.Library(t)
	m := hardModel()
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, limit := range []int64{1, 2000} {
		var first *highs.Result
		for run := range 3 {
			// Fresh instances and one reused, which must not keep the
			// limit or its stop from the run before.
			solve := lib.Solve
			if run > 0 {
				solve = s.Solve
			}
			r, err := solve(context.Background(), m, highs.Options{IterationLimit: limit})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != highs.IterationLimitFeasible && r.Status != highs.IterationLimitNoSolution {
				t.Fatalf("limit %d: status %v (HiGHS: %s), want an iteration limit", limit, r.Status, highs.HighsModelStatusName(r.HighsStatus))
			}
			if int64(r.SimplexIterations) < limit {
				t.Errorf("limit %d: stopped after %d iterations", limit, r.SimplexIterations)
			}
			if r.Status.HasSolution() {
				checkSolution(t, m, r)
			}
			if first == nil {
				first = r
				continue
			}
			if r.Status != first.Status || r.SimplexIterations != first.SimplexIterations || r.Nodes != first.Nodes ||
				r.DualBound != first.DualBound || !slices.Equal(r.Values, first.Values) {
				t.Errorf("limit %d, run %d: %v after %d iterations and %d nodes, bound %v; the first run: %v, %d, %d, %v",
					limit, run, r.Status, r.SimplexIterations, r.Nodes, r.DualBound, first.Status, first.SimplexIterations, first.Nodes, first.DualBound)
			}
		}
		if limit == 2000 && first.Status != highs.IterationLimitFeasible {
			t.Errorf("limit %d: %v, want an incumbent (HiGHS finds one at once)", limit, first.Status)
		}
	}
	// Without the limit the same instance solves on.
	if r, err := s.Solve(context.Background(), m, highs.Options{TimeLimit: 50 * time.Millisecond}); err != nil || r.Status == highs.IterationLimitFeasible || r.Status == highs.IterationLimitNoSolution {
		t.Fatalf("after the limits, without one: %v, %v", r, err)
	}
	// An LP: its relaxation, stopped by HiGHS after one iteration.
	lp := hardModel()
	for j := range lp.Columns {
		lp.Columns[j].Integer = false
	}
	r, err := lib.Solve(context.Background(), lp, highs.Options{IterationLimit: 1, Presolve: highs.PresolveOff})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != highs.IterationLimitFeasible && r.Status != highs.IterationLimitNoSolution || r.SimplexIterations > 1 {
		t.Errorf("LP: %v (HiGHS: %s) after %d iterations, want an iteration limit after 1", r.Status, highs.HighsModelStatusName(r.HighsStatus), r.SimplexIterations)
	}
	if _, err := lib.Solve(context.Background(), m, highs.Options{IterationLimit: -1}); err == nil {
		t.Error("a negative limit: no error")
	}
}

// TestStart: a feasible start point is HiGHS's first incumbent, so even a
// solve stopped at once returns it (or better); an infeasible one is ignored.
func TestStart(t *testing.T) {
	lib := highstest.Library(t)
	m := hardModel()
	first, err := lib.Solve(context.Background(), m, highs.Options{TimeLimit: 100 * time.Millisecond})
	if err != nil || !first.Status.HasSolution() {
		t.Fatalf("first solve: %v, %v", first, err)
	}
	r, err := lib.Solve(context.Background(), m, highs.Options{TimeLimit: time.Microsecond, Start: first.Values})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Status.HasSolution() || r.Objective < first.Objective-tol {
		t.Fatalf("with the start: %v objective %v, want a solution at least as good as the start's %v",
			r.Status, r.Objective, first.Objective)
	}
	checkSolution(t, m, r)

	allIn := make([]float64, len(m.Columns)) // every item: over every capacity
	for j := range allIn {
		allIn[j] = 1
	}
	r, err = lib.Solve(context.Background(), m, highs.Options{TimeLimit: 20 * time.Millisecond, Start: allIn})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status.HasSolution() {
		checkSolution(t, m, r)
	} else if r.Status != highs.TimeLimitNoSolution {
		t.Fatalf("with an infeasible start: %v", r.Status)
	}
}

func TestCancel(t *testing.T) {
	lib := highstest.Library(t)
	m := hardModel()
	// Every item left out is a plan: HiGHS's first incumbent, so that a
	// solve stopped early has one however slow the machine (on a loaded
	// one, under the race detector, 200 ms did not always bring one; nor
	// did a cancel as soon as HiGHS reported an incumbent keep it).
	none := make([]float64, len(m.Columns))
	t.Run("during the solve", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		r, err := lib.Solve(ctx, m, highs.Options{Start: none})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != highs.InterruptedFeasible {
			t.Fatalf("status %v (HiGHS: %s), want %v", r.Status, highs.HighsModelStatusName(r.HighsStatus), highs.InterruptedFeasible)
		}
		checkSolution(t, m, r)
		// Not a timing assertion: the uninterrupted solve takes far longer
		// than this (see TestTimeLimit's model), so a solve that ignored the
		// cancellation would still be running.
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("solve returned %v after the cancellation", d)
		}
	})
	t.Run("by a deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		r, err := lib.Solve(ctx, m, highs.Options{Start: none})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != highs.InterruptedFeasible {
			t.Fatalf("status %v, want %v", r.Status, highs.InterruptedFeasible)
		}
		checkSolution(t, m, r)
	})
	t.Run("with two HiGHS threads", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		r, err := lib.Solve(ctx, m, highs.Options{Threads: 2, Start: none})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != highs.InterruptedFeasible {
			t.Fatalf("status %v, want %v", r.Status, highs.InterruptedFeasible)
		}
		checkSolution(t, m, r)
	})
	t.Run("before the solve", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r, err := lib.Solve(ctx, m, highs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != highs.InterruptedNoSolution || r.Values != nil {
			t.Fatalf("status %v values %v, want %v and no values", r.Status, r.Values, highs.InterruptedNoSolution)
		}
	})
	// HiGHS solves a MIP's LP relaxations on an inner instance that takes
	// no interrupt: a Solve cancelled there returns without HiGHS
	// (abandonAfter), and the run ends on its own. (The planner's
	// TestPlanInterruptedInTheRootLP meets a root LP that HiGHS would
	// otherwise finish, with a cancel that waited for all of it.)
	big := randomAssignment(200, 1).model()
	best, err := lib.Solve(context.Background(), big, highs.Options{})
	if err != nil || best.Status != highs.Optimal {
		t.Fatalf("the assignment solved to the end: %v, %v", best, err)
	}
	fromBest := highs.Options{Start: best.Values, Presolve: highs.PresolveOff}
	t.Run("inside a MIP's root LP", func(t *testing.T) {
		// Solve returns without HiGHS, interrupted; the solver waits for
		// the run left behind before it solves again.
		s, err := lib.NewSolver()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		r, err := s.Solve(ctx, big, fromBest)
		if err != nil {
			t.Fatal(err)
		}
		// With the optimum as its start: the start, or HiGHS's incumbent
		// (at least as good) where it stopped at a check in time.
		if r.Status != highs.InterruptedFeasible || r.Objective > best.Objective+1e-6 {
			t.Fatalf("status %v (HiGHS: %s) objective %v, want interrupted with the start's %v", r.Status, highs.HighsModelStatusName(r.HighsStatus), r.Objective, best.Objective)
		}
		checkSolution(t, big, r)
		k := randomKnapsack(12, 7)
		r, err = s.Solve(context.Background(), k.model(), exact)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != highs.Optimal || !near(r.Objective, k.bruteForce()) {
			t.Fatalf("the solve after it: %v objective %v, want optimal %v", r.Status, r.Objective, k.bruteForce())
		}
	})
	t.Run("inside a MIP's root LP, by a deadline", func(t *testing.T) {
		// The deadline is HiGHS's time limit too, which the inner
		// instance keeps: it stops there, interrupted.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		r, err := lib.Solve(ctx, big, fromBest)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != highs.InterruptedNoSolution && r.Status != highs.InterruptedFeasible {
			t.Fatalf("status %v (HiGHS: %s), want interrupted", r.Status, highs.HighsModelStatusName(r.HighsStatus))
		}
	})
	t.Run("closing a solver whose run is left behind", func(t *testing.T) {
		s, err := lib.NewSolver()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		if _, err := s.Solve(ctx, big, fromBest); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Solve(context.Background(), m, highs.Options{}); !errors.Is(err, highs.ErrClosed) {
			t.Fatalf("solve on the closed solver: %v, want ErrClosed", err)
		}
	})
	t.Run("a solver is reusable after an interrupt", func(t *testing.T) {
		s, err := lib.NewSolver()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		r, err := s.Solve(ctx, m, highs.Options{})
		if err != nil || r.Status != highs.InterruptedFeasible && r.Status != highs.InterruptedNoSolution {
			t.Fatalf("first solve: %v, %v; want interrupted", r, err)
		}
		k := randomKnapsack(12, 7)
		r, err = s.Solve(context.Background(), k.model(), exact)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != highs.Optimal || !near(r.Objective, k.bruteForce()) {
			t.Fatalf("second solve: %v objective %v, want optimal %v", r.Status, r.Objective, k.bruteForce())
		}
	})
}

// TestAbandonedRunTouchesNoSolver: a cancelled run left behind at once
// (abandonAfter 0) goes on while the call returns and the Solver is
// closed; the run must not read the Solver (Close clears its instance),
// which the race detector (CI runs this package with -race) and a nil
// dereference on the instance's thread would show.
func TestAbandonedRunTouchesNoSolver(t *testing.T) {
	lib := highstest.Library(t)
	defer highs.SetAbandonAfter(0)()
	big := randomAssignment(150, 3).model()
	for i := range 4 {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Duration(10+20*i)*time.Millisecond, cancel)
		r, err := lib.Solve(ctx, big, highs.Options{}) // closes its solver at once
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == highs.Optimal {
			t.Logf("run %d ended before the cancel", i)
		}
		s, err := lib.NewSolver()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel = context.WithCancel(context.Background())
		time.AfterFunc(time.Duration(10+20*i)*time.Millisecond, cancel)
		if _, err := s.Solve(ctx, big, highs.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Solve(context.Background(), big, highs.Options{}); !errors.Is(err, highs.ErrClosed) {
			t.Fatalf("a solve after Close: %v, want ErrClosed", err)
		}
	}
	// The runs left behind end on their own threads; a fresh solve is
	// not kept waiting by them.
	k := randomKnapsack(12, 7)
	r, err := lib.Solve(context.Background(), k.model(), exact)
	if err != nil || r.Status != highs.Optimal || !near(r.Objective, k.bruteForce()) {
		t.Fatalf("a solve after them: %v, %v", r, err)
	}
}

// TestAbandonedRunKeepsTheStart: a cancelled MIP solve that returns
// without HiGHS (abandonAfter 0) returns its Start where that is a point
// of the model, as a run stopped at a check would (the start is HiGHS's
// first incumbent), and no solution for a start that breaks a row.
//
// A cancel that comes before the solve starts returns no solution without
// running HiGHS (Solve's contract): on a loaded machine (go test -race
// beside a fuzzer) 20 ms passed before the solve began once, so a case
// that got that answer is run again with a later cancel.
func TestAbandonedRunKeepsTheStart(t *testing.T) {
	lib := highstest.Library(t)
	defer highs.SetAbandonAfter(0)()
	m := hardModel()
	none, all := make([]float64, len(m.Columns)), make([]float64, len(m.Columns))
	for j := range all {
		all[j] = 1 // every item: over every capacity
	}
	for _, c := range []struct {
		name  string
		start []float64
		want  highs.Status
	}{{"a plan", none, highs.InterruptedFeasible}, {"a start over the capacities", all, highs.InterruptedNoSolution}, {"no start", nil, highs.InterruptedNoSolution}} {
		var r *highs.Result
		for _, after := range []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond} {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(after, cancel)
			var err error
			if r, err = lib.Solve(ctx, m, highs.Options{Start: c.start}); err != nil {
				t.Fatal(err)
			}
			cancel()
			if r.Status != highs.InterruptedNoSolution || c.want == highs.InterruptedNoSolution {
				break
			}
		}
		switch {
		case r.Status == c.want && r.Status.HasSolution():
			checkSolution(t, m, r)
		case r.Status == c.want:
		case r.Status == highs.InterruptedFeasible && c.want == highs.InterruptedNoSolution:
			// HiGHS stopped at a check with an incumbent of its own
			// before the call returned.
			checkSolution(t, m, r)
		default:
			t.Errorf("%s: status %v, want %v", c.name, r.Status, c.want)
		}
	}
}

// TestConcurrent solves 16 different models at once, each on its own solver,
// and checks every optimum against brute force.
func TestConcurrent(t *testing.T) {
	lib := highstest.Library(t)
	const n = 16
	type job struct {
		model *highs.Model
		want  float64
	}
	jobs := make([]job, n)
	for i := range jobs {
		switch i % 3 {
		case 0:
			k := randomKnapsack(14, uint64(100+i))
			jobs[i] = job{k.model(), k.bruteForce()}
		case 1:
			a := randomAssignment(6, uint64(100+i))
			jobs[i] = job{a.model(), a.bruteForce()}
		default:
			s := randomSetCover(12, 10, uint64(100+i))
			jobs[i] = job{s.model(), s.bruteForce()}
		}
	}
	results := make([]*highs.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Go(func() {
			s, err := lib.NewSolver()
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			// Two solves per solver: the second must not see the first's
			// state. Each solver switches between one and two HiGHS threads
			// (resizing its own thread's HiGHS scheduler) while the others
			// solve.
			for round := range 2 {
				opt := exact
				opt.Threads = 1 + (i+round)%2
				results[i], errs[i] = s.Solve(context.Background(), jobs[i].model, opt)
				if errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			t.Errorf("job %d: %v", i, errs[i])
			continue
		}
		if results[i].Status != highs.Optimal || !near(results[i].Objective, j.want) {
			t.Errorf("job %d: %v objective %v, want optimal %v", i, results[i].Status, results[i].Objective, j.want)
		}
	}
}

func TestClosedSolver(t *testing.T) {
	lib := highstest.Library(t)
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := s.Solve(context.Background(), &highs.Model{}, highs.Options{}); err != highs.ErrClosed {
		t.Fatalf("Solve after Close: %v, want %v", err, highs.ErrClosed)
	}
}

func TestInvalidInput(t *testing.T) {
	lib := highstest.Library(t)
	inf := math.Inf(1)
	x := highs.Column{Name: "x", Upper: 1}
	tests := []struct {
		name  string
		model highs.Model
		opt   highs.Options
		want  string
	}{
		{"lower above upper", highs.Model{Columns: []highs.Column{{Name: "x", Lower: 2, Upper: 1}}},
			highs.Options{}, "highs: invalid model: column 0 (x): lower bound 2 above upper bound 1"},
		{"NaN cost", highs.Model{Columns: []highs.Column{{Cost: math.NaN(), Upper: 1}}},
			highs.Options{}, "highs: invalid model: column 0: cost NaN is not finite"},
		{"infinite cost", highs.Model{Columns: []highs.Column{{Cost: inf, Upper: 1}}},
			highs.Options{}, "highs: invalid model: column 0: cost +Inf is not finite"},
		{"lower bound +Inf", highs.Model{Columns: []highs.Column{{Lower: inf, Upper: inf}}},
			highs.Options{}, "highs: invalid model: column 0: lower bound is +Inf"},
		{"NaN offset", highs.Model{Offset: math.NaN()},
			highs.Options{}, "highs: invalid model: objective offset: NaN is not finite"},
		{"term out of range", highs.Model{Columns: []highs.Column{x},
			Rows: []highs.Row{{Name: "cap", Upper: 1, Terms: []highs.Term{{Col: 1, Coef: 1}}}}},
			highs.Options{}, "highs: invalid model: row 0 (cap): term 0: column 1 out of range [0, 1)"},
		{"negative column", highs.Model{Columns: []highs.Column{x},
			Rows: []highs.Row{{Upper: 1, Terms: []highs.Term{{Col: -1, Coef: 1}}}}},
			highs.Options{}, "highs: invalid model: row 0: term 0: column -1 out of range [0, 1)"},
		{"column twice in a row", highs.Model{Columns: []highs.Column{x},
			Rows: []highs.Row{{Upper: 1, Terms: []highs.Term{{Col: 0, Coef: 1}, {Col: 0, Coef: 2}}}}},
			highs.Options{}, "highs: invalid model: row 0: term 1: column 0 (x) appears twice"},
		{"NaN coefficient", highs.Model{Columns: []highs.Column{x},
			Rows: []highs.Row{{Upper: 1, Terms: []highs.Term{{Col: 0, Coef: math.NaN()}}}}},
			highs.Options{}, "highs: invalid model: row 0: term 0: coefficient NaN is not finite"},
		{"row bounds crossed", highs.Model{Rows: []highs.Row{{Name: "r", Lower: 1, Upper: 0}}},
			highs.Options{}, "highs: invalid model: row 0 (r): lower bound 1 above upper bound 0"},
		{"row upper −Inf", highs.Model{Rows: []highs.Row{{Lower: math.Inf(-1), Upper: math.Inf(-1)}}},
			highs.Options{}, "highs: invalid model: row 0: upper bound is -Inf"},
		{"negative time limit", highs.Model{}, highs.Options{TimeLimit: -time.Second},
			"highs: option TimeLimit: -1s is negative"},
		{"negative gap", highs.Model{}, highs.Options{RelativeGap: -0.1},
			"highs: option RelativeGap: -0.1 is not a finite non-negative number"},
		{"NaN absolute gap", highs.Model{}, highs.Options{AbsoluteGap: math.NaN()},
			"highs: option AbsoluteGap: NaN is not a finite non-negative number"},
		{"negative threads", highs.Model{}, highs.Options{Threads: -2},
			"highs: option Threads: -2 is out of range"},
		{"negative seed", highs.Model{}, highs.Options{Seed: -1},
			"highs: option Seed: -1 is out of range [0, 2147483647]"},
		{"bad presolve", highs.Model{}, highs.Options{Presolve: 7},
			"highs: option Presolve: 7 is not a Presolve value"},
		{"start of the wrong length", highs.Model{Columns: []highs.Column{x}}, highs.Options{Start: []float64{0, 1}},
			"highs: option Start: 2 values for 1 columns"},
		{"start with NaN", highs.Model{Columns: []highs.Column{x}}, highs.Options{Start: []float64{math.NaN()}},
			"highs: option Start: value 0 (x) is NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := lib.Solve(context.Background(), &tt.model, tt.opt)
			if err == nil {
				t.Fatalf("no error; result %+v", r)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n%s\nwant\n%s", err, tt.want)
			}
		})
	}
}

// TestOptionsReachHiGHS reads the options back from HiGHS after a solve with
// each Options value; every solve starts from HiGHS's defaults, so the cases
// run on one solver in sequence and nothing may carry over.
func TestOptionsReachHiGHS(t *testing.T) {
	lib := highstest.Library(t)
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defaults := `output_flag = false
threads = 1
random_seed = 0
presolve = choose
time_limit = +Inf
simplex_iteration_limit = 2147483647
mip_rel_gap = 0.0001
mip_abs_gap = 1e-06
mip_heuristic_run_feasibility_jump = true
solver = choose
run_crossover = on
ipm_optimality_tolerance = 1e-08
presolve_rule_off = 0
`
	ipm := strings.NewReplacer("solver = choose", "solver = ipm", "run_crossover = on", "run_crossover = off",
		"ipm_optimality_tolerance = 1e-08", "ipm_optimality_tolerance = 1e-10").Replace(defaults)
	tests := []struct {
		name string
		opt  highs.Options
		want string
	}{
		{"zero value", highs.Options{}, defaults},
		{"time limit", highs.Options{TimeLimit: 1500 * time.Millisecond},
			strings.Replace(defaults, "time_limit = +Inf", "time_limit = 1.5", 1)},
		{"gaps", highs.Options{RelativeGap: 1e-9, AbsoluteGap: 0.5},
			strings.NewReplacer("mip_rel_gap = 0.0001", "mip_rel_gap = 1e-09", "mip_abs_gap = 1e-06", "mip_abs_gap = 0.5").Replace(defaults)},
		{"threads and seed", highs.Options{Threads: 2, Seed: 77},
			strings.NewReplacer("threads = 1", "threads = 2", "random_seed = 0", "random_seed = 77").Replace(defaults)},
		// An LP's iteration limit is HiGHS's; a MIP's is the callback's
		// (TestIterationLimit).
		{"an LP's iteration limit", highs.Options{IterationLimit: 7},
			strings.Replace(defaults, "simplex_iteration_limit = 2147483647", "simplex_iteration_limit = 7", 1)},
		{"presolve off", highs.Options{Presolve: highs.PresolveOff},
			strings.Replace(defaults, "presolve = choose", "presolve = off", 1)},
		{"presolve on", highs.Options{Presolve: highs.PresolveOn},
			strings.Replace(defaults, "presolve = choose", "presolve = on", 1)},
		{"no feasibility jump", highs.Options{NoFeasibilityJump: true},
			strings.Replace(defaults, "mip_heuristic_run_feasibility_jump = true", "mip_heuristic_run_feasibility_jump = false", 1)},
		// Without presolve's removal of dependent equations, whose
		// postsolve can leave the duals infeasible.
		{"interior point", highs.Options{InteriorPoint: true},
			strings.Replace(ipm, "presolve_rule_off = 0", "presolve_rule_off = 1024", 1)},
		{"interior point without presolve", highs.Options{InteriorPoint: true, Presolve: highs.PresolveOff},
			strings.Replace(ipm, "presolve = choose", "presolve = off", 1)},
		{"back to the zero value", highs.Options{}, defaults},
	}
	k := randomKnapsack(10, 5)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := k.model()
			if tt.opt.InteriorPoint || tt.opt.IterationLimit > 0 {
				// An LP: its relaxation.
				for j := range m.Columns {
					m.Columns[j].Integer = false
				}
			}
			r, err := s.Solve(context.Background(), m, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			// (HiGHS can call the postsolved interior point of this LP's
			// presolved form unknown: planner.solveDuals solves such an LP
			// again without presolve.)
			if r.Status != highs.Optimal && !(tt.opt.InteriorPoint && r.Status == highs.SolverError) &&
				!(tt.opt.IterationLimit > 0 && (r.Status == highs.IterationLimitFeasible || r.Status == highs.IterationLimitNoSolution)) {
				t.Fatalf("status %v (HiGHS: %s)", r.Status, highs.HighsModelStatusName(r.HighsStatus))
			}
			got, err := s.OptionText()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("HiGHS options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLooseGap: gaps let HiGHS stop before proving optimality; the result
// honours one of them.
func TestLooseGap(t *testing.T) {
	lib := highstest.Library(t)
	r, err := lib.Solve(context.Background(), hardModel(), highs.Options{AbsoluteGap: 50, RelativeGap: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	checkSolution(t, hardModel(), r)
	abs := r.DualBound - r.Objective
	if r.Status != highs.Optimal || abs > 50*(1+1e-9) && r.Gap > 0.01*(1+1e-9) {
		t.Errorf("%v objective %v bound %v gap %v: within neither gap", r.Status, r.Objective, r.DualBound, r.Gap)
	}
}

// TestDeterministic: with one thread and a fixed seed (the zero Options),
// HiGHS returns the same solution every time, bit for bit, even where many
// solutions are optimal (unit-cost set cover), on fresh instances, on a
// reused Solver, and while other solves run.
func TestDeterministic(t *testing.T) {
	lib := highstest.Library(t)
	sc := randomSetCover(20, 16, 5)
	for k := range sc.cost {
		sc.cost[k] = 1 // ties everywhere
	}
	if n := sc.optimalCovers(); n < 2 {
		t.Fatalf("%d optimal covers: the test needs ties", n)
	}
	m := sc.model()
	first, err := lib.Solve(context.Background(), m, highs.Options{})
	if err != nil || first.Status != highs.Optimal {
		t.Fatalf("%v, %v", first, err)
	}
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	results := make([]*highs.Result, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range 4 { // concurrent fresh instances
		wg.Go(func() { results[i], errs[i] = lib.Solve(context.Background(), m, highs.Options{}) })
	}
	for i := 4; i < 8; i++ { // one reused Solver, meanwhile
		results[i], errs[i] = s.Solve(context.Background(), m, highs.Options{})
	}
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("solve %d: %v", i, errs[i])
		}
		if diff := cmp.Diff(first.Values, r.Values); diff != "" {
			t.Errorf("solve %d differs from the first (-first +this):\n%s", i, diff)
		}
	}
}

// TestProgress: a MIP solve with Options.Progress reports where it stands,
// and what it reports is consistent with the result: the bound never
// above the incumbent (maximizing: never below), the final objective
// between them, the elapsed time and node count never going back.
func TestProgress(t *testing.T) {
	lib := highstest.Library(t)
	k := randomKnapsack(40, 11)
	var seen []highs.Progress
	// Presolve off and a tight gap, so that the solve branches and HiGHS
	// reaches its MIP interrupt checks.
	res, err := lib.Solve(context.Background(), k.model(), highs.Options{Presolve: highs.PresolveOff, RelativeGap: 1e-9,
		Progress: func(p highs.Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != highs.Optimal {
		t.Fatalf("status %v", res.Status)
	}
	if len(seen) == 0 {
		t.Fatal("Progress was never called")
	}
	t.Logf("%d reports; first %+v; last %+v; optimum %v", len(seen), seen[0], seen[len(seen)-1], res.Objective)
	for i, p := range seen {
		if math.IsNaN(p.Bound) || p.Elapsed < 0 || p.Nodes < 0 {
			t.Errorf("progress %d: %+v", i, p)
		}
		if !math.IsInf(p.Incumbent, 0) && p.Bound < p.Incumbent-tol {
			t.Errorf("progress %d: maximizing, bound %v below incumbent %v", i, p.Bound, p.Incumbent)
		}
		if !math.IsInf(p.Bound, 0) && p.Bound < res.Objective-tol {
			t.Errorf("progress %d: bound %v below the optimum %v", i, p.Bound, res.Objective)
		}
		if i > 0 && (p.Elapsed < seen[i-1].Elapsed || p.Nodes < seen[i-1].Nodes) {
			t.Errorf("progress %d went back: %+v after %+v", i, p, seen[i-1])
		}
	}
}

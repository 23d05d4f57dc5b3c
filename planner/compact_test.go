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

// A chain u → v → w of two choices each, a pair column y per edge and
// choice pair, with u₀ and v₀ held at 0: u and v must take their second
// choices, which fixes every (u, v) pair and half of the (v, w) pairs;
// w stays free, and so do its choices' pairs with v₁.
func TestCompactPropagatesChoices(t *testing.T) {
	m := pairwiseModel([]int{2, 2, 2}, [][2]int{{0, 1}, {1, 2}})
	x := func(v, a int) int { return 2*v + a }
	m.Columns[x(0, 0)].Upper = 0
	m.Columns[x(1, 0)].Upper = 0
	c, ok := newCompactor(&m).compact(&m)
	if !ok {
		t.Fatal("compact: infeasible, want a model")
	}
	for col, want := range map[int]float64{x(0, 0): 0, x(0, 1): 1, x(1, 0): 0, x(1, 1): 1} {
		if got := c.fixed[col]; got != want {
			t.Errorf("column %d fixed at %v, want %v", col, got, want)
		}
	}
	for _, col := range []int{x(2, 0), x(2, 1)} {
		if !math.IsNaN(c.fixed[col]) {
			t.Errorf("w's column %d fixed at %v, want free", col, c.fixed[col])
		}
	}
	// Of the 4 (u, v) pairs only (u₁, v₁) is left, at 1; of (v, w), (v₁, w₀)
	// and (v₁, w₁) are free and the other two at 0.
	if got, want := len(c.cols), 4; got != want {
		t.Errorf("%d free columns, want %d (w₀, w₁, (v₁, w₀), (v₁, w₁))", got, want)
	}
	// Every choice held at 0 leaves no plan.
	m.Columns[x(2, 0)].Upper, m.Columns[x(2, 1)].Upper = 0, 0
	if _, ok := newCompactor(&m).compact(&m); ok {
		t.Error("compact of a node with no choice left: a model, want infeasible")
	}
}

// pairwiseModel is the marginalization model of nodes with the given
// choice counts and edges: x columns per node and choice (Σ x = 1), then y
// columns per edge and choice pair, each edge's y summing to either end's
// x. Costs are 0.
func pairwiseModel(choices []int, edges [][2]int) highs.Model {
	var m highs.Model
	first := make([]int, len(choices))
	for v, n := range choices {
		first[v] = len(m.Columns)
		row := highs.Row{Lower: 1, Upper: 1}
		for range n {
			row.Terms = append(row.Terms, highs.Term{Col: m.AddColumn(highs.Column{Upper: 1, Integer: true}), Coef: 1})
		}
		m.AddRow(row)
	}
	for _, e := range edges {
		u, v := e[0], e[1]
		y := len(m.Columns)
		for range choices[u] * choices[v] {
			m.AddColumn(highs.Column{Upper: 1})
		}
		for a := range choices[u] {
			row := highs.Row{Terms: []highs.Term{{Col: first[u] + a, Coef: -1}}}
			for b := range choices[v] {
				row.Terms = append(row.Terms, highs.Term{Col: y + a*choices[v] + b, Coef: 1})
			}
			m.AddRow(row)
		}
		for b := range choices[v] {
			row := highs.Row{Terms: []highs.Term{{Col: first[v] + b, Coef: -1}}}
			for a := range choices[u] {
				row.Terms = append(row.Terms, highs.Term{Col: y + a*choices[v] + b, Coef: 1})
			}
			m.AddRow(row)
		}
	}
	return m
}

// The compacted model, solved and expanded, has the whole model's
// optimum, and says infeasible exactly where the whole model is: random
// marginalization models of up to 8 nodes with random costs, a budget row
// of real coefficients (which propagation leaves alone), and random
// columns held at 0, some models with a bound that is not a whole number
// (then nothing is propagated). The compactor is made for the model
// before its columns are held, and used before.
func TestCompactKeepsTheOptimum(t *testing.T) {
	lib := highstest.Library(t)
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	opt := highs.Options{Threads: 1, RelativeGap: 1e-9, AbsoluteGap: 1e-9}
	rng := rand.New(rand.NewPCG(7, 11))
	var feasible, infeasible, compactedInfeasible int
	for trial := range 300 {
		n := 2 + rng.IntN(7)
		choices := make([]int, n)
		for v := range choices {
			choices[v] = 1 + rng.IntN(4)
		}
		var edges [][2]int
		for v := 1; v < n; v++ {
			for range 1 + rng.IntN(2) {
				edges = append(edges, [2]int{rng.IntN(v), v})
			}
		}
		m := pairwiseModel(choices, edges)
		budget := highs.Row{Lower: math.Inf(-1), Upper: 3 + 4*rng.Float64()}
		var held []int
		for j := range m.Columns {
			m.Columns[j].Cost = math.Round(100*rng.Float64()) / 8
			if rng.IntN(4) == 0 {
				held = append(held, j)
			}
			if rng.IntN(3) == 0 {
				budget.Terms = append(budget.Terms, highs.Term{Col: j, Coef: 0.5 + rng.Float64()})
			}
		}
		m.AddRow(budget)
		// The compactor is made for the model before the holds, as a
		// re-solve worker's is for the core before a query's.
		base := m
		base.Columns = slices.Clone(m.Columns)
		for _, j := range held {
			m.Columns[j].Upper = 0
		}
		if trial%10 == 0 {
			m.Columns[rng.IntN(len(m.Columns))].Upper = 0.5
		}
		whole, err := s.Solve(ctx, &m, opt)
		if err != nil {
			t.Fatal(err)
		}
		// One compactor serves a worker's queries: it first compacts the
		// model with more columns held at 0 (often infeasible, so that it
		// stops early), and must then give what a fresh one made for the
		// held model itself gives.
		reused := newCompactor(&base)
		other := m
		other.Columns = slices.Clone(m.Columns)
		for j := range other.Columns {
			if rng.IntN(2) == 0 {
				other.Columns[j].Upper = 0
			}
		}
		reused.compact(&other)
		fresh, freshOK := newCompactor(&m).compact(&m)
		var freshFixed []float64
		if freshOK {
			freshFixed = slices.Clone(fresh.fixed)
		}
		c, ok := reused.compact(&m)
		if ok != freshOK || ok && !slices.EqualFunc(c.fixed, freshFixed, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Fatalf("trial %d: a compactor used before gives %v, a fresh one %v", trial, ok, freshOK)
		}
		if !ok {
			compactedInfeasible++
			if whole.Status != highs.Infeasible {
				t.Fatalf("trial %d: compact says infeasible, HiGHS on the whole model %v", trial, whole.Status)
			}
			continue
		}
		part, err := s.Solve(ctx, &c.model, opt)
		if err != nil {
			t.Fatal(err)
		}
		if whole.Status == highs.Infeasible {
			infeasible++
			if part.Status != highs.Infeasible {
				t.Fatalf("trial %d: whole model infeasible, compacted %v", trial, part.Status)
			}
			continue
		}
		if whole.Status != highs.Optimal || part.Status != highs.Optimal {
			t.Fatalf("trial %d: whole %v, compacted %v", trial, whole.Status, part.Status)
		}
		feasible++
		if math.Abs(whole.Objective-part.Objective) > 1e-9 {
			t.Fatalf("trial %d: whole model's optimum %v, compacted %v", trial, whole.Objective, part.Objective)
		}
		x := c.expand(part.Values)
		if got := m.Objective(x); math.Abs(got-whole.Objective) > 1e-9 {
			t.Fatalf("trial %d: expanded point costs %v, want %v", trial, got, whole.Objective)
		}
		if !feasibleStart(&m, x) {
			t.Fatalf("trial %d: expanded point is not feasible in the whole model", trial)
		}
		if p := c.point(x); p == nil || m.Objective(c.expand(p)) != m.Objective(x) {
			t.Fatalf("trial %d: point of the expanded point does not round-trip", trial)
		}
	}
	t.Logf("%d feasible, %d infeasible by HiGHS, %d by propagation", feasible, infeasible, compactedInfeasible)
	if feasible < 100 || compactedInfeasible == 0 {
		t.Errorf("the trials cover too little: %d feasible, %d infeasible by propagation", feasible, compactedInfeasible)
	}
}

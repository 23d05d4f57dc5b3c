package planner

import (
	"math"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
)

// TestFeasibleStart: a start skips HiGHS's feasibility jump only where it
// is a plan of the model solved: every bound and row holds, a budget up to
// its tolerance.
func TestFeasibleStart(t *testing.T) {
	// x[v,a], x[v,b] with x[v,a] + x[v,b] = 1, and a budget 4·x[v,a] + 9·x[v,b] ≤ 8.
	m := highs.Model{
		Columns: []highs.Column{highs.Binary("x[v,a]", 1), highs.Binary("x[v,b]", 2)},
		Rows: []highs.Row{
			{Lower: 1, Upper: 1, Terms: []highs.Term{{Col: 0, Coef: 1}, {Col: 1, Coef: 1}}},
			{Lower: math.Inf(-1), Upper: 8, Terms: []highs.Term{{Col: 0, Coef: 4}, {Col: 1, Coef: 9}}},
		},
	}
	for _, tt := range []struct {
		name string
		x    []float64
		want bool
	}{
		{"v = a", []float64{1, 0}, true},
		{"v = b breaks the budget", []float64{0, 1}, false},
		{"no choice", []float64{0, 0}, false},
		{"both", []float64{1, 1}, false},
	} {
		if got := feasibleStart(&m, tt.x); got != tt.want {
			t.Errorf("%s: feasibleStart(%v) = %v, want %v", tt.name, tt.x, got, tt.want)
		}
	}
	m.Columns[0].Upper = 0 // x[v,a] fixed out, as a query does
	if feasibleStart(&m, []float64{1, 0}) {
		t.Error("x[v,a] = 1 with its upper bound 0: feasibleStart = true")
	}
	m.Columns[0].Upper = 1
	m.Rows[1].Upper = 4 * (1 - 1e-12) // within the budget's tolerance
	if !feasibleStart(&m, []float64{1, 0}) {
		t.Error("a budget met within its tolerance: feasibleStart = false")
	}
}

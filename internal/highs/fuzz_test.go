package highs_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// fuzzModel decodes bytes into a small pure-integer model (1–4 columns with
// bounds inside [-2, 4], 0–3 rows with small integer coefficients), or, when
// the first byte asks for it, a model broken in one of the ways Validate must
// name. Missing bytes read as zero.
func fuzzModel(data []byte) (m *highs.Model, broken bool) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	head := next()
	m = &highs.Model{Maximize: head&1 != 0}
	n := 1 + next()%4
	for range n {
		lo := float64(next()%5 - 2)
		m.AddColumn(highs.Column{
			Cost:    float64(int8(next())) / 4,
			Lower:   lo,
			Upper:   lo + float64(next()%3),
			Integer: true,
		})
	}
	rows := next() % 4
	for range rows {
		r := highs.Row{Lower: math.Inf(-1), Upper: math.Inf(1)}
		mask := next()
		for j := range n {
			if mask&(1<<j) != 0 {
				r.Terms = append(r.Terms, highs.Term{Col: j, Coef: float64(next()%7 - 3)})
			}
		}
		if b := next(); b&1 != 0 {
			r.Lower = float64(b>>1%9 - 4)
		}
		if b := next(); b&1 != 0 {
			r.Upper = float64(b>>1%9 - 4)
		}
		if r.Lower > r.Upper {
			r.Lower, r.Upper = r.Upper, r.Lower
		}
		m.AddRow(r)
	}
	switch head >> 1 % 8 {
	case 1:
		m.Columns[0].Cost = math.NaN()
	case 2:
		m.Columns[0].Lower, m.Columns[0].Upper = 3, 1
	case 3:
		m.AddRow(highs.Row{Upper: 1, Terms: []highs.Term{{Col: n, Coef: 1}}})
	case 4:
		m.AddRow(highs.Row{Upper: 1, Terms: []highs.Term{{Col: 0, Coef: 1}, {Col: 0, Coef: 1}}})
	default:
		return m, false
	}
	return m, true
}

// enumerate returns the optimum of a bounded pure-integer model over every
// integer point, and whether any point is feasible.
func enumerate(m *highs.Model) (best float64, feasible bool) {
	x := make([]float64, len(m.Columns))
	var walk func(j int)
	walk = func(j int) {
		if j == len(x) {
			for i, r := range m.Rows {
				if a := m.Activity(i, x); a < r.Lower || a > r.Upper {
					return
				}
			}
			v := m.Objective(x)
			if !feasible || m.Maximize && v > best || !m.Maximize && v < best {
				best, feasible = v, true
			}
			return
		}
		for v := m.Columns[j].Lower; v <= m.Columns[j].Upper; v++ {
			x[j] = v
			walk(j + 1)
		}
	}
	walk(0)
	return best, feasible
}

// FuzzSolve checks HiGHS, through the binding, against enumeration on small
// integer models, and that broken models are refused with a *ModelError
// rather than a panic or a crash in HiGHS.
func FuzzSolve(f *testing.F) {
	lib := highstest.Library(f)
	f.Add([]byte{1, 3, 2, 5, 2, 0, 9, 1, 2, 7, 1, 7, 5, 9, 9, 3})
	f.Add([]byte{0, 2, 4, 250, 2, 1, 6, 1, 1, 3, 11, 0})
	f.Add([]byte{2, 0, 0, 0, 0})
	f.Add([]byte{4, 1, 1, 1, 1})
	f.Add([]byte{6, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{8, 0, 0, 0, 0})
	f.Add([]byte{1, 0, 0, 0, 0, 1, 1, 3, 3, 3})
	f.Add([]byte{0, 3, 4, 8, 2, 4, 128, 1, 4, 0, 3, 15, 5, 6, 7, 1, 255, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, broken := fuzzModel(data)
		r, err := lib.Solve(context.Background(), m, highs.Options{RelativeGap: 1e-9, AbsoluteGap: 1e-9})
		if broken {
			var me *highs.ModelError
			if !errors.As(err, &me) {
				t.Fatalf("broken model: err %v (%T), want a *ModelError", err, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		best, feasible := enumerate(m)
		switch {
		case !feasible && r.Status != highs.Infeasible:
			t.Fatalf("no integer point is feasible; HiGHS says %v", r.Status)
		case feasible && r.Status != highs.Optimal:
			t.Fatalf("optimum %v by enumeration; HiGHS says %v", best, r.Status)
		case feasible && math.Abs(r.Objective-best) > 1e-6:
			t.Fatalf("objective %v, enumeration %v", r.Objective, best)
		}
	})
}

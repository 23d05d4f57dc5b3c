package highs_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/google/go-cmp/cmp"
)

// subsystem is the LP made of only the bounds a conflict names (columns keep
// their terms; a bound not named is dropped), with a zero objective, minus
// the element numbered drop (rows first, then columns; -1 drops nothing).
func subsystem(m *highs.Model, c *highs.Conflict, drop int) *highs.Model {
	inf := math.Inf(1)
	sub := &highs.Model{}
	for range m.Columns {
		sub.AddColumn(highs.Column{Lower: -inf, Upper: inf})
	}
	keep := func(lo, hi float64, side highs.Side) (float64, float64) {
		switch side {
		case highs.SideLower:
			return lo, inf
		case highs.SideUpper:
			return -inf, hi
		case highs.SideBoth:
			return lo, hi
		}
		return -inf, inf
	}
	k := 0
	for _, b := range c.Rows {
		if k != drop {
			r := m.Rows[b.Index]
			lo, hi := keep(r.Lower, r.Upper, b.Side)
			sub.AddRow(highs.Row{Lower: lo, Upper: hi, Terms: r.Terms})
		}
		k++
	}
	for _, b := range c.Columns {
		if k != drop {
			col := m.Columns[b.Index]
			sub.Columns[b.Index].Lower, sub.Columns[b.Index].Upper = keep(col.Lower, col.Upper, b.Side)
		}
		k++
	}
	return sub
}

// checkIrreducible checks a conflict by its definition: the bounds it names
// admit no point, and dropping any one of them admits one.
func checkIrreducible(t *testing.T, s *highs.Solver, m *highs.Model, c *highs.Conflict) {
	t.Helper()
	status := func(drop int) highs.Status {
		r, err := s.Solve(context.Background(), subsystem(m, c, drop), highs.Options{Presolve: highs.PresolveOff})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
	if st := status(-1); st != highs.Infeasible {
		t.Errorf("the conflict's bounds alone are %v, want infeasible", st)
	}
	// A free element (a column listed with neither bound) constrains
	// nothing, so only the bounded ones must each be needed.
	elements := append(append([]highs.ConflictBound(nil), c.Rows...), c.Columns...)
	for drop, e := range elements {
		if e.Side == highs.SideFree {
			continue
		}
		if st := status(drop); st != highs.Optimal {
			t.Errorf("without element %d the conflict is %v, want feasible (optimal at 0)", drop, st)
		}
	}
}

func conflictText(c *highs.Conflict) string {
	s := ""
	for _, b := range c.Rows {
		s += fmt.Sprintf("row %d %v; ", b.Index, b.Side)
	}
	for _, b := range c.Columns {
		s += fmt.Sprintf("column %d %v; ", b.Index, b.Side)
	}
	return s
}

func TestConflict(t *testing.T) {
	lib := highstest.Library(t)
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inf := math.Inf(1)
	x, y, z := highs.Column{Name: "x", Cost: 1, Upper: inf}, highs.Column{Name: "y", Cost: 1, Upper: inf}, highs.Column{Name: "z", Cost: 1, Upper: inf}
	tests := []struct {
		name  string
		model *highs.Model
		want  string // the conflict; "" for ErrNoConflict
	}{
		{
			name: "x + y ≥ 3 against x ≤ 1 and y ≤ 1; z ≥ 0 is not part of it",
			model: &highs.Model{Columns: []highs.Column{x, y, z}, Rows: []highs.Row{
				{Lower: 3, Upper: inf, Terms: []highs.Term{{Col: 0, Coef: 1}, {Col: 1, Coef: 1}}},
				{Lower: -inf, Upper: 1, Terms: []highs.Term{{Col: 0, Coef: 1}}},
				{Lower: -inf, Upper: 1, Terms: []highs.Term{{Col: 1, Coef: 1}}},
				{Lower: 0, Upper: inf, Terms: []highs.Term{{Col: 2, Coef: 1}}},
			}},
			want: "row 0 lower; row 1 upper; row 2 upper; column 0 free; column 1 free; ",
		},
		{
			name: "binaries x + y ≥ 3: the relaxation's column bounds conflict with the row",
			model: &highs.Model{Columns: []highs.Column{highs.Binary("x", 1), highs.Binary("y", 1), highs.Binary("z", 1)}, Rows: []highs.Row{
				{Lower: 3, Upper: inf, Terms: []highs.Term{{Col: 0, Coef: 1}, {Col: 1, Coef: 1}}},
				{Lower: 0, Upper: 1, Terms: []highs.Term{{Col: 2, Coef: 1}}},
			}},
			want: "row 0 lower; column 0 upper; column 1 upper; ",
		},
		{
			name: "feasible",
			model: &highs.Model{Columns: []highs.Column{highs.Binary("x", 1)}, Rows: []highs.Row{
				{Lower: 1, Upper: 1, Terms: []highs.Term{{Col: 0, Coef: 1}}},
			}},
		},
		{
			name: "infeasible by integrality alone: 2x = 1",
			model: &highs.Model{Columns: []highs.Column{{Name: "x", Upper: 5, Integer: true}}, Rows: []highs.Row{
				{Lower: 1, Upper: 1, Terms: []highs.Term{{Col: 0, Coef: 2}}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := s.Conflict(context.Background(), tt.model, highs.Options{})
			if tt.want == "" {
				if !errors.Is(err, highs.ErrNoConflict) {
					t.Fatalf("Conflict: %v, %v; want ErrNoConflict", c, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, conflictText(c)); diff != "" {
				t.Errorf("conflict (-want +got):\n%s", diff)
			}
			checkIrreducible(t, s, tt.model, c)
		})
	}
}

// TestConflictRandom checks every conflict found in random small LPs by its
// definition, and that Conflict reports none exactly when the LP is feasible.
func TestConflictRandom(t *testing.T) {
	lib := highstest.Library(t)
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(9, 9))
	inf := math.Inf(1)
	infeasible := 0
	for trial := range 60 {
		m := &highs.Model{}
		n := 2 + rng.IntN(3)
		for range n {
			lo := float64(rng.IntN(5) - 2)
			m.AddColumn(highs.Column{Cost: float64(rng.IntN(5) - 2), Lower: lo, Upper: lo + float64(rng.IntN(4))})
		}
		for range 2 + rng.IntN(4) {
			r := highs.Row{Lower: -inf, Upper: inf}
			for j := range n {
				if rng.IntN(2) == 0 {
					r.Terms = append(r.Terms, highs.Term{Col: j, Coef: float64(rng.IntN(7) - 3)})
				}
			}
			b := float64(rng.IntN(13) - 6)
			switch rng.IntN(3) {
			case 0:
				r.Lower = b
			case 1:
				r.Upper = b
			default:
				r.Lower, r.Upper = b, b+float64(rng.IntN(3))
			}
			m.AddRow(r)
		}
		t.Run(fmt.Sprint("trial ", trial), func(t *testing.T) {
			res, err := s.Solve(context.Background(), m, highs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := s.Conflict(context.Background(), m, highs.Options{})
			if res.Status != highs.Infeasible {
				if !errors.Is(err, highs.ErrNoConflict) {
					t.Fatalf("%v LP: Conflict %v, %v; want ErrNoConflict", res.Status, c, err)
				}
				return
			}
			infeasible++
			if err != nil {
				t.Fatal(err)
			}
			checkIrreducible(t, s, m, c)
		})
	}
	if infeasible < 10 {
		t.Errorf("only %d of 60 random LPs were infeasible: the test checks too few conflicts", infeasible)
	}
}

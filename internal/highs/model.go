package highs

import (
	"fmt"
	"math"
)

// A Model is a mixed-integer linear program:
//
//	minimize (or maximize)  Offset + Σ_j Columns[j].Cost · x_j
//	subject to              Rows[i].Lower ≤ Σ_t Rows[i].Terms[t].Coef · x_{Terms[t].Col} ≤ Rows[i].Upper
//	                        Columns[j].Lower ≤ x_j ≤ Columns[j].Upper
//	                        x_j integer where Columns[j].Integer
//
// Infinite bounds are math.Inf(±1). A Model is plain data: build it with
// AddColumn and AddRow or by filling the slices; Solve validates it and never
// changes it.
type Model struct {
	Maximize bool
	Offset   float64
	Columns  []Column
	Rows     []Row
}

// A Column is one variable.
type Column struct {
	Name         string // for error messages only; may be empty
	Cost         float64
	Lower, Upper float64
	Integer      bool
}

// A Row is one linear constraint over the columns. Each column appears at most
// once in Terms.
type Row struct {
	Name         string // for error messages only; may be empty
	Lower, Upper float64
	Terms        []Term
}

// A Term is one coefficient of a row.
type Term struct {
	Col  int
	Coef float64
}

// AddColumn appends a column and returns its index.
func (m *Model) AddColumn(c Column) int {
	m.Columns = append(m.Columns, c)
	return len(m.Columns) - 1
}

// AddRow appends a row and returns its index.
func (m *Model) AddRow(r Row) int {
	m.Rows = append(m.Rows, r)
	return len(m.Rows) - 1
}

// Binary returns a 0/1 integer column with the given cost.
func Binary(name string, cost float64) Column {
	return Column{Name: name, Cost: cost, Lower: 0, Upper: 1, Integer: true}
}

// IsMIP reports whether any column is integer.
func (m *Model) IsMIP() bool {
	for _, c := range m.Columns {
		if c.Integer {
			return true
		}
	}
	return false
}

// NumNonzeros is the number of terms over all rows.
func (m *Model) NumNonzeros() int {
	n := 0
	for _, r := range m.Rows {
		n += len(r.Terms)
	}
	return n
}

// Objective evaluates the objective at x (len(x) == len(m.Columns)); m must
// be valid (Validate).
func (m *Model) Objective(x []float64) float64 {
	v := m.Offset
	for j, c := range m.Columns {
		v += c.Cost * x[j]
	}
	return v
}

// holds reports whether x is a point of m: every column within its bounds
// (integral where it is an integer), every row within its own, up to
// HiGHS's default feasibility tolerance, 1e-7, relative to the bound where
// that is larger than 1.
func (m *Model) holds(x []float64) bool {
	if len(x) != len(m.Columns) {
		return false
	}
	within := func(v, lo, hi float64) bool {
		return v >= lo-1e-7*math.Max(1, math.Abs(lo)) && v <= hi+1e-7*math.Max(1, math.Abs(hi))
	}
	for j, c := range m.Columns {
		if !within(x[j], c.Lower, c.Upper) || c.Integer && math.Abs(x[j]-math.Round(x[j])) > 1e-7 {
			return false
		}
	}
	for i, r := range m.Rows {
		if !within(m.Activity(i, x), r.Lower, r.Upper) {
			return false
		}
	}
	return true
}

// Activity evaluates row i at x; m must be valid (Validate).
func (m *Model) Activity(i int, x []float64) float64 {
	v := 0.0
	for _, t := range m.Rows[i].Terms {
		v += t.Coef * x[t.Col]
	}
	return v
}

// A ModelError is an invalid model: Where names the column, row or term, What
// says what is wrong with it.
type ModelError struct {
	Where string
	What  string
}

func (e *ModelError) Error() string { return "highs: invalid model: " + e.Where + ": " + e.What }

func colWhere(j int, c Column) string {
	if c.Name != "" {
		return fmt.Sprintf("column %d (%s)", j, c.Name)
	}
	return fmt.Sprintf("column %d", j)
}

func rowWhere(i int, r Row) string {
	if r.Name != "" {
		return fmt.Sprintf("row %d (%s)", i, r.Name)
	}
	return fmt.Sprintf("row %d", i)
}

// Validate checks what HiGHS would reject or misread: NaN or infinite costs,
// NaN bounds, a lower bound above the upper, a term naming a column that does
// not exist or one already in the row, a NaN or infinite coefficient, and sizes
// beyond the C API's 32-bit indices.
func (m *Model) Validate() error {
	if math.IsNaN(m.Offset) || math.IsInf(m.Offset, 0) {
		return &ModelError{"objective offset", fmt.Sprintf("%v is not finite", m.Offset)}
	}
	if len(m.Columns) > math.MaxInt32 || len(m.Rows) > math.MaxInt32 || m.NumNonzeros() > math.MaxInt32 {
		return &ModelError{"model", fmt.Sprintf("%d columns, %d rows, %d nonzeros: more than HiGHS's 32-bit indices hold",
			len(m.Columns), len(m.Rows), m.NumNonzeros())}
	}
	for j, c := range m.Columns {
		if err := checkBounds(c.Lower, c.Upper); err != "" {
			return &ModelError{colWhere(j, c), err}
		}
		if math.IsNaN(c.Cost) || math.IsInf(c.Cost, 0) {
			return &ModelError{colWhere(j, c), fmt.Sprintf("cost %v is not finite", c.Cost)}
		}
	}
	seen := make([]int, len(m.Columns)) // seen[j] == i+1: column j is already in row i
	for i, r := range m.Rows {
		if err := checkBounds(r.Lower, r.Upper); err != "" {
			return &ModelError{rowWhere(i, r), err}
		}
		for t, term := range r.Terms {
			where := termWhere{i, r, t}
			if term.Col < 0 || term.Col >= len(m.Columns) {
				return &ModelError{where.String(), fmt.Sprintf("column %d out of range [0, %d)", term.Col, len(m.Columns))}
			}
			if seen[term.Col] == i+1 {
				return &ModelError{where.String(), fmt.Sprintf("%s appears twice", colWhere(term.Col, m.Columns[term.Col]))}
			}
			seen[term.Col] = i + 1
			if math.IsNaN(term.Coef) || math.IsInf(term.Coef, 0) {
				return &ModelError{where.String(), fmt.Sprintf("coefficient %v is not finite", term.Coef)}
			}
		}
	}
	return nil
}

// termWhere names a term; it is formatted only for an error.
type termWhere struct {
	i int
	r Row
	t int
}

func (w termWhere) String() string { return fmt.Sprintf("%s: term %d", rowWhere(w.i, w.r), w.t) }

func checkBounds(lo, hi float64) string {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi):
		return fmt.Sprintf("bounds [%v, %v] contain NaN", lo, hi)
	case lo > hi:
		return fmt.Sprintf("lower bound %v above upper bound %v", lo, hi)
	case math.IsInf(lo, 1):
		return "lower bound is +Inf"
	case math.IsInf(hi, -1):
		return "upper bound is -Inf"
	}
	return ""
}

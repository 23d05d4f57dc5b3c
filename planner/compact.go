package planner

import (
	"math"

	"github.com/cklplan/cklplan/internal/highs"
)

// The MILP re-solves of the regrets, made small.
//
// A regret's MILP re-solve is the core's MILP with the query's other
// choices, and the columns that reduced-cost fixing rules out, held at 0
// (regrets.worker). Most of what is left is implied: a node with one
// choice left takes it, and an edge whose end is held at 0 has that end's
// pairs at 0 too. HiGHS finds these in its presolve, on the whole core,
// every time. On cklplan gen dag --invocations 300 --exec-scale 100 (a
// core of 268 nodes, 14,160 columns, whose LP relaxation is 0.002 % short
// of integral, so that 2,697 of its 2,709 queries end in a MILP), that
// presolve took about 20 of the 30 ms of each MILP, and 5,600 columns
// were held at 0 before it. compactor finds the implications first, by
// bound propagation over the rows whose terms are all ±1 (the core's
// choice, marginalization and fan-out rows; integers throughout, so
// exactly), and hands HiGHS only the columns left free (a median of
// 1,650 there): 9 ms a MILP, and every regret of that graph in half the
// time (docs/benchmarks.md).

// A compactor compacts the models of one row set, each with its own
// column bounds: one per worker, its index of the rows built once.
type compactor struct {
	// unit marks the rows whose coefficients are all ±1 and whose bounds
	// are whole numbers (or infinite); rowsOf[at[j]:at[j+1]] lists column
	// j's unit rows.
	unit   []bool
	at     []int
	rowsOf []int32
	// Scratch, and the compacted model, reused by each call.
	lower, upper []float64
	queued       []bool
	queue        []int32
	newCol       []int32
	out          compacted
}

// A compacted model is a model with its fixed columns taken out.
type compacted struct {
	model highs.Model
	// cols maps the compacted model's columns to the model's; fixed holds
	// every column's value where it is fixed (NaN where it is free).
	cols  []int
	fixed []float64
	terms []highs.Term // the rows' terms, cut from one array
}

// newCompactor indexes m's rows.
func newCompactor(m *highs.Model) *compactor {
	n := len(m.Columns)
	c := &compactor{unit: make([]bool, len(m.Rows)), at: make([]int, n+1),
		lower: make([]float64, n), upper: make([]float64, n), queued: make([]bool, len(m.Rows)), newCol: make([]int32, n)}
	for i, r := range m.Rows {
		c.unit[i] = whole(r.Lower) && whole(r.Upper)
		for _, t := range r.Terms {
			if t.Coef != 1 && t.Coef != -1 {
				c.unit[i] = false
				break
			}
		}
		if c.unit[i] {
			for _, t := range r.Terms {
				c.at[t.Col+1]++
			}
		}
	}
	for j := range n {
		c.at[j+1] += c.at[j]
	}
	c.rowsOf = make([]int32, c.at[n])
	next := append([]int(nil), c.at[:n]...)
	for i, r := range m.Rows {
		if c.unit[i] {
			for _, t := range r.Terms {
				c.rowsOf[next[t.Col]] = int32(i)
				next[t.Col]++
			}
		}
	}
	return c
}

// compact propagates m's column bounds over its unit rows and returns the
// model of the columns left free, with the fixed ones' cost in its offset
// and their activity in its rows' bounds; false when the bounds leave no
// solution. m has the rows c was made for; its columns' bounds may differ.
// Where a column's bounds are not whole numbers, nothing is propagated and
// only the fixed columns are taken out. The result is valid until the next
// call.
func (c *compactor) compact(m *highs.Model) (*compacted, bool) {
	n := len(m.Columns)
	lower, upper := c.lower, c.upper
	propagate := true
	for j, col := range m.Columns {
		lower[j], upper[j] = col.Lower, col.Upper
		if !whole(col.Lower) || !whole(col.Upper) {
			propagate = false
		}
	}
	queue := c.queue[:0]
	if propagate {
		for i := range m.Rows {
			if c.unit[i] {
				c.queued[i] = true
				queue = append(queue, int32(i))
			}
		}
	}
	// Every bound of the unit rows and their columns is a whole number
	// (or infinite) and every coefficient ±1, so the activities and
	// implied bounds below are whole numbers, exactly. A column's bounds
	// only narrow, by at least 1 each time unless one is infinite.
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		c.queued[i] = false
		r := &m.Rows[i]
		// The row's least and greatest activity over the bounds, with the
		// count of infinite contributions to each.
		var lo, hi float64
		var loInf, hiInf int
		for _, t := range r.Terms {
			l, u := lower[t.Col], upper[t.Col]
			if t.Coef < 0 {
				l, u = -u, -l
			}
			if math.IsInf(l, -1) {
				loInf++
			} else {
				lo += l
			}
			if math.IsInf(u, 1) {
				hiInf++
			} else {
				hi += u
			}
		}
		if (loInf == 0 && lo > r.Upper) || (hiInf == 0 && hi < r.Lower) {
			c.clearQueue(queue)
			return nil, false
		}
		for _, t := range r.Terms {
			j := t.Col
			l, u := lower[j], upper[j]
			if l == u {
				continue
			}
			// The term's bounds (coef·x) implied by the others'.
			tl, tu := l, u
			if t.Coef < 0 {
				tl, tu = -u, -l
			}
			newTu, newTl := math.Inf(1), math.Inf(-1)
			if !math.IsInf(r.Upper, 1) {
				if math.IsInf(tl, -1) {
					if loInf == 1 {
						newTu = r.Upper - lo
					}
				} else if loInf == 0 {
					newTu = r.Upper - (lo - tl)
				}
			}
			if !math.IsInf(r.Lower, -1) {
				if math.IsInf(tu, 1) {
					if hiInf == 1 {
						newTl = r.Lower - hi
					}
				} else if hiInf == 0 {
					newTl = r.Lower - (hi - tu)
				}
			}
			nl, nu := math.Max(l, newTlFor(t.Coef, newTu, newTl)), math.Min(u, newTuFor(t.Coef, newTu, newTl))
			if nl > nu {
				c.clearQueue(queue)
				return nil, false
			}
			if nl == l && nu == u {
				continue
			}
			lower[j], upper[j] = nl, nu
			for _, k := range c.rowsOf[c.at[j]:c.at[j+1]] {
				if !c.queued[k] {
					c.queued[k] = true
					queue = append(queue, k)
				}
			}
		}
	}
	c.queue = queue
	out := &c.out
	out.model.Offset = m.Offset
	out.model.Columns, out.model.Rows = out.model.Columns[:0], out.model.Rows[:0]
	out.cols, out.fixed, out.terms = out.cols[:0], grow(out.fixed, n), out.terms[:0]
	for j, col := range m.Columns {
		if lower[j] == upper[j] {
			out.fixed[j] = lower[j]
			out.model.Offset += col.Cost * lower[j]
			c.newCol[j] = -1
			continue
		}
		out.fixed[j] = math.NaN()
		c.newCol[j] = int32(len(out.cols))
		out.cols = append(out.cols, j)
		out.model.Columns = append(out.model.Columns, highs.Column{Cost: col.Cost, Lower: lower[j], Upper: upper[j], Integer: col.Integer})
	}
	for _, r := range m.Rows {
		var constant float64
		from := len(out.terms)
		for _, t := range r.Terms {
			if nc := c.newCol[t.Col]; nc < 0 {
				constant += t.Coef * out.fixed[t.Col]
			} else {
				out.terms = append(out.terms, highs.Term{Col: int(nc), Coef: t.Coef})
			}
		}
		if len(out.terms) == from {
			// A row of fixed columns only: held as feasibleStart holds it.
			if constant < r.Lower-budgetTolerance(r.Lower) || constant > r.Upper+budgetTolerance(r.Upper) {
				return nil, false
			}
			continue
		}
		lo, up := r.Lower-constant, r.Upper-constant
		out.model.Rows = append(out.model.Rows, highs.Row{Lower: lo, Upper: up, Terms: out.terms[from:len(out.terms):len(out.terms)]})
	}
	return out, true
}

// clearQueue unmarks the rows left queued when compact stops early.
func (c *compactor) clearQueue(queue []int32) {
	for _, i := range queue {
		c.queued[i] = false
	}
	c.queue = queue[:0]
}

// whole reports whether x is a whole number or infinite.
func whole(x float64) bool { return x == math.Trunc(x) }

// newTuFor and newTlFor turn a term's implied bounds into its column's.
func newTuFor(coef, tu, tl float64) float64 {
	if coef > 0 {
		return tu
	}
	return -tl
}

func newTlFor(coef, tu, tl float64) float64 {
	if coef > 0 {
		return tl
	}
	return -tu
}

// point returns the compacted model's part of a point of the model (nil
// for nil, or where the point leaves a fixed column's value).
func (c *compacted) point(x []float64) []float64 {
	if x == nil {
		return nil
	}
	for j, v := range c.fixed {
		if !math.IsNaN(v) && x[j] != v {
			return nil
		}
	}
	out := make([]float64, len(c.cols))
	for i, j := range c.cols {
		out[i] = x[j]
	}
	return out
}

// expand returns the model's point of a point of the compacted model.
func (c *compacted) expand(x []float64) []float64 {
	out := make([]float64, len(c.fixed))
	copy(out, c.fixed)
	for i, j := range c.cols {
		out[j] = x[i]
	}
	return out
}

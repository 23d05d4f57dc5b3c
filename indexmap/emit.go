package indexmap

import (
	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexspace"
)

// LayoutExpr decides whether values, read as a function g on [0, n) of the
// axis called axis (n = len(values)), is a shape:stride layout plus a
// constant, g(t) = g(0) + L(t), and returns it as one weighted sum of digits
// of the axis: g(0) + Σ s_j·(axis / w_j % m_j), for the coarsest such L
// (cute.Recognize, the scan over first differences of Theorem 1 of "A
// Simplified Layout Algebra for GPU Kernels").
// Digits are listed fastest first; a digit of stride 0 is left out.
func LayoutExpr(values []int, axis string) (Expr, bool) {
	ts, c, ok := layoutTerms(values, Var{axis})
	if !ok {
		return nil, false
	}
	return buildLinear(ts, c), true
}

// layoutTerms returns the digit terms of values over the axis expression x,
// and the constant values[0].
func layoutTerms(values []int, x Expr) ([]term, int, bool) {
	if len(values) == 0 {
		return nil, 0, false
	}
	c := values[0]
	g := make([]int, len(values))
	for i, v := range values {
		g[i] = v - c
	}
	l, ok := recognize(g)
	if !ok {
		return nil, 0, false
	}
	n := len(values)
	shape, stride := l.FlatShape(), l.FlatStride()
	var ts []term
	w := 1
	for j, m := range shape {
		if s := stride[j]; s != 0 && m > 1 {
			var digit = x
			if w > 1 {
				digit = &Binary{Div, digit, Const{w}}
			}
			if w*m < n {
				digit = &Binary{Mod, digit, Const{m}}
			}
			ts = append(ts, term{s, digit})
		}
		w *= m
	}
	return ts, c, true
}

// recognize is cute.Recognize on g/d, d the gcd of g's values, with the
// strides multiplied back by d: g is a layout exactly when g/d is (each
// stride is a value of g), and dividing brings values up to ±2^61, which maps
// allow, within Recognize's ±2^60 whenever d > 1 (so for every one-mode
// function FromCute builds).
func recognize(g []int) (cute.Layout, bool) {
	d := 0
	for _, v := range g {
		d = gcd(d, abs(v))
	}
	if d <= 1 {
		return cute.Recognize(g)
	}
	h := make([]int, len(g))
	for i, v := range g {
		h[i] = v / d
	}
	l, ok := cute.Recognize(h)
	if !ok {
		return cute.Layout{}, false
	}
	stride := l.FlatStride() // a copy
	for j := range stride {
		stride[j] *= d
	}
	r, err := cute.New(cute.Ints(l.FlatShape()...), cute.Ints(stride...))
	return r, err == nil
}

// A Form says how Emit wrote a result expression.
type Form uint8

// The forms.
const (
	// AsSimplified: the simplified expression; the result is not a layout of
	// any refinement of the domain (or the domain is too large to decide).
	AsSimplified Form = iota
	// AsLayout: one weighted sum of the domain's leaves or of their digits,
	// plus a constant (the result is a layout of a refinement of the domain).
	// An affine result is one already.
	AsLayout
)

func (f Form) String() string {
	if f == AsLayout {
		return "layout"
	}
	return "simplified"
}

// Emit returns m with each result expression in the form code generation
// should print (Section 4 of "A Simplified Layout Algebra for GPU Kernels"): when the result, minus its value at the origin,
// is a layout of a refinement of the domain, one weighted sum of digits of the
// domain's leaves plus that constant; otherwise the simplified expression.
// An affine simplified expression is already such a sum: it is kept, as a
// layout. The
// test is: separability (f(x) - f(0) = Σ_i f_i(x_i), one pass over the
// domain), then cute.Recognize on each f_i. Domains above Limits.MaxPoints
// points are only simplified, unless affine. The emitted map has m's image at every point
// (not only where the guard holds).
func (m Map) Emit() (Map, []Form) {
	s := m.Simplify()
	forms := make([]Form, len(s.results))
	sp := s.dom.Space
	var tab Table
	for j, e := range s.results {
		if _, affine := AffineOf(e, sp); affine {
			forms[j] = AsLayout
			continue
		}
		if sp.Size() > CurrentLimits().MaxPoints {
			continue
		}
		if tab.Values == nil {
			p, err := s.Compile()
			if err != nil {
				return s, forms
			}
			if tab, err = p.Tabulate(0); err != nil {
				return s, forms
			}
		}
		ts, c, ok := separableLayout(sp, tab, j)
		if !ok {
			continue
		}
		le := buildLinear(ts, c)
		if _, err := Bounds(le, s.domainRange); err != nil {
			continue
		}
		s.results[j] = le
		s.prog = &lazyProgram{}
		s.bounds[j], _ = Bounds(le, s.domainRange)
		forms[j] = AsLayout
	}
	return s, forms
}

// separableLayout decides whether column j of tab is f(0) + Σ_i L_i(x_i) with
// each L_i a layout, and returns its terms.
func separableLayout(sp indexspace.Space, tab Table, j int) ([]term, int, bool) {
	at := func(flat int) int { return tab.Values[flat*tab.Width+j] }
	c := at(0)
	leaves := sp.Leaves()
	parts := make([][]int, len(leaves))
	for i, l := range leaves {
		parts[i] = make([]int, l.Size)
		for t := range l.Size {
			parts[i][t] = at(t*l.Stride) - c
		}
	}
	coord := make([]int, len(leaves))
	for flat := 0; flat < sp.Size(); flat++ {
		sum := c
		for i := range leaves {
			sum += parts[i][coord[i]]
		}
		if sum != at(flat) {
			return nil, 0, false
		}
		for i := len(coord) - 1; i >= 0; i-- {
			coord[i]++
			if coord[i] < leaves[i].Size {
				break
			}
			coord[i] = 0
		}
	}
	var ts []term
	for i, l := range leaves {
		if l.Size < 2 {
			continue
		}
		lt, _, ok := layoutTerms(parts[i], Var{l.Name})
		if !ok {
			return nil, 0, false
		}
		ts = append(ts, lt...)
	}
	return ts, c, true
}

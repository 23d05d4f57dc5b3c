package indexmap

import (
	"fmt"
	"strconv"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexspace"
)

// FromCute converts a CuTe layout (fastest mode first) to a map with the given
// kinds. CuTe's modes are reversed, recursively, so that both describe the
// same function on the same integers: the domain's flat index (row-major,
// last leaf fastest) is CuTe's index. Top-level mode k becomes axis "m<k>"; a
// nested mode becomes a group whose factors are named "m<k>_<j>" (and so on
// down). The codomain is one leaf "x" of size cosize (the largest value + 1).
//
// A stride-0 mode of size ≥ 2 (CuTe's broadcast) becomes a declared broadcast
// axis. Negative values are an error unless the codomain is untyped, where
// the codomain's size is then the largest value + 1 (at least 1) and the
// values are not in it. The map is checked by New against its kinds.
func FromCute(l cute.Layout, domain, codomain Kind) (Map, error) {
	shape, stride := l.Shape(), l.Stride()
	var results []term
	var broadcast []string
	var build func(s, d cute.Tuple, name string) indexspace.Axis
	build = func(s, d cute.Tuple, name string) indexspace.Axis {
		if s.IsInt() {
			n, st := s.Value(), d.Value()
			if st != 0 {
				results = append(results, term{st, Var{name}})
			} else if n > 1 {
				broadcast = append(broadcast, name)
			}
			return indexspace.Leaf(name, n)
		}
		fs := make([]indexspace.Axis, s.Rank())
		for j := 0; j < s.Rank(); j++ {
			// Reverse: CuTe's first (fastest) mode is our last leaf.
			fs[s.Rank()-1-j] = build(s.At(j), d.At(j), name+"_"+strconv.Itoa(j))
		}
		return indexspace.Group(name, fs...)
	}
	var axes []indexspace.Axis
	if shape.IsInt() {
		axes = []indexspace.Axis{build(shape, stride, "m0")}
	} else {
		axes = make([]indexspace.Axis, shape.Rank())
		for k := 0; k < shape.Rank(); k++ {
			axes[shape.Rank()-1-k] = build(shape.At(k), stride.At(k), "m"+strconv.Itoa(k))
		}
	}
	dom, err := indexspace.New("", axes...)
	if err != nil {
		return Map{}, fmt.Errorf("indexmap: from CuTe %s: %w", l, err)
	}
	lo, hi := 0, 0
	for i := range results {
		// Each term spans [0, (n-1)·s]; sum the extremes.
		r, _ := dom.Lookup(results[i].atom.(Var).name)
		span := (r.Size - 1) * results[i].coef
		lo, hi = lo+min(span, 0), hi+max(span, 0)
	}
	if lo < 0 && codomain != Untyped {
		return Map{}, fmt.Errorf("indexmap: from CuTe %s: the layout takes negative values (down to %d), which no %v space holds", l, lo, codomain)
	}
	cod, err := indexspace.New("", indexspace.Leaf("x", max(hi+1, 1)))
	if err != nil {
		return Map{}, fmt.Errorf("indexmap: from CuTe %s: %w", l, err)
	}
	// Sort terms into the domain's leaf order for a readable sum.
	ordered := make([]term, 0, len(results))
	for _, leaf := range dom.Leaves() {
		for _, t := range results {
			if t.atom.(Var).name == leaf.Name {
				ordered = append(ordered, t)
			}
		}
	}
	spec := Spec{
		Domain:    Side{domain, dom},
		Codomain:  Side{codomain, cod},
		Results:   []Expr{buildLinear(ordered, 0)},
		Broadcast: broadcast,
	}
	m, err := New(spec)
	if err != nil {
		return Map{}, fmt.Errorf("indexmap: from CuTe %s: %w", l, err)
	}
	return m, nil
}

// ToCute converts m to a CuTe layout (fastest mode first): the function from
// the domain's flat index to the codomain's flat index (row-major). The
// domain's top-level axes become CuTe's modes in reverse order, a group's
// factors its nested modes in reverse order, and a leaf whose function is a
// layout of several modes a nested mode of those (cute.Recognize). Broadcast
// leaves get stride 0. It fails when m has a guard, its value at the origin
// is not 0, it is not separable over the leaves, or a leaf's function is not
// a layout; or when the domain is above EnumerationLimit points. A leaf's
// values beyond ±2^60 (cute.Recognize's range) are recognized through their
// greatest common divisor, so every map FromCute builds converts back.
func ToCute(m Map) (cute.Layout, error) {
	if !m.guard.IsTrue() {
		return cute.Layout{}, fmt.Errorf("indexmap: to CuTe: a guarded map is no layout")
	}
	sp, cod := m.dom.Space, m.cod.Space
	if limit := CurrentLimits().MaxPoints; sp.Size() > limit {
		return cute.Layout{}, fmt.Errorf("%w: %s has %d points (limit %d)", ErrTooLarge, sp, sp.Size(), limit)
	}
	// One result: the codomain's flat index.
	var flat Expr = Const{0}
	var ts []term
	for j, e := range m.results {
		ts = append(ts, term{cod.Leaf(j).Stride, e})
	}
	if len(ts) > 0 {
		flat = buildLinear(ts, 0)
	}
	one, err := New(Spec{Domain: Side{Space: sp}, Codomain: Side{Space: indexspace.MustNew("", indexspace.Leaf("x", 1))}, Results: []Expr{flat}})
	if err != nil {
		return cute.Layout{}, fmt.Errorf("indexmap: to CuTe: %w", err)
	}
	tab, err := one.Tabulate()
	if err != nil {
		return cute.Layout{}, err
	}
	if tab.Values[0] != 0 {
		return cute.Layout{}, fmt.Errorf("indexmap: to CuTe: the map's value at the origin is %d, and a layout's is 0", tab.Values[0])
	}
	if _, _, ok := separableLayout(sp, tab, 0); !ok {
		return cute.Layout{}, fmt.Errorf("indexmap: to CuTe: %s is not a layout: not a sum of layouts of its leaves", m)
	}
	leafLayout := make([]cute.Layout, sp.NumLeaves())
	for i, l := range sp.Leaves() {
		vals := make([]int, l.Size)
		for t := range vals {
			vals[t] = tab.Values[t*l.Stride]
		}
		ll, ok := recognize(vals)
		if !ok {
			return cute.Layout{}, fmt.Errorf("indexmap: to CuTe: %s is not a layout of axis %s", m, l.Name)
		}
		leafLayout[i] = ll
	}
	next := 0
	var modes func(as []indexspace.Axis) (cute.Tuple, cute.Tuple)
	modes = func(as []indexspace.Axis) (cute.Tuple, cute.Tuple) {
		shapes, strides := make([]cute.Tuple, len(as)), make([]cute.Tuple, len(as))
		for k, a := range as {
			var s, d cute.Tuple
			if a.IsLeaf() {
				s, d = leafLayout[next].Shape(), leafLayout[next].Stride()
				next++
			} else {
				s, d = modes(a.Factors())
			}
			shapes[len(as)-1-k], strides[len(as)-1-k] = s, d
		}
		if len(as) == 1 {
			return shapes[0], strides[0]
		}
		return cute.Tup(shapes...), cute.Tup(strides...)
	}
	axes := sp.Axes()
	if len(axes) == 0 {
		return cute.MustParse("1:0"), nil
	}
	s, d := modes(axes)
	l, err := cute.New(s, d)
	if err != nil {
		return cute.Layout{}, fmt.Errorf("indexmap: to CuTe: %w", err)
	}
	return l, nil
}

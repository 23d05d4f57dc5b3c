package indexmap

import (
	"fmt"
	"sort"

	"github.com/cklplan/cklplan/indexspace"
)

// Restrict returns m with the domain axes named in fixed held at the given
// values (Section 5 of "A Simplified Layout Algebra for GPU Kernels"): the slice one warp or one thread uses. Fixing a group
// fixes its leaves; the fixed leaves leave the domain, and a group that loses
// a leaf is dissolved into its remaining factors (its name would otherwise
// stand for a different value; a broadcast group passes its broadcast on to
// them). The result expressions are emitted (see Emit): affine
// plus a constant where the slice is a layout, negative coefficients
// included, and the composite with the fixed coordinates replaced by their
// values otherwise.
//
// Restriction is defined only for maps into physical (or untyped) spaces: a
// slice of a dense bijection is not dense. Errors name an unknown axis, a
// value out of range, or inconsistent values for a group and its leaf.
func (m Map) Restrict(fixed map[string]int) (Map, error) {
	if m.cod.Kind == Logical || m.cod.Kind == ThreadValue {
		return Map{}, fmt.Errorf("indexmap: restrict: defined only for maps into physical; this one maps into %v", m.cod.Kind)
	}
	sp := m.dom.Space
	leafVal := make([]int, sp.NumLeaves())
	isFixed := make([]bool, sp.NumLeaves())
	names := make([]string, 0, len(fixed))
	for name := range fixed {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := fixed[name]
		r, ok := sp.Lookup(name)
		if !ok {
			return Map{}, fmt.Errorf("indexmap: restrict: %q is not an axis of %s", name, sp)
		}
		if v < 0 || v >= r.Size {
			return Map{}, fmt.Errorf("indexmap: restrict: %s=%d %w [0, %d)", name, v, ErrOutOfRange, r.Size)
		}
		for i := r.Last - 1; i >= r.First; i-- {
			size := sp.Leaf(i).Size
			d := v % size
			v /= size
			if isFixed[i] && leafVal[i] != d {
				return Map{}, fmt.Errorf("indexmap: restrict: %s=%d conflicts with %s=%d", name, fixed[name], sp.Leaf(i).Name, leafVal[i])
			}
			isFixed[i], leafVal[i] = true, d
		}
	}
	dom, err := dropLeaves(sp, isFixed)
	if err != nil {
		return Map{}, err
	}
	leafExpr := make([]Expr, sp.NumLeaves())
	for i, l := range sp.Leaves() {
		if isFixed[i] {
			leafExpr[i] = Const{leafVal[i]}
		} else {
			leafExpr[i] = Var{l.Name}
		}
	}
	// Every group that lost a leaf is expanded into its leaves first; other
	// axes keep their names.
	subst := func(e Expr) Expr { return substituteChanged(e, sp, dom, leafExpr) }
	spec := Spec{Domain: Side{m.dom.Kind, dom}, Codomain: m.cod}
	for _, e := range m.results {
		spec.Results = append(spec.Results, subst(e))
	}
	for _, t := range m.guard.terms {
		spec.Guard.terms = append(spec.Guard.terms, Cmp{t.Op, subst(t.X), subst(t.Y)})
	}
	declared := map[string]bool{}
	declare := func(name string) {
		if !declared[name] {
			declared[name] = true
			spec.Broadcast = append(spec.Broadcast, name)
		}
	}
	for _, b := range m.broadcast {
		if _, ok := dom.Lookup(b); ok {
			declare(b)
			continue
		}
		// A dissolved group: its remaining leaves stay broadcast.
		r, _ := sp.Lookup(b)
		for i := r.First; i < r.Last; i++ {
			if !isFixed[i] {
				declare(sp.Leaf(i).Name)
			}
		}
	}
	r, err := New(spec)
	if err != nil {
		return Map{}, &OpError{"restrict", err}
	}
	out, _ := r.Emit()
	return out, nil
}

// dropLeaves returns sp without the marked leaves. A group that loses a leaf
// is dissolved: its remaining factors take its place, since its name would
// otherwise stand for a different value.
func dropLeaves(sp indexspace.Space, drop []bool) (indexspace.Space, error) {
	next := 0
	var keep func(as []indexspace.Axis) ([]indexspace.Axis, bool)
	keep = func(as []indexspace.Axis) ([]indexspace.Axis, bool) {
		var out []indexspace.Axis
		whole := true
		for _, a := range as {
			if a.IsLeaf() {
				if drop[next] {
					whole = false
				} else {
					out = append(out, a)
				}
				next++
				continue
			}
			fs, w := keep(a.Factors())
			if w {
				out = append(out, indexspace.Group(a.Name(), fs...))
			} else {
				out = append(out, fs...)
				whole = false
			}
		}
		return out, whole
	}
	axes, _ := keep(sp.Axes())
	return indexspace.New(sp.Name(), axes...)
}

// substituteChanged replaces fixed leaves by constants, and every group of sp
// that is not the same axis in dom by the combination of its leaves.
func substituteChanged(e Expr, sp, dom indexspace.Space, leafExpr []Expr) Expr {
	return substituteExcept(e, sp, leafExpr, func(name string, r indexspace.AxisRange) bool {
		nr, ok := dom.Lookup(name)
		return ok && nr.Size == r.Size && nr.Leaf == r.Leaf
	})
}

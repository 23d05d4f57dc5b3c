package indexmap

import (
	"fmt"
	"slices"
)

// Inverse returns the inverse of a bijection m: A → B, a map B → A with the
// kinds exchanged. m must be unguarded, without broadcast axes, and a dense
// bijection onto B (decided by Decide); a map into physical must be a
// swizzle (physical → physical), as nothing else maps out of physical.
//
// Each domain leaf of m, as a function of the codomain point, is written as a
// layout of the codomain's leaves plus a constant where it is one (found as
// in Emit); otherwise, when A and B have the same leaf sizes and m is its own
// inverse (a xor swizzle, say), the inverse is m's expressions over B's
// names. Anything else is an error: the inverse exists but has no expression
// in this package's terms that was found.
func (m Map) Inverse() (Map, error) {
	if !m.guard.IsTrue() || len(m.broadcast) > 0 {
		return Map{}, fmt.Errorf("indexmap: inverse: the map has a guard or broadcast axes, so it is no bijection of its spaces")
	}
	if m.cod.Kind == Physical && m.dom.Kind != Physical {
		// Said before the work, and as what the caller asked: the
		// inverse's own kind error would name a map never written.
		return Map{}, fmt.Errorf("indexmap: inverse: the inverse of a %s -> physical map would map out of physical, which only a physical -> physical swizzle may; write the map untyped (without its kinds) to invert it", m.dom.Kind)
	}
	p, err := m.Decide()
	if err != nil {
		return Map{}, &OpError{"inverse", err}
	}
	if !p.DenseBijection || !p.Injective {
		return Map{}, fmt.Errorf("indexmap: inverse: not a bijection onto %s: %s", m.cod.Space, p.Witness)
	}
	dom, cod := m.dom.Space, m.cod.Space
	prog, err := m.Compile()
	if err != nil {
		return Map{}, err
	}
	// inv.Values[y*width+i]: domain leaf i of the point that maps to codomain
	// point y.
	inv := Table{Width: dom.NumLeaves(), Values: make([]int, cod.Size()*dom.NumLeaves())}
	img := make([]int, cod.NumLeaves())
	prog.each(func(x int, r []int) {
		prog.outputs(r, img)
		y := 0
		for j, v := range img {
			y += v * cod.Leaf(j).Stride
		}
		copy(inv.Values[y*inv.Width:], r[:inv.Width])
	})
	spec := Spec{Domain: m.cod, Codomain: m.dom}
	for i := 0; i < dom.NumLeaves(); i++ {
		ts, c, ok := separableLayout(cod, inv, i)
		if !ok {
			spec.Results = nil
			break
		}
		spec.Results = append(spec.Results, buildLinear(ts, c))
	}
	if spec.Results == nil && dom.NumLeaves() > 0 {
		if !dom.SameShape(cod) {
			return Map{}, fmt.Errorf("indexmap: inverse: the inverse of %s is not a layout of %s plus a constant", m, cod)
		}
		leafExpr := make([]Expr, dom.NumLeaves())
		for i, l := range cod.Leaves() {
			leafExpr[i] = Var{l.Name}
		}
		for _, e := range m.results {
			spec.Results = append(spec.Results, substitute(e, dom, leafExpr))
		}
		cand, err := New(spec)
		if err != nil {
			return Map{}, fmt.Errorf("indexmap: inverse: the inverse of %s is not a layout plus a constant, and the map is not an involution", m)
		}
		// Check cand ∘ m = identity at every point.
		cp, _ := cand.Compile()
		out, back := make([]int, cod.NumLeaves()), make([]int, dom.NumLeaves())
		involution := true
		prog.each(func(x int, r []int) {
			prog.outputs(r, out)
			if _, err := cp.Eval(out, back); err != nil {
				involution = false
				return
			}
			if !slices.Equal(back, r[:dom.NumLeaves()]) {
				involution = false
			}
		})
		if !involution {
			return Map{}, fmt.Errorf("indexmap: inverse: the inverse of %s is not a layout plus a constant, and the map is not an involution", m)
		}
		return cand, nil
	}
	out, err := New(spec)
	if err != nil {
		return Map{}, &OpError{"inverse", err}
	}
	return out.Simplify(), nil
}

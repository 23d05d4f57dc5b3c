package indexmap

import (
	"fmt"

	"github.com/cklplan/cklplan/indexspace"
)

// Compose returns outer ∘ inner, the map x ↦ outer(inner(x)) from inner's
// domain to outer's codomain, by substituting inner's result expressions for
// the axes of outer's domain. The result is literal (see Simplify and Emit).
//
// Conditions, each an error naming what failed:
//   - inner's codomain kind equals outer's domain kind (either may be untyped);
//   - the two spaces have the same size; when their leaf sizes agree leaf by
//     leaf the substitution is leafwise, otherwise it goes through the flat
//     index (inner's images are flattened row-major and unflattened into
//     outer's domain, as CuTe reads a composition);
//   - inner's images lie in its codomain (checked by bounds, else by
//     enumeration), so they are points of outer's domain.
//
// The guard is inner's guard and outer's guard at inner's images. The
// broadcast axes are inner's, plus inner's domain axes that only fed
// outer's broadcast axes; through the flat index, where every literal result
// names every such axis, the results are simplified to find them (and kept
// simplified when that finds more). The result is checked by New against its
// kinds.
func Compose(outer, inner Map) (Map, error) {
	mid, dom := inner.cod, outer.dom
	if mid.Kind != dom.Kind && mid.Kind != Untyped && dom.Kind != Untyped {
		return Map{}, fmt.Errorf("indexmap: compose: inner maps into %v but outer's domain is %v", mid.Kind, dom.Kind)
	}
	if mid.Space.Size() != dom.Space.Size() {
		return Map{}, fmt.Errorf("indexmap: compose: inner's codomain %s has %d points but outer's domain %s has %d",
			mid.Space, mid.Space.Size(), dom.Space, dom.Space.Size())
	}
	inRange := true
	for j := range inner.results {
		if iv, size := inner.bounds[j], mid.Space.Leaf(j).Size; iv.Lo < 0 || iv.Hi >= size {
			inRange = false
		}
	}
	if !inRange {
		p, err := inner.Decide()
		if err != nil {
			return Map{}, fmt.Errorf("indexmap: compose: cannot check that inner's images lie in %s: %w", mid.Space, err)
		}
		if !p.InRange {
			return Map{}, fmt.Errorf("indexmap: compose: inner's images leave its codomain: %s", p.Witness)
		}
	}
	// leafExpr[i]: the expression, over inner's domain, of outer's domain leaf i.
	leafExpr := make([]Expr, dom.Space.NumLeaves())
	leafwise := mid.Space.SameShape(dom.Space)
	if leafwise {
		copy(leafExpr, inner.results)
	} else {
		var flat Expr
		for j, e := range inner.results {
			flat = addTerm(flat, scaled(e, mid.Space.Leaf(j).Stride))
		}
		if flat == nil {
			flat = Const{0}
		}
		for i := range leafExpr {
			l := dom.Space.Leaf(i)
			var e = flat
			if l.Stride > 1 {
				e = &Binary{Div, e, Const{l.Stride}}
			}
			if l.Stride*l.Size < dom.Space.Size() {
				e = &Binary{Mod, e, Const{l.Size}}
			}
			leafExpr[i] = e
		}
	}
	subst := func(e Expr) Expr { return substitute(e, dom.Space, leafExpr) }
	spec := Spec{Domain: inner.dom, Codomain: outer.cod, Broadcast: inner.Broadcast()}
	for _, e := range outer.results {
		spec.Results = append(spec.Results, subst(e))
	}
	terms := inner.guard.Terms()
	for _, t := range outer.guard.terms {
		terms = append(terms, Cmp{t.Op, subst(t.X), subst(t.Y)})
	}
	spec.Guard = Guard{terms}
	// Substitution shares inner's expressions, but printing, evaluation and
	// simplification visit each occurrence: a composite is held to the cap
	// on terms as parsed text is.
	left := CurrentLimits().MaxTerms
	for _, e := range spec.Results {
		if left -= termsUpTo(e, left+1); left < 0 {
			return Map{}, &OpError{"compose", &LimitError{Offset: -1, Terms: CurrentLimits().MaxTerms}}
		}
	}
	for _, t := range terms {
		if left -= termsUpTo(t.X, left+1) + termsUpTo(t.Y, left+1); left < 0 {
			return Map{}, &OpError{"compose", &LimitError{Offset: -1, Terms: CurrentLimits().MaxTerms}}
		}
	}
	if len(outer.broadcast) > 0 {
		orphans := orphanedAxes(inner, spec.Results, spec.Broadcast)
		if !leafwise {
			// Through the flat index every literal result names every axis
			// inner's results use; simplified, it no longer names those that
			// only fed outer's broadcast axes.
			simple := make([]Expr, len(spec.Results))
			for j, e := range spec.Results {
				simple[j] = SimplifyExpr(e, inner.domainRange)
			}
			if more := orphanedAxes(inner, simple, spec.Broadcast); len(more) > len(orphans) {
				spec.Results, orphans = simple, more
			}
		}
		spec.Broadcast = append(spec.Broadcast, orphans...)
	}
	m, err := New(spec)
	if err != nil {
		return Map{}, &OpError{"compose", err}
	}
	return m, nil
}

// orphanedAxes returns the leaves of inner's domain that inner's results use
// but results do not, and that no broadcast axis already covers.
func orphanedAxes(inner Map, results []Expr, declared []string) []string {
	sp := inner.dom.Space
	usedIn, usedOut := make([]bool, sp.NumLeaves()), make([]bool, sp.NumLeaves())
	for _, e := range inner.results {
		dependsOn(e, sp, usedIn)
	}
	for _, e := range results {
		dependsOn(e, sp, usedOut)
	}
	covered := make([]bool, sp.NumLeaves())
	for _, b := range declared {
		r, _ := sp.Lookup(b)
		for i := r.First; i < r.Last; i++ {
			covered[i] = true
		}
	}
	var out []string
	for i := range usedIn {
		if usedIn[i] && !usedOut[i] && !covered[i] {
			out = append(out, sp.Leaf(i).Name)
		}
	}
	return out
}

// substitute replaces each axis of sp named in e by its expression: leaf i by
// leafExpr[i], a group by the row-major combination of its leaves.
func substitute(e Expr, sp indexspace.Space, leafExpr []Expr) Expr {
	return substituteExcept(e, sp, leafExpr, nil)
}

// substituteExcept is substitute leaving alone the axes for which kept holds
// (nil keeps none) and the names that are not axes of sp.
func substituteExcept(e Expr, sp indexspace.Space, leafExpr []Expr, kept func(name string, r indexspace.AxisRange) bool) Expr {
	switch e := e.(type) {
	case Var:
		r, ok := sp.Lookup(e.name)
		if !ok || (kept != nil && kept(e.name, r)) {
			return e
		}
		if r.Leaf {
			return leafExpr[r.First]
		}
		var out Expr
		for i := r.First; i < r.Last; i++ {
			out = addTerm(out, scaled(leafExpr[i], r.LeafWeight(sp, i)))
		}
		return out
	case *Binary:
		x, y := substituteExcept(e.x, sp, leafExpr, kept), substituteExcept(e.y, sp, leafExpr, kept)
		if x == e.x && y == e.y {
			return e
		}
		return &Binary{e.op, x, y}
	}
	return e
}

func scaled(e Expr, k int) Expr {
	if k == 1 {
		return e
	}
	return &Binary{Mul, Const{k}, e}
}

func addTerm(acc, e Expr) Expr {
	if acc == nil {
		return e
	}
	return &Binary{Add, acc, e}
}

package indexmap

import "github.com/cklplan/cklplan/indexspace"

// An Affine is an expression in affine form over a space's leaves:
// Const + Σ Coef[i]·leaf_i.
type Affine struct {
	Const int
	Coef  []int // one per leaf of the space
}

// AffineOf returns the affine form of e over the leaves of sp, and false when
// e is not affine (it uses /, %, ^, or a product of two non-constants). A group
// axis contributes its leaves with their row-major weights. Coefficients are
// exact for expressions bounded by a Map (see Bounds).
func AffineOf(e Expr, sp indexspace.Space) (Affine, bool) {
	a := Affine{Coef: make([]int, sp.NumLeaves())}
	if !a.add(e, sp, 1) {
		return Affine{}, false
	}
	return a, true
}

func (a *Affine) add(e Expr, sp indexspace.Space, scale int) bool {
	switch e := e.(type) {
	case Const:
		a.Const += scale * e.value
		return true
	case Var:
		r, ok := sp.Lookup(e.name)
		if !ok {
			return false
		}
		for i := r.First; i < r.Last; i++ {
			a.Coef[i] += scale * r.LeafWeight(sp, i)
		}
		return true
	case *Binary:
		switch e.op {
		case Add:
			return a.add(e.x, sp, scale) && a.add(e.y, sp, scale)
		case Sub:
			return a.add(e.x, sp, scale) && a.add(e.y, sp, -scale)
		case Mul:
			if c, ok := constValue(e.y); ok {
				return a.add(e.x, sp, scale*c)
			}
			if c, ok := constValue(e.x); ok {
				return a.add(e.y, sp, scale*c)
			}
		}
	}
	return false
}

// constValue reports the value of e when e is constant (a constant tree).
func constValue(e Expr) (int, bool) {
	switch e := e.(type) {
	case Const:
		return e.value, true
	case *Binary:
		x, ok := constValue(e.x)
		if !ok {
			return 0, false
		}
		y, ok := constValue(e.y)
		if !ok {
			return 0, false
		}
		return apply(e.op, x, y), true
	}
	return 0, false
}

// dependsOn returns, for each leaf of sp, whether e names it (directly or via
// a group).
func dependsOn(e Expr, sp indexspace.Space, dst []bool) {
	walk(e, func(n Expr) {
		if v, ok := n.(Var); ok {
			if r, ok := sp.Lookup(v.name); ok {
				for i := r.First; i < r.Last; i++ {
					dst[i] = true
				}
			}
		}
	})
}

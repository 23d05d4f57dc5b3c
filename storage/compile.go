package storage

import (
	"fmt"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// An evaluator computes one expression at a point given by its leaf
// coordinates, without the per-point environment map of indexmap.Eval: the
// layout queries evaluate every point of a tile.
type evaluator func(coord []int) int

// compile turns e, an expression over the axes of space (leaves or groups),
// into an evaluator. Arithmetic is indexmap's: / floors, % is non-negative.
func compile(e indexmap.Expr, space indexspace.Space) (evaluator, error) {
	switch e := e.(type) {
	case indexmap.Var:
		r, ok := space.Lookup(e.Name())
		if !ok {
			return nil, fmt.Errorf("axis %q is not an axis of %s", e.Name(), space)
		}
		if r.Leaf {
			i := r.First
			return func(c []int) int { return c[i] }, nil
		}
		first, last := r.First, r.Last
		weights := make([]int, last-first)
		for i := first; i < last; i++ {
			weights[i-first] = r.LeafWeight(space, i)
		}
		return func(c []int) int {
			v := 0
			for i, w := range weights {
				v += c[first+i] * w
			}
			return v
		}, nil
	case indexmap.Const:
		v := e.Value()
		return func([]int) int { return v }, nil
	case *indexmap.Binary:
		x, err := compile(e.X(), space)
		if err != nil {
			return nil, err
		}
		y, err := compile(e.Y(), space)
		if err != nil {
			return nil, err
		}
		switch e.Op() {
		case indexmap.Xor:
			return func(c []int) int { return x(c) ^ y(c) }, nil
		case indexmap.Add:
			return func(c []int) int { return x(c) + y(c) }, nil
		case indexmap.Sub:
			return func(c []int) int { return x(c) - y(c) }, nil
		case indexmap.Mul:
			return func(c []int) int { return x(c) * y(c) }, nil
		case indexmap.Div:
			return func(c []int) int { return floorDiv(x(c), y(c)) }, nil
		case indexmap.Mod:
			return func(c []int) int { return floorMod(x(c), y(c)) }, nil
		}
		return nil, fmt.Errorf("unknown operator %v", e.Op())
	}
	return nil, fmt.Errorf("unknown expression %v", e)
}

func floorDiv(a, k int) int {
	q := a / k
	if a%k != 0 && (a < 0) != (k < 0) {
		q--
	}
	return q
}

func floorMod(a, k int) int {
	r := a % k
	if r != 0 && (r < 0) != (k < 0) {
		r += k
	}
	return r
}

// affine is an expression c0 + Σ strides[i]*coord[i] over a space's leaves.
type affine struct {
	constant int
	strides  []int
}

// affineOf returns e as an affine function of the leaves of space
// (indexmap.AffineOf), or false when e is not syntactically affine.
func affineOf(e indexmap.Expr, space indexspace.Space) (affine, bool) {
	a, ok := indexmap.AffineOf(e, space)
	if !ok {
		return affine{}, false
	}
	return affine{constant: a.Const, strides: a.Coef}, true
}

func (a affine) eval(c []int) int {
	v := a.constant
	for i, s := range a.strides {
		v += s * c[i]
	}
	return v
}

package indexmap

import (
	"fmt"
	"strings"

	"github.com/cklplan/cklplan/indexspace"
)

// An ExprProgram is one expression compiled over a space: a Program for the
// map over → (value) without a codomain to check, for callers that evaluate
// one integer function at many points (a storage layout's address at every
// point of a tile). It is immutable and safe for concurrent use.
type ExprProgram struct {
	e     Expr
	p     *Program
	bound Interval
}

// CompileExpr compiles e, an expression over the axes (leaves or groups) of
// over. It fails, naming the axis or subexpression, when e names an axis over
// lacks or an intermediate value may exceed ±2^61 (see Bounds); so, as for a
// Map, evaluation never overflows.
func CompileExpr(e Expr, over indexspace.Space) (*ExprProgram, error) {
	if e == nil {
		return nil, fmt.Errorf("indexmap: compile of a nil expression")
	}
	m := Map{dom: Side{Space: over}, results: []Expr{e}}
	iv, err := Bounds(e, m.domainRange)
	if err != nil {
		return nil, fmt.Errorf("indexmap: %s over %s: %s", e, over, strings.TrimPrefix(err.Error(), "indexmap: "))
	}
	m.bounds = []Interval{iv}
	if a, ok := AffineOf(e, over); ok {
		// What Compile builds for one affine result and no guard, without
		// the compiler's tables: no instructions, the result from a.
		n := over.NumLeaves()
		p := &Program{m: m, nleaves: n, start: make([]int, n+1), results: []int32{-1}, affine: []Affine{a}, isAff: []bool{true}}
		for _, l := range over.Leaves() {
			p.sizes = append(p.sizes, l.Size)
			p.init = append(p.init, 0)
		}
		return &ExprProgram{e: e, p: p, bound: iv}, nil
	}
	p, err := m.Compile()
	if err != nil {
		return nil, err
	}
	return &ExprProgram{e: e, p: p, bound: iv}, nil
}

// Expr returns the compiled expression.
func (p *ExprProgram) Expr() Expr { return p.e }

// Space returns the space the expression is compiled over.
func (p *ExprProgram) Space() indexspace.Space { return p.p.m.dom.Space }

// Bounds returns an interval containing every value of the expression over
// the space (exact when it is affine in distinct axes; see Bounds).
func (p *ExprProgram) Bounds() Interval { return p.bound }

// Affine returns the expression's affine form over the space's leaves
// (AffineOf), and false when it is not affine; evaluation already uses it.
func (p *ExprProgram) Affine() (Affine, bool) {
	if !p.p.isAff[0] {
		return Affine{}, false
	}
	a := p.p.affine[0]
	return Affine{Const: a.Const, Coef: append([]int(nil), a.Coef...)}, true
}

// Eval returns the value at the point whose leaf coordinates are coord. It
// fails when coord has the wrong length or a coordinate is out of range. It
// does not allocate when the program needs at most 32 registers.
func (p *ExprProgram) Eval(coord []int) (int, error) {
	q := p.p
	if len(coord) != q.nleaves {
		return 0, p.lengthError(len(coord))
	}
	if q.results[0] >= 0 {
		return p.evalProgram(coord)
	}
	// An affine expression: from its coefficients, as Program.outputs does.
	a := &q.affine[0]
	v := a.Const
	for i, c := range coord {
		if uint(c) >= uint(q.sizes[i]) {
			return 0, p.rangeError(i, c)
		}
		v += a.Coef[i] * c
	}
	return v, nil
}

// evalProgram runs the instructions on a register file on the stack.
func (p *ExprProgram) evalProgram(coord []int) (int, error) {
	q := p.p
	for i, c := range coord {
		if uint(c) >= uint(q.sizes[i]) {
			return 0, p.rangeError(i, c)
		}
	}
	var buf [32]int
	r := append(buf[:0], q.init...)
	copy(r, coord)
	run(r, q.code[q.start[0]:])
	return r[q.results[0]], nil
}

func (p *ExprProgram) lengthError(n int) error {
	return fmt.Errorf("indexmap: eval: %d coordinates for the %d leaf axes of %s", n, p.p.nleaves, p.p.m.dom.Space)
}

func (p *ExprProgram) rangeError(leaf, c int) error {
	return fmt.Errorf("indexmap: coordinate %s=%d %w [0, %d)", p.p.m.dom.Space.Leaf(leaf).Name, c, ErrOutOfRange, p.p.sizes[leaf])
}

// Tabulate evaluates the expression at every point of the space, in flat
// order, through Program.Tabulate. It fails when the space has more than
// maxEntries points (DefaultTableLimit when maxEntries ≤ 0).
func (p *ExprProgram) Tabulate(maxEntries int) ([]int, error) {
	t, err := p.p.Tabulate(maxEntries)
	if err != nil {
		return nil, err
	}
	return t.Values, nil
}

// At returns the value of the affine form at the point whose leaf
// coordinates are coord (one per coefficient; not checked).
func (a Affine) At(coord []int) int {
	v := a.Const
	for i, k := range a.Coef {
		v += k * coord[i]
	}
	return v
}

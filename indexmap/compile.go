package indexmap

import (
	"fmt"
	"math/bits"
	"slices"
)

// A Program is a compiled Map: its expressions lowered to register
// instructions, shared subexpressions computed once, and instructions sorted
// by the slowest-varying domain leaf they depend on, so that tabulating the
// domain in flat order recomputes only what the changed coordinates reach.
// A Program is immutable and safe for concurrent use.
type Program struct {
	m       Map
	nleaves int
	sizes   []int
	init    []int   // initial register file: constants set, leaves zero
	code    []instr // sorted by level
	start   []int   // start[j]: first instruction whose level is >= j
	results []int32 // register of each result (-1 for an affine one)
	affine  []Affine
	isAff   []bool
	guard   []cmpInstr
}

type opcode uint8

const (
	opAdd opcode = iota
	opSub
	opMul
	opXor
	opDivK
	opModK
	opShr // floor division by 2^k: an arithmetic shift
	opAnd // non-negative remainder by 2^k: a mask
)

type instr struct {
	op     opcode
	dst, a int32
	b      int32 // register operand, or unused for DivK/ModK
	k      int   // divisor for DivK/ModK
	level  int
}

type cmpInstr struct {
	op   CmpOp
	x, y int32
}

type compiler struct {
	p      *Program
	level  []int // level of each register; -1 for constants
	consts map[int]int32
	memo   map[instrKey]int32
	vars   map[string]int32
}

type instrKey struct {
	op   opcode
	a, b int32
	k    int
}

// Compile lowers m to a Program. Compiling never fails for a Map built by New
// (its expressions are bounded); the error is for the zero Map.
func (m Map) Compile() (*Program, error) {
	if m.bounds == nil && len(m.results) > 0 {
		return nil, fmt.Errorf("indexmap: compile of a Map not built by New")
	}
	leaves := m.dom.Space.Leaves()
	p := &Program{m: m, nleaves: len(leaves)}
	c := &compiler{p: p, consts: map[int]int32{}, memo: map[instrKey]int32{}, vars: map[string]int32{}}
	for i, l := range leaves {
		p.sizes = append(p.sizes, l.Size)
		p.init = append(p.init, 0)
		c.level = append(c.level, i)
		c.vars[l.Name] = int32(i)
	}
	for _, e := range m.results {
		a, ok := AffineOf(e, m.dom.Space)
		p.affine = append(p.affine, a)
		p.isAff = append(p.isAff, ok)
		if ok {
			p.results = append(p.results, -1)
		} else {
			p.results = append(p.results, c.expr(e))
		}
	}
	for _, t := range m.guard.terms {
		p.guard = append(p.guard, cmpInstr{t.Op, c.expr(t.X), c.expr(t.Y)})
	}
	// Operands precede their users and have no higher level, so a stable
	// sort by level keeps every operand before its use.
	slices.SortStableFunc(p.code, func(a, b instr) int { return a.level - b.level })
	p.start = make([]int, p.nleaves+1)
	for j := 0; j <= p.nleaves; j++ {
		p.start[j] = len(p.code)
		for i, in := range p.code {
			if in.level >= j {
				p.start[j] = i
				break
			}
		}
	}
	// Instructions on constants alone are evaluated once, into init.
	run(p.init, p.code[:p.start[0]])
	return p, nil
}

func (c *compiler) newReg(level int) int32 {
	c.p.init = append(c.p.init, 0)
	c.level = append(c.level, level)
	return int32(len(c.p.init) - 1)
}

func (c *compiler) constReg(v int) int32 {
	if r, ok := c.consts[v]; ok {
		return r
	}
	r := c.newReg(-1)
	c.p.init[r] = v
	c.consts[v] = r
	return r
}

func (c *compiler) emit(op opcode, a, b int32, k int) int32 {
	if k > 0 && k&(k-1) == 0 {
		switch op {
		case opDivK:
			op, k = opShr, bits.TrailingZeros(uint(k))
		case opModK:
			op, k = opAnd, k-1
		}
	}
	key := instrKey{op, a, b, k}
	if r, ok := c.memo[key]; ok {
		return r
	}
	lvl := c.level[a]
	if op < opDivK {
		lvl = max(lvl, c.level[b])
	}
	r := c.newReg(lvl)
	c.p.code = append(c.p.code, instr{op: op, dst: r, a: a, b: b, k: k, level: lvl})
	c.memo[key] = r
	return r
}

func (c *compiler) variable(name string) int32 {
	if r, ok := c.vars[name]; ok {
		return r
	}
	// A group: the row-major flat index of its leaves.
	sp := c.p.m.dom.Space
	ar, _ := sp.Lookup(name)
	r := int32(ar.First)
	for i := ar.First + 1; i < ar.Last; i++ {
		r = c.emit(opMul, r, c.constReg(sp.Leaf(i).Size), 0)
		r = c.emit(opAdd, r, int32(i), 0)
	}
	c.vars[name] = r
	return r
}

var arith = [...]opcode{Add: opAdd, Sub: opSub, Mul: opMul, Xor: opXor}

func (c *compiler) expr(e Expr) int32 {
	switch e := e.(type) {
	case Var:
		return c.variable(e.name)
	case Const:
		return c.constReg(e.value)
	case *Binary:
		a := c.expr(e.x)
		switch e.op {
		case Div:
			return c.emit(opDivK, a, 0, e.y.(Const).value)
		case Mod:
			return c.emit(opModK, a, 0, e.y.(Const).value)
		}
		b := c.expr(e.y)
		return c.emit(arith[e.op], a, b, 0)
	}
	panic("indexmap: nil expression in a checked map")
}

func run(r []int, code []instr) {
	for i := range code {
		in := &code[i]
		switch in.op {
		case opAdd:
			r[in.dst] = r[in.a] + r[in.b]
		case opSub:
			r[in.dst] = r[in.a] - r[in.b]
		case opMul:
			r[in.dst] = r[in.a] * r[in.b]
		case opXor:
			r[in.dst] = r[in.a] ^ r[in.b]
		case opDivK:
			a := r[in.a]
			q := a / in.k
			if a < 0 && q*in.k != a {
				q--
			}
			r[in.dst] = q
		case opModK:
			m := r[in.a] % in.k
			if m < 0 {
				m += in.k
			}
			r[in.dst] = m
		case opShr:
			r[in.dst] = r[in.a] >> in.k
		case opAnd:
			r[in.dst] = r[in.a] & in.k
		}
	}
}

// Map returns the map p was compiled from.
func (p *Program) Map() Map { return p.m }

// NumInstructions returns the number of instructions after sharing common
// subexpressions; a measure of evaluation cost.
func (p *Program) NumInstructions() int { return len(p.code) }

// Eval writes the image of the domain point coord into out (one entry per
// codomain leaf) and reports whether the guard holds there.
func (p *Program) Eval(coord, out []int) (bool, error) {
	if len(coord) != p.nleaves {
		return false, fmt.Errorf("indexmap: eval: %d coordinates for the %d leaf axes of %s", len(coord), p.nleaves, p.m.dom.Space)
	}
	if len(out) != len(p.results) {
		return false, fmt.Errorf("indexmap: eval: room for %d results; the map has %d", len(out), len(p.results))
	}
	for i, c := range coord {
		if c < 0 || c >= p.sizes[i] {
			return false, fmt.Errorf("indexmap: coordinate %s=%d %w [0, %d)", p.m.dom.Space.Leaf(i).Name, c, ErrOutOfRange, p.sizes[i])
		}
	}
	r := slices.Clone(p.init)
	copy(r, coord)
	run(r, p.code[p.start[0]:])
	p.outputs(r, out)
	return p.holds(r), nil
}

// outputs writes the results at the point whose registers are r.
func (p *Program) outputs(r, out []int) {
	for j, reg := range p.results {
		if reg >= 0 {
			out[j] = r[reg]
			continue
		}
		a := p.affine[j]
		v := a.Const
		for i, c := range a.Coef {
			v += c * r[i]
		}
		out[j] = v
	}
}

func (p *Program) holds(r []int) bool {
	for _, g := range p.guard {
		if !g.op.holds(r[g.x], r[g.y]) {
			return false
		}
	}
	return true
}

// A Table is a map tabulated over its whole domain in flat order.
type Table struct {
	// Width is the number of codomain leaves.
	Width int
	// Values holds the image of domain point i at Values[i*Width : (i+1)*Width].
	Values []int
	// Valid[i] reports whether the guard holds at point i; nil when the map
	// has no guard (every point is valid).
	Valid []bool
}

// At returns the image of domain point i.
func (t Table) At(i int) []int { return t.Values[i*t.Width : (i+1)*t.Width] }

// DefaultTableLimit is the table size (points × results) that Tabulate
// allows when given no limit: 2^27 integers, 1 GiB.
const DefaultTableLimit = 1 << 27

// Tabulate evaluates p at every point of its domain, in flat order. It fails
// when the table would hold more than maxEntries integers (DefaultTableLimit
// when maxEntries ≤ 0).
func (p *Program) Tabulate(maxEntries int) (Table, error) {
	sp := p.m.dom.Space
	n := sp.Size()
	w := len(p.results)
	if maxEntries <= 0 {
		maxEntries = DefaultTableLimit
	}
	if n > maxEntries || w > 0 && n > maxEntries/w {
		return Table{}, fmt.Errorf("indexmap: table of %d points × %d results exceeds the limit of %d entries", n, w, maxEntries)
	}
	t := Table{Width: w, Values: make([]int, n*w)}
	if len(p.guard) > 0 {
		t.Valid = make([]bool, n)
	}
	if p.nleaves == 0 {
		r := slices.Clone(p.init)
		p.outputs(r, t.Values)
		if t.Valid != nil {
			t.Valid[0] = p.holds(r)
		}
		return t, nil
	}
	last := p.nleaves - 1
	rowLen := p.sizes[last]
	vp := p.vectorize()
	vecs := make([][]int, vp.nvecs)
	for i := range vecs {
		vecs[i] = make([]int, rowLen)
	}
	for x := range vecs[0] {
		vecs[0][x] = x
	}
	// column returns result j (or a guard operand) over the row: a vector,
	// or nil and a scalar.
	column := func(reg int32, r []int) ([]int, int) {
		if s := vp.slot[reg]; s >= 0 {
			return vecs[s], 0
		}
		return nil, r[reg]
	}
	p.rows(func(base int, r []int) {
		vp.runVec(vecs, r)
		for j, reg := range p.results {
			if reg < 0 {
				a := p.affine[j]
				v := a.Const
				for i := 0; i < last; i++ {
					v += a.Coef[i] * r[i]
				}
				step := a.Coef[last]
				for x, at := 0, base*w+j; x < rowLen; x, at = x+1, at+w {
					t.Values[at] = v
					v += step
				}
				continue
			}
			col, c := column(reg, r)
			for x, at := 0, base*w+j; x < rowLen; x, at = x+1, at+w {
				if col != nil {
					c = col[x]
				}
				t.Values[at] = c
			}
		}
		if t.Valid == nil {
			return
		}
		valid := t.Valid[base : base+rowLen]
		for x := range valid {
			valid[x] = true
		}
		for _, g := range p.guard {
			xs, xc := column(g.x, r)
			ys, yc := column(g.y, r)
			for x := range valid {
				if xs != nil {
					xc = xs[x]
				}
				if ys != nil {
					yc = ys[x]
				}
				valid[x] = valid[x] && g.op.holds(xc, yc)
			}
		}
	})
	return t, nil
}

// rows runs the program over the domain in flat order, one row (all values
// of the last leaf) at a time: f gets the row's first flat index and the
// register file at the row's first point, and may evaluate the row's points
// by setting the last leaf and running the last leaf's instructions; it must
// leave the last leaf at 0. Between rows only the instructions whose level is
// at least the slowest changed leaf are recomputed.
func (p *Program) rows(f func(base int, r []int)) {
	r := slices.Clone(p.init)
	run(r, p.code[p.start[0]:])
	last := p.nleaves - 1
	for base := 0; ; base += p.sizes[last] {
		f(base, r)
		j := last - 1
		for j >= 0 && r[j]+1 == p.sizes[j] {
			r[j] = 0
			j--
		}
		if j < 0 {
			return
		}
		r[j]++
		run(r, p.code[p.start[j]:])
	}
}

// each calls f at every point of the domain in flat order with the register
// file there; f's results are p.outputs(r, ...). It is for enumeration.
func (p *Program) each(f func(i int, r []int)) {
	if p.nleaves == 0 {
		f(0, slices.Clone(p.init))
		return
	}
	last := p.nleaves - 1
	inner := p.code[p.start[last]:]
	p.rows(func(base int, r []int) {
		for x := 0; x < p.sizes[last]; x++ {
			if x > 0 {
				r[last] = x
				run(r, inner)
			}
			f(base+x, r)
		}
		r[last] = 0
	})
}

// Tabulate compiles m and evaluates it at every point of its domain.
func (m Map) Tabulate() (Table, error) {
	p, err := m.Compile()
	if err != nil {
		return Table{}, err
	}
	return p.Tabulate(0)
}

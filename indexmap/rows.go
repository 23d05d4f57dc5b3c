package indexmap

// Row-at-a-time evaluation for Tabulate: the instructions that depend on the
// last (fastest) leaf run once per row over vectors of the row's length, so
// instruction dispatch is paid per row rather than per point.

type vecInstr struct {
	op     opcode
	dst    int // vector slot
	a, b   int // vector slot or scalar register
	av, bv bool
	k      int
}

type vecProgram struct {
	code  []vecInstr
	slot  []int // register → vector slot, or -1
	nvecs int
}

// vectorize lowers the last leaf's instructions to vector instructions.
func (p *Program) vectorize() vecProgram {
	last := p.nleaves - 1
	vp := vecProgram{slot: make([]int, len(p.init)), nvecs: 1}
	for i := range vp.slot {
		vp.slot[i] = -1
	}
	vp.slot[last] = 0
	operand := func(reg int32) (int, bool) {
		if s := vp.slot[reg]; s >= 0 {
			return s, true
		}
		return int(reg), false
	}
	for _, in := range p.code[p.start[last]:] {
		vi := vecInstr{op: in.op, k: in.k}
		vi.a, vi.av = operand(in.a)
		if in.op < opDivK {
			vi.b, vi.bv = operand(in.b)
		}
		vi.dst = vp.nvecs
		vp.slot[in.dst] = vp.nvecs
		vp.nvecs++
		vp.code = append(vp.code, vi)
	}
	return vp
}

// runVec evaluates the vector instructions for one row; r holds the scalar
// registers of the row.
func (vp *vecProgram) runVec(vecs [][]int, r []int) {
	for _, in := range vp.code {
		d := vecs[in.dst]
		switch {
		case in.op >= opDivK:
			unaryVec(in.op, d, vecs[in.a], in.k)
		case in.av && in.bv:
			binaryVV(in.op, d, vecs[in.a], vecs[in.b])
		case in.av:
			binaryVS(in.op, d, vecs[in.a], r[in.b])
		default:
			binarySV(in.op, d, r[in.a], vecs[in.b])
		}
	}
}

func unaryVec(op opcode, d, x []int, k int) {
	x = x[:len(d)]
	switch op {
	case opShr:
		for i := range d {
			d[i] = x[i] >> k
		}
	case opAnd:
		for i := range d {
			d[i] = x[i] & k
		}
	case opDivK:
		for i := range d {
			d[i] = floorDiv(x[i], k)
		}
	default:
		for i := range d {
			d[i] = floorMod(x[i], k)
		}
	}
}

func binaryVV(op opcode, d, x, y []int) {
	x, y = x[:len(d)], y[:len(d)]
	switch op {
	case opAdd:
		for i := range d {
			d[i] = x[i] + y[i]
		}
	case opSub:
		for i := range d {
			d[i] = x[i] - y[i]
		}
	case opMul:
		for i := range d {
			d[i] = x[i] * y[i]
		}
	default:
		for i := range d {
			d[i] = x[i] ^ y[i]
		}
	}
}

func binaryVS(op opcode, d, x []int, y int) {
	x = x[:len(d)]
	switch op {
	case opAdd:
		for i := range d {
			d[i] = x[i] + y
		}
	case opSub:
		for i := range d {
			d[i] = x[i] - y
		}
	case opMul:
		for i := range d {
			d[i] = x[i] * y
		}
	default:
		for i := range d {
			d[i] = x[i] ^ y
		}
	}
}

func binarySV(op opcode, d []int, x int, y []int) {
	if op != opSub {
		binaryVS(op, d, y, x) // commutative
		return
	}
	y = y[:len(d)]
	for i := range d {
		d[i] = x - y[i]
	}
}

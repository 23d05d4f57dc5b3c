package conversion

import (
	"slices"
	"strconv"

	"github.com/cklplan/cklplan/storage"
)

// A word is where a source element (or one 32-bit half of a 64-bit one)
// sits for the destination thread: its own register (Round -1) or a
// temporary it received.
type word struct {
	Round, Reg, Bit, Bits int
}

// ownWords are the registers of a value in slot s of a b-bit type.
func ownWords(s, b int) []word {
	if b > 32 {
		return []word{{-1, s * b / 32, 0, 32}, {-1, s*b/32 + 1, 0, 32}}
	}
	return []word{{-1, s * b / 32, s * b % 32, b}}
}

// registerPlan assembles every destination register from the words each
// route's element sits in (words(i) for route i; nil: the thread's own
// source registers) and counts the instructions of the plan RegisterPlan
// describes. Words received from other threads carry the moved type: the
// destination's when the source narrowed it.
func (p *problem) registerPlan(routes []Route, words func(i int) []word) *RegisterPlan {
	fromBits, convert := p.src.bits, p.src.elem != p.dst.elem
	if words != nil && p.convertAt(Mechanism{Via: SharedMemory}) == "source" {
		fromBits, convert = p.dst.bits, false
	}
	if words == nil {
		words = func(i int) []word { return ownWords(routes[i].Src.Slot, p.src.bits) }
	}
	tb := p.dst.bits
	rp := &RegisterPlan{FromBits: fromBits, ToBits: tb}
	type unitKey struct {
		t   Thread
		reg int
	}
	units := map[unitKey][]Piece{}
	var order []unitKey
	for i, r := range routes {
		reg, bit := r.Dst.Slot*tb/32, r.Dst.Slot*tb%32
		if tb > 32 {
			reg, bit = r.Dst.Slot*tb/32, 0
		}
		k := unitKey{r.Dst.Thread, reg}
		if _, ok := units[k]; !ok {
			order = append(order, k)
		}
		for j, w := range words(i) {
			to := bit
			if tb > 32 && !convert {
				to = 32 * j
			}
			units[k] = append(units[k], Piece{Round: w.Round, Reg: w.Reg, Bit: w.Bit, Bits: w.Bits, ToBit: to})
		}
	}
	// Per warp and destination register: the distinct patterns of its lanes.
	type warpUnit struct {
		block, warp, reg int
	}
	patterns := map[warpUnit]map[string]opCount{}
	for _, k := range order {
		pieces := units[k]
		slices.SortFunc(pieces, func(a, b Piece) int { return a.ToBit - b.ToBit })
		c := p.countOp(pieces, fromBits, convert)
		rp.Ops = append(rp.Ops, RegisterOp{Thread: k.t, Reg: k.reg, Kind: c.kind, Pieces: pieces})
		wu := warpUnit{k.t.Block, k.t.Warp, k.reg}
		if patterns[wu] == nil {
			patterns[wu] = map[string]opCount{}
		}
		patterns[wu][patternKey(pieces)] = c
	}
	for _, pats := range patterns {
		allRename := true
		cvt := 0
		for _, c := range pats {
			rp.Prmt += c.prmt
			rp.BitOps += c.bits
			cvt = max(cvt, c.cvt)
			allRename = allRename && c.kind == "rename"
		}
		rp.Cvt += cvt
		rp.Selects += len(pats) - 1
		if allRename && len(pats) == 1 {
			rp.Renames++
		}
	}
	return rp
}

type opCount struct {
	kind            string
	prmt, cvt, bits int
}

// patternKey writes the pieces as "round.reg.bit.bits.toBit;" each.
func patternKey(pieces []Piece) string {
	b := make([]byte, 0, 16*len(pieces))
	for _, pc := range pieces {
		for i, n := range [...]int{pc.Round, pc.Reg, pc.Bit, pc.Bits, pc.ToBit} {
			if i > 0 {
				b = append(b, '.')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ';')
	}
	return string(b)
}

// countOp counts the instructions that assemble one destination register
// from its pieces.
func (p *problem) countOp(pieces []Piece, fromBits int, convert bool) opCount {
	tb := p.dst.bits
	if convert {
		pair := 1
		if pairedCvt(p.src.elem, p.dst.elem) {
			pair = 2
		}
		n := len(pieces)
		cvt := (n + pair - 1) / pair
		c := opCount{kind: "cvt", cvt: cvt}
		if tb < 32 && cvt > 1 {
			if tb >= 8 {
				c.prmt = cvt - 1
			} else {
				c.bits = 2 * (cvt - 1)
			}
		}
		return c
	}
	regs := map[[2]int]bool{}
	inPlace := true
	for _, pc := range pieces {
		regs[[2]int{pc.Round, pc.Reg}] = true
		if pc.Bit != pc.ToBit%32 {
			inPlace = false
		}
	}
	whole := tb >= 32 || len(pieces)*fromBits == 32
	switch {
	case len(regs) == 1 && inPlace && whole:
		return opCount{kind: "rename"}
	case fromBits < 8:
		return opCount{kind: "bits", bits: 2 * len(pieces)}
	}
	return opCount{kind: "prmt", prmt: max(1, len(regs)-1)}
}

// pairedCvt reports whether PTX converts two values of type from to type to
// in one cvt (cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32,
// cvt.rn.satfinite.e4m3x2.f32, cvt.rn.satfinite.e5m2x2.f32, their f16x2
// sources, and cvt.rn.f16x2.e4m3x2 / e5m2x2).
func pairedCvt(from, to storage.ElementType) bool {
	f8 := func(t storage.ElementType) bool { return t == storage.F8E4M3 || t == storage.F8E5M2 }
	switch {
	case from == storage.F32 && (to == storage.F16 || to == storage.BF16 || f8(to)):
		return true
	case from == storage.F16 && f8(to):
		return true
	case f8(from) && to == storage.F16:
		return true
	}
	return false
}

// sourceConversion counts what a narrowing source does before the move:
// per warp, the most values any lane converts, paired where PTX pairs them,
// and the prmts packing four 8-bit results into a register.
func (p *problem) sourceConversion(rp *RegisterPlan, routes []Route) {
	if p.src.elem == p.dst.elem || p.dst.bits >= p.src.bits {
		return
	}
	used := map[Thread]map[int]bool{}
	for _, r := range routes {
		if used[r.Src.Thread] == nil {
			used[r.Src.Thread] = map[int]bool{}
		}
		used[r.Src.Thread][r.Src.Slot] = true
	}
	type wk struct{ b, w int }
	perWarp := map[wk]int{}
	for t, slots := range used {
		k := wk{t.Block, t.Warp}
		perWarp[k] = max(perWarp[k], len(slots))
	}
	pair := 1
	if pairedCvt(p.src.elem, p.dst.elem) {
		pair = 2
	}
	for _, n := range perWarp {
		rp.SourceCvt += (n + pair - 1) / pair
		if p.dst.bits == 8 {
			rp.SourcePrmt += (n + 3) / 4
		}
	}
}

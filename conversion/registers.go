package conversion

import (
	"slices"

	"github.com/cklplan/cklplan/storage"
)

// A word is where a source element (or one 32-bit half of a 64-bit one)
// sits for the destination thread: its own register (Round -1) or a
// temporary it received.
type word struct {
	Round, Reg, Bit, Bits int
}

// appendOwnWords appends the registers of a value in slot s of a b-bit
// type to ws: registerPlan asks for the words of every element of a tile,
// and appending into one buffer spares an allocation each.
func appendOwnWords(ws []word, s, b int) []word {
	if b > 32 {
		return append(ws, word{-1, s * b / 32, 0, 32}, word{-1, s*b/32 + 1, 0, 32})
	}
	return append(ws, word{-1, s * b / 32, s * b % 32, b})
}

// registerPlan assembles every destination register from the words each
// route's element sits in (words(ws, i) appends route i's to ws; nil: the
// thread's own source registers) and counts the instructions of the plan
// RegisterPlan describes. Words received from other threads carry the
// moved type: the destination's when the source narrowed it.
func (p *problem) registerPlan(routes []Route, words func(ws []word, i int) []word) *RegisterPlan {
	fromBits, convert := p.src.bits, p.src.elem != p.dst.elem
	if words != nil && p.convertAt(Mechanism{Via: SharedMemory}) == "source" {
		fromBits, convert = p.dst.bits, false
	}
	if words == nil {
		words = func(ws []word, i int) []word { return appendOwnWords(ws, routes[i].Src.Slot, p.src.bits) }
	}
	tb := p.dst.bits
	rp := &RegisterPlan{FromBits: fromBits, ToBits: tb}
	type unitKey struct {
		t   Thread
		reg int
	}
	type unit struct {
		unitKey
		pieces []Piece
	}
	// The units in order of first appearance, and the unit of each route.
	units := make([]unit, 0, len(routes)*min(tb, 32)/32+1)
	unitOf := make([]int, len(routes))
	regOf := func(r Route) (reg, bit int) {
		if tb > 32 {
			return r.Dst.Slot * tb / 32, 0
		}
		return r.Dst.Slot * tb / 32, r.Dst.Slot * tb % 32
	}
	if dnv := len(p.dst.slotOf); p.inDestinationOrder(routes) {
		// Route i is in executor i/dnv: a unit's index is found in a
		// table by executor and register instead of a map by thread.
		nregs := (dnv*tb + 31) / 32
		id := make([]int, len(p.dst.threads)*nregs)
		for i, r := range routes {
			reg, _ := regOf(r)
			x := i/dnv*nregs + reg
			if id[x] == 0 {
				units = append(units, unit{unitKey: unitKey{r.Dst.Thread, reg}})
				id[x] = len(units)
			}
			unitOf[i] = id[x] - 1
		}
	} else {
		index := make(map[unitKey]int, len(routes))
		for i, r := range routes {
			reg, _ := regOf(r)
			k := unitKey{r.Dst.Thread, reg}
			u, ok := index[k]
			if !ok {
				u = len(units)
				index[k] = u
				units = append(units, unit{unitKey: k})
			}
			unitOf[i] = u
		}
	}
	// Every unit's pieces, in route order, share one array: count them,
	// then fill each unit's share.
	ws := make([]word, 0, len(routes))
	start := make([]int, len(routes)+1)
	counts := make([]int, len(units))
	for i := range routes {
		ws = words(ws, i)
		start[i+1] = len(ws)
		counts[unitOf[i]] += start[i+1] - start[i]
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	all := make([]Piece, total)
	off := 0
	for u, n := range counts {
		units[u].pieces = all[off : off : off+n]
		off += n
	}
	for i, r := range routes {
		_, bit := regOf(r)
		u := &units[unitOf[i]]
		for j, w := range ws[start[i]:start[i+1]] {
			to := bit
			if tb > 32 && !convert {
				to = 32 * j
			}
			u.pieces = append(u.pieces, Piece{Round: w.Round, Reg: w.Reg, Bit: w.Bit, Bits: w.Bits, ToBit: to})
		}
	}
	// Per warp and destination register (a group): the distinct patterns
	// of its lanes. A warp's lanes mostly share a pattern, so a group's
	// distinct patterns are few and are found by comparing pieces; the
	// groups are found in a table by warp and register, the warp the
	// destination's dense index (units are destination threads).
	type group struct {
		patterns  [][]Piece
		cvt       int
		allRename bool
	}
	nregs := (len(p.dst.slotOf)*tb + 31) / 32
	groupOf := make([]int32, p.dst.nThreads/p.dst.lanes*nregs) // 1 + index in groups; 0: none yet
	groups := make([]group, 0, len(units)/32+1)
	rp.Ops = make([]RegisterOp, 0, len(units))
	for _, u := range units {
		pieces := u.pieces
		slices.SortFunc(pieces, func(a, b Piece) int { return a.ToBit - b.ToBit })
		c := p.countOp(pieces, fromBits, convert)
		rp.Ops = append(rp.Ops, RegisterOp{Thread: u.t, Reg: u.reg, Kind: c.kind, Pieces: pieces})
		x := (u.t.Block*p.dst.warps+u.t.Warp)*nregs + u.reg
		if groupOf[x] == 0 {
			groups = append(groups, group{allRename: true})
			groupOf[x] = int32(len(groups))
		}
		g := &groups[groupOf[x]-1]
		if slices.ContainsFunc(g.patterns, func(q []Piece) bool { return slices.Equal(q, pieces) }) {
			continue
		}
		g.patterns = append(g.patterns, pieces)
		rp.Prmt += c.prmt
		rp.BitOps += c.bits
		g.cvt = max(g.cvt, c.cvt)
		g.allRename = g.allRename && c.kind == "rename"
	}
	for _, g := range groups {
		rp.Cvt += g.cvt
		rp.Selects += len(g.patterns) - 1
		if g.allRename && len(g.patterns) == 1 {
			rp.Renames++
		}
	}
	return rp
}

type opCount struct {
	kind            string
	prmt, cvt, bits int
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
	// A register holds at most 32 pieces: a linear search of the distinct
	// registers beats a map.
	var regArr [8][2]int
	regs := regArr[:0]
	inPlace := true
	for _, pc := range pieces {
		if r := [2]int{pc.Round, pc.Reg}; !slices.Contains(regs, r) {
			regs = append(regs, r)
		}
		if pc.Bit != pc.ToBit%32 {
			inPlace = false
		}
	}
	whole := tb >= 32 || len(pieces)*fromBits == 32
	switch {
	case len(regs) == 1 && inPlace && whole:
		return opCount{kind: "rename"}
	case fromBits < 8:
		return opCount{kind: "bits", bits: 2 * fields(pieces)}
	}
	return opCount{kind: "prmt", prmt: max(1, len(regs)-1)}
}

// fields counts the bit fields that assemble a register of sub-byte pieces
// (sorted by ToBit): a run of pieces adjacent in one source word and in the
// destination, shifted alike, moves as one field, a shift and a masked merge
// (lop3) however many elements it holds.
func fields(pieces []Piece) int {
	n := 0
	for i, pc := range pieces {
		if i > 0 {
			q := pieces[i-1]
			if pc.Round == q.Round && pc.Reg == q.Reg && pc.Bit == q.Bit+q.Bits && pc.ToBit == q.ToBit+q.Bits {
				continue
			}
		}
		n++
	}
	return n
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

// inDestinationOrder reports whether route i is to a place of the
// destination's executor i/NumValues, as routes and memoryRoutes list them.
func (p *problem) inDestinationOrder(routes []Route) bool {
	dnv := len(p.dst.slotOf)
	if dnv == 0 || len(routes) > len(p.dst.threads)*dnv {
		return false
	}
	for i, r := range routes {
		if r.Dst.Thread != p.dst.threads[i/dnv] {
			return false
		}
	}
	return true
}

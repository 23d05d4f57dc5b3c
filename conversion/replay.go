package conversion

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// A cell is one bit of a register or of memory: which element it belongs
// to (the flat destination tile index plus one; 0 for none), which bit of
// that element's current representation it is, and whether that
// representation is the destination's type (after a cvt, or when the types
// agree) rather than the source's.
type cell struct {
	elem int32
	bit  int16
	conv bool
}

// Replay executes a witness bit by bit on the source's registers, using
// only the witness's own schedule (register pieces, shuffle rounds, memory
// accesses at their addresses), and checks that every destination register
// slot ends up holding exactly the element the destination's ownership
// gives it, in all its bits, in the destination's type (a value whose type
// changes passes through one cvt of the whole source element, at the
// source when the witness converts there). It also checks every route
// against both distributions, and what the cost reads beside the bits: a
// register op counted as a free rename is one whole register in place,
// every memory access reaches its level's memory (the block's own shared
// memory, its cluster's, global memory), each lane takes part in a warp
// access once, at an address aligned to the access's width, the shared
// scratch's addresses are its layout's (MemoryPlan.Layout, parsed by
// storage) for the tile points the lanes name and hold, the wavefronts of
// each shared-memory access (through a cluster, each access local to its
// block) are storage's bank model's for its addresses and width and the
// totals their sums, no two stores write one bit, and a barrier of the right scope separates the stores
// from the loads: bar.sync between threads of one block, a cluster barrier
// across blocks of a cluster, a kernel boundary across clusters or when
// Options.KernelBoundary says the source is another kernel's; and the
// barriers per tile are exactly the plan's: two bar.sync through shared
// memory and two cluster barriers through a cluster's (publish, and free
// the scratch for the next tile), through global memory two of the scope
// the data crosses, or one kernel boundary. The error lists the first few
// places that differ.
func Replay(src, dst *distribution.Distribution, opts Options, w *Witness) error {
	p, err := newProblem(src, dst, opts)
	if err != nil {
		return err
	}
	var bad []string
	fail := func(format string, args ...any) {
		if len(bad) < 8 {
			bad = append(bad, fmt.Sprintf(format, args...))
		}
	}
	// The routes: one per destination place, each from a source place that
	// holds the element.
	if len(w.Routes) != len(p.dstPlaces) {
		fail("%d routes for %d destination places", len(w.Routes), len(p.dstPlaces))
	}
	for i, r := range w.Routes {
		if i >= len(p.dstPlaces) {
			break
		}
		if r.Dst != p.dstPlaces[i] || r.Element != p.dstElem[i] {
			fail("route %d: destination %+v element %d, want %+v element %d", i, r.Dst, r.Element, p.dstPlaces[i], p.dstElem[i])
		}
		found := false
		for _, o := range p.owners[r.Element] {
			found = found || o == r.Src
		}
		if !found {
			fail("route %d: source %+v does not hold element %v", i, r.Src, p.coords(r.Element))
		}
	}

	// The source registers: in the source type for register moves, in the
	// moved type (after a narrowing at the source) otherwise.
	fb, conv := p.src.bits, p.src.elem == p.dst.elem
	if w.Mechanism.Via > RegisterPermute && w.ConvertAt == "source" {
		fb, conv = p.dst.bits, true
	}
	nvSrc := src.NumValues()
	files := map[Thread][]cell{}
	for t, places := range p.owners {
		for _, o := range places {
			f := files[o.Thread]
			if f == nil {
				f = make([]cell, regBits(nvSrc, fb))
				files[o.Thread] = f
			}
			for b := range fb {
				f[o.Slot*fb+b] = cell{int32(t + 1), int16(b), conv}
			}
		}
	}
	type tempKey struct {
		t     Thread
		round int
	}
	temps := map[tempKey][]cell{}
	read := func(src []cell, at, n int) []cell {
		out := make([]cell, n)
		if at >= 0 && at+n <= len(src) {
			copy(out, src[at:at+n])
		}
		return out
	}
	if sp := w.Shuffle; sp != nil {
		for _, ws := range sp.Warps {
			for r, round := range ws.Rounds {
				for l, from := range round.From {
					if from < 0 {
						continue
					}
					if from >= len(round.Send) || round.Send[from] < 0 {
						fail("warp %d.%d round %d: lane %d reads lane %d, which offers nothing", ws.Block, ws.Warp, r, l, from)
						continue
					}
					s := files[Thread{ws.Block, ws.Warp, from}]
					temps[tempKey{Thread{ws.Block, ws.Warp, l}, r}] = read(s, 32*round.Send[from], 32)
				}
			}
		}
	}
	for _, mp := range []*MemoryPlan{w.Shared, w.Cluster, w.Global} {
		if mp == nil {
			continue
		}
		// Each memory is the level's: a block's own shared memory, one of
		// its cluster's, or global memory; the loads wait for a barrier
		// (or a kernel boundary) after the stores.
		reach := func(t Thread, memory int) bool {
			switch mp {
			case w.Shared:
				return memory == t.Block
			case w.Cluster:
				return memory >= 0 && p.sameCluster(memory, t.Block)
			}
			return memory == -1
		}
		mb := fb
		// Each lane once per warp access, at an address aligned to the
		// access's width.
		lanesOnce := func(what string, a MemAccess) {
			if a.Vector < 1 || a.Vector*mb > 128 || a.Vector&(a.Vector-1) != 0 {
				fail("%s of warp %d.%d: a vector of %d %d-bit elements", what, a.Block, a.Warp, a.Vector, mb)
				return
			}
			var seen [storage.WarpSize]bool
			for _, la := range a.Lanes {
				switch {
				case la.Lane < 0 || la.Lane >= storage.WarpSize || seen[la.Lane]:
					fail("%s of warp %d.%d: lane %d is not one distinct lane of the warp", what, a.Block, a.Warp, la.Lane)
				case la.Bit%int64(a.Vector*mb) != 0:
					fail("%s of warp %d.%d: lane %d accesses bit %d, not aligned to its %d bits", what, a.Block, a.Warp, la.Lane, la.Bit, a.Vector*mb)
				default:
					seen[la.Lane] = true
				}
			}
		}
		// The shared scratch's addresses are its layout's (storage's text
		// form, parsed): every lane's run of Vector elements from its tile
		// point lies where the layout puts them, and holds them.
		var layout *storage.Layout
		if mp == w.Shared {
			layout = p.replayLayout(mp, fail)
		}
		laidOut := func(what string, a MemAccess, la LaneAccess, cells []cell) {
			if layout == nil {
				return
			}
			if len(la.Tile) != len(p.tileSizes) {
				fail("%s of warp %d.%d: lane %d names tile point %v, not a point of the tile %v", what, a.Block, a.Warp, la.Lane, la.Tile, p.tileSizes)
				return
			}
			c := slices.Clone(la.Tile)
			last := len(c) - 1
			for i := range a.Vector {
				c[last] = la.Tile[last] + i
				at, err := layout.BitOffset(c)
				switch {
				case err != nil:
					fail("%s of warp %d.%d: lane %d: element %d of its run: %v", what, a.Block, a.Warp, la.Lane, i, err)
					return
				case int64(at) != la.Bit+int64(i*mb):
					fail("%s of warp %d.%d: lane %d accesses %v at bit %d, where the layout %q puts it at bit %d", what, a.Block, a.Warp, la.Lane, c, la.Bit+int64(i*mb), mp.Layout, at)
					return
				}
				if e := cells[i*mb].elem; e != 0 && int(e-1) != flatten(c, p.tileSizes) {
					fail("%s of warp %d.%d: lane %d accesses %v at bit %d, which holds %v", what, a.Block, a.Warp, la.Lane, c, la.Bit+int64(i*mb), p.coords(int(e-1)))
					return
				}
			}
		}
		type written struct {
			c cell
			t Thread
		}
		mem := map[int]map[int64]written{}
		for _, a := range mp.Stores {
			lanesOnce("a store", a)
			for _, la := range a.Lanes {
				t := Thread{a.Block, a.Warp, la.Lane}
				if !reach(t, la.Memory) {
					fail("%+v stores into the memory of block %d", t, la.Memory)
				}
				s := files[t]
				if mem[la.Memory] == nil {
					mem[la.Memory] = map[int64]written{}
				}
				stored := read(s, la.Slot*mb, a.Vector*mb)
				laidOut("a store", a, la, stored)
				for b, c := range stored {
					at := la.Bit + int64(b)
					if _, twice := mem[la.Memory][at]; twice {
						fail("%+v stores bit %d of memory %d, which another store writes", t, at, la.Memory)
					}
					mem[la.Memory][at] = written{c, t}
				}
			}
		}
		// The scope the loads' data crosses from its stores, and the
		// barrier that orders them.
		scope := Identity
		if p.opts.KernelBoundary {
			scope = GlobalMemory
		}
		for _, a := range mp.Loads {
			lanesOnce("a load", a)
			for _, la := range a.Lanes {
				t := Thread{a.Block, a.Warp, la.Lane}
				if !reach(t, la.Memory) {
					fail("%+v loads from the memory of block %d", t, la.Memory)
				}
				n := a.Vector * mb
				tmp := make([]cell, max(n, 32))
				for b := range n {
					wr, ok := mem[la.Memory][la.Bit+int64(b)]
					tmp[b] = wr.c
					switch {
					case !ok || wr.t.Block == t.Block:
					case p.sameCluster(wr.t.Block, t.Block):
						scope = max(scope, ClusterSharedMemory)
					default:
						scope = GlobalMemory
					}
				}
				laidOut("a load", a, la, tmp)
				temps[tempKey{t, la.Temp}] = tmp
			}
		}
		// The wavefronts the cost reads are the bank model's for the
		// addresses (shared memory; through a cluster, the accesses whose
		// lanes all reach their own block's), and the totals their sums.
		if mp == w.Shared || mp == w.Cluster {
			align := 4
			if layout != nil {
				align = layout.BaseAlign()
			}
			replayWavefronts(mp, mb, align, fail)
		}
		switch {
		case len(mp.Loads) == 0:
		case mp.Barriers+mp.ClusterBarriers+mp.Launches == 0:
			fail("%s: the loads follow the stores with no barrier", w.Mechanism)
		case scope == GlobalMemory && mp.Launches == 0:
			fail("%s: the loads follow the stores with no kernel boundary, and read what other clusters (or another kernel) wrote", w.Mechanism)
		case scope == ClusterSharedMemory && mp.ClusterBarriers+mp.Launches == 0:
			fail("%s: the loads follow the stores with no cluster barrier, and read what other blocks wrote", w.Mechanism)
		}
		// The barriers per tile are the plan's, as the cost counts them:
		// two (publish, and free the scratch for the next tile) of the
		// mechanism's scope; through global memory, of the scope the data
		// crosses (bar.sync inside a block, cluster barriers inside a
		// cluster), or one kernel boundary beyond.
		var want [3]int // bar.sync, cluster barriers, kernel boundaries
		switch {
		case mp == w.Shared:
			want = [3]int{2, 0, 0}
		case mp == w.Cluster:
			want = [3]int{0, 2, 0}
		case scope <= SharedMemory:
			want = [3]int{2, 0, 0}
		case scope == ClusterSharedMemory:
			want = [3]int{0, 2, 0}
		default:
			want = [3]int{0, 0, 1}
		}
		if got := [3]int{mp.Barriers, mp.ClusterBarriers, mp.Launches}; len(mp.Loads) > 0 && got != want {
			fail("%s: %d bar.sync, %d cluster barriers and %d kernel boundaries per tile, where the plan takes %d, %d and %d", w.Mechanism, got[0], got[1], got[2], want[0], want[1], want[2])
		}
	}

	// The destination registers.
	tb := p.dst.bits
	nvDst := dst.NumValues()
	out := map[Thread][]cell{}
	for _, t := range p.dst.threads {
		out[t] = make([]cell, regBits(nvDst, tb))
	}
	if w.Mechanism.Via == Identity {
		for t := range out {
			copy(out[t], files[t])
		}
	}
	if rp := w.Registers; rp != nil {
		for _, op := range rp.Ops {
			o := out[op.Thread]
			if op.Kind == "rename" && !isRename(op.Pieces, rp.FromBits, rp.ToBits) {
				fail("%+v register %d: a rename (no instruction) that moves bits or gathers registers", op.Thread, op.Reg)
			}
			for _, pc := range op.Pieces {
				var from []cell
				if pc.Round < 0 {
					from = read(files[op.Thread], 32*pc.Reg+pc.Bit, pc.Bits)
				} else {
					from = read(temps[tempKey{op.Thread, pc.Round}], 32*pc.Reg+pc.Bit, pc.Bits)
				}
				to := 32*op.Reg + pc.ToBit
				if op.Kind != "cvt" {
					if to+len(from) <= len(o) {
						copy(o[to:], from)
					}
					continue
				}
				// A conversion reads one whole element of the source type and
				// writes it anew in the destination's.
				e := from[0].elem
				for b, c := range from {
					if c.elem != e || int(c.bit) != b || c.conv {
						e = 0
					}
				}
				if e == 0 || len(from) != p.src.bits {
					fail("%+v register %d: cvt reads bits that are not one whole element of type %v", op.Thread, op.Reg, p.src.elem)
					continue
				}
				for b := range tb {
					if to+b < len(o) {
						o[to+b] = cell{e, int16(b), true}
					}
				}
			}
		}
	}
	for i, d := range p.dstPlaces {
		o := out[d.Thread]
		want := int32(p.dstElem[i] + 1)
		for b := range tb {
			if c := o[d.Slot*tb+b]; c.elem != want || int(c.bit) != b || !c.conv {
				got := "nothing"
				switch {
				case c.elem > 0 && !c.conv:
					got = fmt.Sprintf("bit %d of %v, unconverted from %v", c.bit, p.coords(int(c.elem-1)), p.src.elem)
				case c.elem > 0:
					got = fmt.Sprintf("bit %d of %v", c.bit, p.coords(int(c.elem-1)))
				}
				fail("%+v slot %d bit %d: holds %s, want bit %d of %v", d.Thread, d.Slot, b, got, b, p.coords(int(want-1)))
				break
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("conversion: replaying %s from %q to %q:\n\t%s", w.Mechanism, src.Name(), dst.Name(), strings.Join(bad, "\n\t"))
	}
	return nil
}

// replayLayout parses the layout of a shared plan's scratch and checks
// that it is a shared-memory layout of the moved type over the tile; nil
// (with the failure reported) when it is not.
func (p *problem) replayLayout(mp *MemoryPlan, fail func(string, ...any)) *storage.Layout {
	l, err := storage.Parse(mp.Layout)
	if err != nil {
		fail("the shared scratch's layout %q: %v", mp.Layout, err)
		return nil
	}
	leaves := l.Tile().Leaves()
	same := len(leaves) == len(p.tileAxes)
	for i := 0; same && i < len(leaves); i++ {
		same = leaves[i].Name == p.tileAxes[i].Name && leaves[i].Size == p.tileAxes[i].Size
	}
	switch {
	case l.Memory() != storage.Shared:
		fail("the shared scratch's layout %q is in %v memory", mp.Layout, l.Memory())
	case l.Element() != p.moved():
		fail("the shared scratch's layout %q holds %v, not the moved %v", mp.Layout, l.Element(), p.moved())
	case !same:
		fail("the shared scratch's layout %q is over the tile %v, not the destination's", mp.Layout, l.Tile())
	default:
		return &l
	}
	return nil
}

// replayWavefronts checks the wavefronts of every access of mp whose lanes
// all reach their own block's shared memory against storage's bank model
// for its addresses and width (the worst over the base residues modulo 4
// bytes that a base alignment of align bytes allows, as
// storage.Layout.Wavefronts counts), those of the others against 0 (a
// cluster's remote accesses), and the plan's totals against their sums.
func replayWavefronts(mp *MemoryPlan, mb, align int, fail func(string, ...any)) {
	for _, side := range []struct {
		what  string
		op    storage.Op
		as    []MemAccess
		total int
	}{{"store", storage.Store, mp.Stores, mp.StoreWavefronts}, {"load", storage.Load, mp.Loads, mp.LoadWavefronts}} {
		sum := 0
		for k, a := range side.as {
			sum += a.Wavefronts
			local := len(a.Lanes) > 0
			for _, la := range a.Lanes {
				local = local && la.Memory == a.Block
			}
			want := 0
			for base := int64(0); local && base < storage.BankBytes; base += int64(max(align, 1)) {
				lanes := make([]storage.LaneAddress, 0, len(a.Lanes))
				for _, la := range a.Lanes {
					lanes = append(lanes, storage.LaneAddress{Lane: la.Lane, Byte: base + la.Bit/8})
				}
				wf, err := storage.CountWavefronts(side.op, a.Vector*mb/8, lanes)
				if err != nil {
					fail("%s %d of warp %d.%d: %v", side.what, k, a.Block, a.Warp, err)
					break
				}
				want = max(want, wf.Total)
			}
			if a.Wavefronts != want {
				fail("%s %d of warp %d.%d: %d wavefronts claimed, the bank model gives its addresses %d", side.what, k, a.Block, a.Warp, a.Wavefronts, want)
			}
		}
		if sum != side.total {
			fail("%d %s wavefronts claimed in all, the accesses' sum is %d", side.total, side.what, sum)
		}
	}
}

// regBits is the size in bits of a register file of n values of b bits,
// rounded up to whole registers.
func regBits(n, b int) int { return (n*b + 31) / 32 * 32 }

// isRename reports whether pieces are one whole register taken as it is:
// every piece from one register (of the thread's own, or of one round), at
// the bits it holds there, filling the destination register.
func isRename(pieces []Piece, fromBits, toBits int) bool {
	for _, pc := range pieces {
		if pc.Round != pieces[0].Round || pc.Reg != pieces[0].Reg || pc.Bit != pc.ToBit%32 {
			return false
		}
	}
	return len(pieces) > 0 && (toBits >= 32 || len(pieces)*fromBits == 32)
}

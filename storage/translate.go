package storage

import (
	"slices"

	"github.com/cklplan/cklplan/indexspace"
)

// The accesses that CheapestShared costs are mostly translates of a few
// shapes: the warps of a block, and the instructions of one warp, repeat one
// lane pattern at other rows and columns of the tile. On an affine layout a
// translate's lanes sit at the same addresses moved by one distance, the
// change of the offset of its first lane; when that distance is a multiple
// of the period a layout sees (translationPeriod: whole bank words, whole
// access widths and whole swizzle periods), the translate's runs are
// aligned and contiguous exactly where the first access's are, and the bank
// model counts the same wavefronts, since moving every address by whole
// words only renames the banks (TestWavefrontsShiftInvariant). A candidate
// therefore costs each shape once per residue of that offset, lane by lane,
// and reads every other translate's cost from a table.

// An accessShape is the class of an access under translation.
type accessShape struct {
	shape  int   // the first access of the shape, or -1 where the access is always costed lane by lane
	anchor []int // the access's first active lane's point, which the shape is relative to
	leaf   int   // the leaf its vector runs along
	width  int   // bits per lane
}

// A translateKey names the accesses of one shape whose first lane has one
// residue of its offset modulo the layout's translation period.
type translateKey struct{ shape, residue int }

// translateCosts costs accesses on one layout, lane by lane once per shape
// and residue.
type translateCosts struct {
	layout   *Layout
	accesses []Access
	shapes   []accessShape        // accessShapes(layout's tile, element, accesses)
	totals   map[translateKey]int // the totals found so far
}

// total is the total wavefronts of access j, or the error that rejects it.
func (t *translateCosts) total(j int) (int, error) {
	l, s := t.layout, t.shapes[j]
	if s.shape < 0 || !l.isAffine {
		w, err := l.wavefronts(&t.accesses[j], false)
		return w.Total, err
	}
	key := translateKey{s.shape, l.aff.At(s.anchor) % l.translationPeriod(s.width)}
	if total, ok := t.totals[key]; ok {
		return total, nil
	}
	w, err := l.wavefronts(&t.accesses[j], false)
	if err == nil {
		if t.totals == nil {
			t.totals = map[translateKey]int{}
		}
		t.totals[key] = w.Total
	}
	return w.Total, err
}

// accessShapes classifies the accesses to tile under translation. An access
// gets a shape only where it would pass every check of Layout.Wavefronts
// that does not depend on the layout (lane count and points, its axis, a
// vector of whole bytes, every run inside the tile), so that the layouts'
// remaining checks, alignment and contiguity, are the ones translation
// preserves; every other access is costed lane by lane.
func accessShapes(tile indexspace.Space, elem ElementType, accesses []Access) []accessShape {
	leaves := tile.Leaves()
	out := make([]accessShape, len(accesses))
	reps := map[uint64]int{} // hash of a shape → the first access with it
	for j := range accesses {
		a := &accesses[j]
		out[j].shape = -1
		first := slices.IndexFunc(a.Lanes, func(p []int) bool { return p != nil })
		leaf, ok := vectorLeaf(tile, a.Axis)
		v, width := max(1, a.Vector), max(1, a.Vector)*elem.Bits()
		if first < 0 || !ok || a.Vector < 0 || width%8 != 0 || width > MaxVectorBits || len(a.Lanes) > WarpSize {
			continue
		}
		anchor := a.Lanes[first]
		h := uint64(14695981039346656037) // FNV-1a over the shape's integers
		mix := func(x uint64) { h = (h ^ x) * 1099511628211 }
		mix(uint64(a.Op))
		mix(uint64(v))
		mix(uint64(leaf))
		inside := true
		for _, p := range a.Lanes {
			if p == nil {
				mix(^uint64(0)) // an inactive lane
				continue
			}
			if len(p) != len(leaves) {
				inside = false
				break
			}
			for i, x := range p {
				end := x
				if i == leaf {
					end = x + v - 1
				}
				if x < 0 || end >= leaves[i].Size {
					inside = false
				}
				mix(uint64(x - anchor[i]))
			}
		}
		if !inside {
			continue
		}
		out[j].anchor, out[j].leaf, out[j].width = anchor, leaf, width
		rep, seen := reps[h]
		switch {
		case !seen:
			reps[h] = j
			out[j].shape = j
		case sameShape(a, out[j], &accesses[rep], out[rep]):
			out[j].shape = rep
		}
		// A hash shared by two shapes leaves the later one without a shape.
	}
	return out
}

// vectorLeaf is the index of the leaf an access's vector runs along, as
// Layout.Wavefronts resolves it.
func vectorLeaf(tile indexspace.Space, axis string) (int, bool) {
	if tile.NumLeaves() == 0 {
		return 0, false
	}
	if axis == "" {
		return tile.NumLeaves() - 1, true
	}
	r, ok := tile.Lookup(axis)
	return r.First, ok && r.Leaf
}

// sameShape reports whether the access a is b moved: the same direction,
// vector and leaf, the same active lanes, each at the same point relative
// to the access's anchor.
func sameShape(a *Access, sa accessShape, b *Access, sb accessShape) bool {
	if a.Op != b.Op || max(1, a.Vector) != max(1, b.Vector) || sa.leaf != sb.leaf || len(a.Lanes) != len(b.Lanes) {
		return false
	}
	for l, p := range a.Lanes {
		q := b.Lanes[l]
		if (p == nil) != (q == nil) {
			return false
		}
		for i := range p {
			if p[i]-sa.anchor[i] != q[i]-sb.anchor[i] {
				return false
			}
		}
	}
	return true
}

// translationPeriod is the distance in units by which a translate of an
// access of width bits may move on l and keep its cost: whole 4-byte bank
// words, whole access widths, and whole swizzle periods, with which the
// swizzle commutes. (l's unit divides width, so the period is whole.)
func (l *Layout) translationPeriod(width int) int {
	q := lcm(BankBytes*8, width) / l.unitBits()
	if sw, ok := l.Swizzle(); ok {
		q = lcm(q, int(sw.Period()))
	}
	return q
}

func lcm(a, b int) int {
	g, h := a, b
	for h != 0 {
		g, h = h, g%h
	}
	return a / g * b
}

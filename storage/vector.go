package storage

import (
	"fmt"
	"slices"

	"github.com/cklplan/cklplan/indexmap"
)

// MaxVectorBits is the widest vector access: 16 bytes per lane.
const MaxVectorBits = 128

// A Vector is the widest aligned vector access a layout allows along one
// tile leaf: Elements consecutive elements of that leaf, Bits wide in all,
// at consecutive and aligned memory. Limit says why it is not twice as wide.
type Vector struct {
	Axis     string
	Elements int
	Bits     int
	Limit    string
}

// Bytes is the width in bytes, rounded down (0 for a lone sub-byte element).
func (v Vector) Bytes() int { return v.Bits / 8 }

// String is, e.g., "8 elements along k (16 bytes); wider: the 16-byte maximum".
func (v Vector) String() string {
	size := fmt.Sprintf("%d bytes", v.Bits/8)
	if v.Bits%8 != 0 {
		size = fmt.Sprintf("%d bits", v.Bits)
	}
	return fmt.Sprintf("%s along %s (%s); wider: %s", plural(v.Elements, "element"), v.Axis, size, v.Limit)
}

// Vector returns the widest aligned vector along the tile leaf axis, or along
// the fastest (last) leaf when axis is "". A width of v elements qualifies
// when v is a power of two, v·Bits <= 128, v divides the leaf's size, the
// base alignment is a multiple of v·Bits, and for every tile point whose
// coordinate on the leaf is a multiple of v the v elements from it along the
// leaf lie at consecutive bit positions starting at a multiple of v·Bits.
func (l Layout) Vector(axis string) (Vector, error) {
	leaf, err := l.leafIndex(axis)
	if err != nil {
		return Vector{}, err
	}
	ebits := l.element.Bits()
	best := Vector{Axis: l.leaves[leaf].Name, Elements: 1, Bits: ebits}
	for v := 2; ; v *= 2 {
		why, err := l.vectorLimit(leaf, v)
		if err != nil {
			return Vector{}, err
		}
		if why != "" {
			best.Limit = why
			return best, nil
		}
		best.Elements, best.Bits = v, v*ebits
	}
}

func (l Layout) leafIndex(axis string) (int, error) {
	if len(l.leaves) == 0 {
		return 0, fmt.Errorf("storage: the tile %v has no axes", l.tile)
	}
	if axis == "" {
		return len(l.leaves) - 1, nil
	}
	r, ok := l.tile.Lookup(axis)
	switch {
	case !ok:
		return 0, fmt.Errorf("storage: %q is not an axis of the tile %v", axis, l.tile)
	case !r.Leaf:
		return 0, fmt.Errorf("storage: %q is a group axis of %v; vectors run along a leaf", axis, l.tile)
	}
	return r.First, nil
}

// vectorLimit returns why v elements along leaf do not form an aligned
// vector, or "" when they do.
func (l Layout) vectorLimit(leaf, v int) (string, error) {
	ebits := l.element.Bits()
	width := v * ebits
	size := l.leaves[leaf].Size
	switch {
	case width > MaxVectorBits:
		return fmt.Sprintf("the %d-byte maximum", MaxVectorBits/8), nil
	case size%v != 0:
		return fmt.Sprintf("axis %s has size %d, not a multiple of %d", l.leaves[leaf].Name, size, v), nil
	case (l.align*8)%width != 0:
		return fmt.Sprintf("base alignment %d bytes, below %d bits", l.align, width), nil
	case l.broadcast[leaf]:
		return fmt.Sprintf("axis %s is broadcast", l.leaves[leaf].Name), nil
	}
	if l.tile.Size() > MaxEnumerate {
		return l.vectorLimitAffine(leaf, v)
	}
	return l.vectorLimitEnum(leaf, v), nil
}

// vectorLimitEnum is vectorLimit's point check by enumeration in flat order.
func (l Layout) vectorLimitEnum(leaf, v int) string {
	c := make([]int, len(l.leaves))
	for flat := range l.tile.Size() {
		_ = l.tile.CoordInto(c, flat)
		if why := l.runLimit(c, leaf, v); why != "" {
			return why
		}
	}
	return ""
}

// runLimit checks the run of v elements from c along leaf (c[leaf] % v == 0
// is the caller's choice of start; other starts are skipped). c is restored.
func (l Layout) runLimit(c []int, leaf, v int) string {
	if c[leaf]%v != 0 {
		return ""
	}
	for i, b := range l.broadcast {
		if b && c[i] != 0 {
			return ""
		}
	}
	return l.laneRunLimit(c, leaf, v)
}

// vectorLimitAffine is vectorLimit for tiles too large to enumerate; it
// needs an affine, unswizzled map and reports the same first failing point
// as the enumeration in flat order would.
func (l Layout) vectorLimitAffine(leaf, v int) (string, error) {
	if _, sw := l.Swizzle(); sw || !l.isAffine {
		return "", fmt.Errorf("storage: cannot find the vector width of a %d-element tile: its address map is not affine and unswizzled, and tiles above %d elements are not enumerated", l.tile.Size(), MaxEnumerate)
	}
	c := make([]int, len(l.leaves))
	if why := l.runLimit(c, leaf, v); why != "" {
		return why, nil
	}
	// A run from the origin is aligned and contiguous; the run from any other
	// start is that run shifted by Σ stride·c, which keeps it aligned exactly
	// when every other leaf's stride (times its unit) is a multiple of the
	// width. The earliest start in flat order that breaks it is the unit
	// point of the fastest offending leaf.
	ub := l.unitBits()
	for i := len(l.leaves) - 1; i >= 0; i-- {
		if i == leaf || l.broadcast[i] || l.leaves[i].Size < 2 {
			continue
		}
		if (l.aff.Coef[i]*ub)%(v*l.element.Bits()) != 0 {
			c[i] = 1
			return l.runLimit(c, leaf, v), nil
		}
	}
	return "", nil
}

// bitText prints a bit position as "byte 6" or, inside a byte, "bit 52".
func (l Layout) bitText(pos int) string {
	if pos%8 == 0 {
		return fmt.Sprintf("byte %d", pos/8)
	}
	return fmt.Sprintf("bit %d", pos)
}

// An Access is one warp-wide access to a layout: every active lane touches
// Vector consecutive elements along the tile leaf Axis, starting at its
// tile point.
type Access struct {
	// Lanes[l] is lane l's first tile point (leaf coordinates); nil for an
	// inactive lane. At most WarpSize lanes.
	Lanes [][]int
	// Vector is the number of elements per lane; zero means 1.
	Vector int
	// Axis is the tile leaf the vector runs along; "" means the fastest leaf.
	Axis string
	// Op says whether the lanes load or store; the zero value is Load.
	Op Op
}

// AccessOf builds a load Access from a map lane → tile point (set Op for a
// store): its domain has one leaf (the lane, at most 32 values) and its
// codomain is the tile. Lanes where the guard fails are inactive.
func AccessOf(lanes indexmap.Map, vector int, axis string) (Access, error) {
	dom := lanes.Domain().Space
	if dom.NumLeaves() != 1 || dom.Size() > WarpSize {
		return Access{}, fmt.Errorf("storage: access map domain %v: want one lane axis of at most %d lanes", dom, WarpSize)
	}
	a := Access{Lanes: make([][]int, dom.Size()), Vector: vector, Axis: axis}
	for lane := range a.Lanes {
		p, ok, err := lanes.Eval([]int{lane})
		if err != nil {
			return Access{}, fmt.Errorf("storage: access map at lane %d: %v", lane, err)
		}
		if ok {
			a.Lanes[lane] = p
		}
	}
	return a, nil
}

// Wavefronts costs the access a under the bank model of doc.go. The layout
// must be in shared memory; each lane's run must be aligned and contiguous
// and cover whole bytes. Where the base alignment is below 4 bytes (the only
// case in which the base changes the count) the result is the worst case
// over the base residues the alignment allows, and Base says which residue
// attains it.
func (l Layout) Wavefronts(a Access) (Wavefronts, error) {
	return l.wavefronts(&a, true)
}

// wavefronts is Wavefronts; without detail the result has no phases, and
// nothing is allocated unless the access is rejected.
func (l *Layout) wavefronts(a *Access, detail bool) (Wavefronts, error) {
	if l.memory != Shared {
		return Wavefronts{}, fmt.Errorf("storage: the layout is in %v memory; the bank model is for shared memory", l.memory)
	}
	if len(a.Lanes) > WarpSize {
		return Wavefronts{}, fmt.Errorf("storage: %d lanes, want at most %d", len(a.Lanes), WarpSize)
	}
	leaf, err := l.leafIndex(a.Axis)
	if err != nil {
		return Wavefronts{}, err
	}
	v := a.Vector
	if v == 0 {
		v = 1
	}
	ebits := l.element.Bits()
	width := v * ebits
	if v < 0 || width%8 != 0 || width > MaxVectorBits {
		return Wavefronts{}, fmt.Errorf("storage: %d x %v = %d bits per lane: want whole bytes, at most 16", v, l.element, width)
	}
	if (l.align*8)%width != 0 {
		return Wavefronts{}, fmt.Errorf("storage: base alignment %d bytes does not allow %d-byte accesses", l.align, width/8)
	}
	var addr [WarpSize]int64
	var active [WarpSize]bool
	contiguous := l.runsContiguous(leaf, v)
	for lane, p := range a.Lanes {
		if p == nil {
			continue
		}
		start, err := l.laneStart(lane, p, leaf, v, contiguous)
		if err != nil {
			return Wavefronts{}, err
		}
		addr[lane], active[lane] = int64(start/8), true
	}
	// Moving every address by a multiple of 4 bytes renames the banks and
	// changes no count, so only the base's residue modulo 4 matters. The
	// addresses stay aligned to the access (the checks above), so the bank
	// model's own checks cannot fail here.
	var worst Wavefronts
	for base := 0; base < BankBytes; base += l.align {
		shifted := addr
		for lane := range shifted {
			shifted[lane] += int64(base)
		}
		w := countPhases(a.Op, width/8, &shifted, &active, detail)
		if base == 0 || w.Total > worst.Total {
			w.Base = base
			worst = w
		}
	}
	return worst, nil
}

// laneStart checks the run of v elements of a lane from tile point p along
// leaf and returns the bit position where it starts; contiguous is
// runsContiguous(leaf, v). It reads p and never writes it (callers may
// share their accesses across goroutines); only a failing lane, or a layout
// without an affine form, costs a copy of p.
func (l *Layout) laneStart(lane int, p []int, leaf, v int, contiguous bool) (int, error) {
	if len(p) != len(l.leaves) {
		return 0, fmt.Errorf("storage: lane %d: point %v has %d coordinates, the tile %v has %d leaves", lane, p, len(p), l.tile, len(l.leaves))
	}
	for i, x := range p {
		if x < 0 || x >= l.leaves[i].Size {
			return 0, fmt.Errorf("storage: lane %d: point %s is outside the tile %v", lane, l.point(p), l.tile)
		}
	}
	if p[leaf]+v > l.leaves[leaf].Size {
		return 0, fmt.Errorf("storage: lane %d: %d elements from %s run past axis %s of size %d", lane, v, l.point(p), l.leaves[leaf].Name, l.leaves[leaf].Size)
	}
	if l.isAffine {
		if start, ok := l.affineRun(p, leaf, v, contiguous); ok {
			return start, nil
		}
	}
	c := slices.Clone(p)
	if why := l.laneRunLimit(c, leaf, v); why != "" {
		return 0, fmt.Errorf("storage: lane %d: %s", lane, why)
	}
	return l.bitPos(c), nil
}

// runsContiguous reports whether the form of the layout alone makes every
// run of v elements along leaf contiguous once its start is aligned to the
// run's width, so that a lane's run needs no more than its start. It does
// where stepping along leaf moves the unswizzled offset by exactly one
// element, and a swizzle, if any, moves whole aligned blocks of 2^M units:
// an aligned run of a power of two units, at most 2^M, lies in one such
// block, and the swizzle keeps the low M bits, so the run's start is
// aligned after the swizzle exactly when it is before.
func (l *Layout) runsContiguous(leaf, v int) bool {
	ub := l.unitBits()
	if !l.isAffine || l.aff.Coef[leaf]*ub != l.element.Bits() {
		return false
	}
	if l.swizzle.B == 0 {
		return true
	}
	units := v * l.element.Bits() / ub
	return units&(units-1) == 0 && units <= 1<<l.swizzle.M
}

// affineRun is laneRunLimit's test for an affine layout, without its
// messages: it reports whether the v elements from c along leaf are aligned
// and contiguous, and where they start. Stepping along leaf adds the leaf's
// coefficient to the unswizzled offset, so the run needs one evaluation of
// the map and then one swizzle per element, or none when contiguous says
// the layout's form decides it (runsContiguous).
func (l *Layout) affineRun(c []int, leaf, v int, contiguous bool) (start int, ok bool) {
	ebits, ub := l.element.Bits(), l.unitBits()
	off, step := l.aff.At(c), l.aff.Coef[leaf]
	pos := func(off int) int {
		if l.swizzle.B != 0 {
			off = int(l.swizzle.Apply(int64(off)))
		}
		return off * ub
	}
	start = pos(off)
	if start%(v*ebits) != 0 {
		return 0, false
	}
	if contiguous {
		return start, true
	}
	for j := 1; j < v; j++ {
		if pos(off+j*step) != start+j*ebits {
			return 0, false
		}
	}
	return start, true
}

// laneRunLimit checks that v elements from c along leaf are contiguous and
// aligned, wherever c starts.
func (l Layout) laneRunLimit(c []int, leaf, v int) string {
	ebits := l.element.Bits()
	width := v * ebits
	start := l.bitPos(c)
	if start%width != 0 {
		return fmt.Sprintf("element %s at %s is not aligned to %d bits", l.point(c), l.bitText(start), width)
	}
	c0 := c[leaf]
	defer func() { c[leaf] = c0 }()
	for j := 1; j < v; j++ {
		c[leaf] = c0 + j
		if pos := l.bitPos(c); pos != start+j*ebits {
			return fmt.Sprintf("element %s at %s does not follow the run from %s at %s", l.point(c), l.bitText(pos), l.pointAt(c, leaf, c0), l.bitText(start))
		}
	}
	return ""
}

func (l Layout) pointAt(c []int, leaf, x int) string {
	d := append([]int(nil), c...)
	d[leaf] = x
	return l.point(d)
}

package storage

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// Config sets the physical properties of a layout. Memory and Element must
// be set; every other field works at its zero value.
type Config struct {
	Memory  MemorySpace
	Element ElementType
	// Unit is what one address step counts; zero means Elements.
	Unit AddressUnit
	// BaseAlign is the alignment of the base address in bytes, a power of
	// two. Zero means the element size (1 for sub-byte types), raised to the
	// swizzle's period when a swizzle is set.
	BaseAlign int
	// Swizzle is applied to the address in Unit; the zero value means none.
	Swizzle Swizzle
	// Broadcast names further tile axes (leaves or groups) along which
	// elements share an address, in addition to the map's own.
	Broadcast []string
}

// MaxAlign is the largest base alignment accepted, in bytes.
const MaxAlign = 1 << 30

// MaxEnumerate is the largest tile that a query enumerates point by point.
// Larger tiles are decided from the affine form of the address map; a query
// that would need to enumerate more points fails.
const MaxEnumerate = 1 << 22

// A Layout is a storage layout: an address for every point of a logical tile
// space (see doc.go for the model). Layout values are immutable; the zero
// Layout is invalid, and only New and the constructors return valid ones.
type Layout struct {
	offset  indexmap.Map // logical tile → physical offset, unswizzled
	memory  MemorySpace
	element ElementType
	unit    AddressUnit
	align   int // bytes
	swizzle Swizzle

	tile      indexspace.Space
	leaves    []indexspace.LeafAxis
	broadcast []bool                // per leaf
	address   *indexmap.ExprProgram // the unswizzled offset, compiled
	aff       indexmap.Affine       // its affine form, when isAffine
	isAffine  bool
	maxOffset int // largest unswizzled offset, in units
}

// New returns the layout that stores the tile point x at offset(x), with the
// physical properties of cfg. The map's domain must be a logical space (the
// tile), its codomain a physical space with one leaf (the offset, in cfg's
// unit), and its guard true. New checks every invariant of doc.go; alias
// errors are *AliasError and name the two colliding elements.
func New(offset indexmap.Map, cfg Config) (Layout, error) {
	l := Layout{memory: cfg.Memory, element: cfg.Element, unit: cfg.Unit, align: cfg.BaseAlign, swizzle: cfg.Swizzle}
	if err := l.fillConfig(); err != nil {
		return Layout{}, err
	}
	dom, cod := offset.Domain(), offset.Codomain()
	switch {
	case dom.Kind != indexmap.Logical:
		return Layout{}, fmt.Errorf("storage: the address map's domain is %v, want a logical tile space", dom)
	case cod.Kind != indexmap.Physical:
		return Layout{}, fmt.Errorf("storage: the address map's codomain is %v, want a physical space", cod)
	case cod.Space.NumLeaves() != 1:
		return Layout{}, fmt.Errorf("storage: the address map's codomain %v has %d leaf axes, want one (the address)", cod, cod.Space.NumLeaves())
	case !offset.Guard().IsTrue():
		return Layout{}, fmt.Errorf("storage: the address map has the guard %q: every tile element needs an address", offset.Guard())
	}
	if len(cfg.Broadcast) > 0 {
		spec := offset.Spec()
		for _, b := range cfg.Broadcast {
			if !slices.Contains(spec.Broadcast, b) {
				spec.Broadcast = append(spec.Broadcast, b)
			}
		}
		m, err := indexmap.New(spec)
		if err != nil {
			return Layout{}, fmt.Errorf("storage: broadcast: %w", err)
		}
		offset = m
	}
	l.offset = offset
	l.tile = dom.Space
	l.leaves = l.tile.Leaves()
	l.broadcast = make([]bool, len(l.leaves))
	for _, b := range offset.Broadcast() {
		r, _ := l.tile.Lookup(b)
		for i := r.First; i < r.Last; i++ {
			l.broadcast[i] = true
		}
	}
	address, err := indexmap.CompileExpr(offset.Result(0), l.tile)
	if err != nil {
		return Layout{}, fmt.Errorf("storage: the address map: %w", err)
	}
	l.address = address
	l.aff, l.isAffine = address.Affine()
	if err := l.checkAddresses(l.tile.Size() <= MaxEnumerate); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// fillConfig applies the defaults of Config and checks it.
func (l *Layout) fillConfig() error {
	if !l.memory.Valid() {
		return fmt.Errorf("storage: memory space %v: want register, shared or global", l.memory)
	}
	if !l.element.Valid() {
		return fmt.Errorf("storage: element type %v: want one of the declared types", l.element)
	}
	if l.unit == InvalidUnit {
		l.unit = Elements
	}
	if !l.unit.Valid() {
		return fmt.Errorf("storage: address unit %v: want bytes or elements", l.unit)
	}
	ebits := l.element.Bits()
	if l.unit == Bytes && ebits < 8 {
		return fmt.Errorf("storage: %v elements are %d bits wide: a byte address cannot name one; use the elements unit", l.element, ebits)
	}
	hasSwizzle := l.swizzle != Swizzle{}
	var periodBytes int
	if hasSwizzle {
		if err := l.swizzle.validate(); err != nil {
			return err
		}
		periodBits := int(l.swizzle.Period()) * l.unitBits()
		if periodBits%8 != 0 {
			return fmt.Errorf("storage: %v on %d-bit %v: its period of %d bits is not a whole number of bytes", l.swizzle, ebits, l.unit, periodBits)
		}
		periodBytes = periodBits / 8
		if l.unit == Bytes && 1<<l.swizzle.M < ebits/8 {
			return fmt.Errorf("storage: %v on bytes moves parts of %d-byte %v elements: want 2^M >= %d", l.swizzle, ebits/8, l.element, ebits/8)
		}
	}
	if l.align == 0 {
		l.align = max(1, ebits/8, periodBytes)
	}
	switch {
	case l.align < 0 || l.align > MaxAlign || bits.OnesCount(uint(l.align)) != 1:
		return fmt.Errorf("storage: base alignment %d bytes: want a power of two in [1, %d]", l.align, MaxAlign)
	case l.align < ebits/8:
		return fmt.Errorf("storage: base alignment %d bytes is below the %d-byte size of %v", l.align, ebits/8, l.element)
	case hasSwizzle && l.align%periodBytes != 0:
		return fmt.Errorf("storage: base alignment %d bytes does not cover the %d-byte period of %v", l.align, periodBytes, l.swizzle)
	}
	return nil
}

// unitBits is the size of one address step in bits.
func (l Layout) unitBits() int {
	if l.unit == Bytes {
		return 8
	}
	return l.element.Bits()
}

// slotUnits is the number of address units one element occupies.
func (l Layout) slotUnits() int {
	if l.unit == Bytes {
		return l.element.Bits() / 8
	}
	return 1
}

// Tile is the logical tile space.
func (l Layout) Tile() indexspace.Space { return l.tile }

// Offset is the address map before the swizzle: tile point → offset in Unit.
func (l Layout) Offset() indexmap.Map { return l.offset }

// Memory is the memory space.
func (l Layout) Memory() MemorySpace { return l.memory }

// Element is the element type.
func (l Layout) Element() ElementType { return l.element }

// Unit is the address unit.
func (l Layout) Unit() AddressUnit { return l.unit }

// BaseAlign is the base address alignment in bytes.
func (l Layout) BaseAlign() int { return l.align }

// Swizzle is the swizzle and whether there is one.
func (l Layout) Swizzle() (Swizzle, bool) { return l.swizzle, l.swizzle != Swizzle{} }

// Broadcast lists the declared broadcast axes in the tile's order.
func (l Layout) Broadcast() []string { return l.offset.Broadcast() }

// Equal reports whether l and m are the same layout text: same properties
// and the same address map (indexmap.Map.Equal).
func (l Layout) Equal(m Layout) bool {
	return l.memory == m.memory && l.element == m.element && l.unit == m.unit &&
		l.align == m.align && l.swizzle == m.swizzle && l.offset.Equal(m.offset)
}

// Footprint is the number of bytes the layout reserves from its base: up to
// the end of the last element, with a swizzled span rounded up to whole
// swizzle periods.
func (l Layout) Footprint() int {
	end := l.maxOffset + l.slotUnits()
	if sw, ok := l.Swizzle(); ok {
		p := int(sw.Period())
		end = (end + p - 1) / p * p
	}
	return (end*l.unitBits() + 7) / 8
}

// Address is the address map with the swizzle applied: tile point →
// swizzle(offset) in Unit, into the offset space rounded up to whole swizzle
// periods. Without a swizzle it is Offset. It fails only where indexmap
// cannot build or check the composed map (a tile too large to enumerate, or
// offsets near the 2^61 bound of index expressions).
func (l Layout) Address() (indexmap.Map, error) {
	sw, ok := l.Swizzle()
	if !ok {
		return l.offset, nil
	}
	spec := l.offset.Spec()
	spec.Results[0] = sw.expr(spec.Results[0])
	cod := spec.Codomain.Space.Leaf(0)
	p := int(sw.Period())
	size := (cod.Size + p - 1) / p * p
	sp, err := indexspace.New(spec.Codomain.Space.Name(), indexspace.Leaf(cod.Name, size))
	if err != nil {
		return indexmap.Map{}, fmt.Errorf("storage: the swizzled address space: %w", err)
	}
	spec.Codomain.Space = sp
	m, err := indexmap.New(spec)
	if err != nil {
		return indexmap.Map{}, fmt.Errorf("storage: the swizzled address map: %w", err)
	}
	return m, nil
}

// point formats a tile point as "(m=1, k=2)".
func (l Layout) point(c []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, leaf := range l.leaves {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%d", leaf.Name, c[i])
	}
	b.WriteByte(')')
	return b.String()
}

// offsetAt is the unswizzled offset of tile point c, in units: from the
// affine form when there is one (Affine.At inlines; the layout queries
// evaluate every point of a tile), else the compiled expression. c must be a
// point of the tile: every caller makes it so.
func (l *Layout) offsetAt(c []int) int {
	if l.isAffine {
		return l.aff.At(c)
	}
	off, err := l.address.Eval(c)
	if err != nil {
		panic("storage: offset of a point outside the tile: " + err.Error())
	}
	return off
}

// bitPos is the bit position of tile point c from the base.
func (l *Layout) bitPos(c []int) int {
	off := l.offsetAt(c)
	if l.swizzle.B != 0 {
		off = int(l.swizzle.Apply(int64(off)))
	}
	return off * l.unitBits()
}

// BitOffset returns the position of the element at tile point c, in bits
// from the base address.
func (l Layout) BitOffset(c []int) (int, error) {
	if l.address == nil {
		return 0, fmt.Errorf("storage: BitOffset of the zero Layout")
	}
	if _, err := l.tile.Flat(c); err != nil {
		return 0, fmt.Errorf("storage: %w", err)
	}
	return l.bitPos(c), nil
}

// An AliasError reports two tile elements that overlap in memory and do not
// differ only in broadcast axes.
type AliasError struct {
	First, Second string // the tile points, as "(m=0, k=1)"
	Offset        int    // the offset of Second, in units
	Unit          AddressUnit
}

func (e *AliasError) Error() string {
	return fmt.Sprintf("storage: elements %s and %s overlap at offset %d %v (declare a broadcast if the replication is intended)", e.First, e.Second, e.Offset, e.Unit)
}

// checkAddresses checks that offsets are non-negative, inside the codomain,
// aligned to the element in the Bytes unit, independent of broadcast axes,
// and alias-free; it also records the largest offset.
func (l *Layout) checkAddresses(enumerate bool) error {
	cod := l.offset.Codomain().Space.Leaf(0)
	slot := l.slotUnits()
	checkOne := func(c []int, off int) error {
		switch {
		case off < 0:
			return fmt.Errorf("storage: element %s at offset %d: offsets must be non-negative", l.point(c), off)
		case off >= cod.Size:
			return fmt.Errorf("storage: element %s at offset %d is outside the address space %v", l.point(c), off, l.offset.Codomain().Space)
		case off%slot != 0:
			return fmt.Errorf("storage: element %s at byte offset %d is not aligned to the %d-byte size of %v", l.point(c), off, slot, l.element)
		}
		return nil
	}
	if !enumerate {
		if !l.isAffine {
			return fmt.Errorf("storage: cannot check the address map of a %d-element tile: it is not affine, and tiles above %d elements are not enumerated", l.tile.Size(), MaxEnumerate)
		}
		return l.checkAffine(checkOne)
	}
	// Where the strides decide it, the affine check reaches enumeration's
	// verdict (and largest offset) without visiting every point; it fails
	// only undecided or with a different first witness, so enumeration still
	// decides those maps and names the same elements as always. Padded and
	// swizzled row-major tiles, which ChooseShared builds by the dozen, all
	// pass it.
	if l.isAffine && l.checkAffine(checkOne) == nil {
		return nil
	}
	l.maxOffset = 0
	type entry struct{ off, flat int }
	entries := make([]entry, 0, l.tile.Size())
	c := make([]int, len(l.leaves))
	base := make([]int, len(l.leaves))
	for flat := range l.tile.Size() {
		_ = l.tile.CoordInto(c, flat)
		off := l.offsetAt(c)
		if err := checkOne(c, off); err != nil {
			return err
		}
		l.maxOffset = max(l.maxOffset, off)
		onBroadcast := false
		for i := range c {
			base[i] = c[i]
			if l.broadcast[i] && c[i] != 0 {
				base[i], onBroadcast = 0, true
			}
		}
		if onBroadcast {
			if b := l.offsetAt(base); b != off {
				return fmt.Errorf("storage: broadcast element %s at offset %d differs from %s at offset %d: the address must not depend on a broadcast axis", l.point(c), off, l.point(base), b)
			}
			continue
		}
		entries = append(entries, entry{off / slot, flat})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(a.flat, b.flat))
	})
	for i := 1; i < len(entries); i++ {
		if entries[i].off == entries[i-1].off {
			first, _ := l.tile.Coord(entries[i-1].flat)
			second, _ := l.tile.Coord(entries[i].flat)
			return &AliasError{First: l.point(first), Second: l.point(second), Offset: entries[i].off * slot, Unit: l.unit}
		}
	}
	return nil
}

// checkAffine decides checkAddresses from the strides of an affine map
// without enumerating: it covers maps whose non-broadcast strides, sorted by
// magnitude, each exceed the span of the smaller ones (a sufficient
// condition for injectivity); other maps fail as undecided.
func (l *Layout) checkAffine(checkOne func([]int, int) error) error {
	n := len(l.leaves)
	lo, hi := make([]int, n), make([]int, n) // the points attaining the minimum and maximum offset
	for i, s := range l.aff.Coef {
		if s < 0 {
			lo[i] = l.leaves[i].Size - 1
		} else {
			hi[i] = l.leaves[i].Size - 1
		}
	}
	slot := l.slotUnits()
	unit := make([]int, n)
	if err := checkOne(unit, l.aff.Const); err != nil {
		return err
	}
	// Unit points fastest leaf first: the order in which enumeration meets them.
	var order []int
	for i := n - 1; i >= 0; i-- {
		s := l.aff.Coef[i]
		if l.leaves[i].Size < 2 {
			continue
		}
		unit[i] = 1
		if l.broadcast[i] && s != 0 {
			return fmt.Errorf("storage: broadcast element %s at offset %d differs from %s at offset %d: the address must not depend on a broadcast axis", l.point(unit), l.offsetAt(unit), l.point(make([]int, n)), l.aff.Const)
		}
		if err := checkOne(unit, l.offsetAt(unit)); err != nil {
			return err
		}
		unit[i] = 0
		if !l.broadcast[i] {
			order = append(order, i)
		}
	}
	if err := checkOne(lo, l.offsetAt(lo)); err != nil {
		return err
	}
	if err := checkOne(hi, l.offsetAt(hi)); err != nil {
		return err
	}
	l.maxOffset = l.offsetAt(hi)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(abs(l.aff.Coef[a]), abs(l.aff.Coef[b])) })
	span := 0 // in slots
	for _, i := range order {
		s := abs(l.aff.Coef[i]) / slot
		if s == 0 {
			unit[i] = 1
			return &AliasError{First: l.point(make([]int, n)), Second: l.point(unit), Offset: l.aff.Const, Unit: l.unit}
		}
		if s <= span {
			return fmt.Errorf("storage: cannot decide alias-freedom of a %d-element tile: leaf %s (stride %d) does not clear the span of the smaller strides, and tiles above %d elements are not enumerated", l.tile.Size(), l.leaves[i].Name, l.aff.Coef[i], MaxEnumerate)
		}
		span += s * (l.leaves[i].Size - 1)
	}
	return nil
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

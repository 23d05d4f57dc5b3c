package distribution

import (
	"fmt"
	"slices"

	"github.com/cklplan/cklplan/storage"
)

// A Spec declares a distribution as data: its spaces and the index-map text of
// its ownership and local storage maps. New turns a Spec into a checked
// Distribution.
type Spec struct {
	// Name identifies the distribution in reports ("mma.m16n8k16.a.f16").
	Name string
	// Executors are the executor axes, outermost first; their levels must not
	// decrease (block axes, then warp axes, then lane axes).
	Executors []ExecutorAxis
	// Locals are the local (value) axes, slowest first. Their flat row-major
	// index is the value index ("a0…a7" are values 0…7).
	Locals []Axis
	// Tile are the axes of the logical tile, slowest first.
	Tile []Axis
	// Ownership holds one index-map expression per tile axis, over the
	// executor and local axis names: executor × local → tile.
	Ownership []string
	// Storage is the index-map expression over the local axis names giving
	// the register slot of a value. Empty means the flat local index.
	Storage string
	// ValuePrefix names values in tables ("a" draws value 3 as "a3"). Empty
	// means "v".
	ValuePrefix string
	// Element is the type of every tile element; the zero value means f32.
	// Values pack into 32-bit registers in slot order: the value in slot s
	// of a b-bit type sits in register ⌊s·b/32⌋ from bit s·b mod 32 (a
	// 64-bit value takes registers 2s and 2s+1).
	Element storage.ElementType
	// BlocksPerCluster groups the blocks into thread-block clusters of this
	// many consecutive blocks (the cluster of flat block b is
	// b / BlocksPerCluster); it must divide the number of blocks. Zero
	// means 1: every block alone.
	BlocksPerCluster int
}

// A Distribution says which executor (block, warp, lane) owns which element of
// a tile, and in which register slot. It is immutable and valid: New and the
// constructors check every invariant of the package documentation before
// returning one.
type Distribution struct {
	spec Spec

	nExec, nLocal, nTile int
	execSizes            []int
	localSizes           []int
	tileSizes            []int

	owned    []int32 // [exec*nLocal+local] → flat tile index
	slotOf   []int32 // local → register slot
	localAt  []int32 // register slot → local
	ownStart []int32 // CSR over tile elements: owners of t are ownList[ownStart[t]:ownStart[t+1]]
	ownList  []int32 // exec*nLocal+local, ascending

	levelSizes [LevelLane + 1]int // product of the axis sizes of each level
	fp         Fingerprint

	typed *typedMaps // the typed index maps, built on first use (new.go)
}

// ownershipFunc evaluates the ownership map at point (executor coordinates,
// then local coordinates), writing tile coordinates into tile.
type ownershipFunc func(point, tile []int) error

// storageFunc evaluates the local storage map at local coordinates.
type storageFunc func(local []int) (int, error)

// build tabulates and checks a distribution. The spec's text fields are kept
// as given: callers pass canonical text.
func build(spec Spec, own ownershipFunc, store storageFunc) (*Distribution, error) {
	d := &Distribution{spec: cloneSpec(spec)}
	if err := d.checkShape(); err != nil {
		return nil, err
	}
	if int64(d.nExec)*int64(d.nLocal) > maxPoints {
		return nil, fmt.Errorf("distribution %q: executor × local space has more than %d points", spec.Name, maxPoints)
	}
	var problems []Problem

	// Local storage: a bijection from values onto register slots.
	d.slotOf = make([]int32, d.nLocal)
	d.localAt = make([]int32, d.nLocal)
	for i := range d.localAt {
		d.localAt[i] = -1
	}
	local := make([]int, len(d.localSizes))
	for l := 0; l < d.nLocal; l++ {
		unflatten(l, d.localSizes, local)
		s := l
		if store != nil {
			var err error
			if s, err = store(local); err != nil {
				return nil, fmt.Errorf("distribution %q: storage at %s: %w", spec.Name, d.localString(local), err)
			}
		}
		d.slotOf[l] = int32(s)
		switch {
		case s < 0 || s >= d.nLocal:
			problems = append(problems, Problem{Kind: SlotOutOfRange, Local: l, Slot: s,
				Message: fmt.Sprintf("value %s goes to register slot %d, outside 0..%d", d.localString(local), s, d.nLocal-1)})
		case d.localAt[s] >= 0:
			prev := make([]int, len(local))
			unflatten(int(d.localAt[s]), d.localSizes, prev)
			problems = append(problems, Problem{Kind: SlotShared, Local: l, Slot: s,
				Message: fmt.Sprintf("values %s and %s share register slot %d", d.localString(prev), d.localString(local), s)})
		default:
			d.localAt[s] = int32(l)
		}
	}

	// Ownership: tabulate, checking every result lies in the tile.
	d.owned = make([]int32, d.nExec*d.nLocal)
	point := make([]int, len(d.execSizes)+len(d.localSizes))
	pointSizes := append(slices.Clone(d.execSizes), d.localSizes...)
	tile := make([]int, len(d.tileSizes))
	for i := range d.owned {
		unflatten(i, pointSizes, point)
		for j := range tile {
			tile[j] = 0
		}
		if err := own(point, tile); err != nil {
			return nil, fmt.Errorf("distribution %q: ownership at %s: %w", spec.Name, d.pointString(point), err)
		}
		inside := true
		for j, c := range tile {
			if c < 0 || c >= d.tileSizes[j] {
				inside = false
			}
		}
		if !inside {
			d.owned[i] = -1
			problems = append(problems, Problem{Kind: OutsideTile, Point: i, Tile: slices.Clone(tile),
				Message: fmt.Sprintf("%s owns %s, outside the tile %s", d.pointString(point), d.tileString(tile), axesString(spec.Tile))})
			continue
		}
		d.owned[i] = int32(flatten(tile, d.tileSizes))
	}
	if len(problems) == 0 {
		if spec.Ownership == nil {
			problems = d.checkHeld() // a table: replication is where it lists copies
		} else {
			problems = d.checkOwnership()
		}
	}
	if len(problems) > 0 {
		return nil, &ValidityError{Name: spec.Name, Problems: problems}
	}
	d.index()
	d.fp = d.fingerprint()
	return d, nil
}

// checkShape validates the axes and computes the sizes.
func (d *Distribution) checkShape() error {
	s := &d.spec
	seen := map[string]string{}
	claim := func(kind, name string) error {
		if name == "" {
			return fmt.Errorf("distribution %q: %s axis with an empty name", s.Name, kind)
		}
		if prev, dup := seen[name]; dup {
			return fmt.Errorf("distribution %q: axis name %q used twice (%s and %s)", s.Name, name, prev, kind)
		}
		seen[name] = kind
		return nil
	}
	var names []string
	last := Level(0)
	for _, a := range s.Executors {
		if err := claim("executor", a.Name); err != nil {
			return err
		}
		if a.Level < LevelBlock || a.Level > LevelLane {
			return fmt.Errorf("distribution %q: executor axis %q has no level", s.Name, a.Name)
		}
		if a.Level < last {
			return fmt.Errorf("distribution %q: executor axis %q (%s) comes after a %s axis; order them block, warp, lane", s.Name, a.Name, a.Level, last)
		}
		last = a.Level
		names = append(names, a.Name)
		d.execSizes = append(d.execSizes, a.Size)
	}
	var err error
	if d.nExec, err = product("executor", names, d.execSizes); err != nil {
		return fmt.Errorf("distribution %q: %w", s.Name, err)
	}
	names = names[:0]
	for _, a := range s.Locals {
		if err := claim("local", a.Name); err != nil {
			return err
		}
		names = append(names, a.Name)
		d.localSizes = append(d.localSizes, a.Size)
	}
	if d.nLocal, err = product("local", names, d.localSizes); err != nil {
		return fmt.Errorf("distribution %q: %w", s.Name, err)
	}
	names = names[:0]
	tileSeen := map[string]bool{}
	for _, a := range s.Tile {
		if a.Name == "" || tileSeen[a.Name] {
			return fmt.Errorf("distribution %q: tile axis name %q empty or used twice", s.Name, a.Name)
		}
		tileSeen[a.Name] = true
		names = append(names, a.Name)
		d.tileSizes = append(d.tileSizes, a.Size)
	}
	if len(s.Tile) == 0 {
		return fmt.Errorf("distribution %q: the tile has no axes", s.Name)
	}
	if d.nTile, err = product("tile", names, d.tileSizes); err != nil {
		return fmt.Errorf("distribution %q: %w", s.Name, err)
	}
	for l := LevelBlock; l <= LevelLane; l++ {
		d.levelSizes[l] = 1
	}
	for _, a := range s.Executors {
		d.levelSizes[a.Level] *= a.Size
	}
	if s.Element == storage.InvalidElement {
		s.Element = storage.F32
	}
	if !s.Element.Valid() {
		return fmt.Errorf("distribution %q: element type %v is not one of the declared types", s.Name, s.Element)
	}
	if s.BlocksPerCluster == 0 {
		s.BlocksPerCluster = 1
	}
	if blocks := d.levelSizes[LevelBlock]; s.BlocksPerCluster < 0 || blocks%s.BlocksPerCluster != 0 {
		return fmt.Errorf("distribution %q: %d blocks per cluster does not divide the %d blocks", s.Name, s.BlocksPerCluster, blocks)
	}
	return nil
}

// checkHeld reports every element of a tabulated distribution that no
// executor holds.
func (d *Distribution) checkHeld() []Problem {
	held := make([]bool, d.nTile)
	for _, t := range d.owned {
		held[t] = true
	}
	var problems []Problem
	for t, h := range held {
		if !h {
			tile := d.tileCoords(t)
			problems = append(problems, Problem{Kind: NotOwned, Element: t, Point: -1, Tile: tile,
				Message: fmt.Sprintf("element %s is held by no entry", d.tileString(tile))})
		}
	}
	return problems
}

// index builds the tile → owners table.
func (d *Distribution) index() {
	d.ownStart = make([]int32, d.nTile+1)
	for _, t := range d.owned {
		d.ownStart[t+1]++
	}
	for t := 0; t < d.nTile; t++ {
		d.ownStart[t+1] += d.ownStart[t]
	}
	d.ownList = make([]int32, len(d.owned))
	next := slices.Clone(d.ownStart[:d.nTile])
	for i, t := range d.owned {
		d.ownList[next[t]] = int32(i)
		next[t]++
	}
}

func cloneSpec(s Spec) Spec {
	s.Executors = slices.Clone(s.Executors)
	s.Locals = slices.Clone(s.Locals)
	s.Tile = slices.Clone(s.Tile)
	s.Ownership = slices.Clone(s.Ownership)
	return s
}

// Name returns the distribution's name.
func (d *Distribution) Name() string { return d.spec.Name }

// Spec returns the declaration the distribution was built from (a copy), with
// the index-map text in canonical form.
func (d *Distribution) Spec() Spec { return cloneSpec(d.spec) }

// Executors returns the executor axes (a copy).
func (d *Distribution) Executors() []ExecutorAxis { return slices.Clone(d.spec.Executors) }

// Locals returns the local axes (a copy).
func (d *Distribution) Locals() []Axis { return slices.Clone(d.spec.Locals) }

// Tile returns the tile axes (a copy).
func (d *Distribution) Tile() []Axis { return slices.Clone(d.spec.Tile) }

// NumExecutors returns the number of points of the executor space.
func (d *Distribution) NumExecutors() int { return d.nExec }

// NumValues returns the number of values (register slots) each executor holds.
func (d *Distribution) NumValues() int { return d.nLocal }

// NumElements returns the number of tile elements.
func (d *Distribution) NumElements() int { return d.nTile }

// LevelSize returns how many executors of the given level the distribution
// spans (1 for a level it has no axis of).
func (d *Distribution) LevelSize(l Level) int {
	if l < LevelBlock || l > LevelLane {
		return 0
	}
	return d.levelSizes[l]
}

// Element returns the type of the tile's elements.
func (d *Distribution) Element() storage.ElementType { return d.spec.Element }

// BlocksPerCluster returns how many consecutive blocks form one thread-block
// cluster (1: none share shared memory).
func (d *Distribution) BlocksPerCluster() int { return d.spec.BlocksPerCluster }

// NumRegisters returns how many 32-bit registers each executor's values
// take, packed in slot order.
func (d *Distribution) NumRegisters() int {
	return (d.nLocal*d.spec.Element.Bits() + 31) / 32
}

// Register returns where the value in register slot s sits: the 32-bit
// register ⌊s·b/32⌋ and the bit s·b mod 32 it starts at, for a b-bit
// element type. A slot outside 0..NumValues()-1 is a caller error and
// panics.
func (d *Distribution) Register(slot int) (reg, bit int) {
	if slot < 0 || slot >= d.nLocal {
		panic(fmt.Sprintf("distribution %q: register slot %d outside 0..%d", d.spec.Name, slot, d.nLocal-1))
	}
	b := d.spec.Element.Bits()
	return slot * b / 32, slot * b % 32
}

// WithElement returns a copy of d whose elements are of type e, in the same
// register slots.
func (d *Distribution) WithElement(e storage.ElementType) (*Distribution, error) {
	if !e.Valid() {
		return nil, fmt.Errorf("distribution %q: element type %v is not one of the declared types", d.spec.Name, e)
	}
	c := *d
	c.spec = cloneSpec(d.spec)
	c.spec.Element = e
	c.fp = c.fingerprint()
	return &c, nil
}

// withClusters returns a copy of d whose blocks form clusters of n.
func (d *Distribution) withClusters(n int) (*Distribution, error) {
	if blocks := d.levelSizes[LevelBlock]; n <= 0 || blocks%n != 0 {
		return nil, fmt.Errorf("%d blocks per cluster does not divide the %d blocks", n, blocks)
	}
	c := *d
	c.spec = cloneSpec(d.spec)
	c.spec.BlocksPerCluster = n
	c.fp = c.fingerprint()
	return &c, nil
}

// WithName returns a copy of d under another name. The fingerprint does not
// depend on the name.
func (d *Distribution) WithName(name string) *Distribution {
	c := *d
	c.spec = cloneSpec(d.spec)
	c.spec.Name = name
	return &c
}

func (d *Distribution) valuePrefix() string {
	if d.spec.ValuePrefix == "" {
		return "v"
	}
	return d.spec.ValuePrefix
}

package distribution

import (
	"fmt"
)

// An Owner is one executor holding a tile element: its executor coordinates,
// the value (local coordinates) the element is, and the register slot it sits in.
type Owner struct {
	Executor []int
	// Block, Warp and Lane are the executor's flat index within each level
	// (0 for a level the distribution has no axis of): two owners with equal
	// Block and Warp are in one warp.
	Block, Warp, Lane int
	Local             []int
	Value             int // flat local index
	Slot              int
}

// A Held is one element an executor holds.
type Held struct {
	Slot  int
	Value int   // flat local index
	Local []int // local coordinates
	Tile  []int // tile coordinates
}

// Owners returns every executor holding the tile element at the given
// coordinates, in executor order (more than one only along replicated axes).
func (d *Distribution) Owners(tile ...int) ([]Owner, error) {
	if err := checkCoords("tile", d.spec.Tile, tile); err != nil {
		return nil, fmt.Errorf("distribution %q: %w", d.spec.Name, err)
	}
	t := flatten(tile, d.tileSizes)
	var out []Owner
	for _, p := range d.ownList[d.ownStart[t]:d.ownStart[t+1]] {
		e, l := int(p)/d.nLocal, int(p)%d.nLocal
		o := Owner{Executor: make([]int, len(d.execSizes)), Local: make([]int, len(d.localSizes)), Value: l, Slot: int(d.slotOf[l])}
		unflatten(e, d.execSizes, o.Executor)
		unflatten(l, d.localSizes, o.Local)
		lv := d.levelIndex(e)
		o.Block, o.Warp, o.Lane = lv[LevelBlock], lv[LevelWarp], lv[LevelLane]
		out = append(out, o)
	}
	return out, nil
}

// Holds returns what the executor at the given coordinates holds, in register
// slot order.
func (d *Distribution) Holds(executor ...int) ([]Held, error) {
	axes := make([]Axis, len(d.spec.Executors))
	for i, a := range d.spec.Executors {
		axes[i] = Axis{a.Name, a.Size}
	}
	if err := checkCoords("executor", axes, executor); err != nil {
		return nil, fmt.Errorf("distribution %q: %w", d.spec.Name, err)
	}
	e := flatten(executor, d.execSizes)
	out := make([]Held, d.nLocal)
	for s := range out {
		l := int(d.localAt[s])
		h := Held{Slot: s, Value: l, Local: make([]int, len(d.localSizes)), Tile: d.tileCoords(int(d.owned[e*d.nLocal+l]))}
		unflatten(l, d.localSizes, h.Local)
		out[s] = h
	}
	return out, nil
}

// At returns the tile coordinates that the executor holds as the given value
// (flat local index).
func (d *Distribution) At(executor []int, value int) ([]int, error) {
	axes := make([]Axis, len(d.spec.Executors))
	for i, a := range d.spec.Executors {
		axes[i] = Axis{a.Name, a.Size}
	}
	if err := checkCoords("executor", axes, executor); err != nil {
		return nil, fmt.Errorf("distribution %q: %w", d.spec.Name, err)
	}
	if value < 0 || value >= d.nLocal {
		return nil, fmt.Errorf("distribution %q: value %d outside 0..%d", d.spec.Name, value, d.nLocal-1)
	}
	return d.tileCoords(int(d.owned[flatten(executor, d.execSizes)*d.nLocal+value])), nil
}

// Slot returns the register slot of a value (flat local index).
func (d *Distribution) Slot(value int) (int, error) {
	if value < 0 || value >= d.nLocal {
		return 0, fmt.Errorf("distribution %q: value %d outside 0..%d", d.spec.Name, value, d.nLocal-1)
	}
	return int(d.slotOf[value]), nil
}

// Table returns the tabulated ownership: entry [e*NumValues()+v] is the flat
// (row-major) tile index that executor e (flat, row-major over the executor
// axes) holds as value v.
func (d *Distribution) Table() []int {
	out := make([]int, len(d.owned))
	for i, t := range d.owned {
		out[i] = int(t)
	}
	return out
}

// IdentityStorage reports whether every value sits in the register slot of
// its own index.
func (d *Distribution) IdentityStorage() bool {
	for l, s := range d.slotOf {
		if int(s) != l {
			return false
		}
	}
	return true
}

func checkCoords(what string, axes []Axis, c []int) error {
	if len(c) != len(axes) {
		return fmt.Errorf("%s coordinates %v: want %d (%s)", what, c, len(axes), axesString(axes))
	}
	for i, a := range axes {
		if c[i] < 0 || c[i] >= a.Size {
			return fmt.Errorf("%s coordinate %s=%d outside 0..%d", what, a.Name, c[i], a.Size-1)
		}
	}
	return nil
}

// levelIndex returns the (block, warp, lane) flat indices of executor e.
func (d *Distribution) levelIndex(e int) (idx [LevelLane + 1]int) {
	c := make([]int, len(d.execSizes))
	unflatten(e, d.execSizes, c)
	for i, a := range d.spec.Executors {
		idx[a.Level] = idx[a.Level]*a.Size + c[i]
	}
	return idx
}

// LevelIndex returns the flat block, warp and lane index of executor e (its
// flat index over the executor axes). An e outside 0..NumExecutors()-1 is a
// caller error and panics.
func (d *Distribution) LevelIndex(e int) (block, warp, lane int) {
	if e < 0 || e >= d.nExec {
		panic(fmt.Sprintf("distribution %q: executor %d outside 0..%d", d.spec.Name, e, d.nExec-1))
	}
	lv := d.levelIndex(e)
	return lv[LevelBlock], lv[LevelWarp], lv[LevelLane]
}

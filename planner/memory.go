package planner

import (
	"fmt"
	"math"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// sharedAccess costs moving a tile between registers (distribution d) and
// a shared-memory layout l inside one kernel: the warps of one block store
// (op Store: the tile leaves registers) or load (op Load) every value they
// hold, as wide as the values run contiguously along the tile's fastest axis
// (up to 16 bytes), then one barrier publishes the tile. Wavefronts come from
// storage's bank model of l, so a layout that conflicts with the
// distribution's access costs what it costs. The edge's renaming r relates
// the producer's tile axes to the consumer's: d's to l's on a store, l's to
// d's on a load; the axes correspond by name, in any order.
func (lw *lowering) sharedAccess(d *distribution.Distribution, l *storage.Layout, op storage.Op, r distribution.Rename) *pairInfo {
	lw.bankRuns++
	mv, err := sharedMovement(d, l, op, r)
	if err != nil {
		return &pairInfo{total: math.Inf(1), why: fmt.Sprintf("%s in shared layout %s: %v", d.Name(), l, err)}
	}
	c := lw.target.ConversionFormula(mv)
	verb := "stores"
	if op == storage.Load {
		verb = "loads"
	}
	return &pairInfo{crossing: tasks.InKernel, perTile: c.NS, origin: costmodel.Formula, through: true, load: op == storage.Load,
		detail: fmt.Sprintf("the block %s the tile in shared memory: %d warp instructions, %d wavefronts, 1 barrier; %s",
			verb, mv.SharedAccesses, mv.SharedWavefronts, c.Detail)}
}

// sharedMovement counts the accesses and wavefronts of block 0, at the
// widest vector every lane's values run along, or one value at a time where
// the layout does not keep such runs contiguous. Each element goes to
// the layout's point of its tile point, the axes matched by name under the
// renaming r (see sharedAccess).
func sharedMovement(d *distribution.Distribution, l *storage.Layout, op storage.Op, r distribution.Rename) (costmodel.Movement, error) {
	if l.Memory() != storage.Shared {
		return costmodel.Movement{}, fmt.Errorf("not a shared-memory layout")
	}
	var names []string
	for _, a := range d.Tile() {
		names = append(names, a.Name)
	}
	name := consumerName(r)
	if op == storage.Load {
		lnames, _ := layoutAxes(l)
		name = producerName(r, lnames)
	}
	tm, err := newTileMap(names, d.TileSizes(), name, l)
	if err != nil {
		return costmodel.Movement{}, fmt.Errorf("the layout's tile %v and the distribution's differ: %v", l.Tile(), err)
	}
	vector := widestVector(d)
	mv, err := sharedAccesses(d, l, tm, op, vector)
	if err != nil && vector > 1 {
		return sharedAccesses(d, l, tm, op, 1)
	}
	return mv, err
}

// widestVector is the widest run, up to 16 bytes, of values v…v+V−1 that
// are consecutive elements of the tile's fastest axis for every lane and
// every v that is a multiple of V.
func widestVector(d *distribution.Distribution) int {
	execs, values, bits := d.NumExecutors(), d.NumValues(), d.Element().Bits()
	table, sizes := d.Table(), d.TileSizes()
	last := sizes[len(sizes)-1]
	for v := max(1, 128/max(bits, 1)); v > 1; v /= 2 {
		if values%v != 0 {
			continue
		}
		ok := true
		for e := 0; e < execs && ok; e++ {
			for base := 0; base < values && ok; base += v {
				t0 := table[e*values+base]
				for i := 1; i < v && ok; i++ {
					ok = table[e*values+base+i] == t0+i && t0%last+i < last
				}
			}
		}
		if ok {
			return v
		}
	}
	return 1
}

// sharedAccesses counts block 0's warp accesses of the given vector width
// and their wavefronts under l's bank model.
func sharedAccesses(d *distribution.Distribution, l *storage.Layout, tm *tileMap, op storage.Op, vector int) (costmodel.Movement, error) {
	mv := costmodel.Movement{Mechanism: "shared_memory", Barriers: 1, Bytes: d.NumElements() * d.Element().Bits() / 8}
	values, table, sizes := d.NumValues(), d.Table(), d.TileSizes()
	// The values of a vector run along the distribution's fastest axis,
	// which must be one leaf of the layout's tile.
	axis := tm.leaf(len(sizes) - 1)
	if vector > 1 && axis == "" {
		return mv, fmt.Errorf("the distribution's fastest axis is a group of the layout's tile %v", l.Tile())
	}
	// warps[w] lists block 0's executors of warp w by lane.
	warps := map[int][]int{}
	for e := range d.NumExecutors() {
		b, w, lane := d.LevelIndex(e)
		if b != 0 {
			continue
		}
		for len(warps[w]) <= lane {
			warps[w] = append(warps[w], -1)
		}
		warps[w][lane] = e
	}
	// A replicated element is stored once, by its first copy (the lowest
	// warp, lane and slot of block 0), as conversion.Classify stores a
	// replicated source: the other copies' lanes are idle in that store.
	// Every copy loads, each thread needing its own.
	var storer []int // element → executor and slot (e·values + slot)
	if op == storage.Store {
		storer = make([]int, d.NumElements())
		for i := range storer {
			storer[i] = -1
		}
		for w := 0; w < len(warps); w++ {
			for _, e := range warps[w] {
				for k := 0; e >= 0 && k < values; k++ {
					if el := table[e*values+k]; el >= 0 && el < len(storer) && storer[el] < 0 {
						storer[el] = e*values + k
					}
				}
			}
		}
	}
	for w := 0; w < len(warps); w++ {
		if len(warps[w]) > storage.WarpSize {
			return mv, fmt.Errorf("%d lanes per warp", len(warps[w]))
		}
		for base := 0; base < values; base += vector {
			a := storage.Access{Lanes: make([][]int, len(warps[w])), Vector: vector, Axis: axis, Op: op}
			active := false
			for lane, e := range warps[w] {
				if e < 0 {
					continue
				}
				if storer != nil && !storesAny(storer, table, e*values+base, vector) {
					continue // other copies store these values
				}
				a.Lanes[lane] = make([]int, len(tm.leafSizes))
				tm.leaves(unflattenTile(table[e*values+base], sizes), a.Lanes[lane])
				active = true
			}
			if !active {
				continue // every element is stored by another copy
			}
			wf, err := l.Wavefronts(a)
			if err != nil {
				return mv, err
			}
			mv.SharedAccesses++
			mv.SharedWavefronts += wf.Total
		}
	}
	return mv, nil
}

// storesAny reports whether the values at slots at…at+vector−1 of the
// table include one that storer has stored from there.
func storesAny(storer, table []int, at, vector int) bool {
	for k := at; k < at+vector; k++ {
		if el := table[k]; el < 0 || el >= len(storer) || storer[el] == k {
			return true
		}
	}
	return false
}

// unflattenTile is the row-major coordinates of a flat tile index.
func unflattenTile(flat int, sizes []int) []int {
	c := make([]int, len(sizes))
	for i := len(sizes) - 1; i >= 0; i-- {
		c[i] = flat % sizes[i]
		flat /= sizes[i]
	}
	return c
}

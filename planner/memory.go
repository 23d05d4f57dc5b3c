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
// distribution's access costs what it costs.
func (lw *lowering) sharedAccess(d *distribution.Distribution, l *storage.Layout, op storage.Op) *pairInfo {
	mv, err := sharedMovement(d, l, op)
	if err != nil {
		return &pairInfo{total: math.Inf(1), why: fmt.Sprintf("%s in shared layout %s: %v", d.Name(), l, err)}
	}
	c := lw.target.ConversionFormula(mv)
	verb := "stores"
	if op == storage.Load {
		verb = "loads"
	}
	return &pairInfo{crossing: tasks.InKernel, perTile: c.NS, origin: costmodel.Formula,
		detail: fmt.Sprintf("the block %s the tile in shared memory: %d warp instructions, %d wavefronts, 1 barrier; %s",
			verb, mv.SharedAccesses, mv.SharedWavefronts, c.Detail)}
}

// sharedMovement counts the accesses and wavefronts of block 0.
func sharedMovement(d *distribution.Distribution, l *storage.Layout, op storage.Op) (costmodel.Movement, error) {
	mv := costmodel.Movement{Mechanism: "shared_memory", Barriers: 1}
	if l.Memory() != storage.Shared {
		return mv, fmt.Errorf("not a shared-memory layout")
	}
	if len(l.Tile().Leaves()) != len(d.Tile()) {
		return mv, fmt.Errorf("the layout's tile %v and the distribution's differ", l.Tile())
	}
	execs := d.NumExecutors()
	values := d.NumValues()
	bits := d.Element().Bits()
	table := d.Table()
	sizes := d.TileSizes()
	coords := func(flat int) []int {
		c := make([]int, len(sizes))
		for i := len(sizes) - 1; i >= 0; i-- {
			c[i] = flat % sizes[i]
			flat /= sizes[i]
		}
		return c
	}
	// warps[w] lists block 0's executors of warp w by lane.
	warps := map[int][]int{}
	lanes := 0
	for e := range execs {
		b, w, lane := d.LevelIndex(e)
		if b != 0 {
			continue
		}
		for len(warps[w]) <= lane {
			warps[w] = append(warps[w], -1)
		}
		warps[w][lane] = e
		lanes = max(lanes, lane+1)
	}
	if lanes > storage.WarpSize {
		return mv, fmt.Errorf("%d lanes per warp", lanes)
	}
	mv.Bytes = d.NumElements() * bits / 8
	// The widest vector every lane's values run along: values v…v+V−1 are
	// consecutive elements of the fastest axis for every lane and every v
	// that is a multiple of V.
	last := sizes[len(sizes)-1]
	vector := 1
	for v := max(1, 128/max(bits, 1)); v > 1; v /= 2 {
		if values%v != 0 {
			continue
		}
		ok := true
		for e := 0; e < execs && ok; e++ {
			for base := 0; base < values && ok; base += v {
				t0 := table[e*values+base]
				for i := 1; i < v; i++ {
					t := table[e*values+base+i]
					if t != t0+i || t0%last+i >= last {
						ok = false
						break
					}
				}
			}
		}
		if ok {
			vector = v
			break
		}
	}
	for w := 0; w < len(warps); w++ {
		lanesOf := warps[w]
		for base := 0; base < values; base += vector {
			a := storage.Access{Lanes: make([][]int, len(lanesOf)), Vector: vector, Op: op}
			for lane, e := range lanesOf {
				if e >= 0 {
					a.Lanes[lane] = coords(table[e*values+base])
				}
			}
			wf, err := l.Wavefronts(a)
			if err != nil && vector > 1 {
				return sharedMovementScalar(d, l, op, mv)
			}
			if err != nil {
				return mv, err
			}
			mv.SharedAccesses++
			mv.SharedWavefronts += wf.Total
		}
	}
	return mv, nil
}

// sharedMovementScalar counts one access per value, for layouts that do not
// keep a lane's run contiguous.
func sharedMovementScalar(d *distribution.Distribution, l *storage.Layout, op storage.Op, mv costmodel.Movement) (costmodel.Movement, error) {
	mv.SharedAccesses, mv.SharedWavefronts = 0, 0
	values := d.NumValues()
	table := d.Table()
	sizes := d.TileSizes()
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
	for w := 0; w < len(warps); w++ {
		for v := range values {
			a := storage.Access{Lanes: make([][]int, len(warps[w])), Vector: 1, Op: op}
			for lane, e := range warps[w] {
				if e < 0 {
					continue
				}
				flat := table[e*values+v]
				c := make([]int, len(sizes))
				for i := len(sizes) - 1; i >= 0; i-- {
					c[i] = flat % sizes[i]
					flat /= sizes[i]
				}
				a.Lanes[lane] = c
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

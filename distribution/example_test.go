package distribution_test

import (
	"fmt"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// The hand-written A operand declaration of "Composable Kernel Language" is
// the built-in atom.
func ExampleNew() {
	lhs, err := distribution.New(distribution.Spec{
		Name:      "lhs",
		Executors: []distribution.ExecutorAxis{{Name: "lane", Size: 32, Level: distribution.LevelLane}},
		Locals:    []distribution.Axis{{Name: "kHalf", Size: 2}, {Name: "rowHalf", Size: 2}, {Name: "pair", Size: 2}},
		Tile:      []distribution.Axis{{Name: "m", Size: 16}, {Name: "k", Size: 16}},
		Ownership: []string{"lane / 4 + rowHalf * 8", "lane % 4 * 2 + pair + kHalf * 8"},
		Storage:   "kHalf * 4 + rowHalf * 2 + pair",
		Element:   storage.F16,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := distribution.Builtin("mma.m16n8k16.a.f16")
	fmt.Println(lhs.Equal(a))
	held, _ := lhs.Holds(5)
	for _, h := range held {
		fmt.Print(h.Tile, " ")
	}
	fmt.Println()
	// Output:
	// true
	// [1 2] [1 3] [9 2] [9 3] [1 10] [1 11] [9 10] [9 11]
}

func ExampleDistribution_Owners() {
	c, _ := distribution.Builtin("mma.m16n8k16.c.f32")
	owners, _ := c.Owners(9, 3)
	for _, o := range owners {
		fmt.Printf("lane %d holds it as c%d in register %d\n", o.Executor[0], o.Value, o.Slot)
	}
	// Output: lane 5 holds it as c3 in register 3
}

// A 2×2 warp grid over (m, n) shares each A element between the two warps of
// a row: warp_n is replicated.
func ExampleTileAtom() {
	atom, _ := distribution.Builtin("mma.m16n8k16.a.f16")
	a, err := distribution.TileAtom(atom, distribution.Tiling{
		Name:   "cta.a",
		Warps:  []distribution.GridAxis{{Name: "warp_m", Size: 2, Along: "m"}, {Name: "warp_n", Size: 2, Along: distribution.AlongReplicated}},
		Repeat: map[string]int{"m": 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Tile(), a.Executors(), a.Locals())
	fmt.Println(a.Spec().Ownership[0])
	owners, _ := a.Owners(40, 3)
	for _, o := range owners {
		fmt.Println("warp_m, warp_n, lane =", o.Executor, "value", o.Value)
	}
	// Output:
	// [m:64 k:16] [warp_m:2@warp warp_n:2@warp* lane:32@lane] [rep_m:2 v:8]
	// lane / 4 + 8 * (v / 2 % 2) + 16 * warp_m + 32 * rep_m
	// warp_m, warp_n, lane = [0 0 1] value 11
	// warp_m, warp_n, lane = [0 1 1] value 11
}

func ExampleNewBlocked() {
	d, err := distribution.NewBlocked(distribution.Blocked{
		Axes: []string{"m", "n"}, Shape: []int{64, 64},
		SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Executors(), d.Locals())
	fmt.Println(d.Spec().Ownership)
	// Output:
	// [warp_m:4@warp lane_m:4@lane lane_n:8@lane] [rep_m:4 elem_n:8]
	// [16 * rep_m + 4 * warp_m + lane_m 8 * lane_n + elem_n]
}

// A 4×8 tile under a blocked encoding made for more threads: the upper half of
// lane_m holds copies (lanes 16…31 repeat lanes 0…15), drawn as "+1".
func ExampleDecodeJSON() {
	d, err := distribution.DecodeJSON([]byte(`{"name": "small", "blocked": {"axes": ["m", "n"], "shape": [4, 8],
		"size_per_thread": [1, 2], "threads_per_warp": [8, 4], "warps_per_cta": [1, 1], "order": [1, 0]}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(d.Diagram())
	owners, _ := d.Owners(3, 5)
	fmt.Println("owners of (3, 5): lanes", owners[0].Lane, owners[1].Lane)
	// Output:
	// small: tile (m:4, n:8), executors (lane_m_copy:2@lane*, lane_m:4@lane, lane_n:4@lane), values (elem_n:2)
	//
	// m\n         0         1         2         3         4         5         6         7
	//   0   T0:v0+1   T0:v1+1   T1:v0+1   T1:v1+1   T2:v0+1   T2:v1+1   T3:v0+1   T3:v1+1
	//   1   T4:v0+1   T4:v1+1   T5:v0+1   T5:v1+1   T6:v0+1   T6:v1+1   T7:v0+1   T7:v1+1
	//   2   T8:v0+1   T8:v1+1   T9:v0+1   T9:v1+1  T10:v0+1  T10:v1+1  T11:v0+1  T11:v1+1
	//   3  T12:v0+1  T12:v1+1  T13:v0+1  T13:v1+1  T14:v0+1  T14:v1+1  T15:v0+1  T15:v1+1
	// owners of (3, 5): lanes 14 30
}

package storage_test

import (
	"fmt"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/storage"
)

// A 16x64 tile of f16 in shared memory, read by ldmatrix.x4: each lane gives
// the address of one 16-byte row. Unswizzled, the eight rows of a phase share
// four banks; CUTLASS's 128-byte swizzle spreads them over all 32.
func ExampleSwizzledRowMajor() {
	tile := indexspace.MustParse("tile(m:16, k:64)")
	lanes := indexmap.MustParse("(lane:32) -> (m:16, k:64) = (lane % 8 + lane / 8 % 2 * 8, lane / 16 * 8)")
	access, err := storage.AccessOf(lanes, 8, "k")
	if err != nil {
		fmt.Println(err)
		return
	}
	plain, err := storage.RowMajor(tile, 0, storage.Config{Memory: storage.Shared, Element: storage.F16, Unit: storage.Bytes, BaseAlign: 1024})
	if err != nil {
		fmt.Println(err)
		return
	}
	swizzled, err := storage.SwizzledRowMajor(tile, storage.Swizzle128B, storage.Config{Memory: storage.Shared, Element: storage.F16})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range []storage.Layout{plain, swizzled} {
		v, _ := l.Vector("k")
		w, _ := l.Wavefronts(access)
		fmt.Println(l)
		fmt.Println("  vector:    ", v)
		fmt.Println("  ldmatrix:  ", w.Total, "wavefronts, ideal", w.Ideal)
		fmt.Println("  footprint: ", l.Footprint(), "bytes")
	}
	// Output:
	// shared f16 bytes align 1024: logical tile(m:16, k:64) -> physical(addr:2048) = (m * 128 + k * 2)
	//   vector:     8 elements along k (16 bytes); wider: the 16-byte maximum
	//   ldmatrix:   32 wavefronts, ideal 4
	//   footprint:  2048 bytes
	// shared f16 bytes align 1024 Swizzle<3,4,3>: logical tile(m:16, k:64) -> physical(addr:2048) = (m * 128 + k * 2)
	//   vector:     8 elements along k (16 bytes); wider: the 16-byte maximum
	//   ldmatrix:   4 wavefronts, ideal 4
	//   footprint:  2048 bytes
}

// The bank model on explicit byte addresses: a warp reading a column of a
// 32x32 f32 tile, unpadded and padded by one element per row.
func ExampleCountWavefronts() {
	for _, pitch := range []int64{32 * 4, 33 * 4} {
		var lanes []storage.LaneAddress
		for lane := range storage.WarpSize {
			lanes = append(lanes, storage.LaneAddress{Lane: lane, Byte: int64(lane) * pitch})
		}
		w, _ := storage.CountWavefronts(storage.Load, 4, lanes)
		fmt.Printf("row pitch %d bytes: %v\n", pitch, w)
	}
	// Output:
	// row pitch 128 bytes: 32 wavefronts (ideal 1); lanes 0-31: 32 words in bank 0
	// row pitch 132 bytes: 1 wavefront (ideal 1)
}

// Layouts have a text form that parses back; 4-bit elements pack two to a
// byte, so 32 of them make a 16-byte vector.
func ExampleParse() {
	l, err := storage.Parse("shared u4 elements align 16: logical(m:8, k:64) -> physical(addr:512) = (m * 64 + k)")
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := l.Vector("")
	bit, _ := l.BitOffset([]int{1, 3})
	fmt.Println(l)
	fmt.Println(v)
	fmt.Println("element (1, 3) at bit", bit, "= byte", bit/8, "high nibble:", bit%8 == 4)
	// Output:
	// shared u4 elements align 16: logical(m:8, k:64) -> physical(addr:512) = (m * 64 + k)
	// 32 elements along k (16 bytes); wider: the 16-byte maximum
	// element (1, 3) at bit 268 = byte 33 high nibble: true
}

// A transpose through shared memory: the warp stores a row of a 32x32 f32
// tile and loads a column. ChooseShared costs both accesses on every padded
// and swizzled candidate and keeps the cheapest, then the smallest.
func ExampleChooseShared() {
	row := storage.Access{Op: storage.Store}
	var col storage.Access
	for lane := range storage.WarpSize {
		row.Lanes = append(row.Lanes, []int{0, lane})
		col.Lanes = append(col.Lanes, []int{lane, 0})
	}
	best, all, err := storage.ChooseShared(indexspace.MustParse("tile(m:32, k:32)"), storage.F32, []storage.Access{row, col})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range all[:4] { // unpadded, then padded by 1, 2 and 4 elements
		fmt.Printf("%-100s %2d wavefronts\n", c.Layout, c.Wavefronts)
	}
	fmt.Println("...")
	fmt.Println("chosen:", best.Layout)
	fmt.Println("cost:  ", best.Accesses[0], "+", best.Accesses[1])
	// Output:
	// shared f32 bytes align 128: logical tile(m:32, k:32) -> physical(addr:4096) = (m * 128 + k * 4)      33 wavefronts
	// shared f32 bytes align 128: logical tile(m:32, k:32) -> physical(addr:4220) = (m * 132 + k * 4)       2 wavefronts
	// shared f32 bytes align 128: logical tile(m:32, k:32) -> physical(addr:4344) = (m * 136 + k * 4)       3 wavefronts
	// shared f32 bytes align 128: logical tile(m:32, k:32) -> physical(addr:4592) = (m * 144 + k * 4)       5 wavefronts
	// ...
	// chosen: shared f32 bytes align 4096 Swizzle<5,2,5>: logical tile(m:32, k:32) -> physical(addr:4096) = (m * 128 + k * 4)
	// cost:   1 wavefront (ideal 1) + 1 wavefront (ideal 1)
}

// The planner needs only the choice: CheapestShared makes ChooseShared's,
// costing each candidate only while it could still be the cheapest, and
// says how many candidates it chose among.
func ExampleCheapestShared() {
	row := storage.Access{Op: storage.Store}
	var col storage.Access
	for lane := range storage.WarpSize {
		row.Lanes = append(row.Lanes, []int{0, lane})
		col.Lanes = append(col.Lanes, []int{lane, 0})
	}
	best, considered, err := storage.CheapestShared(indexspace.MustParse("tile(m:32, k:32)"), storage.F32, []storage.Access{row, col})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("chosen among", considered, "candidates:", best.Layout)
	fmt.Println("cost:", best.Accesses[0], "+", best.Accesses[1])
	// Output:
	// chosen among 16 candidates: shared f32 bytes align 4096 Swizzle<5,2,5>: logical tile(m:32, k:32) -> physical(addr:4096) = (m * 128 + k * 4)
	// cost: 1 wavefront (ideal 1) + 1 wavefront (ideal 1)
}

package storage

import (
	"testing"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// BenchmarkCountWavefronts costs one warp access from explicit addresses:
// 16-byte rows 128 bytes apart (the unswizzled ldmatrix pattern).
func BenchmarkCountWavefronts(b *testing.B) {
	lanes := make([]LaneAddress, WarpSize)
	for l := range lanes {
		lanes[l] = LaneAddress{Lane: l, Byte: int64(128 * l)}
	}
	for b.Loop() {
		if _, err := CountWavefronts(Load, 16, lanes); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLayoutWavefronts costs ldmatrix.x4 on the swizzled 16x64 f16
// tile through the layout: tile points → checked runs → addresses → banks.
func BenchmarkLayoutWavefronts(b *testing.B) {
	l := MustParse(f16RowsSW)
	a, err := AccessOf(indexmap.MustParse(ldmatrixX4), 8, "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.Wavefronts(a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewSwizzled builds (and so checks) a swizzled 128x64 f16 tile.
func BenchmarkNewSwizzled(b *testing.B) {
	tile := indexspace.MustParse("(m:128, k:64)")
	for b.Loop() {
		if _, err := SwizzledRowMajor(tile, Swizzle128B, Config{Memory: Shared, Element: F16}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVector finds the vector width of the swizzled 128x64 f16 tile by
// enumeration.
func BenchmarkVector(b *testing.B) {
	l, err := SwizzledRowMajor(indexspace.MustParse("(m:128, k:64)"), Swizzle128B, Config{Memory: Shared, Element: F16})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.Vector(""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChooseShared picks the shared layout for a 32x32 f32 transpose
// (a row stored, a column loaded) among the 16 candidates.
func BenchmarkChooseShared(b *testing.B) {
	tile, accesses := transpose32()
	for b.Loop() {
		if _, _, err := ChooseShared(tile, F32, accesses); err != nil {
			b.Fatal(err)
		}
	}
}

// transpose32 is a 32×32 tile with a row stored and a column loaded, by one
// warp.
func transpose32() (indexspace.Space, []Access) {
	row := Access{Op: Store}
	var col Access
	for lane := range WarpSize {
		row.Lanes = append(row.Lanes, []int{0, lane})
		col.Lanes = append(col.Lanes, []int{lane, 0})
	}
	return indexspace.MustParse("(m:32, k:32)"), []Access{row, col}
}

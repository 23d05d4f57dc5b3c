package storage

import (
	"fmt"
	"testing"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// blockedToMMA is the shared-memory step of a conversion the planner costs
// for every pair of vector widths: a 64x64 f16 tile stored by a blocked
// layout (each warp instruction stores 4 rows of 8 vectors of 8 halves) and
// loaded as mma.m16n8k16 accumulator fragments (lane l reads 2 halves at
// row l/4, column l%4*2 of an 8x8 block), every store and load of one
// block's warps: 16 stores and 64 loads.
func blockedToMMA(b *testing.B) (indexspace.Space, []Access) {
	tile := indexspace.MustParse("(m:64, n:64)")
	var accesses []Access
	for i := range 16 {
		a, err := AccessOf(indexmap.MustParse(fmt.Sprintf("(lane:32) -> (m:64, n:64) = (lane / 8 + %d, lane %% 8 * 8)", 4*i)), 8, "")
		if err != nil {
			b.Fatal(err)
		}
		a.Op = Store
		accesses = append(accesses, a)
	}
	for i := range 8 {
		for j := range 8 {
			a, err := AccessOf(indexmap.MustParse(fmt.Sprintf("(lane:32) -> (m:64, n:64) = (lane / 4 + %d, lane %% 4 * 2 + %d)", 8*i, 8*j)), 2, "")
			if err != nil {
				b.Fatal(err)
			}
			accesses = append(accesses, a)
		}
	}
	return tile, accesses
}

// BenchmarkChooseSharedBlockedToMMA costs the 80 accesses of blockedToMMA
// on all 17 candidates.
func BenchmarkChooseSharedBlockedToMMA(b *testing.B) {
	tile, accesses := blockedToMMA(b)
	for b.Loop() {
		if _, _, err := ChooseShared(tile, F16, accesses); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheapestSharedBlockedToMMA makes ChooseShared's choice for
// blockedToMMA, costing candidates only as far as they could still win.
func BenchmarkCheapestSharedBlockedToMMA(b *testing.B) {
	tile, accesses := blockedToMMA(b)
	for b.Loop() {
		if _, _, err := CheapestShared(tile, F16, accesses); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheapestShared is BenchmarkChooseShared's transpose through
// CheapestShared.
func BenchmarkCheapestShared(b *testing.B) {
	tile, accesses := transpose32()
	for b.Loop() {
		if _, _, err := CheapestShared(tile, F32, accesses); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSharedCandidates builds (and so checks) the 17 candidate layouts
// of a 64x64 f16 tile.
func BenchmarkSharedCandidates(b *testing.B) {
	tile := indexspace.MustParse("(m:64, n:64)")
	for b.Loop() {
		if _, err := SharedCandidates(tile, F16); err != nil {
			b.Fatal(err)
		}
	}
}

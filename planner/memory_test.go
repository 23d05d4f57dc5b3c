package planner

import (
	"os"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// A distribution replicated over warps (the 64×64 mma A operand: the two
// warps along n hold the same elements) stores each element into shared
// memory once, from its first copy, and loads it into every copy: the
// store takes half the warp instructions of the load.
func TestReplicatedStoresOnceIntoShared(t *testing.T) {
	data, err := os.ReadFile("../examples/distributions/cta64x64.mma.a.f16.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := distribution.DecodeJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	l, err := storage.Parse("shared f16 bytes align 1024 Swizzle<3,4,3>: logical(m:64, k:64) -> physical(addr:8192) = (m * 128 + k * 2)")
	if err != nil {
		t.Fatal(err)
	}
	store, err := sharedMovement(d, &l, storage.Store)
	if err != nil {
		t.Fatal(err)
	}
	load, err := sharedMovement(d, &l, storage.Load)
	if err != nil {
		t.Fatal(err)
	}
	// 64×64 f16 values are 8 KiB: stored once, 32 lanes × 4 bytes a
	// warp instruction, that is 64 stores; every copy loads: 128.
	if store.SharedAccesses != 64 || load.SharedAccesses != 128 {
		t.Errorf("%d stores and %d loads, want 64 and 128", store.SharedAccesses, load.SharedAccesses)
	}
	if store.SharedWavefronts > load.SharedWavefronts/2 {
		t.Errorf("%d store wavefronts, more than half the loads' %d", store.SharedWavefronts, load.SharedWavefronts)
	}
}

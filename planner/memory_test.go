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
	store, err := sharedMovement(d, &l, storage.Store, nil)
	if err != nil {
		t.Fatal(err)
	}
	load, err := sharedMovement(d, &l, storage.Load, nil)
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

// A register tile stored into (or loaded from) a shared-memory layout goes
// to the layout's point of the same element: the axes correspond by name,
// under the edge's renaming, in whatever order the layout lists them. A
// 16×16 f16 tile in rows of 8 values a lane (one 16-byte vector each) is
// one store of 4 wavefronts into a row-major layout; into the transposed
// layout each value goes alone, 8 stores, and the two rows a warp writes 8
// rows apart meet in the same banks: 2 wavefronts each.
func TestSharedAccessFollowsAxisNames(t *testing.T) {
	d, err := distribution.DecodeJSON([]byte(`{"name": "rows", "element": "f16", "blocked": {"axes": ["m", "n"], "shape": [16, 16],
	  "size_per_thread": [1, 8], "threads_per_warp": [16, 2], "warps_per_cta": [1, 1], "order": [1, 0]}}`))
	if err != nil {
		t.Fatal(err)
	}
	parse := func(text string) *storage.Layout {
		l, err := storage.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		return &l
	}
	rowMajor := parse("shared f16 elements align 16: logical(m:16, n:16) -> physical(addr:256) = (m * 16 + n)")
	rowMajorListedNM := parse("shared f16 elements align 16: logical(n:16, m:16) -> physical(addr:256) = (m * 16 + n)")
	colMajor := parse("shared f16 elements align 16: logical(m:16, n:16) -> physical(addr:256) = (n * 16 + m)")
	colMajorListedNM := parse("shared f16 elements align 16: logical(n:16, m:16) -> physical(addr:256) = (n * 16 + m)")
	// Renamed: the producer's (m, n) is the consumer's (p, q).
	rowMajorPQ := parse("shared f16 elements align 16: logical(p:16, q:16) -> physical(addr:256) = (p * 16 + q)")
	transpose := distribution.Rename{"m": "n", "n": "m"}
	type want struct{ accesses, wavefronts int }
	rows, cols := want{1, 4}, want{8, 16}
	for _, tc := range []struct {
		name   string
		l      *storage.Layout
		rename distribution.Rename
		want   want
	}{
		{"row-major", rowMajor, nil, rows},
		{"row-major, axes listed (n, m)", rowMajorListedNM, nil, rows},
		{"column-major", colMajor, nil, cols},
		{"column-major, axes listed (n, m)", colMajorListedNM, nil, cols},
		{"row-major under a transposing renaming", rowMajor, transpose, cols},
		{"column-major under a transposing renaming", colMajor, transpose, rows},
		{"renamed axes", rowMajorPQ, distribution.Rename{"m": "p", "n": "q"}, rows},
	} {
		for _, op := range []storage.Op{storage.Store, storage.Load} {
			r := tc.rename
			if op == storage.Load && r != nil {
				// The layout is the producer's: the renaming runs from its
				// axes to the distribution's.
				inv := distribution.Rename{}
				for from, to := range r {
					inv[to] = from
				}
				r = inv
			}
			mv, err := sharedMovement(d, tc.l, op, r)
			if err != nil {
				t.Fatalf("%s %v: %v", tc.name, op, err)
			}
			if got := (want{mv.SharedAccesses, mv.SharedWavefronts}); got != tc.want {
				t.Errorf("%s, %v: %d accesses, %d wavefronts; want %d, %d", tc.name, op, got.accesses, got.wavefronts, tc.want.accesses, tc.want.wavefronts)
			}
		}
	}
}

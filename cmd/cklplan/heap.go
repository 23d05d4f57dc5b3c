package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// startHeap is the heap the program may reach before its first garbage
// collection.
//
// A run of cklplan is short and allocates fast: loading a 10,000-invocation
// graph builds about 45 MB, planning it about 60 MB more. Under the
// runtime's default (collect when the heap doubles, from 4 MB) that is a
// dozen collections, each marking the whole graph again, for a heap that
// is freed at exit anyway. So the first collection waits for startHeap, and
// from then on the default pacing holds: a large graph's peak memory is
// what it was, plus at most startHeap. The Go compiler starts its heap the
// same way, and for the same reason.
const startHeap = 128 << 20

// adjustStartingHeap lets the heap grow to startHeap before the first
// collection, and restores the runtime's defaults after it. GOGC or
// GOMEMLIMIT in the environment is the user's choice, and is kept.
func adjustStartingHeap() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	// No proportional pacing; the memory limit alone starts the first
	// collection.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(startHeap)
	// The sentinel is garbage from the start, so the first collection
	// queues its finalizer, which puts the defaults back.
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The first collection waits for startHeap; once it has run, the runtime's
// defaults are back.
func TestStartingHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	adjustStartingHeap()
	if got := debug.SetMemoryLimit(-1); got != startHeap {
		t.Errorf("memory limit before the first collection = %d, want %d", got, startHeap)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GOGC before the first collection = %d, want off", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) != math.MaxInt64 {
		if time.Now().After(deadline) {
			t.Fatal("the defaults are not back after collections")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after the first collection = %d, want 100", got)
	}
}

// GOGC or GOMEMLIMIT in the environment is the user's: nothing changes.
func TestStartingHeapKeepsTheEnvironment(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, map[string]string{"GOGC": "200", "GOMEMLIMIT": "1GiB"}[env])
			limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
			debug.SetGCPercent(percent)
			adjustStartingHeap()
			if got := debug.SetMemoryLimit(-1); got != limit {
				t.Errorf("memory limit = %d, want %d (unchanged)", got, limit)
			}
			if got := debug.SetGCPercent(percent); got != percent {
				t.Errorf("GOGC = %d, want %d (unchanged)", got, percent)
			}
		})
	}
}

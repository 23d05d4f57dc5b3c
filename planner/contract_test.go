package planner

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// front is the Pareto front of es by definition: the entries within the
// limit that no other entry matches or beats in both use and cost (of
// equal entries, one), by ascending use.
func front(es []paretoEntry, limit float64) []paretoEntry {
	var out []paretoEntry
	for i, e := range es {
		if e.use > limit {
			continue
		}
		dominated := false
		for j, f := range es {
			if f.use <= e.use && f.cost <= e.cost && (f != e || j < i) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(x, y paretoEntry) int { return compareFloat(x.use, y.use) })
	return out
}

// randomFront draws a front of up to n entries on a coarse grid, so that
// sums tie often.
func randomFront(rng *rand.Rand, n int) []paretoEntry {
	es := make([]paretoEntry, rng.IntN(n+1))
	for i := range es {
		es[i] = paretoEntry{use: float64(rng.IntN(8)), cost: float64(rng.IntN(8))}
	}
	return front(es, 1e9)
}

// The program's convolution of two fronts, A ⊕ B, is the front of
// {a + b : a ∈ A, b ∈ B, use(a + b) ≤ limit}.
func TestConvolveIsTheFrontOfAllSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	sc := &frontScratch{}
	for trial := range 2000 {
		a, b := randomFront(rng, 6), randomFront(rng, 6)
		limit := float64(rng.IntN(16))
		var sums []paretoEntry
		for _, x := range a {
			for _, y := range b {
				sums = append(sums, paretoEntry{x.use + y.use, x.cost + y.cost})
			}
		}
		want := front(sums, limit)
		got := sc.convolve([]paretoEntry{{-1, -1}}, a, b, limit)
		if got[0] != (paretoEntry{-1, -1}) || !slices.Equal(got[1:], want) {
			t.Fatalf("trial %d: %v ⊕ %v within %v = %v, want %v", trial, a, b, limit, got[1:], want)
		}
	}
}

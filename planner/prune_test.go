package planner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPruneClassesByKey: the one-pass classes (by each alternative's labels
// and uses) are the pairwise ones, on random alternatives with few labels,
// tied costs, uses of 0, and budgets listed twice (alike or not).
func TestPruneClassesByKey(t *testing.T) {
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 9))
		n, nports := 1+r.IntN(60), r.IntN(3)
		alts := make([]Alternative, n)
		ports := make([][]string, nports)
		for p := range ports {
			ports[p] = make([]string, n)
		}
		for a := range alts {
			alts[a].Cost = float64(r.IntN(4))
			for range r.IntN(3) {
				alts[a].Uses = append(alts[a].Uses, Use{Budget: r.IntN(2), Amount: float64(r.IntN(3))})
			}
			for p := range ports {
				ports[p][a] = fmt.Sprintf("l%d", r.IntN(3))
			}
		}
		var live []int
		for a := range alts {
			if r.IntN(5) > 0 {
				live = append(live, a)
			}
		}
		same := func(a, b int) bool {
			for _, labels := range ports {
				if labels[a] != labels[b] {
					return false
				}
			}
			return sameUses(alts[a].Uses, alts[b].Uses)
		}
		in := &instance{}
		want, got := make([]int, len(live)), make([]int, len(live))
		in.classesPairwise(alts, live, same, want)
		in.classesByKey(alts, live, ports, got)
		if !slices.Equal(want, got) {
			t.Fatalf("seed %d: pairwise %v, by key %v\nalternatives %+v\nports %v", seed, want, got, alts, ports)
		}
	}
}

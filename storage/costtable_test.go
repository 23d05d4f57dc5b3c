package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cklplan/cklplan/indexspace"
)

// Cheapest of tables that split a list of accesses in two is, by
// definition, ChooseShared on the whole list: the same layout, each
// access's total, and the same error when no candidate serves.
func TestCheapestOfTablesIsChooseShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 600 {
		tc := choiceTiles[i%len(choiceTiles)]
		tile := indexspace.MustParse(tc.tile)
		accesses := randomAccesses(rng, tile)
		best, all, err := ChooseShared(tile, tc.elem, accesses)
		layouts, lerr := SharedCandidates(tile, tc.elem)
		if lerr != nil {
			t.Fatal(lerr)
		}
		cut := rng.IntN(len(accesses) + 1)
		first := NewCostTable(tile, tc.elem, layouts, accesses[:cut])
		second := NewCostTable(tile, tc.elem, layouts, accesses[cut:])
		k, gotErr := Cheapest(first, second)
		if fmt.Sprint(gotErr) != fmt.Sprint(err) || len(layouts) != len(all) {
			t.Fatalf("%v %v, %d accesses split at %d: error %v, ChooseShared's %v", tile, tc.elem, len(accesses), cut, gotErr, err)
		}
		if err != nil {
			continue
		}
		totals := append(append([]int(nil), first.Totals(k)...), second.Totals(k)...)
		sum := first.Sum(k) + second.Sum(k)
		if !layouts[k].Equal(best.Layout) || sum != best.Wavefronts || len(totals) != len(best.Accesses) {
			t.Fatalf("%v %v, %d accesses split at %d: %v, %d wavefronts; ChooseShared %v, %d", tile, tc.elem, len(accesses), cut, layouts[k], sum, best.Layout, best.Wavefronts)
		}
		for j, w := range best.Accesses {
			if totals[j] != w.Total {
				t.Fatalf("%v %v: access %d costs %d on %v, ChooseShared %d", tile, tc.elem, j, totals[j], best.Layout, w.Total)
			}
		}
	}
}

package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cklplan/cklplan/indexspace"
)

// Cheapest of tables is, by definition, ChooseShared on the concatenation
// of their accesses: the same layout, each access's total, and the same
// error when no candidate serves. Tables are costed lazily and shared, so
// each is combined with several others, in both positions, and what an
// earlier choice costed must not change a later one.
func TestCheapestOfTablesIsChooseShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 300 {
		tc := choiceTiles[i%len(choiceTiles)]
		tile := indexspace.MustParse(tc.tile)
		layouts, err := SharedCandidates(tile, tc.elem)
		if err != nil {
			t.Fatal(err)
		}
		lists := make([][]Access, 3)
		tables := make([]*CostTable, len(lists))
		for k := range lists {
			lists[k] = randomAccesses(rng, tile)
			tables[k] = NewCostTable(tile, tc.elem, layouts, lists[k])
		}
		for _, pair := range [][2]int{{0, 1}, {2, 1}, {0, 2}, {1, 0}, {0, 1}, {2, 2}} {
			first, second := tables[pair[0]], tables[pair[1]]
			accesses := append(append([]Access(nil), lists[pair[0]]...), lists[pair[1]]...)
			best, all, err := ChooseShared(tile, tc.elem, accesses)
			k, gotErr := Cheapest(first, second)
			if fmt.Sprint(gotErr) != fmt.Sprint(err) || len(layouts) != len(all) {
				t.Fatalf("%v %v, lists %v: error %v, ChooseShared's %v", tile, tc.elem, pair, gotErr, err)
			}
			if err != nil {
				continue
			}
			totals := append(append([]int(nil), first.Totals(k)...), second.Totals(k)...)
			sum := first.Sum(k) + second.Sum(k)
			if !layouts[k].Equal(best.Layout) || sum != best.Wavefronts || len(totals) != len(best.Accesses) {
				t.Fatalf("%v %v, lists %v: %v, %d wavefronts; ChooseShared %v, %d", tile, tc.elem, pair, layouts[k], sum, best.Layout, best.Wavefronts)
			}
			for j, w := range best.Accesses {
				if totals[j] != w.Total {
					t.Fatalf("%v %v: access %d costs %d on %v, ChooseShared %d", tile, tc.elem, j, totals[j], best.Layout, w.Total)
				}
			}
		}
	}
}

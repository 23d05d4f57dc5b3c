package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cklplan/cklplan/indexspace"
)

// TestTranslatesCostTheSame checks the table of translate costs against
// the bank model lane by lane: on every candidate layout, each access,
// translates included, costs what Layout.Wavefronts counts, or is rejected
// as it rejects it.
func TestTranslatesCostTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	hits := 0
	for i := range 800 {
		tc := choiceTiles[i%len(choiceTiles)]
		tile := indexspace.MustParse(tc.tile)
		layouts, err := SharedCandidates(tile, tc.elem)
		if err != nil {
			t.Fatal(err)
		}
		accesses := randomAccesses(rng, tile)
		shapes := accessShapes(tile, tc.elem, accesses)
		for k := range layouts {
			costs := translateCosts{layout: &layouts[k], accesses: accesses, shapes: shapes}
			for j, a := range accesses {
				computed := len(costs.totals)
				got, gotErr := costs.total(j)
				w, err := layouts[k].Wavefronts(a)
				if fmt.Sprint(gotErr) != fmt.Sprint(err) || err == nil && got != w.Total {
					t.Fatalf("%v, access %d %v: %d wavefronts, error %v; the bank model counts %d, error %v", layouts[k], j, a, got, gotErr, w.Total, err)
				}
				if err == nil && shapes[j].shape >= 0 && len(costs.totals) == computed {
					hits++
				}
			}
		}
	}
	if hits < 500 {
		t.Errorf("only %d accesses costed from the table: the test checks too little", hits)
	}
}

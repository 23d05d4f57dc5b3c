package storage

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/indexspace"
)

func TestSharedCandidates(t *testing.T) {
	tests := []struct {
		name, tile string
		elem       ElementType
		want       []string // the candidates' padding or swizzle, in order
	}{
		{"f16", "(m:16, k:64)", F16, []string{"pad 0", "pad 1", "pad 2", "pad 4", "pad 8",
			"Swizzle<1,4,3>", "Swizzle<2,4,3>", "Swizzle<3,4,3>",
			"Swizzle<1,3,4>", "Swizzle<2,3,4>", "Swizzle<3,3,4>", "Swizzle<4,3,4>",
			"Swizzle<1,2,5>", "Swizzle<2,2,5>", "Swizzle<3,2,5>", "Swizzle<4,2,5>", "Swizzle<5,2,5>"}},
		{"f64 has no 4-byte chunks", "(m:8, k:16)", F64, []string{"pad 0", "pad 1", "pad 2",
			"Swizzle<1,4,3>", "Swizzle<2,4,3>", "Swizzle<3,4,3>",
			"Swizzle<1,3,4>", "Swizzle<2,3,4>", "Swizzle<3,3,4>", "Swizzle<4,3,4>"}},
		{"u4 pads only", "(m:8, k:64)", U4, []string{"pad 0", "pad 1", "pad 8", "pad 16", "pad 32"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls, err := SharedCandidates(indexspace.MustParse(tt.tile), tt.elem)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			k := indexspace.MustParse(tt.tile).Leaf(1).Size
			for _, l := range ls {
				if sw, ok := l.Swizzle(); ok {
					got = append(got, sw.String())
					// Derived from the unpadded candidate, it is the layout
					// SwizzledRowMajor builds, down to its private fields.
					built, err := SwizzledRowMajor(indexspace.MustParse(tt.tile), sw, Config{Memory: Shared, Element: tt.elem, BaseAlign: l.BaseAlign()})
					if err != nil || !reflect.DeepEqual(l, built) {
						t.Errorf("%v differs from SwizzledRowMajor's %v (%v)", l, built, err)
					}
					continue
				}
				// The pad is the row stride beyond the row, in elements.
				pitch, _ := l.BitOffset([]int{1, 0})
				got = append(got, fmt.Sprintf("pad %d", pitch/l.Element().Bits()-k))
			}
			if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("got  %s\nwant %s", strings.Join(got, ", "), strings.Join(tt.want, ", "))
			}
		})
	}
	if _, err := SharedCandidates(indexspace.MustParse("(k:4)"), InvalidElement); err == nil {
		t.Error("SharedCandidates(invalid element): no error")
	}
}

func TestChooseShared(t *testing.T) {
	rowOf := func(r int) Access { // stored
		a := Access{Op: Store}
		for lane := range WarpSize {
			a.Lanes = append(a.Lanes, []int{r, lane})
		}
		return a
	}
	colOf := func(c int) Access {
		a := Access{}
		for lane := range WarpSize {
			a.Lanes = append(a.Lanes, []int{lane, c})
		}
		return a
	}
	ldmatrix := Access{Vector: 8}
	for lane := range WarpSize {
		ldmatrix.Lanes = append(ldmatrix.Lanes, []int{lane%8 + lane/8%2*8, lane / 16 * 8})
	}
	tests := []struct {
		name     string
		tile     string
		elem     ElementType
		accesses []Access
		want     string
	}{
		// ldmatrix.x4 reads 8 rows of one 16-byte chunk per phase: only xor-ing
		// all 3 chunk bits with the row (Swizzle<3,4,3>) or a 16-byte pad
		// spreads them over 8 chunks; the swizzle needs no extra bytes.
		{"ldmatrix.x4 on f16 rows of 128 bytes", "(m:16, k:64)", F16, []Access{ldmatrix},
			"Swizzle<3,4,3>: 4 wavefronts, 2048 bytes"},
		// A transpose through shared memory: a row is stored, a column
		// loaded. Unpadded the column costs 32; padding by one element or
		// xor-ing the 32 word indices with the row (Swizzle<5,2,5>) makes
		// both accesses conflict-free, and the swizzle adds no bytes.
		{"f32 transpose", "(m:32, k:32)", F32, []Access{rowOf(0), colOf(0)},
			"Swizzle<5,2,5>: 2 wavefronts, 4096 bytes"},
		// Row access alone: the unpadded layout is already conflict-free
		// and the smallest, and comes first.
		{"f32 rows only", "(m:32, k:32)", F32, []Access{rowOf(3)},
			"pad 0: 1 wavefronts, 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			best, all, err := ChooseShared(indexspace.MustParse(tt.tile), tt.elem, tt.accesses)
			if err != nil {
				t.Fatal(err)
			}
			what := "pad 0"
			if sw, ok := best.Layout.Swizzle(); ok {
				what = sw.String()
			}
			if got := fmt.Sprintf("%s: %d wavefronts, %d bytes", what, best.Wavefronts, best.Layout.Footprint()); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if cheapest, n, err := CheapestShared(indexspace.MustParse(tt.tile), tt.elem, tt.accesses); err != nil || n != len(all) || !reflect.DeepEqual(cheapest, best) {
				t.Errorf("CheapestShared = %v wavefronts on %v of %d, %v; ChooseShared chose %v", cheapest.Wavefronts, cheapest.Layout, n, err, best.Layout)
			}
			// The choice is the minimum over every candidate that serves.
			for _, c := range all {
				if c.Rejected == "" && c.Wavefronts < best.Wavefronts {
					t.Errorf("%v costs %d < the chosen %d", c.Layout, c.Wavefronts, best.Wavefronts)
				}
			}
		})
	}
	// 16-byte vectors of f16 need 16-byte-aligned rows: pads of 1, 2 and 4
	// elements break them and are rejected, with the lane and element.
	_, all, err := ChooseShared(indexspace.MustParse("(m:16, k:64)"), F16, []Access{ldmatrix})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := all[1].Rejected, "access 0: lane 1: element (m=1, k=0) at byte 130 is not aligned to 128 bits"; got != want {
		t.Errorf("pad 1 rejected as %q, want %q", got, want)
	}
	// No layout serves a vector that runs past the tile.
	bad := Access{Lanes: [][]int{{0, 60}}, Vector: 8}
	if _, _, err := ChooseShared(indexspace.MustParse("(m:16, k:64)"), F16, []Access{bad}); err == nil || !strings.Contains(err.Error(), "no shared layout of (m:16, k:64) serves every access") {
		t.Errorf("ChooseShared(run past the tile) = %v", err)
	}
}

// randomAccesses draws up to four warp accesses to tile, each followed by up
// to three translates: rows (lanes along
// the fastest leaf), columns (lanes down the leaf before it, some lanes
// sharing a row), pairs of lanes at one point, and scattered points, with
// vectors of 1 to 16 elements, mostly along the fastest leaf, loads and
// stores, inactive lanes, and now and then a point outside the tile or a
// run past it.
func randomAccesses(rng *rand.Rand, tile indexspace.Space) []Access {
	leaves := tile.Leaves()
	fast := len(leaves) - 1
	var out []Access
	for range rng.IntN(5) {
		a := Access{Op: Op(rng.IntN(2)), Vector: []int{0, 1, 2, 4, 8, 16}[rng.IntN(6)]}
		if rng.IntN(4) == 0 {
			a.Axis = leaves[rng.IntN(len(leaves))].Name
		}
		v := max(1, a.Vector)
		pattern, origin, spread := rng.IntN(4), rng.IntN(64), 1+rng.IntN(3)
		for lane := range WarpSize - rng.IntN(3)*8 {
			if rng.IntN(10) == 0 {
				a.Lanes = append(a.Lanes, nil)
				continue
			}
			p := make([]int, len(leaves))
			for i, leaf := range leaves {
				switch pattern {
				case 0: // a row
					p[i] = origin % leaf.Size
					if i == fast {
						p[i] = lane * v % leaf.Size
					}
				case 1: // a column
					p[i] = origin * v % leaf.Size
					if i == fast-1 {
						p[i] = lane / spread % leaf.Size
					}
				case 2: // lane pairs at one point
					p[i] = (origin + lane/2*(i+1)) % leaf.Size
				default:
					p[i] = rng.IntN(leaf.Size)
				}
			}
			if rng.IntN(200) == 0 {
				p[rng.IntN(len(p))] = leaves[0].Size + 1 // outside the tile, or a run past it
			}
			a.Lanes = append(a.Lanes, p)
		}
		out = append(out, a)
		// Translates of the access, as other warps and instructions make
		// them; some leave the tile.
		for range rng.IntN(4) {
			moved := a
			moved.Lanes = make([][]int, len(a.Lanes))
			by := make([]int, len(leaves))
			for i, leaf := range leaves {
				by[i] = rng.IntN(leaf.Size/2+1) - leaf.Size/8
			}
			for l, p := range a.Lanes {
				if p != nil {
					moved.Lanes[l] = make([]int, len(p))
					for i := range p {
						moved.Lanes[l][i] = p[i] + by[i]
					}
				}
			}
			out = append(out, moved)
		}
	}
	return out
}

// choiceTiles are the tiles and element types the choice tests draw from:
// square and flat tiles, three leaves, sub-byte and 8-byte elements.
var choiceTiles = []struct {
	tile string
	elem ElementType
}{
	{"(m:16, k:64)", F16}, {"(m:32, k:32)", F32}, {"(m:64, n:64)", BF16}, {"(m:8, k:16)", F64},
	{"(a:4, m:8, k:32)", I8}, {"(m:8, k:64)", U4}, {"(m:3, k:40)", F32}, {"(m:4, k:64)", B1},
}

// TestCheapestSharedIsChooseShared checks CheapestShared against its
// definition: ChooseShared's choice, its full cost, the candidates' count,
// and the same error when no candidate serves.
func TestCheapestSharedIsChooseShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 600 {
		tc := choiceTiles[i%len(choiceTiles)]
		tile := indexspace.MustParse(tc.tile)
		accesses := randomAccesses(rng, tile)
		best, all, err := ChooseShared(tile, tc.elem, accesses)
		got, n, gotErr := CheapestShared(tile, tc.elem, accesses)
		if fmt.Sprint(gotErr) != fmt.Sprint(err) || n != len(all) || !reflect.DeepEqual(got, best) {
			t.Fatalf("%v %v, %d accesses:\nCheapestShared %v, %d wavefronts, of %d, error %v\nChooseShared   %v, %d wavefronts, of %d, error %v",
				tile, tc.elem, len(accesses), got.Layout, got.Wavefronts, n, gotErr, best.Layout, best.Wavefronts, len(all), err)
		}
	}
}

// TestConflictFreeIsIdeal checks the bound CheapestShared relies on: on
// every candidate that serves an access, the access's conflict-free cost,
// computed from tile points alone, is the ideal the bank model reports.
func TestConflictFreeIsIdeal(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 200 {
		tc := choiceTiles[i%len(choiceTiles)]
		tile := indexspace.MustParse(tc.tile)
		layouts, err := SharedCandidates(tile, tc.elem)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range randomAccesses(rng, tile) {
			bound := conflictFree(&a, tc.elem)
			for _, l := range layouts {
				if w, err := l.Wavefronts(a); err == nil && w.Ideal != bound {
					t.Fatalf("%v, access %v: conflict-free cost %d, ideal %d", l, a, bound, w.Ideal)
				}
			}
		}
	}
}

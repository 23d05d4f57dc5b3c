package distribution

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// cta64 returns the distributions of a 4-warp (2×2) CTA computing a 64×64
// tile of C from a 64×16 slice of A and a 16×64 slice of B with
// mma.m16n8k16: each warp repeats the atom 2× along m and 4× along n.
func cta64(t testing.TB, contiguous bool) (a, b, c *Distribution) {
	t.Helper()
	// The warp grid is (m, n); an operand without one of them holds copies
	// along that warp axis.
	warps := func(m, n string) []GridAxis {
		return []GridAxis{{Name: "warp_m", Size: 2, Along: m}, {Name: "warp_n", Size: 2, Along: n}}
	}
	tile := func(atom string, warps []GridAxis, repeat map[string]int) *Distribution {
		at, err := Builtin(atom)
		if err != nil {
			t.Fatal(err)
		}
		d, err := TileAtom(at, Tiling{Name: "cta." + atom, Warps: warps, Repeat: repeat, WarpContiguous: contiguous})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	return tile("mma.m16n8k16.a.f16", warps("m", AlongReplicated), map[string]int{"m": 2}),
		tile("mma.m16n8k16.b.f16", warps(AlongReplicated, "n"), map[string]int{"n": 4}),
		tile("mma.m16n8k16.c.f32", warps("m", "n"), map[string]int{"m": 2, "n": 4})
}

func TestTiledCTA64Shapes(t *testing.T) {
	a, b, c := cta64(t, false)
	for _, tc := range []struct {
		d                        *Distribution
		tile, executors, locals  string
		ownersPerElement, values int
	}{
		{a, "(m:64, k:16)", "(warp_m:2@warp, warp_n:2@warp*, lane:32@lane)", "(rep_m:2, v:8)", 2, 16},
		{b, "(k:16, n:64)", "(warp_m:2@warp*, warp_n:2@warp, lane:32@lane)", "(rep_n:4, v:4)", 2, 16},
		{c, "(m:64, n:64)", "(warp_m:2@warp, warp_n:2@warp, lane:32@lane)", "(rep_m:2, rep_n:4, v:4)", 1, 32},
	} {
		t.Run(tc.d.Name(), func(t *testing.T) {
			if got := axesString(tc.d.Tile()); got != tc.tile {
				t.Errorf("tile %s, want %s", got, tc.tile)
			}
			if got := axesString(tc.d.Executors()); got != tc.executors {
				t.Errorf("executors %s, want %s", got, tc.executors)
			}
			if got := axesString(tc.d.Locals()); got != tc.locals {
				t.Errorf("locals %s, want %s", got, tc.locals)
			}
			if tc.d.NumValues() != tc.values {
				t.Errorf("%d values, want %d", tc.d.NumValues(), tc.values)
			}
			for e := 0; e < tc.d.NumElements(); e++ {
				o, _ := tc.d.Owners(tc.d.tileCoords(e)...)
				if len(o) != tc.ownersPerElement {
					t.Fatalf("element %v has %d owners, want %d", tc.d.tileCoords(e), len(o), tc.ownersPerElement)
				}
			}
		})
	}
}

// The tiled distributions are right exactly when a CTA that scatters A and B
// into registers with them, runs the atom per warp and repetition as the
// hardware does (the PTX oracles of atoms_test.go), and gathers C with the
// tiled C distribution computes A×B. Both placements of the warps are checked.
func TestTiledCTA64ComputesGEMM(t *testing.T) {
	for _, contiguous := range []bool{false, true} {
		t.Run(fmt.Sprintf("warp_contiguous=%v", contiguous), func(t *testing.T) {
			da, db, dc := cta64(t, contiguous)
			rng := rand.New(rand.NewPCG(1, 2))
			var A [64][16]int
			var B [16][64]int
			for i := range A {
				for k := range A[i] {
					A[i][k] = rng.IntN(9) - 4
				}
			}
			for k := range B {
				for j := range B[k] {
					B[k][j] = rng.IntN(9) - 4
				}
			}
			var C [64][64]int
			for i := range C {
				for j := range C[i] {
					C[i][j] = -1 << 30 // poison: every element must be written
				}
			}
			for wm := range 2 {
				for wn := range 2 {
					// Registers: [lane][value].
					var ra [32][16]int
					var rb [32][16]int
					var rc [32][32]int
					for lane := range 32 {
						for v := range 16 {
							x, _ := da.At([]int{wm, wn, lane}, v)
							ra[lane][v] = A[x[0]][x[1]]
							y, _ := db.At([]int{wm, wn, lane}, v)
							rb[lane][v] = B[y[0]][y[1]]
						}
					}
					for rm := range 2 {
						for rn := range 4 {
							// One mma.m16n8k16 on the warp's registers.
							var am [16][16]int
							var bm [16][8]int
							for lane := range 32 {
								for v := range 8 {
									r, c := ptxMMAA(lane, v)
									am[r][c] = ra[lane][rm*8+v]
								}
								for v := range 4 {
									r, c := ptxMMAB(lane, v)
									bm[r][c] = rb[lane][rn*4+v]
								}
							}
							for lane := range 32 {
								for v := range 4 {
									r, c := ptxMMAC(lane, v)
									sum := 0
									for k := range 16 {
										sum += am[r][k] * bm[k][c]
									}
									rc[lane][(rm*4+rn)*4+v] = sum
								}
							}
						}
					}
					for lane := range 32 {
						for v := range 32 {
							z, _ := dc.At([]int{wm, wn, lane}, v)
							C[z[0]][z[1]] = rc[lane][v]
						}
					}
				}
			}
			bad := 0
			for i := range 64 {
				for j := range 64 {
					want := 0
					for k := range 16 {
						want += A[i][k] * B[k][j]
					}
					if C[i][j] != want && bad < 5 {
						bad++
						t.Errorf("C[%d][%d] = %d, want %d", i, j, C[i][j], want)
					}
				}
			}
		})
	}
}

// The two placements of the warps, by formula.
func TestTiledCTA64Placement(t *testing.T) {
	for _, contiguous := range []bool{false, true} {
		_, _, c := cta64(t, contiguous)
		for wm := range 2 {
			for wn := range 2 {
				for lane := range 32 {
					for rm := range 2 {
						for rn := range 4 {
							for v := range 4 {
								r, col := ptxMMAC(lane, v)
								wantM, wantN := 32*rm+16*wm+r, 16*rn+8*wn+col
								if contiguous {
									wantM, wantN = 32*wm+16*rm+r, 32*wn+8*rn+col
								}
								got, _ := c.At([]int{wm, wn, lane}, (rm*4+rn)*4+v)
								if got[0] != wantM || got[1] != wantN {
									t.Fatalf("contiguous=%v warp (%d,%d) lane %d rep (%d,%d) c%d at %v, want (%d, %d)",
										contiguous, wm, wn, lane, rm, rn, v, got, wantM, wantN)
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestTileAtomErrors(t *testing.T) {
	c, _ := Builtin("mma.m16n8k16.c.f32")
	for _, tc := range []struct {
		name   string
		tiling Tiling
		substr string
	}{
		{"unknown repeat axis", Tiling{Repeat: map[string]int{"k": 2}}, `Repeat["k"]: "k" is not a tile axis of the atom (m, n)`},
		{"zero repeat", Tiling{Repeat: map[string]int{"m": 0}}, `Repeat["m"]: 0 repetitions, not in 1..4194304`},
		{"zero warps", Tiling{Warps: []GridAxis{{"warp_m", 0, "m"}}}, "Warps[0].Size: 0 warps, not in 1..4194304"},
		{"huge repeat", Tiling{Repeat: map[string]int{"m": 1 << 62}}, "not in 1..4194304"},
		{"huge product", Tiling{Warps: []GridAxis{{"w1", 1 << 21, "m"}, {"w2", 1 << 21, "m"}}}, "tile axis m would have more than 4194304 elements"},
		{"clashing names", Tiling{Warps: []GridAxis{{"lane", 2, "m"}}}, `Warps[0].Name: "lane" is already the name of an executor axis of the atom`},
		{"warp names twice", Tiling{Warps: []GridAxis{{"w", 2, "m"}, {"w", 2, "n"}}}, `Warps[1].Name: "w" is already the name of warp axis 0`},
		{"warp named like a repetition", Tiling{Warps: []GridAxis{{"rep_m", 2, "n"}}, Repeat: map[string]int{"m": 2}}, `Warps[0].Name: "rep_m" is already the name of the repetition axis along m`},
		{"along a misspelt axis is not replication", Tiling{Warps: []GridAxis{{"warp_m", 2, "q"}}},
			`Warps[0].Along: "q" is not a tile axis of the atom (m, n); to replicate the tile over these warps, use AlongReplicated`},
		{"along an axis the atom lacks", Tiling{Warps: []GridAxis{{"warp_k", 2, "k"}}}, `Warps[0].Along: "k" is not a tile axis of the atom (m, n)`},
		{"along left out", Tiling{Warps: []GridAxis{{"warp_m", 2, ""}}}, `Warps[0].Along: missing: name a tile axis of the atom (m, n), or "replicated"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TileAtom(c, tc.tiling)
			if err == nil || !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("TileAtom: %v, want %q", err, tc.substr)
			}
		})
	}
}

// blockedOracle follows Triton's definition of the blocked encoding directly:
// the thread id and warp id are split over the dimensions fastest-first in
// order, registers count the elements of sizePerThread (fastest dimension of
// order first) and then the repetitions of the CTA's pattern; every coordinate
// wraps modulo the shape.
func blockedOracle(b Blocked, warp, lane, reg int) []int {
	rank := len(b.Shape)
	coord := make([]int, rank)
	perCTA := make([]int, rank)
	for d := range rank {
		perCTA[d] = b.SizePerThread[d] * b.ThreadsPerWarp[d] * b.WarpsPerCTA[d]
	}
	elem := make([]int, rank)
	for _, d := range b.Order {
		elem[d] = reg % b.SizePerThread[d]
		reg /= b.SizePerThread[d]
	}
	for _, d := range b.Order {
		reps := max(b.Shape[d]/perCTA[d], 1)
		rep := reg % reps
		reg /= reps
		l := lane % b.ThreadsPerWarp[d]
		lane /= b.ThreadsPerWarp[d]
		w := warp % b.WarpsPerCTA[d]
		warp /= b.WarpsPerCTA[d]
		coord[d] = (rep*perCTA[d] + w*b.SizePerThread[d]*b.ThreadsPerWarp[d] + l*b.SizePerThread[d] + elem[d]) % b.Shape[d]
	}
	return coord
}

func TestBlocked(t *testing.T) {
	tests := []struct {
		name      string
		b         Blocked
		executors string
		locals    string
		owners    int
	}{
		{"64x64 rows of 8", Blocked{Axes: []string{"m", "n"}, Shape: []int{64, 64}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}},
			"(warp_m:4@warp, lane_m:4@lane, lane_n:8@lane)", "(rep_m:4, elem_n:8)", 1},
		{"column-major order", Blocked{Shape: []int{32, 16}, SizePerThread: []int{4, 1}, ThreadsPerWarp: []int{8, 4}, WarpsPerCTA: []int{1, 2}, Order: []int{0, 1}},
			"(warp_d1:2@warp, lane_d1:4@lane, lane_d0:8@lane)", "(rep_d1:2, elem_d0:4)", 1},
		{"16x16 broadcast over lanes", Blocked{Axes: []string{"m", "n"}, Shape: []int{16, 16}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}},
			"(warp_m:4@warp, lane_m:4@lane, lane_n_copy:4@lane*, lane_n:2@lane)", "(elem_n:8)", 4},
		{"8x8 broadcast over warps", Blocked{Axes: []string{"m", "n"}, Shape: []int{8, 8}, SizePerThread: []int{1, 2}, ThreadsPerWarp: []int{8, 4}, WarpsPerCTA: []int{2, 2}, Order: []int{1, 0}},
			"(warp_m_copy:2@warp*, warp_n_copy:2@warp*, lane_m:8@lane, lane_n:4@lane)", "(elem_n:2)", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewBlocked(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := axesString(d.Executors()); got != tc.executors {
				t.Errorf("executors %s, want %s", got, tc.executors)
			}
			if got := axesString(d.Locals()); got != tc.locals {
				t.Errorf("locals %s, want %s", got, tc.locals)
			}
			warps := d.LevelSize(LevelWarp)
			for w := range warps {
				for lane := range 32 {
					for r := range d.NumValues() {
						exec := make([]int, len(d.Executors()))
						// Executor axes flatten to (warp, lane) row-major.
						sizes := make([]int, len(exec))
						for i, a := range d.Executors() {
							sizes[i] = a.Size
						}
						unflatten(w*32+lane, sizes, exec)
						got, _ := d.At(exec, r)
						if want := blockedOracle(tc.b, w, lane, r); !slices.Equal(got, want) {
							t.Fatalf("warp %d lane %d reg %d at %v, Triton says %v", w, lane, r, got, want)
						}
					}
				}
			}
			o, _ := d.Owners(make([]int, len(tc.b.Shape))...)
			if len(o) != tc.owners {
				t.Errorf("element 0 has %d owners, want %d", len(o), tc.owners)
			}
		})
	}
}

func TestBlockedErrors(t *testing.T) {
	base := Blocked{Shape: []int{64, 64}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}}
	for _, tc := range []struct {
		name   string
		edit   func(b *Blocked)
		substr string
	}{
		{"threads not 32", func(b *Blocked) { b.ThreadsPerWarp = []int{4, 4} }, "ThreadsPerWarp: [4, 4] has 16 threads in all, want 32 (one warp)"},
		{"bad order", func(b *Blocked) { b.Order = []int{1, 1} }, "Order: [1, 1] is not a permutation of 0..1"},
		{"rank mismatch", func(b *Blocked) { b.WarpsPerCTA = []int{4} }, "WarpsPerCTA: 1 entries, want 2 (one per dimension of shape)"},
		{"not a power of two", func(b *Blocked) { b.Shape = []int{48, 64} }, "Shape[0]: 48 is not a positive power of two"},
		{"thread holds an element twice", func(b *Blocked) { b.Shape = []int{64, 4} }, "SizePerThread[1]: 8 exceeds the extent 4 of shape[1]"},
		{"no dimensions", func(b *Blocked) { *b = Blocked{} }, "Shape: no dimensions"},
		{"axis named twice", func(b *Blocked) { b.Axes = []string{"m", "m"} }, `Axes[1]: "m" is used twice (axes[0] and axes[1])`},
		{"axis without a name", func(b *Blocked) { b.Axes = []string{"m", ""} }, "Axes[1]: the axis has no name"},
		{"axis named like a derived axis", func(b *Blocked) { b.Axes = []string{"m", "lane_m"} }, `Axes[1]: "lane_m" is also the name of an axis derived from axes[0] "m"`},
		{"axis count", func(b *Blocked) { b.Axes = []string{"m"} }, "Axes: 1 axis names, want 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			tc.edit(&b)
			_, err := NewBlocked(b)
			if err == nil || !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("NewBlocked: %v, want %q", err, tc.substr)
			}
		})
	}
}

// TiledCopy: four warps each issuing ldmatrix.x4 down a 64×16 tile leave the
// registers exactly as the tiled mma A operand of a 4×1 warp grid expects.
func TestTiledLdmatrixFeedsTiledMMA(t *testing.T) {
	ld, _ := Builtin("ldmatrix.x4")
	a, _ := Builtin("mma.m16n8k16.a.f16")
	tl, err := TileAtom(ld, Tiling{Warps: []GridAxis{{"warp", 4, "row"}}})
	if err != nil {
		t.Fatal(err)
	}
	ta, err := TileAtom(a, Tiling{Warps: []GridAxis{{"warp", 4, "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tl.Table(), ta.Table()) {
		t.Error("tiled ldmatrix.x4 and tiled mma A differ")
	}
	if fmt.Sprint(tl.Tile()) != "[row:64 col:16]" || fmt.Sprint(ta.Tile()) != "[m:64 k:16]" {
		t.Errorf("tiles %v and %v", tl.Tile(), ta.Tile())
	}
}

package distribution

import (
	"slices"
	"testing"

	"github.com/cklplan/cklplan/storage"
)

func TestFingerprintEqualWhenWrittenDifferently(t *testing.T) {
	builtin := func(name string) *Distribution {
		d, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		name  string
		spec  Spec
		equal string // the built-in it must equal
	}{
		{
			// The declaration of "Composable Kernel Language": lane × (kHalf, rowHalf, pair), register
			// kHalf*4 + rowHalf*2 + pair.
			name: "Composable Kernel Language lhs_distribution",
			spec: Spec{Name: "lhs", Executors: lane32,
				Locals: []Axis{{"kHalf", 2}, {"rowHalf", 2}, {"pair", 2}},
				Tile:   []Axis{{"m", 16}, {"k", 16}},
				Ownership: []string{
					"lane / 4 + rowHalf * 8",
					"lane % 4 * 2 + pair + kHalf * 8",
				},
				Storage: "kHalf * 4 + rowHalf * 2 + pair",
				Element: storage.F16,
			},
			equal: "mma.m16n8k16.a.f16",
		},
		{
			name: "terms reordered, value split in two axes",
			spec: Spec{Name: "acc", Executors: lane32,
				Locals:    []Axis{{"half", 2}, {"pair", 2}},
				Tile:      []Axis{{"m", 16}, {"n", 8}},
				Ownership: []string{"8 * half + lane / 4", "pair + 2 * (lane % 4)"},
			},
			equal: "mma.m16n8k16.c.f32",
		},
		{
			name: "lane split into group and thread-in-group",
			spec: Spec{Name: "acc", Executors: []ExecutorAxis{{Name: "group", Size: 8, Level: LevelLane}, {Name: "tig", Size: 4, Level: LevelLane}},
				Locals:    []Axis{{"v", 4}},
				Tile:      []Axis{{"m", 16}, {"n", 8}},
				Ownership: []string{"group + 8 * (v / 2)", "tig * 2 + v % 2"},
			},
			equal: "mma.m16n8k16.c.f32",
		},
		{
			name: "values stored in reverse and listed in reverse",
			spec: Spec{Name: "acc", Executors: lane32,
				Locals:    []Axis{{"w", 4}},
				Tile:      []Axis{{"m", 16}, {"n", 8}},
				Ownership: []string{"lane / 4 + 8 * ((3 - w) / 2)", "lane % 4 * 2 + (3 - w) % 2"},
				Storage:   "3 - w",
				Element:   storage.F16,
			},
			equal: "mma.m16n8k16.c.f16",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			want := builtin(tc.equal)
			if d.Fingerprint() != want.Fingerprint() || !d.Equal(want) {
				t.Errorf("fingerprint %v, %s has %v", d.Fingerprint(), tc.equal, want.Fingerprint())
			}
		})
	}
}

// The same elements in other register slots, or under other tile axis names,
// are other distributions.
func TestFingerprintDiffers(t *testing.T) {
	a, _ := Builtin("mma.m16n8k16.a.f16")
	spec := a.Spec()
	spec.Storage = "(v + 2) % 8"
	rotated, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	if rotated.Equal(a) {
		t.Error("rotating the register slots kept the fingerprint")
	}
	// Every lane still owns the same elements: value v now sits in slot v+2.
	for lane := range 32 {
		got, _ := rotated.Holds(lane)
		want, _ := a.Holds(lane)
		for s := range got {
			if w := want[(s+6)%8]; got[s].Tile[0] != w.Tile[0] || got[s].Tile[1] != w.Tile[1] {
				t.Errorf("lane %d slot %d holds %v, want %v", lane, s, got[s].Tile, w.Tile)
			}
		}
	}
	ld, _ := Builtin("ldmatrix.x4")
	if ld.Equal(a) {
		t.Error("ldmatrix.x4 (row, col) equals mma A (m, k)")
	}
	if a.WithName("other").Fingerprint() != a.Fingerprint() {
		t.Error("the name changed the fingerprint")
	}
	// The accumulators of f32 and f16 hold the same positions, in registers
	// of other widths: they differ.
	c32, _ := Builtin("mma.m16n8k16.c.f32")
	c16, _ := Builtin("mma.m16n8k16.c.f16")
	if slices.Equal(c32.Table(), c16.Table()) == false {
		t.Fatal("the f32 and f16 accumulators own different positions")
	}
	if c32.Equal(c16) {
		t.Error("mma.m16n8k16.c.f32 equals mma.m16n8k16.c.f16")
	}
	if back, _ := c16.WithElement(storage.F32); !back.Equal(c32) {
		t.Error("the f16 accumulator as f32 differs from the f32 accumulator")
	}
	// Clusters are part of the identity.
	two := blockPair(t, 1)
	if two.Equal(blockPair(t, 2)) {
		t.Error("two blocks alone equal two blocks in one cluster")
	}
}

// blockPair is two blocks of one lane each holding one f32 value of a tile
// (b:2), in clusters of n blocks.
func blockPair(t *testing.T, n int) *Distribution {
	t.Helper()
	d, err := New(Spec{Name: "pair", Executors: []ExecutorAxis{{Name: "block", Size: 2, Level: LevelBlock}},
		Tile: []Axis{{"b", 2}}, Ownership: []string{"block"}, BlocksPerCluster: n})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestQueries(t *testing.T) {
	c, _ := Builtin("mma.m16n8k16.c.f32")
	owners, err := c.Owners(9, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Row 9 = groupID 1 + 8 (c2/c3); column 3 = 2*1 + 1: lane 5, c3.
	if len(owners) != 1 || owners[0].Executor[0] != 5 || owners[0].Value != 3 || owners[0].Slot != 3 {
		t.Errorf("owners of (9, 3): %+v", owners)
	}
	held, err := c.Holds(5)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{1, 2}, {1, 3}, {9, 2}, {9, 3}}
	for i, h := range held {
		if h.Tile[0] != want[i][0] || h.Tile[1] != want[i][1] || h.Slot != i {
			t.Errorf("lane 5 slot %d holds %v", i, h.Tile)
		}
	}
	for _, bad := range [][]int{{16, 0}, {0}, {-1, 2}} {
		if _, err := c.Owners(bad...); err == nil {
			t.Errorf("Owners(%v) did not fail", bad)
		}
	}
	// The tiled A operand: the two owners differ only in warp_n, so they are
	// warps 0 and 1 (flat index warp_m*2 + warp_n), the same lane.
	a, _, _ := cta64(t, false)
	ao, err := a.Owners(40, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ao) != 2 || ao[0].Warp != 0 || ao[1].Warp != 1 || ao[0].Lane != 1 || ao[1].Lane != 1 || ao[0].Block != 0 {
		t.Errorf("owners of A (40, 3): %+v", ao)
	}
	if _, err := c.Holds(32); err == nil {
		t.Error("Holds(32) did not fail")
	}
	if _, err := c.At([]int{0}, 4); err == nil {
		t.Error("At value 4 did not fail")
	}
}

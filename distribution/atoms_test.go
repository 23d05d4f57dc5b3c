package distribution

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The oracles below restate the PTX ISA's fragment tables in the ISA's own
// words (groupID, threadID_in_group, "for a0, a1, a4, a5"), independently of
// the index-map text in atoms.go.

func groupID(lane int) int           { return lane >> 2 }
func threadInGroup(lane int) int     { return lane % 4 }
func inList(i int, list ...int) bool { return slices.Contains(list, i) }

// ptxMMAA: mma.m16n8k16 A (.f16/.bf16), values a0…a7.
func ptxMMAA(lane, i int) (row, col int) {
	row = groupID(lane)
	if inList(i, 2, 3, 6, 7) {
		row += 8
	}
	col = threadInGroup(lane)*2 + (i & 1)
	if i >= 4 {
		col += 8
	}
	return row, col
}

// ptxMMAB: mma.m16n8k16 B (.f16/.bf16), values b0…b3; row is k, col is n.
func ptxMMAB(lane, i int) (row, col int) {
	row = threadInGroup(lane)*2 + (i & 1)
	if i >= 2 {
		row += 8
	}
	return row, groupID(lane)
}

// ptxMMAC: mma.m16n8k16 C/D (.f32 and .f16), values c0…c3.
func ptxMMAC(lane, i int) (row, col int) {
	row = groupID(lane)
	if i >= 2 {
		row += 8
	}
	return row, threadInGroup(lane)*2 + (i & 1)
}

// ptxLdmatrix: ldmatrix .m8n8 .x4 .b16: destination register d[j] holds matrix
// j; thread lane receives, in half h of it, row lane/4, columns 2*(lane%4)+h
// of that matrix (transposed with .trans). Row r of matrix j is read from the
// address thread 8j+r supplies; under the addressing of atoms.go that thread t
// points at tile row t%16, columns 8*(t/16) onward.
func ptxLdmatrix(trans bool) func(lane, v int) (int, int) {
	return func(lane, v int) (int, int) {
		j, h := v/2, v%2
		r, c := lane/4, 2*(lane%4)+h
		if trans {
			r, c = c, r
		}
		t := 8*j + r
		return t % 16, 8*(t/16) + c
	}
}

// ptxWGMMAA: wgmma .m64nNk16 A from registers (16-bit types), values
// a0…a7: warp w holds rows 16w…16w+15 as the mma.m16n8k16 A fragment.
func ptxWGMMAA(warp, lane, i int) (row, col int) {
	row, col = ptxMMAA(lane, i)
	return 16*warp + row, col
}

// ptxWGMMAD: wgmma .m64nNk16 accumulator D over a warpgroup; thread
// 32*warp+lane, value d[i]: row 16*warp + groupID (+8 for i%4 >= 2), column
// 8*(i/4) + 2*threadID_in_group + i%2.
func ptxWGMMAD(warp, lane, i int) (row, col int) {
	row = 16*warp + groupID(lane)
	if i%4 >= 2 {
		row += 8
	}
	return row, 8*(i/4) + threadInGroup(lane)*2 + i%2
}

func TestBuiltinAtomsMatchPTX(t *testing.T) {
	lanes := func(f func(lane, v int) (int, int)) func(e []int, v int) []int {
		return func(e []int, v int) []int { r, c := f(e[0], v); return []int{r, c} }
	}
	tests := []struct {
		name   string
		tile   string
		values int
		oracle func(executor []int, v int) []int
	}{
		{"mma.m16n8k16.a.f16", "(m:16, k:16)", 8, lanes(ptxMMAA)},
		{"mma.m16n8k16.a.bf16", "(m:16, k:16)", 8, lanes(ptxMMAA)},
		{"mma.m16n8k16.b.f16", "(k:16, n:8)", 4, lanes(ptxMMAB)},
		{"mma.m16n8k16.b.bf16", "(k:16, n:8)", 4, lanes(ptxMMAB)},
		{"mma.m16n8k16.c.f32", "(m:16, n:8)", 4, lanes(ptxMMAC)},
		{"mma.m16n8k16.c.f16", "(m:16, n:8)", 4, lanes(ptxMMAC)},
		{"ldmatrix.x4", "(row:16, col:16)", 8, lanes(ptxLdmatrix(false))},
		{"ldmatrix.x4.trans", "(row:16, col:16)", 8, lanes(ptxLdmatrix(true))},
		{"wgmma.m64k16.a.f16", "(m:64, k:16)", 8, func(e []int, v int) []int { r, c := ptxWGMMAA(e[0], e[1], v); return []int{r, c} }},
		{"wgmma.m64k16.a.bf16", "(m:64, k:16)", 8, func(e []int, v int) []int { r, c := ptxWGMMAA(e[0], e[1], v); return []int{r, c} }},
	}
	for n := 8; n <= 256; n += 8 {
		tests = append(tests, struct {
			name   string
			tile   string
			values int
			oracle func(executor []int, v int) []int
		}{fmt.Sprintf("wgmma.m64n%dk16.c.f32", n), fmt.Sprintf("(m:64, n:%d)", n), n / 2,
			func(e []int, v int) []int { r, c := ptxWGMMAD(e[0], e[1], v); return []int{r, c} }})
	}
	if got, want := len(BuiltinNames()), len(tests); got != want {
		t.Errorf("BuiltinNames has %d atoms, the test %d", got, want)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Builtin(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if got := axesString(d.Tile()); got != tc.tile {
				t.Errorf("tile %s, want %s", got, tc.tile)
			}
			if d.NumValues() != tc.values {
				t.Errorf("%d values, want %d", d.NumValues(), tc.values)
			}
			exec := make([]int, len(d.Executors()))
			sizes := make([]int, len(exec))
			for i, a := range d.Executors() {
				sizes[i] = a.Size
			}
			bad := 0
			for e := 0; e < d.NumExecutors(); e++ {
				unflatten(e, sizes, exec)
				for v := 0; v < d.NumValues(); v++ {
					got, err := d.At(exec, v)
					if err != nil {
						t.Fatal(err)
					}
					if want := tc.oracle(exec, v); !slices.Equal(got, want) && bad < 5 {
						bad++
						t.Errorf("executor %v value %d holds %v, PTX says %v", exec, v, got, want)
					}
				}
			}
		})
	}
}

// The ldmatrix.x4 atom under its addressing is the mma A operand, and each
// half of ldmatrix.x4.trans is the mma B operand of one 8-column block: the
// tables agree up to the tile axes' names.
func TestLdmatrixFeedsMMA(t *testing.T) {
	ld, _ := Builtin("ldmatrix.x4")
	a, _ := Builtin("mma.m16n8k16.a.f16")
	if !slices.Equal(ld.Table(), a.Table()) {
		t.Error("ldmatrix.x4 and mma.m16n8k16.a.f16 differ")
	}
	tr, _ := Builtin("ldmatrix.x4.trans")
	b, _ := Builtin("mma.m16n8k16.b.f16")
	for lane := range 32 {
		for v := range 4 {
			for half := range 2 {
				got, _ := tr.At([]int{lane}, 4*half+v)
				want, _ := b.At([]int{lane}, v)
				if got[0] != want[0] || got[1] != want[1]+8*half {
					t.Errorf("lane %d: trans value %d at %v, B value %d at %v (+%d columns)", lane, 4*half+v, got, v, want, 8*half)
				}
			}
		}
	}
}

func TestBuiltinUnknown(t *testing.T) {
	_, err := Builtin("mma.m16n8k8.a.f16")
	if err == nil || !strings.Contains(err.Error(), `no built-in atom "mma.m16n8k8.a.f16"`) {
		t.Errorf("error %v", err)
	}
}

package storage

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// Layouts used by several tests, in the text form.
const (
	// 32x32 f32, row-major: a column is 32 words apart, all in bank 0.
	f32RowMajor = "shared f32 elements align 128: logical(m:32, k:32) -> physical(addr:1024) = (m * 32 + k)"
	// The same padded by one element per row: a column steps 33 words, one bank each.
	f32Padded = "shared f32 elements align 128: logical(m:32, k:32) -> physical(addr:1056) = (m * 33 + k)"
	// 16 rows of 64 halves (128 bytes), unswizzled and with the 128-byte swizzle.
	f16Rows     = "shared f16 bytes align 1024: logical(m:16, k:64) -> physical(addr:2048) = (m * 128 + k * 2)"
	f16RowsSW   = "shared f16 bytes align 1024 Swizzle<3,4,3>: logical(m:16, k:64) -> physical(addr:2048) = (m * 128 + k * 2)"
	f16RowsSWel = "shared f16 elements align 1024 Swizzle<3,3,3>: logical(m:16, k:64) -> physical(addr:1024) = (m * 64 + k)"
)

// ldmatrixX4 is the row-address pattern of ldmatrix.x4 loading a 16x16
// 16-bit fragment at the origin: lanes 8i..8i+7 give the eight 16-byte rows
// of matrix i, matrices ordered (rows 0-7, k 0-7), (rows 8-15, k 0-7),
// (rows 0-7, k 8-15), (rows 8-15, k 8-15).
const ldmatrixX4 = "(lane:32) -> (m:16, k:64) = (lane % 8 + lane / 8 % 2 * 8, lane / 16 * 8)"

func mustAccess(t *testing.T, lanes string, vector int) Access {
	t.Helper()
	a, err := AccessOf(indexmap.MustParse(lanes), vector, "")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestLayoutWavefronts costs warp accesses to layouts. The expected counts
// follow from the bank model: a column of the row-major f32 tile has all 32
// words in bank 0 (32 = gcd(32 words, 32 banks)); padding by one makes the
// stride 33 words, coprime to 32, so one word per bank. ldmatrix.x4 reads 8
// rows of 16 bytes per phase: unswizzled the 8 rows are 128 bytes apart,
// hence in the same 4 banks (8 wavefronts per phase, 4 phases); the 128-byte
// swizzle xors the 16-byte chunk index with row % 8, so the 8 rows of a phase
// hit 8 different chunks: one wavefront per phase.
func TestLayoutWavefronts(t *testing.T) {
	tests := []struct {
		name, layout, lanes string
		vector              int
		want                string
	}{
		{"f32 column, row-major", f32RowMajor, "(lane:32) -> (m:32, k:32) = (lane, 0)", 1,
			"32 wavefronts (ideal 1); lanes 0-31: 32 words in bank 0"},
		{"f32 column, padded by one", f32Padded, "(lane:32) -> (m:32, k:32) = (lane, 0)", 1,
			"1 wavefront (ideal 1)"},
		{"f32 row, row-major", f32RowMajor, "(lane:32) -> (m:32, k:32) = (0, lane)", 1,
			"1 wavefront (ideal 1)"},
		{"f32 one element broadcast to the warp", f32RowMajor, "(lane:32) -> (m:32, k:32) = (3, 5)", 1,
			"1 wavefront (ideal 1)"},
		{"f32x2 row, two half-warp phases", f32RowMajor, "(lane:16) -> (m:32, k:32) = (lane / 16, lane * 2)", 2,
			"1 wavefront (ideal 1)"},
		{"f32x4 four rows, four phases", f32RowMajor, "(lane:32) -> (m:32, k:32) = (lane / 8, lane % 8 * 4)", 4,
			"4 wavefronts (ideal 4)"},
		{"ldmatrix.x4, unswizzled", f16Rows, ldmatrixX4, 8,
			"32 wavefronts (ideal 4); lanes 0-7: 8 words in bank 0; lanes 8-15: 8 words in bank 0; lanes 16-23: 8 words in bank 4; lanes 24-31: 8 words in bank 4"},
		{"ldmatrix.x4, Swizzle<3,4,3> on bytes", f16RowsSW, ldmatrixX4, 8,
			"4 wavefronts (ideal 4)"},
		{"ldmatrix.x4, Swizzle<3,3,3> on 16-bit elements", f16RowsSWel, ldmatrixX4, 8,
			"4 wavefronts (ideal 4)"},
		{"inactive lanes", f32RowMajor, "(lane:32) -> (m:32, k:32) = (lane, 0) if lane < 4", 1,
			"4 wavefronts (ideal 1); lanes 0-31: 4 words in bank 0"},
		// Lane 0 reads byte 0, lane 1 element 63 at byte 126: with the base
		// at 0 they fall in words 0 and 31, but at base 2 in words 0 and 32,
		// both bank 0. The 2-byte alignment allows base 2, the worst case.
		{"worst base residue", "shared f16 elements align 2: logical(m:2, k:63) -> physical(addr:126) = (m * 63 + k)",
			"(lane:2) -> (m:2, k:63) = (lane, 0)", 1,
			"2 wavefronts (ideal 1) with the base at 2 mod 128; lanes 0-31: 2 words in bank 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := MustParse(tt.layout)
			w, err := l.Wavefronts(mustAccess(t, tt.lanes, tt.vector))
			if err != nil {
				t.Fatal(err)
			}
			if got := w.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestLayoutWavefrontsErrors(t *testing.T) {
	tests := []struct {
		name, layout string
		access       Access
		err          string
	}{
		{"register memory", "register f32 elements: logical(v:4) -> physical(r:4) = (v)",
			Access{Lanes: [][]int{{0}}}, "the layout is in register memory; the bank model is for shared memory"},
		{"too many lanes", f32RowMajor, Access{Lanes: make([][]int, 33)}, "33 lanes, want at most 32"},
		{"unknown axis", f32RowMajor, Access{Lanes: [][]int{{0, 0}}, Axis: "n"}, `"n" is not an axis of the tile`},
		{"sub-byte access", "shared u4 elements: logical(k:8) -> physical(a:8) = (k)",
			Access{Lanes: [][]int{{0}}}, "1 x u4 = 4 bits per lane: want whole bytes, at most 16"},
		{"wider than 16 bytes", f32RowMajor, Access{Lanes: [][]int{{0, 0}}, Vector: 8}, "8 x f32 = 256 bits per lane"},
		{"base alignment too small", "shared f32 elements align 4: logical(k:32) -> physical(a:32) = (k)",
			Access{Lanes: [][]int{{0}}, Vector: 2}, "base alignment 4 bytes does not allow 8-byte accesses"},
		{"wrong rank", f32RowMajor, Access{Lanes: [][]int{nil, {1}}}, "lane 1: point [1] has 1 coordinates, the tile (m:32, k:32) has 2 leaves"},
		{"outside the tile", f32RowMajor, Access{Lanes: [][]int{{32, 0}}}, "lane 0: point (m=32, k=0) is outside the tile (m:32, k:32)"},
		{"run past the axis", f32RowMajor, Access{Lanes: [][]int{{0, 30}}, Vector: 4}, "lane 0: 4 elements from (m=0, k=30) run past axis k of size 32"},
		{"misaligned run", f32RowMajor, Access{Lanes: [][]int{{0, 2}}, Vector: 4}, "lane 0: element (m=0, k=2) at byte 8 is not aligned to 128 bits"},
		{"run broken by the swizzle", f16RowsSW, Access{Lanes: [][]int{{1, 0}}, Vector: 8, Axis: "m"},
			"lane 0: element (m=2, k=0) at byte 288 does not follow the run from (m=1, k=0) at byte 144"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MustParse(tt.layout).Wavefronts(tt.access)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Wavefronts = %v, want error containing %q", err, tt.err)
			}
		})
	}
}

func TestVector(t *testing.T) {
	tests := []struct {
		name, layout, axis, want string
	}{
		{"f32 row-major, 16-byte base", "shared f32 elements align 16: logical(m:32, k:32) -> physical(addr:1024) = (m * 32 + k)", "",
			"4 elements along k (16 bytes); wider: the 16-byte maximum"},
		{"f32 row-major, 8-byte base", "shared f32 elements align 8: logical(m:32, k:32) -> physical(addr:1024) = (m * 32 + k)", "",
			"2 elements along k (8 bytes); wider: base alignment 8 bytes, below 128 bits"},
		{"f32 row-major, element-aligned base", "global f32 elements: logical(m:32, k:32) -> physical(addr:1024) = (m * 32 + k)", "",
			"1 element along k (4 bytes); wider: base alignment 4 bytes, below 64 bits"},
		{"f32 padded by one breaks alignment of row 1", f32Padded, "k",
			"1 element along k (4 bytes); wider: element (m=1, k=0) at byte 132 is not aligned to 64 bits"},
		{"f32 padded by four keeps 16-byte rows", "shared f32 elements align 16: logical(m:32, k:32) -> physical(addr:1152) = (m * 36 + k)", "k",
			"4 elements along k (16 bytes); wider: the 16-byte maximum"},
		{"f32 along the slow axis", f32RowMajor, "m",
			"1 element along m (4 bytes); wider: element (m=1, k=0) at byte 128 does not follow the run from (m=0, k=0) at byte 0"},
		{"f32 column-major along m", "shared f32 elements align 16: logical(m:32, k:32) -> physical(addr:1024) = (m + k * 32)", "m",
			"4 elements along m (16 bytes); wider: the 16-byte maximum"},
		{"offset base", "shared f32 elements align 16: logical(k:32) -> physical(addr:34) = (k + 2)", "",
			"2 elements along k (8 bytes); wider: element (k=0) at byte 8 is not aligned to 128 bits"},
		{"odd axis size", "shared f16 elements align 16: logical(m:4, k:6) -> physical(addr:24) = (m * 6 + k)", "",
			"2 elements along k (4 bytes); wider: axis k has size 6, not a multiple of 4"},
		{"f16 128-byte swizzle keeps 16-byte chunks", f16RowsSW, "",
			"8 elements along k (16 bytes); wider: the 16-byte maximum"},
		{"f16 Swizzle<3,3,3> on bytes splits 16-byte chunks", "shared f16 bytes align 1024 Swizzle<3,3,3>: logical(m:16, k:64) -> physical(addr:2048) = (m * 128 + k * 2)", "",
			"4 elements along k (8 bytes); wider: element (m=0, k=32) at byte 72 is not aligned to 128 bits"},
		{"u4 packs two per byte", "shared u4 elements align 16: logical(m:8, k:64) -> physical(addr:512) = (m * 64 + k)", "",
			"32 elements along k (16 bytes); wider: the 16-byte maximum"},
		{"u4 odd row pitch", "shared u4 elements align 16: logical(m:8, k:64) -> physical(addr:520) = (m * 65 + k)", "",
			"1 element along k (4 bits); wider: element (m=1, k=0) at bit 260 is not aligned to 8 bits"},
		{"i8 in bytes", "global i8 bytes align 256: logical(k:256) -> physical(addr:256) = (k)", "",
			"16 elements along k (16 bytes); wider: the 16-byte maximum"},
		{"f64", "global f64 elements align 256: logical(k:256) -> physical(addr:256) = (k)", "",
			"2 elements along k (16 bytes); wider: the 16-byte maximum"},
		{"broadcast axis", "shared f32 elements align 16: logical(m:4, k:4) -> physical(addr:4) = (m) broadcast(k)", "k",
			"1 element along k (4 bytes); wider: axis k is broadcast"},
		{"broadcast rows share a run", "shared f32 elements align 16: logical(m:4, k:4) -> physical(addr:4) = (k) broadcast(m)", "k",
			"4 elements along k (16 bytes); wider: the 16-byte maximum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := MustParse(tt.layout).Vector(tt.axis)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestVectorErrors(t *testing.T) {
	l := MustParse("shared f32 elements: logical(m:4, n:(n0:2, n1:2)) -> physical(addr:16) = (m * 4 + n)")
	for axis, want := range map[string]string{
		"k": `"k" is not an axis of the tile`,
		"n": `"n" is a group axis of (m:4, n:(n0:2, n1:2)); vectors run along a leaf`,
	} {
		if _, err := l.Vector(axis); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Vector(%q) = %v, want error containing %q", axis, err, want)
		}
	}
	empty := MustParse("shared f32 elements: logical() -> physical(addr:1) = (0)")
	if _, err := empty.Vector(""); err == nil || !strings.Contains(err.Error(), "has no axes") {
		t.Errorf("Vector on an empty tile = %v", err)
	}
}

// errorMatches reports whether err's text contains one of the alternatives
// in want, separated by " || ". Alternatives exist where indexmap's own kind
// check (a map into physical is alias-free and in range) may report a fault
// before storage does; both name the elements at fault.
func errorMatches(err error, want string) bool {
	if err == nil {
		return false
	}
	for _, alt := range strings.Split(want, " || ") {
		if strings.Contains(err.Error(), alt) {
			return true
		}
	}
	return false
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name, layout, err string
	}{
		{"aliasing rows", "shared f32 elements: logical(m:4, k:4) -> physical(addr:16) = (m * 2 + k)",
			"elements (m=0, k=2) and (m=1, k=0) overlap at offset 2 elements || points (m=0, k=2) and (m=1, k=0) both map to (addr=2)"},
		{"aliasing by modulo", "shared f32 elements: logical(k:8) -> physical(addr:4) = (k % 4)",
			"elements (k=0) and (k=4) overlap at offset 0 elements || points (k=0) and (k=4) both map to (addr=0)"},
		{"aliasing u4", "shared u4 elements: logical(m:2, k:8) -> physical(addr:12) = (m * 4 + k)",
			"elements (m=0, k=4) and (m=1, k=0) overlap at offset 4 elements || points (m=0, k=4) and (m=1, k=0) both map to (addr=4)"},
		{"aliasing in bytes", "global f32 bytes: logical(m:2, k:4) -> physical(addr:32) = (m * 8 + k * 4)",
			"elements (m=0, k=2) and (m=1, k=0) overlap at offset 8 bytes || points (m=0, k=2) and (m=1, k=0) both map to (addr=8)"},
		{"zero stride without broadcast", "shared f32 elements: logical(m:2, k:4) -> physical(addr:4) = (k)",
			"elements (m=0, k=0) and (m=1, k=0) overlap at offset 0 elements || axis m does not affect the image (a zero stride); declare broadcast(m)"},
		{"broadcast axis moves the address", "shared f32 elements: logical(m:2, k:4) -> physical(addr:8) = (m + k * 2) broadcast(m)",
			"broadcast element (m=1, k=0) at offset 1 differs from (m=0, k=0) at offset 0 || result addr depends on m, which is declared broadcast"},
		{"negative offset", "shared f32 elements: logical(m:2, k:2) -> physical(addr:4) = (k - m)",
			"element (m=1, k=0) at offset -1: offsets must be non-negative || point (m=1, k=0) maps to (addr=-1), outside the codomain (addr:4)"},
		{"outside the address space", "shared f32 elements: logical(m:2, k:4) -> physical(addr:4) = (m * 4 + k)",
			"element (m=1, k=0) at offset 4 is outside the address space (addr:4) || point (m=1, k=0) maps to (addr=4), outside the codomain (addr:4)"},
		{"misaligned byte address", "global f32 bytes: logical(k:4) -> physical(addr:16) = (k * 2)",
			"element (k=1) at byte offset 2 is not aligned to the 4-byte size of f32"},
		{"guard", "shared f32 elements: logical(k:4) -> physical(addr:4) = (k) if k < 3",
			`the address map has the guard "k < 3"`},
		{"thread-value domain", "shared f32 elements: thread-value(k:4) -> physical(addr:4) = (k)",
			"domain is thread-value(k:4), want a logical tile space"},
		{"logical codomain", "shared f32 elements: logical(k:4) -> (a:4) = (k)",
			"codomain is (a:4), want a physical space"},
		{"two addresses", "shared f32 elements: logical(k:4) -> physical(a:4, b:1) = (k, 0)",
			"has 2 leaf axes, want one (the address)"},
		{"4-bit in bytes", "shared u4 bytes: logical(k:4) -> physical(a:4) = (k)",
			"u4 elements are 4 bits wide: a byte address cannot name one"},
		{"alignment not a power of two", "shared f32 elements align 24: logical(k:4) -> physical(a:4) = (k)",
			"base alignment 24 bytes: want a power of two"},
		{"alignment below the element", "shared f64 elements align 4: logical(k:4) -> physical(a:4) = (k)",
			"base alignment 4 bytes is below the 8-byte size of f64"},
		{"alignment below the swizzle period", "shared f16 bytes align 128 Swizzle<3,4,3>: logical(k:64) -> physical(a:128) = (k * 2)",
			"base alignment 128 bytes does not cover the 1024-byte period of Swizzle<3,4,3>"},
		{"swizzle splits elements", "shared f32 bytes align 1024 Swizzle<1,0,1>: logical(k:64) -> physical(a:256) = (k * 4)",
			"Swizzle<1,0,1> on bytes moves parts of 4-byte f32 elements: want 2^M >= 4"},
		{"swizzle period not whole bytes", "shared b1 elements align 1024 Swizzle<1,0,1>: logical(k:64) -> physical(a:64) = (k)",
			"Swizzle<1,0,1> on 1-bit elements: its period of 4 bits is not a whole number of bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.layout)
			if !errorMatches(err, tt.err) {
				t.Fatalf("Parse = %v, %v; want error containing %q", l, err, tt.err)
			}
		})
	}
}

// withOffset returns l with its address function replaced, to test
// checkAddresses on maps that indexmap's own kind check would refuse before
// storage sees them.
func withOffset(t *testing.T, l Layout, expr string) Layout {
	t.Helper()
	e := indexmap.MustParseExpr(expr)
	address, err := indexmap.CompileExpr(e, l.tile)
	if err != nil {
		t.Fatal(err)
	}
	l.address = address
	l.aff, l.isAffine = address.Affine()
	return l
}

// TestCheckAddresses runs storage's own address checks, by enumeration and
// by the stride criterion, on address functions that break them; the
// stride criterion is only sufficient, so some valid maps are undecided.
func TestCheckAddresses(t *testing.T) {
	base := MustParse("shared f32 elements: logical(m:4, k:4) -> physical(addr:64) = (m * 4 + k)")
	bytes := MustParse("global f32 bytes: logical(m:4, k:4) -> physical(addr:256) = (m * 16 + k * 4)")
	bcast := MustParse("shared f32 elements: logical(m:4, k:4) -> physical(addr:4) = (k) broadcast(m)")
	tests := []struct {
		name   string
		layout Layout
		expr   string
		err    string // "" for a valid layout
		affine string // the stride criterion's verdict where it differs from err
	}{
		{"valid row-major", base, "m * 4 + k", "", ""},
		{"valid padded", base, "m * 5 + k", "", ""},
		{"valid negative strides", base, "15 - m * 4 - k", "", ""},
		{"valid interleaved", base, "m + k * 8", "", ""},
		{"rows overlap", base, "m * 2 + k", "elements (m=0, k=2) and (m=1, k=0) overlap at offset 2 elements",
			"cannot decide alias-freedom of a 16-element tile: leaf m (stride 2) does not clear the span of the smaller strides"},
		{"zero stride", base, "k", "elements (m=0, k=0) and (m=1, k=0) overlap at offset 0 elements", ""},
		{"injective, not by the criterion", MustParse("shared f32 elements: logical(m:2, k:3) -> physical(addr:8) = (m * 3 + k * 2)"),
			"m * 3 + k * 2", "", "cannot decide alias-freedom of a 6-element tile: leaf m (stride 3) does not clear the span"},
		{"negative", base, "m * 4 + k - 1", "element (m=0, k=0) at offset -1: offsets must be non-negative", ""},
		{"past the codomain", base, "m * 21 + k", "element (m=3, k=1) at offset 64 is outside the address space (addr:64)",
			"element (m=3, k=3) at offset 66 is outside the address space (addr:64)"},
		{"bytes overlap", bytes, "m * 8 + k * 4", "elements (m=0, k=2) and (m=1, k=0) overlap at offset 8 bytes",
			"cannot decide alias-freedom of a 16-element tile: leaf m (stride 8)"},
		{"bytes misaligned", bytes, "m * 16 + k * 2", "element (m=0, k=1) at byte offset 2 is not aligned to the 4-byte size of f32", ""},
		{"broadcast moves the address", bcast, "k + m", "broadcast element (m=1, k=0) at offset 1 differs from (m=0, k=0) at offset 0", ""},
		{"broadcast valid", bcast, "k", "", ""},
		{"non-affine aliasing", base, "(m * 4 + k) % 8", "elements (m=0, k=0) and (m=2, k=0) overlap at offset 0 elements",
			"cannot check the address map of a 16-element tile: it is not affine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, enumerate := range []bool{true, false} {
				l := withOffset(t, tt.layout, tt.expr)
				err := l.checkAddresses(enumerate)
				want := tt.err
				if !enumerate && tt.affine != "" {
					want = tt.affine
				}
				if want == "" {
					if err != nil {
						t.Errorf("enumerate=%v: %v", enumerate, err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("enumerate=%v: got %v, want error containing %q", enumerate, err, want)
				}
				if strings.Contains(want, "overlap") {
					var ae *AliasError
					if !errors.As(err, &ae) {
						t.Errorf("enumerate=%v: %v is not an *AliasError", enumerate, err)
					}
				}
			}
		})
	}
}

func TestNewConfigErrors(t *testing.T) {
	m := indexmap.MustParse("logical(k:4) -> physical(a:4) = (k)")
	tests := []struct {
		name string
		cfg  Config
		err  string
	}{
		{"no memory", Config{Element: F32}, "memory space MemorySpace(0): want register, shared or global"},
		{"no element", Config{Memory: Shared}, "element type ElementType(0): want one of the declared types"},
		{"bad unit", Config{Memory: Shared, Element: F32, Unit: 9}, "address unit AddressUnit(9)"},
		{"bad swizzle", Config{Memory: Shared, Element: F32, Swizzle: Swizzle{B: 2, M: 4, S: 1}}, "S = 1 < B = 2"},
		{"unknown broadcast axis", Config{Memory: Shared, Element: F32, Broadcast: []string{"q"}}, `broadcast: indexmap: broadcast axis "q" is not an axis`},
		{"negative alignment", Config{Memory: Shared, Element: F32, BaseAlign: -4}, "base alignment -4 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(m, tt.cfg); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("New = %v, want error containing %q", err, tt.err)
			}
		})
	}
}

// TestBitOffset checks positions against the definition of the address
// unit: element a at bit a*Bits (elements) or 8a (bytes), swizzled.
func TestBitOffset(t *testing.T) {
	tests := []struct {
		name, layout string
		want         func(c []int) int
	}{
		{"u4 packs two per byte, even address low", "shared u4 elements align 16: logical(m:4, k:8) -> physical(addr:32) = (m * 8 + k)",
			func(c []int) int { return 4 * (8*c[0] + c[1]) }},
		{"f16 bytes", f16Rows, func(c []int) int { return 8 * (128*c[0] + 2*c[1]) }},
		{"f16 bytes, 128-byte swizzle", f16RowsSW, func(c []int) int {
			b := 128*c[0] + 2*c[1]
			chunk := (b / 16 % 8) ^ (c[0] % 8) // the 16-byte chunk xor the row
			return 8 * (b/128*128 + chunk*16 + b%16)
		}},
		{"f16 elements, Swizzle<3,3,3>", f16RowsSWel, func(c []int) int {
			b := 128*c[0] + 2*c[1]
			chunk := (b / 16 % 8) ^ (c[0] % 8)
			return 8 * (b/128*128 + chunk*16 + b%16)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := MustParse(tt.layout)
			addr, err := l.Address()
			if err != nil {
				t.Fatal(err)
			}
			tile := l.Tile()
			for flat := range tile.Size() {
				c, _ := tile.Coord(flat)
				got, err := l.BitOffset(c)
				if err != nil {
					t.Fatal(err)
				}
				if want := tt.want(c); got != want {
					t.Fatalf("BitOffset%s = %d, want %d", l.point(c), got, want)
				}
				// The swizzled address map agrees with BitOffset.
				a, ok, err := addr.Eval(c)
				if err != nil || !ok || a[0]*l.unitBits() != got {
					t.Fatalf("Address()%s = %v, %v, %v; want %d units", l.point(c), a, ok, err, got/l.unitBits())
				}
			}
		})
	}
	if _, err := MustParse(f16Rows).BitOffset([]int{16, 0}); err == nil {
		t.Error("BitOffset outside the tile: no error")
	}
	if _, err := (Layout{}).BitOffset(nil); err == nil {
		t.Error("BitOffset of the zero Layout: no error")
	}
}

// TestSwizzledLayoutIsPermutation checks that a swizzled layout stores its
// tile in the same addresses as the unswizzled one, permuted.
func TestSwizzledLayoutIsPermutation(t *testing.T) {
	plain, sw := MustParse(f16Rows), MustParse(f16RowsSW)
	seen := map[int]int{}
	tile := plain.Tile()
	for flat := range tile.Size() {
		c, _ := tile.Coord(flat)
		p, _ := plain.BitOffset(c)
		seen[p]++
		s, _ := sw.BitOffset(c)
		seen[s]--
	}
	for pos, n := range seen {
		if n != 0 {
			t.Fatalf("bit %d: used %+d more times unswizzled than swizzled", pos, n)
		}
	}
	if plain.Footprint() != 2048 || sw.Footprint() != 2048 {
		t.Errorf("footprints %d, %d; want 2048 (16 rows of 128 bytes)", plain.Footprint(), sw.Footprint())
	}
}

func TestConstructors(t *testing.T) {
	tile := indexspace.MustParse("tile(m:8, k:64)")
	shared := Config{Memory: Shared, Element: F16, BaseAlign: 16}
	tests := []struct {
		name  string
		build func() (Layout, error)
		want  string
	}{
		{"row-major", func() (Layout, error) { return RowMajor(tile, 0, shared) },
			"shared f16 elements align 16: logical tile(m:8, k:64) -> physical(addr:512) = (m * 64 + k)"},
		{"row-major padded by 8", func() (Layout, error) { return RowMajor(tile, 8, shared) },
			"shared f16 elements align 16: logical tile(m:8, k:64) -> physical(addr:568) = (m * 72 + k)"},
		{"column-major padded by 1", func() (Layout, error) { return ColMajor(tile, 1, shared) },
			"shared f16 elements align 16: logical tile(m:8, k:64) -> physical(addr:575) = (m + k * 9)"},
		{"row-major in bytes", func() (Layout, error) {
			return RowMajor(tile, 0, Config{Memory: Global, Element: F32, Unit: Bytes})
		}, "global f32 bytes align 4: logical tile(m:8, k:64) -> physical(addr:2048) = (m * 256 + k * 4)"},
		{"CuTe (64,8):(1,64)", func() (Layout, error) { return CuTeStrides(tile, []int{1, 64}, shared) },
			"shared f16 elements align 16: logical tile(m:8, k:64) -> physical(addr:512) = (m * 64 + k)"},
		{"CuTe (64,8):(8,1)", func() (Layout, error) { return CuTeStrides(tile, []int{8, 1}, shared) },
			"shared f16 elements align 16: logical tile(m:8, k:64) -> physical(addr:512) = (m + k * 8)"},
		{"CuTe text (64,8):(1,64)", func() (Layout, error) { return FromCuTe(tile, cute.MustParse("(64,8):(1,64)"), shared) },
			"shared f16 elements align 16: logical tile(m:8, k:64) -> physical(addr:512) = (m * 64 + k)"},
		{"CuTe nested ((8,8),8):((1,64),8)", func() (Layout, error) {
			return FromCuTe(indexspace.MustParse("tile(m:8, k:(k1:8, k0:8))"), cute.MustParse("((8,8),8):((1,64),8)"), shared)
		}, "shared f16 elements align 16: logical tile(m:8, k:(k1:8, k0:8)) -> physical(addr:512) = (m * 8 + k1 * 64 + k0)"},
		{"128-byte swizzle", func() (Layout, error) {
			return SwizzledRowMajor(tile, Swizzle128B, Config{Memory: Shared, Element: BF16})
		},
			"shared bf16 bytes align 1024 Swizzle<3,4,3>: logical tile(m:8, k:64) -> physical(addr:1024) = (m * 128 + k * 2)"},
		{"64-byte swizzle on 32-wide rows", func() (Layout, error) {
			return SwizzledRowMajor(indexspace.MustParse("(m:8, k:32)"), Swizzle64B, Config{Memory: Shared, Element: F16})
		}, "shared f16 bytes align 512 Swizzle<2,4,3>: logical(m:8, k:32) -> physical(addr:512) = (m * 64 + k * 2)"},
		{"broadcast over warps", func() (Layout, error) {
			return RowMajor(indexspace.MustParse("(w:4, m:8, k:8)"), 0, Config{Memory: Shared, Element: F32, Broadcast: []string{"w"}})
		}, "shared f32 elements align 4: logical(w:4, m:8, k:8) -> physical(addr:64) = (m * 8 + k) broadcast(w)"},
		{"strided with a constant-free offset", func() (Layout, error) {
			return Strided(indexspace.MustParse("(k:4)"), []int{0}, Config{Memory: Shared, Element: F32, Broadcast: []string{"k"}})
		}, "shared f32 elements align 4: logical(k:4) -> physical(addr:1) = (0) broadcast(k)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := tt.build()
			if err != nil {
				t.Fatal(err)
			}
			if got := l.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	errs := []struct {
		name  string
		build func() (Layout, error)
		err   string
	}{
		{"stride count", func() (Layout, error) { return Strided(tile, []int{1}, shared) }, "1 strides for the 2 leaves"},
		{"CuTe rank", func() (Layout, error) { return FromCuTe(tile, cute.MustParse("(64,8,2):(1,64,512)"), shared) },
			"CuTe layout (64,8,2):(1,64,512) has 3 flattened modes, the tile tile(m:8, k:64) 2 leaves"},
		{"CuTe sizes", func() (Layout, error) { return FromCuTe(tile, cute.MustParse("(8,64):(64,1)"), shared) },
			"CuTe layout (8,64):(64,1): mode 0 has size 8, but its leaf k (the tile's leaves reversed) has size 64"},
		{"CuTe broadcast undeclared", func() (Layout, error) { return FromCuTe(tile, cute.MustParse("(64,8):(1,0)"), shared) },
			"elements (m=0, k=0) and (m=1, k=0) overlap || axis m does not affect the image"},
		{"negative pad", func() (Layout, error) { return RowMajor(tile, -1, shared) }, "padding -1"},
		{"unknown broadcast", func() (Layout, error) {
			return RowMajor(tile, 0, Config{Memory: Shared, Element: F32, Broadcast: []string{"z"}})
		}, `broadcast axis "z" is not an axis`},
		{"stride overflow", func() (Layout, error) { return Strided(tile, []int{1 << 60, 1}, shared) }, "leaf m: stride 1152921504606846976 overflows"},
		{"negative stride", func() (Layout, error) { return Strided(tile, []int{-64, 1}, shared) },
			"element (m=1, k=0) at offset -64: offsets must be non-negative || point (m=1, k=0) maps to (addr=-64), outside the codomain"},
		{"no element type", func() (Layout, error) { return Strided(tile, []int{64, 1}, Config{Memory: Shared}) }, "element type ElementType(0)"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.build(); !errorMatches(err, tt.err) {
				t.Fatalf("got %v, want error containing %q", err, tt.err)
			}
		})
	}
}

// TestColumnAccessByPitch checks Layout.Wavefronts against the closed form
// for a warp reading down a column of a row-major tile whose row pitch is p
// elements: with w-byte accesses the rows lie p·E/w accesses apart, and
// TestWavefrontsStrided's formula gives (w/4)·gcd(p·E/w, 128/w) wavefronts.
func TestColumnAccessByPitch(t *testing.T) {
	for _, tc := range []struct {
		elem   ElementType
		vector int
	}{{F32, 1}, {F64, 1}, {F32, 2}, {F32, 4}, {F16, 8}} {
		e := tc.elem.Bits() / 8
		width := tc.vector * e
		for pitch := tc.vector; pitch <= 80; pitch += tc.vector {
			tile, _ := indexspace.New("", indexspace.Leaf("m", 32), indexspace.Leaf("k", tc.vector))
			l, err := Strided(tile, []int{pitch, 1}, Config{Memory: Shared, Element: tc.elem, BaseAlign: 128})
			if err != nil {
				t.Fatalf("pitch %d: %v", pitch, err)
			}
			a := Access{Vector: tc.vector}
			for lane := range WarpSize {
				a.Lanes = append(a.Lanes, []int{lane, 0})
			}
			w, err := l.Wavefronts(a)
			if err != nil {
				t.Fatalf("%v: %v", l, err)
			}
			want := width / BankBytes * gcd(pitch*e/width, WavefrontBytes/width)
			if w.Total != want {
				t.Errorf("%d x %v, pitch %d: %v; want %d", tc.vector, tc.elem, pitch, w, want)
			}
		}
	}
}

// TestLdmatrixEveryBlock checks ldmatrix.x4 at every 16-row block and
// 16-element column block of a 64x64 f16 tile: unswizzled every phase reads
// 8 rows 128 bytes apart, 8 words in the same bank; with the 128-byte
// swizzle the 8 rows of a phase hit 8 distinct 16-byte chunks.
func TestLdmatrixEveryBlock(t *testing.T) {
	tile := indexspace.MustParse("(m:64, k:64)")
	plain, err := RowMajor(tile, 0, Config{Memory: Shared, Element: F16, Unit: Bytes, BaseAlign: 1024})
	if err != nil {
		t.Fatal(err)
	}
	sw, err := SwizzledRowMajor(tile, Swizzle128B, Config{Memory: Shared, Element: F16})
	if err != nil {
		t.Fatal(err)
	}
	for m0 := 0; m0 < 64; m0 += 16 {
		for k0 := 0; k0 < 64; k0 += 16 {
			a := Access{Vector: 8}
			for lane := range WarpSize {
				a.Lanes = append(a.Lanes, []int{m0 + lane%8 + lane/8%2*8, k0 + lane/16*8})
			}
			for _, tc := range []struct {
				l    Layout
				want int
			}{{plain, 4 * 8}, {sw, 4}} {
				w, err := tc.l.Wavefronts(a)
				if err != nil {
					t.Fatal(err)
				}
				if w.Total != tc.want || w.Ideal != 4 {
					t.Errorf("%v at (%d, %d): %v; want %d", tc.l, m0, k0, w, tc.want)
				}
			}
		}
	}
}

// TestLayoutWavefrontsByDefinition checks Layout.Wavefronts against its
// definition on random accesses: every lane's run read back through
// BitOffset (inside the tile, aligned, contiguous), the lanes' byte
// addresses costed by CountWavefronts, the worst over the base residues the
// alignment allows. The layouts are ChooseShared's candidates (padded, and
// swizzled with chunks larger and smaller than the runs), small-alignment
// ones, a broadcast one, a swizzled column-major one and one whose map is
// not affine.
func TestLayoutWavefrontsByDefinition(t *testing.T) {
	var layouts []Layout
	for _, tc := range choiceTiles {
		ls, err := SharedCandidates(indexspace.MustParse(tc.tile), tc.elem)
		if err != nil {
			t.Fatal(err)
		}
		layouts = append(layouts, ls...)
	}
	for _, text := range []string{
		"shared f16 elements align 2: logical(m:2, k:63) -> physical(addr:126) = (m * 63 + k)",
		"shared i8 bytes align 1: logical(m:8, k:40) -> physical(addr:360) = (m * 45 + k)",
		"shared f32 elements align 16: logical(m:4, k:4) -> physical(addr:4) = (k) broadcast(m)",
		"shared f16 bytes align 1024 Swizzle<3,4,3>: logical(m:64, k:8) -> physical(addr:1024) = (m * 2 + k * 128)",
		"shared f16 elements align 16: logical(m:16, k:64) -> physical(addr:1024) = (m * 64 + (k ^ (m % 8 * 8)))",
	} {
		layouts = append(layouts, MustParse(text))
	}
	rng := rand.New(rand.NewPCG(11, 12))
	served := 0
	for i := range 4000 {
		l := layouts[i%len(layouts)]
		for _, a := range randomAccesses(rng, l.Tile()) {
			got, err := l.Wavefronts(a)
			want, ok := wavefrontsByDefinition(t, l, a)
			switch {
			case !ok && err == nil:
				t.Fatalf("%v, access %v: %v; want an error", l, a, got)
			case ok && err != nil:
				t.Fatalf("%v, access %v: %v; want %v", l, a, err, want)
			case ok && !reflect.DeepEqual(got, want):
				t.Fatalf("%v, access %v:\ngot  %+v\nwant %+v", l, a, got, want)
			case ok:
				served++
			}
		}
	}
	if served < 1000 {
		t.Errorf("only %d accesses served: the test checks too little", served)
	}
}

// wavefrontsByDefinition is Layout.Wavefronts from the definition; ok is
// false where the access is invalid on l.
func wavefrontsByDefinition(t *testing.T, l Layout, a Access) (Wavefronts, bool) {
	leaves := l.Tile().Leaves()
	leaf := len(leaves) - 1
	if a.Axis != "" {
		r, _ := l.Tile().Lookup(a.Axis)
		leaf = r.First
	}
	v := max(1, a.Vector)
	ebits := l.Element().Bits()
	width := v * ebits
	if a.Vector < 0 || width%8 != 0 || width > MaxVectorBits || l.BaseAlign()*8%width != 0 {
		return Wavefronts{}, false
	}
	var lanes []LaneAddress
	for lane, p := range a.Lanes {
		if p == nil {
			continue
		}
		start, err := l.BitOffset(p)
		if err != nil || p[leaf]+v > leaves[leaf].Size || start%width != 0 {
			return Wavefronts{}, false
		}
		for j := 1; j < v; j++ {
			q := slices.Clone(p)
			q[leaf] += j
			if pos, _ := l.BitOffset(q); pos != start+j*ebits {
				return Wavefronts{}, false
			}
		}
		lanes = append(lanes, LaneAddress{Lane: lane, Byte: int64(start / 8)})
	}
	var worst Wavefronts
	for base := 0; base < BankBytes; base += l.BaseAlign() {
		shifted := slices.Clone(lanes)
		for i := range shifted {
			shifted[i].Byte += int64(base)
		}
		w, err := CountWavefronts(a.Op, width/8, shifted)
		if err != nil {
			t.Fatal(err)
		}
		if base == 0 || w.Total > worst.Total {
			w.Base = base
			worst = w
		}
	}
	return worst, true
}

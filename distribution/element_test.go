package distribution

import (
	"strings"
	"testing"

	"github.com/cklplan/cklplan/storage"
)

// Every built-in atom has the element type its instruction names.
func TestBuiltinElements(t *testing.T) {
	for _, name := range BuiltinNames() {
		d, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		want := storage.F16 // ldmatrix moves b16 halves
		for _, e := range []storage.ElementType{storage.F32, storage.BF16, storage.F16} {
			if strings.HasSuffix(name, "."+e.String()) {
				want = e
				break
			}
		}
		if d.Element() != want {
			t.Errorf("%s: element %v, want %v", name, d.Element(), want)
		}
		if d.BlocksPerCluster() != 1 {
			t.Errorf("%s: %d blocks per cluster", name, d.BlocksPerCluster())
		}
	}
}

// Register packs slots by definition: slot s of a b-bit type starts at bit
// s·b of the executor's register file.
func TestRegisterPacking(t *testing.T) {
	base, _ := Builtin("mma.m16n8k16.a.f16")
	for _, e := range storage.ElementTypes() {
		d, err := base.WithElement(e)
		if err != nil {
			t.Fatal(err)
		}
		b := e.Bits()
		if want := (8*b + 31) / 32; d.NumRegisters() != want {
			t.Errorf("%v: %d registers, want %d", e, d.NumRegisters(), want)
		}
		for s := range d.NumValues() {
			reg, bit := d.Register(s)
			if reg*32+bit != s*b || bit < 0 || bit >= 32 {
				t.Errorf("%v slot %d: register %d bit %d, want bit %d of the file", e, s, reg, bit, s*b)
			}
		}
	}
	if _, err := base.WithElement(storage.InvalidElement); err == nil {
		t.Error("WithElement(invalid) did not fail")
	}
}

func TestClusters(t *testing.T) {
	spec := Spec{Name: "blocks", Executors: []ExecutorAxis{{Name: "block", Size: 4, Level: LevelBlock}, {Name: "lane", Size: 32, Level: LevelLane}},
		Tile: []Axis{{"b", 4}, {"l", 32}}, Ownership: []string{"block", "lane"}}
	for _, tc := range []struct {
		n    int
		want string // an error fragment, "" for success
	}{
		{0, ""}, {1, ""}, {2, ""}, {4, ""},
		{3, "3 blocks per cluster does not divide the 4 blocks"},
		{8, "8 blocks per cluster does not divide the 4 blocks"},
		{-2, "-2 blocks per cluster"},
	} {
		s := spec
		s.BlocksPerCluster = tc.n
		d, err := New(s)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%d per cluster: %v", tc.n, err)
		case tc.want == "" && d.BlocksPerCluster() != max(tc.n, 1):
			t.Errorf("%d per cluster: BlocksPerCluster %d", tc.n, d.BlocksPerCluster())
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%d per cluster: error %v, want %q", tc.n, err, tc.want)
		}
	}
}

func TestParseRename(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "", want: ""},
		{in: "n=k", want: "n=k"},
		{in: " row = m , col=k", want: "col=k,row=m"},
		{in: "m=n,n=m", want: "m=n,n=m"},
		{in: "m=m", want: ""},
		{in: "n", err: `pair 1 "n": want from=to`},
		{in: "n=k,=m", err: `pair 2 "=m": an empty axis name`},
		{in: "n=k,n=m", err: "axis n renamed twice (to k and to m)"},
	} {
		r, err := ParseRename(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRename(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRename(%q): %v", tc.in, err)
			continue
		}
		if got := r.String(); got != tc.want {
			t.Errorf("ParseRename(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		back, err := ParseRename(r.String())
		if err != nil || back.String() != r.String() {
			t.Errorf("%q does not read back: %v %v", r, back, err)
		}
	}
}

func FuzzParseRename(f *testing.F) {
	for _, s := range []string{"", "n=k", "a=b,b=a", "x = y", "=", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRename(s)
		if err != nil {
			return
		}
		back, err := ParseRename(r.String())
		if err != nil {
			t.Fatalf("%q: String %q does not parse: %v", s, r, err)
		}
		if back.String() != r.String() {
			t.Fatalf("%q: %q reads back as %q", s, r, back)
		}
	})
}

// ldmatrix.x4 and the mma A operand are one table on other axis names.
func TestRenameLdmatrix(t *testing.T) {
	ld, _ := Builtin("ldmatrix.x4")
	a, _ := Builtin("mma.m16n8k16.a.f16")
	r, _ := ParseRename("row=m,col=k")
	renamed, err := ld.RenameTile(r)
	if err != nil {
		t.Fatal(err)
	}
	if !renamed.Equal(a) {
		t.Error("ldmatrix.x4 renamed row=m,col=k differs from mma.m16n8k16.a.f16")
	}
	m, err := MatchTiles(ld, a, r)
	if err != nil {
		t.Fatal(err)
	}
	if m.Perm[0] != 0 || m.Perm[1] != 1 {
		t.Errorf("perm %v", m.Perm)
	}
	// A swap of the names is a transpose: axis 0 goes to axis 1.
	swap, _ := ParseRename("row=k,col=m")
	if m, err := MatchTiles(ld, a, swap); err != nil || m.Perm[0] != 1 || m.Perm[1] != 0 {
		t.Errorf("swap: perm %v, %v", m.Perm, err)
	}
}

func TestMatchTilesErrors(t *testing.T) {
	ld, _ := Builtin("ldmatrix.x4")
	a, _ := Builtin("mma.m16n8k16.a.f16")
	b, _ := Builtin("mma.m16n8k16.b.f16")
	c, _ := Builtin("mma.m16n8k16.c.f32")
	for _, tc := range []struct {
		name     string
		src, dst *Distribution
		rename   string
		want     []string
	}{
		{"no renaming", ld, a, "", []string{
			"source axis row:16 has no destination axis of that name",
			"source axis col:16 has no destination axis of that name",
			"destination axis m:16 has no source axis of that name",
			"destination axis k:16 has no source axis of that name"}},
		{"sizes differ", b, a, "n=m", []string{"axis m (renamed from n) has size 8 in the source, 16 in the destination"}},
		{"sizes differ after the rename", c, a, "n=k", []string{"axis k (renamed from n) has size 8 in the source, 16 in the destination"}},
		{"not a tile axis", c, a, "q=k", []string{"q is not a tile axis of (m, n)"}},
		{"two axes onto one name", c, a, "n=m", []string{"tile axes m and n would both be named m"}},
	} {
		r, err := ParseRename(tc.rename)
		if err != nil {
			t.Fatal(err)
		}
		_, err = MatchTiles(tc.src, tc.dst, r)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
}

func TestJSONElementAndClusters(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		elem     storage.ElementType
		clusters int
		err      string
	}{
		{"builtin keeps its type", `{"builtin": "mma.m16n8k16.c.f16"}`, storage.F16, 1, ""},
		{"builtin overridden", `{"builtin": "ldmatrix.x4", "element": "bf16"}`, storage.BF16, 1, ""},
		{"PTX spelling", `{"builtin": "ldmatrix.x4", "element": "s8"}`, storage.I8, 1, ""},
		{"tiled inherits", `{"tiled": {"atom": "mma.m16n8k16.a.bf16", "warps": [{"name": "w", "size": 2, "along": "m"}]}}`, storage.BF16, 1, ""},
		{"blocked defaults to f32", `{"blocked": {"shape": [8, 32], "size_per_thread": [1, 4], "threads_per_warp": [4, 8], "warps_per_cta": [2, 1], "order": [1, 0]}}`, storage.F32, 1, ""},
		{"explicit with clusters", `{"executors": [{"name": "block", "size": 4, "level": "block"}], "tile": [{"name": "b", "size": 4}], "ownership": {"b": "block"}, "element": "f8e4m3", "blocks_per_cluster": 2}`, storage.F8E4M3, 2, ""},
		{"unknown type", `{"builtin": "ldmatrix.x4", "element": "f12"}`, 0, 0, `$.element: storage: unknown element type "f12"`},
		{"type not a string", `{"builtin": "ldmatrix.x4", "element": 16}`, 0, 0, `$.element: want a string, have the number 16`},
		{"cluster does not divide", `{"builtin": "ldmatrix.x4", "blocks_per_cluster": 2}`, 0, 0, `$.blocks_per_cluster: 2 blocks per cluster does not divide the 1 blocks`},
	} {
		d, err := DecodeJSON([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d.Element() != tc.elem || d.BlocksPerCluster() != tc.clusters {
			t.Errorf("%s: element %v, %d per cluster; want %v, %d", tc.name, d.Element(), d.BlocksPerCluster(), tc.elem, tc.clusters)
		}
		back, err := DecodeJSON([]byte(d.String()))
		if err != nil || !back.Equal(d) {
			t.Errorf("%s: %s does not read back: %v", tc.name, d, err)
		}
	}
}

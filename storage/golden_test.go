package storage

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/indexmap"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// catalogAccesses are warp access patterns, by name, over tiles (m:M, k:K),
// as lane → tile maps with a vector width along k.
var catalogAccesses = []struct {
	name, lanes string
	vector      int
}{
	{"row of 32 lanes", "(lane:32) -> (m:%M, k:%K) = (0, lane)", 1},
	{"column of 32 lanes", "(lane:32) -> (m:%M, k:%K) = (lane, 0)", 1},
	{"16-byte vectors, 4 lanes per row", "(lane:32) -> (m:%M, k:%K) = (lane / 4, lane % 4 * %V)", 0},
	{"16-byte vectors down a column (ldmatrix rows)", "(lane:32) -> (m:%M, k:%K) = (lane, 0)", 0},
}

// catalog lists the layouts of the golden report: common shared-memory
// tiles with and without padding and swizzles, and element types from f64 to
// u4.
var catalog = []string{
	"shared f32 elements align 128: logical(m:32, k:32) -> physical(addr:1024) = (m * 32 + k)",
	"shared f32 elements align 128: logical(m:32, k:32) -> physical(addr:1056) = (m * 33 + k)",
	"shared f32 elements align 128: logical(m:32, k:32) -> physical(addr:1152) = (m * 36 + k)",
	"shared f16 bytes align 1024: logical(m:32, k:64) -> physical(addr:4096) = (m * 128 + k * 2)",
	"shared f16 bytes align 1024: logical(m:32, k:64) -> physical(addr:4608) = (m * 144 + k * 2)",
	"shared f16 bytes align 1024 Swizzle<3,4,3>: logical(m:32, k:64) -> physical(addr:4096) = (m * 128 + k * 2)",
	"shared bf16 bytes align 512 Swizzle<2,4,3>: logical(m:32, k:32) -> physical(addr:2048) = (m * 64 + k * 2)",
	"shared f16 elements align 1024 Swizzle<3,3,3>: logical(m:32, k:64) -> physical(addr:2048) = (m * 64 + k)",
	"shared f64 elements align 128: logical(m:32, k:16) -> physical(addr:512) = (m * 16 + k)",
	"shared i8 bytes align 1024 Swizzle<3,4,3>: logical(m:32, k:128) -> physical(addr:4096) = (m * 128 + k)",
	"shared u4 elements align 128: logical(m:32, k:256) -> physical(addr:8192) = (m * 256 + k)",
	"shared f32 elements align 16: logical(w:4, m:32, k:32) -> physical(addr:1024) = (m * 32 + k) broadcast(w)",
}

// TestCatalogGolden renders every catalog layout's properties and the cost
// of each catalog access, and compares with testdata/catalog.golden (go test
// -run TestCatalogGolden -update rewrites it).
func TestCatalogGolden(t *testing.T) {
	var b strings.Builder
	for _, text := range catalog {
		l, err := Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		fmt.Fprintf(&b, "%s\n", l)
		fmt.Fprintf(&b, "  footprint %d bytes\n", l.Footprint())
		for _, leaf := range l.Tile().Leaves() {
			v, err := l.Vector(leaf.Name)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "  vector %s\n", v)
		}
		m, _ := l.Tile().Lookup("m")
		k, _ := l.Tile().Lookup("k")
		vec := MaxVectorBits / l.Element().Bits()
		for _, acc := range catalogAccesses {
			lanes := strings.NewReplacer("%M", fmt.Sprint(m.Size), "%K", fmt.Sprint(k.Size), "%V", fmt.Sprint(vec)).Replace(acc.lanes)
			if l.Tile().NumLeaves() == 3 {
				lanes = strings.Replace(strings.Replace(lanes, "(m:", "(w:4, m:", 1), "= (", "= (0, ", 1)
			}
			v := acc.vector
			if v == 0 {
				v = vec
			}
			a, err := AccessOf(indexmap.MustParse(lanes), v, "k")
			if err != nil {
				t.Fatalf("%s: %v", lanes, err)
			}
			w, err := l.Wavefronts(a)
			result := fmt.Sprint(w)
			if err != nil {
				result = "error: " + strings.TrimPrefix(err.Error(), "storage: ")
			}
			fmt.Fprintf(&b, "  %s, %d x %v: %s\n", acc.name, v, l.Element(), result)
		}
		b.WriteString("\n")
	}
	path := filepath.Join("testdata", "catalog.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestCatalogGolden -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("catalog differs from %s (go test -run TestCatalogGolden -update rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines that differ between want and got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

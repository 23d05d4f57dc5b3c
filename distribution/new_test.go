package distribution

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/indexmap"
)

// typedMapsAgree checks d's typed maps, built on first use: their kinds and
// broadcast axes, indexmap's verdict on them, and that they give the
// distribution's own tabulation at every point.
func typedMapsAgree(t *testing.T, d *Distribution) {
	t.Helper()
	own, store := d.Ownership(), d.Storage()
	if own.Domain().Kind != indexmap.ThreadValue || own.Codomain().Kind != indexmap.Logical {
		t.Fatalf("ownership %v -> %v, want thread-value -> logical", own.Domain().Kind, own.Codomain().Kind)
	}
	if store.Codomain().Kind != indexmap.Physical {
		t.Fatalf("storage into %v, want physical", store.Codomain().Kind)
	}
	var replicated []string
	for _, a := range d.Executors() {
		if a.Replicated {
			replicated = append(replicated, a.Name)
		}
	}
	if got := own.Broadcast(); !slices.Equal(got, replicated) {
		t.Fatalf("ownership broadcast %v, want the replicated axes %v", got, replicated)
	}
	for _, m := range []indexmap.Map{own, store} {
		p, err := m.Decide()
		if err != nil || !p.InRange || !p.AliasFree {
			t.Fatalf("%v: %+v, %v", m, p, err)
		}
	}
	if p, _ := own.Decide(); !p.DenseBijection {
		t.Fatalf("ownership is not a dense bijection: %s", p.Witness)
	}
	nExec := d.NumExecutors()
	nLocal := max(d.NumValues(), 1)
	dom := own.Domain().Space
	for flat := range dom.Size() {
		point, _ := dom.Coord(flat)
		got, _, err := own.Eval(point)
		if err != nil {
			t.Fatal(err)
		}
		exec := point[:len(d.Executors())]
		want, err := d.At(exec, flat%nLocal)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("ownership at %v = %v; the distribution holds %v there (%v)", point, got, want, err)
		}
	}
	if dom.Size() != nExec*nLocal {
		t.Fatalf("ownership domain %v has %d points, want %d executors × %d values", dom, dom.Size(), nExec, nLocal)
	}
	lsp := store.Domain().Space
	for v := range lsp.Size() {
		local, _ := lsp.Coord(v)
		got, _, err := store.Eval(local)
		if err != nil {
			t.Fatal(err)
		}
		if slot, err := d.Slot(v); err != nil || got[0] != slot {
			t.Fatalf("storage of value %d = %v; the distribution puts it in slot %d (%v)", v, got, slot, err)
		}
	}
}

// TestTypedMaps builds the typed maps of every built-in atom, the tiled CTA
// tiles, a blocked encoding and the examples, and checks them against the
// distributions' own tables.
func TestTypedMaps(t *testing.T) {
	var all []*Distribution
	for _, name := range BuiltinNames() {
		d, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, d)
	}
	for _, contiguous := range []bool{false, true} {
		a, b, c := cta64(t, contiguous)
		all = append(all, a, b, c)
	}
	blocked, err := NewBlocked(Blocked{Shape: []int{32, 32}, SizePerThread: []int{2, 2}, ThreadsPerWarp: []int{8, 4}, WarpsPerCTA: []int{2, 2}, Order: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, blocked)
	files, _ := filepath.Glob(filepath.Join(exampleDir, "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		all = append(all, d)
	}
	for _, d := range all {
		t.Run(d.Name(), func(t *testing.T) {
			typedMapsAgree(t, d)
			// A renamed copy shares the maps.
			r := d.WithName("renamed")
			if !indexmap.Equal(r.Ownership().Result(0), d.Ownership().Result(0)) {
				t.Fatal("WithName changed the ownership map")
			}
		})
	}
}

// TestTypedMapsZero: the zero Distribution's typed maps are zero maps.
func TestTypedMapsZero(t *testing.T) {
	var d Distribution
	if own, store := d.Ownership(), d.Storage(); len(own.Results()) != 0 || len(store.Results()) != 0 {
		t.Fatalf("zero Distribution: ownership %v, storage %v", own, store)
	}
}

// TestTypedMapsCheckable: New refuses executor × local spaces above
// maxPoints, so the typed maps are never too large for indexmap's kind check
// (which fails on non-affine maps above EnumerationLimit).
func TestTypedMapsCheckable(t *testing.T) {
	if maxPoints > indexmap.EnumerationLimit {
		t.Fatalf("maxPoints %d exceeds indexmap.EnumerationLimit %d: New could accept a distribution whose typed maps indexmap cannot check", maxPoints, indexmap.EnumerationLimit)
	}
}

// TestNewRejectsReplicatedDependence: indexmap's broadcast rule, that no
// result depends on a broadcast (replicated) axis, is checked by New, after
// the distribution's own checks; the message is the one indexmap gives.
func TestNewRejectsReplicatedDependence(t *testing.T) {
	warp := []ExecutorAxis{{Name: "w", Size: 2, Level: LevelWarp, Replicated: true}, {Name: "lane", Size: 32, Level: LevelLane}}
	tests := []struct {
		name, m, want string
	}{
		{"permuted per copy", "(lane + 16 * w) % 32", `distribution "r": ownership: result m depends on w, which is declared broadcast`},
		{"cancelled dependence", "lane + w - w", `distribution "r": ownership: result m depends on w, which is declared broadcast`},
		{"invalid first", "lane / 2 + w", `distribution "r" is invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Spec{Name: "r", Executors: warp, Tile: []Axis{{"m", 32}}, Ownership: []string{tt.m}})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("New: %v; want an error starting %q", err, tt.want)
			}
		})
	}
}

// FuzzTypedMaps: whatever New accepts has typed maps that indexmap.New
// accepts too (Ownership and Storage never panic) and that agree with it.
func FuzzTypedMaps(f *testing.F) {
	f.Add("lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2", "", false)
	f.Add("lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2", "3 - v", true)
	f.Add("(lane ^ v) % 16", "lane / 4", "v ^ 1", false)
	f.Add("lane / 4 + 8 * (v % 2)", "lane % 4 * 2 + v / 2", "(v + 1) % 4", true)
	f.Add("lane / 4 + 8 * (v % 2) + 0 * w", "lane % 4 * 2 + v / 2", "", true)
	f.Fuzz(func(t *testing.T, m, n, storage string, replicated bool) {
		execs := []ExecutorAxis{{Name: "w", Size: 2, Level: LevelWarp, Replicated: replicated}, {Name: "lane", Size: 32, Level: LevelLane}}
		tile := []Axis{{"m", 16}, {"n", 8}}
		if !replicated {
			tile[0].Size = 32
			m = "16 * w + " + m
		}
		d, err := New(Spec{Name: "f", Executors: execs, Locals: []Axis{{"v", 4}}, Tile: tile, Ownership: []string{m, n}, Storage: storage})
		if err != nil {
			return
		}
		typedMapsAgree(t, d)
	})
}

// BenchmarkNewWGMMAN256Typed is New of the wgmma n256 accumulator followed by
// the first Ownership and Storage calls: what a caller of the typed maps pays
// (indexmap.New's kind check, by enumeration for this non-affine map).
func BenchmarkNewWGMMAN256Typed(b *testing.B) {
	spec, _ := BuiltinSpec("wgmma.m64n256k16.c.f32")
	b.ReportAllocs()
	for b.Loop() {
		d, err := New(spec)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = d.Ownership(), d.Storage()
	}
}

package distribution

import (
	"testing"

	json "github.com/goccy/go-json"
)

func benchNew(b *testing.B, name string) {
	spec, ok := BuiltinSpec(name)
	if !ok {
		b.Fatalf("no %s", name)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(spec); err != nil {
			b.Fatal(err)
		}
	}
}

// New parses, tabulates, validates and fingerprints.
func BenchmarkNewMMAA(b *testing.B)      { benchNew(b, "mma.m16n8k16.a.f16") }
func BenchmarkNewWGMMAN256(b *testing.B) { benchNew(b, "wgmma.m64n256k16.c.f32") }

func BenchmarkTileAtomCTA64C(b *testing.B) {
	atom, _ := Builtin("mma.m16n8k16.c.f32")
	t := Tiling{Warps: []GridAxis{{"warp_m", 2, "m"}, {"warp_n", 2, "n"}}, Repeat: map[string]int{"m": 2, "n": 4}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TileAtom(atom, t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewBlocked128x128(b *testing.B) {
	bl := Blocked{Shape: []int{128, 128}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewBlocked(bl); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOwners(b *testing.B) {
	d, _ := Builtin("wgmma.m64n256k16.c.f32")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.Owners(i%64, i%256); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkHolds(b *testing.B) {
	d, _ := Builtin("wgmma.m64n256k16.c.f32")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.Holds(i%4, i%32); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkJSONRoundTripCTA64C(b *testing.B) {
	_, _, c := cta64(b, false)
	b.ReportAllocs()
	for b.Loop() {
		data, err := json.Marshal(c)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := DecodeJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTabulatedRoundTripCTA64C writes the 64×64 C tile's table
// (EntriesJSON, 4096 entries) and reads it back.
func BenchmarkTabulatedRoundTripCTA64C(b *testing.B) {
	_, _, c := cta64(b, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeJSON(c.EntriesJSON()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDiagramCTA64C(b *testing.B) {
	_, _, c := cta64(b, false)
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Diagram()
	}
}

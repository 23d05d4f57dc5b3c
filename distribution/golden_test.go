package distribution

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./distribution -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./distribution -update and review the diff)", path)
	}
}

// The table (PTX-figure) and JSON forms of every mma and ldmatrix atom, one
// wgmma accumulator, and the tiled CTA accumulator. The contents are checked
// against the PTX oracles by TestBuiltinAtomsMatchPTX; these files pin the
// renderings.
func TestGoldenRenderings(t *testing.T) {
	names := []string{
		"mma.m16n8k16.a.f16", "mma.m16n8k16.a.bf16", "mma.m16n8k16.b.f16", "mma.m16n8k16.b.bf16",
		"mma.m16n8k16.c.f32", "mma.m16n8k16.c.f16", "ldmatrix.x4", "ldmatrix.x4.trans", "wgmma.m64n16k16.c.f32",
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			d, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".table", []byte(d.Diagram()))
			golden(t, name+".json", d.EntriesJSON())
		})
	}
	_, _, c := cta64(t, false)
	golden(t, "cta64.c.table", []byte(c.Diagram()))
}

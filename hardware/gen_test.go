package hardware

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated files: distcheck.cu, the measured-costs files")

// The committed program is Generate's output.
func TestGeneratedUpToDate(t *testing.T) {
	got, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("distcheck.cu", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("distcheck.cu")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("distcheck.cu is stale: run go test ./hardware -update")
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(); err != nil {
			b.Fatal(err)
		}
	}
}

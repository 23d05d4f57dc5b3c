package tasks

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

func BenchmarkLoadExamples(b *testing.B) {
	for _, f := range exampleFiles(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Load(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// layeredGraph is a transformer-like graph of n invocations: a chain of
// layers, each a normalization feeding a GEMM whose output a residual add
// joins with the layer's input, every task with 4 alternatives over 2
// distributions per port.
func layeredGraph(tb testing.TB, n int) []byte {
	b := NewBuilder("layers", "h200").Size("M", 4096).Size("K", 4096)
	alts := func(t *TaskBuilder, ports []string) {
		dists := []string{"mma.m16n8k16.a.f16", "rows"}
		for i := range 4 {
			a := t.Alternative(fmt.Sprintf("alt%d", i)).CostNS(float64(1 + i)).Multiplicity("M/16 * K/16")
			for j, p := range ports {
				a.Dist(p, dists[(i>>j)&1], "")
			}
		}
	}
	rows := mustBlocked(tb)
	b.Distribution("rows", rows)
	alts(b.Task("norm").In("x", "(m:16, k:16)", storage.F16).Out("y", "(m:16, k:16)", storage.F16), []string{"x", "y"})
	alts(b.Task("gemm").In("a", "(m:16, k:16)", storage.F16).Out("c", "(m:16, k:16)", storage.F16), []string{"a", "c"})
	alts(b.Task("add").In("x", "(m:16, k:16)", storage.F16).In("r", "(m:16, k:16)", storage.F16).Out("y", "(m:16, k:16)", storage.F16), []string{"x", "r", "y"})
	prev := ""
	for i := 0; i+3 <= n; i += 3 {
		norm, gemm, add := fmt.Sprintf("norm%d", i), fmt.Sprintf("gemm%d", i), fmt.Sprintf("add%d", i)
		b.Invoke(norm, "norm")
		b.Invoke(gemm, "gemm")
		b.Invoke(add, "add")
		if prev != "" {
			b.Edge(prev+".y", norm+".x")
			b.Edge(prev+".y", add+".r")
		}
		b.Edge(norm+".y", gemm+".a")
		b.Edge(gemm+".c", add+".x")
		prev = add
	}
	data, err := MarshalSpec(b.Spec())
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkLoadLayered loads and validates generated graphs of 1k, 10k and
// 100k invocations: the floor under planning them.
func BenchmarkLoadLayered(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		data := layeredGraph(b, n)
		b.Run(fmt.Sprintf("invocations=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustBlocked(tb testing.TB) *distribution.Distribution {
	d, err := distribution.NewBlocked(distribution.Blocked{Name: "rows", Axes: []string{"m", "k"}, Shape: []int{16, 16},
		SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{16, 2}, WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

package conversion

import (
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/storage"
)

func example(b testing.TB, name string) *distribution.Distribution {
	b.Helper()
	data, err := os.ReadFile("../examples/distributions/" + name + ".json")
	if err != nil {
		b.Fatal(err)
	}
	d, err := distribution.DecodeJSON(data)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkClassify times one classification per canonical pair, every
// mechanism planned and costed.
func BenchmarkClassify(b *testing.B) {
	wg := example(b, "cta128x128.wgmma.c.f32")
	wgBlocked := blocked(b, distribution.Blocked{Name: "blocked", Axes: []string{"m", "n"}, Shape: []int{128, 128}, SizePerThread: []int{1, 4}, ThreadsPerWarp: []int{2, 16}, WarpsPerCTA: []int{8, 1}, Order: []int{1, 0}})
	wg16, err := wg.WithElement(storage.F16)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name     string
		src, dst *distribution.Distribution
		rename   string
	}{
		{"fa2-accumulator-to-A", twoAccumulators(b), builtin(b, "mma.m16n8k16.a.f16"), "n=k"},
		{"blocked-to-mma-A", blockedA(b), builtin(b, "mma.m16n8k16.a.f16"), ""},
		{"transpose-32x32", rowsOfWarps(b), columnsOfWarps(b), ""},
		{"wgmma-128x128-to-blocked", wg, wgBlocked, ""},
		{"wgmma-128x128-f32-to-f16-blocked", wg, mustElementB(b, wgBlocked, storage.F16), ""},
		{"wgmma-128x128-f16-identity", wg16, wg16, ""},
	}
	for _, tc := range cases {
		opts := Options{Rename: rename(b, tc.rename)}
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Classify(tc.src, tc.dst, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustElementB(b testing.TB, d *distribution.Distribution, e storage.ElementType) *distribution.Distribution {
	b.Helper()
	out, err := d.WithElement(e)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkClassifyTaskgen classifies the 16 pairs of internal/taskgen's
// four one-warp 16×16 f16 distributions: every conversion a generated task
// graph's plan costs.
func BenchmarkClassifyTaskgen(b *testing.B) {
	ds, err := taskgen.Distributions()
	if err != nil {
		b.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(ds))
	for b.Loop() {
		for _, s := range names {
			for _, d := range names {
				if _, err := Classify(ds[s], ds[d], Options{}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkClassifyTaskgenMemo is BenchmarkClassifyTaskgen as the planner
// classifies: the 16 pairs through one Memo, a fresh one per plan.
func BenchmarkClassifyTaskgenMemo(b *testing.B) {
	ds, err := taskgen.Distributions()
	if err != nil {
		b.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(ds))
	for b.Loop() {
		opts := Options{Memo: NewMemo()}
		for _, s := range names {
			for _, d := range names {
				if _, err := Classify(ds[s], ds[d], opts); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

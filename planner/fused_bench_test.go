package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// The fused transformers' benchmarks: every layer one kernel whose
// shared-memory budget binds, planned from the validated graph (contract.go
// contracts the kernels first), without regrets and with every regret. The
// layers of a generated transformer are alike, and their kernels share
// their program; "distinct" gives each layer's kernel a budget 8 bytes
// larger than the last, so that each runs its own.
//
//	go test ./planner -run '^$' -bench Fused -benchtime 5x -benchmem
func BenchmarkFused(b *testing.B) {
	for _, c := range []struct {
		layers   int
		distinct bool
		all      bool // every regret too (up to 1,000 invocations)
	}{{99, false, false}, {99, false, true}, {99, true, false}, {99, true, true}, {1000, false, false}, {1000, true, false}} {
		g := fusedLayers(b, c.layers, c.distinct)
		kernels := map[bool]string{false: "alike", true: "distinct"}[c.distinct]
		regrets := map[bool]string{false: "none", true: "all"}[c.all]
		b.Run(fmt.Sprintf("layers=%d/%s/regrets=%s", c.layers, kernels, regrets), func(b *testing.B) {
			for b.Loop() {
				r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: !c.all}})
				if err != nil {
					b.Fatal(err)
				}
				if r.Status != "optimal" {
					b.Fatalf("status %s", r.Status)
				}
			}
		})
	}
}

// fusedLayers is a generated transformer of that many layers, each fused
// into a kernel of 300,000 bytes of shared memory, or with distinct,
// 300,000 + 8·i bytes for layer i.
func fusedLayers(b *testing.B, layers int, distinct bool) *tasks.Graph {
	s, err := taskgen.Transformer(layers, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := taskgen.FuseLayers(&s, 300_000); err != nil {
		b.Fatal(err)
	}
	if distinct {
		for i := range s.Groups {
			s.Groups[i].SharedMemoryBytes += 8 * int64(i)
		}
	}
	g, err := tasks.New(s)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

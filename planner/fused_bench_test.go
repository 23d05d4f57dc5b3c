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
// larger than the last (fusedStepped), so that each runs its own.
//
//	go test ./planner -run '^$' -bench Fused -benchtime 5x -benchmem
func BenchmarkFused(b *testing.B) {
	for _, c := range []struct {
		layers   int
		distinct bool
		all      bool // every regret too (up to 1,000 invocations)
	}{{99, false, false}, {99, false, true}, {99, true, false}, {99, true, true}, {1000, false, false}, {1000, true, false}} {
		g := fusedStepped(b, c.layers, 1, 300_000, map[bool]int64{false: 0, true: 8}[c.distinct])
		kernels := map[bool]string{false: "alike", true: "distinct"}[c.distinct]
		regrets := map[bool]string{false: "none", true: "all"}[c.all]
		b.Run(fmt.Sprintf("layers=%d/%s/regrets=%s", c.layers, kernels, regrets), func(b *testing.B) {
			for b.Loop() {
				r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: !c.all}})
				if err != nil {
					b.Fatal(err)
				}
				if r.Status != Optimal {
					b.Fatalf("status %s", r.Status)
				}
			}
		})
	}
}

// BenchmarkMegakernel: a generated transformer of L layers fused whole
// into one kernel (a persistent megakernel; cklplan gen transformer
// --kernel-layers L) under a budget of 12,288 bytes a layer, planned from
// the validated graph, without regrets and with every regret (the
// min-marginals of one kernel of 10·L invocations). docs/benchmarks.md,
// "A whole model in one kernel".
//
//	go test ./planner -run '^$' -bench Megakernel -benchtime 3x -benchmem
func BenchmarkMegakernel(b *testing.B) {
	for _, c := range []struct {
		layers int
		all    bool
	}{{10, true}, {30, false}, {30, true}, {100, false}} {
		s, err := taskgen.Transformer(c.layers, 1)
		if err == nil {
			err = taskgen.FuseLayersBy(&s, 12288*int64(c.layers), c.layers)
		}
		if err != nil {
			b.Fatal(err)
		}
		g, err := tasks.New(s)
		if err != nil {
			b.Fatal(err)
		}
		regrets := map[bool]string{false: "none", true: "all"}[c.all]
		b.Run(fmt.Sprintf("layers=%d/regrets=%s", c.layers, regrets), func(b *testing.B) {
			for b.Loop() {
				r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: !c.all}})
				if err != nil {
					b.Fatal(err)
				}
				if r.Status != Optimal || r.Model.ContractedKernels != 1 {
					b.Fatalf("status %s, %d kernels contracted", r.Status, r.Model.ContractedKernels)
				}
			}
		})
	}
}

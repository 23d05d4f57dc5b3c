package planner

import (
	"context"
	"fmt"
	"testing"
)

// The fused transformers' benchmarks: every layer one kernel whose
// shared-memory budget binds, planned from the validated graph (contract.go
// contracts the kernels first), without regrets and with every regret.
//
//	go test ./planner -run '^$' -bench Fused -benchtime 5x -benchmem
func BenchmarkFused(b *testing.B) {
	for _, c := range []struct {
		layers int
		all    bool // every regret too (up to 1,000 invocations)
	}{{99, false}, {99, true}, {1000, false}} {
		g := fusedTransformer(b, c.layers, 1, 300_000)
		regrets := map[bool]string{false: "none", true: "all"}[c.all]
		b.Run(fmt.Sprintf("layers=%d/regrets=%s", c.layers, regrets), func(b *testing.B) {
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

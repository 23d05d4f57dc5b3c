package conversion_test

import (
	"context"
	"os"
	"testing"

	"github.com/cklplan/cklplan/planner"
	"github.com/cklplan/cklplan/tasks"
)

// BenchmarkPlanTransformerLayer plans the bundled 16-invocation transformer
// layer, a fresh classification cache each time: nearly all of its time is
// the classification of its 128-row tiles' conversions.
func BenchmarkPlanTransformerLayer(b *testing.B) {
	data, err := os.ReadFile("../examples/graphs/transformer_layer.json")
	if err != nil {
		b.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := planner.Plan(context.Background(), g, planner.PlanOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

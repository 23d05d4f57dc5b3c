package planner

import (
	"context"
	"testing"

	"github.com/cklplan/cklplan/tasks"
)

// BenchmarkReduce is the exact reduction alone (terms, tabulation and
// bucket elimination) of the lowered 10,000-invocation transformer graph
// that BenchmarkEndToEnd plans.
//
//	go test ./planner -run '^$' -bench Reduce -benchmem
func BenchmarkReduce(b *testing.B) {
	g, err := (tasks.Limits{FileBytes: 1 << 30, Invocations: 1 << 20, Edges: 1 << 21}).Load(benchGraph(b, "transformer", 10000))
	if err != nil {
		b.Fatal(err)
	}
	target, err := graphTarget(g)
	if err != nil {
		b.Fatal(err)
	}
	lw, err := lowerGraph(context.Background(), g, target, nil, NewCache())
	if err != nil {
		b.Fatal(err)
	}
	in := newInstance(&lw.problem, false)
	b.ReportAllocs()
	for b.Loop() {
		reduce(in, DefaultMaxTable, true)
	}
}

// BenchmarkReduceFanOut: one producer feeding 1,000 consumers of one
// alternative each, eliminated whole (the neighbours' keys were recomputed
// after every elimination, N³: minutes).
//
//	go test ./planner -run '^$' -bench ReduceFanOut -benchmem
func BenchmarkReduceFanOut(b *testing.B) {
	in := newInstance(fanOut(1, 1000, 1), false)
	for b.Loop() {
		if r := reduce(in, DefaultMaxTable, true); len(r.core) != 0 {
			b.Fatalf("%d core nodes", len(r.core))
		}
	}
}

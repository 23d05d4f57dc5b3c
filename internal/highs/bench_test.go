package highs_test

import (
	"context"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// BenchmarkAssignment10000 solves a 100×100 assignment problem: 10,000 binary
// columns, 200 equality rows, 20,000 nonzeros, random integer costs. Each
// iteration builds nothing: it only passes the model to a fresh instance and
// solves it to proven optimality (gaps 1e-9).
func BenchmarkAssignment10000(b *testing.B) {
	lib := highstest.Library(b)
	a := randomAssignment(100, 42)
	m := a.model()
	var last *highs.Result
	var highsTime time.Duration
	for b.Loop() {
		r, err := lib.Solve(context.Background(), m, exact)
		if err != nil {
			b.Fatal(err)
		}
		if r.Status != highs.Optimal {
			b.Fatalf("status %v", r.Status)
		}
		last = r
		highsTime += r.RunTime
	}
	b.ReportMetric(float64(len(m.Columns)), "columns")
	b.ReportMetric(float64(last.Nodes), "nodes")
	b.ReportMetric(highsTime.Seconds()/float64(b.N)*1e3, "highs-ms/op")
}

// BenchmarkSmallSolve measures the binding's fixed cost on a 16-item knapsack,
// beside HiGHS's own run time: on a fresh instance per solve (Library.Solve: a
// new locked thread, create, destroy) and on a reused Solver.
func BenchmarkSmallSolve(b *testing.B) {
	lib := highstest.Library(b)
	m := randomKnapsack(16, 1).model()
	bench := func(b *testing.B, solve func() (*highs.Result, error)) {
		var highsTime time.Duration
		for b.Loop() {
			r, err := solve()
			if err != nil || r.Status != highs.Optimal {
				b.Fatal(r, err)
			}
			highsTime += r.RunTime
		}
		b.ReportMetric(highsTime.Seconds()/float64(b.N)*1e3, "highs-ms/op")
	}
	b.Run("Library.Solve", func(b *testing.B) {
		bench(b, func() (*highs.Result, error) { return lib.Solve(context.Background(), m, highs.Options{}) })
	})
	b.Run("Solver.Solve", func(b *testing.B) {
		s, err := lib.NewSolver()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		bench(b, func() (*highs.Result, error) { return s.Solve(context.Background(), m, highs.Options{}) })
	})
}

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

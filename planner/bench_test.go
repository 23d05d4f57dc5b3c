package planner

import (
	"context"
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// benchSolve solves p b.N times and reports the model's sizes and the
// regrets' re-solves as custom metrics.
func benchSolve(b *testing.B, p *Problem, opt Options) {
	b.Helper()
	var sol *Solution
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	var t0 time.Time
	for b.Loop() {
		var err error
		t0 = time.Now()
		sol, err = Solve(context.Background(), p, opt)
		if err != nil {
			b.Fatal(err)
		}
		if sol.Status != Optimal {
			b.Fatalf("status %v", sol.Status)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	if !sol.regretDeadline.IsZero() {
		// The regrets' limit, max(F × the plan's time, L), runs from the
		// plan's end: the plan's own time, of the last solve.
		total := sol.regretDeadline.Sub(t0).Seconds()
		f, l := opt.RegretTimeFactor, opt.RegretTimeLimit.Seconds()
		plan := total - l
		if p := total / (1 + f); f*p >= l {
			plan = p
		}
		b.ReportMetric(plan*1e3, "plan-ms")
	}
	b.ReportMetric(float64(sol.Model.CoreNodes), "core-nodes")
	b.ReportMetric(float64(sol.Model.Core.Columns), "core-cols")
	b.ReportMetric(float64(sol.Model.Full.Columns), "full-cols")
	b.ReportMetric(float64(sol.RegretSolves), "re-solves")
	b.ReportMetric(float64(sol.RegretMILPSolves), "milp-re-solves")
	b.ReportMetric(float64(sol.RegretCertified), "certified")
	b.ReportMetric(float64(sol.certifiedWindows), "windowed")
	b.ReportMetric(float64(len(sol.Regrets)), "regrets")
	exact, bounded := 0, 0
	for _, r := range sol.Regrets {
		if r.Exact {
			exact++
		}
		if !math.IsInf(r.Regret, 1) {
			bounded++
		}
	}
	b.ReportMetric(float64(exact), "exact-regrets")
	b.ReportMetric(float64(bounded), "bounded-regrets")
	b.ReportMetric(float64(sol.MILPNodes), "bb-nodes")
}

// BenchmarkTransformer plans transformer-like problems (8 alternatives, 4
// distributions per port) with every regret, reduced.
func BenchmarkTransformer(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		p := transformerLike(1, n, genAlternatives)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) { benchSolve(b, p, Options{}) })
	}
}

// BenchmarkTransformerNoRegrets is the plan alone.
func BenchmarkTransformerNoRegrets(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		p := transformerLike(1, n, genAlternatives)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) { benchSolve(b, p, Options{NoRegrets: true}) })
	}
}

// BenchmarkTransformerNoReduce hands the whole problem to HiGHS (no
// regrets: they would be one re-solve per rejected alternative).
func BenchmarkTransformerNoReduce(b *testing.B) {
	highstest.Library(b)
	for _, n := range []int{1_000, 10_000} {
		p := transformerLike(1, n, genAlternatives)
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) { benchSolve(b, p, Options{NoReduce: true, NoRegrets: true}) })
	}
}

// BenchmarkDenseDAG plans random DAGs of average degree 4, whose core is
// real: the plan alone, the regrets of ten nodes, and (4 alternatives) all.
func BenchmarkDenseDAG(b *testing.B) {
	highstest.Library(b)
	for _, alts := range []int{4, 8} {
		p := randomDAG(1, 1000, alts)
		b.Run(fmt.Sprintf("nodes=1000/alts=%d", alts), func(b *testing.B) { benchSolve(b, p, Options{NoRegrets: true}) })
		b.Run(fmt.Sprintf("nodes=1000/alts=%d/explain=10", alts), func(b *testing.B) {
			benchSolve(b, p, Options{Explain: []int{0, 100, 200, 300, 400, 500, 600, 700, 800, 999}})
		})
	}
	p := randomDAG(1, 1000, 4)
	b.Run("nodes=1000/alts=4/regrets=all", func(b *testing.B) { benchSolve(b, p, Options{}) })
	// What cklplan plan does by default: the regrets within 3× the plan's
	// time (at least 1 s), the rest as proven intervals.
	b.Run("nodes=1000/alts=4/regrets=all/limit=3x", func(b *testing.B) {
		benchSolve(b, p, Options{RegretTimeLimit: time.Second, RegretTimeFactor: 3})
	})
}

// BenchmarkSmall compares the planner with exhaustive search on small
// transformer-like and random problems, with 3 alternatives per node (3^12
// plans at 12 nodes).
func BenchmarkSmall(b *testing.B) {
	for _, n := range []int{8, 10, 12} {
		for _, family := range []struct {
			name string
			p    *Problem
		}{
			{"transformer", transformerLike(2, n, 3)},
			{"dag", randomDAG(2, n, 3)},
		} {
			b.Run(fmt.Sprintf("%s/nodes=%d/planner", family.name, n), func(b *testing.B) { benchSolve(b, family.p, Options{}) })
			b.Run(fmt.Sprintf("%s/nodes=%d/exhaustive", family.name, n), func(b *testing.B) {
				for b.Loop() {
					exhaustive(family.p)
				}
			})
		}
	}
}

// cpuTime is the process's user and system CPU time: on a shared machine it
// says what a benchmark costs better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/planner"
)

// TestProgressLine: the line a terminal shows while a plan is under way,
// first the branch and bound's or HiGHS's solve, then the regrets; times in the report's units.
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		elapsed time.Duration
		p       *planner.Progress
		want    string
	}{
		{1500 * time.Millisecond, nil, "planning: 2 s"},
		{3 * time.Second, &planner.Progress{Incumbent: math.Inf(1), Bound: 245600, Gap: math.Inf(1)},
			"planning: 3 s; HiGHS: incumbent none, bound 245.6 µs, gap none, 0 nodes"},
		{40 * time.Second, &planner.Progress{Incumbent: 6668000, Bound: 6660600, Gap: 0.00111, Nodes: 26},
			"planning: 40 s; HiGHS: incumbent 6.668 ms, bound 6.6606 ms, gap 0.111%, 26 nodes"},
		{5 * time.Second, &planner.Progress{Incumbent: 17744, Bound: 16010, Gap: 0.0977, Nodes: 12_000_128, Searching: true},
			"planning: 5 s; branch and bound: incumbent 17.744 µs, bound 16.01 µs, gap 9.77%, 12000128 nodes"},
		{12 * time.Second, &planner.Progress{Incumbent: 6902000, Bound: 6902000, Gap: 1.75e-15, Explaining: true, Answered: 720, Queries: 3052},
			"planning: 12 s; plan 6.902 ms (gap 0%); regrets: 720 of 3052 queries to the core answered"},
		{time.Second, &planner.Progress{Incumbent: 512, Explaining: true, Queries: 3},
			"planning: 1 s; plan 512 ns (gap 0%); regrets: 0 of 3 queries to the core answered"},
	} {
		if got := progressLine(c.elapsed, c.p); got != c.want {
			t.Errorf("progressLine(%v, %+v)\n got %q\nwant %q", c.elapsed, c.p, got, c.want)
		}
	}
}

// signalWatcher is a stdout that records whether the plan's interrupts
// were still caught while its report was written.
type signalWatcher struct {
	n      int
	caught bool
}

func (w *signalWatcher) Write(p []byte) (int, error) {
	if w.n == 0 {
		w.caught = planSignals.Load() > 0
	}
	w.n += len(p)
	return len(p), nil
}

// TestPlanCatchesInterruptsWhileWriting: an interrupt that comes while the
// report is written is caught, as during the solve (the report is
// finished; a second one ends the program), not the default that ends the
// program with nothing written; after the report, it is the default again.
func TestPlanCatchesInterruptsWhileWriting(t *testing.T) {
	highstest.Library(t)
	var stderr strings.Builder
	for _, format := range []string{"text", "json"} {
		w := &signalWatcher{}
		if code := run([]string{"plan", "--format", format, "../../examples/graphs/fanout.json"}, strings.NewReader(""), w, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr.String())
		}
		if w.n == 0 || !w.caught {
			t.Errorf("%s: %d bytes written; interrupts caught while writing: %v", format, w.n, w.caught)
		}
		if n := planSignals.Load(); n != 0 {
			t.Errorf("%s: after the report, %d plans still catch the interrupts", format, n)
		}
	}
}

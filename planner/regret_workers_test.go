package planner

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// The regrets of cklplan gen dag --invocations 60 --exec-scale 100 under
// --regret-solves are the same, bit for bit, on 1, 2 and 8 workers and
// from run to run. Its core's LP re-solves are degenerate: re-solved warm
// from the last query's basis, the plan with v40 = a7 ended at one of two
// plans of one cost whose sums differ in the last bits (regret
// 6212.16616980033 or 6212.166169800097 ns), depending on which queries the
// worker had solved before.
func TestRegretsSameOnAnyWorkers(t *testing.T) {
	highstest.Library(t)
	if testing.Short() {
		t.Skip("plans a 71-invocation DAG 7 times")
	}
	g := scaledDAG(t, 60, 1, 100)
	plan := func(workers int) []byte {
		t.Helper()
		r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{RegretSolves: 100, Workers: workers}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Optimal || r.Explained != len(r.Choices) {
			t.Fatalf("status %s, %d of %d explained: want optimal, all", r.Status, r.Explained, len(r.Choices))
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	want := plan(1)
	for run := range 3 {
		for _, w := range []int{2, 8} {
			if got := plan(w); !bytes.Equal(got, want) {
				t.Fatalf("run %d, %d workers: the JSON plan differs from 1 worker's", run, w)
			}
		}
	}
}

// The re-solves' chains hold every query once, in order within a chain, as
// many as resolveChains of resolveChainMin to resolveChainMax queries where
// the queries are enough, the longest first; and they depend on the
// queries alone.
func TestChains(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 5, 39, 64, 65, 100, 511, 512, 513, 1279, 5000} {
		open := make([]int, n)
		for i := range open {
			open[i] = 3*i + 1
		}
		cs := chains(open)
		var all []int
		for i, c := range cs {
			if len(c) == 0 || len(c) > resolveChainMax || i > 0 && len(c) > len(cs[i-1]) {
				t.Fatalf("%d queries: chain %d of %d queries (%v)", n, i, len(c), cs)
			}
			if !slices.IsSorted(c) {
				t.Fatalf("%d queries: chain %d out of order: %v", n, i, c)
			}
			all = append(all, c...)
		}
		slices.Sort(all)
		if !slices.Equal(all, open) {
			t.Fatalf("%d queries: the chains hold %v", n, all)
		}
		short := 0
		for _, c := range cs {
			if len(c) < resolveChainMin {
				short++
			}
		}
		if short > 1 {
			t.Errorf("%d queries: %d chains shorter than %d", n, short, resolveChainMin)
		}
		if want := min(n/resolveChainMax, resolveChains); n >= resolveChains*resolveChainMin && len(cs) < want {
			t.Errorf("%d queries: %d chains, want at least %d", n, len(cs), want)
		}
		if again := chains(slices.Clone(open)); !slices.EqualFunc(again, cs, slices.Equal) {
			t.Errorf("%d queries: the chains differ from one call to the next", n)
		}
	}
}

package planner

import (
	"bytes"
	"context"
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
		if r.Status != "optimal" || r.Explained != len(r.Choices) {
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

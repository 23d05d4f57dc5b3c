package planner

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/tasks"
)

// TestSameBytesAcrossCachesAndProcessors: the same graph gives the same
// bytes in every rendering (docs/architecture.md, "Determinism"), whatever
// the Cache a compiler keeps across calls has seen and however many
// processors run the plan. Each graph is planned with a fresh cache; then
// with one cache that every graph of the test was planned into before (so
// its classifications, and the witnesses they share, come from other
// plans), twice; and with GOMAXPROCS 1 and 4 (the classifications, the
// regrets' workers and the graph verifier run in parallel). The text
// report, the JSON plan with its witnesses inline and as a table, and the
// DOT picture must be byte for byte those of the fresh plan. The graphs
// have a core that HiGHS solves (a DAG with execution costs scaled, whose
// regrets RegretSolves leaves partly as intervals), kernels contracted
// under budgets, and the examples' shared-memory layouts and fan-outs.
func TestSameBytesAcrossCachesAndProcessors(t *testing.T) {
	highstest.Library(t)
	ex := examples(t)
	type graphCase struct {
		name string
		g    *tasks.Graph
		opts PlanOptions
	}
	cases := []graphCase{
		{"transformer_layer", ex["transformer_layer"], PlanOptions{}},
		{"smem_budget", ex["smem_budget"], PlanOptions{}},
		{"gated_mlp no-reduce", ex["gated_mlp"], PlanOptions{Solve: Options{NoReduce: true}}},
		{"fused transformer", fusedScaled(t, 3, 1, 12_288, 30), PlanOptions{}},
		{"dag 40 scaled", scaledDAG(t, 40, 1, 100), PlanOptions{Solve: Options{RegretSolves: 1}}},
	}
	renderErr := func(c graphCase, cache *Cache) ([][]byte, error) {
		opts := c.opts
		opts.Cache = cache
		r, err := Plan(context.Background(), c.g, opts)
		if err != nil {
			return nil, err
		}
		if c.opts.Solve.RegretSolves == 1 && (r.Model.Core == 0 || r.UnprovenRegrets == 0) {
			return nil, fmt.Errorf("%s: a core of %d, %d regrets unproven: want HiGHS to solve a core and intervals left", c.name, r.Model.Core, r.UnprovenRegrets)
		}
		var out [][]byte
		for _, form := range []WitnessForm{WitnessesInline, WitnessesTable} {
			fr, err := r.WithWitnesses(form)
			if err != nil {
				return nil, err
			}
			var b bytes.Buffer
			if err := fr.WriteJSON(&b); err != nil {
				return nil, err
			}
			out = append(out, b.Bytes())
		}
		var text, dot bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			return nil, err
		}
		if err := r.WriteDOT(&dot); err != nil {
			return nil, err
		}
		return append(out, text.Bytes(), dot.Bytes()), nil
	}
	render := func(t *testing.T, c graphCase, cache *Cache) [][]byte {
		t.Helper()
		out, err := renderErr(c, cache)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	names := []string{"JSON (witnesses inline)", "JSON (witness table)", "text", "DOT"}
	same := func(t *testing.T, how string, want, got [][]byte) {
		t.Helper()
		for i := range want {
			if !bytes.Equal(want[i], got[i]) {
				t.Errorf("%s: the %s differs from a fresh plan's", how, names[i])
			}
		}
	}
	fresh := make([][][]byte, len(cases))
	for i, c := range cases {
		fresh[i] = render(t, c, NewCache())
	}
	shared := NewCache()
	for _, c := range slices.Backward(cases) {
		render(t, c, shared)
	}
	// A compiler may plan several graphs at once with one cache (it is
	// safe for concurrent use): every graph twice, all at once, into a
	// cache that starts empty (under the race detector in the test suite).
	t.Run("concurrent plans sharing one cache", func(t *testing.T) {
		conc := NewCache()
		got := make([][][]byte, 2*len(cases))
		errs := make([]error, len(got))
		var wg sync.WaitGroup
		for k := range got {
			wg.Go(func() { got[k], errs[k] = renderErr(cases[k%len(cases)], conc) })
		}
		wg.Wait()
		for k := range got {
			if errs[k] != nil {
				t.Fatal(errs[k])
			}
			same(t, cases[k%len(cases)].name+", planned beside the others", fresh[k%len(cases)], got[k])
		}
	})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			same(t, "a cache shared with the other graphs", fresh[i], render(t, c, shared))
			same(t, "the shared cache again", fresh[i], render(t, c, shared))
			for _, procs := range []int{1, 4} {
				prev := runtime.GOMAXPROCS(procs)
				got := render(t, c, NewCache())
				runtime.GOMAXPROCS(prev)
				same(t, "GOMAXPROCS "+string(rune('0'+procs)), fresh[i], got)
			}
		})
	}
}

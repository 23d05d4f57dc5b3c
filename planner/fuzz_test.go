package planner

import (
	"context"
	"errors"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// FuzzPlanMutated plans the bundled examples (and a transformer layer and
// a random DAG whose tasks may run as their own kernels) with what the planner reads
// changed: costs and sizes scaled or zeroed, pins and forbids, kernel
// budgets, edges that must cross. Whatever loads must plan without a panic,
// and the reduced and the --no-reduce paths must agree: the same optimum,
// the same regrets where they chose alike, or both no feasible plan. Every
// rendering must succeed.
//
//	go test ./planner -run '^$' -fuzz FuzzPlanMutated -fuzztime 5m
func FuzzPlanMutated(f *testing.F) {
	files, err := filepath.Glob("../examples/graphs/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no example graphs: %v", err)
	}
	slices.Sort(files)
	var bases [][]byte
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, data)
	}
	// base adds a generated graph, edited, to the bases.
	base := func(spec tasks.Spec, err error, edits ...func(*tasks.Spec) error) {
		for _, edit := range edits {
			if err == nil {
				err = edit(&spec)
			}
		}
		var data []byte
		if err == nil {
			data, err = tasks.MarshalSpec(spec)
		}
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, data)
	}
	unfused := func(factor float64) func(*tasks.Spec) error {
		return func(s *tasks.Spec) error { return taskgen.AddUnfused(s, factor) }
	}
	// A transformer layer whose every task may run as its own kernel:
	// its residual edges make diamonds, a gated MLP one inside another
	// (diamond.go).
	for _, gen := range []func(int, uint64) (tasks.Spec, error){taskgen.Transformer, taskgen.GatedTransformer} {
		spec, err := gen(1, 1)
		base(spec, err, func(s *tasks.Spec) error { return taskgen.ScaleExecution(s, 100) }, unfused(0.3))
	}
	// A random DAG whose every task may run as its own kernel: its blocks
	// are not diamonds, so the kernel order's search over the edges'
	// states (ordersearch.go) keeps its plans and regrets in order.
	spec, err := taskgen.DAG(5, 4, 2)
	base(spec, err, unfused(1.2))
	for ex := range bases {
		for _, seed := range []uint64{1, 2, 3} {
			f.Add(uint8(ex), seed, uint8(seed))
		}
	}
	f.Fuzz(func(t *testing.T, ex uint8, seed uint64, n uint8) {
		var g map[string]any
		if err := json.Unmarshal(bases[int(ex)%len(bases)], &g); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		for range int(n%4) + 1 {
			mutateGraph(rng, g)
		}
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		gr, err := tasks.Load(data)
		if err != nil {
			return // the loader's own fuzzing checks its errors
		}
		reduced, errR := Plan(context.Background(), gr, PlanOptions{})
		whole, errW := Plan(context.Background(), gr, PlanOptions{Solve: Options{NoReduce: true}})
		for _, err := range []error{errR, errW} {
			if err != nil && !errors.Is(err, ErrInfeasible) {
				t.Fatalf("plan: %v\n%s", err, data)
			}
		}
		if (errR == nil) != (errW == nil) {
			t.Fatalf("reduced: %v; --no-reduce: %v\n%s", errR, errW, data)
		}
		// Without regrets (the diamonds' flags only where the first plan
		// conflicts, solveCrossings): the same optimum.
		plain, errP := Plan(context.Background(), gr, PlanOptions{Solve: Options{NoRegrets: true}})
		if (errP == nil) != (errR == nil) {
			t.Fatalf("reduced: %v; without regrets: %v\n%s", errR, errP, data)
		}
		if errP == nil && (plain.Status != Optimal || !closeNS(plain.ObjectiveNS, reduced.ObjectiveNS)) {
			t.Fatalf("without regrets %s, %v; with them %s, %v\n%s", plain.Status, plain.ObjectiveNS, reduced.Status, reduced.ObjectiveNS, data)
		}
		if errR != nil {
			// Named after the graph, the same either way (the conflict is
			// found on the whole model), and every rendering succeeds.
			var pe *PlanInfeasibleError
			if !errors.As(errR, &pe) {
				t.Fatalf("no feasible plan, but not a *PlanInfeasibleError: %v\n%s", errR, data)
			}
			if errR.Error() != errW.Error() {
				t.Fatalf("no feasible plan: reduced %v; --no-reduce %v\n%s", errR, errW, data)
			}
			for _, write := range []func(io.Writer) error{pe.WriteText, pe.WriteJSON} {
				if err := write(io.Discard); err != nil {
					t.Fatalf("render: %v", err)
				}
			}
			return
		}
		if reduced.Status != Optimal || whole.Status != Optimal {
			t.Fatalf("status %s and %s without limits\n%s", reduced.Status, whole.Status, data)
		}
		if !closeNS(reduced.ObjectiveNS, whole.ObjectiveNS) {
			t.Fatalf("optimum %v reduced, %v by --no-reduce\n%s", reduced.ObjectiveNS, whole.ObjectiveNS, data)
		}
		for i, c := range reduced.Choices {
			w := whole.Choices[i]
			if c.Alternative != w.Alternative {
				continue // a tie broken otherwise: other rejected alternatives
			}
			for j, rj := range c.Rejected {
				wj := w.Rejected[j]
				if rj.Alternative != wj.Alternative || (rj.RegretNS == nil) != (wj.RegretNS == nil) ||
					rj.RegretNS != nil && !closeNS(*rj.RegretNS, *wj.RegretNS) {
					t.Fatalf("%s, %s: regret %v reduced, %v by --no-reduce\n%s", c.Invocation, rj.Alternative,
						fmtRegret(rj.RegretNS), fmtRegret(wj.RegretNS), data)
				}
			}
		}
		for _, r := range []*Result{reduced, whole} {
			for _, write := range []func(io.Writer) error{r.WriteText, r.WriteJSON, r.WriteDOT} {
				if err := write(io.Discard); err != nil {
					t.Fatalf("render: %v", err)
				}
			}
		}
	})
}

// closeNS is equality of two costs up to the solver's tolerances.
func closeNS(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-6*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func fmtRegret(r *float64) any {
	if r == nil {
		return "none"
	}
	return *r
}

// mutateGraph makes one change to a decoded graph that the planner reads.
func mutateGraph(rng *rand.Rand, g map[string]any) {
	list := func(key string) []any { l, _ := g[key].([]any); return l }
	pick := func(l []any) map[string]any {
		if len(l) == 0 {
			return nil
		}
		m, _ := l[rng.IntN(len(l))].(map[string]any)
		return m
	}
	taskAlternatives := func(inv map[string]any) []string {
		tasksObj, _ := g["tasks"].(map[string]any)
		name, _ := inv["task"].(string)
		task, _ := tasksObj[name].(map[string]any)
		alts, _ := task["alternatives"].([]any)
		var ids []string
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				if id, ok := m["id"].(string); ok {
					ids = append(ids, id)
				}
			}
		}
		return ids
	}
	// subset is a random subset of ids, keeping one at least when keep.
	subset := func(ids []string, keep bool) []any {
		out := []any{}
		for _, id := range ids {
			if rng.IntN(2) == 0 {
				out = append(out, id)
			}
		}
		if keep && len(out) == 0 && len(ids) > 0 {
			out = append(out, ids[rng.IntN(len(ids))])
		}
		return out
	}
	switch rng.IntN(6) {
	case 0: // a cost scaled or zeroed
		tasksObj, _ := g["tasks"].(map[string]any)
		names := slices.Sorted(maps.Keys(tasksObj))
		if len(names) == 0 {
			return
		}
		task, _ := tasksObj[names[rng.IntN(len(names))]].(map[string]any)
		alt := pick(anyList(task["alternatives"]))
		if alt == nil {
			return
		}
		cost, _ := alt["cost"].(map[string]any)
		if ns, ok := cost["ns"].(float64); ok {
			cost["ns"] = ns * []float64{0, 0.25, 0.9, 1.1, 4, 1000}[rng.IntN(6)]
		}
	case 1: // pins
		if inv := pick(list("invocations")); inv != nil {
			inv["pin"] = subset(taskAlternatives(inv), true)
		}
	case 2: // forbids
		if inv := pick(list("invocations")); inv != nil {
			inv["forbid"] = subset(taskAlternatives(inv), false)
		}
	case 3: // a kernel's shared-memory budget
		if grp := pick(list("groups")); grp != nil {
			b, _ := grp["shared_memory_bytes"].(float64)
			grp["shared_memory_bytes"] = math.Floor(max(b, 4096) * []float64{0.1, 0.5, 0.8, 0.95, 1.2, 2}[rng.IntN(6)])
		}
	case 4: // a register budget
		if grp := pick(list("groups")); grp != nil {
			grp["registers_per_thread"] = float64([]int{0, 32, 64, 96, 128, 168, 255}[rng.IntN(7)])
		}
	case 5: // an edge's kernel requirement
		if e := pick(list("edges")); e != nil {
			e["kernel"] = []string{"may_share", "must_cross"}[rng.IntN(2)]
		}
	}
}

func anyList(v any) []any { l, _ := v.([]any); return l }

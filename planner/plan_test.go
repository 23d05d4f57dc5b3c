package planner

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

var update = flag.Bool("update", false, "rewrite the golden reports under testdata/examples")

// examples returns the bundled example graphs, loaded.
func examples(t *testing.T) map[string]*tasks.Graph {
	t.Helper()
	files, err := filepath.Glob("../examples/graphs/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example graphs: %v", err)
	}
	out := map[string]*tasks.Graph{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := tasks.Load(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = g
	}
	return out
}

// render renders r three ways; the JSON leaves out the witnesses (every
// element's route: megabytes for a CTA tile), which TestPlanWitnessesReplay
// checks by replaying them instead.
func render(t *testing.T, r *Result) (text, js, dot []byte) {
	t.Helper()
	var a, b, c bytes.Buffer
	if err := r.WriteText(&a); err != nil {
		t.Fatal(err)
	}
	lean := *r
	lean.Boundaries = append([]Boundary(nil), r.Boundaries...)
	for i := range lean.Boundaries {
		if lean.Boundaries[i].Witness != nil {
			lean.Boundaries[i].Witness = nil
			lean.Boundaries[i].Detail += " [witness left out of the golden file]"
		}
	}
	if err := lean.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteDOT(&c); err != nil {
		t.Fatal(err)
	}
	return a.Bytes(), b.Bytes(), c.Bytes()
}

// TestExampleReports plans every example and compares its three renderings
// with the golden files (go test ./planner -run ExampleReports -update
// rewrites them). Planning twice gives the same bytes.
func TestExampleReports(t *testing.T) {
	for name, g := range examples(t) {
		t.Run(name, func(t *testing.T) {
			r, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			text, js, dot := render(t, r)
			again, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			text2, js2, dot2 := render(t, again)
			if !bytes.Equal(text, text2) || !bytes.Equal(js, js2) || !bytes.Equal(dot, dot2) {
				t.Errorf("planning %s twice gave different output", name)
			}
			for ext, got := range map[string][]byte{".txt": text, ".json": js, ".dot": dot} {
				golden := filepath.Join("testdata", "examples", name+ext)
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if diff := cmp.Diff(string(want), string(got)); diff != "" {
					t.Errorf("%s differs (-want +got):\n%s", golden, diff)
				}
			}
		})
	}
}

// TestPlanWitnessesReplay replays the witness of every conversion a plan
// of an example uses over the whole tile (conversion.Replay): every
// destination slot ends up holding what the destination distribution says.
func TestPlanWitnessesReplay(t *testing.T) {
	for name, g := range examples(t) {
		t.Run(name, func(t *testing.T) {
			lw := lowered(t, g)
			sol, err := Solve(context.Background(), &lw.problem, Options{NoRegrets: true})
			if err != nil {
				t.Fatal(err)
			}
			for gi, gc := range sol.Groups {
				info := lw.groups[gi]
				if info.loads || info.boundary {
					continue // round trips, no witness
				}
				src := lw.endpoints[gc.Source]
				for _, tk := range gc.Targets {
					pi, dst := lw.pairs[[2]string{gc.Source, tk}], lw.endpoints[tk]
					if pi.result == nil || src.dist == nil || dst.dist == nil {
						continue
					}
					opts := conversion.Options{Rename: dst.rename, Target: lw.target}
					if src.noSmem {
						opts.Exclude = []conversion.Class{conversion.SharedMemory, conversion.ClusterSharedMemory}
					}
					if err := conversion.Replay(src.dist, dst.dist, opts, pi.result.Witness); err != nil {
						t.Errorf("%s: %s → %s: %v", info.producer.ID, src.name, dst.name, err)
					}
				}
			}
		})
	}
}

// A plan's witnesses in a table are the boundaries' own, each distinct one
// once: resolving every witness_ref gives back the inline plan, byte for
// byte, and the plan asked for is not changed.
func TestWitnessForms(t *testing.T) {
	r, err := Plan(context.Background(), scaledDAG(t, 16, 2, 30), PlanOptions{ExplainIDs: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	encode := func(r *Result) string {
		t.Helper()
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	inline := encode(r)
	witnessed := 0
	for _, b := range r.Boundaries {
		if b.Witness != nil {
			witnessed++
		}
	}
	if same, err := r.WithWitnesses(WitnessesInline); err != nil || same != r {
		t.Errorf("inline of an inline plan: %v, a copy %v; want the plan itself", err, same != r)
	}
	table, err := r.WithWitnesses(WitnessesTable)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(table.Witnesses); n == 0 || n >= witnessed {
		t.Fatalf("%d witnesses in the table for %d boundaries with one: want fewer, and some", n, witnessed)
	}
	for i, b := range table.Boundaries {
		orig := r.Boundaries[i]
		switch {
		case b.Witness != nil:
			t.Fatalf("%s: a witness inline in the table form", b.Edge)
		case orig.Witness == nil && b.WitnessRef != nil:
			t.Fatalf("%s: a witness_ref without a witness", b.Edge)
		case orig.Witness != nil && (b.WitnessRef == nil || !cmp.Equal(table.Witnesses[*b.WitnessRef], orig.Witness)):
			t.Fatalf("%s: witness_ref %v does not name its witness", b.Edge, b.WitnessRef)
		}
	}
	for i := range table.Witnesses {
		for j := range i {
			if cmp.Equal(table.Witnesses[i], table.Witnesses[j]) {
				t.Errorf("witnesses %d and %d are the same", j, i)
			}
		}
	}
	if got := encode(r); got != inline {
		t.Error("tabulating changed the plan it was asked of")
	}
	back, err := table.WithWitnesses(WitnessesInline)
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(back); got != inline {
		t.Error("the table's witnesses put back inline are not the inline plan")
	}
	again, err := table.WithWitnesses(WitnessesTable)
	if err != nil || encode(again) != encode(table) {
		t.Errorf("tabulating twice: %v; want the same table", err)
	}
	none, err := r.WithWitnesses(WitnessesNone)
	if err != nil {
		t.Fatal(err)
	}
	if len(none.Witnesses) != 0 || strings.Contains(encode(none), `"witness`) {
		t.Error("witnesses left in the plan without them")
	}
	if _, err := ParseWitnessForm("tabled"); err == nil {
		t.Error(`ParseWitnessForm("tabled"): no error`)
	}
}

// TestExamplesReducedMatchesNoReduce: the exact reduction and the whole
// MILP find the same optimum, and the reports agree on every regret.
func TestExamplesReducedMatchesNoReduce(t *testing.T) {
	for name, g := range examples(t) {
		t.Run(name, func(t *testing.T) {
			red, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			whole, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoReduce: true}})
			if err != nil {
				t.Fatal(err)
			}
			if !sameNS(red.ObjectiveNS, whole.ObjectiveNS) {
				t.Errorf("objective: reduced %v, whole %v", red.ObjectiveNS, whole.ObjectiveNS)
			}
			for i, c := range red.Choices {
				for j, rj := range c.Rejected {
					wj := whole.Choices[i].Rejected
					if j >= len(wj) || wj[j].Alternative != rj.Alternative {
						continue // the whole MILP may break a tie the other way
					}
					if (rj.RegretNS == nil) != (wj[j].RegretNS == nil) ||
						rj.RegretNS != nil && !sameNS(*rj.RegretNS, *wj[j].RegretNS) {
						t.Errorf("%s %s: regret reduced %v, whole %v", c.Invocation, rj.Alternative, deref(rj.RegretNS), deref(wj[j].RegretNS))
					}
				}
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func sameNS(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(a)) }

// TestRegretsByForcing checks every regret of every example by definition:
// the optimum of the problem with the alternative forced, minus the optimum.
func TestRegretsByForcing(t *testing.T) {
	for name, g := range examples(t) {
		t.Run(name, func(t *testing.T) {
			lw := lowered(t, g)
			sol, err := Solve(context.Background(), &lw.problem, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range sol.Regrets {
				forced := lw.problem
				forced.Nodes = append([]Node(nil), lw.problem.Nodes...)
				node := forced.Nodes[r.Node]
				node.Alternatives = append([]Alternative(nil), node.Alternatives...)
				for a := range node.Alternatives {
					if a != r.Alternative && node.Alternatives[a].Removed == "" {
						node.Alternatives[a].Removed = "forced away"
					}
				}
				forced.Nodes[r.Node] = node
				fs, err := Solve(context.Background(), &forced, Options{NoRegrets: true})
				if math.IsInf(r.Regret, 1) {
					if err == nil {
						t.Errorf("%s %s: regret +Inf, but forcing it solves to %v", node.Name, r.ID, fs.Objective)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s %s: regret %v, but forcing it fails: %v", node.Name, r.ID, r.Regret, err)
					continue
				}
				if !sameNS(fs.Objective-sol.Objective, r.Regret) {
					t.Errorf("%s %s: regret %v, forced optimum %v − optimum %v = %v", node.Name, r.ID, r.Regret, fs.Objective, sol.Objective, fs.Objective-sol.Objective)
				}
			}
		})
	}
}

// TestMeasuredDequantizePicksTheMeasuredFastest feeds the H200 part
// measurements (examples/measured, docs/hardware.md) to the dequantize → mma
// example: the planner must choose the plan measured fastest at each N —
// the dequantization fused into the GEMM, producing the mma fragment
// natively, at N = 16; the unfused plan through global memory at N = 4096.
func TestMeasuredDequantizePicksTheMeasuredFastest(t *testing.T) {
	tests := []struct {
		n       string
		choices map[string]string
	}{
		{"16", map[string]string{"dequantize": "fused_native", "mma": "a_in_registers"}},
		{"4096", map[string]string{"dequantize": "standalone", "mma": "a_from_global"}},
	}
	for _, tt := range tests {
		t.Run("N="+tt.n, func(t *testing.T) {
			data, err := os.ReadFile("../examples/graphs/dequant_mma_n" + tt.n + ".json")
			if err != nil {
				t.Fatal(err)
			}
			g, err := tasks.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			mdata, err := os.ReadFile("../examples/measured/dequant_mma_n" + tt.n + ".json")
			if err != nil {
				t.Fatal(err)
			}
			m, err := tasks.DecodeMeasured(mdata)
			if err != nil {
				t.Fatal(err)
			}
			if g, err = g.WithMeasured(m); err != nil {
				t.Fatal(err)
			}
			r, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range r.Choices {
				if want, ok := tt.choices[c.Invocation]; ok && c.Alternative != want {
					t.Errorf("%s: chose %s, the measured fastest plan has %s", c.Invocation, c.Alternative, want)
				}
			}
			// The load → dequantize conversion at N = 16 was measured as a
			// whole: the report says so, and that the model's own plan for
			// it would be another mechanism.
			if tt.n == "16" {
				var b bytes.Buffer
				if err := r.WriteText(&b); err != nil {
					t.Fatal(err)
				}
				want := "  load_w.w -> dequantize.w: warp_shuffle (measured as a whole; the model would move it via shared_memory), 796.8 ns, measured (262144 tiles × "
				if !strings.Contains(b.String(), want) {
					t.Errorf("no %q in\n%s", want, b.String())
				}
			}
		})
	}
}

// TestCacheAcrossCalls: a second plan with the same cache classifies
// nothing new and gives the same plan.
func TestCacheAcrossCalls(t *testing.T) {
	g := examples(t)["transformer_layer"]
	cache := NewCache()
	first, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	n := cache.Len()
	if n == 0 {
		t.Fatal("the cache holds no conversion after a plan")
	}
	second, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if cache.Len() != n {
		t.Errorf("cache grew from %d to %d on the same graph", n, cache.Len())
	}
	if first.ObjectiveNS != second.ObjectiveNS {
		t.Errorf("objectives differ: %v, %v", first.ObjectiveNS, second.ObjectiveNS)
	}
	// A copy of the target, as BuiltinTarget gives one each call, finds
	// the same entries; another target does not.
	for range 2 {
		h200, err := costmodel.BuiltinTarget("h200")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Plan(context.Background(), g, PlanOptions{Cache: cache, Target: h200}); err != nil {
			t.Fatal(err)
		}
		if cache.Len() != n {
			t.Errorf("a copy of the target: the cache grew from %d to %d", n, cache.Len())
		}
	}
	sm80, err := costmodel.BuiltinTarget("sm80")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(context.Background(), g, PlanOptions{Cache: cache, Target: sm80}); err == nil && cache.Len() == n {
		t.Errorf("another target found the h200's entries")
	}
}

// TestCacheSeesChangesInPlace: the cache keys entries by the target's
// figures and the measurements' content, so a compiler that changes a
// figure of its target, or adds a measurement to its table, in place
// between two plans gets the plan a fresh cache gives, not the costs
// classified before the change.
func TestCacheSeesChangesInPlace(t *testing.T) {
	g := examples(t)["transformer_layer"]
	h200, err := costmodel.BuiltinTarget("h200")
	if err != nil {
		t.Fatal(err)
	}
	measured := &costmodel.Measurements{Target: "h200"}
	cache := NewCache()
	plan := func(cache *Cache) *Result {
		t.Helper()
		r, err := Plan(context.Background(), g, PlanOptions{Cache: cache, Target: h200, Measured: measured})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	before := plan(cache)
	changes := []struct {
		name   string
		change func()
	}{
		{"a figure of the target", func() {
			f := h200.Figures["warp_issue_per_clock"]
			f.Value /= 16
			h200.Figures["warp_issue_per_clock"] = f
		}},
		{"a measurement", func() {
			measured.Sizes = append(measured.Sizes,
				costmodel.SizeMeasurement{Mechanism: "shared_memory", Bytes: 1, CostNS: 5000},
				costmodel.SizeMeasurement{Mechanism: "shared_memory", Bytes: 1 << 20, CostNS: 5000})
		}},
	}
	for _, c := range changes {
		c.change()
		kept, fresh := plan(cache), plan(NewCache())
		if fresh.ObjectiveNS == before.ObjectiveNS {
			t.Fatalf("%s: the change leaves the plan at %v ns: it tests nothing", c.name, before.ObjectiveNS)
		}
		if kept.ObjectiveNS != fresh.ObjectiveNS {
			t.Errorf("after changing %s in place: %v ns with the kept cache, %v ns with a fresh one", c.name, kept.ObjectiveNS, fresh.ObjectiveNS)
		}
		before = fresh
	}
}

// A plan of a task graph that costs 0 is optimal (its costs are never
// negative): its gap is 0, never the +Inf that a solver's bound a rounding
// error below 0 once gave, which the JSON plan cannot write. A Problem's
// alternatives may cost less than 0: a bound well below a plan of 0 leaves
// it unproven, at an infinite relative gap.
func TestGapOfAPlanOfNoCost(t *testing.T) {
	for _, c := range []struct{ obj, bound, want float64 }{
		{0, 0, 0}, {0, -1e-13, 0}, {0, -5, math.Inf(1)}, {10, 5, 0.5}, {10, 10, 0}, {10, 12, 0}, {-10, -15, 0.5},
	} {
		if got := gap(c.obj, c.bound); got != c.want {
			t.Errorf("gap(%v, %v) = %v, want %v", c.obj, c.bound, got, c.want)
		}
	}
	r := &Result{Status: TimeLimit, Gap: gap(0, -1e-13), Choices: []PlanChoice{}, Boundaries: []Boundary{}}
	if err := r.WriteJSON(new(strings.Builder)); err != nil {
		t.Errorf("the JSON plan of a free plan under a bound below 0: %v", err)
	}
}

// TestPlanEmptyGraph: a graph without invocations is valid (tasks builds
// it, cklplan check accepts it), and its plan is the empty one, proven at
// 0 ns, which every rendering writes; not the solver's complaint about a
// Problem without nodes.
func TestPlanEmptyGraph(t *testing.T) {
	g, err := tasks.NewBuilder("empty", "h200").Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Optimal || r.ObjectiveNS != 0 || r.BoundNS != 0 || r.Gap != 0 || len(r.Choices) != 0 || len(r.Boundaries) != 0 ||
		r.LocalChoiceNS == nil || *r.LocalChoiceNS != 0 || r.SavingNS == nil || *r.SavingNS != 0 {
		t.Errorf("the empty graph's plan: %+v", r)
	}
	render(t, r)
}

// TestBudgetChoosesCostlierConversion: in the shared-memory budget example,
// the cheapest conversion into the mma operand needs shared-memory scratch
// the kernel has no room for; the plan converts through warp shuffles.
func TestBudgetChoosesCostlierConversion(t *testing.T) {
	r, err := Plan(context.Background(), examples(t)["smem_budget"], PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range r.Budgets {
		if b.Used > b.Capacity {
			t.Errorf("%s: %v over %v", b.Name, b.Used, b.Capacity)
		}
	}
	found := false
	for _, b := range r.Boundaries {
		if b.To == "mma.lhs" {
			found = true
			if b.Mechanism != "warp_shuffle" {
				t.Errorf("scale.y -> mma.lhs: mechanism %s, want warp_shuffle (no scratch)", b.Mechanism)
			}
		}
	}
	if !found {
		t.Error("no boundary into mma.lhs")
	}
	if r.LocalChoiceNS != nil {
		t.Errorf("the local choice fits the budget (%v): the example shows nothing", *r.LocalChoiceNS)
	}
}

// fusedTransformer is taskgen's transformer of the layers and seed, each
// layer a kernel over a shared-memory budget of budget bytes, loaded.
func fusedTransformer(t testing.TB, layers int, seed uint64, budget int64) *tasks.Graph {
	t.Helper()
	return fusedStepped(t, layers, seed, budget, 0)
}

// fusedScaled is fusedTransformer with its execution costs multiplied by
// scale (taskgen.ScaleExecution): execution then matters as much as the
// conversions.
func fusedScaled(t testing.TB, layers int, seed uint64, budget int64, scale float64) *tasks.Graph {
	t.Helper()
	s, err := taskgen.Transformer(layers, seed)
	if err == nil {
		err = taskgen.FuseLayers(&s, budget)
	}
	if err == nil {
		err = taskgen.ScaleExecution(&s, scale)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// fusedStepped is fusedTransformer with layer i's budget budget + i·step
// bytes: with a step, no two kernels are alike.
func fusedStepped(t testing.TB, layers int, seed uint64, budget, step int64) *tasks.Graph {
	t.Helper()
	s, err := taskgen.Transformer(layers, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := taskgen.FuseLayers(&s, budget); err != nil {
		t.Fatal(err)
	}
	for i := range s.Groups {
		s.Groups[i].SharedMemoryBytes += int64(i) * step
	}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFusedLayersMeetTheirBudgets: a generated transformer whose layers are
// kernels over a shared-memory budget that their fastest alternatives
// exceed together plans within every budget, at the optimum of the whole
// model in HiGHS (without regrets there: each is a re-solve of the whole
// model, seconds).
func TestFusedLayersMeetTheirBudgets(t *testing.T) {
	g := fusedTransformer(t, 2, 1, 300_000)
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Budgets) != 2 {
		t.Fatalf("%d budgets, want one per layer", len(r.Budgets))
	}
	for _, b := range r.Budgets {
		if b.Used > b.Capacity {
			t.Errorf("%s: %v over %v", b.Name, b.Used, b.Capacity)
		}
	}
	if r.LocalChoiceNS != nil {
		t.Errorf("the local choice fits the budgets (%v): they bind nothing", *r.LocalChoiceNS)
	}
	// The layers are two kernels: the edges from one to the other are
	// round trips through global memory, those inside a layer are not.
	crossing := 0
	for _, b := range r.Boundaries {
		between := strings.HasPrefix(b.From, "l0_") && strings.HasPrefix(b.To, "l1_")
		if between {
			crossing++
		}
		if between != (b.Crossing == "global_round_trip") {
			t.Errorf("%s -> %s: crossing %s", b.From, b.To, b.Crossing)
		}
	}
	if crossing == 0 {
		t.Error("no edge from layer 0 to layer 1")
	}
	whole, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoReduce: true, NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Optimal || math.Abs(r.ObjectiveNS-whole.ObjectiveNS) > 1e-6*whole.ObjectiveNS {
		t.Errorf("%s at %v; the whole model's optimum is %v", r.Status, r.ObjectiveNS, whole.ObjectiveNS)
	}
}

// TestContractedKernelsMatchTheRows: a fused layer contracted over its
// budget (contract.go) has the optimum, the regrets of an interior and a
// boundary invocation, and the budget use that HiGHS finds with the budget
// a row, at budgets from loose to tight.
func TestContractedKernelsMatchTheRows(t *testing.T) {
	for _, budget := range []int64{400_000, 300_000, 200_000} {
		g := fusedTransformer(t, 1, 3, budget)
		contracted, rows := planContractedAndRows(t, g, []string{"l0_attn", "l0_norm1"}, fmt.Sprintf("budget %d", budget))
		if contracted.Model.ContractedKernels != 1 || rows.Model.ContractedKernels != 0 {
			t.Fatalf("budget %d: %d and %d kernels contracted, want 1 and 0", budget, contracted.Model.ContractedKernels, rows.Model.ContractedKernels)
		}
		if u := contracted.Budgets[0]; u.Used > u.Capacity {
			t.Errorf("budget %d: %v used", budget, u.Used)
		}
	}
}

// planContractedAndRows plans g with its kernels contracted and with its
// budgets as rows, explaining the invocations named, and checks that both
// are optimal at the same cost and give the same regret to every
// alternative neither chose.
func planContractedAndRows(t *testing.T, g *tasks.Graph, explain []string, name string) (contracted, rows *Result) {
	t.Helper()
	contracted, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: explain})
	if err != nil {
		t.Fatal(err)
	}
	rows, err = Plan(context.Background(), g, PlanOptions{ExplainIDs: explain, Solve: Options{noContract: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !closeNS(contracted.ObjectiveNS, rows.ObjectiveNS) || contracted.Status != Optimal {
		t.Fatalf("%s: %s %v contracted, %s %v with the rows", name, contracted.Status, contracted.ObjectiveNS, rows.Status, rows.ObjectiveNS)
	}
	regret := func(pc PlanChoice, alt string) *float64 {
		for _, rj := range pc.Rejected {
			if rj.Alternative == alt {
				return rj.RegretNS
			}
		}
		return nil
	}
	for i, c := range contracted.Choices {
		r := rows.Choices[i]
		if !slices.Contains(explain, c.Invocation) {
			continue
		}
		for _, rj := range c.Rejected {
			if rj.Alternative == r.Alternative {
				continue // chosen by the other (a tie): no regret to compare
			}
			x, y := rj.RegretNS, regret(r, rj.Alternative)
			if (x == nil) != (y == nil) || x != nil && !closeNS(*x, *y) {
				t.Errorf("%s, %s, %s: regret %v contracted, %v with the rows", name, c.Invocation, rj.Alternative, fmtRegret(x), fmtRegret(y))
			}
		}
	}
	return contracted, rows
}

// TestContractedKernelWithFourBoundaries: a kernel that meets the rest of
// the graph at four invocations (16^4 boundary assignments) is contracted
// too, with HiGHS's optimum and regrets.
func TestContractedKernelWithFourBoundaries(t *testing.T) {
	s, err := taskgen.Transformer(2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := taskgen.FuseLayers(&s, 250_000); err != nil {
		t.Fatal(err)
	}
	// Layer 0's kernel leaves out its two norms: qkv, add1, up and add2
	// then meet invocations outside it.
	s.Groups[0].Invocations = slices.DeleteFunc(s.Groups[0].Invocations, func(id string) bool { return strings.HasSuffix(id, "norm1") || strings.HasSuffix(id, "norm2") })
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	contracted, _ := planContractedAndRows(t, g, []string{"l0_attn", "l0_qkv", "l0_norm2"}, "four boundaries")
	if contracted.Model.ContractedKernels != 2 {
		t.Fatalf("%d kernels contracted, want both", contracted.Model.ContractedKernels)
	}
}

// TestContractionDoesNotDependOnWorkers: kernels are contracted, and their
// interiors read back, in parallel; the plan is the same byte for byte on
// one worker or two.
func TestContractionDoesNotDependOnWorkers(t *testing.T) {
	g := fusedTransformer(t, 3, 2, 200_000)
	var out [2]bytes.Buffer
	for i, workers := range []int{1, 2} {
		r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{Workers: workers}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Model.ContractedKernels != 3 {
			t.Fatalf("%d kernels contracted, want 3", r.Model.ContractedKernels)
		}
		if err := r.WriteJSON(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Error("the plans on one and two workers differ")
	}
}

// TestAlikeKernelsShareTheirProgram: the layers of a fused transformer are
// alike, so their kernels are tabulated, and their interiors read back,
// once per content. The same model whose budgets differ by a few bytes
// (no sum of its uses, all multiples of 8 bytes, falls between them) has
// kernels all distinct, and the same plan and regrets.
func TestAlikeKernelsShareTheirProgram(t *testing.T) {
	const layers = 4
	explain := []string{"l1_attn", "l1_norm1", "l2_up", "l3_add2"}
	var plans [2]*Result
	for i, step := range []int64{0, 1} {
		g := fusedStepped(t, layers, 5, 300_000, step)
		c := contractKernels(context.Background(), &lowered(t, g).problem, 2)
		if c == nil || len(c.kernels) != layers {
			t.Fatalf("spec %d: want all %d kernels contracted", i, layers)
		}
		tabulated := 0
		for _, k := range c.kernels {
			if k.alike == k {
				tabulated++
			}
		}
		if want := map[bool]int{true: layers, false: tabulated}[i == 1]; tabulated != want || i == 0 && tabulated >= layers {
			t.Errorf("spec %d: %d of %d kernels tabulated", i, tabulated, layers)
		}
		r, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: explain})
		if err != nil {
			t.Fatal(err)
		}
		plans[i] = r
	}
	alike, apart := plans[0], plans[1]
	if alike.Status != Optimal || alike.ObjectiveNS != apart.ObjectiveNS {
		t.Fatalf("alike %s %v, apart %s %v", alike.Status, alike.ObjectiveNS, apart.Status, apart.ObjectiveNS)
	}
	for i, c := range alike.Choices {
		d := apart.Choices[i]
		if c.Alternative != d.Alternative {
			t.Errorf("%s: %s alike, %s apart", c.Invocation, c.Alternative, d.Alternative)
		}
		if len(c.Rejected) != len(d.Rejected) {
			t.Fatalf("%s: %d rejected alike, %d apart", c.Invocation, len(c.Rejected), len(d.Rejected))
		}
		for j, rj := range c.Rejected {
			x, y := rj.RegretNS, d.Rejected[j].RegretNS
			if (x == nil) != (y == nil) || x != nil && *x != *y {
				t.Errorf("%s, %s: regret %v alike, %v apart", c.Invocation, rj.Alternative, fmtRegret(x), fmtRegret(y))
			}
		}
	}
}

// TestContractedRegretsKeepTheTimeLimit: the regrets of a contracted
// kernel's interior keep the regrets' time limit. Struck at once, they are
// unproven (no plan using them found in time), and the plan is the same;
// with no limit, every one is exact.
func TestContractedRegretsKeepTheTimeLimit(t *testing.T) {
	g := fusedTransformer(t, 2, 1, 300_000)
	interior := []string{"l0_attn", "l1_proj"} // kernel interiors, boundary to nothing outside
	var plans [2]*Result
	for i, limit := range []time.Duration{0, time.Nanosecond} {
		r, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: interior, Solve: Options{RegretTimeLimit: limit}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Model.ContractedKernels != 2 {
			t.Fatalf("%d kernels contracted, want 2", r.Model.ContractedKernels)
		}
		plans[i] = r
	}
	if plans[0].ObjectiveNS != plans[1].ObjectiveNS {
		t.Fatalf("optimum %v without a regret limit, %v with one", plans[0].ObjectiveNS, plans[1].ObjectiveNS)
	}
	for i, c := range plans[1].Choices {
		if !slices.Contains(interior, c.Invocation) {
			continue
		}
		if c.Alternative != plans[0].Choices[i].Alternative {
			t.Errorf("%s: %s without a regret limit, %s with one", c.Invocation, plans[0].Choices[i].Alternative, c.Alternative)
		}
		for j, rj := range c.Rejected {
			if rj.Removed {
				continue
			}
			if !plans[0].Choices[i].Rejected[j].Exact {
				t.Errorf("%s, %s: inexact with no limit", c.Invocation, rj.Alternative)
			}
			if rj.Exact || rj.RegretNS != nil || rj.RegretLowerNS == nil {
				t.Errorf("%s, %s: %s past the limit, want unproven", c.Invocation, rj.Alternative, regretText(rj))
			}
		}
	}
}

// TestRegretTablesMatchTheProgram: the interior regrets of many kernels
// alike, scanned from tables T_{v=a}(β) built once, are those of the
// program run with each kernel's W.
func TestRegretTablesMatchTheProgram(t *testing.T) {
	g := fusedTransformer(t, tableKernels+3, 1, 300_000)
	explain := []string{"l0_attn", "l5_attn", "l5_up", "l9_proj", "l17_down"}
	var plans [2]*Result
	// Tables for every kernel alike, and none.
	for i, least := range []int{1, 1 << 30} {
		r, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: explain, Solve: Options{tableKernels: least}})
		if err != nil {
			t.Fatal(err)
		}
		plans[i] = r
	}
	tables, program := plans[0], plans[1]
	if tables.ObjectiveNS != program.ObjectiveNS {
		t.Fatalf("optimum %v, %v", tables.ObjectiveNS, program.ObjectiveNS)
	}
	compared := 0
	for i, c := range tables.Choices {
		if !slices.Contains(explain, c.Invocation) {
			continue
		}
		d := program.Choices[i]
		for j, rj := range c.Rejected {
			x, y := rj.RegretNS, d.Rejected[j].RegretNS
			if rj.Alternative != d.Rejected[j].Alternative || (x == nil) != (y == nil) || x != nil && !closeNS(*x, *y) || !rj.Exact {
				t.Errorf("%s, %s: regret %s from tables, %s, %s from the program", c.Invocation, rj.Alternative, regretText(rj), d.Rejected[j].Alternative, regretText(d.Rejected[j]))
			}
			compared++
		}
	}
	if compared < 20 {
		t.Fatalf("%d regrets compared", compared)
	}
}

// TestInfeasibleNamesTheConflict: a budget nothing fits names itself.
func TestInfeasibleNamesTheConflict(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/smem_budget.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"shared_memory_bytes": 53248`), []byte(`"shared_memory_bytes": 40000`), 1)
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Plan(context.Background(), g, PlanOptions{})
	var pe *PlanInfeasibleError
	if err == nil || !asPlanInfeasible(err, &pe) {
		t.Fatalf("Plan = %v, want a *PlanInfeasibleError", err)
	}
	// The kernel's shared memory is 40,000 B; mma takes 32,768 B and
	// load_b 16,384 B in every alternative.
	for _, want := range []string{"kernel gemm_kernel: shared memory (bytes) (capacity 40000; every plan takes at least 49152)",
		"invocation mma (at least 32768 in every alternative)", "invocation load_b (at least 16384 in every alternative)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	var ie *InfeasibleError
	if !asInfeasible(err, &ie) {
		t.Errorf("the solver's *InfeasibleError is not kept: %v", err)
	}
	want := []BudgetConflict{{Name: "kernel gemm_kernel: shared memory (bytes)", Kernel: "gemm_kernel", Capacity: 40000, LeastUse: 49152}}
	if !slices.Equal(pe.Budgets, want) {
		t.Errorf("budgets %+v, want %+v", pe.Budgets, want)
	}
	var buf bytes.Buffer
	if err := pe.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Status   string `json:"status"`
		Conflict struct {
			Budgets     []BudgetConflict     `json:"budgets"`
			Invocations []InvocationConflict `json:"invocations"`
			Boundaries  []string             `json:"boundaries"`
		} `json:"conflict"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if doc.Status != "infeasible" || !slices.Equal(doc.Conflict.Budgets, want) || len(doc.Conflict.Invocations) != 2 ||
		doc.Conflict.Invocations[1].ID != "mma" || !slices.Equal(doc.Conflict.Invocations[1].LeastUse, []LeastUse{{Budget: want[0].Name, Amount: 32768}}) ||
		doc.Conflict.Boundaries == nil {
		t.Errorf("JSON %s", buf.Bytes())
	}
	buf.Reset()
	if err := pe.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "no feasible plan of shared-memory-budget on h200\n") ||
		!strings.Contains(buf.String(), "\n  invocation mma (at least 32768 in every alternative)\n") {
		t.Errorf("text:\n%s", buf.String())
	}
}

func asPlanInfeasible(err error, target **PlanInfeasibleError) bool {
	pe, ok := err.(*PlanInfeasibleError)
	if ok {
		*target = pe
	}
	return ok
}

// TestProgressInPlanTerms: Options.Progress reports the core's solve in the
// whole problem's terms (the eliminated part's cost added): the bound never
// above the optimum, an incumbent never below it.
func TestProgressInPlanTerms(t *testing.T) {
	g := generatedDAG(t, 16, 2)
	var seen []Progress
	// The default table limit, given explicitly, keeps the core that the
	// whole elimination would otherwise dissolve.
	r, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: []string{},
		Solve: Options{MaxTable: DefaultMaxTable, Progress: func(p Progress) { seen = append(seen, p) }}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Model.Core == 0 {
		t.Fatal("the graph has no core: HiGHS is not called")
	}
	if len(seen) == 0 {
		t.Fatal("Progress was never called")
	}
	for i, p := range seen {
		if math.IsNaN(p.Bound) || math.IsInf(p.Bound, 0) {
			t.Errorf("progress %d: bound %v: the execution floor is one before HiGHS has its own", i, p.Bound)
		}
		if !math.IsInf(p.Bound, 0) && p.Bound > r.ObjectiveNS*(1+1e-9) {
			t.Errorf("progress %d: bound %v above the optimum %v", i, p.Bound, r.ObjectiveNS)
		}
		if !math.IsInf(p.Incumbent, 0) && p.Incumbent < r.ObjectiveNS*(1-1e-9) {
			t.Errorf("progress %d: incumbent %v below the optimum %v", i, p.Incumbent, r.ObjectiveNS)
		}
	}
}

// TestProgressWhileExplaining: once the plan is chosen, Options.Progress
// reports the regrets: how many of the core's queries are answered, with
// the plan's cost; at most one call at a time.
func TestProgressWhileExplaining(t *testing.T) {
	g := generatedDAG(t, 16, 2)
	var (
		mu      sync.Mutex
		seen    []Progress
		calling atomic.Int32
		overlap bool
	)
	report := func(p Progress) {
		if calling.Add(1) > 1 {
			overlap = true
		}
		mu.Lock()
		seen = append(seen, p)
		mu.Unlock()
		calling.Add(-1)
	}
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{MaxTable: DefaultMaxTable, Workers: 2, Progress: report}})
	if err != nil {
		t.Fatal(err)
	}
	if overlap {
		t.Error("Progress was called while a call was under way")
	}
	explaining := 0
	for i, p := range seen {
		if !p.Explaining {
			if explaining > 0 {
				t.Errorf("progress %d: the solve's, after the regrets began", i)
			}
			continue
		}
		explaining++
		if p.Queries == 0 || p.Answered < 1 || p.Answered > p.Queries {
			t.Errorf("progress %d: %d of %d queries answered", i, p.Answered, p.Queries)
		}
		if !closeNS(p.Incumbent, r.ObjectiveNS) || p.Gap != 0 {
			t.Errorf("progress %d: plan %v (gap %v), want the optimum %v", i, p.Incumbent, p.Gap, r.ObjectiveNS)
		}
	}
	if explaining == 0 {
		t.Fatalf("no progress while explaining (%d reports, core %d invocations)", len(seen), r.Model.Core)
	}
}

// TestSmallDenseGraphsDissolve: a small dense DAG that the default table
// limit leaves a core of is eliminated whole, with no MILP, and its optimum
// and the regrets asked for equal those that HiGHS proves on the core (the
// default table limit given explicitly keeps the core).
func TestSmallDenseGraphsDissolve(t *testing.T) {
	highstest.Library(t)
	g := generatedDAG(t, 16, 2)
	explain := []string{"v9"}
	whole, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: explain})
	if err != nil {
		t.Fatal(err)
	}
	core, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: explain, Solve: Options{MaxTable: DefaultMaxTable}})
	if err != nil {
		t.Fatal(err)
	}
	if core.Model.Core == 0 {
		t.Fatal("no core at the default table limit: the case tests nothing")
	}
	if whole.Model.Core != 0 || whole.Model.Eliminated != whole.Model.Invocations {
		t.Fatalf("%d of %d invocations eliminated, core %d; want all eliminated",
			whole.Model.Eliminated, whole.Model.Invocations, whole.Model.Core)
	}
	if whole.Status != Optimal || core.Status != Optimal || !near(whole.ObjectiveNS, core.ObjectiveNS) {
		t.Fatalf("whole elimination %s %v, HiGHS on the core %s %v", whole.Status, whole.ObjectiveNS, core.Status, core.ObjectiveNS)
	}
	compared := 0
	for i, c := range whole.Choices {
		if !slices.Contains(explain, c.Invocation) {
			continue
		}
		for j, rj := range c.Rejected {
			want := core.Choices[i].Rejected[j]
			if rj.Alternative != want.Alternative || !rj.Exact || !want.Exact || rj.Infeasible != want.Infeasible ||
				(rj.RegretNS == nil) != (want.RegretNS == nil) || (rj.RegretNS != nil && !near(*rj.RegretNS, *want.RegretNS)) {
				t.Errorf("%s %s: whole elimination %+v, HiGHS on the core %+v", c.Invocation, rj.Alternative, rj, want)
			}
			compared++
		}
	}
	if compared == 0 {
		t.Fatal("no regret compared")
	}
}

// generatedDAG is cklplan gen dag's graph of n invocations (average degree
// 4) from seed.
func generatedDAG(t testing.TB, n int, seed uint64) *tasks.Graph {
	t.Helper()
	return scaledDAG(t, n, seed, 1)
}

// scaledDAG is cklplan gen dag --exec-scale factor's graph of n
// invocations (average degree 4) from seed.
func scaledDAG(t testing.TB, n int, seed uint64, factor float64) *tasks.Graph {
	t.Helper()
	return editedDAG(t, n, seed, func(s *tasks.Spec) error { return taskgen.ScaleExecution(s, factor) })
}

// editedDAG is cklplan gen dag's graph of n invocations (average degree 4)
// from seed, changed by edit.
func editedDAG(t testing.TB, n int, seed uint64, edit func(*tasks.Spec) error) *tasks.Graph {
	t.Helper()
	spec, err := taskgen.DAG(n, 4, seed)
	if err == nil {
		err = edit(&spec)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// lowered is g lowered for its own target, with a fresh cache.
func lowered(t *testing.T, g *tasks.Graph) *lowering {
	t.Helper()
	target, err := graphTarget(g)
	if err != nil {
		t.Fatal(err)
	}
	lw, err := lowerGraph(context.Background(), g, target, nil, NewCache())
	if err != nil {
		t.Fatal(err)
	}
	return lw
}

// A large plan's choices, and an explained plan's, are written on two
// goroutines: the report is the same, byte for byte, as when they are
// written on one, with explained and unexplained invocations both.
func TestResultInParallelIsTheSame(t *testing.T) {
	load := func(t *testing.T, spec tasks.Spec, err error) *tasks.Graph {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		data, err := tasks.MarshalSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		g, err := (tasks.Limits{FileBytes: 1 << 30}).Load(data)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	report := func(t *testing.T, g *tasks.Graph, ids []string) string {
		t.Helper()
		// Two workers, whatever the machine's processors.
		r, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: ids, Solve: Options{Workers: 2}})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	same := func(t *testing.T, g *tasks.Graph, ids []string, phrases ...string) {
		t.Helper()
		parallel := report(t, g, ids)
		for _, ph := range phrases {
			if !strings.Contains(parallel, ph) {
				t.Errorf("no reason says %q", ph)
			}
		}
		defer func(n, m int) { parallelResult, parallelReasons = n, m }(parallelResult, parallelReasons)
		parallelResult, parallelReasons = math.MaxInt, math.MaxInt
		if diff := cmp.Diff(report(t, g, ids), parallel); diff != "" {
			t.Errorf("written on one goroutine (-) and on two (+):\n%s", diff)
		}
	}
	t.Run("many invocations", func(t *testing.T) {
		spec, err := taskgen.Transformer(250, 3)
		g := load(t, spec, err)
		if n := len(g.Invocations()); n < parallelResult {
			t.Fatalf("%d invocations: too few to write the choices in parallel", n)
		}
		same(t, g, []string{g.Invocations()[0].ID, g.Invocations()[1234].ID, g.Invocations()[2345].ID})
	})
	// Every invocation explained: the reasons are written in parallel,
	// those of fused kernels' budgets (an alternative's conversions, or
	// its producers', kept out of shared memory: the twins' sets) and of
	// kernel order (the unfused alternatives) too.
	all := func(g *tasks.Graph) []string {
		var ids []string
		for _, v := range g.Invocations() {
			ids = append(ids, v.ID)
		}
		if len(ids) < parallelReasons {
			t.Fatalf("%d invocations: too few to write the reasons in parallel", len(ids))
		}
		return ids
	}
	t.Run("fused", func(t *testing.T) {
		spec, err := taskgen.Transformer(9, 2)
		if err == nil {
			err = taskgen.FuseLayersBy(&spec, 8192, 1)
		}
		g := load(t, spec, err)
		same(t, g, all(g), "with the conversions out of", "kept out of shared memory: ", "breaks kernel")
	})
	t.Run("unfused", func(t *testing.T) {
		spec, err := taskgen.GatedTransformer(6, 4)
		if err == nil {
			err = taskgen.AddUnfused(&spec, 1.5)
		}
		g := load(t, spec, err)
		same(t, g, all(g), "a kernel boundary", "no order of kernels runs it")
	})
}

// A problem eliminated whole is proven optimal with gap 0: the bound is the
// objective, though the elimination adds the costs in another order than the
// verifier (on this DAG the two sums differ in the last bit).
func TestEliminatedWholeHasNoGap(t *testing.T) {
	r := planDAG(t, 30, 1)
	if r.Model.Core != 0 {
		t.Fatalf("core of %d invocations: the case tests nothing", r.Model.Core)
	}
	if r.Status != Optimal || r.BoundNS != r.ObjectiveNS || r.Gap != 0 {
		t.Errorf("%s, bound %v, objective %v, gap %v; want optimal, the bound the objective, gap 0", r.Status, r.BoundNS, r.ObjectiveNS, r.Gap)
	}
}

// A plan whose fused kernel is contracted (smem_budget: the kernel folded
// into a table over its boundary, the rest eliminated) is proven with its
// bound at most its objective, as every other proven plan: the verifier's
// sum, in another order than the contracted problem's, once came out one
// ulp below the bound (1601419.9457350378 < 1601419.945735038 ns).
func TestContractedBoundNotAboveObjective(t *testing.T) {
	g := examples(t)["smem_budget"]
	for _, target := range []string{"h200", "sm80"} {
		gt, err := g.WithTarget(tasks.TargetSpec{Name: target})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Plan(context.Background(), gt, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Model.ContractedKernels == 0 {
			t.Fatalf("%s: no kernel contracted: the case tests nothing", target)
		}
		if r.Status != Optimal || r.BoundNS > r.ObjectiveNS || r.Gap != 0 {
			t.Errorf("%s: %s, bound %v, objective %v, gap %v; want optimal, the bound at most the objective, gap 0",
				target, r.Status, r.BoundNS, r.ObjectiveNS, r.Gap)
		}
	}
}

// A core the branch and bound proves is reported as its work: the report
// names it, not HiGHS, with its search nodes.
func TestReportNamesTheSearch(t *testing.T) {
	r := planDAG(t, 40, 2)
	if r.Model.Core == 0 || r.CoreSearch == nil || !r.CoreSearch.Proved || r.CoreSearch.Nodes == 0 || r.MILPNodes != 0 {
		t.Fatalf("core %d, search %+v, %d MILP nodes: want a core the search proved, no MILP", r.Model.Core, r.CoreSearch, r.MILPNodes)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("leaving %d to the branch and bound (as a MILP,", r.Model.Core),
		fmt.Sprintf("the branch and bound proved the core's optimum in %d search nodes", r.CoreSearch.Nodes),
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String()[:min(b.Len(), 1200)])
		}
	}
}

// Where the execution costs matter as much as the conversions, the
// generated DAG's core relaxation is fractional but within a fraction of a
// percent of a plan: HiGHS proves such a core at its root, and the branch
// and bound is skipped (it took 1–2 s here, HiGHS 0.2 s). Both prove the
// same optimum.
func TestNearlyTightCoreSkipsTheSearch(t *testing.T) {
	g := scaledDAG(t, 60, 1, 30)
	plan := func(o Options) *Result {
		t.Helper()
		r, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: []string{}, Solve: o})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Optimal {
			t.Fatalf("status %q, want optimal", r.Status)
		}
		return r
	}
	near := plan(Options{})
	if near.Model.Core == 0 || near.Model.Core > searchMaxNodes {
		t.Fatalf("core of %d nodes: the case tests nothing", near.Model.Core)
	}
	if near.CoreSearch != nil {
		t.Errorf("search %+v: want the core left to HiGHS", near.CoreSearch)
	}
	// Only an integral relaxation skips the search: this one does not.
	searched := plan(Options{lpNear: -1})
	if searched.CoreSearch == nil || !searched.CoreSearch.Proved {
		t.Fatalf("search %+v: want the search to prove the core (the relaxation is fractional)", searched.CoreSearch)
	}
	if !closeNS(near.ObjectiveNS, searched.ObjectiveNS) {
		t.Errorf("HiGHS %v ns, the search %v ns: want the same optimum", near.ObjectiveNS, searched.ObjectiveNS)
	}
}

// planDAG plans the generated DAG of n invocations (average degree 4) from
// seed, without regrets.
func planDAG(t *testing.T, n int, seed uint64) *Result {
	t.Helper()
	r, err := Plan(context.Background(), generatedDAG(t, n, seed), PlanOptions{ExplainIDs: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFmtMS(t *testing.T) {
	for _, c := range []struct {
		ms   float64
		want string
	}{{0.42, "0.42 ms"}, {404, "404 ms"}, {999.4, "999 ms"}, {999.7, "1.00 s"}, {1210, "1.21 s"}, {34400, "34.4 s"}, {604000, "604 s"}} {
		if got := fmtMS(c.ms); got != c.want {
			t.Errorf("fmtMS(%v) = %q, want %q", c.ms, got, c.want)
		}
	}
}

// TestFmtNS: a time in the unit that keeps its figure short, seconds for
// the largest (a regret of 1.9·10¹⁴ ns was written "+1.939e+08 ms").
func TestFmtNS(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{{1.5, "1.5 ns"}, {999, "999 ns"}, {2500, "2.5 µs"}, {3.2e6, "3.2 ms"}, {4.2e9, "4.2 s"}, {1.939e14, "1.939e+05 s"},
		{-2e9, "-2 s"}, {math.Inf(1), "∞"}} {
		if got := fmtNS(c.ns); got != c.want {
			t.Errorf("fmtNS(%v) = %q, want %q", c.ns, got, c.want)
		}
	}
	if got := signedNS(1.939e14); got != "+1.939e+05 s" {
		t.Errorf("signedNS = %q", got)
	}
}

// TestViolationsText: the text report lists a few of the local choice's
// violations and counts the rest.
func TestViolationsText(t *testing.T) {
	v := func(n int) []string {
		var vs []string
		for i := range n {
			vs = append(vs, fmt.Sprintf("budget k%d: use 9 exceeds capacity 8", i))
		}
		return vs
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "budget k0: use 9 exceeds capacity 8"},
		{3, "budget k0: use 9 exceeds capacity 8; budget k1: use 9 exceeds capacity 8; budget k2: use 9 exceeds capacity 8"},
		{100, "budget k0: use 9 exceeds capacity 8; budget k1: use 9 exceeds capacity 8; budget k2: use 9 exceeds capacity 8; and 97 more (the JSON plan lists them all)"},
	} {
		if got := violationsText(v(c.n)); got != c.want {
			t.Errorf("%d violations: %q, want %q", c.n, got, c.want)
		}
	}
}

// A reason says how many conversions the plan pays for the edges it names
// as it says the swap's: one for all of them, or one each; "either way"
// where both are one for all. On cklplan gen dag --invocations 12 --seed
// 3, v0.y's shuffle serves v1 and v2; v0's a5 needs nothing converted on
// those edges (its regret, 2.055 ns, is its execution +2.055 ns, the
// shuffle saved once and one added on v0.y -> v7.x0), and its a2 needs
// another shared conversion.
func TestReasonsCountThePlansConversions(t *testing.T) {
	r, err := Plan(context.Background(), generatedDAG(t, 12, 3), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v0 := slices.IndexFunc(r.Choices, func(c PlanChoice) bool { return c.Invocation == "v0" })
	if v0 < 0 {
		t.Fatal("no v0")
	}
	for alt, want := range map[string]string{
		"a5": "v0.y -> v1.x0, v0.y -> v2.x1: nothing to convert instead of a warp_shuffle conversion (196.7 ns), one conversion for all of them; ",
		"a2": "v0.y -> v1.x0, v0.y -> v2.x1: a warp_shuffle conversion via shared_memory (342 ns) instead of a warp_shuffle conversion (196.7 ns), one conversion for all of them either way; ",
	} {
		k := slices.IndexFunc(r.Choices[v0].Rejected, func(rj Rejected) bool { return rj.Alternative == alt })
		if k < 0 || !strings.Contains(r.Choices[v0].Rejected[k].Reason, want) {
			t.Errorf("v0's %s: want %q in the reason, got %+v", alt, want, r.Choices[v0].Rejected)
		}
	}
}

// A rejected alternative's reason says, for each edge whose conversion the
// swap changes, what it would get instead of what it has: never the same
// words on both sides, and never an edge whose conversion stays as it is.
// An edge that joins a conversion other consumers already have names them
// (on the 30-invocation DAG, v2's a2 moves v0.y -> v2.x0 from a shuffle to
// v0's own distribution, which v0.y -> v1.x0 has without converting), and an
// edge that leaves a conversion others still need says it saves nothing.
func TestReasonsNameOnlyWhatChanges(t *testing.T) {
	joined := 0
	for seed := uint64(1); seed <= 3; seed++ {
		g := generatedDAG(t, 30, seed)
		r, err := Plan(context.Background(), g, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Choices {
			for _, rj := range c.Rejected {
				for _, part := range strings.Split(rj.Reason, "; ") {
					edges, words, ok := strings.Cut(part, ": ")
					if !ok || !strings.Contains(words, " instead of ") {
						continue
					}
					now, was, _ := strings.Cut(words, " instead of ")
					now, _, _ = strings.Cut(now, ", shared with ")
					now, _, _ = strings.Cut(now, " (like ")
					now = strings.TrimSuffix(now, ", one conversion for all of them,")
					was, _, _ = strings.Cut(was, " (with the other choices")
					was, _, _ = strings.Cut(strings.TrimPrefix(was, "sharing "), ", which ")
					was, _, _ = strings.Cut(was, ", one conversion for all of them")
					now, was = strings.TrimSuffix(now, " each"), strings.TrimSuffix(was, " each")
					if now == was {
						t.Errorf("seed %d, %s %s: %q: the same on both sides", seed, c.Invocation, rj.Alternative, part)
					}
					if strings.Contains(words, ", shared with ") || strings.Contains(words, " (like ") {
						joined++
					}
					for _, e := range strings.Split(edges, ", ") {
						if !strings.Contains(e, " -> ") {
							t.Errorf("seed %d, %s %s: %q: %q is not an edge", seed, c.Invocation, rj.Alternative, part, e)
						}
					}
				}
			}
		}
		if seed == 1 {
			v2 := slices.IndexFunc(r.Choices, func(c PlanChoice) bool { return c.Invocation == "v2" })
			a2 := slices.IndexFunc(r.Choices[v2].Rejected, func(rj Rejected) bool { return rj.Alternative == "a2" })
			// v0.y's shuffle stays for v0.y -> v4.x0: leaving it saves
			// nothing, and the reason says so.
			if want := "v0.y -> v2.x0: nothing to convert (like v0.y -> v1.x0) instead of sharing a warp_shuffle conversion (196.7 ns), which v0.y -> v4.x0 still needs (no saving)"; a2 < 0 || !strings.Contains(r.Choices[v2].Rejected[a2].Reason, want) {
				t.Errorf("v2's a2: want %q in the reason, got %+v", want, r.Choices[v2].Rejected)
			}
			// v1's a0 joins that shuffle: it costs nothing more.
			v1 := slices.IndexFunc(r.Choices, func(c PlanChoice) bool { return c.Invocation == "v1" })
			a0 := slices.IndexFunc(r.Choices[v1].Rejected, func(rj Rejected) bool { return rj.Alternative == "a0" })
			if want := "v0.y -> v1.x0: a warp_shuffle conversion (196.7 ns), shared with v0.y -> v2.x0, v0.y -> v4.x0 at no extra cost, instead of nothing to convert"; a0 < 0 || !strings.Contains(r.Choices[v1].Rejected[a0].Reason, want) {
				t.Errorf("v1's a0: want %q in the reason, got %+v", want, r.Choices[v1].Rejected)
			}
		}
	}
	if joined == 0 {
		t.Error("no reason names an edge joining a conversion others have")
	}
}

// A rejected producer that writes a global layout sends each consumer that
// holds the tile in registers through a round trip of its own (rule 4): its
// reason quotes each edge's own loads. Two consumers in the producer's
// group whose distributions are alike share one label, though one reads
// twice the tiles; the reason once quoted the label's loads for both.
func TestReasonsQuoteEachEdgesOwnRoundTrip(t *testing.T) {
	g, err := tasks.Load([]byte(`{"version": 1, "name": "own-trips", "target": "h200", "sizes": {"M": 4096},
  "spaces": {"t": "(m:16, k:16)"},
  "index_maps": {"rows": "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)"},
  "layouts": {"G": "global f16 elements align 16: rows"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "writes_g", "ports": {"y": {"layout": "G"}}, "cost": {"ns": 1}, "multiplicity": "M"},
                           {"id": "in_regs", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "once": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "only", "ports": {"x": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "twice": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "only", "ports": {"x": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M * 2"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "a", "task": "once"}, {"id": "b", "task": "twice"}],
  "edges": [{"from": "p.y", "to": "a.x"}, {"from": "p.y", "to": "b.x"}],
  "groups": [{"id": "k", "invocations": ["p", "a", "b"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := g.Target().Model
	launch, bw := m.Get("launch_overhead_ns"), m.Get("hbm_gb_per_s")
	tile := 16 * 16 * 2.0
	trip := func(tiles float64) float64 { return launch + tile*tiles/bw }
	p := r.Choices[0]
	if p.Alternative != "in_regs" || len(p.Rejected) != 1 {
		t.Fatalf("p: %s, rejected %+v; want in_regs, writes_g rejected", p.Alternative, p.Rejected)
	}
	rj := p.Rejected[0]
	for _, want := range []string{
		"p.y -> a.x: a kernel boundary with 2 MiB loaded (" + fmtNS(trip(4096)) + ") instead of nothing to convert",
		"p.y -> b.x: a kernel boundary with 4 MiB loaded (" + fmtNS(trip(2*4096)) + ") instead of nothing to convert",
	} {
		if !strings.Contains(rj.Reason, want) {
			t.Errorf("writes_g: want %q in the reason, got %q", want, rj.Reason)
		}
	}
	if rj.RegretNS == nil || math.Abs(*rj.RegretNS-(trip(4096)+trip(2*4096))) > 1e-6 {
		t.Errorf("writes_g: regret %v, want %v", rj.RegretNS, trip(4096)+trip(2*4096))
	}
}

// TestInfeasibleSaysWhatNarrowed: a conflict names every invocation whose
// removed alternatives are part of it, with the reasons: both pins of two
// invocations that no conversion can join, with why it cannot, and, for an
// invocation with no alternative left, why each was removed.
func TestInfeasibleSaysWhatNarrowed(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		from, to   string
		conflict   []string
		narrowed   []string // the conflict's invocations, in order
		removedOne string   // a reason of the first
	}{
		{"pins", `{"id": "load_w", "task": "load_w"},
    {"id": "dequantize", "task": "dequantize"},`, `{"id": "load_w", "task": "load_w", "pin": ["ld_in_gemm"]},
    {"id": "dequantize", "task": "dequantize", "pin": ["standalone"]},`,
			[]string{"invocation dequantize (others removed: not among the invocation's pins (standalone))",
				"boundaries of load_w.w (load_w: others removed: not among the invocation's pins (ld_in_gemm); " +
					`cannot be converted: the producer moves tiles in loop "gemm", the consumer in loop "dequant", and they share a kernel)`},
			[]string{"dequantize", "load_w"}, "not among the invocation's pins (standalone)"},
		{"registers", `"edges": [`, `"groups": [{"id": "gemm_kernel", "invocations": ["mma"], "registers_per_thread": 32}],
  "edges": [`,
			[]string{"invocation mma has no alternative left (a_in_registers: needs 40 registers per thread, over kernel gemm_kernel's budget of 32; " +
				"a_from_global: needs 48 registers per thread, over kernel gemm_kernel's budget of 32)"},
			[]string{"mma"}, "a_in_registers: needs 40 registers per thread, over kernel gemm_kernel's budget of 32"},
	} {
		g, err := tasks.Load(bytes.Replace(data, []byte(c.from), []byte(c.to), 1))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = Plan(context.Background(), g, PlanOptions{})
		var pe *PlanInfeasibleError
		if err == nil || !asPlanInfeasible(err, &pe) {
			t.Fatalf("%s: Plan = %v, want a *PlanInfeasibleError", c.name, err)
		}
		if !slices.Equal(pe.Conflict, c.conflict) {
			t.Errorf("%s: conflict\n%q\nwant\n%q", c.name, pe.Conflict, c.conflict)
		}
		var ids []string
		for _, ic := range pe.Invocations {
			ids = append(ids, ic.ID)
		}
		if !slices.Equal(ids, c.narrowed) || !slices.Contains(pe.Invocations[0].Removed, c.removedOne) {
			t.Errorf("%s: invocations %+v, want %v, the first removed for %q", c.name, pe.Invocations, c.narrowed, c.removedOne)
		}
		// The text says where the conflict comes from: an invocation
		// left nothing is found before any solve, not by HiGHS.
		var text strings.Builder
		if err := pe.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		heading := "in conflict (an irreducible infeasible subset of the model's constraints)"
		if len(pe.NoAlternative) > 0 {
			heading = "in conflict (invocations left no alternative, found before any solve)"
		}
		if !strings.Contains(text.String(), "\n"+heading+"\n") {
			t.Errorf("%s: the text does not say %q:\n%s", c.name, heading, text.String())
		}
	}
}

// An invocation's alternatives that a budget removes are named once each,
// by the task's ids: the variant of an alternative whose conversions keep
// out of shared memory (the shared-memory budget example's scale has one
// per alternative) is the same alternative, and was listed again.
func TestNoAlternativeNamesEachOnce(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/smem_budget.json")
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(`"id": "blocked_out",`), []byte(`"id": "blocked_out", "resources": {"registers_per_thread": 200},`))
	data = bytes.ReplaceAll(data, []byte(`"id": "rows_out",`), []byte(`"id": "rows_out", "resources": {"registers_per_thread": 200},`))
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if lw := lowered(t, g); len(lw.alts[slices.IndexFunc(lw.invs, func(v *tasks.Invocation) bool { return v.ID == "scale" })]) != 4 {
		t.Fatal("scale has no variants without shared memory: the case tests nothing")
	}
	_, err = Plan(context.Background(), g, PlanOptions{})
	var pe *PlanInfeasibleError
	if !asPlanInfeasible(err, &pe) {
		t.Fatalf("Plan = %v, want a *PlanInfeasibleError", err)
	}
	want := []string{"invocation scale has no alternative left (blocked_out: needs 200 registers per thread, over kernel gemm_kernel's budget of 168; " +
		"rows_out: needs 200 registers per thread, over kernel gemm_kernel's budget of 168)"}
	if !slices.Equal(pe.Conflict, want) {
		t.Errorf("conflict\n%q\nwant\n%q", pe.Conflict, want)
	}
}

// TestBoundariesAddUp: the boundaries' costs sum to the plan's conversion
// cost, each shared conversion counted once (on the edge that pays it): on
// every example, on a fan-out whose producer stores its tile into the
// shared-memory layout both consumers read (one store serves both), and on
// generated graphs.
func TestBoundariesAddUp(t *testing.T) {
	highstest.Library(t)
	files, err := filepath.Glob("../examples/graphs/*.json")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "testdata/graphs/fanout_store.json")
	graphs := map[string]*tasks.Graph{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if graphs[f], err = tasks.Load(data); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	graphs["dag 30"] = generatedDAG(t, 30, 1)
	for name, g := range graphs {
		r, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: []string{}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sum, shared := 0.0, 0
		for _, b := range r.Boundaries {
			sum += b.CostNS
			if len(b.SharedWith) > 0 && b.CostNS == 0 {
				shared++
			}
		}
		if math.Abs(sum-r.ConversionNS) > 1e-9*max(1, r.ConversionNS) {
			t.Errorf("%s: the boundaries cost %v in all, the plan's conversions %v", name, sum, r.ConversionNS)
		}
		if name == "testdata/graphs/fanout_store.json" {
			var stores []Boundary
			for _, b := range r.Boundaries {
				if b.From == "norm1.y" {
					stores = append(stores, b)
				}
			}
			if len(stores) != 2 || stores[0].Class != "shared_memory" || stores[0].CostNS == 0 || shared != 1 ||
				!slices.Equal(stores[1].SharedWith, []string{stores[0].Edge}) || stores[1].CostNS != 0 {
				t.Errorf("%s: norm1.y's boundaries %+v: want one store into shared memory, shared by both consumers", name, stores)
			}
		}
	}
}

// TestErrorsToMatch: an integrator matches the planner's errors with
// errors.Is: every invocation to explain that the graph lacks, and a HiGHS
// that cannot be loaded.
func TestErrorsToMatch(t *testing.T) {
	_, err := Plan(context.Background(), examples(t)["fanout"], PlanOptions{ExplainIDs: []string{"nosuch", "zz"}})
	if !errors.Is(err, ErrUnknownInvocation) || !strings.Contains(fmt.Sprint(err), `"nosuch", "zz"`) {
		t.Errorf("unknown invocations to explain: %v", err)
	}
	// The error names what the graph has: every invocation of a graph of
	// at most 16, the first 12 of a larger one.
	_, err = Plan(context.Background(), examples(t)["transformer_layer"], PlanOptions{ExplainIDs: []string{"gelu2"}})
	if want := `"gelu2" (it has load_h, norm1, load_wqkv, qkv_proj, attention, load_wo, o_proj, load_r, add1, norm2, load_wup, up_proj, … (17 in all))`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("an unknown invocation of the transformer layer: %v\nwant it to end %s", err, want)
	}
	_, err = Plan(context.Background(), examples(t)["gated_mlp"], PlanOptions{ExplainIDs: []string{"gate2"}})
	if err == nil || strings.Contains(err.Error(), "in all") {
		t.Errorf("an unknown invocation of the gated MLP: %v; want every invocation named", err)
	}
	for _, n := range []int{-1, math.MinInt} {
		want := fmt.Sprintf("planner: PlanOptions.ExplainAll %d is negative", n)
		if _, err := Plan(context.Background(), examples(t)["fanout"], PlanOptions{ExplainAll: n}); err == nil || err.Error() != want {
			t.Errorf("ExplainAll %d: %v, want %q", n, err, want)
		}
	}
	if err := fmt.Errorf("planner: %w", &highs.LoadError{}); !errors.Is(err, ErrNoSolver) {
		t.Errorf("a HiGHS that cannot be loaded: %v, want ErrNoSolver", err)
	}
}

// Invocations whose regrets were not computed say so in the JSON
// (not_explained) and take one line of the text report, which says why
// they were not explained and names those that were.
func TestNotExplainedTakesOneLine(t *testing.T) {
	s, err := taskgen.Transformer(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		opts   PlanOptions
		header string
		named  []string
	}{
		{"past ExplainAll", PlanOptions{ExplainAll: 5}, "(no regrets: a graph of more than 5 invocations is explained only where --explain ID,… asks)", nil},
		{"asked", PlanOptions{ExplainIDs: []string{"l1_attn", "l0_qkv"}}, "(regrets computed for 2 of 22 invocations: l0_qkv, l1_attn; --explain ID,… names others)", []string{"l0_qkv", "l1_attn"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Plan(context.Background(), g, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := r.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			if !strings.Contains(text, c.header) {
				t.Errorf("no header %q in\n%s", c.header, text)
			}
			for _, ch := range r.Choices {
				if ch.NotExplained == slices.Contains(c.named, ch.Invocation) {
					t.Errorf("%s: not_explained %t", ch.Invocation, ch.NotExplained)
				}
				var others []string
				for _, rj := range ch.Rejected {
					others = append(others, rj.Alternative)
				}
				// The invocation's block: its line and the indented lines
				// under it.
				_, after, ok := strings.Cut(text, "\n  "+ch.Invocation+": "+ch.Alternative+"  ")
				if !ok {
					t.Fatalf("%s: no line", ch.Invocation)
				}
				lines := strings.Split(after, "\n")[1:]
				var block []string
				for _, l := range lines {
					if !strings.HasPrefix(l, "      ") {
						break
					}
					block = append(block, l)
				}
				one := []string{"      not explained: " + strings.Join(others, ", ")}
				if got := slices.Equal(block, one); got != ch.NotExplained {
					t.Errorf("%s: its rejected alternatives read %q", ch.Invocation, block)
				}
			}
			if n := strings.Count(text, "not explained"); n != len(r.Choices)-len(c.named) {
				t.Errorf("%d lines say not explained, want %d", n, len(r.Choices)-len(c.named))
			}
		})
	}
}

// dotQuote writes what a DOT label shows as the string: quotes and
// backslashes escaped, line breaks as \n, control characters as spaces.
func TestDOTQuote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:            `"plain"`,
		`say "hi"`:         `"say \"hi\""`,
		`C:\path\N\G end\`: `"C:\\path\\N\\G end\\"`,
		"two\nlines":       `"two\nlines"`,
		"tab\there\a\r":    `"tab here  "`,
		"µs ∑ 😀":           `"µs ∑ 😀"`,
	} {
		if got := dotQuote(in); got != want {
			t.Errorf("dotQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// The DOT picture draws each fused group as a cluster with its budget,
// kernel boundaries dashed, a conversion serving several edges bold with
// the edge that pays it named, and a legend of the classes it uses.
func TestDOTDrawsKernelsAndSharing(t *testing.T) {
	g := fusedTransformer(t, 2, 1, 300_000)
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteDOT(&buf); err != nil {
		t.Fatal(err)
	}
	dot := buf.String()
	for _, want := range []string{
		"subgraph cluster_0 {\n    label=\"kernel layer0: shared memory ",
		"subgraph cluster_1 {\n    label=\"kernel layer1: shared memory ",
		"style=dashed, label=\"kernel boundary\\n",
		"subgraph cluster_legend {",
		">kernel boundary (global round trip)<",
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("no %q in\n%s", want, dot)
		}
	}
	data, err := os.ReadFile("testdata/graphs/fanout_store.json")
	if err != nil {
		t.Fatal(err)
	}
	fg, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = Plan(context.Background(), fg, PlanOptions{}); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := r.WriteDOT(&buf); err != nil {
		t.Fatal(err)
	}
	dot = buf.String()
	payer := ""
	for _, b := range r.Boundaries {
		if len(b.SharedWith) > 0 && b.CostNS > 0 {
			payer = b.Edge
		}
	}
	if payer == "" {
		t.Fatal("fanout_store.json: no shared conversion")
	}
	for _, want := range []string{"penwidth=2.5", "(shared by 2 edges)", "(shared, paid on " + payer + ")", "bold: one conversion serves several edges"} {
		if !strings.Contains(dot, want) {
			t.Errorf("no %q in\n%s", want, dot)
		}
	}
}

// An interrupt while the conversions are classified (thousands of distinct
// pairs take seconds) stops the plan between two classifications.
func TestPlanStopsWhileClassifying(t *testing.T) {
	s, err := taskgen.DAG(30, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Plan(ctx, g, PlanOptions{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped while classifying the conversions, 0 of ") {
		t.Errorf("Plan after an interrupt: %v", err)
	}
	// Plan's contract: an interrupt before any plan is ErrNoPlan, wherever
	// it strikes.
	if !errors.Is(err, ErrNoPlan) {
		t.Errorf("Plan after an interrupt: %v does not match ErrNoPlan", err)
	}
}

// An interrupt after the conversions are classified (the cache warm), on
// graphs whose fused kernels' budgets would be contracted into tables:
// cancelled, the budgets go to HiGHS as rows, which stops at once. Plan
// returns the plan found (interrupted) or an error that matches both
// ErrNoPlan and the context's error.
func TestPlanInterruptedAfterClassifying(t *testing.T) {
	highstest.Library(t)
	for name, g := range examples(t) {
		cache := NewCache()
		if _, err := Plan(context.Background(), g, PlanOptions{Cache: cache}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r, err := Plan(ctx, g, PlanOptions{Cache: cache})
		switch {
		case err != nil && (!errors.Is(err, context.Canceled) || !errors.Is(err, ErrNoPlan)):
			t.Errorf("%s: %v matches ErrNoPlan %v, context.Canceled %v; want both", name, err, errors.Is(err, ErrNoPlan), errors.Is(err, context.Canceled))
		case err == nil && r.Status != Optimal && r.Status != Interrupted:
			t.Errorf("%s: status %s", name, r.Status)
		}
	}
}

// The zero Cache is an empty cache, and a nil graph is an error, not a
// panic.
func TestZeroCacheAndNilGraph(t *testing.T) {
	g := examples(t)["fanout"]
	var cache Cache
	r, err := Plan(context.Background(), g, PlanOptions{Cache: &cache})
	if err != nil || cache.Len() == 0 {
		t.Fatalf("with a zero Cache: %v, %d conversions cached", err, cache.Len())
	}
	want, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil || want.ObjectiveNS != r.ObjectiveNS {
		t.Errorf("with a zero Cache the plan costs %v; with none, %v (%v)", r.ObjectiveNS, want.ObjectiveNS, err)
	}
	if _, err := Plan(context.Background(), nil, PlanOptions{}); err == nil {
		t.Error("Plan of a nil graph: no error")
	}
	if _, err := EvaluateGraph(nil, nil, PlanOptions{}); err == nil {
		t.Error("EvaluateGraph of a nil graph: no error")
	}
}

// Nil and zero values given to the API are errors or nothing, never a
// panic: a nil context (which would fault in a goroutine of Plan's, past
// the caller's recover), a zero tasks.Graph, nil results and graphs given
// to the helpers, an unknown witness form.
func TestNilAndZeroArguments(t *testing.T) {
	g := examples(t)["fanout"]
	//lint:ignore SA1012 a nil context is what is tested
	if _, err := Plan(nil, g, PlanOptions{}); err == nil || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("Plan with a nil context: %v", err)
	}
	//lint:ignore SA1012 a nil context is what is tested
	if _, err := Solve(nil, &Problem{}, Options{}); err == nil || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("Solve with a nil context: %v", err)
	}
	if _, err := Plan(context.Background(), &tasks.Graph{}, PlanOptions{}); err == nil || !strings.Contains(err.Error(), "zero tasks.Graph") {
		t.Errorf("Plan of a zero graph: %v", err)
	}
	if _, err := CheckCosts(nil); err == nil {
		t.Error("CheckCosts of a nil graph: no error")
	}
	if c := ChoicesOf(nil); c != nil {
		t.Errorf("ChoicesOf(nil) = %v", c)
	}
	if c, ok := (*Result)(nil).Choice("p"); c != nil || ok {
		t.Errorf("a nil Result's Choice: %v, %v", c, ok)
	}
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o := OutsideBudgets(g, nil); o != nil {
		t.Errorf("OutsideBudgets of a nil Result: %v", o)
	}
	if o := OutsideBudgets(nil, r); o != nil {
		t.Errorf("OutsideBudgets of a nil graph: %v", o)
	}
	NewCache().Prefetch(context.Background(), nil, nil)
	if _, err := r.WithWitnesses(WitnessForm(99)); err == nil {
		t.Error("WithWitnesses of an unknown form: no error")
	}
	if _, err := (*Result)(nil).WithWitnesses(WitnessesTable); err == nil {
		t.Error("WithWitnesses of a nil Result: no error")
	}
}

// A reason names at most maxEdgesNamed edges and counts the others.
func TestEdgeListCountsTheRest(t *testing.T) {
	edges := []string{"p.y -> c1.x", "p.y -> c2.x", "p.y -> c3.x", "p.y -> c4.x", "p.y -> c5.x", "p.y -> c6.x"}
	if got, want := edgeList(edges[:4]), "p.y -> c1.x, p.y -> c2.x, p.y -> c3.x, p.y -> c4.x"; got != want {
		t.Errorf("four edges: %q", got)
	}
	if got, want := edgeList(edges), "p.y -> c1.x, p.y -> c2.x, p.y -> c3.x, p.y -> c4.x and 2 other edges"; got != want {
		t.Errorf("six edges: %q, want %q", got, want)
	}
}

// A fan-out's conversion measured at 0 ns is paid, at 0 ns, on its first
// edge, and serves the others: the text and the picture name the edge that
// pays, not each edge as paid by the other (norm.y's warp_shuffle into the
// mma A fragment, shared by q_proj and k_proj, measured at 0 ns a tile).
func TestSharedConversionMeasuredFree(t *testing.T) {
	doc := exampleDoc(t, "fanout")
	doc["measured"].(map[string]any)["conversions"].([]any)[0].(map[string]any)["ns"] = 0
	for _, inv := range doc["invocations"].([]any) {
		if inv := inv.(map[string]any); inv["id"] == "norm" {
			inv["pin"] = []any{"in_load_order"}
		}
	}
	r, err := Plan(context.Background(), docGraph(t, doc), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const q, k = "norm.y -> q_proj.lhs", "norm.y -> k_proj.lhs"
	var paid, served *Boundary
	for i := range r.Boundaries {
		switch b := &r.Boundaries[i]; b.Edge {
		case q:
			paid = b
		case k:
			served = b
		}
	}
	if paid == nil || served == nil || paid.Class != "warp_shuffle" || paid.CostNS != 0 ||
		!slices.Equal(paid.SharedWith, []string{k}) || !slices.Equal(served.SharedWith, []string{q}) {
		t.Fatalf("the fan-out's boundaries: %+v, %+v", paid, served)
	}
	text, _, dot := render(t, r)
	for _, want := range []string{
		"\n  " + q + ": warp_shuffle (measured as a whole; the model would move it via shared_memory), 0 ns, measured\n",
		"\n      one conversion, paid here, for " + k + " too\n",
		"\n  " + k + ": warp_shuffle (measured as a whole; the model would move it via shared_memory), 0 ns: the conversion of " + q + ", which pays it\n",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("no %q in the report:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), "the conversion of "+k+", which pays it") {
		t.Errorf("the report says %s pays %s's conversion:\n%s", k, q, text)
	}
	for _, want := range []string{
		"\"norm\" -> \"q_proj\" [color=blue, style=solid, penwidth=2.5, label=\"warp_shuffle via shared_memory\\n(shared by 2 edges)\"];",
		"\"norm\" -> \"k_proj\" [color=blue, style=solid, penwidth=2.5, label=\"warp_shuffle via shared_memory\\n(shared, paid on " + q + ")\"];",
	} {
		if !strings.Contains(string(dot), want) {
			t.Errorf("no %q in the picture:\n%s", want, dot)
		}
	}
}

// A round trip into a global layout that several consumers read is one
// store and one kernel boundary, paid on the first edge: a reason that moves
// one consumer off it saves nothing while another still reads it, and one
// that moves a consumer onto it adds nothing. The dequantized weights, fused
// into registers, are stored once for mma (a transposed layout) and mma3 (the
// same), once for mma2 (the rows): mma in registers still leaves mma3's
// store, 30 µs, to pay; mma on the rows joins mma2's.
func TestReasonSharedRoundTrip(t *testing.T) {
	doc := exampleDoc(t, "dequant_mma_n16")
	doc["index_maps"].(map[string]any)["w_cols"] = "logical(m:16, k:16) -> physical(addr:262144) = (k * 4096 + m)"
	doc["layouts"].(map[string]any)["a_global_f16_t"] = "global f16 elements align 16: w_cols"
	mma := doc["tasks"].(map[string]any)["mma"].(map[string]any)
	var fromGlobal map[string]any
	for _, a := range mma["alternatives"].([]any) {
		if a := a.(map[string]any); a["id"] == "a_from_global" {
			fromGlobal = a
		}
	}
	var cols map[string]any
	data, _ := json.Marshal(fromGlobal)
	if err := json.Unmarshal(data, &cols); err != nil {
		t.Fatal(err)
	}
	cols["id"] = "a_from_global_t"
	cols["ports"].(map[string]any)["lhs"] = map[string]any{"layout": "a_global_f16_t"}
	cols["cost"] = map[string]any{"ns": 1.1}
	mma["alternatives"] = append(mma["alternatives"].([]any), cols)
	for _, n := range []string{"2", "3"} {
		pin := map[string]string{"2": "a_from_global", "3": "a_from_global_t"}[n]
		doc["invocations"] = append(doc["invocations"].([]any),
			map[string]any{"id": "load_x" + n, "task": "load_x"},
			map[string]any{"id": "mma" + n, "task": "mma", "pin": []any{pin}},
			map[string]any{"id": "store_y" + n, "task": "store_y"})
		doc["edges"] = append(doc["edges"].([]any),
			map[string]any{"from": "dequantize.a", "to": "mma" + n + ".lhs"},
			map[string]any{"from": "load_x" + n + ".x", "to": "mma" + n + ".rhs"},
			map[string]any{"from": "mma" + n + ".out", "to": "store_y" + n + ".y"})
	}
	r, err := Plan(context.Background(), docGraph(t, doc), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, c := range r.Choices {
		if c.Invocation == "mma" {
			if c.Alternative != "a_from_global_t" {
				t.Fatalf("mma takes %s, want a_from_global_t", c.Alternative)
			}
			for _, rj := range c.Rejected {
				reasons[rj.Alternative] = rj.Reason
			}
		}
	}
	for alt, want := range map[string]string{
		"a_in_registers": "dequantize.a -> mma.lhs: a warp_shuffle conversion via shared_memory (14.22 µs) instead of sharing a kernel boundary with 128 MiB stored (30 µs), which dequantize.a -> mma3.lhs still needs (no saving)",
		"a_from_global":  "dequantize.a -> mma.lhs: a kernel boundary with 128 MiB stored (30 µs) from a_blocked_f16 to a_global_f16, shared with dequantize.a -> mma2.lhs at no extra cost, instead of sharing a kernel boundary with 128 MiB stored (30 µs) from a_blocked_f16 to a_global_f16_t, which dequantize.a -> mma3.lhs still needs (no saving)",
	} {
		if !strings.Contains(reasons[alt], want) {
			t.Errorf("mma's %s: %q, want it to say %q", alt, reasons[alt], want)
		}
	}
}

// Edges whose round trips are their own, each out of the producer's global
// layout with its own boundary and loads, are named in one phrase but each
// pays: the reason says so, or it reads as one 2.477 µs where two are paid.
func TestReasonOwnRoundTripsEach(t *testing.T) {
	const graph = `{"version": 1, "name": "own-trips", "target": "h200", "sizes": {"M": 4096},
  "spaces": {"a": "(m:16, k:16)"},
  "index_maps": {"rows": "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)"},
  "layouts": {"G": "global f16 elements align 16: rows"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "a", "element": "f16"}},
          "alternatives": [{"id": "regs", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"},
                           {"id": "to_global", "ports": {"y": {"layout": "G"}}, "cost": {"ns": 3}, "multiplicity": "M"}]},
    "c": {"ports": {"x": {"direction": "in", "tile": "a", "element": "f16"}},
          "alternatives": [{"id": "regs", "ports": {"x": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "c1", "task": "c"}, {"id": "c2", "task": "c"}],
  "edges": [{"from": "p.y", "to": "c1.x"}, {"from": "p.y", "to": "c2.x"}]}`
	g, err := tasks.Load([]byte(graph))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Choices[0]
	if p.Alternative != "regs" || len(p.Rejected) != 1 || p.Rejected[0].RegretNS == nil {
		t.Fatalf("p: %+v", p)
	}
	// Each edge: one boundary and the tile loaded, 2 MiB; the regret is
	// the execution's difference and both.
	tm := g.Target().Model
	trip := tm.Get("launch_overhead_ns") + 16*16*2*4096/tm.Get("hbm_gb_per_s")
	if got, want := *p.Rejected[0].RegretNS, 2*4096/tm.Get("sm_count")+2*trip; math.Abs(got-want) > 1e-9*want {
		t.Errorf("to_global's regret %v, want %v", got, want)
	}
	want := "p.y -> c1.x, p.y -> c2.x: a kernel boundary with 2 MiB loaded (" + fmtNS(trip) + ") each instead of nothing to convert"
	if !strings.Contains(p.Rejected[0].Reason, want) {
		t.Errorf("to_global: %q, want it to say %q", p.Rejected[0].Reason, want)
	}
}

// A reason that says an alternative is infeasible swapped in alone is true:
// the graph with every invocation pinned to its choice and this one to the
// alternative has no plan. In a fused transformer (3 layers, 49,152 bytes of
// shared memory a kernel, full), l0_act's a2 needs the conversion from
// l0_up, whose cheapest mechanism takes scratch the kernel has not; kept out
// of shared memory, as l0_up's choice may keep it, the swap fits.
func TestReasonInfeasibleAloneIsSo(t *testing.T) {
	s, err := taskgen.Transformer(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := taskgen.FuseLayers(&s, 49152); err != nil {
		t.Fatal(err)
	}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{ExplainIDs: []string{"l0_act", "l0_add1", "l0_attn"}})
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for vi, c := range r.Choices {
		for _, rj := range c.Rejected {
			if c.Invocation == "l0_act" && rj.Alternative == "a2" {
				want := "with the conversions out of l0_up kept out of shared memory: execution −1.526 ns; l0_up.y -> l0_act.x: a warp_shuffle conversion (557.2 ns) instead of nothing to convert"
				if !strings.HasPrefix(rj.Reason, want) {
					t.Errorf("l0_act's a2: %q, want %q", rj.Reason, want)
				}
			}
			if !strings.HasPrefix(rj.Reason, "swapped in alone it is infeasible") {
				continue
			}
			tried++
			pinned := s
			pinned.Invocations = slices.Clone(s.Invocations)
			for i := range pinned.Invocations {
				pinned.Invocations[i].Pin = []string{r.Choices[i].Alternative}
			}
			pinned.Invocations[vi].Pin = []string{rj.Alternative}
			pg, err := tasks.New(pinned)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Plan(context.Background(), pg, PlanOptions{ExplainIDs: []string{}}); err == nil {
				t.Errorf("%s's %s: %q, but swapped in alone it plans", c.Invocation, rj.Alternative, rj.Reason)
			}
		}
	}
	t.Logf("%d reasons infeasible alone, each checked", tried)
}

// The legend's node cannot be an invocation's: an invocation may be called
// legend, and DOT's legend and "legend" are one node.
func TestDOTLegendIsNoInvocation(t *testing.T) {
	r := &Result{Graph: "g", Target: "h200", Status: Optimal,
		Choices:    []PlanChoice{{Invocation: "a", Alternative: "x"}, {Invocation: "legend", Alternative: "y"}},
		Boundaries: []Boundary{{From: "a.out", To: "legend.in", Class: "identity", Mechanism: "identity"}}}
	var b bytes.Buffer
	if err := r.WriteDOT(&b); err != nil {
		t.Fatal(err)
	}
	dot := b.String()
	if n := strings.Count(dot, "\n  \"legend\" [") + strings.Count(dot, "\n    legend [") + strings.Count(dot, "\n    \"legend\" ["); n != 1 {
		t.Errorf("node legend declared %d times:\n%s", n, dot)
	}
	if !strings.Contains(dot, "\"cklplan legend\" [shape=plaintext") {
		t.Errorf("no key node:\n%s", dot)
	}
}

// The edges of one producer port that must cross a kernel share its store
// and its kernel boundary: the first pays them, the others their loads.
func TestRoundTripsShareTheStore(t *testing.T) {
	g := fusedTransformer(t, 2, 1, 300_000)
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	var trips []Boundary
	for _, b := range r.Boundaries {
		if b.From == "l0_add2.y" && b.Crossing == "global_round_trip" {
			trips = append(trips, b)
		}
	}
	if len(trips) != 2 {
		t.Fatalf("%d round trips out of l0_add2.y, want 2 (to the next layer's norm and residual)", len(trips))
	}
	payer, other := trips[0], trips[1]
	if !strings.HasPrefix(payer.Detail, "kernel boundary ") || !strings.Contains(other.Detail, "the store and the kernel boundary are paid on "+payer.Edge) {
		t.Errorf("details %q and %q", payer.Detail, other.Detail)
	}
	launch := g.Target().Model.Get("launch_overhead_ns")
	if !(other.CostNS < payer.CostNS-launch) {
		t.Errorf("the edge that pays %v ns, the other %v ns: want it less by more than a launch (%v ns)", payer.CostNS, other.CostNS, launch)
	}
	whole, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoReduce: true, NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.ObjectiveNS-whole.ObjectiveNS) > 1e-9*whole.ObjectiveNS {
		t.Errorf("reduced %v, whole %v", r.ObjectiveNS, whole.ObjectiveNS)
	}
}

// A producer that writes one global layout and a consumer that reads
// another need a copy kernel to relay the tile between them; consumers that
// read one global layout share the store into it (or the copy into it) and
// the boundary before them, and one that reads the producer's own layout
// pays the boundary alone.
func TestGlobalLayoutsRelayAndShare(t *testing.T) {
	build := func(producer func(*tasks.AlternativeBuilder)) *tasks.Graph {
		b := tasks.NewBuilder("global-readers", "h200").Size("M", 4096).
			Space("a_tile", "(m:16, k:16)").
			IndexMap("rows", "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)").
			IndexMap("cols", "logical(m:16, k:16) -> physical(addr:256) = (k * 16 + m)").
			Layout("A", "global f16 elements align 16: rows").
			Layout("B", "global f16 elements align 16: cols")
		p := b.Task("p").Out("y", "a_tile", storage.F16)
		producer(p.Alternative("only").CostNS(1).Multiplicity("M"))
		rb := b.Task("reads_b").In("x", "a_tile", storage.F16)
		rb.Alternative("b").Layout("x", "B").CostNS(1).Multiplicity("M")
		// The same, its kernel's loop named: loops do not constrain a
		// round trip, so it shares the store into B all the same.
		rl := b.Task("reads_b_in_loop").In("x", "a_tile", storage.F16)
		rl.Alternative("b").Bind(tasks.BindingSpec{Port: "x", Layout: "B", Loop: "k_loop"}).CostNS(1).Multiplicity("M")
		ra := b.Task("reads_a").In("x", "a_tile", storage.F16)
		ra.Alternative("a").Layout("x", "A").CostNS(1).Multiplicity("M")
		b.Invoke("p", "p")
		b.Invoke("c1", "reads_b")
		b.Invoke("c2", "reads_b_in_loop")
		b.Invoke("c3", "reads_a")
		b.Edge("p.y", "c1.x")
		b.Edge("p.y", "c2.x")
		b.Edge("p.y", "c3.x")
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	const tileBytes = 16 * 16 * 2 * 4096.0 // every tile the producer moves
	for _, tc := range []struct {
		name     string
		producer func(*tasks.AlternativeBuilder)
		cost     func(launch, bw float64) map[string]float64 // by consumer
	}{
		{"writes A", func(a *tasks.AlternativeBuilder) { a.Layout("y", "A") }, func(launch, bw float64) map[string]float64 {
			return map[string]float64{"c1": 2*launch + 2*tileBytes/bw, "c2": 0, "c3": launch}
		}},
		{"in registers", func(a *tasks.AlternativeBuilder) { a.Dist("y", "mma.m16n8k16.a.f16", "") }, func(launch, bw float64) map[string]float64 {
			return map[string]float64{"c1": launch + tileBytes/bw, "c2": 0, "c3": launch + tileBytes/bw}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := build(tc.producer)
			r, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.cost(g.Target().Model.Get("launch_overhead_ns"), g.Target().Model.Get("hbm_gb_per_s"))
			total := 0.0
			for _, b := range r.Boundaries {
				c := strings.TrimSuffix(b.To, ".x")
				total += want[c]
				if math.Abs(b.CostNS-want[c]) > 1e-9*want[c] {
					t.Errorf("%s: %v ns (%s), want %v", b.Edge, b.CostNS, b.Detail, want[c])
				}
				if shared := len(b.SharedWith) > 0; shared != (c != "c3") {
					t.Errorf("%s shared with %v", b.Edge, b.SharedWith)
				}
			}
			if math.Abs(r.ConversionNS-total) > 1e-9*total {
				t.Errorf("conversions %v ns, want %v", r.ConversionNS, total)
			}
			whole, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoReduce: true, NoRegrets: true}})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.ObjectiveNS-whole.ObjectiveNS) > 1e-9*whole.ObjectiveNS {
				t.Errorf("reduced %v, whole %v", r.ObjectiveNS, whole.ObjectiveNS)
			}
		})
	}
}

// Consumers that read one global layout over edges that must cross share
// the copy kernel that relays the producer's layout into theirs, as they
// share the producer's store and the boundary before them (rule 4): the
// copy is paid once, on the port's first edge that must cross when that
// edge reads the layout, else on the first that does, and every other
// reader of the layout is served by it. The producer writes G (or holds
// the tile in registers); c1, c2, c3 read GT, its transpose; c4 may read
// GT, G or registers, and joins the copy; c5 reads G itself.
func TestMustCrossReadersShareTheCopy(t *testing.T) {
	build := func(producerGlobal bool, order []string) *tasks.Graph {
		b := tasks.NewBuilder("must-cross-readers", "h200").Size("M", 4096).
			Space("a", "(m:16, k:16)").
			IndexMap("rows", "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)").
			IndexMap("cols", "logical(m:16, k:16) -> physical(addr:256) = (k * 16 + m)").
			Layout("G", "global f16 elements align 16: rows").
			Layout("GT", "global f16 elements align 16: cols")
		p := b.Task("p").Out("y", "a", storage.F16).Alternative("only").CostNS(3).Multiplicity("M")
		if producerGlobal {
			p.Layout("y", "G")
		} else {
			p.Dist("y", "mma.m16n8k16.a.f16", "")
		}
		b.Task("reads_gt").In("x", "a", storage.F16).Alternative("gt").Layout("x", "GT").CostNS(1.2).Multiplicity("M")
		b.Task("reads_g").In("x", "a", storage.F16).Alternative("g").Layout("x", "G").CostNS(1.5).Multiplicity("M")
		c := b.Task("c").In("x", "a", storage.F16)
		c.Alternative("regs").Dist("x", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M")
		c.Alternative("g").Layout("x", "G").CostNS(1.5).Multiplicity("M")
		c.Alternative("gt").Layout("x", "GT").CostNS(1.2).Multiplicity("M")
		b.Invoke("p", "p")
		for _, id := range []string{"c1", "c2", "c3"} {
			b.Invoke(id, "reads_gt")
		}
		b.Invoke("c4", "c")
		b.Invoke("c5", "reads_g")
		for _, id := range order {
			b.Edge("p.y", id+".x").MustCrossKernel()
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	edge := func(c string) string { return "p.y -> " + c + ".x" }
	type want struct {
		cost   float64
		shared []string // the boundary's shared_with
		paidOn string   // the graph verifier's
	}
	const tileBytes = 16 * 16 * 2 * 4096.0 // every tile the producer moves
	// c4's reading registers instead: its loads, less execution; the copy
	// the others still need stays.
	copyStays := func(payer, others string) string {
		return "p.y -> c4.x: 2 MiB loaded after the kernel boundary " + edge(payer) + " pays (436.9 ns) instead of sharing 2 MiB relaid by a copy kernel after the kernel boundary " +
			edge(payer) + " pays (2.914 µs), which " + others + " still need (no saving)"
	}
	const c123 = "p.y -> c1.x, p.y -> c2.x, p.y -> c3.x"
	for _, tc := range []struct {
		name           string
		producerGlobal bool
		order          []string
		want           func(launch, bw float64) map[string]want
		regsReason     string // of c4's alternative regs
	}{
		{"writes G, c1 first", true, []string{"c1", "c2", "c3", "c4", "c5"}, func(launch, bw float64) map[string]want {
			paid := []string{edge("c1")}
			return map[string]want{
				// The boundary (no bytes: the producer stores G itself)
				// and the one copy of G into GT.
				"c1": {2*launch + 2*tileBytes/bw, []string{edge("c2"), edge("c3"), edge("c4")}, ""},
				"c2": {0, paid, edge("c1")}, "c3": {0, paid, edge("c1")}, "c4": {0, paid, edge("c1")},
				"c5": {0, nil, edge("c1")},
			}
		}, copyStays("c1", c123)},
		{"writes G, c4 first", true, []string{"c4", "c1", "c2", "c3", "c5"}, func(launch, bw float64) map[string]want {
			paid := []string{edge("c4")}
			return map[string]want{
				"c4": {2*launch + 2*tileBytes/bw, []string{edge("c1"), edge("c2"), edge("c3")}, ""},
				"c1": {0, paid, edge("c4")}, "c2": {0, paid, edge("c4")}, "c3": {0, paid, edge("c4")},
				"c5": {0, nil, edge("c4")},
			}
		}, copyStays("c4", c123)},
		{"writes G, c5 first", true, []string{"c5", "c2", "c1", "c4", "c3"}, func(launch, bw float64) map[string]want {
			paid := []string{edge("c2")}
			return map[string]want{
				"c5": {launch, nil, ""},
				"c2": {launch + 2*tileBytes/bw, []string{edge("c1"), edge("c4"), edge("c3")}, edge("c5")},
				"c1": {0, paid, edge("c2")}, "c4": {0, paid, edge("c2")}, "c3": {0, paid, edge("c2")},
			}
		}, copyStays("c5", "p.y -> c2.x, p.y -> c1.x, p.y -> c3.x")},
		{"in registers", false, []string{"c1", "c2", "c3", "c4", "c5"}, func(launch, bw float64) map[string]want {
			// One store and one boundary; nothing to copy, nothing shared.
			return map[string]want{
				"c1": {launch + tileBytes/bw, nil, ""},
				"c2": {0, nil, edge("c1")}, "c3": {0, nil, edge("c1")}, "c4": {0, nil, edge("c1")}, "c5": {0, nil, edge("c1")},
			}
		}, "p.y -> c4.x: 2 MiB loaded after the kernel boundary p.y -> c1.x pays (436.9 ns) instead of no extra traffic after the kernel boundary p.y -> c1.x pays (0 ns)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := build(tc.producerGlobal, tc.order)
			m := g.Target().Model
			want := tc.want(m.Get("launch_overhead_ns"), m.Get("hbm_gb_per_s"))
			total := 0.0
			for _, w := range want {
				total += w.cost
			}
			for _, opts := range []PlanOptions{{}, {Solve: Options{NoReduce: true}}} {
				r, err := Plan(context.Background(), g, opts)
				if err != nil {
					t.Fatal(err)
				}
				c4 := r.Choices[4]
				if c4.Invocation != "c4" || c4.Alternative != "gt" {
					t.Errorf("NoReduce %t: c4 chose %s, want gt (it shares the copy)", opts.Solve.NoReduce, c4.Alternative)
				}
				regret := tileBytes/m.Get("hbm_gb_per_s") - 0.2*4096/m.Get("sm_count")
				for _, rj := range c4.Rejected {
					if rj.Alternative != "regs" {
						continue
					}
					if rj.RegretNS == nil || math.Abs(*rj.RegretNS-regret) > 1e-9*regret || !strings.Contains(rj.Reason, tc.regsReason) {
						t.Errorf("NoReduce %t: c4's regs: regret %v, want %v; reason %q, want it to hold %q", opts.Solve.NoReduce, regretText(rj), regret, rj.Reason, tc.regsReason)
					}
				}
				for _, b := range r.Boundaries {
					w := want[strings.TrimSuffix(b.To, ".x")]
					if math.Abs(b.CostNS-w.cost) > 1e-9*w.cost || !slices.Equal(b.SharedWith, w.shared) {
						t.Errorf("NoReduce %t: %s: %v ns shared with %q (%s), want %v ns shared with %q", opts.Solve.NoReduce, b.Edge, b.CostNS, b.SharedWith, b.Detail, w.cost, w.shared)
					}
				}
				if math.Abs(r.ConversionNS-total) > 1e-9*total {
					t.Errorf("NoReduce %t: conversions %v ns, want %v", opts.Solve.NoReduce, r.ConversionNS, total)
				}
				ev, err := EvaluateGraph(g, ChoicesOf(r), PlanOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for _, ec := range ev.Edges {
					w := want[strings.TrimSuffix(strings.TrimPrefix(ec.Edge, "p.y -> "), ".x")]
					if math.Abs(ec.Cost-w.cost) > 1e-9*w.cost || ec.PaidOn != w.paidOn {
						t.Errorf("graph verifier: %s: %v ns paid on %q, want %v ns paid on %q", ec.Edge, ec.Cost, ec.PaidOn, w.cost, w.paidOn)
					}
				}
			}
			agreeOnBoundaries(t, g, PlanOptions{})
			agreeOnPlans(t, g, PlanOptions{}, 100, 1)
		})
	}
}

// A graph's name that holds a newline or a tab is quoted in the report's
// title: it cannot start a line of its own.
func TestTitleQuotesWhatDoesNotPrint(t *testing.T) {
	for name, want := range map[string]string{
		"attention block": "plan of attention block on h200\n",
		"two\nlines":      "plan of \"two\\nlines\" on h200\n",
		"tab\there":       "plan of \"tab\\there\" on h200\n",
		"Ünïcode · names": "plan of Ünïcode · names on h200\n",
		"":                "plan of an unnamed graph on h200\n",
	} {
		var b bytes.Buffer
		if err := (&Result{Graph: name, Target: "h200", Status: Optimal}).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(b.String(), "\n\n"); first+"\n" != want {
			t.Errorf("%q: title %q, want %q", name, first, want)
		}
	}
}

// A graph without a name is "an unnamed graph" in the DOT picture's label
// and the infeasibility's text, and the picture is an anonymous digraph
// (no "" for a name); a named one keeps its name in both.
func TestUnnamedGraphTitles(t *testing.T) {
	for name, want := range map[string][2]string{
		"":       {"digraph {\n", `  label="an unnamed graph on h200: 0 ns (optimal)";`},
		"attn 1": {"digraph \"attn 1\" {\n", `  label="attn 1 on h200: 0 ns (optimal)";`},
	} {
		var b bytes.Buffer
		if err := (&Result{Graph: name, Target: "h200", Status: Optimal}).WriteDOT(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), want[0]) || !strings.Contains(b.String(), "\n"+want[1]+"\n") {
			t.Errorf("%q: DOT\n%s\nwant it to start %q and hold %q", name, b.String(), want[0], want[1])
		}
	}
	b := new(bytes.Buffer)
	pe := &PlanInfeasibleError{Target: "h200", Err: errors.New("planner: no plan")}
	if err := pe.WriteText(b); err != nil {
		t.Fatal(err)
	}
	if want := "no feasible plan of an unnamed graph on h200\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("text %q, want it to start %q", b.String(), want)
	}
}

// Two layouts meet where they hold every element at the same address: the
// producer's element at (m, n) is the consumer's at its axes renamed. A
// consumer that reads the producer's global layout under a renaming that
// transposes the tile needs the tile relaid by a copy kernel, though both
// layouts are written alike; one whose layout only names the axes
// otherwise (or lists them in another order) reads the producer's own
// addresses and pays the boundary alone. Likewise in one kernel, a shared
// layout is the same storage only where the addresses agree.
func TestLayoutsMeetByAddress(t *testing.T) {
	const rows = "logical(m:16, n:16) -> physical(addr:256) = (m * 16 + n)"
	for _, tc := range []struct {
		name     string
		consumer string // the consumer's layout, over its tile (m:16, n:16) or (p:16, q:16)
		tile     string
		rename   [][2]string
		relaid   bool
	}{
		{"the same layout", "global f16 elements align 16: " + rows, "(m:16, n:16)", nil, false},
		{"transposed by the renaming", "global f16 elements align 16: " + rows, "(m:16, n:16)", [][2]string{{"m", "n"}, {"n", "m"}}, true},
		{"axes renamed", "global f16 elements align 16: logical(p:16, q:16) -> physical(addr:256) = (p * 16 + q)", "(p:16, q:16)", [][2]string{{"m", "p"}, {"n", "q"}}, false},
		{"axes listed in another order", "global f16 elements align 16: logical(n:16, m:16) -> physical(addr:256) = (m * 16 + n)", "(m:16, n:16)", nil, false},
		{"column-major", "global f16 elements align 16: logical(m:16, n:16) -> physical(addr:256) = (n * 16 + m)", "(m:16, n:16)", nil, true},
		{"column-major transposed by the renaming", "global f16 elements align 16: logical(m:16, n:16) -> physical(addr:256) = (n * 16 + m)", "(m:16, n:16)", [][2]string{{"m", "n"}, {"n", "m"}}, false},
	} {
		for _, mem := range []string{"global", "shared"} {
			t.Run(tc.name+", "+mem, func(t *testing.T) {
				b := tasks.NewBuilder("layouts", "h200").Size("M", 4096).
					Space("out_tile", "(m:16, n:16)").Space("in_tile", tc.tile).
					Layout("P", mem+" f16 elements align 16: "+rows).
					Layout("C", strings.Replace(tc.consumer, "global", mem, 1))
				b.Task("p").Out("y", "out_tile", storage.F16).Alternative("only").Layout("y", "P").CostNS(1).Multiplicity("M")
				b.Task("c").In("x", "in_tile", storage.F16).Alternative("only").Layout("x", "C").CostNS(1).Multiplicity("M")
				b.Invoke("p", "p")
				b.Invoke("c", "c")
				e := b.Edge("p.y", "c.x")
				for _, r := range tc.rename {
					e.Rename(r[0], r[1])
				}
				g, err := b.Build()
				if err != nil {
					t.Fatal(err)
				}
				r, err := Plan(context.Background(), g, PlanOptions{})
				if mem == "shared" {
					// Two shared layouts meet only where they are one.
					switch {
					case tc.relaid && err == nil:
						t.Fatalf("planned %s: %s", r.Boundaries[0].Class, r.Boundaries[0].Detail)
					case !tc.relaid && err != nil:
						t.Fatal(err)
					case !tc.relaid && r.Boundaries[0].CostNS != 0:
						t.Errorf("%v ns (%s), want the same storage", r.Boundaries[0].CostNS, r.Boundaries[0].Detail)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				launch, bw := g.Target().Model.Get("launch_overhead_ns"), g.Target().Model.Get("hbm_gb_per_s")
				want := launch
				if tc.relaid {
					want += launch + 2*16*16*2*4096/bw
				}
				if got := r.Boundaries[0]; math.Abs(got.CostNS-want) > 1e-9*want {
					t.Errorf("%v ns (%s), want %v", got.CostNS, got.Detail, want)
				}
			})
		}
	}
}

// A conversion whose data crosses blocks outside a cluster needs a kernel
// boundary inside the kernel for every wave of tiles (4,096 tiles over 132
// SMs: 31 of them). Where no group holds both ends, the plan splits the
// kernel there once instead: one boundary, the tile stored and loaded. Two
// ends fused in one group stay in their kernel and pay every wave's.
func TestCrossBlockConversionSplitsTheKernel(t *testing.T) {
	const graph = `{
  "version": 1, "name": "cross-block", "target": "h200", "sizes": {"M": 4096},
  "spaces": {"t": "(b:2, x:32)"},
  "distributions": {
    "rows": {"name": "rows", "executors": [{"name": "block", "size": 2, "level": "block"}, {"name": "lane", "size": 32, "level": "lane"}],
             "tile": [{"name": "b", "size": 2}, {"name": "x", "size": 32}], "ownership": {"b": "block", "x": "lane"}},
    "swapped": {"name": "swapped", "executors": [{"name": "block", "size": 2, "level": "block"}, {"name": "lane", "size": 32, "level": "lane"}],
             "tile": [{"name": "b", "size": 2}, {"name": "x", "size": 32}], "ownership": {"b": "1 - block", "x": "lane"}}
  },
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f32"}},
          "alternatives": [{"id": "only", "ports": {"y": "rows"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "c": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f32"}},
          "alternatives": [{"id": "only", "ports": {"x": "swapped"}, "cost": {"ns": 1}, "multiplicity": "M"}]}
  },
  "invocations": [{"id": "p", "task": "p"}, {"id": "c", "task": "c"}],
  "edges": [{"from": "p.y", "to": "c.x"}]GROUPS
}`
	plan := func(groups string) Boundary {
		g, err := tasks.Load([]byte(strings.Replace(graph, "GROUPS", groups, 1)))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Plan(context.Background(), g, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Boundaries[0]
	}
	tm, err := costmodel.BuiltinTarget("h200")
	if err != nil {
		t.Fatal(err)
	}
	launch, bw, sms := tm.Get("launch_overhead_ns"), tm.Get("hbm_gb_per_s"), tm.Get("sm_count")
	bytes := 2 * 32 * 4 * 4096.0 // the tile, f32, every tile
	split := plan("")
	if want := launch + 2*bytes/bw; split.Crossing != "global_round_trip" || math.Abs(split.CostNS-want) > 1e-9*want {
		t.Errorf("ungrouped: %s %v ns (%s), want a round trip of %v ns", split.Crossing, split.CostNS, split.Detail, want)
	}
	if !strings.HasPrefix(split.Detail, "the kernel is split here: kernel boundary ") {
		t.Errorf("ungrouped: detail %q", split.Detail)
	}
	fused := plan(`, "groups": [{"id": "k", "invocations": ["p", "c"], "shared_memory_bytes": 232448}]`)
	if waves := 4096 / sms; fused.Crossing != "in_kernel" || fused.Class != "global_memory" || fused.CostNS < waves*launch {
		t.Errorf("in one group: %s %s %v ns (%s), want in the kernel, at least %v boundaries", fused.Crossing, fused.Class, fused.CostNS, fused.Detail, waves)
	}
}

// A measured store into a shared-memory layout replaces the bank model's
// cost, as a measured conversion between two distributions replaces the
// model's.
func TestMeasuredSharedStore(t *testing.T) {
	build := func(measured bool) *tasks.Graph {
		b := tasks.NewBuilder("shared-store", "h200").Size("M", 4096).
			Space("a_tile", "(m:16, k:16)").
			IndexMap("rows", "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)").
			Layout("S", "shared f16 elements align 16: rows")
		b.Task("p").Out("y", "a_tile", storage.F16).Alternative("regs").Dist("y", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M")
		b.Task("c").In("x", "a_tile", storage.F16).Alternative("smem").Layout("x", "S").CostNS(1).Multiplicity("M")
		b.Invoke("p", "p")
		b.Invoke("c", "c")
		b.Edge("p.y", "c.x")
		if measured {
			b.MeasuredConversion("mma.m16n8k16.a.f16", "S", 0.5)
		}
		g, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, measured := range []bool{false, true} {
		r, err := Plan(context.Background(), build(measured), PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		bd := r.Boundaries[0]
		if bd.Class != "shared_memory" {
			t.Fatalf("measured %t: class %s", measured, bd.Class)
		}
		if measured && (bd.Origin != "measured" || bd.PerTileNS != 0.5 || !strings.HasPrefix(bd.Detail, "measured 0.5 ns per tile and SM (the bank model's: ")) {
			t.Errorf("measured: %s %v ns a tile (%s)", bd.Origin, bd.PerTileNS, bd.Detail)
		}
		if !measured && (bd.Origin != "formula" || bd.PerTileNS == 0.5) {
			t.Errorf("unmeasured: %s %v ns a tile (%s)", bd.Origin, bd.PerTileNS, bd.Detail)
		}
	}
}

// TestExampleKernelsAreConsistent: an edge a plan keeps inside one kernel
// joins a producer and a consumer that no other path of the graph separates
// by a kernel boundary (an edge that must cross): a tile held in registers
// cannot outlive its kernel. The examples declare such edges themselves (the
// transformer layer's residual is read again from global memory after the
// attention's boundary, not kept in the registers of the kernel before it).
func TestExampleKernelsAreConsistent(t *testing.T) {
	for name, g := range examples(t) {
		t.Run(name, func(t *testing.T) {
			r, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			crossing := map[string]string{}
			for _, b := range r.Boundaries {
				crossing[b.Edge] = b.Crossing
			}
			out := map[*tasks.Invocation][]*tasks.Edge{}
			for _, e := range g.Edges() {
				out[e.From.Invocation] = append(out[e.From.Invocation], e)
			}
			// separated reports whether a path from v to w, avoiding
			// edge skip, takes an edge that must cross (crossed: one
			// already has).
			var separated func(v, w *tasks.Invocation, skip *tasks.Edge, crossed bool) bool
			separated = func(v, w *tasks.Invocation, skip *tasks.Edge, crossed bool) bool {
				if v == w {
					return crossed
				}
				for _, e := range out[v] {
					if e != skip && separated(e.To.Invocation, w, skip, crossed || e.MustCross()) {
						return true
					}
				}
				return false
			}
			for _, e := range g.Edges() {
				label := e.From.Invocation.ID + "." + e.From.Port.Name + " -> " + e.To.Invocation.ID + "." + e.To.Port.Name
				c, ok := crossing[label]
				if !ok {
					t.Fatalf("no boundary %q in the plan", label)
				}
				if c == tasks.InKernel.String() && separated(e.From.Invocation, e.To.Invocation, e, false) {
					t.Errorf("%s is planned inside one kernel, but another path from %s to %s crosses a kernel boundary", label, e.From.Invocation.ID, e.To.Invocation.ID)
				}
			}
		})
	}
}

// TestMeasuredOnAnotherTarget: a measurement table of one target does not
// cost a plan for another: Plan and EvaluateGraph refuse it, naming both
// targets, rather than plan an h200 with an A100's measurements (or
// silently without them).
func TestMeasuredOnAnotherTarget(t *testing.T) {
	g := examples(t)["transformer_layer"]
	measured := &costmodel.Measurements{Target: "sm80", Sizes: []costmodel.SizeMeasurement{
		{Mechanism: "shared_memory", Bytes: 1, CostNS: 5000}, {Mechanism: "shared_memory", Bytes: 1 << 20, CostNS: 5000}}}
	const want = `measured on "sm80", not on "h200"`
	if _, err := Plan(context.Background(), g, PlanOptions{Measured: measured}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Plan: error %v, want one saying %s", err, want)
	}
	if _, err := EvaluateGraph(g, nil, PlanOptions{Measured: measured}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("EvaluateGraph: error %v, want one saying %s", err, want)
	}
	sm80, err := costmodel.BuiltinTarget("sm80")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(context.Background(), g, PlanOptions{Target: sm80, Measured: measured}); err != nil {
		t.Errorf("on sm80: %v", err)
	}
}

// Costs measured on one target are refused by a plan on another: the H200's
// measured dequantize costs on sm80, which has 108 SMs and no wgmma.
func TestGraphMeasuredOnAnotherTarget(t *testing.T) {
	g := examples(t)["dequant_mma_n16"]
	mdata, err := os.ReadFile("../examples/measured/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := g.LoadMeasured(mdata)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(context.Background(), gm, PlanOptions{}); err != nil {
		t.Fatalf("on the graph's own h200: %v", err)
	}
	sm80, err := costmodel.BuiltinTarget("sm80")
	if err != nil {
		t.Fatal(err)
	}
	const want = `measured on "h200", not on "sm80"`
	if _, err := Plan(context.Background(), gm, PlanOptions{Target: sm80}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Plan on sm80: error %v, want one saying %s", err, want)
	}
	if _, err := EvaluateGraph(gm, nil, PlanOptions{Target: sm80}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("EvaluateGraph on sm80: error %v, want one saying %s", err, want)
	}
	// Without a target, the costs are taken anywhere.
	spec := gm.Spec()
	spec.Measured.Target = ""
	anywhere, err := tasks.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(context.Background(), anywhere, PlanOptions{Target: sm80}); err != nil {
		t.Errorf("costs that name no target, on sm80: %v", err)
	}
}

// exampleDoc reads examples/graphs/NAME.json as generic JSON values, for a
// test to change before docGraph loads it.
func exampleDoc(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile("../examples/graphs/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// docGraph loads a graph from generic JSON values.
func docGraph(t *testing.T, doc map[string]any) *tasks.Graph {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// An interrupt or a time limit that has passed stops the work before
// HiGHS too: the elimination of a whole small dense DAG (seed 1 of 35
// invocations: tables of up to 2^23 entries, which neither the table
// limit's reduction nor HiGHS needs) and the search's heuristic (seed 2
// of 40 invocations, a core of 35 that the search proves) no longer run
// to the end and come back proven; the plan is the start HiGHS was given,
// stopped at once.
func TestPlanStopsBeforeHiGHS(t *testing.T) {
	for _, c := range []struct {
		n    int
		seed uint64
	}{{35, 1}, {40, 2}} {
		g := generatedDAG(t, c.n, c.seed)
		cache := NewCache() // classified once, so that nothing stops there
		full, err := Plan(context.Background(), g, PlanOptions{Cache: cache, Solve: Options{NoRegrets: true}})
		if err != nil {
			t.Fatal(err)
		}
		if full.Status != Optimal {
			t.Fatalf("DAG(%d, 4, %d): %s without a limit", c.n, c.seed, full.Status)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, stop := range []struct {
			name string
			ctx  context.Context
			opt  Options
			want Status
		}{
			{"interrupted", ctx, Options{}, Interrupted},
			{"past the time limit", context.Background(), Options{TimeLimit: time.Nanosecond}, TimeLimit},
		} {
			r, err := Plan(stop.ctx, g, PlanOptions{Cache: cache, Solve: stop.opt})
			switch {
			case errors.Is(err, ErrNoPlan):
			case err != nil:
				t.Errorf("DAG(%d, 4, %d) %s: %v", c.n, c.seed, stop.name, err)
			case r.Status != stop.want:
				t.Errorf("DAG(%d, 4, %d) %s: %s, want %s", c.n, c.seed, stop.name, r.Status, stop.want)
			case r.ObjectiveNS < full.ObjectiveNS-objectiveTolerance(full.ObjectiveNS) || r.BoundNS > full.ObjectiveNS+objectiveTolerance(full.ObjectiveNS):
				t.Errorf("DAG(%d, 4, %d) %s: objective %v and bound %v around the optimum %v", c.n, c.seed, stop.name, r.ObjectiveNS, r.BoundNS, full.ObjectiveNS)
			}
		}
	}
}

// CheckCosts lists every execution cost Plan refuses (over MaxCostNS), in
// the order of the invocations and their alternatives, each as Plan says
// the first; an alternative the pins leave out is not costed.
func TestCheckCostsAgreesWithPlan(t *testing.T) {
	graph := func(pin string) *tasks.Graph {
		t.Helper()
		g, err := tasks.Load([]byte(`{"version": 1, "name": "costly", "target": "h200", "sizes": {"M": 64},
  "spaces": {"t": "(m:16, k:16)"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"},
                           {"id": "b", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1e16}, "multiplicity": "M"}]},
    "c": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"},
                           {"id": "b", "ports": {"x": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1e17}, "multiplicity": "M"}]}
  },
  "invocations": [{"id": "p", "task": "p"}, {"id": "c", "task": "c"` + pin + `}],
  "edges": [{"from": "p.y", "to": "c.x"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := graph("")
	errs, err := CheckCosts(g)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, fmt.Sprintf("%d %s %s", e.Index, e.Invocation, e.Alternative))
	}
	if want := []string{"0 p b", "1 c b"}; !slices.Equal(got, want) {
		t.Fatalf("CheckCosts: %q, want %q", got, want)
	}
	want := "planner: invocation p, alternative b: an execution cost of 4.848e+15 ns (1e+16 ns a tile and SM × multiplicity 64 / 132 SMs) is over the planner's limit of 1e+15 ns"
	if errs[0].Error() != want {
		t.Errorf("CheckCosts' first: %v, want %s", errs[0], want)
	}
	if _, err := Plan(context.Background(), g, PlanOptions{}); err == nil || err.Error() != errs[0].Error() {
		t.Errorf("Plan: %v, want %v", err, errs[0])
	}
	errs, err = CheckCosts(graph(`, "pin": ["a"]`))
	if err != nil || len(errs) != 1 || errs[0].Invocation != "p" {
		t.Errorf("with c pinned to a: %v, %v; want p's alternative b alone", errs, err)
	}
	if errs, err := CheckCosts(examples(t)["fanout"]); err != nil || len(errs) != 0 {
		t.Errorf("fanout: %v, %v; want no cost refused", errs, err)
	}
}

// TestNoReduceBreaksVariantTiesTowardPlain: in testdata/graphs/mlp_ties.json
// every conversion inside the kernel is an identity, so each alternative's
// variant whose conversions avoid shared memory costs what the plain one
// does. The whole MILP (--no-reduce) returned such variants, and the report
// said the kernel's budget had no room for their scratch (2,560 of its
// 4,096 bytes used). Ties between the two variants go to the plain one:
// both paths report the same plan, every line but the model's and the
// solve's the same.
func TestNoReduceBreaksVariantTiesTowardPlain(t *testing.T) {
	highstest.Library(t)
	g := mlpTies(t)
	red, redLines := reportLines(t, g, PlanOptions{})
	whole, wholeLines := reportLines(t, g, PlanOptions{Solve: Options{NoReduce: true}})
	for i, c := range whole.Choices {
		if c.NoSharedMemoryConversions || red.Choices[i].NoSharedMemoryConversions {
			t.Errorf("%s: without shared memory (reduced %v, whole %v), where the kernel's budget has room", c.Invocation, red.Choices[i].NoSharedMemoryConversions, c.NoSharedMemoryConversions)
		}
	}
	if diff := cmp.Diff(redLines, wholeLines); diff != "" {
		t.Errorf("the reports differ (-reduced +whole):\n%s", diff)
	}
	// Its 9 tasks have 16 alternatives, none removed; each in the kernel
	// also has a variant without shared memory, which is not another.
	if red.Model.Alternatives != 16 || whole.Model.Alternatives != 16 {
		t.Errorf("alternatives left: reduced %d, whole %d; want the 16 the tasks declare", red.Model.Alternatives, whole.Model.Alternatives)
	}
}

// Two conversions of one kind that differ in cost alone (two loads from
// shared memory into different distributions) read alike: the reason names
// the distributions too. testdata/graphs/mlp_ties.json on sm80.
func TestReasonNamesDistributionsOfLikeConversions(t *testing.T) {
	highstest.Library(t)
	g := mlpTies(t)
	sm80, err := costmodel.BuiltinTarget("sm80")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{Target: sm80})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Choices {
		for _, rj := range c.Rejected {
			if c.Invocation == "store_h" && rj.Alternative == "st_frag" {
				want := "a load of the tile from shared memory (860.7 ns) from a2_smem_mn to acc16 instead of a load of the tile from shared memory (753.1 ns) from a2_smem_mn to blk_mn"
				if !strings.Contains(rj.Reason, want) {
					t.Errorf("store_h's st_frag: %q\nwant it to say %q", rj.Reason, want)
				}
				return
			}
		}
	}
	t.Fatal("store_h did not reject st_frag")
}

// Each boundary names its edge's position in the graph's edges: every
// edge once, the boundary's ends its edge's; and the lookups, Result.EdgeBoundaries
// and Result.Choice, find them.
func TestBoundaryEdgeIndex(t *testing.T) {
	highstest.Library(t)
	for name, g := range examples(t) {
		r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
		if err != nil {
			t.Fatal(err)
		}
		edges := g.Edges()
		seen := make([]bool, len(edges))
		for _, b := range r.Boundaries {
			if b.EdgeIndex < 0 || b.EdgeIndex >= len(edges) || seen[b.EdgeIndex] {
				t.Fatalf("%s: %s: edge index %d out of range or seen before", name, b.Edge, b.EdgeIndex)
			}
			seen[b.EdgeIndex] = true
			e := edges[b.EdgeIndex]
			if want := e.From.Invocation.ID + "." + e.From.Port.Name + " -> " + e.To.Invocation.ID + "." + e.To.Port.Name; b.Edge != want {
				t.Errorf("%s: boundary %s has edge index %d, edge %s", name, b.Edge, b.EdgeIndex, want)
			}
		}
		if len(r.Boundaries) != len(edges) {
			t.Errorf("%s: %d boundaries for %d edges", name, len(r.Boundaries), len(edges))
		}
		// The lookups: by edge index, and by invocation id.
		byEdge := r.EdgeBoundaries()
		if len(byEdge) != len(edges) {
			t.Fatalf("%s: EdgeBoundaries has %d entries for %d edges", name, len(byEdge), len(edges))
		}
		for i, b := range byEdge {
			if b == nil || b.EdgeIndex != i {
				t.Errorf("%s: EdgeBoundaries()[%d] = %v", name, i, b)
			}
		}
		for i, v := range g.Invocations() {
			if c, ok := r.Choice(v.ID); !ok || c != &r.Choices[i] {
				t.Errorf("%s: Choice(%q) = %v, %v; want choice %d", name, v.ID, c, ok, i)
			}
		}
		if c, ok := r.Choice("no such invocation"); ok || c != nil {
			t.Errorf("%s: Choice of an unknown id: %v, %v", name, c, ok)
		}
	}
	if got := (&Result{}).EdgeBoundaries(); len(got) != 0 {
		t.Errorf("EdgeBoundaries of an empty Result: %v", got)
	}
}

// mlpTies is testdata/graphs/mlp_ties.json: GEMM → bias and GELU → GEMM,
// one kernel with a shared-memory budget, a fan-out.
func mlpTies(t *testing.T) *tasks.Graph {
	t.Helper()
	data, err := os.ReadFile("testdata/graphs/mlp_ties.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// An interrupt inside the core's root LP, which HiGHS solves on an inner
// instance without a check (2.8 s of dual simplex on this 700-invocation
// DAG): Plan returns the plan it started HiGHS from, interrupted, rather
// than waiting for the root LP, after which HiGHS would have proved that
// plan optimal and the interrupt would have been lost.
func TestPlanInterruptedInTheRootLP(t *testing.T) {
	highstest.Library(t)
	g := scaledDAG(t, 700, 1, 30)
	cache := NewCache()
	opt := CommandLineOptions()
	opt.NoRegrets = true
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	opt.Progress = func(p Progress) {
		// HiGHS's first report comes before its root LP.
		once.Do(func() { time.AfterFunc(100*time.Millisecond, cancel) })
	}
	r, err := Plan(ctx, g, PlanOptions{Solve: opt, Cache: cache})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Interrupted {
		t.Errorf("status %s, want %s", r.Status, Interrupted)
	}
	if r.Gap <= 0 {
		t.Errorf("gap %v: an interrupted plan proven optimal", r.Gap)
	}
}

// An interrupt while a whole model's kernel is tabulated (contract.go):
// a persistent kernel of 200 layers whose every alternative takes 1 KiB
// of shared memory, under a budget one byte short, takes about a minute
// to contract; cancelled after 2 s, Plan returns without a plan (the
// budget goes to HiGHS as a row, which stops at once) rather than after
// the tabulation.
func TestPlanInterruptedWhileTabulatingAKernel(t *testing.T) {
	highstest.Library(t)
	s, err := taskgen.Transformer(200, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := taskgen.FuseLayersBy(&s, 8192, 200); err != nil {
		t.Fatal(err)
	}
	for name, task := range s.Tasks {
		for i := range task.Alternatives {
			task.Alternatives[i].Resources.SharedMemoryBytes = max(task.Alternatives[i].Resources.SharedMemoryBytes, 1024)
		}
		s.Tasks[name] = task
	}
	s.Groups[0].SharedMemoryBytes = int64(1024*len(s.Groups[0].Invocations) - 1)
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	r, err := Plan(ctx, g, PlanOptions{Solve: Options{NoRegrets: true}})
	switch {
	case err != nil && !errors.Is(err, ErrNoPlan) && !errors.Is(err, ErrInfeasible):
		t.Fatalf("Plan: %v", err)
	case err == nil && r.Status != Interrupted:
		t.Errorf("status %s", r.Status)
	}
	// Not a timing assertion: uninterrupted, the tabulation runs for about
	// a minute (56 s here, 600 s at 600 layers), so a Plan that did not
	// stop it would still be running; stopped, it returns at about 2.3 s.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Plan returned %v after its deadline", d)
	}
}

// A deadline of the context is a time limit to the planner's strategies
// too: on a dense DAG whose core's root LP takes longer than the deadline,
// the large-neighbourhood search gives HiGHS a start better than the local
// choice, as Options.TimeLimit does. Before, a deadline alone left HiGHS
// the local choice, which it improved only to 86 % of its cost in 2 s.
func TestDeadlineStartsTheSearch(t *testing.T) {
	highstest.Library(t)
	g := generatedDAG(t, 300, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, err := Plan(ctx, g, PlanOptions{Solve: Options{NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	// The search's two passes take about 0.3 s here and reach 58 % of the
	// local choice; HiGHS alone from the local choice, 86 % within 2 s. (A
	// plan proven within the deadline would be below it too.)
	if r.LocalChoiceNS == nil || !(r.ObjectiveNS < 0.75**r.LocalChoiceNS) {
		t.Errorf("plan %.1f ns under a deadline, local choice %v: the search did not run", r.ObjectiveNS, *r.LocalChoiceNS)
	}
	if r.Status != Optimal && (r.BoundFrom == "" || r.Gap <= 0) {
		t.Errorf("stopped at the deadline (%s), bound %.1f ns from %q, gap %v", r.Status, r.BoundNS, r.BoundFrom, r.Gap)
	}
}

// An earlier plan starts the solve (PlanOptions.Start): cancelled inside
// HiGHS's root LP, a plan of a dense DAG that starts from a better plan
// found under a time limit comes back at least as good as that plan (HiGHS
// returns its start or better), where from the local choice it came back
// at 86 % of the local choice's cost.
func TestPlanStartsFromAnEarlierPlan(t *testing.T) {
	highstest.Library(t)
	g := generatedDAG(t, 300, 1)
	cache := NewCache()
	earlier, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true, TimeLimit: 2 * time.Second}, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if !(earlier.ObjectiveNS < 0.75**earlier.LocalChoiceNS) {
		t.Fatalf("the earlier plan %.1f ns, local choice %.1f ns: no better start to give", earlier.ObjectiveNS, *earlier.LocalChoiceNS)
	}
	plan := func(start *Result) *Result {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var once sync.Once
		opt := Options{NoRegrets: true}
		opt.Progress = func(Progress) {
			// HiGHS's first report comes before its root LP.
			once.Do(func() { time.AfterFunc(100*time.Millisecond, cancel) })
		}
		r, err := Plan(ctx, g, PlanOptions{Solve: opt, Cache: cache, Start: start})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Stopped or (on a fast enough machine) proven, it is no worse than
	// its start.
	r := plan(earlier)
	if r.ObjectiveNS > earlier.ObjectiveNS*(1+1e-9) {
		t.Errorf("from the earlier plan of %.1f ns, a plan of %.1f ns", earlier.ObjectiveNS, r.ObjectiveNS)
	}
	// Each invocation starts at the alternative the earlier plan named;
	// what a start names that the graph lacks is ignored.
	lw := lowered(t, g)
	for vi, a := range lw.startFrom(earlier) {
		v := lw.invs[vi]
		if a < 0 || v.Task.Alternatives[lw.alts[vi][a].task].ID != earlier.Choices[vi].Alternative {
			t.Fatalf("%s starts at %d, the earlier plan chose %s", v.ID, a, earlier.Choices[vi].Alternative)
		}
	}
	odd := &Result{Choices: []PlanChoice{{Invocation: "no such invocation", Alternative: "a0"},
		{Invocation: g.Invocations()[0].ID, Alternative: "no such alternative"}}}
	for vi, a := range lw.startFrom(odd) {
		if a != -1 {
			t.Errorf("%s starts at %d from a plan that names none of its alternatives", lw.invs[vi].ID, a)
		}
	}
}

// startingPlan takes the caller's plan only where it is feasible and
// better than the local choice, completing it by the local choice.
func TestStartingPlan(t *testing.T) {
	// Two nodes on one edge: a (cost 1, label x) or b (cost 3, label y)
	// each; converting x ↔ y costs 10.
	p := &Problem{
		Nodes: []Node{
			{Name: "u", Alternatives: []Alternative{{ID: "a", Cost: 1}, {ID: "b", Cost: 3}, {ID: "c", Cost: 0, Removed: "pinned"}}},
			{Name: "v", Alternatives: []Alternative{{ID: "a", Cost: 1}, {ID: "b", Cost: 3}}},
		},
		Groups: []Group{{Name: "u→v", Producer: 0, Sources: []string{"x", "y", "y"},
			Consumers: []Consumer{{Node: 1, Targets: []string{"y", "x"}}},
			Pairs:     []Pair{{"x", "x", 0, nil}, {"y", "y", 0, nil}, {"x", "y", 10, nil}, {"y", "x", 10, nil}}}},
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	local := localChoice(p) // a, a: 1 + 1 + 10
	for _, c := range []struct {
		start []int
		want  []int
	}{
		{nil, nil},
		{[]int{-1, -1}, nil},
		{[]int{0, 0}, nil},          // the local choice itself
		{[]int{1, -1}, []int{1, 0}}, // b, a: 3 + 1, completed by the local choice
		{[]int{-1, 1}, []int{0, 1}}, // a, b: 1 + 3
		{[]int{2, 1}, []int{0, 1}},  // c is removed: the local choice's a
		{[]int{1, 1}, nil},          // b, b: 3 + 3 + 10, worse
	} {
		if got := startingPlan(p, local, c.start); !slices.Equal(got, c.want) {
			t.Errorf("start %v: %v, want %v (local choice %v, %v ns)", c.start, got, c.want, local.Choices, local.Cost)
		}
	}
	if _, err := Solve(context.Background(), p, Options{Start: []int{0}}); err == nil {
		t.Error("a start of 1 entry for 2 nodes: no error")
	}
	if _, err := Solve(context.Background(), p, Options{Start: []int{0, 2}}); err == nil {
		t.Error("a start of alternative 2 of a node of 2: no error")
	}
}

// The reasons name the choices a best plan re-plans only where each pinned
// solve is an elimination: not under a kernel's shared-memory budget, which
// each solve would contract again (a persistent kernel of 19 layers, 192
// invocations: 0.5 s to plan, 13 s more for 64 such solves).
func TestReplannedChoicesNotUnderABudget(t *testing.T) {
	highstest.Library(t)
	s, err := taskgen.Transformer(19, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := taskgen.FuseLayersBy(&s, 65536, 19); err != nil {
		t.Fatal(err)
	}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	replanned := 0
	for _, c := range r.Choices {
		for _, rj := range c.Rejected {
			if strings.Contains(rj.Reason, replannedNote[:len(replannedNote)-2]+": ") || strings.Contains(rj.Reason, replannedAlsoAt) {
				t.Fatalf("%s, %s: %s", c.Invocation, rj.Alternative, rj.Reason)
			}
			if strings.Contains(rj.Reason, replannedNote) || strings.HasSuffix(rj.Reason, replannedAlone) {
				replanned++
			}
		}
	}
	if replanned == 0 {
		t.Error("no reason re-plans other choices: the case tests nothing")
	}
}

// The pinned solves that name a reason's re-planned choices run on the
// plan's workers: the report is the same on one worker and on four, and
// names them (a gated layer that may run each task as its own kernel,
// whose reasons re-plan kernel crossings and so need the diamonds' flags).
func TestReplannedChoicesOnAnyWorkers(t *testing.T) {
	highstest.Library(t)
	g := unfusedTransformerOf(t, taskgen.GatedTransformer, 2, 1.5)
	var reports [2]string
	for i, workers := range []int{1, 4} {
		r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{Workers: workers}})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		reports[i] = b.String()
	}
	if !strings.Contains(reports[0], replannedNote[:len(replannedNote)-2]+": ") && !strings.Contains(reports[0], replannedAlsoAt) {
		t.Fatalf("no reason names a re-planned choice: the case tests nothing\n%s", reports[0])
	}
	if diff := cmp.Diff(reports[0], reports[1]); diff != "" {
		t.Errorf("the reports differ (-one worker +four):\n%s", diff)
	}
}

// Under NoReduce the reasons name the re-planned choices as the reduced
// plan's do, where the reduction would dissolve the graph (a dry run says
// so): the dequantize → mma example's reports are the same but for the
// model and solve lines.
func TestReplannedChoicesUnderNoReduce(t *testing.T) {
	highstest.Library(t)
	data, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	text := func(noReduce bool) string {
		_, lines := reportLines(t, g, PlanOptions{Solve: Options{NoReduce: noReduce}})
		return strings.Join(lines, "\n")
	}
	red, whole := text(false), text(true)
	if !strings.Contains(red, replannedNote[:len(replannedNote)-2]+": ") {
		t.Fatalf("the reduced report names no re-planned choice:\n%s", red)
	}
	if diff := cmp.Diff(red, whole); diff != "" {
		t.Errorf("the reports differ (-reduced +whole):\n%s", diff)
	}
}

// reportLines plans g and returns the plan and its text report's lines but
// the model and solve lines, which say how it was solved.
func reportLines(t *testing.T, g *tasks.Graph, opts PlanOptions) (*Result, []string) {
	t.Helper()
	r, err := Plan(context.Background(), g, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if !strings.HasPrefix(l, "model ") && !strings.HasPrefix(l, "solve ") {
			lines = append(lines, l)
		}
	}
	return r, lines
}

// BenchmarkDeadline plans a dense generated DAG under a context deadline
// and reports when Plan returned against it (late_ms, negative when
// early): the solves stop deadlineReserve before it.
//
//	go test ./planner -run '^$' -bench Deadline -benchtime 3x
func BenchmarkDeadline(b *testing.B) {
	for _, n := range []int{300, 1000} {
		g := generatedDAG(b, n, 1)
		for _, d := range []time.Duration{300 * time.Millisecond, time.Second} {
			for _, regrets := range []bool{false, true} {
				b.Run(fmt.Sprintf("nodes=%d/deadline=%v/regrets=%v", n, d, regrets), func(b *testing.B) {
					cache := NewCache()
					late := time.Duration(math.MinInt64)
					for b.Loop() {
						ctx, cancel := context.WithTimeout(context.Background(), d)
						dl, _ := ctx.Deadline()
						if _, err := Plan(ctx, g, PlanOptions{Cache: cache, Solve: Options{NoRegrets: !regrets}}); err != nil {
							b.Fatal(err)
						}
						late = max(late, time.Since(dl))
						cancel()
					}
					b.ReportMetric(float64(late)/1e6, "late_ms")
				})
			}
		}
	}
}

// A near tie, an alternative dearer by less than the tolerance, is a tie
// whose single swap is its best plan: its reason says no re-planning
// (it said "with the other choices re-planned around it, +0 ns").
func TestNearTieNeedsNoReplanning(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/fanout.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	task := spec["tasks"].(map[string]any)["rmsnorm_scale"].(map[string]any)
	alts := task["alternatives"].([]any)
	dup := maps.Clone(alts[1].(map[string]any)) // into_mma_a, the chosen one
	dup["id"] = "dup"
	dup["cost"] = map[string]any{"ns": 2.2000001}
	task["alternatives"] = append(alts, dup)
	data, err = json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := r.Choice("norm")
	if !ok || c.Alternative != "into_mma_a" {
		t.Fatalf("norm chose %+v, want into_mma_a", c)
	}
	for _, rj := range c.Rejected {
		if rj.Alternative != "dup" {
			continue
		}
		if !rj.Tie || rj.RegretNS == nil || *rj.RegretNS != 0 {
			t.Errorf("dup: regret %v tie %v, want a tie", rj.RegretNS, rj.Tie)
		}
		if strings.Contains(rj.Reason, "re-planned") || len(rj.Replanned) > 0 {
			t.Errorf("dup: %q, replanned %v: the swap alone is its best plan", rj.Reason, rj.Replanned)
		}
		return
	}
	t.Fatalf("norm's rejected %+v has no dup", c.Rejected)
}

// A reason of an alternative's variant that keeps its own conversions out
// of shared memory names it among the producers whose conversions the swap
// keeps out too, once: it read "with its conversions in its kernel kept
// out of shared memory: with the conversions out of l0_add1 kept out of
// shared memory: …" (two layers fused under 8 KB, their regrets left
// intervals by one re-solve, so that the variant's reason is given).
func TestVariantReasonSaysItOnce(t *testing.T) {
	highstest.Library(t)
	s, err := taskgen.Transformer(2, 1)
	if err == nil {
		err = taskgen.FuseLayersBy(&s, 8192, 1)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoReduce: true, RegretSolves: 1}})
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, c := range r.Choices {
		for _, rj := range c.Rejected {
			if strings.Count(rj.Reason, "kept out of shared memory") > 1 {
				t.Errorf("%s %s: %q", c.Invocation, rj.Alternative, rj.Reason)
			}
			if rj.RegretLowerNS != nil && rj.RegretNS != nil && *rj.RegretLowerNS >= *rj.RegretNS {
				t.Errorf("%s %s: the interval %v…%v is one value, and not exact", c.Invocation, rj.Alternative, *rj.RegretLowerNS, *rj.RegretNS)
			}
			if strings.HasPrefix(rj.Reason, "with the conversions out of "+c.Invocation+", ") {
				named++
			}
		}
	}
	if named == 0 {
		t.Error("no reason names its own invocation among the producers kept out of shared memory")
	}
}

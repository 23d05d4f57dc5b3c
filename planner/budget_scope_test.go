package planner

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/tasks"
)

// scopeGraph is a fan-out p.y → c.x, p.y → e.x of 64×64 f16 tiles over the
// shared-memory budget example's distributions: p writes blocked_mk, c
// reads cta_a (a cross-warp exchange whose cheapest mechanism takes 8192
// bytes of shared-memory scratch), and e reads eport (another distribution or a
// shared-memory layout). groups is the graph's "groups" value.
func scopeGraph(t *testing.T, eport, groups string) *tasks.Graph {
	t.Helper()
	data, err := os.ReadFile("../examples/graphs/smem_budget.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Distributions map[string]json.RawMessage `json:"distributions"`
	}
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	dists, err := json.Marshal(ex.Distributions)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`{"version": 1, "name": "scope", "target": "h200", "sizes": {"M": 4096, "K": 4096},
  "spaces": {"mk": "(m:64, k:64)"},
  "layouts": {"s_mk": "shared f16 elements align 16: logical(m:64, k:64) -> physical(addr:4096) = (m * 64 + k)"},
  "distributions": %s,
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "mk", "element": "f16"}}, "alternatives": [
      {"id": "pB", "ports": {"y": "blocked_mk"}, "resources": {"shared_memory_bytes": 4096, "threads_per_block": 128}, "cost": {"ns": 10}, "multiplicity": "M/64 * K/64"}]},
    "c": {"ports": {"x": {"direction": "in", "tile": "mk", "element": "f16"}}, "alternatives": [
      {"id": "cA", "ports": {"x": "cta_a"}, "resources": {"shared_memory_bytes": 8192, "threads_per_block": 128}, "cost": {"ns": 10}, "multiplicity": "M/64 * K/64"}]},
    "e": {"ports": {"x": {"direction": "in", "tile": "mk", "element": "f16"}}, "alternatives": [
      {"id": "eX", "ports": {"x": %s}, "resources": {"shared_memory_bytes": 8192, "threads_per_block": 128}, "cost": {"ns": 10}, "multiplicity": "M/64 * K/64"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "c", "task": "c"}, {"id": "e", "task": "e"}],
  "edges": [{"from": "p.y", "to": "c.x"}, {"from": "p.y", "to": "e.x"}],
  "groups": %s}`, dists, eport, groups)
	g, err := tasks.Load([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNoSharedMemoryOnlyInsideTheKernel: a kernel k = {p, c} (or {p, c, e})
// whose budget holds p's and the consumers' own shared memory, and not the
// 8192 bytes of scratch the conversion p.y → c.x takes at its cheapest,
// converts that edge without shared memory. The budget holds the scratch
// of the conversions between two of its invocations only, so p.y → e.x
// keeps its own best conversion: the shared-memory exchange when e is in
// no group, the store into e's shared-memory layout (which takes no
// scratch) in or out of the group. Keeping every conversion out of p out
// of shared memory made the first cost 18.7 µs more than the optimum and
// the others infeasible.
func TestNoSharedMemoryOnlyInsideTheKernel(t *testing.T) {
	highstest.Library(t)
	// The edge to e with e alone, in a graph without budgets: what it
	// costs when nothing constrains it.
	free := func(t *testing.T, eport string) Boundary {
		r, err := Plan(context.Background(), scopeGraph(t, eport, `[]`), PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return boundaryTo(t, r, "e.x")
	}
	for _, c := range []struct {
		name, eport, groups string
		used                float64 // the kernel's shared memory in the plan
	}{
		{"distribution outside the kernel", `"cta_a_rows"`,
			`[{"id": "k", "invocations": ["p", "c"], "shared_memory_bytes": 12288}]`, 12288},
		{"shared layout outside the kernel", `{"layout": "s_mk"}`,
			`[{"id": "k", "invocations": ["p", "c"], "shared_memory_bytes": 12288}]`, 12288},
		{"shared layout inside the kernel", `{"layout": "s_mk"}`,
			`[{"id": "k", "invocations": ["p", "c", "e"], "shared_memory_bytes": 20480}]`, 20480},
	} {
		want := free(t, c.eport)
		for _, noReduce := range []bool{false, true} {
			name := fmt.Sprintf("%s, NoReduce %t", c.name, noReduce)
			r, err := Plan(context.Background(), scopeGraph(t, c.eport, c.groups), PlanOptions{Solve: Options{NoReduce: noReduce}})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got := boundaryTo(t, r, "c.x"); got.Mechanism != "global_memory" {
				t.Errorf("%s: p.y -> c.x by %s, want global_memory (no scratch)", name, got.Mechanism)
			}
			if got := boundaryTo(t, r, "e.x"); got.Mechanism != want.Mechanism || !sameNS(got.CostNS, want.CostNS) {
				t.Errorf("%s: p.y -> e.x by %s for %.6g ns, want %s for %.6g ns as without the kernel",
					name, got.Mechanism, got.CostNS, want.Mechanism, want.CostNS)
			}
			if len(r.Budgets) != 1 || r.Budgets[0].Used != c.used {
				t.Errorf("%s: budgets %+v, want %v used", name, r.Budgets, c.used)
			}
			var sum float64
			for _, ch := range r.Choices {
				sum += ch.CostNS
			}
			for _, b := range r.Boundaries {
				sum += b.CostNS
			}
			if math.Abs(sum-r.ObjectiveNS) > 1e-6*r.ObjectiveNS {
				t.Errorf("%s: objective %v, the parts sum to %v", name, r.ObjectiveNS, sum)
			}
		}
	}
}

func boundaryTo(t *testing.T, r *Result, to string) Boundary {
	t.Helper()
	for _, b := range r.Boundaries {
		if b.To == to {
			return b
		}
	}
	t.Fatalf("no boundary into %s", to)
	return Boundary{}
}

// OutsideBudgets says what a plan keeps in a kernel outside its group's
// budget: e, in no group, reads p's tile by a shared-memory exchange inside
// k's kernel, and takes 8192 bytes of its own; with e in the group, its
// budget holds both, and nothing is said.
func TestOutsideBudgets(t *testing.T) {
	highstest.Library(t)
	g := scopeGraph(t, `"cta_a_rows"`, `[{"id": "k", "invocations": ["p", "c"], "shared_memory_bytes": 12288}]`)
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := boundaryTo(t, r, "e.x")
	if e.Crossing != "in_kernel" || e.Witness == nil || e.Witness.Shared == nil {
		t.Fatalf("p.y -> e.x: %s by %s: the case needs an exchange through shared memory inside the kernel", e.Crossing, e.Mechanism)
	}
	want := []string{fmt.Sprintf("the plan runs e, in no group, in group k's kernel (through p.y -> e.x, inside one kernel): "+
		"k's shared-memory budget (12 KiB of 12 KiB used) does not count its own 8192 bytes of shared memory or the %d bytes of scratch of its conversions there; "+
		"add e to the group, or mark an edge on the way must_cross", e.Witness.Shared.ScratchBytes)}
	if got := OutsideBudgets(g, r); !slices.Equal(got, want) {
		t.Errorf("OutsideBudgets:\n%q\nwant\n%q", got, want)
	}
	inside := scopeGraph(t, `"cta_a_rows"`, `[{"id": "k", "invocations": ["p", "c", "e"], "shared_memory_bytes": 65536}]`)
	r, err = Plan(context.Background(), inside, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := OutsideBudgets(inside, r); len(got) != 0 {
		t.Errorf("e in the group: %q", got)
	}
}

package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/tasks"
)

// kernelOrderGraph is p → m → j beside p → j, in registers throughout:
// p.y → m.x, m.y → j.x2 and p.y → j.x1 each marked must_cross as asked, and
// otherwise kept in one kernel.
func kernelOrderGraph(t *testing.T, mCross, jCross, pjCross bool) *tasks.Graph {
	t.Helper()
	kernel := func(cross bool) string {
		if cross {
			return `, "kernel": "must_cross"`
		}
		return ""
	}
	g, err := tasks.Load([]byte(`{"version": 1, "name": "kernel-order", "target": "h200", "sizes": {"M": 64},
  "spaces": {"t": "(m:16, k:16)"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "mid": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}, "y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x": "mma.m16n8k16.a.f16", "y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "join": {"ports": {"x1": {"direction": "in", "tile": "t", "element": "f16"}, "x2": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x1": "mma.m16n8k16.a.f16", "x2": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "m", "task": "mid"}, {"id": "j", "task": "join"}],
  "edges": [{"from": "p.y", "to": "m.x"` + kernel(mCross) + `}, {"from": "m.y", "to": "j.x2"` + kernel(jCross) + `},
            {"from": "p.y", "to": "j.x1"` + kernel(pjCross) + `}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Edges marked must_cross leave no plan without an order of kernels: an
// edge beside a path that crosses is made to cross too (tasks'
// Edge.CrossedOnPath), so p → j crosses wherever p → m or m → j must.
func TestKernelOrderFromMustCross(t *testing.T) {
	for _, c := range []struct {
		name                   string
		mCross, jCross, pCross bool
		pjCrosses              bool
	}{
		{"p → m crosses", true, false, false, true},
		{"m → j crosses", false, true, false, true},
		{"p → m and m → j cross", true, true, false, true},
		{"every edge a boundary", true, true, true, true},
		{"no boundary", false, false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Plan(context.Background(), kernelOrderGraph(t, c.mCross, c.jCross, c.pCross), PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.KernelConflicts) > 0 {
				t.Errorf("conflicts %q, want none", r.KernelConflicts)
			}
			found := false
			for _, b := range r.Boundaries {
				if b.Edge == "p.y -> j.x1" {
					found = true
					if (b.Crossing == tasks.GlobalRoundTrip.String()) != c.pjCrosses {
						t.Errorf("p.y -> j.x1 crosses %s, want a global round trip %v", b.Crossing, c.pjCrosses)
					}
				}
			}
			if !found {
				t.Errorf("no boundary p.y -> j.x1 in %v", r.Boundaries)
			}
		})
	}
}

// kernelConflictsJSON is p → m → j beside p → j, m with an alternative in
// registers and a cheaper one that writes its tile to global memory.
const kernelConflictsJSON = `{"version": 1, "name": "kernel-order", "target": "h200", "sizes": {"M": 64},
  "spaces": {"t": "(m:16, k:16)"},
  "layouts": {"g": "global f16 elements align 16: logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "mid": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}, "y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "regs", "ports": {"x": "mma.m16n8k16.a.f16", "y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 100000}, "multiplicity": "M"},
                           {"id": "global", "ports": {"x": "mma.m16n8k16.a.f16", "y": {"layout": "g"}}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "join": {"ports": {"x1": {"direction": "in", "tile": "t", "element": "f16"}, "x2": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x1": "mma.m16n8k16.a.f16", "x2": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "m", "task": "mid"}, {"id": "j", "task": "join"}],
  "edges": [{"from": "p.y", "to": "m.x"}, {"from": "m.y", "to": "j.x2"}, {"from": "p.y", "to": "j.x1"}]}`

// A plan whose kernels would have no order is ruled out. Where m's cheaper
// alternative writes its tile to global memory, m → j crosses a kernel
// boundary by the plan's choice while p → m and p → j stay in one kernel:
// p, m and j would be one kernel, running both sides of its own boundary.
// The planner adds a row against it and takes m's costlier alternative,
// saying why the cheaper one lost; without those rounds it warns.
func TestKernelConflicts(t *testing.T) {
	defer func(d time.Duration) { orderMinTime = d }(orderMinTime)
	orderMinTime = time.Hour // exact, however slow the machine
	g, err := tasks.Load([]byte(kernelConflictsJSON))
	if err != nil {
		t.Fatal(err)
	}
	// Kept in an order: m's global alternative is ruled out, and its
	// rejection says why.
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const what = "m.y -> j.x2 crosses a kernel boundary while p.y -> m.x, p.y -> j.x1 stay inside one kernel"
	if len(r.KernelConflicts) > 0 || !slices.Equal(r.KernelOrder, []string{what}) {
		t.Errorf("conflicts %q, kernel order %q; want none and [%q]", r.KernelConflicts, r.KernelOrder, what)
	}
	if m := r.Choices[1]; m.Alternative != "regs" || len(m.Rejected) != 1 || !m.Rejected[0].Infeasible ||
		!strings.HasSuffix(m.Rejected[0].Reason, "no order of kernels runs it: "+what+" (to split the kernel there instead, mark one of p.y -> m.x, p.y -> j.x1 must_cross)") {
		t.Errorf("m: %+v, want regs with global rejected for the kernel order", m)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\nkernels       kept in an order: the cheaper plan where "+what+" has no order of kernels\n") {
		t.Errorf("the text report does not say the kernels were kept in an order:\n%s", text.String())
	}
	// Without the rounds that rule conflicts out, the plan warns.
	defer func(n int) { orderRounds, orderFlags = n, true }(orderRounds)
	orderRounds, orderFlags = 0, false
	r, err = Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "m.y -> j.x2 crosses a kernel boundary, but m and j are in one kernel"
	if len(r.KernelConflicts) == 0 || !strings.Contains(r.KernelConflicts[0], want) {
		t.Errorf("conflicts %q, want one saying %q", r.KernelConflicts, want)
	}
	text.Reset()
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\nkernels       warning: ") {
		t.Errorf("the text report does not warn of the kernels:\n%s", text.String())
	}
	orderRounds = 32
	load := loadHiGHS
	defer func() { loadHiGHS = load }()

	// Without HiGHS the search over the edges' states (ordersearch.go),
	// which needs none, keeps the kernels in an order still. The levels'
	// core needs HiGHS: with the levels alone, the plan found first
	// stands, warned of.
	loadHiGHS = func() (*highs.Library, error) { return nil, fmt.Errorf("planner: %w", &highs.LoadError{}) }
	r, err = Plan(context.Background(), g, PlanOptions{})
	if err != nil || r.Choices[1].Alternative != "regs" || !slices.Equal(r.KernelOrder, []string{what}) || len(r.KernelConflicts) > 0 {
		t.Errorf("without HiGHS: %v, want the plan of regs kept in an order", err)
	}
	solves := orderSearchSolves
	orderSearchSolves = 0
	r, err = Plan(context.Background(), g, PlanOptions{})
	loadHiGHS, orderSearchSolves = load, solves
	if err != nil || r.Choices[1].Alternative != "global" || len(r.KernelOrder) > 0 || len(r.KernelConflicts) == 0 || !strings.Contains(r.KernelConflicts[0], want) {
		t.Errorf("without HiGHS, the levels alone: %v, want the plan of global with its conflict warned of", err)
	} else if rj := r.Choices[1].Rejected; len(rj) == 0 || rj[0].RegretNS == nil || !rj[0].Exact {
		// The first plan's regrets, skipped for the rounds, computed
		// once the plan stands after all.
		t.Errorf("without HiGHS, the levels alone: the plan that stands rejects %+v, want an exact regret", rj)
	}

	// m's alternative in registers over its kernel's budget: no plan has
	// an order of kernels, and the conflict says so.
	tight := strings.Replace(kernelConflictsJSON, `"cost": {"ns": 100000}`, `"cost": {"ns": 100000}, "resources": {"shared_memory_bytes": 8192}`, 1)
	tight = strings.Replace(tight, `"edges":`, `"groups": [{"id": "k", "invocations": ["p", "m", "j"], "shared_memory_bytes": 4096}], "edges":`, 1)
	g, err = tasks.Load([]byte(tight))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Plan(context.Background(), g, PlanOptions{})
	var pe *PlanInfeasibleError
	if !errors.As(err, &pe) || !slices.ContainsFunc(pe.Conflict, func(c string) bool {
		return strings.HasPrefix(c, "the kernel order: no kernel schedule runs a plan where "+what)
	}) {
		t.Errorf("m's registers over budget: %v, want no feasible plan for the kernel order", err)
	}
	// j reading x1 from global memory, pinned so, and m pinned to its
	// registers: p.y -> j.x1 crosses while p.y -> m.x and m.y -> j.x2 stay
	// inside one kernel in every plan (which of the two would split the
	// kernel is not for the load to say), so no plan runs, and the conflict
	// names the row, the pins and the edges to mark. Before, the row was
	// dropped (no choice avoids it) and the plan came back "optimal" with
	// its conflict warned of.
	pinned := strings.Replace(kernelConflictsJSON, `"cost": {"ns": 1}, "multiplicity": "M"}]}},`,
		`"cost": {"ns": 1}, "multiplicity": "M"},
		{"id": "glob", "ports": {"x1": {"layout": "g"}, "x2": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]}},`, 1)
	pinned = strings.Replace(pinned, `{"id": "m", "task": "mid"}, {"id": "j", "task": "join"}`,
		`{"id": "m", "task": "mid", "pin": ["regs"]}, {"id": "j", "task": "join", "pin": ["glob"]}`, 1)
	if g, err = tasks.Load([]byte(pinned)); err != nil {
		t.Fatal(err)
	}
	r, err = Plan(context.Background(), g, PlanOptions{})
	const unavoidable = "the kernel order: no kernel schedule runs a plan where p.y -> j.x1 crosses a kernel boundary while p.y -> m.x, m.y -> j.x2 stay inside one kernel" +
		" (to split the kernel there instead, mark one of p.y -> m.x, m.y -> j.x2 must_cross)"
	if !errors.As(err, &pe) || !slices.Contains(pe.Conflict, unavoidable) ||
		!slices.ContainsFunc(pe.Invocations, func(ic InvocationConflict) bool { return ic.ID == "j" && len(ic.Removed) == 1 }) {
		t.Errorf("j pinned to read global memory, m to registers: %+v, %v; want no feasible plan for the kernel order, with j's pin", r, err)
	}
	for name, g := range examples(t) {
		r, err := Plan(context.Background(), g, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.KernelConflicts) > 0 {
			t.Errorf("example %s: %q", name, r.KernelConflicts)
		}
	}
}

// A round trip between two invocations of one declared group is no
// conflict: an alternative in a group may be a kernel of its own.
func TestKernelConflictsGroupIsNotOneKernel(t *testing.T) {
	g, err := tasks.Load([]byte(`{"version": 1, "name": "group-trip", "target": "h200", "sizes": {"M": 64},
  "spaces": {"t": "(m:16, k:16)"},
  "index_maps": {"rows": "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)"},
  "layouts": {"G": "global f16 elements align 16: rows"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "writes_g", "ports": {"y": {"layout": "G"}}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "c": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "reads_g", "ports": {"x": {"layout": "G"}}, "cost": {"ns": 1}, "multiplicity": "M"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "c", "task": "c"}],
  "edges": [{"from": "p.y", "to": "c.x"}],
  "groups": [{"id": "k", "invocations": ["p", "c"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Boundaries) != 1 || r.Boundaries[0].Crossing != tasks.GlobalRoundTrip.String() {
		t.Fatalf("boundaries %+v, want one round trip", r.Boundaries)
	}
	if len(r.KernelConflicts) > 0 {
		t.Errorf("conflicts %q, want none", r.KernelConflicts)
	}
}

// Two groups are two kernels: a plan that keeps an invocation in no group
// inside one kernel with both (p → m → j, p in group a, j in group b) joins
// them, which the planner does not rule out, so it names it; with m in a
// group, or an edge on the way crossing, there is nothing to name.
func TestKernelConflictsGroupsJoined(t *testing.T) {
	for _, c := range []struct {
		name   string
		groups string
		mCross bool
		want   string
	}{
		{"joined through m", `[{"id": "a", "invocations": ["p"]}, {"id": "b", "invocations": ["j"]}]`, false,
			"groups a and b are two kernels, but the plan keeps p and j in one (joined by p.y -> m.x, m.y -> j.x2, planned inside one kernel)"},
		{"m in a group", `[{"id": "a", "invocations": ["p", "m"]}, {"id": "b", "invocations": ["j"]}]`, false, ""},
		{"p → m crosses", `[{"id": "a", "invocations": ["p"]}, {"id": "b", "invocations": ["j"]}]`, true, ""},
		{"one group", `[{"id": "a", "invocations": ["p", "j"]}]`, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			kernel := ""
			if c.mCross {
				kernel = `, "kernel": "must_cross"`
			}
			g, err := tasks.Load([]byte(`{"version": 1, "target": "h200", "sizes": {"M": 64}, "spaces": {"t": "(m:16, k:16)"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "mid": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}, "y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x": "mma.m16n8k16.a.f16", "y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "join": {"ports": {"x2": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x2": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "m", "task": "mid"}, {"id": "j", "task": "join"}],
  "edges": [{"from": "p.y", "to": "m.x"` + kernel + `}, {"from": "m.y", "to": "j.x2"}],
  "groups": ` + c.groups + `}`))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Plan(context.Background(), g, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if len(r.KernelConflicts) > 0 {
					t.Errorf("conflicts %q, want none", r.KernelConflicts)
				}
				return
			}
			if len(r.KernelConflicts) != 1 || !strings.HasPrefix(r.KernelConflicts[0], c.want) {
				t.Errorf("conflicts %q, want one that begins %q", r.KernelConflicts, c.want)
			}
		})
	}
}

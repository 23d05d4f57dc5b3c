package planner

import (
	"context"
	"strings"
	"testing"

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

// A plan whose kernels have no order says so. p → m crosses a kernel
// boundary while p → j and m → j stay in one kernel: p, m and j are one
// kernel, which would run both sides of its own boundary. With m → j
// crossing too, p and j are one kernel and m another, each before the
// other: a cycle. With p → j crossing as well, every edge is a boundary
// and the kernels run p, m, j in order.
func TestKernelConflicts(t *testing.T) {
	for _, c := range []struct {
		name                   string
		mCross, jCross, pCross bool
		want                   string
	}{
		{"a boundary inside one kernel", true, false, false,
			"p.y -> m.x crosses a kernel boundary, but p and m are in one kernel (joined by p.y -> j.x1, m.y -> j.x2, planned inside one kernel)"},
		{"a cycle of kernels", true, true, false,
			"crosses a kernel boundary from "},
		{"every edge a boundary", true, true, true, ""},
		{"no boundary", false, false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Plan(context.Background(), kernelOrderGraph(t, c.mCross, c.jCross, c.pCross), PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if len(r.KernelConflicts) > 0 {
					t.Errorf("conflicts %q, want none", r.KernelConflicts)
				}
				return
			}
			if len(r.KernelConflicts) == 0 || !strings.Contains(r.KernelConflicts[0], c.want) {
				t.Errorf("conflicts %q, want one saying %q", r.KernelConflicts, c.want)
			}
			var text strings.Builder
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "\nkernels       warning: ") {
				t.Errorf("the text report does not warn of the kernels:\n%s", text.String())
			}
		})
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

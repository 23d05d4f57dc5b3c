package tasks_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// The indexed lookups (Task.Port, Task.Alternative, Invocation.Candidate,
// Graph.GroupOf) answer as a search of the lists they index: on a fused
// transformer whose first invocations are pinned to two alternatives, in
// the task's reverse order, and forbidden one.
func TestLookupsAgreeWithTheLists(t *testing.T) {
	s, err := taskgen.Transformer(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := taskgen.FuseLayers(&s, 1<<20); err != nil {
		t.Fatal(err)
	}
	// The embedding out of its kernel: invocations in no group too.
	s.Groups[0].Invocations = slices.DeleteFunc(s.Groups[0].Invocations, func(id string) bool { return id == "embed" })
	alts := s.Tasks[s.Invocations[0].Task].Alternatives
	s.Invocations[0].Pin = []string{alts[len(alts)-1].ID, alts[1].ID}
	s.Invocations[1].Forbid = []string{s.Tasks[s.Invocations[1].Task].Alternatives[0].ID}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	other, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	candidates, grouped := 0, 0
	for _, v := range g.Invocations() {
		for _, p := range v.Task.Ports {
			if got := v.Task.Port(p.Name); got != p {
				t.Errorf("task %s: Port(%q) = %v, want ports[%d]", v.Task.Name, p.Name, got, p.Index)
			}
		}
		if v.Task.Port("no such port") != nil {
			t.Errorf("task %s: an unknown port found", v.Task.Name)
		}
		for _, a := range v.Task.Alternatives {
			if got := v.Task.Alternative(a.ID); got != a {
				t.Errorf("task %s: Alternative(%q) = %v, want alternatives[%d]", v.Task.Name, a.ID, got, a.Index)
			}
			var want *tasks.Candidate
			for _, c := range v.Candidates {
				if c.Alternative == a {
					want = c
				}
			}
			if got := v.Candidate(a.ID); got != want {
				t.Errorf("%s: Candidate(%q) = %v, want %v", v.ID, a.ID, got, want)
			}
			if want != nil {
				candidates++
			}
		}
		if v.Candidate("no such alternative") != nil || v.Task.Alternative("no such alternative") != nil {
			t.Errorf("%s: an unknown alternative found", v.ID)
		}
		var want *tasks.Group
		for _, gr := range g.Groups() {
			for _, w := range gr.Invocations {
				if w == v {
					want = gr
				}
			}
		}
		if got := g.GroupOf(v); got != want {
			t.Errorf("GroupOf(%s) = %v, want %v", v.ID, got, want)
		}
		if want != nil {
			grouped++
		}
		if got := g.GroupOf(other.Invocation(v.ID)); got != nil {
			t.Errorf("GroupOf(another graph's %s) = group %s, want nil", v.ID, got.ID)
		}
	}
	if g.GroupOf(nil) != nil {
		t.Error("GroupOf(nil) is a group")
	}
	if v0 := g.Invocations()[0]; len(v0.Candidates) != 2 || v0.Candidates[0].Alternative != v0.Task.Alternatives[1] {
		t.Errorf("%s pinned to two alternatives has candidates %v", v0.ID, v0.Candidates)
	}
	if grouped == 0 || grouped == len(g.Invocations()) {
		t.Errorf("%d of %d invocations grouped: the test wants both kinds", grouped, len(g.Invocations()))
	}
	t.Logf("%d candidates, %d invocations in groups", candidates, grouped)
}

// A port declared twice in Go is reported, and the first of the name is
// the one bound: the binding of x matches its tile, not the second's, which
// is left unrealized.
func TestPortDeclaredTwiceBindsTheFirst(t *testing.T) {
	b := tasks.NewBuilder("twice", "h200")
	b.Task("t").In("x", "(m:16, k:16)", storage.F16).In("x", "(k:16, n:8)", storage.F16).
		Alternative("a").Dist("x", "mma.m16n8k16.a.f16", "").CostNS(1)
	b.Invoke("t", "t")
	_, err := b.Build()
	var ps tasks.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Build: %v, want problems", err)
	}
	var got []string
	for _, p := range ps {
		if !p.Warning {
			got = append(got, p.Path.String()+" "+string(p.Code))
		}
	}
	want := []string{"$.tasks.t.alternatives[0].ports missing", "$.tasks.t.ports.x duplicate_name"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %v, want %v (all: %v)", got, want, ps)
	}
}

// Problems at edges name the edge's index in the file, the first with the
// edge's ends, though the graph dropped an edge with a problem before it.
func TestEdgeProblemsNameTheFileIndex(t *testing.T) {
	b := tasks.NewBuilder("edges", "h200")
	b.Task("t").In("x", "(m:16, k:16)", storage.F16).Out("y", "(m:16, k:16)", storage.F16).
		Alternative("a").Dist("x", "mma.m16n8k16.a.f16", "").Dist("y", "mma.m16n8k16.a.f16", "").CostNS(1)
	b.Invoke("i0", "t")
	b.Invoke("i1", "t")
	b.Edge("nowhere.y", "i1.x")
	b.Edge("i1.y", "i1.x")
	b.Edge("i0.y", "i0.x")
	b.Edge("i1.y", "i1.x")
	_, err := b.Build()
	var ps tasks.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Build: %v, want problems", err)
	}
	var got []string
	for _, p := range ps {
		if !p.Warning {
			got = append(got, p.Path.String()+" "+string(p.Code))
		}
	}
	want := []string{"$.edges[0].from unknown_name", "$.edges[1] cycle", "$.edges[2] cycle", "$.edges[3].to fed_twice"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %v, want %v (all: %v)", got, want, ps)
	}
}

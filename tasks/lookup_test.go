package tasks_test

import (
	"testing"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// The indexed lookups (Task.Alternative, Invocation.Candidate,
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

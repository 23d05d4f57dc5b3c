package planner

import (
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// The lowering shares one alternatives slice among the invocations of a
// task whose candidates and costs agree, and only among them: a pin, a
// forbid or other sizes give an invocation alternatives of its own.
func TestLoweringSharesEqualNodesOnly(t *testing.T) {
	s, err := taskgen.Transformer(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]func(*tasks.InvocationSpec){
		"l0_qkv": func(v *tasks.InvocationSpec) { v.Pin = []string{"a1", "a2"} },
		"l1_qkv": func(v *tasks.InvocationSpec) { v.Forbid = []string{"a0"} },
		"l0_up":  func(v *tasks.InvocationSpec) { v.Sizes = map[string]int64{"T": 2048} },
	}
	for i := range s.Invocations {
		if f := own[s.Invocations[i].ID]; f != nil {
			f(&s.Invocations[i])
		}
	}
	data, err := tasks.MarshalSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	lw := lowered(t, g)
	nodes := lw.problem.Nodes
	shared := func(u, v int) bool { return &nodes[u].Alternatives[0] == &nodes[v].Alternatives[0] }
	sameMoves := func(u, v int) bool {
		return slices.EqualFunc(lw.invs[u].Candidates, lw.invs[v].Candidates, func(a, b *tasks.Candidate) bool {
			return a.Alternative == b.Alternative && slices.Equal(a.PortMultiplicity, b.PortMultiplicity)
		})
	}
	for u := range nodes {
		for v := range u {
			if lw.invs[u].Task != lw.invs[v].Task {
				continue
			}
			equal := slices.EqualFunc(nodes[u].Alternatives, nodes[v].Alternatives, func(a, b Alternative) bool {
				return a.ID == b.ID && a.Cost == b.Cost && a.Removed == b.Removed && slices.Equal(a.Uses, b.Uses)
			}) && sameMoves(u, v)
			_, uOwn := own[lw.invs[u].ID]
			_, vOwn := own[lw.invs[v].ID]
			switch {
			case shared(u, v) && !equal:
				t.Errorf("%s and %s share alternatives that differ", lw.invs[u].ID, lw.invs[v].ID)
			case !shared(u, v) && equal:
				t.Errorf("%s and %s have equal alternatives but do not share them", lw.invs[u].ID, lw.invs[v].ID)
			case equal && (uOwn || vOwn):
				t.Errorf("%s and %s: one was changed, yet their alternatives are equal", lw.invs[u].ID, lw.invs[v].ID)
			}
		}
	}
}

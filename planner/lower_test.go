package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/storage"
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

// A binding the graph does not name (a distribution written inline, or
// built in Go) is named in reports by its own name and the start of its
// fingerprint: two blocked distributions of different shapes, both called
// "blocked" by NewBlocked, are told apart, and the same one is named alike
// each time.
func TestBindingNameOfInlineDistributions(t *testing.T) {
	blocked := func(threads []int) *distribution.Distribution {
		t.Helper()
		d, err := distribution.NewBlocked(distribution.Blocked{Shape: []int{32, 32}, SizePerThread: []int{1, 4},
			ThreadsPerWarp: threads, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}, Element: storage.F16})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b := blocked([]int{4, 8}), blocked([]int{8, 4})
	if a.Name() != "blocked" || b.Name() != "blocked" {
		t.Fatalf("names %q and %q", a.Name(), b.Name())
	}
	na, nb := bindingName(&tasks.Binding{Distribution: a}), bindingName(&tasks.Binding{Distribution: b})
	if na == nb || !strings.HasPrefix(na, "blocked#") || !strings.HasPrefix(nb, "blocked#") {
		t.Errorf("two different inline distributions named %q and %q", na, nb)
	}
	if again := bindingName(&tasks.Binding{Distribution: blocked([]int{4, 8})}); again != na {
		t.Errorf("the same distribution named %q, then %q", na, again)
	}
	if got := bindingName(&tasks.Binding{Name: "a_blocked", Distribution: a}); got != "a_blocked" {
		t.Errorf("a binding the graph names: %q", got)
	}
}

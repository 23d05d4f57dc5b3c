package tasks

import (
	"testing"

	"github.com/cklplan/cklplan/storage"
)

// Two fused groups are two kernels: an edge from one to the other must
// cross a kernel boundary (a global round trip) though it declares
// may_share, while an edge inside a group, or to an invocation in no
// group, may share a kernel.
func TestEdgeBetweenGroupsMustCross(t *testing.T) {
	b := NewBuilder("groups", "sm90").Size("M", 64)
	b.Task("p").Out("y", "(m:16, n:8)", storage.F16).
		Alternative("a").Dist("y", "mma.m16n8k16.c.f16", "").CostNS(1)
	b.Task("c").In("x", "(m:16, n:8)", storage.F16).Out("y", "(m:16, n:8)", storage.F16).
		Alternative("a").Dist("x", "mma.m16n8k16.c.f16", "").Dist("y", "mma.m16n8k16.c.f16", "").CostNS(1)
	b.Invoke("p1", "p")
	b.Invoke("c1", "c")
	b.Invoke("c2", "c")
	b.Invoke("c3", "c")
	b.Edge("p1.y", "c1.x") // inside group k1
	b.Edge("c1.y", "c2.x") // k1 → k2
	b.Edge("c2.y", "c3.x") // k2 → no group
	b.Task("s").In("x", "(m:16, n:8)", storage.F16).
		Alternative("a").Dist("x", "mma.m16n8k16.c.f16", "").CostNS(1)
	b.Invoke("s1", "s")
	b.Edge("c3.y", "s1.x")
	b.Group("k1", 0, 0, "p1", "c1")
	b.Group("k2", 0, 0, "c2")
	data, err := MarshalSpec(b.Spec())
	if err != nil {
		t.Fatal(err)
	}
	var pre *Prelude
	g, err := Limits{}.LoadWith(data, func(p *Prelude) { pre = p })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"p1.y -> c1.x": false, "c1.y -> c2.x": true, "c2.y -> c3.x": false, "c3.y -> s1.x": false}
	for _, e := range g.Edges() {
		name := e.From.Invocation.ID + "." + e.From.Port.Name + " -> " + e.To.Invocation.ID + "." + e.To.Port.Name
		if e.Kernel != MayShareKernel {
			t.Errorf("%s: declared %v, want may_share kept", name, e.Kernel)
		}
		if e.MustCross() != want[name] || e.BetweenGroups() != want[name] {
			t.Errorf("%s: MustCross %t, BetweenGroups %t, want %t", name, e.MustCross(), e.BetweenGroups(), want[name])
		}
		a, c := e.From.Invocation.Candidates[0], e.To.Invocation.Candidates[0]
		if got, wantC := e.Crossing(a, c), map[bool]Crossing{true: GlobalRoundTrip, false: InKernel}[want[name]]; got != wantC {
			t.Errorf("%s: crossing %v, want %v", name, got, wantC)
		}
	}
	if s := g.Summary(); s.MustCross != 1 {
		t.Errorf("summary: %d edges must cross, want 1", s.MustCross)
	}
	// The prelude's links say so too: c → c between the groups must
	// cross, p → c inside k1 need not.
	got := map[[2]string]bool{}
	for _, l := range pre.Links() {
		got[[2]string{l.FromTask.Name, l.ToTask.Name}] = got[[2]string{l.FromTask.Name, l.ToTask.Name}] || l.MustCross
	}
	if got[[2]string{"p", "c"}] || !got[[2]string{"c", "c"}] {
		t.Errorf("prelude links: p→c must cross %t (want false), c→c %t (want true)", got[[2]string{"p", "c"}], got[[2]string{"c", "c"}])
	}
}

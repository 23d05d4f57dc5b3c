package taskgen

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/tasks"
)

// ScaleExecution multiplies every alternative's declared cost and changes
// nothing else: the same invocations, edges, distributions and bindings.
func TestScaleExecution(t *testing.T) {
	for _, gen := range []struct {
		name string
		make func() (tasks.Spec, error)
	}{
		{"dag", func() (tasks.Spec, error) { return DAG(30, 4, 2) }},
		{"tree", func() (tasks.Spec, error) { return Tree(30, 2) }},
		{"transformer", func() (tasks.Spec, error) { return Transformer(2, 2) }},
	} {
		t.Run(gen.name, func(t *testing.T) {
			plain, err := gen.make()
			if err != nil {
				t.Fatal(err)
			}
			scaled, err := gen.make()
			if err != nil {
				t.Fatal(err)
			}
			if err := ScaleExecution(&scaled, 30); err != nil {
				t.Fatal(err)
			}
			if scaled.Name != plain.Name+"-exec30" {
				t.Errorf("name %q, want %q", scaled.Name, plain.Name+"-exec30")
			}
			for name, pt := range plain.Tasks {
				st := scaled.Tasks[name]
				for i, a := range pt.Alternatives {
					if got, want := st.Alternatives[i].Cost.NS, 30*a.Cost.NS; math.Abs(got-want) > 1e-9*want {
						t.Errorf("%s.%s: cost %v ns, want 30 × %v", name, a.ID, got, a.Cost.NS)
					}
					st.Alternatives[i].Cost.NS = a.Cost.NS
				}
			}
			scaled.Name = plain.Name
			if !reflect.DeepEqual(plain, scaled) {
				t.Error("scaling changed more than the costs")
			}
		})
	}
	one, err := DAG(10, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	same, _ := DAG(10, 4, 1)
	if err := ScaleExecution(&same, 1); err != nil || !reflect.DeepEqual(one, same) {
		t.Errorf("a factor of 1: %v, changed %v; want the graph unchanged", err, !reflect.DeepEqual(one, same))
	}
	for _, bad := range []float64{0, -2, math.NaN(), math.Inf(1), math.MaxFloat64} {
		s, _ := DAG(10, 4, 1)
		if err := ScaleExecution(&s, bad); err == nil {
			t.Errorf("factor %v: no error", bad)
		}
		if !reflect.DeepEqual(s, one) {
			t.Errorf("factor %v: the graph changed on an error", bad)
		}
	}
}

// Every invocation of a DAG but the first reads at least one input, so no
// DAG has an average degree under 2: degree 1 is refused, not made the
// DAG of degree 2 under another name.
func TestDAGDegreeAtLeastTwo(t *testing.T) {
	if _, err := DAG(10, 1, 1); err == nil || !strings.Contains(err.Error(), "degree ≥ 2") {
		t.Errorf("degree 1: %v, want an error asking for degree ≥ 2", err)
	}
	if _, err := DAG(10, 2, 1); err != nil {
		t.Errorf("degree 2: %v", err)
	}
}

// The figures that "cklplan gen --exec-scale" quotes hold: the generated
// tasks execute in about 1 to 25 ns a tile, their alternatives within ±20 %
// of one another, and a conversion between two of the distributions costs 6
// to 11 ns a tile on h200 (the graphs' target).
func TestExecScaleFigures(t *testing.T) {
	ds, err := Distributions()
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, a := range distNames {
		for _, b := range distNames {
			if a == b {
				continue
			}
			r, err := conversion.Classify(ds[a], ds[b], conversion.Options{})
			if err != nil {
				t.Fatalf("%s -> %s: %v", a, b, err)
			}
			lo, hi = min(lo, r.Cost.NS), max(hi, r.Cost.NS)
		}
	}
	if lo < 6 || hi > 11.5 {
		t.Errorf("conversions cost %.3g to %.3g ns a tile, want 6 to 11", lo, hi)
	}
	for _, gen := range []struct {
		name string
		make func() (tasks.Spec, error)
	}{
		{"transformer", func() (tasks.Spec, error) { return Transformer(20, 1) }},
		{"dag", func() (tasks.Spec, error) { return DAG(200, 4, 1) }},
		{"tree", func() (tasks.Spec, error) { return Tree(200, 1) }},
	} {
		s, err := gen.make()
		if err != nil {
			t.Fatal(err)
		}
		for name, task := range s.Tasks {
			tlo, thi := math.Inf(1), math.Inf(-1)
			for _, a := range task.Alternatives {
				tlo, thi = min(tlo, a.Cost.NS), max(thi, a.Cost.NS)
			}
			if tlo < 0.8 || thi > 25 {
				t.Errorf("%s: task %s executes in %.3g to %.3g ns a tile, want about 1 to 25", gen.name, name, tlo, thi)
			}
			if thi > 1.5*tlo { // 1.2 / 0.8
				t.Errorf("%s: task %s's alternatives cost %.3g to %.3g ns a tile, more than ±20 %% apart", gen.name, name, tlo, thi)
			}
		}
	}
}

// TestFuseLayersBy: kernels of perKernel consecutive layers, the last of
// what is left, each with the budget, named by their layers; the
// embedding in the first, the output's sink in the last (in none, each
// would share its neighbour's kernel outside its budget); one layer a
// kernel is FuseLayers.
func TestFuseLayersBy(t *testing.T) {
	for _, c := range []struct {
		layers, per int
		want        map[string]int // kernel → invocations
	}{
		{5, 2, map[string]int{"layers0_1": 21, "layers2_3": 20, "layers4_4": 11}},
		{3, 3, map[string]int{"layers0_2": 32}},
		{3, 8, map[string]int{"layers0_2": 32}},
		{2, 1, map[string]int{"layer0": 11, "layer1": 11}},
	} {
		s, err := Transformer(c.layers, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := FuseLayersBy(&s, 4096, c.per); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, g := range s.Groups {
			if g.SharedMemoryBytes != 4096 {
				t.Errorf("%d layers by %d: kernel %s has a budget of %d", c.layers, c.per, g.ID, g.SharedMemoryBytes)
			}
			for k, id := range g.Invocations {
				first, last := g.ID == s.Groups[0].ID, g.ID == s.Groups[len(s.Groups)-1].ID
				if !strings.HasPrefix(id, "l") && !(id == "embed" && first && k == 0) && !(id == "out" && last && k == len(g.Invocations)-1) {
					t.Errorf("%d layers by %d: kernel %s holds %s", c.layers, c.per, g.ID, id)
				}
			}
			got[g.ID] = len(g.Invocations)
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("%d layers by %d: kernels %v, want %v", c.layers, c.per, got, c.want)
		}
		g, err := tasks.New(s)
		if err != nil {
			t.Errorf("%d layers by %d: %v", c.layers, c.per, err)
			continue
		}
		// Every invocation that may share a kernel is in its group.
		for _, p := range g.Warnings() {
			if p.Code == tasks.CodeOutsideBudget {
				t.Errorf("%d layers by %d: %s", c.layers, c.per, p.Msg)
			}
		}
	}
	s, _ := Transformer(2, 1)
	if err := FuseLayersBy(&s, 4096, 0); err == nil {
		t.Error("no layer a kernel: no error")
	}
}

// AddUnfused gives each task with ports its unfused alternatives, at the
// factor of its cheapest alternative's cost, with the global layout where
// they say, and keeps every other alternative as it was; the graph loads.
func TestAddUnfused(t *testing.T) {
	plain, err := Transformer(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Transformer(2, 3)
	if err := AddUnfused(&s, 0.5); err != nil {
		t.Fatal(err)
	}
	if s.Name != plain.Name+"-unfused0.5" || s.Layouts["global"] == "" {
		t.Errorf("name %q, layouts %v", s.Name, s.Layouts)
	}
	for name, pt := range plain.Tasks {
		st := s.Tasks[name]
		if !reflect.DeepEqual(st.Alternatives[:len(pt.Alternatives)], pt.Alternatives) {
			t.Errorf("%s: the fused alternatives changed", name)
		}
		added := st.Alternatives[len(pt.Alternatives):]
		var in, out bool
		for _, p := range pt.Ports {
			in, out = in || p.Direction == tasks.In, out || p.Direction == tasks.Out
		}
		want := []string{"unfused"}
		if in && out {
			want = []string{"unfused_in", "unfused_out", "unfused"}
		}
		if len(added) != len(want) {
			t.Fatalf("%s: %d unfused alternatives, want %d", name, len(added), len(want))
		}
		least := math.Inf(1)
		for _, a := range pt.Alternatives {
			least = min(least, a.Cost.NS)
		}
		for k, a := range added {
			if a.ID != want[k] || math.Abs(a.Cost.NS-0.5*least) > 1e-12*least {
				t.Errorf("%s: %s at %v ns, want %s at 0.5 × %v", name, a.ID, a.Cost.NS, want[k], least)
			}
			for _, b := range a.Ports {
				dir := tasks.In
				for _, p := range pt.Ports {
					if p.Name == b.Port {
						dir = p.Direction
					}
				}
				global := a.ID == "unfused" || a.ID == "unfused_in" && dir == tasks.In || a.ID == "unfused_out" && dir == tasks.Out
				if (b.Layout == "global") != global || !global && b.Distribution == "" {
					t.Errorf("%s.%s: port %s bound to %+v", name, a.ID, b.Port, b)
				}
			}
		}
	}
	data, err := tasks.MarshalSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.Load(data); err != nil {
		t.Errorf("the graph does not load: %v", err)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		s, _ := Transformer(1, 1)
		if err := AddUnfused(&s, bad); err == nil {
			t.Errorf("factor %v: no error", bad)
		}
	}
}

// A gated transformer's layer is eleven invocations: its MLP's up and
// gate both read norm2 and meet at mul. Every task it shares with the
// plain transformer costs the same.
func TestGatedTransformer(t *testing.T) {
	plain, err := Transformer(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	gated, err := GatedTransformer(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.New(gated); err != nil {
		t.Fatal(err)
	}
	if n := len(gated.Invocations); n != 2*11+2 {
		t.Errorf("%d invocations, want 24", n)
	}
	for _, e := range [][2]string{{"l1_norm2.y", "l1_up.x"}, {"l1_norm2.y", "l1_gate.x"},
		{"l1_up.y", "l1_mul.x"}, {"l1_gate.y", "l1_mul.g"}, {"l1_mul.y", "l1_down.x"}} {
		if !slices.ContainsFunc(gated.Edges, func(f tasks.EdgeSpec) bool { return f.From == e[0] && f.To == e[1] }) {
			t.Errorf("no edge %s -> %s", e[0], e[1])
		}
	}
	for name, task := range plain.Tasks {
		if name == "act" {
			continue
		}
		for i, a := range task.Alternatives {
			if got := gated.Tasks[name].Alternatives[i].Cost.NS; got != a.Cost.NS {
				t.Errorf("%s's %s costs %v gated, %v plain", name, a.ID, got, a.Cost.NS)
			}
		}
	}
}

package tasks

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// digest writes what a planner reads from a graph: every candidate with its
// evaluated multiplicities and port realizations, every edge with its
// renaming and kernel requirement, the groups and the order.
func digest(g *Graph) string {
	var b strings.Builder
	fmt.Fprintf(&b, "target %s %v\n", g.Target().Name, g.Target().Features)
	for _, v := range g.Invocations() {
		fmt.Fprintf(&b, "invocation %s %s\n", v.ID, v.Task.Name)
		for _, c := range v.Candidates {
			fmt.Fprintf(&b, "  %s x%d ports %v %+v %v\n", c.Alternative.ID, c.Multiplicity, c.PortMultiplicity,
				c.Alternative.Resources, c.Alternative.Requires)
			for _, bd := range c.Alternative.Bindings {
				switch {
				case bd.Distribution != nil:
					fmt.Fprintf(&b, "    %s %q %s loop %q\n", bd.Port.Name, bd.Name, bd.Distribution.Fingerprint(), bd.Loop)
				case bd.Layout != nil:
					fmt.Fprintf(&b, "    %s %q %s\n", bd.Port.Name, bd.Name, bd.Layout)
				}
			}
		}
	}
	for _, e := range g.Edges() {
		fmt.Fprintf(&b, "edge %s.%s -> %s.%s %v %s\n", e.From.Invocation.ID, e.From.Port.Name, e.To.Invocation.ID, e.To.Port.Name, e.Rename, e.Kernel)
	}
	for _, gr := range g.Groups() {
		fmt.Fprintf(&b, "group %s %d %d %d\n", gr.ID, len(gr.Invocations), gr.SharedMemoryBytes, gr.RegistersPerThread)
	}
	for _, v := range g.TopologicalOrder() {
		fmt.Fprintf(&b, "%s ", v.ID)
	}
	fmt.Fprintf(&b, "\nmeasured %v %v\n", g.Measured().Alternatives, g.Measured().Conversions)
	return b.String()
}

// TestMarshalRoundTrip loads every example, marshals it, loads that again and
// checks that both graphs say the same and marshal to the same bytes.
func TestMarshalRoundTrip(t *testing.T) {
	inputs := map[string][]byte{"small": []byte(small)}
	for _, f := range exampleFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = data
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			g1, err := Load(data)
			if err != nil {
				t.Fatal(err)
			}
			out1, err := Marshal(g1)
			if err != nil {
				t.Fatal(err)
			}
			g2, err := Load(out1)
			if err != nil {
				t.Fatalf("the marshalled graph does not load: %v\n%s", err, out1)
			}
			if d := cmp.Diff(digest(g1), digest(g2)); d != "" {
				t.Errorf("the graphs differ (-loaded +reloaded):\n%s", d)
			}
			out2, err := Marshal(g2)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out1, out2) {
				t.Errorf("Marshal is not stable:\n%s", cmp.Diff(string(out1), string(out2)))
			}
		})
	}
}

func FuzzLoad(f *testing.F) {
	// The small graph and its broken variants; the large examples make the
	// instrumented baseline run take most of a short fuzzing budget.
	f.Add([]byte(small))
	data, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, tc := range codeCases {
		if tc.limits == (Limits{}) && tc.build == nil {
			f.Add(tc.data(f))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Limits{FileBytes: 1 << 20, Invocations: 1000, Edges: 1000}.Load(data)
		if err != nil {
			for _, p := range problemsOf(t, err) {
				if p.Code == "" || !strings.HasPrefix(p.Path.String(), "$") || p.Msg == "" {
					t.Fatalf("problem without path, code or message: %q [%s]", p.Error(), p.Code)
				}
			}
			return
		}
		out, err := Marshal(g)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		g2, err := Load(out)
		if err != nil {
			t.Fatalf("the marshalled graph does not load: %v\n%s", err, out)
		}
		if digest(g) != digest(g2) {
			t.Fatalf("the graphs differ:\n%s", cmp.Diff(digest(g), digest(g2)))
		}
	})
}

// FuzzLoadMutated mutates the small graph's value tree where the fuzzer's
// seed says (replacing values by names, numbers and shapes that occur in task
// graphs, deleting members), so that fuzzing reaches validation rather than
// stopping at syntax errors. Properties as FuzzLoad's.
func FuzzLoadMutated(f *testing.F) {
	for _, seed := range []uint64{0, 1, 2, 3, 42, 1 << 40} {
		f.Add(seed, uint8(3))
	}
	replacements := []any{"mma", "scale", "rows", "a", "x", "y", "load_a.a", "mma.lhs", "scale.y", "(m:16, k:16)",
		"mma.m16n8k16.a.f16", "M/16 * K/16", "M * M * M * M * M", "global", "in", "out", "f16", "u4", "must_cross",
		json.Number("0"), json.Number("-1"), json.Number("16"), json.Number("9223372036854775807"), json.Number("1.5"),
		true, nil, []any{}, map[string]any{}, []any{"rows"}, map[string]any{"n": "k"}}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		var g any
		if err := json.Unmarshal([]byte(small), &g); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		for range int(n%8) + 1 {
			g = mutateValue(rng, g, replacements, 0)
		}
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		gr, err := Load(data)
		if err != nil {
			for _, p := range problemsOf(t, err) {
				if p.Code == "" || !strings.HasPrefix(p.Path.String(), "$") || p.Msg == "" {
					t.Fatalf("problem without path, code or message: %q [%s]", p.Error(), p.Code)
				}
			}
			return
		}
		out, err := Marshal(gr)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		g2, err := Load(out)
		if err != nil {
			t.Fatalf("the marshalled graph does not load: %v\n%s", err, out)
		}
		if digest(gr) != digest(g2) {
			t.Fatalf("the graphs differ:\n%s", cmp.Diff(digest(gr), digest(g2)))
		}
	})
}

// mutateValue replaces one value somewhere under v, or deletes a member.
func mutateValue(rng *rand.Rand, v any, replacements []any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 && rng.IntN(4) > 0 {
			keys := slices.Sorted(maps.Keys(x))
			k := keys[rng.IntN(len(keys))]
			if rng.IntN(8) == 0 {
				delete(x, k)
				return x
			}
			x[k] = mutateValue(rng, x[k], replacements, depth+1)
			return x
		}
	case []any:
		if len(x) > 0 && rng.IntN(4) > 0 {
			i := rng.IntN(len(x))
			if rng.IntN(8) == 0 {
				return slices.Delete(x, i, i+1)
			}
			x[i] = mutateValue(rng, x[i], replacements, depth+1)
			return x
		}
	}
	if depth == 0 {
		return v
	}
	// A fresh copy: a replacement mutated later must not be shared.
	var fresh any
	data, _ := json.Marshal(replacements[rng.IntN(len(replacements))])
	_ = json.Unmarshal(data, &fresh)
	return fresh
}

// TestMarshalInline: inline distributions and layouts, port multiplicities,
// loops, renamings, pins, groups, measured costs and per-invocation sizes
// survive Marshal and Load.
func TestMarshalInline(t *testing.T) {
	b := NewBuilder("inline", "sm90").Size("M", 64).Size("K", 64)
	b.Task("p").Out("y", "(m:16, n:16)", storage.F16).
		Alternative("a").InlineDist("y", mustBlockedMN(t), "l").CostNS(1).Multiplicity("M/16 * K/16").
		Resources(Resources{RegistersPerThread: 8, SharedMemoryBytes: 64, ThreadsPerBlock: 32})
	b.Task("c").In("x", "(m:16, k:16)", storage.F16).
		Alternative("g").Bind(BindingSpec{Port: "x", InlineLayout: "global f16 elements align 16: logical(m:16, k:16) -> physical(a:4096) = (m * 64 + k)", Multiplicity: "cdiv(M, 16) * 2"}).
		CostWork(Work{Flops: 10, Bytes: 20, Instruction: "fma_f32"}).Requires("sm_90")
	b.Invoke("p1", "p").Size("K", 128).Pin("a")
	b.Invoke("c1", "c").Forbid()
	b.Edge("p1.y", "c1.x").Rename("n", "k").MustCrossKernel()
	b.Group("k", 1024, 64, "p1")
	b.MeasuredAlternative("p", "a", "p1", 0.25)
	b.MeasuredConversion("mma.m16n8k16.a.f16", "mma.m16n8k16.b.f16", 2)
	b.MeasuredRenamedConversion("mma.m16n8k16.a.f16", "mma.m16n8k16.b.f16", "n=k", 3)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	nk, err := distribution.ParseRename("n=k")
	if err != nil {
		t.Fatal(err)
	}
	if ns, ok := g.Measured().ConversionNS("mma.m16n8k16.a.f16", "mma.m16n8k16.b.f16", nk); !ok || ns != 3 {
		t.Errorf("the renamed conversion measures %v %v, want 3", ns, ok)
	}
	out, err := Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := Load(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d := cmp.Diff(digest(g), digest(g2)); d != "" {
		t.Errorf("round trip (-built +loaded):\n%s", d)
	}
	out2, _ := Marshal(g2)
	if !bytes.Equal(out, out2) {
		t.Errorf("Marshal not stable:\n%s", cmp.Diff(string(out), string(out2)))
	}
	c := g2.Invocation("c1").Candidates[0]
	if c.PortMultiplicity[0] != 8 || c.Multiplicity != 1 || g2.Invocation("p1").Candidates[0].Multiplicity != 32 {
		t.Errorf("multiplicities %d %v %d", c.Multiplicity, c.PortMultiplicity, g2.Invocation("p1").Candidates[0].Multiplicity)
	}
}

func mustBlockedMN(tb testing.TB) *distribution.Distribution {
	d, err := distribution.NewBlocked(distribution.Blocked{Name: "rows_mn", Axes: []string{"m", "n"}, Shape: []int{16, 16},
		SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{16, 2}, WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

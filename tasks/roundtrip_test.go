package tasks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

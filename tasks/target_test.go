package tasks

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// customTargetJSON is the sm80 figure set renamed, with the given features
// and shared memory per block, in the graph's custom-target form.
func customTargetJSON(t *testing.T, features []string, sharedPerBlock float64) map[string]any {
	t.Helper()
	model, err := costmodel.BuiltinTarget("sm80")
	if err != nil {
		t.Fatal(err)
	}
	model, err = model.With("shared_bytes_per_block", costmodel.Figure{Value: sharedPerBlock, Source: "assumed for the test"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := model.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var target map[string]any
	if err := json.Unmarshal(data, &target); err != nil {
		t.Fatal(err)
	}
	target["name"] = "small_gpu"
	fs := []any{}
	for _, f := range features {
		fs = append(fs, f)
	}
	target["features"] = fs
	return target
}

// TestCustomTarget: a custom target's features and figures decide what it
// runs, and it marshals back to an equal graph that the schema accepts.
func TestCustomTarget(t *testing.T) {
	data := edit(t, func(g map[string]any) { g["target"] = customTargetJSON(t, []string{"sm_80", "cp_async"}, 100000) })
	g, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	tg := g.Target()
	if !tg.Custom || tg.Name != "small_gpu" || tg.SharedMemoryPerBlock != 100000 || tg.MaxClusterSize != 1 || !tg.Has("cp_async") || tg.Has("wgmma") {
		t.Errorf("target %+v", tg)
	}
	out, err := Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateSchema(compileSchema(t), out); err != nil {
		t.Errorf("schema: %v", err)
	}
	g2, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if digest(g) != digest(g2) || g2.Target().Model.Get("shared_bytes_per_block") != 100000 {
		t.Errorf("the custom target does not round-trip")
	}

	// An alternative needing more shared memory than the custom target
	// allows, but runnable on the built-in ones, is not an error; if no
	// candidate of an invocation runs on the graph's target, check warns.
	data = edit(t, func(g map[string]any) {
		g["target"] = customTargetJSON(t, []string{"sm_80"}, 100000)
		obj(g, "tasks", "mma", "alternatives", 0, "resources")["shared_memory_bytes"] = 150000
	})
	g, err = Load(data)
	if err != nil {
		t.Fatal(err)
	}
	ws := g.Warnings()
	if len(ws) != 1 || ws[0].Code != CodeUnrunnable || ws[0].Path.String() != "$.invocations[3]" {
		t.Errorf("warnings:%s", describeProblems(ws))
	}
	if ok, why := g.Target().CanRun(g.Task("mma").Alternatives[0]); ok || !strings.Contains(why, "150000 bytes of shared memory, small_gpu allows 100000") {
		t.Errorf("CanRun = %v, %q", ok, why)
	}
}

// TestCustomTargetInGo: a custom target made in Go from another target's
// figures (a built-in one, or a copy With a figure changed) is named like
// the same graph's target loaded from its JSON, where the figures take the
// custom target's name: the planner names plans and costs after
// Model.Name.
func TestCustomTargetInGo(t *testing.T) {
	model, err := costmodel.BuiltinTarget("sm80")
	if err != nil {
		t.Fatal(err)
	}
	model, err = model.With("shared_bytes_per_block", costmodel.Figure{Value: 100000, Source: "assumed for the test"})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder("custom", "").CustomTarget("small_gpu", CustomTarget("small_gpu", []string{"sm_80"}, model)).Size("M", 64)
	b.Task("p").Out("y", "(m:16, n:16)", storage.F16).Alternative("a").InlineDist("y", mustBlockedMN(t), "").CostNS(1).Multiplicity("M/16")
	b.Invoke("p1", "p")
	built, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Marshal(built)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if b, l := built.Target().Model.Name, loaded.Target().Model.Name; b != l || l != "small_gpu" {
		t.Errorf("the target's figures are named %q built in Go, %q loaded from its JSON; want %q", b, l, "small_gpu")
	}
	if model.Name != "sm80" {
		t.Errorf("building the graph renamed the caller's figures to %q", model.Name)
	}
}

func TestCustomTargetProblems(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(target map[string]any)
		path   string
		code   jsonv.Code
	}{
		{"unknown feature", func(tg map[string]any) { tg["features"] = []any{"warp_magic"} }, "$.target.features[0]", jsonv.UnknownName},
		{"built-in name", func(tg map[string]any) { tg["name"] = "h200" }, "$.target.name", jsonv.DuplicateName},
		{"a figure missing", func(tg map[string]any) { delete(obj(tg, "figures"), "clock_ghz") }, "$.target.figures", jsonv.Missing},
		{"a figure without a source", func(tg map[string]any) { delete(obj(tg, "figures", "clock_ghz"), "source") }, "$.target.figures.clock_ghz", jsonv.Missing},
		{"a figure not a number", func(tg map[string]any) { obj(tg, "figures", "clock_ghz")["value"] = "fast" }, "$.target.figures.clock_ghz.value", jsonv.Type},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := edit(t, func(g map[string]any) {
				tg := customTargetJSON(t, []string{"sm_80"}, 100000)
				tc.change(tg)
				g["target"] = tg
			})
			_, err := Load(data)
			ps := problemsOf(t, err)
			found := false
			for _, p := range ps {
				found = found || p.Path.String() == tc.path && p.Code == tc.code
			}
			if !found {
				t.Errorf("want %s [%s], have:%s", tc.path, tc.code, describeProblems(ps))
			}
			// Figures the decoder could not read are not also reported
			// missing.
			for _, p := range ps {
				if p.Code == jsonv.Missing && strings.Contains(p.Msg, "needs the cost model's figures") {
					t.Errorf("%s reported as well:%s", p.Msg, describeProblems(ps))
				}
			}
		})
	}
}

// TestClusterRequirement: a cluster size above 1, or a distribution whose
// blocks form clusters, makes an alternative require the clusters feature,
// so sm80 cannot run it and h200 can.
func TestClusterRequirement(t *testing.T) {
	const clustered = `{"version": 1, "target": "sm80",
	  "distributions": {"pair": {"name": "pair", "element": "f16", "blocks_per_cluster": 2,
	    "executors": [{"name": "block", "size": 2, "level": "block"}, {"name": "lane", "size": 32, "level": "lane"}],
	    "locals": [{"name": "v", "size": 8}], "tile": [{"name": "m", "size": 32}, {"name": "k", "size": 16}],
	    "ownership": {"m": "block * 16 + lane / 2", "k": "lane % 2 * 8 + v"}}},
	  "tasks": {"t": {"ports": {"y": {"direction": "out", "tile": "(m:32, k:16)", "element": "f16"}},
	    "alternatives": [{"id": "by_distribution", "ports": {"y": "pair"}, "cost": {"ns": 1}},
	                     {"id": "by_resources", "ports": {"y": "pair"}, "resources": {"cluster_size": 2}, "requires": ["sm_90"], "cost": {"ns": 1}}]}},
	  "invocations": [{"id": "t", "task": "t"}]}`
	g, err := Load([]byte(clustered))
	if err != nil {
		t.Fatal(err)
	}
	h200, _ := BuiltinTarget("h200")
	for _, a := range g.Task("t").Alternatives {
		if !slices.Contains(a.Requires, "clusters") {
			t.Errorf("%s requires %v, not clusters", a.ID, a.Requires)
		}
		if ok, why := g.Target().CanRun(a); ok || !strings.HasPrefix(why, "sm80 lacks ") || !strings.Contains(why, "clusters") {
			t.Errorf("sm80 CanRun(%s) = %v, %q", a.ID, ok, why)
		}
		if ok, why := h200.CanRun(a); !ok {
			t.Errorf("h200 cannot run %s: %s", a.ID, why)
		}
	}
	if ws := g.Warnings(); !slices.ContainsFunc(ws, func(p *jsonv.Problem) bool { return p.Code == CodeUnrunnable }) {
		t.Errorf("no unrunnable warning:%s", describeProblems(ws))
	}
}

// TestMeasuredFiles checks every measured-costs file of examples/measured
// against the graph of the same name, and that a file's entries override the
// graph's.
func TestMeasuredFiles(t *testing.T) {
	for _, name := range []string{"dequant_mma_n16", "dequant_mma_n4096"} {
		graph, err := os.ReadFile("../examples/graphs/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		costs, err := os.ReadFile("../examples/measured/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		g, err := Load(graph)
		if err != nil {
			t.Fatal(err)
		}
		m, err := DecodeMeasured(costs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		gm, err := g.WithMeasured(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, a := range m.Alternatives {
			c := gm.Invocation(a.Task).Candidate(a.Alternative)
			if ns, ok := gm.Measured().AlternativeNS(c); !ok || ns != a.NS {
				t.Errorf("%s: %s/%s measured %v %v, want %v", name, a.Task, a.Alternative, ns, ok, a.NS)
			}
		}
	}

	// The file's entry replaces the graph's for the same key.
	g, err := Load([]byte(small))
	if err != nil {
		t.Fatal(err)
	}
	m, err := DecodeMeasured([]byte(`{"version": 1, "conversions": [{"source": "rows", "target": "mma.m16n8k16.a.f16", "ns": 7}],
	  "alternatives": [{"task": "scale", "alternative": "frag", "invocation": "scale", "ns": 0.5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	gm, err := g.WithMeasured(m)
	if err != nil {
		t.Fatal(err)
	}
	if ns, ok := gm.Measured().ConversionNS("rows", "mma.m16n8k16.a.f16", nil); !ok || ns != 7 {
		t.Errorf("conversion %v %v, want 7", ns, ok)
	}
	if len(gm.Measured().Conversions) != 1 {
		t.Errorf("conversions %v: the file's entry must replace the graph's", gm.Measured().Conversions)
	}
	if ns, ok := gm.Measured().AlternativeNS(gm.Invocation("scale").Candidate("frag")); !ok || ns != 0.5 {
		t.Errorf("alternative %v %v", ns, ok)
	}

	// The file's problems name the file's paths, whatever the graph
	// measures itself, and an entry the file has twice is one of them: it
	// does not silently replace the first.
	m, err = DecodeMeasured([]byte(`{"version": 1,
	  "conversions": [{"source": "rows", "target": "mma.m16n8k16.a.f16", "ns": 7}, {"source": "colz", "target": "rows", "ns": 2}],
	  "alternatives": [{"task": "scale", "alternative": "frag", "invocation": "scale", "ns": -1},
	                   {"task": "scale", "alternative": "frag", "invocation": "scale", "ns": 2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.WithMeasured(m)
	want := "$.alternatives[0].ns range,$.alternatives[1] duplicate_name,$.conversions[1].source unknown_name"
	if got := problemKeys(t, err); got != want {
		t.Errorf("problems %s, want %s", got, want)
	}

	// LoadMeasured reports the file's every problem at once: a type error
	// does not hide what another entry names that the graph lacks, and an
	// entry with a problem of its own is not also checked against the graph.
	_, err = g.LoadMeasured([]byte(`{"version": 1, "alternatives": [{"task": "scalez", "alternative": "frag", "ns": 1},
	  {"task": "scale", "alternative": "frag", "ns": "1"}], "conversions": [{"source": "rows", "target": "colz", "ns": 2}]}`))
	want = "$.alternatives[0].task unknown_name,$.alternatives[1].ns type,$.conversions[0].target unknown_name"
	if got := problemKeys(t, err); got != want {
		t.Errorf("LoadMeasured problems %s, want %s", got, want)
	}

	// A measured-costs file with problems reports them all.
	_, err = DecodeMeasured([]byte(`{"version": 2, "alternatives": [{"task": "scale", "ns": "1"}], "extra": 1}`))
	want = "$.alternatives[0] missing,$.alternatives[0].ns type,$.extra unknown_field,$.version invalid"
	if got := problemKeys(t, err); got != want {
		t.Errorf("problems %s, want %s", got, want)
	}

	// A file without a version has that one problem, not also version 0.
	_, err = DecodeMeasured([]byte(`{"alternatives": [{"task": "scale", "alternative": "a", "ns": 1}]}`))
	want = "$ missing"
	if got := problemKeys(t, err); got != want {
		t.Errorf("problems %s, want %s", got, want)
	}
}

// TestEdgePairs checks Crossing, Compatible, Moves and Reads on every pair of
// an edge of the dequantize → mma example against the rule of
// docs/format.md, computed here from the bindings.
func TestEdgePairs(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/dequant_mma_n4096.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, e := range g.Edges() {
		for _, a := range e.From.Invocation.Candidates {
			for _, b := range e.To.Invocation.Candidates {
				s, d := e.SourceBinding(a), e.TargetBinding(b)
				global := e.Kernel == MustCrossKernel ||
					s.Layout != nil && s.Layout.Memory() == storage.Global || d.Layout != nil && d.Layout.Memory() == storage.Global
				if (e.Crossing(a, b) == GlobalRoundTrip) != global {
					t.Errorf("%s → %s: crossing %s", a.Alternative.ID, b.Alternative.ID, e.Crossing(a, b))
				}
				compatible := global || s.Loop == "" || d.Loop == "" || s.Loop == d.Loop
				if e.Compatible(a, b) != compatible {
					t.Errorf("%s → %s: compatible %v", a.Alternative.ID, b.Alternative.ID, e.Compatible(a, b))
				}
				if e.Moves(a, b) != a.PortMultiplicity[e.From.Port.Index] || e.Reads(b) != b.PortMultiplicity[e.To.Port.Index] {
					t.Errorf("%s → %s: moves %d reads %d", a.Alternative.ID, b.Alternative.ID, e.Moves(a, b), e.Reads(b))
				}
				pairs++
			}
		}
	}
	// The load inside the GEMM loop cannot feed the standalone
	// dequantization in one kernel, nor the load once per tile a fused one.
	lw, dq := g.Invocation("load_w"), g.Invocation("dequantize")
	e := dq.In[0]
	for _, tc := range []struct {
		load, dequant string
		want          bool
	}{{"ld_in_gemm", "fused_native", true}, {"ld_in_gemm", "standalone", false}, {"ld_once", "fused_blocked", false}, {"ld_once", "standalone", true}} {
		if got := e.Compatible(lw.Candidate(tc.load), dq.Candidate(tc.dequant)); got != tc.want {
			t.Errorf("%s → %s compatible %v, want %v", tc.load, tc.dequant, got, tc.want)
		}
	}
	// At N = 4096 a fused dequantization moves cdiv(N, 64) = 64 times as
	// many tiles as the standalone one.
	mma := g.Invocation("mma")
	e = mma.In[0]
	fused, alone := e.Moves(dq.Candidate("fused_native"), mma.Candidate("a_in_registers")), e.Moves(dq.Candidate("standalone"), mma.Candidate("a_from_global"))
	if fused != 64*alone || alone != 4096/16*16384/16 {
		t.Errorf("moves fused %d, standalone %d", fused, alone)
	}
	if pairs == 0 {
		t.Fatal("no pairs")
	}
	// Fan-out and fan-in as the planner reads them.
	if out := dq.EdgesFrom(dq.Task.Port("a")); len(out) != 1 || out[0] != mma.In[0] {
		t.Errorf("EdgesFrom(dequantize.a) = %v", out)
	}
	if in := mma.EdgeInto(mma.Task.Port("rhs")); in == nil || in.From.Invocation.ID != "load_x" {
		t.Errorf("EdgeInto(mma.rhs) = %v", in)
	}
	if mma.EdgeInto(mma.Task.Port("out")) != nil {
		t.Errorf("an output port has an edge into it")
	}
}

// TestWithTarget: the same graph on sm80 loses the candidates it cannot run
// to a warning, and on h200 gets them back.
func TestWithTarget(t *testing.T) {
	data := edit(t, func(g map[string]any) {
		obj(g, "tasks", "mma", "alternatives", 0)["requires"] = []any{"wgmma"}
	})
	g, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Warnings()) != 0 {
		t.Fatalf("warnings on h200:%s", describeProblems(g.Warnings()))
	}
	sm80, err := g.WithTarget(TargetSpec{Name: "sm80"})
	if err != nil {
		t.Fatal(err)
	}
	if ws := sm80.Warnings(); len(ws) != 1 || ws[0].Code != CodeUnrunnable || sm80.Target().Name != "sm80" {
		t.Errorf("sm80 warnings:%s", describeProblems(ws))
	}
	if g.Target().Name != "h200" {
		t.Errorf("WithTarget changed the original graph")
	}
	if _, err := g.WithTarget(TargetSpec{Name: "sm70"}); err == nil {
		t.Errorf("an unknown target is accepted")
	}
}

// problemKeys lists err's problems as "PATH CODE", comma-separated.
func problemKeys(t *testing.T, err error) string {
	t.Helper()
	var keys []string
	for _, p := range problemsOf(t, err) {
		keys = append(keys, p.Path.String()+" "+string(p.Code))
	}
	return strings.Join(keys, ",")
}

// TestUnusedMeasuredConversion checks that a measured conversion no edge can
// use (a renaming the edges do not have, a pair no edge's realizations
// form) is a warning, at the graph's path or, from a costs file, at the
// file's; one an edge uses is not.
func TestUnusedMeasuredConversion(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/fanout.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if w := g.Warnings(); len(w) != 0 {
		t.Fatalf("fanout.json warns: %v", w)
	}
	gm, err := g.LoadMeasured([]byte(`{"version": 1, "conversions": [
		{"source": "row_blocked_f16", "target": "mma.m16n8k16.a.f16", "ns": 2},
		{"source": "row_blocked_f16", "target": "mma.m16n8k16.a.f16", "rename": "n=k", "ns": 100},
		{"source": "mma.m16n8k16.c.f32", "target": "mma.m16n8k16.a.f16", "ns": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range gm.Warnings() {
		got = append(got, p.Path.String()+" "+string(p.Code)+": "+p.Msg)
	}
	want := []string{
		"$.conversions[1] unused_measurement: no edge joins a producer realized as row_blocked_f16 to a consumer realized as mma.m16n8k16.a.f16 with the renaming n=k: the measurement is never used (edges join them with no renaming)",
		"$.conversions[2] unused_measurement: no edge joins a producer realized as mma.m16n8k16.c.f32 to a consumer realized as mma.m16n8k16.a.f16 with no renaming: the measurement is never used",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A measured conversion only an edge that must cross a kernel, or one whose
// side is a global layout, could use is never used either: a round trip is
// costed by its bytes and its boundary, and the warning says so. One that
// no edge forms at all is warned of plainly: no edge joins the pair.
func TestMeasuredRoundTripIsUnused(t *testing.T) {
	const (
		roundTrip = "no edge that may stay inside one kernel joins a producer realized as %s to a consumer realized as %s with no renaming: the measurement is never used (a round trip through global memory is costed by its bytes and its boundary)"
		noEdge    = "no edge joins a producer realized as %s to a consumer realized as %s with no renaming: the measurement is never used"
		mma       = "mma.m16n8k16.a.f16"
	)
	tests := []struct {
		name      string
		mustCross bool
		want      []string // "PATH: MESSAGE" of each unused_measurement
	}{{
		name:      "the edge must cross",
		mustCross: true,
		want: []string{
			"$.measured.conversions[0]: " + fmt.Sprintf(roundTrip, mma, mma),
			"$.measured.conversions[1]: " + fmt.Sprintf(roundTrip, "G", mma),
			"$.measured.conversions[2]: " + fmt.Sprintf(noEdge, "G", "G"),
		},
	}, {
		name: "the edge may stay inside, the producer's global side may not",
		want: []string{
			"$.measured.conversions[1]: " + fmt.Sprintf(roundTrip, "G", mma),
			"$.measured.conversions[2]: " + fmt.Sprintf(noEdge, "G", "G"),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder("round-trips", "h200").Size("M", 64).
				Space("a_tile", "(m:16, k:16)").
				IndexMap("rows", "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)").
				Layout("G", "global f16 elements align 16: rows")
			p := b.Task("p").Out("y", "a_tile", storage.F16)
			p.Alternative("regs").Dist("y", mma, "").CostNS(1).Multiplicity("M")
			p.Alternative("global").Layout("y", "G").CostNS(1).Multiplicity("M")
			c := b.Task("c").In("x", "a_tile", storage.F16)
			c.Alternative("regs").Dist("x", mma, "").CostNS(1).Multiplicity("M")
			b.Invoke("p", "p")
			b.Invoke("c", "c")
			e := b.Edge("p.y", "c.x")
			if tt.mustCross {
				e.MustCrossKernel()
			}
			b.MeasuredConversion(mma, mma, 1)
			b.MeasuredConversion("G", mma, 1)
			b.MeasuredConversion("G", "G", 1)
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range g.Warnings() {
				if w.Code == CodeUnusedMeasured {
					got = append(got, w.Path.String()+": "+w.Msg)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("unused measurements\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A measured conversion an edge of the graph uses is not said unused when
// another error (a size, a pin) leaves out the edges or candidates that use
// it: of an invalid graph, nobody knows.
func TestUnusedMeasurementOnlyOfValidGraphs(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/fanout.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(data); err != nil {
		t.Fatal(err) // valid, its measurement used: no warning either
	}
	for name, edit := range map[string]func(spec map[string]any){
		"a negative size": func(spec map[string]any) { spec["sizes"].(map[string]any)["T"] = -256 },
		"an unknown pin": func(spec map[string]any) {
			spec["invocations"].([]any)[0].(map[string]any)["pin"] = []any{"nosuch"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(editJSON(t, data, edit))
			var ps jsonv.Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Load: %v, want problems", err)
			}
			for _, p := range ps {
				if p.Code == CodeUnusedMeasured {
					t.Errorf("%s: %s [%s], beside the graph's error", p.Path, p.Msg, p.Code)
				}
			}
		})
	}
}

// TestMeasuredFileReplacesRenamedEntry: a file's measured conversion
// replaces the graph's for the same renaming however either writes it
// (spaces, pair order, pairs that keep a name): they are one key, not an
// entry measured twice.
func TestMeasuredFileReplacesRenamedEntry(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/attention.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	spec["measured"] = map[string]any{"conversions": []any{map[string]any{
		"source": "acc_16x16", "target": "mma.m16n8k16.a.f16", "rename": " m = m , n = k ", "ns": 7}}}
	if data, err = json.Marshal(spec); err != nil {
		t.Fatal(err)
	}
	g, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	gm, err := g.LoadMeasured([]byte(`{"version": 1, "conversions": [
		{"source": "acc_16x16", "target": "mma.m16n8k16.a.f16", "rename": "n=k", "ns": 5}]}`))
	if err != nil {
		t.Fatalf("the file's n=k must replace the graph's \" m = m , n = k \": %v", err)
	}
	if ns, ok := gm.Measured().ConversionNS("acc_16x16", "mma.m16n8k16.a.f16", distribution.Rename{"n": "k"}); !ok || ns != 5 {
		t.Errorf("measured %v %v, want the file's 5", ns, ok)
	}
	if n := len(gm.Measured().Conversions); n != 1 {
		t.Errorf("%d measured conversions, want 1: %v", n, gm.Measured().Conversions)
	}
}

// The target costs were measured on: read from the graph's measured object
// and from a file, the file's replacing the graph's; an empty one, or a file
// naming another than the graph's measured costs, is a problem; one other
// than the graph's target is a warning at its own path.
func TestMeasuredTarget(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	load := func(g *Graph, file string) (*Graph, jsonv.Problems) {
		t.Helper()
		gm, err := g.LoadMeasured([]byte(file))
		var ps jsonv.Problems
		if err != nil && !errors.As(err, &ps) {
			t.Fatalf("%s: %v", file, err)
		}
		if err == nil {
			ps = gm.Warnings()
		}
		return gm, ps
	}
	only := func(ps jsonv.Problems, path string, code jsonv.Code, warning bool) {
		t.Helper()
		if len(ps) != 1 || ps[0].Path.String() != path || ps[0].Code != code || ps[0].Warning != warning {
			t.Errorf("problems %v, want one %s at %s (warning %v)", ps, code, path, warning)
		}
	}

	h200, ps := load(g, `{"version": 1, "target": "h200", "alternatives": [{"task": "mma", "alternative": "a_in_registers", "ns": 2.5}]}`)
	if len(ps) != 0 || h200.Measured().Target != "h200" {
		t.Fatalf("h200's costs on an h200 graph: problems %v, target %q", ps, h200.Measured().Target)
	}
	_, ps = load(g, `{"version": 1, "target": "sm90"}`)
	only(ps, "$.target", CodeMeasuredTarget, true)
	_, ps = load(g, `{"version": 1, "target": " "}`)
	only(ps, "$.target", jsonv.Invalid, false)
	// A file naming another target than the graph's measured costs.
	_, ps = load(h200, `{"version": 1, "target": "sm90"}`)
	if len(ps) == 0 || ps[0].Path.String() != "$.target" || ps[0].Code != jsonv.Invalid || ps[0].Warning {
		t.Errorf("sm90's file over h200's costs: problems %v, want an invalid $.target first", ps)
	}
	// A file without a target keeps the graph's.
	if gm, ps := load(h200, `{"version": 1}`); len(ps) != 0 || gm.Measured().Target != "h200" {
		t.Errorf("a file without a target: problems %v, target %q, want h200's", ps, gm.Measured().Target)
	}

	// In the graph itself: the warning names the graph's path, and the
	// target survives Marshal.
	spec := h200.Spec()
	spec.Measured.Target = "sm80"
	g80, err := Limits{}.build(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	only(g80.Warnings(), "$.measured.target", CodeMeasuredTarget, true)
	out, err := Marshal(g80)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if again.Measured().Target != "sm80" {
		t.Errorf("marshalled and loaded again: target %q, want sm80", again.Measured().Target)
	}

	// Moved to another target, h200's costs stay with their warning;
	// WithoutMeasured drops them, and the graph it was called on keeps
	// them.
	moved, err := h200.WithTarget(TargetSpec{Name: "sm80"})
	if err != nil {
		t.Fatal(err)
	}
	only(moved.Warnings(), "$.measured.target", CodeMeasuredTarget, true)
	bare, err := moved.WithoutMeasured()
	if err != nil {
		t.Fatal(err)
	}
	if len(bare.Warnings()) != 0 || bare.Measured().Target != "" || len(bare.Measured().Alternatives) != 0 || bare.Target().Name != "sm80" {
		t.Errorf("without measured costs: warnings %v, measured %+v, target %s", bare.Warnings(), bare.Measured(), bare.Target().Name)
	}
	if len(moved.Measured().Alternatives) != 1 {
		t.Errorf("WithoutMeasured changed the graph it was called on: %+v", moved.Measured())
	}
}

// TestWithPins: pinning an invocation leaves it the pinned alternatives
// alone, an empty list gives it back every one, the other invocations and
// the original graph are untouched, and what a pin in the JSON can get
// wrong is reported at the invocation's path.
func TestWithPins(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/fanout.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Limits{Invocations: 8}.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(g *Graph, inv string) string {
		var out []string
		for _, c := range g.Invocation(inv).Candidates {
			out = append(out, c.Alternative.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(g, "norm"); got != "in_load_order,into_mma_a" {
		t.Fatalf("norm's candidates: %s", got)
	}
	pinned, err := g.WithPins(map[string][]string{"norm": {"into_mma_a"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(pinned, "norm"); got != "into_mma_a" || !slices.Equal(pinned.Invocation("norm").Pin, []string{"into_mma_a"}) {
		t.Errorf("pinned norm's candidates %s, pin %v", got, pinned.Invocation("norm").Pin)
	}
	if got := ids(g, "norm"); got != "in_load_order,into_mma_a" || g.Invocation("norm").Pin != nil {
		t.Errorf("WithPins changed the original graph: %s, pin %v", got, g.Invocation("norm").Pin)
	}
	if pinned.limits != g.limits || g.limits.Invocations != 8 {
		t.Errorf("limits %+v after WithPins, %+v before", pinned.limits, g.limits)
	}
	unpinned, err := pinned.WithPins(map[string][]string{"norm": nil, "q_proj": {}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(unpinned, "norm"); got != "in_load_order,into_mma_a" || unpinned.Invocation("norm").Pin != nil {
		t.Errorf("an empty pin list left norm %s, pin %v", got, unpinned.Invocation("norm").Pin)
	}
	if _, err := g.WithPins(map[string][]string{"nrom": {"into_mma_a"}}); err == nil ||
		!strings.Contains(err.Error(), `no invocation "nrom"`) || !strings.Contains(err.Error(), "load_x, norm, load_wq") {
		t.Errorf("an unknown invocation: %v", err)
	}
	_, err = g.WithPins(map[string][]string{"norm": {"into_mma_b"}})
	if got := problemKeys(t, err); !strings.Contains(got, "$.invocations[1].pin[0] unknown_name") {
		t.Errorf("an unknown alternative: %s (%v)", got, err)
	}
	// The small graph's scale forbids frag: pinned to it, nothing is left.
	forbidding, err := Load(edit(t, func(g map[string]any) {
		obj(g, "invocations", 1)["forbid"] = []any{"frag"}
	}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = forbidding.WithPins(map[string][]string{"scale": {"frag"}})
	if got := problemKeys(t, err); !strings.Contains(got, "$.invocations[1] pin") {
		t.Errorf("a pin its forbid leaves nothing of: %s (%v)", got, err)
	}
}

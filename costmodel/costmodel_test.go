package costmodel

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/internal/jsonv"
)

func builtinTarget(t *testing.T, name string) *Target {
	t.Helper()
	tg, err := BuiltinTarget(name)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// Every built-in target has every figure, positive, with a source, and its
// JSON form reads back to the same table.
func TestBuiltinTargets(t *testing.T) {
	for _, name := range TargetNames() {
		tg := builtinTarget(t, name)
		if err := tg.check(); err != nil {
			t.Error(err)
		}
		data, err := json.Marshal(tg)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeTarget(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, k := range FigureKeys {
			if back.Figures[k.Key] != tg.Figures[k.Key] {
				t.Errorf("%s %s: %+v reads back as %+v", name, k.Key, tg.Figures[k.Key], back.Figures[k.Key])
			}
		}
	}
	h := builtinTarget(t, "h200")
	if h.Get("sm_count") != 132 || h.Get("hbm_gb_per_s") != 4800 {
		t.Errorf("h200: %v SMs, %v GB/s", h.Get("sm_count"), h.Get("hbm_gb_per_s"))
	}
	if _, err := BuiltinTarget("sm100"); err == nil {
		t.Error("BuiltinTarget(sm100) did not fail")
	}
}

// A target with several mistakes reports every one, at its path, with its
// code.
func TestDecodeTargetErrors(t *testing.T) {
	h := builtinTarget(t, "h200")
	var figs []string
	for _, k := range FigureKeys {
		f := h.Figures[k.Key]
		switch k.Key {
		case "sm_count":
			continue // missing
		case "clock_ghz":
			figs = append(figs, `"clock_ghz": {"value": -1, "source": "x"}`)
		case "hbm_gb_per_s":
			figs = append(figs, `"hbm_gb_per_s": {"value": 4800, "source": ""}`)
		case "barrier_cycles":
			figs = append(figs, `"barrier_cycles": {"value": "24", "source": "x", "unit": "cycles"}`)
		default:
			data, _ := json.Marshal(f)
			figs = append(figs, `"`+k.Key+`": `+string(data))
		}
	}
	doc := `{"name": "bad", "colour": 1, "figures": {` + strings.Join(figs, ", ") + `, "warp_size": {"value": 32, "source": "x"}}}`
	_, err := DecodeTarget([]byte(doc))
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v is not jsonv.Problems", err)
	}
	want := []struct {
		path string
		code jsonv.Code
	}{
		{"$", jsonv.UnknownField},
		{"$.figures", jsonv.Missing},
		{"$.figures.barrier_cycles.unit", jsonv.UnknownField},
		{"$.figures.barrier_cycles.value", jsonv.Type},
		{"$.figures.clock_ghz.value", jsonv.Range},
		{"$.figures.hbm_gb_per_s.source", jsonv.Invalid},
		{"$.figures.warp_size", jsonv.UnknownField},
	}
	got := map[string]bool{}
	for _, p := range ps {
		got[p.Path.String()+" "+string(p.Code)] = true
	}
	for _, w := range want {
		path := w.path
		if w.code == jsonv.UnknownField && path == "$" {
			path = "$.colour"
		}
		if !got[path+" "+string(w.code)] {
			t.Errorf("no %s problem at %s in:\n%v", w.code, path, err)
		}
	}
	if len(ps) != len(want) {
		t.Errorf("%d problems, want %d:\n%v", len(ps), len(want), err)
	}
}

// The latency by its definition: the throughput cost plus the dependent
// chain (per shuffle round, the shuffle's latency and one ALU latency per
// step of the warp's share of selects) and each other stage once.
func TestConversionLatency(t *testing.T) {
	tg := builtinTarget(t, "h200")
	clock := tg.Get("clock_ghz")
	alu, shfl := tg.Get("alu_latency_cycles"), tg.Get("shuffle_latency_cycles")
	shared, dsmem := tg.Get("shared_latency_cycles"), tg.Get("dsmem_latency_cycles")
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	cases := []struct {
		m      Movement
		cycles float64 // what the latency adds to the throughput cost
	}{
		// One warp, 28 selects over 4 rounds: 7 dependent steps a round.
		{Movement{ALU: 28, Shuffles: 4, ShuffleRounds: 4}, 4 * (shfl + 7*alu)},
		// Two warps of 4 rounds share 30 selects: 15 each, ⌈15/4⌉ = 4 steps a round.
		{Movement{ALU: 30, Shuffles: 8, ShuffleRounds: 4}, 4 * (shfl + 4*alu)},
		// cvt instructions join the chain: ⌈(2+3)/3⌉ = 2 steps a round.
		{Movement{ALU: 2, Cvt: 3, Shuffles: 3, ShuffleRounds: 3}, 3 * (shfl + 2*alu)},
		// Shuffles alone: the rounds' latencies.
		{Movement{Shuffles: 5, ShuffleRounds: 5}, 5 * shfl},
		// Without shuffles the selects are independent: one ALU latency.
		{Movement{ALU: 64, SharedAccesses: 4, SharedWavefronts: 4}, alu + 2*shared},
		// A remote store and a remote load each pay one round trip.
		{Movement{SharedAccesses: 1, RemoteAccesses: 1, RemoteBytes: 128}, 2*shared + dsmem},
		{Movement{SharedAccesses: 1, RemoteAccesses: 1, RemoteLoads: 1, RemoteBytes: 128}, 2*shared + dsmem},
	}
	for _, tc := range cases {
		c := tg.ConversionFormula(tc.m)
		if want := c.NS + tc.cycles/clock; !near(c.LatencyNS, want) {
			t.Errorf("%+v: latency %v ns, want %v (cost %v + %v cycles)", tc.m, c.LatencyNS, want, c.NS, tc.cycles)
		}
	}
	// More selects between the same rounds never wait less.
	for a := 0; a < 64; a++ {
		m, more := Movement{ALU: a, Shuffles: 4, ShuffleRounds: 4}, Movement{ALU: a + 1, Shuffles: 4, ShuffleRounds: 4}
		if tg.ConversionFormula(more).LatencyNS < tg.ConversionFormula(m).LatencyNS {
			t.Errorf("%d selects wait less than %d", a+1, a)
		}
	}
}

// The formula by its definition: each pipe alone, then the maximum.
func TestConversionFormula(t *testing.T) {
	tg := builtinTarget(t, "h200")
	clock := tg.Get("clock_ghz")
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	cases := []struct {
		m    Movement
		want float64
	}{
		{Movement{Shuffles: 8}, max(8/tg.Get("warp_issue_per_clock"), 32*8/tg.Get("shuffle_lanes_per_clock")) / clock},
		{Movement{Cvt: 4}, max(4/tg.Get("warp_issue_per_clock"), 32*4/tg.Get("cvt_lanes_per_clock")) / clock},
		{Movement{SharedAccesses: 2, SharedWavefronts: 64, Barriers: 2}, (max(2/tg.Get("warp_issue_per_clock"), 128*64/tg.Get("shared_bytes_per_clock")) + 2*tg.Get("barrier_cycles")) / clock},
		{Movement{GlobalBytes: 1 << 20, Launches: 1}, (1<<20)/(tg.Get("hbm_gb_per_s")/tg.Get("sm_count")) + tg.Get("launch_overhead_ns")},
	}
	for _, tc := range cases {
		c := tg.ConversionFormula(tc.m)
		if !near(c.NS, tc.want) || c.Origin != Formula || c.LatencyNS < c.NS {
			t.Errorf("%+v: %+v, want %v ns", tc.m, c, tc.want)
		}
	}
	// More of anything never costs less.
	base := Movement{ALU: 10, Cvt: 4, Shuffles: 4, SharedAccesses: 8, SharedWavefronts: 16, Barriers: 1}
	more := base
	more.SharedWavefronts *= 4
	if tg.ConversionFormula(more).NS < tg.ConversionFormula(base).NS {
		t.Error("more wavefronts cost less")
	}
}

func TestMeasurementsOverride(t *testing.T) {
	tg := builtinTarget(t, "h200")
	ms, err := DecodeMeasurements([]byte(`{"target": "h200",
	  "pairs": [{"src": "sha256:a", "dst": "sha256:b", "mechanism": "warp_shuffle", "cost_ns": 9.5, "latency_ns": 40, "source": "run 1"}],
	  "sizes": [{"class": "shared_memory", "bytes": 4096, "cost_ns": 100, "latency_ns": 300},
	            {"mechanism": "shared_memory", "bytes": 2048, "cost_ns": 60, "latency_ns": 200}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := Model{Target: tg, Measured: ms}
	key := ConversionKey{Src: "sha256:a", Dst: "sha256:b"}
	if c := m.Conversion(key, Movement{Mechanism: "warp_shuffle", Shuffles: 4}); c.Origin != Measured || c.NS != 9.5 || c.LatencyNS != 40 {
		t.Errorf("pair: %+v", c)
	}
	if c := m.Conversion(key, Movement{Mechanism: "shared_memory", Bytes: 3072}); c.Origin != Measured || c.NS != (60+100)/2.0 || c.LatencyNS != (200+300)/2.0 {
		t.Errorf("midway: %+v", c)
	}
	if c := m.Conversion(key, Movement{Mechanism: "shared_memory", Bytes: 2048}); c.Origin != Measured || c.NS != 60 {
		t.Errorf("exact size: %+v", c)
	}
	mv := Movement{Mechanism: "shared_memory", Bytes: 8192, SharedWavefronts: 64}
	if c := m.Conversion(key, mv); c.Origin != Formula || c.NS != tg.ConversionFormula(mv).NS {
		t.Errorf("outside the sizes measured: %+v", c)
	}
	_, err = DecodeMeasurements([]byte(`{"target": "h200", "pairs": [{"src": "a", "cost_ns": -1}],
	  "sizes": [{"mechanism": "shared_memory", "bytes": 0, "cost_ns": 1}, {"mechanism": "shared_memory", "bytes": 0, "cost_ns": 2},
	            {"mechanism": "warp_shuffle", "class": "warp_shuffle", "bytes": 8, "cost_ns": 2}]}`))
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v", err)
	}
	for _, w := range []string{`$.pairs[0]: missing "dst"`, `$.pairs[0]: missing "mechanism"`, "$.pairs[0].cost_ns: -1 ns", "$.sizes[0].bytes: 0 bytes", "$.sizes[1]: shared_memory at 0 bytes is measured twice", `$.sizes[2]: give "mechanism" or "class", not both`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("no %q in:\n%v", w, err)
		}
	}
}

func TestExecution(t *testing.T) {
	tg := builtinTarget(t, "h200")
	c, err := tg.Execution(Work{DeclaredNS: 1200})
	if err != nil || c.Origin != Declared || c.NS != 1200 {
		t.Errorf("declared: %+v %v", c, err)
	}
	// 2·M·N·K flops of a 4096³ f16 GEMM: compute-bound.
	flops := 2.0 * 4096 * 4096 * 4096
	bytes := 3.0 * 4096 * 4096 * 2
	c, err = tg.Execution(Work{Flops: flops, Bytes: bytes, Instruction: TensorF16})
	if want := flops / (tg.Get("f16_tensor_tflops") * 1e3); err != nil || c.Origin != Formula || c.NS != want || !strings.Contains(c.Detail, "compute-bound") {
		t.Errorf("gemm: %+v %v, want %v ns", c, err, want)
	}
	// A copy: memory-bound.
	c, err = tg.Execution(Work{Bytes: 1e9})
	if want := 1e9 / tg.Get("hbm_gb_per_s"); err != nil || c.NS != want || !strings.Contains(c.Detail, "memory-bound") {
		t.Errorf("copy: %+v %v, want %v", c, err, want)
	}
	for _, bad := range []Work{{DeclaredNS: -1}, {Flops: 1}, {Flops: 1, Instruction: "fp4"}, {Bytes: -1}} {
		if _, err := tg.Execution(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestOrigin(t *testing.T) {
	for _, o := range []Origin{Declared, Measured, Formula} {
		back, err := ParseOrigin(o.String())
		if err != nil || back != o {
			t.Errorf("%v: %v %v", o, back, err)
		}
	}
	if _, err := ParseOrigin("guessed"); err == nil {
		t.Error("ParseOrigin(guessed)")
	}
}

func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{"declared", "measured", "formula", "", "Formula"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOrigin(s)
		if err == nil && o.String() != s {
			t.Fatalf("ParseOrigin(%q) prints as %q", s, o)
		}
	})
}

func FuzzDecodeTarget(f *testing.F) {
	h, _ := BuiltinTarget("h200")
	data, _ := json.Marshal(h)
	f.Add(data)
	f.Add([]byte(`{"name": "x", "figures": {}}`))
	f.Add([]byte(`[1`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tg, err := DecodeTarget(data)
		if err != nil {
			return
		}
		if err := tg.check(); err != nil {
			t.Fatalf("decoded an invalid target: %v", err)
		}
	})
}

// A built-in target is a copy: changing one does not change the next.
func TestBuiltinTargetIsACopy(t *testing.T) {
	a := builtinTarget(t, "h200")
	a.Figures["sm_count"] = Figure{Value: 1, Source: "x"}
	if b := builtinTarget(t, "h200"); b.Get("sm_count") != 132 {
		t.Errorf("the cached target changed: %v SMs", b.Get("sm_count"))
	}
	c, err := a.With("clock_ghz", Figure{Value: 1.5, Source: "fit"})
	if err != nil || c.Get("clock_ghz") != 1.5 || a.Get("clock_ghz") != 1.98 {
		t.Errorf("With: %v, %v GHz, original %v GHz", err, c.Get("clock_ghz"), a.Get("clock_ghz"))
	}
	if _, err := a.With("warp_size", Figure{Value: 32, Source: "x"}); err == nil {
		t.Error("With an unknown figure")
	}
	if _, err := a.With("clock_ghz", Figure{Value: -1, Source: "x"}); err == nil {
		t.Error("With a negative clock")
	}
}

// TestMeasuredPairRenaming: a pair's renaming is one key however the table
// writes it (pair order, spaces, pairs that keep a name), as Classify keys a
// conversion by the renaming's canonical form (sorted by source axis); a
// renaming that is not one is a problem at its path, and so is a pair
// measured twice for one mechanism, as a size is.
func TestMeasuredPairRenaming(t *testing.T) {
	ms, err := DecodeMeasurements([]byte(`{"target": "h200", "pairs": [
	  {"src": "sha256:a", "dst": "sha256:b", "rename": " row = k , col = m , v = v", "mechanism": "warp_shuffle", "cost_ns": 9.5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := Model{Target: builtinTarget(t, "h200"), Measured: ms}
	key := ConversionKey{Src: "sha256:a", Dst: "sha256:b", Rename: "col=m,row=k"}
	if c := m.Conversion(key, Movement{Mechanism: "warp_shuffle", Shuffles: 4}); c.Origin != Measured || c.NS != 9.5 {
		t.Errorf("pair renamed row=k,col=m looked up as col=m,row=k: %+v", c)
	}
	// A table built in Go is looked up the same way.
	m.Measured = &Measurements{Target: "h200", Pairs: []PairMeasurement{{Key: ConversionKey{Src: "sha256:a", Dst: "sha256:b", Rename: "row=k,col=m"}, Mechanism: "warp_shuffle", CostNS: 3}}}
	if c := m.Conversion(key, Movement{Mechanism: "warp_shuffle", Shuffles: 4}); c.Origin != Measured || c.NS != 3 {
		t.Errorf("Go table: %+v", c)
	}

	_, err = DecodeMeasurements([]byte(`{"target": "h200", "pairs": [
	  {"src": "sha256:a", "dst": "sha256:b", "rename": "row", "mechanism": "warp_shuffle", "cost_ns": 1},
	  {"src": "sha256:a", "dst": "sha256:b", "rename": "n=k,n=m", "mechanism": "warp_shuffle", "cost_ns": 1},
	  {"src": "sha256:a", "dst": "sha256:b", "rename": "n=k", "mechanism": "warp_shuffle", "cost_ns": 1},
	  {"src": "sha256:a", "dst": "sha256:b", "rename": "n = k", "mechanism": "warp_shuffle", "cost_ns": 2},
	  {"src": "sha256:a", "dst": "sha256:b", "rename": "n=k", "mechanism": "shared_memory", "cost_ns": 2}]}`))
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v", err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Path.String()+" "+string(p.Code))
	}
	want := []string{"$.pairs[0].rename invalid", "$.pairs[1].rename invalid", "$.pairs[3] duplicate_name"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %v, want %v:\n%v", got, want, err)
	}
}

// TestMeasurementsForTarget: a table measured on one target is not another
// target's: Model.Conversion applies it only on the target it names, and
// CheckTarget says why not.
func TestMeasurementsForTarget(t *testing.T) {
	ms := &Measurements{Target: "sm80", Sizes: []SizeMeasurement{{Mechanism: "warp_shuffle", Bytes: 256, CostNS: 2}}}
	h200 := builtinTarget(t, "h200")
	mv := Movement{Mechanism: "warp_shuffle", Bytes: 256, Shuffles: 4}
	if c := (Model{Target: h200, Measured: ms}).Conversion(ConversionKey{}, mv); c.Origin != Formula || c.NS != h200.ConversionFormula(mv).NS {
		t.Errorf("sm80's measurement costed a conversion on h200: %+v", c)
	}
	if err := ms.CheckTarget(h200); err == nil || !strings.Contains(err.Error(), `measured on "sm80", not on "h200"`) {
		t.Errorf("CheckTarget(h200) = %v", err)
	}
	sm80 := builtinTarget(t, "sm80")
	if c := (Model{Target: sm80, Measured: ms}).Conversion(ConversionKey{}, mv); c.Origin != Measured || c.NS != 2 {
		t.Errorf("on sm80: %+v", c)
	}
	if err := ms.CheckTarget(sm80); err != nil {
		t.Error(err)
	}
	if err := (*Measurements)(nil).CheckTarget(h200); err != nil {
		t.Error(err)
	}
}

package costmodel

import (
	"embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/cklplan/cklplan/internal/jsonv"
)

// A Target is a GPU as the cost formulas see it: a table of figures, each
// with its source. The built-in targets are data (targets/*.json), so that a
// calibration refits the numbers without touching the formulas.
type Target struct {
	Name        string
	Description string
	// Figures holds every figure of FigureKeys by key.
	Figures map[string]Figure
}

// A Figure is one number of a target and where it comes from: a datasheet or
// guide by title, a measurement, or "assumed" with the reason.
type Figure struct {
	Value  float64 `json:"value"`
	Source string  `json:"source"`
}

// A FigureKey describes one figure every target has.
type FigureKey struct {
	Key  string
	Unit string
	// Zero says whether 0 is allowed (sm_80 has no distributed shared
	// memory); every figure is otherwise positive.
	Zero bool
	Doc  string
	// Default, when set, is the figure whose value a target that leaves
	// this one out takes (a figure added after targets were written).
	Default string
}

// The figures of a target, in the order the JSON form and reports list them.
var FigureKeys = []FigureKey{
	{"sm_count", "SMs", false, "streaming multiprocessors", ""},
	{"clock_ghz", "GHz", false, "SM clock under load", ""},
	{"shared_bytes_per_sm", "bytes", false, "shared memory per SM", ""},
	{"shared_bytes_per_block", "bytes", false, "shared memory one block may allocate", ""},
	{"max_cluster_blocks", "blocks", false, "largest portable thread-block cluster (1: no clusters)", ""},
	{"warp_issue_per_clock", "warp instructions/clock/SM", false, "instruction issue: one per scheduler per clock", ""},
	{"alu_lanes_per_clock", "results/clock/SM", false, "prmt, selp, lop3, shifts", ""},
	{"cvt_lanes_per_clock", "results/clock/SM", false, "type conversions (cvt)", ""},
	{"shuffle_lanes_per_clock", "results/clock/SM", false, "warp shuffles (shfl.sync)", ""},
	{"shared_bytes_per_clock", "bytes/clock/SM", false, "shared memory: one 128-byte wavefront per clock", ""},
	{"dsmem_bytes_per_clock", "bytes/clock/SM", true, "distributed shared memory, to or from other SMs of the cluster", ""},
	{"hbm_gb_per_s", "GB/s", false, "device memory bandwidth, all SMs together", ""},
	{"f16_tensor_tflops", "TFLOP/s", false, "dense f16 tensor-core peak, f32 accumulate", ""},
	{"mma_sync_f16_tflops", "TFLOP/s", false, "dense f16 peak of mma.sync, f32 accumulate (below the tensor-core peak where wgmma reaches it)", "f16_tensor_tflops"},
	{"f32_tflops", "TFLOP/s", false, "f32 FMA peak without tensor cores", ""},
	{"alu_latency_cycles", "cycles", false, "dependent ALU instruction", ""},
	{"shuffle_latency_cycles", "cycles", false, "shfl.sync, issue to result", ""},
	{"shared_latency_cycles", "cycles", false, "shared-memory load, issue to result", ""},
	{"barrier_cycles", "cycles", false, "bar.sync of one block with its warps arrived", ""},
	{"cluster_barrier_cycles", "cycles", true, "barrier.cluster arrive and wait", ""},
	{"dsmem_latency_cycles", "cycles", true, "load from another SM's shared memory", ""},
	{"global_latency_cycles", "cycles", false, "global load that misses in L1", ""},
	{"launch_overhead_ns", "ns", false, "a kernel boundary: launch and drain", ""},
}

// countFigures are the figures that count whole things (SMs, bytes,
// blocks): the planner and the targets' limits take them as integers, so
// each is a whole number of at most maxCount (exact in a float64 and in an
// int64).
var countFigures = map[string]bool{"sm_count": true, "shared_bytes_per_sm": true, "shared_bytes_per_block": true, "max_cluster_blocks": true}

const maxCount = 1 << 53

// notCount reports whether v is not a value a count figure may take.
func notCount(key string, v float64) bool {
	return countFigures[key] && (v != math.Trunc(v) || v > maxCount)
}

// Get returns the value of a figure; an unknown key is a caller error and
// panics (FigureKeys lists the keys, and a loaded target has them all).
func (t *Target) Get(key string) float64 {
	f, ok := t.Figures[key]
	if !ok {
		panic(fmt.Sprintf("costmodel: target %q has no figure %q", t.Name, key))
	}
	return f.Value
}

// Source returns the source of a figure.
func (t *Target) Source(key string) string { return t.Figures[key].Source }

// With returns a copy of t with one figure replaced (for calibration and
// what-if studies). The key must be one of FigureKeys.
func (t *Target) With(key string, f Figure) (*Target, error) {
	if !slices.ContainsFunc(FigureKeys, func(k FigureKey) bool { return k.Key == key }) {
		return nil, fmt.Errorf("costmodel: %q is not a figure of a target", key)
	}
	c := t.clone()
	c.Figures[key] = f
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

func (t *Target) check() error {
	for _, k := range FigureKeys {
		f, ok := t.Figures[k.Key]
		switch {
		case !ok:
			return fmt.Errorf("costmodel: target %q: no figure %s", t.Name, k.Key)
		case math.IsNaN(f.Value) || math.IsInf(f.Value, 0) || f.Value < 0 || f.Value == 0 && !k.Zero:
			return fmt.Errorf("costmodel: target %q: %s = %v is not a positive number", t.Name, k.Key, f.Value)
		case notCount(k.Key, f.Value):
			return fmt.Errorf("costmodel: target %q: %s = %v is not a whole number of at most 2^53", t.Name, k.Key, f.Value)
		case f.Source == "":
			return fmt.Errorf("costmodel: target %q: %s has no source", t.Name, k.Key)
		}
	}
	return nil
}

//go:embed targets/*.json
var builtinFS embed.FS

// TargetNames lists the built-in targets.
func TargetNames() []string { return []string{"sm80", "sm90", "h200"} }

var builtinTargets sync.Map // name → *Target, decoded once

// BuiltinTarget returns a built-in target by name: sm80 (A100 SXM4 80 GB),
// sm90 (H100 SXM5) or h200 (H200 SXM). Each call returns a copy of its
// own.
func BuiltinTarget(name string) (*Target, error) {
	if !slices.Contains(TargetNames(), name) {
		return nil, fmt.Errorf("costmodel: no built-in target %q (want one of sm80, sm90, h200, or a JSON file)", name)
	}
	if t, ok := builtinTargets.Load(name); ok {
		return t.(*Target).clone(), nil
	}
	data, err := builtinFS.ReadFile("targets/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("costmodel: built-in target %q: %w", name, err)
	}
	t, err := DecodeTarget(data)
	if err != nil {
		// The embedded tables are checked by TestBuiltinTargets.
		panic(fmt.Sprintf("costmodel: built-in target %q does not decode: %v", name, err))
	}
	builtinTargets.Store(name, t)
	return t.clone(), nil
}

func (t *Target) clone() *Target {
	c := &Target{Name: t.Name, Description: t.Description, Figures: make(map[string]Figure, len(t.Figures))}
	for k, v := range t.Figures {
		c.Figures[k] = v
	}
	return c
}

// DecodeTarget reads a target in its JSON form:
//
//	{"name": "h200", "description": "...",
//	 "figures": {"sm_count": {"value": 132, "source": "NVIDIA H200 Tensor Core GPU datasheet"}, ...}}
//
// Every figure of FigureKeys must be present, with a source. Every problem
// is reported (jsonv.Problems), each at its JSON path.
func DecodeTarget(data []byte) (*Target, error) {
	root, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return nil, err
	}
	var d jsonv.Decoder
	o := d.Object(root, jsonv.Root, "name", "description", "figures")
	t := &Target{Name: o.String("name", true), Description: o.String("description", false), Figures: map[string]Figure{}}
	fv, fp := o.Require("figures", "an object of figures")
	figs := d.Object(fv, fp)
	for _, k := range FigureKeys {
		v, p := figs.Field(k.Key)
		if v == nil {
			if figs != nil && k.Default == "" {
				d.Report(fp, jsonv.Missing, "missing %s: want {\"value\": …, \"source\": …}, the %s in %s", strconv.Quote(k.Key), k.Doc, k.Unit)
			}
			continue
		}
		fo := d.Object(v, p, "value", "source")
		var f Figure
		if vv, vp := fo.Require("value", "a number"); vv != nil {
			var ok bool
			if f.Value, ok = d.Float(vv, vp); ok && (f.Value < 0 || f.Value == 0 && !k.Zero) {
				d.Report(vp, jsonv.Range, "%v %s: want a positive number", f.Value, k.Unit)
			} else if ok && notCount(k.Key, f.Value) {
				d.Report(vp, jsonv.Range, "%v %s: want a whole number of at most 2^53", f.Value, k.Unit)
			}
		}
		f.Source = fo.String("source", true)
		if fo != nil && fo.Has("source") && f.Source == "" {
			d.Report(p.Key("source"), jsonv.Invalid, "empty: say where the figure comes from")
		}
		fo.End()
		t.Figures[k.Key] = f
	}
	figs.End()
	o.End()
	if err := d.Err(); err != nil {
		return nil, err
	}
	for _, k := range FigureKeys {
		if _, ok := t.Figures[k.Key]; !ok && k.Default != "" {
			t.Figures[k.Key] = Figure{Value: t.Figures[k.Default].Value, Source: "not given: taken as " + k.Default}
		}
	}
	return t, nil
}

// MarshalJSON writes the JSON form DecodeTarget reads, figures in the order
// of FigureKeys.
func (t *Target) MarshalJSON() ([]byte, error) {
	b := []byte(`{"name":` + strconv.Quote(t.Name))
	if t.Description != "" {
		b = append(b, `,"description":`+strconv.Quote(t.Description)...)
	}
	b = append(b, `,"figures":{`...)
	for i, k := range FigureKeys {
		if i > 0 {
			b = append(b, ',')
		}
		f := t.Figures[k.Key]
		b = append(b, strconv.Quote(k.Key)+`:{"value":`+strconv.FormatFloat(f.Value, 'g', -1, 64)+`,"source":`+strconv.Quote(f.Source)+`}`...)
	}
	return append(b, "}}"...), nil
}

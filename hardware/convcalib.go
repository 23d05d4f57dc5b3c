package hardware

import (
	"fmt"
	"math"
	"strings"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// A ConvMeasurement is one case of convcheck's JSON record: the check and
// the two timings (ns per tile: SM time with every SM busy, and one tile
// alone, each round waiting for the last).
type ConvMeasurement struct {
	Case, Mechanism, Check string
	Wrong, Checked         int
	AllSMsNS, AloneNS      float64
}

// DecodeConvRecord reads convcheck's JSON record; every problem is reported
// at its JSON path.
func DecodeConvRecord(data []byte) (device string, sms int, cases []ConvMeasurement, err error) {
	v, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return "", 0, nil, fmt.Errorf("conversion record: %w", err)
	}
	d := &jsonv.Decoder{}
	if o := d.Object(v, jsonv.Root, "failures"); o != nil {
		device, sms = o.String("device", true), o.Int("sms", true)
		cv, cp := o.Require("cases", "an array of cases")
		if elems, ok := d.Array(cv, cp); ok {
			for i, e := range elems {
				c := d.Object(e, cp.Index(i))
				if c == nil {
					continue
				}
				m := ConvMeasurement{Case: c.String("case", true), Mechanism: c.String("mechanism", true), Check: c.String("check", true),
					Wrong: c.Int("wrong", true), Checked: c.Int("checked", true),
					AllSMsNS: c.Float("all_sms_ns_per_tile", true), AloneNS: c.Float("alone_ns_per_tile", true)}
				c.End()
				cases = append(cases, m)
			}
		}
		o.End()
	}
	if err := d.Err(); err != nil {
		return "", 0, nil, fmt.Errorf("conversion record: %w", err)
	}
	return device, sms, cases, nil
}

// A ConvCalibrationRow sets one case's cost under a target's formulas
// beside its measurement.
type ConvCalibrationRow struct {
	Case, Mechanism               string
	ModelNS, ModelLatencyNS       float64
	MeasuredNS, MeasuredLatencyNS float64
}

// ConvCalibration costs every positive case under target's formulas (a
// variant's movement recounted: a row-major scratch's wavefronts under
// storage's bank model, one access per element for scalar stores, the
// cluster plan's remote accesses where they now are) and pairs it with its
// measurement less the empty loop's (EmptyLoop).
func ConvCalibration(cases []ConvCase, measured []ConvMeasurement, target *costmodel.Target) ([]ConvCalibrationRow, error) {
	data, err := ConvFitData(cases, measured)
	if err != nil {
		return nil, err
	}
	rows := make([]ConvCalibrationRow, len(data))
	for i, d := range data {
		cost := target.ConversionFormula(d.Movement)
		rows[i] = ConvCalibrationRow{Case: d.Case, Mechanism: d.Mechanism,
			ModelNS: cost.NS, ModelLatencyNS: cost.LatencyNS,
			MeasuredNS: d.MeasuredNS, MeasuredLatencyNS: d.MeasuredLatencyNS}
	}
	return rows, nil
}

// recount returns the witness's movement with its shared-memory accesses
// and wavefronts counted again from its accesses, so that a transformed
// witness is costed as what it does.
func recount(w *conversion.Witness, mb int) (costmodel.Movement, error) {
	mv := w.Movement
	mv.Variant = w.Mechanism.Variant
	mp := w.Shared
	if w.Cluster != nil {
		mp = w.Cluster
	}
	if mp == nil {
		return mv, nil
	}
	blocks := map[int]bool{}
	for _, r := range w.Routes {
		blocks[r.Src.Block], blocks[r.Dst.Block] = true, true
	}
	nb := max(len(blocks), 1)
	per := func(n int) int { return (n + nb - 1) / nb }
	local, wavefronts, remote, remoteLoads, remoteBytes := 0, 0, 0, 0, 0
	for i, side := range []struct {
		as []conversion.MemAccess
		op storage.Op
	}{{mp.Stores, storage.Store}, {mp.Loads, storage.Load}} {
		for _, a := range side.as {
			var lanes []storage.LaneAddress
			isRemote := false
			for _, la := range a.Lanes {
				lanes = append(lanes, storage.LaneAddress{Lane: la.Lane, Byte: la.Bit / 8})
				if la.Memory != a.Block {
					isRemote = true
					remoteBytes += a.Vector * mb / 8
				}
			}
			if isRemote {
				remote++
				if i == 1 {
					remoteLoads++
				}
				continue
			}
			local++
			wf, err := storage.CountWavefronts(side.op, a.Vector*mb/8, lanes)
			if err != nil {
				return mv, err
			}
			wavefronts += wf.Total
		}
	}
	mv.SharedAccesses, mv.SharedWavefronts = per(local), per(wavefronts)
	if w.Cluster != nil {
		mv.RemoteAccesses, mv.RemoteLoads, mv.RemoteBytes = per(remote), per(remoteLoads), per(remoteBytes)
	}
	return mv, nil
}

// KendallTau is Kendall's τ-b of two equally long samples: concordant minus
// discordant pairs over the geometric mean of the pairs untied in each.
func KendallTau(x, y []float64) float64 {
	var c, d, tx, ty float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			sx, sy := sign(x[i]-x[j]), sign(y[i]-y[j])
			switch {
			case sx == 0 && sy == 0:
			case sx == 0:
				tx++
			case sy == 0:
				ty++
			case sx == sy:
				c++
			default:
				d++
			}
		}
	}
	den := math.Sqrt((c + d + tx) * (c + d + ty))
	if den == 0 {
		return 0
	}
	return (c - d) / den
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// A MeasurementTable is costmodel's measurement-table form (read by
// costmodel.DecodeMeasurements).
type MeasurementTable struct {
	Target string             `json:"target"`
	Pairs  []MeasurementEntry `json:"pairs"`
}

// A MeasurementEntry is one measured (pair, mechanism).
type MeasurementEntry struct {
	Src       string  `json:"src"`
	Dst       string  `json:"dst"`
	Rename    string  `json:"rename,omitempty"`
	Mechanism string  `json:"mechanism"`
	Variant   string  `json:"variant,omitempty"`
	CostNS    float64 `json:"cost_ns"`
	LatencyNS float64 `json:"latency_ns"`
	Source    string  `json:"source"`
}

// EmptyLoop returns the measured times of the case whose witness moves
// nothing with an instruction (only renames whole registers): the timing
// loop's own cost, which the other cases' costs are taken less.
func EmptyLoop(cases []ConvCase, measured []ConvMeasurement) (ns, latency float64, err error) {
	for _, c := range cases {
		mv := c.Movement()
		if c.Negative || mv.ALU+mv.Cvt+mv.Shuffles+mv.SharedAccesses+mv.RemoteAccesses+mv.GlobalAccesses != 0 {
			continue
		}
		for _, m := range measured {
			if m.Case == c.Name {
				return m.AllSMsNS, m.AloneNS, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("conversion record: no measured case that only renames registers (the empty loop)")
}

// ConvMeasurementTable turns the measured cases into a measurement table
// for target: one entry per pair and mechanism that Classify's witness (or
// its cluster flip, another variant of the mechanism, or the next-ranked
// mechanism's witness) carried out. Layout
// and vector-width variants are left out: they share their pair and
// mechanism with the case Classify chose. Costs are the measured ones less
// the empty loop's (EmptyLoop), rounded to 0.01 ns.
func ConvMeasurementTable(cases []ConvCase, measured []ConvMeasurement, target, source string) (*MeasurementTable, error) {
	byCase := map[string]ConvMeasurement{}
	for _, m := range measured {
		byCase[m.Case] = m
	}
	base, baseLat, err := EmptyLoop(cases, measured)
	if err != nil {
		return nil, err
	}
	t := &MeasurementTable{Target: target}
	for _, c := range cases {
		if c.Negative || (c.Variant != "" && c.Variant != "flipped" && !strings.HasPrefix(c.Variant, "via_")) {
			continue
		}
		m, ok := byCase[c.Name]
		if !ok {
			return nil, fmt.Errorf("conversion record: no case %q", c.Name)
		}
		if m.Check != "PASS" {
			return nil, fmt.Errorf("conversion record: case %q did not pass its check (%s)", c.Name, m.Check)
		}
		round := func(v float64) float64 { return math.Round(v*100) / 100 }
		t.Pairs = append(t.Pairs, MeasurementEntry{Src: c.Src, Dst: c.Dst, Rename: c.Rename,
			Mechanism: c.Witness.Mechanism.Via.String(), Variant: c.Witness.Mechanism.Variant,
			CostNS: round(max(m.AllSMsNS-base, 0)), LatencyNS: round(max(m.AloneNS-baseLat, 0)),
			Source: source + ": " + c.Name + ", less the empty loop"})
	}
	return t, nil
}

// Movement is what the case's witness does, as the cost model counts it
// (recounted for a transformed witness).
func (c ConvCase) Movement() costmodel.Movement {
	mv, err := recount(c.Witness, c.Program.MovedBits)
	if err != nil {
		return c.Witness.Movement
	}
	return mv
}

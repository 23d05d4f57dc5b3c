package hardware

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
)

// h200File is the built-in h200 target, which the calibration writes.
const h200File = "../costmodel/targets/h200.json"

// h200FitSource is the source of every fitted figure.
const h200FitSource = "fitted to the H200 measurements in hardware/convcheck/record (docs/hardware.md): hardware.FitConvTarget from the uncalibrated target in hardware/convcheck/record/target.json"

func recordFitRows(t *testing.T) []ConvFitRow {
	t.Helper()
	data, err := os.ReadFile("convcheck/record/conv.json")
	if err != nil {
		t.Fatal(err)
	}
	_, _, measured, err := DecodeConvRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := ConversionCases()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ConvFitData(cases, measured)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// renderTarget writes a target in the layout of the built-in files: one
// figure a line, in the order of costmodel.FigureKeys.
func renderTarget(t *costmodel.Target) ([]byte, error) {
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	var b strings.Builder
	b.WriteString("{\n  \"name\": " + q(t.Name) + ",\n  \"description\": " + q(t.Description) + ",\n  \"figures\": {\n")
	for i, k := range costmodel.FigureKeys {
		b.WriteString("    " + q(k.Key) + ": {\"value\": " + strconv.FormatFloat(t.Get(k.Key), 'g', -1, 64) + ", \"source\": " + q(t.Source(k.Key)) + "}")
		if i < len(costmodel.FigureKeys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	if _, err := costmodel.DecodeTarget([]byte(b.String())); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// The built-in h200 target is the fit of the record's uncalibrated target
// to the recorded measurements (go test ./hardware -update rewrites it).
func TestH200IsTheFit(t *testing.T) {
	rows := recordFitRows(t)
	start, err := RecordTarget()
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := FitConvTarget(start, rows, h200FitSource)
	if err != nil {
		t.Fatal(err)
	}
	if after, before := ConvFitLoss(fitted, rows), ConvFitLoss(start, rows); after >= before {
		t.Errorf("the fit did not lower the loss: %.4g, from %.4g", after, before)
	}
	builtin, err := costmodel.BuiltinTarget("h200")
	if err != nil {
		t.Fatal(err)
	}
	if fitted, err = WithKernelBoundary(fitted); err != nil {
		t.Fatal(err)
	}
	fitted.Description = builtin.Description
	got, err := renderTarget(fitted)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(h200File, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(h200File)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the fit of the record: run go test ./hardware -update", h200File)
	}
}

// convScores are Kendall's τ of the model's costs against the measured ones
// and the largest factor between them (max of model/measured and its
// inverse) over the rows measured at ConvFitFloorNS or more.
type convScores struct{ tau, tauLat, worst, worstLat float64 }

func scoreRows(target *costmodel.Target, rows []ConvFitRow, heldOut bool) convScores {
	var model, meas, modelLat, measLat []float64
	var s convScores
	factor := func(m, x float64) float64 {
		if x < ConvFitFloorNS {
			return 1
		}
		return math.Exp(math.Abs(math.Log(max(m, 1e-3) / x)))
	}
	for _, r := range rows {
		if r.HeldOut != heldOut {
			continue
		}
		c := target.ConversionFormula(r.Movement)
		model, meas = append(model, c.NS), append(meas, r.MeasuredNS)
		modelLat, measLat = append(modelLat, c.LatencyNS), append(measLat, r.MeasuredLatencyNS)
		s.worst = max(s.worst, factor(c.NS, r.MeasuredNS))
		s.worstLat = max(s.worstLat, factor(c.LatencyNS, r.MeasuredLatencyNS))
	}
	s.tau, s.tauLat = KendallTau(model, meas), KendallTau(modelLat, measLat)
	return s
}

// The calibrated h200 target orders the measured conversions as the H200
// did and prices them near the measurements, on the fitted cases and on the
// held-out ones. The floors are what the calibration achieved (recorded in
// docs/hardware.md); a change of the target or the formula that loses them
// fails here.
func TestH200Calibration(t *testing.T) {
	target, err := costmodel.BuiltinTarget("h200")
	if err != nil {
		t.Fatal(err)
	}
	rows := recordFitRows(t)
	for _, tc := range []struct {
		name    string
		heldOut bool
		floor   convScores // the least τ, the largest factors
		fewest  int
	}{
		{"fitted", false, convScores{tau: 0.94, tauLat: 0.96, worst: 1.3, worstLat: 1.4}, 13},
		{"held out", true, convScores{tau: 0.99, tauLat: 0.99, worst: 1.3, worstLat: 1.2}, 5},
	} {
		n := 0
		for _, r := range rows {
			if r.HeldOut == tc.heldOut {
				n++
			}
		}
		if n < tc.fewest {
			t.Errorf("%s: %d cases, want at least %d", tc.name, n, tc.fewest)
		}
		s := scoreRows(target, rows, tc.heldOut)
		t.Logf("%s: tau throughput %.3f, latency %.3f; worst factor throughput %.3f, latency %.3f", tc.name, s.tau, s.tauLat, s.worst, s.worstLat)
		if s.tau < tc.floor.tau || s.tauLat < tc.floor.tauLat {
			t.Errorf("%s: Kendall's tau %.3f (throughput), %.3f (latency), want at least %.2f, %.2f", tc.name, s.tau, s.tauLat, tc.floor.tau, tc.floor.tauLat)
		}
		if s.worst > tc.floor.worst || s.worstLat > tc.floor.worstLat {
			t.Errorf("%s: model and measurement %.3f× apart (throughput), %.3f× (latency), want at most %.1f×, %.1f×", tc.name, s.worst, s.worstLat, tc.floor.worst, tc.floor.worstLat)
		}
	}
}

// On every pair measured both ways inside one warp (shuffles and shared
// memory), Classify with the calibrated h200 target chooses the mechanism
// the H200 ran faster (all SMs busy).
func TestH200ChoosesMeasuredCheaper(t *testing.T) {
	data, err := os.ReadFile("convcheck/record/conv.json")
	if err != nil {
		t.Fatal(err)
	}
	_, _, measured, err := DecodeConvRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	ns := map[string]float64{}
	for _, m := range measured {
		ns[m.Case] = m.AllSMsNS
	}
	cases, err := ConversionCases()
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := convPairs()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cases {
		if !strings.HasPrefix(c.Variant, "via_") {
			continue
		}
		base := strings.TrimSuffix(c.Name, "_"+c.Variant)
		var chosen conversion.Witness
		for _, b := range cases {
			if b.Name == base {
				chosen = *b.Witness
			}
		}
		want := chosen.Mechanism.Via
		if ns[c.Name] < ns[base] {
			want = c.Witness.Mechanism.Via
		}
		for _, pr := range pairs {
			if pr.name != base {
				continue
			}
			opts := pr.opts
			opts.Target = nil // the built-in, calibrated h200
			res, err := conversion.Classify(pr.src, pr.dst, opts)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			if res.Mechanism.Via != want {
				t.Errorf("%s: Classify chose %s, measured cheaper is %s (%.2f ns against %.2f)", base, res.Mechanism.Via, want, min(ns[c.Name], ns[base]), max(ns[c.Name], ns[base]))
			}
		}
	}
	if checked < 4 {
		t.Errorf("%d pairs measured both ways, want at least 4", checked)
	}
}

package hardware

import (
	"bytes"
	"math"
	"os"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
)

// Every case's lowered program gives every destination register its
// expected codes on the CPU, and the negative case does not.
func TestConversionCasesRun(t *testing.T) {
	cases, err := ConversionCases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		bad := c.Program.Check()
		if c.Negative != (bad > 0) {
			t.Errorf("%s: %d wrong registers (negative %v)", c.Name, bad, c.Negative)
		}
		t.Logf("%-36s %-28s %d blocks x %d warps, %d rounds, %d stores, %d loads", c.Name, c.Witness.Mechanism, c.Program.Blocks, c.Program.Warps, len(c.Program.Rounds), len(c.Program.Stores), len(c.Program.Loads))
	}
}

// The committed convcheck.cu is GenerateConversions' output.
func TestConversionCheckUpToDate(t *testing.T) {
	cases, err := ConversionCases()
	if err != nil {
		t.Fatal(err)
	}
	got, err := GenerateConversions(cases)
	if err != nil {
		t.Fatal(err)
	}
	const file = "convcheck/convcheck.cu"
	if *update {
		if err := os.MkdirAll("convcheck", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go test ./hardware -update", file)
	}
}

// Recounting an untransformed witness gives back Classify's own movement,
// so the variants are costed by the same counts.
func TestRecountMatchesClassify(t *testing.T) {
	cases, err := ConversionCases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Variant != "" {
			continue
		}
		mv, err := recount(c.Witness, c.Program.MovedBits)
		if err != nil {
			t.Fatal(err)
		}
		if mv != c.Witness.Movement {
			t.Errorf("%s: recounted %+v, Classify counted %+v", c.Name, mv, c.Witness.Movement)
		}
	}
}

func TestKendallTau(t *testing.T) {
	for _, c := range []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// 6 pairs: (1,2) (1,3) (2,3) concordant... one swap of the last two:
		// 5 concordant, 1 discordant: τ = 4/6.
		{[]float64{1, 2, 3, 4}, []float64{1, 2, 4, 3}, 4.0 / 6},
	} {
		if got := KendallTau(c.x, c.y); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("KendallTau(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// The measurement table written from the conversion record (go test
// ./hardware -update) is costmodel's form, and Classify, given it, reports
// each measured pair's cost with origin measured.
func TestConvMeasurementTable(t *testing.T) {
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
	table, err := ConvMeasurementTable(cases, measured, "h200", "hardware/convcheck/record/conv.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(table, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const file = "convcheck/record/measurements.json"
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go test ./hardware -update", file)
	}
	ms, err := costmodel.DecodeMeasurements(want)
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := convPairs()
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range pairs {
		opts := pr.opts
		opts.Measured = ms
		res, err := conversion.Classify(pr.src, pr.dst, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Cost.Origin != costmodel.Measured {
			t.Errorf("%s: cost %+v is not the measured one", pr.name, res.Cost)
		}
	}
}

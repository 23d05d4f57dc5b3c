package hardware

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/cklplan/cklplan/costmodel"
)

// A ConvFitRow is one measured case of the conversion record with the
// movement the cost model counts for it (recounted for a variant), its
// measurement less the empty loop's, and whether the calibration holds it
// out.
type ConvFitRow struct {
	Case, Mechanism               string
	Movement                      costmodel.Movement
	MeasuredNS, MeasuredLatencyNS float64
	HeldOut                       bool
}

// ConvHeldOut are the cases the calibration does not fit, to see whether
// the fitted figures generalize: one shuffle plan and its shared-memory
// rival (8 shuffle rounds and prmt: the most rounds of the warp-sized
// shuffles; both mechanisms of one pair, so Classify's choice on it is
// predicted, not fitted), a bank-conflicted scratch at warp scale, the
// one-element stores (a vector-width variant) and the pulled cluster swap.
// Each held-out case has a fitted case of the same mechanism beside it.
var ConvHeldOut = []string{
	"ws_ldmatrix_transposed",
	"ws_ldmatrix_transposed_via_shared_memory",
	"sm_k_major_to_a_rowmajor",
	"sm_transpose_f16_scalar_stores",
	"cl_block_swap_flipped",
}

// ConvFitFigures are the figures the calibration refits: the pipe
// throughputs, the barriers and the latencies the conversion formula uses.
// The clock, the issue rate, the sizes and the device-query figures stay
// as measured or documented; the clock is not separable from the
// throughputs in cycles (only their ratio is measured).
var ConvFitFigures = []string{
	"alu_lanes_per_clock", "cvt_lanes_per_clock", "shuffle_lanes_per_clock",
	"shared_bytes_per_clock", "dsmem_bytes_per_clock",
	"barrier_cycles", "cluster_barrier_cycles",
	"alu_latency_cycles", "shuffle_latency_cycles", "shared_latency_cycles", "dsmem_latency_cycles",
}

// ConvFitFloorNS is the smallest measured time (less the empty loop's) that
// the fit and the ratios use: below it the measurement is the loop's own
// jitter (the cvt case alone measured faster than the empty loop).
const ConvFitFloorNS = 0.5

// ConvFitData pairs every positive case with its movement and measurement
// less the empty loop's, marking the cases of ConvHeldOut.
func ConvFitData(cases []ConvCase, measured []ConvMeasurement) ([]ConvFitRow, error) {
	byCase := map[string]ConvMeasurement{}
	for _, m := range measured {
		byCase[m.Case] = m
	}
	base, baseLat, err := EmptyLoop(cases, measured)
	if err != nil {
		return nil, err
	}
	var rows []ConvFitRow
	for _, c := range cases {
		if c.Negative {
			continue
		}
		m, ok := byCase[c.Name]
		if !ok {
			return nil, fmt.Errorf("conversion record: no case %q", c.Name)
		}
		mv, err := recount(c.Witness, c.Program.MovedBits)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		rows = append(rows, ConvFitRow{Case: c.Name, Mechanism: c.Witness.Mechanism.String(), Movement: mv,
			MeasuredNS: max(m.AllSMsNS-base, 0), MeasuredLatencyNS: max(m.AloneNS-baseLat, 0),
			HeldOut: slices.Contains(ConvHeldOut, c.Name)})
	}
	for _, h := range ConvHeldOut {
		if !slices.ContainsFunc(rows, func(r ConvFitRow) bool { return r.Case == h }) {
			return nil, fmt.Errorf("conversion record: held-out case %q is not measured", h)
		}
	}
	return rows, nil
}

// ConvFitLoss is the calibration's objective on the rows not held out: the
// sum of the squared natural logarithms of model over measured, throughput
// and latency alike, over the measurements of at least ConvFitFloorNS.
func ConvFitLoss(t *costmodel.Target, rows []ConvFitRow) float64 {
	var loss float64
	for _, r := range rows {
		if r.HeldOut {
			continue
		}
		c := t.ConversionFormula(r.Movement)
		for _, p := range [][2]float64{{c.NS, r.MeasuredNS}, {c.LatencyNS, r.MeasuredLatencyNS}} {
			if p[1] < ConvFitFloorNS {
				continue
			}
			l := math.Log(max(p[0], 1e-3) / p[1])
			loss += l * l
		}
	}
	return loss
}

// FitConvTarget refits the figures of ConvFitFigures of start to the rows
// not held out, by coordinate search on ConvFitLoss: each figure in turn is
// scaled by the best of 2^(k/16), k = -64…64 (the others fixed), sweeps
// repeating until one changes nothing (at most 100); then each fitted value
// is rounded to three significant digits, keeping the rounding only where
// it does not raise the loss by more than 1 %. Every fitted figure's source
// becomes source. The search is deterministic: the same record and start
// give the same target.
func FitConvTarget(start *costmodel.Target, rows []ConvFitRow, source string) (*costmodel.Target, error) {
	t := start
	set := func(t *costmodel.Target, key string, v float64) (*costmodel.Target, error) {
		return t.With(key, costmodel.Figure{Value: v, Source: source})
	}
	best := ConvFitLoss(t, rows)
	for sweep := 0; sweep < 100; sweep++ {
		changed := false
		for _, key := range ConvFitFigures {
			v0 := t.Get(key)
			if v0 == 0 {
				continue
			}
			bestV := v0
			for k := -64; k <= 64; k++ {
				if k == 0 {
					continue
				}
				c, err := set(t, key, v0*math.Exp2(float64(k)/16))
				if err != nil {
					return nil, err
				}
				if l := ConvFitLoss(c, rows); l < best-1e-12 {
					best, bestV = l, c.Get(key)
				}
			}
			if bestV != v0 {
				changed = true
			}
			var err error
			if t, err = set(t, key, bestV); err != nil {
				return nil, err
			}
		}
		if !changed {
			break
		}
	}
	for _, key := range ConvFitFigures {
		v := t.Get(key)
		r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
		if err != nil {
			return nil, err
		}
		c, err := set(t, key, r)
		if err != nil {
			return nil, err
		}
		if l := ConvFitLoss(c, rows); l <= best*1.01 {
			t = c
		}
	}
	return t, nil
}

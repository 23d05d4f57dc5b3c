package hardware_test

import (
	"fmt"
	"os"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/hardware"
)

// The conversions measured on the H200 beside the calibrated h200 target's
// formulas: ns per tile, throughput (SM time with every SM busy) and one
// tile alone, each less the timing loop's own (the case that only renames
// registers), the cases the calibration held out marked "held", and
// Kendall's τ between the two orderings on the fitted and on the held-out
// cases.
func ExampleConvCalibration() {
	data, err := os.ReadFile("convcheck/record/conv.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _, measured, err := hardware.DecodeConvRecord(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	cases, err := hardware.ConversionCases()
	if err != nil {
		fmt.Println(err)
		return
	}
	target, err := costmodel.BuiltinTarget("h200")
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, err := hardware.ConvFitData(cases, measured)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%-40s %-27s %8s %8s %8s %8s\n", "case", "mechanism", "model", "measured", "model", "measured")
	fmt.Printf("%-40s %-27s %8s %8s %8s %8s\n", "", "", "cost_ns", "cost_ns", "lat_ns", "alone_ns")
	type sample struct{ model, meas, modelLat, measLat []float64 }
	var fitted, held sample
	for _, r := range rows {
		c := target.ConversionFormula(r.Movement)
		mark, s := "", &fitted
		if r.HeldOut {
			mark, s = " held", &held
		}
		fmt.Printf("%-40s %-27s %8.2f %8.2f %8.2f %8.2f%s\n", r.Case, r.Mechanism, c.NS, r.MeasuredNS, c.LatencyNS, r.MeasuredLatencyNS, mark)
		s.model, s.meas = append(s.model, c.NS), append(s.meas, r.MeasuredNS)
		s.modelLat, s.measLat = append(s.modelLat, c.LatencyNS), append(s.measLat, r.MeasuredLatencyNS)
	}
	for _, s := range []struct {
		name string
		s    sample
	}{{"fitted", fitted}, {"held out", held}} {
		fmt.Printf("Kendall's tau, %s: throughput %.2f, latency %.2f\n", s.name, hardware.KendallTau(s.s.model, s.s.meas), hardware.KendallTau(s.s.modelLat, s.s.measLat))
	}
	// Output:
	// case                                     mechanism                      model measured    model measured
	//                                                                       cost_ns  cost_ns   lat_ns alone_ns
	// rp_acc_to_a_cvt                          register_permute                1.10     1.12     9.89     0.00
	// rp_ldmatrix_trans_rename                 register_permute                0.00     0.00     0.00     0.00
	// ws_blocked_a_selects                     warp_shuffle                   14.79    14.36   260.85   240.55
	// ws_blocked_a_selects_via_shared_memory   shared_memory                   7.16     6.63     9.99    10.63
	// ws_c_to_b                                warp_shuffle                    7.39     6.11   148.00   128.05
	// ws_c_to_b_via_shared_memory              shared_memory                   6.20     5.52    17.81    16.26
	// ws_ldmatrix_transposed                   warp_shuffle                   14.79    13.50   296.00   284.65 held
	// ws_ldmatrix_transposed_via_shared_memory shared_memory                   9.09    11.50    20.71    21.48 held
	// sm_k_major_to_a                          shared_memory                   9.09    11.44    20.71    21.50
	// sm_k_major_to_a_rowmajor                 shared_memory                  14.88    14.95    26.50    22.54 held
	// sm_k_major_to_a_via_warp_shuffle         warp_shuffle                   95.07   117.02  1738.40  2418.05
	// sm_transpose_f32                         shared_memory                  34.18    41.65    37.01    35.14
	// sm_transpose_f32_rowmajor                shared_memory                 188.56   170.42   191.39   151.15
	// sm_transpose_f16                         shared_memory                 157.68   175.52   169.30   194.25
	// sm_transpose_f16_rowmajor                shared_memory                 620.82   586.12   632.44   566.35
	// sm_transpose_f16_scalar_stores           shared_memory                 188.56   221.02   200.17   223.05 held
	// cl_block_swap                            cluster_shared_memory/push    136.35   136.12   355.34   359.85
	// cl_block_swap_flipped                    cluster_shared_memory/pull    136.35   127.02   355.34   341.95 held
	// Kendall's tau, fitted: throughput 0.95, latency 0.97
	// Kendall's tau, held out: throughput 1.00, latency 1.00
}

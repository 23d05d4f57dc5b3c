package hardware_test

import (
	"fmt"
	"os"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/hardware"
)

// The conversions measured on the H200 beside the h200 target's formulas:
// ns per tile, throughput (SM time with every SM busy) and one tile alone,
// each less the timing loop's own (the case that only renames registers),
// and Kendall's τ between the two orderings.
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
	rows, err := hardware.ConvCalibration(cases, measured, target)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%-40s %-27s %8s %8s %8s %8s\n", "case", "mechanism", "model", "measured", "model", "measured")
	fmt.Printf("%-40s %-27s %8s %8s %8s %8s\n", "", "", "cost_ns", "cost_ns", "lat_ns", "alone_ns")
	var model, meas, modelLat, measLat []float64
	for _, r := range rows {
		fmt.Printf("%-40s %-27s %8.2f %8.2f %8.2f %8.2f\n", r.Case, r.Mechanism, r.ModelNS, r.MeasuredNS, r.ModelLatencyNS, r.MeasuredLatencyNS)
		model, meas = append(model, r.ModelNS), append(meas, r.MeasuredNS)
		modelLat, measLat = append(modelLat, r.ModelLatencyNS), append(measLat, r.MeasuredLatencyNS)
	}
	fmt.Printf("Kendall's tau: throughput %.2f, latency %.2f\n", hardware.KendallTau(model, meas), hardware.KendallTau(modelLat, measLat))
	// Output:
	// case                                     mechanism                      model measured    model measured
	//                                                                       cost_ns  cost_ns   lat_ns alone_ns
	// rp_acc_to_a_cvt                          register_permute                4.04     1.12     6.06     0.00
	// rp_ldmatrix_trans_rename                 register_permute                0.00     0.00     0.00     0.00
	// ws_blocked_a_selects                     warp_shuffle                    7.07    14.36    57.58   240.55
	// ws_blocked_a_selects_via_shared_memory   shared_memory                  28.28     6.63    57.58    10.63
	// ws_c_to_b                                warp_shuffle                    3.54     6.11    54.04   128.05
	// ws_c_to_b_via_shared_memory              shared_memory                  27.27     5.52    58.59    16.26
	// ws_ldmatrix_transposed                   warp_shuffle                    7.07    13.50   106.06   284.65
	// ws_ldmatrix_transposed_via_shared_memory shared_memory                  30.30    11.50    61.62    21.48
	// sm_k_major_to_a                          shared_memory                  30.30    11.44    61.62    21.50
	// sm_k_major_to_a_rowmajor                 shared_memory                  36.36    14.95    67.68    22.54
	// sm_k_major_to_a_via_warp_shuffle         warp_shuffle                   45.45   117.02   180.81  2418.05
	// sm_transpose_f32                         shared_memory                  56.57    41.65    85.86    35.14
	// sm_transpose_f32_rowmajor                shared_memory                 218.18   170.42   247.47   151.15
	// sm_transpose_f16                         shared_memory                 185.86   175.52   217.17   194.25
	// sm_transpose_f16_rowmajor                shared_memory                 670.71   586.12   702.02   566.35
	// sm_transpose_f16_scalar_stores           shared_memory                 218.18   221.02   249.49   223.05
	// cl_block_swap                            cluster_shared_memory/push    197.09   136.12   317.29   359.85
	// cl_block_swap_flipped                    cluster_shared_memory/pull    197.09   127.02   408.20   341.95
	// Kendall's tau: throughput 0.80, latency 0.66
}

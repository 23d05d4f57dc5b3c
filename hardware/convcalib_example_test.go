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
	fmt.Printf("%-32s %-27s %8s %8s %8s %8s\n", "case", "mechanism", "model", "measured", "model", "measured")
	fmt.Printf("%-32s %-27s %8s %8s %8s %8s\n", "", "", "cost_ns", "cost_ns", "lat_ns", "alone_ns")
	var model, meas, modelLat, measLat []float64
	for _, r := range rows {
		fmt.Printf("%-32s %-27s %8.2f %8.2f %8.2f %8.2f\n", r.Case, r.Mechanism, r.ModelNS, r.MeasuredNS, r.ModelLatencyNS, r.MeasuredLatencyNS)
		model, meas = append(model, r.ModelNS), append(meas, r.MeasuredNS)
		modelLat, measLat = append(modelLat, r.ModelLatencyNS), append(measLat, r.MeasuredLatencyNS)
	}
	fmt.Printf("Kendall's tau: throughput %.2f, latency %.2f\n", hardware.KendallTau(model, meas), hardware.KendallTau(modelLat, measLat))
	// Output:
	// case                             mechanism                      model measured    model measured
	//                                                               cost_ns  cost_ns   lat_ns alone_ns
	// rp_acc_to_a_cvt                  register_permute                4.04     1.17     6.06     0.00
	// rp_ldmatrix_trans_rename         register_permute                0.00     0.00     0.00     0.00
	// ws_blocked_a_selects             warp_shuffle                    7.07    14.42    57.58   240.95
	// ws_c_to_b                        warp_shuffle                    3.54     6.15    54.04   127.95
	// ws_ldmatrix_transposed           warp_shuffle                    7.07    13.52   106.06   283.45
	// sm_k_major_to_a                  shared_memory                  30.30    11.53    61.62    21.61
	// sm_k_major_to_a_rowmajor         shared_memory                  36.36    15.03    67.68    22.57
	// sm_transpose_f32                 shared_memory                  56.57    41.46    85.86    34.80
	// sm_transpose_f32_rowmajor        shared_memory                 218.18   170.09   247.47   151.45
	// sm_transpose_f16                 shared_memory                 185.86   176.19   217.17   194.85
	// sm_transpose_f16_rowmajor        shared_memory                 670.71   586.29   702.02   563.75
	// sm_transpose_f16_scalar_stores   shared_memory                 218.18   219.09   249.49   221.55
	// cl_block_swap                    cluster_shared_memory/push    197.09   135.39   317.29   358.65
	// cl_block_swap_flipped            cluster_shared_memory/pull    197.09   125.79   408.20   341.45
	// Kendall's tau: throughput 0.85, latency 0.69
}

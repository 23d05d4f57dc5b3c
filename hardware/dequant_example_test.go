package hardware_test

import (
	"fmt"
	"os"

	"github.com/cklplan/cklplan/hardware"
)

// The H200 record of the dequantize → mma plans: each plan's measured time
// against the sum of its parts timed alone, and each conversion's cost inside
// the kernel against the steady-state conversion loop's prediction (µs).
func ExampleDequantRecord_Compare() {
	data, err := os.ReadFile("dequant/record/raw.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := hardware.DecodeDequantRecord(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, run := range []struct{ n, split int }{{16, 16}, {4096, 1}} {
		rows, err := r.Compare(run.n, run.split)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("N = %d (split-K %d)\n", run.n, run.split)
		fmt.Printf("  %-24s %9s %9s %9s %9s\n", "plan", "measured", "isolated", "conv", "loop")
		for _, row := range rows {
			fmt.Printf("  %-24s %9.1f %9.1f", row.Plan, row.Measured/1e3, row.Isolated/1e3)
			if row.Loop > 0 {
				fmt.Printf(" %9.1f %9.1f", row.InKernel/1e3, row.Loop/1e3)
			}
			fmt.Println()
		}
		measured := func(r hardware.DequantRow) float64 { return r.Measured }
		isolated := func(r hardware.DequantRow) float64 { return r.Isolated }
		fmt.Printf("  fastest of the four plans: measured %s, by parts timed alone %s\n",
			hardware.Fastest(rows, 4, measured), hardware.Fastest(rows, 4, isolated))
	}
	// Output:
	// N = 16 (split-K 16)
	//   plan                      measured  isolated      conv      loop
	//   fused_shfl                    47.3      44.4      19.2      24.4
	//   fused_smem                    35.6      31.8       7.4       8.2
	//   fused_native                  29.0      32.7
	//   unfused                       89.5      85.7
	//   fused_shfl_packed             29.0      30.4       7.7       4.3
	//   fused_smem_conflict           79.5      72.7      51.3      48.9
	//   fused_native_prepacked        25.2      28.1
	//   fastest of the four plans: measured fused_native, by parts timed alone fused_smem
	// N = 4096 (split-K 1)
	//   plan                      measured  isolated      conv      loop
	//   fused_shfl                  3724.3    3659.6    1476.6    1561.5
	//   fused_smem                  2736.2    2895.0     488.5     521.6
	//   fused_native                2665.6    2581.9
	//   unfused                     1965.3    2006.6
	//   fused_shfl_packed           2618.4    2602.2     550.0     273.2
	//   fused_smem_conflict         5654.9    5497.8    3407.2    3130.1
	//   fused_native_prepacked      2071.9    2481.5
	//   fastest of the four plans: measured unfused, by parts timed alone unfused
}

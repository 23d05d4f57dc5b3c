package hardware_test

import (
	"fmt"

	"github.com/cklplan/cklplan/hardware"
)

// The conversions the hardware check lowers, with what their witnesses do
// per tile (counts over the tile's warps, per block): ALU and cvt
// instructions, shuffles, shared-memory accesses and their wavefronts under
// storage's bank model, barriers, accesses to another block's memory.
func ExampleConversionCases() {
	cases, err := hardware.ConversionCases()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%-40s %-21s %-26s %5s %4s %4s %4s %4s %5s %6s\n", "case", "class", "mechanism", "bytes", "alu", "cvt", "shfl", "smem", "wavef", "remote")
	for _, c := range cases {
		if c.Negative {
			continue
		}
		mv := c.Movement()
		fmt.Printf("%-40s %-21s %-26s %5d %4d %4d %4d %4d %5d %6d\n", c.Name, c.Class, c.Witness.Mechanism, mv.Bytes, mv.ALU, mv.Cvt, mv.Shuffles, mv.SharedAccesses, mv.SharedWavefronts, mv.RemoteAccesses)
	}
	// Output:
	// case                                     class                 mechanism                  bytes  alu  cvt shfl smem wavef remote
	// rp_acc_to_a_cvt                          register_permute      register_permute             512    0    4    0    0     0      0
	// rp_ldmatrix_trans_rename                 register_permute      register_permute             512    0    0    0    0     0      0
	// ws_blocked_a_selects                     warp_shuffle          warp_shuffle                 512   28    0    4    0     0      0
	// ws_blocked_a_selects_via_shared_memory   warp_shuffle          shared_memory                512    0    0    0    5     8      0
	// ws_c_to_b                                warp_shuffle          warp_shuffle                 256   14    0    4    0     0      0
	// ws_c_to_b_via_shared_memory              warp_shuffle          shared_memory                256    2    0    0    6     6      0
	// ws_ldmatrix_transposed                   warp_shuffle          warp_shuffle                 512   28    0    8    0     0      0
	// ws_ldmatrix_transposed_via_shared_memory warp_shuffle          shared_memory                512    4    0    0   12    12      0
	// sm_k_major_to_a                          warp_shuffle          shared_memory                512    4    0    0   12    12      0
	// sm_k_major_to_a_rowmajor                 warp_shuffle          shared_memory                512    4    0    0   12    24      0
	// sm_k_major_to_a_via_warp_shuffle         warp_shuffle          warp_shuffle                 512  180    0   11    0     0      0
	// sm_transpose_f32                         shared_memory         shared_memory               4096    0    0    0   64    64      0
	// sm_transpose_f32_rowmajor                shared_memory         shared_memory               4096    0    0    0   64   384      0
	// sm_transpose_f16                         shared_memory         shared_memory               8192   64    0    0  192   320      0
	// sm_transpose_f16_rowmajor                shared_memory         shared_memory               8192   64    0    0  192  1280      0
	// sm_transpose_f16_scalar_stores           shared_memory         shared_memory               8192   64    0    0  256   384      0
	// cl_block_swap                            cluster_shared_memory cluster_shared_memory/push   256    0    0    0    1     1      1
	// cl_block_swap_flipped                    cluster_shared_memory cluster_shared_memory/pull   256    0    0    0    1     1      1
}

package costmodel

import (
	"fmt"
	"math"
)

// An Instruction is the kind of arithmetic an execution is bound by.
type Instruction string

// The instruction kinds the roofline knows.
const (
	TensorF16  Instruction = "tensor_f16"   // the tensor cores at their peak (wgmma on sm_90) on 16-bit inputs, f32 accumulate
	MMASyncF16 Instruction = "mma_sync_f16" // mma.sync on 16-bit inputs, f32 accumulate: the peak on sm_80, about 2/3 of it on sm_90
	FMAF32     Instruction = "fma_f32"      // f32 fused multiply-add on the CUDA cores
)

// Work is what an alternative does, for its execution cost: either a
// declared cost, or the work for a roofline.
type Work struct {
	// DeclaredNS, when positive, is the cost as the input states it.
	DeclaredNS float64
	// Flops, Bytes (moved to or from device memory) and the instruction
	// kind bound the time by a roofline.
	Flops       float64
	Bytes       float64
	Instruction Instruction
}

// Execution returns the cost of an alternative's work on the whole GPU:
// declared when given, else the roofline
//
//	max(Flops / peak(Instruction), Bytes / hbm_gb_per_s)
//
// with peak f16_tensor_tflops for tensor_f16, mma_sync_f16_tflops for
// mma_sync_f16 and f32_tflops for fma_f32.
func (t *Target) Execution(w Work) (Cost, error) {
	switch {
	case w.DeclaredNS < 0 || math.IsNaN(w.DeclaredNS) || math.IsInf(w.DeclaredNS, 0):
		return Cost{}, fmt.Errorf("costmodel: declared cost %v ns: want a finite non-negative number", w.DeclaredNS)
	case w.DeclaredNS > 0:
		return Cost{NS: w.DeclaredNS, LatencyNS: w.DeclaredNS, Origin: Declared, Detail: "declared"}, nil
	case w.Flops < 0 || w.Bytes < 0 || math.IsNaN(w.Flops+w.Bytes):
		return Cost{}, fmt.Errorf("costmodel: work of %v flops and %v bytes: want non-negative numbers", w.Flops, w.Bytes)
	}
	var peak float64 // flops per ns
	switch w.Instruction {
	case TensorF16:
		peak = t.Get("f16_tensor_tflops") * 1e3
	case MMASyncF16:
		peak = t.Get("mma_sync_f16_tflops") * 1e3
	case FMAF32:
		peak = t.Get("f32_tflops") * 1e3
	case "":
		if w.Flops > 0 {
			return Cost{}, fmt.Errorf("costmodel: %v flops with no instruction kind (want %s, %s or %s)", w.Flops, TensorF16, MMASyncF16, FMAF32)
		}
	default:
		return Cost{}, fmt.Errorf("costmodel: unknown instruction kind %q (want %s, %s or %s)", w.Instruction, TensorF16, MMASyncF16, FMAF32)
	}
	var compute float64
	if peak > 0 {
		compute = w.Flops / peak
	}
	memory := w.Bytes / t.Get("hbm_gb_per_s") // GB/s is bytes per ns
	ns := max(compute, memory)
	bound := "compute"
	if memory > compute {
		bound = "memory"
	}
	return Cost{NS: ns, LatencyNS: ns, Origin: Formula,
		Detail: fmt.Sprintf("%s: roofline, %s-bound (compute %.4g ns, memory %.4g ns)", t.Name, bound, compute, memory)}, nil
}

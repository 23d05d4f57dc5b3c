package costmodel

import (
	"math"
	"strings"
	"testing"
)

// A target written before mma_sync_f16_tflops existed takes it from
// f16_tensor_tflops, saying so, and mma.sync work runs at it; the built-in
// Hopper targets run mma.sync at two thirds of the tensor-core peak.
func TestMMASyncDefaultsToTheTensorPeak(t *testing.T) {
	h200, err := BuiltinTarget("h200")
	if err != nil {
		t.Fatal(err)
	}
	old := h200.clone()
	delete(old.Figures, "mma_sync_f16_tflops")
	data, err := old.MarshalJSON()
	if err == nil {
		// MarshalJSON writes every key; leave the new one out.
		data = []byte(strings.Replace(string(data), `"mma_sync_f16_tflops":{"value":0,"source":""},`, "", 1))
	}
	got, err := DecodeTarget(data)
	if err != nil {
		t.Fatal(err)
	}
	f := got.Figures["mma_sync_f16_tflops"]
	if f.Value != h200.Get("f16_tensor_tflops") || !strings.Contains(f.Source, "f16_tensor_tflops") {
		t.Errorf("defaulted figure %+v", f)
	}
	if r := h200.Get("mma_sync_f16_tflops") / h200.Get("f16_tensor_tflops"); math.Abs(r-2.0/3) > 0.01 {
		t.Errorf("h200: mma.sync at %.3g of the peak, want 2/3", r)
	}
	sync, err := h200.Execution(Work{Flops: 1e6, Instruction: MMASyncF16})
	if err != nil {
		t.Fatal(err)
	}
	peak, err := h200.Execution(Work{Flops: 1e6, Instruction: TensorF16})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sync.NS/peak.NS-1.5) > 0.01 {
		t.Errorf("h200: mma.sync %v ns, wgmma %v ns: want 1.5×", sync.NS, peak.NS)
	}
}

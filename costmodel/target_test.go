package costmodel

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/internal/jsonv"
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

// The figures that count things (SMs, bytes of shared memory, cluster
// blocks) are whole numbers the planner takes as integers: a fraction, or a
// count past what an int64 holds, is refused at its path, by DecodeTarget
// and by With, rather than truncated (sm_count 1.5 was costed as 1.5 SMs
// but reported as 1; shared_bytes_per_block 1e300 became a limit of
// -9223372036854775808 bytes).
func TestCountFiguresAreIntegers(t *testing.T) {
	h200, err := BuiltinTarget("h200")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key   string
		value float64
	}{
		{"sm_count", 1.5},
		{"sm_count", 0.001},
		{"shared_bytes_per_block", 1e300},
		{"shared_bytes_per_block", 0.5},
		{"shared_bytes_per_sm", 1 << 63},
		{"max_cluster_blocks", 1e20},
		{"max_cluster_blocks", 2.5},
	} {
		bad := h200.clone()
		bad.Figures[c.key] = Figure{Value: c.value, Source: "x"}
		data, err := bad.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		_, err = DecodeTarget(data)
		var ps jsonv.Problems
		if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Path.String() != "$.figures."+c.key+".value" || ps[0].Code != jsonv.Range {
			t.Errorf("%s = %v: DecodeTarget error %v, want one range problem at $.figures.%s.value", c.key, c.value, err, c.key)
		}
		if _, err := h200.With(c.key, Figure{Value: c.value, Source: "x"}); err == nil {
			t.Errorf("%s = %v: With accepted it", c.key, c.value)
		}
	}
	// Whole counts stay as they were, large ones too.
	for _, key := range []string{"sm_count", "shared_bytes_per_block", "max_cluster_blocks"} {
		if _, err := h200.With(key, Figure{Value: 1 << 40, Source: "x"}); err != nil {
			t.Errorf("%s = 2^40: %v", key, err)
		}
	}
}

package hardware

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/internal/jsonv"
)

// The committed record of the H200 run (docs/hardware.md).
const dequantRecordFile = "dequant/record/raw.json"

// The measured-costs files the planner reads, one per N, with the split-K
// factor of the run they come from.
var dequantMeasuredFiles = []struct {
	n, split int
	file     string
}{
	{16, 16, "../examples/measured/dequant_mma_n16.json"},
	{4096, 1, "../examples/measured/dequant_mma_n4096.json"},
}

func loadDequantRecord(t testing.TB) *DequantRecord {
	t.Helper()
	data, err := os.ReadFile(dequantRecordFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := DecodeDequantRecord(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The committed measured-costs files are Measured's output for the committed
// record (go test ./hardware -update rewrites them).
func TestDequantMeasuredUpToDate(t *testing.T) {
	r := loadDequantRecord(t)
	for _, f := range dequantMeasuredFiles {
		m, err := r.Measured(f.n, f.split)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		if *update {
			if err := os.MkdirAll(filepath.Dir(f.file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.file, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(f.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go test ./hardware -update", f.file)
		}
	}
}

// A plan's per-tile costs times their multiplicities, over the SM count, give
// back its measured time: the fused plans' whole-plan time, the unfused
// plan's two kernels timed one by one.
func TestDequantMeasuredAddsUp(t *testing.T) {
	r := loadDequantRecord(t)
	for _, f := range dequantMeasuredFiles {
		m, err := r.Measured(f.n, f.split)
		if err != nil {
			t.Fatal(err)
		}
		alt := map[string]float64{}
		for _, a := range m.Alternatives {
			alt[a.Task+"/"+a.Alternative] = a.NS
		}
		conv := map[string]float64{}
		for _, c := range m.Conversions {
			conv[c.Source+"→"+c.Target] = c.NS
		}
		fused, once, mma := DequantTiles(f.n)
		sms := float64(r.SMs)
		wall := func(terms ...float64) float64 {
			s := 0.0
			for i := 0; i < len(terms); i += 2 {
				s += terms[i] * terms[i+1]
			}
			return s / sms
		}
		ns := func(key string) float64 {
			v, ok := r.NS[fmt.Sprintf("N%d.split%d.%s", f.n, f.split, key)]
			if !ok {
				t.Fatalf("record has no %s", key)
			}
			return v
		}
		cases := []struct {
			plan      string
			got, want float64
		}{
			{"fused_smem", wall(alt["load_w/ld_in_gemm"], float64(fused), alt["dequantize/fused_blocked"], float64(fused),
				conv["a_blocked_f16→mma.m16n8k16.a.f16"], float64(fused), alt["mma/a_in_registers"], float64(mma)),
				min(ns("plan.fused_smem"), ns("plan.fused_shfl"))},
			{"fused_native", wall(alt["load_w/ld_in_gemm"], float64(fused), conv["w_u4_ld→mma.m16n8k16.a.f16"], float64(fused),
				alt["dequantize/fused_native"], float64(fused), alt["mma/a_in_registers"], float64(mma)),
				ns("plan.fused_native")},
			{"unfused", wall(alt["load_w/ld_once"], float64(once), alt["dequantize/standalone"], float64(once),
				alt["mma/a_from_global"], float64(mma)),
				ns("part.unfused.dequant_kernel") + ns("part.unfused.gemm_f16")},
		}
		for _, c := range cases {
			// Each per-tile cost is rounded to 1e-4 ns.
			tol := 4 * 0.5e-4 * float64(fused+mma) / sms
			if math.Abs(c.got-c.want) > tol {
				t.Errorf("N=%d %s: costs add up to %.1f ns, measured %.1f ns (tolerance %.1f)", f.n, c.plan, c.got, c.want, tol)
			}
		}
	}
}

// Bad records are rejected with the JSON path of every problem.
func TestDecodeDequantRecordErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`[]`, []string{"$"}},
		{`{"device": "x", "sms": 0, "cuda_runtime": 1, "failures": 0}`, []string{"$.sms"}},
		{`{"device": "x", "cuda_runtime": 1, "failures": 0}`, []string{`missing "sms"`}},
		{`{"device": "x", "sms": 132, "cuda_runtime": 1, "failures": 0, "N16.split16.plan.a": -1}`, []string{`$["N16.split16.plan.a"]`}},
		{`{"device": "x", "sms": 132, "cuda_runtime": 1, "failures": 0, "N16.plan.a": 1}`, []string{`$["N16.plan.a"]`, "unknown timing key"}},
		{`{"device": "x", "sms": 132, "cuda_runtime": 1, "failures": 0, "conv.shfl.all_sms.ns_per_tile": "1"}`, []string{`$["conv.shfl.all_sms.ns_per_tile"]`}},
	} {
		_, err := DecodeDequantRecord([]byte(c.in))
		if err == nil {
			t.Errorf("%s: no error", c.in)
			continue
		}
		var ps jsonv.Problems
		if !errors.As(err, &ps) {
			t.Errorf("%s: error %v has no jsonv.Problems", c.in, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %s", c.in, err, w)
			}
		}
	}
}

// A record without the timings Measured needs says which one is missing.
func TestDequantMeasuredMissing(t *testing.T) {
	r := &DequantRecord{SMs: 132, NS: map[string]float64{"N16.split16.part.mma_loop": 1}}
	_, err := r.Measured(16, 16)
	if err == nil || !strings.Contains(err.Error(), `"N16.split16.part.no_conversion.blocked"`) {
		t.Errorf("error %v does not name the missing timing", err)
	}
	if _, err := r.Compare(16, 16); err == nil {
		t.Error("Compare of an incomplete record: no error")
	}
}

func TestDequantTiles(t *testing.T) {
	for _, c := range []struct {
		n                     int
		fused, once, mmaTiles int64
	}{
		// M/16·K/16 = 256·1024; cdiv(16, 64) = 1, cdiv(4096, 64) = 64;
		// M/16·N/8·K/16 = 256·2·1024 and 256·512·1024.
		{16, 262144, 262144, 524288},
		{4096, 16777216, 262144, 134217728},
	} {
		f, o, m := DequantTiles(c.n)
		if f != c.fused || o != c.once || m != c.mmaTiles {
			t.Errorf("DequantTiles(%d) = %d, %d, %d; want %d, %d, %d", c.n, f, o, m, c.fused, c.once, c.mmaTiles)
		}
	}
}

package hardware

import (
	"strings"
	"testing"
)

// The kernel boundary is the median over the kernels long enough that the
// host's launch interval is out of it: an empty kernel's boundary (the
// host's rate) and one barely longer do not count.
func TestKernelBoundaryLeavesOutShortKernels(t *testing.T) {
	rows := []BoundaryRow{
		{Iters: 0, KernelUS: 6.5, BoundaryStreamUS: 4.9},
		{Iters: 250, KernelUS: 8, BoundaryStreamUS: 3.6},   // < 1.5 × 6.5 µs
		{Iters: 1250, KernelUS: 13, BoundaryStreamUS: 2.2}, // counted
		{Iters: 5000, KernelUS: 34, BoundaryStreamUS: 1.8}, // counted
		{Iters: 9000, KernelUS: 60, BoundaryStreamUS: 2.0}, // counted
	}
	if ns, err := KernelBoundaryNS(rows); err != nil || ns != 2000 {
		t.Errorf("odd count: %v ns, %v; want the middle one, 2000 ns", ns, err)
	}
	rows = append(rows, BoundaryRow{Iters: 25000, KernelUS: 140, BoundaryStreamUS: 2.4})
	if ns, err := KernelBoundaryNS(rows); err != nil || ns != 2100 {
		t.Errorf("even count: %v ns, %v; want the middle two's mean, 2100 ns", ns, err)
	}
	if _, err := KernelBoundaryNS(rows[1:]); err == nil || !strings.Contains(err.Error(), "no empty kernel") {
		t.Errorf("without an empty kernel: %v", err)
	}
	if _, err := KernelBoundaryNS(rows[:2]); err == nil || !strings.Contains(err.Error(), "no kernel of 1.5×") {
		t.Errorf("without a long kernel: %v", err)
	}
}

// The recorded runs parse, and on them a CUDA graph's boundary is below the
// stream's at every kernel length, and the stream's between empty kernels
// (the host's launch interval) is above the figure.
func TestBoundaryRecord(t *testing.T) {
	rows, err := BoundaryRecord()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 2 runs of 5", len(rows))
	}
	ns, err := KernelBoundaryNS(rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.BoundaryGraphUS >= r.BoundaryStreamUS {
			t.Errorf("iters %d: graph %v µs, stream %v µs", r.Iters, r.BoundaryGraphUS, r.BoundaryStreamUS)
		}
		if r.Iters == 0 && 1000*r.BoundaryStreamUS <= ns {
			t.Errorf("empty kernels: %v µs, not above the figure %v ns", r.BoundaryStreamUS, ns)
		}
	}
}

func TestParseBoundaryErrors(t *testing.T) {
	for text, want := range map[string]string{
		"":                              "no header",
		"iters\ta\tb\tc\td\te\tf\n1\t2": "boundary.tsv:2: 2 fields, want 7",
		"iters\ta\tb\tc\td\te\tf\nx\t1\t1\t1\t1\t1\t1":   "boundary.tsv:2: strconv.Atoi",
		"iters\ta\tb\tc\td\te\tf\n1\t1\t1\tNaN\t1\t1\t1": "field 4: \"NaN\" is not a time",
	} {
		if _, err := ParseBoundary(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

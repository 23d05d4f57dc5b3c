package hardware

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/costmodel"
)

// The kernel boundary (boundary/boundary.cu, docs/hardware.md "The kernel
// boundary"): what splitting one kernel's work into K dependent kernels
// costs over running it as one, per boundary.

//go:embed boundary/record/boundary.tsv
var boundaryRun1 string

//go:embed boundary/record/boundary2.tsv
var boundaryRun2 string

// A BoundaryRow is one line of a boundary.tsv: kernels of Iters dependent
// FMA steps per thread filling the chip, times in microseconds.
type BoundaryRow struct {
	Iters int
	// KernelUS is one such kernel alone (events around one launch);
	// FusedUS one kernel of K·Iters steps; SplitStreamUS and SplitGraphUS
	// K kernels of Iters steps, launched from the host on one stream and
	// replayed from a CUDA graph.
	KernelUS, FusedUS, SplitStreamUS, SplitGraphUS float64
	// BoundaryStreamUS and BoundaryGraphUS are (split − fused) / K.
	BoundaryStreamUS, BoundaryGraphUS float64
}

// ParseBoundary reads a boundary.tsv.
func ParseBoundary(text string) ([]BoundaryRow, error) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "iters\t") {
		return nil, fmt.Errorf("boundary.tsv: no header")
	}
	var rows []BoundaryRow
	for i, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("boundary.tsv:%d: %d fields, want 7", i+2, len(f))
		}
		iters, err := strconv.Atoi(f[0])
		if err != nil {
			return nil, fmt.Errorf("boundary.tsv:%d: %w", i+2, err)
		}
		var v [6]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(f[j+1], 64); err != nil || math.IsNaN(v[j]) || math.IsInf(v[j], 0) {
				return nil, fmt.Errorf("boundary.tsv:%d: field %d: %q is not a time", i+2, j+2, f[j+1])
			}
		}
		rows = append(rows, BoundaryRow{iters, v[0], v[1], v[2], v[3], v[4], v[5]})
	}
	return rows, nil
}

// BoundaryRecord is the two runs recorded on the H200, in order.
func BoundaryRecord() ([]BoundaryRow, error) {
	var all []BoundaryRow
	for _, run := range []string{boundaryRun1, boundaryRun2} {
		rows, err := ParseBoundary(run)
		if err != nil {
			return nil, err
		}
		all = append(all, rows...)
	}
	return all, nil
}

// KernelBoundaryNS is the kernel boundary the planner charges, from the
// record's rows: the median, over the kernels that last at least 1.5× an
// empty one (their launches then queue ahead of the GPU, and the host's
// launch rate is out of the figure), of the boundary between kernels
// launched from one stream, in nanoseconds. A CUDA graph's boundary is
// lower; kernels shorter than the host's launch interval pay that interval.
func KernelBoundaryNS(rows []BoundaryRow) (float64, error) {
	empty := math.Inf(1)
	for _, r := range rows {
		if r.Iters == 0 {
			empty = min(empty, r.KernelUS)
		}
	}
	if math.IsInf(empty, 1) {
		return 0, fmt.Errorf("no empty kernel (iters 0) in the record")
	}
	var bs []float64
	for _, r := range rows {
		if r.KernelUS >= 1.5*empty {
			bs = append(bs, r.BoundaryStreamUS)
		}
	}
	if len(bs) == 0 {
		return 0, fmt.Errorf("no kernel of 1.5× an empty one (%.3g µs) in the record", empty)
	}
	slices.Sort(bs)
	m := bs[len(bs)/2]
	if len(bs)%2 == 0 {
		m = (bs[len(bs)/2-1] + m) / 2
	}
	return 1000 * m, nil
}

// WithKernelBoundary is t with launch_overhead_ns set to the record's
// kernel boundary (KernelBoundaryNS), to 3 significant digits.
func WithKernelBoundary(t *costmodel.Target) (*costmodel.Target, error) {
	rows, err := BoundaryRecord()
	if err != nil {
		return nil, err
	}
	ns, err := KernelBoundaryNS(rows)
	if err != nil {
		return nil, err
	}
	lo, hi := math.Inf(1), 0.0
	empty := math.Inf(1)
	for _, r := range rows {
		if r.Iters == 0 {
			empty = min(empty, r.KernelUS)
		}
	}
	for _, r := range rows {
		if r.KernelUS >= 1.5*empty {
			lo, hi = min(lo, r.KernelUS), max(hi, r.KernelUS)
		}
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(ns, 'g', 3, 64), 64)
	if err != nil {
		return nil, err
	}
	src := fmt.Sprintf("measured on the H200 (hardware/boundary/record, docs/hardware.md \"The kernel boundary\"): the median boundary between dependent kernels of %.3g–%.3g µs launched from one stream, over one kernel of the same work (hardware.KernelBoundaryNS); less replayed from a CUDA graph, more between kernels shorter than the host's launch interval", lo, hi)
	return t.With("launch_overhead_ns", costmodel.Figure{Value: v, Source: src})
}

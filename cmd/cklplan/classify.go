package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

var classifyCommand = &opTable[classifyRequest, *classifyRequest]{
	name:    "classify",
	summary: "classify a conversion between two distributions: class, mechanism, cost, witness",
	flags: func(fs *flag.FlagSet, q *classifyRequest) {
		fs.StringVar(&q.rename, "rename", "", "rename the source's tile axes onto the destination's: `a=b,...`")
		fs.StringVar(&q.target, "target", "h200", "cost the mechanisms on `T`: sm80, sm90, h200 or a target JSON file")
		fs.StringVar(&q.measured, "measured", "", "a measurement table (JSON `file`) that overrides the formulas; it must be measured on --target (its \"target\")")
		fs.BoolVar(&q.kernelBoundary, "kernel-boundary", false, "the source and destination run in different kernels")
		fs.StringVar(&q.element, "element", "", "type both distributions' elements as `T` (f16, f32, …), in the same register slots, as a plan types them by their ports' element (default: each its own)")
	},
	about: `SRC and DST are built-in atoms (cklplan dist list), distributions a task
graph defines (GRAPH#NAME: the file GRAPH's "distributions"), or
distribution JSON files in any form (- reads stdin). The class is the lowest level the
movement must cross: identity, register_permute, warp_shuffle,
shared_memory, cluster_shared_memory, global_memory. The mechanism is the
cheapest at or above it on the target; the others costed are listed as
rejected with their costs (a register permutation is never compared with
shuffles, which cannot be cheaper: register_permute is weighed against
shared and global memory). cost_ns is the time the conversion adds per tile and per
SM to a steady-state loop with every SM busy; latency_ns the time of one
tile in a loop of one warp on an idle SM, as the calibrated h200 target
fits it: its latencies are effective figures of such a loop, which hides
most of a shuffle's own latency (docs/hardware.md), so a shuffle plan's
latency_ns can be below one shfl.sync's; origin says whether the figure is
a formula or a measurement. --format text adds a picture of which lanes or warps send to
which; --format json writes the witness in full (every destination
register's source, the shuffle rounds, the memory accesses).
`,
	ops: []*op[*classifyRequest]{{
		operands: "SRC DST", min: 2, max: 2,
		flags: []string{"rename", "target", "measured", "kernel-boundary", "element"},
		run:   classifyRun,
	}},
}

// A classifyRequest is two distributions and the options of Classify.
type classifyRequest struct {
	src, dst       distRequest
	rename         string
	target         string
	measured       string
	kernelBoundary bool
	element        string
	in             *input
}

func (q *classifyRequest) setOperands(args []string, in *input) error {
	q.in = in
	if len(args) != 2 {
		return nil
	}
	if args[0] == "-" && args[1] == "-" {
		return errors.New("SRC and DST cannot both be read from stdin")
	}
	if err := q.src.setOperands(args[:1], in); err != nil {
		return fmt.Errorf("SRC: %w", err)
	}
	if err := q.dst.setOperands(args[1:], in); err != nil {
		return fmt.Errorf("DST: %w", err)
	}
	return nil
}

func (*classifyRequest) setTail(string, []string) error { return nil }
func (*classifyRequest) count() int                     { return 2 }

// loadTarget reads a built-in target by name or a target JSON file, under
// the cap on input bytes.
func loadTarget(arg string, in *input) (*costmodel.Target, error) {
	if slices.Contains(costmodel.TargetNames(), arg) {
		return costmodel.BuiltinTarget(arg)
	}
	data, err := in.namedFile(arg)
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, `/\`) && !strings.HasSuffix(arg, ".json") {
		return nil, badRequest("--target %q: neither a built-in target (%s) nor a file", arg, strings.Join(costmodel.TargetNames(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("--target: %w", err)
	}
	t, err := costmodel.DecodeTarget(data)
	if err != nil {
		// Every problem a line of its own, each naming the flag and file.
		return nil, inFiles(err, inputFiles{graph: "--target " + arg})
	}
	return t, nil
}

// A classifyResult is what classify prints: the classification, with the
// names it was asked about.
type classifyResult struct {
	Src       string                `json:"src"`
	Dst       string                `json:"dst"`
	Rename    string                `json:"rename,omitempty"`
	Target    string                `json:"target"`
	Class     conversion.Class      `json:"class"`
	Mechanism conversion.Mechanism  `json:"mechanism"`
	CostNS    float64               `json:"cost_ns"`
	LatencyNS float64               `json:"latency_ns"`
	Origin    costmodel.Origin      `json:"origin"`
	Detail    string                `json:"detail,omitempty"`
	Witness   *conversion.Witness   `json:"witness"`
	Rejected  []conversion.Rejected `json:"rejected"`
}

func classifyRun(q *classifyRequest, _ *env) (result, error) {
	src, err := q.src.distribution()
	if err != nil {
		return nil, err
	}
	dst, err := q.dst.distribution()
	if err != nil {
		return nil, err
	}
	if q.element != "" {
		e, err := storage.ParseElementType(q.element)
		if err != nil {
			return nil, badRequest("--element: %v", err)
		}
		if src, err = src.WithElement(e); err != nil {
			return nil, fmt.Errorf("--element: SRC: %w", err)
		}
		if dst, err = dst.WithElement(e); err != nil {
			return nil, fmt.Errorf("--element: DST: %w", err)
		}
	}
	opts := conversion.Options{KernelBoundary: q.kernelBoundary}
	if opts.Rename, err = distribution.ParseRename(q.rename); err != nil {
		return nil, badRequest("--rename: %v", err)
	}
	if opts.Target, err = loadTarget(q.target, q.in); err != nil {
		return nil, err
	}
	if q.measured != "" {
		data, err := q.in.namedFile(q.measured)
		if err != nil {
			return nil, fmt.Errorf("--measured: %w", err)
		}
		if opts.Measured, err = costmodel.DecodeMeasurements(data); err != nil {
			return nil, fmt.Errorf("--measured %s: %w", q.measured, err)
		}
		if err := opts.Measured.CheckTarget(opts.Target); err != nil {
			return nil, fmt.Errorf("--measured %s (for --target %s): %w", q.measured, q.target, err)
		}
	}
	res, err := conversion.Classify(src, dst, opts)
	if err != nil {
		return nil, err
	}
	rejected := res.Rejected
	if rejected == nil {
		rejected = []conversion.Rejected{}
	}
	return &classifyResult{
		Src: src.Name(), Dst: dst.Name(), Rename: opts.Rename.String(), Target: opts.Target.Name,
		Class: res.Class, Mechanism: res.Mechanism,
		CostNS: res.Cost.NS, LatencyNS: res.Cost.LatencyNS, Origin: res.Cost.Origin, Detail: res.Cost.Detail,
		Witness: res.Witness, Rejected: rejected,
	}, nil
}

func (r *classifyResult) writeText(w io.Writer, _ string) error {
	ren := ""
	if r.Rename != "" {
		ren = " renamed " + r.Rename
	}
	fmt.Fprintf(w, "%s -> %s%s on %s\n", r.Src, r.Dst, ren, r.Target)
	fmt.Fprintf(w, "class      %s\n", r.Class)
	fmt.Fprintf(w, "mechanism  %s\n", r.Mechanism)
	fmt.Fprintf(w, "cost       %.4g ns per tile per SM, latency %.4g ns (%s: %s)\n", r.CostNS, r.LatencyNS, r.Origin, r.Detail)
	wt := r.Witness
	switch {
	case wt.SrcElement != wt.DstElement && wt.Moved == "":
		fmt.Fprintf(w, "types      %s -> %s, converted in registers\n", wt.SrcElement, wt.DstElement)
	case wt.SrcElement != wt.DstElement:
		fmt.Fprintf(w, "types      %s -> %s, converted at the %s; %s travels\n", wt.SrcElement, wt.DstElement, wt.ConvertAt, wt.Moved)
	}
	if rp := wt.Registers; rp != nil {
		fmt.Fprintf(w, "registers  %d renames, %d prmt, %d cvt, %d selp", rp.Renames, rp.Prmt, rp.Cvt, rp.Selects)
		if rp.BitOps > 0 {
			fmt.Fprintf(w, ", %d bit operations", rp.BitOps)
		}
		if rp.SourceCvt+rp.SourcePrmt+rp.SourceALU > 0 {
			fmt.Fprintf(w, "; at the source %d cvt, %d prmt, %d shifts", rp.SourceCvt, rp.SourcePrmt, rp.SourceALU)
		}
		fmt.Fprintln(w, " (warp instructions over the tile)")
	}
	if sp := wt.Shuffle; sp != nil {
		fmt.Fprintf(w, "shuffles   %d rounds per warp (no plan sending whole registers from these copies needs fewer than %d), %d shfl.sync and %d selp over the tile\n", sp.Rounds, sp.LowerBound, sp.Shuffles, sp.Selects)
	}
	for _, m := range []struct {
		name string
		mp   *conversion.MemoryPlan
	}{{"shared", wt.Shared}, {"cluster", wt.Cluster}, {"global", wt.Global}} {
		if m.mp == nil {
			continue
		}
		mp := m.mp
		fmt.Fprintf(w, "%-10s %d bytes stored, %d loaded", m.name, mp.StoredBytes, mp.LoadedBytes)
		if mp.RemoteBytes > 0 {
			fmt.Fprintf(w, ", %d to or from other blocks", mp.RemoteBytes)
		}
		fmt.Fprintf(w, "; vectors %d/%d elements; %d stores, %d loads", mp.StoreVector, mp.LoadVector, len(mp.Stores), len(mp.Loads))
		if mp.StoreWavefronts+mp.LoadWavefronts > 0 {
			fmt.Fprintf(w, ", %d/%d wavefronts", mp.StoreWavefronts, mp.LoadWavefronts)
		}
		fmt.Fprintf(w, "; %d scratch bytes, %d round(s)", mp.ScratchBytes, mp.Rounds)
		if mp.Barriers > 0 {
			fmt.Fprintf(w, ", %d barriers", mp.Barriers)
		}
		if mp.ClusterBarriers > 0 {
			fmt.Fprintf(w, ", %d cluster barriers", mp.ClusterBarriers)
		}
		if mp.Launches > 0 {
			fmt.Fprintf(w, ", %d kernel boundary", mp.Launches)
		}
		fmt.Fprintf(w, "\n           layout %s\n", mp.Layout)
	}
	for i, rj := range r.Rejected {
		lead := "rejected  "
		if i > 0 {
			lead = "          "
		}
		fmt.Fprintf(w, "%s %s: %s\n", lead, rj.Mechanism, rj.Reason)
	}
	writeSenders(w, wt.Routes)
	return nil
}

// writeSenders draws who sends to whom: per destination warp, the source
// warps and how many elements each sends; and, for the first destination
// warp that receives from other lanes of its own warp only, each lane's
// source lanes.
func writeSenders(w io.Writer, routes []conversion.Route) {
	type warp struct{ block, warp int }
	name := func(x warp) string { return fmt.Sprintf("B%d.W%d", x.block, x.warp) }
	counts := map[warp]map[warp]int{}
	var dsts []warp
	for _, r := range routes {
		d, s := warp{r.Dst.Block, r.Dst.Warp}, warp{r.Src.Block, r.Src.Warp}
		if counts[d] == nil {
			counts[d] = map[warp]int{}
			dsts = append(dsts, d)
		}
		counts[d][s]++
	}
	cmpWarp := func(a, b warp) int { return cmp.Or(cmp.Compare(a.block, b.block), cmp.Compare(a.warp, b.warp)) }
	slices.SortFunc(dsts, cmpWarp)
	fmt.Fprintln(w, "\nwarps: destination <- source warp (elements)")
	for _, d := range dsts {
		var srcs []warp
		for s := range counts[d] {
			srcs = append(srcs, s)
		}
		slices.SortFunc(srcs, cmpWarp)
		var parts []string
		for _, s := range srcs {
			parts = append(parts, fmt.Sprintf("%s (%d)", name(s), counts[d][s]))
		}
		fmt.Fprintf(w, "  %s <- %s\n", name(d), strings.Join(parts, ", "))
	}
	// Lanes of the first destination warp that receives from other lanes.
	for _, d := range dsts {
		from := map[int]map[int]bool{}
		moves, inWarp := false, true
		for _, r := range routes {
			if r.Dst.Block != d.block || r.Dst.Warp != d.warp {
				continue
			}
			if from[r.Dst.Lane] == nil {
				from[r.Dst.Lane] = map[int]bool{}
			}
			from[r.Dst.Lane][r.Src.Lane] = true
			moves = moves || r.Src.Lane != r.Dst.Lane
			inWarp = inWarp && r.Src.Block == d.block && r.Src.Warp == d.warp
		}
		if !moves || !inWarp {
			continue
		}
		fmt.Fprintf(w, "\nlanes of %s: destination lane <- source lanes\n", name(d))
		var lanes []int
		for l := range from {
			lanes = append(lanes, l)
		}
		slices.Sort(lanes)
		cells := make([]string, 0, len(lanes))
		width := 0
		for _, l := range lanes {
			var ls []int
			for s := range from[l] {
				ls = append(ls, s)
			}
			slices.Sort(ls)
			var parts []string
			for _, s := range ls {
				parts = append(parts, fmt.Sprint(s))
			}
			c := fmt.Sprintf("%2d <- %s", l, strings.Join(parts, ","))
			cells = append(cells, c)
			width = max(width, len(c))
		}
		for i := 0; i < len(cells); i += 4 {
			var line strings.Builder
			for j := i; j < min(i+4, len(cells)); j++ {
				fmt.Fprintf(&line, "  %-*s", width, cells[j])
			}
			fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
		}
		break
	}
}

package hardware

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// A ConvCase is one conversion the hardware check lowers: the pair it comes
// from, the witness (Classify's, or a variant of it that Replay accepted),
// and its lowered program. Negative cases are deliberately broken: the
// check must catch them.
type ConvCase struct {
	Name     string
	Src, Dst string // the distributions' fingerprints
	Rename   string // the tile renaming, "" for none
	Class    conversion.Class
	Variant  string // how the witness differs from Classify's, "" for none
	Negative bool
	Witness  *conversion.Witness
	Program  *ConvProgram
}

type convPair struct {
	name     string
	src, dst *distribution.Distribution
	opts     conversion.Options
}

//go:embed convcheck/record/target.json
var recordTargetJSON []byte

// RecordTarget is the h200 target as it was when the recorded witnesses were
// classified and lowered, before its calibration: the cases are classified
// with it, so that they stay the programs the record measured whatever the
// built-in h200 target now prefers.
func RecordTarget() (*costmodel.Target, error) {
	t, err := costmodel.DecodeTarget(recordTargetJSON)
	if err != nil {
		return nil, fmt.Errorf("convcheck/record/target.json: %w", err)
	}
	return t, nil
}

func builtinDist(name string) (*distribution.Distribution, error) { return distribution.Builtin(name) }

// convPairs are the distribution pairs of the check: at least one per class
// from register_permute to cluster_shared_memory, with the patterns that
// matter (conversions of type, pure renames, shuffles with and without
// selects, an intra-warp all-to-all that shared memory wins, a cross-warp
// transpose, a swap of two blocks' rows in a cluster).
func convPairs() ([]convPair, error) {
	var errs []error
	must := func(d *distribution.Distribution, err error) *distribution.Distribution {
		if err != nil {
			errs = append(errs, err)
		}
		return d
	}
	rename := func(s string) distribution.Rename {
		r, err := distribution.ParseRename(s)
		if err != nil {
			errs = append(errs, err)
		}
		return r
	}
	blocked := func(name string, b distribution.Blocked) *distribution.Distribution {
		b.Name = name
		return must(distribution.NewBlocked(b))
	}
	a := must(builtinDist("mma.m16n8k16.a.f16"))
	acc := must(builtinDist("mma.m16n8k16.c.f32"))
	var acc2 *distribution.Distribution
	if acc != nil {
		acc2 = must(distribution.TileAtom(acc, distribution.Tiling{Name: "acc2.f32", Repeat: map[string]int{"n": 2}}))
	}
	rows := func(swapped bool) *distribution.Distribution {
		own := "block"
		if swapped {
			own = "1 - block"
		}
		return must(distribution.New(distribution.Spec{Name: "block_rows", BlocksPerCluster: 2,
			Executors: []distribution.ExecutorAxis{{Name: "block", Size: 2, Level: distribution.LevelBlock}, {Name: "lane", Size: 32, Level: distribution.LevelLane}},
			Tile:      []distribution.Axis{{Name: "b", Size: 2}, {Name: "x", Size: 32}},
			Ownership: []string{own, "lane"}}))
	}
	pairs := []convPair{
		{"rp_acc_to_a_cvt", acc2, a, conversion.Options{Rename: rename("n=k")}},
		{"rp_ldmatrix_trans_rename", must(builtinDist("ldmatrix.x4.trans")), a, conversion.Options{Rename: rename("row=k,col=m")}},
		{"ws_blocked_a_selects", blocked("blocked.a", distribution.Blocked{Axes: []string{"m", "k"}, Shape: []int{16, 16}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{16, 2}, WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}, Element: storage.F16}), a, conversion.Options{}},
		{"ws_c_to_b", must(builtinDist("mma.m16n8k16.c.f16")), must(builtinDist("mma.m16n8k16.b.f16")), conversion.Options{Rename: rename("m=k")}},
		{"ws_ldmatrix_transposed", must(builtinDist("ldmatrix.x4")), a, conversion.Options{Rename: rename("row=k,col=m")}},
		{"sm_k_major_to_a", blocked("blocked.kmajor", distribution.Blocked{Axes: []string{"m", "k"}, Shape: []int{16, 16}, SizePerThread: []int{8, 1}, ThreadsPerWarp: []int{2, 16}, WarpsPerCTA: []int{1, 1}, Order: []int{0, 1}, Element: storage.F16}), a, conversion.Options{}},
		{"sm_transpose_f32", blocked("rows", distribution.Blocked{Axes: []string{"m", "n"}, Shape: []int{32, 32}, SizePerThread: []int{1, 4}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}}),
			blocked("columns", distribution.Blocked{Axes: []string{"m", "n"}, Shape: []int{32, 32}, SizePerThread: []int{4, 1}, ThreadsPerWarp: []int{8, 4}, WarpsPerCTA: []int{1, 4}, Order: []int{0, 1}}), conversion.Options{}},
		{"sm_transpose_f16", blocked("rows.f16", distribution.Blocked{Axes: []string{"m", "n"}, Shape: []int{64, 64}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}, Element: storage.F16}),
			blocked("columns.f16", distribution.Blocked{Axes: []string{"m", "n"}, Shape: []int{64, 64}, SizePerThread: []int{8, 1}, ThreadsPerWarp: []int{8, 4}, WarpsPerCTA: []int{1, 4}, Order: []int{0, 1}, Element: storage.F16}), conversion.Options{}},
		{"cl_block_swap", rows(false), rows(true), conversion.Options{}},
	}
	target, err := RecordTarget()
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	for i := range pairs {
		pairs[i].opts.Target = target
	}
	return pairs, nil
}

// ConversionCases classifies every pair, replays and lowers its witness,
// adds the variants (the shared-memory conversions through a row-major
// scratch with its bank conflicts, and with one-element stores; the cluster
// swap pulled instead of pushed; an exchange inside one warp by the
// mechanism Classify ranked next, shuffles or shared memory), each replayed
// by conversion.Replay before it is lowered, and one negative case (a
// shuffle plan whose first round reads the wrong lanes).
func ConversionCases() ([]ConvCase, error) {
	pairs, err := convPairs()
	if err != nil {
		return nil, err
	}
	var out []ConvCase
	add := func(pr convPair, res *conversion.Result, w *conversion.Witness, variant string) error {
		if err := conversion.Replay(pr.src, pr.dst, pr.opts, w); err != nil {
			return fmt.Errorf("%s %s: %w", pr.name, variant, err)
		}
		name := pr.name
		if variant != "" {
			name += "_" + variant
		}
		p, err := LowerConversion(name, w)
		if err != nil {
			return err
		}
		if bad := p.Check(); bad != 0 {
			return fmt.Errorf("%s: the lowered program gets %d registers wrong on the CPU", name, bad)
		}
		out = append(out, ConvCase{Name: name, Src: pr.src.Fingerprint().String(), Dst: pr.dst.Fingerprint().String(),
			Rename: pr.opts.Rename.String(), Class: res.Class, Variant: variant, Witness: w, Program: p})
		return nil
	}
	for _, pr := range pairs {
		res, err := conversion.Classify(pr.src, pr.dst, pr.opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pr.name, err)
		}
		if err := add(pr, res, res.Witness, ""); err != nil {
			return nil, err
		}
		if w := res.Witness; w.Shared != nil {
			rm, err := rowMajorShared(w, pr.dst.TileSizes())
			if err != nil {
				return nil, fmt.Errorf("%s rowmajor: %w", pr.name, err)
			}
			if err := add(pr, res, rm, "rowmajor"); err != nil {
				return nil, err
			}
			if w.Shared.StoreVector > 1 && w.Shared.StoreVector*pr.dst.Element().Bits() > 16 {
				ss, err := scalarStores(w)
				if err != nil {
					return nil, fmt.Errorf("%s scalar_stores: %w", pr.name, err)
				}
				if err := add(pr, res, ss, "scalar_stores"); err != nil {
					return nil, err
				}
			}
		}
		if w := res.Witness; w.Cluster != nil {
			fl, err := flipPushPull(w)
			if err != nil {
				return nil, fmt.Errorf("%s flipped: %w", pr.name, err)
			}
			if err := add(pr, res, fl, "flipped"); err != nil {
				return nil, err
			}
		}
		// The same pair by the mechanism Classify ranked next, where the
		// chosen one is a shuffle or shared memory: both ways of an
		// exchange inside one warp, measured.
		if via := res.Mechanism.Via; via == conversion.WarpShuffle || (via == conversion.SharedMemory && res.Class == conversion.WarpShuffle) {
			opts := pr.opts
			opts.Exclude = []conversion.Class{via}
			alt, err := conversion.Classify(pr.src, pr.dst, opts)
			if err != nil {
				return nil, fmt.Errorf("%s without %s: %w", pr.name, via, err)
			}
			if err := add(pr, res, alt.Witness, "via_"+alt.Mechanism.Via.String()); err != nil {
				return nil, err
			}
		}
	}
	// The negative case: the first shuffle round of the blocked A conversion
	// reads every lane's neighbour.
	for _, c := range out {
		if c.Name != "ws_blocked_a_selects" {
			continue
		}
		p, err := LowerConversion("neg_shuffle_wrong_lane", c.Witness)
		if err != nil {
			return nil, err
		}
		for t := range p.Rounds[0].From {
			p.Rounds[0].From[t] ^= 1
		}
		out = append(out, ConvCase{Name: p.Name, Src: c.Src, Dst: c.Dst, Rename: c.Rename, Class: c.Class,
			Variant: "wrong lanes in round 0", Negative: true, Witness: c.Witness, Program: p})
	}
	return out, nil
}

// rowMajorShared is w with its shared scratch laid out row-major (element
// e at byte e·size): the layout with the bank conflicts that the chosen
// swizzle or padding avoids, its wavefronts counted anew.
func rowMajorShared(w *conversion.Witness, sizes []int) (*conversion.Witness, error) {
	v := *w
	mp := *w.Shared
	mb := int64(mp.StoredBytes * 8 / max(countLanes(mp.Stores)*mp.StoreVector, 1))
	flat := func(tile []int) int64 {
		e := 0
		for i, c := range tile {
			e = e*sizes[i] + c
		}
		return int64(e)
	}
	remap := func(as []conversion.MemAccess) []conversion.MemAccess {
		out := slices.Clone(as)
		for i := range out {
			out[i].Lanes = slices.Clone(out[i].Lanes)
			for j := range out[i].Lanes {
				out[i].Lanes[j].Bit = flat(out[i].Lanes[j].Tile) * mb
			}
			out[i].Wavefronts = 0
		}
		return out
	}
	mp.Stores, mp.Loads = remap(mp.Stores), remap(mp.Loads)
	n := int64(1)
	for _, s := range sizes {
		n *= int64(s)
	}
	mp.ScratchBytes = int(n * mb / 8)
	chosen, err := storage.Parse(mp.Layout)
	if err != nil {
		return nil, err
	}
	rm, err := storage.RowMajor(chosen.Tile(), 0, storage.Config{Memory: storage.Shared, Element: chosen.Element(), Unit: chosen.Unit(), BaseAlign: storage.WavefrontBytes})
	if err != nil {
		return nil, err
	}
	mp.Layout = rm.String()
	if err := countWavefronts(&mp, int(mb)); err != nil {
		return nil, err
	}
	v.Shared = &mp
	return &v, nil
}

// countWavefronts sets the wavefronts of every access of mp whose lanes
// all reach their own block's shared memory to the bank model's for its
// addresses (0 for the others: a cluster's remote accesses), and the
// plan's totals to their sums, as Classify counts them; mb is the moved
// element's width in bits.
func countWavefronts(mp *conversion.MemoryPlan, mb int) error {
	mp.StoreWavefronts, mp.LoadWavefronts = 0, 0
	for _, side := range []struct {
		as    []conversion.MemAccess
		op    storage.Op
		total *int
	}{{mp.Stores, storage.Store, &mp.StoreWavefronts}, {mp.Loads, storage.Load, &mp.LoadWavefronts}} {
		for i, a := range side.as {
			var lanes []storage.LaneAddress
			local := len(a.Lanes) > 0
			for _, la := range a.Lanes {
				local = local && la.Memory == a.Block
				lanes = append(lanes, storage.LaneAddress{Lane: la.Lane, Byte: la.Bit / 8})
			}
			side.as[i].Wavefronts = 0
			if !local {
				continue
			}
			wf, err := storage.CountWavefronts(side.op, a.Vector*mb/8, lanes)
			if err != nil {
				return err
			}
			side.as[i].Wavefronts = wf.Total
			*side.total += wf.Total
		}
	}
	return nil
}

func countLanes(as []conversion.MemAccess) int {
	n := 0
	for _, a := range as {
		n += len(a.Lanes)
	}
	return n
}

// scalarStores is w with every vector store split into one store per
// element, its wavefronts counted anew.
func scalarStores(w *conversion.Witness) (*conversion.Witness, error) {
	v := *w
	mp := *w.Shared
	mb := int64(mp.StoredBytes * 8 / max(countLanes(mp.Stores)*mp.StoreVector, 1))
	var out []conversion.MemAccess
	for _, a := range mp.Stores {
		for i := range a.Vector {
			b := conversion.MemAccess{Block: a.Block, Warp: a.Warp, Vector: 1}
			for _, la := range a.Lanes {
				la.Slot += i
				la.Bit += int64(i) * mb
				if n := len(la.Tile); n > 0 {
					la.Tile = slices.Clone(la.Tile)
					la.Tile[n-1] += i
				}
				b.Lanes = append(b.Lanes, la)
			}
			out = append(out, b)
		}
	}
	mp.Stores, mp.StoreVector, mp.Loads = out, 1, slices.Clone(mp.Loads)
	if err := countWavefronts(&mp, int(mb)); err != nil {
		return nil, err
	}
	v.Shared = &mp
	return &v, nil
}

// flipPushPull turns a cluster plan that pushes (sources store into the
// destination block's scratch) into one that pulls (sources store into
// their own block's, destinations load from it), or back: every element
// keeps its address, in the other block's scratch. An element's new home is
// the block that stores it (push to pull) or loads it (pull to push). The
// wavefronts are counted anew: the local accesses are the other side's.
func flipPushPull(w *conversion.Witness) (*conversion.Witness, error) {
	v := *w
	mp := *w.Cluster
	mb := mp.StoredBytes * 8 / max(countLanes(mp.Stores)*mp.StoreVector, 1)
	push := w.Mechanism.Variant == "push"
	home := map[string]int{}
	from := mp.Loads
	if push {
		from = mp.Stores
	}
	for _, a := range from {
		for _, la := range a.Lanes {
			home[fmt.Sprint(la.Tile)] = a.Block
		}
	}
	rehome := func(as []conversion.MemAccess) []conversion.MemAccess {
		out := slices.Clone(as)
		for i := range out {
			out[i].Lanes = slices.Clone(out[i].Lanes)
			for j := range out[i].Lanes {
				if b, ok := home[fmt.Sprint(out[i].Lanes[j].Tile)]; ok {
					out[i].Lanes[j].Memory = b
				}
			}
		}
		return out
	}
	mp.Stores, mp.Loads = rehome(mp.Stores), rehome(mp.Loads)
	v.Mechanism.Variant = map[bool]string{true: "pull", false: "push"}[push]
	if err := countWavefronts(&mp, mb); err != nil {
		return nil, err
	}
	v.Cluster = &mp
	return &v, nil
}

// GenerateConversions returns the CUDA program of the conversion check:
// every case's kernel and tables, and the harness that checks each on the
// GPU (every destination register of every thread) and times it.
func GenerateConversions(cases []ConvCase) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(convHeader)
	var names []string
	for _, c := range cases {
		src, err := GenerateConversion(c.Program)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "// ---- %s (class %s, mechanism %s", c.Name, c.Class, c.Witness.Mechanism)
		if c.Variant != "" {
			fmt.Fprintf(&b, ", variant: %s", c.Variant)
		}
		b.WriteString(")\n")
		b.Write(src)
		names = append(names, fmt.Sprintf("{&case_%s, %v}", c.Name, c.Negative))
	}
	fmt.Fprintf(&b, "static const CaseRef cases[] = {\n    %s};\n", joinLines(names))
	b.WriteString(convMain)
	return b.Bytes(), nil
}

func joinLines(xs []string) string {
	var b bytes.Buffer
	for i, x := range xs {
		if i > 0 {
			b.WriteString(",\n    ")
		}
		b.WriteString(x)
	}
	return b.String()
}

package conversion

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// corpus returns groups of distributions over one tile (after the renaming
// given with each), every ordered pair of a group a conversion.
func corpus(t testing.TB) [][]renamed {
	a := builtin(t, "mma.m16n8k16.a.f16")
	a16 := func(b distribution.Blocked) *distribution.Distribution {
		b.Axes, b.Shape, b.Element = []string{"m", "k"}, []int{16, 16}, storage.F16
		return blocked(t, b)
	}
	mmaK := func(d *distribution.Distribution) *distribution.Distribution {
		k, err := d.WithElement(storage.F16)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	c32 := builtin(t, "mma.m16n8k16.c.f32")
	c8, err := c32.WithElement(storage.F8E4M3)
	if err != nil {
		t.Fatal(err)
	}
	c4, err := c32.WithElement(storage.U4)
	if err != nil {
		t.Fatal(err)
	}
	c64, err := c32.WithElement(storage.F64)
	if err != nil {
		t.Fatal(err)
	}
	b64, err := builtin(t, "mma.m16n8k16.b.f16").WithElement(storage.F64)
	if err != nil {
		t.Fatal(err)
	}
	return [][]renamed{
		{ // (m:16, k:16)
			{a, ""}, {builtin(t, "mma.m16n8k16.a.bf16"), ""},
			{builtin(t, "ldmatrix.x4"), "row=m,col=k"}, {builtin(t, "ldmatrix.x4.trans"), "row=k,col=m"},
			{blockedA(t), ""},
			{a16(distribution.Blocked{SizePerThread: []int{2, 2}, ThreadsPerWarp: []int{8, 4}, WarpsPerCTA: []int{1, 1}, Order: []int{0, 1}}), ""},
			{a16(distribution.Blocked{SizePerThread: []int{1, 1}, ThreadsPerWarp: []int{2, 16}, WarpsPerCTA: []int{2, 1}, Order: []int{1, 0}}), ""},
			{mmaK(twoAccumulators(t)), "n=k"}, {twoAccumulators(t), "n=k"},
		},
		{ // (m:16, n:8)
			{c32, ""}, {builtin(t, "mma.m16n8k16.c.f16"), ""}, {c8, ""}, {c4, ""}, {c64, ""},
			{builtin(t, "mma.m16n8k16.b.f16"), "k=m"}, {b64, "k=m"},
		},
		{{rowsOfWarps(t), ""}, {columnsOfWarps(t), ""}},
		{{blockRows(t, false, 2), ""}, {blockRows(t, true, 2), ""}, {blockRows(t, true, 1), ""}},
		{{halves(t, true), ""}, {halves(t, false), ""}},
	}
}

type renamed struct {
	d      *distribution.Distribution
	rename string // to the group's tile axes
}

// Every mechanism Classify considers, chosen or not, replays to exactly
// the destination's ownership, on every pair of the corpus.
func TestReplayEveryMechanism(t *testing.T) {
	tg := target(t, "h200")
	for gi, group := range corpus(t) {
		for _, from := range group {
			for _, to := range group {
				name := fmt.Sprintf("%d/%s(%s)->%s(%s)", gi, from.d.Name(), from.d.Element(), to.d.Name(), to.d.Element())
				// Rename the source onto the group's names, and the group's
				// names onto the destination's.
				src, dst := corpusPair(t, from, to)
				p, err := newProblem(src, dst, Options{})
				if err != nil {
					if src.Element() != dst.Element() && max(src.Element().Bits(), dst.Element().Bits()) > 32 && strings.Contains(err.Error(), "64-bit types are not modelled") {
						continue
					}
					t.Fatalf("%s: %v", name, err)
				}
				class := p.class()
				planned := 0
				for _, m := range p.mechanisms(class) {
					w, why := p.plan(m, class, tg)
					if why != "" {
						continue
					}
					planned++
					if err := Replay(src, dst, Options{}, w); err != nil {
						t.Errorf("%s by %v: %v", name, m, err)
					}
				}
				if planned == 0 {
					t.Errorf("%s: no mechanism could be planned", name)
				}
			}
		}
	}
}

// Replay is a real check: a witness with one piece, one shuffle or one
// address changed fails it.
func TestReplayCatchesMistakes(t *testing.T) {
	tg := target(t, "h200")
	a := builtin(t, "mma.m16n8k16.a.f16")
	cases := []struct {
		name     string
		src, dst *distribution.Distribution
		opts     Options
		via      Class
		break_   func(w *Witness) bool
	}{
		{"register piece", twoAccumulators(t), a, Options{Rename: rename(t, "n=k")}, RegisterPermute, func(w *Witness) bool {
			w.Registers.Ops[0].Pieces[0].Reg++
			return true
		}},
		{"shuffle source lane", blockedA(t), a, Options{}, WarpShuffle, func(w *Witness) bool {
			for _, r := range w.Shuffle.Warps[0].Rounds {
				for l, f := range r.From {
					if f >= 0 {
						r.From[l] = (f + 2) % 32
						return true
					}
				}
			}
			return false
		}},
		{"shared address", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			w.Shared.Loads[0].Lanes[0].Bit += 32
			return true
		}},
		{"route", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			w.Routes[5].Src.Lane ^= 1
			return true
		}},
		// Broken in what the cost reads, not in the bits the destination
		// ends with: a prmt passed off as a free rename, the barrier
		// between the stores and the loads left out, a store written twice
		// (a race: the bits are right only in replay's order), a block
		// reaching another block's shared memory.
		{"a prmt passed off as a rename", pairOfHalves(t, false), pairOfHalves(t, true), Options{}, RegisterPermute, func(w *Witness) bool {
			for i, op := range w.Registers.Ops {
				if op.Kind == "prmt" {
					w.Registers.Ops[i].Kind = "rename"
					return true
				}
			}
			return false
		}},
		{"no barrier", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			w.Shared.Barriers = 0
			return true
		}},
		{"a store written twice", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			w.Shared.Stores = append(w.Shared.Stores, w.Shared.Stores[0])
			return true
		}},
		{"another block's shared memory", blockRows(t, false, 2), blockRows(t, true, 2), Options{}, GlobalMemory, func(w *Witness) bool {
			w.Shared, w.Global = w.Global, nil
			w.Mechanism = Mechanism{Via: SharedMemory}
			for i := range w.Shared.Loads {
				for j := range w.Shared.Loads[i].Lanes {
					w.Shared.Loads[i].Lanes[j].Memory = 0
				}
			}
			for i := range w.Shared.Stores {
				for j := range w.Shared.Stores[i].Lanes {
					w.Shared.Stores[i].Lanes[j].Memory = 0
				}
			}
			return true
		}},
		// Broken in the representation, the scope of the barrier, or the
		// shape of an access, with the bits still in place.
		{"a cvt passed off as a prmt between types of one width", mustElement(t, a, storage.F16), mustElement(t, builtin(t, "mma.m16n8k16.a.bf16"), storage.BF16), Options{}, RegisterPermute, func(w *Witness) bool {
			for i, op := range w.Registers.Ops {
				if op.Kind == "cvt" {
					w.Registers.Ops[i].Kind = "prmt"
					return true
				}
			}
			return false
		}},
		{"identity between types of one width", mustElement(t, a, storage.F16), mustElement(t, builtin(t, "mma.m16n8k16.a.bf16"), storage.BF16), Options{}, RegisterPermute, func(w *Witness) bool {
			w.Mechanism, w.Registers = Mechanism{Via: Identity}, nil
			return true
		}},
		{"a cvt of half an element", builtin(t, "mma.m16n8k16.c.f32"), builtin(t, "mma.m16n8k16.c.f16"), Options{}, RegisterPermute, func(w *Witness) bool {
			for i, op := range w.Registers.Ops {
				if op.Kind == "cvt" {
					w.Registers.Ops[i].Pieces[0].Bits = 16
					return true
				}
			}
			return false
		}},
		{"bar.sync across the blocks of a cluster", blockRows(t, false, 2), blockRows(t, true, 2), Options{}, ClusterSharedMemory, func(w *Witness) bool {
			w.Cluster.Barriers, w.Cluster.ClusterBarriers = w.Cluster.ClusterBarriers, 0
			return true
		}},
		{"bar.sync across clusters", blockRows(t, false, 1), blockRows(t, true, 1), Options{}, GlobalMemory, func(w *Witness) bool {
			w.Global.Barriers, w.Global.Launches = 2, 0
			return true
		}},
		{"a cluster barrier across clusters", blockRows(t, false, 1), blockRows(t, true, 1), Options{}, GlobalMemory, func(w *Witness) bool {
			w.Global.ClusterBarriers, w.Global.Launches = 2, 0
			return true
		}},
		{"bar.sync across a kernel boundary", rowsOfWarps(t), columnsOfWarps(t), Options{KernelBoundary: true}, GlobalMemory, func(w *Witness) bool {
			w.Global.Barriers, w.Global.Launches = 2, 0
			return true
		}},
		{"two accesses of a warp merged into one", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			s := w.Shared.Stores
			if len(s) < 2 || s[0].Block != s[1].Block || s[0].Warp != s[1].Warp {
				return false
			}
			s[0].Lanes = append(slices.Clone(s[0].Lanes), s[1].Lanes...)
			w.Shared.Stores = slices.Delete(s, 1, 2)
			return true
		}},
		{"every address one element off", rowsOfWarps(t), columnsOfWarps(t), Options{}, GlobalMemory, func(w *Witness) bool {
			for _, list := range [][]MemAccess{w.Global.Stores, w.Global.Loads} {
				for i := range list {
					for j := range list[i].Lanes {
						list[i].Lanes[j].Bit += 32
					}
				}
			}
			return w.Global.StoreVector > 1
		}},
		// The scratch's layout and the wavefronts the cost reads: a layout
		// claimed that the addresses are not, wavefronts that are not the
		// bank model's for the addresses, totals that are not the sum.
		{"a layout the addresses are not", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			return claimOtherLayout(t, w.Shared)
		}},
		{"a layout of f16 the addresses are not", blockedA(t), a, Options{}, SharedMemory, func(w *Witness) bool {
			return claimOtherLayout(t, w.Shared)
		}},
		{"fewer wavefronts than the addresses cost", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			for i, a := range w.Shared.Loads {
				if a.Wavefronts > 1 {
					w.Shared.Loads[i].Wavefronts--
					w.Shared.LoadWavefronts--
					return true
				}
			}
			for i, a := range w.Shared.Stores {
				if a.Wavefronts > 1 {
					w.Shared.Stores[i].Wavefronts--
					w.Shared.StoreWavefronts--
					return true
				}
			}
			w.Shared.Stores[0].Wavefronts--
			w.Shared.StoreWavefronts--
			return true
		}},
		{"more wavefronts than the addresses cost", pairOfHalves(t, false), pairOfHalves(t, true), Options{}, SharedMemory, func(w *Witness) bool {
			w.Shared.Loads[0].Wavefronts++
			w.Shared.LoadWavefronts++
			return true
		}},
		{"a wavefront total that is not the sum", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			w.Shared.StoreWavefronts--
			return true
		}},
		{"wavefronts of a local access through distributed shared memory", blockRows(t, false, 2), blockRows(t, true, 2), Options{}, ClusterSharedMemory, func(w *Witness) bool {
			for _, list := range [][]MemAccess{w.Cluster.Stores, w.Cluster.Loads} {
				for i, a := range list {
					if a.Wavefronts > 0 {
						list[i].Wavefronts = 0
						w.Cluster.StoreWavefronts, w.Cluster.LoadWavefronts = 0, 0
						return true
					}
				}
			}
			return false
		}},
		// The barriers the plan documents: two per tile (publish, and free
		// the scratch for the next tile), the second left out.
		{"the shared scratch never freed", rowsOfWarps(t), columnsOfWarps(t), Options{}, SharedMemory, func(w *Witness) bool {
			w.Shared.Barriers = 1
			return true
		}},
		{"the cluster scratch never freed", blockRows(t, false, 2), blockRows(t, true, 2), Options{}, ClusterSharedMemory, func(w *Witness) bool {
			w.Cluster.ClusterBarriers = 1
			return true
		}},
		{"the global buffer of a block never freed", rowsOfWarps(t), columnsOfWarps(t), Options{}, GlobalMemory, func(w *Witness) bool {
			w.Global.Barriers = 1
			return true
		}},
		{"the global buffer of a cluster never freed", blockRows(t, false, 2), blockRows(t, true, 2), Options{}, GlobalMemory, func(w *Witness) bool {
			w.Global.ClusterBarriers = 1
			return true
		}},
	}
	for _, tc := range cases {
		p, err := newProblem(tc.src, tc.dst, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		w, why := p.plan(Mechanism{Via: tc.via}, p.class(), tg)
		if why != "" {
			t.Fatalf("%s: %s", tc.name, why)
		}
		if err := Replay(tc.src, tc.dst, tc.opts, w); err != nil {
			t.Fatalf("%s: the intact witness fails: %v", tc.name, err)
		}
		if !tc.break_(w) {
			t.Fatalf("%s: nothing to break", tc.name)
		}
		if err := Replay(tc.src, tc.dst, tc.opts, w); err == nil {
			t.Errorf("%s: a broken witness replays", tc.name)
		}
	}
}

// claimOtherLayout gives a shared plan the layout string of another
// candidate (a swizzle where the addresses are row-major or padded, the
// plain row-major layout where they are swizzled), its addresses and
// wavefronts unchanged.
func claimOtherLayout(t testing.TB, mp *MemoryPlan) bool {
	t.Helper()
	l, err := storage.Parse(mp.Layout)
	if err != nil {
		t.Fatal(err)
	}
	cands, err := storage.SharedCandidates(l.Tile(), l.Element())
	if err != nil {
		t.Fatal(err)
	}
	_, swizzled := l.Swizzle()
	for _, c := range cands {
		if _, sw := c.Swizzle(); sw != swizzled {
			mp.Layout = c.String()
			return true
		}
	}
	return false
}

// corpusPair is the conversion from one corpus entry to another of its
// group: the source renamed onto the group's names, the group's names onto
// the destination's.
func corpusPair(t testing.TB, from, to renamed) (src, dst *distribution.Distribution) {
	t.Helper()
	src, err := from.d.RenameTile(rename(t, from.rename))
	if err != nil {
		t.Fatal(err)
	}
	if dst, err = to.d.RenameTile(rename(t, to.rename)); err != nil {
		t.Fatal(err)
	}
	return src, dst
}

// pairOfHalves is a tile (l:32, x:2) of f16, lane l holding row l in one
// register: x in order, or swapped (the halves exchanged, one prmt).
func pairOfHalves(t testing.TB, swapped bool) *distribution.Distribution {
	t.Helper()
	own := "v"
	if swapped {
		own = "1 - v"
	}
	d, err := distribution.New(distribution.Spec{Name: "halves", Element: storage.F16,
		Executors: []distribution.ExecutorAxis{{Name: "lane", Size: 32, Level: distribution.LevelLane}},
		Locals:    []distribution.Axis{{Name: "v", Size: 2}},
		Tile:      []distribution.Axis{{Name: "l", Size: 32}, {Name: "x", Size: 2}},
		Ownership: []string{"lane", own}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Rows of three elements, each lane holding one row: no vector wider than
// an element fits a row (a run of two or four would need slots the lane
// does not have, or cross into the next row), so every memory mechanism
// stores and loads one element at a time, and replays.
func TestRowsOfOddLength(t *testing.T) {
	tg := target(t, "h200")
	rows := func(shift int, elem storage.ElementType) *distribution.Distribution {
		tab := distribution.Tabulation{Name: "rows", Tile: []string{"x", "y"}, Sizes: []int{64, 3}, Element: elem,
			Levels: []distribution.Level{distribution.LevelWarp, distribution.LevelLane}}
		for e := range 64 {
			for v := range 3 {
				tab.Entries = append(tab.Entries, distribution.Entry{Warp: e / 32, Lane: e % 32, Value: v, Slot: -1, Tile: []int{(e + shift) % 64, v}})
			}
		}
		d, err := distribution.NewTabulated(tab)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, elem := range []storage.ElementType{storage.F32, storage.F16, storage.F8E4M3} {
		src, dst := rows(0, elem), rows(32, elem)
		for _, opts := range []Options{{}, {KernelBoundary: true}} {
			p, err := newProblem(src, dst, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range p.mechanisms(p.class()) {
				w, why := p.plan(m, p.class(), tg)
				if why != "" {
					continue
				}
				if err := Replay(src, dst, opts, w); err != nil {
					t.Errorf("%v by %v (kernel boundary %v): %v", elem, m, opts.KernelBoundary, err)
				}
				for _, mp := range []*MemoryPlan{w.Shared, w.Cluster, w.Global} {
					if mp != nil && (mp.StoreVector != 1 || mp.LoadVector != 1) {
						t.Errorf("%v by %v: vectors %d/%d on rows of 3", elem, m, mp.StoreVector, mp.LoadVector)
					}
				}
			}
		}
	}
}

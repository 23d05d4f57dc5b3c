package conversion

import (
	"strings"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

func builtin(t testing.TB, name string) *distribution.Distribution {
	t.Helper()
	d, err := distribution.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func rename(t testing.TB, s string) distribution.Rename {
	t.Helper()
	r, err := distribution.ParseRename(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// twoAccumulators is the f32 accumulator of two adjacent m16n8k16 tiles:
// (m:16, n:16), each lane holding both tiles' c0…c3.
func twoAccumulators(t testing.TB) *distribution.Distribution {
	t.Helper()
	d, err := distribution.TileAtom(builtin(t, "mma.m16n8k16.c.f32"), distribution.Tiling{Name: "acc2", Repeat: map[string]int{"n": 2}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func blocked(t testing.TB, b distribution.Blocked) *distribution.Distribution {
	t.Helper()
	d, err := distribution.NewBlocked(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// rowsOfWarps is Triton's blocked (32, 32) tile, warps along m, four
// consecutive n per thread; columnsOfWarps is its transpose: warps along n,
// four consecutive m per thread.
func rowsOfWarps(t testing.TB) *distribution.Distribution {
	return blocked(t, distribution.Blocked{Name: "rows", Axes: []string{"m", "n"}, Shape: []int{32, 32}, SizePerThread: []int{1, 4}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}})
}

func columnsOfWarps(t testing.TB) *distribution.Distribution {
	return blocked(t, distribution.Blocked{Name: "columns", Axes: []string{"m", "n"}, Shape: []int{32, 32}, SizePerThread: []int{4, 1}, ThreadsPerWarp: []int{8, 4}, WarpsPerCTA: []int{1, 4}, Order: []int{0, 1}})
}

// blockedA is a blocked (16, 16) f16 tile, eight consecutive k per thread,
// as Triton loads an A tile before converting it to the mma operand.
func blockedA(t testing.TB) *distribution.Distribution {
	return blocked(t, distribution.Blocked{Name: "blocked.a", Axes: []string{"m", "k"}, Shape: []int{16, 16}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{16, 2}, WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}, Element: storage.F16})
}

// blockRows is a tile (b:2, x:32) over two blocks of one warp: block i
// holds row i (swapped: row 1-i), in clusters of k blocks.
func blockRows(t testing.TB, swapped bool, k int) *distribution.Distribution {
	t.Helper()
	own := "block"
	if swapped {
		own = "1 - block"
	}
	d, err := distribution.New(distribution.Spec{Name: "rows", BlocksPerCluster: k,
		Executors: []distribution.ExecutorAxis{{Name: "block", Size: 2, Level: distribution.LevelBlock}, {Name: "lane", Size: 32, Level: distribution.LevelLane}},
		Tile:      []distribution.Axis{{Name: "b", Size: 2}, {Name: "x", Size: 32}},
		Ownership: []string{own, "lane"}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func classify(t *testing.T, src, dst *distribution.Distribution, opts Options) *Result {
	t.Helper()
	res, err := Classify(src, dst, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := Replay(src, dst, opts, res.Witness); err != nil {
		t.Fatal(err)
	}
	return res
}

func expect(t *testing.T, res *Result, class Class, via Class) {
	t.Helper()
	if res.Class != class || res.Mechanism.Via != via {
		t.Errorf("class %v by %v, want %v by %v (rejected %+v)", res.Class, res.Mechanism, class, via, res.Rejected)
	}
}

// FlashAttention-2 keeps P in registers: the f32 accumulators of two
// adjacent m16n8k16 tiles are the next mma's f16 A operand, converted in
// place. Every lane's eight values pair up into its four A registers, one
// cvt.rn.f16x2.f32 each, and nothing moves between threads.
func TestFlashAttentionAccumulatorToA(t *testing.T) {
	acc, a := twoAccumulators(t), builtin(t, "mma.m16n8k16.a.f16")
	res := classify(t, acc, a, Options{Rename: rename(t, "n=k")})
	expect(t, res, RegisterPermute, RegisterPermute)
	rp := res.Witness.Registers
	if want := a.NumRegisters(); rp.Cvt != want || rp.Prmt != 0 || rp.Selects != 0 {
		t.Errorf("cvt %d prmt %d selects %d, want %d cvt (one per f16x2 register) and nothing else", rp.Cvt, rp.Prmt, rp.Selects, want)
	}
	for _, r := range res.Witness.Routes {
		if r.Src.Thread != r.Dst.Thread || r.Src.Slot != r.Dst.Slot {
			t.Fatalf("route %+v leaves its thread or slot", r)
		}
	}
	if res.Witness.ConvertAt != "destination" || res.Witness.SrcElement != "f32" || res.Witness.DstElement != "f16" {
		t.Errorf("conversion %q from %s to %s", res.Witness.ConvertAt, res.Witness.SrcElement, res.Witness.DstElement)
	}
}

// ldmatrix.x4 leaves exactly the mma A operand in the registers: the same
// table on other axis names. Renamed, nothing moves; unrenamed, the tiles
// differ and the error names the axes.
func TestLdmatrixIsTheAOperand(t *testing.T) {
	ld, a := builtin(t, "ldmatrix.x4"), builtin(t, "mma.m16n8k16.a.f16")
	res := classify(t, ld, a, Options{Rename: rename(t, "row=m,col=k")})
	expect(t, res, Identity, Identity)
	if res.Cost.NS != 0 || len(res.Rejected) != 0 {
		t.Errorf("identity costs %v, rejected %v", res.Cost, res.Rejected)
	}
	_, err := Classify(ld, a, Options{})
	if err == nil || !strings.Contains(err.Error(), "source axis row:16 has no destination axis") || !strings.Contains(err.Error(), "destination axis k:16") {
		t.Errorf("unrenamed: %v", err)
	}
	// The transposed load read as (k, m) holds the A operand's elements in
	// the same lanes, its registers 1 and 2 swapped: whole registers move,
	// a rename that costs nothing.
	tr := classify(t, builtin(t, "ldmatrix.x4.trans"), a, Options{Rename: rename(t, "row=k,col=m")})
	expect(t, tr, RegisterPermute, RegisterPermute)
	if rp := tr.Witness.Registers; rp.Renames != a.NumRegisters() || rp.Prmt+rp.Selects+rp.Cvt != 0 || tr.Cost.NS != 0 {
		t.Errorf("renames %d prmt %d selects %d cvt %d cost %v", rp.Renames, rp.Prmt, rp.Selects, rp.Cvt, tr.Cost.NS)
	}
}

// Triton's blocked A tile into the mma A operand crosses lanes only (class
// warp_shuffle): whole f16 pairs move, one shuffle per A register, as few
// rounds as any plan. On the calibrated h200 the exchange goes through
// shared memory, cheaper than the shuffles with their selects (as the H200
// measured it: docs/hardware.md, Calibration).
func TestBlockedToMmaA(t *testing.T) {
	a := builtin(t, "mma.m16n8k16.a.f16")
	res := classify(t, blockedA(t), a, Options{})
	expect(t, res, WarpShuffle, SharedMemory)
	res = classify(t, blockedA(t), a, Options{Exclude: []Class{SharedMemory}})
	expect(t, res, WarpShuffle, WarpShuffle)
	sp := res.Witness.Shuffle
	if sp == nil {
		t.Fatal("no shuffle plan")
	}
	if sp.Rounds != sp.LowerBound || sp.Rounds != a.NumRegisters() {
		t.Errorf("%d rounds, lower bound %d, want %d (one per A register)", sp.Rounds, sp.LowerBound, a.NumRegisters())
	}
	if res.Witness.Registers.Prmt != 0 {
		t.Errorf("%d prmt: whole registers move", res.Witness.Registers.Prmt)
	}
}

// A transpose across warps goes through shared memory: stores, a barrier,
// loads, from a layout ChooseShared picked.
func TestCrossWarpTranspose(t *testing.T) {
	src, dst := rowsOfWarps(t), columnsOfWarps(t)
	res := classify(t, src, dst, Options{})
	expect(t, res, SharedMemory, SharedMemory)
	mp := res.Witness.Shared
	bytes := src.NumElements() * 4
	if mp.StoredBytes != bytes || mp.LoadedBytes != bytes || mp.ScratchBytes < bytes || mp.Barriers != 2 {
		t.Errorf("stored %d loaded %d scratch %d barriers %d, want %d bytes each way", mp.StoredBytes, mp.LoadedBytes, mp.ScratchBytes, mp.Barriers, bytes)
	}
	if mp.StoreWavefronts == 0 || mp.LoadWavefronts == 0 || mp.Layout == "" {
		t.Errorf("wavefronts %d/%d layout %q", mp.StoreWavefronts, mp.LoadWavefronts, mp.Layout)
	}
	// The reverse is the same movement backwards.
	back := classify(t, dst, src, Options{})
	expect(t, back, SharedMemory, SharedMemory)
}

// Two blocks that swap their rows: through distributed shared memory when
// they form a cluster, through global memory otherwise.
func TestBlockSwap(t *testing.T) {
	in := classify(t, blockRows(t, false, 2), blockRows(t, true, 2), Options{})
	expect(t, in, ClusterSharedMemory, ClusterSharedMemory)
	if cp := in.Witness.Cluster; cp.RemoteBytes != 2*32*4 || cp.ClusterBarriers != 2 {
		t.Errorf("remote bytes %d, cluster barriers %d; want %d, 2", cp.RemoteBytes, cp.ClusterBarriers, 2*32*4)
	}
	out := classify(t, blockRows(t, false, 1), blockRows(t, true, 1), Options{})
	expect(t, out, GlobalMemory, GlobalMemory)
	if gp := out.Witness.Global; gp.StoredBytes != 2*32*4 || gp.LoadedBytes != 2*32*4 || gp.Launches != 1 {
		t.Errorf("global stored %d loaded %d launches %d", gp.StoredBytes, gp.LoadedBytes, gp.Launches)
	}
	// Only one side in clusters: the blocks do not share one.
	mixed := classify(t, blockRows(t, false, 2), blockRows(t, true, 1), Options{})
	expect(t, mixed, GlobalMemory, GlobalMemory)
	// The sm80 target has no clusters: the cluster mechanism is rejected.
	sm80 := target(t, "sm80")
	res := classify(t, blockRows(t, false, 2), blockRows(t, true, 2), Options{Target: sm80})
	expect(t, res, ClusterSharedMemory, GlobalMemory)
	for _, r := range res.Rejected {
		if r.Mechanism.Via == ClusterSharedMemory && !strings.Contains(r.Reason, "no thread-block clusters") {
			t.Errorf("rejected %v: %s", r.Mechanism, r.Reason)
		}
	}
}

// halves is a tile (x:16) over the lanes of one warp: lane l holds x =
// l % 16, the upper half-warp a copy of the lower; without copies, the
// upper half-warp is not there.
func halves(t testing.TB, copies bool) *distribution.Distribution {
	t.Helper()
	ex := []distribution.ExecutorAxis{{Name: "l", Size: 16, Level: distribution.LevelLane}}
	if copies {
		ex = append([]distribution.ExecutorAxis{{Name: "half", Size: 2, Level: distribution.LevelLane, Replicated: true}}, ex...)
	}
	d, err := distribution.New(distribution.Spec{Name: "halves", Executors: ex, Tile: []distribution.Axis{{Name: "x", Size: 16}}, Ownership: []string{"l"}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Replication: dropping copies is free, adding them crosses the level the
// copies span.
func TestReplication(t *testing.T) {
	drop := classify(t, halves(t, true), halves(t, false), Options{})
	expect(t, drop, Identity, Identity)
	add := classify(t, halves(t, false), halves(t, true), Options{})
	expect(t, add, WarpShuffle, WarpShuffle)
	if sp := add.Witness.Shuffle; sp.Rounds != 1 {
		t.Errorf("%d rounds to copy one register to the upper half-warp", sp.Rounds)
	}
	// The A operand of a 2×2 warp grid, warp_n holding copies, from the
	// same tile without copies over two warps: the copies span warps.
	a := builtin(t, "mma.m16n8k16.a.f16")
	copies, err := distribution.TileAtom(a, distribution.Tiling{Name: "a.copies", Warps: []distribution.GridAxis{{Name: "warp_m", Size: 2, Along: "m"}, {Name: "warp_n", Size: 2, Along: distribution.AlongReplicated}}})
	if err != nil {
		t.Fatal(err)
	}
	single, err := distribution.TileAtom(a, distribution.Tiling{Name: "a.single", Warps: []distribution.GridAxis{{Name: "warp_m", Size: 2, Along: "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	across := classify(t, single, copies, Options{})
	expect(t, across, SharedMemory, SharedMemory)
	self := classify(t, copies, copies, Options{})
	expect(t, self, Identity, Identity)
}

// A kernel boundary sends the tile through global memory even when it
// would not move.
func TestKernelBoundary(t *testing.T) {
	a := builtin(t, "mma.m16n8k16.a.f16")
	res := classify(t, a, a, Options{KernelBoundary: true})
	expect(t, res, GlobalMemory, GlobalMemory)
}

// A transpose inside one warp (each lane holds a row, then a column) only
// crosses lanes, but 31 rounds of shuffles with selects cost more than a
// trip through swizzled shared memory: the mechanism sits above the class.
func TestWarpTransposeGoesThroughSharedMemory(t *testing.T) {
	rows := blocked(t, distribution.Blocked{Name: "rows", Axes: []string{"m", "n"}, Shape: []int{32, 32}, SizePerThread: []int{1, 32}, ThreadsPerWarp: []int{32, 1}, WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}})
	cols := blocked(t, distribution.Blocked{Name: "cols", Axes: []string{"m", "n"}, Shape: []int{32, 32}, SizePerThread: []int{32, 1}, ThreadsPerWarp: []int{1, 32}, WarpsPerCTA: []int{1, 1}, Order: []int{0, 1}})
	res := classify(t, rows, cols, Options{})
	expect(t, res, WarpShuffle, SharedMemory)
	found := false
	for _, r := range res.Rejected {
		if r.Mechanism.Via == WarpShuffle {
			found = true
			if r.CostNS <= res.Cost.NS {
				t.Errorf("shuffles cost %v ns, shared memory %v ns", r.CostNS, res.Cost.NS)
			}
		}
	}
	if !found {
		t.Errorf("the shuffle plan is not among the rejected: %+v", res.Rejected)
	}
	// The layout ChooseShared picked serves both sides without bank
	// conflicts: one wavefront per 128 bytes each access moves.
	mp := res.Witness.Shared
	for _, side := range []struct {
		as []MemAccess
		wf int
	}{{mp.Stores, mp.StoreWavefronts}, {mp.Loads, mp.LoadWavefronts}} {
		ideal := 0
		for _, a := range side.as {
			ideal += (len(a.Lanes)*a.Vector*4 + 127) / 128
		}
		if side.wf != ideal {
			t.Errorf("%d wavefronts, %d without conflicts, on %s", side.wf, ideal, mp.Layout)
		}
	}
}

// TestReplicatedSourceStoresOnce: a source replicated over warps (the
// 64×64 mma A operand, copies along warp_n) stores each element once
// through shared memory, from its first copy: whole warps, 64 stores of two
// values, where splitting the elements between the copies by the nearest
// destination took 96 stores and 112 wavefronts.
func TestReplicatedSourceStoresOnce(t *testing.T) {
	res, err := Classify(example(t, "cta64x64.mma.a.f16"), example(t, "cta64x64.blocked.f16"), Options{Rename: rename(t, "k=n")})
	if err != nil {
		t.Fatal(err)
	}
	sh := res.Witness.Shared
	if res.Mechanism.Via != SharedMemory || sh == nil {
		t.Fatalf("%v: want a shared-memory plan", res.Mechanism)
	}
	if len(sh.Stores) != 64 || sh.StoreWavefronts != 64 || sh.StoredBytes != 8192 {
		t.Errorf("%d stores, %d wavefronts, %d bytes stored: want 64, 64 and 8192", len(sh.Stores), sh.StoreWavefronts, sh.StoredBytes)
	}
	for _, a := range sh.Stores {
		if len(a.Lanes) != 32 || a.Warp%2 != 0 {
			t.Fatalf("a store by warp %d of %d lanes: want whole warps of the first copy (warps 0 and 2)", a.Warp, len(a.Lanes))
		}
	}
}

// Through global memory inside a block (the fallback where shared memory
// has no room) bar.sync orders the block's accesses: two barriers and no
// kernel boundary. Only a conversion between kernels pays a launch.
func TestGlobalInsideABlockPaysNoLaunch(t *testing.T) {
	src, dst := example(t, "cta64x64.mma.a.f16"), example(t, "cta64x64.blocked.f16")
	inside, err := Classify(src, dst, Options{Rename: rename(t, "k=n"), Exclude: []Class{SharedMemory}})
	if err != nil {
		t.Fatal(err)
	}
	if inside.Class != SharedMemory || inside.Mechanism.Via != GlobalMemory {
		t.Fatalf("class %v via %v: want shared_memory via global_memory", inside.Class, inside.Mechanism.Via)
	}
	if m := inside.Witness.Movement; m.Launches != 0 || m.Barriers != 2 || m.GlobalBytes == 0 {
		t.Errorf("inside a block: %d launches, %d barriers, %d global bytes; want 0, 2 and the tile", m.Launches, m.Barriers, m.GlobalBytes)
	}
	across, err := Classify(src, dst, Options{Rename: rename(t, "k=n"), KernelBoundary: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := across.Witness.Movement; across.Class != GlobalMemory || m.Launches != 1 || m.Barriers != 0 {
		t.Errorf("across kernels: class %v, %d launches, %d barriers; want global_memory, 1 and 0", across.Class, m.Launches, m.Barriers)
	}
	if inside.Cost.NS >= across.Cost.NS {
		t.Errorf("inside a block %v ns, across kernels %v ns", inside.Cost.NS, across.Cost.NS)
	}
}

// The packed int4 weights of the dequantize → mma example, loaded eight
// nibbles a lane (row lane/2, k from 8·(lane%2)), into the mma A fragment,
// still packed: each lane's one destination register is four bytes, a pair
// of adjacent nibbles each, from four source lanes (two rows, two k halves).
// A field that moves whole costs a shift and a masked merge, however many
// elements it holds: two bit operations per byte, eight for the register
// (for each pattern its lanes run), not two per nibble.
func TestPackedNibblesMoveAsFields(t *testing.T) {
	ld := blocked(t, distribution.Blocked{Name: "w_u4_ld", Axes: []string{"m", "k"}, Shape: []int{16, 16}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{16, 2}, WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}, Element: storage.U4})
	a, err := builtin(t, "mma.m16n8k16.a.f16").WithElement(storage.U4)
	if err != nil {
		t.Fatal(err)
	}
	for _, via := range []Class{SharedMemory, WarpShuffle} {
		var exclude []Class
		if via == WarpShuffle {
			exclude = []Class{SharedMemory, GlobalMemory}
		}
		res := classify(t, ld, a, Options{Exclude: exclude})
		expect(t, res, WarpShuffle, via)
		rp := res.Witness.Registers
		if rp == nil {
			t.Fatalf("via %s: no register plan", via)
		}
		// Lanes whose fields sit at different bits run each pattern of
		// their warp's one register and select (Selects+1 patterns).
		if want := 2 * 4 * (rp.Selects + 1); a.NumRegisters() != 1 || rp.BitOps != want {
			t.Errorf("via %s: %d registers, %d bit operations; want 1 register of 4 two-nibble fields in %d patterns, %d", via, a.NumRegisters(), rp.BitOps, rp.Selects+1, want)
		}
	}
}

// A source with a copy of the tile in each block, converted inside each
// warp: the global-memory fallback stores every element once, from the
// first block, so the second block's loads read what the first stored, and
// need the barrier of that scope (a cluster barrier in a cluster of two, a
// kernel boundary otherwise), not bar.sync.
func TestGlobalFromACopyInAnotherBlock(t *testing.T) {
	tg := target(t, "h200")
	for _, k := range []int{1, 2} {
		copies := func(own string) *distribution.Distribution {
			d, err := distribution.New(distribution.Spec{Name: "copies", BlocksPerCluster: k,
				Executors: []distribution.ExecutorAxis{{Name: "block", Size: 2, Level: distribution.LevelBlock, Replicated: true}, {Name: "lane", Size: 32, Level: distribution.LevelLane}},
				Tile:      []distribution.Axis{{Name: "x", Size: 32}},
				Ownership: []string{own}})
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		src, dst := copies("lane"), copies("31 - lane")
		p, err := newProblem(src, dst, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.class() != WarpShuffle {
			t.Fatalf("class %v, want warp_shuffle", p.class())
		}
		w, why := p.plan(Mechanism{Via: GlobalMemory}, p.class(), tg)
		if why != "" {
			t.Fatal(why)
		}
		if err := Replay(src, dst, Options{}, w); err != nil {
			t.Errorf("clusters of %d: %v", k, err)
		}
	}
}

// blockTranspose is a 32×32 f32 tile in each of b blocks, a lane's row
// (or, transposed, its column) in its 32 registers.
func blockTranspose(t testing.TB, b int, transposed bool) *distribution.Distribution {
	t.Helper()
	own := []string{"block", "lane", "v"}
	if transposed {
		own = []string{"block", "v", "lane"}
	}
	d, err := distribution.New(distribution.Spec{Name: "rows",
		Executors: []distribution.ExecutorAxis{{Name: "block", Size: b, Level: distribution.LevelBlock}, {Name: "lane", Size: 32, Level: distribution.LevelLane}},
		Locals:    []distribution.Axis{{Name: "v", Size: 32}},
		Tile:      []distribution.Axis{{Name: "b", Size: b}, {Name: "x", Size: 32}, {Name: "y", Size: 32}},
		Ownership: own})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A transpose inside each block of a tile spread over blocks needs each
// block's own 4 KB of scratch, however many blocks share the tile: at 57
// blocks the whole tile's 233,472 bytes would be more than a block has.
func TestScratchPerBlock(t *testing.T) {
	var one int
	for _, b := range []int{1, 4, 57} {
		res := classify(t, blockTranspose(t, b, false), blockTranspose(t, b, true), Options{})
		expect(t, res, WarpShuffle, SharedMemory)
		if res.Witness.Shared == nil {
			t.Fatalf("%d blocks: no shared-memory plan", b)
		}
		got := res.Witness.Shared.ScratchBytes
		if b == 1 {
			one = got
			if got < 32*32*4 {
				t.Errorf("1 block: scratch %d bytes, less than the tile's %d", got, 32*32*4)
			}
			continue
		}
		if got != one {
			t.Errorf("%d blocks: scratch %d bytes a block, want %d as for one", b, got, one)
		}
	}
}

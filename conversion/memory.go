package conversion

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/storage"
)

// An item is one element a thread stores or loads: its register slot, the
// element (flat destination tile index) and the memory it goes to or comes
// from (a block's shared memory, or -1 for global memory).
type item struct {
	slot, elem, memory int
}

// A run is Vector items at consecutive slots from slot (a multiple of the
// vector), holding consecutive elements along the last tile axis from an
// aligned coordinate, in one memory.
type run struct {
	slot, elem, memory int
}

// memSide gathers what the threads of one side store or load: the threads
// with items in (block, warp, lane) order, which is the order of the warp
// instructions (accesses), and each one's items in route order.
type memSide struct {
	op      storage.Op // the stores or the loads
	threads []Thread
	items   [][]item
	entry   []int // by dense thread index (side.threadIndex), the thread's entry, or -1
	// key is its key in a Memo (sideKey); "" until asked for.
	key string
}

// newMemSide makes room for count[i] items of the thread of dense index i
// of s, in one array.
func newMemSide(s *side, op storage.Op, count []int) memSide {
	ms := memSide{op: op, entry: make([]int, len(count))}
	total, n := 0, 0
	for _, c := range count {
		total += c
		if c > 0 {
			n++
		}
	}
	ms.threads, ms.items = make([]Thread, 0, n), make([][]item, 0, n)
	all := make([]item, total)
	off := 0
	for i, c := range count {
		ms.entry[i] = -1
		if c == 0 {
			continue
		}
		ms.entry[i] = len(ms.threads)
		ms.threads = append(ms.threads, s.threadAt(i))
		ms.items = append(ms.items, all[off:off:off+c])
		off += c
	}
	return ms
}

// maxVector is the widest power-of-two vector (at most 128 bits, at least a
// byte, dividing the last tile axis) into which every thread's items split
// into runs.
func (p *problem) maxVector(ms memSide, bits int) int {
	// Every width reads the same items by slot: tabulate them once.
	tables := make([]slotTable, 0, len(ms.items))
	for _, items := range ms.items {
		tables = append(tables, newSlotTable(items))
	}
	lo := max(1, 8/bits)
	best := lo
	last := p.tileAxes[len(p.tileAxes)-1].Size
	for v := lo * 2; v*bits <= 128 && last%v == 0; v *= 2 {
		if !p.splits(tables, v) {
			break
		}
		best = v
	}
	if !p.splits(tables, lo) {
		return 0
	}
	return best
}

// A slotTable holds one thread's items by slot; where several share a
// slot, the last one (as a map filled in order would keep it).
type slotTable struct {
	items []item
	has   []bool
}

func newSlotTable(items []item) slotTable {
	n := 0
	for _, it := range items {
		n = max(n, it.slot+1)
	}
	t := slotTable{items: make([]item, n), has: make([]bool, n)}
	for _, it := range items {
		t.items[it.slot], t.has[it.slot] = it, true
	}
	return t
}

func (t slotTable) at(slot int) (item, bool) {
	if slot < 0 || slot >= len(t.items) || !t.has[slot] {
		return item{}, false
	}
	return t.items[slot], true
}

// splits reports whether every thread's items split into runs of v, from
// the threads' slot tables (in any order): every occupied slot is in a
// run whose v slots are all occupied. A run is checked from its first
// slot, so each occupied slot is checked once, and an occupied slot whose
// run has no first slot fails.
func (p *problem) splits(tables []slotTable, v int) bool {
	last := p.tileAxes[len(p.tileAxes)-1].Size
	for _, bySlot := range tables {
		for s, it := range bySlot.items {
			if !bySlot.has[s] {
				continue
			}
			s0 := it.slot - it.slot%v
			first, ok := bySlot.at(s0)
			if !ok || first.elem%last%v != 0 {
				return false
			}
			if s != s0 {
				continue
			}
			for i := 1; i < v; i++ {
				at, ok := bySlot.at(s0 + i)
				if !ok || at.elem != first.elem+i || at.memory != first.memory {
					return false
				}
			}
		}
	}
	return true
}

// runsOf splits each thread's items into runs of v, in slot order; the
// runs are in the order of ms.threads.
func runsOf(ms memSide, v int) [][]run {
	n := 0
	for _, items := range ms.items {
		n += len(items)/v + 1
	}
	all := make([]run, 0, n)
	out := make([][]run, len(ms.items))
	for t, items := range ms.items {
		start := len(all)
		for _, it := range items {
			if it.slot%v == 0 {
				all = append(all, run(it))
			}
		}
		rs := all[start:len(all):len(all)]
		slices.SortFunc(rs, func(a, b run) int { return a.slot - b.slot })
		out[t] = rs
	}
	return out
}

// accesses turns runs into warp instructions: instruction k of a warp is
// the k-th run of each of its lanes, at the address bitAt gives its first
// element. threads are in (block, warp, lane) order, so each warp's lanes
// are consecutive, in lane order; rs[i] are the runs of threads[i].
func (p *problem) accesses(threads []Thread, rs [][]run, v int, bitAt func(elem int) int64) []MemAccess {
	var out []MemAccess
	nd := len(p.tileSizes)
	for first := 0; first < len(threads); {
		b, w := threads[first].Block, threads[first].Warp
		end, n := first, 0
		for ; end < len(threads) && threads[end].Block == b && threads[end].Warp == w; end++ {
			n = max(n, len(rs[end]))
		}
		ts, lanes := threads[first:end], rs[first:end]
		// The warp's instructions' lanes, and their coordinates, share one
		// array each.
		active := 0
		for _, l := range lanes {
			active += len(l)
		}
		laneAll := make([]LaneAccess, 0, active)
		tiles := make([]int, active*nd)
		for i := range n {
			a := MemAccess{Block: b, Warp: w, Vector: v}
			start := len(laneAll)
			for j, t := range ts {
				if i < len(lanes[j]) {
					r := lanes[j][i]
					k := len(laneAll)
					c := tiles[k*nd : (k+1)*nd : (k+1)*nd]
					unflatten(r.elem, p.tileSizes, c)
					laneAll = append(laneAll, LaneAccess{Lane: t.Lane, Slot: r.slot, Temp: i, Memory: r.memory, Tile: c, Bit: bitAt(r.elem)})
				}
			}
			a.Lanes = laneAll[start:len(laneAll):len(laneAll)]
			out = append(out, a)
		}
		first = end
	}
	return out
}

// memoryItems gathers the stores and loads of routes whose sources store
// each element into memory(route) and whose destinations load it from
// there. A source place stores its element once per memory.
func (p *problem) memoryItems(routes []Route, memory func(r Route) int) (stores, loads memSide) {
	mems := make([]int, len(routes))
	stored := make([]bool, len(routes)) // whether route i's source stores its element
	nsv := len(p.src.slotOf)
	// firstMemory[place] is 2 + the memory a source place first stores
	// into (0: none yet); further memories of a place, which only a
	// replicated source's routes to several groups have, go in a map.
	firstMemory := make([]int, p.src.nThreads*nsv)
	type placeMemory struct{ place, memory int }
	var more map[placeMemory]bool
	storeCount, loadCount := make([]int, p.src.nThreads), make([]int, p.dst.nThreads)
	for i, r := range routes {
		m := memory(r)
		mems[i] = m
		st := p.src.threadIndex(r.Src.Thread)
		place := st*nsv + r.Src.Slot
		switch {
		case firstMemory[place] == 0:
			firstMemory[place], stored[i] = m+2, true
		case firstMemory[place] != m+2 && !more[placeMemory{place, m}]:
			if more == nil {
				more = map[placeMemory]bool{}
			}
			more[placeMemory{place, m}], stored[i] = true, true
		}
		if stored[i] {
			storeCount[st]++
		}
		loadCount[p.dst.threadIndex(r.Dst.Thread)]++
	}
	stores, loads = newMemSide(&p.src, storage.Store, storeCount), newMemSide(&p.dst, storage.Load, loadCount)
	for i, r := range routes {
		if stored[i] {
			k := stores.entry[p.src.threadIndex(r.Src.Thread)]
			stores.items[k] = append(stores.items[k], item{r.Src.Slot, r.Element, mems[i]})
		}
		k := loads.entry[p.dst.threadIndex(r.Dst.Thread)]
		loads.items[k] = append(loads.items[k], item{r.Dst.Slot, r.Element, mems[i]})
	}
	return stores, loads
}

// tileSpace is the destination's tile as an index space.
func (p *problem) tileSpace() (indexspace.Space, error) {
	var axes []indexspace.Axis
	for _, a := range p.tileAxes {
		axes = append(axes, indexspace.Leaf(a.Name, a.Size))
	}
	return indexspace.New("", axes...)
}

func (p *problem) coords(elem int) []int {
	c := make([]int, len(p.tileSizes))
	unflatten(elem, p.tileSizes, c)
	return c
}

// memoryPlan lays stores and loads of vectors vs and vl over the
// addresses of addr, and the register plan that assembles the loads (the
// one given, when not nil: it depends on vl only, so that callers trying
// several store vectors build it once).
func (p *problem) memoryPlan(w *Witness, stores, loads *memSide, vs, vl int, addr addressMap, loadRegs *RegisterPlan) (*MemoryPlan, *RegisterPlan) {
	mb := p.movedBits()
	mp := &MemoryPlan{StoreVector: vs, LoadVector: vl, Rounds: 1}
	mp.Stores = p.opts.Memo.laidOut(p, stores, vs, addr)
	mp.Loads = p.opts.Memo.laidOut(p, loads, vl, addr)
	for _, a := range mp.Stores {
		mp.StoredBytes += len(a.Lanes) * vs * mb / 8
	}
	for _, a := range mp.Loads {
		mp.LoadedBytes += len(a.Lanes) * vl * mb / 8
	}
	if loadRegs == nil {
		loadRegs = p.loadRegisters(w.Routes, loads, vl)
	}
	rp := *loadRegs
	rp.SourceALU += shiftedStores(mp.Stores, mb)
	return mp, &rp
}

// An addressMap places the tile in memory: layout i of layouts (a block's
// scratch), or, with no layouts, the row-major buffer of the moved type.
type addressMap struct {
	layouts []storage.Layout
	i       int
}

// rowMajor is the row-major address map.
var rowMajor = addressMap{}

// bitAt is the map's address of element elem (a flat tile index).
func (a addressMap) bitAt(p *problem) func(elem int) int64 {
	if a.layouts == nil {
		mb := int64(p.movedBits())
		return func(elem int) int64 { return int64(elem) * mb }
	}
	layout := &a.layouts[a.i]
	return func(elem int) int64 {
		b, _ := layout.BitOffset(p.coords(elem))
		return int64(b)
	}
}

// layOut is the warp instructions of ms with vector v on the address map
// addr.
func (p *problem) layOut(ms *memSide, v int, addr addressMap) []MemAccess {
	return p.accesses(ms.threads, runsOf(*ms, v), v, addr.bitAt(p))
}

// shiftedStores counts the stores that shift a register down: those with a
// lane whose first element does not start a register.
func shiftedStores(stores []MemAccess, mb int) int {
	n := 0
	for _, a := range stores {
		for _, la := range a.Lanes {
			if la.Slot*mb%32 != 0 {
				n++
				break
			}
		}
	}
	return n
}

// loadRegisters is the register plan of a memory mechanism: the source's
// conversion before the stores, and the destination registers assembled
// from the temporaries, the element at position i of the run its k-th load
// brought. The assembly is the memo's, if any, for the loads.
func (p *problem) loadRegisters(routes []Route, loads *memSide, vl int) *RegisterPlan {
	rp := *p.opts.Memo.assembly(p, routes, loads, vl)
	p.sourceConversion(&rp, routes)
	return &rp
}

// assembleLoads is loadRegisters without the source's conversion: the
// destination registers assembled from the loads of vector vl. It reads
// only the routes' destinations, which are the destination's places in
// order (p.dstPlaces), and the loads.
func (p *problem) assembleLoads(routes []Route, loads *memSide, vl int) *RegisterPlan {
	mb := p.movedBits()
	// pos[t][slot] is (temp, index in run) for the thread of loads' entry
	// t; a slot no load fills is (0, 0) as a map would read it.
	pos := make([][][2]int, len(loads.items))
	for t, rs := range runsOf(*loads, vl) {
		n := 0
		for _, r := range rs {
			n = max(n, r.slot+vl)
		}
		at := make([][2]int, n)
		for k, r := range rs {
			for i := range vl {
				at[r.slot+i] = [2]int{k, i}
			}
		}
		pos[t] = at
	}
	var lastT Thread
	var lastPos [][2]int
	rp := p.registerPlan(routes, func(out []word, i int) []word {
		r := routes[i]
		if lastPos == nil || r.Dst.Thread != lastT {
			lastT, lastPos = r.Dst.Thread, pos[loads.entry[p.dst.threadIndex(r.Dst.Thread)]]
		}
		var at [2]int
		if r.Dst.Slot < len(lastPos) {
			at = lastPos[r.Dst.Slot]
		}
		bit := at[1] * mb
		if mb > 32 {
			return append(out, word{at[0], bit / 32, 0, 32}, word{at[0], bit/32 + 1, 0, 32})
		}
		return append(out, word{at[0], bit / 32, bit % 32, mb})
	})
	return rp
}

// blockFootprint is the shared memory, in bytes, that each block needs of
// layout, a layout of the whole tile, for the elements routes move within
// their blocks: the most that one block's elements span, from the lowest to
// the end of the highest, with the lowest aligned down to a wavefront's
// bytes and to the swizzle's period (so that its banks and its swizzle are
// those of the whole tile's layout) and the highest rounded up to the
// period. A tile in one block needs the layout's footprint.
func (p *problem) blockFootprint(layout *storage.Layout, routes []Route) int {
	whole := layout.Footprint()
	if len(routes) == 0 || !slices.ContainsFunc(routes, func(r Route) bool { return r.Dst.Block != routes[0].Dst.Block }) {
		return whole
	}
	unitBits := 8
	if layout.Unit() != storage.Bytes {
		unitBits = layout.Element().Bits()
	}
	align := int64(storage.WavefrontBytes) * 8
	if sw, ok := layout.Swizzle(); ok {
		align = max(align, sw.Period()*int64(unitBits))
	}
	mb := int64(p.movedBits())
	span := map[int][2]int64{} // block → its lowest and highest bit
	for _, r := range routes {
		b, err := layout.BitOffset(p.coords(r.Element))
		if err != nil {
			return whole
		}
		at := int64(b)
		s, ok := span[r.Dst.Block]
		if !ok {
			s = [2]int64{at, at}
		}
		span[r.Dst.Block] = [2]int64{min(s[0], at), max(s[1], at)}
	}
	most := 0
	for _, s := range span {
		lo := s[0] / align * align
		hi := s[1] + mb
		if _, ok := layout.Swizzle(); ok {
			hi = (hi + align - 1) / align * align
		}
		most = max(most, int((hi-lo+7)/8))
	}
	return min(most, whole)
}

// sharedPlan moves the tile through the shared memory of each block, with
// the layout and vector widths that cost least.
func (p *problem) sharedPlan(w *Witness, target *costmodel.Target) string {
	w.Routes = p.memoryRoutes(func(t Thread) int { return t.Block })
	for _, r := range w.Routes {
		if r.Src.Block != r.Dst.Block {
			return fmt.Sprintf("element %v moves from block %d to block %d", p.coords(r.Element), r.Src.Block, r.Dst.Block)
		}
	}
	stores, loads := p.memoryItems(w.Routes, func(r Route) int { return r.Dst.Block })
	mb := p.movedBits()
	vsMax, vlMax := p.opts.Memo.maxVector(p, &stores), p.opts.Memo.maxVector(p, &loads)
	if vsMax == 0 || vlMax == 0 {
		return fmt.Sprintf("%d-bit elements cannot be stored a byte at a time", mb)
	}
	tile, err := p.tileSpace()
	if err != nil {
		return err.Error()
	}
	lo := max(1, 8/mb)
	// The candidate layouts, and the stores of one vector width (and the
	// loads of one) costed on each, are the same in every combination of
	// widths, and in every conversion with the same stores (or loads): the
	// memo, if any, keeps them across conversions.
	layouts, err := p.opts.Memo.sharedCandidates(tile, p.moved())
	if err != nil {
		// Every combination fails alike.
		var reasons []string
		for vs := vsMax; vs >= lo; vs /= 2 {
			for vl := vlMax; vl >= lo; vl /= 2 {
				reasons = append(reasons, fmt.Sprintf("vectors %d/%d: %s", vs, vl, firstLine(err)))
			}
		}
		return "no shared layout serves the accesses: " + strings.Join(reasons, "; ")
	}
	// Each block holds its own elements only: its scratch is what they
	// span of the layout (blockFootprint), once per candidate.
	scratch := make([]int, len(layouts))
	blockScratch := func(i int) int {
		if scratch[i] == 0 {
			scratch[i] = p.blockFootprint(&layouts[i], w.Routes)
		}
		return scratch[i]
	}
	storeSides := p.opts.Memo.sharedSides(p, &stores, vsMax, tile, layouts)
	loadSides := p.opts.Memo.sharedSides(p, &loads, vlMax, tile, layouts)
	loadRegs := make([]*RegisterPlan, len(loadSides))
	for k, vl := 0, vlMax; vl >= lo; k, vl = k+1, vl/2 {
		loadRegs[k] = p.loadRegisters(w.Routes, &loads, vl)
	}
	var (
		best                       *Witness
		bestCost                   float64
		bestVS, bestVL, bestLayout int
		bestStores, bestLoads      *sharedSide
		bestLoadRegs               *RegisterPlan
		reasons                    []string
	)
	for ks, vs := 0, vsMax; vs >= lo; ks, vs = ks+1, vs/2 {
		for kl, vl := 0, vlMax; vl >= lo; kl, vl = kl+1, vl/2 {
			st, ld := storeSides[ks], loadSides[kl]
			i, err := storage.Cheapest(st.costs, ld.costs)
			if err != nil {
				reasons = append(reasons, fmt.Sprintf("vectors %d/%d: %s", vs, vl, firstLine(err)))
				continue
			}
			if fp := blockScratch(i); fp > int(target.Get("shared_bytes_per_block")) {
				reasons = append(reasons, fmt.Sprintf("%d bytes of scratch, more than the %g a block may have", fp, target.Get("shared_bytes_per_block")))
				continue
			}
			mp := &MemoryPlan{StoreVector: vs, LoadVector: vl, Rounds: 1, Stores: st.probe, Loads: ld.probe, Barriers: 2,
				StoreWavefronts: st.costs.Sum(i), LoadWavefronts: ld.costs.Sum(i)}
			rp := *loadRegs[kl]
			rp.SourceALU += st.shifted
			c := *w
			c.Shared, c.Registers = mp, &rp
			p.fillMovement(&c)
			cost := target.ConversionFormula(c.Movement).NS
			if best == nil || cost < bestCost {
				best, bestCost = &c, cost
				bestVS, bestVL, bestLayout, bestStores, bestLoads = vs, vl, i, st, ld
				bestLoadRegs = loadRegs[kl]
			}
		}
	}
	if best == nil {
		return "no shared layout serves the accesses: " + strings.Join(reasons, "; ")
	}
	layout := &layouts[bestLayout]
	c := *w
	mp, rp := p.memoryPlan(&c, &stores, &loads, bestVS, bestVL, addressMap{layouts, bestLayout}, bestLoadRegs)
	mp.Layout = layout.String()
	mp.ScratchBytes = blockScratch(bestLayout)
	mp.Barriers = 2
	mp.Considered = len(layouts)
	for i, total := range bestStores.costs.Totals(bestLayout) {
		mp.Stores[i].Wavefronts = total
		mp.StoreWavefronts += total
	}
	for i, total := range bestLoads.costs.Totals(bestLayout) {
		mp.Loads[i].Wavefronts = total
		mp.LoadWavefronts += total
	}
	c.Shared, c.Registers = mp, rp
	p.fillMovement(&c)
	*w = c
	return ""
}

// A sharedSide is the stores (or the loads) of one vector width: the warp
// accesses at address 0 (choosing a layout and costing read no address;
// only the chosen combination's plan is built on its layout), as storage
// reads them, and their costs on every candidate layout.
type sharedSide struct {
	probe   []MemAccess
	acc     []storage.Access
	shifted int // stores that shift a register down
	costs   *storage.CostTable
}

// newSharedSides lays out the side ms (stores or loads) for
// every vector width from vMax down to a byte, widest first, and costs each
// on the layouts.
func (p *problem) newSharedSides(ms *memSide, vMax int, tile indexspace.Space, layouts []storage.Layout) []*sharedSide {
	var out []*sharedSide
	zero := func(int) int64 { return 0 }
	for v := vMax; v >= max(1, 8/p.movedBits()); v /= 2 {
		s := p.newSharedSide(*ms, v, ms.op, zero)
		s.costs = storage.NewCostTable(tile, p.moved(), layouts, s.acc)
		out = append(out, s)
	}
	return out
}

func (p *problem) newSharedSide(ms memSide, v int, op storage.Op, bitAt func(int) int64) *sharedSide {
	s := &sharedSide{probe: p.accesses(ms.threads, runsOf(ms, v), v, bitAt)}
	s.acc = make([]storage.Access, 0, len(s.probe))
	for _, a := range s.probe {
		sa := storage.Access{Lanes: make([][]int, storage.WarpSize), Vector: a.Vector, Op: op}
		for _, la := range a.Lanes {
			if la.Lane < storage.WarpSize {
				sa.Lanes[la.Lane] = la.Tile
			}
		}
		s.acc = append(s.acc, sa)
	}
	if op == storage.Store {
		s.shifted = shiftedStores(s.probe, p.movedBits())
	}
	return s
}

// firstLine is the first line of err's message, unedited.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// clusterPlan moves the tile through the shared memory of the blocks of
// each cluster: the sources push into the destination block's scratch, or
// the destinations pull from the source block's.
func (p *problem) clusterPlan(w *Witness, target *costmodel.Target) string {
	k := max(p.src.d.BlocksPerCluster(), p.dst.d.BlocksPerCluster())
	if limit := int(target.Get("max_cluster_blocks")); k > limit {
		if limit <= 1 {
			return fmt.Sprintf("%s has no thread-block clusters", target.Name)
		}
		return fmt.Sprintf("clusters of %d blocks exceed the %d of %s", k, limit, target.Name)
	}
	push := w.Mechanism.Variant == "push"
	w.Routes = p.memoryRoutes(func(t Thread) int {
		if push {
			return t.Block
		}
		return t.Block / k
	})
	memory := func(r Route) int {
		if push {
			return r.Dst.Block
		}
		return r.Src.Block
	}
	stores, loads := p.memoryItems(w.Routes, memory)
	mb := p.movedBits()
	vs, vl := p.opts.Memo.maxVector(p, &stores), p.opts.Memo.maxVector(p, &loads)
	if vs == 0 || vl == 0 {
		return fmt.Sprintf("%d-bit elements cannot be stored a byte at a time", mb)
	}
	mp, rp := p.memoryPlan(w, &stores, &loads, vs, vl, rowMajor, nil)
	mp.Layout = fmt.Sprintf("row-major %v scratch of the tile in every block", p.moved())
	mp.ScratchBytes = p.nElem * mb / 8
	mp.ClusterBarriers = 2
	for _, a := range mp.Stores {
		for _, la := range a.Lanes {
			if la.Memory != a.Block {
				mp.RemoteBytes += vs * mb / 8
			}
		}
	}
	for _, a := range mp.Loads {
		for _, la := range a.Lanes {
			if la.Memory != a.Block {
				mp.RemoteBytes += vl * mb / 8
			}
		}
	}
	countLocalWavefronts(mp, mb)
	w.Cluster, w.Registers = mp, rp
	return ""
}

// countLocalWavefronts costs the accesses of a cluster plan whose lanes all
// reach their own block's shared memory under storage's bank model; remote
// accesses go over the cluster's network instead.
func countLocalWavefronts(mp *MemoryPlan, mb int) {
	for _, side := range []struct {
		as []MemAccess
		op storage.Op
		n  *int
	}{{mp.Stores, storage.Store, &mp.StoreWavefronts}, {mp.Loads, storage.Load, &mp.LoadWavefronts}} {
		for i, a := range side.as {
			var lanes []storage.LaneAddress
			local := true
			for _, la := range a.Lanes {
				local = local && la.Memory == a.Block
				lanes = append(lanes, storage.LaneAddress{Lane: la.Lane, Byte: la.Bit / 8})
			}
			if !local || len(lanes) == 0 {
				continue
			}
			wf, err := storage.CountWavefronts(side.op, a.Vector*mb/8, lanes)
			if err != nil {
				continue
			}
			side.as[i].Wavefronts = wf.Total
			*side.n += wf.Total
		}
	}
}

// globalPlan moves the tile through a global-memory buffer. Where every
// move stays inside a block (a fallback when shared memory has no room),
// bar.sync orders the block's global accesses as it does its shared ones:
// two barriers, publish and reuse, as through shared memory. Inside a
// cluster, two cluster barriers (release/acquire at cluster scope). Across
// blocks that share no cluster, or after another kernel, a kernel boundary
// (or a grid-wide synchronization). The buffer holds each element once,
// stored by its first owner: where the source has copies in several
// blocks, a destination may read what another block stored, and the
// barrier is the one that scope needs, whatever the class.
func (p *problem) globalPlan(w *Witness, class Class) {
	w.Routes = p.memoryRoutes(func(Thread) int { return 0 })
	stores, loads := p.memoryItems(w.Routes, func(Route) int { return -1 })
	mb := p.movedBits()
	vs, vl := max(p.opts.Memo.maxVector(p, &stores), 1), max(p.opts.Memo.maxVector(p, &loads), 1)
	mp, rp := p.memoryPlan(w, &stores, &loads, vs, vl, rowMajor, nil)
	mp.Layout = fmt.Sprintf("row-major %v buffer of the tile", p.moved())
	mp.ScratchBytes = p.nElem * mb / 8
	scope := class
	if !p.opts.KernelBoundary {
		scope = Identity
		for _, r := range w.Routes {
			if r.Src.Block != r.Dst.Block {
				scope = max(scope, p.level(Place{Thread: Thread{Block: r.Src.Block}}, Place{Thread: Thread{Block: r.Dst.Block}}))
			}
		}
	}
	switch {
	case scope <= SharedMemory:
		mp.Barriers = 2
	case scope == ClusterSharedMemory:
		mp.ClusterBarriers = 2
	default:
		mp.Launches = 1
	}
	w.Global, w.Registers = mp, rp
}

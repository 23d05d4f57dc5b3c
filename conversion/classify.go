package conversion

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// Options configure Classify. The zero value works: no renaming, the h200
// target, no measurements, inside one kernel.
type Options struct {
	// Rename relates the source's tile axes to the destination's.
	Rename distribution.Rename
	// Target costs the mechanisms; nil means costmodel's h200.
	Target *costmodel.Target
	// Measured overrides the formulas where it has a figure.
	Measured *costmodel.Measurements
	// KernelBoundary says that the source is produced by one kernel and the
	// destination consumed by another: the tile goes through global memory
	// whatever the distributions.
	KernelBoundary bool
	// Exclude lists levels whose mechanisms are not considered: a planner
	// that must keep a kernel within its shared-memory budget excludes
	// SharedMemory and ClusterSharedMemory, and gets the cheapest mechanism
	// that needs no scratch. The class is unchanged.
	Exclude []Class
	// Memo, when not nil, keeps the work that depends on one side of the
	// conversion for later classifications (see Memo); the result is the
	// same with or without it.
	Memo *Memo
}

// A Result is the classification of one conversion: the class, the
// mechanism chosen by cost, its cost and witness, and the mechanisms it was
// preferred to.
type Result struct {
	Class     Class          `json:"class"`
	Mechanism Mechanism      `json:"mechanism"`
	Cost      costmodel.Cost `json:"cost"`
	Witness   *Witness       `json:"witness"`
	Rejected  []Rejected     `json:"rejected"`
}

// A Rejected is a mechanism at or above the class that was not chosen: its
// cost (when it could be costed) and why.
type Rejected struct {
	Mechanism Mechanism `json:"mechanism"`
	CostNS    float64   `json:"cost_ns"`
	Origin    string    `json:"origin,omitempty"`
	Reason    string    `json:"reason"`
}

// Classify classifies the conversion of a tile from src's distribution to
// dst's (with src's tile axes renamed by opts.Rename), chooses the cheapest
// mechanism at or above the class under the target's cost model, and returns
// it with a witness concrete enough to lower.
func Classify(src, dst *distribution.Distribution, opts Options) (*Result, error) {
	p, err := newProblem(src, dst, opts)
	if err != nil {
		return nil, err
	}
	target := opts.Target
	if target == nil {
		if target, err = costmodel.BuiltinTarget("h200"); err != nil {
			return nil, err
		}
	}
	if err := opts.Measured.CheckTarget(target); err != nil {
		return nil, fmt.Errorf("conversion: %w", err)
	}
	model := costmodel.Model{Target: target, Measured: opts.Measured}
	key := KeyOf(src, dst, opts.Rename)

	class := p.class()
	res := &Result{Class: class}
	type candidate struct {
		w    *Witness
		cost costmodel.Cost
		why  string // infeasible when not ""
	}
	var cands []candidate
	for _, m := range p.mechanisms(class) {
		if slices.Contains(opts.Exclude, m.Via) {
			continue
		}
		w, why := p.plan(m, class, target)
		c := candidate{w: w, why: why}
		if why == "" {
			c.cost = model.Conversion(key, w.Movement)
		}
		cands = append(cands, c)
	}
	best := -1
	for i, c := range cands {
		if c.why != "" {
			continue
		}
		if best < 0 || c.cost.NS < cands[best].cost.NS {
			best = i
		}
	}
	if best < 0 {
		var whys []string
		for _, c := range cands {
			whys = append(whys, c.w.Mechanism.String()+": "+c.why)
		}
		return nil, fmt.Errorf("conversion: %q to %q: no mechanism can carry it: %v", src.Name(), dst.Name(), whys)
	}
	res.Mechanism, res.Witness, res.Cost = cands[best].w.Mechanism, cands[best].w, cands[best].cost
	for i, c := range cands {
		if i == best {
			continue
		}
		r := Rejected{Mechanism: c.w.Mechanism, Reason: c.why}
		if c.why == "" {
			r.CostNS, r.Origin = c.cost.NS, c.cost.Origin.String()
			r.Reason = fmt.Sprintf("costs %.4g ns a tile, %.4g ns more than %s", c.cost.NS, c.cost.NS-res.Cost.NS, res.Mechanism)
		}
		res.Rejected = append(res.Rejected, r)
	}
	return res, nil
}

// A Thread is one executor by its flat index within each level.
type Thread struct {
	Block int `json:"block"`
	Warp  int `json:"warp"`
	Lane  int `json:"lane"`
}

// A Place is one register slot of one thread.
type Place struct {
	Thread
	Slot int `json:"slot"`
}

// A Route says where the element of one destination place comes from.
type Route struct {
	Dst     Place `json:"dst"`
	Src     Place `json:"src"`
	Element int   `json:"element"` // flat index in the destination's tile
}

// side is one distribution as the classifier reads it.
type side struct {
	d       *distribution.Distribution
	threads []Thread // per executor (flat index)
	slotOf  []int    // value → slot
	elem    storage.ElementType
	bits    int
	// The warps per block and lanes per warp: a thread's dense index
	// (threadIndex) numbers every thread the levels span, in (block, warp,
	// lane) order, so that tables by thread are slices, not maps.
	warps, lanes, nThreads int
}

func newSide(d *distribution.Distribution) side {
	s := side{d: d, elem: d.Element(), bits: d.Element().Bits(),
		warps: d.LevelSize(distribution.LevelWarp), lanes: d.LevelSize(distribution.LevelLane)}
	s.nThreads = d.LevelSize(distribution.LevelBlock) * s.warps * s.lanes
	s.threads = make([]Thread, 0, d.NumExecutors())
	for e := range d.NumExecutors() {
		b, w, l := d.LevelIndex(e)
		s.threads = append(s.threads, Thread{b, w, l})
	}
	s.slotOf = make([]int, 0, d.NumValues())
	for v := range d.NumValues() {
		slot, _ := d.Slot(v)
		s.slotOf = append(s.slotOf, slot)
	}
	return s
}

// threadIndex is t's dense index.
func (s *side) threadIndex(t Thread) int { return (t.Block*s.warps+t.Warp)*s.lanes + t.Lane }

// threadAt is the thread of dense index i.
func (s *side) threadAt(i int) Thread {
	return Thread{i / (s.warps * s.lanes), i / s.lanes % s.warps, i % s.lanes}
}

// problem is one (source, destination) pair, tabulated.
type problem struct {
	src, dst side
	opts     Options
	// owners[t] lists the source places holding destination element t.
	owners [][]Place
	// dstPlaces lists every destination place, executor-major, slot-minor,
	// with its element.
	dstPlaces []Place
	dstElem   []int
	nElem     int
	tileAxes  []distribution.Axis // the destination's tile
	tileSizes []int               // the sizes of tileAxes
	// nearestRoutes caches routes; nil until first asked.
	nearestRoutes []Route
}

func newProblem(src, dst *distribution.Distribution, opts Options) (*problem, error) {
	if src == nil || dst == nil {
		return nil, fmt.Errorf("conversion: a nil distribution")
	}
	m, err := distribution.MatchTiles(src, dst, opts.Rename)
	if err != nil {
		return nil, fmt.Errorf("conversion: %w", err)
	}
	if src.Element() != dst.Element() && max(src.Element().Bits(), dst.Element().Bits()) > 32 {
		return nil, fmt.Errorf("conversion: %q (%v) to %q (%v): conversions of 64-bit types are not modelled", src.Name(), src.Element(), dst.Name(), dst.Element())
	}
	p := &problem{src: newSide(src), dst: newSide(dst), opts: opts, nElem: dst.NumElements(), tileAxes: dst.Tile()}
	srcSizes, dstSizes := src.TileSizes(), dst.TileSizes()
	p.tileSizes = dstSizes
	toDst := make([]int, src.NumElements())
	c := make([]int, len(srcSizes))
	dc := make([]int, len(dstSizes))
	for t := range toDst {
		unflatten(t, srcSizes, c)
		for i, x := range c {
			dc[m.Perm[i]] = x
		}
		toDst[t] = flatten(dc, dstSizes)
	}
	// Every element's owners, in source order, share one array.
	table := src.Table()
	nv := src.NumValues()
	count := make([]int, p.nElem)
	for _, t := range table {
		count[toDst[t]]++
	}
	p.owners = make([][]Place, p.nElem)
	all := make([]Place, len(table))
	off := 0
	for dt, n := range count {
		p.owners[dt] = all[off : off : off+n]
		off += n
	}
	for i, t := range table {
		e, v := i/nv, i%nv
		dt := toDst[t]
		p.owners[dt] = append(p.owners[dt], Place{p.src.threads[e], p.src.slotOf[v]})
	}
	dtable := dst.Table()
	dnv := dst.NumValues()
	// valueIn[s] is the value in slot s.
	valueIn := make([]int, dnv)
	for s := range dnv {
		valueIn[s] = slices.Index(p.dst.slotOf, s)
	}
	p.dstPlaces = make([]Place, 0, dst.NumExecutors()*dnv)
	p.dstElem = make([]int, 0, dst.NumExecutors()*dnv)
	for e := range dst.NumExecutors() {
		for s := range dnv {
			p.dstPlaces = append(p.dstPlaces, Place{p.dst.threads[e], s})
			p.dstElem = append(p.dstElem, dtable[e*dnv+valueIn[s]])
		}
	}
	return p, nil
}

// level is the class of moving an element from place a to place b.
func (p *problem) level(from, to Place) Class {
	switch {
	case p.opts.KernelBoundary:
		return GlobalMemory
	case from.Thread == to.Thread:
		if from.Slot == to.Slot && p.src.elem == p.dst.elem {
			return Identity
		}
		return RegisterPermute
	case from.Block == to.Block && from.Warp == to.Warp:
		return WarpShuffle
	case from.Block == to.Block:
		return SharedMemory
	case p.sameCluster(from.Block, to.Block):
		return ClusterSharedMemory
	}
	return GlobalMemory
}

// sameCluster reports whether both distributions put blocks a and b in one
// cluster.
func (p *problem) sameCluster(a, b int) bool {
	ks, kd := p.src.d.BlocksPerCluster(), p.dst.d.BlocksPerCluster()
	return a/ks == b/ks && a/kd == b/kd
}

// nearest returns the source of element t nearest to place to: the lowest
// level, then the same slot, then the first in source order.
func (p *problem) nearest(t int, to Place) Place {
	best := p.owners[t][0]
	bl := p.level(best, to)
	for _, o := range p.owners[t][1:] {
		if l := p.level(o, to); l < bl {
			best, bl = o, l
		}
	}
	return best
}

// routes returns the nearest-source route of every destination place, a
// copy the caller may change: the class and every mechanism start from
// them, so they are found once per problem.
func (p *problem) routes() []Route {
	return slices.Clone(p.nearestRoutesOnce())
}

// nearestRoutesOnce is routes' list itself, which the caller must not
// change.
func (p *problem) nearestRoutesOnce() []Route {
	if p.nearestRoutes == nil {
		p.nearestRoutes = make([]Route, len(p.dstPlaces))
		for i, d := range p.dstPlaces {
			t := p.dstElem[i]
			p.nearestRoutes[i] = Route{Dst: d, Src: p.nearest(t, d), Element: t}
		}
	}
	return p.nearestRoutes
}

// class is the highest level any route must cross.
func (p *problem) class() Class {
	c := Identity
	for _, r := range p.nearestRoutesOnce() {
		c = max(c, p.level(r.Src, r.Dst))
	}
	return c
}

// mechanisms lists the mechanisms at or above class that Classify costs,
// cheapest level first.
func (p *problem) mechanisms(class Class) []Mechanism {
	switch class {
	case Identity:
		return []Mechanism{{Via: Identity}}
	case RegisterPermute:
		return []Mechanism{{Via: RegisterPermute}, {Via: SharedMemory}, {Via: GlobalMemory}}
	case WarpShuffle:
		return []Mechanism{{Via: WarpShuffle}, {Via: SharedMemory}, {Via: GlobalMemory}}
	case SharedMemory:
		return []Mechanism{{Via: SharedMemory}, {Via: GlobalMemory}}
	case ClusterSharedMemory:
		return []Mechanism{{Via: ClusterSharedMemory, Variant: "push"}, {Via: ClusterSharedMemory, Variant: "pull"}, {Via: GlobalMemory}}
	}
	return []Mechanism{{Via: GlobalMemory}}
}

// plan builds the witness of one mechanism, or says why it cannot carry the
// conversion.
func (p *problem) plan(m Mechanism, class Class, t *costmodel.Target) (*Witness, string) {
	w := &Witness{
		Mechanism:  m,
		SrcElement: p.src.elem.String(),
		DstElement: p.dst.elem.String(),
		ConvertAt:  p.convertAt(m),
	}
	if m.Via > RegisterPermute {
		w.Moved = p.moved().String()
	}
	var why string
	switch m.Via {
	case Identity:
		w.Routes = p.routes()
		w.Movement.Mechanism = Identity.String()
	case RegisterPermute:
		w.Routes = p.routes()
		w.Registers = p.registerPlan(w.Routes, nil)
	case WarpShuffle:
		w.Routes = p.routes()
		w.Shuffle, w.Registers = p.shufflePlan(w.Routes)
	case SharedMemory:
		why = p.sharedPlan(w, t)
	case ClusterSharedMemory:
		why = p.clusterPlan(w, t)
	case GlobalMemory:
		p.globalPlan(w, class)
	}
	if why != "" {
		return w, why
	}
	p.fillMovement(w)
	return w, ""
}

// moved is the element type that travels between threads: the narrower of
// the two, converted at the source when the destination is narrower.
func (p *problem) moved() storage.ElementType {
	if p.dst.bits < p.src.bits {
		return p.dst.elem
	}
	return p.src.elem
}

// convertAt says where a type conversion happens under m: "" (none),
// "source" (narrowing before the move) or "destination".
func (p *problem) convertAt(m Mechanism) string {
	switch {
	case p.src.elem == p.dst.elem:
		return ""
	case m.Via == RegisterPermute || m.Via == Identity:
		return "destination"
	case p.dst.bits < p.src.bits:
		return "source"
	}
	return "destination"
}

// memoryRoutes chooses one source per element and group of destinations
// (a block for shared memory, a cluster, or the whole tile for global
// memory): the smallest nearest source among the group's routes, so that
// each element is stored once per group.
func (p *problem) memoryRoutes(group func(Thread) int) []Route {
	rs := p.routes()
	groups := make([]int, len(rs))
	ng, minG := 0, 0
	for i, r := range rs {
		groups[i] = group(r.Dst.Thread)
		ng, minG = max(ng, groups[i]+1), min(minG, groups[i])
	}
	// The choices by element and group in a table when groups are few
	// (blocks, clusters, one), else in a map.
	// A replicated element is stored by its first owner in the group
	// (the lowest block, warp, lane, slot), not by whichever copy each
	// destination found nearest: whole warps store, once each.
	first := func(elem, g int, src Place) Place {
		best, found := src, false
		for _, o := range p.owners[elem] {
			if group(o.Thread) == g && (!found || comparePlaces(o, best) < 0) {
				best, found = o, true
			}
		}
		return best
	}
	if minG >= 0 && ng*p.nElem <= 4*len(rs)+p.nElem {
		chosen := make([]Place, ng*p.nElem)
		has := make([]bool, ng*p.nElem)
		for i, r := range rs {
			k := groups[i]*p.nElem + r.Element
			if !has[k] {
				chosen[k], has[k] = first(r.Element, groups[i], r.Src), true
			}
		}
		for i := range rs {
			rs[i].Src = chosen[groups[i]*p.nElem+rs[i].Element]
		}
		return rs
	}
	type key struct{ elem, group int }
	chosen := make(map[key]Place, len(rs))
	for i, r := range rs {
		k := key{r.Element, groups[i]}
		if _, ok := chosen[k]; !ok {
			chosen[k] = first(r.Element, groups[i], r.Src)
		}
	}
	for i := range rs {
		rs[i].Src = chosen[key{rs[i].Element, groups[i]}]
	}
	return rs
}

func comparePlaces(a, b Place) int {
	return cmp.Or(cmp.Compare(a.Block, b.Block), cmp.Compare(a.Warp, b.Warp), cmp.Compare(a.Lane, b.Lane), cmp.Compare(a.Slot, b.Slot))
}

func unflatten(i int, sizes []int, out []int) {
	for d := len(sizes) - 1; d >= 0; d-- {
		out[d] = i % sizes[d]
		i /= sizes[d]
	}
}

func flatten(coords, sizes []int) int {
	i := 0
	for d, c := range coords {
		i = i*sizes[d] + c
	}
	return i
}

// KeyOf is the key of a conversion for caches and measurement tables: the
// fingerprints of both distributions and the renaming. Classify's result
// depends on nothing else but its Options' target, measurements and kernel
// boundary.
func KeyOf(src, dst *distribution.Distribution, r distribution.Rename) costmodel.ConversionKey {
	return costmodel.ConversionKey{Src: src.Fingerprint().String(), Dst: dst.Fingerprint().String(), Rename: r.String()}
}

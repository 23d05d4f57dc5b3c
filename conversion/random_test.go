package conversion

import (
	"math/rand/v2"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// A holding lists, per executor (flat over blocks × warps × lanes), the
// elements it holds by value.
type holding [][]int

// table turns a holding of a (x, y) tile into a tabulated distribution with
// a random register order.
func (h holding) table(t *testing.T, r *rand.Rand, y, warps, lanes, clusters int, elem storage.ElementType) *distribution.Distribution {
	t.Helper()
	slots := r.Perm(len(h[0]))
	tab := distribution.Tabulation{Name: "random", Tile: []string{"x", "y"}, Element: elem, BlocksPerCluster: clusters,
		Levels: []distribution.Level{distribution.LevelBlock, distribution.LevelWarp, distribution.LevelLane}}
	for e, els := range h {
		for v, el := range els {
			tab.Entries = append(tab.Entries, distribution.Entry{
				Block: e / (warps * lanes), Warp: e / lanes % warps, Lane: e % lanes,
				Value: v, Slot: slots[v], Tile: []int{el / y, el % y}})
		}
	}
	d, err := distribution.NewTabulated(tab)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Random pairs: every mechanism Classify plans replays exactly, and the
// class is the lowest level by definition (no route passes over a nearer
// source, and the highest route is the class).
func TestRandomPairsReplay(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tg := target(t, "h200")
	types := []storage.ElementType{storage.F32, storage.F16, storage.BF16, storage.F8E4M3, storage.U4, storage.I8}
	shapes := []randomShape{
		{8, 8, 1, 1, 32, 2},
		{16, 16, 1, 2, 32, 4},
		{8, 16, 2, 1, 32, 2},
		{4, 8, 1, 1, 16, 2},
		{16, 8, 2, 2, 8, 4},
	}
	seen := map[Class]int{}
	for i := range 100 {
		s := shapes[i%len(shapes)]
		sd, dd := randomPair(t, r, s, types)
		opts := Options{}
		p, err := newProblem(sd, dd, opts)
		if err != nil {
			t.Fatal(err)
		}
		class := p.class()
		seen[class]++
		top := Identity
		for _, rt := range p.routes() {
			top = max(top, p.level(rt.Src, rt.Dst))
			for _, o := range p.owners[rt.Element] {
				if p.level(o, rt.Dst) < p.level(rt.Src, rt.Dst) {
					t.Fatalf("case %d: route %+v passes over the nearer %+v", i, rt, o)
				}
			}
		}
		if top != class {
			t.Fatalf("case %d: class %v, highest route %v", i, class, top)
		}
		for _, m := range p.mechanisms(class) {
			w, why := p.plan(m, class, tg)
			if why != "" {
				continue
			}
			if err := Replay(sd, dd, opts, w); err != nil {
				t.Fatalf("case %d (%v → %v, %v by %v): %v", i, sd.Element(), dd.Element(), class, m, err)
			}
		}
		if _, err := Classify(sd, dd, opts); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
	}
	for _, c := range []Class{RegisterPermute, WarpShuffle, SharedMemory, ClusterSharedMemory, GlobalMemory} {
		if seen[c] == 0 {
			t.Errorf("no random pair of class %v (%v)", c, seen)
		}
	}
}

// Source and destination may spread the tile over different executor
// shapes (other numbers of blocks, warps, lanes and values): every
// mechanism still replays.
func TestRandomShapesReplay(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tg := target(t, "h200")
	type shape struct{ blocks, warps, lanes int }
	shapes := []shape{{1, 1, 32}, {1, 2, 16}, {2, 1, 32}, {1, 4, 8}, {2, 2, 4}, {1, 1, 8}}
	const n = 128 // a (8, 16) tile
	for i := range 40 {
		a, b := shapes[r.IntN(len(shapes))], shapes[r.IntN(len(shapes))]
		make1 := func(s shape) holding {
			execs := s.blocks * s.warps * s.lanes
			perm := r.Perm(n)
			h := make(holding, execs)
			per := n / execs
			for e := range h {
				h[e] = perm[e*per : (e+1)*per]
			}
			return h
		}
		sd := make1(a).table(t, r, 16, a.warps, a.lanes, 1, storage.F16)
		dd := make1(b).table(t, r, 16, b.warps, b.lanes, 1, storage.F32)
		p, err := newProblem(sd, dd, Options{})
		if err != nil {
			t.Fatal(err)
		}
		class := p.class()
		for _, m := range p.mechanisms(class) {
			w, why := p.plan(m, class, tg)
			if why != "" {
				continue
			}
			if err := Replay(sd, dd, Options{}, w); err != nil {
				t.Fatalf("case %d (%+v → %+v, %v by %v): %v", i, a, b, class, m, err)
			}
		}
	}
}

// A randomShape is the size of a random pair's tile (x × y) and of its
// machine: blocks, warps per block, lanes per warp, values per thread.
type randomShape struct{ x, y, blocks, warps, lanes, values int }

// randomPair draws a source holding of shape s and a destination of one of
// four kinds (any holding; the same threads, other registers; lanes
// permuted within each warp; the same, with copies added on the source),
// each tabulated with a random element type of types.
func randomPair(t *testing.T, r *rand.Rand, s randomShape, types []storage.ElementType) (*distribution.Distribution, *distribution.Distribution) {
	t.Helper()
	execs := s.blocks * s.warps * s.lanes
	clusters := 1
	if s.blocks > 1 && r.IntN(2) == 0 {
		clusters = s.blocks
	}
	perm := r.Perm(s.x * s.y)
	src := make(holding, execs)
	for e := range src {
		src[e] = perm[e*s.values : (e+1)*s.values]
	}
	dst := make(holding, execs)
	switch r.IntN(4) {
	case 0: // anything
		perm2 := r.Perm(s.x * s.y)
		for e := range dst {
			dst[e] = perm2[e*s.values : (e+1)*s.values]
		}
	case 1: // the same threads, other registers
		for e := range dst {
			dst[e] = append([]int(nil), src[e]...)
			r.Shuffle(len(dst[e]), func(a, b int) { dst[e][a], dst[e][b] = dst[e][b], dst[e][a] })
		}
	case 2: // lanes permuted within each warp
		for w := 0; w < execs; w += s.lanes {
			lp := r.Perm(s.lanes)
			for l := range s.lanes {
				dst[w+l] = src[w+lp[l]]
			}
		}
	default: // the same, with copies added on the source: each
		// element also in the next lane of its warp
		copy(dst, src)
		withCopies := make(holding, execs)
		for e := range src {
			next := e - e%s.lanes + (e+1)%s.lanes
			withCopies[e] = append(append([]int(nil), src[e]...), src[next]...)
		}
		src = withCopies
	}
	return src.table(t, r, s.y, s.warps, s.lanes, clusters, types[r.IntN(len(types))]),
		dst.table(t, r, s.y, s.warps, s.lanes, clusters, types[r.IntN(len(types))])
}

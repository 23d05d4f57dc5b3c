package conversion

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/storage"
)

// A Memo keeps, across classifications, the work that depends on one side
// of a conversion alone: the candidate shared layouts of a tile; per side
// (the stores, or the loads, of one conversion) its widest vector, its
// shared-memory accesses with their costs on every candidate, and its warp
// instructions on an address map; and the assembly of the loaded
// registers. A planner classifies every pair of a few distributions, and
// each distribution's stores are the same whatever it converts to (its
// loads likewise, whatever it converts from), so a Memo passed in Options
// to each Classify does that work once per distribution instead of once
// per pair. Entries are keyed by their whole input, so a Memo never
// changes a Result; it only grows, by a few entries per distinct side.
// The zero value is not ready: use NewMemo; a nil *Memo keeps nothing. It
// is safe for concurrent use.
type Memo struct {
	mu         sync.Mutex
	candidates map[candidatesKey]*candidatesEntry
	sides      map[string]*sideEntry // by sideKey
	assemblies map[assemblyKey]*RegisterPlan
}

// A sideEntry is what the memo keeps of one side, the stores or the loads
// of a conversion: its widest vector, its shared-memory accesses and their
// costs, and its warp instructions on address maps.
type sideEntry struct {
	vMax    int
	shared  []*sharedSide              // nil until asked for
	laidOut map[laidOutKey][]MemAccess // read and written under the memo's lock
}

// A laidOutKey names the warp instructions of a side with one vector on
// one address map: layout i of the memo's candidates for the side's tile
// and moved type, or -1 for the row-major map.
type laidOutKey struct{ vector, layout int }

// NewMemo returns an empty memo.
func NewMemo() *Memo {
	return &Memo{candidates: map[candidatesKey]*candidatesEntry{}, sides: map[string]*sideEntry{},
		assemblies: map[assemblyKey]*RegisterPlan{}}
}

type candidatesKey struct {
	tile string
	elem storage.ElementType
}

type candidatesEntry struct {
	layouts []storage.Layout
	err     error
}

// sharedCandidates is storage.SharedCandidates(tile, elem), kept. Two
// goroutines asking at once may both compute it, but both get the list
// stored first: the sides are costed on the list they were given, and
// storage.Cheapest combines only tables of one list.
func (m *Memo) sharedCandidates(tile indexspace.Space, elem storage.ElementType) ([]storage.Layout, error) {
	if m == nil {
		return storage.SharedCandidates(tile, elem)
	}
	k := candidatesKey{tile.String(), elem}
	m.mu.Lock()
	e, ok := m.candidates[k]
	m.mu.Unlock()
	if !ok {
		layouts, err := storage.SharedCandidates(tile, elem)
		e = keepFirst(m, m.candidates, k, &candidatesEntry{layouts, err})
	}
	return e.layouts, e.err
}

// keepFirst stores v under k in table unless another goroutine stored a
// value there meanwhile, and returns the value stored: every goroutine
// works with the same entry, and entries that refer to each other (sides
// to the candidate list they were costed on) stay consistent.
func keepFirst[K comparable, V any](m *Memo, table map[K]V, k K, v V) V {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := table[k]; ok {
		return old
	}
	table[k] = v
	return v
}

// side is the memo's entry for ms, made (with its widest vector) if new.
func (m *Memo) side(p *problem, ms *memSide) *sideEntry {
	key := p.sideKey(ms)
	m.mu.Lock()
	e, ok := m.sides[key]
	m.mu.Unlock()
	if ok {
		return e
	}
	return keepFirst(m, m.sides, key, &sideEntry{vMax: p.maxVector(*ms, p.movedBits()), laidOut: map[laidOutKey][]MemAccess{}})
}

// maxVector is p.maxVector(ms, the moved type's bits), kept.
func (m *Memo) maxVector(p *problem, ms *memSide) int {
	if m == nil {
		return p.maxVector(*ms, p.movedBits())
	}
	return m.side(p, ms).vMax
}

// sharedSides is p.newSharedSides(ms, vMax, tile, layouts), kept; the
// layouts are the memo's own for the side's tile and moved type.
func (m *Memo) sharedSides(p *problem, ms *memSide, vMax int, tile indexspace.Space, layouts []storage.Layout) []*sharedSide {
	if m == nil {
		return p.newSharedSides(ms, vMax, tile, layouts)
	}
	e := m.side(p, ms)
	m.mu.Lock()
	sides := e.shared
	m.mu.Unlock()
	if sides != nil {
		return sides
	}
	sides = p.newSharedSides(ms, vMax, tile, layouts)
	m.mu.Lock()
	if e.shared == nil {
		e.shared = sides
	}
	sides = e.shared
	m.mu.Unlock()
	return sides
}

// laidOut is p.layOut(ms, v, addr), kept where addr is the row-major map or
// one of the memo's candidates. The instructions are copied, so that the
// caller may set their wavefronts; their lanes are shared and must not be
// changed.
func (m *Memo) laidOut(p *problem, ms *memSide, v int, addr addressMap) []MemAccess {
	if m == nil {
		return p.layOut(ms, v, addr)
	}
	k := laidOutKey{v, -1}
	if addr.layouts != nil {
		k.layout = addr.i
	}
	e := m.side(p, ms)
	m.mu.Lock()
	as, ok := e.laidOut[k]
	m.mu.Unlock()
	if !ok {
		as = keepFirst(m, e.laidOut, k, p.layOut(ms, v, addr))
	}
	return slices.Clone(as)
}

// An assemblyKey is everything assembleLoads reads: the destination's
// places (its distribution's, in order), both element types, the loads
// and their vector.
type assemblyKey struct {
	dst              *distribution.Distribution
	srcElem, dstElem storage.ElementType
	loads            string // sideKey
	vector           int
}

// assembly is p.assembleLoads(routes, loads, vl), kept; the plan is shared
// by the results that use it, which nothing changes.
func (m *Memo) assembly(p *problem, routes []Route, loads *memSide, vl int) *RegisterPlan {
	if m == nil {
		return p.assembleLoads(routes, loads, vl)
	}
	key := assemblyKey{p.dst.d, p.src.elem, p.dst.elem, p.sideKey(loads), vl}
	m.mu.Lock()
	rp, ok := m.assemblies[key]
	m.mu.Unlock()
	if ok {
		return rp
	}
	return keepFirst(m, m.assemblies, key, p.assembleLoads(routes, loads, vl))
}

// sideKey is a key that differs between two sides unless they are laid out
// and costed alike: the destination's tile, the moved type, the direction
// and every thread's items. It is computed once per side.
func (p *problem) sideKey(ms *memSide) string {
	if ms.key != "" {
		return ms.key
	}
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(p.tileAxes)))
	for _, a := range p.tileAxes {
		b = binary.AppendUvarint(b, uint64(len(a.Name)))
		b = append(b, a.Name...)
		b = binary.AppendVarint(b, int64(a.Size))
	}
	b = binary.AppendVarint(b, int64(p.moved()))
	b = binary.AppendVarint(b, int64(ms.op))
	b = binary.AppendUvarint(b, uint64(len(ms.threads)))
	for i, t := range ms.threads {
		b = binary.AppendVarint(b, int64(t.Block))
		b = binary.AppendVarint(b, int64(t.Warp))
		b = binary.AppendVarint(b, int64(t.Lane))
		b = binary.AppendUvarint(b, uint64(len(ms.items[i])))
		for _, it := range ms.items[i] {
			b = binary.AppendVarint(b, int64(it.slot))
			b = binary.AppendVarint(b, int64(it.elem))
			b = binary.AppendVarint(b, int64(it.memory))
		}
	}
	ms.key = string(b)
	return ms.key
}

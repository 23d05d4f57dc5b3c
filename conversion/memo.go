package conversion

import (
	"encoding/binary"
	"sync"

	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/storage"
)

// A Memo keeps, across classifications, the work that depends on one side
// of a conversion alone: the candidate shared layouts of a tile, and the
// stores (or loads) of one side through shared memory with their costs on
// every candidate. A planner classifies every pair of a few distributions,
// and each distribution's stores into a block's scratch are the same
// whatever it converts to (the loads likewise, whatever it converts from),
// so a Memo passed in Options to each Classify does that work once per
// distribution instead of once per pair. Entries are keyed by their whole
// input, so a Memo never changes a Result; it only grows. The zero value is
// not ready: use NewMemo; a nil *Memo keeps nothing. It is safe for
// concurrent use.
type Memo struct {
	mu         sync.Mutex
	candidates map[candidatesKey]*candidatesEntry
	sides      map[string][]*sharedSide
}

// NewMemo returns an empty memo.
func NewMemo() *Memo {
	return &Memo{candidates: map[candidatesKey]*candidatesEntry{}, sides: map[string][]*sharedSide{}}
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
// goroutines asking at once may both compute it, and both get the list
// stored first.
func (m *Memo) sharedCandidates(tile indexspace.Space, elem storage.ElementType) ([]storage.Layout, error) {
	if m == nil {
		return storage.SharedCandidates(tile, elem)
	}
	k := candidatesKey{tile.String(), elem}
	m.mu.Lock()
	e, ok := m.candidates[k]
	m.mu.Unlock()
	if ok {
		return e.layouts, e.err
	}
	layouts, err := storage.SharedCandidates(tile, elem)
	m.mu.Lock()
	if e, ok := m.candidates[k]; ok {
		// Stored meanwhile by another goroutine: every caller must get
		// the same list, as sides are costed on the list they were given
		// and storage.Cheapest combines only tables of one list.
		layouts, err = e.layouts, e.err
	} else {
		m.candidates[k] = &candidatesEntry{layouts, err}
	}
	m.mu.Unlock()
	return layouts, err
}

// sharedSides is p.newSharedSides(ms, op, vMax, tile, layouts), kept by
// everything it depends on: the tile, the moved type, the direction and
// the items of every thread (which fix vMax); the layouts are the memo's
// own for the tile and type.
func (m *Memo) sharedSides(p *problem, ms memSide, op storage.Op, vMax int, tile indexspace.Space, layouts []storage.Layout) []*sharedSide {
	if m == nil {
		return p.newSharedSides(ms, op, vMax, tile, layouts)
	}
	key := appendSideKey(nil, tile, p.moved(), op, ms)
	m.mu.Lock()
	sides, ok := m.sides[string(key)]
	m.mu.Unlock()
	if ok {
		return sides
	}
	sides = p.newSharedSides(ms, op, vMax, tile, layouts)
	m.mu.Lock()
	m.sides[string(key)] = sides
	m.mu.Unlock()
	return sides
}

// appendSideKey appends to b a key that differs between two sides unless
// they are laid out and costed alike.
func appendSideKey(b []byte, tile indexspace.Space, elem storage.ElementType, op storage.Op, ms memSide) []byte {
	s := tile.String()
	b = binary.AppendUvarint(b, uint64(len(s)))
	b = append(b, s...)
	b = binary.AppendVarint(b, int64(elem))
	b = binary.AppendVarint(b, int64(op))
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
	return b
}

package storage

import (
	"sync"

	"github.com/cklplan/cklplan/indexspace"
)

// A CostTable is the cost of one list of accesses on each layout of a list
// of shared candidates (SharedCandidates'), costed as far as choices have
// needed. The accesses of a conversion through shared memory are its stores
// and its loads; the planner chooses a layout for every pair of store and
// load vector widths of every conversion, and the stores of one width are
// the same list in every pair (and, where conversions share a source, in
// every conversion). Costing each list in its own table and combining the
// tables with Cheapest makes the choice CheapestShared makes on their
// concatenation, because an access's cost on a layout depends on nothing
// but the access and the layout; what one choice costed, the next reads.
// A CostTable is safe for concurrent use.
type CostTable struct {
	tile       indexspace.Space
	layouts    []Layout
	footprints []int
	accesses   []Access
	rest       []int // rest[j] is the conflict-free cost of accesses j, j+1, ... (CheapestShared's bound)

	mu       sync.Mutex
	progress []tableProgress // per layout
}

// tableProgress is how far one layout is costed: the totals of accesses
// [0, len(totals)), or the access that rejects it.
type tableProgress struct {
	costs    translateCosts
	totals   []int
	sum      int
	rejected error // why access len(totals) rejects the layout; nil while it serves
}

// NewCostTable returns the table of the accesses on the layouts, which are
// the candidates of SharedCandidates(tile, elem); it keeps both and changes
// neither. Nothing is costed yet.
func NewCostTable(tile indexspace.Space, elem ElementType, layouts []Layout, accesses []Access) *CostTable {
	t := &CostTable{tile: tile, layouts: layouts, footprints: make([]int, len(layouts)), accesses: accesses,
		rest: make([]int, len(accesses)+1), progress: make([]tableProgress, len(layouts))}
	for j := len(accesses) - 1; j >= 0; j-- {
		t.rest[j] = t.rest[j+1] + conflictFree(&accesses[j], elem)
	}
	shapes := accessShapes(tile, elem, accesses)
	all := make([]int, len(layouts)*len(accesses))
	for i := range layouts {
		t.footprints[i] = layouts[i].Footprint()
		t.progress[i] = tableProgress{
			costs:  translateCosts{layout: &layouts[i], accesses: accesses, shapes: shapes},
			totals: all[i*len(accesses) : i*len(accesses) : (i+1)*len(accesses)],
		}
	}
	return t
}

// Layouts are the layouts the table costs, in order.
func (t *CostTable) Layouts() []Layout { return t.layouts }

// Totals are the wavefronts of each access on layout i, in order (the
// Total of Layout.Wavefronts), costing what is not yet costed, or nil when
// layout i rejects an access. The caller must not change them.
func (t *CostTable) Totals(i int) []int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.advance(i) {
	}
	if t.progress[i].rejected != nil {
		return nil
	}
	return t.progress[i].totals
}

// Sum is the wavefronts of all accesses on layout i; 0 when it rejects
// one.
func (t *CostTable) Sum(i int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.advance(i) {
	}
	if t.progress[i].rejected != nil {
		return 0
	}
	return t.progress[i].sum
}

// advance costs the next access on layout i and reports whether there was
// one to cost; t.mu is held.
func (t *CostTable) advance(i int) bool {
	pr := &t.progress[i]
	j := len(pr.totals)
	if pr.rejected != nil || j == len(t.accesses) {
		return false
	}
	total, err := pr.costs.total(j)
	if err != nil {
		pr.rejected = err
		return true
	}
	pr.totals = append(pr.totals, total)
	pr.sum += total
	return true
}

// Cheapest returns the index of the layout that ChooseShared (and
// CheapestShared) chooses for the concatenation of the tables' accesses,
// or their error when every layout rejects an access. The tables must cost
// one list of layouts. Like CheapestShared it costs, one access at a time,
// the layout whose lower bound is least (the cost so far plus the
// conflict-free cost of the rest, summed over the tables), and stops when
// that layout is costed in full.
func Cheapest(tables ...*CostTable) (int, error) {
	if len(tables) == 0 {
		panic("storage: Cheapest of no tables")
	}
	layouts := tables[0].layouts
	for _, t := range tables[1:] {
		if len(t.layouts) != len(layouts) || len(layouts) > 0 && &t.layouts[0] != &layouts[0] {
			panic("storage: Cheapest of tables that cost different layouts")
		}
	}
	bounds := make([]int, len(layouts))
	open := make([]int, len(layouts)) // the first table that has not costed the layout in full; len(tables): none
	const rejected = -1
	for {
		clear(bounds)
		clear(open)
		for k, t := range tables {
			t.mu.Lock()
			for i := range layouts {
				pr := &t.progress[i]
				switch {
				case open[i] == rejected:
				case pr.rejected != nil:
					open[i] = rejected
				default:
					bounds[i] += pr.sum + t.rest[len(pr.totals)]
					if open[i] == k && len(pr.totals) == len(t.accesses) {
						open[i] = k + 1
					}
				}
			}
			t.mu.Unlock()
		}
		best := -1
		for i := range layouts {
			if open[i] == rejected {
				continue
			}
			if best < 0 || bounds[i] < bounds[best] || bounds[i] == bounds[best] && tables[0].footprints[i] < tables[0].footprints[best] {
				best = i
			}
		}
		if best < 0 {
			return -1, noSharedLayout(tables[0].tile, layouts, firstRejections(tables))
		}
		if open[best] == len(tables) {
			return best, nil
		}
		t := tables[open[best]]
		t.mu.Lock()
		t.advance(best)
		t.mu.Unlock()
	}
}

// firstRejections are the reasons every layout is rejected, as ChooseShared
// gives them: the first access that rejects it, numbered in the
// concatenation of the tables. Every layout is rejected by some table.
func firstRejections(tables []*CostTable) []string {
	reasons := make([]string, len(tables[0].layouts))
	for i := range reasons {
		offset := 0
		for _, t := range tables {
			t.mu.Lock()
			for t.advance(i) {
			}
			pr := t.progress[i]
			t.mu.Unlock()
			if pr.rejected != nil {
				reasons[i] = rejection(offset+len(pr.totals), pr.rejected)
				break
			}
			offset += len(t.accesses)
		}
	}
	return reasons
}

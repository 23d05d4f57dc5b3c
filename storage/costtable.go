package storage

import "github.com/cklplan/cklplan/indexspace"

// A CostTable is the cost of one list of accesses on each layout of a list
// of shared candidates (SharedCandidates'), every access costed in full.
// The accesses of a conversion through shared memory are its stores and its
// loads; the planner chooses a layout for every pair of store and load
// vector widths of every conversion, and the stores of one width are the
// same list in every pair (and, where conversions share a source, in
// every conversion). Costing each list once and combining the lists with
// Cheapest makes the choice CheapestShared makes on their concatenation,
// because an access's cost on a layout depends on nothing but the access
// and the layout. A CostTable is immutable once built and may be shared
// across goroutines.
type CostTable struct {
	tile    indexspace.Space
	layouts []Layout
	n       int              // the accesses
	totals  [][]int          // per layout, the wavefronts of each access; nil where the layout rejects one
	sums    []int            // per layout, the sum of totals
	reject  []rejectedAccess // per layout, the access it rejects; err nil where it serves them all
}

// A rejectedAccess is the first access a layout rejects, and why.
type rejectedAccess struct {
	access int
	err    error
}

func (t *CostTable) serves(i int) bool { return t.reject[i].err == nil }

// NewCostTable costs every access on every layout; the layouts are the
// candidates of SharedCandidates(tile, elem), which the table keeps and
// does not change.
func NewCostTable(tile indexspace.Space, elem ElementType, layouts []Layout, accesses []Access) *CostTable {
	t := &CostTable{tile: tile, layouts: layouts, n: len(accesses),
		totals: make([][]int, len(layouts)), sums: make([]int, len(layouts)), reject: make([]rejectedAccess, len(layouts))}
	shapes := accessShapes(tile, elem, accesses)
	all := make([]int, len(layouts)*len(accesses))
	for i := range layouts {
		costs := translateCosts{layout: &layouts[i], accesses: accesses, shapes: shapes}
		totals := all[i*len(accesses) : (i+1)*len(accesses) : (i+1)*len(accesses)]
		for j := range accesses {
			total, err := costs.total(j)
			if err != nil {
				totals = nil
				t.reject[i] = rejectedAccess{j, err}
				break
			}
			totals[j] = total
			t.sums[i] += total
		}
		t.totals[i] = totals
	}
	return t
}

// Layouts are the layouts the table costs, in order.
func (t *CostTable) Layouts() []Layout { return t.layouts }

// Totals are the wavefronts of each access on layout i, in order (the
// Total of Layout.Wavefronts), or nil when layout i rejects an access.
// The caller must not change them.
func (t *CostTable) Totals(i int) []int { return t.totals[i] }

// Sum is the wavefronts of all accesses on layout i; 0 when it rejects
// one.
func (t *CostTable) Sum(i int) int { return t.sums[i] }

// Cheapest returns the index of the layout that ChooseShared (and
// CheapestShared) chooses for the concatenation of the tables' accesses,
// or their error when every layout rejects an access. The tables must cost
// one list of layouts.
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
	best, bestSum := -1, 0
	for i := range layouts {
		sum, serves := 0, true
		for _, t := range tables {
			if !t.serves(i) {
				serves = false
				break
			}
			sum += t.sums[i]
		}
		if !serves {
			continue
		}
		if best < 0 || sum < bestSum || sum == bestSum && layouts[i].Footprint() < layouts[best].Footprint() {
			best, bestSum = i, sum
		}
	}
	if best >= 0 {
		return best, nil
	}
	// A layout's reason is the first access it rejects, numbered in the
	// concatenation, as ChooseShared says it.
	reasons := make([]string, len(layouts))
	for i := range layouts {
		offset := 0
		for _, t := range tables {
			if !t.serves(i) {
				reasons[i] = rejection(offset+t.reject[i].access, t.reject[i].err)
				break
			}
			offset += t.n
		}
	}
	return -1, noSharedLayout(tables[0].tile, layouts, reasons)
}

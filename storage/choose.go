package storage

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/indexspace"
)

// A Candidate is one shared-memory layout that ChooseShared considered,
// with the cost of the accesses on it.
type Candidate struct {
	Layout     Layout
	Wavefronts int          // the sum over the accesses; 0 when rejected
	Accesses   []Wavefronts // one per access, in order; nil when rejected
	Rejected   string       // why the layout cannot serve the accesses; "" when it can
}

// SharedCandidates lists the row-major shared-memory layouts of the tile
// (the last leaf fastest) that ChooseShared compares, in its tie-breaking
// order:
//
//   - unpadded;
//   - padded by one element, 4, 8 and 16 bytes per row (each distinct pad
//     once, in that order; pads that are not whole elements are skipped);
//   - for elements of at least a byte, the byte swizzles that xor the index
//     of a 2^M-byte chunk within a 128-byte line with the line index:
//     Swizzle<B,M,7-M> for M = 4, 3, 2 (chunks of 16, 8, 4 bytes, at least one
//     element) and B = 1 … 7-M (2 … 128/2^M chunks permuted), which for
//     M = 4 are CUTLASS's 32-, 64- and 128-byte swizzles.
//
// Every candidate has base alignment 128 bytes, or the swizzle's period when
// larger. Sub-byte elements get the padded candidates only, in the Elements
// unit.
func SharedCandidates(tile indexspace.Space, elem ElementType) ([]Layout, error) {
	if !elem.Valid() {
		return nil, fmt.Errorf("storage: element type %v: want one of the declared types", elem)
	}
	ebits := elem.Bits()
	unit := Bytes
	if ebits < 8 {
		unit = Elements
	}
	var out []Layout
	var unpadded Layout
	seenPad := map[int]bool{}
	for _, padBits := range []int{0, ebits, 32, 64, 128} {
		if padBits%ebits != 0 || seenPad[padBits/ebits] {
			continue
		}
		pad := padBits / ebits
		seenPad[pad] = true
		l, err := RowMajor(tile, pad, Config{Memory: Shared, Element: elem, Unit: unit, BaseAlign: WavefrontBytes})
		if err != nil {
			return nil, err
		}
		if pad == 0 {
			unpadded = l
		}
		out = append(out, l)
	}
	if ebits < 8 {
		return out, nil
	}
	for m := 4; m >= 2; m-- {
		if 1<<m < ebits/8 {
			continue
		}
		s := 7 - m
		for b := 1; b <= s; b++ {
			// SwizzledRowMajor would build and check the unpadded byte
			// layout's map again for every swizzle.
			sw := Swizzle{B: b, M: m, S: s}
			l, err := unpadded.withSwizzle(sw, max(WavefrontBytes, int(sw.Period())))
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// ChooseShared costs every access on every layout of SharedCandidates and
// returns the cheapest candidate that serves them all, together with every
// candidate in order. Cheapest means the fewest wavefronts summed over the
// accesses, then the smallest footprint, then the earliest candidate. An
// access that one layout cannot serve (a vector run broken by padding or a
// swizzle) rejects that layout; it is an error only when no layout serves
// every access. CheapestShared makes the same choice without costing every
// candidate.
func ChooseShared(tile indexspace.Space, elem ElementType, accesses []Access) (Candidate, []Candidate, error) {
	layouts, err := SharedCandidates(tile, elem)
	if err != nil {
		return Candidate{}, nil, err
	}
	all := make([]Candidate, len(layouts))
	best := -1
	for i, l := range layouts {
		c := Candidate{Layout: l}
		for j := range accesses {
			w, err := l.wavefronts(&accesses[j], true)
			if err != nil {
				c = Candidate{Layout: l, Rejected: rejection(j, err)}
				break
			}
			c.Accesses = append(c.Accesses, w)
			c.Wavefronts += w.Total
		}
		all[i] = c
		if c.Rejected != "" {
			continue
		}
		if best < 0 || c.Wavefronts < all[best].Wavefronts ||
			c.Wavefronts == all[best].Wavefronts && l.Footprint() < all[best].Layout.Footprint() {
			best = i
		}
	}
	if best < 0 {
		reasons := make([]string, len(all))
		for i, c := range all {
			reasons[i] = c.Rejected
		}
		return Candidate{}, all, noSharedLayout(tile, layouts, reasons)
	}
	return all[best], all, nil
}

// CheapestShared returns the candidate ChooseShared chooses, and how many
// candidates it chose among, or ChooseShared's error. It costs the
// accesses in order on whichever candidate's lower bound is least and stops
// as soon as one candidate is fully costed, so that a candidate is costed
// only as far as it could still win: the planner, which chooses a layout
// for every pair of vector widths of every conversion, needs the choice and
// not the others' costs.
//
// The bound of a partly costed candidate is its cost so far plus, for each
// access left, the conflict-free cost: one wavefront per phase with an
// active lane. That cost is the same on every candidate, because every
// candidate stores distinct tile points at distinct addresses (they are
// alias-free and have no broadcast axes), so two lanes share an address
// exactly where they share a tile point, which fixes the pairing of
// 8- and 16-byte loads. Bounds compare as ChooseShared's order does, by
// wavefronts, footprint and position; a fully costed candidate with the
// least bound is therefore at least as cheap as every other candidate
// could be, whatever the rest of its accesses cost.
func CheapestShared(tile indexspace.Space, elem ElementType, accesses []Access) (Candidate, int, error) {
	layouts, err := SharedCandidates(tile, elem)
	if err != nil {
		return Candidate{}, 0, err
	}
	// rest[j] is the conflict-free cost of accesses j, j+1, ...
	rest := make([]int, len(accesses)+1)
	for j := len(accesses) - 1; j >= 0; j-- {
		rest[j] = rest[j+1] + conflictFree(&accesses[j], elem)
	}
	type progress struct {
		next      int    // the first access not yet costed
		cost      int    // the wavefronts of accesses [0, next)
		footprint int    // the layout's
		rejected  string // why an access rejected the layout; "" while it serves
	}
	cands := make([]progress, len(layouts))
	for i, l := range layouts {
		cands[i].footprint = l.Footprint()
	}
	shapes := accessShapes(tile, elem, accesses)
	costs := make([]translateCosts, len(layouts))
	for i := range layouts {
		costs[i] = translateCosts{layout: &layouts[i], accesses: accesses, shapes: shapes}
	}
	// less orders candidates by bound, then footprint, then position.
	less := func(a, b int) bool {
		ba, bb := cands[a].cost+rest[cands[a].next], cands[b].cost+rest[cands[b].next]
		return ba < bb || ba == bb && (cands[a].footprint < cands[b].footprint ||
			cands[a].footprint == cands[b].footprint && a < b)
	}
	for {
		k := -1
		for i := range cands {
			if cands[i].rejected == "" && (k < 0 || less(i, k)) {
				k = i
			}
		}
		if k < 0 {
			reasons := make([]string, len(cands))
			for i, c := range cands {
				reasons[i] = c.rejected
			}
			return Candidate{}, len(layouts), noSharedLayout(tile, layouts, reasons)
		}
		c := &cands[k]
		if c.next == len(accesses) {
			return costed(layouts[k], accesses), len(layouts), nil
		}
		total, err := costs[k].total(c.next)
		if err != nil {
			c.rejected = rejection(c.next, err)
			continue
		}
		c.cost += total
		c.next++
	}
}

// costed is the candidate l with every access costed in full; l serves
// them all.
func costed(l Layout, accesses []Access) Candidate {
	c := Candidate{Layout: l}
	for j := range accesses {
		w, err := l.wavefronts(&accesses[j], true)
		if err != nil {
			panic("storage: a chosen layout rejects an access it served: " + err.Error())
		}
		c.Accesses = append(c.Accesses, w) // nil without accesses, as in ChooseShared
		c.Wavefronts += w.Total
	}
	return c
}

// conflictFree is the cost of the access a, of elem elements, on a layout
// that stores distinct tile points at distinct addresses and has no
// conflicts: one wavefront per phase with an active lane, the phases as
// CountWavefronts forms them (partner lanes of a load share an address
// exactly when they share a tile point). It is 0 where the access has no
// valid width; every layout rejects such an access anyway.
func conflictFree(a *Access, elem ElementType) int {
	v := max(1, a.Vector)
	width := v * elem.Bits() / 8
	perPhase, err := LanesPerPhase(width)
	if err != nil || a.Vector < 0 || v*elem.Bits()%8 != 0 || len(a.Lanes) > WarpSize {
		return 0
	}
	if a.Op == Load && width > BankBytes && pairSharedPoints(a.Lanes) {
		perPhase *= 2
	}
	phases := 0
	for first := 0; first < len(a.Lanes); first += perPhase {
		for _, p := range a.Lanes[first:min(first+perPhase, len(a.Lanes))] {
			if p != nil {
				phases++
				break
			}
		}
	}
	return phases
}

// pairSharedPoints is pairShared on tile points: whether every active lane
// starts at the same point as its partner lane l^1, or every active lane at
// the same point as its partner l^2.
func pairSharedPoints(lanes [][]int) bool {
	at := func(l int) []int {
		if l < len(lanes) {
			return lanes[l]
		}
		return nil
	}
	for _, mask := range []int{1, 2} {
		ok := true
		for l := range WarpSize {
			p, q := at(l), at(l^mask)
			if p != nil && q != nil && !slices.Equal(p, q) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// rejection is why access j rejects a layout, as Candidate.Rejected says it.
func rejection(j int, err error) string {
	return fmt.Sprintf("access %d: %s", j, strings.TrimPrefix(err.Error(), "storage: "))
}

// noSharedLayout is the error of a choice in which every layout was
// rejected, for the reasons given in order.
func noSharedLayout(tile indexspace.Space, layouts []Layout, reasons []string) error {
	lines := make([]string, len(layouts))
	for i, l := range layouts {
		lines[i] = fmt.Sprintf("%v: %s", l, reasons[i])
	}
	return fmt.Errorf("storage: no shared layout of %v serves every access:\n\t%s", tile, strings.Join(lines, "\n\t"))
}

package storage

import (
	"fmt"
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
			sw := Swizzle{B: b, M: m, S: s}
			l, err := SwizzledRowMajor(tile, sw, Config{Memory: Shared, Element: elem, BaseAlign: max(WavefrontBytes, int(sw.Period()))})
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
// every access.
func ChooseShared(tile indexspace.Space, elem ElementType, accesses []Access) (Candidate, []Candidate, error) {
	layouts, err := SharedCandidates(tile, elem)
	if err != nil {
		return Candidate{}, nil, err
	}
	all := make([]Candidate, len(layouts))
	best := -1
	for i, l := range layouts {
		c := Candidate{Layout: l}
		for j, a := range accesses {
			w, err := l.Wavefronts(a)
			if err != nil {
				c = Candidate{Layout: l, Rejected: fmt.Sprintf("access %d: %s", j, strings.TrimPrefix(err.Error(), "storage: "))}
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
			reasons[i] = fmt.Sprintf("%v: %s", c.Layout, c.Rejected)
		}
		return Candidate{}, all, fmt.Errorf("storage: no shared layout of %v serves every access:\n\t%s", tile, strings.Join(reasons, "\n\t"))
	}
	return all[best], all, nil
}

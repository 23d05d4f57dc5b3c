package distribution

import (
	"fmt"
	"slices"
	"strings"
)

// A ProblemKind classifies why a distribution is invalid.
type ProblemKind uint8

// The kinds of validity problems, in the order they are checked.
const (
	SlotOutOfRange ProblemKind = iota + 1 // a value's register slot is outside 0..values-1
	SlotShared                            // two values share a register slot
	OutsideTile                           // an executor's value lies outside the tile
	OwnedTwice                            // an element has two owners that differ in a non-replicated axis
	NotOwned                              // an element has no owner (for some value of the replicated axes)
)

var problemNames = [...]string{
	SlotOutOfRange: "slot out of range",
	SlotShared:     "slot shared",
	OutsideTile:    "outside tile",
	OwnedTwice:     "owned twice",
	NotOwned:       "not owned",
}

func (k ProblemKind) String() string {
	if k >= SlotOutOfRange && k <= NotOwned {
		return problemNames[k]
	}
	return fmt.Sprintf("ProblemKind(%d)", uint8(k))
}

// A Problem is one violated invariant, with the evidence.
type Problem struct {
	Kind ProblemKind
	// Element is the flat index of the tile element at fault (OwnedTwice,
	// NotOwned), or -1.
	Element int
	// Point is the flat executor × local index at fault (OutsideTile,
	// OwnedTwice: the second owner), or -1.
	Point int
	// Tile is the tile coordinate involved, if any.
	Tile []int
	// Local and Slot are the value and register slot at fault (SlotOutOfRange,
	// SlotShared).
	Local, Slot int
	// Message says what is wrong in the distribution's own names.
	Message string
}

// A ValidityError lists every problem found in a distribution, in the order
// they were found (storage first, then ownership in tabulation order).
type ValidityError struct {
	Name     string
	Problems []Problem
}

// maxShownPerKind bounds the problems of each kind that Error prints; all stay
// in Problems.
const maxShownPerKind = 4

func (e *ValidityError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "distribution %q is invalid:", e.Name)
	shown := map[ProblemKind]int{}
	hidden := 0
	for _, p := range e.Problems {
		if shown[p.Kind] == maxShownPerKind {
			hidden++
			continue
		}
		shown[p.Kind]++
		fmt.Fprintf(&b, "\n\t%s: %s", p.Kind, p.Message)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "\n\t… and %d more", hidden)
	}
	return b.String()
}

// checkOwnership checks that, for every value of the replicated executor axes,
// the other executor axes and the local axes map onto the tile one to one.
func (d *Distribution) checkOwnership() []Problem {
	var problems []Problem
	var repAxes, freeAxes []int
	for i, a := range d.spec.Executors {
		if a.Replicated {
			repAxes = append(repAxes, i)
		} else {
			freeAxes = append(freeAxes, i)
		}
	}
	sizesOf := func(idx []int) []int {
		s := make([]int, len(idx))
		for i, a := range idx {
			s[i] = d.execSizes[a]
		}
		return s
	}
	repSizes, freeSizes := sizesOf(repAxes), sizesOf(freeAxes)
	nRep, nFree := 1, 1
	for _, s := range repSizes {
		nRep *= s
	}
	for _, s := range freeSizes {
		nFree *= s
	}
	owner := make([]int32, d.nTile)
	rep := make([]int, len(repAxes))
	free := make([]int, len(freeAxes))
	exec := make([]int, len(d.execSizes))
	local := make([]int, len(d.localSizes))
	for r := 0; r < nRep; r++ {
		unflatten(r, repSizes, rep)
		for i := range owner {
			owner[i] = -1
		}
		for f := 0; f < nFree; f++ {
			unflatten(f, freeSizes, free)
			for i, a := range repAxes {
				exec[a] = rep[i]
			}
			for i, a := range freeAxes {
				exec[a] = free[i]
			}
			e := flatten(exec, d.execSizes)
			for l := 0; l < d.nLocal; l++ {
				p := e*d.nLocal + l
				t := d.owned[p]
				if owner[t] >= 0 {
					unflatten(l, d.localSizes, local)
					first := d.pointString(d.pointCoords(int(owner[t])))
					second := d.pointString(d.pointCoords(p))
					tile := d.tileCoords(int(t))
					problems = append(problems, Problem{Kind: OwnedTwice, Element: int(t), Point: p, Tile: tile,
						Message: fmt.Sprintf("element %s is owned by %s and by %s", d.tileString(tile), first, second)})
					continue
				}
				owner[t] = int32(p)
			}
		}
		for t, o := range owner {
			if o < 0 {
				tile := d.tileCoords(t)
				msg := fmt.Sprintf("element %s is owned by no executor", d.tileString(tile))
				if len(repAxes) > 0 {
					var fixed []string
					for i, a := range repAxes {
						fixed = append(fixed, fmt.Sprintf("%s=%d", d.spec.Executors[a].Name, rep[i]))
					}
					msg += " with " + strings.Join(fixed, " ")
				}
				problems = append(problems, Problem{Kind: NotOwned, Element: t, Point: -1, Tile: tile, Message: msg})
			}
		}
		if len(problems) > 0 {
			// One value of the replicated axes is evidence enough.
			return problems
		}
	}
	return nil
}

// pointCoords returns the executor then local coordinates of flat point p.
func (d *Distribution) pointCoords(p int) []int {
	sizes := append(slices.Clone(d.execSizes), d.localSizes...)
	c := make([]int, len(sizes))
	unflatten(p, sizes, c)
	return c
}

func (d *Distribution) tileCoords(t int) []int {
	c := make([]int, len(d.tileSizes))
	unflatten(t, d.tileSizes, c)
	return c
}

// pointString writes executor × local coordinates as "warp=1 lane=5 v=3".
func (d *Distribution) pointString(point []int) string {
	var parts []string
	for i, a := range d.spec.Executors {
		parts = append(parts, fmt.Sprintf("%s=%d", a.Name, point[i]))
	}
	for i, a := range d.spec.Locals {
		parts = append(parts, fmt.Sprintf("%s=%d", a.Name, point[len(d.spec.Executors)+i]))
	}
	return strings.Join(parts, " ")
}

func (d *Distribution) localString(local []int) string {
	var parts []string
	for i, a := range d.spec.Locals {
		parts = append(parts, fmt.Sprintf("%s=%d", a.Name, local[i]))
	}
	if len(parts) == 0 {
		return "()"
	}
	return strings.Join(parts, " ")
}

// tileString writes tile coordinates as "(m=3, k=4)".
func (d *Distribution) tileString(tile []int) string {
	parts := make([]string, len(tile))
	for i, c := range tile {
		parts[i] = fmt.Sprintf("%s=%d", d.spec.Tile[i].Name, c)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

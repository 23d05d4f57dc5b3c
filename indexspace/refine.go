package indexspace

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// PrimeRefine returns s with every leaf of composite size n replaced by a
// group of the same name whose factors are n's prime factors in increasing
// order (slowest first): (6,2) becomes ((2,3),2) and (4,3) becomes ((2,2),3).
// Leaves of size 1 or prime size stay. The factors of leaf a are named
// "a_0", "a_1", ...; when one of those names is already an axis of s (or was
// given to another leaf's factors) the separator grows to "__", "___", ...
// until all are fresh: (a:4, a_0:2) becomes (a:(a__0:2, a__1:2), a_0:2).
// It never fails. The flat order is unchanged: a leaf's value is the flat
// index of its factors.
func (s Space) PrimeRefine() (Space, error) {
	return s.splitLeaves(func(l LeafAxis) []int { return primeFactors(l.Size) }, newNameSet(s))
}

// splitLeaves replaces each leaf l by a group of factors of sizes split(l)
// (slowest first) when split returns two or more sizes, naming the factors
// by factorNames with taken holding every name not to be used; the names it
// invents are added to taken.
func (s Space) splitLeaves(split func(LeafAxis) []int, taken map[string]bool) (Space, error) {
	next := 0
	var walk func(as []Axis) []Axis
	walk = func(as []Axis) []Axis {
		out := make([]Axis, len(as))
		for i, a := range as {
			if a.factors != nil {
				out[i] = Group(a.name, walk(a.factors)...)
				continue
			}
			sizes := split(s.leaves[next])
			next++
			if len(sizes) < 2 {
				out[i] = Leaf(a.name, a.size)
				continue
			}
			names := factorNames(a.name, len(sizes), taken)
			fs := make([]Axis, len(sizes))
			for j, n := range sizes {
				fs[j] = Leaf(names[j], n)
				taken[names[j]] = true
			}
			out[i] = Group(a.name, fs...)
		}
		return out
	}
	return New(s.name, walk(s.axes)...)
}

// newNameSet returns the set of every axis name of the given spaces.
func newNameSet(spaces ...Space) map[string]bool {
	taken := map[string]bool{}
	for _, s := range spaces {
		for _, n := range s.Names() {
			taken[n] = true
		}
	}
	return taken
}

// factorNames returns the names PrimeRefine and CommonRefinement give to the
// n factors a leaf called leaf is split into: leaf + sep + "0", ...,
// leaf + sep + strconv.Itoa(n-1), where sep is the shortest run of
// underscores ("_", "__", ...) for which none of the n names is in taken.
// So the names are "a_0", "a_1" unless one of those is already used, then
// "a__0", "a__1", and so on; they depend only on leaf, n and taken.
func factorNames(leaf string, n int, taken map[string]bool) []string {
	names := make([]string, n)
	for sep := "_"; ; sep += "_" {
		fresh := true
		for j := range names {
			names[j] = leaf + sep + strconv.Itoa(j)
			if taken[names[j]] {
				fresh = false
				break
			}
		}
		if fresh {
			return names
		}
	}
}

// A RefinementConflict reports two spaces of equal size with no common
// refinement: the flat index is split at boundary A by an axis of the first
// space and at boundary B by an axis of the second, and the smaller does not
// divide the larger (a boundary is the stride of the slower axis: the product
// of the sizes of the leaves after it).
type RefinementConflict struct {
	First, Second Space
	AxisA, AxisB  string // the axes whose boundaries conflict
	A, B          int
}

func (e *RefinementConflict) Error() string {
	return fmt.Sprintf("indexspace: %s and %s have no common refinement: %s splits the flat index at %d and %s at %d, and %d does not divide %d",
		e.First, e.Second, e.AxisA, e.A, e.AxisB, e.B, min(e.A, e.B), max(e.A, e.B))
}

// CommonRefinement returns the coarsest common refinement of two spaces of
// equal size, as a refinement of each: a' refines a and b' refines b, each
// leaf split into a group of factors (sizes slowest first), and a' and b'
// have the same sizes of leaves once leaves of size 1 are left out, so that
// those leaves correspond one to one. The factors are named as by
// PrimeRefine, except that every axis name of a and of b counts as taken, so
// that no invented name is used in either space nor twice in one
// refinement. Refinement regroups without reordering: the flat order is
// kept. It fails with a *RefinementConflict when the two spaces split the
// flat index at boundaries that do not divide one another, and with an error
// when their sizes differ.
func CommonRefinement(a, b Space) (Space, Space, error) {
	if a.Size() != b.Size() {
		return Space{}, Space{}, fmt.Errorf("indexspace: %s has %d points and %s has %d: no common refinement", a, a.Size(), b, b.Size())
	}
	type boundary struct {
		at    int
		owner string
		space int
	}
	var bs []boundary
	for k, s := range []Space{a, b} {
		for _, l := range s.leaves {
			if l.Size > 1 {
				bs = append(bs, boundary{l.Stride, l.Name, k})
			}
		}
	}
	slices.SortStableFunc(bs, func(x, y boundary) int { return x.at - y.at })
	cuts := []int{1}
	var last = boundary{1, "", -1}
	for _, x := range bs {
		if x.at == cuts[len(cuts)-1] {
			last = x
			continue
		}
		if x.at%cuts[len(cuts)-1] != 0 {
			// Within one space the strides form a chain, so the two
			// boundaries come from different spaces.
			first, second := last, x
			if first.space != 0 {
				first, second = second, first
			}
			return Space{}, Space{}, &RefinementConflict{First: a, Second: b, AxisA: first.owner, AxisB: second.owner, A: first.at, B: second.at}
		}
		cuts = append(cuts, x.at)
		last = x
	}
	split := func(l LeafAxis) []int {
		var sizes []int
		lo, hi := l.Stride, l.Stride*l.Size
		prev := hi
		for i := len(cuts) - 1; i >= 0; i-- {
			if c := cuts[i]; c >= lo && c < hi {
				sizes = append(sizes, prev/c)
				prev = c
			}
		}
		return sizes
	}
	taken := newNameSet(a, b)
	ra, err := a.splitLeaves(split, maps.Clone(taken))
	if err != nil {
		return Space{}, Space{}, err
	}
	rb, err := b.splitLeaves(split, taken)
	if err != nil {
		return Space{}, Space{}, err
	}
	return ra, rb, nil
}

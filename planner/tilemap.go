package planner

import (
	"fmt"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/storage"
)

// A tileMap carries a point of one side's tile, given by that side's axes
// in its own order (a distribution's tile axes, or a layout's top-level
// axes), to the leaf coordinates of a layout on the other side of an edge:
// the axes correspond by name once the edge's renaming is applied, in
// whatever order each side lists them (a port's realizations may list its
// tile's axes in any order).
type tileMap struct {
	ranges    []indexspace.AxisRange // per axis of the from side: the layout's leaves it covers
	leafSizes []int                  // the layout's leaf sizes
}

// newTileMap relates the axes names (sizes sizes) to layout l's tile:
// axis i is l's axis named name(names[i]).
func newTileMap(names []string, sizes []int, name func(string) string, l *storage.Layout) (*tileMap, error) {
	tile := l.Tile()
	if len(tile.Axes()) != len(names) {
		return nil, fmt.Errorf("the layout's tile %v has %d axes, the other side %d", tile, len(tile.Axes()), len(names))
	}
	m := &tileMap{}
	for _, leaf := range tile.Leaves() {
		m.leafSizes = append(m.leafSizes, leaf.Size)
	}
	seen := map[string]bool{}
	for i, n := range names {
		to := name(n)
		r, ok := tile.Lookup(to)
		switch {
		case !ok || seen[to]:
			return nil, fmt.Errorf("axis %s (%s in the layout) is not an axis of the layout's tile %v", n, to, tile)
		case r.Size != sizes[i]:
			return nil, fmt.Errorf("axis %s has size %d, %s of the layout's tile %v %d", n, sizes[i], to, tile, r.Size)
		}
		seen[to] = true
		m.ranges = append(m.ranges, r)
	}
	return m, nil
}

// leaves writes the layout's leaf coordinates of point from into out (one
// per leaf of the layout's tile).
func (m *tileMap) leaves(from, out []int) {
	for i, x := range from {
		r := m.ranges[i]
		for j := r.Last - 1; j >= r.First; j-- {
			out[j] = x % m.leafSizes[j]
			x /= m.leafSizes[j]
		}
	}
}

// leaf is the name of the layout leaf that axis i of the from side is, ""
// when that axis is a group of several leaves.
func (m *tileMap) leaf(i int) string {
	if r := m.ranges[i]; r.Leaf {
		return r.Name
	}
	return ""
}

// layoutAxes lists the names and sizes of l's top-level tile axes.
func layoutAxes(l *storage.Layout) (names []string, sizes []int) {
	for _, a := range l.Tile().Axes() {
		names, sizes = append(names, a.Name()), append(sizes, a.Size())
	}
	return names, sizes
}

// consumerName is the name the consumer gives the producer's axis n.
func consumerName(r distribution.Rename) func(string) string { return r.Apply }

// producerName is the name the producer gives the consumer's axis n, among
// the producer's axes names.
func producerName(r distribution.Rename, names []string) func(string) string {
	inv := map[string]string{}
	for _, n := range names {
		inv[r.Apply(n)] = n
	}
	return func(n string) string {
		if p, ok := inv[n]; ok {
			return p
		}
		return "\x00" + n // no producer axis takes this name
	}
}

// sameAddresses reports whether a producer's layout a and a consumer's
// layout b put every element of the tile at the same place: the element at
// a's point x is the consumer's point x with its axes renamed by r, and b
// must hold it at the bit a wrote it to. Two layouts written alike can
// differ (a renaming that transposes the tile), and layouts written
// differently can agree (axes renamed, or listed in another order).
func sameAddresses(a, b *storage.Layout, r distribution.Rename) bool {
	if a.Memory() != b.Memory() || a.Element() != b.Element() {
		return false
	}
	names, sizes := layoutAxes(a)
	if r.String() == "" && a.Equal(*b) {
		return true
	}
	same := func(n string) string { return n }
	ma, err := newTileMap(names, sizes, same, a)
	if err != nil {
		return false
	}
	mb, err := newTileMap(names, sizes, consumerName(r), b)
	if err != nil {
		return false
	}
	point := make([]int, len(sizes))
	la, lb := make([]int, len(ma.leafSizes)), make([]int, len(mb.leafSizes))
	for n := a.Tile().Size(); n > 0; n-- {
		ma.leaves(point, la)
		mb.leaves(point, lb)
		x, errA := a.BitOffset(la)
		y, errB := b.BitOffset(lb)
		if errA != nil || errB != nil || x != y {
			return false
		}
		for i := len(point) - 1; i >= 0; i-- {
			if point[i]++; point[i] < sizes[i] {
				break
			}
			point[i] = 0
		}
	}
	return true
}

package distribution

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A Rename relates a producer's tile axes to a consumer's: it maps a tile
// axis name of the producer to the name the consumer gives the same axis
// ("n" → "k" when the (m, n) output feeds the (m, k) port). Axes it does not
// name keep their names. The renaming is simultaneous, so {m: n, n: m}
// swaps two names.
type Rename map[string]string

// ParseRename reads "a=b,c=d" (spaces around the names are ignored; the
// empty string is the empty renaming). Each axis is renamed once.
func ParseRename(s string) (Rename, error) {
	r := Rename{}
	if strings.TrimSpace(s) == "" {
		return r, nil
	}
	for i, part := range strings.Split(s, ",") {
		from, to, ok := strings.Cut(part, "=")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		switch {
		case !ok:
			return nil, fmt.Errorf("distribution: renaming %q: pair %d %q: want from=to", s, i+1, part)
		case from == "" || to == "":
			return nil, fmt.Errorf("distribution: renaming %q: pair %d %q: an empty axis name", s, i+1, part)
		}
		if prev, dup := r[from]; dup {
			return nil, fmt.Errorf("distribution: renaming %q: axis %s renamed twice (to %s and to %s)", s, from, prev, to)
		}
		r[from] = to
	}
	return r, nil
}

// String writes the renaming as ParseRename reads it, sorted by the source
// name; pairs that keep a name are left out.
func (r Rename) String() string {
	if len(r) == 0 {
		return "" // most edges rename nothing: no allocation
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r)) {
		if r[k] != k {
			parts = append(parts, k+"="+r[k])
		}
	}
	return strings.Join(parts, ",")
}

// Apply returns the name axis has after the renaming.
func (r Rename) Apply(axis string) string {
	if to, ok := r[axis]; ok {
		return to
	}
	return axis
}

// RenameTile returns a copy of d whose tile axes are renamed by r. Every name
// r renames must be a tile axis of d, and the renamed axes must have distinct
// names. The fingerprint changes with the names.
func (d *Distribution) RenameTile(r Rename) (*Distribution, error) {
	have := map[string]bool{}
	for _, a := range d.spec.Tile {
		have[a.Name] = true
	}
	for _, from := range slices.Sorted(maps.Keys(r)) {
		if !have[from] {
			return nil, fmt.Errorf("distribution %q: renaming %s=%s: %s is not a tile axis of %s", d.spec.Name, from, r[from], from, tileNames(d.spec.Tile))
		}
	}
	c := *d
	c.spec = cloneSpec(d.spec)
	seen := map[string]string{}
	for i, a := range c.spec.Tile {
		to := r.Apply(a.Name)
		if prev, dup := seen[to]; dup {
			return nil, fmt.Errorf("distribution %q: renaming %s: tile axes %s and %s would both be named %s", d.spec.Name, r, prev, a.Name, to)
		}
		seen[to] = a.Name
		c.spec.Tile[i].Name = to
	}
	c.fp = c.fingerprint()
	return &c, nil
}

// A TileMatch relates the tiles of two distributions whose axes agree up to
// a renaming and an order: Perm[i] is the axis of the second tile that axis i
// of the first (renamed) becomes.
type TileMatch struct {
	Perm []int
}

// MatchTiles checks that src's tile, renamed by r, has the axes of dst's
// tile, by name and size, possibly in another order. The error names every
// axis that differs: one missing on either side, or present on both with
// different sizes.
func MatchTiles(src, dst *Distribution, r Rename) (TileMatch, error) {
	renamed, err := src.RenameTile(r)
	if err != nil {
		return TileMatch{}, err
	}
	dstAt := map[string]int{}
	for i, a := range dst.spec.Tile {
		dstAt[a.Name] = i
	}
	var faults []string
	m := TileMatch{Perm: make([]int, len(renamed.spec.Tile))}
	matched := map[string]bool{}
	for i, a := range renamed.spec.Tile {
		orig := src.spec.Tile[i].Name
		label := a.Name
		if orig != a.Name {
			label = fmt.Sprintf("%s (renamed from %s)", a.Name, orig)
		}
		j, ok := dstAt[a.Name]
		switch {
		case !ok:
			faults = append(faults, fmt.Sprintf("source axis %s:%d has no destination axis of that name", label, a.Size))
			continue
		case dst.spec.Tile[j].Size != a.Size:
			faults = append(faults, fmt.Sprintf("axis %s has size %d in the source, %d in the destination", label, a.Size, dst.spec.Tile[j].Size))
		}
		matched[a.Name] = true
		m.Perm[i] = j
	}
	for _, a := range dst.spec.Tile {
		if !matched[a.Name] {
			faults = append(faults, fmt.Sprintf("destination axis %s:%d has no source axis of that name", a.Name, a.Size))
		}
	}
	if len(faults) > 0 {
		ren := ""
		if s := r.String(); s != "" {
			ren = " renamed " + s
		}
		return TileMatch{}, fmt.Errorf("distribution: the tiles of %q %s%s and %q %s differ: %s",
			src.spec.Name, axesString(src.spec.Tile), ren, dst.spec.Name, axesString(dst.spec.Tile), strings.Join(faults, "; "))
	}
	return m, nil
}

// TileSizes returns the sizes of the tile axes, in order.
func (d *Distribution) TileSizes() []int { return slices.Clone(d.tileSizes) }

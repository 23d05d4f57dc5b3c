package distribution

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/storage"
)

// A GridAxis is one warp-level axis of a tiling: Size copies of the atom side
// by side along the tile axis Along. Along is AlongReplicated for an axis whose
// warps hold copies of the same elements (warp_n for the A operand, whose tile
// is (m, k)): replication is always written out, so a misspelt tile axis is an
// error rather than a replicated axis.
type GridAxis struct {
	Name  string
	Size  int
	Along string // a tile axis of the atom, or AlongReplicated
}

// AlongReplicated is the Along of a warp axis whose warps hold copies of the
// tile; in JSON, "along": "replicated".
const AlongReplicated = "replicated"

// A Tiling covers a CTA tile with an instruction atom, the TiledMMA idea: the
// atom, repeated over a grid of warps, then repeated in registers.
type Tiling struct {
	// Name of the result; empty means "<atom>.tiled".
	Name string
	// Warps is the warp grid, outermost first.
	Warps []GridAxis
	// Repeat gives, per tile axis name, how many times each executor holds the
	// atom's values along that axis (1 when absent).
	Repeat map[string]int
	// WarpContiguous lays each warp's repetitions next to each other (warp w
	// of a 2-warp grid with 2 repetitions along m owns rows 32w…32w+31 of a
	// 16-row atom). The default lays the whole warp grid's tile next to
	// itself instead (rows 16w…16w+15 and 32+16w…32+16w+15), as CuTe's
	// TiledMMA does.
	WarpContiguous bool
}

// TileAtom returns the distribution of a CTA tile covered by atom under t. Along
// tile axis a with atom extent A, grid extent W (warp coordinate w) and R
// repetitions (local coordinate r), the element coordinate is
//
//	A*W*r + A*w + atom(a)    (default)
//	A*R*w + A*r + atom(a)    (WarpContiguous)
//
// The executor axes are the atom's block axes, the grid's warp axes, then the
// atom's own warp and lane axes; the local axes are the repetitions (named
// "rep_" and the tile axis, tile order) then the atom's values, so value
// r*atomValues+v holds the atom's value v of repetition r.
func TileAtom(atom *Distribution, t Tiling) (*Distribution, error) {
	as := atom.Spec()
	name := t.Name
	if name == "" {
		name = as.Name + ".tiled"
	}
	fail := func(format string, args ...any) (*Distribution, error) {
		return nil, fmt.Errorf("distribution: tiling %q of %q: %s", name, as.Name, fmt.Sprintf(format, args...))
	}
	tileIndex := map[string]int{}
	for i, a := range as.Tile {
		tileIndex[a.Name] = i
	}
	if atom.Tabulated() {
		return fail("the atom is a table, not index maps: it cannot be tiled")
	}
	if ps := checkTiling(as, t); len(ps) > 0 {
		return fail("%s", goTexts(ps))
	}
	spec := Spec{Name: name, ValuePrefix: as.ValuePrefix, Element: as.Element, BlocksPerCluster: as.BlocksPerCluster}
	for _, e := range as.Executors {
		if e.Level == LevelBlock {
			spec.Executors = append(spec.Executors, e)
		}
	}
	warpsAlong := make([]int, len(as.Tile))
	warpTerm := make([]string, len(as.Tile)) // flat warp coordinate along each tile axis
	for i := range warpsAlong {
		warpsAlong[i] = 1
	}
	for _, g := range t.Warps {
		spec.Executors = append(spec.Executors, ExecutorAxis{Name: g.Name, Size: g.Size, Level: LevelWarp, Replicated: g.Along == AlongReplicated})
		if g.Along == AlongReplicated {
			continue
		}
		i := tileIndex[g.Along]
		if warpTerm[i] == "" {
			warpTerm[i] = g.Name
		} else {
			warpTerm[i] = fmt.Sprintf("(%s) * %d + %s", warpTerm[i], g.Size, g.Name)
		}
		warpsAlong[i] *= g.Size
	}
	for _, e := range as.Executors {
		if e.Level != LevelBlock {
			spec.Executors = append(spec.Executors, e)
		}
	}
	repCount := 1
	repTerms := make([]string, len(as.Tile))
	var repSizes []int
	for i, a := range as.Tile {
		r := t.Repeat[a.Name]
		if r <= 1 {
			continue
		}
		ax := "rep_" + a.Name
		spec.Locals = append(spec.Locals, Axis{ax, r})
		repTerms[i] = ax
		repSizes = append(repSizes, r)
		repCount *= r
	}
	spec.Locals = append(spec.Locals, as.Locals...)
	for i, a := range as.Tile {
		r := max(t.Repeat[a.Name], 1)
		w := warpsAlong[i]
		if w > maxPoints || a.Size*w > maxPoints/r {
			return fail("tile axis %s would have more than %d elements", a.Name, maxPoints)
		}
		spec.Tile = append(spec.Tile, Axis{a.Name, a.Size * w * r})
		terms := []string{"(" + as.Ownership[i] + ")"}
		wStride, rStride := a.Size, a.Size*w
		if t.WarpContiguous {
			wStride, rStride = a.Size*r, a.Size
		}
		if warpTerm[i] != "" {
			terms = append(terms, scaled(wStride, "("+warpTerm[i]+")"))
		}
		if repTerms[i] != "" {
			terms = append(terms, scaled(rStride, repTerms[i]))
		}
		spec.Ownership = append(spec.Ownership, strings.Join(terms, " + "))
	}
	if as.Storage != "" && repCount > 1 {
		// The atom's slots, one block of them per repetition.
		var rep []string
		for _, l := range spec.Locals[:len(repSizes)] {
			rep = append(rep, l.Name)
		}
		flat := rep[0]
		for i := 1; i < len(rep); i++ {
			flat = fmt.Sprintf("(%s) * %d + %s", flat, repSizes[i], rep[i])
		}
		spec.Storage = fmt.Sprintf("(%s) * %d + (%s)", flat, atom.NumValues(), as.Storage)
	} else {
		spec.Storage = as.Storage
	}
	return New(spec)
}

// A Blocked is Triton's blocked encoding of a tile of the given Shape: each
// thread holds SizePerThread contiguous elements per dimension, a warp's
// ThreadsPerWarp threads and a CTA's WarpsPerCTA warps are laid out along the
// dimensions, fastest first in Order, and the pattern repeats (in registers) to
// cover the shape. Where the pattern is larger than the shape, the extra lanes
// or warps hold copies (replicated axes).
type Blocked struct {
	Name           string
	Axes           []string // tile axis names; empty means d0, d1, …
	Shape          []int
	SizePerThread  []int
	ThreadsPerWarp []int
	WarpsPerCTA    []int
	Order          []int // dimensions, fastest-varying first
	// Element is the type of the tile's elements; the zero value means f32.
	Element storage.ElementType
}

// NewBlocked returns the distribution of a blocked encoding. The executor axes
// are warp_<axis> then lane_<axis> (slowest dimension of Order first, size-1
// axes left out), so the flat lane and warp indices are Triton's. Values are
// ordered rep_<axis> (repetitions) then elem_<axis>, slowest dimension first,
// as Triton orders registers.
func NewBlocked(b Blocked) (*Distribution, error) {
	name := b.Name
	if name == "" {
		name = "blocked"
	}
	fail := func(format string, args ...any) (*Distribution, error) {
		return nil, fmt.Errorf("distribution: blocked %q: %s", name, fmt.Sprintf(format, args...))
	}
	if ps := checkBlocked(b); len(ps) > 0 {
		return fail("%s", goTexts(ps))
	}
	rank := len(b.Shape)
	axes := b.Axes
	if len(axes) == 0 {
		for d := range rank {
			axes = append(axes, fmt.Sprintf("d%d", d))
		}
	}
	spec := Spec{Name: name, Element: b.Element}
	for _, a := range axes {
		spec.Tile = append(spec.Tile, Axis{a, 0})
	}
	// Per dimension: the coordinate's terms, and the executor and local axes
	// it contributes, each split where the pattern wraps around the shape.
	terms := make([][]string, rank)
	var warpAxes, laneAxes, repAxes, elemAxes []ExecutorAxis
	for k := rank - 1; k >= 0; k-- { // slowest dimension first
		d := b.Order[k]
		a, shape := axes[d], b.Shape[d]
		s, t, w := b.SizePerThread[d], b.ThreadsPerWarp[d], b.WarpsPerCTA[d]
		spec.Tile[d].Size = shape
		// split returns the used part of an axis of the given size whose
		// copies start `step` apart, and the replicated remainder.
		room := shape / s // positions left for lanes × warps × repetitions
		split := func(prefix string, size int, level Level, out *[]ExecutorAxis) string {
			used := min(size, room)
			room /= used
			if rep := size / used; rep > 1 {
				*out = append(*out, ExecutorAxis{Name: prefix + a + "_copy", Size: rep, Level: level, Replicated: true})
			}
			if used > 1 {
				*out = append(*out, ExecutorAxis{Name: prefix + a, Size: used, Level: level})
				return prefix + a
			}
			return ""
		}
		if s > 1 {
			elemAxes = append(elemAxes, ExecutorAxis{Name: "elem_" + a, Size: s})
			terms[d] = append(terms[d], "elem_"+a)
		}
		if l := split("lane_", t, LevelLane, &laneAxes); l != "" {
			terms[d] = append(terms[d], scaled(s, l))
		}
		used := min(t, shape/s)
		if wn := split("warp_", w, LevelWarp, &warpAxes); wn != "" {
			terms[d] = append(terms[d], scaled(s*used, wn))
		}
		if room > 1 {
			repAxes = append(repAxes, ExecutorAxis{Name: "rep_" + a, Size: room})
			terms[d] = append(terms[d], scaled(shape/room, "rep_"+a))
		}
		if len(terms[d]) == 0 {
			terms[d] = []string{"0"}
		}
	}
	spec.Executors = append(warpAxes, laneAxes...)
	for _, l := range append(repAxes, elemAxes...) {
		spec.Locals = append(spec.Locals, Axis{l.Name, l.Size})
	}
	for d := range rank {
		slices.Reverse(terms[d])
		spec.Ownership = append(spec.Ownership, strings.Join(terms[d], " + "))
	}
	return New(spec)
}

func isPow2(v int) bool { return v > 0 && v&(v-1) == 0 }

// scaled writes k * term, or term alone when k is 1.
func scaled(k int, term string) string {
	if k == 1 {
		return term
	}
	return fmt.Sprintf("%d * %s", k, term)
}

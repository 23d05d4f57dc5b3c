// Package indexspace models finite products of named axes.
//
// # Model
//
// A Space is an optional name and an ordered list of axes; an axis is either a
// leaf with a size or a group of factor axes, e.g.
//
//	tile(m:16, n:(n0:2, n1:4))
//
// The points of a space are the tuples of its leaves' coordinates (here m, n0,
// n1). The flat order is row-major over the leaves, the last leaf fastest: the
// flat index of (m, n0, n1) is m*8 + n0*4 + n1. The value of a group axis is the
// flat index of its own leaves (n = n0*4 + n1), so regrouping leaves never
// changes the flat order.
//
// # Invariants
//
//   - Axis names (groups and leaves) are identifiers, unique within a space.
//   - Leaf sizes are positive; groups are not empty; no size exceeds MaxSize
//     (products are overflow-checked).
//   - Values are immutable; String() is canonical and Parse(s.String()) equals s.
//   - The empty product "()" is a space of size 1 with no leaves.
//
// # API
//
//	New(name, axes...) / MustNew, Leaf(name, size), Group(name, factors...)
//	Parse(text) / MustParse / ParsePrefix (for notations that embed spaces)
//	Space: Name, Axes, Size, NumLeaves, Leaves, Leaf(i), Lookup(name), Names,
//	       Equal, SameShape, String, MarshalJSON, UnmarshalJSON
//	       Flat(coord) / Coord(flat) / CoordInto — coordinate ↔ flat index
//	AxisRange: the leaves an axis covers; Value(space, coord), LeafWeight
//	Space.PrimeRefine: every leaf split into its prime factors ((6,2) → ((2,3),2))
//	CommonRefinement(a, b): the coarsest common refinement of two spaces of
//	       equal size, as a refinement of each (leaves split into groups, the
//	       flat order kept), or a *RefinementConflict naming the two axes whose
//	       boundaries do not divide one another ((6,2) and (4,3) have none)
//
// JSON: {"name": "tile", "axes": [{"name": "m", "size": 16}, {"name": "n",
// "axes": [{"name": "n0", "size": 2}, {"name": "n1", "size": 4}]}]}; decoding
// also accepts the text form as a JSON string.
//
// Errors: syntax errors are *SyntaxError with a byte offset; every other error
// names the axis and the violated rule.
package indexspace

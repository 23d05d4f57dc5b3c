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
// # Names invented by refinement
//
// Refinement splits a leaf a into a group a:(a_0:…, a_1:…, …), keeping the
// leaf's name for the group. The factor names are a + sep + j with sep the
// shortest run of underscores ("_", "__", "___", …) for which none of them is
// already taken: by an axis of the space refined (for CommonRefinement, of
// either space) or by a factor invented earlier, in text order, for another
// leaf. So (a:6, a_0:2) refines to (a:(a__0:2, a__1:3), a_0:2). The names
// depend only on the spaces, never on map order or earlier calls.
//
// # JSON form
//
//	{"name": "tile", "axes": [{"name": "m", "size": 16}, {"name": "n",
//	 "axes": [{"name": "n0", "size": 2}, {"name": "n1", "size": 4}]}]}
//
// "axes" is required and "name" optional for the space; an axis requires
// "name" and exactly one of "size" (a leaf: an integer written with digits)
// and "axes" (a group). Decoding also accepts the text form as a JSON string,
// and null as no change.
//
// # Errors
//
// Every error from the text parser is a *SyntaxError whose Offset is the byte
// of the offending token: a malformed token, a repeated name (at the second
// use), a zero or too large size (at the size), an empty group (at its '('),
// and an overflowing product (at the name of the leaf whose size makes the
// product of the leaves so far exceed MaxSize). Errors from the JSON form are
// JSONErrors: every problem, sorted, with a stable code and the JSON path of
// the offending value, e.g.
//
//	$.axes[1].axes[0].size: want a positive integer, got "4"
//
// Errors from New name the axis and the violated rule.
package indexspace

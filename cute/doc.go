// Package cute implements CuTe's shape:stride layout algebra, checked.
//
// # Model
//
// A Layout is a pair of congruent integer tuples, a shape and a stride,
// written in CuTe's notation with the first (fastest) mode first:
//
//	12:1    (6,2):(8,2)    ((2,2),3):((24,2),8)
//
// It denotes a function from [0, size) to the integers, size being the
// product of the shape: index i is split colexicographically over the
// flattened shape (i mod n_0 is the first coordinate, and so on) and the
// coordinate is mapped to its inner product with the flattened stride. So
// (6,2):(8,2) maps 0..11 to 0,8,16,24,32,40,2,10,18,26,34,42. A shape written
// alone, "(4,3)", is the compact column-major layout (4,3):(1,4), as CuTe's
// make_layout(shape).
//
// A Tiler is a layout, applied as a whole, or a tuple of tilers applied mode
// by mode, written <3:4, 8:2>; a shape (3,8) used as a tiler means <3:1, 8:1>.
//
// # Invariants
//
//   - Layouts, Tuples and Tilers are immutable values.
//   - Every shape entry is positive; strides are any integers, 0 meaning a
//     broadcast (as in CuTe), negative ones allowed.
//   - The size, and the magnitude of every value, are at most 2^62, checked at
//     construction, so evaluation cannot overflow.
//   - String is canonical: Parse(l.String()) equals l, and likewise for
//     ParseTuple and ParseTiler.
//
// # Recognition
//
// Recognize decides whether a list of values is a layout and returns the
// coarsest flat one, by the O(n) scan over first differences of Theorem 1 of
// "A Simplified Layout Algebra for GPU Kernels".
//
// # The algebra
//
// Coalesce, CoalesceByMode, Flatten, Composition (CompositionTiler),
// Complement (ComplementTo), LogicalDivide, ZippedDivide, LogicalProduct,
// BlockedProduct, RakedProduct, RightInverse and LeftInverse follow CuTe's
// definitions, with results in the form CuTe gives for static integers.
//
// Every operation either returns CuTe's result, where CuTe's conditions hold,
// or an *Error whose Code names the failed condition (errors.Is matches the
// sentinels ErrNotALayout, ErrNoComplement, …); it never returns a wrong
// layout. A composition whose CuTe condition fails is an error carrying the
// composite's values, decided further by tabulation and Recognize: its code
// is the failed condition (ErrDivisibility, ErrOverlap) with Error.Layout the
// layout that has those values when one exists, and ErrNotALayout otherwise.
// An operation built from others (a product from the complement and a
// composition, a divide likewise) reports a failed step under its own name
// and in terms of its own operands ("logical_divide: (2,2):(1,3) divided by
// 3:1 is not a layout; its values are …"), never naming the intermediate
// layouts or steps the caller did not write.
// Results are checked against their definition by tabulation where the
// domain has at most 2^20 points: R(i) = A(B(i)) for a composition; ordered,
// disjoint and covering for a complement; L(R(i)) = i and R(L(i)) = i for the
// inverses. docs/cute.md lists where this package differs from CuTe.
package cute

// Package indexspace models finite products of named axes.
//
// A Space is an ordered list of axes; an axis is either a leaf with a size or a
// group of factor axes (tile(m:16, n:(n0:2, n1:4))). Invariants: axis names are
// unique within a space; sizes are positive and their products do not overflow;
// the flat order is row-major over the leaves, the last leaf fastest.
package indexspace

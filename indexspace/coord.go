package indexspace

import "fmt"

// Flat returns the flat index of the point whose leaf coordinates are coord
// (row-major, last leaf fastest). It fails when coord has the wrong length or
// a coordinate is out of its leaf's range.
func (s Space) Flat(coord []int) (int, error) {
	if len(coord) != len(s.leaves) {
		return 0, fmt.Errorf("indexspace: %d coordinates for %d leaf axes of %s", len(coord), len(s.leaves), s)
	}
	flat := 0
	for i, c := range coord {
		l := s.leaves[i]
		if c < 0 || c >= l.Size {
			return 0, fmt.Errorf("indexspace: coordinate %s=%d out of range [0, %d)", l.Name, c, l.Size)
		}
		flat += c * l.Stride
	}
	return flat, nil
}

// Coord returns the leaf coordinates of the point with the given flat index.
func (s Space) Coord(flat int) ([]int, error) {
	coord := make([]int, len(s.leaves))
	if err := s.CoordInto(coord, flat); err != nil {
		return nil, err
	}
	return coord, nil
}

// CoordInto writes the leaf coordinates of the point with the given flat
// index into dst, which must have one entry per leaf.
func (s Space) CoordInto(dst []int, flat int) error {
	if len(dst) != len(s.leaves) {
		return fmt.Errorf("indexspace: %d coordinates for %d leaf axes of %s", len(dst), len(s.leaves), s)
	}
	if flat < 0 || flat >= s.Size() {
		return fmt.Errorf("indexspace: flat index %d out of range [0, %d) of %s", flat, s.Size(), s)
	}
	for i := len(s.leaves) - 1; i >= 0; i-- {
		n := s.leaves[i].Size
		dst[i] = flat % n
		flat /= n
	}
	return nil
}

// Value returns the value of the axis r (a leaf or a group) at the point with
// leaf coordinates coord: the row-major flat index of the coordinates of the
// leaves it covers. The coordinates are not range-checked.
func (r AxisRange) Value(s Space, coord []int) int {
	v := 0
	for i := r.First; i < r.Last; i++ {
		v = v*s.leaves[i].Size + coord[i]
	}
	return v
}

// LeafWeight returns the weight of leaf i inside the axis r: the product of
// the sizes of the leaves of r after i. Value is the sum of coord[i]*weight.
func (r AxisRange) LeafWeight(s Space, i int) int {
	w := 1
	for j := i + 1; j < r.Last; j++ {
		w *= s.leaves[j].Size
	}
	return w
}

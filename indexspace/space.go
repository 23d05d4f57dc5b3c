package indexspace

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// An Axis is a named leaf with a size, or a named group of factor axes whose
// size is the product of its factors' sizes. The zero Axis is invalid. Axis
// values are immutable.
type Axis struct {
	name    string
	size    int
	factors []Axis // nil for a leaf
}

// Leaf returns the leaf axis name:size.
func Leaf(name string, size int) Axis { return Axis{name: name, size: size} }

// Group returns the group axis name:(factors...). Its size is computed when a
// Space containing it is built by New.
func Group(name string, factors ...Axis) Axis {
	fs := make([]Axis, len(factors)) // non-nil even when empty: still a group
	copy(fs, factors)
	return Axis{name: name, factors: fs, size: -1}
}

// Name returns the axis name.
func (a Axis) Name() string { return a.name }

// Size returns the number of values of the axis (the product of its factors for
// a group). It is valid for axes taken from a Space.
func (a Axis) Size() int { return a.size }

// IsLeaf reports whether a is a leaf axis.
func (a Axis) IsLeaf() bool { return a.factors == nil }

// Factors returns a copy of a group's factor axes (nil for a leaf).
func (a Axis) Factors() []Axis { return slices.Clone(a.factors) }

// A LeafAxis describes one leaf of a Space in flat order.
type LeafAxis struct {
	Name   string
	Size   int
	Stride int // row-major stride of the leaf in the flat index
}

// AxisRange locates a named axis (leaf or group) in a Space's leaves: the
// axis covers leaves [First, Last) and its value is the row-major flat index
// of those leaves' coordinates, in [0, Size).
type AxisRange struct {
	Name        string
	Size        int
	First, Last int
	Leaf        bool
}

// A Space is a finite product of named axes: an optional space name and an
// ordered list of top-level axes. Its points are the coordinate tuples of its
// leaves, flattened row-major with the last leaf fastest. The zero Space is
// the empty product (one point). Space values are immutable.
type Space struct {
	name   string
	axes   []Axis
	leaves []LeafAxis
	index  map[string]AxisRange
	size   int
}

// MaxSize is the largest size a Space or axis may have. Keeping one bit of
// headroom lets index arithmetic on flat indices stay in int without overflow.
const MaxSize = math.MaxInt64 >> 1

// New returns the space name(axes...). It checks that names are identifiers
// and unique across the whole space (groups and leaves), that leaf sizes are
// positive, that groups are not empty, and that no size exceeds MaxSize. The
// space name may be empty.
func New(name string, axes ...Axis) (Space, error) {
	if name != "" && !isIdent(name) {
		return Space{}, fmt.Errorf("indexspace: space name %q is not an identifier", name)
	}
	s := Space{name: name, index: map[string]AxisRange{}}
	built := make([]Axis, len(axes))
	size := 1
	for i, a := range axes {
		b, err := s.add(a, "")
		if err != nil {
			return Space{}, err
		}
		built[i] = b
		var ok bool
		if size, ok = mulSize(size, b.size); !ok {
			return Space{}, fmt.Errorf("indexspace: size of space overflows (limit %d) at axis %q", MaxSize, b.name)
		}
	}
	s.axes = built
	s.size = size
	stride := 1
	for i := len(s.leaves) - 1; i >= 0; i-- {
		s.leaves[i].Stride = stride
		stride *= s.leaves[i].Size
	}
	return s, nil
}

// MustNew is New that panics on error; for tests and package-level values
// whose text is a constant.
func MustNew(name string, axes ...Axis) Space {
	s, err := New(name, axes...)
	if err != nil {
		panic(err)
	}
	return s
}

func (s *Space) add(a Axis, parent string) (Axis, error) {
	where := ""
	if parent != "" {
		where = fmt.Sprintf(" in group %q", parent)
	}
	if !isIdent(a.name) {
		return Axis{}, fmt.Errorf("indexspace: axis name %q%s is not an identifier", a.name, where)
	}
	if _, dup := s.index[a.name]; dup {
		return Axis{}, fmt.Errorf("indexspace: axis name %q%s is used twice", a.name, where)
	}
	first := len(s.leaves)
	s.index[a.name] = AxisRange{} // reserve the name before the factors
	if a.factors == nil {
		if a.size < 1 {
			return Axis{}, fmt.Errorf("indexspace: axis %q%s has size %d; sizes must be positive", a.name, where, a.size)
		}
		if a.size > MaxSize {
			return Axis{}, fmt.Errorf("indexspace: axis %q%s has size %d above the limit %d", a.name, where, a.size, MaxSize)
		}
		s.leaves = append(s.leaves, LeafAxis{Name: a.name, Size: a.size})
		s.index[a.name] = AxisRange{Name: a.name, Size: a.size, First: first, Last: first + 1, Leaf: true}
		return Axis{name: a.name, size: a.size}, nil
	}
	if len(a.factors) == 0 {
		return Axis{}, fmt.Errorf("indexspace: group %q%s has no factors", a.name, where)
	}
	fs := make([]Axis, len(a.factors))
	size := 1
	for i, f := range a.factors {
		b, err := s.add(f, a.name)
		if err != nil {
			return Axis{}, err
		}
		fs[i] = b
		var ok bool
		if size, ok = mulSize(size, b.size); !ok {
			return Axis{}, fmt.Errorf("indexspace: size of group %q%s overflows (limit %d)", a.name, where, MaxSize)
		}
	}
	s.index[a.name] = AxisRange{Name: a.name, Size: size, First: first, Last: len(s.leaves)}
	return Axis{name: a.name, size: size, factors: fs}, nil
}

func mulSize(a, b int) (int, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > MaxSize {
		return 0, false
	}
	return int(lo), true
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return true
}

// IsIdent reports whether s is a valid axis or space name: a letter or
// underscore followed by letters, digits and underscores (ASCII).
func IsIdent(s string) bool { return isIdent(s) }

// Name returns the space name ("" when unnamed).
func (s Space) Name() string { return s.name }

// Axes returns a copy of the top-level axes.
func (s Space) Axes() []Axis { return slices.Clone(s.axes) }

// Size returns the number of points of the space (1 for the empty product).
func (s Space) Size() int {
	if s.axes == nil {
		return 1
	}
	return s.size
}

// NumLeaves returns the number of leaf axes.
func (s Space) NumLeaves() int { return len(s.leaves) }

// Leaves returns the leaf axes in flat order (row-major, last fastest).
func (s Space) Leaves() []LeafAxis { return slices.Clone(s.leaves) }

// Leaf returns the i-th leaf axis.
func (s Space) Leaf(i int) LeafAxis { return s.leaves[i] }

// Lookup returns where the axis called name (a leaf or a group) lies.
func (s Space) Lookup(name string) (AxisRange, bool) {
	r, ok := s.index[name]
	return r, ok
}

// Names returns every axis name of the space, groups before their factors, in
// text order.
func (s Space) Names() []string {
	var out []string
	var walk func(as []Axis)
	walk = func(as []Axis) {
		for _, a := range as {
			out = append(out, a.name)
			walk(a.factors)
		}
	}
	walk(s.axes)
	return out
}

// Equal reports whether s and t are the same space: same name, same axes with
// the same names, sizes and grouping.
func (s Space) Equal(t Space) bool {
	return s.name == t.name && axesEqual(s.axes, t.axes)
}

func axesEqual(a, b []Axis) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || a[i].size != b[i].size || (a[i].factors == nil) != (b[i].factors == nil) {
			return false
		}
		if !axesEqual(a[i].factors, b[i].factors) {
			return false
		}
	}
	return true
}

// SameShape reports whether s and t have the same leaf sizes in the same
// order (names and grouping aside), so that their flat indices correspond.
func (s Space) SameShape(t Space) bool {
	if len(s.leaves) != len(t.leaves) {
		return false
	}
	for i := range s.leaves {
		if s.leaves[i].Size != t.leaves[i].Size {
			return false
		}
	}
	return true
}

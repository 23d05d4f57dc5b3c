package cute

import (
	"math/bits"
	"strings"
)

// limit bounds every size and every value of a layout, so that evaluation
// and the algebra's arithmetic cannot overflow an int64.
const limit = 1 << 62

// A Layout is a CuTe layout shape:stride: a function from the integers
// [0, Size()) to the integers. Shape and stride are congruent Tuples; every
// shape entry is positive; strides are any integers (0 is a broadcast).
// Index i is read as a coordinate colexicographically, the first mode
// fastest, and mapped to the inner product of the coordinate with the stride.
//
// A Layout is an immutable value. The zero Layout is 1:0.
type Layout struct {
	shape, stride Tuple
	ns, ds        []int // flattened shape and stride, in CuTe order
}

// New returns the layout shape:stride. It fails with CodeInvalid unless shape
// and stride are congruent and every shape entry is positive, and with
// CodeOverflow if the size or the range of values exceeds 2^62.
func New(shape, stride Tuple) (Layout, error) {
	const op = "layout"
	if !shape.Congruent(stride) {
		return Layout{}, errorf(CodeInvalid, op, "shape %v and stride %v are not congruent", shape, stride)
	}
	ns, ds := shape.Leaves(), stride.Leaves()
	size, extent := 1, 0
	for i, n := range ns {
		if n < 1 {
			return Layout{}, errorf(CodeInvalid, op, "shape entry %d of %v is %d, not positive", i, shape, n)
		}
		var ok bool
		if size, ok = mulCheck(size, n); !ok {
			return Layout{}, errorf(CodeOverflow, op, "size of shape %v exceeds 2^62", shape)
		}
		d := ds[i]
		if d < -limit || d > limit {
			return Layout{}, errorf(CodeOverflow, op, "stride %d exceeds 2^62 in magnitude", d)
		}
		term, ok := mulCheck(n-1, abs(d))
		if ok {
			extent, ok = addCheck(extent, term)
		}
		if !ok {
			return Layout{}, errorf(CodeOverflow, op, "values of %v:%v exceed 2^62 in magnitude", shape, stride)
		}
	}
	return Layout{shape: shape, stride: stride, ns: ns, ds: ds}, nil
}

// MustNew is like New but panics on an error. It is for layouts known to be valid.
func MustNew(shape, stride Tuple) Layout {
	l, err := New(shape, stride)
	if err != nil {
		panic(err)
	}
	return l
}

// Compact returns the compact column-major layout of shape (CuTe's
// make_layout(shape)): the first mode has stride 1, each next mode the
// product of the shape entries before it.
func Compact(shape Tuple) (Layout, error) {
	ns := shape.Leaves()
	ds := make([]int, len(ns))
	w := 1
	for i, n := range ns {
		ds[i] = w
		var ok bool
		if w, ok = mulCheck(w, max(n, 1)); !ok {
			return Layout{}, errorf(CodeOverflow, "layout", "size of shape %v exceeds 2^62", shape)
		}
	}
	stride, _ := shape.rebuild(ds)
	return New(shape, stride)
}

func (l Layout) norm() Layout {
	if l.ns == nil {
		return Layout{shape: Int(1), stride: Int(0), ns: []int{1}, ds: []int{0}}
	}
	return l
}

// Shape returns the shape of l.
func (l Layout) Shape() Tuple { return l.norm().shape }

// Stride returns the stride of l.
func (l Layout) Stride() Tuple { return l.norm().stride }

// Rank returns the number of top-level modes of l (1 for an integral shape).
func (l Layout) Rank() int { return l.norm().shape.Rank() }

// Depth returns the nesting depth of l's shape (0 for an integral shape).
func (l Layout) Depth() int { return l.norm().shape.Depth() }

// Mode returns top-level mode i of l as a layout.
func (l Layout) Mode(i int) Layout {
	l = l.norm()
	return MustNew(l.shape.At(i), l.stride.At(i))
}

// Modes returns the top-level modes of l.
func (l Layout) Modes() []Layout {
	ms := make([]Layout, l.Rank())
	for i := range ms {
		ms[i] = l.Mode(i)
	}
	return ms
}

// FlatShape returns the leaves of l's shape, in CuTe order.
func (l Layout) FlatShape() []int { return append([]int(nil), l.norm().ns...) }

// FlatStride returns the leaves of l's stride, in CuTe order.
func (l Layout) FlatStride() []int { return append([]int(nil), l.norm().ds...) }

// Size returns the size of l's domain, the product of its shape.
func (l Layout) Size() int {
	n := 1
	for _, s := range l.norm().ns {
		n *= s
	}
	return n
}

// Cosize returns one more than the largest value of l (CuTe's cosize for
// layouts with non-negative strides: l(Size()-1) + 1).
func (l Layout) Cosize() int {
	l = l.norm()
	m := 0
	for i, n := range l.ns {
		if d := l.ds[i]; d > 0 {
			m += (n - 1) * d
		}
	}
	return m + 1
}

// Eval returns l(i), for i in [0, Size()). Index i is split
// colexicographically over the flat shape, first mode fastest. Eval panics if
// i is out of range.
func (l Layout) Eval(i int) int {
	l = l.norm()
	if i < 0 || i >= l.Size() {
		panic("cute: Layout.Eval: index out of range")
	}
	v := 0
	for k, n := range l.ns {
		v += (i % n) * l.ds[k]
		i /= n
	}
	return v
}

// Table returns l(i) for every i in [0, Size()), in order.
func (l Layout) Table() []int {
	l = l.norm()
	out := make([]int, 0, l.Size())
	return l.appendTable(out)
}

// appendTable appends l's values by an odometer over the flat shape.
func (l Layout) appendTable(out []int) []int {
	ns, ds := l.ns, l.ds
	c := make([]int, len(ns))
	size := l.Size()
	v := 0
	for range size {
		out = append(out, v)
		for k := range c {
			c[k]++
			v += ds[k]
			if c[k] < ns[k] {
				break
			}
			v -= ns[k] * ds[k]
			c[k] = 0
		}
	}
	return out
}

// Equal reports whether l and m have the same shape and stride (equal as
// notation, which is finer than equal as functions).
func (l Layout) Equal(m Layout) bool {
	l, m = l.norm(), m.norm()
	return l.shape.Equal(m.shape) && l.stride.Equal(m.stride)
}

// SameFunction reports whether l and m have the same size and the same value
// at every index. It tabulates both.
func (l Layout) SameFunction(m Layout) bool {
	if l.Size() != m.Size() {
		return false
	}
	a, b := l.Table(), m.Table()
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// String returns l in CuTe notation, shape:stride, e.g. "((2,2),3):((24,2),8)".
// Parse(l.String()) equals l.
func (l Layout) String() string {
	l = l.norm()
	var b strings.Builder
	l.shape.write(&b)
	b.WriteByte(':')
	l.stride.write(&b)
	return b.String()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// mulCheck returns a*b and whether |a*b| ≤ 2^62, for |a|, |b| ≤ 2^62.
func mulCheck(a, b int) (int, bool) {
	hi, lo := bits.Mul64(uint64(abs(a)), uint64(abs(b)))
	if hi != 0 || lo > limit {
		return 0, false
	}
	return a * b, true
}

// addCheck returns a+b and whether |a+b| ≤ 2^62, for |a|, |b| ≤ 2^62.
func addCheck(a, b int) (int, bool) {
	s := a + b
	return s, s >= -limit && s <= limit
}

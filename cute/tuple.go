package cute

import (
	"strconv"
	"strings"
)

// A Tuple is CuTe's IntTuple: an integer or a tuple of Tuples. Tuples are
// immutable values; the zero Tuple is the integer 0.
type Tuple struct {
	v     int
	elems []Tuple // the elements of a tuple; never modified after construction
	tup   bool    // whether this is a tuple (elems may then not be empty)
}

// Int returns the integer v as a Tuple.
func Int(v int) Tuple { return Tuple{v: v} }

// Tup returns the tuple of the given elements; it copies elems. A tuple has
// at least one element: Tup with none panics, as a programming error.
func Tup(elems ...Tuple) Tuple {
	if len(elems) == 0 {
		panic("cute: empty tuple")
	}
	return Tuple{elems: append([]Tuple(nil), elems...), tup: true}
}

// Ints returns the flat tuple of the given integers, or the integer itself
// when there is exactly one.
func Ints(vs ...int) Tuple {
	if len(vs) == 1 {
		return Int(vs[0])
	}
	es := make([]Tuple, len(vs))
	for i, v := range vs {
		es[i] = Int(v)
	}
	return Tuple{elems: es, tup: true}
}

// IsInt reports whether t is an integer rather than a tuple.
func (t Tuple) IsInt() bool { return !t.tup }

// Value returns the integer t; it is 0 for a tuple.
func (t Tuple) Value() int { return t.v }

// Rank returns the number of elements of a tuple, and 1 for an integer.
func (t Tuple) Rank() int {
	if !t.tup {
		return 1
	}
	return len(t.elems)
}

// At returns element i of a tuple; of an integer, At(0) is the integer itself.
func (t Tuple) At(i int) Tuple {
	if !t.tup {
		if i != 0 {
			panic("cute: Tuple.At: index out of range")
		}
		return t
	}
	return t.elems[i]
}

// Depth returns 0 for an integer and 1 + the greatest depth of the elements
// for a tuple.
func (t Tuple) Depth() int {
	if !t.tup {
		return 0
	}
	d := 0
	for _, e := range t.elems {
		d = max(d, e.Depth())
	}
	return d + 1
}

// Leaves returns the integers of t in order (depth first).
func (t Tuple) Leaves() []int {
	return t.appendLeaves(nil)
}

func (t Tuple) appendLeaves(dst []int) []int {
	if !t.tup {
		return append(dst, t.v)
	}
	for _, e := range t.elems {
		dst = e.appendLeaves(dst)
	}
	return dst
}

// NumLeaves returns the number of integers in t.
func (t Tuple) NumLeaves() int {
	if !t.tup {
		return 1
	}
	n := 0
	for _, e := range t.elems {
		n += e.NumLeaves()
	}
	return n
}

// Congruent reports whether t and u have the same tree structure.
func (t Tuple) Congruent(u Tuple) bool {
	if t.tup != u.tup {
		return false
	}
	if !t.tup {
		return true
	}
	if len(t.elems) != len(u.elems) {
		return false
	}
	for i := range t.elems {
		if !t.elems[i].Congruent(u.elems[i]) {
			return false
		}
	}
	return true
}

// Equal reports whether t and u are the same tuple.
func (t Tuple) Equal(u Tuple) bool {
	if t.tup != u.tup {
		return false
	}
	if !t.tup {
		return t.v == u.v
	}
	if len(t.elems) != len(u.elems) {
		return false
	}
	for i := range t.elems {
		if !t.elems[i].Equal(u.elems[i]) {
			return false
		}
	}
	return true
}

// String returns t in CuTe notation: "6", "(6,2)", "((2,2),3)".
func (t Tuple) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Tuple) write(b *strings.Builder) {
	if !t.tup {
		b.WriteString(strconv.Itoa(t.v))
		return
	}
	b.WriteByte('(')
	for i, e := range t.elems {
		if i > 0 {
			b.WriteByte(',')
		}
		e.write(b)
	}
	b.WriteByte(')')
}

// rebuild returns a tuple congruent to t whose leaves are taken from vs in order.
func (t Tuple) rebuild(vs []int) (Tuple, []int) {
	if !t.tup {
		return Int(vs[0]), vs[1:]
	}
	es := make([]Tuple, len(t.elems))
	for i, e := range t.elems {
		es[i], vs = e.rebuild(vs)
	}
	return Tuple{elems: es, tup: true}, vs
}

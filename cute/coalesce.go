package cute

// flatLayout builds the layout of flat shape ns and stride ds: an integral
// layout for one mode, 1:0 for none, a flat tuple otherwise. The entries must
// come from a valid layout (they are not re-checked for overflow).
func flatLayout(ns, ds []int) Layout {
	switch len(ns) {
	case 0:
		return Layout{}.norm()
	case 1:
		return Layout{shape: Int(ns[0]), stride: Int(ds[0]), ns: []int{ns[0]}, ds: []int{ds[0]}}
	}
	return Layout{shape: Ints(ns...), stride: Ints(ds...), ns: append([]int(nil), ns...), ds: append([]int(nil), ds...)}
}

// Coalesce returns the layout of depth at most 1 with the fewest modes that
// equals l as a function on [0, Size()): modes of size 1 are dropped, and
// adjacent modes s0:d0, s1:s0*d0 merge into s0*s1:d0. The result is integral
// when one mode remains, and 1:0 when none does.
func Coalesce(l Layout) Layout {
	l = l.norm()
	var ns, ds []int
	for i, n := range l.ns {
		d := l.ds[i]
		if n == 1 {
			continue
		}
		if k := len(ns) - 1; k >= 0 && d == ns[k]*ds[k] {
			ns[k] *= n
			continue
		}
		ns, ds = append(ns, n), append(ds, d)
	}
	return flatLayout(ns, ds)
}

// CoalesceByMode coalesces each top-level mode of l separately, keeping its
// rank (CuTe's coalesce(layout, Step<_1,_1,...>)). An integral layout is
// returned coalesced.
func CoalesceByMode(l Layout) Layout {
	l = l.norm()
	if l.shape.IsInt() {
		return Coalesce(l)
	}
	ms := l.Modes()
	for i := range ms {
		ms[i] = Coalesce(ms[i])
	}
	r, err := makeLayout(ms...)
	if err != nil {
		panic(err) // unreachable: coalescing keeps every value, so the extent bound holds
	}
	return r
}

// Flatten returns l with its shape and stride flattened into flat tuples of
// their leaves, in order. An integral layout is returned as it is.
func Flatten(l Layout) Layout {
	l = l.norm()
	if l.shape.IsInt() {
		return l
	}
	return Layout{shape: Ints(l.ns...).asTuple(), stride: Ints(l.ds...).asTuple(), ns: l.ns, ds: l.ds}
}

// asTuple wraps an integer as a one-element tuple and leaves a tuple alone.
func (t Tuple) asTuple() Tuple {
	if t.tup {
		return t
	}
	return Tuple{elems: []Tuple{t}, tup: true}
}

// makeLayout concatenates layouts into the layout whose modes they are,
// CuTe's make_layout(L0, L1, ...).
func makeLayout(ms ...Layout) (Layout, error) {
	ss, ds := make([]Tuple, len(ms)), make([]Tuple, len(ms))
	for i, m := range ms {
		m = m.norm()
		ss[i], ds[i] = m.shape, m.stride
	}
	return New(Tuple{elems: ss, tup: true}, Tuple{elems: ds, tup: true})
}

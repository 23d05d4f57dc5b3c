package cute

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// checkLimit bounds the size of a domain the algebra tabulates to check a
// result against its definition (or to decide a composite where CuTe's
// conditions fail).
const checkLimit = 1 << 20

// evalExt evaluates l at x ≥ 0 with its last mode extended without bound, as
// CuTe does for a composition's left operand. It reports false on overflow.
func (l Layout) evalExt(x int) (int, bool) {
	l = l.norm()
	v := 0
	last := len(l.ns) - 1
	for k, n := range l.ns {
		c := x
		if k < last {
			c, x = x%n, x/n
		}
		t, ok := mulCheck(c, l.ds[k])
		if ok {
			v, ok = addCheck(v, t)
		}
		if !ok {
			return 0, false
		}
	}
	return v, true
}

// Composite returns the values A(B(i)) for every i in [0, size(B)), with the
// last mode of A, once coalesced, extended without bound (CuTe's reading of
// A beyond its size). B must not take negative values.
func Composite(a, b Layout) ([]int, error) {
	const op = "composition"
	if err := checkDomain(op, b); err != nil {
		return nil, err
	}
	ca := Coalesce(a).norm()
	xs := b.Table()
	if fastExt(ca, b.Cosize()-1) {
		ns, ds := ca.ns, ca.ds
		last := len(ns) - 1
		for i, x := range xs {
			v := 0
			for k := range last {
				v += (x % ns[k]) * ds[k]
				x /= ns[k]
			}
			xs[i] = v + x*ds[last]
		}
		return xs, nil
	}
	for i, x := range xs {
		v, ok := ca.evalExt(x)
		if !ok {
			return nil, errorf(CodeOverflow, op, "%v at %d (= %v(%d)) exceeds 2^62 in magnitude", a, x, b, i)
		}
		xs[i] = v
	}
	return xs, nil
}

// fastExt reports whether evaluating the coalesced layout ca, extended, at
// every x in [0, maxX] stays within ±2^62, so that no step needs a check.
func fastExt(ca Layout, maxX int) bool {
	bound, prefix := 0, 1
	last := len(ca.ns) - 1
	for k := range last {
		bound += (ca.ns[k] - 1) * abs(ca.ds[k]) // within the layout's own extent
		prefix *= ca.ns[k]
	}
	t, ok := mulCheck(maxX/prefix, abs(ca.ds[last]))
	if ok {
		_, ok = addCheck(bound, t)
	}
	return ok
}

func checkDomain(op string, b Layout) error {
	b = b.norm()
	for k, n := range b.ns {
		if n > 1 && b.ds[k] < 0 {
			return errorf(CodeOutOfDomain, op, "right operand %v has the negative stride %d (leaf %d), so it leaves the left operand's domain [0, ∞)", b, b.ds[k], k)
		}
	}
	return nil
}

// compose1 composes the flat, coalesced layout (ms, as) with the integral
// layout n:r, r ≥ 0, by CuTe's rule: divide the stride r out of the shape ms
// from the left (the stride divisibility condition), then keep the first n
// elements (the shape divisibility condition, weak at the end). The last mode
// of ms is unbounded. The result is coalesced.
func compose1(ms, as []int, n, r int) (Layout, *Error) {
	if n == 1 {
		return Layout{}.norm(), nil
	}
	if r == 0 {
		return flatLayout([]int{n}, []int{0}), nil
	}
	var rs, rd []int
	rest, remain := r, n
	for i, m := range ms {
		if i == len(ms)-1 {
			d, ok := mulCheck(as[i], rest)
			if !ok {
				return Layout{}, errorf(CodeOverflow, "composition", "stride %d·%d exceeds 2^62", as[i], rest)
			}
			rs, rd = append(rs, remain), append(rd, d)
			break
		}
		avail, stride := m, as[i]
		if rest > 1 {
			switch {
			case rest%m == 0:
				rest /= m
				continue
			case m%rest == 0:
				avail = m / rest
				var ok bool
				if stride, ok = mulCheck(as[i], rest); !ok {
					return Layout{}, errorf(CodeOverflow, "composition", "stride %d·%d exceeds 2^62", as[i], rest)
				}
				rest = 1
			default:
				return Layout{}, errorf(CodeDivisibility, "composition",
					"stride divisibility fails for %d:%d: %d and the shape entry %d (mode %d of the coalesced left operand) divide neither the other", n, r, rest, m, i)
			}
		}
		take := remain
		if remain > avail {
			if remain%avail != 0 {
				return Layout{}, errorf(CodeDivisibility, "composition",
					"shape divisibility fails for %d:%d: %d elements remain and %d (from mode %d of the coalesced left operand) does not divide them", n, r, remain, avail, i)
			}
			take = avail
		}
		rs, rd = append(rs, take), append(rd, stride)
		remain /= take
		if remain == 1 {
			break
		}
	}
	l, err := New(Ints(rs...), Ints(rd...))
	if err != nil {
		return Layout{}, err.(*Error)
	}
	return Coalesce(l), nil
}

// replaceLeaves returns the layout whose shape is b's shape with leaf k
// replaced by the shape of ls[k], and likewise for the stride.
func replaceLeaves(b Layout, ls []Layout) (Layout, error) {
	b = b.norm()
	ss, ds := make([]Tuple, len(ls)), make([]Tuple, len(ls))
	for i, l := range ls {
		l = l.norm()
		ss[i], ds[i] = l.shape, l.stride
	}
	shape, _ := b.shape.substitute(ss)
	stride, _ := b.stride.substitute(ds)
	return New(shape, stride)
}

// substitute returns t with its leaves replaced, in order, by the tuples ts.
func (t Tuple) substitute(ts []Tuple) (Tuple, []Tuple) {
	if !t.tup {
		return ts[0], ts[1:]
	}
	es := make([]Tuple, len(t.elems))
	for i, e := range t.elems {
		es[i], ts = e.substitute(ts)
	}
	return Tuple{elems: es, tup: true}, ts
}

// Composition returns R = A ∘ B, R(i) = A(B(i)) for i in [0, size(B)), as a
// layout compatible with B: each leaf of B's shape becomes the coalesced
// layout of A along that leaf (CuTe's result with static integers). Beyond
// its size, A is read as CuTe reads it: coalesced, its last mode unbounded.
//
// Where CuTe's conditions hold (stride and shape divisibility for each leaf
// of B against the coalesced A, and disjoint intervals [d, d·n) for B's
// leaves n:d), R is CuTe's result. Where one fails, CuTe's result may be
// wrong, and Composition returns an error naming the failed condition, never
// a layout. When size(B) ≤ 2^20 the error carries the composite A(B(i)) in
// Values, and is decided further by Recognize along each leaf of B: if some
// layout compatible with B has those values, the error's code is the failed
// condition (CodeDivisibility or CodeOverlap) and its Layout field holds that
// layout (the conditions are sufficient, not necessary); if none has, the
// code is CodeNotALayout. Every result of size ≤ 2^20 is checked against
// A(B(i)) at every i.
func Composition(a, b Layout) (Layout, error) {
	return compose("composition", a, b)
}

func compose(op string, a, b Layout) (Layout, error) {
	a, b = a.norm(), b.norm()
	if err := checkDomain(op, b); err != nil {
		return Layout{}, err
	}
	ca := Coalesce(a).norm()
	parts := make([]Layout, len(b.ns))
	var cond *Error
	for k, n := range b.ns {
		p, err := compose1(ca.ns, ca.ds, n, b.ds[k])
		if err != nil {
			if err.Code == CodeOverflow {
				return Layout{}, within(op, err)
			}
			cond = err
			break
		}
		parts[k] = p
	}
	if cond == nil {
		cond = overlap(b)
	}
	small := b.Size() <= checkLimit
	if cond == nil {
		r, err := replaceLeaves(b, parts)
		if err != nil {
			return Layout{}, within(op, err)
		}
		if small {
			want, err := Composite(a, b)
			if err != nil {
				return Layout{}, within(op, err)
			}
			if !slices.Equal(r.Table(), want) {
				return Layout{}, errorf(CodeInternal, op, "CuTe's rule gave %v for %v ∘ %v, whose values differ from the composite %v", r, a, b, want)
			}
		}
		return r, nil
	}
	if !small {
		return Layout{}, &Error{Code: cond.Code, Op: op, Msg: fmt.Sprintf("%v ∘ %v: %s (the composite is too large, %d points, to decide by tabulation)", a, b, cond.Msg, b.Size())}
	}
	want, err := Composite(a, b)
	if err != nil {
		return Layout{}, within(op, err)
	}
	if r, ok := recognizeAlong(b, want); ok {
		return Layout{}, &Error{Code: cond.Code, Op: op, Values: want, Layout: r,
			Msg:    fmt.Sprintf("%v ∘ %v: %s, so CuTe's rule does not apply; the composite's values %s are those of %v, compatible with %v", a, b, cond.Msg, brief(want), r, b.Shape()),
			reason: fmt.Sprintf("%s, so CuTe's rule does not apply; the values are those of %v", cond.Msg, r)}
	}
	return Layout{}, &Error{Code: CodeNotALayout, Op: op, Values: want,
		Msg: fmt.Sprintf("%v ∘ %v is not a layout compatible with %v (%s); its values are %s", a, b, b.Shape(), cond.Msg, brief(want))}
}

// overlap checks CuTe's disjointness condition for the leaves n:d of b with
// n > 1 and d > 0: the intervals [d, d·n) must not overlap.
func overlap(b Layout) *Error {
	type iv struct{ lo, hi, k int }
	var ivs []iv
	for k, n := range b.ns {
		if d := b.ds[k]; n > 1 && d > 0 {
			hi, ok := mulCheck(d, n)
			if !ok {
				hi = limit
			}
			ivs = append(ivs, iv{d, hi, k})
		}
	}
	sort.SliceStable(ivs, func(i, j int) bool { return ivs[i].lo < ivs[j].lo })
	for i := 1; i < len(ivs); i++ {
		p, q := ivs[i-1], ivs[i]
		if p.hi > q.lo {
			return errorf(CodeOverlap, "composition", "leaves %d:%d and %d:%d of the right operand overlap: [%d,%d) and [%d,%d) intersect",
				b.ns[p.k], b.ds[p.k], b.ns[q.k], b.ds[q.k], p.lo, p.hi, q.lo, q.hi)
		}
	}
	return nil
}

// recognizeAlong looks for the layout compatible with b, each leaf of b
// replaced by a flat layout, whose table is values (len(values) = size(b)):
// each leaf's flat layout is recognized from the values along that leaf, and
// the assembled layout must reproduce every value.
func recognizeAlong(b Layout, values []int) (Layout, bool) {
	b = b.norm()
	parts := make([]Layout, len(b.ns))
	w := 1
	for k, n := range b.ns {
		g := make([]int, n)
		for c := range g {
			g[c] = values[c*w]
		}
		l, ok := Recognize(g)
		if !ok {
			return Layout{}, false
		}
		parts[k] = l
		w *= n
	}
	r, err := replaceLeaves(b, parts)
	if err != nil || !slices.Equal(r.Table(), values) {
		return Layout{}, false
	}
	return r, true
}

// brief prints at most 64 values.
func brief(vs []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range vs {
		if i == 64 {
			fmt.Fprintf(&b, " … (%d values)", len(vs))
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, v)
	}
	b.WriteByte(']')
	return b.String()
}

// CompositionTiler composes a with a tiler: a layout tiler composes with a as
// a whole; a by-mode tiler composes mode i of a with tiler i and drops a's
// modes beyond the tiler's rank (CuTe's composition(layout, tiler)).
func CompositionTiler(a Layout, t Tiler) (Layout, error) {
	return byMode("composition", a, t, false, func(l Layout, t Layout) (Layout, error) {
		return compose("composition", l, t)
	})
}

// byMode applies f to a and t when t is a layout, and otherwise mode by mode,
// keeping a's modes beyond t's rank if keep is set and dropping them if not.
func byMode(op string, a Layout, t Tiler, keep bool, f func(Layout, Layout) (Layout, error)) (Layout, error) {
	if t.IsLayout() {
		return f(a, t.Layout())
	}
	a = a.norm()
	if t.Rank() > a.Rank() {
		return Layout{}, errorf(CodeRankMismatch, op, "tiler %v has %d modes, more than the %d of %v", t, t.Rank(), a.Rank(), a)
	}
	ms := a.Modes()
	if !keep {
		ms = ms[:t.Rank()]
	}
	for i := range t.Rank() {
		var err error
		if ms[i], err = byMode(op, ms[i], t.Mode(i), keep, f); err != nil {
			return Layout{}, err
		}
	}
	r, err := makeLayout(ms...)
	if err != nil {
		return Layout{}, within(op, err)
	}
	return r, nil
}

package cute

import (
	"errors"
	"fmt"
	"sort"
)

// filtered returns the leaves n:d of l with n > 1 and d ≠ 0 (CuTe's filter).
func filtered(l Layout) (ns, ds []int) {
	l = l.norm()
	for k, n := range l.ns {
		if n > 1 && l.ds[k] != 0 {
			ns, ds = append(ns, n), append(ds, l.ds[k])
		}
	}
	return ns, ds
}

// Complement returns CuTe's complement(A): the complement with respect to
// CuTe's default cotarget, the cosize of A with its size-1 and stride-0 modes
// removed.
func Complement(a Layout) (Layout, error) {
	ns, ds := filtered(a)
	return ComplementTo(a, flatLayout(ns, ds).Cosize())
}

// ComplementTo returns CuTe's complement(A, M): the layout R with positive,
// increasing strides such that the values of A and R meet only at 0 and
// (A, R) is a bijection onto [0, K) with K ≥ M, the smallest such K.
//
// Its modes, from A's leaves n_i:d_i (size-1 and stride-0 leaves removed,
// sorted by stride), are d_i/(n_{i-1}·d_{i-1}) : n_{i-1}·d_{i-1}, then
// ⌈M/(n_α·d_α)⌉ : n_α·d_α; the result is coalesced. The complement exists
// only if n_{i-1}·d_{i-1} divides d_i for every i; otherwise the error has
// code CodeNoComplement and names the pair (CuTe truncates the quotient and
// returns a wrong complement). A negative stride gives CodeNegativeStride and
// a cotarget M < 1 CodeBadArgument. Where size(A)·size(R) ≤ 2^20 the result
// is checked: R ordered, disjoint from A, and (A, R) a bijection onto [0, K).
func ComplementTo(a Layout, cotarget int) (Layout, error) {
	const op = "complement"
	a = a.norm()
	if cotarget < 1 {
		return Layout{}, errorf(CodeBadArgument, op, "cotarget %d is not positive", cotarget)
	}
	ns, ds := filtered(a)
	for k, d := range ds {
		if d < 0 {
			return Layout{}, errorf(CodeNegativeStride, op, "%v has the negative stride %d (mode %d:%d)", a, d, ns[k], d)
		}
	}
	idx := make([]int, len(ns))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		if ds[idx[i]] != ds[idx[j]] {
			return ds[idx[i]] < ds[idx[j]]
		}
		return ns[idx[i]] < ns[idx[j]]
	})
	var rs, rd []int
	cur, pn, pd := 1, 0, 0
	for _, k := range idx {
		n, d := ns[k], ds[k]
		if d%cur != 0 {
			reason := fmt.Sprintf("the stride %d of mode %d:%d is not a multiple of %d = %d·%d, the extent of mode %d:%d below it", d, n, d, cur, pn, pd, pn, pd)
			e := errorf(CodeNoComplement, op, "%v has no complement: %s", a, reason)
			e.reason = reason
			return Layout{}, e
		}
		rs, rd = append(rs, d/cur), append(rd, cur)
		var ok bool
		if cur, ok = mulCheck(n, d); !ok {
			return Layout{}, errorf(CodeOverflow, op, "extent %d·%d exceeds 2^62", n, d)
		}
		pn, pd = n, d
	}
	rs, rd = append(rs, ceilDiv(cotarget, cur)), append(rd, cur)
	r, err := New(Ints(rs...), Ints(rd...))
	if err != nil {
		return Layout{}, within(op, err)
	}
	r = Coalesce(r)
	if err := checkComplement(flatLayout(ns, ds), r, cotarget); err != nil {
		return Layout{}, err
	}
	return r, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// checkComplement checks r against the definition of the complement of the
// filtered layout f with respect to m, when that is cheap.
func checkComplement(f, r Layout, m int) error {
	const op = "complement"
	if f.Size() > checkLimit/max(1, r.Size()) {
		return nil
	}
	rt := r.Table()
	for i := 1; i < len(rt); i++ {
		if rt[i] <= rt[i-1] {
			return errorf(CodeInternal, op, "complement %v of %v is not ordered", r, f)
		}
	}
	both, err := makeLayout(f, r)
	if err != nil {
		return within(op, err)
	}
	vs := both.Table()
	seen := make([]bool, len(vs))
	for _, v := range vs {
		if v < 0 || v >= len(vs) || seen[v] {
			return errorf(CodeInternal, op, "(%v, %v) is no bijection onto [0, %d)", f, r, len(vs))
		}
		seen[v] = true
	}
	if len(vs) < m {
		return errorf(CodeInternal, op, "(%v, %v) covers only [0, %d), short of %d", f, r, len(vs), m)
	}
	return nil
}

// LogicalDivide returns CuTe's logical_divide(A, T). For a layout tiler B it
// is A ∘ (B, complement(B, size(A))): mode 0 is the tile, mode 1 the layout
// of the tiles. A by-mode tiler divides mode i of A by tiler i and keeps A's
// further modes. The complement and the composition fail as they do alone.
func LogicalDivide(a Layout, t Tiler) (Layout, error) {
	const op = "logical_divide"
	return byMode(op, a, t, true, func(a, b Layout) (Layout, error) {
		c, err := ComplementTo(b, a.Size())
		if err != nil {
			return Layout{}, restate(op, err, fmt.Sprintf("the tiler %v has no complement in size(%v) = %d", b, a, a.Size()))
		}
		bc, err := makeLayout(b, c)
		if err != nil {
			return Layout{}, within(op, err)
		}
		r, err := compose(op, a, bc)
		if err != nil {
			return Layout{}, restate(op, err, fmt.Sprintf("%v divided by %v is not a layout", a, b))
		}
		return r, nil
	})
}

// ZippedDivide returns CuTe's zipped_divide(A, T): the logical divide with
// the tile modes gathered into mode 0 and the rest modes (and A's modes
// beyond the tiler's rank) into mode 1, ((TileM,TileN,...),(RestM,RestN,...)).
func ZippedDivide(a Layout, t Tiler) (Layout, error) {
	const op = "zipped_divide"
	ld, err := LogicalDivide(a, t)
	if err != nil {
		return Layout{}, within(op, err)
	}
	if t.IsLayout() {
		return ld, nil
	}
	tile, rest, err := zip2By(ld, t)
	if err != nil {
		return Layout{}, within(op, err)
	}
	r, err := makeLayout(tile, rest)
	if err != nil {
		return Layout{}, within(op, err)
	}
	return r, nil
}

// zip2By splits l, the by-mode result of a divide or product by t, into the
// layout of the first parts of its rank-2 modes and that of the second parts
// followed by l's modes beyond t's rank (CuTe's zip2_by).
func zip2By(l Layout, t Tiler) (Layout, Layout, error) {
	if t.IsLayout() {
		return l.Mode(0), l.Mode(1), nil
	}
	var firsts, seconds []Layout
	for i := range l.Rank() {
		if i >= t.Rank() {
			seconds = append(seconds, l.Mode(i))
			continue
		}
		f, s, err := zip2By(l.Mode(i), t.Mode(i))
		if err != nil {
			return Layout{}, Layout{}, err
		}
		firsts, seconds = append(firsts, f), append(seconds, s)
	}
	f, err := makeLayout(firsts...)
	if err != nil {
		return Layout{}, Layout{}, err
	}
	s, err := makeLayout(seconds...)
	return f, s, err
}

// LogicalProduct returns CuTe's logical_product(A, T). For a layout tiler B
// it is (A, complement(A, size(A)·cosize(B)) ∘ B): mode 0 is A, mode 1 the
// layout of A's copies arranged by B. A by-mode tiler multiplies mode by mode.
func LogicalProduct(a Layout, t Tiler) (Layout, error) {
	const op = "logical_product"
	return byMode(op, a, t, true, func(a, b Layout) (Layout, error) {
		if err := checkDomain(op, b); err != nil {
			return Layout{}, err
		}
		m, ok := mulCheck(a.Size(), b.Cosize())
		if !ok {
			return Layout{}, errorf(CodeOverflow, op, "size(%v)·cosize(%v) exceeds 2^62", a, b)
		}
		c, err := ComplementTo(a, m)
		if err != nil {
			return Layout{}, restate(op, err, fmt.Sprintf("%v has no complement in size(%v)·cosize(%v) = %d", a, a, b, m))
		}
		cb, err := compose(op, c, b)
		if err != nil {
			return Layout{}, restate(op, err, fmt.Sprintf("the copies of %v arranged by %v do not form a layout", a, b))
		}
		r, err := makeLayout(a, cb)
		if err != nil {
			return Layout{}, within(op, err)
		}
		return r, nil
	})
}

// BlockedProduct returns CuTe's blocked_product(A, B): both padded with 1:0
// modes to the larger rank R, their logical product, and mode i of the
// result (A_i, (A*∘B)_i), so that copies of A are laid out as blocks in B's
// arrangement. The result has rank R.
func BlockedProduct(a, b Layout) (Layout, error) {
	return rankedProduct("blocked_product", a, b, false)
}

// RakedProduct returns CuTe's raked_product(A, B): like BlockedProduct with
// the two parts of every mode exchanged, ((A*∘B)_i, A_i), so that copies of A
// are interleaved (a cyclic distribution).
func RakedProduct(a, b Layout) (Layout, error) {
	return rankedProduct("raked_product", a, b, true)
}

func rankedProduct(op string, a, b Layout, raked bool) (Layout, error) {
	a, b = a.norm(), b.norm()
	rank := max(a.Rank(), b.Rank())
	pa, pb := pad(a, rank), pad(b, rank)
	lp, err := LogicalProduct(pa, LayoutTiler(pb))
	if err != nil {
		// Said of a and b as given, not of their padded forms.
		var e *Error
		if errors.As(err, &e) && e.Code == CodeNoComplement {
			return Layout{}, restate(op, err, fmt.Sprintf("%v has no complement in size(%v)·cosize(%v) = %d", a, a, b, a.Size()*b.Cosize()))
		}
		if errors.As(err, &e) && len(e.Values) > 0 {
			return Layout{}, restate(op, err, fmt.Sprintf("the copies of %v arranged by %v do not form a layout", a, b))
		}
		return Layout{}, within(op, err)
	}
	blocks, copies := lp.Mode(0), lp.Mode(1)
	if rank == 1 {
		m := []Layout{blocks, copies}
		if raked {
			m[0], m[1] = m[1], m[0]
		}
		inner, err := makeLayout(m...)
		if err == nil {
			inner, err = makeLayout(inner)
		}
		if err != nil {
			return Layout{}, within(op, err)
		}
		return inner, nil
	}
	ms := make([]Layout, rank)
	for i := range ms {
		m := []Layout{blocks.Mode(i), copies.Mode(i)}
		if raked {
			m[0], m[1] = m[1], m[0]
		}
		if ms[i], err = makeLayout(m...); err != nil {
			return Layout{}, within(op, err)
		}
	}
	r, err := makeLayout(ms...)
	if err != nil {
		return Layout{}, within(op, err)
	}
	return r, nil
}

// pad appends 1:0 modes to l up to rank r (CuTe's append<R>), r ≥ rank(l).
func pad(l Layout, r int) Layout {
	if l.Rank() == r {
		return l
	}
	ms := l.Modes()
	if l.Shape().IsInt() {
		ms = []Layout{l}
	}
	for len(ms) < r {
		ms = append(ms, Layout{}.norm())
	}
	p, err := makeLayout(ms...)
	if err != nil {
		panic(err) // unreachable: 1:0 modes add no extent
	}
	return p
}

// RightInverse returns CuTe's right_inverse(L): the layout R with
// L(R(i)) = i for every i in [0, size(R)), built from the chain of L's
// coalesced modes whose strides are 1, n_1, n_1·n_2, …; it is 1:0 when L has
// no stride-1 mode. Where size(R) ≤ 2^20 the identity is checked at every i.
func RightInverse(l Layout) (Layout, error) {
	const op = "right_inverse"
	c := Coalesce(l).norm()
	pre := prefixProducts(c.ns)
	order := strideOrder(c.ds)
	rs, rd := []int{1}, []int{0}
	cur := 1
	for _, k := range order {
		if c.ds[k] == cur {
			rs, rd = append(rs, c.ns[k]), append(rd, pre[k])
			var ok bool
			if cur, ok = mulCheck(c.ns[k], c.ds[k]); !ok {
				break
			}
		}
	}
	r, err := New(Ints(rs...), Ints(rd...))
	if err != nil {
		return Layout{}, within(op, err)
	}
	r = Coalesce(r)
	if r.Size() <= checkLimit {
		for i, x := range r.Table() {
			if x < 0 || x >= l.Size() || l.Eval(x) != i {
				return Layout{}, errorf(CodeInternal, op, "%v(%v(%d)) ≠ %d", l, r, i, i)
			}
		}
	}
	return r, nil
}

// LeftInverse returns CuTe's left_inverse(L) for an injective L: the layout R
// with R(L(i)) = i for every i in [0, size(L)). L's coalesced modes are taken
// in order of stride; each stride must be a multiple of the size of the
// inverse built so far (CuTe's left-inverse divisibility condition, else
// CodeDivisibility). A negative stride gives CodeNegativeStride; an L that is
// not injective gives CodeNotInjective. Where size(L) ≤ 2^20 the identity is
// checked at every i.
func LeftInverse(l Layout) (Layout, error) {
	const op = "left_inverse"
	c := Coalesce(l).norm()
	for k, d := range c.ds {
		if d < 0 {
			return Layout{}, errorf(CodeNegativeStride, op, "%v has the negative stride %d (mode %d:%d)", l, d, c.ns[k], d)
		}
	}
	small := l.Size() <= checkLimit
	var table []int
	if small {
		table = l.Table()
		seen := make(map[int]int, len(table))
		for i, v := range table {
			if j, dup := seen[v]; dup {
				return Layout{}, errorf(CodeNotInjective, op, "%v is not injective: %d and %d both map to %d", l, j, i, v)
			}
			seen[v] = i
		}
	}
	pre := prefixProducts(c.ns)
	order := strideOrder(c.ds)
	var rs []int
	rd := []int{0}
	size, below := 1, 1 // the inverse's size so far; the extent n·d of the last mode taken
	for _, k := range order {
		d := c.ds[k]
		if d == 0 {
			if c.ns[k] > 1 {
				return Layout{}, errorf(CodeNotInjective, op, "%v is not injective: it has the broadcast mode %d:0", l, c.ns[k])
			}
			continue
		}
		if d%size != 0 {
			return Layout{}, errorf(CodeDivisibility, op, "left inverse divisibility fails for %v: stride %d is not a multiple of %d, the size of the inverse of the modes below it", l, d, size)
		}
		if d < below {
			// With the divisibility above, d = j·d' for the previous mode n':d' and some j < n', so
			// L(j·e') = L(e): the criterion of sorted strides.
			return Layout{}, errorf(CodeNotInjective, op, "%v is not injective: the stride %d lies below the extent %d of the modes before it", l, d, below)
		}
		rs, rd = append(rs, d/size), append(rd, pre[k])
		size = d
		var ok bool
		if below, ok = mulCheck(c.ns[k], d); !ok {
			return Layout{}, errorf(CodeOverflow, op, "extent %d·%d exceeds 2^62", c.ns[k], d)
		}
	}
	rs = append(rs, c.ns[order[len(order)-1]])
	r, err := New(Ints(rs...), Ints(rd...))
	if err != nil {
		return Layout{}, within(op, err)
	}
	r = Coalesce(r)
	if small {
		for i, v := range table {
			if v >= r.Size() {
				return Layout{}, errorf(CodeInternal, op, "%v(%d) = %d lies outside the domain of %v", l, i, v, r)
			}
			if r.Eval(v) != i {
				return Layout{}, errorf(CodeInternal, op, "%v(%v(%d)) ≠ %d", r, l, i, i)
			}
		}
	}
	return r, nil
}

func prefixProducts(ns []int) []int {
	pre := make([]int, len(ns))
	w := 1
	for i, n := range ns {
		pre[i] = w
		w *= n
	}
	return pre
}

// strideOrder returns the mode indices sorted by stride, ties by index.
func strideOrder(ds []int) []int {
	idx := make([]int, len(ds))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return ds[idx[i]] < ds[idx[j]] })
	return idx
}

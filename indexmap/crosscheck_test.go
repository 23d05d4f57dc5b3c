package indexmap_test

// Cross-checks of the two layout algebras, package cute (CuTe's shape:stride
// algebra) and package indexmap (guarded index maps), against each other and
// against the definition: every layout is tabulated, and both packages must
// agree with the table. Every failure names the layouts in CuTe notation.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// flatLayouts enumerates the flat layouts of the given rank whose shape
// entries lie in sizes and whose strides lie in strides.
func flatLayouts(rank int, sizes, strides []int) []cute.Layout {
	var out []cute.Layout
	shape, stride := make([]int, rank), make([]int, rank)
	var walk func(k int)
	walk = func(k int) {
		if k == rank {
			out = append(out, cute.MustNew(cute.Ints(shape...), cute.Ints(stride...)))
			return
		}
		for _, n := range sizes {
			for _, d := range strides {
				shape[k], stride[k] = n, d
				walk(k + 1)
			}
		}
	}
	walk(0)
	return out
}

// parseAll parses layouts in CuTe notation.
func parseAll(texts ...string) []cute.Layout {
	out := make([]cute.Layout, len(texts))
	for i, s := range texts {
		out[i] = cute.MustParse(s)
	}
	return out
}

// nestedLayouts are the hierarchical layouts every enumeration adds: a nested
// mode on either side, both sides nested, depth two, and a size-1 leaf inside
// a group.
var nestedLayouts = []string{
	"((2,2),3):((1,6),2)",
	"(2,(3,2)):(3,(1,6))",
	"((2,3),(2,2)):((1,2),(6,12))",
	"((2,2),2):((4,1),2)",
	"(((2,2),2),2):(((1,4),2),8)",
	"((1,3),2):((5,1),3)",
	"(2,(2,2)):(1,(4,2))",
	"((3,2),2):((2,1),6)",
}

// leftOperands are the left operands of the compositions: rank 1 with
// shape entries 1 to 4, rank 2 with entries 2 to 4 (size-1 modes come with
// the listed ones), strides 0 (a broadcast) to 4; some of rank 3, some with
// negative strides, and the nested ones.
func leftOperands() []cute.Layout {
	return slices.Concat(
		flatLayouts(1, []int{1, 2, 3, 4}, []int{0, 1, 2, 3, 4}),
		flatLayouts(2, []int{2, 3, 4}, []int{0, 1, 2, 3, 4}),
		parseAll("(1,3):(5,1)", "(3,1):(2,7)", "(2,2,2):(1,2,4)", "(2,3,2):(0,1,3)", "(3,2,2):(2,1,6)",
			"(2,2,3):(4,1,8)", "(4,1,3):(3,7,1)", "(2,2,2):(4,2,1)"),
		// Negative strides: CuTe reads them as written; imported untyped.
		parseAll("4:-1", "(2,2):(-1,2)", "(2,3):(3,-1)", "(3,2):(-2,1)", "(2,2):(2,-1)"),
		parseAll(nestedLayouts...))
}

// rightOperands are the right operands: strides 1 to 4 (a right operand is
// an index into the left one's domain; a stride-0 mode would only repeat
// it), rank 1 with shape entries 1 to 4, rank 2 with entries 2 to 4, some of
// rank 3 and the nested ones.
func rightOperands() []cute.Layout {
	return slices.Concat(
		flatLayouts(1, []int{1, 2, 3, 4}, []int{1, 2, 3, 4}),
		flatLayouts(2, []int{2, 3, 4}, []int{1, 2, 3, 4}),
		parseAll("(1,4):(3,1)", "(2,2,2):(1,2,4)", "(2,2,2):(4,1,2)", "(3,2,2):(1,3,6)", "(2,3,1):(3,1,9)"),
		parseAll(nestedLayouts...))
}

// flatValues returns, for each domain point of m in flat order, the flat
// index of its image in the codomain: for a map imported from CuTe, CuTe's
// value at CuTe's index.
func flatValues(m indexmap.Map) ([]int, error) {
	tab, err := m.Tabulate()
	if err != nil {
		return nil, err
	}
	cod := m.Codomain().Space
	out := make([]int, m.Domain().Space.Size())
	for i := range out {
		for j, v := range tab.At(i) {
			out[i] += v * cod.Leaf(j).Stride
		}
	}
	return out, nil
}

// readBeyond returns the left operand a as CuTe reads it on [0, n): a itself
// when n ≤ size(a), otherwise coalesced with its last mode extended to cover
// n (CuTe reads a composition's left operand beyond its size that way; see
// cute.Composite).
func readBeyond(a cute.Layout, n int) (cute.Layout, error) {
	if n <= a.Size() {
		return a, nil
	}
	c := cute.Coalesce(a)
	ns, ds := c.FlatShape(), c.FlatStride()
	prefix := 1
	for _, m := range ns[:len(ns)-1] {
		prefix *= m
	}
	ns[len(ns)-1] = (n + prefix - 1) / prefix
	return cute.New(cute.Ints(ns...), cute.Ints(ds...))
}

// composeMaps imports a (read as CuTe reads it on B's values) and b as
// untyped maps, b's codomain being a's domain, and composes them with
// indexmap.Compose.
func composeMaps(a, b cute.Layout) (indexmap.Map, error) {
	ext, err := readBeyond(a, b.Cosize())
	if err != nil {
		return indexmap.Map{}, err
	}
	outer, err := indexmap.FromCute(ext, indexmap.Untyped, indexmap.Untyped)
	if err != nil {
		return indexmap.Map{}, err
	}
	inner, err := indexmap.FromCute(b, indexmap.Untyped, indexmap.Untyped)
	if err != nil {
		return indexmap.Map{}, err
	}
	// B's values lie in [0, cosize(B)) ⊆ [0, size(ext)): widen its codomain
	// to the outer domain's size, as CuTe's composition reads them.
	spec := inner.Spec()
	spec.Codomain.Space = indexspace.MustNew("", indexspace.Leaf("x", ext.Size()))
	if inner, err = indexmap.New(spec); err != nil {
		return indexmap.Map{}, err
	}
	return indexmap.Compose(outer, inner)
}

// composeTally counts the verdicts of a composition cross-check.
type composeTally struct {
	layout, condition, notLayout int
	// typed pairs; of them, composites broadcast along whole leaves of B,
	// and composites that alias within a leaf (rejected)
	typed, typedBroadcast, typedRejected int
}

// checkComposition cross-checks one pair (A, B): the indexmap composite
// tabulates to cute.Composite; cute.Composition's verdict (a layout, a
// failed condition carrying a layout, or not_a_layout) agrees with Emit and
// ToCute; Decide on the composite agrees with its values; and where both
// operands import with kinds (B a dense bijection onto A's domain, A
// alias-free), the typed composition agrees with the definition. Each
// composition result is added to results (when not nil), keyed by its
// notation.
func checkComposition(a, b cute.Layout, tally *composeTally, results map[string]cute.Layout) error {
	want, err := cute.Composite(a, b)
	if err != nil {
		return fmt.Errorf("cute.Composite: %v", err)
	}
	r, err := composeMaps(a, b)
	if err != nil {
		return fmt.Errorf("indexmap.Compose: %v", err)
	}
	got, err := flatValues(r)
	if err != nil {
		return fmt.Errorf("tabulating %s: %v", r, err)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("indexmap composite %s has values %v, A(B(i)) = %v", r, got, want)
	}
	e, forms := r.Emit()
	if emitted, err := flatValues(e); err != nil || !slices.Equal(emitted, want) {
		return fmt.Errorf("Emit changed the values: %s gives %v (%v), want %v", e, emitted, err, want)
	}
	if p, err := r.Decide(); err != nil {
		return fmt.Errorf("Decide(%s): %v", r, err)
	} else if wp := valueProperties(r, want); !sameVerdicts(p, wp) {
		return fmt.Errorf("Decide(%s) = %+v, A(B(i)) = %v says %+v", r, p, want, wp)
	}
	l, cerr := cute.Composition(a, b)
	var ce *cute.Error
	switch {
	case cerr == nil:
		tally.layout++
		back, err := emittedAs(e, forms, l)
		if err != nil {
			return fmt.Errorf("cute.Composition = %v: %v", l, err)
		}
		if !back.Equal(l) {
			return fmt.Errorf("cute.Composition = %v, ToCute(Emit) = %v: same function, other notation", l, back)
		}
		if results != nil {
			results[l.String()] = l
		}
	case !errors.As(cerr, &ce):
		return fmt.Errorf("cute.Composition: untyped error %v", cerr)
	case ce.Code == cute.CodeNotALayout:
		tally.notLayout++
		if !slices.Equal(ce.Values, want) {
			return fmt.Errorf("cute's not_a_layout error carries %v, want %v", ce.Values, want)
		}
		if forms[0] == indexmap.AsLayout {
			return fmt.Errorf("cute says not_a_layout (%v), Emit claims a layout: %s", want, e)
		}
		if ll, err := indexmap.ToCute(e); err == nil {
			return fmt.Errorf("cute says not_a_layout (%v), ToCute(Emit) = %v", want, ll)
		}
	case ce.Code == cute.CodeDivisibility || ce.Code == cute.CodeOverlap:
		tally.condition++
		if !slices.Equal(ce.Values, want) {
			return fmt.Errorf("cute's %s error carries %v, want %v", ce.Code, ce.Values, want)
		}
		if ce.Layout.Size() != b.Size() || !slices.Equal(ce.Layout.Table(), want) {
			return fmt.Errorf("cute's %s error carries the layout %v, whose values are not %v", ce.Code, ce.Layout, want)
		}
		if _, err := emittedAs(e, forms, ce.Layout); err != nil {
			return fmt.Errorf("cute's %s error carries %v: %v", ce.Code, ce.Layout, err)
		}
	default:
		return fmt.Errorf("cute.Composition: %v", cerr)
	}
	return checkTypedComposition(a, b, want, tally)
}

// valueProperties decides from values, m's value at each domain point in
// flat order, the properties Decide should find for the map m with a
// one-leaf codomain and no guard: two points may share an image only when
// they differ along m's declared broadcast axes alone.
func valueProperties(m indexmap.Map, values []int) indexmap.Properties {
	sp, size := m.Domain().Space, m.Codomain().Space.Size()
	broadcast := make([]bool, sp.NumLeaves())
	for _, name := range m.Broadcast() {
		r, _ := sp.Lookup(name)
		for i := r.First; i < r.Last; i++ {
			broadcast[i] = true
		}
	}
	p := indexmap.Properties{InRange: true, Injective: true, AliasFree: true}
	first := map[int][]int{} // value → the coordinates of the first point with it
	for i, v := range values {
		p.InRange = p.InRange && v >= 0 && v < size
		c, _ := sp.Coord(i)
		prev, seen := first[v]
		if !seen {
			first[v] = c
			continue
		}
		p.Injective = false
		for k := range c {
			if c[k] != prev[k] && !broadcast[k] {
				p.AliasFree = false
			}
		}
	}
	p.Surjective = p.InRange && len(first) == size
	p.DenseBijection = p.InRange && p.AliasFree && p.Surjective
	return p
}

// sameVerdicts reports whether p and q agree on every property (not on how
// they were decided).
func sameVerdicts(p, q indexmap.Properties) bool {
	p.Method, p.Witness, q.Method, q.Witness = 0, "", 0, ""
	return p == q
}

// emittedAs checks that Emit wrote the composite e as a layout and that ToCute
// reads it back as the same function as l; it returns what ToCute read.
func emittedAs(e indexmap.Map, forms []indexmap.Form, l cute.Layout) (cute.Layout, error) {
	if forms[0] != indexmap.AsLayout {
		return cute.Layout{}, fmt.Errorf("Emit does not claim a layout: %s", e)
	}
	back, err := indexmap.ToCute(e)
	if err != nil {
		return cute.Layout{}, fmt.Errorf("ToCute(%s): %v", e, err)
	}
	if !back.SameFunction(l) {
		return cute.Layout{}, fmt.Errorf("ToCute(%s) = %v, another function", e, back)
	}
	return back, nil
}

// checkTypedComposition composes logical → physical A with logical →
// logical B (and thread-value → logical B) where both import with those
// kinds and B's codomain is A's domain. The kinds must not stop a composition the definition allows: when
// the composite is alias-free once the leaves of B's domain along which it is
// constant are factored out, Compose succeeds and declares exactly those
// leaves broadcast; otherwise (A's broadcast lands on a digit of a leaf,
// which no declaration can name) it fails with a KindError.
func checkTypedComposition(a, b cute.Layout, want []int, tally *composeTally) error {
	if b.Cosize() != a.Size() {
		return nil
	}
	inner, err := indexmap.FromCute(b, indexmap.Logical, indexmap.Logical)
	if err != nil {
		return nil // B is no dense bijection
	}
	outer, err := indexmap.FromCute(a, indexmap.Logical, indexmap.Physical)
	if err != nil {
		return nil // A aliases
	}
	tally.typed++
	sp := inner.Domain().Space
	var constant []string // leaves of B's domain along which the composite is constant
	var keep []int        // the composite's values where every such leaf is 0
	for i, l := range sp.Leaves() {
		same := true
		for p := range want {
			if c, _ := sp.Coord(p); c[i] > 0 && want[p] != want[p-l.Stride] {
				same = false
			}
		}
		if same && l.Size > 1 {
			constant = append(constant, l.Name)
		}
	}
	for p := range want {
		c, _ := sp.Coord(p)
		zero := true
		for _, name := range constant {
			r, _ := sp.Lookup(name)
			zero = zero && c[r.First] == 0
		}
		if zero {
			keep = append(keep, want[p])
		}
	}
	aliasFree := len(slices.Compact(slices.Sorted(slices.Values(keep)))) == len(keep)
	switch {
	case !aliasFree:
		tally.typedRejected++
	case len(constant) > 0:
		tally.typedBroadcast++
	}
	// The storage composite of "A Simplified Layout Algebra for GPU Kernels", thread-value → logical → physical, is
	// accepted like logical → logical → physical.
	for _, kind := range []indexmap.Kind{indexmap.Logical, indexmap.ThreadValue} {
		if inner, err = indexmap.FromCute(b, kind, indexmap.Logical); err != nil {
			return fmt.Errorf("FromCute as %v → logical: %v", kind, err)
		}
		r, err := indexmap.Compose(outer, inner)
		var kerr *indexmap.KindError
		switch {
		case !aliasFree && err == nil:
			return fmt.Errorf("typed compose of %s and %s = %s, but the composite %v aliases within a leaf", outer, inner, r, want)
		case !aliasFree && !errors.As(err, &kerr):
			return fmt.Errorf("typed compose of %s and %s: %v, want a KindError", outer, inner, err)
		case !aliasFree:
			continue
		case err != nil:
			return fmt.Errorf("typed compose of %s and %s: %v", outer, inner, err)
		}
		got, err := flatValues(r)
		if err != nil || !slices.Equal(got, want) {
			return fmt.Errorf("typed composite %s has values %v (%v), want %v", r, got, err, want)
		}
		if r.Domain().Kind != kind || r.Codomain().Kind != indexmap.Physical {
			return fmt.Errorf("typed composite %s: kinds %v → %v, want %v → physical", r, r.Domain().Kind, r.Codomain().Kind, kind)
		}
		// A size-1 leaf may be declared broadcast or not: it replicates nothing.
		declared := slices.DeleteFunc(r.Broadcast(), func(name string) bool {
			ax, _ := sp.Lookup(name)
			return ax.Size == 1
		})
		if !slices.Equal(declared, constant) {
			return fmt.Errorf("typed composite %s declares broadcast %v, the composite is constant along %v", r, r.Broadcast(), constant)
		}
	}
	return nil
}

// TestCrossComposition composes every pair of small layouts both ways, then
// checks the properties of every distinct layout cute.Composition returned.
func TestCrossComposition(t *testing.T) {
	lefts, rights := leftOperands(), rightOperands()
	var tally composeTally
	results := map[string]cute.Layout{}
	failures := 0
	for _, a := range lefts {
		for _, b := range rights {
			if err := checkComposition(a, b, &tally, results); err != nil {
				t.Errorf("%v ∘ %v: %v", a, b, err)
				if failures++; failures == 10 {
					t.Fatal("too many failures")
				}
			}
		}
	}
	t.Logf("%d×%d pairs: %d compositions are layouts, %d fail a CuTe condition although the composite is a layout, %d are no layout; %d composed typed, %d of them broadcast along whole leaves, %d rejected (aliasing within a leaf)",
		len(lefts), len(rights), tally.layout, tally.condition, tally.notLayout, tally.typed, tally.typedBroadcast, tally.typedRejected)
	t.Run("results", func(t *testing.T) {
		var tally propertyTally
		for _, key := range slices.Sorted(maps.Keys(results)) {
			if err := checkProperties(results[key], &tally); err != nil {
				t.Fatalf("%v: %v", results[key], err)
			}
		}
		t.Logf("%d distinct results: %s", len(results), tally)
	})
}

// propertyTally counts the verdicts of a properties cross-check.
type propertyTally struct {
	injective, denseBijection, broadcast, leftInverse int
}

func (p propertyTally) String() string {
	return fmt.Sprintf("%d injective, %d dense bijections (inverted), %d dense once the broadcast is factored out, %d with a left inverse",
		p.injective, p.denseBijection, p.broadcast, p.leftInverse)
}

// bruteProperties decides from l's table the properties Decide should find
// for FromCute(l), whose codomain is [0, max+1): every value in range (none
// negative), injective (distinct values), alias-free (distinct values once
// the stride-0 modes, imported as broadcasts, are held at 0), surjective (in
// range and every point of the codomain a value), and dense (in range,
// alias-free and surjective).
func bruteProperties(l cute.Layout) indexmap.Properties {
	tab := l.Table()
	distinct := func(vs []int) bool {
		return len(slices.Compact(slices.Sorted(slices.Values(vs)))) == len(vs)
	}
	var p indexmap.Properties
	p.InRange = slices.Min(tab) >= 0
	p.Injective = distinct(tab)
	var ns, ds []int
	for k, n := range l.FlatShape() {
		if d := l.FlatStride()[k]; d != 0 {
			ns, ds = append(ns, n), append(ds, d)
		}
	}
	p.AliasFree = true
	if len(ns) > 0 {
		p.AliasFree = distinct(cute.MustNew(cute.Ints(ns...), cute.Ints(ds...)).Table())
	}
	// Decide calls a map surjective only when it is in range as well (the
	// oracle of properties_test.go does the same). In range, the values cover
	// [0, max] exactly when there are max+1 distinct ones.
	p.Surjective = p.InRange && len(slices.Compact(slices.Sorted(slices.Values(tab)))) == slices.Max(tab)+1
	p.DenseBijection = p.InRange && p.AliasFree && p.Surjective
	return p
}

// checkProperties cross-checks one layout L: ToCute(FromCute(L)) is L's
// function; Decide on FromCute(L), by the stride criterion and (behind a
// guard that always holds) by enumeration, agrees with the brute force on L's
// table;
// cute.LeftInverse succeeds on every dense bijection and fails exactly where
// it must; cute.RightInverse has L's size exactly on the dense bijections;
// and on those, indexmap's Inverse is the same function as
// cute.RightInverse (and cute.LeftInverse).
func checkProperties(l cute.Layout, tally *propertyTally) error {
	m, err := indexmap.FromCute(l, indexmap.Untyped, indexmap.Untyped)
	if err != nil {
		return fmt.Errorf("FromCute: %v", err)
	}
	if back, err := indexmap.ToCute(m); err != nil || !back.SameFunction(l) {
		return fmt.Errorf("ToCute(%s) = %v, %v: not L's function", m, back, err)
	}
	want := bruteProperties(l)
	injective := want.Injective
	byStride, err := m.Decide()
	if err != nil {
		return fmt.Errorf("Decide(%s): %v", m, err)
	}
	spec := m.Spec()
	if spec.Guard, err = indexmap.ParseGuard("0 == 0"); err != nil {
		return err
	}
	guarded, err := indexmap.New(spec)
	if err != nil {
		return err
	}
	byEnumeration, err := guarded.Decide()
	if err != nil {
		return fmt.Errorf("Decide(%s): %v", guarded, err)
	}
	if byEnumeration.Method != indexmap.ByEnumeration {
		return fmt.Errorf("Decide(%s) by %v, want enumeration", guarded, byEnumeration.Method)
	}
	for _, p := range []indexmap.Properties{byStride, byEnumeration} {
		if !sameVerdicts(p, want) {
			return fmt.Errorf("Decide(FromCute) by %v = %+v, the table says %+v", p.Method, p, want)
		}
	}
	if injective {
		tally.injective++
	}
	if want.DenseBijection && !injective {
		tally.broadcast++
	}
	dense := want.DenseBijection && injective

	ri, err := cute.RightInverse(l)
	if err != nil {
		return fmt.Errorf("cute.RightInverse: %v", err)
	}
	for i := range ri.Size() {
		if x := ri.Eval(i); x < 0 || x >= l.Size() || l.Eval(x) != i {
			return fmt.Errorf("cute.RightInverse = %v: L(R(%d)) ≠ %d", ri, i, i)
		}
	}
	if (ri.Size() == l.Size()) != dense {
		return fmt.Errorf("cute.RightInverse = %v has size %d, and L of size %d is a dense bijection: %v", ri, ri.Size(), l.Size(), dense)
	}

	li, err := cute.LeftInverse(l)
	switch {
	case err == nil && !injective:
		return fmt.Errorf("cute.LeftInverse = %v of a layout that is not injective", li)
	case err == nil:
		tally.leftInverse++
		for i := range l.Size() {
			if x := l.Eval(i); x < 0 || x >= li.Size() || li.Eval(x) != i {
				return fmt.Errorf("cute.LeftInverse = %v: R(L(%d)) ≠ %d", li, i, i)
			}
		}
	case !want.InRange && errors.Is(err, cute.ErrNegativeStride):
		// CuTe's construction needs non-negative strides.
	case !injective && !errors.Is(err, cute.ErrNotInjective):
		return fmt.Errorf("cute.LeftInverse of a layout that is not injective: %v, want code %s", err, cute.CodeNotInjective)
	case injective && (dense || !errors.Is(err, cute.ErrDivisibility)):
		return fmt.Errorf("cute.LeftInverse of an injective layout (dense bijection: %v): %v", dense, err)
	}

	inv, err := m.Inverse()
	if !dense {
		if err == nil {
			return fmt.Errorf("Inverse(%s) = %s, of no dense bijection", m, inv)
		}
		return nil
	}
	tally.denseBijection++
	if err != nil {
		return fmt.Errorf("Inverse(%s): %v", m, err)
	}
	if err := sameInverse(inv, ri, li); err != nil {
		return err
	}
	typed, err := indexmap.FromCute(l, indexmap.ThreadValue, indexmap.Logical)
	if err != nil {
		return fmt.Errorf("typed FromCute of a dense bijection: %v", err)
	}
	if inv, err = typed.Inverse(); err != nil {
		return fmt.Errorf("Inverse(%s): %v", typed, err)
	}
	if inv.Domain().Kind != indexmap.Logical || inv.Codomain().Kind != indexmap.ThreadValue {
		return fmt.Errorf("Inverse(%s) = %s: the kinds are not exchanged", typed, inv)
	}
	return sameInverse(inv, ri, li)
}

// sameInverse checks that the map inv is the same function as the CuTe
// layouts right and left on [0, size), and that ToCute reads it as the same
// notation.
func sameInverse(inv indexmap.Map, right, left cute.Layout) error {
	got, err := flatValues(inv)
	if err != nil {
		return fmt.Errorf("tabulating %s: %v", inv, err)
	}
	if want := right.Table(); !slices.Equal(got, want) {
		return fmt.Errorf("Inverse = %s has values %v, cute.RightInverse = %v has %v", inv, got, right, want)
	}
	if want := left.Table()[:len(got)]; !slices.Equal(got, want) {
		return fmt.Errorf("Inverse = %s has values %v, cute.LeftInverse = %v has %v", inv, got, left, want)
	}
	back, err := indexmap.ToCute(inv)
	if err != nil {
		return fmt.Errorf("ToCute(Inverse = %s): %v", inv, err)
	}
	// Both read the inverse as the coarsest layout of a flat shape, so the
	// notations agree as well.
	if !back.Equal(right) || !back.Equal(left) {
		return fmt.Errorf("ToCute(Inverse = %s) = %v, cute.RightInverse %v, cute.LeftInverse %v", inv, back, right, left)
	}
	return nil
}

// denseLayouts returns every flat dense bijection of rank 1 to 3 with shape
// entries 1 to 4 (strides the running products of the sizes, in every order
// of the modes), a size-1 mode taking strides 0 and 5 as well.
func denseLayouts() []cute.Layout {
	var out []cute.Layout
	for rank := 1; rank <= 3; rank++ {
		for _, l := range flatLayouts(rank, []int{1, 2, 3, 4}, []int{0}) {
			shape := l.FlatShape()
			order := make([]int, rank)
			for k := range order {
				order[k] = k
			}
			for perm := range permutations(order) {
				stride, w := make([]int, rank), 1
				for _, k := range perm {
					stride[k], w = w, w*shape[k]
				}
				out = append(out, cute.MustNew(cute.Ints(shape...), cute.Ints(stride...)))
				for k := range stride {
					if shape[k] == 1 && stride[k] != 0 {
						for _, d := range []int{0, 5} {
							odd := slices.Clone(stride)
							odd[k] = d
							out = append(out, cute.MustNew(cute.Ints(shape...), cute.Ints(odd...)))
						}
					}
				}
			}
		}
	}
	return out
}

// permutations yields every permutation of xs, in lexicographic order of
// positions (xs itself first).
func permutations(xs []int) func(yield func([]int) bool) {
	return func(yield func([]int) bool) {
		var walk func(prefix, rest []int) bool
		walk = func(prefix, rest []int) bool {
			if len(rest) == 0 {
				return yield(slices.Clone(prefix))
			}
			for i := range rest {
				next := slices.Concat(rest[:i], rest[i+1:])
				if !walk(append(prefix, rest[i]), next) {
					return false
				}
			}
			return true
		}
		walk(nil, xs)
	}
}

// propertyLayouts are the layouts whose properties are cross-checked: every
// flat layout of rank at most 3 with shape entries 1 to 4 and strides -2 and
// 0 to 8 (rank 2: -4, -1, 0 to 4, 6, 8; rank 3: 0, 1, 2, 4), every dense
// bijection of denseLayouts, the nested ones, and some whose values reach
// 2^61.
func propertyLayouts() []cute.Layout {
	return slices.Concat(
		flatLayouts(1, []int{1, 2, 3, 4}, []int{-2, 0, 1, 2, 3, 4, 5, 6, 7, 8}),
		flatLayouts(2, []int{1, 2, 3, 4}, []int{-4, -1, 0, 1, 2, 3, 4, 6, 8}),
		flatLayouts(3, []int{1, 2, 3, 4}, []int{0, 1, 2, 4}),
		denseLayouts(),
		parseAll(nestedLayouts...),
		parseAll("((2,2),(2,2)):((1,4),(2,8))", "((4,2),3):((6,1),2)", "(3,(2,2)):(4,(1,2))", "((2,3),2):((3,1),0)"),
		// Values beyond cute.Recognize's ±2^60, up to a map's ±2^61.
		flatLayouts(2, []int{1, 2, 3}, []int{0, 1, 3, 1 << 57, 1<<58 + 1}),
		parseAll("2:2305843009213693952", "(2,2):(1,2305843009213693951)", "(2,2):(2305843009213693951,-1)"))
}

// TestCrossProperties cross-checks Decide, the inverses of both packages and
// Inverse on every layout of propertyLayouts.
func TestCrossProperties(t *testing.T) {
	ls := propertyLayouts()
	var tally propertyTally
	for _, l := range ls {
		if err := checkProperties(l, &tally); err != nil {
			t.Fatalf("%v: %v", l, err)
		}
	}
	t.Logf("%d layouts: %s", len(ls), tally)
	if tally.denseBijection < 100 {
		t.Errorf("only %d dense bijections", tally.denseBijection)
	}
}

// checkRestrict restricts FromCute(L), for L of rank 2, by each value of each
// mode: the slice must be the other mode's layout plus the fixed mode's value
// (L's table along that slice), written affine plus that constant. Where L
// imports as logical → physical, the typed map gives the same slices.
func checkRestrict(l cute.Layout) error {
	maps := []indexmap.Map{}
	for _, kinds := range [][2]indexmap.Kind{{indexmap.Untyped, indexmap.Untyped}, {indexmap.Logical, indexmap.Physical}} {
		m, err := indexmap.FromCute(l, kinds[0], kinds[1])
		if err == nil {
			maps = append(maps, m)
		} else if kinds[0] == indexmap.Untyped {
			return fmt.Errorf("FromCute: %v", err)
		}
	}
	n0 := l.Mode(0).Size()
	for k := range 2 {
		fixed, free := l.Mode(k), l.Mode(1-k)
		for c := range fixed.Size() {
			constant := fixed.Eval(c)
			want := make([]int, free.Size())
			for j := range want {
				i := c + n0*j // mode 0 fixed at c, mode 1 at j
				if k == 1 {
					i = j + n0*c
				}
				want[j] = l.Eval(i)
				if want[j] != free.Eval(j)+constant {
					return fmt.Errorf("L(%d) = %d is not mode %d at %d plus mode %d at %d", i, want[j], 1-k, j, k, c)
				}
			}
			axis := fmt.Sprintf("m%d", k)
			for _, m := range maps {
				r, err := m.Restrict(map[string]int{axis: c})
				if err != nil {
					return fmt.Errorf("Restrict(%s, %s=%d): %v", m, axis, c, err)
				}
				got, err := flatValues(r)
				if err != nil {
					return fmt.Errorf("tabulating %s: %v", r, err)
				}
				if !slices.Equal(got, want) {
					return fmt.Errorf("Restrict(%s, %s=%d) = %s has values %v, L's slice %v", m, axis, c, r, got, want)
				}
				aff, ok := indexmap.AffineOf(r.Result(0), r.Domain().Space)
				if !ok || aff.Const != constant {
					return fmt.Errorf("Restrict(%s, %s=%d) = %s is not affine plus the constant %d", m, axis, c, r, constant)
				}
			}
		}
	}
	return nil
}

// checkRestrictAxes restricts FromCute(L) by each value of each axis of its
// domain, leaf or group (a nested mode of L): the slice has L's values at the
// points where that axis has that value, in flat order, affine in the
// remaining leaves.
func checkRestrictAxes(l cute.Layout) error {
	m, err := indexmap.FromCute(l, indexmap.Untyped, indexmap.Untyped)
	if err != nil {
		return fmt.Errorf("FromCute: %v", err)
	}
	sp, tab := m.Domain().Space, l.Table()
	for _, name := range sp.Names() {
		axis, _ := sp.Lookup(name)
		for c := range axis.Size {
			var want []int
			for p, v := range tab {
				if coord, _ := sp.Coord(p); axis.Value(sp, coord) == c {
					want = append(want, v)
				}
			}
			r, err := m.Restrict(map[string]int{name: c})
			if err != nil {
				return fmt.Errorf("Restrict(%s, %s=%d): %v", m, name, c, err)
			}
			got, err := flatValues(r)
			if err != nil || !slices.Equal(got, want) {
				return fmt.Errorf("Restrict(%s, %s=%d) = %s has values %v (%v), L's slice %v", m, name, c, r, got, err, want)
			}
			if _, ok := indexmap.AffineOf(r.Result(0), r.Domain().Space); !ok {
				return fmt.Errorf("Restrict(%s, %s=%d) = %s is not affine", m, name, c, r)
			}
		}
	}
	return nil
}

// TestCrossRestrict restricts every layout of rank 2 among the left operands
// and propertyLayouts by each mode, and the nested and rank-3 ones among them
// by each axis.
func TestCrossRestrict(t *testing.T) {
	n, axes := 0, 0
	for _, l := range slices.Concat(leftOperands(), propertyLayouts()) {
		if l.Rank() == 2 {
			n++
			if err := checkRestrict(l); err != nil {
				t.Fatalf("%v: %v", l, err)
			}
		}
		if l.Depth() > 1 || l.Rank() == 3 && l.Size() >= 8 && slices.Min(l.FlatStride()) > 0 {
			axes++
			if err := checkRestrictAxes(l); err != nil {
				t.Fatalf("%v: %v", l, err)
			}
		}
	}
	t.Logf("%d layouts of rank 2 restricted by mode, %d nested or of rank 3 by axis", n, axes)
}

// TestCrossCompositionCases names the kinds of composition the enumeration
// meets, with cute's verdict (docs/cute.md), the layout ToCute reads from the
// emitted composite (none for not_a_layout), and the typed composition where
// both operands import with kinds (a broadcast along a whole mode of B is
// declared; one along a digit of a mode cannot be, and is an error); each
// case goes through checkComposition as well.
func TestCrossCompositionCases(t *testing.T) {
	tests := []struct {
		name, a, b string
		code       cute.Code // "" when cute returns a layout
		emitted    string    // ToCute of the emitted composite; "" when none
		typed      string    // logical → physical A ∘ logical → logical B, or "error"; "" when they do not import so
	}{
		{"CuTe documentation", "(6,2):(8,2)", "(4,3):(3,1)", "", "((2,2),3):((24,2),8)",
			"logical(m1:3, m0:4) -> physical(x:43) = (2 * ((m1 + 3 * m0) / 6) + 8 * ((m1 + 3 * m0) % 6))"},
		{"left operand read beyond its size", "(2,2):(1,4)", "8:1", "", "(2,4):(1,4)", ""},
		{"broadcast on the left, along a mode of the right", "(2,2):(0,1)", "(2,2):(1,2)", "", "(2,2):(0,1)",
			"logical(m1:2, m0:2) -> physical(x:2) = (m1) broadcast(m0)"},
		{"broadcast on a digit of the right operand's mode", "(2,2):(0,1)", "4:1", "", "(2,2):(0,1)", "error"},
		{"stride divisibility fails, composite a layout", "(6,2):(1,7)", "2:4", cute.CodeDivisibility, "2:4", ""},
		{"right operand's modes overlap, composite a layout", "8:1", "(2,2):(1,1)", cute.CodeOverlap, "(2,2):(1,1)", ""},
		{"Tiling Is Function Composition: no layout", "(3,2):(1,4)", "4:1", cute.CodeNotALayout, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := cute.MustParse(tc.a), cute.MustParse(tc.b)
			var tally composeTally
			if err := checkComposition(a, b, &tally, nil); err != nil {
				t.Fatalf("%v ∘ %v: %v", a, b, err)
			}
			_, err := cute.Composition(a, b)
			var ce *cute.Error
			code := cute.Code("")
			if errors.As(err, &ce) {
				code = ce.Code
			}
			if code != tc.code {
				t.Errorf("%v ∘ %v: cute.Composition error %v, want code %q", a, b, err, tc.code)
			}
			r, err := composeMaps(a, b)
			if err != nil {
				t.Fatalf("%v ∘ %v: %v", a, b, err)
			}
			e, _ := r.Emit()
			l, err := indexmap.ToCute(e)
			switch {
			case tc.emitted == "" && err == nil:
				t.Errorf("%v ∘ %v: ToCute(%s) = %v, want none", a, b, e, l)
			case tc.emitted != "" && (err != nil || l.String() != tc.emitted):
				t.Errorf("%v ∘ %v: ToCute(%s) = %v, %v; want %s", a, b, e, l, err, tc.emitted)
			}
			if tc.typed == "" {
				return
			}
			outer, err1 := indexmap.FromCute(a, indexmap.Logical, indexmap.Physical)
			inner, err2 := indexmap.FromCute(b, indexmap.Logical, indexmap.Logical)
			if err := errors.Join(err1, err2); err != nil {
				t.Fatalf("%v ∘ %v: typed FromCute: %v", a, b, err)
			}
			typed, err := indexmap.Compose(outer, inner)
			got := "error"
			if err == nil {
				got = typed.String()
			}
			if got != tc.typed {
				t.Errorf("%v ∘ %v: typed Compose = %s (%v), want %s", a, b, got, err, tc.typed)
			}
		})
	}
}

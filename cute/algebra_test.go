package cute

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// apply runs a named operation on text arguments, as the CLI does.
func apply(op string, args ...string) (Layout, error) {
	arg := func(i int) Layout { return MustParse(args[i]) }
	tiler := func(i int) Tiler {
		t, err := ParseTiler(args[i])
		if err != nil {
			panic(err)
		}
		return t
	}
	switch op {
	case "coalesce":
		return Coalesce(arg(0)), nil
	case "flatten":
		return Flatten(arg(0)), nil
	case "composition":
		return CompositionTiler(arg(0), tiler(1))
	case "complement":
		if len(args) == 1 {
			return Complement(arg(0))
		}
		var m int
		fmt.Sscan(args[1], &m)
		return ComplementTo(arg(0), m)
	case "logical_divide":
		return LogicalDivide(arg(0), tiler(1))
	case "zipped_divide":
		return ZippedDivide(arg(0), tiler(1))
	case "logical_product":
		return LogicalProduct(arg(0), tiler(1))
	case "blocked_product":
		return BlockedProduct(arg(0), arg(1))
	case "raked_product":
		return RakedProduct(arg(0), arg(1))
	case "right_inverse":
		return RightInverse(arg(0))
	case "left_inverse":
		return LeftInverse(arg(0))
	}
	panic("unknown op " + op)
}

// TestDocumented checks the worked examples of "Tiling Is Function
// Composition" and of CuTe's
// documentation (01_layout.md, 02_layout_algebra.md), in CuTe notation.
func TestDocumented(t *testing.T) {
	tests := []struct {
		name string
		op   string
		args []string
		want string // a layout, or "error:CODE"
	}{
		{"Tiling Is Function Composition: composition", "composition", []string{"(6,2):(8,2)", "(4,3):(3,1)"}, "((2,2),3):((24,2),8)"},
		{"Tiling Is Function Composition: not a layout", "composition", []string{"(3,2):(1,4)", "4:1"}, "error:not_a_layout"},
		{"Tiling Is Function Composition: representable", "composition", []string{"(2,2):(1,4)", "4:1"}, "(2,2):(1,4)"},
		{"doc reshape 20:2", "composition", []string{"20:2", "(5,4):(4,1)"}, "(5,4):(8,2)"},
		{"doc reshape static", "composition", []string{"(10,2):(16,4)", "(5,4):(1,5)"}, "(5,(2,2)):(16,(80,4))"},
		{"doc divide-out (3,6,2,8)/72", "composition", []string{"(3,6,2,8):(1,100,1000,5000)", "4:72"}, "4:10000"},
		{"doc (3,6,2,8) o 16:9", "composition", []string{"(3,6,2,8):(1,100,1000,5000)", "16:9"}, "(2,2,4):(300,1000,5000)"},
		{"stride divisibility fails, composite still a layout", "composition", []string{"(6,2):(1,7)", "2:4"}, "error:divisibility"},
		{"beyond A's size: last mode extended", "composition", []string{"(4,2):(1,10)", "4:4"}, "4:10"},
		{"broadcast leaf of B", "composition", []string{"(6,2):(8,2)", "(2,3):(0,1)"}, "(2,3):(0,8)"},
		{"doc by-mode tiler", "composition", []string{"(12,(4,8)):(59,(13,1))", "<3:4, 8:2>"}, "(3,(2,4)):(236,(26,1))"},
		{"doc shape tiler", "composition", []string{"(12,(4,8)):(59,(13,1))", "(3,8)"}, "(3,(4,2)):(59,(13,1))"},
		{"doc coalesce", "coalesce", []string{"(2,(1,6)):(1,(6,2))"}, "12:1"},
		{"flatten", "flatten", []string{"((2,2),3):((24,2),8)"}, "(2,2,3):(24,2,8)"},
		{"doc complement 4:1", "complement", []string{"4:1", "24"}, "6:4"},
		{"doc complement 6:4", "complement", []string{"6:4", "24"}, "4:1"},
		{"doc complement full", "complement", []string{"(4,6):(1,4)", "24"}, "1:0"},
		{"doc complement 4:2", "complement", []string{"4:2", "24"}, "(2,3):(1,8)"},
		{"doc complement (2,4):(1,6)", "complement", []string{"(2,4):(1,6)", "24"}, "3:2"},
		{"doc complement (2,2):(1,6)", "complement", []string{"(2,2):(1,6)", "24"}, "(3,2):(2,12)"},
		{"Simplified Layout Algebra: no complement", "complement", []string{"(2,2):(1,3)", "24"}, "error:no_complement"},
		{"complement default cotarget", "complement", []string{"4:2"}, "2:1"},
		{"complement of a broadcast", "complement", []string{"4:0", "8"}, "8:1"},
		{"complement negative stride", "complement", []string{"4:-1", "8"}, "error:negative_stride"},
		{"complement bad cotarget", "complement", []string{"4:1", "0"}, "error:bad_argument"},
		{"doc logical_divide 1-D", "logical_divide", []string{"(4,2,3):(2,1,8)", "4:2"}, "((2,2),(2,3)):((4,1),(2,8))"},
		{"doc logical_divide 2-D", "logical_divide", []string{"(9,(4,8)):(59,(13,1))", "<3:3, (2,4):(1,8)>"}, "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"},
		{"doc zipped_divide", "zipped_divide", []string{"(9,(4,8)):(59,(13,1))", "<3:3, (2,4):(1,8)>"}, "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))"},
		{"divide without complement", "logical_divide", []string{"24:1", "(2,2):(1,3)"}, "error:no_complement"},
		{"tiler of too many modes", "logical_divide", []string{"24:1", "<2:1,3:1>"}, "error:rank_mismatch"},
		{"doc logical_product 1-D", "logical_product", []string{"(2,2):(4,1)", "6:1"}, "((2,2),(2,3)):((4,1),(2,8))"},
		{"doc logical_product (4,2):(2,1)", "logical_product", []string{"(2,2):(4,1)", "(4,2):(2,1)"}, "((2,2),(4,2)):((4,1),(8,2))"},
		{"doc logical_product 2-D by mode", "logical_product", []string{"(2,5):(5,1)", "<3:5, 4:6>"}, "((2,3),(5,4)):((5,10),(1,30))"},
		{"doc blocked_product", "blocked_product", []string{"(2,5):(5,1)", "(3,4):(1,3)"}, "((2,3),(5,4)):((5,10),(1,30))"},
		{"doc raked_product", "raked_product", []string{"(2,5):(5,1)", "(3,4):(1,3)"}, "((3,2),(4,5)):((10,5),(30,1))"},
		{"blocked_product pads the rank", "blocked_product", []string{"4:1", "(2,3):(1,2)"}, "((4,2),(1,3)):((1,4),(0,8))"},
		{"right_inverse transpose", "right_inverse", []string{"(2,3):(3,1)"}, "(3,2):(2,1)"},
		{"right_inverse no stride 1", "right_inverse", []string{"4:2"}, "1:0"},
		{"right_inverse partial", "right_inverse", []string{"(4,2):(1,8)"}, "4:1"},
		{"left_inverse transpose", "left_inverse", []string{"(2,3):(3,1)"}, "(3,2):(2,1)"},
		{"left_inverse with gaps", "left_inverse", []string{"(2,2):(1,3)"}, "(3,2):(1,2)"},
		{"left_inverse of 4:2", "left_inverse", []string{"4:2"}, "(2,4):(0,1)"},
		{"left_inverse not injective", "left_inverse", []string{"(4,2):(1,2)"}, "error:not_injective"},
		{"left_inverse broadcast", "left_inverse", []string{"(4,2):(1,0)"}, "error:not_injective"},
		{"left_inverse divisibility", "left_inverse", []string{"(3,2):(2,3)"}, "error:divisibility"},
		{"composition negative B", "composition", []string{"8:1", "4:-1"}, "error:out_of_domain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := apply(tt.op, tt.args...)
			got := r.String()
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s%v: untyped error %v", tt.op, tt.args, err)
				}
				got = "error:" + string(e.Code)
			}
			if got != tt.want {
				t.Fatalf("%s%v = %s (%v), want %s", tt.op, tt.args, got, err, tt.want)
			}
		})
	}
}

// TestConditionFailsLayoutExists: where a CuTe condition fails, composition
// is an error naming it even when the composite is a layout; the error then
// carries the composite and that layout.
func TestConditionFailsLayoutExists(t *testing.T) {
	_, err := Composition(MustParse("(6,2):(1,7)"), MustParse("2:4"))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrDivisibility) {
		t.Fatalf("got %v, want a divisibility error", err)
	}
	if !slices.Equal(e.Values, []int{0, 4}) || !e.Layout.Equal(MustParse("2:4")) {
		t.Fatalf("values %v, layout %v; want [0 4] and 2:4", e.Values, e.Layout)
	}
}

func TestCompositionCarriesValues(t *testing.T) {
	_, err := Composition(MustParse("(3,2):(1,4)"), MustParse("4:1"))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrNotALayout) {
		t.Fatalf("got %v, want a not_a_layout error", err)
	}
	if !slices.Equal(e.Values, []int{0, 1, 2, 4}) {
		t.Fatalf("values %v, want [0 1 2 4]", e.Values)
	}
}

// smallLayouts enumerates flat and nested layouts of small sizes with
// strides in a small range.
func smallLayouts(maxStride int) []Layout {
	var out []Layout
	shapes := [][]int{{1}, {2}, {3}, {4}, {6}, {2, 2}, {2, 3}, {3, 2}, {4, 2}, {2, 4}, {3, 3}, {2, 2, 2}}
	for _, sh := range shapes {
		var walk func(ds []int)
		walk = func(ds []int) {
			if len(ds) == len(sh) {
				out = append(out, MustNew(Ints(sh...), Ints(ds...)))
				return
			}
			for d := 0; d <= maxStride; d++ {
				walk(append(ds, d))
			}
		}
		walk(nil)
	}
	out = append(out, MustParse("((2,2),3):((1,6),2)"), MustParse("(2,(3,2)):(3,(1,6))"), MustParse("((2,3),(2,2)):((1,2),(6,12))"))
	return out
}

// composite tabulates A(B(i)) directly from the definition, the last mode of
// the coalesced A unbounded.
func composite(a, b Layout) []int {
	out := make([]int, b.Size())
	ca := Coalesce(a)
	ns, ds := ca.FlatShape(), ca.FlatStride()
	for i := range out {
		x, v := b.Eval(i), 0
		for k := range ns {
			c := x
			if k < len(ns)-1 {
				c, x = x%ns[k], x/ns[k]
			}
			v += c * ds[k]
		}
		out[i] = v
	}
	return out
}

// compatibleWith reports whether r's shape is b's shape with every leaf
// refined into leaves of the same product.
func compatibleWith(b, r Layout) bool {
	if b.Shape().IsInt() {
		return r.Size() == b.Size()
	}
	if b.Rank() != r.Rank() || r.Shape().IsInt() {
		return false
	}
	for i := range b.Rank() {
		if !compatibleWith(b.Mode(i), r.Mode(i)) {
			return false
		}
	}
	return true
}

// TestCompositionDefinition composes every pair of small layouts: a result
// must satisfy R(i) = A(B(i)) over B's whole domain and be compatible with
// B; a not_a_layout error must carry exactly the composite, and the brute
// force must confirm that some leaf of B sees a function that is no layout
// or that the composite does not split along B's leaves.
func TestCompositionDefinition(t *testing.T) {
	ls := smallLayouts(4)
	var ok, condition, notLayout int
	for _, a := range ls {
		for _, b := range ls {
			r, err := Composition(a, b)
			want := composite(a, b)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%v ∘ %v: untyped error %v", a, b, err)
				}
				if !slices.Equal(e.Values, want) {
					t.Fatalf("%v ∘ %v: error carries %v, want %v", a, b, e.Values, want)
				}
				switch e.Code {
				case CodeNotALayout:
					if representable(b, want) {
						t.Fatalf("%v ∘ %v: reported not a layout, but the brute force finds one for %v", a, b, want)
					}
					notLayout++
				case CodeDivisibility, CodeOverlap:
					if !slices.Equal(e.Layout.Table(), want) || !compatibleWith(b, e.Layout) {
						t.Fatalf("%v ∘ %v: %v carries the layout %v, whose values are not %v or which is not compatible with %v", a, b, e.Code, e.Layout, want, b)
					}
					condition++
				default:
					t.Fatalf("%v ∘ %v: %v", a, b, err)
				}
				continue
			}
			if got := r.Table(); !slices.Equal(got, want) {
				t.Fatalf("%v ∘ %v = %v with values %v, want %v", a, b, r, got, want)
			}
			if !compatibleWith(b, r) {
				t.Fatalf("%v ∘ %v = %v, not compatible with %v", a, b, r, b)
			}
			ok++
		}
	}
	t.Logf("%d compositions are layouts, %d fail a CuTe condition although their composite is a layout, %d are not layouts", ok, condition, notLayout)
}

// failedCondition reports whether err is the right failure of a composition
// with right operand b and composite values: not_a_layout when the brute
// force finds no layout compatible with b, or a failed CuTe condition that
// carries such a layout when it finds one.
func failedCondition(err error, b Layout, values []int) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case CodeNotALayout:
		return !representable(b, values)
	case CodeDivisibility, CodeOverlap:
		return representable(b, values) && slices.Equal(e.Layout.Table(), values)
	}
	return false
}

// representable decides by brute force (the oracle of TestRecognizeExhaustive,
// on each leaf) whether values is the table of a layout compatible with b.
func representable(b Layout, values []int) bool {
	ns := b.FlatShape()
	var parts []Layout
	w := 1
	for _, n := range ns {
		g := make([]int, n)
		for c := range g {
			g[c] = values[c*w]
		}
		w *= n
		chain, ok := oracle(g)
		if !ok {
			return false
		}
		shape, stride := make([]int, len(chain)), make([]int, len(chain))
		for j, x := range chain {
			next := n
			if j+1 < len(chain) {
				next = chain[j+1]
			}
			shape[j], stride[j] = next/x, g[x]
		}
		parts = append(parts, MustNew(Ints(shape...), Ints(stride...)))
	}
	// The composite must be the sum of its leaf functions.
	for i, v := range values {
		s, x := 0, i
		for k, n := range ns {
			s += parts[k].Eval(x % n)
			x /= n
		}
		if s != v {
			return false
		}
	}
	return true
}

// TestComplementDefinition checks every complement against its definition:
// R ordered (increasing), disjoint from A except at 0, and (A, R) covering
// [0, M) without collision; and an error exactly when no ordered complement
// of this form exists (a divisibility condition fails).
func TestComplementDefinition(t *testing.T) {
	for _, a := range smallLayouts(8) {
		for _, m := range []int{1, 7, 12, 24, 48} {
			r, err := ComplementTo(a, m)
			if err != nil {
				if !errors.Is(err, ErrNoComplement) {
					t.Fatalf("complement(%v, %d): %v", a, m, err)
				}
				if divisible(a) {
					t.Fatalf("complement(%v, %d) failed though the divisibility conditions hold: %v", a, m, err)
				}
				continue
			}
			if !divisible(a) {
				t.Fatalf("complement(%v, %d) = %v though a divisibility condition fails", a, m, r)
			}
			rt := r.Table()
			for i := 1; i < len(rt); i++ {
				if rt[i] <= rt[i-1] {
					t.Fatalf("complement(%v, %d) = %v is not ordered: %v", a, m, r, rt)
				}
			}
			image := map[int]int{}
			for _, v := range a.Table() {
				image[v]++
			}
			for _, v := range rt[1:] {
				if image[v] > 0 {
					t.Fatalf("complement(%v, %d) = %v meets A at %d", a, m, r, v)
				}
			}
			// (A without its broadcast modes, R) must cover [0, M) once each.
			seen := map[int]bool{}
			fa := Coalesce(filterLayout(a))
			for _, x := range fa.Table() {
				for _, y := range rt {
					if seen[x+y] {
						t.Fatalf("complement(%v, %d) = %v: (A, R) hits %d twice", a, m, r, x+y)
					}
					seen[x+y] = true
				}
			}
			for v := range m {
				if !seen[v] {
					t.Fatalf("complement(%v, %d) = %v: (A, R) misses %d", a, m, r, v)
				}
			}
		}
	}
}

func filterLayout(l Layout) Layout {
	ns, ds := filtered(l)
	return flatLayout(ns, ds)
}

// divisible states the complement's condition independently: sorted by
// stride, each leaf's stride is a multiple of the extent n·d of the previous.
func divisible(a Layout) bool {
	ns, ds := filtered(a)
	idx := strideOrder(ds)
	ext := 1
	for _, k := range idx {
		if ds[k]%ext != 0 {
			return false
		}
		ext = ns[k] * ds[k]
	}
	return true
}

// TestDivideProductDefinition checks logical_divide = A ∘ (B, B*) and
// logical_product = (A, A* ∘ B) as functions, and the zipped, blocked and
// raked forms as regroupings of the same values.
func TestDivideProductDefinition(t *testing.T) {
	as := []Layout{MustParse("24:1"), MustParse("(4,2,3):(2,1,8)"), MustParse("(6,4):(4,1)"), MustParse("(2,3,4):(12,1,3)"), MustParse("48:2")}
	bs := smallLayouts(3)
	for _, a := range as {
		for _, b := range bs {
			r, err := LogicalDivide(a, LayoutTiler(b))
			c, cerr := ComplementTo(b, a.Size())
			if cerr != nil {
				if !errors.Is(err, ErrNoComplement) {
					t.Fatalf("logical_divide(%v, %v) = %v, %v; the complement fails with %v", a, b, r, err, cerr)
				}
				continue
			}
			bc := MustNew(Tup(b.Shape(), c.Shape()), Tup(b.Stride(), c.Stride()))
			want := composite(a, bc)
			if err != nil {
				if !failedCondition(err, bc, want) {
					t.Fatalf("logical_divide(%v, %v): %v", a, b, err)
				}
				continue
			}
			if !slices.Equal(r.Table(), want) || r.Rank() != 2 {
				t.Fatalf("logical_divide(%v, %v) = %v, values %v, want A∘(B,B*) = %v", a, b, r, r.Table(), want)
			}
			if tile, err := Composition(a, b); err != nil || !tile.SameFunction(r.Mode(0)) {
				t.Fatalf("logical_divide(%v, %v) = %v: mode 0 is not A∘B = %v (%v)", a, b, r, tile, err)
			}
		}
	}
	for _, a := range bs {
		for _, b := range bs {
			r, err := LogicalProduct(a, LayoutTiler(b))
			c, cerr := ComplementTo(a, a.Size()*b.Cosize())
			if cerr != nil {
				if !errors.Is(err, ErrNoComplement) {
					t.Fatalf("logical_product(%v, %v) = %v, %v; the complement fails with %v", a, b, r, err, cerr)
				}
				continue
			}
			cb := composite(c, b)
			if err != nil {
				if !failedCondition(err, b, cb) {
					t.Fatalf("logical_product(%v, %v): %v", a, b, err)
				}
				continue
			}
			if !r.Mode(0).Equal(a) || !slices.Equal(r.Mode(1).Table(), cb) {
				t.Fatalf("logical_product(%v, %v) = %v, want (A, A*∘B) with A*∘B = %v", a, b, r, cb)
			}
			for _, raked := range []bool{false, true} {
				var p Layout
				if raked {
					p, err = RakedProduct(a, b)
				} else {
					p, err = BlockedProduct(a, b)
				}
				if err != nil {
					t.Fatalf("product(%v, %v, raked=%v): %v", a, b, raked, err)
				}
				if p.Rank() != max(a.Rank(), b.Rank()) || p.Size() != r.Size() {
					t.Fatalf("product(%v, %v, raked=%v) = %v: wrong rank or size", a, b, raked, p)
				}
				got, want := p.Table(), r.Table()
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("product(%v, %v, raked=%v) = %v: values differ from the logical product %v", a, b, raked, p, r)
				}
			}
		}
	}
}

// TestZippedDivide checks CuTe's identity layout<0>(zipped_divide(a, b)) ==
// composition(a, b) and that zipping only regroups the logical divide.
func TestZippedDivide(t *testing.T) {
	tests := []struct{ name, a, tiler string }{
		{"doc 2-D", "(9,(4,8)):(59,(13,1))", "<3:3, (2,4):(1,8)>"},
		{"shape tiler", "(8,6):(6,1)", "(2,3)"},
		{"extra mode", "(8,6,2):(1,8,48)", "<4:1>"},
		{"layout tiler", "(4,2,3):(2,1,8)", "4:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := MustParse(tt.a)
			tl, err := ParseTiler(tt.tiler)
			if err != nil {
				t.Fatal(err)
			}
			z, err := ZippedDivide(a, tl)
			if err != nil {
				t.Fatal(err)
			}
			c, err := CompositionTiler(a, tl)
			if err != nil {
				t.Fatal(err)
			}
			if !z.Mode(0).SameFunction(c) {
				t.Fatalf("zipped_divide(%v, %v) = %v; mode 0 differs from the composition %v", a, tl, z, c)
			}
			ld, err := LogicalDivide(a, tl)
			if err != nil {
				t.Fatal(err)
			}
			got, want := z.Table(), ld.Table()
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("zipped_divide(%v, %v) = %v is not a regrouping of %v", a, tl, z, ld)
			}
		})
	}
}

// TestInverses checks R(L(i)) = i (left) and L(R(i)) = i (right) on every
// small layout where they are defined.
func TestInverses(t *testing.T) {
	for _, l := range smallLayouts(8) {
		r, err := RightInverse(l)
		if err != nil {
			t.Fatalf("right_inverse(%v): %v", l, err)
		}
		for i := range r.Size() {
			if x := r.Eval(i); x >= l.Size() || l.Eval(x) != i {
				t.Fatalf("right_inverse(%v) = %v: L(R(%d)) ≠ %d", l, r, i, i)
			}
		}
		li, err := LeftInverse(l)
		injective := len(slices.Compact(slices.Sorted(slices.Values(l.Table())))) == l.Size()
		if err != nil {
			if injective && !errors.Is(err, ErrDivisibility) {
				t.Fatalf("left_inverse(%v) of an injective layout: %v", l, err)
			}
			if !injective && !errors.Is(err, ErrNotInjective) {
				t.Fatalf("left_inverse(%v) of a non-injective layout: %v", l, err)
			}
			continue
		}
		for i := range l.Size() {
			if li.Eval(l.Eval(i)) != i {
				t.Fatalf("left_inverse(%v) = %v: R(L(%d)) ≠ %d", l, li, i, i)
			}
		}
	}
}

func TestCoalesceFlatten(t *testing.T) {
	for _, l := range smallLayouts(4) {
		c := Coalesce(l)
		if !c.SameFunction(l) || c.Depth() > 1 {
			t.Fatalf("coalesce(%v) = %v", l, c)
		}
		if r, ok := Recognize(l.Table()); !ok || !r.Equal(c) {
			t.Fatalf("coalesce(%v) = %v, but the coarsest layout is %v", l, c, r)
		}
		if f := Flatten(l); !f.SameFunction(l) || f.Depth() > 1 {
			t.Fatalf("flatten(%v) = %v", l, f)
		}
		if m := CoalesceByMode(l); !m.SameFunction(l) || m.Rank() != l.Rank() {
			t.Fatalf("coalesce by mode(%v) = %v", l, m)
		}
	}
}

func ExampleComposition() {
	a := MustParse("(6,2):(8,2)")
	b := MustParse("(4,3):(3,1)")
	r, err := Composition(a, b)
	fmt.Println(r, err)
	fmt.Println(r.Table())

	_, err = Composition(MustParse("(3,2):(1,4)"), MustParse("4:1"))
	var e *Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Values)
	}
	// Output:
	// ((2,2),3):((24,2),8) <nil>
	// [0 24 2 26 8 32 10 34 16 40 18 42]
	// not_a_layout [0 1 2 4]
}

func ExampleComplement() {
	for _, s := range []string{"4:2", "(2,2):(1,6)", "(2,2):(1,3)"} {
		r, err := ComplementTo(MustParse(s), 24)
		if err != nil {
			fmt.Println(s, "→", err)
			continue
		}
		fmt.Println(s, "→", r)
	}
	// Output:
	// 4:2 → (2,3):(1,8)
	// (2,2):(1,6) → (3,2):(2,12)
	// (2,2):(1,3) → cute: complement: (2,2):(1,3) has no complement: the stride 3 of mode 2:3 is not a multiple of 2 = 2·1, the extent of mode 2:1 below it
}

// truncatingComplement applies the complement's formula with truncating
// division, as "A Simplified Layout Algebra for GPU Kernels" (Section 1)
// describes CuTe doing; it reports false where
// a quotient is 0 (CuTe rejects those at compile time as non-injective).
func truncatingComplement(a Layout, m int) (Layout, bool) {
	ns, ds := filtered(a)
	var rs, rd []int
	cur := 1
	for _, k := range strideOrder(ds) {
		if ds[k]/cur == 0 {
			return Layout{}, false
		}
		rs, rd = append(rs, ds[k]/cur), append(rd, cur)
		cur = ns[k] * ds[k]
	}
	rs, rd = append(rs, ceilDiv(m, cur)), append(rd, cur)
	return Coalesce(MustNew(Ints(rs...), Ints(rd...))), true
}

// TestComplementCensus reproduces the census of "A Simplified Layout
// Algebra for GPU Kernels" (Section 1): over
// every rank-2 (N0,N1):(d0,d1) with N0,N1 ∈ {2,3,4}, d0 ∈ {1,2}, 1 ≤ d1 ≤ 16
// and M ∈ {12,24,48}, the truncating formula returns, in exactly 40 cases, a
// complement that violates CuTe's own postconditions (ordered; disjoint from
// A; cosize((A,R)) ≥ M). ComplementTo rejects every case whose divisibility
// fails, those 40 included.
func TestComplementCensus(t *testing.T) {
	wrong, rejected := 0, 0
	for _, n0 := range []int{2, 3, 4} {
		for _, n1 := range []int{2, 3, 4} {
			for _, d0 := range []int{1, 2} {
				for d1 := 1; d1 <= 16; d1++ {
					for _, m := range []int{12, 24, 48} {
						a := MustNew(Ints(n0, n1), Ints(d0, d1))
						_, err := ComplementTo(a, m)
						if divisible(a) {
							if err != nil {
								t.Fatalf("complement(%v, %d): %v", a, m, err)
							}
							continue
						}
						if !errors.Is(err, ErrNoComplement) {
							t.Fatalf("complement(%v, %d) = %v, want no_complement", a, m, err)
						}
						rejected++
						r, ok := truncatingComplement(a, m)
						if !ok {
							continue
						}
						bad := false
						rt := r.Table()
						for i := 1; i < len(rt); i++ {
							bad = bad || rt[i] <= rt[i-1]
						}
						image := map[int]bool{}
						for _, v := range a.Table() {
							image[v] = true
						}
						for _, v := range rt[1:] {
							bad = bad || image[v]
						}
						both := MustNew(Tup(a.Shape(), r.Shape()), Tup(a.Stride(), r.Stride()))
						bad = bad || both.Cosize() < m
						if bad {
							wrong++
						}
					}
				}
			}
		}
	}
	if rejected != 630 {
		t.Errorf("%d cases fail a divisibility condition, want 630", rejected)
	}
	if wrong != 40 {
		t.Errorf("the truncating formula is wrong in %d cases; the paper reports 40", wrong)
	}
	t.Logf("%d cases fail a divisibility condition and are rejected; the truncating formula returns a wrong complement in %d", rejected, wrong)
}

func ExampleLogicalDivide() {
	a := MustParse("(4,2,3):(2,1,8)")
	tiler, err := ParseTiler("4:2")
	if err != nil {
		panic(err)
	}
	r, err := LogicalDivide(a, tiler)
	fmt.Println(r, err)
	fmt.Println("tile:", r.Mode(0), "tiles:", r.Mode(1))
	// Output:
	// ((2,2),(2,3)):((4,1),(2,8)) <nil>
	// tile: (2,2):(4,1) tiles: (2,3):(2,8)
}

func ExampleParseTiler() {
	for _, s := range []string{"<3:4, 8:2>", "(3,8)", "4:2"} {
		t, err := ParseTiler(s)
		fmt.Println(t, t.IsLayout(), t.Rank(), err)
	}
	// Output:
	// <3:4,8:2> false 2 <nil>
	// <3:1,8:1> false 2 <nil>
	// 4:2 true 1 <nil>
}

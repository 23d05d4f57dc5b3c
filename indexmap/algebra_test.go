package indexmap

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/cute"
)

// table tabulates m (a test helper).
func table(t *testing.T, m Map) Table {
	t.Helper()
	tab, err := m.Tabulate()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// flatImages returns, for each domain point, the codomain's flat index of its
// image.
func flatImages(t *testing.T, m Map) []int {
	t.Helper()
	tab := table(t, m)
	cod := m.Codomain().Space
	out := make([]int, m.Domain().Space.Size())
	for i := range out {
		for j, v := range tab.At(i) {
			out[i] += v * cod.Leaf(j).Stride
		}
	}
	return out
}

// A cuteComposite is A ∘ B for layouts A and B imported from CuTe notation
// (A logical → physical, B logical → logical), and its emitted form.
type cuteComposite struct {
	la, lb   cute.Layout
	a, b, r  Map
	e        Map
	forms    []Form
	flatVals []int
}

// composeCute imports a and b, composes them, checks R(i) = A(B(i)) at every
// point, and checks that Emit keeps every value.
func composeCute(t *testing.T, a, b string) cuteComposite {
	t.Helper()
	c := cuteComposite{la: cute.MustParse(a), lb: cute.MustParse(b)}
	var err error
	if c.a, err = FromCute(c.la, Logical, Physical); err != nil {
		t.Fatal(err)
	}
	if c.b, err = FromCute(c.lb, Logical, Logical); err != nil {
		t.Fatal(err)
	}
	if c.r, err = Compose(c.a, c.b); err != nil {
		t.Fatal(err)
	}
	c.flatVals = flatImages(t, c.r)
	for i, got := range c.flatVals {
		if want := c.la.Eval(c.lb.Eval(i)); got != want {
			t.Fatalf("%s ∘ %s: R(%d) = %d, A(B(%d)) = %d", a, b, i, got, i, want)
		}
	}
	c.e, c.forms = c.r.Emit()
	if !slices.Equal(flatImages(t, c.e), c.flatVals) {
		t.Fatalf("%s ∘ %s: Emit changed values: %s", a, b, c.e)
	}
	return c
}

// TestComposeByDefinition checks R(i) = A(B(i)) at every point, with A and B
// imported from CuTe, and that a composite that is a layout is emitted as one
// weighted sum that ToCute names as CuTe's composition.
func TestComposeByDefinition(t *testing.T) {
	tests := []struct {
		name, a, b string
	}{
		{"CuTe docs composition", "(6,2):(8,2)", "(4,3):(3,1)"},
		{"transpose", "(4,8):(8,1)", "(8,4):(4,1)"},
		{"tile of a row-major matrix", "(4,6):(6,1)", "((2,2),6):((1,2),4)"},
		{"identity", "(2,3,4):(1,2,6)", "24:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := composeCute(t, tc.a, tc.b)
			la, lb, r, e, forms := c.la, c.lb, c.r, c.e, c.forms
			if forms[0] != AsLayout {
				if _, affine := AffineOf(e.Result(0), e.Domain().Space); !affine {
					t.Fatalf("composite %s not emitted as a layout: %s", r, e)
				}
			}
			lr, err := ToCute(e)
			if err != nil {
				t.Fatal(err)
			}
			want, err := cute.Composition(la, lb)
			if err != nil {
				t.Fatal(err)
			}
			if !lr.SameFunction(want) {
				t.Errorf("ToCute(A∘B) = %s, CuTe's composition %s", lr, want)
			}
		})
	}
}

// TestComposeDocExample follows the CuTe documentation's composition example
// through our notation: the composite is emitted as one weighted sum and
// reads back as ((2,2),3):((24,2),8).
func TestComposeDocExample(t *testing.T) {
	a, _ := FromCute(cute.MustParse("(6,2):(8,2)"), Logical, Physical)
	b, _ := FromCute(cute.MustParse("(4,3):(3,1)"), Logical, Logical)
	r, err := Compose(a, b)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := r.Emit()
	const want = "logical(m1:3, m0:4) -> physical(x:43) = (8 * m1 + 24 * (m0 % 2) + 2 * (m0 / 2))"
	if e.String() != want {
		t.Errorf("emitted\n%s\nwant\n%s", e, want)
	}
	l, err := ToCute(e)
	if err != nil || l.String() != "((2,2),3):((24,2),8)" {
		t.Errorf("ToCute = %v, %v", l, err)
	}
}

// TestComposeNotALayout composes A = (3,2):(1,4) with the first four points
// of its domain: the composite [0, 1, 2, 4] is no layout ("Tiling Is Function Composition"), so it is
// emitted literally.
func TestComposeNotALayout(t *testing.T) {
	a, _ := FromCute(cute.MustParse("(3,2):(1,4)"), Untyped, Untyped)
	b := MustParse("(i:4) -> (j:6) = (i)")
	r, err := Compose(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := flatImages(t, r); !slices.Equal(got, []int{0, 1, 2, 4}) {
		t.Fatalf("composite = %v", got)
	}
	e, forms := r.Emit()
	if forms[0] != AsSimplified {
		t.Errorf("emitted as %v: %s", forms[0], e)
	}
	if !slices.Equal(flatImages(t, e), []int{0, 1, 2, 4}) {
		t.Errorf("Emit changed values: %s", e)
	}
	if _, err := ToCute(e); err == nil {
		t.Errorf("ToCute of a non-layout succeeded")
	}
}

func TestComposeErrors(t *testing.T) {
	logical := MustParse("logical(i:4) -> logical(j:4) = (3 - i)")
	physical := MustParse("logical(i:4) -> physical(a:8) = (2 * i)")
	tests := []struct {
		name         string
		outer, inner Map
		wantErr      string
	}{
		{"kind mismatch", logical, physical, "inner maps into physical but outer's domain is logical"},
		{"size mismatch", physical, MustParse("logical(i:2) -> logical(j:2) = (i)"), "has 2 points but outer's domain"},
		{"inner leaves its codomain", logical, MustParse("(i:4) -> (j:4) = (i + 1)"), "leave its codomain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compose(tc.outer, tc.inner)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Compose error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestComposeGuardsAndBroadcast checks guards are conjoined and a broadcast
// survives composition, by evaluation.
func TestComposeGuardsAndBroadcast(t *testing.T) {
	inner := MustParse("thread-value(w:2, t:4) -> logical(m:8) = (2 * t + w)")
	outer := MustParse("logical(m:8) -> physical(a:10) = (m + m / 4) if m != 5")
	r, err := Compose(outer, inner)
	if err != nil {
		t.Fatal(err)
	}
	sp := r.Domain().Space
	for i := 0; i < sp.Size(); i++ {
		c, _ := sp.Coord(i)
		mid, _, _ := inner.Eval(c)
		want, wantOK, _ := outer.Eval(mid)
		got, ok, _ := r.Eval(c)
		if ok != wantOK || !slices.Equal(got, want) {
			t.Fatalf("at %v: %v, %v; want %v, %v", c, got, ok, want, wantOK)
		}
	}
	bc := MustParse("logical(m:4) -> physical(a:4) = (m) ")
	rep := MustParse("thread-value(w:2, t:4) -> logical(m:4) = (t) broadcast(w)")
	r2, err := Compose(bc, rep)
	if err != nil {
		t.Fatal(err)
	}
	if got := r2.Broadcast(); !slices.Equal(got, []string{"w"}) {
		t.Errorf("broadcast = %v", got)
	}
	// Through the flat index (x:4 is not (m1:2, m0:2) leaf by leaf) the
	// literal result (2 * a + b) / 2 names b, which only feeds outer's
	// broadcast axis m0: the composite (CuTe's (2,2):(0,1) ∘ (2,2):(1,2),
	// values 0 0 1 1) is a, broadcast along b.
	flatOuter := MustParse("logical(m1:2, m0:2) -> physical(x:2) = (m1) broadcast(m0)")
	flatInner := MustParse("logical(a:2, b:2) -> logical(x:4) = (2 * a + b)")
	r3, err := Compose(flatOuter, flatInner)
	if err != nil {
		t.Fatal(err)
	}
	if got := r3.String(); got != "logical(a:2, b:2) -> physical(x:2) = (a) broadcast(b)" {
		t.Errorf("composite %s", got)
	}
	if got := flatImages(t, r3); !slices.Equal(got, []int{0, 0, 1, 1}) {
		t.Errorf("composite values %v, want [0 0 1 1]", got)
	}
}

// TestRestrictPaperExamples reproduces the examples of "A Simplified Layout Algebra for
// GPU Kernels", Section 5.
func TestRestrictPaperExamples(t *testing.T) {
	layout := MustParse("logical(a:2, b:2) -> physical(x:4) = (2 * a + b)")
	swizzle := MustParse("physical(x:4) -> physical(y:4) = (x ^ x / 2 % 2)")
	f, err := Compose(swizzle, layout)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		m     Map
		fixed map[string]int
		want  string
	}{
		{"swizzled slice with a negative coefficient", f, map[string]int{"a": 1}, "3 - b"},
		{"middle mode fixed", MustParse("logical(i:4, r:8, v:4) -> physical(x:128) = (32 * i + r + 8 * v)"), map[string]int{"i": 2}, "64 + r + 8 * v"},
		{"group fixed", MustParse("logical(g:(g0:2, g1:2), r:4) -> physical(x:16) = (4 * g + r)"), map[string]int{"g": 3}, "12 + r"},
		{"leaf of a group fixed", MustParse("logical(g:(g0:2, g1:2), r:4) -> physical(x:16) = (4 * g + r)"), map[string]int{"g0": 1}, "8 + 4 * g1 + r"},
		{"broadcast group partly fixed", MustParse("thread-value(w:(w0:2, w1:2), t:4) -> physical(x:4) = (t) broadcast(w, w0)"), map[string]int{"w1": 1}, "t"},
		{"not a layout: literal with values", MustParse("logical(a:2, b:3) -> physical(x:16) = (b % 2 + 4 * (b / 2) + 8 * a)"), map[string]int{"a": 1}, "8 + b % 2 + 4 * (b / 2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.m.Restrict(tc.fixed)
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "broadcast group partly fixed" && r.String() != "thread-value(w0:2, t:4) -> physical(x:4) = (t) broadcast(w0)" {
				t.Errorf("restricted map %s", r)
			}
			if tc.name == "leaf of a group fixed" && r.Domain().Space.String() != "(g1:2, r:4)" {
				t.Errorf("restricted domain %s: the group g should be dissolved", r.Domain().Space)
			}
			if got := r.Result(0).String(); got != tc.want {
				t.Errorf("restricted result %s, want %s (map %s)", got, tc.want, r)
			}
			// By definition: the slice agrees with m at every point of it.
			sp := tc.m.Domain().Space
			for i := 0; i < sp.Size(); i++ {
				c, _ := sp.Coord(i)
				env := tc.m.env(c)
				match := true
				for name, v := range tc.fixed {
					match = match && env[name] == v
				}
				if !match {
					continue
				}
				var rc []int
				for _, l := range r.Domain().Space.Leaves() {
					ar, _ := sp.Lookup(l.Name)
					rc = append(rc, c[ar.First])
				}
				want, _, _ := tc.m.Eval(c)
				got, _, err := r.Eval(rc)
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("at %v: slice %v, map %v (%v)", c, got, want, err)
				}
			}
		})
	}
}

func TestRestrictErrors(t *testing.T) {
	m := MustParse("logical(g:(g0:2, g1:2), r:4) -> physical(x:16) = (4 * g + r)")
	for name, tc := range map[string]struct {
		m     Map
		fixed map[string]int
		want  string
	}{
		"unknown axis":     {m, map[string]int{"q": 0}, `"q" is not an axis`},
		"out of range":     {m, map[string]int{"r": 4}, "out of range"},
		"conflict":         {m, map[string]int{"g": 3, "g0": 0}, "conflicts"},
		"into logical":     {MustParse(mmaA), map[string]int{"lane": 0}, "only for maps into physical"},
		"fix every axis":   {m, map[string]int{"g": 0, "r": 1}, ""},
		"fix nothing is m": {m, nil, ""},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := tc.m.Restrict(tc.fixed)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Restrict: %v", err)
				}
				checkSameValuesOnSlice(t, tc.m, r, tc.fixed)
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func checkSameValuesOnSlice(t *testing.T, m, r Map, fixed map[string]int) {
	t.Helper()
	if len(fixed) == 2 {
		got, _, err := r.Eval(nil)
		want, _, _ := m.Eval([]int{0, 0, 1})
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("fully fixed slice = %v, want %v", got, want)
		}
		return
	}
	checkSameMap(t, m, r)
}

func TestInverse(t *testing.T) {
	tests := []struct{ name, text string }{
		{"mma fragment", mmaA},
		{"negative stride", "logical(i:4) -> logical(j:4) = (3 - i)"},
		{"transpose", "logical(i:4, j:8) -> logical(a:8, b:4) = (j, i)"},
		{"swizzle (involution)", "physical(x:64) -> physical(y:64) = (x ^ x / 8 % 8)"},
		{"group domain", "logical(g:(a:2, b:4)) -> thread-value(t:8) = (g % 4 * 2 + g / 4)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := MustParse(tc.text)
			inv, err := m.Inverse()
			if err != nil {
				t.Fatal(err)
			}
			if inv.Domain().Kind != m.Codomain().Kind || inv.Codomain().Kind != m.Domain().Kind {
				t.Errorf("kinds not exchanged: %s", inv)
			}
			// inv ∘ m is the identity, point by point.
			sp := m.Domain().Space
			for i := 0; i < sp.Size(); i++ {
				c, _ := sp.Coord(i)
				y, _, _ := m.Eval(c)
				x, _, err := inv.Eval(y)
				if err != nil || !slices.Equal(x, c) {
					t.Fatalf("inverse(%v) = %v (%v), want %v; inverse %s", y, x, err, c, inv)
				}
			}
		})
	}
	for name, text := range map[string]string{
		"not surjective": "(i:4) -> (j:8) = (2 * i)",
		"guarded":        "(i:4) -> (j:4) = (i) if i < 3",
		"into physical":  "logical(i:4) -> physical(a:4) = (i)",
	} {
		if _, err := MustParse(text).Inverse(); err == nil {
			t.Errorf("%s: Inverse succeeded", name)
		}
	}
	// A map into physical is refused as what was asked, not as the
	// physical -> logical map its inverse would be; untyped, it inverts.
	_, err := MustParse("logical(m:4, k:8) -> physical(a:32) = (8 * m + k)").Inverse()
	if want := "the inverse of a logical -> physical map would map out of physical"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("into physical: Inverse error %v, want %q", err, want)
	}
	if inv, err := MustParse("(m:4, k:8) -> (a:32) = (8 * m + k)").Inverse(); err != nil || inv.String() != "(a:32) -> (m:4, k:8) = (a / 8, a % 8)" {
		t.Errorf("untyped: Inverse = %v, %v", inv, err)
	}
}

// TestCuteRoundTrip checks FromCute against CuTe's own evaluation at every
// index and that ToCute gives back the same function.
func TestCuteRoundTrip(t *testing.T) {
	tests := []struct{ name, layout, wantMap string }{
		{"integral", "12:1", "(m0:12) -> (x:12) = (m0)"},
		{"two modes", "(6,2):(8,2)", "(m1:2, m0:6) -> (x:43) = (2 * m1 + 8 * m0)"},
		{"nested", "((2,2),3):((24,2),8)", "(m1:3, m0:(m0_1:2, m0_0:2)) -> (x:43) = (8 * m1 + 2 * m0_1 + 24 * m0_0)"},
		{"broadcast", "(4,2):(1,0)", "(m1:2, m0:4) -> (x:4) = (m0) broadcast(m1)"},
		{"negative stride", "(2,2):(-1,4)", "(m1:2, m0:2) -> (x:5) = (4 * m1 - m0)"},
		{"size one", "(1,4):(0,2)", "(m1:4, m0:1) -> (x:7) = (2 * m1)"},
		{"values beyond cute.Recognize's 2^60", "(2,2):(1,2305843009213693951)", "(m1:2, m0:2) -> (x:2305843009213693953) = (2305843009213693951 * m1 + m0)"},
		{"a stride of 2^61", "2:2305843009213693952", "(m0:2) -> (x:2305843009213693953) = (2305843009213693952 * m0)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := cute.MustParse(tc.layout)
			m, err := FromCute(l, Untyped, Untyped)
			if err != nil {
				t.Fatal(err)
			}
			if m.String() != tc.wantMap {
				t.Errorf("FromCute = %s\nwant       %s", m, tc.wantMap)
			}
			if got := flatImages(t, m); !slices.Equal(got, l.Table()) {
				t.Errorf("values %v, CuTe %v", got, l.Table())
			}
			back, err := ToCute(m)
			if err != nil {
				t.Fatal(err)
			}
			if !back.SameFunction(l) {
				t.Errorf("ToCute = %s, not the function of %s", back, l)
			}
		})
	}
	if _, err := FromCute(cute.MustParse("(2,2):(-1,4)"), Logical, Physical); err == nil {
		t.Errorf("typed FromCute with negative values succeeded")
	}
	if m, err := FromCute(cute.MustParse("(4,2):(1,0)"), ThreadValue, Physical); err != nil || !slices.Equal(m.Broadcast(), []string{"m1"}) {
		t.Errorf("stride-0 mode not imported as a declared broadcast: %v, %v", m, err)
	}
	if _, err := FromCute(cute.MustParse("(2,2):(1,1)"), Logical, Physical); err == nil {
		t.Errorf("typed FromCute of an aliasing layout succeeded")
	}
}

func TestLayoutExpr(t *testing.T) {
	tests := []struct {
		name   string
		values []int
		want   string
	}{
		{"contiguous", []int{0, 1, 2, 3}, "x"},
		{"two modes", []int{0, 1, 4, 5}, "x % 2 + 4 * (x / 2)"},
		{"with a constant and negative stride", []int{3, 2, 1, 0}, "3 - x"},
		{"broadcast digit left out", []int{0, 0, 8, 8}, "8 * (x / 2)"},
		{"Tiling Is Function Composition non-layout", []int{0, 1, 2, 4}, ""},
		{"beyond cute.Recognize's 2^60, by the common factor", []int{0, 1 << 61}, "2305843009213693952 * x"},
		{"beyond 2^60 with a constant and a negative stride", []int{1 << 61, 0}, "2305843009213693952 - 2305843009213693952 * x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := LayoutExpr(tc.values, "x")
			if tc.want == "" {
				if ok {
					t.Errorf("LayoutExpr(%v) = %s, want none", tc.values, e)
				}
				return
			}
			if !ok || e.String() != tc.want {
				t.Fatalf("LayoutExpr(%v) = %v, %v; want %s", tc.values, e, ok, tc.want)
			}
			for i, v := range tc.values {
				if got, _ := Eval(e, map[string]int{"x": i}); got != v {
					t.Errorf("%s at x=%d is %d, want %d", e, i, got, v)
				}
			}
		})
	}
}

// TestComposeThroughFlatIndex composes maps whose middle spaces have the same
// size but different leaves, by evaluation at every point.
func TestComposeThroughFlatIndex(t *testing.T) {
	inner := MustParse("(i:12) -> (a:4, b:3) = (i / 3, i % 3)")
	outer := MustParse("(c:2, d:6) -> (x:64) = (7 * c + d)")
	r, err := Compose(outer, inner)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		got, _, _ := r.Eval([]int{i})
		// inner's image (i/3, i%3) has flat index i in (a:4, b:3); as a point
		// of (c:2, d:6) that is (i/6, i%6).
		if want := 7*(i/6) + i%6; got[0] != want {
			t.Fatalf("at i=%d: %d, want %d (%s)", i, got[0], want, r)
		}
	}
	if e, _ := r.Emit(); e.Result(0).String() != "i % 6 + 7 * (i / 6)" {
		t.Errorf("emitted %s", e)
	}
}

// TestCuteRandomRoundTrip converts random CuTe layouts (nested modes, zero and
// negative strides) to maps and back: the map has CuTe's value at every index,
// and ToCute returns the same notation when no mode has size 1.
func TestCuteRandomRoundTrip(t *testing.T) {
	rng := newRand(11)
	var mode func(depth int) (string, string, bool)
	mode = func(depth int) (string, string, bool) {
		if depth == 0 || rng.IntN(3) > 0 {
			n := 1 + rng.IntN(4)
			return fmt.Sprint(n), fmt.Sprint(rng.IntN(13) - 3), n > 1
		}
		k := 2 + rng.IntN(2)
		var ss, ds []string
		allBig := true
		for i := 0; i < k; i++ {
			s, d, big := mode(depth - 1)
			ss, ds = append(ss, s), append(ds, d)
			allBig = allBig && big
		}
		return "(" + strings.Join(ss, ",") + ")", "(" + strings.Join(ds, ",") + ")", allBig
	}
	same := 0
	for n := 0; n < 300; n++ {
		s, d, allBig := mode(3)
		l := cute.MustParse(s + ":" + d)
		m, err := FromCute(l, Untyped, Untyped)
		if err != nil {
			t.Fatalf("FromCute(%s): %v", l, err)
		}
		if got := flatImages(t, m); !slices.Equal(got, l.Table()) {
			t.Fatalf("FromCute(%s) = %s: values %v, CuTe %v", l, m, got, l.Table())
		}
		back, err := ToCute(m)
		if err != nil {
			t.Fatalf("ToCute(%s): %v", m, err)
		}
		if !slices.Equal(back.Table(), l.Table()) {
			t.Fatalf("ToCute(FromCute(%s)) = %s, another function", l, back)
		}
		if allBig {
			same++
			if !back.Equal(l) {
				t.Fatalf("ToCute(FromCute(%s)) = %s", l, back)
			}
		}
	}
	if same < 50 {
		t.Errorf("only %d layouts without size-1 modes", same)
	}
}

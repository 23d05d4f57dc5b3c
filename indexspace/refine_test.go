package indexspace

import (
	"errors"
	"slices"
	"testing"
)

func nonUnit(s Space) []int {
	var out []int
	for _, l := range s.Leaves() {
		if l.Size > 1 {
			out = append(out, l.Size)
		}
	}
	return out
}

func TestPrimeRefine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"(6,2)", "(a:6, b:2)", "(a:(a_0:2, a_1:3), b:2)"},
		{"(4,3)", "(c:4, d:3)", "(c:(c_0:2, c_1:2), d:3)"},
		{"prime and unit leaves stay", "s(p:7, u:1)", "s(p:7, u:1)"},
		{"inside a group", "(g:(x:12, y:5))", "(g:(x:(x_0:2, x_1:2, x_2:3), y:5))"},
		// Regression: the invented names clashed with existing axes
		// ("axis name "a_0" is used twice").
		{"factor name a_0 taken", "t(a:6, a_0:2)", "t(a:(a__0:2, a__1:3), a_0:2)"},
		{"factor name a_1 taken", "t(a:6, a_1:2)", "t(a:(a__0:2, a__1:3), a_1:2)"},
		{"taken name before the leaf", "(a_0:4, a:4)", "(a_0:(a_0_0:2, a_0_1:2), a:(a__0:2, a__1:2))"},
		{"group name taken", "(a_1:(b:9), a:4)", "(a_1:(b:(b_0:3, b_1:3)), a:(a__0:2, a__1:2))"},
		{"doubled separator taken too", "(a:4, a_0:1, a__1:1)", "(a:(a___0:2, a___1:2), a_0:1, a__1:1)"},
		{"names invented for an earlier leaf", "(a_:4, a:4, a_0:1)", "(a_:(a__0:2, a__1:2), a:(a___0:2, a___1:2), a_0:1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := MustParse(tc.in)
			r, err := s.PrimeRefine()
			if err != nil {
				t.Fatal(err)
			}
			if r.String() != tc.want {
				t.Errorf("PrimeRefine(%s) = %s, want %s", s, r, tc.want)
			}
			checkRefines(t, s, r)
			checkFresh(t, r, s)
		})
	}
}

// checkFresh checks that every axis name of r that is not an axis name of
// of[0] (an invented name) is used nowhere in the spaces of; New has checked
// that r uses no name twice.
func checkFresh(t *testing.T, r Space, of ...Space) {
	t.Helper()
	old := map[string]bool{}
	for _, s := range of {
		for _, n := range s.Names() {
			old[n] = true
		}
	}
	for _, n := range r.Names() {
		if _, ok := of[0].Lookup(n); ok {
			continue
		}
		if old[n] {
			t.Errorf("invented name %s of %s is an axis of %v", n, r, of)
		}
	}
}

// checkRefines checks that r refines s: same size, and each top-level axis of
// s has the same value in r at every flat index.
func checkRefines(t *testing.T, s, r Space) {
	t.Helper()
	if r.Size() != s.Size() {
		t.Fatalf("sizes differ: %s %s", s, r)
	}
	for i := 0; i < s.Size(); i++ {
		cs, _ := s.Coord(i)
		cr, _ := r.Coord(i)
		for _, name := range s.Names() {
			a, _ := s.Lookup(name)
			b, ok := r.Lookup(name)
			if !ok || a.Value(s, cs) != b.Value(r, cr) {
				t.Fatalf("axis %s differs at flat %d between %s and %s", name, i, s, r)
			}
		}
	}
}

func TestCommonRefinement(t *testing.T) {
	tests := []struct{ name, a, b, wantA, wantB string }{
		{"split one leaf", "(a:6, b:2)", "(c:3, d:4)", "(a:(a_0:3, a_1:2), b:2)", "(c:3, d:(d_0:2, d_1:2))"},
		{"already common", "(a:4, b:3)", "(c:4, d:3)", "(a:4, b:3)", "(c:4, d:3)"},
		{"interleaved splits", "(a:2, b:12)", "(c:8, d:3)", "(a:2, b:(b_0:4, b_1:3))", "(c:(c_0:2, c_1:4), d:3)"},
		{"one leaf against many", "(n:24)", "(p:2, q:3, r:4)", "(n:(n_0:2, n_1:3, n_2:4))", "(p:2, q:3, r:4)"},
		{"size-one leaves", "(a:1, b:4)", "(c:2, d:1, e:2)", "(a:1, b:(b_0:2, b_1:2))", "(c:2, d:1, e:2)"},
		// Regression: the invented names clashed with existing axes.
		{"factor name taken in the same space", "t(a:6, a_1:2)", "s(x:3, y:4)", "t(a:(a__0:3, a__1:2), a_1:2)", "s(x:3, y:(y_0:2, y_1:2))"},
		{"factor name taken in the other space", "(a:6, b:2)", "(a_0:3, d:4)", "(a:(a__0:3, a__1:2), b:2)", "(a_0:3, d:(d_0:2, d_1:2))"},
		{"both sides split a leaf of one name", "(x:6, y:2)", "(p:3, x:4)", "(x:(x_0:3, x_1:2), y:2)", "(p:3, x:(x_0:2, x_1:2))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := MustParse(tc.a), MustParse(tc.b)
			ra, rb, err := CommonRefinement(a, b)
			if err != nil {
				t.Fatal(err)
			}
			if ra.String() != tc.wantA || rb.String() != tc.wantB {
				t.Errorf("CommonRefinement = %s, %s; want %s, %s", ra, rb, tc.wantA, tc.wantB)
			}
			if !slices.Equal(nonUnit(ra), nonUnit(rb)) {
				t.Errorf("refinements have different leaves: %s %s", ra, rb)
			}
			checkRefines(t, a, ra)
			checkRefines(t, b, rb)
			checkFresh(t, ra, a, b)
			checkFresh(t, rb, b, a)
		})
	}
}

func TestCommonRefinementConflict(t *testing.T) {
	_, _, err := CommonRefinement(MustParse("(a:6, b:2)"), MustParse("(c:4, d:3)"))
	var rc *RefinementConflict
	if !errors.As(err, &rc) {
		t.Fatalf("error %v, want a RefinementConflict", err)
	}
	if rc.AxisA != "a" || rc.A != 2 || rc.AxisB != "c" || rc.B != 3 {
		t.Errorf("conflict %+v", rc)
	}
	want := "indexspace: (a:6, b:2) and (c:4, d:3) have no common refinement: a splits the flat index at 2 and c at 3, and 2 does not divide 3"
	if err.Error() != want {
		t.Errorf("message\n%s\nwant\n%s", err, want)
	}
	if _, _, err := CommonRefinement(MustParse("(a:6)"), MustParse("(c:4)")); err == nil {
		t.Errorf("CommonRefinement of different sizes succeeded")
	}
}

// TestCommonRefinementRandom checks, over random pairs of shapes of size 48,
// that every refinement found refines both spaces with matching leaves, and
// that a conflict is reported only when a boundary of one space falls
// strictly inside an axis of the other at a point its factors cannot reach.
func TestCommonRefinementRandom(t *testing.T) {
	shapes := [][]int{{48}, {6, 8}, {8, 6}, {4, 12}, {12, 4}, {2, 24}, {3, 16}, {16, 3}, {2, 3, 8}, {4, 3, 4}, {2, 2, 2, 6}, {3, 2, 8}}
	found, conflicts := 0, 0
	for _, x := range shapes {
		for _, y := range shapes {
			a, b := shapeSpace("a", x), shapeSpace("b", y)
			ra, rb, err := CommonRefinement(a, b)
			if err != nil {
				var rc *RefinementConflict
				if !errors.As(err, &rc) || rc.A%rc.B == 0 || rc.B%rc.A == 0 {
					t.Fatalf("%s, %s: %v", a, b, err)
				}
				conflicts++
				continue
			}
			found++
			checkRefines(t, a, ra)
			checkRefines(t, b, rb)
			if !slices.Equal(nonUnit(ra), nonUnit(rb)) {
				t.Fatalf("%s, %s: leaves differ: %s %s", a, b, ra, rb)
			}
		}
	}
	if found == 0 || conflicts == 0 {
		t.Errorf("found %d refinements and %d conflicts; want both kinds", found, conflicts)
	}
}

func shapeSpace(prefix string, sizes []int) Space {
	axes := make([]Axis, len(sizes))
	for i, n := range sizes {
		axes[i] = Leaf(prefix+string(rune('0'+i)), n)
	}
	return MustNew("", axes...)
}

// TestRefineNamesFresh refines every space whose three leaves take their
// names from a pool of names that look like invented ones, alone and against
// a space with the same names in reverse order: refinement must succeed and
// every invented name must be fresh.
func TestRefineNamesFresh(t *testing.T) {
	pool := []string{"a", "a_", "a_0", "a_1", "a__0", "b"}
	for _, x := range pool {
		for _, y := range pool {
			for _, z := range pool {
				if x == y || y == z || x == z {
					continue
				}
				s := MustNew("", Leaf(x, 4), Leaf(y, 6), Leaf(z, 4))
				r, err := s.PrimeRefine()
				if err != nil {
					t.Fatalf("PrimeRefine(%s): %v", s, err)
				}
				checkRefines(t, s, r)
				checkFresh(t, r, s)
				u := MustNew("", Leaf(z, 2), Leaf(y, 12), Leaf(x, 4))
				rs, ru, err := CommonRefinement(s, u)
				if err != nil {
					t.Fatalf("CommonRefinement(%s, %s): %v", s, u, err)
				}
				checkRefines(t, s, rs)
				checkRefines(t, u, ru)
				checkFresh(t, rs, s, u)
				checkFresh(t, ru, u, s)
				if !slices.Equal(nonUnit(rs), nonUnit(ru)) {
					t.Fatalf("%s, %s: leaves differ: %s %s", s, u, rs, ru)
				}
			}
		}
	}
}

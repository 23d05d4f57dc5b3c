package cute

import (
	"errors"
	"slices"
	"testing"
)

func FuzzParseTiler(f *testing.F) {
	for _, s := range []string{"<3:4, 8:2>", "(3,8)", "4:2", "<3:3,(2,4):(1,8)>", "<<2:1,2:2>,4>", "<", "<3:4,", "(3,(2,4))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tl, err := ParseTiler(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("ParseTiler(%q): untyped error %v", s, err)
			}
			return
		}
		back, err := ParseTiler(tl.String())
		if err != nil || !back.Equal(tl) {
			t.Fatalf("ParseTiler(%q) = %v, which parses back as %v, %v", s, tl, back, err)
		}
	})
}

// FuzzAlgebra runs every operation on two parsed layouts and checks each
// result it returns against the operation's definition; errors must be typed.
func FuzzAlgebra(f *testing.F) {
	seeds := [][2]string{
		{"(6,2):(8,2)", "(4,3):(3,1)"}, {"(3,2):(1,4)", "4:1"}, {"(2,2):(1,3)", "24"}, {"(4,2,3):(2,1,8)", "4:2"},
		{"(2,5):(5,1)", "(3,4):(1,3)"}, {"(2,3):(3,1)", "6:1"}, {"8:-1", "4:2"}, {"(4,2):(1,0)", "(2,2):(0,1)"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, as, bs string) {
		a, err := Parse(as)
		if err != nil {
			return
		}
		b, err := Parse(bs)
		if err != nil {
			return
		}
		const small = 1 << 12
		typed := func(op string, err error) {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s(%v, %v): untyped error %v", op, a, b, err)
			}
			if e.Code == CodeInternal {
				t.Fatalf("%s(%v, %v): %v", op, a, b, err)
			}
		}
		if r, err := Composition(a, b); err != nil {
			typed("composition", err)
		} else if b.Size() <= small {
			want, err := Composite(a, b)
			if err != nil || !slices.Equal(r.Table(), want) {
				t.Fatalf("composition(%v, %v) = %v, values %v, want %v (%v)", a, b, r, r.Table(), want, err)
			}
		}
		if b.Size() <= small && a.Size() <= small {
			if r, err := ComplementTo(a, b.Size()); err != nil {
				typed("complement", err)
			} else if r.Size()*a.Size() <= small {
				rt := r.Table()
				for i := 1; i < len(rt); i++ {
					if rt[i] <= rt[i-1] {
						t.Fatalf("complement(%v, %d) = %v is not ordered", a, b.Size(), r)
					}
				}
			}
		}
		for _, op := range []struct {
			name string
			f    func() (Layout, error)
		}{
			{"logical_divide", func() (Layout, error) { return LogicalDivide(a, LayoutTiler(b)) }},
			{"zipped_divide", func() (Layout, error) { return ZippedDivide(a, LayoutTiler(b)) }},
			{"logical_product", func() (Layout, error) { return LogicalProduct(a, LayoutTiler(b)) }},
			{"blocked_product", func() (Layout, error) { return BlockedProduct(a, b) }},
			{"raked_product", func() (Layout, error) { return RakedProduct(a, b) }},
		} {
			if a.Size() > small || b.Size() > small {
				continue
			}
			if _, err := op.f(); err != nil {
				typed(op.name, err)
			}
		}
		if r, err := RightInverse(a); err != nil {
			typed("right_inverse", err)
		} else if r.Size() <= small {
			for i := range r.Size() {
				if x := r.Eval(i); x >= a.Size() || a.Eval(x) != i {
					t.Fatalf("right_inverse(%v) = %v fails at %d", a, r, i)
				}
			}
		}
		if r, err := LeftInverse(a); err != nil {
			typed("left_inverse", err)
		} else if a.Size() <= small {
			for i := range a.Size() {
				if r.Eval(a.Eval(i)) != i {
					t.Fatalf("left_inverse(%v) = %v fails at %d", a, r, i)
				}
			}
		}
		if c := Coalesce(a); a.Size() <= small && !c.SameFunction(a) {
			t.Fatalf("coalesce(%v) = %v", a, c)
		}
	})
}

// TestLarge checks results too large to tabulate whole at sampled points:
// CuTe's rule, with its conditions checked, decides them.
func TestLarge(t *testing.T) {
	tests := []struct {
		name, op, a, b, want string
	}{
		{"composition beyond the check limit", "composition", "(4096,4096):(4096,1)", "(1024,(4,4096)):(4,(1,4096))", "(1024,(4,4096)):(16384,(4096,1))"},
		{"condition fails beyond the check limit", "composition", "(4095,4096):(1,4096)", "(8,262144):(2,4095)", "error:divisibility"},
		{"overlap beyond the check limit", "composition", "(4096,4096):(1,4096)", "(4096,4096):(1,2048)", "error:overlap"},
		{"complement of a large layout", "complement", "(1024,1024):(1,4096)", "16777216", "(4,4):(1024,4194304)"},
		{"left_inverse of a large layout", "left_inverse", "(2048,1024):(1024,1)", "", "(1024,2048):(2048,1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{tt.a}
			if tt.b != "" {
				args = append(args, tt.b)
			}
			r, err := apply(tt.op, args...)
			got := r.String()
			if err != nil {
				var e *Error
				errors.As(err, &e)
				got = "error:" + string(e.Code)
			}
			if got != tt.want {
				t.Fatalf("%s%v = %s (%v), want %s", tt.op, args, got, err, tt.want)
			}
			if err != nil || tt.op != "composition" {
				return
			}
			a, b := MustParse(tt.a), MustParse(tt.b)
			ca := Coalesce(a)
			for i := 0; i < b.Size(); i += 9973 {
				if v, _ := ca.evalExt(b.Eval(i)); r.Eval(i) != v {
					t.Fatalf("R(%d) = %d, A(B(%d)) = %d", i, r.Eval(i), i, v)
				}
			}
		})
	}
}

package indexmap

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/indexspace"
)

// TestCompileExpr checks ExprProgram.Eval, Tabulate and Affine against the
// tree evaluator (Eval with every axis, leaf or group, in the environment) at
// every point of the space, on expressions using every operator and group
// axes. The cases include those of storage's former private compiler.
func TestCompileExpr(t *testing.T) {
	tests := []struct {
		name, space, expr string
		affine            bool
	}{
		{"affine over leaves", "(m:4, k:8)", "m * 8 + k - 3 + 2 * (k - m)", true},
		{"group axis", "(w:2, n:(n0:2, n1:4))", "n * 3 + w", true},
		{"constant times sum", "(m:4, k:8)", "3 * (m + k * 2)", true},
		{"negative strides", "(m:4, k:8)", "100 - 9 * m - k", true},
		{"constant", "(m:4, k:8)", "7", true},
		{"empty space", "()", "5 - 2 * 3", true},
		{"floor division of negatives", "(m:4, k:8)", "(k - m * 3) / 4", false},
		{"floor division by a non-power of two", "(m:4, k:8)", "(k - m * 7) / 3", false},
		{"non-negative modulo", "(m:4, k:8)", "(k - m * 3) % 5", false},
		{"non-negative modulo by a power of two", "(m:4, k:8)", "(k - m * 3) % 4", false},
		{"xor", "(m:4, k:8)", "m * 8 + k ^ m % 4 * 2", false},
		{"product of axes", "(m:4, k:8)", "m * k", false},
		{"group in a swizzle", "(w:2, n:(n0:2, n1:4))", "n ^ n / 4 % 2", false},
		{"swizzled row-major", "(m:16, k:64)", "m * 64 + k ^ m % 8 * 8", false},
		{"shared subexpressions", "(a:3, b:5, c:7)", "(a * b + c) % 4 + (a * b + c) / 4 * 9 - (a * b) ^ c", false},
		{"more than 32 registers", "(a:3, b:5, c:7)",
			"a * b * c % 2 + a * b * c % 3 + a * b * c % 5 + a * b * c % 7 + a * b * c % 11 + a * b * c % 13 + (a + b) % 17 + (a + c) % 19 + (b + c) % 23 + (a ^ b ^ c) % 29 + (a * c - b) / 3 + (b * c - a) / 5 + (c * a - b * 2) / 7 + (a + b + c) * (a - b + c) % 31", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := indexspace.MustParse(tt.space)
			e := MustParseExpr(tt.expr)
			p, err := CompileExpr(e, sp)
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(p.Expr(), e) || !p.Space().Equal(sp) {
				t.Fatalf("Expr, Space = %v, %v; want %v, %v", p.Expr(), p.Space(), e, sp)
			}
			if strings.HasPrefix(tt.name, "more than 32") && len(p.p.init) <= 32 {
				t.Fatalf("%d registers; the case needs more than 32", len(p.p.init))
			}
			aff, ok := p.Affine()
			if ok != tt.affine {
				t.Fatalf("Affine: %v, want %v", ok, tt.affine)
			}
			if want, wantOK := AffineOf(e, sp); ok != wantOK || aff.Const != want.Const || !slices.Equal(aff.Coef, want.Coef) {
				t.Fatalf("Affine = %v, %v; AffineOf = %v, %v", aff, ok, want, wantOK)
			}
			tab, err := p.Tabulate(0)
			if err != nil {
				t.Fatal(err)
			}
			if len(tab) != sp.Size() {
				t.Fatalf("Tabulate: %d values for %d points", len(tab), sp.Size())
			}
			bound := p.Bounds()
			for flat := range sp.Size() {
				c, _ := sp.Coord(flat)
				env := map[string]int{}
				for _, name := range sp.Names() {
					r, _ := sp.Lookup(name)
					env[name] = r.Value(sp, c)
				}
				want, err := Eval(e, env)
				if err != nil {
					t.Fatal(err)
				}
				got, err := p.Eval(c)
				if err != nil || got != want {
					t.Fatalf("Eval(%v) = %d, %v; want %d", c, got, err, want)
				}
				if tab[flat] != want {
					t.Fatalf("Tabulate at %v = %d; want %d", c, tab[flat], want)
				}
				if ok && aff.At(c) != want {
					t.Fatalf("Affine.At(%v) = %d; want %d", c, aff.At(c), want)
				}
				if !bound.Contains(want) {
					t.Fatalf("value %d at %v outside Bounds %v", want, c, bound)
				}
			}
		})
	}
}

// TestCompileExprErrors checks that bad expressions and bad points fail with
// an error that says what.
func TestCompileExprErrors(t *testing.T) {
	sp := indexspace.MustParse("(m:4, k:(k0:2, k1:4))")
	compileTests := []struct {
		name string
		e    Expr
		want string
	}{
		{"unknown axis", MustParseExpr("m + q"), `indexmap: m + q over (m:4, k:(k0:2, k1:4)): unknown axis "q"`},
		{"overflow", MustParseExpr("m * 1000000000000 * 1000000000000"), "may exceed the integer range ±2^61"},
		{"nil", nil, "indexmap: compile of a nil expression"},
	}
	for _, tt := range compileTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileExpr(tt.e, sp)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CompileExpr error %v; want it to contain %q", err, tt.want)
			}
		})
	}
	evalTests := []struct {
		name, expr string
		coord      []int
		want       string
	}{
		{"too few coordinates", "m + k", []int{1, 1}, "indexmap: eval: 2 coordinates for the 3 leaf axes of (m:4, k:(k0:2, k1:4))"},
		{"too many coordinates", "m ^ k", []int{1, 1, 1, 1}, "indexmap: eval: 4 coordinates for the 3 leaf axes of (m:4, k:(k0:2, k1:4))"},
		{"coordinate too large", "m + k", []int{1, 2, 0}, "indexmap: coordinate k0=2 out of range [0, 2)"},
		{"negative coordinate", "m ^ k", []int{-1, 0, 0}, "indexmap: coordinate m=-1 out of range [0, 4)"},
	}
	for _, tt := range evalTests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := CompileExpr(MustParseExpr(tt.expr), sp)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := p.Eval(tt.coord); err == nil || err.Error() != tt.want {
				t.Fatalf("Eval(%v) = %d, %v; want error %q", tt.coord, v, err, tt.want)
			}
		})
	}
	p, _ := CompileExpr(MustParseExpr("m + k"), sp)
	if _, err := p.Tabulate(10); err == nil {
		t.Error("Tabulate of 32 points with a limit of 10 succeeded")
	}
}

// TestCompileExprNoAlloc checks that Eval of a small program does not
// allocate: storage evaluates it at every point of a tile.
func TestCompileExprNoAlloc(t *testing.T) {
	sp := indexspace.MustParse("(m:16, k:64)")
	for _, text := range []string{"m * 64 + k ^ m % 8 * 8", "m * 72 + k"} {
		p, err := CompileExpr(MustParseExpr(text), sp)
		if err != nil {
			t.Fatal(err)
		}
		c := []int{3, 5}
		if n := testing.AllocsPerRun(100, func() { _, _ = p.Eval(c) }); n != 0 {
			t.Errorf("%s: Eval allocates %v times per call", text, n)
		}
	}
}

// TestCompileExprAffineProgram checks that the Program CompileExpr builds
// for an affine expression is the one Compile builds for the same
// expression as the single result of a map over the space.
func TestCompileExprAffineProgram(t *testing.T) {
	for _, tt := range []struct{ name, space, expr string }{
		{"leaves", "(m:4, k:8)", "m * 8 + k - 3"},
		{"group", "(w:2, n:(n0:2, n1:4))", "n * 3 + w"},
		{"constant", "(m:4)", "7"},
		{"empty space", "()", "2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp := indexspace.MustParse(tt.space)
			e := MustParseExpr(tt.expr)
			got, err := CompileExpr(e, sp)
			if err != nil {
				t.Fatal(err)
			}
			m := Map{dom: Side{Space: sp}, results: []Expr{e}, bounds: []Interval{got.Bounds()}}
			want, err := m.Compile()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.p, want) {
				t.Fatalf("CompileExpr's program\n%+v\nCompile's\n%+v", *got.p, *want)
			}
		})
	}
}

// FuzzCompileExpr: for any expression text that parses and compiles over a
// small space with a group axis, Eval and Tabulate agree with the tree
// evaluator at every point; compiling never panics.
func FuzzCompileExpr(f *testing.F) {
	for _, s := range []string{
		"m * 8 + k", "(k - m * 3) / 4", "(k - m * 7) % 3", "n ^ n / 4 % 2", "m * k - n * 3 + 7",
		"-1 * m + (k ^ 5) / 2", "q + 1", "m * 4611686018427387904",
	} {
		f.Add(s)
	}
	sp := indexspace.MustParse("(m:3, k:5, n:(n0:2, n1:4))")
	f.Fuzz(func(t *testing.T, text string) {
		e, err := ParseExpr(text)
		if err != nil {
			return
		}
		p, err := CompileExpr(e, sp)
		if err != nil {
			return
		}
		tab, err := p.Tabulate(0)
		if err != nil {
			t.Fatal(err)
		}
		for flat := range sp.Size() {
			c, _ := sp.Coord(flat)
			env := map[string]int{}
			for _, name := range sp.Names() {
				r, _ := sp.Lookup(name)
				env[name] = r.Value(sp, c)
			}
			want, err := Eval(e, env)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := p.Eval(c); err != nil || got != want || tab[flat] != want {
				t.Fatalf("%s at %v: Eval %d (%v), Tabulate %d; want %d", e, c, got, err, tab[flat], want)
			}
		}
	})
}

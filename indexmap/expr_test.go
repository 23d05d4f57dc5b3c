package indexmap

import (
	"math/big"
	"strings"
	"testing"
)

// TestParseExprString checks the canonical text: fixed precedence (^ loosest,
// then + -, then * / %), left associativity, minimal parentheses.
func TestParseExprString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"axis", "lane", "lane"},
		{"constant", "42", "42"},
		{"negative constant", "-3", "-3"},
		{"negation of an axis", "-x", "-1 * x"},
		{"double negation folds", "--3", "3"},
		{"mul binds tighter than add", "a + b * c", "a + b * c"},
		{"redundant parentheses dropped", "(a * b) + ((c))", "a * b + c"},
		{"needed parentheses kept", "(a + b) * c", "(a + b) * c"},
		{"left associative sub", "a - b - c", "a - b - c"},
		{"right grouping kept", "a - (b - c)", "a - (b - c)"},
		{"right grouping of add kept", "a + (b + c)", "a + (b + c)"},
		{"xor loosest", "a ^ b + c", "a ^ b + c"},
		{"xor operand parenthesized", "(a ^ b) * 2", "(a ^ b) * 2"},
		{"div mod chain", "v / 2 % 2", "v / 2 % 2"},
		{"mod of product", "(a * 4) % 3", "a * 4 % 3"},
		{"product of mod", "a * (b % 3)", "a * (b % 3)"},
		{"mma fragment row", "lane / 4 + 8 * (v / 2 % 2)", "lane / 4 + 8 * (v / 2 % 2)"},
		{"mma fragment col", "lane%4*2+v%2+8*(v/4)", "lane % 4 * 2 + v % 2 + 8 * (v / 4)"},
		{"subtract negative", "x - -3", "x - -3"},
		{"swizzle", "x ^ x / 8 % 8", "x ^ x / 8 % 8"},
		{"whitespace", " \ta\n+\r1 ", "a + 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := ParseExpr(tc.in)
			if err != nil {
				t.Fatalf("ParseExpr(%q): %v", tc.in, err)
			}
			if got := e.String(); got != tc.want {
				t.Errorf("ParseExpr(%q).String() = %q, want %q", tc.in, got, tc.want)
			}
			back, err := ParseExpr(e.String())
			if err != nil || !Equal(back, e) {
				t.Errorf("round trip of %q: %v, %v", e, back, err)
			}
		})
	}
}

func TestParseExprErrors(t *testing.T) {
	tests := []struct{ name, in, wantSub string }{
		{"empty", "", "expected an axis"},
		{"division by axis", "x / y", "positive constant"},
		{"division by zero", "x / 0", "positive constant"},
		{"modulo by negative", "x % -4", "positive constant"},
		{"modulo by expression", "x % (2 * 2)", "positive constant"},
		{"unclosed", "(x + 1", "closing the parenthesis"},
		{"trailing", "x y", "unexpected"},
		{"dangling operator", "x +", "expected an axis"},
		{"number into name", "3x", "run into a name"},
		{"overflowing literal", "99999999999999999999", "out of range"},
		{"deep nesting", strings.Repeat("(", 500) + "x" + strings.Repeat(")", 500), "nested deeper"},
		{"unknown character", "x $ 1", "unexpected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseExpr(tc.in)
			if err == nil {
				t.Fatalf("ParseExpr(%q) succeeded", tc.in)
			}
			if !strings.Contains(err.Error(), tc.wantSub) || !strings.Contains(err.Error(), "offset") {
				t.Errorf("ParseExpr(%q) = %q, want an offset and %q", tc.in, err, tc.wantSub)
			}
		})
	}
}

// TestEvalSemantics checks / and % against floor division and the
// non-negative remainder computed with math/big (Euclidean for k > 0), and the
// precedence against explicit evaluation order.
func TestEvalSemantics(t *testing.T) {
	for a := -20; a <= 20; a++ {
		for k := 1; k <= 7; k++ {
			env := map[string]int{"a": a}
			q, _ := Eval(Quotient(V("a"), k), env)
			r, _ := Eval(Remainder(V("a"), k), env)
			bq, br := new(big.Int).DivMod(big.NewInt(int64(a)), big.NewInt(int64(k)), new(big.Int))
			if q != int(bq.Int64()) || r != int(br.Int64()) {
				t.Fatalf("%d / %d, %d %% %d = %d, %d; want %v, %v", a, k, a, k, q, r, bq, br)
			}
		}
	}
	env := map[string]int{"a": 5, "b": 3, "c": 6}
	for _, tc := range []struct {
		text string
		want int
	}{
		{"a + b * c", 5 + 3*6},
		{"a - b - c", (5 - 3) - 6},
		{"a ^ b + c", 5 ^ (3 + 6)},
		{"c / 3 % 2", (6 / 3) % 2},
		{"-a * b", -15},
		{"a * b / 2", 15 / 2},
	} {
		got, err := Eval(MustParseExpr(tc.text), env)
		if err != nil || got != tc.want {
			t.Errorf("Eval(%s) = %d, %v; want %d", tc.text, got, err, tc.want)
		}
	}
	if _, err := Eval(V("zz"), env); err == nil {
		t.Errorf("Eval of an unknown axis succeeded")
	}
}

func TestBounds(t *testing.T) {
	ranges := map[string]Interval{"x": {0, 7}, "y": {0, 3}, "z": {-4, 4}}
	lookup := func(n string) (Interval, bool) { iv, ok := ranges[n]; return iv, ok }
	tests := []struct {
		name, expr string
		want       Interval
	}{
		{"affine", "4 * x + y", Interval{0, 31}},
		{"negative coefficient", "3 - y", Interval{0, 3}},
		{"floor division", "(4 * x + y) / 4", Interval{0, 7}},
		{"mod within one period", "y % 4", Interval{0, 3}},
		{"mod across periods", "x % 4", Interval{0, 3}},
		{"xor of non-negatives", "x ^ y", Interval{0, 7}},
		{"signed product", "z * x", Interval{-28, 28}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Bounds(MustParseExpr(tc.expr), lookup)
			if err != nil || got != tc.want {
				t.Errorf("Bounds(%s) = %v, %v; want %v", tc.expr, got, err, tc.want)
			}
		})
	}
	if _, err := Bounds(MustParseExpr("x * 1000000000000 * 1000000000000"), lookup); err == nil {
		t.Errorf("Bounds of an overflowing product succeeded")
	}
	if _, err := Bounds(MustParseExpr("w"), lookup); err == nil {
		t.Errorf("Bounds of an unknown axis succeeded")
	}
}

func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"lane / 4 + 8 * (v / 2 % 2)", "a - (b - c)", "-x", "--3", "x ^ y * 2", "x % 0", "((x)", "-9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e, err := ParseExpr(text)
		if err != nil {
			return
		}
		back, err := ParseExpr(e.String())
		if err != nil {
			t.Fatalf("String %q of ParseExpr(%q) does not parse: %v", e, text, err)
		}
		if !Equal(back, e) || back.String() != e.String() {
			t.Fatalf("round trip of %q: %q != %q", text, back, e)
		}
	})
}

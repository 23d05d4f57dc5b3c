package tasks

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

var exprSizes = map[string]int64{"M": 4096, "N": 16, "K": 16384, "BN": 64}

func lookupIn(m map[string]int64) func(string) (int64, bool) {
	return func(name string) (int64, bool) { n, ok := m[name]; return n, ok }
}

func TestExprParseEval(t *testing.T) {
	for _, tc := range []struct {
		text, canonical string
		value           int64
	}{
		{"1", "1", 1},
		{"M/64 * N/64 * K/16", "M / 64 * N / 64 * K / 16", 0}, // N/64 is 0: "/" binds tighter than "*"
		{"(M * N) / 64", "(M * N) / 64", 1024},
		{"M * N / 64", "M * N / 64", 0},
		{"M / 8 / 2", "M / 8 / 2", 256},
		{"M / (8 / 2)", "M / (8 / 2)", 1024},
		{"M/16 * K/16 * cdiv(N, 64)", "M / 16 * K / 16 * cdiv(N, 64)", 256 * 1024},
		{"M / 16 * (N / 8) * (K / 16)", "M / 16 * N / 8 * K / 16", 256 * 2 * 1024},
		{"(M / 16) * (N / 8)", "M / 16 * N / 8", 512},
		{"M - (N - 8)", "M - (N - 8)", 4088},
		{"M - N - 8", "M - N - 8", 4072},
		{"max(N, BN) / min(N, BN)", "max(N, BN) / min(N, BN)", 4},
		{"K % 1000 + 1", "K % 1000 + 1", 385},
		{"cdiv(17, 16)", "cdiv(17, 16)", 2},
		{"  M  ", "M", 4096},
	} {
		e, err := ParseExpr(tc.text)
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		if e.String() != tc.canonical {
			t.Errorf("%q prints as %q, want %q", tc.text, e.String(), tc.canonical)
		}
		again, err := ParseExpr(e.String())
		if err != nil || again.String() != e.String() {
			t.Errorf("%q does not parse back: %v %q", e.String(), err, again.String())
		}
		v, err := e.Eval(lookupIn(exprSizes))
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
		} else if v != tc.value {
			t.Errorf("%q = %d, want %d", tc.text, v, tc.value)
		}
	}
}

func TestExprErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		kind ExprErrorKind
		msg  string
	}{
		{"", ExprSyntax, "want a number, a size name or '('"},
		{"M +", ExprSyntax, "offset 3"},
		{"(M", ExprSyntax, "closing the parenthesis"},
		{"cdiv(M)", ExprSyntax, "between cdiv's arguments"},
		{"M $ 2", ExprSyntax, `unexpected "$"`},
		{"-M", ExprSyntax, "offset 0"},
		{"99999999999999999999", ExprOverflow, "does not fit in int64"},
		{strings.Repeat("(", 33) + "1" + strings.Repeat(")", 33), ExprLimit, "nested deeper than 32"},
		{strings.Repeat("1+", MaxExprLength), ExprLimit, "more than the limit"},
	} {
		_, err := ParseExpr(tc.text)
		var ee *ExprError
		if !errors.As(err, &ee) || ee.Kind != tc.kind || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseExpr(%.40q) = %v, want kind %d with %q", tc.text, err, tc.kind, tc.msg)
		}
	}
	for _, tc := range []struct {
		text string
		kind ExprErrorKind
	}{
		{"Q * 2", ExprUnknownSize},
		{"N - M", ExprNegative},
		{"M / (N - 16)", ExprDivByZero},
		{"M % (N - 16)", ExprDivByZero},
		{"cdiv(M, N - 16)", ExprDivByZero},
		{"M * M * M * M * M * M", ExprOverflow},
		{"9223372036854775807 + 1", ExprOverflow},
	} {
		_, err := MustParseExpr(tc.text).Eval(lookupIn(exprSizes))
		var ee *ExprError
		if !errors.As(err, &ee) || ee.Kind != tc.kind {
			t.Errorf("%q: %v, want kind %d", tc.text, err, tc.kind)
		}
	}
}

// bigEval evaluates e exactly; ok is false where Eval must fail.
func bigEval(n *exprNode, sizes map[string]int64) (*big.Int, bool) {
	switch n.op {
	case 'n':
		return big.NewInt(n.num), true
	case 's':
		v, ok := sizes[n.name]
		return big.NewInt(v), ok
	}
	a, ok := bigEval(n.l, sizes)
	if !ok {
		return nil, false
	}
	b, ok := bigEval(n.r, sizes)
	if !ok {
		return nil, false
	}
	r := new(big.Int)
	switch n.op {
	case '+':
		r.Add(a, b)
	case '-':
		r.Sub(a, b)
	case '*':
		r.Mul(a, b)
	case 'm':
		r.Set(a)
		if b.Cmp(a) < 0 {
			r.Set(b)
		}
	case 'M':
		r.Set(a)
		if b.Cmp(a) > 0 {
			r.Set(b)
		}
	default:
		if b.Sign() == 0 {
			return nil, false
		}
		q, m := new(big.Int).QuoRem(a, b, new(big.Int))
		switch n.op {
		case '/':
			r = q
		case '%':
			r = m
		default:
			if m.Sign() != 0 {
				q.Add(q, big.NewInt(1))
			}
			r = q
		}
	}
	if r.Sign() < 0 || !r.IsInt64() {
		return nil, false
	}
	return r, true
}

// TestExprEvalByDefinition compares Eval with exact big-integer arithmetic on
// random expressions, many of which overflow.
func TestExprEvalByDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	sizes := map[string]int64{"A": 3, "B": 1 << 20, "C": 1 << 40, "D": math.MaxInt64 / 3}
	names := []string{"A", "B", "C", "D", "E"}
	ops := []string{"+", "-", "*", "/", "%"}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 || rng.IntN(3) == 0 {
			if rng.IntN(2) == 0 {
				return strconv.Itoa(rng.IntN(100))
			}
			return names[rng.IntN(len(names))]
		}
		switch rng.IntN(6) {
		case 0:
			return []string{"cdiv", "min", "max"}[rng.IntN(3)] + "(" + gen(depth-1) + ", " + gen(depth-1) + ")"
		case 1:
			return "(" + gen(depth-1) + ")"
		}
		return gen(depth-1) + " " + ops[rng.IntN(len(ops))] + " " + gen(depth-1)
	}
	agree, fail := 0, 0
	for range 5000 {
		text := gen(4)
		e, err := ParseExpr(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		want, ok := bigEval(e.root, sizes)
		got, err := e.Eval(lookupIn(sizes))
		if ok != (err == nil) || ok && want.Int64() != got {
			t.Fatalf("%q: Eval = %d, %v; exact = %v (defined %v)", text, got, err, want, ok)
		}
		if ok {
			agree++
		} else {
			fail++
		}
	}
	if agree == 0 || fail == 0 {
		t.Errorf("the random expressions do not cover both outcomes: %d defined, %d not", agree, fail)
	}
}

func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"M/64 * N/64 * K/16", "cdiv(N, 64)", "((1))", "M - N % 3", "max(A, min(B, 2))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e, err := ParseExpr(text)
		if err != nil {
			return
		}
		if e.Source() != text {
			t.Fatalf("%q parsed has the source %q", text, e.Source())
		}
		if e.Source() != text {
			t.Fatalf("%q parsed has the source %q", text, e.Source())
		}
		again, err := ParseExpr(e.String())
		if err != nil || again.String() != e.String() {
			t.Fatalf("%q prints as %q, which parses to %q (%v)", text, e.String(), again.String(), err)
		}
		sizes := map[string]int64{}
		for i, n := range e.Names() {
			sizes[n] = int64(i*977 + 1)
		}
		a, errA := e.Eval(lookupIn(sizes))
		b, errB := again.Eval(lookupIn(sizes))
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("%q and its canonical form evaluate differently: %d %v, %d %v", text, a, errA, b, errB)
		}
	})
}

// TestExprQuotesItsSource: String is canonical, but what a message quotes
// is the text as written, for its reader to find in the file; a built
// expression quotes its String. The graph's problems quote it too.
func TestExprQuotesItsSource(t *testing.T) {
	const src = "S/16  *D/0"
	e, err := ParseExpr(src)
	if err != nil {
		t.Fatal(err)
	}
	if e.Source() != src || e.String() != "S / 16 * D / 0" {
		t.Errorf("Source %q, String %q; want %q and the canonical %q", e.Source(), e.String(), src, "S / 16 * D / 0")
	}
	_, err = e.Eval(func(string) (int64, bool) { return 64, true })
	if err == nil || !strings.Contains(err.Error(), `"`+src+`"`) {
		t.Errorf("Eval: %v, want the source %q quoted", err, src)
	}
	if c := ConstExpr(3); c.Source() != "3" {
		t.Errorf("ConstExpr(3).Source() = %q, want 3", c.Source())
	}
	data := edit(t, func(g map[string]any) { obj(g, "tasks", "mma", "alternatives", 0)["multiplicity"] = "M/16  *  nosuch" })
	_, err = Load(data)
	if err == nil || !strings.Contains(err.Error(), `multiplicity "M/16  *  nosuch" uses the unknown size "nosuch"`) {
		t.Errorf("Load: %v, want the multiplicity quoted as written", err)
	}
}

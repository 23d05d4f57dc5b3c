package indexmap

import (
	"errors"
	"strings"
	"testing"
)

// chain is a map whose one result is a flat chain of n terms, m + 0 + … + 0.
func chain(n int) string {
	return "(m:4) -> (a:4) = (m" + strings.Repeat(" + 0", n-1) + ")"
}

// TestMaxTerms checks the cap on the terms of a text: a chain at the cap
// parses and evaluates; one term more is a LimitError at the offset of that
// term, not a stack overflow; a flat chain of 1.8 million terms (which
// overflowed the goroutine stack) is refused the same way; SetLimits raises
// the cap.
func TestMaxTerms(t *testing.T) {
	defer SetLimits(SetLimits(Limits{MaxTerms: 1000}))
	m, err := Parse(chain(1000))
	if err != nil {
		t.Fatalf("a chain at the cap: %v", err)
	}
	if img, ok, err := m.Eval([]int{3}); err != nil || !ok || img[0] != 3 {
		t.Fatalf("Eval = %v, %v, %v", img, ok, err)
	}
	for _, n := range []int{1001, 1_800_000} {
		text := chain(n)
		_, err := Parse(text)
		var le *LimitError
		if !errors.As(err, &le) || le.Terms != 1000 {
			t.Fatalf("%d terms: error %v, want a LimitError at 1000 terms", n, err)
		}
		// The offset is where the first term over the cap starts.
		if want := len(chain(1001)) - 2; le.Offset != want {
			t.Errorf("%d terms: offset %d, want %d", n, le.Offset, want)
		}
		if _, err := ParseExpr(text[strings.Index(text, "(m ")+1 : len(text)-1]); !errors.As(err, &le) {
			t.Errorf("ParseExpr of %d terms: error %v, want a LimitError", n, err)
		}
	}
	SetLimits(Limits{MaxTerms: 2000})
	if _, err := Parse(chain(1001)); err != nil {
		t.Errorf("after raising the cap to 2000: %v", err)
	}
}

// TestComposeMaxTerms checks that a composite is held to the cap: an outer
// map naming its axis k times, composed with an inner result of n terms, has
// k·n terms once printed, though it shares one inner subtree.
func TestComposeMaxTerms(t *testing.T) {
	defer SetLimits(SetLimits(Limits{MaxTerms: 1000}))
	outer := MustParse("(b:4) -> (c:4) = (b" + strings.Repeat(" + 0 * b", 49) + ")") // b named 50 times, 99 terms
	for _, tt := range []struct {
		innerTerms int
		fits       bool
	}{{10, true}, {25, false}} {
		inner := MustParse("(a:4) -> (b:4) = (a" + strings.Repeat(" + 0", tt.innerTerms-1) + ")")
		r, err := Compose(outer, inner)
		var le *LimitError
		switch {
		case tt.fits && err != nil:
			t.Errorf("inner of %d terms: %v", tt.innerTerms, err)
		case tt.fits && termsUpTo(r.Result(0), 1<<30) != 49+50*tt.innerTerms:
			t.Errorf("inner of %d terms: the composite has %d terms", tt.innerTerms, termsUpTo(r.Result(0), 1<<30))
		case !tt.fits && !errors.As(err, &le):
			t.Errorf("inner of %d terms (%d composite terms): error %v, want a LimitError", tt.innerTerms, 49+50*tt.innerTerms, err)
		}
	}
}

// TestMaxPoints checks that the cap on enumerated points decides which maps
// are enumerated, and that raising it lets a larger domain be decided.
func TestMaxPoints(t *testing.T) {
	defer SetLimits(SetLimits(Limits{MaxPoints: 64}))
	m := MustParse("(a:8, b:16) -> (x:128) = (a * 16 + b) if a < 7")
	if _, err := m.Decide(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("128 points over a cap of 64: error %v, want ErrTooLarge", err)
	}
	SetLimits(Limits{MaxPoints: 128})
	p, err := m.Decide()
	if err != nil || p.Method != ByEnumeration || !p.Injective || p.Surjective {
		t.Fatalf("Decide = %+v, %v", p, err)
	}
}

// TestMaxPointsTypedMap checks that a typed map whose kind rule needs an
// enumeration past the cap is refused with a KindError that says it cannot
// be checked and unwraps to ErrTooLarge (so that a caller can say which
// cap to raise), and is accepted under a cap that takes its domain.
func TestMaxPointsTypedMap(t *testing.T) {
	defer SetLimits(SetLimits(Limits{MaxPoints: 64}))
	const text = "logical(a:8, b:16) -> physical(x:128) = (a * 16 + b) if a < 7"
	_, err := Parse(text)
	var ke *KindError
	if !errors.As(err, &ke) || ke.Rule != "cannot be checked" || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("128 points over a cap of 64: error %v, want a KindError that cannot be checked, unwrapping to ErrTooLarge", err)
	}
	SetLimits(Limits{MaxPoints: 128})
	if _, err := Parse(text); err != nil {
		t.Fatalf("under a cap of 128: %v", err)
	}
}

// FuzzMaxTerms parses arbitrary text under a cap of 16 terms: a map that
// parses has at most 16 terms in its results and guard, and a LimitError
// points inside the text.
func FuzzMaxTerms(f *testing.F) {
	for _, s := range []string{
		chain(16), chain(17), "(a:4, b:4) -> (c:16) = (4 * a + b) if a + b < 5 && a != 2",
		"(x:8) -> (y:8) = (x ^ x / 2 % 2 + 0 * x + 0 * x + 0 * x + 0 * x + 0 * x)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		defer SetLimits(SetLimits(Limits{MaxTerms: 16}))
		m, err := Parse(text)
		var le *LimitError
		switch {
		case errors.As(err, &le):
			if le.Offset < 0 || le.Offset > len(text) || le.Terms != 16 {
				t.Fatalf("%q: %v", text, err)
			}
		case err == nil:
			n := 0
			for _, e := range m.Results() {
				n += termsUpTo(e, 1<<20)
			}
			for _, c := range m.Guard().Terms() {
				n += termsUpTo(c.X, 1<<20) + termsUpTo(c.Y, 1<<20)
			}
			if n > 16 {
				t.Fatalf("%q parsed with %d terms over a cap of 16", text, n)
			}
		}
	})
}

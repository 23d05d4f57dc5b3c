package indexmap

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// simplifyRanges are the axis ranges of TestSimplifyRules.
var simplifyRanges = map[string]Interval{"x": {0, 7}, "y": {0, 3}, "z": {0, 15}, "s": {-4, 4}}

func lookupRange(name string) (Interval, bool) {
	iv, ok := simplifyRanges[name]
	return iv, ok
}

func TestSimplifyRules(t *testing.T) {
	tests := []struct {
		name, in, want, rule string
	}{
		{"fold constants", "3 * 4 + x", "12 + x", "fold-constant"},
		{"xor with zero", "x ^ 0", "x", "xor-zero"},
		{"xor with itself", "(x + 1) ^ (x + 1)", "0", "xor-self"},
		{"xor of disjoint bits", "8 * x ^ y", "8 * x + y", "xor-disjoint-bits"},
		{"division by one", "x / 1", "x", "div-one"},
		{"quotient in range", "y / 4", "0", "div-in-range"},
		{"quotient of a quotient", "z / 2 / 4", "z / 8", "div-div"},
		{"common factor of a quotient", "(4 * x + 8 * z) / 8", "z + x / 2", "div-common-factor"},
		{"(4x+y)/4 example", "(4 * x + y) / 4", "x", "div-small-remainder"},
		{"split off multiples", "(8 * x + z) / 4", "2 * x + z / 4", "div-split-multiple"},
		{"small remainder in a quotient", "(2 * x + y % 2) / 8", "x / 4", "div-small-remainder"},
		{"small remainder in a remainder", "(4 * z + y) % 16", "4 * (z % 4) + y", "mod-small-remainder"},
		{"quotient of a remainder", "z % 8 / 2", "z / 2 % 4", "div-of-mod"},
		{"modulo one", "x % 1", "0", "mod-one"},
		{"remainder in range", "y % 4", "y", "mod-in-range"},
		{"shifted remainder in range", "(y + 4) % 4", "y", "mod-in-range"},
		{"remainder of a remainder", "z % 8 % 4", "z % 4", "mod-mod"},
		{"remainder of a smaller remainder", "z % 2 % 4", "z % 2", "mod-in-range"},
		{"common factor of a remainder", "4 * z % 16", "4 * (z % 4)", "mod-common-factor"},
		{"drop multiples in a remainder", "(8 * x + z) % 8", "z % 8", "mod-drop-multiple"},
		{"recombine quotient and remainder", "4 * (z / 4) + z % 4", "z", "recombine-div-mod"},
		{"recombine nested", "8 * (z / 8) + 2 * (z / 2 % 4)", "2 * (z / 2)", "recombine-div-mod"},
		{"like terms", "x + 2 * x - 3 + y * 2", "-3 + 3 * x + 2 * y", "linear-normal-form"},
		{"negative coefficient", "3 - 1 * y", "3 - y", "linear-normal-form"},
		{"negative leading term", "0 - 2 * s", "-2 * s", "linear-normal-form"},
		{"negative floor division", "(s - 8) / 4", "-2 + s / 4", "div-split-multiple"},
		{"already simple", "x / 2 % 2", "x / 2 % 2", ""},
	}
	fired := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := MustParseExpr(tc.in)
			got, names := SimplifyExprTrace(in, lookupRange)
			if got.String() != tc.want {
				t.Errorf("Simplify(%s) = %s, want %s (rules %v)", tc.in, got, tc.want, names)
			}
			if tc.rule != "" && !slices.Contains(names, tc.rule) {
				t.Errorf("rule %s did not fire; fired %v", tc.rule, names)
			}
			if tc.rule == "" && len(names) > 0 {
				t.Errorf("rules fired on a simple expression: %v", names)
			}
			for _, n := range names {
				fired[n] = true
			}
			checkSameValues(t, in, got)
		})
	}
	for _, name := range RuleNames() {
		if !fired[name] {
			t.Errorf("rule %s is not exercised by any case", name)
		}
	}
}

// checkSameValues compares two expressions over every point of the ranges of
// x, y, z and s.
func checkSameValues(t *testing.T, a, b Expr) {
	t.Helper()
	env := map[string]int{}
	for x := 0; x <= 7; x++ {
		for y := 0; y <= 3; y++ {
			for z := 0; z <= 15; z++ {
				for s := -4; s <= 4; s++ {
					env["x"], env["y"], env["z"], env["s"] = x, y, z, s
					va, _ := Eval(a, env)
					vb, _ := Eval(b, env)
					if va != vb {
						t.Fatalf("%s = %d but %s = %d at %v", a, va, b, vb, env)
					}
				}
			}
		}
	}
}

func TestSimplifyMap(t *testing.T) {
	tests := []struct{ name, in, want, rule string }{
		{"guard narrows ranges", "(m:16) -> (r:4) = (m / 4) if m < 4", "(m:16) -> (r:4) = (0) if m < 4", "div-in-range"},
		{"true guard term dropped", "(x:8) -> (r:8) = (x) if x < 8 && x != 3", "(x:8) -> (r:8) = (x) if x != 3", "guard-always-true"},
		{"reversed guard comparison", "(m:16) -> (r:4) = (m / 8) if 8 > m", "(m:16) -> (r:4) = (0) if 8 > m", "div-in-range"},
		{"group axis", "(g:(a:2, b:4)) -> (r:8) = (g / 4 * 4 + g % 4)", "(g:(a:2, b:4)) -> (r:8) = (g)", "recombine-div-mod"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := MustParse(tc.in)
			got, names := m.SimplifyTrace()
			if got.String() != tc.want {
				t.Errorf("Simplify = %s\nwant       %s", got, tc.want)
			}
			if !slices.Contains(names, tc.rule) {
				t.Errorf("rule %s did not fire: %v", tc.rule, names)
			}
			checkSameMap(t, m, got)
		})
	}
}

// checkSameMap checks that b has a's image wherever a's guard holds, and that
// b's guard holds exactly where a's does.
func checkSameMap(t *testing.T, a, b Map) {
	t.Helper()
	sp := a.Domain().Space
	for i := 0; i < sp.Size(); i++ {
		c, _ := sp.Coord(i)
		va, oka, _ := a.evalTree(c) // the tree walk against the compiled evaluator
		vb, okb, _ := b.Eval(c)
		if oka != okb {
			t.Fatalf("guard differs at %v: %s vs %s", c, a, b)
		}
		if oka && !slices.Equal(va, vb) {
			t.Fatalf("at %v: %v from %s but %v from %s", c, va, a, vb, b)
		}
	}
}

// randomExpr builds a random expression over the axes of fuzzDomain.
func randomExpr(rng *rand.Rand, depth int) string {
	if depth == 0 || rng.IntN(4) == 0 {
		if rng.IntN(3) == 0 {
			return fmt.Sprint(rng.IntN(17) - 8)
		}
		return []string{"a", "b", "c", "c0", "c1"}[rng.IntN(5)]
	}
	switch rng.IntN(6) {
	case 0:
		return "(" + randomExpr(rng, depth-1) + " + " + randomExpr(rng, depth-1) + ")"
	case 1:
		return "(" + randomExpr(rng, depth-1) + " - " + randomExpr(rng, depth-1) + ")"
	case 2:
		return "(" + randomExpr(rng, depth-1) + " * " + randomExpr(rng, depth-1) + ")"
	case 3:
		return "(" + randomExpr(rng, depth-1) + " / " + fmt.Sprint(1+rng.IntN(9)) + ")"
	case 4:
		return "(" + randomExpr(rng, depth-1) + " % " + fmt.Sprint(1+rng.IntN(9)) + ")"
	default:
		return "(" + randomExpr(rng, depth-1) + " ^ " + randomExpr(rng, depth-1) + ")"
	}
}

const fuzzDomain = "(a:4, b:3, c:(c0:2, c1:3))"

func randomMap(rng *rand.Rand) string {
	text := fmt.Sprintf("%s -> (r:1, q:1) = (%s, %s)", fuzzDomain, randomExpr(rng, 4), randomExpr(rng, 3))
	switch rng.IntN(3) {
	case 0:
		text += fmt.Sprintf(" if a < %d", rng.IntN(5))
	case 1:
		text += fmt.Sprintf(" if %d <= c && %s != 2", rng.IntN(6), randomExpr(rng, 2))
	}
	return text
}

// checkSimplifySound simplifies one random map and compares it with the
// original at every point where the guard holds.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

func checkSimplifySound(t *testing.T, seed1, seed2 uint64) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	text := randomMap(rng)
	m, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	s := m.Simplify()
	checkSameMap(t, m, s)
	back, err := Parse(s.String())
	if err != nil || !back.Equal(s) {
		t.Fatalf("simplified map %s does not round-trip: %v", s, err)
	}
	if again := s.Simplify(); !again.Equal(s) {
		t.Fatalf("Simplify is not idempotent:\n%s\n%s", s, again)
	}
}

func TestSimplifySoundRandom(t *testing.T) {
	for i := uint64(0); i < 3000; i++ {
		checkSimplifySound(t, i, 7)
	}
}

func FuzzSimplify(f *testing.F) {
	for i := uint64(0); i < 8; i++ {
		f.Add(i, i*31)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) { checkSimplifySound(t, a, b) })
}

func TestRuleTableDocumented(t *testing.T) {
	for _, r := range rules {
		if r.name == "" || r.rewrite == "" || strings.ContainsAny(r.name, " _") {
			t.Errorf("rule %q has no rewrite text or a bad name", r.name)
		}
	}
}

package indexmap

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// oracle decides the properties by the definitions, with Eval and Go maps.
func oracle(t *testing.T, m Map) Properties {
	t.Helper()
	sp, cod := m.Domain().Space, m.Codomain().Space
	bc := m.broadcastLeaves()
	p := Properties{InRange: true, Injective: true, AliasFree: true}
	images := map[string][]int{} // image → first point
	for i := 0; i < sp.Size(); i++ {
		c, _ := sp.Coord(i)
		out, ok, err := m.evalTree(c)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		for j, v := range out {
			if v < 0 || v >= cod.Leaf(j).Size {
				p.InRange = false
			}
		}
		key := fmt.Sprint(out)
		prev, seen := images[key]
		if !seen {
			images[key] = c
			continue
		}
		p.Injective = false
		for l := range c {
			if c[l] != prev[l] && !bc[l] {
				p.AliasFree = false
			}
		}
	}
	p.Surjective = p.InRange && len(images) == cod.Size()
	p.DenseBijection = p.InRange && p.AliasFree && p.Surjective
	return p
}

func sameVerdicts(a, b Properties) bool {
	return a.InRange == b.InRange && a.Injective == b.Injective && a.AliasFree == b.AliasFree &&
		a.Surjective == b.Surjective && a.DenseBijection == b.DenseBijection
}

func TestDecideAgreesWithOracle(t *testing.T) {
	tests := []struct {
		name, text string
		method     Method
	}{
		{"row-major identity", "(i:4, j:8) -> (x:32) = (8 * i + j)", ByStride},
		{"column-major", "(i:4, j:8) -> (x:32) = (i + 4 * j)", ByStride},
		{"two-leaf codomain transpose", "(i:4, j:8) -> (a:8, b:4) = (j, i)", ByStride},
		{"padded", "(i:4, j:8) -> (x:40) = (10 * i + j)", ByStride},
		{"gapped but injective", "(i:2, j:2) -> (x:8) = (i + 3 * j)", ByStride},
		{"overlapping", "(i:3, j:2) -> (x:8) = (i + 2 * j)", ByEnumeration},
		{"negative stride", "(b:4) -> (x:4) = (3 - b)", ByStride},
		{"shifted", "(b:4) -> (x:8) = (b + 2)", ByStride},
		{"out of range", "(b:4) -> (x:4) = (b + 1)", ByEnumeration},
		{"reaches the codomain and leaves it", "(b:4) -> (x:3) = (b - 1)", ByEnumeration},
		{"zero stride", "(i:4, j:2) -> (x:4) = (i)", ByEnumeration},
		{"broadcast", "(i:4, j:2) -> (x:4) = (i) broadcast(j)", ByStride},
		{"swizzle", "(x:64) -> (y:64) = (x ^ x / 8 % 8)", ByEnumeration},
		{"mma fragment", "(lane:32, v:8) -> (m:16, k:16) = (lane / 4 + 8 * (v / 2 % 2), lane % 4 * 2 + v % 2 + 8 * (v / 4))", ByEnumeration},
		{"guarded", "(m:12) -> (x:10) = (m) if m < 10", ByEnumeration},
		{"non-layout composite", "(i:4) -> (x:5) = (i % 3 + 4 * (i / 3))", ByEnumeration},
		{"group reference", "(g:(a:2, b:3)) -> (x:6) = (g)", ByStride},
		{"sparse codomain", "(i:4) -> (x:100000) = (i * i * 1000)", ByEnumeration},
		{"sparse codomain collision", "(i:4) -> (x:100000) = (i % 2 * 5000)", ByEnumeration},
		{"sparse codomain out of range", "(i:4) -> (x:100000) = (i * i * 10000 - 1)", ByEnumeration},
		// Images outside the codomain are told apart by their index in the
		// box of the results' bounds.
		{"all out of range, injective", "(a:4, b:4) -> (c:2, d:2) = (a + 7, b - 9) if a >= 0", ByEnumeration},
		{"all out of range, colliding", "(a:4, b:4) -> (c:2, d:2) = (a + 7, b % 2 - 9) if a >= 0", ByEnumeration},
		{"all out of range, broadcast", "(a:4, b:4) -> (c:2) = (a + 7) if b >= 0 broadcast(b)", ByEnumeration},
		{"out of range beyond the bounds box of ints", "(a:2, b:2) -> (c:2, d:2) = (a * 1099511627776 + 5, b * 1099511627776 + 3) if a >= 0", ByEnumeration},
		{"some out of range, colliding with each other", "(a:8) -> (c:4) = (a % 6)", ByEnumeration},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := MustParse(tc.text)
			got, err := m.Decide()
			if err != nil {
				t.Fatal(err)
			}
			want := oracle(t, m)
			if !sameVerdicts(got, want) {
				t.Errorf("Decide = %+v\noracle  %+v", got, want)
			}
			if got.Method != tc.method {
				t.Errorf("method %v, want %v", got.Method, tc.method)
			}
			if !got.DenseBijection && got.Witness == "" {
				t.Errorf("no witness for a failed property")
			}
			enum, err := m.decideByEnumeration()
			if err != nil || !sameVerdicts(enum, want) {
				t.Errorf("enumeration = %+v, %v; oracle %+v", enum, err, want)
			}
		})
	}
}

// TestStrideCriterionRandom compares the stride criterion with enumeration on
// 400 random affine maps (the evaluation of Lemma 1 in "A Simplified Layout
// Algebra for GPU Kernels").
func TestStrideCriterionRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	byStride := 0
	for n := 0; n < 400; n++ {
		rank := 1 + rng.IntN(3)
		var axes, terms []string
		size := 1
		for i := 0; i < rank; i++ {
			s := 1 + rng.IntN(4)
			size *= s
			axes = append(axes, fmt.Sprintf("a%d:%d", i, s))
			terms = append(terms, fmt.Sprintf("%d * a%d", rng.IntN(9)-2, i))
		}
		text := fmt.Sprintf("(%s) -> (x:%d) = (%d + %s)", strings.Join(axes, ", "), size+rng.IntN(3)*8, rng.IntN(3), strings.Join(terms, " + "))
		m, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		s, ok := m.decideByStride()
		if !ok {
			continue
		}
		byStride++
		e, err := m.decideByEnumeration()
		if err != nil || !sameVerdicts(s, e) {
			t.Fatalf("%s: stride %+v, enumeration %+v", text, s, e)
		}
	}
	if byStride < 100 {
		t.Errorf("only %d of 400 random maps were decided by stride", byStride)
	}
}

func TestKindRules(t *testing.T) {
	tests := []struct{ name, text, wantErr string }{
		{"dense bijection into logical", mmaA, ""},
		{"not dense into logical", "thread-value(t:4) -> logical(m:8) = (2 * t)", "must be a dense bijection"},
		{"collision into thread-value", "logical(m:4) -> thread-value(t:4) = (m / 2)", "must be a dense bijection"},
		{"alias-free into physical", "logical(m:4, n:4) -> physical(a:32) = (8 * m + n)", ""},
		{"aliasing into physical", "logical(m:4, n:4) -> physical(a:32) = (m + n)", "alias-free"},
		{"out of codomain", "logical(m:4) -> physical(a:4) = (m + 1)", "stay in its codomain"},
		{"zero stride rejected", "thread-value(w:2, t:4) -> physical(a:4) = (t)", "zero stride"},
		{"declared broadcast", "thread-value(w:2, t:4) -> physical(a:4) = (t) broadcast(w)", ""},
		{"broadcast into logical", "thread-value(w:2, t:4) -> logical(m:4) = (t) broadcast(w)", ""},
		{"result uses a broadcast axis", "thread-value(w:2, t:4) -> physical(a:8) = (t + 4 * w) broadcast(w)", "declared broadcast"},
		{"swizzle", "physical(x:64) -> physical(y:64) = (x ^ x / 8 % 8)", ""},
		{"out of physical", "physical(x:4) -> logical(m:4) = (x)", "nothing maps out of physical"},
		{"guarded swizzle", "physical(x:4) -> physical(y:4) = (x) if x < 2", "unguarded bijection"},
		{"non-bijective swizzle", "physical(x:4) -> physical(y:4) = (x / 2)", "must be a bijection"},
		{"padding guard into physical", "logical(m:12) -> physical(a:10) = (m) if m < 10", ""},
		{"untyped anything goes", "(m:4) -> (a:1) = (m - 7)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.text)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Parse: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Errorf("Parse succeeded, want error with %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Errorf("Parse error %q, want %q", err, tc.wantErr)
			}
		})
	}
}

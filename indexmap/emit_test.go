package indexmap

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomBijection returns a random logical -> logical dense bijection over a
// random shape: the compact strides of a random permutation of the modes.
func randomBijection(rng *rand.Rand) (Map, []int) {
	rank := 2 + rng.IntN(2)
	sizes := make([]int, rank)
	for i := range sizes {
		sizes[i] = []int{2, 3, 4}[rng.IntN(3)]
	}
	order := rng.Perm(rank)
	strides := make([]int, rank)
	s := 1
	for _, i := range order {
		strides[i] = s
		s *= sizes[i]
	}
	var axes, terms []string
	for i := range sizes {
		axes = append(axes, fmt.Sprintf("d%d:%d", i, sizes[i]))
		terms = append(terms, fmt.Sprintf("%d * d%d", strides[i], i))
	}
	text := fmt.Sprintf("logical(%s) -> logical(x:%d) = (%s)", strings.Join(axes, ", "), s, strings.Join(terms, " + "))
	return MustParse(text), sizes
}

// randomStorage returns a random padded storage map of a space of n points,
// reshaped into two or three modes (row-major over the modes, each row
// padded), optionally swizzled.
func randomStorage(rng *rand.Rand, n int, swizzle bool) Map {
	var shape []int
	rest := n
	for _, f := range []int{4, 3, 2} {
		if rest%f == 0 && rest > f && rng.IntN(2) == 0 {
			shape = append(shape, f)
			rest /= f
		}
	}
	shape = append(shape, rest)
	strides := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = s
		s = s*shape[i] + rng.IntN(3) // padding
	}
	var axes, terms []string
	for i, k := range shape {
		axes = append(axes, fmt.Sprintf("s%d:%d", i, k))
		terms = append(terms, fmt.Sprintf("%d * s%d", strides[i], i))
	}
	e := strings.Join(terms, " + ")
	cosize := s + 8
	if swizzle {
		e = fmt.Sprintf("(%s) ^ (%s) / 4 %% 2", e, e)
		cosize = 2*s + 8
	}
	return MustParse(fmt.Sprintf("logical(%s) -> physical(a:%d) = (%s)", strings.Join(axes, ", "), cosize, e))
}

// TestEmitRandomComposites composes random dense bijections with random
// padded storage maps (the evaluation of "A Simplified Layout Algebra for GPU Kernels", Section 7) and checks that Emit keeps
// every value, and that what it emits as a layout reads back through ToCute
// as the same function.
func TestEmitRandomComposites(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, swizzle := range []bool{false, true} {
		layouts, total, divLiteral, divEmitted := 0, 0, 0, 0
		for n := 0; n < 300; n++ {
			b, sizes := randomBijection(rng)
			size := 1
			for _, s := range sizes {
				size *= s
			}
			a := randomStorage(rng, size, swizzle)
			r, err := Compose(a, b)
			if err != nil {
				t.Fatalf("Compose(%s, %s): %v", a, b, err)
			}
			e, forms := r.Emit()
			want := flatImages(t, r)
			if got := flatImages(t, e); !slices.Equal(got, want) {
				t.Fatalf("Emit(%s) = %s changes values", r, e)
			}
			total++
			divLiteral += countDivMod(r.Result(0))
			divEmitted += countDivMod(e.Result(0))
			_, affine := AffineOf(e.Result(0), e.Domain().Space)
			if forms[0] == AsLayout || affine {
				layouts++
				l, err := ToCute(e)
				if err != nil {
					t.Fatalf("ToCute(%s): %v", e, err)
				}
				if !slices.Equal(l.Table(), want) {
					t.Fatalf("ToCute(%s) = %s, values %v, want %v", e, l, l.Table(), want)
				}
			} else if _, err := ToCute(e); err == nil {
				t.Fatalf("%s is not emitted as a layout but ToCute accepts it", e)
			}
		}
		t.Logf("swizzle=%v: %d of %d composites are layouts of a refinement; divisions and remainders: %d in the literal composites, %d emitted",
			swizzle, layouts, total, divLiteral, divEmitted)
		if !swizzle && layouts == 0 {
			t.Errorf("no composite was a layout")
		}
	}
}

func countDivMod(e Expr) int {
	n := 0
	walk(e, func(x Expr) {
		if b, ok := x.(*Binary); ok && (b.op == Div || b.op == Mod) {
			n++
		}
	})
	return n
}

package storage

import (
	"testing"

	"github.com/cklplan/cklplan/indexmap"
)

// TestCompile checks the compiled evaluator and the affine reading against
// indexmap's Eval at every point, on expressions using every operator and
// group axes.
func TestCompile(t *testing.T) {
	tests := []struct {
		name, m string
		affine  bool
	}{
		{"affine over leaves", "(m:4, k:8) -> (a:64) = (m * 8 + k - 3 + 2 * (k - m))", true},
		{"group axis", "(w:2, n:(n0:2, n1:4)) -> (a:64) = (n * 3 + w)", true},
		{"constant times sum", "(m:4, k:8) -> (a:64) = (3 * (m + k * 2))", true},
		{"floor division of negatives", "(m:4, k:8) -> (a:64) = ((k - m * 3) / 4)", false},
		{"non-negative modulo", "(m:4, k:8) -> (a:64) = ((k - m * 3) % 5)", false},
		{"xor", "(m:4, k:8) -> (a:64) = (m * 8 + k ^ m % 4 * 2)", false},
		{"product of axes", "(m:4, k:8) -> (a:64) = (m * k)", false},
		{"group in a swizzle", "(w:2, n:(n0:2, n1:4)) -> (a:64) = (n ^ n / 4 % 2)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := indexmap.MustParse(tt.m)
			sp := m.Domain().Space
			ev, err := compile(m.Result(0), sp)
			if err != nil {
				t.Fatal(err)
			}
			aff, ok := affineOf(m.Result(0), sp)
			if ok != tt.affine {
				t.Fatalf("affineOf = %v, want %v", ok, tt.affine)
			}
			for flat := range sp.Size() {
				c, _ := sp.Coord(flat)
				want, _, err := m.Eval(c)
				if err != nil {
					t.Fatal(err)
				}
				if got := ev(c); got != want[0] {
					t.Fatalf("compiled at %v = %d, want %d", c, got, want[0])
				}
				if ok && aff.eval(c) != want[0] {
					t.Fatalf("affine at %v = %d, want %d", c, aff.eval(c), want[0])
				}
			}
		})
	}
	if _, err := compile(indexmap.V("q"), indexmap.MustParse("(k:2) -> (a:2) = (k)").Domain().Space); err == nil {
		t.Error("compile of an unknown axis: no error")
	}
}

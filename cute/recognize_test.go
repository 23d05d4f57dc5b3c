package cute

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with the file testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update to accept it):\n%s", path, got)
	}
}

func TestRecognize(t *testing.T) {
	tests := []struct {
		name   string
		values []int
		want   string // "" when not a layout
	}{
		{"Tiling Is Function Composition: non-representable composite", []int{0, 1, 2, 4}, ""},
		{"Tiling Is Function Composition: (2,2):(1,4)", []int{0, 1, 4, 5}, "(2,2):(1,4)"},
		{"identity coalesces to one mode", []int{0, 1, 2, 3, 4, 5}, "6:1"},
		{"single point", []int{0}, "1:0"},
		{"constant zero is a broadcast", []int{0, 0, 0}, "3:0"},
		{"leading broadcast mode", []int{0, 0, 5, 5}, "(2,2):(0,5)"},
		{"negative stride", []int{0, -1, -2}, "3:-1"},
		{"negative outer stride", []int{0, 1, -3, -2}, "(2,2):(1,-3)"},
		{"CuTe doc composite", []int{0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42}, "(2,2,3):(24,2,8)"},
		{"three modes", []int{0, 8, 16, 24, 32, 40, 2, 10, 18, 26, 34, 42}, "(6,2):(8,2)"},
		{"nonzero origin", []int{1, 2}, ""},
		{"empty", nil, ""},
		{"jump at a non-divisor", []int{0, 1, 2, 7, 8, 9}, "(3,2):(1,7)"},
		{"jump at 4 of 6 is no chain", []int{0, 1, 2, 3, 9, 10}, ""},
		{"three-mode layout", []int{0, 1, 5, 6, 7, 8, 12, 13, 14, 15, 19, 20}, "(2,2,3):(1,5,7)"},
		{"jump at 3 after a chain point 2", []int{0, 1, 3, 5, 6, 8}, ""},
		{"beyond range", []int{0, 1 << 61}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := Recognize(tt.values)
			got := ""
			if ok {
				got = l.String()
			}
			if got != tt.want {
				t.Fatalf("Recognize(%v) = %q, want %q", tt.values, got, tt.want)
			}
			if ok && !slices.Equal(l.Table(), tt.values) {
				t.Fatalf("Recognize(%v) = %v, whose table %v differs", tt.values, l, l.Table())
			}
		})
	}
}

// chains returns every chain 1 = w_1 | w_2 | … | w_k | n with w_k < n.
func chains(n int) [][]int {
	var out [][]int
	var walk func(c []int)
	walk = func(c []int) {
		out = append(out, slices.Clone(c))
		last := c[len(c)-1]
		for w := 2 * last; w < n; w += last {
			if n%w == 0 {
				walk(append(c, w))
			}
		}
	}
	walk([]int{1})
	return out
}

// oracle decides by brute force whether g is a flat layout of size len(g): it
// tries every chain of divisors, forces the strides g(w_j) and compares every
// point. It returns the intersection of the chains that work, which Theorem 1
// says is itself a working chain, the coarsest.
func oracle(g []int) ([]int, bool) {
	n := len(g)
	var good [][]int
	for _, c := range chains(n) {
		shape, stride := make([]int, len(c)), make([]int, len(c))
		for j, w := range c {
			next := n
			if j+1 < len(c) {
				next = c[j+1]
			}
			shape[j], stride[j] = next/w, g[w]
		}
		l := MustNew(Ints(shape...), Ints(stride...))
		if slices.Equal(l.Table(), g) {
			good = append(good, c)
		}
	}
	if len(good) == 0 {
		return nil, false
	}
	meet := good[0]
	for _, c := range good[1:] {
		meet = slices.DeleteFunc(slices.Clone(meet), func(w int) bool { return !slices.Contains(c, w) })
	}
	return meet, true
}

// chainOf returns the chain of a flat layout: the prefix products of its shape.
func chainOf(l Layout) []int {
	ns := l.FlatShape()
	c := make([]int, len(ns))
	w := 1
	for i, n := range ns {
		c[i] = w
		w *= n
	}
	return c
}

// TestRecognizeExhaustive reproduces the evaluation claim of "A Simplified
// Layout Algebra for GPU Kernels" (Section 7): over every g:[0,n)→[0,k) with g(0)=0, n ∈ {2,3,4,6,8,9,12}, k = 5 for
// n ≤ 4 and 3 otherwise — 186,293 functions — the scan and the brute-force
// oracle agree on the verdict and on the chain, and both accept exactly 58.
func TestRecognizeExhaustive(t *testing.T) {
	total, accepted := 0, 0
	var list strings.Builder
	for _, n := range []int{2, 3, 4, 6, 8, 9, 12} {
		k := 3
		if n <= 4 {
			k = 5
		}
		g := make([]int, n)
		for {
			total++
			l, ok := Recognize(g)
			want, wantOK := oracle(g)
			if ok != wantOK {
				t.Fatalf("g = %v: scan says %v, oracle says %v", g, ok, wantOK)
			}
			if ok {
				accepted++
				fmt.Fprintf(&list, "%v %v\n", g, l)
				if got := chainOf(l); !slices.Equal(got, want) {
					t.Fatalf("g = %v: scan gives %v (chain %v), oracle's coarsest chain is %v", g, l, got, want)
				}
				if !slices.Equal(l.Table(), g) {
					t.Fatalf("g = %v: scan gives %v, whose table is %v", g, l, l.Table())
				}
			}
			// Next g in odometer order over g[1:].
			i := 1
			for ; i < n; i++ {
				g[i]++
				if g[i] < k {
					break
				}
				g[i] = 0
			}
			if i == n {
				break
			}
		}
	}
	if total != 186293 || accepted != 58 {
		t.Errorf("enumerated %d functions, accepted %d; the paper reports 186293 and 58", total, accepted)
	}
	golden(t, "recognize_exhaustive.golden", list.String())
}

// TestRecognizeTables recognizes the table of many layouts: the result must
// reproduce the table, and be no finer than the coalesced layout.
func TestRecognizeTables(t *testing.T) {
	for _, s := range []string{"(6,2):(8,2)", "((2,2),3):((24,2),8)", "(2,3,4):(0,1,3)", "(4,4):(4,1)", "(3,5):(5,1)", "(2,2):(-4,1)", "(4,2,3):(2,1,8)", "7:0", "(2,1,3):(1,100,2)"} {
		t.Run(s, func(t *testing.T) {
			l := MustParse(s)
			r, ok := Recognize(l.Table())
			if !ok {
				t.Fatalf("Recognize(table of %v) failed", l)
			}
			if !r.SameFunction(l) {
				t.Fatalf("Recognize(table of %v) = %v, a different function", l, r)
			}
			if len(r.FlatShape()) > len(l.FlatShape()) {
				t.Fatalf("Recognize(table of %v) = %v, finer than the layout itself", l, r)
			}
		})
	}
}

func ExampleRecognize() {
	for _, values := range [][]int{{0, 1, 4, 5}, {0, 1, 2, 4}, {0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42}} {
		l, ok := Recognize(values)
		fmt.Println(values, "→", l, ok)
	}
	// Output:
	// [0 1 4 5] → (2,2):(1,4) true
	// [0 1 2 4] → 1:0 false
	// [0 24 2 26 8 32 10 34 16 40 18 42] → (2,2,3):(24,2,8) true
}

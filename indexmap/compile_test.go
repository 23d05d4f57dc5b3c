package indexmap

import (
	"fmt"
	"slices"
	"testing"
)

// TestCompileAgreesWithEval checks the compiled evaluator against the tree
// evaluator at every point of each domain, for Program.Eval and Tabulate.
func TestCompileAgreesWithEval(t *testing.T) {
	for _, text := range []string{
		mmaA,
		"logical(m:(m0:3, m1:4), k:5) -> physical(a:64) = (m * 5 + k) if m + k < 13",
		"physical(x:256) -> physical(y:256) = (x ^ x / 16 % 8 * 2)",
		"(a:3, b:1, c:4) -> (p:64, q:64) = ((a - 2) * (c + 1) % 7, -1 * b + a / 2 - c ^ 3)",
		"() -> (k:1) = (0)",
		"(a:3, c:4, b:1) -> (p:64, q:8) = (a * c + b, 3 - b + 2 * a) if a + b < 2 && c / 2 != b",
		"(a:5, c:6) -> (p:64, q:64, s:64) = (a / 2 - c / 4, a % 3 + c % 4 - c / 2 * 2, 7 - c) if (c ^ a) != 3",
		"(i:6) -> () = ()",
	} {
		t.Run(text, func(t *testing.T) {
			m := MustParse(text)
			p, err := m.Compile()
			if err != nil {
				t.Fatal(err)
			}
			tab, err := p.Tabulate(0)
			if err != nil {
				t.Fatal(err)
			}
			sp := m.Domain().Space
			out := make([]int, len(m.Results()))
			for i := 0; i < sp.Size(); i++ {
				c, _ := sp.Coord(i)
				want, wantOK, err := m.evalTree(c)
				if err != nil {
					t.Fatal(err)
				}
				ok, err := p.Eval(c, out)
				if err != nil || ok != wantOK || !slices.Equal(out, want) {
					t.Fatalf("Program.Eval(%v) = %v, %v, %v; want %v, %v", c, out, ok, err, want, wantOK)
				}
				if !slices.Equal(tab.At(i), want) || (tab.Valid != nil && tab.Valid[i] != wantOK) || (tab.Valid == nil && !wantOK) {
					t.Fatalf("Tabulate at %v = %v; want %v, %v", c, tab.At(i), want, wantOK)
				}
			}
		})
	}
}

func TestTabulateLimit(t *testing.T) {
	p, _ := MustParse(mmaA).Compile()
	if _, err := p.Tabulate(100); err == nil {
		t.Errorf("Tabulate over the limit succeeded")
	}
	if _, err := p.Eval([]int{0, 8}, make([]int, 2)); err == nil {
		t.Errorf("Eval out of range succeeded")
	}
}

// benchMap has 2^20 domain points: a swizzled, padded address map of a
// 1024×1024 tile over four leaves.
const benchMap = "logical(m:(m0:32, m1:32), n:(n0:32, n1:32)) -> physical(addr:1114112, bank:8) = (m * 1088 + (n ^ m % 8 * 8), m1 % 4 * 2 + n1 / 16)"

func BenchmarkTabulate2p20(b *testing.B) {
	m := MustParse(benchMap)
	b.ReportAllocs()
	for b.Loop() {
		p, err := m.Compile()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Tabulate(0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTabulateMMA2p20(b *testing.B) {
	// The mma fragment replicated over a 64×64 grid of tiles: 2^20 points.
	m := MustParse("thread-value(tm:64, tn:64, lane:32, v:8) -> logical(m:1024, k:1024) = (tm * 16 + lane / 4 + 8 * (v / 2 % 2), tn * 16 + lane % 4 * 2 + v % 2 + 8 * (v / 4))")
	b.ReportAllocs()
	for b.Loop() {
		p, _ := m.Compile()
		if _, err := p.Tabulate(0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestProgramConcurrent tabulates and evaluates one Program from several
// goroutines (run with -race): a Program is immutable.
func TestProgramConcurrent(t *testing.T) {
	p, err := MustParse(mmaA).Compile()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := p.Tabulate(0)
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			tab, err := p.Tabulate(0)
			if err == nil && !slices.Equal(tab.Values, want.Values) {
				err = fmt.Errorf("tables differ")
			}
			out := make([]int, 2)
			if _, e := p.Eval([]int{3, 5}, out); e != nil && err == nil {
				err = e
			}
			done <- err
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

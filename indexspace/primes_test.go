package indexspace

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// trialFactors is the definition: trial division by every candidate.
func trialFactors(n int) []int {
	var out []int
	for p := 2; p*p <= n; p++ {
		for n%p == 0 {
			out = append(out, p)
			n /= p
		}
	}
	if n > 1 {
		out = append(out, n)
	}
	return out
}

// checkFactors checks that fs are primes in increasing order whose product
// is n.
func checkFactors(t *testing.T, n int, fs []int) {
	t.Helper()
	prod := 1
	for i, f := range fs {
		if !big.NewInt(int64(f)).ProbablyPrime(0) || i > 0 && f < fs[i-1] {
			t.Fatalf("primeFactors(%d) = %v: %d is not a prime in increasing order", n, fs, f)
		}
		prod *= f
	}
	if prod != n {
		t.Fatalf("primeFactors(%d) = %v, product %d", n, fs, prod)
	}
}

func TestPrimeFactorsSmall(t *testing.T) {
	// Past trialLimit² so that the rho path is taken for products of two
	// primes above trialLimit.
	for n := 1; n <= 1<<21; n += 1 + n/4096 {
		if got, want := primeFactors(n), trialFactors(n); !slices.Equal(got, want) {
			t.Fatalf("primeFactors(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestPrimeFactorsLarge(t *testing.T) {
	tests := []struct {
		name string
		n    int
		want []int
	}{
		{"Mersenne prime 2^61-1", 1<<61 - 1, []int{1<<61 - 1}},
		{"square of 2^31-1", (1<<31 - 1) * (1<<31 - 1), []int{1<<31 - 1, 1<<31 - 1}},
		{"MaxSize 2^62-1", MaxSize, []int{3, 715827883, 2147483647}},
		{"power of two", 1 << 61, slices.Repeat([]int{2}, 61)},
		{"cube of a prime above the trial limit", 1031 * 1031 * 1031, []int{1031, 1031, 1031}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := primeFactors(tc.n)
			checkFactors(t, tc.n, got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("primeFactors(%d) = %v, want %v", tc.n, got, tc.want)
			}
		})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + r.IntN(MaxSize)
		checkFactors(t, n, primeFactors(n))
	}
}

// BenchmarkPrimeFactors factors sizes whose trial division alone needs up to
// 1.5e9 divisions (a prime and a square of a prime near MaxSize).
func BenchmarkPrimeFactors(b *testing.B) {
	for _, bc := range []struct {
		name string
		n    int
	}{
		{"2^61-1", 1<<61 - 1},
		{"(2^31-1)^2", (1<<31 - 1) * (1<<31 - 1)},
		{"12", 12},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				primeFactors(bc.n)
			}
		})
	}
}

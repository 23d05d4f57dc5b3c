package indexspace

import (
	"math/big"
	"math/bits"
	"slices"
)

// primeFactors returns the prime factors of n ≥ 1 in increasing order, with
// multiplicity (nil for 1). Small factors are found by trial division; what
// is left, having no factor below trialLimit, is split by Pollard's rho
// method (J. M. Pollard, "A Monte Carlo method for factorization", BIT 15,
// 1975) down to primes, which math/big's Baillie–PSW test recognizes exactly
// below 2^64. Trial division alone would take seconds for a prime near
// MaxSize.
func primeFactors(n int) []int {
	var out []int
	for p := 2; p < trialLimit && p*p <= n; p++ {
		for n%p == 0 {
			out = append(out, p)
			n /= p
		}
	}
	if n > 1 {
		out = factorLarge(uint64(n), out)
		slices.Sort(out)
	}
	return out
}

const trialLimit = 1 << 10

// factorLarge appends the prime factors of n > 1 to out; n has no factor
// below trialLimit, or is prime.
func factorLarge(n uint64, out []int) []int {
	if new(big.Int).SetUint64(n).ProbablyPrime(0) {
		return append(out, int(n))
	}
	d := rho(n)
	return factorLarge(n/d, factorLarge(d, out))
}

// rho returns a proper divisor of the odd composite n: Pollard's rho with
// x ↦ x² + c mod n and Floyd's cycle detection, trying c = 1, 2, ... until
// the divisor found is not n itself. It is deterministic.
func rho(n uint64) uint64 {
	for c := uint64(1); ; c++ {
		f := func(x uint64) uint64 { return (mulMod(x, x, n) + c) % n }
		x, y, d := uint64(2), uint64(2), uint64(1)
		for d == 1 {
			x, y = f(x), f(f(y))
			d = gcd(max(x, y)-min(x, y), n)
		}
		if d != n {
			return d
		}
	}
}

// mulMod returns a*b mod m for a, b < m.
func mulMod(a, b, m uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return bits.Rem64(hi, lo, m)
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

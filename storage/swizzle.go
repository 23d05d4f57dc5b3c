package storage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// A Swizzle is CuTe's Swizzle<B,M,S> with S >= B >= 1 and M >= 0: it xors the
// B address bits at [M+S, M+S+B) (CuTe's "yyy" mask) into the B bits at
// [M, M+B) ("zzz"). As arithmetic on a non-negative address a,
//
//	swizzle(a) = a ^ ((a / 2^(M+S)) % 2^B * 2^M)
//
// which is CuTe's apply: offset ^ ((offset & yyy_msk) >> S) with
// yyy_msk = (2^B-1) << (M+S) (cute/swizzle.hpp). In the notation of
// Definition 4 of "A Simplified Layout Algebra for GPU Kernels" it is b = B,
// dst = M, src = M+S.
//
// Because S >= B the xor-ed bits are never read back, so the swizzle is an
// involution, and it permutes every aligned block of Period() addresses.
// The zero value is not a valid swizzle; a layout without swizzle holds nil.
type Swizzle struct {
	B, M, S int
}

// maxSwizzleBits bounds M+S+B so that every swizzle fits comfortably in int64.
const maxSwizzleBits = 40

// NewSwizzle returns Swizzle<b,m,s>, or an error naming the violated bound.
func NewSwizzle(b, m, s int) (Swizzle, error) {
	sw := Swizzle{B: b, M: m, S: s}
	return sw, sw.validate()
}

func (sw Swizzle) validate() error {
	switch {
	case sw.B < 1:
		return fmt.Errorf("storage: %v: B = %d, want B >= 1", sw, sw.B)
	case sw.M < 0:
		return fmt.Errorf("storage: %v: M = %d, want M >= 0", sw, sw.M)
	case sw.S < sw.B:
		return fmt.Errorf("storage: %v: S = %d < B = %d, want S >= B so that the bit ranges do not overlap", sw, sw.S, sw.B)
	case sw.M+sw.S+sw.B > maxSwizzleBits:
		return fmt.Errorf("storage: %v: B+M+S = %d exceeds %d address bits", sw, sw.B+sw.M+sw.S, maxSwizzleBits)
	}
	return nil
}

// Apply returns the swizzled address; a must be non-negative.
func (sw Swizzle) Apply(a int64) int64 {
	return a ^ ((a >> (sw.M + sw.S)) & (1<<sw.B - 1) << sw.M)
}

// Period is 2^(B+M+S): the swizzle permutes every aligned block of this many
// addresses and commutes with adding a multiple of it.
func (sw Swizzle) Period() int64 { return 1 << (sw.B + sw.M + sw.S) }

// String is the canonical form "Swizzle<B,M,S>"; ParseSwizzle reads it back.
func (sw Swizzle) String() string { return fmt.Sprintf("Swizzle<%d,%d,%d>", sw.B, sw.M, sw.S) }

// Expr is the swizzle as an index-map expression over the address variable v,
// e.g. "a ^ ((a / 128) % 8 * 16)" for Swizzle<3,4,3> and v = "a": / is
// floor division, % a non-negative modulo and ^ xor.
func (sw Swizzle) Expr(v string) string {
	return fmt.Sprintf("%s ^ ((%s / %d) %% %d * %d)", v, v, int64(1)<<(sw.M+sw.S), int64(1)<<sw.B, int64(1)<<sw.M)
}

// ParseSwizzle reads "Swizzle<B,M,S>" (spaces after commas allowed).
func ParseSwizzle(s string) (Swizzle, error) {
	body, ok := strings.CutPrefix(s, "Swizzle<")
	if ok {
		body, ok = strings.CutSuffix(body, ">")
	}
	if !ok {
		return Swizzle{}, fmt.Errorf("storage: swizzle %q: want Swizzle<B,M,S>", s)
	}
	parts := strings.Split(body, ",")
	if len(parts) != 3 {
		return Swizzle{}, fmt.Errorf("storage: swizzle %q: want three parameters B,M,S, have %d", s, len(parts))
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return Swizzle{}, fmt.Errorf("storage: swizzle %q: parameter %c: %q is not an integer", s, "BMS"[i], strings.TrimSpace(p))
		}
		v[i] = n
	}
	return NewSwizzle(v[0], v[1], v[2])
}

// Map is the swizzle as an index map from the physical space (name:size) to
// itself, the form in which docs/algebra.md lets a swizzle follow a
// storage map. size must be a positive multiple of the period, so that the
// swizzle permutes the space.
func (sw Swizzle) Map(name string, size int) (indexmap.Map, error) {
	if err := sw.validate(); err != nil {
		return indexmap.Map{}, err
	}
	if size <= 0 || int64(size)%sw.Period() != 0 {
		return indexmap.Map{}, fmt.Errorf("storage: %v on (%s:%d): want a positive multiple of the period %d", sw, name, size, sw.Period())
	}
	sp, err := indexspace.New("", indexspace.Leaf(name, size))
	if err != nil {
		return indexmap.Map{}, fmt.Errorf("storage: %v: %w", sw, err)
	}
	side := indexmap.Side{Kind: indexmap.Physical, Space: sp}
	m, err := indexmap.New(indexmap.Spec{Domain: side, Codomain: side, Results: []indexmap.Expr{sw.expr(indexmap.V(name))}})
	if err != nil {
		return indexmap.Map{}, fmt.Errorf("storage: %v: %w", sw, err)
	}
	return m, nil
}

// expr is the swizzle applied to the expression a.
func (sw Swizzle) expr(a indexmap.Expr) indexmap.Expr {
	return indexmap.XorOf(a, indexmap.Product(
		indexmap.Remainder(indexmap.Quotient(a, 1<<(sw.M+sw.S)), 1<<sw.B), indexmap.C(1<<sw.M)))
}

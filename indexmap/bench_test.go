package indexmap

import (
	"strconv"
	"strings"
	"testing"
)

func BenchmarkParseMMA(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(mmaA); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideStride2p20 decides an affine map of 2^20 points by the
// sorted-stride criterion.
func BenchmarkDecideStride2p20(b *testing.B) {
	m := MustParse("(i:1024, j:1024) -> (x:1048576) = (i + 1024 * j)")
	b.ReportAllocs()
	for b.Loop() {
		if p, err := m.Decide(); err != nil || p.Method != ByStride {
			b.Fatal(p, err)
		}
	}
}

// BenchmarkDecideEnumeration2p20 decides a swizzled map of 2^20 points by
// enumeration.
func BenchmarkDecideEnumeration2p20(b *testing.B) {
	m := MustParse("(i:1024, j:1024) -> (x:1024, y:1024) = (i, j ^ i % 8 * 8)")
	b.ReportAllocs()
	for b.Loop() {
		if p, err := m.Decide(); err != nil || p.Method != ByEnumeration || !p.DenseBijection {
			b.Fatal(p, err)
		}
	}
}

// BenchmarkDecideAllOutOfRange decides a map at the enumeration limit whose
// every image lies outside its codomain (it keyed those images by their
// text: 12 s and 1.2 GB from the command line).
func BenchmarkDecideAllOutOfRange(b *testing.B) {
	m := MustParse("(a:2048, b:2048) -> (c:16) = (a * 2048 + b + 100) if a >= 0")
	b.ReportAllocs()
	for b.Loop() {
		if p, err := m.Decide(); err != nil || p.InRange || !p.Injective {
			b.Fatal(p, err)
		}
	}
}

// BenchmarkComposeEmit composes the CuTe documentation's example and emits it
// as a layout (compose, simplify, separability and recognition).
func BenchmarkComposeEmit(b *testing.B) {
	a := MustParse("logical(m1:2, m0:6) -> physical(x:43) = (2 * m1 + 8 * m0)")
	in := MustParse("logical(m1:3, m0:4) -> logical(x:12) = (m1 + 3 * m0)")
	b.ReportAllocs()
	for b.Loop() {
		r, err := Compose(a, in)
		if err != nil {
			b.Fatal(err)
		}
		if _, forms := r.Emit(); forms[0] != AsLayout {
			b.Fatal(forms)
		}
	}
}

func BenchmarkSimplifyRandom(b *testing.B) {
	var maps []Map
	for i := uint64(0); i < 100; i++ {
		maps = append(maps, MustParse(randomMap(newRand(i))))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range maps {
			m.Simplify()
		}
	}
}

// BenchmarkSimplifyXorChain simplifies a chain of 2,000 xor-ed quotients,
// x / 1 ^ x / 2 ^ …: the rules ask for the bounds of every prefix, which the
// simplifier memoizes (it recomputed them: 14 s from the command line).
func BenchmarkSimplifyXorChain(b *testing.B) {
	var parts []string
	for i := range 2000 {
		parts = append(parts, "x / "+strconv.Itoa(i%9+1))
	}
	m := MustParse("(x:4) -> (y:4) = (" + strings.Join(parts, " ^ ") + ")")
	b.ReportAllocs()
	for b.Loop() {
		m.SimplifyTrace()
	}
}

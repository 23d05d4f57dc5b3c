package storage

import (
	"math/rand/v2"
	"testing"

	"github.com/cklplan/cklplan/indexspace"
)

// TestVectorAffineMatchesEnumeration checks the stride rule that decides
// vector widths on tiles too large to enumerate against the enumeration, on
// random affine layouts: both must give the same verdict and the same first
// failing element.
func TestVectorAffineMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tiles := []string{"(k:64)", "(m:8, k:32)", "(m:4, k:6)", "(b:2, m:4, k:16)", "(m:3, k:8)"}
	elems := []ElementType{F64, F32, F16, I8, U4}
	checked := 0
	for range 400 {
		tile := indexspace.MustParse(tiles[rng.IntN(len(tiles))])
		cfg := Config{
			Memory:    Shared,
			Element:   elems[rng.IntN(len(elems))],
			BaseAlign: 1 << rng.IntN(8),
		}
		if cfg.Element.Bits() >= 8 && rng.IntN(2) == 0 {
			cfg.Unit = Bytes
		}
		leaves := tile.Leaves()
		stride := make([]int, len(leaves))
		for i := range stride {
			stride[i] = rng.IntN(80) - 8
		}
		if rng.IntN(2) == 0 { // a padded row-major shape, which usually validates
			p, err := packedStrides(tile, rng.IntN(5), nil, rng.IntN(2) == 0)
			if err != nil {
				t.Fatal(err)
			}
			stride = p
		}
		l, err := Strided(tile, stride, cfg)
		if err != nil {
			continue // aliasing, negative or misaligned: nothing to compare
		}
		for leaf := range leaves {
			for v := 2; v*l.element.Bits() <= MaxVectorBits; v *= 2 {
				if leaves[leaf].Size%v != 0 || (l.align*8)%(v*l.element.Bits()) != 0 {
					continue
				}
				want := l.vectorLimitEnum(leaf, v)
				got, err := l.vectorLimitAffine(leaf, v)
				if err != nil {
					t.Fatalf("%v: vectorLimitAffine: %v", l, err)
				}
				if got != want {
					t.Fatalf("%v along %s, %d elements:\naffine      %q\nenumeration %q", l, leaves[leaf].Name, v, got, want)
				}
				checked++
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d comparisons: the generator makes too few valid layouts", checked)
	}
}

// TestVectorLargeTile checks that a tile above MaxEnumerate elements is
// decided from its strides, and that a swizzled one is refused.
func TestVectorLargeTile(t *testing.T) {
	tile := indexspace.MustParse("(m:4096, k:4096)")
	l, err := RowMajor(tile, 4, Config{Memory: Global, Element: F16, BaseAlign: 256})
	if err != nil {
		t.Fatal(err)
	}
	v, err := l.Vector("")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), "4 elements along k (8 bytes); wider: element (m=1, k=0) at byte 8200 is not aligned to 128 bits"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if l.Footprint() != (4095*4100+4096)*2 {
		t.Errorf("Footprint() = %d, want %d", l.Footprint(), (4095*4100+4096)*2)
	}
	sw, err := SwizzledRowMajor(indexspace.MustParse("(m:4096, k:4096)"), Swizzle128B, Config{Memory: Global, Element: F16})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Vector(""); err == nil {
		t.Error("Vector on a swizzled 16M-element tile: no error")
	}
	// Composing the swizzle into the map must fail or succeed, not panic.
	if m, err := sw.Address(); err == nil && m.Domain().Space.Size() != tile.Size() {
		t.Errorf("Address() domain %v", m.Domain())
	}
}

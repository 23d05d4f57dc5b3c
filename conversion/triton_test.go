package conversion

import (
	"math/bits"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// tritonShuffles is the shuffle count of Triton's transferWithinWarp
// (triton-lang/triton, lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp)
// for a conversion inside one warp between two layouts whose every hardware
// index bit (lane bit, register-slot bit) holds one tile bit. Triton
// factors the conversion P = P_mixed ∘ P_lane ∘ P_reg, packs the low
// register bits P leaves in place into 32-bit registers (R registers after
// packing), and with m register bits swapped with lane bits emits
// (1 − 2^−m)·R shuffles when P_lane is the identity and R otherwise (its
// Swap method; Ship, for m = 1, also emits R/2). ok is false when the
// layouts are not such bit permutations.
func tritonShuffles(src, dst *distribution.Distribution, r distribution.Rename) (shuffles float64, m int, ok bool) {
	p, err := newProblem(src, dst, Options{Rename: r})
	if err != nil || src.NumExecutors() != 32 || dst.NumExecutors() != 32 || src.Element() != dst.Element() {
		return 0, 0, false
	}
	nv := src.NumValues()
	if nv&(nv-1) != 0 || dst.NumValues() != nv {
		return 0, 0, false
	}
	regBits := bits.TrailingZeros(uint(nv))
	// The element at (lane, slot) of each side, in destination tile order.
	srcAt := map[[2]int]int{}
	for t, places := range p.owners {
		for _, o := range places {
			srcAt[[2]int{o.Lane, o.Slot}] = t
		}
	}
	dstPlace := map[int][2]int{}
	for i, d := range p.dstPlaces {
		dstPlace[p.dstElem[i]] = [2]int{d.Lane, d.Slot}
	}
	// Hardware bits: 0..regBits-1 register slot bits, then 5 lane bits.
	hw := func(lane, slot int) int { return slot | lane<<regBits }
	image := make([]int, regBits+5) // the destination hardware bit of each source bit
	for b := range image {
		lane, slot := 0, 1<<b
		if b >= regBits {
			lane, slot = 1<<(b-regBits), 0
		}
		e, found := srcAt[[2]int{lane, slot}]
		if !found {
			return 0, 0, false
		}
		d := dstPlace[e]
		h := hw(d[0], d[1])
		if h == 0 || h&(h-1) != 0 {
			return 0, 0, false
		}
		image[b] = bits.TrailingZeros(uint(h))
	}
	// Linear: every source point lands where the xor of its bits' images does.
	for lane := range 32 {
		for slot := range nv {
			h := hw(lane, slot)
			want := 0
			for b := range image {
				if h>>b&1 == 1 {
					want |= 1 << image[b]
				}
			}
			d := dstPlace[srcAt[[2]int{lane, slot}]]
			if hw(d[0], d[1]) != want {
				return 0, 0, false
			}
		}
	}
	pack := 0
	for pack < regBits && pack < bits.TrailingZeros(uint(32/src.Element().Bits())) && image[pack] == pack {
		pack++
	}
	R := float64(int(1) << (regBits - pack))
	laneIdentity := true
	for b := range image {
		switch {
		case b < regBits && image[b] >= regBits:
			m++
		case b >= regBits && image[b] >= regBits && image[b] != b:
			laneIdentity = false
		}
	}
	if m == 0 || !laneIdentity {
		return R, m, true
	}
	return R * (1 - 1/float64(int(1)<<m)), m, true
}

// On the pairs where Triton's formulas apply, the shuffle plan needs no
// more shuffles than Triton emits.
func TestShufflesAgainstTriton(t *testing.T) {
	lanes := []distribution.ExecutorAxis{{Name: "lane", Size: 32, Level: distribution.LevelLane}}
	spec := func(name string, values int, own ...string) *distribution.Distribution {
		s := distribution.Spec{Name: name, Executors: lanes, Tile: []distribution.Axis{{Name: "a", Size: 2}, {Name: "l", Size: 32}}, Ownership: own}
		if values > 1 {
			s.Locals = []distribution.Axis{{Name: "v", Size: values}}
		}
		d, err := distribution.New(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// A register bit swapped with lane bit 0, and with lane bit 4.
	rows := spec("rows", 2, "v", "lane")
	swap0 := spec("swap0", 2, "lane % 2", "lane / 2 * 2 + v")
	swap4 := spec("swap4", 2, "lane / 16", "lane % 16 + 16 * v")
	// A lane permutation: lane bits 0 and 1 swapped.
	xor := spec("xor", 2, "v", "lane % 2 * 2 + lane / 2 % 2 + lane / 4 * 4")
	c := builtin(t, "mma.m16n8k16.c.f32")
	cx, err := distribution.New(distribution.Spec{Name: "c.xor", Executors: lanes, Locals: []distribution.Axis{{Name: "v", Size: 4}},
		Tile: []distribution.Axis{{Name: "m", Size: 16}, {Name: "n", Size: 8}}, Ownership: []string{"lane / 4 % 2 * 4 + lane / 8 % 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		src, dst *distribution.Distribution
		rename   string
	}{
		{"register bit to lane bit 0", rows, swap0, ""},
		{"register bit to lane bit 4", rows, swap4, ""},
		{"lane bits permuted", rows, xor, ""},
		{"accumulator rows permuted", c, cx, ""},
		{"blocked A to mma A", blockedA(t), builtin(t, "mma.m16n8k16.a.f16"), ""},
		{"mma A to blocked A", builtin(t, "mma.m16n8k16.a.f16"), blockedA(t), ""},
		{"f16 accumulator to the B operand's positions", builtin(t, "mma.m16n8k16.c.f16"), mustElement(t, builtin(t, "mma.m16n8k16.b.f16"), storage.F16), "m=k"},
	}
	compared := 0
	for _, tc := range cases {
		r := rename(t, tc.rename)
		want, m, ok := tritonShuffles(tc.src, tc.dst, r)
		res, err := Classify(tc.src, tc.dst, Options{Rename: r})
		if err != nil {
			t.Fatal(err)
		}
		if err := Replay(tc.src, tc.dst, Options{Rename: r}, res.Witness); err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Logf("%s: not a bit permutation, Triton's formula does not apply", tc.name)
			continue
		}
		compared++
		p, _ := newProblem(tc.src, tc.dst, Options{Rename: r})
		sp, _ := p.shufflePlan(p.routes())
		t.Logf("%s: %d rounds (lower bound %d); Triton %g shuffles (m = %d)", tc.name, sp.Rounds, sp.LowerBound, want, m)
		if float64(sp.Shuffles) > want {
			t.Errorf("%s: %d shuffles, Triton needs %g", tc.name, sp.Shuffles, want)
		}
		if sp.Rounds < sp.LowerBound {
			t.Errorf("%s: %d rounds below the lower bound %d", tc.name, sp.Rounds, sp.LowerBound)
		}
	}
	if compared < 4 {
		t.Errorf("only %d pairs compared", compared)
	}
}

func mustElement(t *testing.T, d *distribution.Distribution, e storage.ElementType) *distribution.Distribution {
	t.Helper()
	out, err := d.WithElement(e)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

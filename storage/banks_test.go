package storage

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// lanesAt lists all 32 lanes with the byte address addr(lane).
func lanesAt(addr func(lane int) int64) []LaneAddress {
	out := make([]LaneAddress, WarpSize)
	for l := range out {
		out[l] = LaneAddress{Lane: l, Byte: addr(l)}
	}
	return out
}

// TestWavefrontsStrided checks the model against its closed form for a warp
// whose lanes access width bytes each at a stride of s accesses: lane l at
// byte l*s*width. A phase of P = 128/width lanes (32 for width 4) spreads
// its first words over the banks in steps of s*width/4 words, so each bank
// holds gcd(s, P) distinct words; there are width/4 phases. At s = 0 every
// lane reads the same words: a broadcast, one wavefront per phase, and the
// access is pair-shared, which halves the phases of 8- and 16-byte accesses.
func TestWavefrontsStrided(t *testing.T) {
	for _, op := range []Op{Load, Store} {
		for _, width := range []int{4, 8, 16} {
			phases := width / BankBytes
			perPhase := WarpSize / phases
			for s := range 70 {
				w, err := CountWavefronts(op, width, lanesAt(func(l int) int64 { return int64(l * s * width) }))
				if err != nil {
					t.Fatalf("width %d stride %d: %v", width, s, err)
				}
				want, ideal := phases, phases
				switch {
				case s == 0 && op == Load: // pair-shared
					want, ideal = max(1, phases/2), max(1, phases/2)
				case s > 0:
					want = phases * gcd(s, perPhase)
				}
				if w.Total != want || w.Ideal != ideal {
					t.Errorf("%v width %d stride %d: %v; want %d wavefronts, ideal %d", op, width, s, w, want, ideal)
				}
			}
		}
	}
}

func TestWavefronts(t *testing.T) {
	tests := []struct {
		name  string
		op    Op
		width int
		lanes []LaneAddress
		want  string
	}{
		{
			name: "f32 row: one word per bank", width: 4,
			lanes: lanesAt(func(l int) int64 { return int64(4 * l) }),
			want:  "1 wavefront (ideal 1)",
		},
		{
			name: "f32 column of a 32x32 row-major tile", width: 4,
			lanes: lanesAt(func(l int) int64 { return int64(128 * l) }),
			want:  "32 wavefronts (ideal 1); lanes 0-31: 32 words in bank 0",
		},
		{
			name: "f32 column of a 32x33 padded tile", width: 4,
			lanes: lanesAt(func(l int) int64 { return int64(4 * 33 * l) }),
			want:  "1 wavefront (ideal 1)",
		},
		{
			name: "f16 pairs of lanes share a word", width: 2,
			lanes: lanesAt(func(l int) int64 { return int64(2 * l) }),
			want:  "1 wavefront (ideal 1)",
		},
		{
			name: "f16 column of a 32x64 row-major tile", width: 2,
			lanes: lanesAt(func(l int) int64 { return int64(128 * l) }),
			want:  "32 wavefronts (ideal 1); lanes 0-31: 32 words in bank 0",
		},
		{
			name: "u8 every lane the same byte", width: 1,
			lanes: lanesAt(func(int) int64 { return 7 }),
			want:  "1 wavefront (ideal 1)",
		},
		{
			name: "f32 two words in one bank", width: 4,
			lanes: []LaneAddress{{Lane: 0, Byte: 0}, {Lane: 5, Byte: 128}, {Lane: 9, Byte: 0}},
			want:  "2 wavefronts (ideal 1); lanes 0-31: 2 words in bank 0",
		},
		{
			name: "16-byte rows of a 128-byte-wide tile: 8 rows per phase", width: 16,
			lanes: lanesAt(func(l int) int64 { return int64(128 * l) }),
			want:  "32 wavefronts (ideal 4); lanes 0-7: 8 words in bank 0; lanes 8-15: 8 words in bank 0; lanes 16-23: 8 words in bank 0; lanes 24-31: 8 words in bank 0",
		},
		{
			name: "8-byte accesses, lanes 16-18 only, no partners share", width: 8,
			lanes: []LaneAddress{{Lane: 16, Byte: 0}, {Lane: 17, Byte: 256}, {Lane: 18, Byte: 512}},
			want:  "3 wavefronts (ideal 1); lanes 16-31: 3 words in bank 0",
		},
		{
			name: "8-byte accesses, partners inactive: pair-shared, one 32-lane phase", width: 8,
			lanes: []LaneAddress{{Lane: 16, Byte: 0}, {Lane: 17, Byte: 256}},
			want:  "2 wavefronts (ideal 1); lanes 0-31: 2 words in bank 0",
		},
		{
			name: "8-byte accesses, l%2: partners l^2 share, one phase", width: 8,
			lanes: lanesAt(func(l int) int64 { return int64(l % 2 * 8) }),
			want:  "1 wavefront (ideal 1)",
		},
		{
			name: "8-byte accesses, l%4: no partners share, two phases", width: 8,
			lanes: lanesAt(func(l int) int64 { return int64(l % 4 * 8) }),
			want:  "2 wavefronts (ideal 2)",
		},
		{
			name: "16-byte accesses, lane pairs share: half-warp phases", width: 16,
			lanes: lanesAt(func(l int) int64 { return int64(l / 2 * 16) }),
			want:  "2 wavefronts (ideal 2)",
		},
		{
			name: "16-byte stores, lane pairs share: still quarter-warp phases", op: Store, width: 16,
			lanes: lanesAt(func(l int) int64 { return int64(l / 2 * 16) }),
			want:  "4 wavefronts (ideal 4)",
		},
		{
			name: "8-byte stores, one address: two half-warp phases", op: Store, width: 8,
			lanes: lanesAt(func(int) int64 { return 0 }),
			want:  "2 wavefronts (ideal 2)",
		},
		{name: "no lane active", width: 4, want: "0 wavefronts (ideal 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := CountWavefronts(tt.op, tt.width, tt.lanes)
			if err != nil {
				t.Fatal(err)
			}
			if got := w.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestWavefrontsErrors(t *testing.T) {
	tests := []struct {
		name  string
		op    Op
		width int
		lanes []LaneAddress
		err   string
	}{
		{name: "bad direction", op: 7, width: 4, err: "access direction Op(7): want load or store"},
		{name: "width 3", width: 3, err: "access width 3 bytes per lane: want 1, 2, 4, 8 or 16"},
		{name: "width 32", width: 32, err: "access width 32 bytes"},
		{name: "lane 32", width: 4, lanes: []LaneAddress{{Lane: 32}}, err: "lane 32: want a lane in [0, 32)"},
		{name: "lane -1", width: 4, lanes: []LaneAddress{{Lane: -1}}, err: "lane -1: want a lane in [0, 32)"},
		{name: "lane twice", width: 4, lanes: []LaneAddress{{Lane: 3}, {Lane: 3, Byte: 4}}, err: "lane 3: listed twice"},
		{name: "negative address", width: 4, lanes: []LaneAddress{{Lane: 2, Byte: -4}}, err: "lane 2: negative byte address -4"},
		{name: "misaligned", width: 8, lanes: []LaneAddress{{Lane: 1, Byte: 4}}, err: "lane 1: byte address 4 is not aligned to the access width 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CountWavefronts(tt.op, tt.width, tt.lanes)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("CountWavefronts = %v, want error containing %q", err, tt.err)
			}
		})
	}
}

// TestWavefrontsShiftInvariant checks the fact Layout.Wavefronts relies on:
// moving every address by a multiple of 4 bytes leaves the count unchanged.
func TestWavefrontsShiftInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		width := []int{1, 2, 4, 8, 16}[rng.IntN(5)]
		op := Op(rng.IntN(2))
		var lanes []LaneAddress
		for l := range WarpSize {
			if rng.IntN(4) > 0 {
				lanes = append(lanes, LaneAddress{Lane: l, Byte: int64(rng.IntN(64) * width)})
			}
		}
		w, err := CountWavefronts(op, width, lanes)
		if err != nil {
			t.Fatal(err)
		}
		shift := int64(4 * rng.IntN(200))
		moved := make([]LaneAddress, len(lanes))
		for i, la := range lanes {
			moved[i] = LaneAddress{Lane: la.Lane, Byte: la.Byte + shift*int64(width)}
		}
		m, err := CountWavefronts(op, width, moved)
		if err != nil {
			t.Fatal(err)
		}
		if m.Total != w.Total || m.Ideal != w.Ideal {
			t.Fatalf("width %d, shift %d bytes: %v, unshifted %v", width, shift*int64(width), m, w)
		}
	}
}

// TestWavefrontsByDefinition recounts random warp accesses from the model's
// definition, with maps instead of CountWavefronts's bank tally: the phases
// of LanesPerPhase (doubled for pair-shared loads wider than a word), and per
// phase the distinct words of each bank. The addresses come from few lines,
// so that banks hold many words, partners often share, and some words are
// broadcast.
func TestWavefrontsByDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		width := []int{1, 2, 4, 8, 16}[rng.IntN(5)]
		op := Op(rng.IntN(2))
		lines := 1 + rng.IntN(40) // distinct 128-byte lines the warp touches
		var lanes []LaneAddress
		var addr [WarpSize]int64
		var active [WarpSize]bool
		for l := range WarpSize {
			if rng.IntN(6) == 0 {
				continue
			}
			if l > 0 && active[l-1] && rng.IntN(3) == 0 {
				addr[l] = addr[l-1] // a partner sharing the address
			} else {
				addr[l] = int64(rng.IntN(lines)*WavefrontBytes + rng.IntN(WavefrontBytes/width)*width)
			}
			active[l] = true
			lanes = append(lanes, LaneAddress{Lane: l, Byte: addr[l]})
		}
		got, err := CountWavefronts(op, width, lanes)
		if err != nil {
			t.Fatal(err)
		}

		perPhase, _ := LanesPerPhase(width)
		shared := func(mask int) bool {
			for l := range WarpSize {
				if active[l] && active[l^mask] && addr[l] != addr[l^mask] {
					return false
				}
			}
			return true
		}
		if op == Load && width > BankBytes && (shared(1) || shared(2)) {
			perPhase *= 2
		}
		want := Wavefronts{Op: op, Width: width}
		for first := 0; first < WarpSize; first += perPhase {
			banks := map[int]map[int64]bool{} // bank → its distinct words
			for l := first; l < first+perPhase; l++ {
				for k := 0; active[l] && k < max(1, width/BankBytes); k++ {
					word := addr[l]/BankBytes + int64(k)
					if banks[int(word%BankCount)] == nil {
						banks[int(word%BankCount)] = map[int64]bool{}
					}
					banks[int(word%BankCount)][word] = true
				}
			}
			p := Phase{FirstLane: first, LastLane: first + perPhase - 1, Bank: -1}
			for b := range BankCount {
				if len(banks[b]) > p.Wavefronts {
					p.Wavefronts, p.Bank = len(banks[b]), b
				}
			}
			if p.Bank >= 0 {
				want.Ideal++
				for word := range banks[p.Bank] {
					p.Words = append(p.Words, word)
				}
				slices.Sort(p.Words)
			}
			want.Total += p.Wavefronts
			want.Phases = append(want.Phases, p)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v of %d bytes at %v:\ngot  %+v\nwant %+v", op, width, lanes, got, want)
		}
		// The choice's totals-only count agrees.
		if fast := countPhases(op, width, &addr, &active, false); fast.Total != want.Total || fast.Ideal != want.Ideal || fast.Phases != nil {
			t.Fatalf("%v of %d bytes at %v: totals only %+v, want total %d, ideal %d", op, width, lanes, fast, want.Total, want.Ideal)
		}
	}
}

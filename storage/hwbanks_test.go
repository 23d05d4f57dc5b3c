package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/indexmap"
)

// hwPattern is one warp access for the hardware check of the bank model:
// per-lane byte addresses (-1 inactive), the width, and the model's count.
type hwPattern struct {
	name      string
	width     int
	addr      [WarpSize]int64
	predicted int
}

// hwSmemBytes bounds the addresses of the patterns: the check's shared
// buffer.
const hwSmemBytes = 48 * 1024

// hwPatterns builds the patterns: strided warps at every width, the
// accesses of the golden catalog through their layouts, ChooseShared's
// transposes, and cases where the phase split of the model matters (lanes
// of different phases reading the same words).
func hwPatterns(t *testing.T) []hwPattern {
	t.Helper()
	var out []hwPattern
	add := func(name string, width int, addr func(lane int) int64) {
		var p hwPattern
		p.name, p.width = name, width
		var lanes []LaneAddress
		for l := range WarpSize {
			p.addr[l] = addr(l)
			if p.addr[l] >= 0 {
				lanes = append(lanes, LaneAddress{Lane: l, Byte: p.addr[l]})
			}
			if p.addr[l] >= hwSmemBytes-int64(width) {
				t.Fatalf("%s: lane %d at byte %d, past the %d-byte buffer", name, l, p.addr[l], hwSmemBytes)
			}
		}
		w, err := CountWavefronts(width, lanes)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p.predicted = w.Total
		out = append(out, p)
	}
	for _, width := range []int{1, 2, 4, 8, 16} {
		for _, s := range []int{0, 1, 2, 3, 4, 8, 16, 32, 33} {
			add(fmt.Sprintf("stride %d x %dB", s, width), width, func(l int) int64 { return int64(l * s * width) })
		}
	}
	add("8B, lanes l and l+16 read the same word pair", 8, func(l int) int64 { return int64(l % 16 * 8) })
	add("16B, every quarter-warp reads the same 128B", 16, func(l int) int64 { return int64(l % 8 * 16) })
	add("16B, quarter-warps read different 128B lines", 16, func(l int) int64 { return int64(l%8*16 + l/8*128) })
	add("8B, half-warps in disjoint banks, 2 rows apart", 8, func(l int) int64 { return int64(l%16*8 + l/16*256) })
	add("4B, 8 active lanes, stride 32 words", 4, func(l int) int64 {
		if l >= 8 {
			return -1
		}
		return int64(l * 128)
	})
	add("4B, lanes 0 and 1 only, same bank", 4, func(l int) int64 {
		if l >= 2 {
			return -1
		}
		return int64(l * 128)
	})
	// The golden catalog's layouts and accesses.
	for _, text := range catalog {
		l := MustParse(text)
		if l.Tile().NumLeaves() != 2 {
			continue
		}
		m, _ := l.Tile().Lookup("m")
		k, _ := l.Tile().Lookup("k")
		vec := MaxVectorBits / l.Element().Bits()
		for _, acc := range catalogAccesses {
			lanes := strings.NewReplacer("%M", fmt.Sprint(m.Size), "%K", fmt.Sprint(k.Size), "%V", fmt.Sprint(vec)).Replace(acc.lanes)
			v := acc.vector
			if v == 0 {
				v = vec
			}
			a, err := AccessOf(indexmap.MustParse(lanes), v, "k")
			if err != nil {
				t.Fatal(err)
			}
			w, err := l.Wavefronts(a)
			if err != nil {
				continue // the access is not valid on this layout
			}
			name := fmt.Sprintf("%s %s: %s", l.Element(), layoutShort(l), acc.name)
			add(name, w.Width, func(lane int) int64 {
				if lane >= len(a.Lanes) || a.Lanes[lane] == nil {
					return -1
				}
				bit, _ := l.BitOffset(a.Lanes[lane])
				return int64(bit / 8)
			})
			if got := out[len(out)-1].predicted; got != w.Total {
				t.Fatalf("%s: CountWavefronts %d, Layout.Wavefronts %d", name, got, w.Total)
			}
		}
	}
	return out
}

// layoutShort names a layout by its row pitch and swizzle.
func layoutShort(l Layout) string {
	pitch := l.offsetAt([]int{1, 0}) * l.unitBits() / 8
	s := fmt.Sprintf("pitch %dB", pitch)
	if sw, ok := l.Swizzle(); ok {
		s += fmt.Sprintf(" %v on %v", sw, l.Unit())
	}
	return s
}

// TestHardwarePatterns writes the patterns for testdata/hwbanks/bankcheck.cu
// (go test -run TestHardwarePatterns -update) and checks that the committed
// file is current: one line per pattern, "name|width|predicted|32 addresses".
func TestHardwarePatterns(t *testing.T) {
	var b strings.Builder
	for _, p := range hwPatterns(t) {
		fmt.Fprintf(&b, "%s|%d|%d|", p.name, p.width, p.predicted)
		for l, a := range p.addr {
			if l > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprint(&b, a)
		}
		b.WriteByte('\n')
	}
	path := filepath.Join("testdata", "hwbanks", "patterns.txt")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run TestHardwarePatterns -update writes it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("%s is stale (go test -run TestHardwarePatterns -update rewrites it):\n%s", path, lineDiff(string(want), b.String()))
	}
}

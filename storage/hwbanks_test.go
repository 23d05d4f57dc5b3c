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
		w, err := CountWavefronts(Load, width, lanes)
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
	// Broadcast structure at 8 and 16 bytes, where sm_90 merges phases when
	// lanes l and l^1 (or l and l^2) share addresses. Addresses are in units
	// of the width unless a name says otherwise.
	only := func(keep func(l int) bool, f func(l int) int64) func(l int) int64 {
		return func(l int) int64 {
			if !keep(l) {
				return -1
			}
			return f(l)
		}
	}
	all := func(int) bool { return true }
	g3 := func(x int) int64 { // equal on lanes {0,3} and {1,2} of a quad
		if x == 0 || x == 3 {
			return 0
		}
		return 1
	}
	for _, width := range []int{8, 16} {
		w := int64(width)
		for _, c := range []struct {
			name string
			keep func(l int) bool
			f    func(l int) int64
		}{
			{"half-warps uniform, adjacent", all, func(l int) int64 { return int64(l/16) * w }},
			{"half-warps uniform, 128B apart", all, func(l int) int64 { return int64(l/16) * 128 }},
			{"quarter-warps uniform, adjacent", all, func(l int) int64 { return int64(l/8) * w }},
			{"quarter-warps uniform, 128B apart", all, func(l int) int64 { return int64(l/8) * 128 }},
			{"lane quads uniform, adjacent", all, func(l int) int64 { return int64(l/4) * w }},
			{"lane pairs uniform (l^1 share), adjacent", all, func(l int) int64 { return int64(l/2) * w }},
			{"l%2 (l^2 share), adjacent", all, func(l int) int64 { return int64(l%2) * w }},
			{"l%4, adjacent", all, func(l int) int64 { return int64(l%4) * w }},
			{"l%8, adjacent", all, func(l int) int64 { return int64(l%8) * w }},
			{"lanes 0-7 only, uniform", func(l int) bool { return l < 8 }, func(int) int64 { return 0 }},
			{"lanes 0-15 only, uniform", func(l int) bool { return l < 16 }, func(int) int64 { return 0 }},
			{"lanes 0 and 31 only, same address", func(l int) bool { return l == 0 || l == 31 }, func(int) int64 { return 0 }},
			{"lanes 0 and 8 only, same address", func(l int) bool { return l == 0 || l == 8 }, func(int) int64 { return 0 }},
			{"uniform but lane 31, 128B away", all, func(l int) int64 { return int64(l/31) * 128 }},
			{"uniform but lane 31, adjacent", all, func(l int) int64 { return int64(l/31) * w }},
			{"l^4 share only", all, func(l int) int64 { return int64(l&3+4*((l>>3)&3)) * w }},
			{"l^8 share only", all, func(l int) int64 { return int64(l&7+8*(l>>4)) * w }},
			{"l^3 share only", all, func(l int) int64 { return (g3(l&3) + 2*int64(l>>2)) * w }},
			{"l^5 share only", all, func(l int) int64 { return int64((l&1)^((l>>2)&1)+2*((l>>1)&1)+4*(l>>3)) * w }},
			{"l^1 share in lanes 0-15, l^2 in 16-31", all, func(l int) int64 {
				if l < 16 {
					return int64(l>>1) * w
				}
				return (8 + int64(l&1) + 2*int64((l>>2)&3)) * w
			}},
			{"l^1 share but in quad 7 (l^2)", all, func(l int) int64 {
				if l < 28 {
					return int64(l>>1) * w
				}
				return (14 + int64(l&1)) * w
			}},
			{"l^1 share but lane 1", all, func(l int) int64 {
				if l == 1 {
					return 16 * w
				}
				return int64(l>>1) * w
			}},
		} {
			add(fmt.Sprintf("%s x %dB", c.name, width), width, only(c.keep, c.f))
		}
	}
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

// TestHardwareRecord checks the bank model against the wavefront counts that
// Nsight Compute measured on an H200 for every pattern, loaded
// (testdata/hwbanks/h200.txt, from the run in h200.log) and stored
// (h200-st.txt, from h200-st.log): the expected values are measurements,
// not the model's own output.
func TestHardwareRecord(t *testing.T) {
	for _, rec := range []struct {
		file string
		op   Op
	}{{"h200.txt", Load}, {"h200-st.txt", Store}} {
		t.Run(rec.op.String(), func(t *testing.T) {
			checkHardwareRecord(t, filepath.Join("testdata", "hwbanks", rec.file), rec.op)
		})
	}
}

func checkHardwareRecord(t *testing.T, path string, op Op) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	patterns := map[string]hwPattern{}
	for _, p := range hwPatterns(t) {
		patterns[fmt.Sprintf("%s|%d", p.name, p.width)] = p
	}
	seen := 0
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 5 {
			t.Fatalf("%s:%d: %d fields, want 5", path, i+1, len(f))
		}
		var measured, width int
		if _, err := fmt.Sscan(f[1], &measured); err != nil {
			t.Fatalf("%s:%d: wavefronts %q: %v", path, i+1, f[1], err)
		}
		if _, err := fmt.Sscan(f[3], &width); err != nil {
			t.Fatalf("%s:%d: width %q: %v", path, i+1, f[3], err)
		}
		p, ok := patterns[fmt.Sprintf("%s|%d", f[4], width)]
		if !ok {
			t.Errorf("%s:%d: pattern %q (%d B) is no longer generated", path, i+1, f[4], width)
			continue
		}
		seen++
		var lanes []LaneAddress
		for l, a := range p.addr {
			if a >= 0 {
				lanes = append(lanes, LaneAddress{Lane: l, Byte: a})
			}
		}
		w, err := CountWavefronts(op, p.width, lanes)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if w.Total != measured {
			t.Errorf("%s (%d B): the model gives %d wavefronts, the H200 took %d", p.name, width, w.Total, measured)
		}
	}
	if seen != len(patterns) {
		t.Errorf("%s records %d of the %d patterns", path, seen, len(patterns))
	}
}

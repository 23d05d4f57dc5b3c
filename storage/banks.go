package storage

import (
	"fmt"
	"slices"
	"strings"
)

// Shared-memory geometry of the bank model (see doc.go).
const (
	WarpSize  = 32 // lanes in a warp
	BankCount = 32 // shared-memory banks
	BankBytes = 4  // bytes per bank word
	// WavefrontBytes is what one conflict-free wavefront serves: one word
	// from every bank.
	WavefrontBytes = BankCount * BankBytes
)

// An Op is the direction of a shared-memory access. The zero value is Load.
type Op uint8

// The access directions.
const (
	Load Op = iota
	Store
)

// String is "load" or "store".
func (op Op) String() string {
	switch op {
	case Load:
		return "load"
	case Store:
		return "store"
	}
	return fmt.Sprintf("Op(%d)", uint8(op))
}

// A LaneAddress is one active lane's shared-memory access: Width bytes (the
// access width of the whole warp instruction) starting at byte address Byte.
type LaneAddress struct {
	Lane int
	Byte int64
}

// Wavefronts is the cost of one warp-wide shared-memory access under the
// bank model of doc.go.
type Wavefronts struct {
	Op     Op      // load or store
	Width  int     // bytes per lane: 1, 2, 4, 8 or 16
	Total  int     // wavefronts over all phases
	Ideal  int     // phases with at least one active lane: the conflict-free cost
	Base   int     // the base address modulo 128 assumed (Layout.Wavefronts: the worst residue)
	Phases []Phase // one per phase, in lane order
}

// A Phase is the group of lanes served together; its cost is the largest
// number of distinct words any one bank must deliver.
type Phase struct {
	FirstLane, LastLane int
	Wavefronts          int     // max over banks of the distinct words in the bank; 0 if no lane is active
	Bank                int     // the lowest bank attaining the maximum, -1 if no lane is active
	Words               []int64 // the distinct word addresses (byte / 4) that Bank delivers, ascending
}

// ConflictFree reports whether every active phase costs one wavefront.
func (w Wavefronts) ConflictFree() bool { return w.Total == w.Ideal }

// String summarizes the cost, e.g. "32 wavefronts (ideal 1): phase lanes 0-31: 32 words in bank 0".
func (w Wavefronts) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (ideal %d)", plural(w.Total, "wavefront"), w.Ideal)
	if w.Base != 0 {
		fmt.Fprintf(&b, " with the base at %d mod %d", w.Base, WavefrontBytes)
	}
	for _, p := range w.Phases {
		if p.Wavefronts > 1 {
			fmt.Fprintf(&b, "; lanes %d-%d: %d words in bank %d", p.FirstLane, p.LastLane, p.Wavefronts, p.Bank)
		}
	}
	return b.String()
}

// LanesPerPhase is how many lanes one phase serves for an access of width
// bytes per lane: 32 for up to 4 bytes, 16 for 8, 8 for 16. (CountWavefronts
// doubles the 8- and 16-byte figures for pair-shared loads; see doc.go.)
func LanesPerPhase(width int) (int, error) {
	switch width {
	case 1, 2, 4:
		return WarpSize, nil
	case 8:
		return WarpSize / 2, nil
	case 16:
		return WarpSize / 4, nil
	}
	return 0, fmt.Errorf("storage: access width %d bytes per lane: want 1, 2, 4, 8 or 16", width)
}

// CountWavefronts costs one warp-wide shared-memory access in which every
// listed lane loads or stores (op) width bytes at its byte address. Lanes
// not listed are inactive. Each address must be non-negative and a multiple
// of width; each lane may appear once.
func CountWavefronts(op Op, width int, lanes []LaneAddress) (Wavefronts, error) {
	if op != Load && op != Store {
		return Wavefronts{}, fmt.Errorf("storage: access direction %v: want load or store", op)
	}
	if _, err := LanesPerPhase(width); err != nil {
		return Wavefronts{}, err
	}
	var addr [WarpSize]int64
	var active [WarpSize]bool
	for _, la := range lanes {
		switch {
		case la.Lane < 0 || la.Lane >= WarpSize:
			return Wavefronts{}, fmt.Errorf("storage: lane %d: want a lane in [0, %d)", la.Lane, WarpSize)
		case active[la.Lane]:
			return Wavefronts{}, fmt.Errorf("storage: lane %d: listed twice", la.Lane)
		case la.Byte < 0:
			return Wavefronts{}, fmt.Errorf("storage: lane %d: negative byte address %d", la.Lane, la.Byte)
		case la.Byte%int64(width) != 0:
			return Wavefronts{}, fmt.Errorf("storage: lane %d: byte address %d is not aligned to the access width %d", la.Lane, la.Byte, width)
		}
		addr[la.Lane], active[la.Lane] = la.Byte, true
	}
	return countPhases(op, width, &addr, &active, true), nil
}

// countPhases applies the bank model to checked lane addresses. With detail
// it records every phase; without, it returns Op, Width, Total and Ideal
// only and allocates nothing, which is what ChooseShared's inner loop needs.
func countPhases(op Op, width int, addr *[WarpSize]int64, active *[WarpSize]bool, detail bool) Wavefronts {
	if !detail {
		return tallyPhases(op, width, addr, active, nil)
	}
	var words phaseWords
	return tallyPhases(op, width, addr, active, &words)
}

// phaseWords gathers the busiest banks' words of all phases of an access,
// so that the phases share one allocation: each lane's words lie in one
// phase, so there are at most 4 per lane.
type phaseWords struct {
	words [WarpSize * 4]int64
	ends  [WarpSize]int // per phase, the end of its words
	n     int
}

// tallyPhases is countPhases; the phases are recorded where words is not nil.
func tallyPhases(op Op, width int, addr *[WarpSize]int64, active *[WarpSize]bool, words *phaseWords) Wavefronts {
	perPhase, _ := LanesPerPhase(width)
	if op == Load && width > BankBytes && pairShared(addr, active) {
		perPhase *= 2 // half as many distinct requests: twice the lanes per 128 bytes
	}
	w := Wavefronts{Op: op, Width: width}
	if words != nil {
		w.Phases = make([]Phase, 0, WarpSize/perPhase)
	}
	tally := bankTally{wordsPerLane: max(1, width/BankBytes)}
	for first := 0; first < WarpSize; first += perPhase {
		tally.reset()
		for lane := first; lane < first+perPhase; lane++ {
			if active[lane] {
				tally.add(addr[lane] / BankBytes)
			}
		}
		p := Phase{FirstLane: first, LastLane: first + perPhase - 1, Bank: -1}
		if tally.n > 0 {
			w.Ideal++
			p.Wavefronts, p.Bank = tally.busiest()
			if words != nil {
				words.n += tally.copyWords(words.words[words.n:], p.Bank)
			}
		}
		w.Total += p.Wavefronts
		if words != nil {
			words.ends[len(w.Phases)] = words.n
			w.Phases = append(w.Phases, p)
		}
	}
	if words != nil && words.n > 0 {
		all := slices.Clone(words.words[:words.n])
		start := 0
		for i := range w.Phases {
			if end := words.ends[i]; end > start {
				w.Phases[i].Words = all[start:end:end]
				start = end
			}
		}
	}
	return w
}

// A bankTally counts the distinct words of one phase by bank. A lane's
// address is a multiple of its width, so the words of two lanes (width/4
// consecutive words each, or one) are either all the same or all different:
// the distinct words are those of the lanes with distinct first words.
// Those it keeps in a small hash set, so that finding a repeated lane costs
// one probe, nothing is sorted, and nothing is allocated.
type bankTally struct {
	wordsPerLane int
	count        [BankCount]uint8    // distinct words per bank
	first        [WarpSize]int64     // the distinct first words of the lanes, in order
	n            int                 // how many
	used         [2 * WarpSize]bool  // the hash set of first words: slots in use,
	slot         [2 * WarpSize]int64 // and their words
}

// reset empties the tally; first and slot are overwritten before they are read.
func (t *bankTally) reset() {
	t.count = [BankCount]uint8{}
	t.used = [2 * WarpSize]bool{}
	t.n = 0
}

// add records a lane whose first word is word (a non-negative word address).
func (t *bankTally) add(word int64) {
	// Fibonacci hashing spreads the strided words of a warp over the slots;
	// at most 32 lanes fill at most half of the 64.
	h := uint64(word) * 0x9E3779B97F4A7C15 >> 58
	for t.used[h] {
		if t.slot[h] == word {
			return // the same words: a broadcast
		}
		h = (h + 1) % (2 * WarpSize)
	}
	t.used[h], t.slot[h] = true, word
	t.first[t.n] = word
	t.n++
	for k := range t.wordsPerLane {
		t.count[(word+int64(k))%BankCount]++
	}
}

// busiest returns the largest number of distinct words in one bank and the
// lowest bank that holds that many; (0, -1) when no lane was added.
func (t *bankTally) busiest() (words, bank int) {
	bank = -1
	for b, c := range t.count {
		if int(c) > words {
			words, bank = int(c), b
		}
	}
	return words, bank
}

// copyWords writes the distinct words of bank, ascending, to dst and
// returns how many there are.
func (t *bankTally) copyWords(dst []int64, bank int) int {
	n := 0
	for _, w := range t.first[:t.n] {
		for k := range int64(t.wordsPerLane) {
			if (w+k)%BankCount == int64(bank) {
				dst[n] = w + k
				n++
			}
		}
	}
	slices.Sort(dst[:n])
	return n
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pairShared reports whether every active lane reads the same address as
// its partner lane l^1, or every active lane the same as its partner l^2
// (an inactive partner matches anything). On sm_90 such 8- and 16-byte
// loads are served with twice as many lanes per phase; stores are not
// (doc.go).
func pairShared(addr *[WarpSize]int64, active *[WarpSize]bool) bool {
	for _, mask := range []int{1, 2} {
		ok := true
		for l := range WarpSize {
			p := l ^ mask
			if active[l] && active[p] && addr[l] != addr[p] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

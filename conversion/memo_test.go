package conversion

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/storage"
)

// Classifying through a Memo gives what Classify gives without one, on
// every pair of manyPairs, under every kind of options, whichever pairs
// the memo saw before.
func TestMemoIsClassify(t *testing.T) {
	variants := []struct {
		name string
		opts Options
	}{
		{"plain", Options{}},
		{"no shared memory", Options{Exclude: []Class{SharedMemory, ClusterSharedMemory}}},
		{"kernel boundary", Options{KernelBoundary: true}},
		{"sm80", Options{Target: target(t, "sm80")}},
	}
	pairs := manyPairs(t)
	for _, v := range variants {
		memo := NewMemo()
		for _, p := range pairs {
			opts := v.opts
			opts.Rename = p.rename
			want, wantErr := Classify(p.src, p.dst, opts)
			opts.Memo = memo
			got, err := Classify(p.src, p.dst, opts)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %s: with a memo %+v (%v), without %+v (%v)", p.name, v.name, got, err, want, wantErr)
			}
		}
	}
}

// A classifyPair is one conversion to classify.
type classifyPair struct {
	name     string
	src, dst *distribution.Distribution
	rename   distribution.Rename
}

// manyPairs are conversions of every class: the 16 pairs of taskgen's
// distributions, the benchmarks', every ordered pair of each group of the
// replay corpus, and 300 random pairs of every shape and type of
// TestRandomPairsReplay's kinds.
func manyPairs(t *testing.T) []classifyPair {
	var out []classifyPair
	ds, err := taskgen.Distributions()
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(ds))
	for _, s := range names {
		for _, d := range names {
			out = append(out, classifyPair{"taskgen/" + s + "->" + d, ds[s], ds[d], distribution.Rename{}})
		}
	}
	wg := example(t, "cta128x128.wgmma.c.f32")
	wgBlocked := blocked(t, distribution.Blocked{Name: "blocked", Axes: []string{"m", "n"}, Shape: []int{128, 128}, SizePerThread: []int{1, 4}, ThreadsPerWarp: []int{2, 16}, WarpsPerCTA: []int{8, 1}, Order: []int{1, 0}})
	wg16 := mustElementB(t, wg, storage.F16)
	out = append(out,
		classifyPair{"bench/fa2", twoAccumulators(t), builtin(t, "mma.m16n8k16.a.f16"), rename(t, "n=k")},
		classifyPair{"bench/blockedA", blockedA(t), builtin(t, "mma.m16n8k16.a.f16"), distribution.Rename{}},
		classifyPair{"bench/transpose", rowsOfWarps(t), columnsOfWarps(t), distribution.Rename{}},
		classifyPair{"bench/wg-blocked", wg, wgBlocked, distribution.Rename{}},
		classifyPair{"bench/wg-blocked16", wg, mustElementB(t, wgBlocked, storage.F16), distribution.Rename{}},
		classifyPair{"bench/wg16-id", wg16, wg16, distribution.Rename{}},
		classifyPair{"bench/blocked-wg16", mustElementB(t, wgBlocked, storage.F16), wg16, distribution.Rename{}},
	)
	for _, f := range []string{"cta64x64.blocked.f16", "cta64x64.mma.a.f16", "cta64x64.mma.b.f16", "cta64x64.mma.c.f32"} {
		for _, g := range []string{"cta64x64.blocked.f16", "cta64x64.mma.a.f16", "cta64x64.mma.b.f16", "cta64x64.mma.c.f32"} {
			out = append(out, classifyPair{"ex/" + f + "->" + g, example(t, f), example(t, g), distribution.Rename{}})
		}
	}
	for gi, group := range corpus(t) {
		for _, from := range group {
			for _, to := range group {
				src, dst := corpusPair(t, from, to)
				out = append(out, classifyPair{fmt.Sprintf("corpus/%d/%s(%s)->%s(%s)", gi, from.d.Name(), from.d.Element(), to.d.Name(), to.d.Element()), src, dst, distribution.Rename{}})
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	types := []storage.ElementType{storage.F32, storage.F16, storage.BF16, storage.F8E4M3, storage.U4, storage.I8}
	shapes := []randomShape{
		{8, 8, 1, 1, 32, 2}, {16, 16, 1, 2, 32, 4}, {8, 16, 2, 1, 32, 2}, {4, 8, 1, 1, 16, 2}, {16, 8, 2, 2, 8, 4}, {16, 16, 1, 1, 32, 8},
	}
	for i := range 300 {
		s := shapes[i%len(shapes)]
		sd, dd := randomPair(t, r, s, types)
		out = append(out, classifyPair{fmt.Sprintf("random/%d", i), sd, dd, distribution.Rename{}})
	}
	return out
}

// Goroutines classifying through one Memo, as the planner's do, get what
// Classify gives without one (run with -race to check the locking): two
// take the pairs in order and race for every entry, two take them from the
// other end.
func TestMemoConcurrent(t *testing.T) {
	pairs := manyPairs(t)
	want := make([]*Result, len(pairs))
	for i, p := range pairs {
		want[i], _ = Classify(p.src, p.dst, Options{Rename: p.rename})
	}
	memo := NewMemo()
	var wg sync.WaitGroup
	var failed [4]string // per goroutine, the first pair whose result differs
	for g := range failed {
		wg.Go(func() {
			for k := range pairs {
				i := k
				if g >= 2 {
					i = len(pairs) - 1 - k
				}
				p := pairs[i]
				got, _ := Classify(p.src, p.dst, Options{Rename: p.rename, Memo: memo})
				if !reflect.DeepEqual(got, want[i]) {
					failed[g] = p.name
					return
				}
			}
		})
	}
	wg.Wait()
	for _, name := range failed {
		if name != "" {
			t.Errorf("%s: through a shared memo, a result differs from Classify's", name)
		}
	}
}

// Goroutines that ask a new Memo for the same candidate layouts at once all
// get one list: the memo's sides are costed on the list they were given,
// and storage.Cheapest combines only tables of one list.
func TestMemoKeepsOneCandidateList(t *testing.T) {
	tile, err := (&problem{tileAxes: []distribution.Axis{{Name: "m", Size: 16}, {Name: "n", Size: 16}}}).tileSpace()
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		memo := NewMemo()
		var lists [8][]storage.Layout
		var wg sync.WaitGroup
		for g := range lists {
			wg.Go(func() {
				lists[g], _ = memo.sharedCandidates(tile, storage.F16)
			})
		}
		wg.Wait()
		for _, l := range lists[1:] {
			if &l[0] != &lists[0][0] {
				t.Fatal("two goroutines got different candidate lists from one memo")
			}
		}
	}
}

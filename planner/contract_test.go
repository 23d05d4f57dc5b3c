package planner

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// front is the Pareto front of es by definition: the entries within the
// limit that no other entry matches or beats in both use and cost (of
// equal entries, one), by ascending use.
func front(es []paretoEntry, limit float64) []paretoEntry {
	var out []paretoEntry
	for i, e := range es {
		if e.use > limit {
			continue
		}
		dominated := false
		for j, f := range es {
			if f.use <= e.use && f.cost <= e.cost && (f != e || j < i) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(x, y paretoEntry) int { return compareFloat(x.use, y.use) })
	return out
}

// randomFront draws a front of up to n entries on a coarse grid, so that
// sums tie often.
func randomFront(rng *rand.Rand, n int) []paretoEntry {
	es := make([]paretoEntry, rng.IntN(n+1))
	for i := range es {
		es[i] = paretoEntry{use: float64(rng.IntN(8)), cost: float64(rng.IntN(8))}
	}
	return front(es, 1e9)
}

// The program's convolution of two fronts, A ⊕ B, is the front of
// {a + b : a ∈ A, b ∈ B, use(a + b) ≤ limit}, and bestSum its least cost.
func TestConvolveIsTheFrontOfAllSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	sc := &frontScratch{}
	for trial := range 2000 {
		a, b := randomFront(rng, 6), randomFront(rng, 6)
		limit := float64(rng.IntN(16))
		var sums []paretoEntry
		for _, x := range a {
			for _, y := range b {
				sums = append(sums, paretoEntry{x.use + y.use, x.cost + y.cost})
			}
		}
		want := front(sums, limit)
		got := sc.convolve([]paretoEntry{{-1, -1}}, a, b, limit)
		if got[0] != (paretoEntry{-1, -1}) || !slices.Equal(got[1:], want) {
			t.Fatalf("trial %d: %v ⊕ %v within %v = %v, want %v", trial, a, b, limit, got[1:], want)
		}
		best := math.Inf(1)
		for _, e := range want {
			best = math.Min(best, e.cost)
		}
		if c := bestSum(a, b, limit); c != best {
			t.Fatalf("trial %d: the best sum of %v and %v within %v is %v, want %v", trial, a, b, limit, c, best)
		}
	}
}

// bestSum(A ⊕ B, C ∪ D), where ∪ is mergeFronts, is the least
// (a + b) + c over c in either front within the limit, bit for bit, with
// costs that round: bucketMarginal's best of a bucket's join with the
// union of its outside's fronts over a class.
func TestBestSumOfTheUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	sc := &frontScratch{}
	rounding := func(f []paretoEntry) []paretoEntry {
		for i := range f {
			f[i].cost += rng.Float64() / 3 // still a front: below the next whole cost
		}
		return f
	}
	for trial := range 5000 {
		a, b := rounding(randomFront(rng, 6)), rounding(randomFront(rng, 6))
		c, d := rounding(randomFront(rng, 6)), rounding(randomFront(rng, 6))
		limit := float64(rng.IntN(24))
		got := bestSum(sc.convolve(nil, a, b, limit), mergeFronts(nil, c, d), limit)
		brute := math.Inf(1)
		for _, x := range a {
			for _, y := range b {
				for _, z := range append(slices.Clone(c), d...) {
					if x.use+y.use+z.use <= limit {
						brute = math.Min(brute, (x.cost+y.cost)+z.cost)
					}
				}
			}
		}
		if math.Float64bits(brute) != math.Float64bits(got) {
			t.Fatalf("trial %d: the least sum of %v, %v, %v ∪ %v within %v is %v, bestSum gives %v", trial, a, b, c, d, limit, brute, got)
		}
	}
}

// randomW is a table W over k's boundary: of no plan at a quarter of its
// entries, else a cost of 0 to 49 ns (plus a fraction, where fraction).
func randomW(rng *rand.Rand, k *budgetKernel, fraction bool) pfactor {
	var dims []int
	size := 1
	for _, b := range k.boundary {
		dims = append(dims, len(k.unary[b]))
		size *= dims[len(dims)-1]
	}
	w := newSingle(k.boundary, dims, size)
	for idx := range w.single {
		if rng.IntN(4) > 0 {
			c := float64(rng.IntN(50))
			if fraction {
				c += rng.Float64()
			}
			w.single[idx] = paretoEntry{0, c}
		}
	}
	return w
}

// TestMarginalsAreTheProgramsPerNode: the junction tree's min-marginals of
// a kernel, with a random table W over its boundary, are those of the
// program run with each node kept, on the kernels of random problems and
// of fused transformers; asked for some nodes, the same for those.
func TestMarginalsAreTheProgramsPerNode(t *testing.T) {
	kernels := testKernels(t, 400)
	if len(kernels) < 30 {
		t.Fatalf("%d kernels", len(kernels))
	}
	rng := rand.New(rand.NewPCG(3, 5))
	compared := 0
	for ki, k := range kernels {
		w := randomW(rng, k, false)
		for _, extra := range [][]pfactor{nil, {w}} {
			got := k.marginals(extra...)
			if got == nil {
				t.Fatalf("kernel %d: no marginals", ki)
			}
			// Asked for every third node, the same numbers for those.
			need := func(li int) bool { return li%3 == ki%3 }
			some := k.marginalsOf(nil, need, extra...)
			for li := range k.nodes {
				for a := range some[li] {
					if need(li) && some[li][a] != got[li][a] || !need(li) && !math.IsInf(some[li][a], 1) {
						t.Fatalf("kernel %d, node %d (needed: %v), alternative %d: %v, every node's %v", ki, li, need(li), a, some[li][a], got[li][a])
					}
				}
			}
			for li := range k.nodes {
				f, ok := k.solve(nil, []int{li}, extra...)
				if !ok {
					t.Fatalf("kernel %d, node %d: the program outgrew its limits", ki, li)
				}
				for a := range k.unary[li] {
					want := k.best(f.front(a))
					if got[li][a] != want && !(math.Abs(got[li][a]-want) <= 1e-9*math.Max(1, math.Abs(want))) {
						t.Fatalf("kernel %d (%d nodes, boundary %v), node %d, alternative %d: marginal %v, the program %v", ki, len(k.nodes), k.boundary, li, a, got[li][a], want)
					}
					compared++
				}
			}
		}
	}
	t.Logf("%d kernels, %d marginals compared", len(kernels), compared)
}

// TestContractedProblemEliminatesWhole: the contracted problem of a fused
// model is eliminated whole, with no core, once the whole elimination's
// budget grows by wholePerKernel a kernel; the fixed budget alone would
// leave it a core for HiGHS as the kernels add up (past about 1,100 layers
// of a fused transformer).
func TestContractedProblemEliminatesWhole(t *testing.T) {
	const layers = 20
	p := &lowered(t, fusedTransformer(t, layers, 1, 300_000)).problem
	c := contractKernels(context.Background(), p, 1)
	if c == nil || len(c.kernels) != layers {
		t.Fatal("want every layer contracted")
	}
	in := newInstance(c.q, false)
	// A budget that the layers outgrow: the fixed one, scaled down.
	const small = 1 << 18
	if _, cm := reduceAndBuild(in, DefaultMaxTable, true, true, small, func() ModelSize { return fullSize(in) }, nil); cm == nil {
		t.Fatalf("%d entries eliminated %d layers whole: the test needs a smaller budget", small, layers)
	}
	r, cm := reduceAndBuild(in, DefaultMaxTable, true, true, small+layers*wholePerKernel, func() ModelSize { return fullSize(in) }, nil)
	if cm != nil || len(r.core) != 0 {
		t.Fatalf("with %d entries a kernel more, a core of %d nodes is left", wholePerKernel, len(r.core))
	}
}

// TestContractedWholeBoundIsObjective: a fused model whose contracted
// problem the reduction eliminates whole is proven exactly, and reports
// its bound as its objective and a gap of 0, as a model eliminated whole
// without contraction does. The contracted problem adds the costs in
// another order than the verifier: on cklplan gen transformer --layers 3
// --exec-scale 30 --kernel-smem 12288 its bound came out an ulp below the
// objective, and the plan said "gap": 1.1e-16.
func TestContractedWholeBoundIsObjective(t *testing.T) {
	highstest.Library(t)
	g := fusedScaled(t, 3, 1, 12_288, 30)
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Model.ContractedKernels == 0 || r.Model.Core != 0 {
		t.Fatalf("%d kernels contracted, a core of %d: the case tests nothing", r.Model.ContractedKernels, r.Model.Core)
	}
	if r.Status != Optimal || r.BoundNS != r.ObjectiveNS || r.Gap != 0 || r.BoundFrom != "" {
		t.Errorf("status %s, bound %v (%q), objective %v, gap %v: want the bound the objective, gap 0", r.Status, r.BoundNS, r.BoundFrom, r.ObjectiveNS, r.Gap)
	}
}

// TestInteriorDecoded: a kernel's interior, read in one walk of its
// program's buckets, keeps the kernel's optimum at every boundary tuple
// with a plan; each node's choice is its first alternative that keeps it
// with the nodes before it in the walk fixed (the program run with the
// node kept says so); and wherever each node's first alternative by its
// min-marginal alone keeps the optimum with the others', the interior is
// those, as node by node in the kernel's order. Kernels of random
// problems, of fused transformers, and chains under a budget that only a
// third of their nodes' cheaper alternatives fit (ties that make the
// min-marginals' choices not keep it together).
func TestInteriorDecoded(t *testing.T) {
	kernels := testKernels(t, 400)
	for _, n := range []int{3, 6, 10} {
		p := &Problem{Budgets: []Budget{{Name: "smem", Capacity: float64(n / 3)}}}
		for v := range n {
			p.Nodes = append(p.Nodes, Node{Name: fmt.Sprintf("v%d", v), Alternatives: []Alternative{
				{ID: "smem", Cost: 1, Uses: []Use{{Budget: 0, Amount: 1}}},
				{ID: "regs", Cost: 2},
			}})
			if v > 0 {
				p.Groups = append(p.Groups, Group{Name: fmt.Sprintf("e%d", v), Producer: v - 1, Sources: []string{"s", "r"},
					Consumers: []Consumer{{Node: v, Targets: []string{"s", "r"}}},
					Pairs:     []Pair{{Source: "s", Target: "s"}, {Source: "r", Target: "r"}, {Source: "s", Target: "r", Cost: 0.5}, {Source: "r", Target: "s", Cost: 0.5}}})
			}
		}
		c := contractKernels(context.Background(), p, 1)
		if c == nil {
			t.Fatalf("a chain of %d: no kernel contracted", n)
		}
		kernels = append(kernels, c.kernels...)
	}
	agree, apart := 0, 0
	for ki, k := range kernels {
		// At most 16 tuples a kernel, spread over its table.
		step := max(1, len(k.tuples)/16)
		for tu := 0; tu < len(k.tuples); tu += step {
			target := k.table[tu]
			if math.IsInf(target, 1) {
				continue
			}
			keep := target + objectiveTolerance(target)
			at := k.tuple(tu)
			boundary := map[int]int{}
			for j, li := range k.boundary {
				boundary[li] = at[j]
			}
			fixed := maps.Clone(boundary)
			allowed := func(li, a int) bool {
				b, ok := fixed[li]
				return !ok || a == b
			}
			got := k.interior(tu)
			if got == nil {
				t.Fatalf("kernel %d, tuple %d: no interior", ki, tu)
			}
			if c := k.fixed(at, got); c > keep {
				t.Fatalf("kernel %d, tuple %d: interior %v costs %v, the optimum %v", ki, tu, got, c, target)
			}
			pick, order := k.interiorDecoded(allowed, target)
			if pick == nil {
				t.Fatalf("kernel %d, tuple %d: not decoded", ki, tu)
			}
			for _, li := range order {
				if _, ok := fixed[li]; ok {
					continue
				}
				if pick[li] != got[li] {
					t.Fatalf("kernel %d, tuple %d, node %d: interior %d, decoded %d", ki, tu, li, got[li], pick[li])
				}
				f, ok := k.solve(allowed, []int{li})
				if !ok {
					t.Fatalf("kernel %d: the program outgrew its limits", ki)
				}
				for a, alt := range k.p.Nodes[k.nodes[li]].Alternatives {
					if alt.Removed != "" || a > got[li] {
						continue
					}
					if kept := k.best(f.front(a)) <= keep; kept != (a == got[li]) {
						t.Fatalf("kernel %d, tuple %d, node %d: alternative %d keeps the optimum: %v; chosen %d", ki, tu, li, a, kept, got[li])
					}
				}
				fixed[li] = got[li]
			}
			// The min-marginals' first choices, where they keep it
			// together, are the interior node by node too.
			mm := k.marginalsAllowed(func(li, a int) bool {
				b, ok := boundary[li]
				return !ok || a == b
			})
			firsts := slices.Repeat([]int{-1}, len(k.nodes))
			for _, li := range k.internal {
				for a, alt := range k.p.Nodes[k.nodes[li]].Alternatives {
					if alt.Removed == "" && mm[li][a] <= keep {
						firsts[li] = a
						break
					}
				}
			}
			if !slices.ContainsFunc(k.internal, func(li int) bool { return firsts[li] < 0 }) && k.fixed(at, firsts) <= keep {
				agree++
				if want := k.interiorNodeByNode(tu); !slices.Equal(got, want) || !slices.Equal(got, firsts) {
					t.Fatalf("kernel %d, tuple %d: interior %v, node by node %v, the min-marginals' %v", ki, tu, got, want, firsts)
				}
			} else {
				apart++
			}
		}
	}
	t.Logf("%d kernels; at %d tuples the min-marginals' first choices keep the optimum together, at %d not", len(kernels), agree, apart)
	if agree == 0 || apart == 0 {
		t.Errorf("%d tuples where the min-marginals' choices keep the optimum, %d where not: want both", agree, apart)
	}
}

// TestUnionJoinOnAnyWorkers: a kernel's program gives the same tables,
// min-marginals and interior, bit for bit, on one goroutine and with its
// joins' entries split among three (unionJoin, every join split here).
func TestUnionJoinOnAnyWorkers(t *testing.T) {
	kernels := testKernels(t, 100)
	defer func(w int) { unionParallelWork = w }(unionParallelWork)
	unionParallelWork = 1
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	fronts := func(f pfactor) []paretoEntry {
		var out []paretoEntry
		for i := range max(len(f.lists), len(f.single)) {
			out = append(out, f.front(i)...)
			out = append(out, paretoEntry{-1, -1})
		}
		return out
	}
	for ki, k := range kernels {
		type run struct {
			table     []paretoEntry
			marginals [][]float64
			interior  []int
		}
		var runs []run
		for _, w := range []int{1, 3} {
			k.workers = w
			f, ok := k.solve(nil, k.boundary)
			if !ok {
				t.Fatalf("kernel %d: the program outgrew its limits", ki)
			}
			r := run{table: fronts(f), marginals: k.marginals()}
			for tu := range k.tuples {
				if !math.IsInf(k.table[tu], 1) {
					r.interior = k.interior(tu)
					break
				}
			}
			runs = append(runs, r)
		}
		a, b := runs[0], runs[1]
		if !slices.Equal(a.table, b.table) || !slices.EqualFunc(a.marginals, b.marginals, same) || !slices.Equal(a.interior, b.interior) {
			t.Fatalf("kernel %d (%d nodes): on 1 and 3 goroutines the program differs", ki, len(k.nodes))
		}
	}
}

// TestMergeShifted: merging a front with another shifted by an entry, up
// to a limit, is merging it with the shifted copy (mergeFronts, shift),
// the same entries in the same order: fronts of few uses and costs, so
// that ties of use, of cost and of both are common, and entries kept
// before.
func TestMergeShifted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 20000 {
		a, b := randomFront(rng, 6), randomFront(rng, 6)
		d := paretoEntry{float64(rng.IntN(4)), float64(rng.IntN(4))}
		limit := float64(rng.IntN(12))
		var before []paretoEntry
		if rng.IntN(3) == 0 {
			before = []paretoEntry{{-1, float64(rng.IntN(12))}}
		}
		want := mergeFronts(slices.Clone(before), a, shift(nil, d, b, limit))
		if got := mergeShifted(slices.Clone(before), a, d, b, limit); !slices.Equal(got, want) {
			t.Fatalf("trial %d: %v merged after %v with %v shifted by %v within %v: %v, want %v", trial, a, before, b, d, limit, got, want)
		}
	}
}

// testKernels are the kernels that contracting randomProblem(0 … seeds−1,
// 10) makes, and those of two-layer fused transformers whose budgets bind
// (250,000) and do not quite (400,000).
func testKernels(t *testing.T, seeds uint64) []*budgetKernel {
	t.Helper()
	var kernels []*budgetKernel
	for seed := range seeds {
		if c := contractKernels(context.Background(), randomProblem(seed, 10), 1); c != nil {
			kernels = append(kernels, c.kernels...)
		}
	}
	for _, budget := range []int64{400_000, 250_000} {
		c := contractKernels(context.Background(), &lowered(t, fusedTransformer(t, 2, 3, budget)).problem, 1)
		kernels = append(kernels, c.kernels...)
	}
	return kernels
}

// TestTablesFrom: kernels of up to tableInterior interior nodes explained
// read tables from tableKernels kernels alike, larger ones from
// proportionally more, and a test's least stands.
func TestTablesFrom(t *testing.T) {
	kernel := func(interior int) *budgetKernel {
		k := &budgetKernel{}
		for i := range interior {
			k.nodes = append(k.nodes, 100+i)
			k.internal = append(k.internal, i)
		}
		return k
	}
	all := func(int) bool { return true }
	odd := func(v int) bool { return v%2 == 1 }
	for _, c := range []struct {
		interior    int
		explained   func(int) bool
		least, want int
	}{
		{4, all, 0, tableKernels},
		{tableInterior, all, 0, tableKernels},
		{30, all, 0, 3 * tableKernels},
		{30, odd, 0, 3 * tableKernels / 2},
		{30, all, 5, 5},
	} {
		if got := tablesFrom(kernel(c.interior), c.explained, c.least); got != c.want {
			t.Errorf("%d interior nodes, least %d: %d kernels alike, want %d", c.interior, c.least, got, c.want)
		}
	}
}

// TestClassesChangeNoNumber: filling one entry per class of alternatives
// and sharing its front (classes.go) gives the program's tables, min-
// marginals (with and without W) and interiors bit for bit as filling
// every entry, and the kernels' messages do share.
func TestClassesChangeNoNumber(t *testing.T) {
	kernels := testKernels(t, 100)
	defer func() { classesOff = false }()
	rng := rand.New(rand.NewPCG(7, 11))
	same := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
	}
	bits := func(f pfactor) []uint64 {
		var out []uint64
		for i := range max(len(f.lists), len(f.single)) {
			for _, e := range f.front(i) {
				out = append(out, math.Float64bits(e.use), math.Float64bits(e.cost))
			}
			out = append(out, math.MaxUint64)
		}
		return out
	}
	shared := 0 // messages with fewer classes than positions at a node
	for ki, k := range kernels {
		w := randomW(rng, k, false)
		type run struct {
			table     []uint64
			marginals [][]float64
			withW     [][]float64
			interior  [][]int
		}
		var runs []run
		for _, off := range []bool{true, false} {
			classesOff = off
			f, ok := k.solve(nil, k.boundary)
			if !ok {
				t.Fatalf("kernel %d: the program outgrew its limits", ki)
			}
			r := run{table: bits(f), marginals: k.marginals(), withW: k.marginals(w)}
			for tu := range k.tuples {
				if !math.IsInf(k.table[tu], 1) {
					r.interior = append(r.interior, k.interior(tu))
				}
			}
			runs = append(runs, r)
			if !off {
				pr := k.prepare(nil, nil)
				run, ok := (&frontScratch{}).record(&pr, make([]int, len(k.nodes)), make([]int, len(k.nodes)))
				if !ok {
					t.Fatalf("kernel %d: the program outgrew its limits", ki)
				}
				for _, m := range run.pool[len(pr.factors):] {
					for j, c := range m.cls {
						if int(slices.Max(append([]int32{-1}, c...)))+1 < m.dims[j] {
							shared++
						}
					}
				}
			}
		}
		a, b := runs[0], runs[1]
		if !slices.Equal(a.table, b.table) || !slices.EqualFunc(a.marginals, b.marginals, same) ||
			!slices.EqualFunc(a.withW, b.withW, same) || !slices.EqualFunc(a.interior, b.interior, slices.Equal) {
			t.Fatalf("kernel %d (%d nodes): by class and entry by entry the program differs", ki, len(k.nodes))
		}
	}
	if shared < 10 {
		t.Fatalf("%d messages' nodes have fewer classes than positions, want 10 or more", shared)
	}
	t.Logf("%d kernels; %d messages' nodes classed", len(kernels), shared)
}

// TestTailsChangeNoMarginal: the outside tables with the nodes' own
// fronts shifted in after the union (unionJoinTails) give the kernels'
// min-marginals, with and without W, as joining them in their order does,
// up to rounding.
func TestTailsChangeNoMarginal(t *testing.T) {
	kernels := testKernels(t, 100)
	defer func() { tailsOff = false }()
	rng := rand.New(rand.NewPCG(13, 17))
	close := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool {
			return x == y || math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y))
		})
	}
	compared := 0
	for ki, k := range kernels {
		w := randomW(rng, k, true)
		var runs [2][2][][]float64
		for i, off := range []bool{true, false} {
			tailsOff = off
			runs[i] = [2][][]float64{k.marginals(), k.marginals(w)}
		}
		for j := range 2 {
			if !slices.EqualFunc(runs[0][j], runs[1][j], close) {
				t.Fatalf("kernel %d (%d nodes, W: %v): the tails shifted in last change the min-marginals", ki, len(k.nodes), j == 1)
			}
			compared += len(runs[0][j])
		}
	}
	t.Logf("%d kernels, %d nodes' min-marginals compared", len(kernels), compared)
}

// TestPartIndexSumsToIndex: a factor's index at an assignment is the sum
// of partIndex over any split of its nodes, over alternatives and over
// positions alike.
func TestPartIndexSumsToIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 31))
	for trial := range 1000 {
		n := 1 + rng.IntN(4)
		f := pfactor{pos: trial%2 == 1}
		asg, pasg := make([]int, 8), make([]int, 8)
		f.vars = slices.Sorted(slices.Values(rng.Perm(8)[:n]))
		for _, x := range f.vars {
			d := 1 + rng.IntN(5)
			f.dims = append(f.dims, d)
			asg[x], pasg[x] = rng.IntN(d), rng.IntN(d)
		}
		split := rng.Uint64()
		in := func(x int) bool { return split>>x&1 == 1 }
		out := func(x int) bool { return !in(x) }
		at := asg
		if f.pos {
			at = pasg
		}
		if got, want := f.partIndex(in, asg, pasg)+f.partIndex(out, asg, pasg), f.index(at); got != want {
			t.Fatalf("trial %d: %v dims %v: parts sum to %d, index %d", trial, f.vars, f.dims, got, want)
		}
	}
}

package planner

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// evalCost is what plan asg (domain positions) costs by the verifier:
// execution plus conversion, +Inf where a conversion cannot be made.
func evalCost(t *testing.T, in *instance, asg []int) float64 {
	t.Helper()
	alts := make([]int, len(asg))
	for v, k := range asg {
		alts[v] = in.domain[v][k]
	}
	ev, err := in.p.Evaluate(alts)
	if err != nil {
		t.Fatal(err)
	}
	return ev.Execution + ev.Conversion
}

// sameCost says a and b are the same cost up to rounding (both +Inf, or
// both −Inf, included).
func sameCost(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// On 600 random problems (randomProblem: fan-outs, pairs that cannot be
// converted, ties), a descent from a random plan with one node held to a
// random set of its positions: the node ends in its set; from a plan that
// can be made, run's delta is the verifier's cost of the plan it leaves
// less that of the plan before;
// no node it visited (the held node's neighbours, and a moved node's) can
// move alone to a cheaper plan; undo gives the plan back; and diff prices
// two random plans as the verifier does.
func TestDescentPricesItsPlans(t *testing.T) {
	moves := 0
	for seed := range uint64(600) {
		p := randomProblem(seed, 12)
		in := newInstance(p, false)
		if len(in.empty) > 0 {
			continue
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		n := len(in.domain)
		asg := make([]int, n)
		for v := range asg {
			asg[v] = rng.IntN(len(in.domain[v]))
		}
		before := slices.Clone(asg)
		v := rng.IntN(n)
		var set []int
		for k := range in.domain[v] {
			if rng.IntN(2) == 0 {
				set = append(set, k)
			}
		}
		if len(set) == 0 {
			set = []int{rng.IntN(len(in.domain[v]))}
		}
		d := newDescent(in)
		delta := d.run(asg, []int{v}, [][]int{set})
		moves += len(d.moved)
		if !slices.Contains(set, asg[v]) {
			t.Fatalf("seed %d: v%d at %d, outside %v", seed, v, asg[v], set)
		}
		was, now := evalCost(t, in, before), evalCost(t, in, asg)
		want := now - was
		if math.IsInf(now, 1) {
			want = now
		}
		if !math.IsInf(was, 1) && !sameCost(delta, want) {
			t.Fatalf("seed %d: delta %v, the verifier's %v − %v", seed, delta, now, was)
		}
		// The nodes visited: v's neighbours and the moved nodes'.
		visited := map[int]bool{}
		for _, u := range append([]int{v}, d.moved...) {
			for _, gi := range d.touch[u] {
				for _, w := range groupNodes(&p.Groups[gi]) {
					visited[w] = w != v
				}
			}
		}
		for u, ok := range visited {
			if !ok {
				continue
			}
			at := asg[u]
			for k := range in.domain[u] {
				asg[u] = k
				if c := evalCost(t, in, asg); c < now && !sameCost(c, now) {
					t.Fatalf("seed %d: v%d from %d to %d costs %v < %v: the descent left a cheaper move", seed, u, at, k, c, now)
				}
			}
			asg[u] = at
		}
		d.undo(asg)
		if !slices.Equal(asg, before) {
			t.Fatalf("seed %d: undo left %v, want %v", seed, asg, before)
		}
		// diff against another random plan, differing at a random set.
		other := slices.Clone(asg)
		var nodes []int
		for u := range other {
			if rng.IntN(3) == 0 {
				other[u] = rng.IntN(len(in.domain[u]))
				nodes = append(nodes, u, u) // repeats are allowed
			}
		}
		got, a, b := d.diff(other, asg, nodes), evalCost(t, in, other), evalCost(t, in, asg)
		want = a - b
		if math.IsInf(a, 1) {
			want = a
		}
		if !math.IsInf(b, 1) && !sameCost(got, want) {
			t.Fatalf("seed %d: diff %v, the verifier's %v − %v", seed, got, a, b)
		}
	}
	if moves < 300 {
		t.Errorf("%d moves in 600 descents: the test hardly tests them", moves)
	}
}

// On 400 random problems (those without budgets) and DAGs, from a plan
// that can be made, 1–4 nodes each held to a random set of its positions
// (a separator's query): jointBest's delta is the least, over every
// combination, of the verifier's cost less the plan's, and windowBounds's
// window of those nodes (windower.best, a window of queryWindow 1) finds
// it too, within rounding; +Inf where no combination can be made, and asg
// is given back.
func TestJointBestIsTheWindow(t *testing.T) {
	compared, infinite, windows := 0, 0, 0
	for seed := range uint64(400) {
		p := randomProblem(seed, 10)
		if seed%2 == 1 {
			p = randomDAG(seed, 12, 4)
		}
		in := newInstance(p, false)
		if len(in.empty) > 0 || len(p.Budgets) > 0 {
			continue // (the windows and the descents are of problems without budgets)
		}
		rng := rand.New(rand.NewPCG(seed, 11))
		n := len(in.domain)
		base := make([]int, n)
		made := false
		for range 20 {
			for v := range base {
				base[v] = rng.IntN(len(in.domain[v]))
			}
			if made = !math.IsInf(evalCost(t, in, base), 1); made {
				break
			}
		}
		if !made {
			continue
		}
		d := newDescent(in)
		w := newWindower(p)
		w.size = queryWindow
		plan := make([]int, n)
		for v, k := range base {
			plan[v] = in.domain[v][k]
		}
		for range 5 {
			nodes := rng.Perm(n)[:1+rng.IntN(min(4, n))]
			sets := make([][]int, len(nodes))
			for j, v := range nodes {
				for k := range in.domain[v] {
					if rng.IntN(2) == 0 {
						sets[j] = append(sets[j], k)
					}
				}
				if len(sets[j]) == 0 {
					sets[j] = []int{rng.IntN(len(in.domain[v]))}
				}
			}
			asg := slices.Clone(base)
			got, ok := d.jointBest(asg, base, nodes, sets)
			if !ok {
				t.Fatalf("seed %d: %d nodes refused", seed, len(nodes))
			}
			if !slices.Equal(asg, base) {
				t.Fatalf("seed %d: jointBest left %v, want %v", seed, asg, base)
			}
			// Every combination by the verifier.
			was, want := evalCost(t, in, base), math.Inf(1)
			at := make([]int, len(nodes))
			for {
				for j, v := range nodes {
					asg[v] = sets[j][at[j]]
				}
				if c := evalCost(t, in, asg); c-was < want {
					want = c - was
				}
				j := len(at) - 1
				for ; j >= 0 && at[j]+1 == len(sets[j]); j-- {
					at[j] = 0
				}
				if j < 0 {
					break
				}
				at[j]++
			}
			copy(asg, base)
			if !sameCost(got, want) {
				t.Fatalf("seed %d: nodes %v in %v: jointBest %v, the verifier's %v", seed, nodes, sets, got, want)
			}
			compared++
			if math.IsInf(got, 1) {
				infinite++
			}
			allowed := make([][]int, len(nodes))
			for j, v := range nodes {
				for _, k := range sets[j] {
					allowed[j] = append(allowed[j], in.domain[v][k])
				}
			}
			if before, after, ok := w.best(nodes, allowed, plan, false); ok {
				windows++
				if !sameCost(after-before, got) {
					t.Fatalf("seed %d: nodes %v in %v: jointBest %v, the window's %v − %v", seed, nodes, sets, got, after, before)
				}
			}
		}
	}
	t.Logf("%d queries compared (%d by a window too), %d of them without a plan", compared, windows, infinite)
	if compared < 1000 || infinite == 0 || windows < compared/2 {
		t.Errorf("%d queries compared (%d by a window too), %d without a plan", compared, windows, infinite)
	}
	d := newDescent(newInstance(randomProblem(1, 10), false))
	if _, ok := d.jointBest(nil, nil, []int{0, 1, 2}, [][]int{make([]int, 7), make([]int, 7), make([]int, 7)}); ok {
		t.Errorf("7³ combinations priced, over jointCombos (%d)", jointCombos)
	}
}

// On the engine's dense random DAG of 150 nodes (randomDAG, seed 3), every
// third node explained: the regrets are the same with the descents and
// without them (exact either way), with fewer re-solves, and some queries
// answered by a chain's descent alone. The windows of the certificates'
// regions (regionWindows), which answer those queries too, are off.
func TestDescentsKeepTheRegrets(t *testing.T) {
	highstest.Library(t)
	p := randomDAG(3, 150, 4)
	var explain []int
	for v := 0; v < len(p.Nodes); v += 3 {
		explain = append(explain, v)
	}
	solveWith := func(on bool) *Solution {
		defer func(was bool) { queryDescent = was }(queryDescent)
		queryDescent = on
		sol, err := Solve(context.Background(), p, Options{Explain: explain, noRegionWindows: true})
		if err != nil {
			t.Fatal(err)
		}
		return sol
	}
	with, without := solveWith(true), solveWith(false)
	if len(with.Regrets) != len(without.Regrets) {
		t.Fatalf("%d regrets with the descents, %d without", len(with.Regrets), len(without.Regrets))
	}
	tol := objectiveTolerance(with.Objective)
	for i, r := range with.Regrets {
		w := without.Regrets[i]
		if r.Node != w.Node || r.Alternative != w.Alternative || r.Exact != w.Exact || math.Abs(r.Regret-w.Regret) > tol {
			t.Errorf("regret %d: %+v with the descents, %+v without", i, r, w)
		}
	}
	if with.RegretSolves >= without.RegretSolves {
		t.Errorf("re-solves: %d with the descents, %d without; want fewer", with.RegretSolves, without.RegretSolves)
	}
	t.Logf("%d regrets; re-solves %d → %d, and %d queries answered by a chain's descent", len(with.Regrets),
		without.RegretSolves, with.RegretSolves, with.descended)
}

package planner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// structured builds a problem over n nodes with d alternatives each and one
// group per entry of groups (producer first, then its consumers), with
// seeded random costs: every pair of labels convertible, identity free.
func structured(seed uint64, n, d int, groups [][]int) *Problem {
	rng := rand.New(rand.NewPCG(seed, 7))
	labels := []string{"row", "col", "frag", "swz"}
	p := &Problem{}
	for v := range n {
		node := Node{Name: fmt.Sprintf("v%d", v)}
		for a := range d {
			node.Alternatives = append(node.Alternatives, Alternative{ID: fmt.Sprintf("a%d", a), Cost: float64(rng.IntN(100))})
		}
		p.Nodes = append(p.Nodes, node)
	}
	lab := func() []string {
		ls := make([]string, d)
		for i := range ls {
			ls[i] = labels[rng.IntN(len(labels))]
		}
		return ls
	}
	for gi, g := range groups {
		gr := Group{Name: fmt.Sprintf("g%d", gi), Producer: g[0], Sources: lab()}
		for _, w := range g[1:] {
			gr.Consumers = append(gr.Consumers, Consumer{Node: w, Targets: lab()})
		}
		for _, s := range labels {
			for _, t := range labels {
				c := float64(10 + rng.IntN(90))
				if s == t {
					c = 0
				}
				gr.Pairs = append(gr.Pairs, Pair{Source: s, Target: t, Cost: c})
			}
		}
		p.Groups = append(p.Groups, gr)
	}
	return p
}

// TestEliminationShapes: chains, trees, diamonds and fan-outs reduce
// completely (no HiGHS call), within the bucket sizes their shape allows, and
// the optimum and every regret equal exhaustive search's.
func TestEliminationShapes(t *testing.T) {
	const d = 3
	tests := []struct {
		name      string
		n         int
		groups    [][]int
		maxBucket int // the largest bucket the shape needs
	}{
		{"single node", 1, nil, d},
		{"chain", 6, [][]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}, d * d},
		{"tree", 7, [][]int{{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 5}, {2, 6}}, d * d},
		{"diamond", 4, [][]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}}, d * d * d},
		{"residual diamonds", 7, [][]int{{0, 1}, {1, 2}, {0, 2}, {2, 3}, {3, 4}, {2, 4}, {4, 5}, {5, 6}, {4, 6}}, d * d * d},
		{"fan-out", 4, [][]int{{0, 1, 2, 3}}, d * d * d * d},
		{"fan-out into a chain", 6, [][]int{{0, 1, 2, 3}, {1, 4}, {2, 4}, {3, 5}, {4, 5}}, d * d * d * d},
		{"fan-out, one consumer twice", 3, [][]int{{0, 1, 1, 2}}, d * d * d},
	}
	ctx := context.Background()
	for _, tc := range tests {
		for seed := range uint64(20) {
			p := structured(seed, tc.n, d, tc.groups)
			ex := exhaustive(p)
			sol, err := Solve(ctx, p, Options{KeepDominated: true})
			name := fmt.Sprintf("%s seed %d", tc.name, seed)
			checkAgainst(t, name, p, ex, sol, err, true)
			if sol.Model.CoreNodes != 0 || sol.RegretSolves != 0 || sol.MILPNodes != 0 {
				t.Fatalf("%s: core %d nodes, %d re-solves: want a complete reduction", name, sol.Model.CoreNodes, sol.RegretSolves)
			}
			if sol.Model.MaxBucket > tc.maxBucket {
				t.Fatalf("%s: largest bucket %d entries, the shape needs %d", name, sol.Model.MaxBucket, tc.maxBucket)
			}
		}
	}
}

// TestEliminationLimits: a node a budget touches stays in the core, and a
// table limit below a shape's need leaves the rest to HiGHS; the optimum and
// regrets stay exact either way.
func TestEliminationLimits(t *testing.T) {
	highstest.Library(t)
	const d = 3
	ctx := context.Background()
	clique := [][]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}
	for seed := range uint64(10) {
		p := structured(seed, 4, d, clique)
		ex := exhaustive(p)
		// A limit below any bucket (each has at least d entries) keeps K4
		// whole.
		sol, err := Solve(ctx, p, Options{MaxTable: d - 1, KeepDominated: true})
		checkAgainst(t, "K4 under the limit", p, ex, sol, err, true)
		if sol.Model.CoreNodes != 4 || sol.Model.Eliminated != 0 {
			t.Fatalf("K4 seed %d: %d eliminated, core %d; want nothing eliminated", seed, sol.Model.Eliminated, sol.Model.CoreNodes)
		}
		sol, err = Solve(ctx, p, Options{KeepDominated: true})
		checkAgainst(t, "K4", p, ex, sol, err, true)
		if sol.Model.CoreNodes != 0 {
			t.Fatalf("K4 seed %d: core %d with the default limit", seed, sol.Model.CoreNodes)
		}

		// A chain whose middle node uses a budget that binds (one that
		// could not would be dropped, slack.go): the middle stays, its
		// neighbours fold into it.
		p = structured(seed, 5, d, [][]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}})
		p.Budgets = []Budget{{Name: "smem", Capacity: 3}}
		for a := range p.Nodes[2].Alternatives {
			p.Nodes[2].Alternatives[a].Uses = []Use{{Budget: 0, Amount: float64(2 * a)}}
		}
		ex = exhaustive(p)
		sol, err = Solve(ctx, p, Options{KeepDominated: true})
		checkAgainst(t, "budgeted chain", p, ex, sol, err, true)
		if sol.Model.CoreNodes != 1 || sol.Choices[2].Eliminated || !sol.Choices[0].Eliminated {
			t.Fatalf("budgeted chain seed %d: core %d nodes, choices %+v", seed, sol.Model.CoreNodes, sol.Choices)
		}
	}
}

// TestFanOutSharing: one conversion serves both consumers that need the
// same target, and the plan shows the sharing.
func TestFanOutSharing(t *testing.T) {
	highstest.Library(t)
	p := &Problem{
		Nodes: []Node{
			{Name: "load", Alternatives: []Alternative{{ID: "row", Cost: 1}}},
			{Name: "mma0", Alternatives: []Alternative{{ID: "frag", Cost: 5}, {ID: "row", Cost: 6}}},
			{Name: "mma1", Alternatives: []Alternative{{ID: "frag", Cost: 5}, {ID: "row", Cost: 6}}},
		},
		Groups: []Group{{
			Name: "load.out", Producer: 0, Sources: []string{"row"},
			Consumers: []Consumer{{Node: 1, Targets: []string{"frag", "row"}}, {Node: 2, Targets: []string{"frag", "row"}}},
			Pairs:     []Pair{{Source: "row", Target: "row", Cost: 0}, {Source: "row", Target: "frag", Cost: 1.5}},
		}},
	}
	for _, opt := range []Options{{}, {NoReduce: true}} {
		sol, err := Solve(context.Background(), p, opt)
		if err != nil {
			t.Fatal(err)
		}
		// Both frag: 1 + 5 + 5 + 1.5 (one shared conversion) = 12.5; both
		// row: 13; one of each: 13.5.
		g := sol.Groups[0]
		if sol.Objective != 12.5 || len(g.Conversions) != 1 || !g.Conversions[0].Shared() ||
			g.Conversions[0].Target != "frag" {
			t.Fatalf("NoReduce=%v: objective %v, conversions %+v", opt.NoReduce, sol.Objective, g.Conversions)
		}
		ex := exhaustive(p)
		checkAgainst(t, fmt.Sprintf("NoReduce=%v", opt.NoReduce), p, ex, sol, err, true)
	}
}

// fanOut is a producer feeding n consumers through one group: the
// producer has two alternatives, each consumer alts alternatives (one
// when alts is 1), with random costs and targets over two labels.
func fanOut(seed uint64, n, alts int) *Problem {
	rng := rand.New(rand.NewPCG(seed, 0xfa2))
	labels := []string{"x", "y"}
	p := &Problem{Nodes: []Node{{Name: "p", Alternatives: []Alternative{{ID: "a", Cost: float64(rng.IntN(50))}, {ID: "b", Cost: float64(rng.IntN(50))}}}}}
	g := Group{Name: "p.y", Producer: 0, Sources: []string{"x", "y"}}
	for _, s := range labels {
		for _, t := range labels {
			g.Pairs = append(g.Pairs, Pair{Source: s, Target: t, Cost: float64(rng.IntN(5))})
		}
	}
	for c := 1; c <= n; c++ {
		nd := Node{Name: fmt.Sprint("c", c)}
		cons := Consumer{Node: c}
		for a := range alts {
			nd.Alternatives = append(nd.Alternatives, Alternative{ID: fmt.Sprint("a", a), Cost: float64(rng.IntN(10))})
			cons.Targets = append(cons.Targets, labels[rng.IntN(2)])
		}
		p.Nodes = append(p.Nodes, nd)
		g.Consumers = append(g.Consumers, cons)
	}
	p.Groups = []Group{g}
	return p
}

// A fan-out wider than eagerKeys recomputes its nodes' keys when they come
// up (reduce.go): the reduction still finds HiGHS's optimum, on fan-outs
// whose consumers have one alternative (all of it eliminated) and two.
func TestWideFanOutReduces(t *testing.T) {
	highstest.Library(t)
	for seed := range uint64(6) {
		for _, alts := range []int{1, 2} {
			p := fanOut(seed, 3*eagerKeys, alts)
			red, err := Solve(context.Background(), p, Options{NoRegrets: true})
			if err != nil {
				t.Fatal(err)
			}
			whole, err := Solve(context.Background(), p, Options{NoReduce: true, NoRegrets: true})
			if err != nil {
				t.Fatal(err)
			}
			if red.Status != Optimal || math.Abs(red.Objective-whole.Objective) > 1e-9*math.Abs(whole.Objective) {
				t.Errorf("seed %d, %d alternatives: reduced %v at %v, whole %v", seed, alts, red.Status, red.Objective, whole.Objective)
			}
			if alts == 1 && red.Model.CoreNodes != 0 {
				t.Errorf("seed %d: %d core nodes left where every consumer has one alternative", seed, red.Model.CoreNodes)
			}
		}
	}
}

// TestFanOutOfOneAlternative: once the producer of a fan-out to consumers
// of one alternative is eliminated, its message is a table over them all,
// and each consumer's bucket is over that table alone: the bucket shares
// the table's scope and classes, and the table it leaves shares the
// bucket's (reduce.go), rather than writing scopes of N, N−1, … nodes.
// The optimum and every regret equal exhaustive search's, wider than
// eagerKeys too, and a fan-out of 4,000 reduces in a few MB, not the
// 780 MB of writing the scopes anew.
func TestFanOutOfOneAlternative(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	for seed := range uint64(8) {
		for _, n := range []int{2, 5, 3 * eagerKeys} {
			p := fanOut(seed, n, 1)
			ex := exhaustive(p)
			for _, opt := range []Options{{KeepDominated: true}, {KeepDominated: true, NoReduce: true}} {
				sol, err := Solve(ctx, p, opt)
				checkAgainst(t, fmt.Sprintf("seed %d, %d consumers, NoReduce=%v", seed, n, opt.NoReduce), p, ex, sol, err, true)
			}
		}
	}
	in := newInstance(fanOut(1, 4000, 1), false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := reduce(in, DefaultMaxTable, true)
	runtime.ReadMemStats(&after)
	if len(r.core) != 0 {
		t.Fatalf("%d core nodes", len(r.core))
	}
	if b := after.TotalAlloc - before.TotalAlloc; b > 64<<20 {
		t.Errorf("reducing a fan-out of 4,000 consumers of one alternative allocated %d MB", b>>20)
	}
}

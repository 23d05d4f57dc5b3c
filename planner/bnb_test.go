package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// searchProblems is how many seeded random problems the search's tests
// compare with exhaustive search.
const searchProblems = 300

// coreOptimum enumerates every assignment of the core's positions that the
// restriction allows (allowed[k] nil: any) and returns the least cost in
// the whole problem's terms (+Inf when none is feasible).
func coreOptimum(cs *coreSearch, allowed [][]bool) float64 {
	n := len(cs.nodes)
	x := make([]int, n)
	best := math.Inf(1)
	for {
		ok := true
		for k := range n {
			if allowed[k] != nil && !allowed[k][x[k]] {
				ok = false
			}
		}
		if ok {
			best = math.Min(best, cs.cost(x)+cs.r.offset)
		}
		k := n - 1
		for ; k >= 0; k-- {
			if x[k]++; x[k] < cs.dom[k] {
				break
			}
			x[k] = 0
		}
		if k < 0 {
			return best
		}
	}
}

// TestSearchByDefinition checks the search on the cores that small table
// limits leave of random problems, with i-bounds from one that splits every
// bucket to one that splits none: the heuristic at the root and a stopped
// search's bound never exceed the optimum, which an unlimited search finds,
// with and without random restrictions of some nodes' positions.
func TestSearchByDefinition(t *testing.T) {
	ctx := context.Background()
	runs := 0
	for seed := uint64(0); runs < 4*searchProblems && seed < 4*searchProblems; seed++ {
		p := randomProblem(seed, 9)
		p.Budgets = nil
		for v := range p.Nodes {
			for a := range p.Nodes[v].Alternatives {
				p.Nodes[v].Alternatives[a].Uses = nil
			}
		}
		for g := range p.Groups {
			for i := range p.Groups[g].Pairs {
				p.Groups[g].Pairs[i].Uses = nil
			}
		}
		in := newInstance(p, seed%2 == 0)
		if len(in.empty) > 0 {
			continue
		}
		r := reduce(in, 8, seed%3 != 0)
		if len(r.core) == 0 {
			continue
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		for _, ibound := range []int{1, 8, 64, 1 << 16} {
			// Told to stop before its first bucket, the heuristic gives up.
			asked := 0
			if _, err := newCoreSearch(r, ibound, searchBudget, func() bool { asked++; return true }); !errors.Is(err, errSearchStopped) || asked != 1 {
				t.Fatalf("seed %d: a stopped heuristic: %v after %d questions", seed, err, asked)
			}
			cs, err := newCoreSearch(r, ibound, searchBudget, nil)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			name := fmt.Sprintf("seed %d i-bound %d", seed, ibound)
			allowed := make([][]bool, len(cs.nodes))
			var nodes []int
			var sets [][]int
			if seed%2 == 1 {
				for k, v := range cs.nodes {
					if rng.IntN(3) != 0 {
						continue
					}
					allowed[k] = make([]bool, cs.dom[k])
					var set []int
					for a := range cs.dom[k] {
						if rng.IntN(2) == 0 {
							allowed[k][a] = true
							set = append(set, a)
						}
					}
					nodes, sets = append(nodes, v), append(sets, set)
				}
			}
			want := coreOptimum(cs, allowed)
			if !(cs.h0+r.offset <= want+1e-9) {
				t.Fatalf("%s: heuristic %v above the optimum %v", name, cs.h0+r.offset, want)
			}
			s := cs.newSearcher()
			res := s.search(ctx, nodes, sets, nil, searchLimits{})
			if !res.proven || !near(res.objective, want) || !near(res.bound, want) {
				t.Fatalf("%s: search %+v, exhaustive %v", name, res, want)
			}
			if res.asg != nil {
				x := make([]int, len(cs.nodes))
				for k, v := range cs.nodes {
					x[k] = res.asg[v]
					if allowed[k] != nil && !allowed[k][x[k]] {
						t.Fatalf("%s: the plan takes position %d of node %d, not allowed", name, x[k], v)
					}
				}
				if !near(cs.cost(x)+r.offset, res.objective) {
					t.Fatalf("%s: the plan costs %v, the search says %v", name, cs.cost(x)+r.offset, res.objective)
				}
			}
			// A search stopped after one node bounds the optimum from
			// both sides.
			stopped := s.search(ctx, nodes, sets, nil, searchLimits{nodes: 1})
			if !(stopped.bound <= want+1e-9) || !(stopped.objective >= want-1e-9) {
				t.Fatalf("%s: stopped search %+v, exhaustive %v", name, stopped, want)
			}
			runs++
		}
	}
	if runs < 4*searchProblems {
		t.Errorf("only %d searches ran: the generator leaves too few cores", runs)
	}
}

// TestSearchDifferential solves random problems whose cores the search
// solves (no budgets, a table limit of 8 so that a core remains) and checks
// the optimum, the plan's cost and every regret against exhaustive search,
// and the optimum against the NoReduce path (HiGHS on the whole problem).
func TestSearchDifferential(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	searched := 0
	for seed := uint64(0); searched < searchProblems && seed < 6*searchProblems; seed++ {
		p := randomProblem(seed+1<<20, 10)
		if len(p.Budgets) > 0 {
			continue
		}
		ex := exhaustive(p)
		name := fmt.Sprintf("seed %d", seed+1<<20)
		sol, err := Solve(ctx, p, Options{MaxTable: 1, search: searchForce, Workers: 1 + int(seed%3)})
		checkAgainst(t, name+" search", p, ex, sol, err, true)
		if err == nil && sol.Model.CoreNodes > 0 {
			searched++
			if sol.MILPNodes != 0 || sol.RegretMILPSolves != 0 {
				t.Fatalf("%s: HiGHS ran (%d nodes, %d MILP re-solves) where the search should have", name, sol.MILPNodes, sol.RegretMILPSolves)
			}
		}
		if err == nil && seed%10 == 0 {
			// The regrets do not depend on how many goroutines search.
			again, err := Solve(ctx, p, Options{MaxTable: 1, search: searchForce, Workers: 4})
			if err != nil || !reflect.DeepEqual(again.Regrets, sol.Regrets) || !reflect.DeepEqual(again.Choices, sol.Choices) {
				t.Fatalf("%s: with 4 workers: %v, %v; with %d: %v", name, again, err, 1+seed%3, sol)
			}
		}
		if err == nil && seed%10 == 3 {
			// Every query's searches stopped after one node but the last:
			// each query goes through every heuristic of its own
			// (querySteps), and the regrets are the same.
			sol, err := Solve(ctx, p, Options{MaxTable: 1, search: searchForce, queryNodes: 1})
			checkAgainst(t, name+" every query step", p, ex, sol, err, true)
		}
		if err == nil && seed%10 == 7 {
			// The core's first heuristic stopped after one node: the
			// second, of a larger i-bound, goes on from its plan.
			sol, err := Solve(ctx, p, Options{MaxTable: 1, search: searchForce, firstNodes: 1})
			checkAgainst(t, name+" second heuristic", p, ex, sol, err, true)
		}
		if seed%10 == 5 {
			// A search stopped at once: HiGHS solves the core from its
			// plan and answers the regrets.
			sol, err := Solve(ctx, p, Options{MaxTable: 1, search: searchStop})
			checkAgainst(t, name+" search stopped", p, ex, sol, err, true)
		}
		sol, err = Solve(ctx, p, Options{NoReduce: true, NoRegrets: true})
		checkAgainst(t, name+" NoReduce", p, ex, sol, err, false)
	}
	if searched < searchProblems {
		t.Errorf("only %d problems left a core to the search", searched)
	}
}

// A core whose LP relaxation is integral goes to HiGHS, which proves it at
// its root, without the search (which took seconds on this one); a core
// whose relaxation is fractional is searched first (TestReportNamesTheSearch).
func TestTightCoreSkipsTheSearch(t *testing.T) {
	p := randomDAG(1, 40, 8)
	sol, err := Solve(context.Background(), p, Options{NoRegrets: true})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Model.CoreNodes == 0 || sol.Model.CoreNodes > searchMaxNodes {
		t.Fatalf("core of %d nodes: the case tests nothing", sol.Model.CoreNodes)
	}
	if sol.Search != nil || sol.Status != Optimal {
		t.Errorf("status %v, search %+v: want optimal by HiGHS, no search", sol.Status, sol.Search)
	}
}

// The mini-bucket messages see a separator node through the classes its
// functions see it in, not through its whole domain, so the i-bound holds
// more of a bucket and the bound is tighter: the 40-invocation dense DAG's
// core (33 nodes) is proven in a few thousand search nodes (5 million with
// messages over whole domains, in an order of fewest combinations first).
func TestSearchMessagesOverClasses(t *testing.T) {
	highstest.Library(t)
	r := planDAG(t, 40, 1)
	if r.CoreSearch == nil || !r.CoreSearch.Proved || r.Status != Optimal {
		t.Fatalf("%s, search %+v: want the search to prove the core", r.Status, r.CoreSearch)
	}
	if r.CoreSearch.Nodes > 100_000 {
		t.Errorf("the search took %d nodes: want at most 100,000", r.CoreSearch.Nodes)
	}
}

// TestSearchReportsProgress: while the branch and bound searches a core,
// Options.Progress hears from it (Progress.Searching), in one stage of the
// search or through both: every report's bound is proven (at most the
// optimum, and never falling) and its incumbent a plan's cost (at least the
// optimum).
func TestSearchReportsProgress(t *testing.T) {
	highstest.Library(t)
	g := generatedDAG(t, 45, 1)
	for _, first := range []int64{0, 2_000} {
		var mu sync.Mutex
		var reports []Progress
		opts := PlanOptions{ExplainIDs: []string{}}
		opts.Solve.searchReports = true
		opts.Solve.firstNodes = first
		opts.Solve.Progress = func(p Progress) {
			mu.Lock()
			reports = append(reports, p)
			mu.Unlock()
		}
		r, err := Plan(context.Background(), g, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.CoreSearch == nil || !r.CoreSearch.Proved || r.Status != Optimal {
			t.Fatalf("%s, search %+v: want the search to prove the core", r.Status, r.CoreSearch)
		}
		optimum := r.ObjectiveNS
		tol := 1e-9 * optimum
		searching, second, rose := 0, false, false
		bound, nodes := math.Inf(-1), int64(0)
		for i, p := range reports {
			if !p.Searching {
				continue
			}
			searching++
			name := fmt.Sprintf("first stage %d nodes, report %d %+v", first, i, p)
			if p.Bound > optimum+tol || p.Incumbent < optimum-tol {
				t.Errorf("%s: the optimum %v is outside [bound, incumbent]", name, optimum)
			}
			if p.Bound < bound-tol || p.Nodes < nodes {
				t.Errorf("%s: bound or nodes fell (from %v, %d)", name, bound, nodes)
			}
			if want := gap(p.Incumbent, p.Bound); math.Abs(p.Gap-want) > 1e-12 {
				t.Errorf("%s: gap %v, want %v", name, p.Gap, want)
			}
			rose = rose || searching > 1 && p.Bound > bound+tol
			bound, nodes = p.Bound, p.Nodes
			second = second || p.Nodes > first
		}
		if searching < 10 || !rose || first > 0 && !second {
			t.Errorf("first stage %d nodes: %d reports from the search (%d nodes in all), the bound rising: %t, past the first stage: %t",
				first, searching, r.CoreSearch.Nodes, rose, second)
		}
	}
}

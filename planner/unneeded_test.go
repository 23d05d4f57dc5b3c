package planner

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// TestUnneededSeparatorQueries: an eliminated node's regrets go through
// the queries of its bucket's separator, a core re-solve each, and only
// those whose lower end could bring one of its min-marginals below what a
// plan already gives are re-solved (dropUnneeded). Every regret must be
// the same as with every separator's query re-solved: on random DAGs whose
// cores keep some buckets' separators, and on generated task graphs whose
// LP is not tight (their separators' queries are LP re-solved first, for
// their bounds), with every node explained and every third (so that some
// queries matter only to nodes eliminated before their buckets' nodes).
func TestUnneededSeparatorQueries(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	type problem struct {
		name string
		p    *Problem
		opt  Options
	}
	problems := []problem{{"randomDAG(2, 40, 4)", randomDAG(2, 40, 4), Options{MaxTable: 64}}}
	sizes := []int{60, 100}
	if raceEnabled {
		sizes = sizes[:1] // the race detector's time: the rest runs the same code
	}
	for _, n := range sizes {
		p, third := genDAG3(t, n)
		name := fmt.Sprintf("gen dag --invocations %d --exec-scale 100 --seed 3", n)
		if n == 60 && !raceEnabled {
			problems = append(problems, problem{name, p, Options{}})
		}
		problems = append(problems, problem{name + ", every third node explained", p, Options{Explain: third}})
	}
	dropped, afterLP := 0, 0
	for _, c := range problems {
		got, err := Solve(ctx, c.p, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		all := c.opt
		all.allSeparators = true
		want, err := Solve(ctx, c.p, all)
		if err != nil {
			t.Fatalf("%s, every separator's query: %v", c.name, err)
		}
		if want.regretsUnneeded != 0 {
			t.Fatalf("%s: %d queries dropped with allSeparators", c.name, want.regretsUnneeded)
		}
		if got.Objective != want.Objective || len(got.Regrets) != len(want.Regrets) {
			t.Fatalf("%s: optimum %v with %d regrets, every separator's query %v with %d", c.name, got.Objective, len(got.Regrets), want.Objective, len(want.Regrets))
		}
		for i, r := range got.Regrets {
			w := want.Regrets[i]
			if r.Node != w.Node || r.Alternative != w.Alternative || !near(r.Regret, w.Regret) || !near(r.Lower, w.Lower) || r.Exact != w.Exact || r.Tie != w.Tie || !r.Exact {
				t.Fatalf("%s: regret %+v, with every separator's query %+v", c.name, r, w)
			}
		}
		t.Logf("%s: %d of the separators' queries left unsolved, %d after their LP re-solves; re-solves %d against %d", c.name, got.regretsUnneeded, got.regretsUnneededLP, got.RegretSolves, want.RegretSolves)
		dropped += got.regretsUnneeded
		afterLP += got.regretsUnneededLP
	}
	if dropped < 100 || afterLP < 1 && !raceEnabled {
		t.Fatalf("%d separators' queries left unsolved, %d after their LP re-solves: too few to test", dropped, afterLP)
	}
}

// TestUnneededAgainstExhaustive: on the small random problems, without
// certificates (every separator's query has the optimum for its lower end
// until its LP re-solve), the regrets with the separators' queries that
// no regret needs left unsolved, first by what plans give and then by
// their LP re-solves' bounds, are the exhaustive ones.
func TestUnneededAgainstExhaustive(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	dropped, afterLP := 0, 0
	for seed := range uint64(400) {
		p := randomProblem(seed, 10)
		ex := exhaustive(p)
		for _, table := range []int{8, 4} {
			sol, err := Solve(ctx, p, Options{MaxTable: table, certify: certifyNone})
			checkAgainst(t, fmt.Sprintf("seed %d, MaxTable %d", seed, table), p, ex, sol, err, true)
			if err == nil {
				dropped += sol.regretsUnneeded
				afterLP += sol.regretsUnneededLP
			}
		}
	}
	t.Logf("%d separators' queries left unsolved, %d of them after their LP re-solves", dropped, afterLP)
	if dropped < 20 || afterLP < 2 {
		t.Fatalf("%d separators' queries left unsolved, %d after their LP re-solves: too few to test", dropped, afterLP)
	}
}

// TestSeparatorLPBounds: the lower end an LP re-solve gives a separator's
// query, where its LP is fractional, is at most the query's optimum (the
// problem solved with the query's nodes pinned to its sets), so that
// dropUnneeded leaves out only queries that no regret needs.
func TestSeparatorLPBounds(t *testing.T) {
	highstest.Library(t)
	p, third := genDAG3(t, 100)
	type bound struct {
		sets  [][]int
		nodes []int
		lo    float64
	}
	var bounds []bound
	var opt float64
	plantSeparatorLPs = func(rg *regrets, open []int) {
		opt = rg.opt0
		for _, qi := range open {
			q := &rg.queries[qi]
			if rg.dp.sepQ[qi] && q.known.lo > rg.opt0 {
				b := bound{nodes: q.nodes, lo: q.known.lo}
				for j, v := range q.nodes {
					var alts []int
					for _, k := range q.sets[j] {
						alts = append(alts, rg.r.in.domain[v][k])
					}
					b.sets = append(b.sets, alts)
				}
				bounds = append(bounds, b)
			}
		}
	}
	defer func() { plantSeparatorLPs = nil }()
	if _, err := Solve(context.Background(), p, Options{Explain: third}); err != nil {
		t.Fatal(err)
	}
	if len(bounds) < 3 {
		t.Fatalf("%d separators' queries with an LP bound above the optimum: too few to test", len(bounds))
	}
	least := math.Inf(1) // the least of the optima less their bounds
	for _, b := range bounds {
		pinned := *p
		pinned.Nodes = slices.Clone(p.Nodes)
		for j, v := range b.nodes {
			alts := slices.Clone(p.Nodes[v].Alternatives)
			for a := range alts {
				if !slices.Contains(b.sets[j], a) && alts[a].Removed == "" {
					alts[a].Removed = "pinned away by the query"
				}
			}
			pinned.Nodes[v].Alternatives = alts
		}
		sol, err := Solve(context.Background(), &pinned, Options{NoRegrets: true})
		if err != nil {
			t.Fatal(err)
		}
		if b.lo > sol.Objective+1e-9*math.Abs(sol.Objective) {
			t.Fatalf("query %v %v: LP bound %v (optimum + %v), its optimum %v (optimum + %v)", b.nodes, b.sets, b.lo, b.lo-opt, sol.Objective, sol.Objective-opt)
		}
		least = math.Min(least, sol.Objective-b.lo)
	}
	t.Logf("%d LP bounds checked, the closest %.3g ns below its query's optimum", len(bounds), least)
}

// genDAG3 is the lowered graph of gen dag --invocations n --exec-scale 100
// --seed 3, whose LP is not tight, and every third of its nodes.
func genDAG3(t *testing.T, n int) (*Problem, []int) {
	t.Helper()
	s, err := taskgen.DAG(n, 4, 3)
	if err == nil {
		err = taskgen.ScaleExecution(&s, 100)
	}
	var data []byte
	if err == nil {
		data, err = tasks.MarshalSpec(s)
	}
	var g *tasks.Graph
	if err == nil {
		g, err = tasks.Load(data)
	}
	if err != nil {
		t.Fatal(err)
	}
	p := &lowered(t, g).problem
	var third []int
	for v := range p.Nodes {
		if v%3 == 0 {
			third = append(third, v)
		}
	}
	return p, third
}

package planner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
)

// A solvedCore is a random problem's core solved to optimality, for the
// tests of what the regrets do with it.
type solvedCore struct {
	in  *instance
	r   *reduction
	cm  *coreModel
	res *coreResult
	opt *Options
}

// solveCore reduces randomProblem(seed, 9) with tables of at most 8
// entries and solves its core; ok is false where there is no plan, a core
// of fewer than minCore nodes, or no optimum.
func solveCore(t *testing.T, ctx context.Context, lib *highs.Library, seed uint64, minCore int) (sc solvedCore, ok bool) {
	t.Helper()
	p := randomProblem(seed, 9)
	in := newInstance(p, true)
	if len(in.empty) > 0 {
		return sc, false // no plan
	}
	r := reduce(in, 8, true)
	if len(r.core) < minCore || math.IsInf(r.offset, 1) {
		return sc, false
	}
	cm := buildCore(r)
	opt := &Options{}
	res, err := cm.solve(ctx, lib, r, opt.solverOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.status != highs.Optimal {
		return sc, false
	}
	return solvedCore{in: in, r: r, cm: cm, res: res, opt: opt}, true
}

// certSolver is the HiGHS library, a context and a solver for the
// certificates' small LPs, closed when t ends.
func certSolver(t *testing.T) (*highs.Library, context.Context, *highs.Solver) {
	t.Helper()
	lib := highstest.Library(t)
	s, err := lib.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return lib, context.Background(), s
}

// certifiedCores calls f with each of the first n seeds' cores of at
// least minCore nodes (solveCore) whose LP relaxation has an optimum, and
// its certifier.
func certifiedCores(t *testing.T, ctx context.Context, lib *highs.Library, n uint64, minCore int, f func(seed uint64, sc solvedCore, c *certifier, rg *regrets)) {
	t.Helper()
	for seed := range n {
		sc, ok := solveCore(t, ctx, lib, seed, minCore)
		if !ok {
			continue
		}
		if c, rg, ok := sc.certifier(t, ctx, lib); ok {
			f(seed, sc, c, rg)
		}
	}
}

// certifier prices sc's certificates by its LP relaxation's interior point
// duals, as the regrets do; ok is false where that LP has no optimum.
func (sc solvedCore) certifier(t *testing.T, ctx context.Context, lib *highs.Library) (c *certifier, rg *regrets, ok bool) {
	t.Helper()
	lp := relaxation(&sc.cm.model)
	lpOpt := sc.opt.solverOptions()
	lpOpt.Duals, lpOpt.InteriorPoint = true, true
	root, err := lib.Solve(ctx, &lp, lpOpt)
	if err != nil {
		t.Fatal(err)
	}
	if root.Status != highs.Optimal {
		return nil, nil, false
	}
	rg = &regrets{ctx: ctx, r: sc.r, cm: sc.cm, lib: lib, opt: sc.opt, asg: sc.res.asg, opt0: sc.res.objective}
	return newCertifier(rg, root.RowDuals), rg, true
}

// TestEliminatedBound checks the certificates' bound over integral
// choices (certelim.go) on small random cores without budgets, for every
// core node's other choices and growing random regions: it lies between
// the small LP's bound over the same region and the query's optimum by
// exhaustive search (LP ≤ eliminated ≤ optimum), and its argmin, the
// optimum elsewhere, is a plan costing at least that optimum. The bound
// must be stronger than the LP's somewhere, or the test compares nothing.
func TestEliminatedBound(t *testing.T) {
	lib, ctx, s := certSolver(t)
	compared, stronger, plans := 0, 0, 0
	for seed := range uint64(400) {
		sc, ok := solveCore(t, ctx, lib, seed, 1)
		if !ok || len(sc.in.p.Budgets) > 0 {
			continue // budgets keep regions to small LPs
		}
		c, _, ok := sc.certifier(t, ctx, lib)
		if !ok {
			continue
		}
		p, in, r, res := sc.in.p, sc.in, sc.r, sc.res
		w := c.newWorker(s)
		ex := exhaustive(p)
		rng := rand.New(rand.NewPCG(seed, 7))
		tol := 1e-6 * math.Max(1, math.Abs(ex.opt))
		for _, v := range r.core {
			for k := range in.domain[v] {
				if k == res.asg[v] {
					continue
				}
				q := &query{nodes: []int{v}, sets: [][]int{{k}}}
				want := ex.best[v][in.domain[v][k]]
				region := []int{v}
				for range 3 {
					c.keepRegion(region, w)
					min, feasible, ok := c.eliminate(q, region, w)
					if !ok {
						t.Fatalf("seed %d: node %d at %d, region %v: not eliminated", seed, v, k, region)
					}
					elim := inf
					if feasible {
						elim = c.lowerBound(min, w)
						if d, ok := c.delta(w); ok {
							plans++
							if opt0 := res.objective; opt0+d < want-tol {
								t.Fatalf("seed %d: node %d at %d, region %v: a plan at %v below the optimum %v", seed, v, k, region, opt0+d, want)
							}
						}
					}
					c.keepRegion(region, w)
					small, err := s.Solve(ctx, c.smallModel(q, w), sc.opt.solverOptions())
					if err != nil {
						t.Fatal(err)
					}
					lpBound := inf
					switch small.Status {
					case highs.Optimal:
						lpBound = c.lowerBound(small.DualBound, w)
					case highs.Infeasible:
					default:
						t.Fatalf("seed %d: the small LP: %v", seed, small.Status)
					}
					if lpBound > elim+tol && !math.IsInf(elim, 1) || math.IsInf(lpBound, 1) && !math.IsInf(elim, 1) {
						t.Fatalf("seed %d: node %d at %d, region %v: eliminated bound %v below the LP's %v", seed, v, k, region, elim, lpBound)
					}
					if elim > want+tol && !math.IsInf(want, 1) || math.IsInf(elim, 1) && !math.IsInf(want, 1) {
						t.Fatalf("seed %d: node %d at %d, region %v: eliminated bound %v above the optimum %v", seed, v, k, region, elim, want)
					}
					compared++
					if elim > lpBound+tol {
						stronger++
					}
					if u := r.core[rng.IntN(len(r.core))]; !slices.Contains(region, u) {
						region = append(region, u)
					}
				}
			}
		}
	}
	t.Logf("%d bounds compared, %d stronger than the LP's; %d plans", compared, stronger, plans)
	if stronger == 0 || plans == 0 {
		t.Errorf("no bound stronger than the LP's (%d) or no plan (%d)", stronger, plans)
	}
}

// TestCertifyRoundBatched checks the rounds that queries of one node set
// and region take together (certifyRound: one elimination of the other
// variables, each query finishing its own) against the same round taken
// by each query alone (round from elimShared, its own elimination of the
// other variables; a group of one query from elimAlone):
// on small random cores, for
// each core node's choices and for pairs of core nodes restricted to
// random sets of choices, at random regions around them, every outcome
// must be the same bit for bit: certified or not, the values, what is
// known, the region to go on from; and so with the elimination's limits
// lowered, so that a group's shared elimination, or the queries' own, is
// refused and the queries go on alone or to their small LPs.
func TestCertifyRoundBatched(t *testing.T) {
	lib, ctx, s := certSolver(t)
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	groups, shared, certified, single := 0, 0, 0, 0
	refused := 0 // rounds whose shared elimination could not take the region
	certifiedCores(t, ctx, lib, 300, 2, func(seed uint64, sc solvedCore, c *certifier, rg *regrets) {
		in, r, res := sc.in, sc.r, sc.res
		w := c.newWorker(s)
		rng := rand.New(rand.NewPCG(seed, 11))
		maxColumns := c.columnLimit(certifyColumns)
		// check takes one round of the queries over nodes whose sets are
		// sets, at region, together and each alone.
		check := func(nodes []int, sets [][][]int, region []int) {
			mk := func() []*query {
				qs := make([]*query, len(sets))
				for i := range sets {
					q := &query{nodes: nodes, sets: sets[i], lo: math.NaN(), hi: math.NaN()}
					q.known.lo, q.known.hi = rg.opt0, inf
					if len(region) > len(nodes) {
						q.resume = slices.Clone(region)
					}
					qs[i] = q
				}
				return qs
			}
			together, alone := mk(), mk()
			// Limits low enough, in one group of three, that the
			// elimination prepare leaves, or the queries' own, cannot take
			// the region: the queries go on alone or to small LPs.
			w.el.table, w.el.maxWork = certifyTable, certifyWork
			if rng.IntN(3) == 0 {
				w.el.table, w.el.maxWork = 4<<rng.IntN(5), 16<<rng.IntN(8)
			}
			ends := make([]bool, len(together))
			if err := c.certifyRound(ctx, together, w, maxColumns, ends); err != nil {
				t.Fatal(err)
			}
			for i, q := range alone {
				// A query alone takes the round from elimAlone, as
				// certifyRound takes a group of one.
				from := elimShared
				if len(alone) == 1 {
					from = elimAlone
				}
				region := q.resume
				if region == nil {
					region = q.nodes
				}
				q.resume = nil
				c.keepRegion(region, w)
				end, grown, intact, err := c.round(ctx, q, region, w, maxColumns, from)
				if err != nil {
					t.Fatal(err)
				}
				if !intact && from == elimShared {
					refused++
				}
				ok := end == roundCertified
				if end == roundGrown {
					q.resume = grown
				}
				g := together[i]
				if ok != ends[i] || !same(q.lo, g.lo) || !same(q.hi, g.hi) || !same(q.known.lo, g.known.lo) ||
					!same(q.known.hi, g.known.hi) || !slices.Equal(q.resume, g.resume) {
					t.Fatalf("seed %d: nodes %v at %v, region %v: alone %v [%v, %v] known [%v, %v] resume %v; together %v [%v, %v] known [%v, %v] resume %v",
						seed, nodes, sets[i], region, ok, q.lo, q.hi, q.known.lo, q.known.hi, q.resume,
						ends[i], g.lo, g.hi, g.known.lo, g.known.hi, g.resume)
				}
				if ok {
					certified++
				}
			}
			groups++
			if len(sets) > 1 {
				shared++
			} else {
				single++
			}
		}
		grow := func(region []int) []int {
			for range rng.IntN(4) {
				if u := r.core[rng.IntN(len(r.core))]; !slices.Contains(region, u) {
					region = append(region, u)
				}
			}
			return region
		}
		for _, v := range r.core {
			var sets [][][]int
			for k := range in.domain[v] {
				if k != res.asg[v] {
					sets = append(sets, [][]int{{k}})
				}
			}
			if len(sets) == 0 {
				continue
			}
			check([]int{v}, sets, []int{v})
			check([]int{v}, sets, grow([]int{v}))
		}
		// Pairs of nodes, each restricted to a random set of choices, as a
		// separator's classes restrict theirs.
		for range 4 {
			u, v := r.core[rng.IntN(len(r.core))], r.core[rng.IntN(len(r.core))]
			if u == v {
				continue
			}
			nodes := []int{u, v}
			sets := make([][][]int, 1+rng.IntN(4))
			for i := range sets {
				sets[i] = make([][]int, 2)
				for j, x := range nodes {
					for k := range in.domain[x] {
						if rng.IntN(2) == 0 {
							sets[i][j] = append(sets[i][j], k)
						}
					}
					if sets[i][j] == nil {
						sets[i][j] = []int{rng.IntN(len(in.domain[x]))}
					}
				}
			}
			check(nodes, sets, grow(slices.Clone(nodes)))
		}
	})
	t.Logf("%d groups compared, %d of several queries, %d of one; %d queries certified; %d rounds without the shared elimination", groups, shared, single, certified, refused)
	if shared == 0 || single == 0 || certified == 0 || refused == 0 {
		t.Errorf("no group of several queries (%d) or of one (%d), none certified (%d) or none refused (%d)", shared, single, certified, refused)
	}
}

// delta counts a term's columns at 1, or reads its table, instead of
// summing its rows: on random cores (pairs with no conversion, fan-out
// groups, tables, budgets) and random plans that move one to three core
// nodes, it answers as deltaByRows, which sums every column and row, to
// the last bits of a sum taken in another order; and both kinds of answer
// come up.
func TestDeltaCountsColumns(t *testing.T) {
	lib, ctx, s := certSolver(t)
	plans, notPlans := 0, 0
	certifiedCores(t, ctx, lib, 300, 1, func(seed uint64, sc solvedCore, c *certifier, _ *regrets) {
		w := c.newWorker(s)
		rng := rand.New(rand.NewPCG(seed, 3))
		core := sc.r.core
		for range 40 {
			copy(w.asg, sc.res.asg)
			w.changed = w.changed[:0]
			for range 1 + rng.IntN(min(3, len(core))) {
				v := core[rng.IntN(len(core))]
				if !slices.Contains(w.changed, v) {
					w.changed = append(w.changed, v)
				}
				w.asg[v] = rng.IntN(len(sc.in.domain[v]))
			}
			got, gotOK := c.delta(w)
			want, wantOK := deltaByRows(c, w)
			if gotOK != wantOK || gotOK && math.Abs(got-want) > 1e-12*costScale(c) {
				t.Fatalf("seed %d: plan moving %v: delta %v (a plan: %v), by the rows %v (%v)", seed, w.changed, got, gotOK, want, wantOK)
			}
			if gotOK {
				plans++
			} else {
				notPlans++
			}
		}
	})
	t.Logf("%d plans and %d assignments that are none compared", plans, notPlans)
	if plans == 0 || notPlans == 0 {
		t.Error("the test compared one kind of answer only")
	}
}

// costScale is the sum of the core's costs' magnitudes, which bounds every
// partial sum of a plan's cost: two sums of the same terms in two orders
// differ by less than 1e-12 of it.
func costScale(c *certifier) float64 {
	s := 0.0
	for _, col := range c.rg.cm.model.Columns {
		s += math.Abs(col.Cost)
	}
	return s
}

// deltaByRows is delta summing each row of every term it touches.
func deltaByRows(c *certifier, w *certWorker) (float64, bool) {
	cm := c.rg.cm
	m := &cm.model
	delta := 0.0
	budgets := map[int]float64{}
	col := func(j int) bool {
		x := cm.colValue(c.rg.r, j, w.asg)
		if x > m.Columns[j].Upper {
			return false
		}
		if dx := x - c.star[j]; dx != 0 {
			delta += m.Columns[j].Cost * dx
			for _, t := range c.colRows[j] {
				if cm.rows[t.Col].kind == rowBudget {
					budgets[t.Col] += t.Coef * dx
				}
			}
		}
		return true
	}
	holds := func(i int) bool {
		row := m.Rows[i]
		a := 0.0
		for _, t := range row.Terms {
			a += t.Coef * cm.colValue(c.rg.r, t.Col, w.asg)
		}
		return a >= row.Lower-1e-9 && a <= row.Upper+1e-9
	}
	seen := map[int]bool{}
	for _, v := range w.changed {
		for k := range c.rg.r.in.domain[v] {
			if !col(cm.xcol[v] + k) {
				return 0, false
			}
		}
		for _, t := range c.termsOf[v] {
			if seen[t] {
				continue
			}
			seen[t] = true
			ct := &cm.terms[t]
			for j := ct.colStart; j < ct.colEnd; j++ {
				if !col(j) {
					return 0, false
				}
			}
			for i := ct.rowStart; i < ct.rowEnd; i++ {
				if !holds(i) {
					return 0, false
				}
			}
		}
	}
	for i, da := range budgets {
		if a := c.act[i] + da; a > m.Rows[i].Upper+budgetTolerance(m.Rows[i].Upper) || a < m.Rows[i].Lower-budgetTolerance(m.Rows[i].Lower) {
			return 0, false
		}
	}
	return delta, true
}

// TestRegionWindows checks the windows of the queries' last certificate
// regions (regionWindows) on the engine's random dense DAGs of 100 and 150
// nodes, where they answer some of the queries the certificates left: every
// regret is what the same solve finds without them (the queries re-solved),
// and every twentieth what the problem restricted to its alternative costs
// more.
func TestRegionWindows(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	windowed := 0
	for _, c := range []struct {
		n    int
		seed uint64
	}{{100, 0}, {100, 1}, {100, 2}, {150, 1}, {150, 3}} {
		p := randomDAG(c.seed, c.n, 4)
		name := fmt.Sprintf("randomDAG(%d, %d, 4)", c.seed, c.n)
		sol, err := Solve(ctx, p, Options{certify: certifyAlways})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		plain, err := Solve(ctx, p, Options{certify: certifyAlways, noRegionWindows: true})
		if err != nil {
			t.Fatalf("%s without windows: %v", name, err)
		}
		if plain.certifiedWindows != 0 || len(sol.Regrets) != len(plain.Regrets) || !near(sol.Objective, plain.Objective) {
			t.Fatalf("%s: %d windows, %d regrets at %v; without windows %d, %d at %v", name, sol.certifiedWindows, len(sol.Regrets), sol.Objective,
				plain.certifiedWindows, len(plain.Regrets), plain.Objective)
		}
		windowed += sol.certifiedWindows
		for i, r := range sol.Regrets {
			w := plain.Regrets[i]
			if r.Node != w.Node || r.Alternative != w.Alternative || !r.Exact || !w.Exact || !near(r.Regret, w.Regret) || r.Tie != w.Tie {
				t.Fatalf("%s: regret %+v; without windows %+v", name, r, w)
			}
			if i%20 != 0 {
				continue
			}
			rs, err := Solve(ctx, restricted(p, r.Node, r.Alternative), Options{NoRegrets: true})
			if err != nil || rs.Status != Optimal || !near(rs.Objective-sol.Objective, r.Regret) {
				t.Fatalf("%s: node %d restricted to alternative %d: %v, %v; regret %v", name, r.Node, r.Alternative, rs, err, r.Regret)
			}
		}
	}
	t.Logf("%d queries answered by their regions' windows", windowed)
	if windowed == 0 {
		t.Error("no query was answered by its region's window")
	}
}

package planner

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/tasks"
)

// TestRegretTimeLimitGivesSoundIntervals: with a regret time limit that
// strikes at once, every regret a re-solve would have proven is an interval
// [Lower, Regret] that holds the exhaustive regret, flagged inexact, and
// never called infeasible unless it is.
func TestRegretTimeLimitGivesSoundIntervals(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	cores, unproven := 0, 0
	for seed := range uint64(300) {
		p := randomProblem(seed, 10)
		ex := exhaustive(p)
		if math.IsInf(ex.opt, 1) {
			continue
		}
		name := fmt.Sprintf("seed %d", seed)
		sol, err := Solve(ctx, p, Options{RegretTimeLimit: time.Nanosecond})
		checkAgainst(t, name, p, ex, sol, err, false)
		if sol.Model.CoreNodes > 0 {
			cores++
		}
		unproven += checkRegretIntervals(t, name, ex, sol.Regrets)
	}
	if cores == 0 || unproven == 0 {
		t.Fatalf("%d problems with a core, %d unproven regrets: the limit was never exercised", cores, unproven)
	}
}

// TestSearchRegretsWorkBudget: the regrets of a core the branch and bound
// proved, bounded by a work budget (Options.RegretWork) instead of time,
// are the same from run to run and for any number of workers; the
// intervals the budget leaves hold the exhaustive regrets; a budget that
// suffices leaves every regret exact.
func TestSearchRegretsWorkBudget(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	searched, cut := 0, 0
	for seed := uint64(0); searched < 40 && seed < 400; seed++ {
		p := randomProblem(seed+1<<21, 10)
		if len(p.Budgets) > 0 {
			continue
		}
		ex := exhaustive(p)
		name := fmt.Sprintf("seed %d", seed+1<<21)
		// A budget of a few nodes' work: each query's static search and
		// little more, the later batches nothing.
		opt := Options{MaxTable: 1, search: searchForce, RegretWork: 1, workFloor: 1, queryNodes: 1, RegretTimeLimit: time.Nanosecond, Workers: 1}
		sol, err := Solve(ctx, p, opt)
		checkAgainst(t, name, p, ex, sol, err, false)
		if err != nil || sol.Model.CoreNodes == 0 || sol.Search == nil {
			continue
		}
		searched++
		ample := opt
		ample.workFloor = 1 << 40
		cut += checkWorkBudget(t, name, p, ex, sol, opt, ample, true)
	}
	if searched < 40 || cut == 0 {
		t.Fatalf("%d searched cores, %d intervals: the budget was never exercised", searched, cut)
	}
	t.Logf("%d searched cores, %d intervals", searched, cut)
}

// checkWorkBudget checks sol, p solved under opt's work budget: its
// intervals hold the exhaustive regrets and are named the budget's, not
// the time limit's (with spentIffCut, the budget is named exactly where it
// left an interval); on 1, 2 and 4 workers the regrets are the same; under
// ample every regret is exact. It returns the number of intervals.
func checkWorkBudget(t *testing.T, name string, p *Problem, ex exhaustiveResult, sol *Solution, opt, ample Options, spentIffCut bool) int {
	t.Helper()
	ctx := context.Background()
	n := checkRegretIntervals(t, name, ex, sol.Regrets)
	if n > 0 && !sol.regretsWorkSpent || spentIffCut && n == 0 && sol.regretsWorkSpent || sol.regretsTimedOut {
		t.Fatalf("%s: %d intervals, work spent %v, timed out %v: want the budget named, not the time limit it overrides",
			name, n, sol.regretsWorkSpent, sol.regretsTimedOut)
	}
	for _, w := range []int{1, 2, 4} {
		opt.Workers = w
		again, err := Solve(ctx, p, opt)
		if err != nil || !reflect.DeepEqual(again.Regrets, sol.Regrets) {
			t.Fatalf("%s: with %d workers the regrets differ (%v):\n%v\nwant\n%v", name, w, err, again.Regrets, sol.Regrets)
		}
	}
	sol, err := Solve(ctx, p, ample)
	checkAgainst(t, name+" ample", p, ex, sol, err, true)
	return n
}

// TestResolveRegretsWorkBudget: the regrets of a core HiGHS solved,
// bounded by a work budget (Options.RegretWork, in simplex iterations)
// instead of time, are the same from run to run and for any number of
// workers; the intervals the budget leaves hold the exhaustive regrets,
// and are named the budget's, not the time limit's; a budget that
// suffices leaves every regret exact.
func TestResolveRegretsWorkBudget(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	cores, cut := 0, 0
	for seed := uint64(0); cores < 40 && seed < 400; seed++ {
		p := randomProblem(seed+1<<22, 10)
		ex := exhaustive(p)
		name := fmt.Sprintf("seed %d", seed+1<<22)
		// A budget of a few iterations, the plan's at most: the first
		// chains' LPs, the later ones nothing.
		opt := Options{MaxTable: 1, search: searchOff, certify: certifyNone, RegretWork: 0.5, iterationFloor: 1, Workers: 1}
		sol, err := Solve(ctx, p, opt)
		checkAgainst(t, name, p, ex, sol, err, false)
		if err != nil || sol.Model.CoreNodes == 0 || sol.Search != nil {
			continue
		}
		cores++
		// (A query the budget cut may still leave every regret exact,
		// where another query or what was known answers them.)
		ample := opt
		ample.iterationFloor = 1 << 40
		cut += checkWorkBudget(t, name, p, ex, sol, opt, ample, false)
	}
	if cores < 40 || cut == 0 {
		t.Fatalf("%d cores, %d intervals: the budget was never exercised", cores, cut)
	}
	t.Logf("%d cores HiGHS solved, %d intervals", cores, cut)
}

// TestRegretWorkTimesNothing: under a work budget (Options.RegretWork,
// cklplan plan's default) nothing in the regrets is timed: with a regret
// time limit of a nanosecond the JSON plan is the same, byte for byte, as
// without one, on a dense DAG whose queries go to windows, certificates
// and re-solves, and on a transformer fused layer by layer under a budget
// that binds (a contracted kernel's regret solves), and on 1 and 4
// workers. Without the budget the nanosecond leaves regrets unproven: the
// check can fail.
func TestRegretWorkTimesNothing(t *testing.T) {
	highstest.Library(t)
	for _, c := range []struct {
		name string
		g    *tasks.Graph
	}{
		{"dense DAG", scaledDAG(t, 60, 3, 100)},
		{"fused transformer", fusedScaled(t, 3, 1, 12288, 30)},
	} {
		plan := func(work float64, limit time.Duration, workers ...int) (string, *Result) {
			t.Helper()
			so := Options{RegretSolves: DefaultRegretSolves, RegretWork: work, RegretTimeLimit: limit}
			if len(workers) > 0 {
				so.Workers = workers[0]
			}
			r, err := Plan(context.Background(), c.g, PlanOptions{Solve: so})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var b bytes.Buffer
			if err := r.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			return b.String(), r
		}
		want, r := plan(DefaultRegretWork, 0)
		if r.Status != Optimal || r.Explained == 0 {
			t.Fatalf("%s: %s, %d explained", c.name, r.Status, r.Explained)
		}
		if got, _ := plan(DefaultRegretWork, time.Nanosecond); got != want {
			t.Errorf("%s: a regret time limit of a nanosecond changed the plan under a work budget", c.name)
		}
		for _, w := range []int{1, 4} {
			if got, _ := plan(DefaultRegretWork, 0, w); got != want {
				t.Errorf("%s: on %d workers the plan differs", c.name, w)
			}
		}
		if _, r := plan(0, time.Nanosecond); r.UnprovenRegrets == 0 || r.UnprovenBy != UnprovenByTimeLimit {
			t.Errorf("%s: without the work budget a nanosecond left %d regrets unproven (%q): the test tests nothing", c.name, r.UnprovenRegrets, r.UnprovenBy)
		}
	}
}

// checkRegretIntervals checks each regret against exhaustive search: an
// exact one equals it, an interval [Lower, Regret] holds it. It returns the
// number of intervals.
func checkRegretIntervals(t *testing.T, name string, ex exhaustiveResult, regrets []Regret) int {
	t.Helper()
	intervals := 0
	for _, r := range regrets {
		exact := ex.best[r.Node][r.Alternative] - ex.opt
		if r.Exact {
			if !near(r.Regret, exact) {
				t.Fatalf("%s: node %d alternative %d: exact regret %v, exhaustive %v", name, r.Node, r.Alternative, r.Regret, exact)
			}
			continue
		}
		intervals++
		tol := 1e-6 * math.Max(1, math.Abs(exact))
		if r.Lower > r.Regret || r.Lower > exact+tol || (!math.IsInf(exact, 1) && r.Regret < exact-tol) {
			t.Fatalf("%s: node %d alternative %d: interval [%v, %v] misses the exhaustive regret %v",
				name, r.Node, r.Alternative, r.Lower, r.Regret, exact)
		}
	}
	return intervals
}

// TestWindowsBoundUnprovenRegrets: a regret query that no certificate or
// re-solve answered still has a plan that answers it, from re-choosing its
// nodes with the rest of the optimum kept: its interval's upper end is
// finite, and holds the exhaustive regret.
func TestWindowsBoundUnprovenRegrets(t *testing.T) {
	highstest.Library(t)
	ctx := context.Background()
	bounded, open := 0, 0
	for seed := range uint64(100) {
		p := randomDAG(seed, 9, 3)
		ex := exhaustive(p)
		if math.IsInf(ex.opt, 1) {
			continue
		}
		name := fmt.Sprintf("seed %d", seed)
		sol, err := Solve(ctx, p, Options{MaxTable: 1, windowsOnly: true})
		checkAgainst(t, name, p, ex, sol, err, false)
		for _, r := range sol.Regrets {
			if r.Exact {
				continue
			}
			exact := ex.best[r.Node][r.Alternative] - ex.opt
			tol := 1e-6 * math.Max(1, math.Abs(exact))
			if r.Lower > exact+tol || r.Regret < exact-tol {
				t.Fatalf("%s: node %d alternative %d: interval [%v, %v] misses the exhaustive regret %v",
					name, r.Node, r.Alternative, r.Lower, r.Regret, exact)
			}
			open++
			if !math.IsInf(r.Regret, 1) {
				bounded++
			}
		}
	}
	t.Logf("%d of %d unproven regrets bounded above", bounded, open)
	if open == 0 || bounded < open*9/10 {
		t.Fatalf("%d of %d unproven regrets bounded above: want nearly all", bounded, open)
	}
}

// TestPlanShowsUnprovenRegrets: a plan whose regret re-solves a time limit
// stopped says so, and shows each such regret as what is proven.
func TestPlanShowsUnprovenRegrets(t *testing.T) {
	highstest.Library(t)
	data, err := os.ReadFile("../examples/graphs/smem_budget.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{RegretTimeLimit: time.Nanosecond, noContract: true}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Model.Core == 0 {
		t.Fatal("the budget example has no core: nothing is re-solved")
	}
	counted := 0
	for _, c := range r.Choices {
		for _, rj := range c.Rejected {
			switch {
			case rj.Exact && rj.RegretLowerNS != nil:
				t.Errorf("%s %s: exact, with a lower bound", c.Invocation, rj.Alternative)
			case !rj.Exact && !rj.Removed && rj.RegretLowerNS == nil:
				t.Errorf("%s %s: unproven, without a lower bound", c.Invocation, rj.Alternative)
			case !rj.Exact && rj.Infeasible:
				t.Errorf("%s %s: unproven, yet called infeasible", c.Invocation, rj.Alternative)
			case !rj.Exact:
				counted++
			}
		}
	}
	if counted == 0 || counted != r.UnprovenRegrets || r.UnprovenBy != UnprovenByTimeLimit {
		t.Fatalf("%d unproven regrets listed, UnprovenRegrets %d, by %q", counted, r.UnprovenRegrets, r.UnprovenBy)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("(%d regret", counted); !strings.Contains(text.String(), want) || !strings.Contains(text.String(), "unproven: the regrets' time limit stopped the re-solves (--regret-time-limit)") {
		t.Errorf("the report lacks %q:\n%s", want, text.String())
	}
	if !strings.Contains(text.String(), "≥+") && !strings.Contains(text.String(), "…+") && !strings.Contains(text.String(), "  unproven  ") {
		t.Errorf("no regret shown as an interval:\n%s", text.String())
	}
	// The reasons stay in one column, intervals and all: a rejected
	// alternative's line is 6 spaces, the alternative in 14 columns, a
	// space, the regret in 20 (an interval's width), two spaces, the reason.
	pad := func(s string, n int) string {
		return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0))
	}
	for _, c := range r.Choices {
		for _, rj := range c.Rejected {
			if want := "      " + pad(rj.Alternative, 14) + " " + pad(regretText(rj), 20) + "  " + rj.Reason + "\n"; !strings.Contains(text.String(), want) {
				t.Errorf("no line %q in\n%s", want, text.String())
			}
		}
	}
}

// TestPlanSaysAnInterruptStoppedTheRegrets: an interrupt (the context
// cancelled, or past its own deadline) while the regrets are computed
// leaves them as intervals too, and the report names the interrupt, not a
// time limit the plan did not have.
func TestPlanSaysAnInterruptStoppedTheRegrets(t *testing.T) {
	highstest.Library(t)
	g := generatedDAG(t, 40, 1) // hundreds of queries to its core: minutes of regrets
	for _, deadline := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var c context.Context = ctx
		if deadline {
			c = deadlineContext{ctx}
		}
		opts := PlanOptions{Solve: Options{Progress: func(p Progress) {
			if p.Explaining {
				cancel() // at the first query answered
			}
		}}}
		r, err := Plan(c, g, opts)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Optimal || r.UnprovenRegrets == 0 || r.UnprovenBy != UnprovenByInterrupt {
			t.Fatalf("deadline %v: status %s, %d regrets unproven by %q: the interrupt did not strike during the regrets", deadline, r.Status, r.UnprovenRegrets, r.UnprovenBy)
		}
		var text bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if want := "unproven: an interrupt stopped the re-solves"; !strings.Contains(text.String(), want) || strings.Contains(text.String(), "time limit") {
			t.Errorf("deadline %v: the report does not say %q alone:\n%s", deadline, want, text.String())
		}
	}
}

// deadlineContext is a context that ends as its deadline had passed when
// the context it wraps is cancelled: a caller's context.WithTimeout, at the
// moment the test chooses.
type deadlineContext struct{ context.Context }

func (c deadlineContext) Err() error {
	if c.Context.Err() != nil {
		return context.DeadlineExceeded
	}
	return nil
}

// TestRegretsDoNotDependOnWorkers: the core's regrets are re-solved on as
// many HiGHS instances as there are workers, each LP warm from the queries
// it answered before; the regrets are the same numbers, bit for bit, on one
// worker or two.
func TestRegretsDoNotDependOnWorkers(t *testing.T) {
	highstest.Library(t)
	p := randomDAG(1, 150, 4)
	var regrets [2][]Regret
	for i, workers := range []int{1, 2} {
		sol, err := Solve(context.Background(), p, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if sol.RegretSolves == 0 {
			t.Fatal("no regret was re-solved: the test shows nothing")
		}
		regrets[i] = sol.Regrets
	}
	if len(regrets[0]) != len(regrets[1]) {
		t.Fatalf("%d and %d regrets", len(regrets[0]), len(regrets[1]))
	}
	for k, r := range regrets[0] {
		if o := regrets[1][k]; r != o {
			t.Errorf("node %d, %s: %+v on one worker, %+v on two", r.Node, r.ID, r, o)
		}
	}
}

// TestRegretSolvesGiveSoundIntervals: with at most one re-solve for the
// regrets, every regret the cap leaves is an interval that holds the
// exhaustive regret, and every one it lets through is exact; whether the
// branch and bound or HiGHS answers the core's queries.
func TestRegretSolvesGiveSoundIntervals(t *testing.T) {
	for _, mode := range []searchMode{searchAuto, searchOff} {
		t.Run(fmt.Sprintf("search=%d", mode), func(t *testing.T) { testRegretSolvesSound(t, mode) })
	}
}

func testRegretSolvesSound(t *testing.T, mode searchMode) {
	highstest.Library(t)
	ctx := context.Background()
	capped := 0
	for seed := range uint64(300) {
		p := randomProblem(seed, 10)
		ex := exhaustive(p)
		if math.IsInf(ex.opt, 1) {
			continue
		}
		name := fmt.Sprintf("seed %d", seed)
		sol, err := Solve(ctx, p, Options{RegretSolves: 1, MaxTable: 1, search: mode})
		checkAgainst(t, name, p, ex, sol, err, false)
		if sol.RegretSolves > 1 {
			t.Fatalf("%s: %d re-solves, want at most 1", name, sol.RegretSolves)
		}
		capped += sol.regretsCapped
		checkRegretIntervals(t, name, ex, sol.Regrets)
	}
	if capped == 0 {
		t.Fatal("no query was left by the cap: the test shows nothing")
	}
}

// TestRegretSolvesAreDeterministic: the regrets that Options.RegretSolves
// leaves unproven are the same, and the same intervals, on one worker or
// two; a time limit's are not, since they depend on how far each re-solve
// got. The report says what left them.
func TestRegretSolvesAreDeterministic(t *testing.T) {
	highstest.Library(t)
	g := scaledDAG(t, 100, 1, 100) // 660 queries past the certificates
	var out [2][]byte
	for i, workers := range []int{1, 2} {
		r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{RegretSolves: 20, Workers: workers}})
		if err != nil {
			t.Fatal(err)
		}
		if r.UnprovenRegrets == 0 || r.UnprovenBy != UnprovenByRegretSolves {
			t.Fatalf("%d regrets left unproven by %q: the cap was not reached", r.UnprovenRegrets, r.UnprovenBy)
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		out[i] = b.Bytes()
		if i == 0 {
			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("(%d regrets unproven: re-solved only the 20 queries whose plans found so far cost least (--regret-solves);", r.UnprovenRegrets)
			if !strings.Contains(text.String(), want) {
				t.Errorf("the report does not say %q:\n%.2000s", want, text.String())
			}
		}
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Error("the plans on one worker and two differ")
	}
}

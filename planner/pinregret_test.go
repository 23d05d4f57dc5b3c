package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// This file checks the regrets of the report end to end, through the
// task-graph lowering: a rejected alternative's regret is, by definition
// (docs/plan-format.md, "Regrets"), the cost of the best plan that uses it
// minus the optimum. The best plan that uses alternative A of invocation v
// is the plan of the same graph with v pinned to A ("pin restricts the
// invocation to the listed alternatives", docs/format.md): planning that
// graph from its JSON spec goes through everything the regrets must agree
// with — multiplicities, the conversion that one producer port shares among
// its consumers, kernel crossings and global round trips, shared-memory
// budgets with the conversions' scratch and the scratch-free variants,
// memory bindings, dominated alternatives — without any of the regret
// machinery (min-marginals, contracted kernels' tables, certificates,
// re-solves).
//
// Pinning v to A changes exactly one thing: v's candidates become {A}. The
// other invocations keep their pins and forbids; v's forbids cannot clash
// (A is not removed, so not forbidden). A was not removed, so its pinned
// graph is valid. The planner's own choice of the scratch-free variant of
// A's conversions (PlanChoice.NoSharedMemoryConversions) stays open in the
// pinned graph, as it is in the regret, which is the best of A's variants
// (Result: one Rejected per task alternative, its best variant's regret).
// Where A is dominated (same port realizations and budget uses as its
// dominator D, no cheaper), pinning A removes D with the others, and the
// pinned plan is the best plan using A, which the report's regret (given
// through D's, shifted by the cost difference) must equal.

// pinCase is one graph whose regrets are checked.
type pinCase struct {
	name string
	g    *tasks.Graph
	// opts plan the graph whose regrets are checked.
	opts PlanOptions
}

// pinCases are the bundled examples — those with measured costs in
// examples/measured also planned with them applied, as cklplan plan --costs
// applies them (tasks.Graph.LoadMeasured) — and small generated graphs:
// transformers fused per layer under budgets tight enough to bind, and
// random DAGs and trees as cklplan gen makes them.
func pinCases(t *testing.T) []pinCase {
	t.Helper()
	files, err := filepath.Glob("../examples/graphs/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example graphs: %v", err)
	}
	// And a fan-out whose producer stores its tile into the shared-memory
	// layout both consumers read: one store serves both.
	files = append(files, "testdata/graphs/fanout_store.json")
	var cases []pinCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := tasks.Load(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		cases = append(cases, pinCase{name: name, g: g})
		costs, err := os.ReadFile(filepath.Join("../examples/measured", filepath.Base(f)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		gm, err := g.LoadMeasured(costs)
		if err != nil {
			t.Fatalf("%s with its measured costs: %v", f, err)
		}
		cases = append(cases, pinCase{name: name + "+measured", g: gm})
	}
	gen := []struct {
		name string
		make func() (tasks.Spec, error)
		opts PlanOptions
	}{
		// Fused per layer (cklplan gen transformer --kernel-smem): at
		// 40000 B some alternatives fit in no plan (infeasible regrets);
		// at 49152 B the budgets bind, and some pinned plans keep
		// conversions out of shared memory to fit; between the two layers'
		// kernels, edges make global round trips sharing their store.
		{"transformer 1 layer, 40000 B", func() (tasks.Spec, error) { return fused(1, 1, 40000) }, PlanOptions{}},
		{"transformer 2 layers, 49152 B", func() (tasks.Spec, error) { return fused(2, 2, 49152) }, PlanOptions{}},
		{"dag 10", func() (tasks.Spec, error) { return taskgen.DAG(10, 4, 1) }, PlanOptions{}},
		{"dag 10 exec×30", func() (tasks.Spec, error) { return scaled(taskgen.DAG(10, 4, 2))(30) }, PlanOptions{}},
		{"tree 12", func() (tasks.Spec, error) { return taskgen.Tree(12, 3) }, PlanOptions{}},
		// Every alternative executing in the same time: conversions alone
		// decide, and many regrets are ties.
		{"dag 8, equal execution", func() (tasks.Spec, error) { return equalExecution(taskgen.DAG(8, 4, 1)) }, PlanOptions{}},
		{"tree 8, equal execution", func() (tasks.Spec, error) { return equalExecution(taskgen.Tree(8, 1)) }, PlanOptions{}},
		// A core left to the MILP (buckets of at most 8 entries) whose
		// regrets are re-solved once (--regret-solves 1): the rest are
		// intervals. And every regret from re-solves of the whole problem
		// (--no-reduce), on a small graph: those re-solves are slow.
		{"dag 10, core, 1 regret solve", func() (tasks.Spec, error) { return taskgen.DAG(10, 4, 1) },
			PlanOptions{Solve: Options{MaxTable: 8, RegretSolves: 1}}},
		{"dag 6, not reduced", func() (tasks.Spec, error) { return taskgen.DAG(6, 4, 1) }, PlanOptions{Solve: Options{NoReduce: true}}},
	}
	for _, c := range gen {
		s, err := c.make()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		g, err := tasks.New(s)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cases = append(cases, pinCase{name: c.name, g: g, opts: c.opts})
	}
	return cases
}

// fused is cklplan gen transformer --layers n --seed seed --kernel-smem budget.
func fused(layers int, seed uint64, budget int64) (tasks.Spec, error) {
	s, err := taskgen.Transformer(layers, seed)
	if err == nil {
		err = taskgen.FuseLayers(&s, budget)
	}
	return s, err
}

// scaled is a generated spec with --exec-scale factor.
func scaled(s tasks.Spec, err error) func(float64) (tasks.Spec, error) {
	return func(factor float64) (tasks.Spec, error) {
		if err == nil {
			err = taskgen.ScaleExecution(&s, factor)
		}
		return s, err
	}
}

// equalExecution gives every alternative of a generated spec the same
// declared execution cost, 1 ns a tile.
func equalExecution(s tasks.Spec, err error) (tasks.Spec, error) {
	for name, tk := range s.Tasks {
		for i := range tk.Alternatives {
			tk.Alternatives[i].Cost.NS = 1
		}
		s.Tasks[name] = tk
	}
	return s, err
}

// pinned is g's spec with invocation vi pinned to alt, every other
// invocation as declared.
func pinned(t *testing.T, g *tasks.Graph, vi int, alt string) *tasks.Graph {
	t.Helper()
	s := g.Spec()
	s.Invocations = slices.Clone(s.Invocations)
	s.Invocations[vi].Pin = []string{alt}
	pg, err := tasks.New(s)
	if err != nil {
		t.Fatalf("%s pinned to %s: %v", s.Invocations[vi].ID, alt, err)
	}
	return pg
}

// pinAll is g's spec with every invocation vi pinned to alts[vi].
func pinAll(t *testing.T, g *tasks.Graph, alts []string) *tasks.Graph {
	t.Helper()
	s := g.Spec()
	s.Invocations = slices.Clone(s.Invocations)
	for vi := range s.Invocations {
		s.Invocations[vi].Pin = []string{alts[vi]}
	}
	pg, err := tasks.New(s)
	if err != nil {
		t.Fatalf("every invocation pinned to %v: %v", alts, err)
	}
	return pg
}

// samePlanCost reports whether two objectives, each proven optimal within
// the solver's default gaps (1e-9 relative, 1e-6 ns absolute:
// options.go), can be the same cost: each may be off by its gap.
func samePlanCost(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*(math.Abs(a)+math.Abs(b))+2e-6
}

// TestRegretsArePinnedReplans checks, on every bundled example (with and
// without its measured costs) and on small generated graphs, every regret
// of every rejected alternative that was not removed against the plan of
// the same graph with only that invocation pinned to that alternative:
// exact regrets equal pinned − optimum, ties have pinned = optimum (within
// the tie tolerance), intervals contain it, and an alternative reported
// infeasible has no pinned plan (and only such). Each reason's claim about
// the plan with only that alternative swapped in is checked against the
// graph verifier. It then checks the local-choice baseline against the plan
// with every invocation pinned to its locally cheapest alternative.
func TestRegretsArePinnedReplans(t *testing.T) {
	highstest.Library(t)
	total := 0
	for _, c := range pinCases(t) {
		t.Run(c.name, func(t *testing.T) {
			n := checkPinnedRegrets(t, c.g, c.opts)
			checkLocalChoice(t, c.g)
			t.Logf("%v", n)
			total += n.all()
		})
	}
	t.Logf("%d regrets checked in all", total)
}

// checkPinnedRegrets plans g with every regret and checks each one that is
// not removed by re-planning g with the alternative pinned; it returns how
// many it checked.
func checkPinnedRegrets(t *testing.T, g *tasks.Graph, opts PlanOptions) pinCounts {
	t.Helper()
	ctx := context.Background()
	base, err := Plan(ctx, g, opts)
	if err != nil {
		t.Fatal(err)
	}
	if base.Status != Optimal || base.Explained != len(base.Choices) {
		t.Fatalf("status %s, %d of %d invocations explained: want every regret of a proven plan", base.Status, base.Explained, len(base.Choices))
	}
	// A regret within 1e-6 relative of 0 is reported as a tie, regret 0
	// (planner/doc.go, "Ties are flagged"; regret.go: objectiveTolerance of the
	// optimum): a tie's pinned plan may cost that much more.
	tie := objectiveTolerance(base.ObjectiveNS)
	var n pinCounts
	// The pinned graphs convert between the same distributions: one cache
	// of classifications serves them all (the base plan has its own).
	cache := NewCache()
	for vi, c := range base.Choices {
		// The choice is a tie exactly where a rejected alternative is.
		if tied := slices.ContainsFunc(c.Rejected, func(rj Rejected) bool { return rj.Tie }); tied != c.Tie {
			t.Errorf("%s: tie %v, but a rejected alternative ties: %v", c.Invocation, c.Tie, tied)
		}
		for _, rj := range c.Rejected {
			if rj.Removed {
				continue
			}
			what := fmt.Sprintf("%s pinned to %s (regret %v, lower %v, exact %v, tie %v, infeasible %v; %s)",
				c.Invocation, rj.Alternative, deref(rj.RegretNS), deref(rj.RegretLowerNS), rj.Exact, rj.Tie, rj.Infeasible, rj.Reason)
			n.count(rj)
			// A dominated alternative names what dominates it, in the
			// reason and in DominatedBy alike.
			if by, ok := strings.CutPrefix(rj.Reason, "dominated by "); ok != (rj.DominatedBy != "") || ok && !strings.HasPrefix(by, rj.DominatedBy+" ") {
				t.Errorf("%s: dominated by %q", what, rj.DominatedBy)
			}
			checkSwapReason(t, g, base, vi, rj, what)
			if rj.Replanned != nil {
				n.replanned++
				// The plan the reason describes: the chosen one with the
				// alternative and the re-planned choices put in, costs
				// the optimum plus the regret.
				plan := ChoicesOf(base)
				plan[vi] = GraphChoice{Alternative: rj.Alternative,
					NoSharedMemoryConversions: strings.HasPrefix(rj.Reason, "with its conversions in its kernel kept out of shared memory")}
				for _, c := range rj.Replanned {
					k := slices.IndexFunc(base.Choices, func(pc PlanChoice) bool { return pc.Invocation == c.Invocation })
					if k < 0 || k == vi {
						t.Fatalf("%s: re-planned %q, not another invocation", what, c.Invocation)
					}
					plan[k] = GraphChoice{Alternative: c.Alternative, NoSharedMemoryConversions: c.NoSharedMemoryConversions}
				}
				ev, err := EvaluateGraph(g, plan, PlanOptions{Cache: cache})
				if err != nil || rj.RegretNS == nil || !samePlanCost(ev.Cost, base.ObjectiveNS+*rj.RegretNS) {
					t.Errorf("%s: its re-planned plan costs %v (%v), want the optimum plus the regret", what, ev, err)
				}
			}
			pr, err := Plan(ctx, pinned(t, g, vi, rj.Alternative), PlanOptions{Solve: Options{NoRegrets: true}, Cache: cache})
			if err != nil {
				switch {
				case !errors.Is(err, ErrInfeasible):
					t.Errorf("%s: the pinned graph does not plan: %v", what, err)
				case !rj.Infeasible && !(rj.RegretNS == nil && !rj.Exact):
					t.Errorf("%s: no plan uses it (%v), but the regret is not infeasible", what, err)
				}
				continue
			}
			if pr.Status != Optimal {
				t.Errorf("%s: the pinned plan is %s", what, pr.Status)
				continue
			}
			if got := pr.Choices[vi].Alternative; got != rj.Alternative {
				t.Fatalf("%s: the pinned plan chose %s", what, got)
			}
			if slices.ContainsFunc(pr.Choices, func(c PlanChoice) bool { return c.NoSharedMemoryConversions }) {
				n.noSmem++
			}
			d := pr.ObjectiveNS - base.ObjectiveNS
			switch {
			case rj.Infeasible:
				t.Errorf("%s: reported infeasible, but the pinned plan costs %v (%+v over the optimum)", what, pr.ObjectiveNS, d)
			case d < -2e-9*base.ObjectiveNS-2e-6:
				t.Errorf("%s: the pinned plan costs %v, less than the optimum %v", what, pr.ObjectiveNS, base.ObjectiveNS)
			case rj.Tie:
				if rj.RegretNS == nil || *rj.RegretNS != 0 || math.Abs(d) > tie+2e-9*base.ObjectiveNS+2e-6 {
					t.Errorf("%s: a tie, but the pinned plan costs %v, %v over the optimum", what, pr.ObjectiveNS, d)
				}
			case rj.Exact:
				if rj.RegretNS == nil || !samePlanCost(pr.ObjectiveNS, base.ObjectiveNS+*rj.RegretNS) {
					t.Errorf("%s: the pinned plan costs %v, %v over the optimum", what, pr.ObjectiveNS, d)
				}
			default:
				lo, hi := math.Inf(-1), math.Inf(1)
				if rj.RegretLowerNS != nil {
					lo = base.ObjectiveNS + *rj.RegretLowerNS
				}
				if rj.RegretNS != nil {
					hi = base.ObjectiveNS + *rj.RegretNS
				}
				if rj.RegretLowerNS == nil ||
					pr.ObjectiveNS < lo && !samePlanCost(pr.ObjectiveNS, lo) || pr.ObjectiveNS > hi && !samePlanCost(pr.ObjectiveNS, hi) {
					t.Errorf("%s: the pinned plan costs %v, %v over the optimum, outside the interval", what, pr.ObjectiveNS, d)
				}
			}
		}
	}
	return n
}

// pinCounts count the regrets checked, by kind, so that the log shows what
// the graphs exercise.
type pinCounts struct {
	exact, tie, infeasible, interval, dominated int
	// replanned counts the regrets whose re-planned choices are listed.
	replanned int
	// noSmem counts the pinned plans that keep some conversions out of
	// shared memory to fit a budget.
	noSmem int
}

func (n *pinCounts) count(rj Rejected) {
	switch {
	case rj.Infeasible:
		n.infeasible++
	case rj.Tie:
		n.tie++
	case rj.Exact:
		n.exact++
	default:
		n.interval++
	}
	if strings.HasPrefix(rj.Reason, "dominated by ") {
		n.dominated++
	}
}

func (n pinCounts) all() int { return n.exact + n.tie + n.infeasible + n.interval }

func (n pinCounts) String() string {
	return fmt.Sprintf("%d regrets checked by pinning: %d exact, %d ties, %d infeasible, %d intervals; %d dominated; %d with their re-planned choices; %d pinned plans keep conversions out of shared memory",
		n.all(), n.exact, n.tie, n.infeasible, n.interval, n.dominated, n.replanned, n.noSmem)
}

// checkLocalChoice checks the local-choice baseline (Result.LocalChoiceNS,
// docs/plan-format.md, "Local choice"): every invocation takes its
// cheapest alternative by execution cost alone, the lowest in the task's
// declaration order on ties, among those not removed, and the conversions
// are paid each by its cheapest mechanism. The execution costs come from
// the graph verifier (EvaluateGraph), not the lowering. Pinning every
// invocation to its local alternative leaves the planner only the
// conversions to choose; where the local plan fits, their cheapest
// mechanisms are the best, so the pinned plan's optimum is the local
// choice's cost. Where the local plan breaks a budget the doc has it
// infeasible "even where the same alternatives would fit with costlier
// conversions": then its cheapest conversions must break something, and a
// pinned plan, where there is one, must keep some conversions out of shared
// memory.
func checkLocalChoice(t *testing.T, g *tasks.Graph) {
	t.Helper()
	ctx := context.Background()
	base, err := Plan(ctx, g, PlanOptions{Solve: Options{NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	invs := g.Invocations()
	// cands[vi] are the alternatives the plan may use, in the task's order.
	cands := make([][]string, len(invs))
	for vi, v := range invs {
		c := base.Choices[vi]
		for _, alt := range v.Task.Alternatives {
			k := slices.IndexFunc(c.Rejected, func(rj Rejected) bool { return rj.Alternative == alt.ID })
			if alt.ID == c.Alternative || k >= 0 && !c.Rejected[k].Removed {
				cands[vi] = append(cands[vi], alt.ID)
			}
		}
	}
	// Every candidate's execution cost, from plans that take each
	// invocation's k-th candidate (its last where it has fewer).
	exec := make([][]float64, len(invs))
	for k := 0; ; k++ {
		more := false
		choices := make([]GraphChoice, len(invs))
		for vi := range invs {
			choices[vi].Alternative = cands[vi][min(k, len(cands[vi])-1)]
			more = more || k < len(cands[vi])
		}
		if !more {
			break
		}
		ev, err := EvaluateGraph(g, choices, PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for vi := range invs {
			if k < len(cands[vi]) {
				exec[vi] = append(exec[vi], ev.Invocations[vi])
			}
		}
	}
	local := make([]string, len(invs))
	choices := make([]GraphChoice, len(invs))
	for vi := range invs {
		best := 0
		for k, ns := range exec[vi] {
			// Strictly cheaper beyond rounding: the lowering and the
			// verifier may round the same figure differently.
			if ns < exec[vi][best]-1e-12*math.Abs(exec[vi][best]) {
				best = k
			}
		}
		local[vi] = cands[vi][best]
		choices[vi].Alternative = local[vi]
	}
	ev, err := EvaluateGraph(g, choices, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pr, perr := Plan(ctx, pinAll(t, g, local), PlanOptions{Solve: Options{NoRegrets: true}})
	if perr != nil && !errors.Is(perr, ErrInfeasible) {
		t.Fatal(perr)
	}
	if base.LocalChoiceNS == nil {
		if len(base.LocalChoiceViolations) == 0 || ev.Feasible() {
			t.Errorf("local choice %v: reported infeasible (%q), but its cheapest conversions break nothing (%v ns)",
				local, base.LocalChoiceViolations, ev.Cost)
		}
		if perr == nil && !slices.ContainsFunc(pr.Choices, func(c PlanChoice) bool { return c.NoSharedMemoryConversions }) {
			t.Errorf("local choice %v: reported infeasible, but pinned to it the plan costs %v with every conversion its cheapest",
				local, pr.ObjectiveNS)
		}
		t.Logf("local choice infeasible: %q", base.LocalChoiceViolations)
		return
	}
	if perr != nil {
		t.Errorf("local choice %v costs %v, but pinned to it no plan fits: %v", local, *base.LocalChoiceNS, perr)
		return
	}
	if !samePlanCost(pr.ObjectiveNS, *base.LocalChoiceNS) || !ev.Feasible() || !samePlanCost(ev.Cost, *base.LocalChoiceNS) {
		t.Errorf("local choice %v costs %v; pinned to it, the plan costs %v; the graph verifier says %v (%q)",
			local, *base.LocalChoiceNS, pr.ObjectiveNS, ev.Cost, ev.Violations)
	}
	if base.SavingNS == nil || !samePlanCost(*base.SavingNS, *base.LocalChoiceNS-base.ObjectiveNS) {
		t.Errorf("saving %v, want local choice %v − optimum %v", deref(base.SavingNS), *base.LocalChoiceNS, base.ObjectiveNS)
	}
	t.Logf("local choice %v ns, saving %v ns", *base.LocalChoiceNS, *base.SavingNS)
}

// checkSwapReason checks what a rejected alternative's reason claims
// against the graph verifier (docs/plan-format.md, "The reason"): it
// compares the chosen plan with the same plan where only that invocation's
// alternative changes — its conversions, or its producers', kept out of
// shared memory where the reason says so. That swap is a plan using the
// alternative, so it costs at least the optimum plus the regret; it costs
// exactly that unless the reason says the best plan re-plans other
// choices around it; and the reason says it is infeasible alone only when
// it is.
func checkSwapReason(t *testing.T, g *tasks.Graph, base *Result, vi int, rj Rejected, what string) {
	t.Helper()
	r := rj.Reason
	if strings.HasPrefix(r, "dominated by ") {
		_, r, _ = strings.Cut(r, "; ")
	}
	choices := ChoicesOf(base)
	choices[vi] = GraphChoice{Alternative: rj.Alternative}
	r, choices[vi].NoSharedMemoryConversions = strings.CutPrefix(r, "with its conversions in its kernel kept out of shared memory: ")
	if after, ok := strings.CutPrefix(r, "with the conversions out of "); ok {
		names, _, _ := strings.Cut(after, " kept out of shared memory: ")
		for _, name := range strings.Split(names, ", ") {
			k := slices.IndexFunc(base.Choices, func(c PlanChoice) bool { return c.Invocation == name })
			if name == "it" {
				k = vi
			}
			if k < 0 {
				t.Errorf("%s: the reason names %q, no invocation", what, name)
				return
			}
			choices[k].NoSharedMemoryConversions = true
		}
	}
	ev, err := EvaluateGraph(g, choices, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// "Swapped in alone it is infeasible" is said of an alternative some
	// plan is proven to use (an exact, finite regret); one that no plan
	// uses (Infeasible), or whose regret is an interval (the reason then
	// speaks of no best plan), has only the budgets it breaks, or the
	// conversions that cannot be made, in its reason.
	alone := strings.HasPrefix(r, "swapped in alone it is infeasible")
	regret := rj.RegretLowerNS
	if rj.Exact {
		regret = rj.RegretNS
	}
	checkNamedChanges(t, g, base, vi, choices[vi], r, regret, what)
	switch {
	case alone && ev.Feasible():
		t.Errorf("%s: the reason says it is infeasible swapped in alone, but that plan costs %v", what, ev.Cost)
	case !ev.Feasible() && !alone && rj.Exact && regret != nil:
		t.Errorf("%s: swapped in alone the plan is infeasible (%q), but the reason does not say so", what, ev.Violations)
	}
	if !ev.Feasible() || regret == nil {
		return
	}
	best := base.ObjectiveNS + *regret
	replanned := strings.Contains(r, replannedNote[:len(replannedNote)-2])
	switch {
	case ev.Cost < best && !samePlanCost(ev.Cost, best):
		t.Errorf("%s: swapped in alone, the plan costs %v, less than the best plan using it, %v", what, ev.Cost, best)
	case rj.Exact && replanned && samePlanCost(ev.Cost, best):
		t.Errorf("%s: the reason re-plans other choices, but swapped in alone the plan costs the best plan's %v", what, ev.Cost)
	case rj.Exact && !replanned && !samePlanCost(ev.Cost, best):
		t.Errorf("%s: swapped in alone, the plan costs %v, not the best plan using it, %v, and the reason does not say it re-plans others", what, ev.Cost, best)
	}
}

// checkNamedChanges checks the choices a reason says the best plan using a
// rejected alternative changes besides it ("(with the other choices
// re-planned around it: A to x, B to y; +R)", "…; the best plan using it
// also changes A to x"): the chosen plan with the alternative and those
// changes costs the optimum plus the regret, by the graph verifier. A list
// cut short ("and N more") is not checked.
func checkNamedChanges(t *testing.T, g *tasks.Graph, base *Result, vi int, pinned GraphChoice, reason string, regret *float64, what string) {
	t.Helper()
	var list string
	if _, after, ok := strings.Cut(reason, replannedNote[:len(replannedNote)-2]+": "); ok {
		list, _, _ = strings.Cut(after, "; ")
	} else if _, after, ok := strings.Cut(reason, replannedAlsoAt); ok {
		list = after
	} else {
		return
	}
	if regret == nil || strings.Contains(list, " more") {
		return
	}
	choices := ChoicesOf(base)
	choices[vi] = pinned
	for _, change := range strings.Split(list, ", ") {
		id, alt, ok := strings.Cut(change, " to ")
		k := slices.IndexFunc(base.Choices, func(c PlanChoice) bool { return c.Invocation == id })
		if !ok || k < 0 {
			t.Errorf("%s: the reason names the change %q", what, change)
			return
		}
		alt, choices[k].NoSharedMemoryConversions = strings.CutSuffix(alt, " (its conversions without shared memory)")
		choices[k].Alternative = alt
	}
	ev, err := EvaluateGraph(g, choices, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if best := base.ObjectiveNS + *regret; !ev.Feasible() || !samePlanCost(ev.Cost, best) {
		t.Errorf("%s: with the changes the reason names (%s) the plan costs %v (%q), not the best plan using it, %v", what, list, ev.Cost, ev.Violations, best)
	}
}

package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
)

// loadHiGHS finds HiGHS; it is called only when a MILP must be solved (a
// variable: tests make HiGHS missing).
var loadHiGHS = func() (*highs.Library, error) {
	lib, err := highs.Load(highs.Config{})
	if err != nil {
		return nil, fmt.Errorf("planner: %w", err)
	}
	return lib, nil
}

// errNilContext is Plan's and Solve's error for a nil context, which
// would otherwise fault in a goroutine of theirs, past the caller's
// recover.
var errNilContext = errors.New("planner: nil context (pass context.Background() for none)")

// Solve plans p: it validates p, removes and prunes alternatives, reduces
// the problem exactly, solves the core with HiGHS (no call when the core is
// empty), back-substitutes, verifies the plan against p, computes the regrets
// and the local-choice baseline.
//
// Errors: *InvalidError for a malformed p; *InfeasibleError (errors.Is
// ErrInfeasible) when no plan exists; ErrNoPlan when a limit stopped the
// solve before any plan; *VerifyError when the verifier disagrees with the
// solver (a bug, never an outcome); HiGHS's load error when a MILP is needed
// and HiGHS is missing.
func Solve(ctx context.Context, p *Problem, opt Options) (*Solution, error) {
	start := time.Now()
	if p == nil {
		return nil, errors.New("planner: Solve of a nil Problem")
	}
	if ctx == nil {
		return nil, errNilContext
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return solveValid(ctx, p, opt, start)
}

// solveValid is Solve of a p that Validate passed, or that was built from
// one that did: the flagged problem of p's diamonds (flagDiamonds builds
// its groups' admitted pairs without repeats; TestFlaggedProblemsValidate
// checks that it is valid). Validating both took a twentieth of planning
// an 11,000-invocation gated transformer (a profile: 0.38 of 7.5 s),
// mostly the flagged groups' search for repeated pairs.
func solveValid(ctx context.Context, p *Problem, opt Options, start time.Time) (*Solution, error) {
	if err := opt.validate(len(p.Nodes)); err != nil {
		return nil, err
	}
	for v, a := range opt.Start {
		if a < -1 || a >= len(p.Nodes[v].Alternatives) {
			return nil, fmt.Errorf("planner: Options.Start[%d]: alternative %d out of range [-1, %d)", v, a, len(p.Nodes[v].Alternatives))
		}
	}
	// Diamonds whose kernels the plan may put out of order are kept in
	// order by flags (diamond.go).
	if f := flagDiamonds(p); f != nil {
		return f.solve(func(q *Problem, qopt Options) (*Solution, error) {
			sol, err := solveValid(ctx, q, qopt, start)
			if sol != nil {
				sol.SolveTime = time.Since(start)
			}
			return sol, err
		}, opt)
	}
	// Budgets that no plan can exceed are dropped first (slack.go); the
	// plan's use of them is counted on p.
	if q := withoutSlack(p); q != nil {
		sol, err := solveValid(ctx, q, opt, start)
		if sol != nil && len(sol.Choices) == len(p.Nodes) {
			ev, everr := p.evaluate(sol.alternatives(), false)
			if everr != nil {
				return nil, everr
			}
			sol.BudgetUse = ev.BudgetUse
		}
		return sol, err
	}
	// Kernels whose budgets bind would leave their nodes to HiGHS: those
	// small enough are contracted first (contract.go).
	if !opt.NoReduce && !opt.noContract && !p.ordered() {
		if c := contractKernels(ctx, p, opt.workers()); c != nil {
			return solveContracted(ctx, p, c, opt, start)
		}
	}
	return solve(ctx, p, opt, start)
}

// solve is Solve on a valid problem, timed from start.
func solve(ctx context.Context, p *Problem, opt Options, start time.Time) (*Solution, error) {
	// The baseline (each node's locally cheapest alternative) depends on
	// nothing else: it runs beside the reduction and the solve.
	var local LocalChoice
	localDone := make(chan struct{})
	go func() {
		local = localChoice(p)
		close(localDone)
	}()
	// Every return waits for it, as for the model's size below: the
	// caller may change p once Solve returns (a regret's pin, put back).
	defer func() { <-localDone }()
	in := newInstance(p, opt.KeepDominated)
	if len(in.empty) > 0 {
		return nil, &InfeasibleError{Empty: in.empty}
	}
	// The whole model's size is counted beside the reduction, which needs
	// it only when a core is left.
	fullDone := make(chan ModelSize, 1)
	go func() { fullDone <- fullSize(in) }()
	full := sync.OnceValue(func() ModelSize { return <-fullDone })
	defer full()
	r, cm := reduceAndBuild(in, opt.maxTable(), !opt.NoReduce, opt.MaxTable == 0, wholeBudget+opt.wholeExtra, full, opt.stopping(ctx, start))
	sol := &Solution{Removed: in.removed, entries: r.entries}
	sol.Model = ModelStats{
		Nodes:      len(p.Nodes),
		Eliminated: len(r.order),
		CoreNodes:  len(r.core),
		MaxBucket:  r.maxSeen,
		Full:       full(),
	}
	for _, d := range in.domain {
		sol.Model.Alternatives += len(d)
	}
	if math.IsInf(r.offset, 1) {
		return nil, infeasible(ctx, in, opt)
	}

	asg := make([]int, len(p.Nodes))
	var main *coreResult
	var lib *highs.Library
	solverObjective := r.offset
	sol.Bound = r.offset
	var cs *coreSearch
	var planWork int64       // the core search's work (searchResult.work)
	var planIterations int64 // HiGHS's simplex iterations for the plan
	var ahead *rootLP        // the root LP whose duals the regrets take
	if len(r.core) > 0 {
		sol.Model.Core = sizeOf(&cm.model)
		<-localDone
		var sres *searchResult
		// The plan everything starts from: the local choice, or the
		// caller's where that is better.
		first := local.Choices
		if given := startingPlan(p, local, opt.Start); given != nil {
			first, sol.started = given, true
		}
		// The branch and bound first (bnb.go), where it applies; what it
		// does not prove, HiGHS does, from its best plan.
		cs, sres = searchCore(ctx, r, cm, first, &opt, start)
		if sres != nil {
			sol.Search = &SearchStats{Nodes: sres.nodes, Proved: sres.proven}
			planWork = sres.work
		}
		if sres != nil && sres.proven {
			if sres.asg == nil {
				return nil, infeasible(ctx, in, opt)
			}
			sol.Status = Optimal
			copy(asg, sres.asg)
			solverObjective = sres.objective
			sol.Bound, sol.BoundFrom = sres.bound, BoundSearch
		}
		if sres == nil || !sres.proven {
			var err error
			if lib, err = loadHiGHS(); err != nil {
				return nil, err
			}
			hopt := opt.solverOptions()
			hopt.IterationLimit = opt.iterationLimit
			if opt.TimeLimit > 0 {
				// What the reduction and the search left of the limit.
				hopt.TimeLimit = max(opt.TimeLimit-time.Since(start), time.Millisecond)
			}
			startPlan := slices.Clone(first)
			var root *rootLP // the root LP beside the branch and bound, when it runs
			if sres != nil && sres.asg != nil {
				// The search's best plan starts HiGHS, in the time left.
				cs = nil
				for _, v := range r.core {
					startPlan[v] = in.domain[v][sres.asg[v]]
				}
				if opt.TimeLimit > 0 {
					hopt.TimeLimit = max(opt.TimeLimit-time.Since(start), time.Millisecond)
				}
			} else if limited(ctx, &opt) && len(p.Budgets) == 0 && !p.ordered() && len(r.core) >= improveCore {
				// A large core under a time limit (or a deadline of ctx,
				// which is one) may not be proven: give HiGHS the best
				// plan a large-neighbourhood search finds from the local
				// choice, within the same limit; meanwhile the other
				// processor solves the root LP for a bound (rootbound.go),
				// in case HiGHS stops inside its own. A deadline reaches
				// HiGHS through ctx (the binding makes it HiGHS's time
				// limit).
				lpOpt := opt.solverOptions()
				if opt.TimeLimit > 0 {
					lpOpt.TimeLimit = max(opt.TimeLimit-time.Since(start), time.Millisecond)
				}
				root = startRootLP(ctx, lib, &cm.model, lpOpt)
				defer root.stop()
				startPlan = improve(p, startPlan, r.core, improvePasses, opt.stopping(ctx, start))
				if opt.TimeLimit > 0 {
					hopt.TimeLimit = max(opt.TimeLimit-time.Since(start), time.Millisecond)
				}
			}
			if root == nil && certifiesAhead(r, &opt) {
				// The regrets will price certificates by the root LP's
				// duals: it is solved now, beside the branch and bound,
				// rather than in the regrets' time.
				root = startRootLP(ctx, lib, &cm.model, opt.solverOptions())
				defer root.stop()
			}
			if len(p.Budgets) == 0 && !p.ordered() && !opt.NoReduce {
				// The core without budgets is the marginalization LP of
				// what the reduction left; HiGHS's presolve removes about
				// a fifth of its rows and costs more than it saves (15–30 %
				// of the solve on dense 1,000-node DAGs). The whole model
				// keeps it: without it the 10k transformer's took 2×.
				hopt.Presolve = highs.PresolveOff
			}
			startAsg := cm.startPositions(r, startPlan)
			if startAsg != nil {
				hopt.Start = cm.point(r, startAsg)
				// (Kernel-order levels: a start repaired to keep them is
				// often far from the best, which the jump may find.)
				hopt.NoFeasibilityJump = feasibleStart(&cm.model, hopt.Start) && !p.ordered()
			}
			if opt.Progress != nil {
				offset, floor := r.offset, executionFloor(p)
				hopt.Progress = func(hp highs.Progress) {
					pr := Progress{Elapsed: hp.Elapsed, Incumbent: hp.Incumbent + offset, Bound: hp.Bound + offset,
						Gap: hp.Gap, Nodes: hp.Nodes}
					if !(pr.Bound >= floor) { // NaN too
						// Inside its first LP HiGHS has no bound yet; the
						// execution floor is one (conversions are never
						// negative), as the report says when it stops there.
						pr.Bound, pr.Gap = floor, math.Inf(1)
						if !math.IsInf(pr.Incumbent, 1) && !math.IsNaN(pr.Incumbent) {
							pr.Gap = gap(pr.Incumbent, pr.Bound)
						}
					}
					if sres != nil && (sres.bound > pr.Bound || math.IsNaN(pr.Bound)) {
						// The branch and bound proved more than HiGHS
						// has yet: the best bound is the one to show.
						pr.Bound = sres.bound
						pr.Gap = math.Inf(1)
						if !math.IsInf(pr.Incumbent, 1) && !math.IsNaN(pr.Incumbent) {
							pr.Gap = gap(pr.Incumbent, pr.Bound)
						}
					}
					opt.Progress(pr)
				}
			}
			main, err = cm.solve(ctx, lib, r, hopt)
			rootBound := math.NaN()
			if root != nil {
				if err == nil && main.status == highs.Optimal && certifiesAhead(r, &opt) {
					// The regrets take its duals.
					ahead = root
				} else {
					// An LP still running bounds nothing in time: stop it,
					// without waiting for the interior point method to see
					// the stop (an iteration: 0.1 s on a 1,000-node core),
					// which it does in the background.
					root.stop()
					if root.finished() {
						rootBound = root.bound
					}
				}
			}
			if err != nil {
				return nil, err
			}
			planIterations = main.iterations
			sol.iterations = main.iterations
			switch main.status {
			case highs.Optimal:
				sol.Status = Optimal
			case highs.TimeLimitFeasible:
				sol.Status = TimeLimit
			case highs.IterationLimitFeasible:
				// Options.iterationLimit: unproven, as at a time limit.
				sol.Status, sol.iterationLimited = TimeLimit, true
			case highs.InterruptedFeasible:
				sol.Status = Interrupted
			case highs.Infeasible:
				return nil, infeasible(ctx, in, opt)
			case highs.TimeLimitNoSolution, highs.InterruptedNoSolution, highs.IterationLimitNoSolution:
				// HiGHS stopped before it took up its start (an interrupt
				// before the solve began): the start is the plan, when it is
				// one.
				ev, err := p.Evaluate(startPlan)
				if startAsg == nil || err != nil || !ev.Feasible() {
					if cerr := ctx.Err(); cerr != nil && main.status == highs.InterruptedNoSolution {
						// The caller's context: the error matches it too.
						return nil, fmt.Errorf("%w (HiGHS: %v): %w", ErrNoPlan, main.status, cerr)
					}
					return nil, fmt.Errorf("%w (HiGHS: %v)", ErrNoPlan, main.status)
				}
				sol.Status = Interrupted
				if main.status == highs.TimeLimitNoSolution {
					sol.Status = TimeLimit
				}
				if main.status == highs.IterationLimitNoSolution {
					sol.Status, sol.iterationLimited = TimeLimit, true
				}
				main.asg, main.objective = startAsg, cm.model.Objective(hopt.Start)
			default:
				return nil, fmt.Errorf("planner: HiGHS ended %v on the core", main.status)
			}
			copy(asg, main.asg)
			solverObjective = main.objective
			if main.status != highs.Optimal {
				// An incumbent HiGHS stopped at may carry slack: a
				// fan-out's z above every y it covers costs its
				// conversion for nothing. Its plan's cost is that of its
				// point, each column at its value for the choices.
				solverObjective = cm.model.Objective(cm.point(r, asg))
			}
			// Before HiGHS has a bound (a time limit inside the root LP) the
			// execution floor is one: no plan runs cheaper than every node's
			// cheapest alternative, conversions being never negative.
			sol.Bound, sol.BoundFrom = executionFloor(p), BoundFloor
			if main.bound > sol.Bound { // false for NaN
				sol.Bound, sol.BoundFrom = main.bound, BoundMILP
			}
			if rootBound > sol.Bound { // false for NaN
				sol.Bound, sol.BoundFrom = rootBound, BoundRootLP
			}
			if sres != nil && sres.bound > sol.Bound {
				// The stopped search's bound holds too, and on these
				// cores it is often the higher one.
				sol.Bound, sol.BoundFrom = sres.bound, BoundSearch
			}
			sol.MILPNodes = main.nodes
			cs = nil // HiGHS solved the core: it answers the regrets too
		}
	} else {
		// Every row of the empty core's model is a budget with no uses.
		for _, b := range p.Budgets {
			if b.Capacity < -budgetTolerance(b.Capacity) {
				return nil, infeasible(ctx, in, opt)
			}
		}
	}
	r.backSubstitute(asg)
	choices := make([]int, len(p.Nodes))
	for v, k := range asg {
		choices[v] = in.domain[v][k]
	}
	ev, err := p.verify(choices, solverObjective)
	if err != nil {
		return nil, err
	}
	sol.Objective = ev.Cost
	sol.Execution, sol.Conversion = ev.Execution, ev.Conversion
	sol.Groups, sol.BudgetUse = ev.Groups, ev.BudgetUse
	if (sol.Status == TimeLimit || sol.Status == Interrupted) && sol.Objective-sol.Bound <= math.Max(opt.absoluteGap(), opt.relativeGap()*math.Abs(sol.Objective)) {
		// Stopped, but what it proved meets the plan within the gaps
		// (HiGHS stopped inside its root LP, whose bound it was, on a
		// fan-out of a thousand consumers): the plan is proven.
		sol.Status = Optimal
	}
	switch {
	case len(r.core) == 0:
		// The elimination is exact: its offset and the verifier's sum
		// (which verify found to agree) differ only by the order of the
		// additions, and the optimum is proven.
		sol.Bound, sol.BoundFrom = sol.Objective, ""
	case sol.Status == Optimal:
		sol.Bound = math.Min(sol.Bound, sol.Objective)
		if sol.provedTight() {
			sol.BoundFrom = "" // proven: no bound to explain
		}
	}
	sol.Gap = gap(sol.Objective, sol.Bound)
	sol.Choices = make([]Choice, 0, len(choices))
	for v, a := range choices {
		alt := p.Nodes[v].Alternatives[a]
		sol.Choices = append(sol.Choices, Choice{Node: v, Alternative: a, ID: alt.ID, Cost: alt.Cost, Eliminated: r.pos[v] >= 0})
	}
	sol.planTime = time.Since(start)
	if sol.Status == Optimal && !opt.NoRegrets && sol.provedTight() && opt.regretsUnless != nil && opt.regretsUnless(choices) {
		sol.regretsSkipped = true
	} else if sol.Status == Optimal && !opt.NoRegrets && sol.provedTight() {
		// Regrets are measured from a plan proven optimal, and found as
		// exactly: at the default gaps, whatever gaps the plan was
		// allowed.
		sol.explained = true
		ropt := opt
		ropt.RelativeGap, ropt.AbsoluteGap = 0, 0
		rctx := ctx
		if lim := opt.regretTimeLimit(time.Since(start)); lim > 0 {
			// Past the limit every HiGHS re-solve stops at once with
			// what it has proven: the regrets it leaves are intervals.
			var cancel context.CancelFunc
			sol.regretDeadline = time.Now().Add(lim)
			rctx, cancel = context.WithDeadline(ctx, sol.regretDeadline)
			defer cancel()
		}
		rg := &regrets{r: r, cm: cm, lib: lib, cs: cs, opt: &ropt, asg: asg, opt0: sol.Objective, ctx: rctx, root: ahead,
			bound: sol.Bound, gap: sol.Gap, parent: ctx, planWork: planWork, planIterations: planIterations}
		if err := rg.compute(); err != nil {
			return nil, err
		}
		sol.Regrets, sol.RegretSolves, sol.RegretMILPSolves = rg.out, rg.solves-rg.descended, rg.milpSolves
		// A query a chain's descent answered is certified: its plan met
		// a certificate's bound.
		sol.RegretCertified, sol.dualsAhead, sol.certifiedLater = rg.certified+rg.descended, rg.dualsAhead, rg.certifiedLater
		sol.certifiedEliminated, sol.milpFixed, sol.certifiedWindows = rg.eliminated, rg.fixed, rg.windowed
		sol.fanOutsClustered, sol.descended = rg.fanOutsClustered, rg.descended
		sol.regretsCapped, sol.regretsUnneeded, sol.regretsUnneededLP = rg.capped, rg.unneeded, rg.unneededLP
		sol.lpAhead, sol.clusterDuals, sol.certifySkipped, sol.queryClusters = rg.lpAhead, rg.clusterDuals, rg.certifySkipped, rg.queryClusters
		// An interrupt, not the time limit, stopped the regrets when the
		// caller's context ended (cancelled, or at its own deadline).
		sol.regretsInterrupted = ctx.Err() != nil
		// (Only the core's queries heed it: without any, it stopped
		// nothing.)
		sol.regretsTimedOut = !sol.regretsInterrupted && rg.nOpen > 0 && errors.Is(rctx.Err(), context.DeadlineExceeded)
		if rg.workBounded {
			// The searches and re-solves heed the work budget, not the
			// time limit.
			sol.regretsTimedOut = false
			sol.regretsWorkSpent = rg.workSpent
		}
	}
	<-localDone
	sol.Local = local
	sol.SolveTime = time.Since(start)
	return sol, nil
}

// reduceAndBuild reduces the problem and builds the core's MILP (nil for
// an empty core). With whole (the default table limit), a problem that
// tables of up to wholeTable entries would eliminate entirely is eliminated
// so. Otherwise tables left in the core can make its MILP larger than the
// whole problem's (on dense graphs, where little reduces): then the
// reduction is redone with an 8× smaller table limit, down to smallTable,
// and at last not at all, so that reducing never grows the MILP.
//
// The elimination of the whole problem, whose tables can take seconds on
// small dense graphs, stops once stop says so (an interrupt or the time
// limit): the reduction with the table limit then goes to HiGHS, which
// stops as soon (non-nil stop; nil never stops).
//
// The reduction with the table limit does not look at stop, on purpose. It
// is exact and its work is bounded (at most one bucket of limit entries a
// node): 0.15 s for the 70,002 invocations of gen transformer --layers
// 7000, two thirds of it tabulating the groups before anything is
// eliminated, and 1.05 s (0.89 s, then 0.16 s at limit/8) for the 120,375
// of gen dag --invocations 100000. What it leaves uneliminated HiGHS would
// get instead, and a core that large costs far more before HiGHS stops:
// stopped at --time-limit 1ms, the 7,000 layers, which the reduction
// dissolves into a proven optimum in 0.19 s, took 22.5 s (16 s in
// improve, 4.9 s passing a 2.1M-column MILP to HiGHS) for a plan 1% worse
// and unproven.
func reduceAndBuild(in *instance, limit int, eliminate, whole bool, budget int, full func() ModelSize, stop func() bool) (*reduction, *coreModel) {
	first := whole
	for {
		r := reduce(in, limit, eliminate)
		if len(r.core) == 0 {
			return r, nil
		}
		// A core that tables of up to wholeTable entries would dissolve
		// entirely is cheaper to eliminate than to hand to HiGHS: on
		// small dense graphs whose labels frustrate each other the
		// marginalization LP is weak, and HiGHS branches for seconds on
		// what elimination settles in milliseconds. A dry run sizes
		// the buckets first, so a graph that would not dissolve costs
		// no table.
		if first && eliminate && eliminatesWithin(in, wholeTable, budget) {
			if rw := reduceStopping(in, wholeTable, true, nil, stop); !rw.stopped {
				return rw, nil
			}
		}
		first = false
		cm := buildCore(r)
		if !eliminate || len(cm.model.Columns) <= full().Columns {
			return r, cm
		}
		if limit /= 8; limit < smallTable {
			eliminate = false
		}
	}
}

// smallTable is the smallest table limit reduceAndBuild retries with.
const smallTable = 64

// wholeTable and wholeBudget bound the elimination of a whole problem that
// the default table limit leaves a core of: at most 2^23 entries in one
// bucket and 2^26 in all buckets together, up to a second or two of
// tabulation on the development machine and a few hundred MB of messages.
// The generated dense DAGs of 30 and 35 invocations (seed 1) need 2^23 in
// one bucket and 2^24.4 and 2^25.3 in all; HiGHS, branching on a weak LP,
// took 17 s and over 30 s to prove their optima.
const (
	wholeTable  = 1 << 23
	wholeBudget = 1 << 26
)

// provedTight reports whether s is proven optimal at the default gaps (a
// plan proven within looser gaps the caller allowed is not).
func (s *Solution) provedTight() bool {
	return s.Status == Optimal && s.Objective-s.Bound <= math.Max(defaultAbsoluteGap, defaultRelativeGap*math.Abs(s.Objective))
}

// gap is the relative gap of a plan of cost obj under a proven bound:
// (obj − bound) / |obj|. A plan of cost 0 has gap 0 when the bound is within
// the absolute gap below it (a solver's bound a rounding error below 0 once
// made a task graph's free plan's gap +Inf, which the JSON plan cannot
// write), else +Inf: a Problem's alternatives may cost less than 0.
func gap(obj, bound float64) float64 {
	d := obj - bound
	switch {
	case d <= 0:
		return 0
	case obj == 0 && d <= defaultAbsoluteGap:
		return 0
	case obj == 0:
		return math.Inf(1)
	}
	return d / math.Abs(obj)
}

// startPositions are the domain positions of a plan's core choices (node →
// position, 0 outside the core), or nil when the plan uses an alternative
// outside the domains. Their point (coreModel.point) is HiGHS's first
// incumbent, so that a time limit returns a plan whenever that one is
// feasible; HiGHS ignores an infeasible start.
func (cm *coreModel) startPositions(r *reduction, choices []int) []int {
	in := r.in
	asg := make([]int, len(in.p.Nodes))
	for _, v := range r.core {
		a := choices[v]
		if d := in.dominatedBy(v, a); d >= 0 {
			a = d // same labels and uses, cheaper: as feasible
		}
		k := slices.Index(in.domain[v], a)
		if k < 0 {
			return nil
		}
		asg[v] = k
	}
	return asg
}

// startingPlan is the caller's start (Options.Start), completed by the
// local choice, where it is feasible and better than the local choice: a
// feasible plan that costs less, or any feasible plan where the local
// choice is not; nil otherwise, or when it is the local choice.
func startingPlan(p *Problem, local LocalChoice, start []int) []int {
	if start == nil {
		return nil
	}
	plan := slices.Clone(local.Choices)
	moved := false
	for v, a := range start {
		if a >= 0 && a != plan[v] && p.Nodes[v].Alternatives[a].Removed == "" {
			plan[v], moved = a, true
		}
	}
	if !moved {
		return nil
	}
	ev, err := p.evaluate(plan, false)
	if err != nil || !ev.Feasible() {
		return nil
	}
	if len(local.Violations) == 0 && !(ev.Cost < local.Cost) {
		return nil
	}
	return plan
}

// dissolves reports whether Solve's reduction, with its default limits,
// eliminates p whole: no core is left for HiGHS (a problem without a
// kernel's budget, which Solve would contract first).
func dissolves(p *Problem) bool {
	in := newInstance(p, false)
	if len(in.empty) > 0 {
		return false
	}
	return len(reduce(in, DefaultMaxTable, true).core) == 0 || eliminatesWithin(in, wholeTable, wholeBudget)
}

// localChoice is the baseline: each node's cheapest alternative among those
// the caller did not remove (lowest index on ties).
func localChoice(p *Problem) LocalChoice {
	lc := LocalChoice{Choices: make([]int, len(p.Nodes))}
	for v, n := range p.Nodes {
		best := -1
		for a, alt := range n.Alternatives {
			if alt.Removed == "" && (best < 0 || alt.Cost < n.Alternatives[best].Cost) {
				best = a
			}
		}
		lc.Choices[v] = best
	}
	ev, err := p.evaluate(lc.Choices, false) // the baseline's cost, not its groups
	if err != nil {
		// Only a node with no alternative left gives -1, and Solve rejects
		// that before; keep the baseline's contract anyway.
		lc.Cost, lc.Violations = math.Inf(1), []string{err.Error()}
		return lc
	}
	lc.Cost, lc.Violations = ev.Cost, ev.Violations
	return lc
}

// infeasible explains an infeasible problem by the IIS of the whole
// problem's MILP.
func infeasible(ctx context.Context, in *instance, opt Options) error {
	e := &InfeasibleError{}
	if opt.noIIS {
		return e
	}
	lib, err := loadHiGHS()
	if err != nil {
		e.Note = "no HiGHS to find the conflicting constraints: " + err.Error()
		return e
	}
	full := buildCore(reduce(in, 0, false))
	s, err := lib.NewSolver()
	if err != nil {
		return fmt.Errorf("planner: %w", err)
	}
	defer s.Close()
	conf, err := s.Conflict(ctx, &full.model, highs.Options{TimeLimit: opt.TimeLimit, Threads: 1})
	if errors.Is(err, highs.ErrNoConflict) {
		e.Note = "the LP relaxation is feasible: no choice of one alternative per node avoids every forbidden conversion"
		if in.order != nil {
			e.Note += " and keeps its kernels in an order"
		}
		return e
	}
	if err != nil && ctx.Err() != nil {
		e.Note = "interrupted before the conflicting constraints were found"
		return e
	}
	if err != nil {
		return fmt.Errorf("planner: explaining infeasibility: %w", err)
	}
	for _, cb := range conf.Rows {
		ref := full.rows[cb.Index]
		e.Rows = append(e.Rows, in.rowName(ref))
		switch ref.kind {
		case rowBudget:
			e.Budgets = append(e.Budgets, ref.budget)
		case rowChoice:
			e.Nodes = append(e.Nodes, ref.node)
		case rowSource, rowTarget, rowShare:
			e.Groups = append(e.Groups, ref.group)
		case rowOrder:
			e.orderEdges = append(e.orderEdges, ref.edge)
		}
	}
	for _, l := range []*[]int{&e.Budgets, &e.Nodes, &e.Groups} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	e.Least = make([]float64, len(e.Budgets))
	for k, b := range e.Budgets {
		for v := range in.p.Nodes {
			e.Least[k] += in.leastUse(v, b)
		}
		for gi := range in.p.Groups {
			e.Least[k] += in.leastScratch(gi, b)
		}
	}
	for i, cb := range conf.Rows {
		if ref := full.rows[cb.Index]; ref.kind == rowBudget {
			k, _ := slices.BinarySearch(e.Budgets, ref.budget)
			e.Rows[i] += budgetNeed(in.p.Budgets[ref.budget].Capacity, e.Least[k])
		}
	}
	e.NodeLeast = make([][]float64, len(e.Nodes))
	for i, v := range e.Nodes {
		e.NodeLeast[i] = make([]float64, len(e.Budgets))
		for k, b := range e.Budgets {
			e.NodeLeast[i][k] = in.leastUse(v, b)
		}
	}
	return e
}

// leastScratch is a lower bound on the amount of budget b that group gi's
// conversions take in any plan: for each source its producer has left, the
// most over its consumers of the least scratch a convertible target they
// have left needs (exact for a group of one consumer), and the least of
// that over the sources.
func (in *instance) leastScratch(gi, b int) float64 {
	g := &in.p.Groups[gi]
	amount := func(pr Pair) float64 {
		amt := 0.0
		for _, u := range pr.Uses {
			if u.Budget == b {
				amt += u.Amount
			}
		}
		return amt
	}
	if !slices.ContainsFunc(g.Pairs, func(pr Pair) bool { return amount(pr) > 0 }) {
		return 0 // the usual group: no conversion of it takes any
	}
	use := map[[2]string]float64{} // convertible pair → its amount of b
	for _, pr := range g.Pairs {
		if !math.IsInf(pr.Cost, 1) {
			use[[2]string{pr.Source, pr.Target}] = amount(pr)
		}
	}
	least := inf
	for _, a := range in.domain[g.Producer] {
		src := g.Sources[a]
		most := 0.0
		for _, c := range g.Consumers {
			cl := inf
			for _, k := range in.domain[c.Node] {
				if amt, ok := use[[2]string{src, c.Targets[k]}]; ok {
					cl = math.Min(cl, amt)
				}
			}
			most = math.Max(most, cl)
		}
		least = math.Min(least, most)
	}
	if math.IsInf(least, 1) {
		return 0 // nothing converts: the conversion rows say so
	}
	return least
}

// budgetNeed says a budget's capacity and the least of it every plan takes,
// when that is more than none.
func budgetNeed(capacity, least float64) string {
	if least > 0 {
		return " (capacity " + fmtAmount(capacity) + "; every plan takes at least " + fmtAmount(least) + ")"
	}
	return " (capacity " + fmtAmount(capacity) + ")"
}

// fmtAmount writes a resource amount in full, without an exponent.
func fmtAmount(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// leastUse is the least amount of budget b that node v's alternatives left
// take.
func (in *instance) leastUse(v, b int) float64 {
	least := inf
	for _, a := range in.domain[v] {
		use := 0.0
		for _, u := range in.p.Nodes[v].Alternatives[a].Uses {
			if u.Budget == b {
				use += u.Amount
			}
		}
		least = math.Min(least, use)
	}
	if math.IsInf(least, 1) {
		return 0 // no alternative left: named in Empty, not here
	}
	return least
}

func sizeOf(m *highs.Model) ModelSize {
	return ModelSize{Columns: len(m.Columns), Rows: len(m.Rows), Nonzeros: m.NumNonzeros()}
}

// fullSize counts the whole problem's MILP (as buildCore would build it with
// nothing eliminated) without building it.
func fullSize(in *instance) ModelSize {
	var s ModelSize
	for v, d := range in.domain {
		s.Columns += len(d)
		s.Rows++
		s.Nonzeros += len(d)
		for _, a := range d {
			for _, u := range in.p.Nodes[v].Alternatives[a].Uses {
				if u.Amount != 0 {
					s.Nonzeros++
				}
			}
		}
	}
	s.Rows += len(in.p.Budgets)
	if in.order != nil {
		s.Columns += len(in.order.levels)
		s.Rows += len(in.order.rows)
		for _, r := range in.order.rows {
			s.Nonzeros += len(r.terms)
		}
	}
	for gi := range in.groups {
		g := &in.groups[gi]
		fan := len(g.consumers) > 1
		srcPresent := make([]bool, len(g.sources))
		for _, k := range g.src {
			srcPresent[k] = true
		}
		zs := make([]bool, len(g.cost))
		for _, c := range g.consumers {
			tgtPresent := make([]bool, len(g.targets))
			for _, k := range c.tgt {
				tgtPresent[k] = true
			}
			for sIdx := range g.sources {
				if srcPresent[sIdx] {
					s.Rows++
				}
			}
			for t := range g.targets {
				if tgtPresent[t] {
					s.Rows++
				}
			}
			s.Nonzeros += len(g.src) + len(c.tgt)
			for sIdx := range g.sources {
				for t := range g.targets {
					p := g.pair(sIdx, t)
					if !srcPresent[sIdx] || !tgtPresent[t] || math.IsInf(g.cost[p], 1) {
						continue
					}
					s.Columns++
					s.Nonzeros += 2
					nUses := 0
					for _, u := range g.pairUses(p) {
						if u.Amount != 0 {
							nUses++
						}
					}
					if !fan {
						s.Nonzeros += nUses
						continue
					}
					if !zs[p] {
						zs[p] = true
						s.Columns++
						s.Nonzeros += nUses
					}
					s.Rows++
					s.Nonzeros += 2
				}
			}
		}
	}
	return s
}

// executionFloor is Σ over nodes of the cheapest alternative left: a lower
// bound on every plan's cost.
func executionFloor(p *Problem) float64 {
	floor := 0.0
	for _, n := range p.Nodes {
		best := math.Inf(1)
		for _, a := range n.Alternatives {
			if a.Removed == "" {
				best = math.Min(best, a.Cost)
			}
		}
		floor += best
	}
	return floor
}

package planner

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"
)

// Options control Solve. The zero value reduces the problem, solves the core
// to proven optimality (gaps 1e-9 relative, 1e-6 ns absolute) with no time
// limit, prunes dominated alternatives and computes every node's regrets,
// exactly, with no limit: on a hard core that can take minutes, on a dense
// one of hundreds of nodes, or one of a few dozen whose labels frustrate
// each other around cycles (cklplan gen dag --invocations 40).
// CommandLineOptions are what cklplan plan bounds them by.
type Options struct {
	// NoReduce hands the whole problem to HiGHS, without the structural
	// reduction. Regrets then all come from re-solves.
	NoReduce bool
	// MaxTable bounds the entries of a bucket the reduction may form; 0
	// means DefaultMaxTable, except that a problem without budgets that
	// buckets of up to 2^23 entries (2^26 in all) would eliminate entirely
	// is eliminated so, with no MILP. Should the core's MILP outgrow the whole
	// problem's, Solve retries with an 8× smaller limit, down to 64, then
	// solves the whole problem.
	MaxTable int
	// TimeLimit bounds each HiGHS solve; 0 means none. A main solve stopped by
	// it returns the best plan with its proven gap (Status TimeLimit). A core
	// of at most 64 nodes that no budget row touches, whose LP relaxation
	// has fractional choices, is first searched by an exact branch and bound
	// (bnb.go), for 40 M search nodes (about 5 s) at most and within the
	// limit: what it proves needs no HiGHS, and its best plan otherwise
	// starts HiGHS, in the time left; the regrets of a core it proved are
	// searched the same way. Under
	// a time limit or a deadline of the context, a core of 100 nodes or
	// more in a problem without budgets first gets a plan from a
	// large-neighbourhood search (exact re-planning of windows of 10 nodes,
	// two passes at most), HiGHS's start, while the other processor solves
	// the core's LP relaxation for a bound; the search counts against the
	// main solve's limit, and stops at it (or at the deadline, or an
	// interrupt) with the plan it has. The regrets have their own limits
	// (RegretTimeLimit, RegretTimeFactor): for a bound on the whole of a
	// plan, give its context a deadline (HiGHS's time limit too, and the
	// plan then comes back Interrupted).
	TimeLimit time.Duration
	// RelativeGap and AbsoluteGap are HiGHS's MIP gaps; 0 means 1e-9 and 1e-6.
	RelativeGap, AbsoluteGap float64
	// NoRegrets skips the regrets.
	NoRegrets bool
	// Explain lists the nodes whose regrets are computed; nil means every
	// node. Regrets of core nodes cost one re-solve per alternative.
	Explain []int
	// RegretTimeLimit bounds the wall time of the regrets, counted from the
	// moment the plan is found; 0 means no limit. RegretTimeFactor, when
	// positive, limits them to this multiple of the time the plan took, or
	// to RegretTimeLimit where that is longer (with RegretTimeLimit 0 the
	// factor alone is the limit), so that a hard core's explanations cost
	// in proportion to it. Under RegretWork neither bounds anything in
	// Solve: the regrets are bounded by work instead.
	// A regret whose re-solve the limit stops is an interval: Regret.Exact
	// is false, Regret.Lower and Regret.Regret bound it (Regret is +Inf
	// when no plan using the alternative was found).
	//
	// Where a lowered graph chooses which edges cross a kernel boundary
	// (planner.Plan), TimeLimit or a deadline of the context gives the
	// kernel order's rounds a window of their own (3× the first plan's
	// solve, at least 2 s, or TimeLimit where that is longer), and any of
	// them, RegretTimeLimit or RegretTimeFactor gives the kernel order's
	// regret re-solves one (3× the plan's solve, at least 2 s), unless
	// RegretWork is set without TimeLimit or a deadline: then a work
	// budget bounds them instead. The
	// rounds' plan, and its regrets' time factor, is the solve that ends
	// them. Without any of them nothing is timed: the same input gives the
	// same plan and regrets, however long they take.
	RegretTimeLimit  time.Duration
	RegretTimeFactor float64
	// RegretWork, when positive, bounds the regrets' searches and
	// re-solves of the core by work instead of time. Of a core the branch
	// and bound proved (bnb.go), the searches together may do at most this
	// multiple of the plan's own search (its nodes and half its
	// heuristics' entries), or regretWorkFloor where that is more (about
	// 9 s of search on two processors). Of a core HiGHS solved, the
	// re-solves (LPs and MILPs) together may take at most this multiple
	// of the simplex iterations of the plan's solve, or
	// regretIterationFloor (200,000) where that is more: the MILP re-solves
	// are of the same core as the plan's, so this is about the multiple of
	// its time too. Either way the queries (or chains of queries) are
	// taken in their order in batches of regretBatch, each of a batch
	// getting at most an eighth of what is left. A search or re-solve it
	// stops leaves an interval, as a time limit does, but the same one
	// from run to run and for any number of processors (HiGHS stops a MILP
	// at its first check past the limit: highs.Options.IterationLimit).
	// The regrets then heed no time limit (RegretTimeLimit and
	// RegretTimeFactor bound nothing; the context's end still stops them):
	// what comes before a HiGHS core's re-solves (the windows and the
	// certificates) is bounded by the queries' count, a contracted
	// kernel's regret solves by RegretWork times the plan's iterations
	// each (divided among at most regretShare of them), and, in Plan, the
	// kernel order's regret solves by a budget of their own (orderRegrets)
	// where neither TimeLimit nor a deadline is set.
	RegretWork float64
	// RegretSolves, when positive, bounds the core's re-solves for the
	// regrets (each an LP re-solve of the core, then a MILP where its
	// choices are fractional, or a search of a core the branch and bound
	// proved; as many solves of a contracted budget's interior
	// alternatives; and the kernel order's queries whose pinned plans
	// have a conflict, each searched or solved with levels): the queries
	// that no window, certificate or min-marginal answered are re-solved,
	// those whose plans found so far cost least first (ties in the
	// queries' order), up to this many; the rest keep the interval proven
	// without a re-solve (Regret.Exact false). Unlike a time limit it leaves the same regrets for the same
	// input: every query re-solved is solved to the end, and which ones
	// are does not depend on time or on the workers. 0 means no limit.
	RegretSolves int
	// Workers bounds the goroutines of the regrets (the distribute pass and
	// the core re-solves, one HiGHS instance each) and of a plan's result
	// (its reasons are written on two from Workers 2); 0 means GOMAXPROCS.
	Workers int
	// KeepDominated keeps dominated alternatives in the model.
	KeepDominated bool
	// Start is a plan to start from, such as an earlier plan of a problem
	// like this one: per node, an alternative's index, or -1 for the
	// node's locally cheapest; nil, or an alternative the caller removed,
	// means the locally cheapest too. Where this plan is feasible and costs
	// less than the local choice (or the local choice is infeasible), it
	// is what the core's search, the large-neighbourhood search and HiGHS
	// start from, and what a time limit or an interrupt that stops them
	// at once returns. It changes what is proven in no way: a plan proven
	// optimal costs the same from any start, though among optimal plans
	// that tie, which one comes back may depend on it. A kernel contracted
	// over its budget (contract.go) starts from the local choice.
	Start []int
	// certify, for tests, changes which paths answer the queries of the
	// core's regrets.
	certify certifyPath
	// certifyRounds, for tests, is the certificates' rounds before a
	// re-solve (0: certifyRounds).
	certifyRounds int
	// search, for tests, says whether the core's branch and bound (bnb.go)
	// runs before HiGHS.
	search searchMode
	// noContract, for tests, keeps every budget a row (contract.go).
	noContract bool
	// queryNodes, for tests, replaces the node limits of a regret query's
	// searches before the last (staticNodes, querySteps) when positive.
	queryNodes int64
	// workFloor, for tests, replaces regretWorkFloor, the least work
	// budget of the regrets' searches, when positive.
	workFloor int64
	// iterationFloor, for tests, replaces regretIterationFloor when
	// positive.
	iterationFloor int64
	// iterationLimit, when positive, bounds HiGHS's solve of the core in
	// simplex iterations (highs.Options.IterationLimit): the kernel
	// order's regret solves under a work budget (orderRegrets). A solve
	// it stops comes back TimeLimit, unproven, with iterationLimited set.
	iterationLimit int64
	// firstNodes, for tests, replaces searchFirstNodes, the node limit of
	// the core search's first heuristic, when positive (with search
	// searchForce too).
	firstNodes int64
	// searchReports, for tests, has the branch and bound report its
	// progress at every check of its limits (every 1,024 nodes) instead of
	// every highs.ProgressEvery.
	searchReports bool
	// tableKernels, for tests, replaces the constant tableKernels when
	// positive.
	tableKernels int
	// noWShare, for tests, runs every kernel's program with its own W
	// (wShare).
	noWShare bool
	// lpAhead, for tests, loads the first re-solve worker's LP ahead
	// (loadLP) whenever the certificates' duals come from the root LP,
	// even when that LP has finished already.
	lpAhead bool
	// windowsOnly, for tests, answers the open regret queries by their
	// windows alone, as a regret time limit striking right after them
	// would (no certificate, no re-solve).
	windowsOnly bool
	// allSeparators, for tests, re-solves every open query of a
	// separator, as if each were needed (dropUnneeded).
	allSeparators bool
	// noClusterDuals, for tests, prices the certificates by the core's
	// LP duals even where the fan-outs' cluster rows would tighten it.
	noClusterDuals bool
	// noQueryClusters, for tests, adds no cluster rows for the nodes the
	// queries' LPs are fractional at (solveQueries).
	noQueryClusters bool
	// noRegionWindows, for tests, re-plans no window of a query's last
	// certificate region (regionWindows).
	noRegionWindows bool
	// noCertifySample, for tests, tries a certificate for every query
	// even where the certificates' bound is below the optimum
	// (certifySampled).
	noCertifySample bool
	// noIIS has an infeasible problem's error say so without the IIS of
	// its MILP: the kernel order's search (ordersearch.go) prunes such
	// nodes, and their IIS took HiGHS half of the search's time.
	noIIS bool
	// lpNear, for tests, replaces the constant lpNearGap when nonzero
	// (negative: only an integral relaxation skips the search).
	lpNear float64
	// wholeExtra raises the entries that the elimination of a whole
	// problem may take in all (wholeBudget): a contracted problem's grow
	// with its kernels.
	wholeExtra int
	// coreUnexplained are nodes of Explain whose regrets are wanted only
	// where the reduction eliminates them: left in the core, each of their
	// alternatives would cost a re-solve, and the caller (solveContracted,
	// for auxiliary nodes of many tuples) finds what it needs otherwise.
	coreUnexplained []int
	// regretsUnless, when set, skips the regrets of a plan it says true
	// of (its alternatives): a plan with a kernel-order conflict that
	// the levels' rounds will replace (keepKernelOrder), whose regrets no
	// one would read. The Solution then says regretsSkipped.
	regretsUnless func(choices []int) bool
	// tableRuns, for tests, counts the runs of the program that build a
	// contracted kernel's regret tables (budgetKernel.atTuples).
	tableRuns *atomic.Int64
	// Progress, when not nil, is called while the branch and bound
	// (Progress.Searching) or HiGHS solves the core, at most every few
	// hundred milliseconds, with the incumbent plan's cost, the best bound
	// proven so far and the gap (in the whole problem's terms); then, while
	// the regrets are computed, with how many of the core's queries are
	// answered (Progress.Explaining). It runs on the solve's thread or on
	// one of the regrets' workers, one call at a time: keep it short.
	Progress func(Progress)
}

// Progress is where the solve stands: first the core's solve, then the
// regrets.
type Progress struct {
	Elapsed   time.Duration
	Incumbent float64 // ns; +Inf before the first plan
	Bound     float64 // ns
	Gap       float64 // relative
	Nodes     int64   // branch-and-bound nodes
	// Searching says the planner's own branch and bound (bnb.go) is
	// searching the core, not HiGHS; Nodes are then its nodes.
	Searching bool
	// Explaining is set once the plan is chosen and its regrets are being
	// computed: Answered of Queries, the questions to the core that the
	// reduction's min-marginals leave (a node's other choice, a
	// separator's class), are answered. Elapsed then counts from the
	// start of the regrets, and the solve's fields are the plan's: its
	// cost as Incumbent, the proven bound, the gap.
	Explaining        bool
	Answered, Queries int
}

// The gaps of a solve whose Options leave them 0: a plan within them is
// proven optimal.
const (
	defaultRelativeGap = 1e-9
	defaultAbsoluteGap = 1e-6
)

func (o *Options) relativeGap() float64 {
	if o.RelativeGap == 0 {
		return defaultRelativeGap
	}
	return o.RelativeGap
}

func (o *Options) absoluteGap() float64 {
	if o.AbsoluteGap == 0 {
		return defaultAbsoluteGap
	}
	return o.AbsoluteGap
}

func (o *Options) maxTable() int {
	if o.MaxTable == 0 {
		return DefaultMaxTable
	}
	return o.MaxTable
}

// regretTimeLimit is the regrets' time limit when the plan took planned;
// 0 means none, as under RegretWork, which bounds them by work instead.
func (o *Options) regretTimeLimit(planned time.Duration) time.Duration {
	if o.RegretWork > 0 {
		return 0
	}
	lim := o.RegretTimeLimit
	if o.RegretTimeFactor > 0 {
		lim = max(lim, time.Duration(o.RegretTimeFactor*float64(planned)))
	}
	return lim
}

// stopping is what stops the work before HiGHS (the elimination of a
// whole problem, the search's heuristic) for a solve begun at start: ctx
// ending, or the time limit passing.
func (o *Options) stopping(ctx context.Context, start time.Time) func() bool {
	var deadline time.Time
	if o.TimeLimit > 0 {
		deadline = start.Add(o.TimeLimit)
	}
	return func() bool {
		return ctx.Err() != nil || !deadline.IsZero() && time.Now().After(deadline)
	}
}

// timeBounded says whether the caller bounds a plan's time in any way: a
// time limit or a deadline (limited), or a time limit of the regrets. Only
// then do the kernel order's rounds and re-solves get their windows
// (orderTime); without, the plan and its regrets are the same from run to
// run.
func (o *Options) timeBounded(ctx context.Context) bool {
	return limited(ctx, o) || o.RegretTimeLimit > 0 || o.RegretTimeFactor > 0
}

// limited says whether a solve has a time limit: Options.TimeLimit, or a
// deadline of its context, which the planner's time-limit strategies (the
// large-neighbourhood search and the root LP's bound beside HiGHS) treat
// as one.
func limited(ctx context.Context, o *Options) bool {
	_, deadline := ctx.Deadline()
	return o.TimeLimit > 0 || deadline
}

func (o *Options) workers() int {
	if o.Workers == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Workers
}

// validate checks the options against the problem's size.
func (o *Options) validate(nodes int) error {
	switch {
	case o.MaxTable < 0:
		return fmt.Errorf("planner: Options.MaxTable %d is negative", o.MaxTable)
	case o.TimeLimit < 0:
		return fmt.Errorf("planner: Options.TimeLimit %v is negative", o.TimeLimit)
	case !(o.RelativeGap >= 0) || !(o.AbsoluteGap >= 0) || math.IsInf(o.RelativeGap, 0) || math.IsInf(o.AbsoluteGap, 0):
		return fmt.Errorf("planner: Options gaps %v, %v: want finite numbers ≥ 0", o.RelativeGap, o.AbsoluteGap)
	case o.RegretTimeLimit < 0:
		return fmt.Errorf("planner: Options.RegretTimeLimit %v is negative", o.RegretTimeLimit)
	case o.RegretTimeFactor < 0 || math.IsNaN(o.RegretTimeFactor) || math.IsInf(o.RegretTimeFactor, 0):
		return fmt.Errorf("planner: Options.RegretTimeFactor %v: want a finite number ≥ 0", o.RegretTimeFactor)
	case o.RegretWork < 0 || math.IsNaN(o.RegretWork) || math.IsInf(o.RegretWork, 0):
		return fmt.Errorf("planner: Options.RegretWork %v: want a finite number ≥ 0", o.RegretWork)
	case o.Workers < 0:
		return fmt.Errorf("planner: Options.Workers %d is negative", o.Workers)
	case o.RegretSolves < 0:
		return fmt.Errorf("planner: Options.RegretSolves %d is negative", o.RegretSolves)
	}
	if o.Start != nil && len(o.Start) != nodes {
		return fmt.Errorf("planner: Options.Start has %d entries for %d nodes", len(o.Start), nodes)
	}
	for i, v := range o.Explain {
		if v < 0 || v >= nodes {
			return fmt.Errorf("planner: Options.Explain[%d]: node %d out of range [0, %d)", i, v, nodes)
		}
	}
	return nil
}

// A certifyPath says which paths answer the queries of the core's regrets.
type certifyPath uint8

const (
	certifyAuto    certifyPath = iota // certificates for many queries (certifyQueries), then re-solves
	certifyAlways                     // certificates, then re-solves
	certifyNone                       // re-solves alone
	certifyFixings                    // re-solves alone, the certificates' duals fixing the MILP re-solves' columns
)

// A searchMode says when Solve searches the core by branch and bound.
type searchMode uint8

const (
	searchAuto  searchMode = iota // when the core fits and its LP is not integral, within searchNodes, then HiGHS
	searchOff                     // HiGHS alone
	searchForce                   // with no time of its own, even under NoReduce
	searchStop                    // searchForce, stopped after one node: HiGHS finishes
)

// The limits cklplan plan puts on the regrets by default (--regret-solves,
// --regret-time-limit auto). DefaultRegretSolves: on gen dag --invocations
// 300 --exec-scale 100 (2,753 queries to re-solve, 2,730 of them as MILPs,
// every regret in about 2 minutes) it keeps the regrets within a few
// seconds; graphs whose certificates leave fewer, as the 1,000-invocation
// one (39), get every regret exact. DefaultRegretTimeLimit and
// DefaultRegretTimeFactor were the backstop before DefaultRegretWork (a
// caller that wants the regrets bounded by time may still set them, with
// RegretWork 0): the regrets stop at the factor times the plan's time, at
// least the limit, since a re-solve that is a MILP can take as long as
// the plan (on gen dag --invocations 700 --exec-scale 30 --seed 1, one
// invocation's regrets took 82 s with no time limit: 8 MILP re-solves of
// about 10 s each).
//
// DefaultRegretWork bounds the regrets in their place, by the work of the
// plan's search or solve rather than its time, so that they are the same
// from run to run: on cklplan gen dag --invocations 50 (a
// core of 44 invocations, 2 M search nodes to prove), the time backstop
// left 384 to 387 of the 420 regrets unproven, differing from run to run;
// on cklplan gen dag --invocations 60 --unfused 0.5 --exec-scale 100 (a
// core HiGHS solves with the kernel order's levels, its MILP re-solves
// 20–40 s each), 628 to 646.
const (
	DefaultRegretSolves     = 100
	DefaultRegretTimeLimit  = 10 * time.Second
	DefaultRegretTimeFactor = 5
	DefaultRegretWork       = 5
)

// CommandLineOptions are the Options cklplan plan solves with when given
// no flag: the zero Options with the regrets bounded by
// DefaultRegretSolves re-solves and by DefaultRegretWork times the plan's
// work, the same from run to run (the time limits it also sets,
// DefaultRegretTimeLimit and DefaultRegretTimeFactor, bound nothing under
// RegretWork). A compiler that plans graphs of any density should start
// from these.
func CommandLineOptions() Options {
	return Options{RegretSolves: DefaultRegretSolves, RegretTimeLimit: DefaultRegretTimeLimit, RegretTimeFactor: DefaultRegretTimeFactor,
		RegretWork: DefaultRegretWork}
}

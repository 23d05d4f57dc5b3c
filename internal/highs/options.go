package highs

import "time"

// Options control one solve. The zero value solves to HiGHS's default
// tolerances, on one thread, with seed 0 and HiGHS's choice of presolve, with no
// time limit; HiGHS's own output is always off.
type Options struct {
	// TimeLimit stops the solve after this much wall-clock time; 0 means none.
	TimeLimit time.Duration
	// RelativeGap is HiGHS's mip_rel_gap, |primal − dual| / |primal|; 0 means
	// HiGHS's default (1e-4). Negative values are an error.
	RelativeGap float64
	// AbsoluteGap is HiGHS's mip_abs_gap, |primal − dual|; 0 means HiGHS's
	// default (1e-6). Negative values are an error.
	AbsoluteGap float64
	// Threads is the number of threads HiGHS may use; 0 means 1, which keeps
	// solves deterministic. HiGHS sizes its thread pool once per process, so
	// all solves of a process should ask for the same number.
	Threads int
	// Seed is HiGHS's random_seed.
	Seed int
	// Presolve turns HiGHS's presolve on or off; the zero value lets HiGHS
	// choose.
	Presolve Presolve
	// Progress, when not nil, is called during a MIP solve with the
	// incumbent, the bound and the gap, at most every ProgressEvery
	// (HiGHS's MIP interrupt checks, on the solve's thread: keep it short).
	Progress func(Progress)
	// Duals asks for an LP's dual solution (Result.RowDuals and
	// ReducedCosts) when it is solved to optimality; it is ignored for a MIP.
	Duals bool
	// InteriorPoint solves an LP by HiGHS's interior point method, without
	// crossover, to a relative optimality tolerance of 1e-10: its duals are
	// then near the centre of the optimal face (every reduced cost that can
	// be positive is), not a vertex's, where a degenerate LP leaves most of
	// them 0. It leaves no basis for a later Resolve to start from. Presolve
	// then keeps linearly dependent equations: the postsolve of their
	// removal left the duals of a 40,000-row LP 15 reduced costs up to 52
	// below 0, and HiGHS called its status unknown, with no duals. (It can
	// still do so after other reductions; a solve without presolve has no
	// postsolve.)
	InteriorPoint bool
	// Start, when not nil, is a point to start from, one value per column:
	// for a MIP, a feasible Start is HiGHS's first incumbent, so a solve
	// stopped early returns it or something better. An infeasible Start is
	// ignored by HiGHS.
	Start []float64
	// Basis, when not nil, is an LP's starting basis: one that Solver.Basis
	// took from a solve of a model of the same shape (its columns and rows),
	// typically the same LP on another Solver, whose optimum the simplex
	// then starts from instead of solving from nothing. HiGHS refuses one
	// that is not a basis of the model (Solve returns an OptionError). It
	// is ignored for a MIP and under InteriorPoint.
	Basis *Basis
	// NoFeasibilityJump skips HiGHS's feasibility jump, a heuristic that
	// looks for a feasible point before a MIP's root LP. HiGHS 1.15 runs
	// it even when Start is one; there it is time spent finding what the
	// caller gave (10–30 % of the solve on dense 1,000-node cores). It
	// is a hint for speed: a HiGHS without the option ignores it.
	NoFeasibilityJump bool
	// IterationLimit, when positive, bounds the solve's simplex iterations,
	// a measure of work that, unlike time, is the same from run to run: an
	// LP stops at HiGHS's simplex_iteration_limit, a MIP at HiGHS's first
	// limit check (between its root's separation rounds, and its nodes)
	// at which its LPs have taken this many iterations in all
	// (mip_total_lp_iterations), so a MIP may go past it by what one round
	// or node takes. Either ends with Status IterationLimitFeasible or
	// IterationLimitNoSolution, at the same point of the search every run
	// (one thread). Result.SimplexIterations says what it took.
	IterationLimit int64
}

// presolveRuleDependentEquations is HiGHS's presolve_rule_off bit of the
// removal of linearly dependent equations (rule 10 in HiGHS 1.15).
const presolveRuleDependentEquations = 1 << 10

// ipmTolerance is HiGHS's ipm_optimality_tolerance under InteriorPoint
// (its default, 1e-8, leaves the dual objective 1e-5 below the optimum on
// an LP of 20,000 columns).
const ipmTolerance = 1e-10

// ProgressEvery is the least time between two Progress calls of one solve.
const ProgressEvery = 200 * time.Millisecond

// Progress is where a MIP solve stands: HiGHS's running time, the
// incumbent's objective (+Inf before the first), the best bound, the
// relative gap and the branch-and-bound nodes so far.
type Progress struct {
	Elapsed   time.Duration
	Incumbent float64
	Bound     float64
	Gap       float64
	Nodes     int64
}

// Presolve is the presolve setting.
type Presolve int

const (
	PresolveChoose Presolve = iota // HiGHS decides ("choose")
	PresolveOn                     // always presolve ("on")
	PresolveOff                    // never presolve ("off")
)

func (p Presolve) String() string {
	switch p {
	case PresolveChoose:
		return "choose"
	case PresolveOn:
		return "on"
	case PresolveOff:
		return "off"
	}
	return "invalid"
}

package planner

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
)

// Status is how far a returned plan is proven.
type Status int

const (
	// Optimal: the plan is optimal within the gaps.
	Optimal Status = iota
	// TimeLimit: a HiGHS time limit stopped the solve; the plan is the best
	// found and Solution.Gap bounds how far from optimal it may be.
	TimeLimit
	// Interrupted: the context stopped the solve; the plan is the best found.
	Interrupted
)

var statusNames = [...]string{Optimal: "optimal", TimeLimit: "time limit", Interrupted: "interrupted"}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ParseStatus is the inverse of Status.String.
func ParseStatus(s string) (Status, error) {
	for st, name := range statusNames {
		if name == s {
			return Status(st), nil
		}
	}
	return 0, fmt.Errorf("planner: unknown status %q", s)
}

// MarshalText writes the status as its String.
func (s Status) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(statusNames) {
		return nil, fmt.Errorf("planner: cannot marshal %v", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a status written by MarshalText.
func (s *Status) UnmarshalText(text []byte) error {
	st, err := ParseStatus(string(text))
	if err == nil {
		*s = st
	}
	return err
}

// A Solution is a plan and what is proven about it. It is plain data.
type Solution struct {
	Status Status
	// Objective is the plan's cost as the verifier recomputed it from the
	// Problem (it agrees with the solver's objective within 1e-6 relative).
	Objective float64
	// Bound is the proven lower bound on the optimum; Gap is (Objective −
	// Bound) / |Objective| (0 when Objective is 0 and Bound is within
	// 1e-6 of it, +Inf when it is further below).
	Bound, Gap float64
	// BoundFrom says, for a plan not proven optimal at the default gaps
	// (stopped, or Optimal only within looser gaps the Options allowed),
	// what proved Bound: BoundMILP, BoundRootLP, BoundSearch or
	// BoundFloor; "" when proven at the default gaps.
	BoundFrom string
	// MILPNodes is HiGHS's branch-and-bound node count (0 without a MILP).
	MILPNodes int64
	// Search is what the branch and bound over the core (bnb.go) did,
	// when it ran: it proves small dense cores before HiGHS is asked.
	Search *SearchStats
	// SolveTime is Solve's wall-clock time, regrets included.
	SolveTime time.Duration
	// Model is the size of the model before and after the reduction.
	Model ModelStats
	// Choices has one entry per node, in node order.
	Choices []Choice
	// Execution and Conversion split Objective.
	Execution, Conversion float64
	// Groups has one entry per group: the chosen labels and conversions,
	// with the sharing of fan-outs.
	Groups []GroupChoice
	// BudgetUse is each budget's use by the plan.
	BudgetUse []float64
	// Removed lists the alternatives excluded before solving (by the caller,
	// or dominated), by node then alternative.
	Removed []Removal
	// Regrets lists, for every explained node (Options.Explain) and every
	// alternative it did not choose, the regret; by node then alternative.
	// Nil when not computed (Options.NoRegrets, or a plan not proven
	// optimal at the default gaps: a plan within looser gaps the options
	// allowed is not measured from; the re-solves themselves always run at
	// the default gaps). Alternatives removed before solving (Removed) are
	// not listed.
	Regrets []Regret
	// RegretSolves is the number of core re-solves the regrets took: each a
	// warm-started LP re-solve, and RegretMILPSolves of them also a MILP
	// re-solve (where the LP's choice was fractional).
	RegretSolves, RegretMILPSolves int
	// RegretCertified is the number of the core's queries (a node's other
	// choice, a separator's assignment) answered by a certificate: a plan
	// whose cost a lower bound from the LP relaxation's duals meets. Most
	// need no re-solve; those after an LP re-solve with fractional choices
	// (counted in RegretSolves too) need no MILP re-solve.
	//
	// RegretMILPSolves and RegretCertified count work, and can differ from
	// run to run with more than one worker (never the regrets themselves):
	// an LP re-solve starts from the basis its worker's last query left,
	// and on a degenerate LP whether its choice comes out fractional can
	// depend on which queries that worker took before.
	RegretCertified int
	// Local is the plan that takes each node's locally cheapest alternative.
	Local LocalChoice
	// regretDeadline is when the regrets' time limit ends (zero: none).
	regretDeadline time.Time
	// iterations is HiGHS's simplex iterations for the plan (0: no
	// HiGHS), and iterationLimited says Options.iterationLimit stopped it.
	iterations       int64
	iterationLimited bool
	// started says the core was searched and solved from Options.Start
	// (startingPlan took it).
	started bool
	// regretsInterrupted says the context ended (an interrupt) while the
	// regrets were computed, before their time limit did.
	regretsInterrupted bool
	// regretsTimedOut says the regrets' time limit had struck when they
	// ended (checked as they end, not when the result is written: the
	// report's unproven_by does not depend on how long writing took).
	regretsTimedOut bool
	// regretsWorkSpent says the regrets' work budget (Options.RegretWork)
	// left a query unproven.
	regretsWorkSpent bool
	// regretsCapped counts the queries (and a contracted budget's interior
	// alternatives) left unproven because Options.RegretSolves allowed no
	// more re-solves.
	regretsCapped int
	// regretsUnneeded counts the separators' queries left unsolved because
	// no regret depends on them (dropUnneeded).
	regretsUnneeded int
	// regretsUnneededLP counts those of regretsUnneeded that their LP
	// re-solves' bounds left out.
	regretsUnneededLP int
	// explained says the regrets were computed (for the nodes asked).
	explained bool
	// regretsSkipped says the regrets were asked for but skipped
	// (Options.regretsUnless).
	regretsSkipped bool
	// planTime is the solve's time before its regrets.
	planTime time.Duration
	// dualsAhead: the regrets' certificates were priced by the root LP
	// solved beside the plan's branch and bound (certifiesAhead).
	dualsAhead bool
	// certifiedLater counts the regrets' queries certified after the first
	// pass of certificates (certificatePasses).
	certifiedLater int
	// fanOutsClustered counts the fan-outs' clusters and the pairs of nodes
	// whose rows the regrets' LP re-solves got (clusterFanOuts).
	fanOutsClustered int
	// descended counts the regrets' queries that a descent from their
	// chain's last answer answered, without a re-solve (chainPlan).
	descended int
	// kernelsSharingW counts the kernels whose interior regrets came from
	// another kernel alike's program, its W the same up to a constant
	// (wShare).
	kernelsSharingW int
	// lpAhead says a re-solve worker of the regrets took the LP loaded
	// while the certificates waited for the duals (loadLP).
	lpAhead bool
	// clusterDuals says the regrets' certificates were priced by the
	// duals of the LP with the fan-outs' cluster rows (clusterFanOuts).
	clusterDuals bool
	// certifySkipped counts the regrets' queries whose certificates got
	// the first round alone, a sample having certified none
	// (certifySampled).
	certifySkipped int
	// queryClusters counts the clusters and pairs added for the nodes the
	// queries' LPs were fractional at (0: none).
	queryClusters int
	// certifiedEliminated counts the regrets' queries certified by an
	// eliminated region rather than a small LP.
	certifiedEliminated int
	// certifiedWindows counts the regrets' queries certified by the
	// window of their last certificate region (regionWindows).
	certifiedWindows int
	// milpFixed counts the regrets' MILP re-solves whose columns a plan
	// found before the re-solve fixed.
	milpFixed int
	// entries are the reduction's buckets, in entries together: the
	// elimination's work, counted the same on any machine.
	entries int
}

// A Choice is one node's chosen alternative.
type Choice struct {
	Node        int
	Alternative int // index into the node's Alternatives
	ID          string
	Cost        float64 // execution cost
	// Eliminated says the reduction chose it (by back-substitution), not the
	// MILP.
	Eliminated bool
}

// A Regret is how much more the best plan using a rejected alternative costs
// than the optimum.
type Regret struct {
	Node        int
	Alternative int
	ID          string
	// Regret is the best plan using the alternative minus the optimum; +Inf
	// when no feasible plan uses it.
	Regret float64
	// Lower is a proven lower bound on Regret; equal to it when Exact.
	Lower float64
	// Exact is false only where a limit left the regret unproven
	// (RegretSolves, RegretWork, a time limit) or an interrupt did.
	Exact bool
	// Tie: a plan using it is as cheap as the optimum (within 1e-6
	// relative); Regret is then 0.
	Tie bool
	// DominatedBy is the alternative that dominates this pruned one (its
	// regret is that alternative's plus the cost difference), or -1.
	DominatedBy int
}

// A LocalChoice is the baseline of choosing locally: each node takes its
// cheapest alternative by execution cost (the lowest index on ties) among
// those not removed by the caller, then the conversions are paid.
type LocalChoice struct {
	Choices []int // alternative index per node
	// Cost is the plan's cost; +Inf when it needs a pair that cannot be
	// converted.
	Cost float64
	// Violations say why the plan is infeasible; empty when it is feasible.
	Violations []string
}

// Feasible reports whether the local plan breaks nothing.
func (l LocalChoice) Feasible() bool { return len(l.Violations) == 0 }

// ModelStats are the sizes of the problem and its models.
type ModelStats struct {
	Nodes        int // nodes of the problem
	Alternatives int // alternatives left after removals and pruning
	Eliminated   int // nodes the reduction eliminated
	CoreNodes    int // nodes left to the MILP
	// MaxBucket is the largest bucket the reduction formed, in entries.
	MaxBucket int
	// ContractedKernels is how many budgets' kernels were contracted into
	// tables over their boundary nodes (contract.go), their budget rows
	// gone from the model.
	ContractedKernels int
	// Full is the MILP of the whole problem; Core the one solved.
	Full, Core ModelSize
}

// ModelSize is the size of a MILP.
type ModelSize struct {
	Columns, Rows, Nonzeros int
}

// ErrInfeasible is matched (errors.Is) by every error that says no plan
// exists; the error's *InfeasibleError says why.
var ErrInfeasible = errors.New("planner: no feasible plan")

// ErrNoSolver is matched (errors.Is) by the error of a plan that needed
// HiGHS and found no usable library; the error says where it looked and the
// command that installs it (cklplan doctor checks an installation).
var ErrNoSolver = highs.ErrNotFound

// ErrUnknownInvocation is matched by the error of a Plan asked to explain
// invocations (PlanOptions.ExplainIDs) that the graph does not have; the
// error names every one.
var ErrUnknownInvocation = errors.New("planner: invocations to explain that the graph does not have")

// ErrNoPlan is matched by the error of a solve stopped (time limit, context)
// before any plan was found: HiGHS had no incumbent and the start it was
// given (the local choice, or the search's plan) is infeasible; or Plan
// interrupted while it classified the conversions, before any solve.
var ErrNoPlan = errors.New("planner: stopped before a plan was found")

// An InfeasibleError is the evidence that no plan exists: the nodes left
// without alternatives, or an irreducible infeasible subset of the whole
// problem's MILP rows (HiGHS's IIS of the LP relaxation), named after the
// problem's budgets, nodes and groups. Every list is sorted ascending.
type InfeasibleError struct {
	Empty   []int // nodes whose every alternative was removed
	Budgets []int // budgets in the conflict
	Nodes   []int // nodes whose choice row is in the conflict
	Groups  []int // groups whose conversion rows are in the conflict
	// Least parallels Budgets: a lower bound on the budget's resource that
	// any plan takes: each node's least use over the alternatives it has
	// left, and each group's least conversion scratch, summed. Above the
	// budget's capacity, the budget alone rules out every plan.
	Least []float64
	// NodeLeast parallels Nodes: the node's least use of each budget of
	// Budgets, over the alternatives it has left.
	NodeLeast [][]float64
	// Rows names every row of the conflict, in model order.
	Rows []string
	// Note says why there is no conflict set, when there is none (an
	// infeasibility of the integers only, or no HiGHS).
	Note string
	// orderEdges are the kernel-order edges whose rows are in the
	// conflict (order.go).
	orderEdges []int
}

func (e *InfeasibleError) Error() string {
	var b strings.Builder
	b.WriteString(ErrInfeasible.Error())
	if len(e.Empty) > 0 {
		fmt.Fprintf(&b, ": nodes without alternatives %v", e.Empty)
	}
	if len(e.Rows) > 0 {
		fmt.Fprintf(&b, ": conflicting constraints: %s", strings.Join(e.Rows, "; "))
	}
	if e.Note != "" {
		b.WriteString(": " + e.Note)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInfeasible) hold.
func (e *InfeasibleError) Is(target error) bool { return target == ErrInfeasible }

// SearchStats are the branch and bound's over the core: the nodes it
// searched, and whether it proved the optimum (else HiGHS went on from its
// best plan).
type SearchStats struct {
	Nodes  int64 `json:"nodes"`
	Proved bool  `json:"proved"`
}

// What proved a Solution's Bound when the plan is not proven optimal.
const (
	BoundMILP   = "milp"            // HiGHS's branch and bound
	BoundRootLP = "root_lp"         // the core's LP relaxation, solved beside it (rootbound.go)
	BoundSearch = "search"          // the planner's own branch and bound (bnb.go)
	BoundFloor  = "execution_floor" // every node's cheapest alternative, conversions never negative
)

// removedSet is the (node, alternative) pairs of s.Removed.
func (s *Solution) removedSet() map[[2]int]bool {
	set := make(map[[2]int]bool, len(s.Removed))
	for _, r := range s.Removed {
		set[[2]int{r.Node, r.Alternative}] = true
	}
	return set
}

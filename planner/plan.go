package planner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/tasks"
	json "github.com/goccy/go-json"
)

// PlanOptions control Plan. The zero value plans on the graph's target with
// the default solver options and a cache of its own: every regret of a graph
// of at most ExplainAll invocations exact, with no limit on their time,
// which on a hard core can take minutes (a core of 33 invocations of
// cklplan gen dag --invocations 40, whose labels frustrate each other:
// over 4 minutes). cklplan plan bounds them (Solve: CommandLineOptions()),
// and so should a compiler that plans graphs it has not seen.
type PlanOptions struct {
	// Solve passes on to Solve: NoReduce, time limit, gaps, regrets. Its
	// Explain is replaced by ExplainIDs when those are given.
	Solve Options
	// ExplainIDs restricts the regrets to these invocations; nil: all of a
	// graph of at most ExplainAll invocations, none of a larger one.
	ExplainIDs []string
	// ExplainAll is the largest graph whose every regret Plan computes
	// unasked; 0 means DefaultExplainAll, and a negative value is an error
	// (Solve.NoRegrets asks for no regret at all).
	ExplainAll int
	// Target overrides the graph's target figures; nil: the graph's target
	// (a built-in one by name). Only the figures: which alternatives run,
	// and the limits they are checked against, stay the graph's target's.
	// To plan for another GPU whole, as cklplan plan --target does, give
	// Plan g.WithTarget(...) instead.
	Target *costmodel.Target
	// Measured overrides the cost model's conversion formulas; its Target
	// must be the target's name (a table measured on another GPU is an
	// error). It is keyed as the cost model keys a conversion (the two
	// distributions' fingerprints, the renaming and a mechanism, or a
	// mechanism and a size in bytes: costmodel.DecodeMeasurements, the
	// table the hardware package's calibration writes). Costs measured per tile
	// and named as the graph names its distributions and alternatives
	// (what cklplan plan --costs reads) go in the graph instead
	// (tasks.Graph.WithMeasured), and win over this table.
	Measured *costmodel.Measurements
	// Cache keeps classifications across calls; nil: a new one.
	Cache *Cache
	// Start is a plan to start from: typically the Result of an earlier
	// Plan of this graph before a small change, for a compiler that plans
	// again under a time limit. Each invocation of the graph that one of
	// its Choices names (by id), with an alternative the invocation still
	// has and runs, starts at it (its variant without shared-memory
	// conversions where the choice says NoSharedMemoryConversions); the
	// others at their locally cheapest, and what Start names that the
	// graph lacks is ignored (UnmatchedStart says what, before the plan).
	// Options.Start says how it is used: where it
	// is feasible and better than the local choice it starts the solve,
	// and a plan proven optimal costs the same from any start. nil: the
	// local choice.
	Start *Result
	// Timing records the solve time in the Result.
	Timing bool
}

// DefaultExplainAll is the largest graph whose every regret Plan computes
// without being asked: all regrets of a 1,000-invocation graph cost a small
// multiple of its solve; beyond, regrets are for the invocations named.
const DefaultExplainAll = 1000

// A Result is the planner's answer for a task graph, in the graph's terms: the
// choice per invocation, the conversion per boundary, what was rejected and
// why, and what is proven. It is plain data; the JSON plan
// (docs/plan-format.md) is its encoding.
type Result struct {
	Graph  string `json:"graph"`
	Target string `json:"target"`
	// SMCount is the target's SMs: a declared or measured cost is SM time
	// per tile, and the SMs divide it over the whole GPU.
	SMCount int `json:"sm_count"`
	// Status is how far the plan is proven: Optimal, TimeLimit or
	// Interrupted ("optimal", "time limit", "interrupted" in JSON).
	Status Status `json:"status"`
	// ObjectiveNS is the plan's total cost, ExecutionNS + ConversionNS.
	ObjectiveNS  float64 `json:"objective_ns"`
	ExecutionNS  float64 `json:"execution_ns"`
	ConversionNS float64 `json:"conversion_ns"`
	BoundNS      float64 `json:"bound_ns"`
	Gap          float64 `json:"gap"`
	// BoundFrom says what proved BoundNS when the plan is not proven
	// optimal at the default gaps (stopped, or "optimal" only within the
	// looser gaps PlanOptions.Solve allowed): "milp" (HiGHS), "root_lp"
	// (the core's LP relaxation), "search" (the planner's branch and
	// bound) or "execution_floor"; empty when it is.
	BoundFrom string `json:"bound_from,omitempty"`
	// SolveMS is the solve's wall-clock time in milliseconds, regrets
	// included (0, and left out of the renderings, unless
	// PlanOptions.Timing: the output is then the same for the same input,
	// byte for byte); MILPNodes the branch-and-bound nodes.
	SolveMS   float64 `json:"solve_ms,omitempty"`
	MILPNodes int64   `json:"milp_nodes"`
	// CoreSearch is the branch and bound over the core, when it ran: the
	// nodes it searched, and whether it proved the optimum (HiGHS then did
	// not run).
	CoreSearch *SearchStats `json:"core_search,omitempty"`
	Model      ModelSizes   `json:"model"`
	// LocalChoiceNS is the cost of choosing each invocation's locally
	// cheapest alternative and paying the conversions (+Inf: that plan is
	// infeasible, LocalChoiceViolations say why); SavingNS its difference
	// from the joint optimum.
	LocalChoiceNS         *float64 `json:"local_choice_ns"`
	LocalChoiceViolations []string `json:"local_choice_violations,omitempty"`
	// KernelConflicts name the edges the plan keeps inside one kernel
	// although another path between their invocations crosses a kernel
	// boundary, which no order of kernels can run (the planner decides each
	// edge's crossing on its own: docs/format.md, "What the rule does not
	// model"); empty when the plan's kernels have an order.
	KernelConflicts []string `json:"kernel_conflicts,omitempty"`
	// KernelOrder lists the kernel-order conflicts the plan was kept from,
	// in words, one for each block of the graph whose conflicts the
	// search over the edges' states or levels ruled out:
	// a plan that took the alternatives that make one would cross a kernel
	// boundary on an edge whose ends other edges keep inside one kernel, or
	// close a cycle of kernels (docs/format.md, "Kernels"). Empty when the
	// cheapest plan had an order of kernels.
	KernelOrder []string `json:"kernel_order,omitempty"`
	SavingNS    *float64 `json:"saving_ns"`
	// Explained is how many invocations' regrets were computed (all of a
	// graph of at most PlanOptions.ExplainAll invocations, else those named;
	// none when the plan is not proven optimal at the default gaps, since
	// regrets are measured from a proven optimum). PlanChoice.NotExplained
	// marks those not asked for.
	Explained int `json:"explained"`
	// explainAll is the size past which regrets are computed only for the
	// invocations asked for, and explainAsked says some were named: the
	// text report says why others were not explained.
	explainAll   int
	explainAsked bool
	// regretSolves is Options.RegretSolves, for the text report.
	regretSolves int
	// UnprovenRegrets counts the regrets left as intervals (Rejected.Exact
	// false with RegretLowerNS set), and UnprovenBy says what left them:
	// UnprovenByRegretSolves, UnprovenByWorkLimit, UnprovenByTimeLimit or
	// UnprovenByInterrupt
	// ("" when none is).
	UnprovenRegrets int    `json:"unproven_regrets,omitempty"`
	UnprovenBy      string `json:"unproven_by,omitempty"`
	// Choices are one per invocation, in the graph's order of invocations.
	Choices []PlanChoice `json:"choices"`
	// Boundaries are one per edge, grouped by producer port (the edges of
	// one port together, as one conversion may serve several), the ports
	// in the order of their first edge in the graph, the edges of a port in
	// the graph's order.
	Boundaries []Boundary `json:"boundaries"`
	// Witnesses is empty in what Plan returns: every boundary carries its
	// own Witness. WithWitnesses(WitnessesTable) moves each distinct
	// witness here, once, and names it by index from the boundaries.
	Witnesses []*conversion.Witness `json:"witnesses,omitempty"`
	Budgets   []BudgetUse           `json:"budgets,omitempty"`
}

// Choice is the choice of the invocation with the given id, and whether the
// plan has one. It searches Choices, which are in the graph's order of
// invocations: a caller that walks the whole graph can index them instead.
func (r *Result) Choice(id string) (*PlanChoice, bool) {
	if r == nil {
		return nil, false
	}
	for i := range r.Choices {
		if r.Choices[i].Invocation == id {
			return &r.Choices[i], true
		}
	}
	return nil, false
}

// EdgeBoundaries indexes the boundaries by edge: entry i is the boundary of
// the graph's edge i (tasks.Graph.Edges, the file's "edges"), nil where the
// plan has none (a Result that is not Plan's own). Boundaries themselves are
// grouped by producer port.
func (r *Result) EdgeBoundaries() []*Boundary {
	n := 0
	for i := range r.Boundaries {
		n = max(n, r.Boundaries[i].EdgeIndex+1)
	}
	out := make([]*Boundary, n)
	for i := range r.Boundaries {
		if b := &r.Boundaries[i]; b.EdgeIndex >= 0 {
			out[b.EdgeIndex] = b
		}
	}
	return out
}

// OutsideBudgets says, for each invocation in no group that plan r of g
// keeps in the kernel of a group with a shared-memory budget (through
// boundaries inside one kernel, directly or through other invocations in
// no group) and that takes shared memory there, which its group's budget
// does not count (docs/format.md, "Groups"): its chosen alternative's
// shared memory, and the scratch of the conversions on those boundaries
// (a boundary's Witness: call it before WithWitnesses moves them). check's
// outside_budget warns of what a plan may do; this says what r does. In
// the order of the budgets, then of the invocations reached; empty when
// there is none.
func OutsideBudgets(g *tasks.Graph, r *Result) []string {
	if g == nil || r == nil {
		return nil
	}
	if !slices.ContainsFunc(r.Budgets, func(b BudgetUse) bool { return b.Kernel != "" }) {
		return nil // no kernel's budget: nothing to search (most plans)
	}
	group := make(map[string]string, len(r.Choices))
	chosen := make(map[string]string, len(r.Choices))
	members := map[string][]string{} // a group's invocations, in the plan's order
	for _, c := range r.Choices {
		group[c.Invocation], chosen[c.Invocation] = c.Group, c.Alternative
		if c.Group != "" {
			members[c.Group] = append(members[c.Group], c.Invocation)
		}
	}
	inv := func(end string) string {
		if i := strings.LastIndexByte(end, '.'); i >= 0 {
			return end[:i]
		}
		return end
	}
	scratch := func(b *Boundary) int {
		switch w := b.Witness; {
		case w == nil:
		case w.Shared != nil:
			return w.Shared.ScratchBytes
		case w.Cluster != nil:
			return w.Cluster.ScratchBytes
		}
		return 0
	}
	adj := map[string][]*Boundary{}
	for i := range r.Boundaries {
		b := &r.Boundaries[i]
		if b.Crossing != tasks.InKernel.String() {
			continue
		}
		u, w := inv(b.From), inv(b.To)
		adj[u] = append(adj[u], b)
		adj[w] = append(adj[w], b)
	}
	var out []string
	for _, bu := range r.Budgets {
		if bu.Kernel == "" {
			continue
		}
		via := map[string]string{}
		counted := map[*Boundary]bool{}
		var reached []string
		queue := slices.Clone(members[bu.Kernel])
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, b := range adj[x] {
				y := inv(b.To)
				if y == x {
					y = inv(b.From)
				}
				if _, seen := via[y]; seen || group[y] != "" {
					continue
				}
				via[y] = b.Edge
				reached = append(reached, y)
				queue = append(queue, y)
			}
		}
		for _, y := range reached {
			own := int64(0)
			if v := g.Invocation(y); v != nil {
				if a := v.Task.Alternative(chosen[y]); a != nil {
					own = a.Resources.SharedMemoryBytes
				}
			}
			conv := 0
			for _, b := range adj[y] {
				if !counted[b] {
					counted[b] = true // said once, of the first end reached
					conv += scratch(b)
				}
			}
			if own == 0 && conv == 0 {
				continue
			}
			var what []string
			if own > 0 {
				what = append(what, fmt.Sprintf("its own %d bytes of shared memory", own))
			}
			if conv > 0 {
				what = append(what, fmt.Sprintf("the %d bytes of scratch of its conversions there", conv))
			}
			out = append(out, fmt.Sprintf("the plan runs %s, in no group, in group %s's kernel (through %s, inside one kernel): %s's shared-memory budget (%s of %s used) does not count %s; add %s to the group, or mark an edge on the way must_cross",
				y, bu.Kernel, via[y], bu.Kernel, fmtBytes(bu.Used), fmtBytes(bu.Capacity), strings.Join(what, " or "), y))
		}
	}
	return out
}

// ModelSizes are the sizes of the planning problem and of its MILPs, as
// the JSON plan writes them.
type ModelSizes struct {
	Invocations  int `json:"invocations"`
	Alternatives int `json:"alternatives"` // left after removals and pruning
	Eliminated   int `json:"eliminated"`   // invocations the reduction eliminated
	Core         int `json:"core"`         // invocations left to the MILP
	MaxBucket    int `json:"max_bucket"`   // entries of the largest joined term
	// ContractedKernels is how many fused kernels were contracted over
	// their budgets into tables over their boundary invocations.
	ContractedKernels int `json:"contracted_kernels,omitempty"`
	// Whole is the MILP of the whole problem (what --no-reduce solves),
	// Solved the one HiGHS solved.
	Whole  MILPSize `json:"whole"`
	Solved MILPSize `json:"solved"`
}

// MILPSize is the size of a MILP.
type MILPSize struct {
	Columns  int `json:"columns"`
	Rows     int `json:"rows"`
	Nonzeros int `json:"nonzeros"`
}

func modelSizes(m ModelStats) ModelSizes {
	return ModelSizes{Invocations: m.Nodes, Alternatives: m.Alternatives, Eliminated: m.Eliminated, Core: m.CoreNodes,
		MaxBucket: m.MaxBucket, ContractedKernels: m.ContractedKernels, Whole: MILPSize(m.Full), Solved: MILPSize(m.Core)}
}

// A PlanChoice is an invocation's chosen alternative and its rejected ones.
//
// CostNS is the chosen alternative's execution cost over the whole
// invocation: its cost a tile (declared, measured, or the cost model's)
// times Multiplicity, divided by the target's SM count for a declared or
// measured cost, which is per tile on one SM (docs/plan-format.md, "Costs").
type PlanChoice struct {
	Invocation     string  `json:"invocation"`
	Task           string  `json:"task"`
	Alternative    string  `json:"alternative"`
	Implementation string  `json:"implementation,omitempty"`
	CostNS         float64 `json:"cost_ns"`
	Multiplicity   int64   `json:"multiplicity"`
	Origin         string  `json:"origin"`
	// Tie says another alternative is exactly as good (regret 0).
	Tie bool `json:"tie,omitempty"`
	// Eliminated says the structural reduction decided the choice.
	Eliminated bool `json:"eliminated,omitempty"`
	// NoSharedMemoryConversions says the conversions out of the invocation
	// to the consumers in its kernel avoid shared memory, at a higher
	// cost, to fit the kernel's budget (conversions to other consumers and
	// stores into a consumer's shared-memory layout take none of it).
	NoSharedMemoryConversions bool `json:"no_shared_memory_conversions,omitempty"`
	// Group is the fused group (kernel) the invocation is in; "" for none.
	Group string `json:"group,omitempty"`
	// NotExplained says the invocation's regrets were not asked for: it
	// is not among those explained (PlanOptions.ExplainIDs, or a graph
	// over ExplainAll), and its rejected alternatives that were not
	// removed have no regret and say "not explained (ask with --explain
	// ID)". A plan not proven optimal
	// computes no regret either, but its invocations keep their reasons
	// (each rejected alternative compared with the plan), and are not
	// marked.
	NotExplained bool       `json:"not_explained,omitempty"`
	Rejected     []Rejected `json:"rejected"`
}

// A Rejected is an alternative not chosen: how much more the best plan that
// uses it costs (RegretNS; nil when no feasible plan uses it, Infeasible,
// or when it was not computed), and why, in words. A regret left unproven
// (Exact false; Result.UnprovenBy says what left it: the cap on re-solves,
// the work budget, a time limit or an interrupt) lies between
// RegretLowerNS and RegretNS, the best plan found using the alternative
// (nil when none was found).
// Exact is also false, with RegretNS and RegretLowerNS nil, when the regret
// was not computed (the invocation was not explained, or the plan is not
// proven).
type Rejected struct {
	Alternative   string   `json:"alternative"`
	RegretNS      *float64 `json:"regret_ns"`
	RegretLowerNS *float64 `json:"regret_lower_ns,omitempty"`
	Infeasible    bool     `json:"infeasible,omitempty"`
	Exact         bool     `json:"exact"`
	Tie           bool     `json:"tie,omitempty"`
	Removed       bool     `json:"removed,omitempty"`
	// DominatedBy is the task alternative that dominates this one, which
	// the solver pruned before solving (the same realization of every
	// port an edge uses, at no lower cost and no lower use of any budget):
	// its regret is that one's plus the difference. "" for none.
	DominatedBy string `json:"dominated_by,omitempty"`
	// Replanned lists, where the reason names them, every other
	// invocation whose choice the best plan using this alternative
	// changes, with its choice there: that plan is the chosen one with
	// this alternative and these choices put in. Only where the reason
	// names the changes (nameReplannedChoices: a graph of at most
	// replanInvocations invocations that the reduction solves whole);
	// nil elsewhere.
	Replanned []Replanned `json:"replanned,omitempty"`
	Reason    string      `json:"reason"`
}

// A Replanned is an invocation's choice in the best plan that uses a
// rejected alternative (Rejected.Replanned).
type Replanned struct {
	Invocation                string `json:"invocation"`
	Alternative               string `json:"alternative"`
	NoSharedMemoryConversions bool   `json:"no_shared_memory_conversions,omitempty"`
}

// A Boundary is the conversion on one edge under the plan.
type Boundary struct {
	Edge string `json:"edge"` // "producer.port -> consumer.port"
	// EdgeIndex is the edge's position in the graph's edges (Graph.Edges,
	// the file's "edges"): the boundaries are in another order.
	EdgeIndex int    `json:"edge_index"`
	From      string `json:"from"`
	To        string `json:"to"`
	Crossing  string `json:"crossing"` // in_kernel or global_round_trip
	// Class and Mechanism of the conversion ("identity" when nothing moves):
	// Class is a conversion.Class's name (identity, register_permute,
	// warp_shuffle, shared_memory, cluster_shared_memory, global_memory),
	// Mechanism a conversion.Mechanism's, or "global_round_trip" for a
	// kernel boundary (Class global_memory there).
	Class     string  `json:"class"`
	Mechanism string  `json:"mechanism"`
	CostNS    float64 `json:"cost_ns"`
	// PerTileNS is cost_ns of one tile on one SM (in a kernel); Moves the
	// tiles that cross.
	PerTileNS float64 `json:"per_tile_ns,omitempty"`
	Moves     int64   `json:"moves"`
	Origin    string  `json:"origin"`
	Detail    string  `json:"detail,omitempty"`
	Source    string  `json:"source"`
	Target    string  `json:"target"`
	// SharedWith lists the other edges served by the same conversion
	// (fan-out); the cost is counted once, on the first.
	SharedWith []string `json:"shared_with,omitempty"`
	// Witness is the conversion's witness, as conversion.Classify gave it.
	// It is shared with the Cache the plan was made with, and with every
	// other boundary of the same conversion: copy it before changing it.
	Witness *conversion.Witness `json:"witness,omitempty"`
	// WitnessRef, in a Result WithWitnesses(WitnessesTable), is the index
	// of the boundary's witness in Result.Witnesses (Witness is then nil);
	// nil otherwise.
	WitnessRef *int `json:"witness_ref,omitempty"`
	// Alternatives are the mechanisms the conversion could have used
	// instead, each with its cost for one tile on one SM (as PerTileNS)
	// and why it lost.
	Alternatives []RejectedMechanism `json:"rejected_mechanisms,omitempty"`
}

// A RejectedMechanism is a mechanism a boundary's conversion did not use.
type RejectedMechanism struct {
	Mechanism string  `json:"mechanism"`
	PerTileNS float64 `json:"per_tile_ns"`
	Origin    string  `json:"origin,omitempty"`
	Reason    string  `json:"reason"`
}

// A BudgetUse is a budget's use by the plan.
type BudgetUse struct {
	Name string `json:"name"`
	// Kernel is the id of the fused group (the graph's "groups") whose
	// budget this is.
	Kernel   string  `json:"kernel"`
	Used     float64 `json:"used"`
	Capacity float64 `json:"capacity"`
}

// Plan chooses one alternative per invocation of g and one conversion per
// boundary, jointly, and explains the choice.
//
// Cancelling ctx stops the solve as a time limit does: Plan returns the
// best plan found with Status "interrupted" and its proven gap, and no
// error; ErrNoPlan when no plan was found yet (the error matches the
// context's error too, errors.Is). HiGHS takes an interrupt only at its
// checks, and none inside a MILP's LP relaxations: where it has not
// stopped 0.2 s after the cancel, Plan goes on without it (the best plan
// is then the one HiGHS started from) and HiGHS stops at its next check,
// in the background. A deadline of ctx is HiGHS's time limit too, where it
// is sooner than Options.TimeLimit, and like a time limit it has a large
// core's plan searched first (Options.TimeLimit). The solves stop a
// reserve before the deadline (a tenth of the time left after the
// lowering, 5 ms to 0.1 s), for HiGHS to see the stop and the report to
// be written: Plan returns by the deadline unless the lowering itself
// outlasts it, or the report's reasons take longer than the reserve (300
// explained invocations under a 0.3 s deadline: 14 ms late). A plan proven before anything looks at
// ctx still comes back "optimal": a graph without budgets that the
// reduction with the table limit dissolves whole (it does not look at
// ctx), or a small core the planner's own branch and bound proves; its
// regrets may then be intervals. A fused kernel's budget is contracted into
// tables only while ctx is live: cancelled before or while it is
// tabulated, its budget goes to HiGHS as rows, which stops at once. The elimination of a whole small
// dense graph with larger tables, and the branch and bound's heuristic,
// stop at an interrupt or the time limit, as HiGHS does.
//
// Errors: *PlanInfeasibleError (errors.Is ErrInfeasible) when no plan
// fits; ErrUnknownInvocation for ExplainIDs the graph lacks; an error for a
// nil graph or a negative ExplainAll; ErrNoSolver when a MILP is needed and
// HiGHS is missing; an error naming the invocation or boundary for a cost
// over MaxCostNS.
func Plan(ctx context.Context, g *tasks.Graph, opts PlanOptions) (*Result, error) {
	if ctx == nil {
		return nil, errNilContext
	}
	if opts.ExplainAll < 0 {
		return nil, fmt.Errorf("planner: PlanOptions.ExplainAll %d is negative", opts.ExplainAll)
	}
	target, cache, err := opts.targetAndCache(g)
	if err != nil {
		return nil, err
	}
	lw, err := lowerGraph(ctx, g, target, opts.Measured, cache)
	if err != nil {
		return nil, err
	}
	if plantInLowering != nil {
		plantInLowering(lw)
	}
	if dl, ok := ctx.Deadline(); ok {
		// The solves stop a reserve before the deadline, for HiGHS to
		// see the stop and the report to be written by it.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-deadlineReserve(time.Until(dl))))
		defer cancel()
	}
	so := opts.Solve
	explainAll := opts.ExplainAll
	if explainAll == 0 {
		explainAll = DefaultExplainAll
	}
	if opts.ExplainIDs == nil && len(lw.invs) > explainAll && so.Explain == nil {
		so.NoRegrets = true
	}
	if opts.ExplainIDs != nil {
		so.Explain = nil
		var unknown []string
		for _, id := range opts.ExplainIDs {
			i := slices.IndexFunc(lw.invs, func(v *tasks.Invocation) bool { return v.ID == id })
			if i < 0 {
				unknown = append(unknown, strconv.Quote(id))
				continue
			}
			so.Explain = append(so.Explain, i)
		}
		if len(unknown) > 0 {
			// Name what the graph has, so that a typo is plain: all of
			// them, or the first 12 of more than 16 and their count.
			shown := len(lw.invs)
			if shown > 16 {
				shown = 12
			}
			ids := make([]string, 0, shown+1)
			for _, v := range lw.invs[:shown] {
				ids = append(ids, v.ID)
			}
			if len(lw.invs) > shown {
				ids = append(ids, fmt.Sprintf("… (%d in all)", len(lw.invs)))
			}
			return nil, fmt.Errorf("%w: %s (it has %s)", ErrUnknownInvocation, strings.Join(unknown, ", "), strings.Join(ids, ", "))
		}
		if len(so.Explain) == 0 {
			so.NoRegrets = true
		}
	}
	if opts.Start != nil {
		so.Start = lw.startFrom(opts.Start)
	}
	if lw.choosesCrossings() {
		// The order system, with its diamonds (diamond.go), before the
		// first solve; without a regret to compute, the diamonds wait for
		// a plan that needs them (solveCrossings).
		lw.unmarked = so.NoRegrets && orderFlags
		lw.orderSystemOf()
	}
	var sol *Solution
	if len(lw.invs) == 0 {
		// Nothing to choose: the empty plan, proven (Solve takes no
		// Problem without nodes).
		sol = &Solution{Status: Optimal, explained: !so.NoRegrets}
	} else if sol, err = lw.solveCrossings(ctx, so); err != nil {
		return nil, lw.namedError(err)
	} else if sol, err = lw.keepKernelOrder(ctx, sol, so); err != nil {
		return nil, lw.namedError(err)
	} else {
		lw.diamondCuts(ctx, sol, so)
		if sol.explained && len(sol.Regrets) > 0 && lw.choosesCrossings() {
			if err := lw.orderRegrets(ctx, sol, so); err != nil {
				return nil, lw.namedError(err)
			}
		}
	}
	if err := lw.plainOnTies(sol); err != nil {
		return nil, lw.namedError(err)
	}
	wanted := func(v int) bool { return !so.NoRegrets && (so.Explain == nil || slices.Contains(so.Explain, v)) }
	// The plan, recomputed from the graph rather than from the Problem
	// it was lowered to, must cost what the solver says: recomputed
	// while the report is written.
	verify := lw.startVerifyGraph(sol, PlanOptions{Target: target, Measured: opts.Measured, Cache: cache})
	lw.noReduce, lw.workers = so.NoReduce, max(so.workers(), 1)
	res, err := lw.result(ctx, sol, target, wanted)
	if err == nil {
		if err := verify(res); err != nil {
			return nil, err
		}
	}
	if res != nil {
		res.explainAll, res.explainAsked = explainAll, opts.ExplainIDs != nil || opts.Solve.Explain != nil
		res.regretSolves = opts.Solve.RegretSolves
		if res.UnprovenRegrets > 0 {
			switch {
			case sol.regretsInterrupted:
				res.UnprovenBy = UnprovenByInterrupt
			case sol.regretsTimedOut:
				res.UnprovenBy = UnprovenByTimeLimit
			case sol.regretsWorkSpent:
				res.UnprovenBy = UnprovenByWorkLimit
			case sol.regretsCapped > 0:
				res.UnprovenBy = UnprovenByRegretSolves
			default:
				res.UnprovenBy = UnprovenByTimeLimit
			}
		}
	}
	if err == nil && !opts.Timing {
		res.SolveMS = 0
	}
	return res, err
}

// solveCrossings is Solve of the lowered problem. Where the diamonds wait
// (lowering.unmarked: no regret is asked), the plan without their flags
// comes first: one whose kernels have an order is optimal with the flags
// too, which only rule plans out, and their groups are never built. Else
// every diamond is flagged and the problem solved again, in what is left
// of the caller's time limit, and diamondCuts names what the flags ruled
// out of that first plan. (Flagging only the diamonds of the first plan's
// conflicts moved the conflict to the next layer of a transformer, one
// solve at a time: docs/benchmarks.md, "Diamonds flagged only where a
// plan needs them".) A first solve that fails leaves the answer to the
// flagged problem, as without it.
func (lw *lowering) solveCrossings(ctx context.Context, so Options) (*Solution, error) {
	if !lw.unmarked {
		so.regretsUnless = lw.levelsReplace(so)
		return Solve(ctx, &lw.problem, so)
	}
	lw.unmarked = false
	o := lw.problem.order
	first, err := Solve(ctx, &lw.problem, so)
	if err == nil && first.Status == Optimal && len(first.Choices) == len(lw.invs) && !lw.hasOrderConflict(first.alternatives()) {
		return first, nil
	}
	lw.markDiamonds(o)
	if len(o.diamonds) == 0 {
		// The levels' rounds (keepKernelOrder) take the conflicts on.
		return first, err
	}
	flagged, spent := so, time.Duration(0)
	if err == nil {
		spent = first.SolveTime
		if first.Status == Optimal {
			lw.unflaggedPlan = first
		}
		if so.TimeLimit > 0 {
			flagged.TimeLimit = max(so.TimeLimit-spent, time.Millisecond)
		}
	}
	sol, err := Solve(ctx, &lw.problem, flagged)
	if sol != nil {
		sol.SolveTime += spent
	}
	return sol, err
}

// deadlineReserve is the time Plan keeps back from a deadline left after
// the lowering: a tenth, at least 5 ms and at most 0.1 s. Past the
// solves' stop, HiGHS takes 10–45 ms to see it and writing the report of
// 300 explained invocations 30–70 ms (docs/benchmarks.md, "A deadline
// kept").
func deadlineReserve(left time.Duration) time.Duration {
	return min(max(left/10, 5*time.Millisecond), 100*time.Millisecond)
}

// startFrom is an earlier plan's choices as the Problem's alternatives
// (Options.Start): -1 where the plan names no alternative the invocation
// has and runs.
func (lw *lowering) startFrom(r *Result) []int {
	byID := make(map[string]int, len(lw.invs))
	for vi, v := range lw.invs {
		byID[v.ID] = vi
	}
	start := make([]int, len(lw.invs))
	for vi := range start {
		start[vi] = -1
	}
	for i := range r.Choices {
		c := &r.Choices[i]
		vi, ok := byID[c.Invocation]
		if !ok {
			continue
		}
		tasksAlts := lw.invs[vi].Task.Alternatives
		ti := slices.IndexFunc(tasksAlts, func(a *tasks.Alternative) bool { return a.ID == c.Alternative })
		if ti < 0 {
			continue
		}
		// The variant the choice names, else the other one.
		for ai, na := range lw.alts[vi] {
			if na.task != ti || na.removed != "" {
				continue
			}
			if start[vi] < 0 || na.noSmem == c.NoSharedMemoryConversions {
				start[vi] = ai
			}
		}
	}
	return start
}

// What left a plan's unproven regrets as intervals (Result.UnprovenBy):
// Options.RegretSolves, which leaves the same ones every run; the regrets'
// work budget (Options.RegretWork), the same every run too; the regrets'
// time limit; or an interrupt.
const (
	UnprovenByRegretSolves = "regret_solves"
	UnprovenByWorkLimit    = "work_limit"
	UnprovenByTimeLimit    = "time_limit"
	UnprovenByInterrupt    = "interrupt"
)

// plantInLowering, when set (by a test), changes the lowered Problem before it is
// solved: a fault planted in the lowering, which the graph verifier must
// catch.
var plantInLowering func(*lowering)

// graphTarget is the cost-model target the graph names (a custom target
// carries its own figures).
func graphTarget(g *tasks.Graph) (*costmodel.Target, error) {
	tg := g.Target()
	if tg.Name == "" {
		return nil, errors.New("planner: the graph has no target: a zero tasks.Graph? (build one with tasks.New, tasks.Load or a tasks.Builder)")
	}
	if tg.Model == nil {
		return nil, fmt.Errorf("planner: target %s has no cost-model figures", tg.Name)
	}
	return tg.Model, nil
}

// namedError rewrites nothing: it adds the invocations' and budgets' names
// to an infeasibility, keeping the error's type.
func (lw *lowering) namedError(err error) error {
	var ie *InfeasibleError
	if !asInfeasible(err, &ie) {
		return err
	}
	pe := &PlanInfeasibleError{Graph: lw.graph.Name(), Target: lw.target.Name, Note: ie.Note, Err: err}
	// removals says why node v's alternatives were removed before solving
	// (pins, forbids, the target's features, a kernel's registers), each
	// reason once; qualified says it alternative by alternative.
	removals := func(v int, qualified bool) []string {
		var out []string
		for ai, alt := range lw.problem.Nodes[v].Alternatives {
			r := alt.Removed
			if qualified {
				// The task alternative's id: its variant without
				// shared-memory conversions is the same alternative,
				// removed for the same reason.
				id := alt.ID
				if ai < len(lw.alts[v]) {
					id = lw.invs[v].Task.Alternatives[lw.alts[v][ai].task].ID
				}
				r = id + ": " + r
			}
			if alt.Removed != "" && !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
		return out
	}
	listed := map[int]bool{}
	for _, v := range ie.Empty {
		pe.NoAlternative = append(pe.NoAlternative, lw.invs[v].ID)
		why := removals(v, true)
		pe.Invocations = append(pe.Invocations, InvocationConflict{ID: lw.invs[v].ID, Removed: why})
		listed[v] = true
		pe.Conflict = append(pe.Conflict, "invocation "+lw.invs[v].ID+" has no alternative left ("+strings.Join(why, "; ")+")")
	}
	for k, b := range ie.Budgets {
		bc := BudgetConflict{Name: lw.problem.Budgets[b].Name, Kernel: lw.budgetKernel(b), Capacity: lw.problem.Budgets[b].Capacity}
		if k < len(ie.Least) {
			bc.LeastUse = ie.Least[k]
		}
		pe.Budgets = append(pe.Budgets, bc)
		pe.Conflict = append(pe.Conflict, bc.Name+budgetNeed(bc.Capacity, bc.LeastUse))
	}
	if lines := lw.orderConflictLines(ie); len(lines) > 0 {
		pe.Conflict = append(pe.Conflict, lines...)
		// The invocations of the conflicts' blocks that removals (pins,
		// features) narrowed: why no plan avoids them.
		o := lw.problem.order
		var nodes []int
		for _, ei := range ie.orderEdges {
			for _, e := range o.blockEdges[o.edges[ei].block] {
				nodes = append(nodes, o.edges[e].u, o.edges[e].w)
			}
		}
		slices.Sort(nodes)
		for _, v := range slices.Compact(nodes) {
			if why := removals(v, false); len(why) > 0 && !listed[v] && !slices.Contains(ie.Nodes, v) {
				listed[v] = true
				pe.Invocations = append(pe.Invocations, InvocationConflict{ID: lw.invs[v].ID, Removed: why})
				pe.Conflict = append(pe.Conflict, "invocation "+lw.invs[v].ID+" (others removed: "+strings.Join(why, "; ")+")")
			}
		}
	}
	for i, v := range ie.Nodes {
		ic := InvocationConflict{ID: lw.invs[v].ID}
		var takes []string
		if i < len(ie.NodeLeast) {
			for k, least := range ie.NodeLeast[i] {
				if least > 0 {
					ic.LeastUse = append(ic.LeastUse, LeastUse{Budget: pe.Budgets[k].Name, Amount: least})
					take := fmtAmount(least)
					if len(ie.Budgets) > 1 {
						take += " of " + pe.Budgets[k].Name
					}
					takes = append(takes, take)
				}
			}
		}
		// The alternatives removed before solving (pins, forbids, the
		// target's features) narrow the choice: say why.
		ic.Removed = removals(v, false)
		pe.Invocations = append(pe.Invocations, ic)
		listed[v] = true
		var says []string
		if len(takes) > 0 {
			left := ""
			if len(ic.Removed) > 0 {
				left = " left"
			}
			says = append(says, "at least "+strings.Join(takes, ", ")+" in every alternative"+left)
		}
		if len(ic.Removed) > 0 {
			says = append(says, "others removed: "+strings.Join(ic.Removed, "; "))
		}
		name := "invocation " + ic.ID
		if len(says) > 0 {
			name += " (" + strings.Join(says, "; ") + ")"
		}
		pe.Conflict = append(pe.Conflict, name)
	}
	for _, gr := range ie.Groups {
		g := &lw.problem.Groups[gr]
		pe.Boundaries = append(pe.Boundaries, g.Name)
		// The ends of the boundaries that removals narrowed are part of
		// why no conversion fits: name them with their reasons.
		var narrowed []string
		ends := []int{g.Producer}
		for _, c := range g.Consumers {
			ends = append(ends, c.Node)
		}
		for _, v := range ends {
			why := removals(v, false)
			if len(why) == 0 || listed[v] {
				continue
			}
			listed[v] = true
			pe.Invocations = append(pe.Invocations, InvocationConflict{ID: lw.invs[v].ID, Removed: why})
			narrowed = append(narrowed, lw.invs[v].ID+": others removed: "+strings.Join(why, "; "))
		}
		// Why the conversions left cannot be made, each reason once.
		var whys []string
		for a, sk := range g.Sources {
			if lw.problem.Nodes[g.Producer].Alternatives[a].Removed != "" {
				continue
			}
			for _, c := range g.Consumers {
				for b, tk := range c.Targets {
					if lw.problem.Nodes[c.Node].Alternatives[b].Removed != "" {
						continue
					}
					if pi := lw.pairs[[2]string{sk, tk}]; pi != nil && math.IsInf(pi.total, 1) && pi.why != "" && !slices.Contains(whys, pi.why) {
						whys = append(whys, pi.why)
					}
				}
			}
		}
		if len(whys) > 3 {
			whys = append(whys[:3], fmt.Sprintf("%d more", len(whys)-3))
		}
		if len(whys) > 0 {
			narrowed = append(narrowed, "cannot be converted: "+strings.Join(whys, "; "))
		}
		line := "boundaries of " + g.Name
		if len(narrowed) > 0 {
			line += " (" + strings.Join(narrowed, "; ") + ")"
		}
		pe.Conflict = append(pe.Conflict, line)
	}
	return pe
}

// A PlanInfeasibleError says no plan of the graph exists, naming the
// invocations, kernels and boundaries in conflict: HiGHS's irreducible
// infeasible subset of the whole MILP's rows, with what each budget and
// invocation in it takes at least. It wraps the solver's *InfeasibleError.
// WriteText and WriteJSON report it as cklplan plan does.
type PlanInfeasibleError struct {
	Graph, Target string
	// Conflict says each member of the conflict in words, in the order
	// NoAlternative, Budgets, Invocations, Boundaries.
	Conflict []string
	// NoAlternative lists the invocations whose every alternative was
	// removed (pins, missing features); no solve was needed.
	NoAlternative []string
	Budgets       []BudgetConflict
	Invocations   []InvocationConflict
	// Boundaries names the producer ports whose conversion rows are in the
	// conflict (a conversion that cannot be made, or whose scratch does not
	// fit).
	Boundaries []string
	// Note says why there is no conflict set, when there is none.
	Note string
	Err  error
}

// A BudgetConflict is a budget in the conflict: its capacity, and a lower
// bound on what every plan takes of it (each invocation's least use over
// its alternatives left and each boundary's least scratch, summed). Where
// LeastUse exceeds Capacity, the budget alone rules out every plan.
type BudgetConflict struct {
	Name string `json:"name"`
	// Kernel is the id of the fused group whose budget this is; "" for
	// the kernel order (the rows that keep a plan's kernels in an order
	// they can run in).
	Kernel   string  `json:"kernel"`
	Capacity float64 `json:"capacity"`
	LeastUse float64 `json:"least_use"`
}

// An InvocationConflict is an invocation whose choice is in the conflict,
// with the least it takes of each budget in the conflict (where more than
// none) over its alternatives left, and why the others are gone.
type InvocationConflict struct {
	ID       string     `json:"id"`
	LeastUse []LeastUse `json:"least_use"`
	// Removed says why its other alternatives were removed before solving
	// (a pin, a forbid, a feature the target lacks), each reason once.
	Removed []string `json:"removed"`
}

// A LeastUse is the least amount of a named budget an invocation takes.
type LeastUse struct {
	Budget string  `json:"budget"`
	Amount float64 `json:"amount"`
}

func (e *PlanInfeasibleError) Error() string {
	if len(e.Conflict) == 0 {
		return e.Err.Error()
	}
	return "planner: no feasible plan; in conflict: " + strings.Join(e.Conflict, "; ")
}

// WriteText writes the infeasibility for people: the graph, then each
// member of the conflict on a line.
func (e *PlanInfeasibleError) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "no feasible plan of %s on %s\n", graphTitle(e.Graph), e.Target)
	if len(e.Conflict) == 0 {
		fmt.Fprintf(&b, "\n%s\n", e.Err)
	} else {
		if len(e.NoAlternative) > 0 && len(e.Budgets) == 0 && len(e.Boundaries) == 0 {
			// Found before any solve: no subset of a model to speak of.
			b.WriteString("\nin conflict (invocations left no alternative, found before any solve)\n")
		} else {
			b.WriteString("\nin conflict (an irreducible infeasible subset of the model's constraints)\n")
		}
		for _, c := range e.Conflict {
			b.WriteString("  " + c + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the infeasibility for programs (docs/plan-format.md,
// "No feasible plan").
func (e *PlanInfeasibleError) WriteJSON(w io.Writer) error {
	type conflict struct {
		NoAlternative []string             `json:"no_alternative"`
		Budgets       []BudgetConflict     `json:"budgets"`
		Invocations   []InvocationConflict `json:"invocations"`
		Boundaries    []string             `json:"boundaries"`
		Note          string               `json:"note,omitempty"`
	}
	c := conflict{NoAlternative: e.NoAlternative, Budgets: e.Budgets, Invocations: slices.Clone(e.Invocations), Boundaries: e.Boundaries, Note: e.Note}
	for _, l := range []*[]string{&c.NoAlternative, &c.Boundaries} {
		if *l == nil {
			*l = []string{}
		}
	}
	if c.Budgets == nil {
		c.Budgets = []BudgetConflict{}
	}
	if c.Invocations == nil {
		c.Invocations = []InvocationConflict{}
	}
	for i := range c.Invocations {
		if c.Invocations[i].LeastUse == nil {
			c.Invocations[i].LeastUse = []LeastUse{}
		}
		if c.Invocations[i].Removed == nil {
			c.Invocations[i].Removed = []string{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Graph    string   `json:"graph"`
		Target   string   `json:"target"`
		Status   string   `json:"status"`
		Message  string   `json:"message"`
		Conflict conflict `json:"conflict"`
	}{e.Graph, e.Target, "infeasible", e.Error(), c})
}

func (e *PlanInfeasibleError) Unwrap() error { return e.Err }

func asInfeasible(err error, target **InfeasibleError) bool {
	for err != nil {
		if ie, ok := err.(*InfeasibleError); ok {
			*target = ie
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// plainOnTies breaks a tie between a task alternative's two variants
// toward the plain one. HiGHS may return the variant whose conversions in
// its kernel avoid shared memory where the plain variant costs no more and
// fits the budget (every conversion in the kernel an identity, say; seen
// with --no-reduce), and the report would then say the kernel had no room
// for their scratch. Each invocation in order whose choice is such a
// variant takes its plain twin when that costs nothing more and breaks no
// budget (swap), and the plan is evaluated again after each move.
func (lw *lowering) plainOnTies(sol *Solution) error {
	if len(sol.Choices) != len(lw.invs) {
		return nil
	}
	removed := sol.removedSet()
	choices := make([]int, len(sol.Choices))
	for vi, c := range sol.Choices {
		choices[vi] = c.Alternative
	}
	budgetUse := sol.BudgetUse
	var last *Evaluation
	for vi, a := range choices {
		na := lw.alts[vi][a]
		if !na.noSmem {
			continue
		}
		twin := slices.IndexFunc(lw.alts[vi], func(o nodeAlt) bool { return o.task == na.task && !o.noSmem && o.removed == "" })
		if twin < 0 || removed[[2]int{vi, twin}] {
			continue
		}
		lw.touchGroups() // swap reads it
		if _, d, ok := lw.swap(choices, budgetUse, map[int]int{vi: twin}, vi, false, nil); !ok || d > 0 {
			continue
		}
		choices[vi] = twin
		ev, err := lw.problem.Evaluate(choices)
		if err != nil {
			return err
		}
		if !ev.Feasible() || ev.Cost-sol.Objective > objectiveTolerance(sol.Objective) {
			choices[vi] = a
			continue
		}
		last, budgetUse = ev, ev.BudgetUse
	}
	if last == nil {
		return nil
	}
	for vi, a := range choices {
		if c := &sol.Choices[vi]; c.Alternative != a {
			alt := lw.problem.Nodes[vi].Alternatives[a]
			c.Alternative, c.ID, c.Cost = a, alt.ID, alt.Cost
		}
	}
	sol.Objective, sol.Execution, sol.Conversion = last.Cost, last.Execution, last.Conversion
	sol.Groups, sol.BudgetUse = last.Groups, last.BudgetUse
	return nil
}

// alternativesLeft counts the task alternatives of the invocations that
// removals and pruning left (a variant of one of them is left): the
// variant of an alternative whose conversions avoid shared memory is the
// same alternative, not another.
func (lw *lowering) alternativesLeft(sol *Solution) int {
	gone := sol.removedSet()
	n := 0
	for vi, alts := range lw.alts {
		last := -1 // a task alternative's variants are together
		for ai, na := range alts {
			if na.removed == "" && na.task != last && (len(gone) == 0 || !gone[[2]int{vi, ai}]) {
				last = na.task
				n++
			}
		}
	}
	return n
}

// plan reads a Solution back in the graph's terms.
func (lw *lowering) result(ctx context.Context, sol *Solution, target *costmodel.Target, wanted func(v int) bool) (*Result, error) {
	p := &Result{
		Graph: lw.graph.Name(), Target: target.Name, SMCount: int(lw.sms), Status: sol.Status,
		ObjectiveNS: sol.Objective, ExecutionNS: sol.Execution, ConversionNS: sol.Conversion,
		BoundNS: sol.Bound, Gap: sol.Gap, BoundFrom: sol.BoundFrom, SolveMS: float64(sol.SolveTime.Microseconds()) / 1000,
		MILPNodes: sol.MILPNodes, CoreSearch: sol.Search, Model: modelSizes(sol.Model),
		LocalChoiceViolations: lw.orderViolations(sol.Local.Violations, sol.Local.Choices),
	}
	p.Model.Alternatives = lw.alternativesLeft(sol)
	if !math.IsInf(sol.Local.Cost, 0) && len(p.LocalChoiceViolations) == 0 {
		local, saving := sol.Local.Cost, sol.Local.Cost-sol.Objective
		p.LocalChoiceNS, p.SavingNS = &local, &saving
	}
	choices := make([]int, len(sol.Choices))
	for i, c := range sol.Choices {
		choices[i] = c.Alternative
	}
	regrets := map[[2]int]Regret{}
	for _, r := range sol.Regrets {
		regrets[[2]int{r.Node, r.Alternative}] = r
	}
	for v := range lw.invs {
		if wanted(v) && sol.explained {
			p.Explained++
		}
	}
	removed := map[[2]int]pruned{}
	for _, r := range sol.Removed {
		pr := pruned{why: r.Reason}
		if r.DominatedBy >= 0 {
			pr.why += " (the same realization of every port an edge uses, at no lower cost and no lower use of any budget)"
			v := lw.invs[r.Node]
			pr.by = v.Task.Alternatives[lw.alts[r.Node][r.DominatedBy].task].ID
		}
		removed[[2]int{r.Node, r.Alternative}] = pr
	}
	// Every invocation's rejections are cut from one array, one entry per
	// task alternative not chosen; first[v] is where invocation v's start.
	first := make([]int, len(lw.invs)+1)
	for vi, v := range lw.invs {
		first[vi+1] = first[vi] + max(len(v.Task.Alternatives)-1, 0)
	}
	rejections := make([]Rejected, first[len(lw.invs)])
	p.Choices = make([]PlanChoice, len(lw.invs))
	lw.touchGroups() // reason reads it: built before the goroutines
	lw.notExplainedReasons(wanted)
	if p.Explained > 0 {
		// Every reason compares a swap with the plan's groups.
		lw.planStates = make([]groupState, len(lw.problem.Groups))
		plan := func(v int) int { return choices[v] }
		for gi := range lw.planStates {
			lw.planStates[gi] = lw.groupState(gi, plan)
		}
		defer func() { lw.planStates = nil }()
	}
	// A large graph's choices and boundaries are independent: they are
	// written in parallel, each invocation and group into its own place.
	var wg sync.WaitGroup
	parts := 1
	if lw.workers >= 2 && (len(lw.invs) >= parallelResult || p.Explained >= parallelReasons) {
		parts = 2
	}
	unproven := make([]int, parts)
	for k := range parts {
		lo, hi := k*len(lw.invs)/parts, (k+1)*len(lw.invs)/parts
		wg.Go(func() {
			for vi := lo; vi < hi; vi++ {
				var u int
				p.Choices[vi], u = lw.choice(sol, choices, regrets, removed, wanted(vi), vi, rejections[first[vi]:first[vi]:first[vi+1]])
				unproven[k] += u
			}
		})
	}
	nb := 0
	for _, gc := range sol.Groups {
		nb += len(gc.Targets)
	}
	p.Boundaries = make([]Boundary, 0, nb)
	lw.boundaryEdges = make([]*tasks.Edge, 0, nb)
	for gi, gc := range sol.Groups {
		p.Boundaries = lw.boundaries(p.Boundaries, gi, gc, choices)
	}
	p.KernelConflicts = lw.kernelConflicts(p.Boundaries)
	wg.Wait()
	for _, u := range unproven {
		p.UnprovenRegrets += u
	}
	lw.nameReplannedChoices(ctx, p, sol, choices)
	for _, c := range lw.orderCuts {
		if !c.regret {
			p.KernelOrder = append(p.KernelOrder, c.what)
		}
	}
	for b, used := range sol.BudgetUse {
		p.Budgets = append(p.Budgets, BudgetUse{Name: lw.problem.Budgets[b].Name, Kernel: lw.budgetKernel(b), Used: used,
			Capacity: lw.problem.Budgets[b].Capacity})
	}
	return p, nil
}

// The reasons of a small plan name what the best plan using a rejected
// alternative changes besides it (nameReplannedChoices): for a graph of at
// most replanInvocations invocations, the first maxReplanned of them.
const (
	replanInvocations = 200
	maxReplanned      = 64
	maxChangesNamed   = 4
)

// Where a reason says the best plan using a rejected alternative re-plans
// other choices, the phrases reason writes (and nameReplannedChoices
// completes).
const (
	replannedNote   = " (with the other choices re-planned around it, "
	replannedAlone  = "; the best plan using it changes other choices too"
	replannedAlsoAt = "; the best plan using it also changes "
)

// nameReplannedChoices completes the reasons that say the best plan using a
// rejected alternative changes other choices too, naming them: each such
// plan solved again with the invocation pinned to the alternative (and the
// kernel-order levels the plan added). Only for a graph of at most
// replanInvocations invocations, without a kernel's shared-memory budget,
// that the reduction solves whole, with the levels the kernel order has
// added by then (found by a dry run; each solve is then an elimination,
// milliseconds, the same every run), for
// the first maxReplanned such reasons in the order of the report, and only
// where the solve finds the regret's plan again (its cost the optimum plus
// the regret, its kernels in an order); the others keep their words. Where
// one of the solves leaves a core, none is named: the reports with and
// without NoReduce say the same. When ctx ends, the solves stop and
// nothing is named.
func (lw *lowering) nameReplannedChoices(ctx context.Context, p *Result, sol *Solution, choices []int) {
	if len(lw.invs) > replanInvocations || sol.Status != Optimal || sol.Model.CoreNodes > 0 && !lw.noReduce || ctx.Err() != nil {
		return
	}
	if len(lw.problem.Budgets) > 0 {
		// A kernel's budget: each solve would contract it again (a
		// 190-invocation megakernel: 0.2 s a solve, 64 of them).
		return
	}
	if !dissolves(&lw.problem) {
		// The pinned solves would leave cores to HiGHS too: under
		// NoReduce, or where the kernel order's regrets added levels
		// after the plan was solved (a 20-invocation DAG whose every
		// edge may cross took 10 s a solve, 64 of them, for nothing).
		return
	}
	type named struct {
		rj      *Rejected
		vi      int
		note    int // where replannedNote starts, or -1 for replannedAlone
		changes string
		all     []Replanned
	}
	var todo []named
	for vi := range p.Choices {
		c := &p.Choices[vi]
		for k := range c.Rejected {
			rj := &c.Rejected[k]
			if len(todo) == maxReplanned {
				break
			}
			if !rj.Exact || rj.RegretNS == nil || rj.Removed {
				continue
			}
			note := strings.LastIndex(rj.Reason, replannedNote)
			if note < 0 && !strings.HasSuffix(rj.Reason, replannedAlone) {
				continue
			}
			todo = append(todo, named{rj: rj, vi: vi, note: note})
		}
	}
	// The pinned solves are independent: they run on the plan's workers,
	// each into its own place, and are read in the report's order.
	solved := make([]*Solution, len(todo))
	failed := make([]bool, len(todo))
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for i, n := range todo {
		// The plan a regret's search found needs no solve again (where the
		// pinned solve's plan has a kernel-order conflict, it would name
		// nothing).
		solved[i] = lw.searchedPlan(n.vi, n.rj.Alternative)
	}
	for range min(max(lw.workers, 1), len(todo)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(todo); i = int(next.Add(1)) - 1 {
				if solved[i] == nil {
					solved[i], failed[i] = lw.replan(ctx, todo[i].vi, todo[i].rj.Alternative)
				}
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return
	}
	for i := range todo {
		s := solved[i]
		if s != nil && s.Model.CoreNodes > 0 {
			return // a core: no name anywhere
		}
		if !failed[i] {
			todo[i].changes, todo[i].all = lw.replanChanges(sol, s, choices, todo[i].vi, *todo[i].rj.RegretNS)
		}
	}
	for _, n := range todo {
		n.rj.Replanned = n.all
		switch rj := n.rj; {
		case n.changes == "":
		case n.note < 0:
			rj.Reason = strings.TrimSuffix(rj.Reason, replannedAlone) + replannedAlsoAt + n.changes
		default:
			rj.Reason = rj.Reason[:n.note] + replannedNote[:len(replannedNote)-2] + ": " + n.changes + "; " + signedNS(*rj.RegretNS) + ")"
		}
	}
}

// searchedPlan is the cheapest plan that the regrets' searches over the
// edges' states found for invocation vi's task alternative alt (any of its
// variants), as a Solution with its choices and cost; nil when none did.
func (lw *lowering) searchedPlan(vi int, alt string) *Solution {
	task := lw.invs[vi].Task
	var best *orderPlan
	for a, na := range lw.alts[vi] {
		if task.Alternatives[na.task].ID != alt {
			continue
		}
		if op, ok := lw.orderPlans[[2]int{vi, a}]; ok && (best == nil || op.cost < best.cost) {
			best = &op
		}
	}
	if best == nil {
		return nil
	}
	s := &Solution{Status: Optimal, Objective: best.cost, Choices: make([]Choice, len(best.choices))}
	for v, a := range best.choices {
		s.Choices[v] = Choice{Node: v, Alternative: a}
	}
	return s
}

// replan solves the plan again with invocation vi pinned to its task
// alternative alt, without regrets; failed when the solve fails.
func (lw *lowering) replan(ctx context.Context, vi int, alt string) (s *Solution, failed bool) {
	task := lw.invs[vi].Task
	q := lw.problem
	q.Nodes = slices.Clone(q.Nodes)
	alts := slices.Clone(q.Nodes[vi].Alternatives)
	for a := range alts {
		if task.Alternatives[lw.alts[vi][a].task].ID != alt && alts[a].Removed == "" {
			alts[a].Removed = "another alternative is asked about"
		}
	}
	q.Nodes[vi].Alternatives = alts
	s, err := Solve(ctx, &q, Options{NoRegrets: true})
	if err == nil && s.Model.CoreNodes > 0 {
		lw.replanCores.Add(1)
	}
	return s, err != nil
}

// replanChanges names the choices of s, the plan solved again with
// invocation vi pinned to a rejected alternative (replan), other than the
// plan's (choices): "ID to ALT" each, at most maxChangesNamed and a count;
// "" when s does not cost the optimum plus regret, its kernels have no
// order, or it changes nothing.
func (lw *lowering) replanChanges(sol, s *Solution, choices []int, vi int, regret float64) (string, []Replanned) {
	if s.Status != Optimal || math.Abs(s.Objective-(sol.Objective+regret)) > objectiveTolerance(sol.Objective) ||
		lw.choosesCrossings() && lw.hasOrderConflict(s.alternatives()) {
		return "", nil
	}
	var named []string
	var all []Replanned
	n, last := 0, ""
	for v, c := range s.Choices {
		if v == vi {
			continue
		}
		was, now := lw.alts[v][choices[v]], lw.alts[v][c.Alternative]
		if c.Alternative != choices[v] {
			all = append(all, Replanned{Invocation: lw.invs[v].ID, Alternative: lw.invs[v].Task.Alternatives[now.task].ID, NoSharedMemoryConversions: now.noSmem})
		}
		var what string
		switch {
		case was.task != now.task:
			what = lw.invs[v].ID + " to " + lw.invs[v].Task.Alternatives[now.task].ID
			if now.noSmem {
				what += " (its conversions without shared memory)"
			}
		case was.noSmem != now.noSmem && now.noSmem:
			what = lw.invs[v].ID + "'s conversions out of shared memory"
		case was.noSmem != now.noSmem:
			what = lw.invs[v].ID + "'s conversions back into shared memory"
		default:
			continue
		}
		if n++; n <= maxChangesNamed {
			named = append(named, what)
		}
		last = what
	}
	if n == 0 {
		return "", nil
	}
	if n == maxChangesNamed+1 {
		named = append(named, last) // naming it is no longer than counting it
	} else if n > maxChangesNamed {
		named = append(named, fmt.Sprintf("and %d more", n-maxChangesNamed))
	}
	return strings.Join(named, ", "), all
}

// parallelResult is the number of invocations from which result writes the
// choices on two goroutines, and parallelReasons the number of explained
// invocations: each takes tens of microseconds for its reasons (the 7,000
// of a 1,000-invocation transformer took 60 ms on one).
var (
	parallelResult  = 2048
	parallelReasons = 32
)

// choice is invocation vi's entry of the plan: its choice and every other
// task alternative, explained when explained is true, with rejected as the
// room for the latter. It returns the number of rejected alternatives whose
// regret is an interval.
func (lw *lowering) choice(sol *Solution, choices []int, regrets map[[2]int]Regret, removed map[[2]int]pruned,
	explained bool, vi int, rejected []Rejected) (PlanChoice, int) {
	v := lw.invs[vi]
	ch := sol.Choices[vi]
	na := lw.alts[vi][ch.Alternative]
	alt := v.Task.Alternatives[na.task]
	pc := PlanChoice{Invocation: v.ID, Task: v.Task.Name, Alternative: alt.ID, Implementation: alt.Implementation,
		CostNS: ch.Cost, Multiplicity: na.exec.multiplicity, Origin: na.exec.origin.String(), Eliminated: ch.Eliminated,
		NoSharedMemoryConversions: na.noSmem, NotExplained: !explained, Rejected: rejected}
	if k := lw.kernelOf[vi]; k != nil {
		pc.Group = k.ID
	}
	nUnproven := 0
	// Each other task alternative, at its best variant; reasons only
	// where the regrets were computed (a removed alternative always
	// says why).
	notExplained := ""
	if !explained {
		notExplained = lw.notExplained[vi]
	}
	// The node's alternatives are the task's in its order, each task
	// alternative's variants together: alts[start:end] are ti's.
	alts := lw.alts[vi]
	end := 0
	for ti, other := range v.Task.Alternatives {
		start := end
		for end < len(alts) && alts[end].task == ti {
			end++
		}
		if ti == na.task {
			continue
		}
		if !explained && !allRemoved(alts[start:end]) {
			pc.Rejected = append(pc.Rejected, Rejected{Alternative: other.ID, Reason: notExplained})
			continue
		}
		var best *Rejected
		bestAI := -1
		// The task alternative's regret is its best variant's; where a
		// variant's is an interval, so is the alternative's, from the
		// least lower bound. The reason is the best variant's, written
		// for it alone.
		unproven, lower := false, math.Inf(1)
		for ai := start; ai < end; ai++ {
			rj := lw.rejected(regrets, vi, ai, other.ID)
			if best == nil || better(rj, *best) {
				best, bestAI = &rj, ai
			}
			switch {
			case rj.RegretLowerNS != nil:
				unproven, lower = true, math.Min(lower, *rj.RegretLowerNS)
			case rj.RegretNS != nil:
				lower = math.Min(lower, *rj.RegretNS)
			}
		}
		lw.explain(best, sol, choices, removed, vi, bestAI)
		if unproven {
			if best.RegretNS != nil {
				lower = math.Min(lower, *best.RegretNS)
			}
			// The best variant's exact regret stands where no unproven
			// variant may be lower: every one's lower bound is at least
			// it (else the interval would read "+x…+x").
			if !(best.Exact && best.RegretNS != nil && lower >= *best.RegretNS) {
				best.Exact, best.RegretLowerNS, best.Infeasible = false, &lower, false
				nUnproven++
			}
		}
		if best.Tie {
			pc.Tie = true
		}
		pc.Rejected = append(pc.Rejected, *best)
	}
	return pc, nUnproven
}

// allRemoved reports whether every variant of a task alternative (alts)
// was removed before solving.
func allRemoved(alts []nodeAlt) bool {
	for _, na := range alts {
		if na.removed == "" {
			return false
		}
	}
	return true
}

// pruned is why the solver pruned a node's alternative before solving,
// and the task alternative that dominates it ("" for none).
type pruned struct{ why, by string }

// rejected is node vi's alternative ai, the task's alternative id, with
// its regret; explain gives it its reason.
func (lw *lowering) rejected(regrets map[[2]int]Regret, vi, ai int, id string) Rejected {
	rj := Rejected{Alternative: id}
	if why := lw.alts[vi][ai].removed; why != "" {
		rj.Removed, rj.Reason, rj.Infeasible, rj.Exact = true, why, true, true
		return rj
	}
	if r, ok := regrets[[2]int{vi, ai}]; ok {
		val, lower := r.Regret, r.Lower
		rj.Exact, rj.Tie = r.Exact, r.Tie
		switch {
		case math.IsInf(val, 1) && r.Exact:
			rj.Infeasible = true
		case !math.IsInf(val, 1):
			rj.RegretNS = &val
		}
		if !r.Exact {
			rj.RegretLowerNS = &lower
		}
	}
	return rj
}

// explain writes the reason of rj, node vi's alternative ai as rejected
// returned it (a removed alternative has its reason already).
func (lw *lowering) explain(rj *Rejected, sol *Solution, choices []int, removed map[[2]int]pruned, vi, ai int) {
	if rj.Removed {
		return
	}
	if pr, ok := removed[[2]int{vi, ai}]; ok {
		rj.Reason = pr.why + "; "
		if pr.by != rj.Alternative { // not its own other variant
			rj.DominatedBy = pr.by
		}
	}
	exact := rj.RegretNS
	if !rj.Exact {
		exact = nil // the reason speaks only of a proven best plan
	}
	// A tie's regret is 0 for anything within the tolerance the solver
	// and the verifier agree to: so is its single swap's, which then needs
	// no re-planning.
	slack := 0.0
	if rj.Tie {
		slack = objectiveTolerance(sol.Objective)
	}
	why := lw.reason(choices, sol.BudgetUse, vi, ai, exact, slack)
	if lw.alts[vi][ai].noSmem {
		// Said once: where the reason keeps other producers' conversions
		// out of shared memory too, it names this one among them.
		if rest, ok := strings.CutPrefix(why, twinsPrefix); ok {
			why = twinsPrefix + lw.invs[vi].ID + ", " + rest
		} else {
			why = "with its conversions in its kernel kept out of shared memory: " + why
		}
	}
	rj.Reason += why
}

// better orders two explanations of one task alternative: a computed finite
// regret first, the smaller first.
func better(a, b Rejected) bool {
	switch {
	case a.RegretNS != nil && b.RegretNS == nil:
		return true
	case a.RegretNS == nil || b.RegretNS == nil:
		return !a.Removed && b.Removed
	}
	return *a.RegretNS < *b.RegretNS
}

// notExplainedReasons builds lw.notExplained, the reason given for each
// alternative of an invocation whose regrets were not computed (by
// invocation, "" where wanted says they were), cut from one string.
func (lw *lowering) notExplainedReasons(wanted func(v int) bool) {
	const prefix, suffix = "not explained (ask with --explain ", ")"
	size := 0
	for vi, v := range lw.invs {
		if !wanted(vi) {
			size += len(prefix) + len(v.ID) + len(suffix)
		}
	}
	lw.notExplained = cutStrings(len(lw.invs), size, func(vi int, b *strings.Builder) {
		if !wanted(vi) {
			b.WriteString(prefix)
			b.WriteString(lw.invs[vi].ID)
			b.WriteString(suffix)
		}
	})
}

// cutStrings returns n strings, the i-th what write(i, b) writes, all cut
// from one allocation: for the many short strings of a large plan (one
// per group or invocation), which would otherwise be as many allocations.
// size is their total length, which the caller counts: the builder is
// grown to it once, where growing as it is written copies it a dozen
// times and allocates several times its size (a megabyte or two of a
// 10,000-invocation plan).
func cutStrings(n, size int, write func(i int, b *strings.Builder)) []string {
	var b strings.Builder
	b.Grow(size)
	ends := make([]int, n)
	for i := range n {
		write(i, &b)
		ends[i] = b.Len()
	}
	all, out := b.String(), make([]string, n)
	start := 0
	for i, end := range ends {
		out[i], start = all[start:end], end
	}
	return out
}

// touchGroups builds lw.touch, each node's groups, once.
func (lw *lowering) touchGroups() {
	if lw.touch != nil {
		return
	}
	// Counted, then cut from one array: two allocations, not one per node.
	n := len(lw.problem.Nodes)
	count := make([]int, n+1)
	last := make([]int, n)
	for v := range last {
		last[v] = -1
	}
	each := func(visit func(v, gi int)) {
		for gi, g := range lw.problem.Groups {
			visit(g.Producer, gi)
			for _, c := range g.Consumers {
				visit(c.Node, gi)
			}
		}
	}
	each(func(v, gi int) {
		if last[v] != gi {
			last[v] = gi
			count[v+1]++
		}
	})
	for v := range n {
		count[v+1] += count[v]
	}
	all := make([]int, count[n])
	lw.touch = make([][]int, n)
	for v := range n {
		lw.touch[v] = all[count[v]:count[v]:count[v+1]]
		last[v] = -1
	}
	each(func(v, gi int) {
		if last[v] != gi {
			last[v] = gi
			lw.touch[v] = append(lw.touch[v], gi)
		}
	})
}

// edgePair is the conversion on edge from source label sk to target label
// tk, its consumer taking node alternative a, and the edge's target
// endpoint: the group's pair, except for the edge's own round trip out of
// a global layout (ownTrip), which loads the tiles its own consumer reads;
// the label, which consumers reading other counts may share, does not say
// how many.
func (lw *lowering) edgePair(sk, tk string, edge *tasks.Edge, a int) (*pairInfo, *endpoint) {
	return lw.edgePairOf(lw.endpoints[sk], lw.endpoints[tk], sk, tk, edge, a)
}

// edgePairOf is edgePair with the labels' endpoints src and dst given.
func (lw *lowering) edgePairOf(src, dst *endpoint, sk, tk string, edge *tasks.Edge, a int) (*pairInfo, *endpoint) {
	if !ownTrip(src, dst) {
		return lw.pairs[[2]string{sk, tk}], dst
	}
	w := edge.To.Invocation
	c := lw.classes[lw.class[w.Index]].cands[a]
	dst = lw.endpoint(c, edge.To.Port, false)
	dst.rename = distribution.Rename(edge.Rename)
	return lw.roundTrip(src, dst), dst
}

// withBoundary is edge's round trip from src to dst with the store and the
// kernel boundary of its port's edges that must cross, which its port's
// boundary group costs (crossGroup), when edge is the first of them, the
// edge that pays them; else pi and dst as they are.
func (lw *lowering) withBoundary(pi *pairInfo, src, dst *endpoint, edge *tasks.Edge) (*pairInfo, *endpoint) {
	if dst == nil || !dst.mustCross || dst.paidOn != lw.edgeNames[edge.Index] {
		return pi, dst
	}
	d := *dst
	d.paidOn = ""
	return lw.roundTrip(src, &d), &d
}

// boundaries appends the conversions of group gi under the plan to out,
// one per edge.
func (lw *lowering) boundaries(out []Boundary, gi int, gc GroupChoice, choices []int) []Boundary {
	info := lw.groups[gi]
	if info.loads || info.boundary {
		// Its cost is on the edge's boundary, from its own pair below.
		return out
	}
	src := lw.endpoints[gc.Source]
	from := len(info.producer.ID) + len(".") + len(info.port.Name) // the name's start
	base := len(out)
	// Edges with one target share its conversion: in a kernel, any but
	// the identity the model costs 0 (a measured identity is paid once,
	// as any conversion); across kernels, the store into a global layout
	// the consumers read and the boundary before them, or, on edges that
	// must cross, the copy into the layout they read (the store and the
	// boundary are the port's: listed only where a copy is shared).
	shares := make([]bool, len(info.edges))
	// payer[k] is the edge that pays target label k, the first with it
	// (the first edge that must cross, which pays the port's boundary, is
	// the first with any label of an edge that must cross).
	payer := map[string]int{}
	for ci, edge := range info.edges {
		tk := gc.Targets[ci]
		labelDst := lw.endpoints[tk]
		own := ownTrip(src, labelDst)
		pi, dst := lw.edgePairOf(src, labelDst, gc.Source, tk, edge, choices[edge.To.Invocation.Index])
		pi, dst = lw.withBoundary(pi, src, dst, edge)
		// One string: From and To are its ends.
		name := lw.edgeNames[edge.Index]
		b := Boundary{
			Edge: name, EdgeIndex: edge.Index, From: name[:from], To: name[from+len(" -> "):], Crossing: pi.crossing.String(),
			CostNS: pi.total, PerTileNS: pi.perTile, Moves: src.moves, Origin: pi.origin.String(), Detail: pi.detail,
			Source: src.name, Target: dst.name,
		}
		switch {
		case pi.crossing == tasks.GlobalRoundTrip:
			b.Class, b.Mechanism = conversion.GlobalMemory.String(), "global_round_trip"
		case pi.through:
			// A store into, or a load from, a shared-memory layout.
			b.Class, b.Mechanism = conversion.SharedMemory.String(), conversion.SharedMemory.String()
		case pi.result != nil:
			b.Class, b.Mechanism = pi.result.Class.String(), pi.result.Mechanism.String()
			if pi.result.Class != conversion.Identity {
				// Nothing moves in an identity: no witness to lower.
				b.Witness = pi.result.Witness
				for _, r := range pi.result.Rejected {
					b.Alternatives = append(b.Alternatives, RejectedMechanism{Mechanism: r.Mechanism.String(), PerTileNS: r.CostNS, Origin: r.Origin, Reason: r.Reason})
				}
			}
		default:
			b.Class, b.Mechanism = conversion.Identity.String(), conversion.Identity.String()
		}
		// Whether the label's conversion is paid once for its edges:
		// the label's own pair decides (the first edge that must cross
		// reports the port's boundary besides).
		lp := lw.pairs[[2]string{gc.Source, tk}]
		switch {
		case own || lp == nil:
			// A round trip out of the producer's global layout: the
			// edge's own, shared with no other.
		case lp.crossing == tasks.InKernel:
			shares[ci] = b.Class != conversion.Identity.String() || lp.total != 0
		case lp.crossing == tasks.GlobalRoundTrip:
			shares[ci] = lp.paidOn == "" || lp.total > 0
		}
		if _, ok := payer[tk]; !ok {
			payer[tk] = ci
		}
		out = append(out, b)
		lw.boundaryEdges = append(lw.boundaryEdges, edge)
	}
	for ci := range info.edges {
		p := payer[gc.Targets[ci]]
		if !shares[ci] || p == ci {
			continue
		}
		f, b := &out[base+p], &out[base+ci]
		f.SharedWith = append(f.SharedWith, b.Edge)
		b.SharedWith = []string{f.Edge}
		b.CostNS = 0
		b.Detail = "shared with " + f.Edge + ", which pays it"
	}
	return out
}

// shareable reports whether pi, the pair from source label src to target
// label tgt, is paid once for every consumer of its group with that target
// (as groupState and the boundaries count it): a conversion in a kernel
// that costs anything, or a round trip into a global layout the consumers
// read; not an edge's own round trip out of the producer's global layout,
// whose loads and boundary are its own.
func (lw *lowering) shareable(pi *pairInfo, src, tgt string) bool {
	if lp, ok := lw.pairs[[2]string{src, tgt}]; ok && pi != nil && pi.crossing == tasks.GlobalRoundTrip {
		// The label's own pair: the first edge of a port that must cross
		// pays the port's boundary besides, which no label holds.
		pi = lp
	}
	switch {
	case pi == nil || pi.total <= 0:
		return false
	case pi.crossing == tasks.InKernel:
		return true
	}
	return !ownTrip(lw.endpoints[src], lw.endpoints[tgt])
}

func edgeName(e *tasks.Edge) string {
	return e.From.Invocation.ID + "." + e.From.Port.Name + " -> " + e.To.Invocation.ID + "." + e.To.Port.Name
}

// namesOfEdges is each edge's edgeName, by index, cut from one string:
// the plan's boundaries and the graph verifier name every edge of a large
// graph, and one string per edge each was most of their allocations.
func namesOfEdges(edges []*tasks.Edge) []string {
	size := 0
	for _, e := range edges {
		size += len(e.From.Invocation.ID) + len(e.From.Port.Name) + len(e.To.Invocation.ID) + len(e.To.Port.Name) + len(". -> .")
	}
	return cutStrings(len(edges), size, func(i int, b *strings.Builder) {
		e := edges[i]
		b.WriteString(e.From.Invocation.ID)
		b.WriteByte('.')
		b.WriteString(e.From.Port.Name)
		b.WriteString(" -> ")
		b.WriteString(e.To.Invocation.ID)
		b.WriteByte('.')
		b.WriteString(e.To.Port.Name)
	})
}

// reason says in words why alternative ai of node vi lost: the plan with it
// swapped in and every other choice kept, against the chosen plan —
// execution, each boundary whose conversion changes, budgets it breaks.
// Where that breaks a budget with the scratch of conversions into vi, the
// plan that also keeps the conversions out of some of vi's producers out of
// shared memory (their alternatives the same) is tried, the cheapest that
// fits: no other alternative changes, so the swap alone is feasible.
func (lw *lowering) reason(choices []int, budgetUse []float64, vi, ai int, regret *float64, slack float64) string {
	lw.touchGroups()
	parts, dCost, feasible := lw.swap(choices, budgetUse, map[int]int{vi: ai}, vi, true, lw.planStates)
	prefix := ""
	if !feasible {
		var twins [][2]int // producer node, its variant without shared memory
		if !lw.alts[vi][ai].noSmem {
			for a, na := range lw.alts[vi] {
				if na.noSmem && na.removed == "" && na.task == lw.alts[vi][ai].task {
					twins = append(twins, [2]int{vi, a})
					break
				}
			}
		}
		for _, gi := range lw.touch[vi] {
			u := lw.problem.Groups[gi].Producer
			if u == vi || lw.alts[u][choices[u]].noSmem || slices.ContainsFunc(twins, func(t [2]int) bool { return t[0] == u }) {
				continue
			}
			for a, na := range lw.alts[u] {
				if na.noSmem && na.removed == "" && na.task == lw.alts[u][choices[u]].task {
					twins = append(twins, [2]int{u, a})
					break
				}
			}
		}
		if len(twins) > maxTwinsTried {
			twins = twins[:maxTwinsTried]
		}
		// Every set of twins is costed without words, and the words
		// written for the cheapest that fits (the first of equal cost).
		change := func(set int) map[int]int {
			ch := map[int]int{vi: ai}
			for k, t := range twins {
				if set&(1<<k) != 0 {
					ch[t[0]] = t[1]
				}
			}
			return ch
		}
		best, bestSet := math.Inf(1), 0
		for set := 1; set < 1<<len(twins); set++ {
			if _, d, ok := lw.swap(choices, budgetUse, change(set), vi, false, lw.planStates); ok && d < best {
				best, bestSet = d, set
			}
		}
		if bestSet != 0 {
			ch := change(bestSet)
			var names []string
			for k, t := range twins {
				if bestSet&(1<<k) != 0 {
					names = append(names, lw.invs[t[0]].ID)
				}
			}
			if len(names) == 1 && ch[vi] != ai {
				names[0] = "it"
			}
			parts, dCost, feasible = lw.swap(choices, budgetUse, ch, vi, true, lw.planStates)
			prefix = twinsPrefix + strings.Join(names, ", ") + " kept out of shared memory: "
		}
	}
	s := prefix + strings.Join(parts, "; ")
	if !feasible && regret != nil {
		return "swapped in alone it is infeasible: " + s + replannedAlone
	}
	if regret != nil && feasible && *regret < dCost-max(slack, 1e-9*math.Max(1, math.Abs(dCost))) {
		s += replannedNote + signedNS(*regret) + ")"
	}
	return s
}

// twinsPrefix begins a reason whose swap keeps the conversions out of some
// producers out of shared memory, naming them.
const twinsPrefix = "with the conversions out of "

// maxTwinsTried bounds the producers whose conversions reason tries
// keeping out of shared memory: every subset of them is tried.
const maxTwinsTried = 6

// swap compares the chosen plan with the plan where the nodes of change
// take the alternatives it gives: the phrases (execution, each boundary
// whose conversion changes, budgets it breaks; none without words), the
// difference in cost, and whether that plan is feasible. The execution is
// vi's. base, where not nil, holds each group's state under choices.
func (lw *lowering) swap(choices []int, budgetUse []float64, change map[int]int, vi int, words bool, base []groupState) (parts []string, dCost float64, feasible bool) {
	plan := func(v int) int { return choices[v] }
	swapped := func(v int) int {
		if a, ok := change[v]; ok {
			return a
		}
		return choices[v]
	}
	// The change in each budget the swap touches (a few of a fused
	// model's thousand), in the order touched.
	type delta struct {
		budget int
		delta  float64
	}
	var deltas []delta
	add := func(b int, x float64) {
		for i := range deltas {
			if deltas[i].budget == b {
				deltas[i].delta += x
				return
			}
		}
		deltas = append(deltas, delta{b, x})
	}
	// The nodes in order, vi first; the groups they touch, each once.
	nodes := []int{vi}
	for v := range change {
		if v != vi {
			nodes = append(nodes, v)
		}
	}
	slices.Sort(nodes[1:])
	var groups []int
	for _, v := range nodes {
		chosen := lw.problem.Nodes[v].Alternatives[choices[v]]
		other := lw.problem.Nodes[v].Alternatives[change[v]]
		d := other.Cost - chosen.Cost
		dCost += d
		if v == vi && words {
			parts = append(parts, "execution "+signedNS(d))
		}
		for _, u := range other.Uses {
			add(u.Budget, u.Amount)
		}
		for _, u := range chosen.Uses {
			add(u.Budget, -u.Amount)
		}
		for _, gi := range lw.touch[v] {
			if !slices.Contains(groups, gi) {
				groups = append(groups, gi)
			}
		}
	}
	feasible = true
	for _, gi := range groups {
		var bg groupState
		if base != nil {
			bg = base[gi]
		} else {
			bg = lw.groupState(gi, plan)
		}
		ag := lw.groupState(gi, swapped)
		dCost += ag.cost - bg.cost
		for b, u := range ag.uses {
			add(b, u)
		}
		for b, u := range bg.uses {
			add(b, -u)
		}
		feasible = feasible && !math.IsInf(ag.cost, 1)
		info := lw.groups[gi]
		if !words || info.loads || info.boundary {
			continue // its edge's phrase is its conversion's
		}
		// One phrase per conversion of the changed plan: the edges it
		// serves (one conversion for all of them), what they need instead
		// of what the plan has.
		for _, conv := range ag.convs {
			parts = lw.convWords(parts, info, bg, ag, conv)
		}
	}
	slices.SortFunc(deltas, func(x, y delta) int { return x.budget - y.budget })
	for _, d := range deltas {
		bu := lw.problem.Budgets[d.budget]
		if used := budgetUse[d.budget] + d.delta; used > bu.Capacity+budgetTolerance(bu.Capacity) {
			feasible = false
			if words {
				parts = append(parts, fmt.Sprintf("breaks %s: %.0f of %.0f", bu.Name, used, bu.Capacity))
			}
		}
	}
	if lw.problem.order != nil {
		edges := lw.orderEdgesNear(choices, change)
		if cs := orderConflicts(edges, 1); len(cs) > 0 {
			feasible = false
			if words {
				parts = append(parts, "no order of kernels runs it: "+lw.describeConflict(edges, cs[0])+lw.conflictHint(edges, cs[0]))
			}
		}
	}
	return parts, dCost, feasible
}

// convWords appends the phrases for one conversion of the changed plan
// (ag) of a group: the edges whose conversion changed, what they get and
// what they had in the plan (bg), one phrase per distinct thing they had.
// Edges it serves whose conversion did not change are named as already
// having it: the changed ones join them.
func (lw *lowering) convWords(parts []string, info groupInfo, bg, ag groupState, conv groupConv) []string {
	var kept []string
	// The changed consumers, grouped by their old target and by what
	// their conversions were and are (an edge's own round trip loads its
	// own consumer's tiles), in order.
	type change struct {
		consumers     []int
		before, after *pairInfo
		was, what     string
	}
	var changed []change
	for _, ci := range conv.consumers {
		if bg.targets[ci] == ag.targets[ci] && bg.source == ag.source {
			kept = append(kept, lw.edgeNames[info.edges[ci].Index])
			continue
		}
		before, bdst := lw.edgePair(bg.source, bg.targets[ci], info.edges[ci], bg.alts[ci])
		after, adst := lw.edgePair(ag.source, ag.targets[ci], info.edges[ci], ag.alts[ci])
		if bg.source != ag.source {
			// The producer's store and the port's boundary change with
			// it: the edge that pays them says so.
			before, _ = lw.withBoundary(before, lw.endpoints[bg.source], bdst, info.edges[ci])
			after, _ = lw.withBoundary(after, lw.endpoints[ag.source], adst, info.edges[ci])
		}
		was, what := pairWords(before), pairWords(after)
		k := slices.IndexFunc(changed, func(c change) bool {
			return bg.targets[c.consumers[0]] == bg.targets[ci] && c.was == was && c.what == what
		})
		if k < 0 {
			changed = append(changed, change{before: before, after: after, was: was, what: what})
			k = len(changed) - 1
		}
		changed[k].consumers = append(changed[k].consumers, ci)
	}
	for _, ch := range changed {
		cs := ch.consumers
		var edges []string
		for _, ci := range cs {
			edges = append(edges, lw.edgeNames[info.edges[ci].Index])
		}
		ci := cs[0]
		before, after := ch.before, ch.after
		what, was := ch.what, ch.was
		// Edges of the plan that keep the old conversion: it is still
		// paid, and leaving it saves nothing. So are a round trip's store
		// into a global layout other consumers read and its boundary.
		var still []string
		if bg.source == ag.source && lw.shareable(before, bg.source, bg.targets[ci]) {
			for _, c := range ag.convs {
				if c.target == bg.targets[ci] {
					for _, k := range c.consumers {
						still = append(still, lw.edgeNames[info.edges[k].Index])
					}
				}
			}
		}
		if withoutCost(what) == withoutCost(was) {
			if what == was && len(kept) == 0 && len(still) == 0 && after != nil && before != nil && after.total == before.total {
				// Another conversion of the same kind and cost: it
				// changes nothing the regret counts.
				continue
			}
			// The same words for two different conversions (but for
			// their costs): name the distributions, which is what
			// differs.
			what += " from " + lw.endpointName(ag.source) + " to " + lw.endpointName(ag.targets[ci])
			was += " from " + lw.endpointName(bg.source) + " to " + lw.endpointName(bg.targets[ci])
		}
		shared := lw.shareable(after, ag.source, ag.targets[ci])
		// How many conversions the plan pays for the edges is said as
		// for the swap's: one for all of them, or one each.
		wasCounted := len(edges) > 1 && len(still) == 0 && before != nil && before.total > 0
		wasShared := wasCounted && lw.shareable(before, bg.source, bg.targets[ci])
		switch {
		case len(kept) > 0 && shared:
			what += ", shared with " + edgeList(kept) + " at no extra cost,"
		case len(kept) > 0:
			what += " (like " + edgeList(kept) + ")"
		case len(edges) > 1 && shared && wasShared:
			// Said once, after the plan's conversion.
		case len(edges) > 1 && shared:
			what += ", one conversion for all of them,"
		case len(edges) > 1 && after != nil && after.total > 0:
			// Round trips of their own: every edge pays one.
			what += " each"
		}
		switch {
		case wasShared && len(kept) == 0 && shared:
			was += ", one conversion for all of them either way"
		case wasShared:
			was += ", one conversion for all of them"
		case wasCounted:
			was += " each"
		}
		if len(still) > 0 {
			was = "sharing " + was + ", which " + edgeList(still) + " still " + need(len(still)) + " (no saving)"
		}
		parts = append(parts, edgeList(edges)+": "+what+" instead of "+was)
	}
	return parts
}

// maxEdgesNamed is how many edges a reason names before it counts the rest:
// on a fan-out of hundreds of consumers every reason named every sibling,
// and the report grew with the square of the fan-out (86 MB for 300).
const maxEdgesNamed = 4

// edgeList names the edges, the first maxEdgesNamed of them and the number
// of the others.
func edgeList(edges []string) string {
	if len(edges) <= maxEdgesNamed {
		return strings.Join(edges, ", ")
	}
	return fmt.Sprintf("%s and %d other edges", strings.Join(edges[:maxEdgesNamed], ", "), len(edges)-maxEdgesNamed)
}

func need(n int) string {
	if n == 1 {
		return "needs"
	}
	return "need"
}

// A groupState is what one group converts under a plan.
type groupState struct {
	source  string
	targets []string
	alts    []int       // each consumer's node alternative
	convs   []groupConv // distinct conversions, in the order of their first consumer
	cost    float64
	uses    map[int]float64 // nil where no conversion uses a budget
}

type groupConv struct {
	target    string
	consumers []int
}

// groupState evaluates group gi under the plan choice(v): one conversion
// per distinct target, as the verifier counts them.
func (lw *lowering) groupState(gi int, choice func(v int) int) groupState {
	g := &lw.problem.Groups[gi]
	n := len(g.Consumers)
	st := groupState{source: g.Sources[choice(g.Producer)], targets: make([]string, n), alts: make([]int, n),
		convs: make([]groupConv, 0, min(n, 4))}
	// at[:n] is each consumer's conversion, at[n:] first each
	// conversion's count and then its consumers, each conversion's cut
	// from it (a reason asks for two states of every group it touches:
	// one array, not one per conversion).
	at := make([]int, 2*n)
	for ci, c := range g.Consumers {
		a := choice(c.Node)
		t := c.Targets[a]
		st.targets[ci], st.alts[ci] = t, a
		k := slices.IndexFunc(st.convs, func(cv groupConv) bool { return cv.target == t })
		if k < 0 {
			k = len(st.convs)
			st.convs = append(st.convs, groupConv{target: t})
			cost := math.Inf(1)
			for _, pr := range g.Pairs {
				if pr.Source == st.source && pr.Target == t {
					cost = pr.Cost
					for _, u := range pr.Uses {
						if st.uses == nil {
							st.uses = map[int]float64{}
						}
						st.uses[u.Budget] += u.Amount
					}
					break
				}
			}
			st.cost += cost
		}
		at[ci] = k
		at[n+k]++
	}
	// Each conversion's consumers, in order, from at[n:].
	from := n
	for k := range st.convs {
		m := at[n+k]
		st.convs[k].consumers = at[from : from : from+m]
		from += m
	}
	for ci := range n {
		k := at[ci]
		st.convs[k].consumers = append(st.convs[k].consumers, ci)
	}
	return st
}

func pairWords(pi *pairInfo) string {
	if pi == nil {
		return "nothing"
	}
	if w := pi.phrase.Load(); w != nil {
		return *w
	}
	w := pairPhrase(pi)
	pi.phrase.Store(&w)
	return w
}

// pairPhrase is pairWords' phrase for a pair (not nil), written anew.
func pairPhrase(pi *pairInfo) string {
	switch {
	case math.IsInf(pi.total, 1):
		return "an impossible conversion (" + pi.why + ")"
	case pi.crossing == tasks.GlobalRoundTrip:
		var moved []string
		if pi.stored > 0 {
			moved = append(moved, fmtBytes(pi.stored)+" stored")
		}
		if pi.loaded > 0 {
			moved = append(moved, fmtBytes(pi.loaded)+" loaded")
		}
		if pi.copied > 0 {
			moved = append(moved, fmtBytes(pi.copied)+" relaid by a copy kernel")
		}
		if len(moved) == 0 {
			moved = append(moved, "no extra traffic")
		}
		if pi.paidOn != "" {
			return fmt.Sprintf("%s after the kernel boundary %s pays (%s)", strings.Join(moved, ", "), pi.paidOn, fmtNS(pi.total))
		}
		return fmt.Sprintf("a kernel boundary with %s (%s)", strings.Join(moved, ", "), fmtNS(pi.total))
	case pi.result == nil && pi.total == 0:
		return "nothing to convert"
	case pi.result == nil && pi.load:
		return fmt.Sprintf("a load of the tile from shared memory (%s)", fmtNS(pi.total))
	case pi.result == nil:
		return fmt.Sprintf("a store of the tile into shared memory (%s)", fmtNS(pi.total))
	case pi.result.Class == conversion.Identity && pi.total == 0:
		return "nothing to convert"
	case pi.origin == costmodel.Measured:
		// Measured as a whole, whatever moved it: the model's mechanism
		// is not what the figure is of (as the boundary says).
		return fmt.Sprintf("a measured %s conversion (%s)", pi.result.Class, fmtNS(pi.total))
	case pi.result.Class == conversion.Identity:
		return "nothing to convert"
	case pi.result.Mechanism.Via == pi.result.Class:
		return fmt.Sprintf("a %s conversion (%s)", pi.result.Class, fmtNS(pi.total))
	}
	return fmt.Sprintf("a %s conversion via %s (%s)", pi.result.Class, pi.result.Mechanism, fmtNS(pi.total))
}

// withoutCost is pairWords' phrase without the cost it ends with, in
// parentheses.
func withoutCost(words string) string {
	if i := strings.LastIndex(words, " ("); i >= 0 && strings.HasSuffix(words, ")") {
		return words[:i]
	}
	return words
}

// fmtBytes writes a byte count with a binary unit.
func fmtBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.4g GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.4g MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.4g KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f bytes", b)
}

func signedNS(ns float64) string {
	if ns >= 0 {
		return "+" + fmtNS(ns)
	}
	return "−" + fmtNS(-ns)
}

// fmtNS writes a duration in ns with a unit that keeps 4 significant digits.
func fmtNS(ns float64) string { return string(appendNS(nil, ns)) }

// appendNS appends fmtNS(ns) to b: strconv's 4 significant digits are
// fmt's %.4g.
func appendNS(b []byte, ns float64) []byte {
	a := math.Abs(ns)
	switch {
	case math.IsInf(ns, 0):
		return append(b, "∞"...)
	case a >= 1e9:
		return append(strconv.AppendFloat(b, ns/1e9, 'g', 4, 64), " s"...)
	case a >= 1e6:
		return append(strconv.AppendFloat(b, ns/1e6, 'g', 4, 64), " ms"...)
	case a >= 1e3:
		return append(strconv.AppendFloat(b, ns/1e3, 'g', 4, 64), " µs"...)
	}
	return append(strconv.AppendFloat(b, ns, 'g', 4, 64), " ns"...)
}

// endpointName is the distribution or layout name of an endpoint key.
func (lw *lowering) endpointName(key string) string {
	if ep := lw.endpoints[key]; ep != nil {
		return ep.name
	}
	return key
}

// targetAndCache are the options' target (the graph's when none) and
// cache (a new one when none).
func (opts *PlanOptions) targetAndCache(g *tasks.Graph) (*costmodel.Target, *Cache, error) {
	if g == nil {
		return nil, nil, errors.New("planner: no task graph (nil)")
	}
	target := opts.Target
	if target == nil {
		var err error
		if target, err = graphTarget(g); err != nil {
			return nil, nil, err
		}
	}
	if err := opts.Measured.CheckTarget(target); err != nil {
		return nil, nil, fmt.Errorf("planner: %w", err)
	}
	if on := g.Measured().Target; on != "" && on != target.Name {
		return nil, nil, fmt.Errorf("planner: the measured costs were measured on %q, not on %q: they are not this target's costs (plan on %s, or leave them out)", on, target.Name, on)
	}
	cache := opts.Cache
	if cache == nil {
		cache = NewCache()
	}
	return target, cache, nil
}

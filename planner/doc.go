// Package planner chooses one alternative per node of an abstract planning
// problem, jointly over the whole problem, minimizing execution plus
// conversion cost under resource budgets; it proves the choice optimal and
// explains it with exact regrets. The task-graph lowering targets this model;
// a compiler may build a Problem directly.
//
// # Model
//
// A Problem has nodes (invocations), each with alternatives: an id, an
// execution cost in ns and resource uses. A Group is the cost term of one
// producer port: the producer's alternatives label the port with a source
// distribution, each consumer's alternatives with the target it wants, and a
// sparse matrix C[s][t] of conversion costs (a pair absent or +Inf cannot be
// converted: no plan may need it), with optional resource uses per pair (the
// scratch of a shared-memory conversion). One conversion serves every
// consumer needing the same target (fan-out), so a group costs
//
//	Σ_{t ∈ targets the consumers need} C[s][t]
//
// and its pair uses count once per distinct (s, t). A Budget bounds the sum
// of the uses of the chosen alternatives and conversions. The objective is
//
//	Σ_v cost(choice_v) + Σ_g group cost,
//
// subject to every budget.
//
// # Pipeline
//
// Solve runs these stages, one file each:
//
//  1. model.go: validate (every fault with its path, e.g.
//     groups[2].consumers[0].targets).
//  2. contract.go: a fused kernel whose budget its nodes (and the
//     scratch of the conversions between them) alone use, meeting the rest
//     at few boundary nodes, is contracted: an exact program over its
//     interior keeps, per boundary assignment, the Pareto front of (budget
//     used, cost), and the kernel becomes one node over the boundary's
//     assignments whose cost is the best interior within the budget. Its
//     budget row and inner groups leave the problem; the interior's
//     choices and regrets come back from the same program (the regrets
//     within Options.RegretTimeLimit and RegretSolves: the program's min-marginals with the
//     rest of the graph as one more table over the boundary, from one
//     junction-tree pass forward and back). Kernels of one content (a
//     model's layers) run the program once and share its table, and many
//     of them share per-node tables over the boundary for their regrets.
//  3. prune.go: drop the alternatives the caller removed (Alternative.Removed,
//     Pin, Forbid) and the dominated ones: same label on every port, same
//     uses, no cheaper (the lowest index wins exact ties). Both are recorded.
//  4. reduce.go: exact bucket elimination (R0/RI/RII of PBQP solvers, and in
//     general any node whose bucket over it and its neighbours has at most
//     Options.MaxTable entries and which no budget touches), folding costs
//     into table terms over the neighbours. A fan-out group is joined whole.
//     A term sees a neighbour only through a class of its alternatives (for
//     a group, the labels the node carries in it), so tables are indexed by
//     classes, not alternatives: a fan-out over four consumers with four
//     distributions per port is a table of 4^5 entries whatever the number
//     of alternatives. kernel.go is the inner loop of the bucket tables.
//     With the default limit, a problem without budgets that buckets of up
//     to 2^23 entries (2^26 in all) would eliminate entirely is eliminated
//     so: a dry run sizes the buckets first, without tables. Small dense
//     graphs, whose frustrated labels make the MILP's LP weak, then take
//     milliseconds instead of HiGHS's seconds to minutes.
//  5. bnb.go: a core of at most 64 nodes without budgets, whose LP
//     relaxation has fractional choices (an integral one HiGHS proves at its
//     root), is first searched by an exact depth-first branch and bound,
//     with a mini-bucket elimination heuristic over the core's terms, for at
//     most 40 M search nodes, about 5 s (and Options.TimeLimit). Dense cores of 30–40 nodes, which HiGHS branches on
//     for minutes over a weak LP, are proven in well under a second, and
//     some of 40–50 in seconds; what the
//     search does not prove goes to HiGHS from the search's best plan, its
//     bound kept. Regret queries on a core the search proved are searches
//     with the query's restrictions (Result.CoreSearch reports the search).
//     milp.go: the rest, the core, as a MILP in the marginalization
//     (local-polytope) form: binary x[v,a]; continuous y[e,s,t] over the
//     convertible pairs only, with Σ_t y = x-marginal of the source and Σ_s y
//     = x-marginal of the target; for a fan-out, z[g,s,t] ≥ y[e,s,t] carrying
//     the cost and scratch once; a table term's y over its finite entries with
//     a marginal row per node and class; the budget rows. HiGHS solves it on
//     one thread with seed 0, from the local-choice plan as first incumbent
//     (so that a time limit returns a plan). Under a time limit, a core of
//     100 nodes or more without budgets starts instead from the plan of
//     improve.go's large-neighbourhood search (windows of 10 nodes around
//     each core node re-planned exactly by elimination, two passes), and
//     its LP relaxation is solved beside HiGHS by the interior point method
//     (rootbound.go), whose duals prove a Lagrangian bound in case HiGHS
//     stops inside its own root LP (else the bound is the execution floor,
//     every node's cheapest alternative). A start that is a plan of the
//     core (no budget broken) turns HiGHS's feasibility jump off: it would
//     only look for a feasible point, and took 10–30 % of the solve on dense
//     1,000-node DAGs; the regrets' MILPs do the same with theirs. A core
//     without budgets is solved without HiGHS's presolve, whose work the
//     reduction has done (the whole model under NoReduce keeps it). A
//     solve stopped before HiGHS took up its start returns the start. An
//     empty core makes no HiGHS call. Should the core's MILP have more columns than the whole
//     problem's (dense graphs, where tables pile up in the core), the
//     reduction is redone with an 8× smaller table limit, down to 64, then
//     not at all.
//  6. back-substitution: each eliminated node takes its bucket's argmin given
//     its neighbours, in reverse elimination order.
//  7. verify.go: Problem.Evaluate recomputes the plan's cost and feasibility
//     from the Problem alone; a disagreement with the solver beyond 1e-6
//     relative is a *VerifyError, never swallowed.
//  8. regret.go: exact regrets, from min-marginals: the distribute pass of
//     the junction tree the elimination built (buckets whose parent is done
//     run in parallel on Options.Workers goroutines), and, where the tree
//     meets the core, re-solves of the core with the choices fixed, or
//     restricted to a separator's class, in parallel on at most
//     Options.Workers workers: first the LP relaxation, kept loaded and
//     re-solved from its last basis after the bound changes, exact where its
//     x are integral (LP ≤ MILP, and integral x fix y and z); a MILP re-solve,
//     warm-started from the optimum with the choice put in, elsewhere. A
//     time-limited re-solve makes its regrets intervals (Regret.Lower,
//     Regret.Exact), and so does Options.RegretSolves, deterministically:
//     past that many, the queries whose plans found so far cost most are
//     not re-solved. certify.go: with 100 queries or more, each is first
//     tried by a certificate, a plan re-optimized on a small region whose
//     cost meets a Lagrangian lower bound priced by the LP relaxation's
//     interior-point duals (solved beside the plan's branch and bound, on
//     the other processor, when the core's queries are known to be that
//     many), in passes over every query (each query's first region, then
//     its second, then the rest: the cheap certificates first, should a
//     time limit strike); a query they leave gets the window of its last
//     region re-planned exactly, the rest of the optimum kept, and is
//     answered where that plan meets the certificate's bound
//     (regionWindows; tried on a sample first); only the rest are
//     re-solved. Where that LP is
//     below the optimum because its vertex is fractional at a few fan-out
//     nodes, the fan-outs' cluster rows (fanoutcut.go) are added first,
//     and the certificates are priced by the duals of the LP with them
//     (newCertifierOn), whose bound is the optimum there; where the bound
//     stays below it, a sample of the queries goes first, and the others
//     get one round only if the sample certified none (certifySampled).
//     The queries left are LP re-solved alone first, and where their LPs
//     are fractional at few nodes, those nodes' fan-outs get their
//     clusters before the rest is re-solved.
//     certelim.go takes a
//     region's bound over integral choices by bucket elimination, its
//     argmin the plan, where no budget touches the region and its buckets
//     are small (decided by a dry run over the structure, before any
//     table); elsewhere the bound is a small LP over the region's
//     columns. A query whose LP re-solve is fractional goes to a MILP
//     re-solve of the core, compacted (compact.go). Before certificates and re-solves, a
//     problem without budgets gives every query a plan that answers it (its
//     nodes re-chosen exactly, the rest of the optimum kept; improve.go's
//     windows): the upper end of the interval a time limit leaves, and
//     exact where a certificate's bound meets it. A separator's query
//     matters only through the eliminated nodes' min-marginals: the
//     distribute pass run over what the queries have proven, and run
//     backwards (distributor.slack), tells which queries could bring a
//     min-marginal below what a plan already gives; the others are not
//     re-solved (dropUnneeded), once before any re-solve and once after
//     each separator's query has had its LP re-solve, whose bound is its
//     lower end.
//
// Options.NoReduce skips stages 2 and 4: HiGHS solves the whole problem and every
// regret is a re-solve.
//
// # Invariants
//
//   - A returned plan is feasible and costs Solution.Objective, as the
//     verifier recomputed from the Problem.
//   - The reduction is exact: the reduced and NoReduce paths reach the same
//     optimum, and the regrets of both equal exhaustive search's (the tests
//     check this on a thousand random problems).
//   - Determinism: the same Problem and Options give the same Solution
//     (SolveTime aside) when the plan is proven; a time limit (or a context
//     cancelled) stops the solvers wherever they are, so a plan, bound and
//     node counts cut short may differ between runs. Variables are ordered by node, group and term index;
//     HiGHS runs on one thread with seed 0; an eliminated node takes the
//     lowest alternative index among its bucket's exact minima, and a
//     budget kernel's interior node the lowest that keeps the kernel's
//     optimum, node by node in a walk of its program's buckets from the
//     last (contract.go, interior); the core's
//     choice is HiGHS's deterministic optimum. Ties are flagged: a rejected
//     alternative whose regret is within 1e-6 relative of 0 has Tie set.
//   - Failures: *InvalidError for a malformed Problem; *InfeasibleError
//     (errors.Is ErrInfeasible) with the conflicting budgets, nodes and groups
//     from HiGHS's IIS, and what every plan takes at least of each budget
//     in it (Plan's *PlanInfeasibleError names them after the graph and
//     writes them as text or JSON); ErrNoPlan when a limit stops the solve before any plan;
//     a time limit after a plan returns it with Status TimeLimit and its gap.
package planner

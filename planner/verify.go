package planner

import (
	"fmt"
	"math"
	"slices"
)

// An Evaluation is a plan's cost and feasibility, recomputed from the
// Problem alone: it shares no code or data with the solver's model, so that
// Solve can check the solver against it.
type Evaluation struct {
	// Cost is Execution + Conversion; +Inf when a needed pair is not
	// convertible.
	Cost       float64
	Execution  float64
	Conversion float64
	// Groups are the conversions the plan needs, one entry per group.
	Groups []GroupChoice
	// BudgetUse is each budget's use by the plan.
	BudgetUse []float64
	// Violations say why the plan is infeasible; empty when it is feasible.
	Violations []string
}

// Feasible reports whether the plan breaks nothing.
func (e *Evaluation) Feasible() bool { return len(e.Violations) == 0 }

// A GroupChoice is what a plan converts at one group.
type GroupChoice struct {
	Group  int
	Source string // the producer's source label
	// Targets are the consumers' target labels, parallel to Group.Consumers.
	Targets []string
	// Conversions are the distinct (Source, target) conversions, in the order
	// of the first consumer needing each; a conversion listing several
	// consumers is shared by them (fan-out).
	Conversions []Conversion
}

// A Conversion is one (source, target) conversion of a group.
type Conversion struct {
	Source, Target string
	Cost           float64 // +Inf when not convertible
	// Consumers are the indices into the group's Consumers served by it.
	Consumers []int
}

// Shared reports whether the conversion serves more than one consumer.
func (c Conversion) Shared() bool { return len(c.Consumers) > 1 }

// budgetTolerance is the slack a budget row allows: HiGHS's solutions meet
// rows up to its feasibility tolerance, relative to the row's scale.
func budgetTolerance(capacity float64) float64 { return 1e-9 * math.Max(1, math.Abs(capacity)) }

// Evaluate recomputes the cost and feasibility of the plan that uses
// alternative choices[v] at each node v. p must be valid (Validate); an
// error means choices does not fit p (wrong length, index out of range).
func (p *Problem) Evaluate(choices []int) (*Evaluation, error) {
	return p.evaluate(choices, true)
}

// evaluate is Evaluate; without groups it leaves e.Groups nil, for a
// caller that reads only the costs, the budgets' use and the violations
// (localChoice): on a large plan the groups' slices are most of what an
// evaluation allocates. The sums are the same, in the same order.
func (p *Problem) evaluate(choices []int, groups bool) (*Evaluation, error) {
	if len(choices) != len(p.Nodes) {
		return nil, fmt.Errorf("planner: %d choices for %d nodes", len(choices), len(p.Nodes))
	}
	e := &Evaluation{BudgetUse: make([]float64, len(p.Budgets))}
	use := func(us []Use) {
		for _, u := range us {
			e.BudgetUse[u.Budget] += u.Amount
		}
	}
	for v, a := range choices {
		n := p.Nodes[v]
		if a < 0 || a >= len(n.Alternatives) {
			return nil, fmt.Errorf("planner: node %d (%s): choice %d out of range [0, %d)", v, n.Name, a, len(n.Alternatives))
		}
		alt := n.Alternatives[a]
		if alt.Removed != "" {
			e.Violations = append(e.Violations, fmt.Sprintf("node %s: alternative %s was removed: %s", n.Name, alt.ID, alt.Removed))
		}
		e.Execution += alt.Cost
		use(alt.Uses)
	}
	// convert costs group g's conversion from source s to target t, first
	// needed by consumer c, into the evaluation.
	convert := func(g *Group, s, t string, c Consumer) float64 {
		k := slices.IndexFunc(g.Pairs, func(pr Pair) bool { return pr.Source == s && pr.Target == t })
		cost := math.Inf(1)
		if k >= 0 {
			cost = g.Pairs[k].Cost
		}
		if math.IsInf(cost, 1) {
			cost = math.Inf(1)
			e.Violations = append(e.Violations, fmt.Sprintf("group %s: %s → %s cannot be converted (consumer %s)",
				g.Name, s, t, p.Nodes[c.Node].Name))
		} else {
			use(g.Pairs[k].Uses)
		}
		e.Conversion += cost
		return cost
	}
	if !groups {
		// Each group's distinct targets, in the order of the first
		// consumer needing each, as the conversions below are.
		var distinct []string
		for gi := range p.Groups {
			g := &p.Groups[gi]
			s := g.Sources[choices[g.Producer]]
			distinct = distinct[:0]
			for _, c := range g.Consumers {
				if t := c.Targets[choices[c.Node]]; !slices.Contains(distinct, t) {
					distinct = append(distinct, t)
					convert(g, s, t, c)
				}
			}
		}
		e.checkBudgets(p, choices)
		return e, nil
	}
	// The groups' slices are cut from three arrays, one entry per consumer
	// of the problem: an evaluation of a large plan allocates a few times,
	// not per group. A conversion's Consumers has room for one; a second
	// consumer (a fan-out) moves it.
	total := 0
	for _, g := range p.Groups {
		total += len(g.Consumers)
	}
	targets, convs, consumers := make([]string, total), make([]Conversion, total), make([]int, total)
	e.Groups = make([]GroupChoice, 0, len(p.Groups))
	off := 0
	for gi := range p.Groups {
		g := &p.Groups[gi]
		n := len(g.Consumers)
		gc := GroupChoice{Group: gi, Source: g.Sources[choices[g.Producer]],
			Targets: targets[off : off : off+n], Conversions: convs[off : off : off+n]}
		for ci, c := range g.Consumers {
			t := c.Targets[choices[c.Node]]
			gc.Targets = append(gc.Targets, t)
			shared := false
			for k := range gc.Conversions {
				if gc.Conversions[k].Target == t {
					gc.Conversions[k].Consumers = append(gc.Conversions[k].Consumers, ci)
					shared = true
				}
			}
			if shared {
				continue
			}
			cost := convert(g, gc.Source, t, c)
			consumers[off+ci] = ci
			gc.Conversions = append(gc.Conversions, Conversion{Source: gc.Source, Target: t, Cost: cost,
				Consumers: consumers[off+ci : off+ci+1 : off+ci+1]})
		}
		if len(g.Consumers) == 0 {
			gc.Targets, gc.Conversions = nil, nil
		}
		e.Groups = append(e.Groups, gc)
		off += n
	}
	e.checkBudgets(p, choices)
	return e, nil
}

// checkBudgets adds the budgets' violations, and a kernel-order conflict
// in a block whose levels are in the model (order.go), and sets the total
// cost: the end of an evaluation.
func (e *Evaluation) checkBudgets(p *Problem, choices []int) {
	for b, bu := range p.Budgets {
		if e.BudgetUse[b] > bu.Capacity+budgetTolerance(bu.Capacity) {
			e.Violations = append(e.Violations, fmt.Sprintf("budget %s: use %g exceeds capacity %g", bu.Name, e.BudgetUse[b], bu.Capacity))
		}
	}
	if ei := p.order.conflict(choices); ei >= 0 {
		e.Violations = append(e.Violations, "kernel order: no order of kernels runs the block of edge "+p.order.edges[ei].name)
	}
	e.Cost = e.Execution + e.Conversion
}

// objectiveTolerance is how far the solver's objective may be from the
// verifier's recomputation: HiGHS meets rows and integrality up to 1e-7 and
// 1e-6, which moves the objective by at most about that much relative to its
// scale.
func objectiveTolerance(obj float64) float64 { return 1e-6 * math.Max(1, math.Abs(obj)) }

// A VerifyError is a disagreement between the solver and the verifier: the
// plan the solver returned is infeasible, or costs other than the solver
// said. It is a bug, in the planner or in HiGHS, never an outcome.
type VerifyError struct {
	Solver   float64 // the solver's objective
	Verified float64 // the verifier's cost
	// Violations are the verifier's, when the plan is infeasible.
	Violations []string
}

func (e *VerifyError) Error() string {
	if len(e.Violations) > 0 {
		return fmt.Sprintf("planner: verifier: the solver's plan is infeasible: %v", e.Violations)
	}
	return fmt.Sprintf("planner: verifier: the plan costs %v, the solver says %v", e.Verified, e.Solver)
}

// verify recomputes choices' cost and checks it against the solver's
// objective.
func (p *Problem) verify(choices []int, solverObjective float64) (*Evaluation, error) {
	ev, err := p.Evaluate(choices)
	if err != nil {
		return nil, fmt.Errorf("planner: verifier: %w", err)
	}
	if !ev.Feasible() {
		return nil, &VerifyError{Solver: solverObjective, Verified: ev.Cost, Violations: ev.Violations}
	}
	if math.Abs(ev.Cost-solverObjective) > objectiveTolerance(ev.Cost) {
		return nil, &VerifyError{Solver: solverObjective, Verified: ev.Cost}
	}
	return ev, nil
}

package planner

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A Problem is the abstract planning problem: choose one alternative per
// node, minimizing execution plus conversion cost under the budgets.
//
// It is plain data, indexed by position: a Group names its producer and
// consumers by index into Nodes, a Use names its budget by index into
// Budgets, and a Group's label slices are parallel to the alternatives of the
// node they label. Solve validates it (every fault named by its path, such as
// groups[2].consumers[0].targets) and never changes it.
type Problem struct {
	Nodes   []Node
	Groups  []Group
	Budgets []Budget
	// order is the kernel order a lowered graph's plans keep (order.go).
	order *orderSystem
	// usesFrom, when set, is the problem whose uses decide which
	// alternatives dominate others: the one this was made from without
	// its slack budgets' uses (withoutSlack), alternative for alternative.
	usesFrom *Problem
}

// A Node is one invocation: the alternatives it may be realized by.
type Node struct {
	Name         string
	Alternatives []Alternative
}

// An Alternative is one way to realize a node.
type Alternative struct {
	// ID names the alternative, unique within its node.
	ID string
	// Cost is the execution cost in nanoseconds; finite.
	Cost float64
	// Uses are the resources the alternative takes from budgets.
	Uses []Use
	// Removed, when not empty, excludes the alternative before solving and
	// says why (a pin, a missing feature). Solution.Removed lists it.
	Removed string
}

// A Use is an amount of one budget's resource.
type Use struct {
	Budget int     // index into Problem.Budgets
	Amount float64 // finite, ≥ 0
}

// A Budget is a resource row: the uses of the chosen alternatives and of the
// conversions they need add up to at most Capacity.
type Budget struct {
	Name     string
	Capacity float64 // finite
}

// A Group is the cost term of one producer port: the producer's alternatives
// leave its output in a source distribution (a label), each consumer's
// alternatives want it in a target distribution, and converting source s to
// target t costs Pairs' (s, t) entry. A pair that Pairs does not list, or
// lists with an infinite cost, cannot be converted: no plan may need it.
//
// One conversion serves every consumer that needs the same target, so the
// group costs Σ_{t ∈ T} C[s][t] where s is the producer's source and T the
// set of targets the consumers need (fan-out sharing). A group with one
// consumer is an ordinary edge. An identity conversion is a pair (s, s) of
// cost 0, listed like any other.
type Group struct {
	Name      string
	Producer  int      // index into Problem.Nodes
	Sources   []string // one label per producer alternative
	Consumers []Consumer
	Pairs     []Pair
}

// A Consumer is one consumer of a group's producer port.
type Consumer struct {
	Node    int      // index into Problem.Nodes
	Targets []string // one label per consumer alternative
}

// A Pair is one convertible (source, target) pair of a group.
type Pair struct {
	Source, Target string
	// Cost is the conversion's cost in nanoseconds: ≥ 0, or +Inf for a pair
	// that cannot be converted.
	Cost float64
	// Uses are the resources the conversion takes (the scratch of a
	// shared-memory conversion), counted once per chosen (source, target)
	// pair of the group however many consumers share it.
	Uses []Use
}

// A Fault is one thing wrong with a Problem: Path names the value
// (nodes[3].alternatives[1].cost) and What says what is wrong with it.
type Fault struct {
	Path string
	What string
}

func (f Fault) String() string { return f.Path + ": " + f.What }

// An InvalidError lists every fault of a Problem, in the order of their
// paths in the Problem (nodes, then groups, then budgets).
type InvalidError struct {
	Faults []Fault
}

// maxFaultsShown bounds the faults Error prints; all stay in Faults.
const maxFaultsShown = 8

func (e *InvalidError) Error() string {
	var b strings.Builder
	b.WriteString("planner: invalid problem:")
	for i, f := range e.Faults {
		if i == maxFaultsShown {
			fmt.Fprintf(&b, "\n\t… and %d more", len(e.Faults)-i)
			break
		}
		b.WriteString("\n\t" + f.String())
	}
	return b.String()
}

// MaxCostNS is the largest cost a Problem may hold (11.6 days): HiGHS takes
// a cost of 1e20 for an infinite one, and costs of wildly different sizes
// cost the solver its accuracy. A cost above it is an error in the input.
const MaxCostNS = 1e15

// MaxAmount is the largest amount of a budget a Use may take: HiGHS refuses
// a coefficient of 1e15 or more, and a plan's bytes or registers are far
// below it.
const MaxAmount = 1e12

// Validate checks the Problem's structure: indices in range, label slices
// parallel to alternatives, finite costs of at most MaxCostNS and amounts
// of at most MaxAmount
// (a pair's may be +Inf: it cannot be converted), unique alternative ids
// and pairs. It returns an *InvalidError listing every fault, or nil. A
// Problem that validates may still be infeasible; that is Solve's answer.
func (p *Problem) Validate() error {
	var faults []Fault
	// Paths are formatted only for a fault: validation runs on every Solve.
	add := func(path, format string, args ...any) {
		faults = append(faults, Fault{path, fmt.Sprintf(format, args...)})
	}
	checkUses := func(path func() string, uses []Use) {
		for k, u := range uses {
			up := func() string { return fmt.Sprintf("%s.uses[%d]", path(), k) }
			if u.Budget < 0 || u.Budget >= len(p.Budgets) {
				add(up()+".budget", "budget %d out of range [0, %d)", u.Budget, len(p.Budgets))
			} else if slices.ContainsFunc(uses[:k], func(x Use) bool { return x.Budget == u.Budget }) {
				add(up()+".budget", "budget %d (%s) used twice", u.Budget, p.Budgets[u.Budget].Name)
			}
			if math.IsNaN(u.Amount) || math.IsInf(u.Amount, 0) || u.Amount < 0 {
				add(up()+".amount", "%v is not a finite non-negative number", u.Amount)
			} else if u.Amount > MaxAmount {
				add(up()+".amount", "%g is over the limit of %g", u.Amount, MaxAmount)
			}
		}
	}
	if len(p.Nodes) == 0 {
		add("nodes", "no nodes")
	}
	// Nodes of one kind may share their alternatives and groups their pairs
	// (a lowered graph does): a slice found without faults is not checked
	// again; one with faults is, for every path it is found at.
	soundAlts := map[*Alternative]int{} // first element → length checked without a fault
	soundPairs := map[*Pair]int{}
	for i, n := range p.Nodes {
		if len(n.Alternatives) == 0 {
			add(fmt.Sprintf("nodes[%d].alternatives", i), "node %q has no alternatives", n.Name)
			continue
		}
		if soundAlts[&n.Alternatives[0]] == len(n.Alternatives) {
			continue
		}
		before := len(faults)
		// A repeated id: found by a search of the alternatives before it,
		// or where they are many, by a map of the first of each id.
		var first map[string]int
		if len(n.Alternatives) > 32 {
			first = make(map[string]int, len(n.Alternatives))
		}
		for a, alt := range n.Alternatives {
			ap := func() string { return fmt.Sprintf("nodes[%d].alternatives[%d]", i, a) }
			prev, ok := -1, false
			if first != nil {
				if prev, ok = first[alt.ID]; !ok {
					first[alt.ID] = a
				}
			} else {
				prev = slices.IndexFunc(n.Alternatives[:a], func(x Alternative) bool { return x.ID == alt.ID })
				ok = prev >= 0
			}
			if alt.ID == "" {
				add(ap()+".id", "empty")
			} else if ok {
				add(ap()+".id", "%q repeats alternatives[%d]", alt.ID, prev)
			}
			if math.IsNaN(alt.Cost) || math.IsInf(alt.Cost, 0) {
				add(ap()+".cost", "%v is not finite", alt.Cost)
			} else if math.Abs(alt.Cost) > MaxCostNS {
				add(ap()+".cost", "%g is over the limit of %g ns", alt.Cost, MaxCostNS)
			}
			checkUses(ap, alt.Uses)
		}
		if len(faults) == before {
			soundAlts[&n.Alternatives[0]] = len(n.Alternatives)
		}
	}
	nodeOK := func(v int) bool { return v >= 0 && v < len(p.Nodes) }
	for g, gr := range p.Groups {
		path := func() string { return fmt.Sprintf("groups[%d]", g) }
		if !nodeOK(gr.Producer) {
			add(path()+".producer", "node %d out of range [0, %d)", gr.Producer, len(p.Nodes))
		} else if n := len(p.Nodes[gr.Producer].Alternatives); len(gr.Sources) != n {
			add(path()+".sources", "%d labels for the %d alternatives of producer %q", len(gr.Sources), n, p.Nodes[gr.Producer].Name)
		}
		if len(gr.Consumers) == 0 {
			add(path()+".consumers", "no consumers")
		}
		for c, con := range gr.Consumers {
			cp := func() string { return fmt.Sprintf("%s.consumers[%d]", path(), c) }
			if !nodeOK(con.Node) {
				add(cp()+".node", "node %d out of range [0, %d)", con.Node, len(p.Nodes))
			} else if n := len(p.Nodes[con.Node].Alternatives); len(con.Targets) != n {
				add(cp()+".targets", "%d labels for the %d alternatives of consumer %q", len(con.Targets), n, p.Nodes[con.Node].Name)
			}
		}
		if len(gr.Pairs) > 0 && soundPairs[&gr.Pairs[0]] == len(gr.Pairs) {
			continue
		}
		before := len(faults)
		// Repeats are found by a map past 32 pairs, as alternatives are
		// above: a search of the pairs before each was quadratic (a producer
		// and a consumer of 484 alternatives each, 234,256 pairs, spent
		// minutes here).
		var firstPair map[[2]string]int
		if len(gr.Pairs) > 32 {
			firstPair = make(map[[2]string]int, len(gr.Pairs))
		}
		for k, pr := range gr.Pairs {
			pp := func() string { return fmt.Sprintf("%s.pairs[%d]", path(), k) }
			prev := -1
			if firstPair != nil {
				key := [2]string{pr.Source, pr.Target}
				if i, ok := firstPair[key]; ok {
					prev = i
				} else {
					firstPair[key] = k
				}
			} else {
				prev = slices.IndexFunc(gr.Pairs[:k], func(x Pair) bool { return x.Source == pr.Source && x.Target == pr.Target })
			}
			if prev >= 0 {
				add(pp(), "pair (%q, %q) repeats pairs[%d]", pr.Source, pr.Target, prev)
			}
			if math.IsNaN(pr.Cost) || pr.Cost < 0 || math.IsInf(pr.Cost, -1) {
				add(pp()+".cost", "%v is neither a finite non-negative number nor +Inf", pr.Cost)
			} else if !math.IsInf(pr.Cost, 1) && pr.Cost > MaxCostNS {
				add(pp()+".cost", "%g is over the limit of %g ns (+Inf: cannot be converted)", pr.Cost, MaxCostNS)
			}
			checkUses(pp, pr.Uses)
		}
		if len(gr.Pairs) > 0 && len(faults) == before {
			soundPairs[&gr.Pairs[0]] = len(gr.Pairs)
		}
	}
	for b, bu := range p.Budgets {
		if math.IsNaN(bu.Capacity) || math.IsInf(bu.Capacity, 0) {
			add(fmt.Sprintf("budgets[%d].capacity", b), "%v is not finite", bu.Capacity)
		}
	}
	if faults != nil {
		return &InvalidError{faults}
	}
	return nil
}

// Pin removes every alternative of node v but the one with the given id,
// recording reason on each removed one. It reports whether the id exists.
func (p *Problem) Pin(v int, id, reason string) bool {
	if v < 0 || v >= len(p.Nodes) || !slices.ContainsFunc(p.Nodes[v].Alternatives, func(a Alternative) bool { return a.ID == id }) {
		return false
	}
	alts := p.Nodes[v].Alternatives
	for a := range alts {
		if alts[a].ID != id && alts[a].Removed == "" {
			alts[a].Removed = reason
		}
	}
	return true
}

// Forbid removes the alternative of node v with the given id, recording the
// reason. It reports whether the id exists.
func (p *Problem) Forbid(v int, id, reason string) bool {
	if v < 0 || v >= len(p.Nodes) {
		return false
	}
	alts := p.Nodes[v].Alternatives
	for a := range alts {
		if alts[a].ID == id {
			if alts[a].Removed == "" {
				alts[a].Removed = reason
			}
			return true
		}
	}
	return false
}

package planner

import (
	"math"
	"math/rand/v2"
	"slices"
)

// A large-neighbourhood search for good plans on problems whose core HiGHS
// proves slowly (dense graphs whose labels frustrate each other, where the
// LP bound is weak and the search needs good plans to prune).
//
// From a plan, it takes a window of nodes around each node in turn (a
// breadth-first ball over the groups), fixes every node outside the window
// to the plan's choice, and re-plans the window exactly: a window of a few
// dozen nodes is eliminated whole, in milliseconds. A better window replaces
// the plan's choices. A pass visits every node once; the search stops after
// a pass that improves nothing or after maxPasses. Every step is exact on
// its window, so the plan never gets worse, and the order of the windows
// comes from a fixed seed, so the result is deterministic.

// improveCore is the smallest core Solve searches a first plan for, under a
// time limit; improvePasses bounds the passes.
const (
	improveCore   = 100
	improvePasses = 2
)

// improveWindow is the number of nodes a window holds at most, and
// improveNodes the nodes of its sub-problem, the fixed ones around it
// included.
const (
	improveWindow = 10
	improveNodes  = 256
)

// improve returns a plan no worse than start (alternative indices, one per
// node), from windows around seeds, or start itself when p has budgets (a
// window cannot see what the rest of the plan leaves of them). It asks stop
// (nil: never) before each window, and returns the plan so far once stop
// says so: an interrupt, or the time limit, whose time the search shares
// with HiGHS. On gen dag --invocations 5000, 20,000 and 100,000 under
// --time-limit 1ms the search took 3.1 s, 17 s and over 27 s before.
func improve(p *Problem, start, seeds []int, maxPasses int, stop func() bool) []int {
	if len(p.Budgets) > 0 || p.ordered() {
		return start
	}
	for v, a := range start {
		if a < 0 || a >= len(p.Nodes[v].Alternatives) {
			return start // a node with nothing left: Solve reports it
		}
	}
	plan := slices.Clone(start)
	w := newWindower(p)
	r := rand.New(rand.NewPCG(1, 2))
	order := slices.Clone(seeds)
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for range maxPasses {
		improved := false
		for _, seed := range order {
			if stop != nil && stop() {
				return plan
			}
			if w.replan(seed, plan) {
				improved = true
			}
		}
		if !improved {
			break
		}
	}
	return plan
}

type windower struct {
	p     *Problem
	size  int     // the nodes a window holds at most
	touch [][]int // node → the groups it is in
	in    []int   // node → stamp when in the current window or its boundary
	stamp int
	queue []int
	// table and budget bound a window's buckets (improveTable,
	// improveBudget by default).
	table, budget int
}

// newWindower prepares windows over p; each goroutine needs its own.
func newWindower(p *Problem) *windower {
	n := len(p.Nodes)
	touch := make([][]int, n)
	for gi, g := range p.Groups {
		touch[g.Producer] = append(touch[g.Producer], gi)
		for _, c := range g.Consumers {
			if t := touch[c.Node]; len(t) == 0 || t[len(t)-1] != gi {
				touch[c.Node] = append(touch[c.Node], gi)
			}
		}
	}
	return &windower{p: p, size: improveWindow, touch: touch, in: make([]int, n), table: improveTable, budget: improveBudget}
}

// replan re-plans the window around seed exactly, with the rest of plan
// fixed, and reports whether it found a strictly cheaper window (then plan
// holds it).
func (w *windower) replan(seed int, plan []int) bool {
	before, after, ok := w.best([]int{seed}, nil, plan, true)
	return ok && cheaper(after, before)
}

// window is the sub-problem of the window around seeds (best): the
// window's nodes free, the nodes they share a group with fixed to plan,
// every group touching the window; index maps a node to its sub-problem
// node, and cur is plan there. ok is false where the window is left as it
// is (a fan-out of hundreds of consumers around it).
func (w *windower) window(seeds []int, plan []int) (sub *Problem, index map[int]int, cur []int, ok bool) {
	p := w.p
	w.stamp += 2
	inside, boundary := w.stamp, w.stamp-1
	// The window: a breadth-first ball from the seeds over shared groups.
	window := w.queue[:0]
	for _, v := range seeds {
		if w.in[v] != inside {
			w.in[v] = inside
			window = append(window, v)
		}
	}
	for i := 0; i < len(window) && len(window) < w.size; i++ {
		for _, gi := range w.touch[window[i]] {
			g := &p.Groups[gi]
			for _, v := range groupNodes(g) {
				if w.in[v] != inside && len(window) < w.size {
					w.in[v] = inside
					window = append(window, v)
				}
			}
		}
	}
	w.queue = window
	// The sub-problem: the window's nodes free (the seeds within what they
	// allow), the nodes they share a group with fixed to the plan, every
	// group touching the window.
	index = map[int]int{}
	sub = &Problem{}
	addNode := func(v int) {
		if _, ok := index[v]; ok {
			return
		}
		index[v] = len(sub.Nodes)
		nd := p.Nodes[v]
		if w.in[v] != inside {
			nd = restrictTo(nd, func(a int) bool { return a == plan[v] })
			w.in[v] = boundary
		}
		sub.Nodes = append(sub.Nodes, nd)
	}
	for _, v := range window {
		addNode(v)
	}
	var groups []int
	for _, v := range window {
		for _, gi := range w.touch[v] {
			if !slices.Contains(groups, gi) {
				groups = append(groups, gi)
			}
		}
	}
	slices.Sort(groups)
	for _, gi := range groups {
		g := p.Groups[gi]
		for _, v := range groupNodes(&g) {
			addNode(v)
		}
		if len(sub.Nodes) > improveNodes {
			// A fan-out of hundreds of consumers fixes them all around
			// the window, and eliminating them costs more than the
			// window can save: the window is left as it is.
			return nil, nil, nil, false
		}
		sg := Group{Name: g.Name, Producer: index[g.Producer], Sources: g.Sources, Pairs: g.Pairs,
			Consumers: make([]Consumer, len(g.Consumers))}
		for ci, c := range g.Consumers {
			sg.Consumers[ci] = Consumer{Node: index[c.Node], Targets: c.Targets}
		}
		sub.Groups = append(sub.Groups, sg)
	}
	cur = make([]int, len(sub.Nodes))
	for v, i := range index {
		cur[i] = plan[v]
	}
	return sub, index, cur, true
}

// best re-plans the window around seeds exactly, with the rest of plan
// fixed and each seeds[i] restricted to the alternatives allowed[i] (nil:
// every one): it returns the window's cost under plan (+Inf where plan
// needs a conversion that cannot be done) and its least cost (+Inf: no
// plan of the window), the groups touching the window counted in both, so
// that after − before is what the best plan that keeps the rest costs
// more than plan. With write, a window cheaper than before is written into
// plan. ok is false when the window does not dissolve within the limits.
func (w *windower) best(seeds []int, allowed [][]int, plan []int, write bool) (before, after float64, ok bool) {
	var out []int
	if write {
		out = plan
	}
	return w.bestInto(seeds, allowed, plan, out, true)
}

// bestInto is best, writing the window's best plan into out (nil: none)
// over plan's other choices: only where it is cheaper than plan with
// cheaperOnly, whatever it costs without (out then holds a plan of the
// window's restriction, where it has one).
func (w *windower) bestInto(seeds []int, allowed [][]int, plan, out []int, cheaperOnly bool) (before, after float64, ok bool) {
	sub, index, cur, ok := w.window(seeds, plan)
	if !ok {
		return 0, 0, false
	}
	ev, err := sub.Evaluate(cur)
	if err != nil {
		return 0, 0, false
	}
	before = math.Inf(1)
	if ev.Feasible() {
		before = ev.Cost
	}
	for i, v := range seeds {
		if allowed != nil {
			nd := &sub.Nodes[index[v]]
			*nd = restrictTo(*nd, func(a int) bool { return slices.Contains(allowed[i], a) })
		}
	}
	in := newInstance(sub, false)
	if len(in.empty) > 0 {
		return before, math.Inf(1), true
	}
	// The dry run gives up early on a window that would not dissolve.
	if !eliminatesWithin(in, w.table, w.budget) {
		return before, 0, false
	}
	red := reduce(in, w.table, true)
	after = red.offset
	// A window whose current plan needs a conversion that cannot be done
	// takes any plan the elimination finds: that repairs the start.
	if out == nil || cheaperOnly && !cheaper(after, before) || math.IsInf(after, 1) {
		return before, after, true
	}
	if &out[0] != &plan[0] {
		copy(out, plan)
	}
	asg := make([]int, len(sub.Nodes))
	red.backSubstitute(asg)
	for v, i := range index {
		if w.in[v] == w.stamp { // inside the window
			out[v] = in.domain[i][asg[i]]
		}
	}
	return before, after, true
}

// moves prices the window of one node, seed, that holds no other node
// (windower.size 1): the window's cost under plan, and under plan with
// seed moved to each of alts (+Inf where that plan needs a conversion
// that cannot be done), the groups touching seed counted in each, so that
// after[i] − before is what moving seed alone to alts[i] costs. The window
// of one node has one plan per alternative of it, so this is what best
// finds for each alternative alone, summed by the verifier rather than by
// an elimination. ok is false where best's is.
func (w *windower) moves(seed int, alts []int, plan []int) (before float64, after []float64, ok bool) {
	if w.size != 1 {
		panic("planner: moves of a window of more than one node")
	}
	sub, index, cur, ok := w.window([]int{seed}, plan)
	if !ok {
		return 0, nil, false
	}
	price := func() (float64, bool) {
		ev, err := sub.Evaluate(cur)
		if err != nil {
			return 0, false
		}
		if !ev.Feasible() {
			return math.Inf(1), true
		}
		return ev.Cost, true
	}
	if before, ok = price(); !ok {
		return 0, nil, false
	}
	after = make([]float64, len(alts))
	i := index[seed]
	for k, a := range alts {
		cur[i] = a
		if after[k], ok = price(); !ok {
			return 0, nil, false
		}
	}
	return before, after, true
}

// restrictTo is nd with every alternative that keep rejects removed (as
// "fixed").
func restrictTo(nd Node, keep func(a int) bool) Node {
	alts := slices.Clone(nd.Alternatives)
	for a := range alts {
		if !keep(a) && alts[a].Removed == "" {
			alts[a].Removed = "fixed"
		}
	}
	nd.Alternatives = alts
	return nd
}

// cheaper reports whether a window's least cost after is a plan strictly
// cheaper than its cost before (+Inf: the plan needed a conversion that
// cannot be done, which any plan repairs).
func cheaper(after, before float64) bool {
	return !math.IsInf(after, 1) && (math.IsInf(before, 1) || after < before-objectiveTolerance(before))
}

// improveTable and improveBudget bound the entries of one bucket and of all
// buckets of a window's elimination; a window that does not eliminate whole
// within them is left as it is.
const (
	improveTable  = 1 << 14
	improveBudget = 1 << 14
)

// groupNodes lists a group's producer and consumers.
func groupNodes(g *Group) []int {
	out := make([]int, 0, 1+len(g.Consumers))
	out = append(out, g.Producer)
	for _, c := range g.Consumers {
		out = append(out, c.Node)
	}
	return out
}

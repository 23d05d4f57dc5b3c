package planner

import (
	"math"
	"slices"
)

// Plans for the regrets' queries, by descent.
//
// A query's regret is exact where a lower bound on its optimum (a
// certificate's) meets a plan that answers it (regrets.known): the
// bound's side is most often there, the plan's is not. On the engine's
// dense 1,000-node DAG (randomDAG(1, 1000, 4), every regret) the
// certificates' bound was the query's optimum for 535 of the 925 queries
// that an LP re-solve answered, but the plan found before (the optimum
// with the query's node moved alone, windowBounds) for 29: its plan was
// 192 ns dearer on average, so each of those queries waited for a
// re-solve of the whole core (about 20 ms of HiGHS each, whatever its
// iterations).
//
// A descent moves from such a plan to a better one: with the query's nodes
// held to what it allows, it visits their neighbours (the nodes they share
// a group with), moves each to its cheapest alternative given the rest
// where that is cheaper, and visits a moved node's neighbours in turn,
// until no visit moves anything. A move changes only the terms of the node
// moved (its execution and its groups), so each costs a few of those, and
// the cost of the plan found is summed over the terms of the nodes moved.
// On that DAG the descent from the optimum found the query's optimum for
// 319 of the 925 queries (in a first version that priced each move by the
// verifier, a millisecond a query; by the compiled instance it takes a
// small part of that).

// A descent is one goroutine's local search over an instance's plans
// (domain positions, one per node).
type descent struct {
	in    *instance
	touch [][]int32 // node → the groups it is in, each once
	// seen is a group's targets met (stamp), for its cost.
	seen  []int
	stamp int
	// queued marks the nodes queued; pinned the query's nodes.
	queued, pinned []bool
	queue          []int
	// moved lists the nodes moved since the start of run, was their
	// positions before it, and inMoved marks them.
	moved, was []int
	inMoved    []bool
	// groups and units list the groups and the nodes whose terms a sum
	// counts, each once (gmark: the groups', then the nodes' marks).
	groups []int32
	units  []int
	gmark  []int
	gstamp int
	// Scratch of sum, delta, chainPlan.from and jointBest.
	keep, base, diffNodes, keepAt []int
}

// descentMoves bounds a descent's moves, per node of the instance (each
// move makes the plan cheaper, so the search ends; the bound only caps a
// long one).
const descentMoves = 8

func newDescent(in *instance) *descent {
	n := len(in.domain)
	d := &descent{in: in, touch: make([][]int32, n), queued: make([]bool, n), pinned: make([]bool, n),
		inMoved: make([]bool, n), gmark: make([]int, len(in.groups)+n)}
	targets := 0
	for gi := range in.groups {
		g := &in.groups[gi]
		d.addTouch(g.producer, gi)
		for _, c := range g.consumers {
			d.addTouch(c.node, gi)
		}
		targets = max(targets, len(g.targets))
	}
	d.seen = make([]int, targets)
	return d
}

func (d *descent) addTouch(v, gi int) {
	if t := d.touch[v]; len(t) == 0 || t[len(t)-1] != int32(gi) {
		d.touch[v] = append(t, int32(gi))
	}
}

// groupCost is group g's conversions under asg: one per distinct target
// its consumers need (a fan-out shares it), +Inf where one cannot be made.
func (d *descent) groupCost(g *cgroup, asg []int) float64 {
	d.stamp++
	s := g.src[asg[g.producer]]
	var sum float64
	for _, c := range g.consumers {
		if t := c.tgt[asg[c.node]]; d.seen[t] != d.stamp {
			d.seen[t] = d.stamp
			sum += g.cost[g.pair(s, t)]
		}
	}
	return sum
}

// local is what node v's terms cost under asg: its execution and its
// groups'.
func (d *descent) local(v int, asg []int) float64 {
	sum := d.in.unary[v][asg[v]]
	for _, gi := range d.touch[v] {
		sum += d.groupCost(&d.in.groups[gi], asg)
	}
	return sum
}

// cheapest moves v to its cheapest position under the rest of asg, among
// allowed (nil: every one), where that is cheaper than where it is by more
// than rounding; the lowest position wins a tie. It reports whether v
// moved.
func (d *descent) cheapest(v int, asg []int, allowed []int) bool {
	at := asg[v]
	here, bk := math.Inf(1), -1 // where v is not allowed, it must move
	if allowed == nil || slices.Contains(allowed, at) {
		here, bk = d.local(v, asg), at
	}
	best := here
	for k := range d.in.domain[v] {
		if k == at || allowed != nil && !slices.Contains(allowed, k) {
			continue
		}
		asg[v] = k
		if c := d.local(v, asg); bk < 0 || c < best && (math.IsInf(here, 1) || here-c > 1e-9*math.Abs(here)) {
			best, bk = c, k
		}
	}
	if bk < 0 {
		bk = at // nothing allowed (run checks first)
	}
	asg[v] = bk
	if bk == at {
		return false
	}
	if !d.inMoved[v] {
		d.inMoved[v] = true
		d.moved, d.was = append(d.moved, v), append(d.was, at)
	}
	return true
}

// enqueue queues v's neighbours that are neither pinned nor queued.
func (d *descent) enqueue(v int) {
	for _, gi := range d.touch[v] {
		g := &d.in.groups[gi]
		d.push(g.producer)
		for _, c := range g.consumers {
			d.push(c.node)
		}
	}
}

func (d *descent) push(u int) {
	if !d.queued[u] && !d.pinned[u] {
		d.queued[u] = true
		d.queue = append(d.queue, u)
	}
}

// run moves asg, a plan, to one that query nodes' allowed positions
// (sets[j] for nodes[j], domain positions) admit: each node of the query
// to its cheapest allowed position, in order, where it is not at one; then
// the descent from their neighbours. It returns what the plan it leaves in
// asg costs more than asg did (+Inf where it needs a conversion that
// cannot be made; from a start that needs one, the difference over the
// terms of the nodes moved alone); undo restores asg.
func (d *descent) run(asg []int, nodes []int, sets [][]int) float64 {
	d.undoMarks()
	for _, set := range sets {
		if len(set) == 0 {
			return math.Inf(1)
		}
	}
	for _, v := range nodes {
		d.pinned[v] = true
	}
	for j, v := range nodes {
		if !slices.Contains(sets[j], asg[v]) {
			d.cheapest(v, asg, sets[j])
		}
	}
	for _, v := range nodes {
		d.enqueue(v)
	}
	budget := descentMoves*len(asg) + 64
	for i := 0; i < len(d.queue) && budget > 0; i++ {
		u := d.queue[i]
		d.queued[u] = false
		if d.cheapest(u, asg, nil) {
			budget--
			d.enqueue(u)
		}
	}
	for _, u := range d.queue {
		d.queued[u] = false
	}
	d.queue = d.queue[:0]
	for _, v := range nodes {
		d.pinned[v] = false
	}
	return d.delta(asg)
}

// delta is the plan asg's cost less that of the plan before run (diff).
func (d *descent) delta(asg []int) float64 {
	if len(d.moved) == 0 {
		return 0
	}
	// The plan before: the moved nodes at their positions before.
	base := d.base[:0]
	for i := range d.moved {
		base = append(base, d.was[i])
	}
	d.base = base
	return d.sum(asg, d.moved, func(i int) int { return base[i] })
}

// diff is the plan asg's cost less that of plan base, where the two differ
// at nodes alone (listed in any order, repeats allowed), base a plan that
// can be made.
func (d *descent) diff(asg, base []int, nodes []int) float64 {
	return d.sum(asg, nodes, func(i int) int { return base[nodes[i]] })
}

// jointCombos bounds the combinations jointBest prices: a separator's
// query of the generated DAGs has at most 4 nodes of 2 classes each (16).
const jointCombos = 256

// jointBest is what the best plan that re-chooses nodes jointly, each
// nodes[j] at a position of sets[j], the rest of base kept, costs more
// than base (+Inf where none can be made): every combination priced over
// the nodes' terms (diff), the lowest kept. It is windower.best's window
// of the nodes alone (a window of queryWindow 1 node), without the
// window's problem and its elimination, each of which cost 0.15–0.2 ms
// a query (on cklplan gen dag --invocations 100 --exec-scale 100 --seed
// 1, a quarter of every regret's time). asg is scratch that holds base on
// entry and again on return; base is a plan that can be made. ok is false
// where the combinations number more than jointCombos.
func (d *descent) jointBest(asg, base []int, nodes []int, sets [][]int) (delta float64, ok bool) {
	combos := 1
	for _, set := range sets {
		if combos *= len(set); combos > jointCombos {
			return 0, false
		}
	}
	best := math.Inf(1)
	if combos == 0 {
		return best, true
	}
	at := d.keepAt[:0]
	for range nodes {
		at = append(at, 0)
	}
	d.keepAt = at
	for {
		for j, v := range nodes {
			asg[v] = sets[j][at[j]]
		}
		if c := d.diff(asg, base, nodes); c < best {
			best = c
		}
		j := len(at) - 1
		for ; j >= 0; j-- {
			if at[j]++; at[j] < len(sets[j]) {
				break
			}
			at[j] = 0
		}
		if j < 0 {
			break
		}
	}
	for _, v := range nodes {
		asg[v] = base[v]
	}
	return best, true
}

// sum is asg's cost less that of the plan with nodes[i] at old(i): over the
// terms of those nodes alone (each once), the new sums first, then, with
// the nodes put back for the moment, the old; +Inf where asg needs a
// conversion that cannot be made.
func (d *descent) sum(asg []int, nodes []int, old func(i int) int) float64 {
	d.gstamp++
	d.groups = d.groups[:0]
	d.units = d.units[:0]
	for _, v := range nodes {
		if d.gmark[len(d.in.groups)+v] == d.gstamp {
			continue
		}
		d.gmark[len(d.in.groups)+v] = d.gstamp
		d.units = append(d.units, v)
		for _, gi := range d.touch[v] {
			if d.gmark[gi] != d.gstamp {
				d.gmark[gi] = d.gstamp
				d.groups = append(d.groups, gi)
			}
		}
	}
	total := func() float64 {
		var s float64
		for _, v := range d.units {
			s += d.in.unary[v][asg[v]]
		}
		for _, gi := range d.groups {
			s += d.groupCost(&d.in.groups[gi], asg)
		}
		return s
	}
	after := total()
	if math.IsInf(after, 1) {
		return after
	}
	now := d.keep[:0]
	for i, v := range nodes {
		now = append(now, asg[v])
		asg[v] = old(i)
	}
	before := total()
	for i := len(nodes) - 1; i >= 0; i-- {
		asg[nodes[i]] = now[i]
	}
	d.keep = now
	return after - before
}

// undo puts asg back as it was before the last run.
func (d *descent) undo(asg []int) {
	for i, v := range d.moved {
		asg[v] = d.was[i]
	}
	d.undoMarks()
}

func (d *descent) undoMarks() {
	for _, v := range d.moved {
		d.inMoved[v] = false
	}
	d.moved, d.was = d.moved[:0], d.was[:0]
}

// A chainPlan is a re-solve worker's plan of the last query its chain
// answered (regrets.worker), from which the next query's descent starts:
// the queries of a chain are mostly one node's other choices, and the plan
// one of them re-planned around the node is often a step from the next
// one's. Like everything in a chain, what it answers depends on the chain
// alone, not on the workers.
type chainPlan struct {
	rg *regrets
	d  *descent
	// plan is the last answer's plan (domain positions: its core choices,
	// the optimum's elsewhere) while valid; optCost is the optimum's cost
	// as cost sums it.
	plan    []int
	valid   bool
	optCost float64
}

func (rg *regrets) newChainPlan() *chainPlan {
	d := newDescent(rg.r.in)
	return &chainPlan{rg: rg, d: d, plan: slices.Clone(rg.asg), optCost: d.cost(rg.asg)}
}

// record takes the core choices of the plan that answered a query (point,
// domain positions by node; other nodes' entries are not read). A nil c
// records nothing.
func (c *chainPlan) record(point []int) {
	if c == nil {
		return
	}
	copy(c.plan, c.rg.asg)
	for _, v := range c.rg.r.core {
		c.plan[v] = point[v]
	}
	c.valid = true
}

// answers descends from the last answer's plan to a plan of query q, and
// answers q where its cost meets q's proven lower bound (known.lo, a
// certificate's) within tol; else a cheaper plan lowers known.hi. The plan
// it leaves is the next query's start.
func (c *chainPlan) answers(q *query, tol float64) bool {
	if !c.valid {
		return false
	}
	c.descend(q)
	if q.known.lo < q.known.hi-tol {
		return false
	}
	q.lo, q.hi = q.known.hi, q.known.hi
	return true
}

// descend moves plan to a plan of query q by the descent, and lowers
// q.known.hi to its cost where that is lower.
func (c *chainPlan) descend(q *query) {
	c.d.run(c.plan, q.nodes, q.sets)
	if cost := c.d.cost(c.plan); !math.IsInf(cost, 1) {
		q.known.hi = math.Min(q.known.hi, c.rg.opt0+math.Max(0, cost-c.optCost))
	}
}

// from descends to a plan of query q from asg (a certificate's plan: the
// optimum's choices but at the nodes changed), and lowers q.known.hi to its
// cost where that is lower. Its cost is summed anew against the optimum's
// over the terms of the nodes that differ: the core model prices asg with
// the eliminated nodes' best choices, not those asg holds. The chain's plan
// is left invalid.
func (c *chainPlan) from(asg, changed []int, q *query) {
	copy(c.plan, asg)
	c.valid = false
	d := c.d
	if d.run(c.plan, q.nodes, q.sets) >= 0 {
		d.undo(c.plan)
		return
	}
	// The nodes where the plan differs from the optimum: those changed,
	// and those the descent moved.
	nodes := append(append(d.diffNodes[:0], changed...), d.moved...)
	d.diffNodes = nodes
	if diff := d.diff(c.plan, c.rg.asg, nodes); !math.IsInf(diff, 1) {
		q.known.hi = math.Min(q.known.hi, c.rg.opt0+math.Max(0, diff))
	}
	d.undo(c.plan)
}

// cost is what plan asg costs: every node's execution and every group's
// conversions, summed in that order.
func (d *descent) cost(asg []int) float64 {
	var sum float64
	for v, k := range asg {
		sum += d.in.unary[v][k]
	}
	for gi := range d.in.groups {
		sum += d.groupCost(&d.in.groups[gi], asg)
	}
	return sum
}

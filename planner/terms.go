package planner

import "math"

// A term is one additive cost function of the objective over a few nodes.
// It is either an original group, evaluated from its labels (group ≥ 0), or
// a table (group == -1). A term depends on a node only through a class of
// the node's alternatives: for a group, the labels the node carries in it;
// for a table, what the terms joined into it depended on. cls[j] maps scope
// node j's domain positions to classes 0..ncls[j]-1, numbered in order of
// first occurrence. A table is row-major over the scope's classes, the last
// scope node fastest; +Inf marks a forbidden combination. Node unary costs
// are kept per node, not as terms.
type term struct {
	scope []int   // node ids, ascending, distinct
	cls   [][]int // per scope node: domain position → class
	ncls  []int   // per scope node: number of classes
	group int     // index into instance.groups, or -1
	// table is a table term's values, or a group's tabulated over its
	// classes (nil for a group too large to tabulate).
	table []float64
	dead  bool // consumed by an elimination
	// ownTable says a table term's table is its own, which a message
	// over the same scope may be added into; else it is the message of
	// the bucket it came from, which the regrets read as it was, and is
	// copied before the first such addition (most tables never get one).
	ownTable bool
	// multi is the scope's nodes of more than one class (the scope
	// itself when every node has more): only they make a bucket over
	// the term larger (joiner.size).
	multi []int
	// reps is a table term's representatives, those of the bucket whose
	// message it is (nil for a group), for a bucket over it alone to
	// share (eliminate).
	reps [][]int
}

// groupCost is a group's cost under the assignment asg (node → domain
// position): Σ C[s][t] over the distinct targets t its consumers need.
// seen is scratch of len(g.targets), all false; it is left all false.
func (g *cgroup) groupCost(asg []int, seen []bool) float64 {
	s := g.src[asg[g.producer]]
	total := 0.0
	for _, c := range g.consumers {
		t := c.tgt[asg[c.node]]
		if seen[t] {
			continue
		}
		seen[t] = true
		total += g.cost[g.pair(s, t)]
	}
	for _, c := range g.consumers {
		seen[c.tgt[asg[c.node]]] = false
	}
	return total
}

// groupScope is the ascending set of a group's nodes, in a slice from s.
func (g *cgroup) groupScope(s *slab) []int {
	out := insertSorted(s.intSlice(1 + len(g.consumers))[:0], g.producer)
	for _, c := range g.consumers {
		out = insertSorted(out, c.node)
	}
	return out
}

// insertSorted inserts v into the ascending set out unless it is there
// already: an insertion sort with dedup, as scopes are short. out has
// room for v.
func insertSorted(out []int, v int) []int {
	i := len(out)
	for i > 0 && out[i-1] > v {
		i--
	}
	if i > 0 && out[i-1] == v {
		return out
	}
	out = append(out, 0)
	copy(out[i+1:], out[i:])
	out[i] = v
	return out
}

// odometer walks every class assignment of a scope, last node fastest,
// writing each class's representative domain position into asg.
type odometer struct {
	scope []int
	reps  [][]int // per scope node: class → representative position
	c     []int   // the current class per scope node
	asg   []int
	// changed is the first scope position that the last next changed
	// (every later one changed too, back to its first class).
	changed int
}

func newOdometer(scope []int, reps [][]int, asg []int) *odometer {
	o := &odometer{scope: scope, reps: reps, c: make([]int, len(scope)), asg: asg}
	for i, n := range scope {
		asg[n] = reps[i][0]
	}
	return o
}

// next advances to the next assignment; false after the last.
func (o *odometer) next() bool {
	for i := len(o.scope) - 1; i >= 0; i-- {
		n := o.scope[i]
		o.c[i]++
		if o.c[i] < len(o.reps[i]) {
			o.asg[n] = o.reps[i][o.c[i]]
			o.changed = i
			return true
		}
		o.c[i] = 0
		o.asg[n] = o.reps[i][0]
	}
	o.changed = 0
	return false
}

// eval is the term's value under asg.
func (in *instance) eval(t *term, asg []int, seen []bool) float64 {
	if t.table != nil {
		return t.table[t.index(asg)]
	}
	return in.groups[t.group].groupCost(asg, seen)
}

// repsInto writes the first position of each class of a class map into
// reps, which has room for one per class, and returns it.
func repsInto(cls []int, reps []int) []int {
	n := 0
	for k, c := range cls {
		if c == n {
			reps[n] = k
			n++
		}
	}
	return reps[:n]
}

// tabulate fills a group term's table over its classes, when it has at
// most limit entries, so that evaluating it is a lookup.
func (in *instance) tabulate(t *term, limit int, sc *scratch, s *slab) {
	size := 1
	if cap(sc.reps) < len(t.scope) {
		sc.reps = make([][]int, len(t.scope))
	}
	reps := sc.reps[:len(t.scope)]
	nreps := 0
	for j := range t.scope {
		if size > limit/t.ncls[j] {
			return
		}
		size *= t.ncls[j]
		nreps += t.ncls[j]
	}
	if cap(sc.repBuf) < nreps {
		sc.repBuf = make([]int, nreps)
	}
	buf := sc.repBuf[:nreps]
	for j := range t.scope {
		reps[j] = repsInto(t.cls[j], buf[:t.ncls[j]])
		buf = buf[t.ncls[j]:]
	}
	tab := s.floatSlice(size)
	o := sc.odometer(t.scope, reps)
	g := &in.groups[t.group]
	for e := range tab {
		tab[e] = g.groupCost(sc.asg, sc.seen)
		o.next()
	}
	t.table = tab
}

// index is the table entry of asg's classes.
func (t *term) index(asg []int) int {
	idx := 0
	for j, n := range t.scope {
		idx = idx*t.ncls[j] + t.cls[j][asg[n]]
	}
	return idx
}

// groupClasses are a group term's class maps: a node's class is the tuple
// of labels it carries in the group (its source, and its target at every
// consumer entry it has). The maps come from the reduction's slab.
func (r *reduction) groupClasses(g *cgroup, scope []int) (cls [][]int, ncls []int) {
	cls = r.slab.lists2(len(scope))
	ncls = r.slab.intSlice(len(scope))
	for j, u := range scope {
		cur := r.slab.intSlice(len(r.in.domain[u]))
		if cap(r.zero) < len(cur) {
			r.zero = make([]int, len(cur))
		}
		zero := r.zero[:len(cur)]
		first := true
		n := 1
		join := func(labels []int, nl int) {
			if first {
				n = r.refine(labels, nl, zero, 1, cur)
				first = false
				return
			}
			n = r.refine(cur, n, labels, nl, cur)
		}
		if g.producer == u {
			join(g.src, len(g.sources))
		}
		for _, c := range g.consumers {
			if c.node == u {
				join(c.tgt, len(g.targets))
			}
		}
		cls[j], ncls[j] = cur, n
	}
	return cls, ncls
}

// scratch is per-goroutine evaluation state: an assignment over all nodes
// and a seen buffer long enough for any group's targets.
type scratch struct {
	asg  []int
	seen []bool
	// reps and repBuf are tabulate's representatives, reused.
	reps   [][]int
	repBuf []int
	odo    odometer // the odometer of tabulate and message, reused
}

// odometer is newOdometer(scope, reps, sc.asg) in sc's own odometer, which
// the next call resets.
func (sc *scratch) odometer(scope []int, reps [][]int) *odometer {
	c := sc.odo.c
	if cap(c) < len(scope) {
		c = make([]int, len(scope))
	}
	c = c[:len(scope)]
	clear(c)
	sc.odo = odometer{scope: scope, reps: reps, c: c, asg: sc.asg}
	for i, n := range scope {
		sc.asg[n] = reps[i][0]
	}
	return &sc.odo
}

func (in *instance) newScratch() *scratch {
	maxT := 0
	for i := range in.groups {
		maxT = max(maxT, len(in.groups[i].targets))
	}
	return &scratch{asg: make([]int, len(in.p.Nodes)), seen: make([]bool, maxT)}
}

// inf is +Inf, the cost of a forbidden combination.
var inf = math.Inf(1)

package planner

import "math"

// A term is one additive cost function of the objective over a few nodes.
// It is either an original group, evaluated from its labels (group ≥ 0), or
// a table over its scope's domains (group == -1), row-major with the last
// scope node fastest. +Inf marks a forbidden combination. Node unary costs
// are kept per node, not as terms.
type term struct {
	scope []int // node ids, ascending, distinct
	group int   // index into instance.groups, or -1
	table []float64
	dead  bool // consumed by an elimination
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

// groupScope is the ascending set of a group's nodes.
func (g *cgroup) groupScope() []int {
	nodes := []int{g.producer}
	for _, c := range g.consumers {
		nodes = append(nodes, c.node)
	}
	return sortedSet(nodes)
}

func sortedSet(nodes []int) []int {
	// insertion sort with dedup: scopes are short
	out := make([]int, 0, len(nodes))
	for _, v := range nodes {
		i := len(out)
		for i > 0 && out[i-1] > v {
			i--
		}
		if i > 0 && out[i-1] == v {
			continue
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = v
	}
	return out
}

// tableSize is Π |domain(n)| over nodes, or limit+1 when it exceeds limit.
func (in *instance) tableSize(nodes []int, limit int) int {
	size := 1
	for _, n := range nodes {
		d := len(in.domain[n])
		if d != 0 && size > limit/d {
			return limit + 1
		}
		size *= d
	}
	return size
}

// odometer walks every assignment of a scope, last node fastest, writing
// the current assignment into asg (node → domain position).
type odometer struct {
	scope []int
	dims  []int
	asg   []int
}

func (in *instance) newOdometer(scope []int, asg []int) *odometer {
	o := &odometer{scope: scope, dims: make([]int, len(scope)), asg: asg}
	for i, n := range scope {
		o.dims[i] = len(in.domain[n])
		asg[n] = 0
	}
	return o
}

// next advances to the next assignment; false after the last.
func (o *odometer) next() bool {
	for i := len(o.scope) - 1; i >= 0; i-- {
		n := o.scope[i]
		o.asg[n]++
		if o.asg[n] < o.dims[i] {
			return true
		}
		o.asg[n] = 0
	}
	return false
}

// index is the row-major position of asg's values over scope in a table
// over that scope.
func (in *instance) index(scope []int, asg []int) int {
	idx := 0
	for _, n := range scope {
		idx = idx*len(in.domain[n]) + asg[n]
	}
	return idx
}

// eval is the term's value under asg.
func (in *instance) eval(t *term, asg []int, seen []bool) float64 {
	if t.group >= 0 {
		return in.groups[t.group].groupCost(asg, seen)
	}
	return t.table[in.index(t.scope, asg)]
}

// scratch is per-goroutine evaluation state: an assignment over all nodes
// and a seen buffer long enough for any group's targets.
type scratch struct {
	asg  []int
	seen []bool
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

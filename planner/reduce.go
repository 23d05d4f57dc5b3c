package planner

import (
	"container/heap"
	"math"
	"strconv"
	"strings"
)

// Exact structural reduction: bucket elimination over the term hypergraph.
//
// Eliminating node v joins every live term over v, with v's unary costs, into
// its bucket B_v over {v} ∪ S_v (S_v: v's neighbours), and replaces them by
// the message m_v(S_v) = min_{x_v} B_v(x_v, S_v), a table term over S_v. The
// optimum is unchanged, and once S_v's choices are known the best x_v is the
// bucket's argmin (back-substitution). A message over one node is added to
// that node's unary costs; over none, to the objective's offset; a message
// over a scope some live table already has is added into that table. R0, RI
// and RII of PBQP solvers are the cases |S_v| = 0, 1, 2 over pairwise terms;
// a fan-out group over several nodes is joined whole, so sharing stays exact.
//
// Nodes are eliminated cheapest bucket first (fewest entries |B_v|, then
// lowest node id), while the bucket has at most the size limit's entries and
// no budget row touches the node. The rest is the core, solved as a MILP with
// the live terms.

// DefaultMaxTable is the bucket size limit when Options.MaxTable is 0.
const DefaultMaxTable = 1 << 12

// A bucket records one elimination, for back-substitution and min-marginals.
type bucket struct {
	node   int
	terms  []int     // the terms joined (dead once joined)
	unary  []float64 // the node's unary costs when eliminated (final)
	sep    []int     // S_v, ascending
	msg    []float64 // m_v over sep, row-major
	parent int       // position in order of the bucket the message went to; -1: the core
}

// reduction is the result of the elimination passes.
type reduction struct {
	in      *instance
	terms   []term
	unary   [][]float64 // node → unary costs, with the unary messages folded in
	order   []bucket    // in elimination order
	pos     []int       // node → position in order, -1 for a core node
	core    []int       // core nodes, ascending
	offset  float64     // Σ messages over the empty scope
	maxSeen int         // the largest bucket eliminated, in entries
}

// liveTerms are the core's terms, in term order.
func (r *reduction) liveTerms() []int {
	var live []int
	for i := range r.terms {
		if !r.terms[i].dead {
			live = append(live, i)
		}
	}
	return live
}

type keyed struct {
	size, node int
}

type keyHeap []keyed

func (h keyHeap) Len() int { return len(h) }
func (h keyHeap) Less(i, j int) bool {
	if h[i].size != h[j].size {
		return h[i].size < h[j].size
	}
	return h[i].node < h[j].node
}
func (h keyHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *keyHeap) Push(x any)   { *h = append(*h, x.(keyed)) }
func (h *keyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// reduce eliminates what it can: every node no budget row touches whose
// bucket has at most limit entries, when eliminate is true; nothing when it is
// false (the NoReduce path still builds the terms).
func reduce(in *instance, limit int, eliminate bool) *reduction {
	n := len(in.p.Nodes)
	r := &reduction{in: in, unary: make([][]float64, n), pos: make([]int, n)}
	adj := make([][]int, n)
	for v := range n {
		r.unary[v] = append([]float64(nil), in.unary[v]...)
		r.pos[v] = -1
	}
	for g := range in.groups {
		scope := in.groups[g].groupScope()
		r.terms = append(r.terms, term{scope: scope, group: g})
		for _, v := range scope {
			adj[v] = append(adj[v], g)
		}
	}
	if eliminate {
		r.eliminate(adj, limit)
	}
	for v := range n {
		if r.pos[v] < 0 {
			r.core = append(r.core, v)
		}
	}
	for i := range r.order {
		b := &r.order[i]
		b.parent = -1
		for _, s := range b.sep {
			if p := r.pos[s]; p >= 0 && (b.parent < 0 || p < b.parent) {
				b.parent = p
			}
		}
	}
	return r
}

func (r *reduction) eliminate(adj [][]int, limit int) {
	in := r.in
	n := len(in.p.Nodes)
	mark := make([]int, n) // mark[u] == stamp: u already collected
	stamp := 0
	eliminated := make([]bool, n)
	current := make([]int, n) // the key last pushed for each node
	// neighbours compacts v's term list and returns S_v, ascending.
	neighbours := func(v int) []int {
		stamp++
		mark[v] = stamp
		live := adj[v][:0]
		var sep []int
		for _, t := range adj[v] {
			if r.terms[t].dead {
				continue
			}
			live = append(live, t)
			for _, u := range r.terms[t].scope {
				if mark[u] != stamp {
					mark[u] = stamp
					sep = append(sep, u)
				}
			}
		}
		adj[v] = live
		return sortedSet(sep)
	}
	key := func(v int) int {
		d := len(in.domain[v])
		size := in.tableSize(neighbours(v), limit)
		if d == 0 || size > limit/d {
			return limit + 1
		}
		return size * d
	}
	h := &keyHeap{}
	for v := range n {
		if in.touched[v] || len(in.domain[v]) == 0 {
			continue
		}
		if k := key(v); k <= limit {
			current[v] = k
			*h = append(*h, keyed{k, v})
		}
	}
	heap.Init(h)
	scopes := map[string]int{} // scope key → live table term
	sc := in.newScratch()
	for h.Len() > 0 {
		kv := heap.Pop(h).(keyed)
		v := kv.node
		if eliminated[v] || current[v] != kv.size {
			continue
		}
		sep := neighbours(v)
		terms := append([]int(nil), adj[v]...)
		for _, t := range terms {
			r.terms[t].dead = true
			if r.terms[t].group < 0 {
				delete(scopes, scopeKey(r.terms[t].scope))
			}
		}
		b := bucket{node: v, terms: terms, unary: r.unary[v], sep: sep}
		b.msg = r.message(&b, sc)
		r.maxSeen = max(r.maxSeen, len(b.msg)*len(in.domain[v]))
		eliminated[v] = true
		r.pos[v] = len(r.order)
		r.order = append(r.order, b)
		switch len(sep) {
		case 0:
			r.offset += b.msg[0]
		case 1:
			u := r.unary[sep[0]]
			for k := range u {
				u[k] += b.msg[k]
			}
		default:
			sk := scopeKey(sep)
			if t, ok := scopes[sk]; ok {
				tab := r.terms[t].table
				for k := range tab {
					tab[k] += b.msg[k]
				}
			} else {
				t := len(r.terms)
				r.terms = append(r.terms, term{scope: sep, group: -1, table: append([]float64(nil), b.msg...)})
				scopes[sk] = t
				for _, u := range sep {
					adj[u] = append(adj[u], t)
				}
			}
		}
		for _, u := range sep {
			if in.touched[u] || eliminated[u] {
				continue
			}
			k := key(u)
			current[u] = k
			if k <= limit {
				heap.Push(h, keyed{k, u})
			}
		}
	}
}

func scopeKey(scope []int) string {
	var b strings.Builder
	for _, v := range scope {
		b.WriteString(strconv.Itoa(v))
		b.WriteByte(',')
	}
	return b.String()
}

// message computes m_v(S_v) = min over v of the bucket.
func (r *reduction) message(b *bucket, sc *scratch) []float64 {
	in := r.in
	msg := make([]float64, in.tableSize(b.sep, math.MaxInt))
	o := in.newOdometer(b.sep, sc.asg)
	for i := range msg {
		best := inf
		for k := range b.unary {
			sc.asg[b.node] = k
			if c := r.bucketValue(b, sc); c < best {
				best = c
			}
		}
		msg[i] = best
		o.next()
	}
	return msg
}

// bucketValue is the bucket's value at sc.asg.
func (r *reduction) bucketValue(b *bucket, sc *scratch) float64 {
	c := b.unary[sc.asg[b.node]]
	for _, t := range b.terms {
		if math.IsInf(c, 1) {
			return c
		}
		c += r.in.eval(&r.terms[t], sc.asg, sc.seen)
	}
	return c
}

// backSubstitute completes asg (node → domain position), which holds the
// core's choices, with the eliminated nodes' choices: in reverse order of
// elimination, each node takes its bucket's argmin given its separator,
// the lowest domain position on exact ties.
func (r *reduction) backSubstitute(asg []int) {
	sc := &scratch{asg: asg, seen: r.in.newScratch().seen}
	for i := len(r.order) - 1; i >= 0; i-- {
		b := &r.order[i]
		best, arg := inf, 0
		for k := range b.unary {
			asg[b.node] = k
			if c := r.bucketValue(b, sc); c < best {
				best, arg = c, k
			}
		}
		asg[b.node] = arg
	}
}

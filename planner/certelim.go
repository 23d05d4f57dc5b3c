package planner

import (
	"math"
	"slices"
)

// Certificates by elimination: a region's bound over integral choices.
//
// Every plan of a query has integral x, so the inner minimum of L_R(y)
// (certify.go) stays a lower bound on the query's optimum when it is taken
// over integral choices only; and as those are points of the small LP, it
// is at least the small LP's. With the choices of the region's nodes and of
// its terms' other nodes (the boundary) integral, one per node (a plan
// makes one; their choice rows, priced by y, then add nothing), each kept
// term's columns are fixed by the choices of its scope: a table's on the
// entry of its classes, an edge's on its pair, a shared conversion's at
// the largest edge it covers (the least of its box, its cost being ≥ 0).
// So the minimum is a discrete one over the region and its boundary, each
// node's unary the reduced cost of its x in the small LP, each kept term
// its own cost function:
//
//	min over choices of Σ_v d_R(x[v, a_v]) + Σ_{kept terms τ} τ(a_scope(τ))
//
// and bucket elimination computes it exactly, with its argmin: on the
// dense 1,000-invocation DAG, 0.3 ms a region on average, where a small LP
// took 1–15 ms. The argmin, the optimum elsewhere, is the upper bound's
// plan. Where it does not meet the bound, the boundary nodes it moved join
// the region for the next round (certify.go, round).
//
// Where a kept row or column touches a budget (a budget is a row of its
// own, which the elimination does not keep), a shared conversion costs
// less than nothing, or a bucket would exceed certifyTable entries, the
// region goes to the small LP instead.
//
// The query's own nodes are eliminated last (prepare, then finish): until
// then no step reads their unaries, the only place where the query's
// restriction enters, so the queries of one node set at one region (a
// node's every other choice, at its first region) share every step but
// the last ones, and each gets the numbers it would get in that order
// alone, bit for bit. On the dense DAG above, the 10,283 queries of the
// first round stand at 969 regions. A query alone at its region (most of
// them after their second round) is eliminated in the usual order, the
// smallest bucket first over all its variables; where the order with its
// nodes last exceeds the limits below, so is each query of the group.

// certifyTable bounds the entries of a region's bucket (its separator's
// class combinations times the eliminated node's choices) and of a term
// tabulated for it; certifyWork bounds the entries a region's buckets
// evaluate in all, each times the factors joined. On the dense
// 1,000-invocation DAG of `cklplan gen dag --exec-scale 100`, 2^12 and
// 2^18 left 250 regions to small LPs and 54 queries to re-solves, 2^14 and
// 2^20 183 and 41, at a millisecond or less a region; 2^16 and 2^20 leave
// 19 of the 10,253 certificates to small LPs (114 of 10,244 at 2^14) and
// 30 queries to re-solves (39), every regret a sixth sooner. A larger
// certifyWork (2^22) costs the engine's dense DAG of random integer costs
// more than it gains (docs/benchmarks.md).
const (
	certifyTable = 1 << 16
	certifyWork  = 1 << 20
)

// An elimFactor is a table over some of an eliminator's variables'
// classes, row-major, the last variable fastest.
type elimFactor struct {
	vars   []int   // local variables
	cls    [][]int // per variable: domain position → class
	ncls   []int   // per variable: its classes
	stride []int   // per variable: its class's step in tab
	tab    []float64
}

// An elimStep is one variable's elimination: the factors it joined.
type elimStep struct {
	v       int
	factors []int
}

// An eliminator is one worker's scratch for regions' eliminations. Its
// variables are the region's nodes and their boundary, numbered locally.
type eliminator struct {
	nodes   []int // local variable → node (-1: an auxiliary variable)
	local   []int // node → local variable, where mark is stamp
	mark    []int
	stamp   int
	unary   [][]float64
	factors []elimFactor
	adj     [][]int // local variable → its factors, consumed ones too
	used    []bool  // per factor: joined into a bucket
	gone    []bool  // per local variable: eliminated
	key     []int   // per local variable: its bucket's estimated entries (dry runs)
	steps   []elimStep
	asg     []int // local variable → domain position
	// Scratch of separator: its variables, marked, and their class
	// counts' products.
	sep     []int
	sepMark []int
	sepStep int
	prod    []int
	at      []int // per local variable: its position in the separator being eliminated
	pairBuf []int
	ints    []int
	floats  []float64
	// table and maxWork are certifyTable and certifyWork (a test lowers
	// them).
	table, maxWork int
	// last marks the local variables prepare leaves to finish; work is the
	// entries evaluated so far (certifyWork); ck is the state prepare
	// leaves, which finish restores.
	last []bool
	work int
	// dry makes a step compute its message's classes, not its table
	// (prepare), and choose its variable, kept in order; a step not dry
	// takes the variable of order at its step, less base.
	dry   bool
	order []int
	base  int
	ck    struct {
		factors, steps, ints, floats, work int
		used, gone                         []bool
		adj                                []int // each variable's list's length
	}
}

func newEliminator(n int) *eliminator {
	return &eliminator{local: make([]int, n), mark: make([]int, n), table: certifyTable, maxWork: certifyWork}
}

// reset starts a new region.
func (e *eliminator) reset() {
	e.stamp++
	e.nodes, e.unary, e.factors, e.steps = e.nodes[:0], e.unary[:0], e.factors[:0], e.steps[:0]
	e.ints, e.floats = e.ints[:0], e.floats[:0]
}

// variable is node v's local variable, added with room for domain size
// d (its unary to be filled) when it is new; added reports that.
func (e *eliminator) variable(v, d int) (i int, added bool) {
	if e.mark[v] == e.stamp {
		return e.local[v], false
	}
	e.mark[v], e.local[v] = e.stamp, len(e.nodes)
	e.nodes = append(e.nodes, v)
	e.unary = append(e.unary, e.floatSlice(d))
	return len(e.nodes) - 1, true
}

// aux adds a binary local variable that is no node, its unary 0.
func (e *eliminator) aux() int {
	e.nodes = append(e.nodes, -1)
	e.unary = append(e.unary, e.floatSlice(2))
	return len(e.nodes) - 1
}

func (e *eliminator) intSlice(n int) []int {
	start := len(e.ints)
	e.ints = append(e.ints, make([]int, n)...)
	return e.ints[start:len(e.ints):len(e.ints)]
}

func (e *eliminator) floatSlice(n int) []float64 {
	start := len(e.floats)
	e.floats = append(e.floats, make([]float64, n)...)
	return e.floats[start:len(e.floats):len(e.floats)]
}

// addFactor adds a table over the local variables vars, whose class maps
// and counts are cls and ncls.
func (e *eliminator) addFactor(vars []int, cls [][]int, ncls []int, tab []float64) {
	stride := e.intSlice(len(vars))
	s := 1
	for j := len(vars) - 1; j >= 0; j-- {
		stride[j] = s
		s *= ncls[j]
	}
	e.factors = append(e.factors, elimFactor{vars: vars, cls: cls, ncls: ncls, stride: stride, tab: tab})
}

// index is factor f's entry at e.asg.
func (e *eliminator) index(f *elimFactor) int {
	idx := 0
	for j, u := range f.vars {
		idx += f.cls[j][e.asg[u]] * f.stride[j]
	}
	return idx
}

// prepare eliminates every variable but the local variables last, the
// smallest bucket first (the lowest variable on ties), and keeps the state
// it leaves for finish, which eliminates those. The order depends on the
// factors' variables and classes alone, never on the unaries, and no step
// reads a variable's unary but its own: so the unaries of the last
// variables can change between prepare and finish, and finish can be
// called again after others. It reports false where a bucket would exceed
// certifyTable entries or all of them certifyWork, in prepare's steps or
// in finish's.
//
// As the order, whether the limits hold depends on the structure alone:
// every step is first taken dry (its message's classes, not its table),
// and a region the limits refuse costs no table. Found late, such a
// refusal wasted the tables before it: on cklplan gen dag --invocations
// 100 --exec-scale 100 --seed 3, 592 refused eliminations took 2.2 s of
// CPU, most of them at certifyWork (docs/benchmarks.md).
func (e *eliminator) prepare(last []int) bool {
	nf, ni, nfl, ns := len(e.factors), len(e.ints), len(e.floats), len(e.steps)
	e.dry, e.order, e.base = true, e.order[:0], ns
	e.start(last)
	ok := e.take(len(e.nodes)-len(last), false) && e.take(len(last), true)
	e.dry = false
	e.factors, e.ints, e.floats, e.steps = e.factors[:nf], e.ints[:ni], e.floats[:nfl], e.steps[:ns]
	if !ok {
		return false
	}
	e.start(last)
	if !e.take(len(e.nodes)-len(last), false) {
		return false // the dry run said otherwise: never
	}
	// The state finish starts from.
	ck := &e.ck
	ck.factors, ck.steps, ck.ints, ck.floats, ck.work = len(e.factors), len(e.steps), len(e.ints), len(e.floats), e.work
	ck.used = append(ck.used[:0], e.used...)
	ck.gone = append(ck.gone[:0], e.gone...)
	ck.adj = ck.adj[:0]
	for _, a := range e.adj {
		ck.adj = append(ck.adj, len(a))
	}
	return true
}

// start sets up the elimination of every variable, the local variables
// last to be eliminated last.
func (e *eliminator) start(last []int) {
	n := len(e.nodes)
	e.adj = growLists(e.adj, n)
	for f := range e.factors {
		for _, u := range e.factors[f].vars {
			e.adj[u] = append(e.adj[u], f)
		}
	}
	e.used = growBools(e.used, len(e.factors))
	e.gone = growBools(e.gone, n)
	e.last = growBools(e.last, n)
	e.key = growInts(e.key, n)
	e.asg = growInts(e.asg, n)
	e.sepMark = growInts(e.sepMark, n)
	e.prod = growInts(e.prod, n)
	e.at = growInts(e.at, n)
	for _, u := range last {
		e.last[u] = true
	}
	if e.dry {
		for v := range n {
			e.key[v] = e.separator(v)
		}
	}
	e.work = 0
}

// take takes k steps among the variables that are last (or not); it
// reports false where one is refused.
func (e *eliminator) take(k int, last bool) bool {
	for range k {
		if !e.step(last) {
			return false
		}
	}
	return true
}

// finish eliminates the last variables of prepare from the state it left,
// the smallest bucket first, and returns the minimum with its argmin in
// e.asg (ok as prepare's).
func (e *eliminator) finish() (min float64, ok bool) {
	ck := &e.ck
	e.factors, e.steps, e.ints, e.floats, e.work = e.factors[:ck.factors], e.steps[:ck.steps], e.ints[:ck.ints], e.floats[:ck.floats], ck.work
	e.used = append(e.used[:0], ck.used...)
	copy(e.gone, ck.gone)
	last := 0
	for u, l := range ck.adj {
		e.adj[u] = e.adj[u][:l]
		if !e.gone[u] {
			last++
		}
	}
	if !e.take(last, true) {
		return 0, false // prepare's dry run said otherwise: never
	}
	min = 0
	for f := range e.factors {
		if !e.used[f] && len(e.factors[f].vars) == 0 {
			min += e.factors[f].tab[0]
		}
	}
	if math.IsInf(min, 1) {
		return min, true
	}
	// Back-substitution: each variable, in reverse order, takes its
	// bucket's argmin given the later ones (the lowest position on ties).
	for s := len(e.steps) - 1; s >= 0; s-- {
		st := &e.steps[s]
		best, arg := inf, 0
		for k := range e.unary[st.v] {
			e.asg[st.v] = k
			val := e.unary[st.v][k]
			for _, f := range st.factors {
				val += e.factors[f].tab[e.index(&e.factors[f])]
			}
			if val < best {
				best, arg = val, k
			}
		}
		e.asg[st.v] = arg
	}
	return min, true
}

// step eliminates the variable of the smallest bucket (the lowest on ties)
// among those not eliminated that are last (or not), in a dry run; then,
// the variable the dry run took at this step. It reports false where the
// bucket would exceed certifyTable entries or all of them certifyWork.
func (e *eliminator) step(last bool) bool {
	var v int
	if e.dry {
		v = -1
		for u := range e.nodes {
			if !e.gone[u] && e.last[u] == last && (v < 0 || e.key[u] < e.key[v]) {
				v = u
			}
		}
		e.order = append(e.order, v)
	} else {
		v = e.order[len(e.steps)-e.base]
	}
	bucket := e.separator(v)
	if bucket > e.table {
		return false
	}
	sep := e.intSlice(len(e.sep))
	copy(sep, e.sep)
	factors := make([]int, 0, len(e.adj[v]))
	for _, f := range e.adj[v] {
		if !e.used[f] {
			factors = append(factors, f)
		}
	}
	if e.work += bucket * len(factors); e.work > e.maxWork {
		return false
	}
	e.eliminate(v, sep, factors)
	e.gone[v] = true
	if e.dry {
		for _, u := range sep {
			e.key[u] = e.separator(u)
		}
	}
	return true
}

// separator lists variable v's neighbours not eliminated in e.sep, in
// order of first occurrence, each one's product of the class counts its
// factors see it in in e.prod (at most its domain's size), and returns the
// entries of v's bucket over them, at most e.table+1.
func (e *eliminator) separator(v int) int {
	e.sepStep++
	e.sepMark[v] = e.sepStep
	e.sep = e.sep[:0]
	for _, f := range e.adj[v] {
		if e.used[f] {
			continue
		}
		fc := &e.factors[f]
		for j, u := range fc.vars {
			if u == v {
				continue
			}
			if e.sepMark[u] != e.sepStep {
				e.sepMark[u] = e.sepStep
				e.prod[u] = 1
				e.sep = append(e.sep, u)
			}
			e.prod[u] = min(e.prod[u]*fc.ncls[j], len(e.unary[u]))
		}
	}
	entries := len(e.unary[v])
	for _, u := range e.sep {
		if entries > e.table/e.prod[u] {
			return e.table + 1
		}
		entries *= e.prod[u]
	}
	return entries
}

// eliminate joins v's factors into its bucket and adds the message, the
// bucket's minimum over v for each class combination of sep, as a factor.
//
// The combinations are enumerated as an odometer, the last separator
// variable fastest, and the sums over v's choices are kept by level: level
// L holds v's unary plus every factor whose separator variables are all
// before position L. A step of the odometer that moves position p redoes
// the levels from p on, so a factor is added once per combination of the
// variables up to its own last one, not once per entry (a pairwise factor
// with the first separator variable, once per class of it).
func (e *eliminator) eliminate(v int, sep, factors []int) {
	cls := make([][]int, len(sep))
	ncls := e.intSlice(len(sep))
	reps := make([][]int, len(sep))
	for i, u := range sep {
		cls[i], ncls[i] = e.joinClasses(u, factors)
		reps[i] = repsInto(cls[i], e.intSlice(ncls[i]))
		e.at[u] = i
	}
	if e.dry {
		e.joined(v, sep, cls, ncls, factors, nil)
		return
	}
	size := 1
	for _, n := range ncls {
		size *= n
	}
	msg := e.floatSlice(size)
	c := e.intSlice(len(sep)) // the current class of each separator variable
	for i, u := range sep {
		e.asg[u] = reps[i][0]
	}
	// Each factor's level (1 + the last position of its separator
	// variables; 0 for a factor over v alone) and the offsets of v's
	// choices in its table.
	nv := len(e.unary[v])
	levels := len(sep) + 1
	byLevel := e.intSlice(levels + 1) // counts, then starts
	level := e.intSlice(len(factors))
	off := e.intSlice(len(factors) * nv)
	for fi, f := range factors {
		fc := &e.factors[f]
		for j, u := range fc.vars {
			if u == v {
				for k := range nv {
					off[fi*nv+k] = fc.cls[j][k] * fc.stride[j]
				}
			} else {
				level[fi] = max(level[fi], e.at[u]+1)
			}
		}
		byLevel[level[fi]+1]++
	}
	for l := range levels {
		byLevel[l+1] += byLevel[l]
	}
	order := e.intSlice(len(factors))
	fill := e.intSlice(levels)
	copy(fill, byLevel[:levels])
	for fi := range factors {
		order[fill[level[fi]]] = fi
		fill[level[fi]]++
	}
	// acc[L] is v's sums through level L; acc[levels-1] the bucket's row.
	acc := e.floatSlice(levels * nv)
	copy(acc[:nv], e.unary[v])
	p := 0 // the levels from p on are stale
	for idx := range msg {
		for l := p; l < levels; l++ {
			dst := acc[l*nv : (l+1)*nv]
			if l > 0 {
				copy(dst, acc[(l-1)*nv:l*nv])
			}
			for _, fi := range order[byLevel[l]:byLevel[l+1]] {
				fc := &e.factors[factors[fi]]
				b := 0
				for j, u := range fc.vars {
					if u != v {
						b += fc.cls[j][e.asg[u]] * fc.stride[j]
					}
				}
				tab := fc.tab[b:]
				for k, o := range off[fi*nv : (fi+1)*nv] {
					dst[k] += tab[o]
				}
			}
		}
		best := inf
		for _, val := range acc[(levels-1)*nv:] {
			if val < best {
				best = val
			}
		}
		msg[idx] = best
		p = 0
		for i := len(sep) - 1; i >= 0; i-- {
			if c[i]++; c[i] < ncls[i] {
				e.asg[sep[i]] = reps[i][c[i]]
				p = i + 1
				break
			}
			c[i] = 0
			e.asg[sep[i]] = reps[i][0]
		}
	}
	e.joined(v, sep, cls, ncls, factors, msg)
}

// joined records v's elimination: its factors used, its message msg over
// sep (nil in a dry run) a factor.
func (e *eliminator) joined(v int, sep []int, cls [][]int, ncls, factors []int, msg []float64) {
	for _, f := range factors {
		e.used[f] = true
	}
	e.steps = append(e.steps, elimStep{v: v, factors: factors})
	e.addFactor(sep, cls, ncls, msg)
	e.used = append(e.used, false)
	for _, u := range sep {
		e.adj[u] = append(e.adj[u], len(e.factors)-1)
	}
}

// joinClasses refines the class maps u's factors see it in into one,
// numbered by first occurrence, and returns it with its class count.
func (e *eliminator) joinClasses(u int, factors []int) ([]int, int) {
	cur := e.intSlice(len(e.unary[u])) // all in class 0
	n := 1
	for _, f := range factors {
		fc := &e.factors[f]
		for j, w := range fc.vars {
			if w != u {
				continue
			}
			nc := fc.ncls[j]
			if len(e.pairBuf) < n*nc {
				e.pairBuf = make([]int, n*nc)
			}
			buf := e.pairBuf[:n*nc]
			for i := range buf {
				buf[i] = -1
			}
			m := 0
			for k := range cur {
				key := cur[k]*nc + fc.cls[j][k]
				if buf[key] < 0 {
					buf[key] = m
					m++
				}
				cur[k] = buf[key]
			}
			n = m
		}
	}
	return cur, n
}

// auxClasses is the class map of an auxiliary variable: each value its own.
var auxClasses = []int{0, 1}

// addShared adds fan-out group g's cost, Σ over the distinct targets t
// its consumers need of C[s][t] (s the producer's source), as pairwise
// factors through one auxiliary variable u_t per target: C[s][t]·u_t
// with the producer, and u_t ≥ [the consumer's target is t] with each
// consumer (+Inf where it is not). With C ≥ 0 the least u_t is the
// largest edge's, as the shared conversion's column z[s,t] is in the
// small LP; the group's table would be the product of every consumer's
// target count, 4^7 and more on a dense DAG's fan-outs.
func (e *eliminator) addShared(g *cgroup, domain [][]int) {
	p, _ := e.variable(g.producer, len(domain[g.producer]))
	for t := range g.targets {
		needed := false
		for _, c := range g.consumers {
			needed = needed || slices.Contains(c.tgt, t)
		}
		if !needed {
			continue
		}
		u := e.aux()
		tab := e.floatSlice(2 * len(g.sources))
		for s := range g.sources {
			tab[2*s+1] = g.cost[g.pair(s, t)]
		}
		vars := e.intSlice(2)
		vars[0], vars[1] = p, u
		e.addFactor(vars, [][]int{g.src, auxClasses}, []int{len(g.sources), 2}, tab)
		for _, c := range g.consumers {
			tab := e.floatSlice(2 * len(g.targets))
			tab[2*t] = inf
			vars := e.intSlice(2)
			vars[0], _ = e.variable(c.node, len(domain[c.node]))
			vars[1] = u
			e.addFactor(vars, [][]int{c.tgt, auxClasses}, []int{len(g.targets), 2}, tab)
		}
	}
}

func growLists(s [][]int, n int) [][]int {
	if cap(s) < n {
		s = make([][]int, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = s[i][:0]
	}
	return s
}

func growBools(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	s = s[:n]
	clear(s)
	return s
}

package planner

import (
	"slices"
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
// no budget row touches the node. After an elimination whose separator is
// wider than eagerKeys, its nodes' keys are recomputed only when their
// entries come up (eliminate): one whose bucket shrank then waits for its
// old key, so the order there is cheapest first only nearly; it is as
// deterministic and as exact. The rest is the core, solved as a MILP with
// the live terms.

// DefaultMaxTable is the bucket size limit when Options.MaxTable is 0.
const DefaultMaxTable = 1 << 12

// eagerKeys is the largest separator after whose elimination the
// neighbours' keys are recomputed at once; past it they are recomputed
// when they come up in the heap (eliminate).
const eagerKeys = 32

// A bucket records one elimination, for back-substitution and min-marginals.
// The bucket depends on a separator node u only through the join of the
// classes its terms see u in (cls, numbered by first occurrence), so the
// message is a table over those classes: a fan-out that sees a consumer
// through 4 target labels costs 4 entries for it, not one per alternative.
type bucket struct {
	node   int
	terms  []int     // the terms joined (dead once joined)
	unary  []float64 // the node's unary costs when eliminated (final)
	sep    []int     // S_v, ascending
	cls    [][]int   // per sep node: domain position → joined class
	reps   [][]int   // per sep node: class → representative position
	msg    []float64 // m_v over sep's classes, row-major
	arg    []int32   // the argmin of each entry of msg: v's domain position
	parent int       // position in order of the bucket the message went to; -1: the core
}

// reduction is the result of the elimination passes.
type reduction struct {
	in    *instance
	terms []term
	unary [][]float64 // node → unary costs, with the unary messages folded in
	// ownUnary[v]: unary[v] is the reduction's own copy, which messages
	// may be folded into.
	ownUnary []bool
	order    []bucket // in elimination order
	pos      []int    // node → position in order, -1 for a core node
	core     []int    // core nodes, ascending
	offset   float64  // Σ messages over the empty scope
	maxSeen  int      // the largest bucket eliminated, in entries
	entries  int      // the buckets eliminated, in entries together

	dry *dryRun // non-nil: size the buckets only (eliminatesWithin)
	// stop, when non-nil, is asked before each elimination whether to
	// stop (an interrupt or the time limit): then stopped is set and the
	// nodes left are the core.
	stop    func() bool
	stopped bool

	pairBuf, countBuf, clsBuf []int // scratch of refine, classCount and nodeClasses
	zero                      []int // all zero, scratch of groupClasses
	kernel                    kernel
	row                       []float64
	slab                      slab
}

// A slab hands out the many short slices that a reduction keeps (class
// maps, representatives, separators, messages) from a few large chunks, so
// that eliminating ten thousand nodes costs tens of allocations, not
// hundreds of thousands. Each slice is capped at its length: appending to
// one copies it rather than overwriting its neighbour.
type slab struct {
	ints   []int
	floats []float64
	lists  [][]int
	// args hold the messages' argmins, domain positions: at half an
	// int's size, as a message's entries are the reduction's most.
	args []int32
}

// slabChunk is the least number of elements a new chunk holds once the
// slab has grown: its first chunks are smaller, from slabFirst, doubling,
// so that a small problem (a window of a few nodes, improve.go, eliminated
// thousands of times for the regrets) does not take 300 KB each time.
const (
	slabChunk = 1 << 14
	slabFirst = 1 << 8
)

// chunk is the size of the next chunk after one of capacity last, for n.
func chunk(n, last, most int) int {
	return max(n, min(most, max(slabFirst, 2*last)))
}

// carve takes n elements from the chunk *c, starting a new chunk (at most
// most elements unless n is more) when it has not room.
func carve[T any](c *[]T, n, most int) []T {
	if cap(*c)-len(*c) < n {
		*c = make([]T, 0, chunk(n, cap(*c), most))
	}
	i := len(*c)
	*c = (*c)[:i+n]
	return (*c)[i : i+n : i+n]
}

func (s *slab) intSlice(n int) []int       { return carve(&s.ints, n, slabChunk) }
func (s *slab) argSlice(n int) []int32     { return carve(&s.args, n, slabChunk) }
func (s *slab) floatSlice(n int) []float64 { return carve(&s.floats, n, slabChunk) }
func (s *slab) lists2(n int) [][]int       { return carve(&s.lists, n, slabChunk/8) }

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

func (a keyed) less(b keyed) bool {
	if a.size != b.size {
		return a.size < b.size
	}
	return a.node < b.node
}

// push and pop keep a binary min-heap by (size, node).
func (h *keyHeap) push(x keyed) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *keyHeap) pop() keyed {
	s := *h
	top := s[0]
	s[0] = s[len(s)-1]
	s = s[:len(s)-1]
	s.down(0)
	*h = s
	return top
}

// init orders an unordered heap in linear time. The pops that follow are
// the same as after pushing its entries one by one: they come out in
// (size, node) order whatever the heap's shape.
func (h keyHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// down sifts entry i down to its place.
func (h keyHeap) down(i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && h[l].less(h[m]) {
			m = l
		}
		if l+1 < len(h) && h[l+1].less(h[m]) {
			m = l + 1
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// reduce eliminates what it can: every node no budget row touches whose
// bucket has at most limit entries, when eliminate is true; nothing when it is
// false (the NoReduce path still builds the terms).
func reduce(in *instance, limit int, eliminate bool) *reduction {
	return reduceWith(in, limit, eliminate, nil)
}

// A dryRun makes reduce plan the elimination without computing any table:
// it sizes every bucket and stops once their entries exceed budget. It
// tells whether the whole problem would eliminate within a table limit and
// at what cost, before any of that cost is paid.
type dryRun struct {
	budget  int  // the most bucket entries, summed, it may plan
	total   int  // the bucket entries planned, summed
	stopped bool // the budget stopped it
}

// eliminatesWithin reports whether every node of in eliminates with tables
// of at most limit entries and at most budget entries in all buckets
// together. No budget row may touch a node for that (such nodes stay in the
// core), so it is false at once when one does.
func eliminatesWithin(in *instance, limit, budget int) bool {
	for _, t := range in.touched {
		if t {
			return false
		}
	}
	dry := &dryRun{budget: budget}
	r := reduceWith(in, limit, true, dry)
	return !dry.stopped && len(r.core) == 0
}

func reduceWith(in *instance, limit int, eliminate bool, dry *dryRun) *reduction {
	return reduceStopping(in, limit, eliminate, dry, nil)
}

// reduceStopping is reduceWith that stops eliminating, leaving the rest
// in the core, once stop (non-nil) says so.
func reduceStopping(in *instance, limit int, eliminate bool, dry *dryRun, stop func() bool) *reduction {
	n := len(in.p.Nodes)
	r := &reduction{in: in, unary: make([][]float64, n), pos: make([]int, n), order: make([]bucket, 0, n), dry: dry, stop: stop}
	adj := make([][]int, n)
	// Every elimination adds at most one table term.
	r.terms = make([]term, 0, len(in.groups)+n)
	// A node's unary costs are the instance's (shared by nodes alike)
	// until a message folds into them: then they are copied (ownUnary).
	r.ownUnary = make([]bool, n)
	for v := range n {
		r.unary[v] = in.unary[v]
		r.pos[v] = -1
	}
	sc := in.newScratch()
	for g := range in.groups {
		scope := in.groups[g].groupScope(&r.slab)
		if f := in.compiledAs[g]; f != g && sameRoles(&in.groups[f], r.terms[f].scope, &in.groups[g], scope) {
			// The group it was compiled as has the same class maps and
			// the same table (a group's table is never written after
			// tabulation): a transformer's ten thousand groups are a
			// few dozen shapes.
			ft := &r.terms[f]
			r.terms = append(r.terms, term{scope: scope, cls: ft.cls, ncls: ft.ncls, group: g, table: ft.table, multi: r.multiOf(scope, ft.ncls)})
			continue
		}
		cls, ncls := r.groupClasses(&in.groups[g], scope)
		r.terms = append(r.terms, term{scope: scope, cls: cls, ncls: ncls, group: g, multi: r.multiOf(scope, ncls)})
		if dry == nil {
			in.tabulate(&r.terms[g], limit, sc, &r.slab)
		}
	}
	// Each node's term list is sized once, with room for the two tables
	// its neighbours' eliminations most often add.
	deg := r.slab.intSlice(n)
	for g := range r.terms {
		for _, v := range r.terms[g].scope {
			deg[v]++
		}
	}
	for v := range n {
		adj[v] = r.slab.intSlice(deg[v] + 2)[:0]
	}
	for g := range r.terms {
		for _, v := range r.terms[g].scope {
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

// sameRoles reports whether groups f and g (of one compilation) have
// their producer and each consumer at the same positions of their scopes:
// then their class maps and tables are the same.
func sameRoles(f *cgroup, fscope []int, g *cgroup, gscope []int) bool {
	if len(fscope) != len(gscope) || len(f.consumers) != len(g.consumers) || slices.Index(fscope, f.producer) != slices.Index(gscope, g.producer) {
		return false
	}
	for ci := range f.consumers {
		if slices.Index(fscope, f.consumers[ci].node) != slices.Index(gscope, g.consumers[ci].node) {
			return false
		}
	}
	return true
}

func (r *reduction) eliminate(adj [][]int, limit int) {
	in := r.in
	n := len(in.p.Nodes)
	eliminated := make([]bool, n)
	// current is each node's key when it was last computed; an entry of
	// the heap whose key is not current is stale. A key of at most limit
	// that is current is in the heap: a node's current entry leaves it
	// only when the node is eliminated.
	current := make([]int, n)
	j := newJoiner(n)
	key := func(v int) int {
		adj[v] = r.live(adj[v])
		d := len(in.domain[v])
		size := j.size(r, v, adj[v], limit/max(d, 1))
		if d == 0 || size > limit/d {
			return limit + 1
		}
		return size * d
	}
	h := make(keyHeap, 0, n)
	for v := range n {
		current[v] = limit + 1
		if in.touched[v] || len(in.domain[v]) == 0 {
			continue
		}
		if k := key(v); k <= limit {
			current[v] = k
			h = append(h, keyed{k, v})
		}
	}
	h.init()
	tables := newTableIndex() // live table terms by scope and classes
	sc := in.newScratch()
	// dirty[v]: v's key may have changed since current[v], which is in the
	// heap (see below).
	dirty := make([]bool, n)
	for len(h) > 0 {
		if r.stop != nil && r.stop() {
			r.stopped = true
			return
		}
		kv := h.pop()
		v := kv.node
		if eliminated[v] || current[v] != kv.size {
			continue
		}
		if dirty[v] {
			dirty[v] = false
			if k := key(v); k != current[v] {
				current[v] = k
				if k <= limit {
					h.push(keyed{k, v})
				}
				continue
			}
		}
		terms := r.live(adj[v])
		// The bucket is built in place in r.order (its capacity is n), so
		// that it costs no allocation of its own.
		r.order = append(r.order, bucket{node: v, terms: terms, unary: r.unary[v]})
		b := &r.order[len(r.order)-1]
		// A bucket of one table term whose first node is v is over the
		// rest of its scope, in its classes: the bucket shares them,
		// as the term that its message becomes does in turn. A fan-out
		// of N consumers of one alternative, once its producer is gone,
		// is such a term, and its consumers go one by one: joining each
		// anew wrote scopes of N, N−1, … nodes, N² in all.
		var shared []int // the new term's ncls, when shared
		if len(terms) == 1 && r.terms[terms[0]].reps != nil && r.terms[terms[0]].scope[0] == v {
			tm := &r.terms[terms[0]]
			b.sep, b.cls, b.reps, shared = tm.scope[1:], tm.cls[1:], tm.reps[1:], tm.ncls[1:]
		} else {
			b.sep, b.cls, b.reps = j.join(r, v, terms)
		}
		for _, t := range terms {
			r.terms[t].dead = true
			if r.terms[t].group < 0 {
				tables.remove(t, &r.terms[t])
			}
		}
		entries := len(in.domain[v])
		for _, rp := range b.reps {
			entries *= len(rp)
		}
		if r.dry != nil {
			if r.dry.total += entries; r.dry.total > r.dry.budget {
				r.dry.stopped = true
				r.order = r.order[:len(r.order)-1]
				return
			}
		} else {
			b.msg = r.message(b, sc)
		}
		r.maxSeen = max(r.maxSeen, entries)
		r.entries += entries
		eliminated[v] = true
		r.pos[v] = len(r.order) - 1
		switch {
		case r.dry != nil && len(b.sep) < 2:
			// Nothing to size: the message folds into a unary or the offset.
		case r.dry != nil:
			if _, ok := tables.find(r, b.sep, b.cls); !ok {
				t := len(r.terms)
				ncls := r.nclsOf(b.reps, shared)
				r.terms = append(r.terms, term{scope: b.sep, cls: b.cls, ncls: ncls, group: -1, multi: r.multiOf(b.sep, ncls), reps: b.reps})
				tables.add(t, &r.terms[t])
				for _, u := range b.sep {
					adj[u] = append(r.live(adj[u]), t)
				}
			}
		case len(b.sep) == 0:
			r.offset += b.msg[0]
		case len(b.sep) == 1:
			s := b.sep[0]
			if !r.ownUnary[s] {
				r.unary[s], r.ownUnary[s] = r.copyFloats(r.unary[s]), true
			}
			u := r.unary[s]
			for k := range u {
				u[k] += b.msg[b.cls[0][k]]
			}
		default:
			if t, ok := tables.find(r, b.sep, b.cls); ok {
				tm := &r.terms[t]
				if !tm.ownTable {
					tm.table, tm.ownTable = r.copyFloats(tm.table), true
				}
				tab := tm.table
				for k := range tab {
					tab[k] += b.msg[k]
				}
			} else {
				t := len(r.terms)
				ncls := r.nclsOf(b.reps, shared)
				r.terms = append(r.terms, term{scope: b.sep, cls: b.cls, ncls: ncls, group: -1, table: b.msg, multi: r.multiOf(b.sep, ncls), reps: b.reps})
				tables.add(t, &r.terms[t])
				// Its nodes' term lists drop their dead terms first
				// (which any walk of them does), so that they do not
				// grow by one a message on a fan-out of N.
				for _, u := range b.sep {
					adj[u] = append(r.live(adj[u]), t)
				}
			}
		}
		for _, u := range b.sep {
			if in.touched[u] || eliminated[u] {
				continue
			}
			if len(b.sep) > eagerKeys && current[u] <= limit {
				// A key costs a walk of u's terms' scopes: after every
				// elimination on a fan-out of N consumers that is N keys
				// of N nodes each, N³ in all (a fan-out of 1,000 took
				// minutes). A node whose entry is in the heap is marked
				// instead, and its key recomputed when that entry comes
				// up: if it changed, the node goes back into the heap.
				dirty[u] = true
				continue
			}
			// An unchanged key is in the heap already (or over the
			// limit): pushing it again would only add a stale entry.
			if k := key(u); k != current[u] {
				current[u] = k
				if k <= limit {
					h.push(keyed{k, u})
				}
			}
		}
	}
}

// live drops the dead terms of a term list, in place.
func (r *reduction) live(ts []int) []int {
	out := ts[:0]
	for _, t := range ts {
		if !r.terms[t].dead {
			out = append(out, t)
		}
	}
	return out
}

// A joiner computes buckets' separators and joined classes.
type joiner struct {
	mark  []int // mark[u] == stamp: u already collected
	stamp int
	buf   []int
}

func newJoiner(n int) *joiner { return &joiner{mark: make([]int, n)} }

// separator is the ascending set of the terms' nodes other than v, in a
// buffer that the next call reuses.
func (j *joiner) separator(r *reduction, v int, terms []int) []int {
	j.stamp++
	j.mark[v] = j.stamp
	sep := j.buf[:0]
	for _, t := range terms {
		for _, u := range r.terms[t].scope {
			if j.mark[u] != j.stamp {
				j.mark[u] = j.stamp
				sep = append(sep, u)
			}
		}
	}
	slices.Sort(sep)
	j.buf = sep
	return sep
}

// nodeClasses joins the classes the terms see u in. A node only one term
// sees keeps that term's class map; a join is refined in scratch and then
// copied into the slab.
func (r *reduction) nodeClasses(u int, terms []int) (cls, reps []int) {
	cur, ncur, joined := r.joinClasses(u, terms, &r.clsBuf)
	if joined {
		cur = append(r.slab.intSlice(len(cur))[:0], cur...)
	}
	return cur, repsInto(cur, r.slab.intSlice(ncur))
}

// classCount is the number of classes nodeClasses would give, without
// allocating.
func (r *reduction) classCount(u int, terms []int) int {
	_, ncur, _ := r.joinClasses(u, terms, &r.countBuf)
	return ncur
}

// joinClasses refines the class maps the terms have for u into one, in
// *buf (grown as needed) when there is more than one (joined), and returns
// it with its number of classes; with one, it is that term's own map.
func (r *reduction) joinClasses(u int, terms []int, buf *[]int) (cur []int, ncur int, joined bool) {
	for _, t := range terms {
		tm := &r.terms[t]
		i, found := scopeIndex(tm.scope, u)
		if !found {
			continue
		}
		if cur == nil {
			cur, ncur = tm.cls[i], tm.ncls[i]
			continue
		}
		if cap(*buf) < len(cur) {
			*buf = make([]int, 2*len(cur))
		}
		joined = true
		out := (*buf)[:len(cur)] // may be cur: refine works in place
		ncur = r.refine(cur, ncur, tm.cls[i], tm.ncls[i], out)
		cur = out
	}
	return cur, ncur, joined
}

// scopeIndex finds u in an ascending scope: by a scan where the scope is
// short, as most are, and by bisection where it is long (a fan-out's is as
// long as it has consumers, and each of them asks).
func scopeIndex(scope []int, u int) (int, bool) {
	if len(scope) > 16 {
		return slices.BinarySearch(scope, u)
	}
	for i, w := range scope {
		if w >= u {
			return i, w == u
		}
	}
	return len(scope), false
}

// refine joins class maps a (na classes) and b (nb classes) into out,
// numbering the pairs by first occurrence; out may be a. It returns the
// number of classes.
func (r *reduction) refine(a []int, na int, b []int, nb int, out []int) int {
	need := na * nb
	if len(r.pairBuf) < need {
		r.pairBuf = make([]int, need)
	}
	buf := r.pairBuf[:need]
	for i := range buf {
		buf[i] = -1
	}
	n := 0
	for k := range a {
		key := a[k]*nb + b[k]
		if buf[key] < 0 {
			buf[key] = n
			n++
		}
		out[k] = buf[key]
	}
	return n
}

// join is the bucket of v over terms: its separator and joined classes.
func (j *joiner) join(r *reduction, v int, terms []int) (sep []int, cls, reps [][]int) {
	js := j.separator(r, v, terms)
	sep = append(r.slab.intSlice(len(js))[:0], js...)
	cls = r.slab.lists2(len(sep))
	reps = r.slab.lists2(len(sep))
	for i, u := range sep {
		cls[i], reps[i] = r.nodeClasses(u, terms)
	}
	return sep, cls, reps
}

// size is the number of class combinations of v's separator, or limit+1
// when it exceeds limit. A node of one class in every term is a factor 1:
// only the terms' multi nodes are counted, so that the key of a consumer
// of one alternative on a fan-out of N costs no walk of the N others.
func (j *joiner) size(r *reduction, v int, terms []int, limit int) int {
	j.stamp++
	j.mark[v] = j.stamp
	size := 1
	for _, t := range terms {
		for _, u := range r.terms[t].multi {
			if j.mark[u] == j.stamp {
				continue
			}
			j.mark[u] = j.stamp
			n := r.classCount(u, terms)
			if size > limit/n {
				return limit + 1
			}
			size *= n
		}
	}
	return size
}

// nclsOf is a new table term's ncls: the number of each of reps'
// classes, or shared, which a bucket over one table term has them in.
func (r *reduction) nclsOf(reps [][]int, shared []int) []int {
	if shared != nil {
		return shared
	}
	ncls := r.slab.intSlice(len(reps))
	for i := range reps {
		ncls[i] = len(reps[i])
	}
	return ncls
}

// multiOf is a term's multi: scope's nodes of more than one class.
func (r *reduction) multiOf(scope, ncls []int) []int {
	k := 0
	for _, n := range ncls {
		if n > 1 {
			k++
		}
	}
	if k == len(scope) {
		return scope
	}
	multi := r.slab.intSlice(k)[:0]
	for i, n := range ncls {
		if n > 1 {
			multi = append(multi, scope[i])
		}
	}
	return multi
}

// A tableIndex finds the live table term over a scope with given class
// maps, to add a new message into it. A hash almost always has one live
// table: it is in first, and only the others in more, so that adding a
// table costs no allocation of its own (a list per hash was one per
// table, thousands per plan).
type tableIndex struct {
	first map[uint64]int
	more  map[uint64][]int
}

func newTableIndex() tableIndex {
	return tableIndex{first: map[uint64]int{}, more: map[uint64][]int{}}
}

func tableHash(scope []int, cls [][]int) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x int) {
		h ^= uint64(x)
		h *= 1099511628211
	}
	for i, v := range scope {
		mix(v)
		for _, c := range cls[i] {
			mix(c)
		}
		mix(-1)
	}
	return h
}

func (ix tableIndex) find(r *reduction, scope []int, cls [][]int) (int, bool) {
	h := tableHash(scope, cls)
	same := func(t int) bool {
		tm := &r.terms[t]
		return slices.Equal(tm.scope, scope) && slices.EqualFunc(tm.cls, cls, slices.Equal[[]int])
	}
	if t, ok := ix.first[h]; !ok {
		return 0, false
	} else if same(t) {
		return t, true
	}
	for _, t := range ix.more[h] {
		if same(t) {
			return t, true
		}
	}
	return 0, false
}

func (ix tableIndex) add(t int, tm *term) {
	h := tableHash(tm.scope, tm.cls)
	if _, ok := ix.first[h]; !ok {
		ix.first[h] = t
		return
	}
	ix.more[h] = append(ix.more[h], t)
}

func (ix tableIndex) remove(t int, tm *term) {
	h := tableHash(tm.scope, tm.cls)
	if ix.first[h] != t {
		ix.more[h] = slices.DeleteFunc(ix.more[h], func(x int) bool { return x == t })
	} else if rest := ix.more[h]; len(rest) > 0 {
		// Only one live table is over a scope and its classes (a message
		// over them is added into it), so which of the others comes
		// first does not matter to find.
		ix.first[h], ix.more[h] = rest[0], rest[1:]
	} else {
		delete(ix.first, h)
	}
	if len(ix.more[h]) == 0 {
		delete(ix.more, h)
	}
}

// copyFloats is a copy of xs from the slab.
func (r *reduction) copyFloats(xs []float64) []float64 {
	out := r.slab.floatSlice(len(xs))
	copy(out, xs)
	return out
}

// message computes m_v(S_v) = min over v of the bucket.
func (r *reduction) message(b *bucket, sc *scratch) []float64 {
	size := 1
	for _, rp := range b.reps {
		size *= len(rp)
	}
	msg := r.slab.floatSlice(size)
	b.arg = r.slab.argSlice(size)
	if cap(r.row) < len(b.unary) {
		r.row = make([]float64, len(b.unary))
	}
	row := r.row[:len(b.unary)]
	kn := &r.kernel
	kn.load(r, b)
	o := sc.odometer(b.sep, b.reps)
	keep := kn.rows(len(msg))
	from := 0 // the first row: every term
	for i := range msg {
		best, arg := inf, 0
		for k, c := range kn.rowFrom(sc, row, from, keep) {
			if c < best {
				best, arg = c, k
			}
		}
		msg[i], b.arg[i] = best, int32(arg)
		o.next()
		from = o.changed + 1
	}
	return msg
}

// backSubstitute completes asg (node → domain position), which holds the
// core's choices, with the eliminated nodes' choices: in reverse order of
// elimination, each node takes its bucket's argmin given its separator,
// the lowest domain position on exact ties. The message kept each entry's
// argmin: the separator's classes index it (a class's members see the same
// costs, so its representative's row is theirs).
func (r *reduction) backSubstitute(asg []int) {
	for i := len(r.order) - 1; i >= 0; i-- {
		b := &r.order[i]
		idx := 0
		for j, s := range b.sep {
			idx = idx*len(b.reps[j]) + b.cls[j][asg[s]]
		}
		asg[b.node] = int(b.arg[idx])
	}
}

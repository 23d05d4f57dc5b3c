package planner

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
)

// Exact depth-first branch and bound over the core, guided by a static
// mini-bucket heuristic.
//
// On dense graphs whose labels frustrate each other around cycles the
// core's LP relaxation is weak, and HiGHS branches for minutes on a core of
// a few dozen nodes. Mini-bucket elimination gives a bound of another kind:
// it eliminates the core along an order as the reduction does, but splits a
// bucket whose table would exceed the i-bound into mini-buckets, each
// eliminated on its own. Minimizing each part separately can only lower the
// minimum, so every message bounds the cost below of what its bucket leaves
// unassigned.
//
// The search assigns the core's nodes in the reverse of the elimination
// order (search position 0 first). A function (a unary cost, a live term, or
// a message) lives in the bucket of its scope's latest position. With
// x_0..x_k assigned,
//
//	f = Σ functions in buckets 0..k + Σ messages sent from buckets > k into buckets ≤ k
//
// is a lower bound on every completion: the first sum is the cost so far
// plus the messages that became fully assigned, the second the heuristic.
// Assigning x_k adds bucket k's functions and removes the messages bucket k
// sent, which its functions dominate: f never decreases down a branch, and
// at a leaf it is the plan's cost. Children are tried in ascending f (then
// ascending domain position), a subtree is pruned once its f reaches the
// incumbent less the MIP gap, and a stopped search reports the least f of
// the subtrees left open as its bound. Everything is deterministic: the
// order, the partition and the tie-breaks depend only on the reduction.

// searchFunc is one function of the search: a table over some core nodes'
// classes (vars are search positions), indexed by Σ cls[j][x[vars[j]]]·stride[j].
type searchFunc struct {
	vars   []int
	cls    [][]int
	stride []int
	table  []float64
	last   int // the index in vars of the latest search position
}

// coreSearch is the mini-bucket heuristic over a core and the buckets the
// search walks. It is read-only once built: each search has its own state.
type coreSearch struct {
	r     *reduction
	nodes []int // search position → node
	at    []int // node → search position, -1 outside the core
	dom   []int // search position → domain size
	funcs []searchFunc
	// inBucket[k] are the functions whose latest position is k (unary
	// costs, live terms, messages received); sent[k] the messages bucket k
	// sent to earlier buckets, and sentConst[k] the sum of those over no
	// node (part of h0).
	// stop, when non-nil, is asked before each bucket of the heuristic
	// whether to give it up (an interrupt or the plan's time limit; a
	// query's restricted heuristic has none).
	stop      func() bool
	inBucket  [][]int
	sent      [][]int
	sentConst []float64
	original  int     // funcs[:original] are the problem's own functions
	touching  [][]int // search position → the original functions over it
	h0        float64 // the heuristic at the root: a lower bound on the core
	entries   int     // the messages' entries, summed
	ibound    int     // the i-bound of the messages
	maxDom    int
}

// errSearchTooLarge says the core does not fit the search's limits.
var (
	errSearchTooLarge = errors.New("planner: core too large for the search")
	errSearchStopped  = errors.New("planner: the search's heuristic stopped (an interrupt or the time limit)")
)

// Limits of the search: cores of more nodes, terms that cannot be tabulated
// within searchTermTable entries, or messages of more than searchBudget
// entries in all go to HiGHS alone. On the generated dense DAGs (cklplan
// gen dag) the search proves the cores of 33 and 41 nodes (40 and 50
// invocations, seed 1) in 3 thousand and 6 million nodes, and those of 55
// invocations (43–49 nodes, seeds 1–3) in 36 thousand to 18 million, not
// that of 60 invocations (48 nodes, seed 1) in 40 million: a larger core
// would only spend searchNodes before HiGHS.
const (
	searchMaxNodes  = 64
	searchMaxDomain = 64
	searchTermTable = 1 << 20
	searchBudget    = 1 << 25
	// searchIBound is the most entries of a mini-bucket's table (its
	// message's entries times the eliminated node's domain). A message
	// sees each separator node through the join of the classes its
	// functions see it in (a fan-out sees a consumer through the 4
	// distributions of its port, not its 8 alternatives), so an i-bound
	// holds more nodes than it would over whole domains. On the dense DAG
	// of 40 invocations (seed 1, a core of 33 nodes) 2^16 leaves the root
	// bound 12% under the optimum; 2^22 leaves 2.6% and proves the optimum
	// in 3,095 nodes, 0.3 s of messages (over whole domains, in an order
	// of fewest combinations first: 9%, 5 million nodes); 2^26 leaves 1.5%
	// with four times the messages.
	searchIBound = 1 << 22
	// searchIBoundLarge is the i-bound of the search's second heuristic,
	// for a core the first did not settle in searchFirstNodes: its
	// messages take seconds to compute (1–1.5 s on the 55- and
	// 60-invocation dense DAGs, where 2^22 takes 0.3–0.5 s), and they prove
	// the 60-invocation DAG (seed 1) in 39 M nodes, which 2^22 does not in
	// 40 M.
	searchIBoundLarge = 1 << 24
	// searchFirstNodes is the first heuristic's node limit, before the
	// second: a fraction of a second.
	searchFirstNodes = 2_000_000
)

// newCoreSearch builds the heuristic for r's core, or errSearchTooLarge.
func newCoreSearch(r *reduction, ibound, budget int, stop func() bool) (*coreSearch, error) {
	in := r.in
	n := len(r.core)
	if n == 0 || n > searchMaxNodes {
		return nil, errSearchTooLarge
	}
	cs := &coreSearch{r: r, at: make([]int, len(in.p.Nodes)), ibound: ibound, stop: stop}
	for i := range cs.at {
		cs.at[i] = -1
	}
	for _, v := range r.core {
		if in.touched[v] || len(in.domain[v]) > searchMaxDomain || len(in.domain[v]) == 0 {
			return nil, errSearchTooLarge
		}
	}
	live := r.liveTerms()
	// The terms as tables: a group the reduction did not tabulate is
	// tabulated here, in a copy, from a slab of the search's own.
	var s slab
	sc := in.newScratch()
	tabs := make([]term, len(live))
	for i, t := range live {
		tabs[i] = r.terms[t]
		if tabs[i].table == nil {
			in.tabulate(&tabs[i], searchTermTable, sc, &s)
			if tabs[i].table == nil {
				return nil, errSearchTooLarge
			}
		}
	}
	// The elimination order: greedily the node whose elimination adds the
	// fewest fill-in edges, then whose neighbourhood has the fewest domain
	// combinations (lowest node on ties), over the interaction graph with
	// fill-in; the search goes the other way. On the generated dense DAGs
	// of 35–55 invocations least fill-in first took half the search nodes
	// or fewer on 10 of 12 (it proved one of 55 invocations that fewest
	// combinations first did not in 40 M nodes), the same on one, and 9×
	// as many on one (1.3 M against 0.15 M).
	idx := make([]int, len(in.p.Nodes))
	for i, v := range r.core {
		idx[v] = i
	}
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for i := range tabs {
		for _, u := range tabs[i].scope {
			for _, w := range tabs[i].scope {
				if u != w {
					adj[idx[u]][idx[w]] = true
				}
			}
		}
	}
	done := make([]bool, n)
	elim := make([]int, 0, n)
	for len(elim) < n {
		best, bestFill, bestSize := -1, math.MaxInt, math.Inf(1)
		for i := range n {
			if done[i] {
				continue
			}
			size := float64(len(in.domain[r.core[i]]))
			fill := 0
			for j := range n {
				if adj[i][j] && !done[j] {
					size *= float64(len(in.domain[r.core[j]]))
					for k := j + 1; k < n; k++ {
						if adj[i][k] && !done[k] && !adj[j][k] {
							fill++
						}
					}
				}
			}
			if fill < bestFill || fill == bestFill && size < bestSize {
				best, bestFill, bestSize = i, fill, size
			}
		}
		done[best] = true
		elim = append(elim, best)
		for j := range n {
			if !adj[best][j] || done[j] {
				continue
			}
			for k := range n {
				if k != j && adj[best][k] && !done[k] {
					adj[j][k] = true
				}
			}
		}
	}
	cs.nodes = make([]int, n)
	cs.dom = make([]int, n)
	for k := range n {
		v := r.core[elim[n-1-k]]
		cs.nodes[k] = v
		cs.at[v] = k
		cs.dom[k] = len(in.domain[v])
		cs.maxDom = max(cs.maxDom, cs.dom[k])
	}
	ident := identities(cs.maxDom)
	cs.inBucket = make([][]int, n)
	cs.sent = make([][]int, n)
	cs.sentConst = make([]float64, n)
	add := func(f searchFunc) {
		for j, u := range f.vars {
			if u > f.vars[f.last] {
				f.last = j
			}
		}
		cs.funcs = append(cs.funcs, f)
		k := f.vars[f.last]
		cs.inBucket[k] = append(cs.inBucket[k], len(cs.funcs)-1)
	}
	for k, v := range cs.nodes {
		add(searchFunc{vars: []int{k}, cls: [][]int{ident[cs.dom[k]]}, stride: []int{1}, table: r.unary[v]})
	}
	for i := range tabs {
		tm := &tabs[i]
		f := searchFunc{vars: make([]int, len(tm.scope)), cls: tm.cls, stride: make([]int, len(tm.scope)), table: tm.table}
		stride := 1
		for j := len(tm.scope) - 1; j >= 0; j-- {
			f.vars[j] = cs.at[tm.scope[j]]
			f.stride[j] = stride
			stride *= tm.ncls[j]
		}
		add(f)
	}
	cs.original = len(cs.funcs)
	cs.touching = make([][]int, n)
	for i := range cs.funcs {
		for _, u := range cs.funcs[i].vars {
			cs.touching[u] = append(cs.touching[u], i)
		}
	}
	if err := cs.eliminate(ident, ibound, budget); err != nil {
		return nil, err
	}
	return cs, nil
}

// identities are the identity class maps of domains up to maxDom.
func identities(maxDom int) [][]int {
	ident := make([][]int, maxDom+1)
	for d := range ident {
		ident[d] = make([]int, d)
		for i := range d {
			ident[d][i] = i
		}
	}
	return ident
}

// restricted is the heuristic of the core whose nodes take only the
// allowed positions (nodes, sets as in search), with the same order: the
// messages of a restricted node's bucket, and of the buckets they reach,
// then see the restriction instead of minimizing over positions a query
// rules out. A query whose restricted node comes late in the search order
// needs it: the static heuristic ignores the restriction until the search
// reaches that node.
func (cs *coreSearch) restricted(nodes []int, sets [][]int, ibound, budget int) (*coreSearch, error) {
	n := len(cs.nodes)
	c := &coreSearch{r: cs.r, nodes: cs.nodes, at: cs.at, dom: cs.dom, maxDom: cs.maxDom, original: cs.original, ibound: ibound, touching: cs.touching,
		funcs: slices.Clone(cs.funcs[:cs.original]), inBucket: make([][]int, n), sent: make([][]int, n), sentConst: make([]float64, n)}
	for i := range c.funcs {
		f := &c.funcs[i]
		k := f.vars[f.last]
		c.inBucket[k] = append(c.inBucket[k], i)
	}
	for j, v := range nodes {
		// funcs[k] is position k's unary cost (newCoreSearch adds them first).
		k := cs.at[v]
		tab := slices.Clone(c.funcs[k].table)
		for a := range tab {
			if !slices.Contains(sets[j], a) {
				tab[a] = inf
			}
		}
		c.funcs[k].table = tab
	}
	if err := c.eliminate(identities(c.maxDom), ibound, budget); err != nil {
		return nil, err
	}
	return c, nil
}

// eliminate computes the mini-bucket messages, from the last search
// position to the first.
func (cs *coreSearch) eliminate(ident [][]int, ibound, budget int) error {
	n := len(cs.nodes)
	x := make([]int, n)
	for k := n - 1; k >= 0; k-- {
		if cs.stop != nil && cs.stop() {
			return errSearchStopped
		}
		// Larger scopes first, each into the first mini-bucket it fits
		// (by function index on ties): a fixed, greedy partition.
		fs := slices.Clone(cs.inBucket[k])
		slices.SortStableFunc(fs, func(a, b int) int { return len(cs.funcs[b].vars) - len(cs.funcs[a].vars) })
		var minis [][]int  // functions per mini-bucket
		var scopes [][]int // union scope per mini-bucket, ascending
		for _, fi := range fs {
			f := &cs.funcs[fi]
			placed := false
			for m := range minis {
				u := union(scopes[m], f.vars)
				if cs.classSize(append(minis[m], fi), u, k) <= ibound {
					minis[m] = append(minis[m], fi)
					scopes[m] = u
					placed = true
					break
				}
			}
			if !placed {
				minis = append(minis, []int{fi})
				scopes = append(scopes, union(nil, f.vars))
			}
		}
		for m, mb := range minis {
			sep := slices.DeleteFunc(scopes[m], func(u int) bool { return u == k })
			// The message sees each separator node through the join of
			// the classes its mini-bucket's functions see it in, and is
			// tabulated at each class's representative.
			cls := make([][]int, len(sep))
			reps := make([][]int, len(sep))
			size := 1
			for j, u := range sep {
				cls[j], reps[j] = cs.joinClasses(mb, u)
				size *= len(reps[j])
			}
			if cs.entries += size; cs.entries > budget {
				return errSearchTooLarge
			}
			msg := make([]float64, size)
			// Every class combination of sep, the last node fastest.
			ci := make([]int, len(sep))
			for j, u := range sep {
				x[u] = reps[j][0]
			}
			row := make([]float64, cs.dom[k])
			for e := range msg {
				// Each function's index but for node k once, then the row
				// of node k's values: every function here has k in scope.
				clear(row)
				for _, fi := range mb {
					fn := &cs.funcs[fi]
					base := 0
					for j, u := range fn.vars {
						if j != fn.last {
							base += fn.cls[j][x[u]] * fn.stride[j]
						}
					}
					kc, ks := fn.cls[fn.last], fn.stride[fn.last]
					for a := range row {
						row[a] += fn.table[base+kc[a]*ks]
					}
				}
				best := inf
				for _, c := range row {
					best = min(best, c)
				}
				msg[e] = best
				for j := len(sep) - 1; j >= 0; j-- {
					u := sep[j]
					if ci[j]++; ci[j] < len(reps[j]) {
						x[u] = reps[j][ci[j]]
						break
					}
					ci[j] = 0
					x[u] = reps[j][0]
				}
			}
			if len(sep) == 0 {
				cs.sentConst[k] += msg[0]
				cs.h0 += msg[0]
				continue
			}
			f := searchFunc{vars: sep, cls: cls, stride: make([]int, len(sep)), table: msg}
			stride := 1
			for j := len(sep) - 1; j >= 0; j-- {
				f.stride[j] = stride
				stride *= len(reps[j])
			}
			f.last = len(sep) - 1 // sep is ascending
			cs.funcs = append(cs.funcs, f)
			fi := len(cs.funcs) - 1
			cs.inBucket[sep[len(sep)-1]] = append(cs.inBucket[sep[len(sep)-1]], fi)
			cs.sent[k] = append(cs.sent[k], fi)
		}
	}
	return nil
}

// joinClasses is the common refinement of the classes through which the
// functions fs see position u (those without u do not refine it): u's
// domain position → class, numbered by first occurrence, and each class's
// first position, its representative.
func (cs *coreSearch) joinClasses(fs []int, u int) (cls, reps []int) {
	cls = make([]int, cs.dom[u])
	reps = []int{0}
	next := make([]int, 0, cs.dom[u])
	for _, fi := range fs {
		fn := &cs.funcs[fi]
		j := slices.Index(fn.vars, u)
		if j < 0 {
			continue
		}
		// Positions of one joined class and one class of fn stay together.
		next, reps = next[:0], reps[:0]
		for a := range cls {
			c := -1
			for i, r := range reps {
				if cls[r] == cls[a] && fn.cls[j][r] == fn.cls[j][a] {
					c = i
					break
				}
			}
			if c < 0 {
				c = len(reps)
				reps = append(reps, a)
			}
			next = append(next, c)
		}
		copy(cls, next)
	}
	return cls, reps
}

// classSize is the entries of the table of a mini-bucket of the functions
// fs over the positions scope, eliminating k: k's domain times the joined
// classes of every other position.
func (cs *coreSearch) classSize(fs []int, scope []int, k int) int {
	s := cs.dom[k]
	for _, u := range scope {
		if u == k {
			continue
		}
		_, reps := cs.joinClasses(fs, u)
		if s > math.MaxInt/2/len(reps) {
			return math.MaxInt / 2
		}
		s *= len(reps)
	}
	return s
}

// union is the ascending union of the ascending set a and the set b, in a
// new slice.
func union(a, b []int) []int {
	out := slices.Clone(a)
	for _, u := range b {
		if i, ok := slices.BinarySearch(out, u); !ok {
			out = slices.Insert(out, i, u)
		}
	}
	return out
}

// at is the function's value at the positions x (search position → domain
// position).
func (f *searchFunc) at(x []int) float64 {
	i := 0
	for j, u := range f.vars {
		i += f.cls[j][x[u]] * f.stride[j]
	}
	return f.table[i]
}

// cost is the core's cost of x (search position → domain position): the sum
// of the problem's own functions, +Inf when a combination is forbidden.
func (cs *coreSearch) cost(x []int) float64 {
	c := 0.0
	for i := range cs.funcs[:cs.original] {
		c += cs.funcs[i].at(x)
	}
	return c
}

// searchLimits bound one search; a zero field means no limit.
type searchLimits struct {
	nodes    int64
	deadline time.Time
	// relGap and absGap are the MIP gaps: a subtree is pruned once no plan
	// in it can beat the incumbent by more than the gap.
	relGap, absGap float64
	// report, when not nil, is called at most every reportEvery with the
	// incumbent's cost, a proven bound (both in the core's terms,
	// the reduction's offset not added) and the nodes searched.
	report      func(incumbent, bound float64, nodes int64)
	reportEvery time.Duration
}

// searchResult is a search's outcome, in the whole problem's terms (the
// reduction's offset added).
type searchResult struct {
	asg       []int   // node → domain position of the best plan, core nodes only; nil without one
	objective float64 // the best plan's cost; +Inf without one
	bound     float64 // a proven lower bound on every allowed plan
	proven    bool    // the search ran to completion: objective is the optimum (within the gap)
	nodes     int64
	// work is a core search's nodes and half its heuristics' entries
	// (searchCore): what the regrets' searches are measured against
	// (Options.RegretWork).
	work int64
}

// searchWork is the work of a search of nodes over heuristics of entries
// computed: a node and two entries take about the same time (on the
// 44-node core of cklplan gen dag --invocations 50, 2–3 M nodes a second
// against 4–5 M entries).
func searchWork(nodes int64, entries int) int64 { return nodes + int64(entries)/2 }

// A searcher is one goroutine's search state over a shared coreSearch.
type searcher struct {
	cs      *coreSearch
	x       []int     // search position → domain position
	best    []int     // the incumbent, by search position
	cand    []int     // per depth: candidate values, ascending f
	candF   []float64 // their f
	ncand   []int
	next    []int
	allowed []uint64 // per search position: allowed domain positions
	// pruned is the least f of the subtrees pruned: the incumbent less
	// at most the gap, which bounds the optimum from below.
	pruned float64
}

func (cs *coreSearch) newSearcher() *searcher {
	n := len(cs.nodes)
	return &searcher{cs: cs, x: make([]int, n), best: make([]int, n), cand: make([]int, n*cs.maxDom),
		candF: make([]float64, n*cs.maxDom), ncand: make([]int, n), next: make([]int, n), allowed: make([]uint64, n)}
}

// search finds the best plan of the core whose nodes take allowed
// positions: restrict lists nodes, sets their allowed domain positions
// (nil: no restriction). start (node → domain position, nil for none) is
// the first incumbent when it is allowed and feasible.
func (s *searcher) search(ctx context.Context, nodes []int, sets [][]int, start []int, lim searchLimits) searchResult {
	cs := s.cs
	n := len(cs.nodes)
	offset := cs.r.offset
	for k := range n {
		s.allowed[k] = 1<<uint(cs.dom[k]) - 1
		if cs.dom[k] == 64 {
			s.allowed[k] = ^uint64(0)
		}
	}
	for j, v := range nodes {
		var m uint64
		for _, a := range sets[j] {
			m |= 1 << uint(a)
		}
		s.allowed[cs.at[v]] &= m
	}
	incumbent := inf
	have := false
	if start != nil {
		ok := true
		for k, v := range cs.nodes {
			s.x[k] = start[v]
			if s.allowed[k]&(1<<uint(start[v])) == 0 {
				ok = false
			}
		}
		if c := cs.cost(s.x); ok && !math.IsInf(c, 1) {
			incumbent, have = c, true
			copy(s.best, s.x)
		}
	}
	cutoff := func() float64 {
		if !have {
			return inf
		}
		return incumbent - max(lim.absGap, lim.relGap*math.Abs(incumbent+offset))
	}
	if have {
		incumbent = s.descend()
	}
	cut := cutoff()
	res := searchResult{objective: inf, bound: inf}
	s.pruned = inf
	if cs.h0 >= cut || math.IsInf(cs.h0, 1) {
		s.pruned = cs.h0
		return s.finish(res, incumbent, have, inf, true)
	}
	s.expand(0, cs.h0, cut)
	var nodesSeen int64
	stopped := false
	var reported time.Time
	if lim.report != nil {
		reported = time.Now()
	}
	k := 0
	for k >= 0 {
		if s.next[k] == s.ncand[k] {
			k--
			continue
		}
		i := k*cs.maxDom + s.next[k]
		f := s.candF[i]
		if f >= cut {
			s.pruned = min(s.pruned, f)
			s.next[k] = s.ncand[k] // sorted: the rest are no better
			continue
		}
		s.next[k]++
		s.x[k] = s.cand[i]
		if k == n-1 {
			if c := cs.cost(s.x); c < incumbent {
				incumbent, have = c, true
				copy(s.best, s.x)
				cut = cutoff()
			}
			continue
		}
		nodesSeen++
		if nodesSeen&1023 == 0 || nodesSeen == lim.nodes {
			if ctx.Err() != nil || lim.nodes > 0 && nodesSeen >= lim.nodes || !lim.deadline.IsZero() && time.Now().After(lim.deadline) {
				s.next[k]-- // the node just taken is open too
				stopped = true
				break
			}
			if lim.report != nil {
				if now := time.Now(); now.Sub(reported) >= lim.reportEvery {
					reported = now
					// What is left lies below the open siblings along
					// the path and the node just taken (f).
					bound := min(s.pruned, incumbent, f)
					for j := range k {
						if s.next[j] < s.ncand[j] {
							bound = min(bound, s.candF[j*cs.maxDom+s.next[j]])
						}
					}
					lim.report(incumbent, bound, nodesSeen)
				}
			}
		}
		k++
		s.expand(k, f, cut)
	}
	res.nodes = nodesSeen
	bound := inf
	if stopped {
		for j := 0; j <= k; j++ {
			if s.next[j] < s.ncand[j] {
				bound = min(bound, s.candF[j*cs.maxDom+s.next[j]])
			}
		}
	}
	return s.finish(res, incumbent, have, bound, !stopped)
}

// descend improves the incumbent s.best (of cost c) by coordinate descent:
// each node in turn takes its cheapest allowed position given the others,
// the lowest on ties, until a pass changes nothing (at most 8 passes). It
// returns the new cost.
func (s *searcher) descend() float64 {
	cs := s.cs
	x := s.best
	for range 8 {
		changed := false
		for k := range cs.nodes {
			cur := x[k]
			local := func(a int) float64 {
				x[k] = a
				sum := 0.0
				for _, fi := range cs.touching[k] {
					sum += cs.funcs[fi].at(x)
				}
				return sum
			}
			best, arg := local(cur), cur
			for a := range cs.dom[k] {
				if a == cur || s.allowed[k]&(1<<uint(a)) == 0 {
					continue
				}
				if v := local(a); v < best {
					best, arg = v, a
				}
			}
			x[k] = arg
			if arg != cur {
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return cs.cost(x) // at most c: each step lowers the cost or keeps it
}

// finish fills res from the incumbent, the least f left open and the
// least pruned.
func (s *searcher) finish(res searchResult, incumbent float64, have bool, open float64, proven bool) searchResult {
	cs := s.cs
	res.proven = proven
	if have {
		res.asg = make([]int, len(cs.at))
		for k, v := range cs.nodes {
			res.asg[v] = s.best[k]
		}
		res.objective = incumbent + cs.r.offset
	}
	res.bound = min(open, s.pruned, incumbent) + cs.r.offset
	return res
}

// expand lists the children of the node at depth k−1 (f its bound): the
// allowed values of position k with their f below cut, ascending.
func (s *searcher) expand(k int, f, cut float64) {
	cs := s.cs
	base := k * cs.maxDom
	cand, candF := s.cand[base:base+cs.dom[k]], s.candF[base:base+cs.dom[k]]
	d := f - cs.sentConst[k]
	for _, fi := range cs.sent[k] {
		d -= cs.funcs[fi].at(s.x)
	}
	for a := range candF {
		candF[a] = d
	}
	for _, fi := range cs.inBucket[k] {
		fn := &cs.funcs[fi]
		idx := 0
		for j, u := range fn.vars {
			if j != fn.last {
				idx += fn.cls[j][s.x[u]] * fn.stride[j]
			}
		}
		kc, ks := fn.cls[fn.last], fn.stride[fn.last]
		for a := range candF {
			candF[a] += fn.table[idx+kc[a]*ks]
		}
	}
	// Keep the allowed values below the cutoff, sorted by (f, position):
	// an insertion sort, domains being short.
	m := 0
	allowed := s.allowed[k]
	for a := range cs.dom[k] {
		v := candF[a]
		if allowed&(1<<uint(a)) == 0 {
			continue
		}
		if !(v < cut) {
			s.pruned = min(s.pruned, v)
			continue
		}
		// candF[:m] hold the kept values so far; positions a' < a were
		// read already, so writing at index ≤ a is safe.
		i := m
		for i > 0 && candF[i-1] > v {
			candF[i], cand[i] = candF[i-1], cand[i-1]
			i--
		}
		candF[i], cand[i] = v, a
		m++
	}
	s.ncand[k], s.next[k] = m, 0
}

// tightLP reports whether the core's LP relaxation is tight enough for
// HiGHS: its choices integral (then it is the MILP's optimum, which HiGHS
// proves at its root), or the plan that rounds each node to its largest
// choice within lpNearGap of the relaxation's bound (then HiGHS's root cuts
// and few branches close the rest). A relaxation HiGHS cannot solve, or one
// far from any plan, is not: the generated DAGs' frustrated labels give
// 130–180 fractional x over cores of 33–44 nodes, and the rounded plan
// costs 90 % more than the bound (cklplan gen dag --invocations 40 --seed 1).
func tightLP(ctx context.Context, cm *coreModel, r *reduction, opt *Options) bool {
	lib, err := loadHiGHS()
	if err != nil {
		return false
	}
	s, err := lib.NewSolver()
	if err != nil {
		return false
	}
	defer s.Close()
	lp := relaxation(&cm.model)
	res, err := s.Solve(ctx, &lp, opt.solverOptions())
	if err != nil || res.Status != highs.Optimal {
		return false
	}
	integral := true
	asg := make([]int, len(r.in.p.Nodes))
	for _, v := range r.core {
		best := math.Inf(-1)
		for k := range r.in.domain[v] {
			x := res.Values[cm.xcol[v]+k]
			if math.Abs(x-math.Round(x)) > 1e-6 {
				integral = false
			}
			if x > best {
				best, asg[v] = x, k
			}
		}
	}
	if integral {
		return true
	}
	rounded := cm.model.Objective(cm.point(r, asg))
	return rounded-res.Objective <= cmp.Or(opt.lpNear, lpNearGap)*math.Abs(rounded)
}

// lpNearGap is how near (relative) a rounded plan must be to the LP bound
// for tightLP to leave the core to HiGHS. Measured on generated DAGs whose
// execution costs are scaled by 30 (cklplan gen dag --exec-scale 30
// --invocations 40 and 60, seed 1), the rounded plan is within 0.05–0.14 %
// of the bound, and HiGHS proves the cores of 33 and 53 nodes at its root in
// 0.34 and 0.17 s, where the search took 0.31 and 1.1–1.9 s; with
// conversions dominating (no scaling) the rounded plan is 90 % above.
const lpNearGap = 0.01

// searchNodes bounds the search Solve tries before HiGHS (about 5 s on the
// development machine, 8 M nodes a second), unless the search is forced
// (tests). A count of nodes, not a time, so that the same input takes the
// same path and gives the same plan on any machine. Measured: on the
// generated dense DAGs the search proves the cores of 40 invocations (33
// and 35 nodes) in 0.3 to 0.8 s (0.26 M and 5.0 M nodes) and those of 45
// (39 and 40 nodes) in 1.2 and 2.3 s (6.5 M and 19.1 M nodes); that of 50
// (seed 1, 44 nodes) in 68 s, where HiGHS takes over 150 s; those of 50
// (seed 2) to 100 invocations not in a minute. HiGHS takes minutes on all
// of these, and starts from the search's best plan.
const searchNodes = 40_000_000

// searchCore tries the search on r's core, when the options allow it and
// the core fits the search's limits: it returns the heuristic (nil when the
// search does not apply) and the search's result (nil when it did not run).
// local is the baseline plan (alternatives), the search's first incumbent;
// begun is when Solve began, from which Options.TimeLimit counts.
func searchCore(ctx context.Context, r *reduction, cm *coreModel, local []int, opt *Options, begun time.Time) (*coreSearch, *searchResult) {
	if opt.search == searchOff || opt.NoReduce && opt.search == searchAuto || r.in.p.ordered() {
		// The search knows no kernel-order levels (order.go).
		return nil, nil
	}
	if opt.search == searchAuto && (len(r.core) > searchMaxNodes || tightLP(ctx, cm, r, opt)) {
		// Where the LP relaxation's choices are integral, HiGHS proves the
		// optimum at its root in milliseconds, and the search may take
		// seconds: the random dense DAGs of planner/gen_test.go's
		// randomDAG (40–60 nodes) took HiGHS 40–45 ms and the search 0.3 s
		// to over 5 s.
		return nil, nil
	}
	// A smaller i-bound when the larger one's messages outgrow the budget.
	stop := opt.stopping(ctx, begun)
	cs, err := newCoreSearch(r, searchIBound, searchBudget, stop)
	if err != nil {
		if errors.Is(err, errSearchStopped) {
			return nil, nil
		}
		if cs, err = newCoreSearch(r, searchIBound/8, searchBudget, stop); err != nil {
			return nil, nil
		}
	}
	lim := searchLimits{relGap: opt.relativeGap(), absGap: opt.absoluteGap()}
	switch opt.search {
	case searchAuto:
		lim.nodes = searchNodes
	case searchStop:
		lim.nodes = 1
	}
	if opt.TimeLimit > 0 {
		if d := begun.Add(opt.TimeLimit); lim.deadline.IsZero() || d.Before(lim.deadline) {
			lim.deadline = d
		}
	}
	// First the heuristic of i-bound searchIBound for searchFirstNodes,
	// then, should that not settle the core, one of searchIBoundLarge.
	start := cm.startPositions(r, local)
	total, first := lim.nodes, int64(0)
	switch {
	case opt.firstNodes > 0:
		first = opt.firstNodes
	case opt.search == searchAuto:
		first = searchFirstNodes
	}
	twoStages := first > 0 && (total == 0 || first < total)
	if twoStages {
		lim.nodes = first
	}
	// Progress: the nodes and the bound of the first stage carry into the
	// second's reports.
	var before int64
	floor := math.Inf(-1)
	if opt.Progress != nil {
		lim.reportEvery = highs.ProgressEvery
		if opt.searchReports {
			lim.reportEvery = 0
		}
		lim.report = func(incumbent, bound float64, nodes int64) {
			obj, b := incumbent+r.offset, max(bound+r.offset, floor)
			g := math.Inf(1)
			if !math.IsInf(obj, 1) {
				g = gap(obj, b)
			}
			opt.Progress(Progress{Elapsed: time.Since(begun), Incumbent: obj, Bound: b, Gap: g, Nodes: before + nodes, Searching: true})
		}
	}
	res := cs.newSearcher().search(ctx, nil, nil, start, lim)
	work := searchWork(res.nodes, cs.entries)
	if twoStages && !res.proven && ctx.Err() == nil && (lim.deadline.IsZero() || time.Now().Before(lim.deadline)) {
		// Not settled quickly: a stronger heuristic, the search again
		// from the best plan so far, for the node limit.
		large, err := newCoreSearch(r, searchIBoundLarge, searchBudget, stop)
		if err != nil {
			large = cs // its messages would outgrow the budget
		}
		if res.asg != nil {
			start = res.asg
		}
		lim.nodes = total
		before, floor = res.nodes, res.bound
		again := large.newSearcher().search(ctx, nil, nil, start, lim)
		if large != cs {
			work += searchWork(0, large.entries)
		}
		work += again.nodes
		again.nodes += res.nodes
		again.bound = max(again.bound, res.bound)
		cs, res = large, again
	}
	res.work = work
	if opt.Progress != nil {
		g := math.Inf(1)
		if !math.IsInf(res.objective, 1) {
			g = gap(res.objective, res.bound)
		}
		opt.Progress(Progress{Elapsed: time.Since(begun), Incumbent: res.objective, Bound: res.bound, Gap: g, Nodes: res.nodes, Searching: true})
	}
	return cs, &res
}

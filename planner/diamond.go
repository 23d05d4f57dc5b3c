package planner

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kernel order in diamonds, by flags.
//
// Most blocks whose kernels the plan may put out of order are diamonds:
// directed paths from one invocation s to another t that share no other
// invocation, such as a transformer layer's residual edge beside the
// layer's chain (two paths), or a mixture of experts' router beside its
// experts (one path each). Such a block has an order of kernels exactly
// when all its paths cross a kernel boundary somewhere or none does: when
// one path crosses and another does not, s and t share a kernel through
// the second while the crossing needs s's kernel to run before t's; when
// all cross, levels that rise along each path by at least one at every
// crossing meet at t (the paths' inner invocations are their own). A
// conflict is a simple cycle, here two of the paths.
//
// Solve keeps a diamond in order without levels or rounds: every node of
// its paths other than s, and t, takes each of its alternatives twice,
// with a flag saying whether the path from s to it has crossed a
// boundary, and one zero-cost group per path edge x → y admits only the
// pairs where y's flag is x's flag (s's is 0) or'ed with the edge's
// crossing. At t the paths' flags must agree. The problem stays one of
// pairwise and fan-out terms, which the exact reduction eliminates, so a
// graph of such diamonds is planned and explained, every regret exact,
// as fast as one without crossing choices. Solve maps the flagged
// problem's solution back: each alternative is its base alternative, and a
// regret the least of its two flags'.
//
// Diamonds nested in one another's paths (series-parallel blocks, such as
// a gated MLP's two branches beside its residual edge) are kept in order
// the same way, with a flag per parallel composition (orderDiamond): a
// node then takes each alternative once per state of its flags.

// An orderDiamond is a block of the order system that is series-parallel
// from s to t: k ≥ 2 directed paths sharing no other node (a diamond), or
// diamonds nested in one another's paths, in series and in parallel (a
// gated MLP's two branches beside its residual edge).
//
// Each parallel composition C of the block (its paths from one invocation
// s_C to another t_C, none touching the rest of the block but at s_C and
// t_C) has a flag at each invocation v inside it or at t_C: whether the
// path from s_C to v has crossed a kernel boundary. An edge u → w sets
// each of w's flags: to its crossing where u is s_C, to u's flag or'ed
// with its crossing where u is inside C, and not at all where the edge
// enters t_C from outside C. The block has an order of kernels exactly
// when every node's flags agree across its edges in: where two paths part
// at one invocation and meet at another, both cross a kernel boundary
// between the two or neither does (by induction on the compositions: a
// composition's paths then all raise the level of its sink, or none does).
// Flags of nested compositions are ordered (crossed since the inner source
// implies crossed since the outer one), so a node's states are its flags'
// monotone assignments: d+1 of them under d nested compositions.
type orderDiamond struct {
	block int
	s, t  int
	// edges are the block's edges (indices into orderSystem.edges), each
	// after every edge into its tail.
	edges []int
	// edgeSrc[i] and edgeIn[i] are the flags of edges[i]'s head that the
	// edge sets to its crossing (its tail the compositions' source) and
	// to its tail's flag or'ed with its crossing (its tail inside them).
	edgeSrc, edgeIn []uint64
	// nodes are the flagged nodes: every node of the block but s, and
	// states[i] the flag sets nodes[i] may hold, the empty one first.
	nodes  []int
	states [][]uint64
	// describe says, in words, which paths must agree.
	describe string
}

// Bounds on a block kept in order by flags: its parallel compositions
// (one bit each), a node's flags and a node's states (each multiplies its
// alternatives). A block past them is left to levels.
const (
	maxFlagComps    = 64
	maxFlagsPerNode = 8
)

// maxStatesPerNode bounds a node's flag sets: 8 is three nested
// compositions, or a sink of two beside another. Tests raise it.
var maxStatesPerNode = 8

// findDiamond reports whether block b of o is series-parallel from one
// invocation s to another t, and its flags (orderDiamond). It reduces the
// block's edges: edges with the same ends join in parallel (a
// composition), and an invocation with one edge in and one out joins its
// two in series, until one edge from s to t is left or nothing joins.
func findDiamond(o *orderSystem, b int) (orderDiamond, bool) {
	edges := o.blockEdges[b]
	if len(edges) < 2 {
		return orderDiamond{}, false
	}
	in, out := map[int]int{}, map[int]int{}
	var nodes []int
	for _, ei := range edges {
		e := &o.edges[ei]
		for _, v := range [2]int{e.u, e.w} {
			if _, ok := in[v]; !ok {
				in[v], out[v] = 0, 0
				nodes = append(nodes, v)
			}
		}
		out[e.u]++
		in[e.w]++
	}
	d := orderDiamond{block: b, s: -1, t: -1}
	for _, v := range nodes {
		switch {
		case in[v] > 0 && out[v] > 0:
		case in[v] == 0 && d.s < 0:
			d.s = v
		case out[v] == 0 && d.t < 0:
			d.t = v
		default:
			return orderDiamond{}, false
		}
	}
	if d.s < 0 || d.t < 0 {
		return orderDiamond{}, false
	}
	type item struct {
		u, w  int
		edges []int
		comp  int // the parallel composition the item is, or -1
	}
	type comp struct {
		src, snk int
		edges    []int
		dead     bool // joined into a later one with the same ends
	}
	var comps []comp
	items := make([]*item, len(edges))
	for i, ei := range edges {
		items[i] = &item{u: o.edges[ei].u, w: o.edges[ei].w, edges: []int{ei}, comp: -1}
	}
	for {
		changed := false
		// In parallel: items with the same ends, the first keeping a
		// composition (one composition per pair of ends).
		first := map[[2]int]*item{}
		kept := items[:0]
		for _, it := range items {
			k := [2]int{it.u, it.w}
			f, ok := first[k]
			if !ok {
				first[k] = it
				kept = append(kept, it)
				continue
			}
			changed = true
			if f.comp < 0 {
				f.comp = len(comps)
				comps = append(comps, comp{src: f.u, snk: f.w})
			}
			if it.comp >= 0 {
				comps[it.comp].dead = true
			}
			f.edges = append(slices.Clip(f.edges), it.edges...)
			comps[f.comp].edges = f.edges
		}
		items = kept
		// In series: an invocation with one item in and one out, both
		// not joined yet in this pass.
		into, from := map[int][]int{}, map[int][]int{}
		for i, it := range items {
			from[it.u] = append(from[it.u], i)
			into[it.w] = append(into[it.w], i)
		}
		used := make([]bool, len(items))
		for _, v := range nodes {
			if v == d.s || v == d.t || len(into[v]) != 1 || len(from[v]) != 1 {
				continue
			}
			i, j := into[v][0], from[v][0]
			if i == j || used[i] || used[j] {
				continue
			}
			used[i], used[j], changed = true, true, true
			a, z := items[i], items[j]
			items[i] = &item{u: a.u, w: z.w, edges: append(slices.Clip(a.edges), z.edges...), comp: -1}
			items[j] = nil
		}
		items = slices.DeleteFunc(items, func(it *item) bool { return it == nil })
		if !changed {
			break
		}
	}
	if len(items) != 1 || items[0].u != d.s || items[0].w != d.t || items[0].comp < 0 {
		return orderDiamond{}, false
	}
	comps = slices.DeleteFunc(comps, func(c comp) bool { return c.dead })
	if len(comps) > maxFlagComps {
		return orderDiamond{}, false
	}
	// Each node's flags (the compositions it is inside or the sink of)
	// and those it is inside; each composition's enclosing ones.
	flags, inside := map[int]uint64{}, map[int]uint64{}
	up := make([]uint64, len(comps))
	compOf := make([]map[int]bool, len(comps))
	for c := range comps {
		compOf[c] = map[int]bool{}
		for _, ei := range comps[c].edges {
			compOf[c][ei] = true
		}
	}
	for c, cc := range comps {
		bit := uint64(1) << c
		for _, ei := range cc.edges {
			for _, v := range [2]int{o.edges[ei].u, o.edges[ei].w} {
				if v == cc.snk {
					flags[v] |= bit
				} else if v != cc.src {
					flags[v] |= bit
					inside[v] |= bit
				}
			}
		}
		for c2, cc2 := range comps {
			if c2 != c && len(cc2.edges) > len(cc.edges) && compOf[c2][cc.edges[0]] {
				up[c] |= uint64(1) << c2
			}
		}
	}
	// The nodes in topological order, and the edges by their tails'.
	queue, left := []int{d.s}, map[int]int{}
	for v, n := range in {
		left[v] = n
	}
	byTail := map[int][]int{}
	for _, ei := range edges {
		byTail[o.edges[ei].u] = append(byTail[o.edges[ei].u], ei)
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, ei := range byTail[v] {
			d.edges = append(d.edges, ei)
			w := o.edges[ei].w
			if left[w]--; left[w] == 0 {
				queue = append(queue, w)
				d.nodes = append(d.nodes, w)
			}
		}
	}
	for _, v := range d.nodes {
		m := flags[v]
		if bits.OnesCount64(m) > maxFlagsPerNode {
			return orderDiamond{}, false
		}
		// Every subset of m closed upward (a flag set implies those of
		// the compositions around it), the empty set first.
		var states []uint64
		for sub := uint64(0); ; sub = (sub - m) & m {
			closed := true
			for r := sub; r != 0; r &= r - 1 {
				c := bits.TrailingZeros64(r)
				closed = closed && up[c]&m&^sub == 0
			}
			if closed {
				states = append(states, sub)
			}
			if sub == m {
				break
			}
		}
		slices.Sort(states)
		if len(states) > maxStatesPerNode {
			return orderDiamond{}, false
		}
		d.states = append(d.states, states)
	}
	for _, ei := range d.edges {
		u, w := o.edges[ei].u, o.edges[ei].w
		var src uint64
		for c, cc := range comps {
			if cc.src == u && flags[w]&(uint64(1)<<c) != 0 {
				src |= uint64(1) << c
			}
		}
		d.edgeSrc = append(d.edgeSrc, src)
		d.edgeIn = append(d.edgeIn, flags[w]&inside[u])
	}
	return d, true
}

// admits reports whether a flag set mw of an edge's head follows from its
// tail's mu and the edge's crossing (orderDiamond).
func (d *orderDiamond) admits(i int, mu, mw uint64, cross bool) bool {
	src, in := d.edgeSrc[i], d.edgeIn[i]
	if cross {
		return mw&src == src && mw&in == in
	}
	return mw&src == 0 && mw&in == mu&in
}

// orderFlags says whether diamonds are kept in order by flags; tests turn
// it off to see the levels alone.
var orderFlags = true

// markDiamonds finds the blocks of the order system that are diamonds
// whose crossings the choices decide, fills their edges' states, and
// marks them, each node flagged for one diamond at most (a diamond that
// shares a flagged node with an earlier one is left to levels).
func (lw *lowering) markDiamonds(o *orderSystem) {
	if !orderFlags {
		return
	}
	flagged := map[int]bool{}
	for b := range o.blocks {
		d, ok := findDiamond(o, b)
		if !ok {
			continue
		}
		clash := false
		for _, v := range d.nodes {
			clash = clash || flagged[v]
		}
		if clash {
			continue
		}
		varies := false
		for _, ei := range d.edges {
			lw.fillStates(ei)
			seen := [2]bool{}
			for _, s := range o.edges[ei].state {
				if s >= 0 {
					seen[s] = true
				}
			}
			varies = varies || seen[0] && seen[1]
		}
		if !varies {
			continue
		}
		for _, v := range d.nodes {
			flagged[v] = true
		}
		d.describe = lw.describeDiamond(o, d)
		if o.diamond == nil {
			o.diamond = make([]bool, o.blocks)
		}
		o.diamond[b] = true
		o.diamonds = append(o.diamonds, d)
	}
	// The diamonds' groups, built now: solves that run at once (the
	// reasons' re-plans) only read them.
	flagDiamonds(&lw.problem)
}

// describeDiamond names a diamond's paths, or says what the paths of a
// block of nested diamonds must do.
func (lw *lowering) describeDiamond(o *orderSystem, d orderDiamond) string {
	out, in := map[int][]int{}, map[int]int{}
	for _, ei := range d.edges {
		out[o.edges[ei].u] = append(out[o.edges[ei].u], ei)
		in[o.edges[ei].w]++
	}
	s, t := lw.invs[d.s].ID, lw.invs[d.t].ID
	for _, v := range d.nodes {
		if v != d.t && (in[v] != 1 || len(out[v]) != 1) {
			return "every two paths between " + s + " and " + t + " (a series-parallel block of " +
				strconv.Itoa(len(d.nodes)+1) + " invocations) that part at one invocation and meet again at another either both cross a kernel boundary between the two or neither does"
		}
	}
	var paths []string
	for _, first := range out[d.s] {
		path := s
		for ei := first; ; ei = out[o.edges[ei].w][0] {
			path += " -> " + lw.invs[o.edges[ei].w].ID
			if o.edges[ei].w == d.t {
				break
			}
		}
		paths = append(paths, path)
	}
	if len(paths) == 2 {
		return "the paths " + paths[0] + " and " + paths[1] + " either both cross a kernel boundary or neither does"
	}
	return "the paths " + strings.Join(paths[:len(paths)-1], ", ") + " and " + paths[len(paths)-1] + " either all cross a kernel boundary or none does"
}

// isDiamond reports whether block b is kept in order by flags.
func (o *orderSystem) isDiamond(b int) bool {
	return o != nil && o.diamond != nil && o.diamond[b]
}

// flagged is a Problem whose diamonds' nodes carry flags, and the maps
// back to the Problem it came from.
type flagged struct {
	p *Problem
	q Problem
	// base[v][a] is the alternative of p that q's alternative a of node v
	// is (nil for a node without flags: the same index); states[v] the
	// flag sets of a flagged node, alternative a holding states[v][a mod
	// len(states[v])].
	base   [][]int
	states [][]uint64
	// edgeOf[g] is the order edge of q's group len(p.Groups)+g.
	edgeOf []int
}

// flagDiamonds builds p's flagged problem, or nil when p has no diamonds.
// A flagged node's alternative a is q's 2a (flag 0) and 2a+1 (flag 1).
func flagDiamonds(p *Problem) *flagged {
	o := p.order
	if o == nil || len(o.diamonds) == 0 || o.unflagged {
		return nil
	}
	if o.flagBase == nil {
		// Built once (by markDiamonds), then only read: each flagged
		// node's base alternatives and flagged IDs.
		o.flagBase, o.flagIDs = make([][]int, len(p.Nodes)), make([][]string, len(p.Nodes))
		o.flagStates = make([][]uint64, len(p.Nodes))
		for _, d := range o.diamonds {
			for i, v := range d.nodes {
				alts, n := p.Nodes[v].Alternatives, len(d.states[i])
				base, ids := make([]int, 0, n*len(alts)), make([]string, 0, n*len(alts))
				for a, alt := range alts {
					for k := range n {
						base = append(base, a)
						ids = append(ids, alt.ID+"|"+strconv.Itoa(k))
					}
				}
				o.flagBase[v], o.flagIDs[v], o.flagStates[v] = base, ids, d.states[i]
			}
		}
	}
	f := &flagged{p: p, base: o.flagBase, states: o.flagStates}
	q := &f.q
	q.Budgets = p.Budgets
	q.Nodes = make([]Node, len(p.Nodes))
	copy(q.Nodes, p.Nodes)
	for v, base := range f.base {
		if base == nil {
			continue
		}
		twice := make([]Alternative, len(base))
		for a, b := range base {
			twice[a] = p.Nodes[v].Alternatives[b]
			twice[a].ID = o.flagIDs[v][a]
		}
		q.Nodes[v] = Node{Name: p.Nodes[v].Name, Alternatives: twice}
	}
	expand := func(labels []string, v int) []string {
		if f.base[v] == nil {
			return labels
		}
		out := make([]string, len(f.base[v]))
		for a, b := range f.base[v] {
			if b < len(labels) {
				out[a] = labels[b]
			}
		}
		return out
	}
	q.Groups = make([]Group, len(p.Groups), len(p.Groups)+len(o.flagEdges))
	for gi, g := range p.Groups {
		ng := g
		ng.Sources = expand(g.Sources, g.Producer)
		ng.Consumers = make([]Consumer, len(g.Consumers))
		for ci, c := range g.Consumers {
			ng.Consumers[ci] = Consumer{Node: c.Node, Targets: expand(c.Targets, c.Node)}
		}
		q.Groups[gi] = ng
	}
	f.flagGroups()
	// The order system carries over, the added blocks' states over q's
	// alternatives (only those are read), without the diamonds (Solve of
	// q flags nothing again).
	qo := &orderSystem{blocks: o.blocks, added: o.added, blockEdges: o.blockEdges, edges: make([]orderSysEdge, len(o.edges))}
	copy(qo.edges, o.edges)
	for i := range qo.edges {
		e := &qo.edges[i]
		if !o.added[e.block] {
			e.state = nil
			continue
		}
		if e.state == nil || f.base[e.u] == nil && f.base[e.w] == nil {
			continue
		}
		nu, nw := len(q.Nodes[e.u].Alternatives), len(q.Nodes[e.w].Alternatives)
		state := make([]int8, nu*nw)
		for au := range nu {
			for aw := range nw {
				state[au*nw+aw] = e.state[f.baseOf(e.u, au)*e.nw+f.baseOf(e.w, aw)]
			}
		}
		e.state, e.nw = state, nw
	}
	q.order = qo
	return f
}

// baseOf is p's alternative of q's alternative a of node v.
func (f *flagged) baseOf(v, a int) int {
	if f.base[v] == nil {
		return a
	}
	return f.base[v][a]
}

// stateOf is the index of the flag set of q's alternative a of node v (0
// without flags).
func (f *flagged) stateOf(v, a int) int {
	if f.base[v] == nil {
		return 0
	}
	return a % len(f.states[v])
}

// flagsOf is the flag set of q's alternative a of node v (none without
// flags).
func (f *flagged) flagsOf(v, a int) uint64 {
	if f.base[v] == nil {
		return 0
	}
	return f.states[v][a%len(f.states[v])]
}

// flagGroups are the zero-cost groups of the diamonds' edges, built once
// per order system: they depend only on the edges' states and labels.
func (f *flagged) flagGroups() {
	o := f.p.order
	if o.flagGroups == nil {
		sc := &flagScratch{flagged: map[labelState]string{}, uids: map[string]int{}, wids: map[string]int{}}
		for di := range o.diamonds {
			d := &o.diamonds[di]
			for i, ei := range d.edges {
				o.flagGroups = append(o.flagGroups, f.flagGroup(d, i, sc))
				o.flagEdges = append(o.flagEdges, ei)
			}
		}
	}
	f.q.Groups = append(f.q.Groups, o.flagGroups...)
	f.edgeOf = o.flagEdges
}

// flagScratch is what flagGroup keeps from one group to the next: the
// labels with each flag set (flagged), and buffers it reuses.
type flagScratch struct {
	flagged    map[labelState]string
	uids, wids map[string]int
	seen       []uint8
}

// A labelState is a label with a node's flag set (its index).
type labelState struct {
	label string
	state int
}

// flagGroup is the zero-cost group of d's edge i (u → w): it admits the
// pairs whose w flags follow from u's (none at s) and the edge's crossing
// (orderDiamond.admits), and no pair that cannot be converted. Its labels
// are the edge's own with the flag sets, so that alternatives with the
// same ports stay alike (and one may dominate the other), unless the
// edge's states differ between alternatives of the same labels: then each
// label is the alternative's index.
func (f *flagged) flagGroup(d *orderDiamond, i int, sc *flagScratch) Group {
	o := f.p.order
	e := &o.edges[d.edges[i]]
	eg := &f.p.Groups[e.gi]
	nu, nw := len(f.q.Nodes[e.u].Alternatives), len(f.q.Nodes[e.w].Alternatives)
	uState := func(a int) int {
		if e.u == d.s {
			return 0
		}
		return f.stateOf(e.u, a)
	}
	uFlags := func(a int) uint64 {
		if e.u == d.s {
			return 0
		}
		return f.flagsOf(e.u, a)
	}
	for _, byIndex := range []bool{false, true} {
		g := Group{Name: "kernel order at " + e.name, Producer: e.u, Sources: make([]string, nu),
			Consumers: []Consumer{{Node: e.w, Targets: make([]string, nw)}}}
		label := func(labels []string, b, state int) string {
			if byIndex {
				return strconv.Itoa(b) + "|" + strconv.Itoa(state)
			}
			k := labelState{labels[b], state}
			l, ok := sc.flagged[k]
			if !ok {
				l = labels[b] + "|" + strconv.Itoa(state)
				sc.flagged[k] = l
			}
			return l
		}
		for a := range nu {
			g.Sources[a] = label(eg.Sources, f.baseOf(e.u, a), uState(a))
		}
		for a := range nw {
			g.Consumers[0].Targets[a] = label(eg.Consumers[e.ci].Targets, f.baseOf(e.w, a), f.stateOf(e.w, a))
		}
		// Each side's labels as small integers, and each pair of them
		// seen: 0 not yet, 1 admitted, 2 not; then 3 once among the
		// pairs, which are counted first, for one allocation.
		clear(sc.uids)
		clear(sc.wids)
		su, tw := numberLabels(sc.uids, g.Sources), numberLabels(sc.wids, g.Consumers[0].Targets)
		ntw := len(sc.wids)
		sc.seen = slices.Grow(sc.seen[:0], len(sc.uids)*ntw)[:len(sc.uids)*ntw]
		seen := sc.seen
		clear(seen)
		consistent, admitted := true, 0
		for au := range nu {
			for aw := range nw {
				st := e.state[f.baseOf(e.u, au)*e.nw+f.baseOf(e.w, aw)]
				ok := st >= 0 && d.admits(i, uFlags(au), f.flagsOf(e.w, aw), st == 1)
				mark := uint8(2)
				if ok {
					mark = 1
				}
				k := su[au]*ntw + tw[aw]
				if seen[k] != 0 {
					consistent = consistent && seen[k] == mark
					continue
				}
				seen[k] = mark
				if ok {
					admitted++
				}
			}
		}
		if consistent {
			g.Pairs = make([]Pair, 0, admitted)
			for au := range nu {
				for aw := range nw {
					if k := su[au]*ntw + tw[aw]; seen[k] == 1 {
						seen[k] = 3
						g.Pairs = append(g.Pairs, Pair{Source: g.Sources[au], Target: g.Consumers[0].Targets[aw]})
					}
				}
			}
		}
		if consistent {
			return g
		}
	}
	panic("planner: a flag group by index is inconsistent")
}

// start is a start of p as one of q: each flag as the plan's paths set it,
// or nil where the start has a diamond out of order (or is not complete).
func (f *flagged) start(choices []int) []int {
	if choices == nil {
		return nil
	}
	o := f.p.order
	out := make([]int, len(choices))
	for v, a := range choices {
		out[v] = a
		if f.base[v] != nil && a >= 0 {
			out[v] = len(f.states[v]) * a
		}
	}
	for di := range o.diamonds {
		d := &o.diamonds[di]
		cross := make([]bool, len(d.edges))
		for i, ei := range d.edges {
			e := &o.edges[ei]
			au, aw := choices[e.u], choices[e.w]
			if au < 0 || aw < 0 {
				return nil
			}
			st := e.state[au*e.nw+aw]
			if st < 0 {
				return nil
			}
			cross[i] = st == 1
		}
		flags, ok := d.flagsFor(o, cross)
		if !ok {
			return nil
		}
		for i, v := range d.nodes {
			k := slices.Index(d.states[i], flags[v])
			if k < 0 {
				return nil
			}
			out[v] = len(d.states[i])*choices[v] + k
		}
	}
	return out
}

// flagsFor is each node's flag set where d's edges cross as cross says,
// or false where its kernels have no order.
func (d *orderDiamond) flagsFor(o *orderSystem, cross []bool) (map[int]uint64, bool) {
	flags := map[int]uint64{}
	// The flags each edge sets, in topological order: every edge into a
	// node before any out of it.
	set := map[int]uint64{}
	for i, ei := range d.edges {
		e := &o.edges[ei]
		mu := flags[e.u]
		if e.u == d.s {
			mu = 0
		}
		sets, want := d.edgeSrc[i]|d.edgeIn[i], mu&d.edgeIn[i]
		if cross[i] {
			want = sets
		}
		if (flags[e.w]^want)&sets&set[e.w] != 0 {
			return nil, false // two paths disagree: no order
		}
		flags[e.w] |= want
		set[e.w] |= sets
	}
	return flags, true
}

// solve solves q under opt (a start of p), and maps the solution back.
func (f *flagged) solve(solve func(*Problem, Options) (*Solution, error), opt Options) (*Solution, error) {
	qopt := opt
	qopt.Start = f.start(opt.Start)
	sol, err := solve(&f.q, qopt)
	if err != nil {
		var ie *InfeasibleError
		if errors.As(err, &ie) {
			f.backInfeasible(ie)
		}
		return sol, err
	}
	f.back(sol)
	return sol, nil
}

// backInfeasible maps an infeasibility of q to p: a diamond's group is
// its order edge.
func (f *flagged) backInfeasible(ie *InfeasibleError) {
	n := len(f.p.Groups)
	groups := ie.Groups[:0]
	for _, g := range ie.Groups {
		if g >= n {
			ie.orderEdges = append(ie.orderEdges, f.edgeOf[g-n])
			continue
		}
		groups = append(groups, g)
	}
	ie.Groups = groups
}

// back maps q's solution to p's.
func (f *flagged) back(sol *Solution) {
	if sol == nil {
		return
	}
	p := f.p
	for i := range sol.Choices {
		c := &sol.Choices[i]
		if f.base[c.Node] != nil {
			c.Alternative = f.baseOf(c.Node, c.Alternative)
			c.ID = p.Nodes[c.Node].Alternatives[c.Alternative].ID
		}
	}
	groups := sol.Groups[:0]
	for _, g := range sol.Groups {
		if g.Group < len(p.Groups) {
			groups = append(groups, g)
		}
	}
	sol.Groups = groups
	// A removal stands where both flags of its alternative were removed.
	removed := map[[2]int]int{}
	for _, r := range sol.Removed {
		removed[[2]int{r.Node, f.baseOf(r.Node, r.Alternative)}]++
	}
	kept := sol.Removed[:0]
	for _, r := range sol.Removed {
		if f.base[r.Node] == nil {
			kept = append(kept, r)
			continue
		}
		k := [2]int{r.Node, f.baseOf(r.Node, r.Alternative)}
		if n := len(f.states[r.Node]); removed[k] < n || r.Alternative%n != 0 {
			continue
		}
		r.Alternative, r.ID = k[1], p.Nodes[r.Node].Alternatives[k[1]].ID
		if r.DominatedBy >= 0 {
			r.DominatedBy = f.baseOf(r.Node, r.DominatedBy)
			r.Reason = "dominated by " + p.Nodes[r.Node].Alternatives[r.DominatedBy].ID
		}
		kept = append(kept, r)
	}
	sol.Removed = kept
	sol.Regrets = f.backRegrets(sol)
	alts := 0
	for v, n := range p.Nodes {
		for a, alt := range n.Alternatives {
			if alt.Removed == "" && !removedBase(removed, f, v, a) {
				alts++
			}
		}
	}
	sol.Model.Alternatives = alts
	sol.Local = localChoice(p)
}

// removedBase reports whether every flag of p's alternative a of v was
// removed in q.
func removedBase(removed map[[2]int]int, f *flagged, v, a int) bool {
	want := 1
	if f.base[v] != nil {
		want = len(f.states[v])
	}
	return removed[[2]int{v, a}] >= want
}

// backRegrets merges the regrets of an alternative's two flags into
// one: the least, exact where that least is proven below the other's
// lower end; the chosen alternative's other flag is no rejected
// alternative.
func (f *flagged) backRegrets(sol *Solution) []Regret {
	if sol.Regrets == nil {
		return nil
	}
	chosen := make(map[int]int, len(sol.Choices))
	for _, c := range sol.Choices {
		chosen[c.Node] = c.Alternative
	}
	out := sol.Regrets[:0]
	for i := 0; i < len(sol.Regrets); {
		r := sol.Regrets[i]
		if f.base[r.Node] == nil {
			out = append(out, r)
			i++
			continue
		}
		b := f.baseOf(r.Node, r.Alternative)
		j := i + 1
		for j < len(sol.Regrets) && sol.Regrets[j].Node == r.Node && f.baseOf(r.Node, sol.Regrets[j].Alternative) == b {
			j++
		}
		if c, ok := chosen[r.Node]; ok && c == b {
			i = j
			continue
		}
		m := r
		for _, s := range sol.Regrets[i+1 : j] {
			if s.Regret < m.Regret || s.Regret == m.Regret && s.Exact && !m.Exact {
				m = s
			}
		}
		lower := m.Lower
		for _, s := range sol.Regrets[i:j] {
			lower = min(lower, s.Lower)
		}
		m.Alternative, m.ID = b, f.p.Nodes[r.Node].Alternatives[b].ID
		m.Exact = m.Exact && lower >= m.Regret
		m.Tie = m.Tie && m.Exact
		m.Lower = lower
		if m.Exact {
			m.Lower = m.Regret
		}
		if m.DominatedBy >= 0 {
			m.DominatedBy = f.baseOf(r.Node, m.DominatedBy)
		}
		out = append(out, m)
		i = j
	}
	return out
}

// diamondCuts names the kernel-order conflicts that the diamonds' flags
// ruled out of sol, the plan: those of the cheapest plan without the
// flags, where that plan is cheaper (solveCrossings's first plan where it
// solved one, else a solve without regrets; where the
// caller bounds the plan's time (Options.timeBounded), given at least a
// second or twice the plan's solve, within what the plan left of the
// caller's time limit, and past it none are named; under a work budget
// (Options.RegretWork) and no time limit or deadline, twice the plan's
// simplex iterations instead). The
// report lists them as it lists the blocks the rounds added.
func (lw *lowering) diamondCuts(ctx context.Context, sol *Solution, so Options) {
	o := lw.problem.order
	if o == nil || len(o.diamonds) == 0 || sol.Status != Optimal || len(sol.Choices) != len(lw.invs) {
		return
	}
	s, err := lw.unflaggedPlan, error(nil)
	if s == nil {
		quiet := so
		quiet.NoRegrets, quiet.Start = true, nil
		quiet.TimeLimit = 0
		if so.RegretWork > 0 && !limited(ctx, &so) {
			// Under a work budget and no time limit, by work instead, the
			// same from run to run: twice the plan's simplex iterations,
			// at least orderRegretIterations.
			quiet.iterationLimit = max(2*sol.iterations, orderRegretIterations)
		} else if so.timeBounded(ctx) {
			quiet.TimeLimit = max(time.Second, 2*sol.SolveTime)
		}
		if so.TimeLimit > 0 {
			// Within the caller's time limit, what the plan left of it.
			if quiet.TimeLimit = min(quiet.TimeLimit, so.TimeLimit-sol.SolveTime); quiet.TimeLimit <= 0 {
				return
			}
		}
		o.unflagged = true
		s, err = Solve(ctx, &lw.problem, quiet)
		o.unflagged = false
	}
	if err != nil || s.Status != Optimal || !(s.Objective < sol.Objective-1e-9*math.Max(1, math.Abs(sol.Objective))) {
		return
	}
	edges := lw.orderEdges(s.alternatives())
	named := map[int]bool{}
	for _, c := range lw.orderCuts {
		named[c.block] = true
	}
	for _, c := range orderConflicts(edges, orderCutsPerRound) {
		first := edges[c[0]]
		b := o.edges[lw.orderIndex[first.gi]+first.ci].block
		if !o.isDiamond(b) || named[b] {
			continue
		}
		named[b] = true
		lw.orderCuts = append(lw.orderCuts, orderCut{block: b, what: lw.describeConflict(edges, c), inside: lw.insideEdges(edges, c)})
	}
}

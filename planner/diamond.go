package planner

import (
	"context"
	"errors"
	"math"
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

// An orderDiamond is a block of the order system that is k ≥ 2 directed
// paths from s to t sharing no other node.
type orderDiamond struct {
	block int
	s, t  int
	// edges are the paths' edges (indices into orderSystem.edges), each
	// path from s to t in turn.
	edges []int
	// nodes are the flagged nodes: the paths' inner nodes and t.
	nodes []int
	// describe says, in words, which paths must agree.
	describe string
}

// findDiamond reports whether block b of o is a diamond, and the
// diamond: k ≥ 2 directed paths from s to t that share no other node
// (every other node of the block on one edge in and one out).
func findDiamond(o *orderSystem, b int) (orderDiamond, bool) {
	edges := o.blockEdges[b]
	if len(edges) < 2 {
		return orderDiamond{}, false
	}
	out := map[int][]int{} // node → its block edges that leave it
	in := map[int][]int{}
	nodes := map[int]bool{}
	for _, ei := range edges {
		e := &o.edges[ei]
		out[e.u] = append(out[e.u], ei)
		in[e.w] = append(in[e.w], ei)
		nodes[e.u], nodes[e.w] = true, true
	}
	d := orderDiamond{block: b, s: -1, t: -1}
	for v := range nodes {
		switch {
		case len(in[v]) == 1 && len(out[v]) == 1:
		case len(in[v]) == 0 && len(out[v]) >= 2 && d.s < 0:
			d.s = v
		case len(out[v]) == 0 && len(in[v]) >= 2 && d.t < 0:
			d.t = v
		default:
			return orderDiamond{}, false
		}
	}
	if d.s < 0 || d.t < 0 || len(out[d.s]) != len(in[d.t]) {
		return orderDiamond{}, false
	}
	// Walk each path from s: every inner node has one edge in and one
	// out, so the walk ends at t; the walks cover the block.
	for _, first := range out[d.s] {
		for ei := first; ; ei = out[o.edges[ei].w][0] {
			d.edges = append(d.edges, ei)
			if w := o.edges[ei].w; w != d.t {
				d.nodes = append(d.nodes, w)
			} else {
				break
			}
		}
	}
	if len(d.edges) != len(edges) {
		return orderDiamond{}, false
	}
	d.nodes = append(d.nodes, d.t)
	return d, true
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

// describeDiamond names a diamond's paths.
func (lw *lowering) describeDiamond(o *orderSystem, d orderDiamond) string {
	var paths []string
	path := lw.invs[d.s].ID
	for _, ei := range d.edges {
		w := o.edges[ei].w
		path += " -> " + lw.invs[w].ID
		if w == d.t {
			paths = append(paths, path)
			path = lw.invs[d.s].ID
		}
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
	// is (nil for a node without flags: the same index).
	base [][]int
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
		for _, d := range o.diamonds {
			for _, v := range d.nodes {
				alts := p.Nodes[v].Alternatives
				base, ids := make([]int, 0, 2*len(alts)), make([]string, 0, 2*len(alts))
				for a, alt := range alts {
					base = append(base, a, a)
					ids = append(ids, alt.ID+"|0", alt.ID+"|1")
				}
				o.flagBase[v], o.flagIDs[v] = base, ids
			}
		}
	}
	f := &flagged{p: p, base: o.flagBase}
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

// flagOf is the flag of q's alternative a of node v (0 without flags).
func (f *flagged) flagOf(v, a int) int {
	if f.base[v] == nil {
		return 0
	}
	return a % 2
}

// flagGroups are the zero-cost groups of the diamonds' edges, built once
// per order system: they depend only on the edges' states and labels.
func (f *flagged) flagGroups() {
	o := f.p.order
	if o.flagGroups == nil {
		flagged := map[string][2]string{} // a label with each flag
		for _, d := range o.diamonds {
			for _, ei := range d.edges {
				o.flagGroups = append(o.flagGroups, f.flagGroup(ei, d.s, flagged))
				o.flagEdges = append(o.flagEdges, ei)
			}
		}
	}
	f.q.Groups = append(f.q.Groups, o.flagGroups...)
	f.edgeOf = o.flagEdges
}

// flagGroup is the zero-cost group of order edge ei (u → w) of a diamond
// from s: it admits the pairs whose w flag is u's (0 at s) or'ed with the
// edge's crossing, and no pair that cannot be converted. Its labels are
// the edge's own with the flag, so that alternatives with the same ports
// stay alike (and one may dominate the other), unless the edge's states
// differ between alternatives of the same labels: then each label is the
// alternative's index.
func (f *flagged) flagGroup(ei, s int, flagged map[string][2]string) Group {
	o := f.p.order
	e := &o.edges[ei]
	eg := &f.p.Groups[e.gi]
	nu, nw := len(f.q.Nodes[e.u].Alternatives), len(f.q.Nodes[e.w].Alternatives)
	uFlag := func(a int) int {
		if e.u == s {
			return 0
		}
		return f.flagOf(e.u, a)
	}
	for _, byIndex := range []bool{false, true} {
		g := Group{Name: "kernel order at " + e.name, Producer: e.u, Sources: make([]string, nu),
			Consumers: []Consumer{{Node: e.w, Targets: make([]string, nw)}}}
		label := func(labels []string, b, flag int) string {
			if byIndex {
				return strconv.Itoa(b) + "|" + strconv.Itoa(flag)
			}
			l, ok := flagged[labels[b]]
			if !ok {
				l = [2]string{labels[b] + "|0", labels[b] + "|1"}
				flagged[labels[b]] = l
			}
			return l[flag]
		}
		for a := range nu {
			g.Sources[a] = label(eg.Sources, f.baseOf(e.u, a), uFlag(a))
		}
		for a := range nw {
			g.Consumers[0].Targets[a] = label(eg.Consumers[e.ci].Targets, f.baseOf(e.w, a), f.flagOf(e.w, a))
		}
		// Each side's labels as small integers, and each pair of them
		// seen: 0 not yet, 1 admitted, 2 not.
		uids, wids := map[string]int{}, map[string]int{}
		su, tw := numberLabels(uids, g.Sources), numberLabels(wids, g.Consumers[0].Targets)
		ntw := len(wids)
		seen := make([]uint8, len(uids)*ntw)
		consistent := true
		for au := range nu {
			for aw := range nw {
				st := e.state[f.baseOf(e.u, au)*e.nw+f.baseOf(e.w, aw)]
				ok := st >= 0 && f.flagOf(e.w, aw) == uFlag(au)|int(st)
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
					g.Pairs = append(g.Pairs, Pair{Source: g.Sources[au], Target: g.Consumers[0].Targets[aw]})
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
			out[v] = 2 * a
		}
	}
	for _, d := range o.diamonds {
		flag := map[int]int{d.s: 0}
		for _, ei := range d.edges {
			e := &o.edges[ei]
			au, aw := choices[e.u], choices[e.w]
			if au < 0 || aw < 0 {
				return nil
			}
			st := e.state[au*e.nw+aw]
			if st < 0 {
				return nil
			}
			want := flag[e.u] | int(st)
			if e.w == d.t {
				if had, ok := flag[d.t]; ok && had != want {
					return nil
				}
			}
			flag[e.w] = want
			out[e.w] = 2*aw + want
		}
	}
	return out
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
		if removed[k] < 2 || r.Alternative%2 == 1 {
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
		want = 2
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
// flags, where that plan is cheaper (a solve without regrets, given at
// least a second or twice the plan's solve, within what the plan left of
// the caller's time limit; past it, none are named). The
// report lists them as it lists the blocks the rounds added.
func (lw *lowering) diamondCuts(ctx context.Context, sol *Solution, so Options) {
	o := lw.problem.order
	if o == nil || len(o.diamonds) == 0 || sol.Status != Optimal || len(sol.Choices) != len(lw.invs) {
		return
	}
	quiet := so
	quiet.NoRegrets, quiet.Start = true, nil
	quiet.TimeLimit = max(time.Second, 2*sol.SolveTime)
	if so.TimeLimit > 0 {
		// Within the caller's time limit, what the plan left of it.
		if quiet.TimeLimit = min(quiet.TimeLimit, so.TimeLimit-sol.SolveTime); quiet.TimeLimit <= 0 {
			return
		}
	}
	o.unflagged = true
	s, err := Solve(ctx, &lw.problem, quiet)
	o.unflagged = false
	if err != nil || s.Status != Optimal || !(s.Objective < sol.Objective-1e-9*math.Max(1, math.Abs(sol.Objective))) {
		return
	}
	edges := lw.orderEdges(s.alternatives())
	named := map[int]bool{}
	for _, c := range lw.orderCuts {
		named[c.block] = true
	}
	for _, c := range orderConflicts(len(lw.invs), edges, orderCutsPerRound) {
		first := edges[c[0]]
		b := o.edges[lw.orderIndex[first.gi]+first.ci].block
		if !o.isDiamond(b) || named[b] {
			continue
		}
		named[b] = true
		lw.orderCuts = append(lw.orderCuts, orderCut{block: b, what: lw.describeConflict(edges, c), inside: lw.insideEdges(edges, c)})
	}
}

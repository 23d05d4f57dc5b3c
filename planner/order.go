package planner

import (
	"math"
	"slices"

	"github.com/cklplan/cklplan/internal/highs"
)

// Kernel order as levels.
//
// A plan runs when its kernels (the invocations joined by edges inside
// one kernel) have an order in which every edge that crosses a boundary
// goes from an earlier kernel to a later one (kernelorder.go). Give each
// invocation a level: an edge inside a kernel keeps its ends' levels
// equal, and an edge that crosses raises the level by at least one. Such
// levels exist exactly when the plan's kernels have an order (a cycle of
// kernels, or an edge that crosses between two invocations of one kernel,
// would raise a level above itself; and without one, a kernel's level is
// its depth among the kernels).
//
// A conflict is a simple cycle of the graph's edges taken undirected, so
// it lies in one biconnected component (a block): the levels of each block
// are independent of the others', and a block whose edges no choice can
// make conflict needs none. Plan adds a block's levels when a plan it
// found has a conflict there (kernelorder.go), and solves again; each
// round adds a block, so the rounds end, and the last plan is optimal
// among every plan whose kernels have an order.
//
// A block that is a diamond (directed paths between two invocations that
// share no other, such as a residual edge beside a chain), or diamonds
// nested in one another's paths (series-parallel), needs no levels and no
// round: Solve keeps it in order with flags on its alternatives, exactly
// and within the reduction (diamond.go).
//
// In the MILP, a level is a continuous column in [0, M], M one less than
// the block's classes (its invocations joined by edges that stay inside
// one kernel whatever the plan), and each edge's rows are linear in its
// ends' x columns (orderRows): exact at every integral x.

// orderSystem is a Problem's kernel order: the edges that have one, their
// blocks, and the blocks whose levels are in the model.
type orderSystem struct {
	edges  []orderSysEdge
	blocks int
	added  []bool // block → its levels are in the model
	// blockEdges[b] are block b's edges (indices into edges).
	blockEdges [][]int
	// diamonds are the blocks that Solve keeps in order with flags
	// instead of levels (diamond.go); diamond[b] says whether block b is
	// one. Such a block is never added.
	diamonds []orderDiamond
	diamond  []bool
	// flagGroups are the diamonds' groups, by edge of flagEdges (built
	// once, by markDiamonds).
	flagGroups []Group
	flagEdges  []int
	// flagBase[v] are a flagged node's base alternatives, by flagged
	// alternative (nil for a node without flags); flagIDs their IDs.
	flagBase [][]int
	flagIDs  [][]string
	// flagStates[v] are a flagged node's flag sets (orderDiamond.states).
	flagStates [][]uint64
	// unflagged, while set, has Solve leave the diamonds without flags
	// (diamondCuts).
	unflagged bool
	// nodeEdges[v] are the edges at node v.
	nodeEdges [][]int
}

// An orderSysEdge is one edge of the main groups, whose state (inside one
// kernel, or crossing a boundary) is a function of its ends' alternatives.
type orderSysEdge struct {
	u, w int // producer and consumer nodes
	// gi, ci are the lowered graph's group and consumer (kernelorder.go).
	gi, ci int
	block  int
	name   string
	// state[au*nw+aw] for the alternatives au of u and aw of w: 0 inside
	// one kernel, 1 crossing, -1 not convertible (no plan has it); nil
	// until the edge's block is added.
	state []int8
	nw    int
}

// any reports whether any block's levels are in the model.
func (o *orderSystem) any() bool {
	return o != nil && slices.Contains(o.added, true)
}

// ordered reports whether p has kernel-order levels in its model: the
// searches that do not know them (the branch and bound, the
// large-neighbourhood search, the windows and certificates of the regrets)
// leave such a problem to HiGHS.
func (p *Problem) ordered() bool { return p.order.any() }

// conflict is an edge of an added block whose kernels under choices (an
// alternative per node) have no order, or -1 (orderMeasure, over the
// block's edges in their states).
func (o *orderSystem) conflict(choices []int) int {
	if !o.any() {
		return -1
	}
	var m *orderMeasure
	var edges []orderEdge
	for b, added := range o.added {
		if !added {
			continue
		}
		edges = edges[:0]
		for _, ei := range o.blockEdges[b] {
			e := &o.edges[ei]
			edges = append(edges, orderEdge{gi: e.gi, ci: e.ci, u: e.u, w: e.w, cross: e.state[choices[e.u]*e.nw+choices[e.w]] == 1})
		}
		if m == nil {
			m = newOrderMeasure(len(choices))
		}
		if m.of(edges) > 0 {
			return o.blockEdges[b][0]
		}
	}
	return -1
}

// edgeBlocks returns the biconnected component of each edge of an
// undirected multigraph on n nodes (ends[i] the ends of edge i), and their
// number, by Hopcroft and Tarjan's depth-first search, iteratively.
func edgeBlocks(n int, ends [][2]int) ([]int, int) {
	adj := make([][]int, n)
	for i, e := range ends {
		adj[e[0]] = append(adj[e[0]], i)
		if e[1] != e[0] {
			adj[e[1]] = append(adj[e[1]], i)
		}
	}
	disc, low := make([]int, n), make([]int, n)
	block := make([]int, len(ends))
	for i := range block {
		block[i] = -1
	}
	type frame struct{ v, parent, next int }
	var stack []int // edges not yet in a block
	var frames []frame
	t, nb := 0, 0
	for r := range n {
		if disc[r] != 0 {
			continue
		}
		t++
		disc[r], low[r] = t, t
		frames = append(frames[:0], frame{r, -1, 0})
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			if f.next < len(adj[f.v]) {
				ei := adj[f.v][f.next]
				f.next++
				if ei == f.parent {
					continue
				}
				w := ends[ei][0]
				if w == f.v {
					w = ends[ei][1]
				}
				switch {
				case disc[w] == 0:
					stack = append(stack, ei)
					t++
					disc[w], low[w] = t, t
					frames = append(frames, frame{w, ei, 0})
				case disc[w] < disc[f.v]:
					stack = append(stack, ei) // a back edge, seen from below
					low[f.v] = min(low[f.v], disc[w])
				}
				continue
			}
			v, pe := f.v, f.parent
			frames = frames[:len(frames)-1]
			if len(frames) == 0 {
				break
			}
			u := frames[len(frames)-1].v
			low[u] = min(low[u], low[v])
			if low[v] >= disc[u] {
				for {
					e := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					block[e] = nb
					if e == pe {
						break
					}
				}
				nb++
			}
		}
	}
	return block, nb
}

// orderModel is the order system compiled over an instance's domains: the
// level columns and rows of the added blocks.
type orderModel struct {
	levels []orderLevel
	rows   []orderRow
	// nodeLevel[b] maps block b's nodes to their level (index into levels).
	nodeLevel map[int]map[int]int
	blocks    []int // the added blocks, ascending
}

// orderLevel is one column of the order model: a level of a class of a
// block (edge −1), or whether an edge crosses (edge its index, in [0, 1]).
type orderLevel struct {
	block int
	upper float64
	edge  int
}

// orderTerm is a term of an order row: x[node, k] (node ≥ 0) or a level
// (node < 0).
type orderTerm struct {
	node, k, level int
	coef           float64
}

type orderRow struct {
	lo, hi float64
	edge   int // index into orderSystem.edges
	terms  []orderTerm
}

// compileOrder compiles p's order system over in's domains, and marks the
// nodes whose x its rows use as touched (they stay in the core).
func compileOrder(in *instance) *orderModel {
	o := in.p.order
	if !o.any() {
		return nil
	}
	om := &orderModel{nodeLevel: map[int]map[int]int{}}
	for b, added := range o.added {
		if added {
			om.blocks = append(om.blocks, b)
		}
	}
	for _, b := range om.blocks {
		edges := o.blockEdges[b]
		// Classes: the block's nodes joined by edges inside one kernel
		// whatever the plan.
		local := map[int]int{}
		var nodes []int
		for _, ei := range edges {
			for _, v := range []int{o.edges[ei].u, o.edges[ei].w} {
				if _, ok := local[v]; !ok {
					local[v] = len(nodes)
					nodes = append(nodes, v)
				}
			}
		}
		uf := newUnionFind(len(nodes))
		kinds := make([]int8, len(edges))
		for i, ei := range edges {
			kinds[i] = in.orderKind(&o.edges[ei])
			if kinds[i] == 0 {
				e := &o.edges[ei]
				uf[uf.find(local[e.u])] = uf.find(local[e.w])
			}
		}
		classOf := map[int]int{}
		levelOf := map[int]int{}
		for _, v := range nodes {
			root := uf.find(local[v])
			c, ok := classOf[root]
			if !ok {
				c = len(om.levels)
				classOf[root] = c
				om.levels = append(om.levels, orderLevel{block: b, edge: -1})
			}
			levelOf[v] = c
		}
		upper := math.Max(1, float64(len(classOf)-1))
		for c := range om.levels {
			if om.levels[c].block == b && om.levels[c].edge < 0 {
				om.levels[c].upper = upper
			}
		}
		om.nodeLevel[b] = levelOf
		// crossCol[i] is edge i's crossing column, where the choices
		// decide it (-1 where fixed).
		crossCol := make([]int, len(edges))
		for i, ei := range edges {
			e := &o.edges[ei]
			lu, lw := levelOf[e.u], levelOf[e.w]
			crossCol[i] = -1
			switch kinds[i] {
			case 0, 2: // inside whatever the plan (joined), or no plan has it
			case 1:
				om.add(ei, 1, math.Inf(1), orderTerm{node: -1, level: lw, coef: 1}, orderTerm{node: -1, level: lu, coef: -1})
			default:
				in.touched[e.u], in.touched[e.w] = true, true
				crossCol[i] = len(om.levels)
				om.levels = append(om.levels, orderLevel{block: b, upper: 1, edge: ei})
				om.edgeRows(in, ei, e, crossCol[i])
				c := orderTerm{node: -1, level: crossCol[i], coef: 1}
				// lw − lu ≥ c, and lw − lu ≤ M·c.
				om.add(ei, 0, math.Inf(1), orderTerm{node: -1, level: lw, coef: 1}, orderTerm{node: -1, level: lu, coef: -1}, orderTerm{node: -1, level: c.level, coef: -1})
				om.add(ei, math.Inf(-1), 0, orderTerm{node: -1, level: lw, coef: 1}, orderTerm{node: -1, level: lu, coef: -1}, orderTerm{node: -1, level: c.level, coef: -upper})
			}
		}
		om.cycleRows(o, edges, kinds, crossCol)
	}
	if !slices.Contains(in.touched, true) && len(om.rows) > 0 {
		// Rows of levels alone (every edge's state fixed, by pins or
		// by the domains): they hold or not whatever the plan, but
		// only a model tells, so the blocks' nodes stay in the core.
		for _, b := range om.blocks {
			for v := range om.nodeLevel[b] {
				in.touched[v] = true
			}
		}
	}
	return om
}

// orderKind is an edge's state over the domains: 0 inside one kernel, 1
// crossing, whatever its ends choose; 2 when no pair is convertible; -1
// when the choices decide.
func (in *instance) orderKind(e *orderSysEdge) int8 {
	kind := int8(2)
	for _, au := range in.domain[e.u] {
		for _, aw := range in.domain[e.w] {
			s := e.state[au*e.nw+aw]
			switch {
			case s < 0:
			case kind == 2:
				kind = s
			case kind != s:
				return -1
			}
		}
	}
	return kind
}

// add appends a row lo ≤ Σ terms ≤ hi, the terms of one column summed.
func (om *orderModel) add(edge int, lo, hi float64, terms ...orderTerm) {
	var out []orderTerm
	for _, t := range terms {
		i := slices.IndexFunc(out, func(o orderTerm) bool {
			return o.node == t.node && (t.node < 0 && o.level == t.level || t.node >= 0 && o.k == t.k)
		})
		if i < 0 {
			out = append(out, t)
			continue
		}
		out[i].coef += t.coef
	}
	out = slices.DeleteFunc(out, func(t orderTerm) bool { return t.coef == 0 })
	om.rows = append(om.rows, orderRow{lo: lo, hi: hi, edge: edge, terms: out})
}

// edgeRows bounds the crossing column c of an edge whose state its ends'
// choices decide. For each of u's domain positions ku: cross(ku) are w's
// positions with which the edge crosses, in(ku) those with which it stays
// inside (the rest are not convertible). Then, at every integral x:
//
//	c ≥ Σ_{ku: in(ku) = ∅} x[u,ku]                       (and so for w)
//	c ≤ Σ_{ku: cross(ku) ≠ ∅ or none} x[u,ku]           (and so for w)
//	c ≥ Σ_{ku ∈ G} x[u,ku] + Σ_{kw ∈ cross(G)} x[w,kw] − 1
//	c ≤ 1 − Σ_{ku ∈ G} x[u,ku] + Σ_{kw ∉ in(G)} x[w,kw]
//
// for each group G of u's positions with both that have the same states
// against every kw (the last two for the side with fewer such positions,
// at most one of a group chosen): whatever pair the
// plan takes, a crossing pair makes one of the first or third rows say
// c ≥ 1, and a pair inside one of the second or fourth say c ≤ 0.
func (om *orderModel) edgeRows(in *instance, ei int, e *orderSysEdge, col int) {
	du, dw := in.domain[e.u], in.domain[e.w]
	st := func(ku, kw int) int8 { return e.state[du[ku]*e.nw+dw[kw]] }
	c := []orderTerm{{node: -1, level: col, coef: 1}}
	// side describes one end: for each of its positions whether some
	// pair crosses, and whether some stays inside.
	side := func(n int, other int, at func(k, j int) int8) (cross, inside []bool) {
		cross, inside = make([]bool, n), make([]bool, n)
		for k := range n {
			for j := range other {
				switch at(k, j) {
				case 1:
					cross[k] = true
				case 0:
					inside[k] = true
				}
			}
		}
		return cross, inside
	}
	uCross, uIn := side(len(du), len(dw), st)
	wCross, wIn := side(len(dw), len(du), func(kw, ku int) int8 { return st(ku, kw) })
	ends := []struct {
		node          int
		cross, inside []bool
		at            func(k, j int) int8
		other         int
	}{
		{e.u, uCross, uIn, st, e.w},
		{e.w, wCross, wIn, func(kw, ku int) int8 { return st(ku, kw) }, e.u},
	}
	mixed := [2]int{}
	for s, end := range ends {
		lower := slices.Clone(c)
		upper := slices.Clone(c)
		anyIn := false
		for k := range end.cross {
			if end.cross[k] && !end.inside[k] {
				lower = append(lower, orderTerm{node: end.node, k: k, coef: -1})
			}
			if end.inside[k] && !end.cross[k] {
				anyIn = true
			} else {
				upper = append(upper, orderTerm{node: end.node, k: k, coef: -1})
			}
			if end.cross[k] && end.inside[k] {
				mixed[s]++
			}
		}
		if len(lower) > 1 {
			om.add(ei, 0, math.Inf(1), lower...)
		}
		if anyIn {
			om.add(ei, math.Inf(-1), 0, upper...)
		}
	}
	s := 0
	if mixed[1] < mixed[0] {
		s = 1
	}
	end := ends[s]
	n := len(dw)
	if s == 1 {
		n = len(du)
	}
	// Positions whose states against the other end agree share their
	// rows (at most one of them is chosen): tighter than a row each.
	var keys []string
	groups := map[string][]int{}
	for k := range end.cross {
		if !end.cross[k] || !end.inside[k] {
			continue
		}
		key := make([]byte, n)
		for j := range n {
			key[j] = byte(end.at(k, j) + 1)
		}
		if _, ok := groups[string(key)]; !ok {
			keys = append(keys, string(key))
		}
		groups[string(key)] = append(groups[string(key)], k)
	}
	for _, key := range keys {
		lower := slices.Clone(c)
		upper := slices.Clone(c)
		for _, k := range groups[key] {
			lower = append(lower, orderTerm{node: end.node, k: k, coef: -1})
			upper = append(upper, orderTerm{node: end.node, k: k, coef: 1})
		}
		for j := range n {
			switch int8(key[j]) - 1 {
			case 1:
				lower = append(lower, orderTerm{node: end.other, k: j, coef: -1})
				upper = append(upper, orderTerm{node: end.other, k: j, coef: -1})
			case -1:
				upper = append(upper, orderTerm{node: end.other, k: j, coef: -1})
			}
		}
		om.add(ei, -1, math.Inf(1), lower...)
		om.add(ei, math.Inf(-1), 1, upper...)
	}
}

// maxCycle bounds the cycles of a block whose rows cycleRows adds, and
// maxCycleRows their rows, per edge of the block. Measured on
// BenchmarkKernelOrder's graphs (2026-12-05): cycles of at most 4 edges
// took the proof of 100 invocations from 38 s to 30 s, of 6 to 26 s, of 8
// to 32 s (more rows, no tighter).
const (
	maxCycle     = 6
	maxCycleRows = 16
)

// cycleRows adds, for each simple cycle of at most maxCycle of a block's
// edges (taken undirected) and each direction around it, the row that an
// edge crossing along the direction needs an edge crossing against it:
// the crossing edges of a cycle all along one direction would make a cycle
// of kernels (or cross inside one), so c_e ≤ Σ_{f against} c_f for each
// e along. Exact levels need none of these; they make the relaxation of
// the levels' big-M rows tighter (on a triangle u→v→w with u→w, u→w
// crosses where u→v or v→w does). crossCol[i] is edges[i]'s crossing
// column, or -1 where kinds[i] fixes it (0 inside, 1 crossing, 2 no
// plan).
func (om *orderModel) cycleRows(o *orderSystem, edges []int, kinds []int8, crossCol []int) {
	adj := map[int][]int{} // node → indices into edges
	for i, ei := range edges {
		e := &o.edges[ei]
		adj[e.u] = append(adj[e.u], i)
		adj[e.w] = append(adj[e.w], i)
	}
	seen := map[string]bool{}
	// The cycles of a dense block are many: past maxCycleRows rows an
	// edge, the levels do without more.
	budget := maxCycleRows * len(edges)
	var path []int // indices into edges
	var forward []bool
	var walk func(start, at int)
	emit := func() {
		key := make([]byte, 0, 4*len(path))
		sorted := slices.Clone(path)
		slices.Sort(sorted)
		for _, i := range sorted {
			key = append(key, byte(i), byte(i>>8), byte(i>>16), byte(i>>24))
		}
		if seen[string(key)] || budget <= 0 {
			return
		}
		seen[string(key)] = true
		for _, along := range []bool{true, false} {
			// Each edge along the direction against the edges against it.
			var against []orderTerm
			constant := 0.0 // crossing edges against it, fixed
			ok := true
			for j, i := range path {
				if forward[j] == along {
					continue
				}
				switch {
				case kinds[i] == 2:
					ok = false
				case crossCol[i] >= 0:
					against = append(against, orderTerm{node: -1, level: crossCol[i], coef: -1})
				case kinds[i] == 1:
					constant++
				}
			}
			if !ok || constant > 0 {
				continue // no plan has it, or it holds whatever the plan
			}
			for j, i := range path {
				if forward[j] != along || crossCol[i] < 0 {
					continue
				}
				om.add(edges[i], math.Inf(-1), 0, append([]orderTerm{{node: -1, level: crossCol[i], coef: 1}}, against...)...)
				budget--
			}
		}
	}
	walk = func(start, at int) {
		for _, i := range adj[at] {
			if budget <= 0 {
				return
			}
			if slices.Contains(path, i) || len(path) > 0 && i < path[0] {
				continue // each cycle from its least edge
			}
			e := &o.edges[edges[i]]
			next, fwd := e.w, true
			if next == at {
				next, fwd = e.u, false
			}
			path, forward = append(path, i), append(forward, fwd)
			if next == start {
				if len(path) >= 2 {
					emit()
				}
			} else if len(path) < maxCycle {
				onPath := false
				for j, pi := range path[:len(path)-1] {
					pe := &o.edges[edges[pi]]
					from := pe.u
					if !forward[j] {
						from = pe.w
					}
					if from == next {
						onPath = true
						break
					}
				}
				if !onPath {
					walk(start, next)
				}
			}
			path, forward = path[:len(path)-1], forward[:len(forward)-1]
		}
	}
	for i, ei := range edges {
		e := &o.edges[ei]
		path, forward = append(path[:0], i), append(forward[:0], true)
		if e.w == e.u {
			continue
		}
		walk(e.u, e.w)
	}
}

// addTo appends the order model's columns and rows to cm.
func (om *orderModel) addTo(cm *coreModel, addRow func(rowRef, float64, float64, []highs.Term)) {
	first := len(cm.model.Columns)
	for i, l := range om.levels {
		cm.addCol(highs.Column{Upper: l.upper}, colRef{kind: colLevel, entry: i})
	}
	for _, r := range om.rows {
		terms := make([]highs.Term, len(r.terms))
		for i, t := range r.terms {
			col := first + t.level
			if t.node >= 0 {
				col = cm.xcol[t.node] + t.k
			}
			terms[i] = highs.Term{Col: col, Coef: t.coef}
		}
		addRow(rowRef{kind: rowOrder, edge: r.edge}, r.lo, r.hi, terms)
	}
}

// levelsAt are the level columns' values at a full assignment (node →
// domain position): in each block, its kernels' depths in their order; 0
// in a block whose kernels have none (the point is then infeasible).
func (om *orderModel) levelsAt(in *instance, asg []int) []float64 {
	out := make([]float64, len(om.levels))
	o := in.p.order
	for _, b := range om.blocks {
		levelOf := om.nodeLevel[b]
		uf := newUnionFind(len(om.levels))
		for _, ei := range o.blockEdges[b] {
			e := &o.edges[ei]
			if e.state[in.domain[e.u][asg[e.u]]*e.nw+in.domain[e.w][asg[e.w]]] == 0 {
				uf[uf.find(levelOf[e.u])] = uf.find(levelOf[e.w])
			}
		}
		// Longest paths over the crossing edges between the kernels, by
		// relaxation: at most as many passes as kernels.
		depth := map[int]float64{}
		for pass := 0; ; pass++ {
			changed := false
			for _, ei := range o.blockEdges[b] {
				e := &o.edges[ei]
				if e.state[in.domain[e.u][asg[e.u]]*e.nw+in.domain[e.w][asg[e.w]]] != 1 {
					continue
				}
				ku, kw := uf.find(levelOf[e.u]), uf.find(levelOf[e.w])
				if d := depth[ku] + 1; d > depth[kw] {
					depth[kw], changed = d, true
				}
			}
			if !changed {
				break
			}
			if pass > len(levelOf) {
				clear(depth) // a cycle
				break
			}
		}
		for _, l := range levelOf {
			out[l] = depth[uf.find(l)]
		}
	}
	for i, l := range om.levels {
		if l.edge >= 0 {
			e := &o.edges[l.edge]
			if e.state[in.domain[e.u][asg[e.u]]*e.nw+in.domain[e.w][asg[e.w]]] == 1 {
				out[i] = 1
			}
		}
	}
	return out
}

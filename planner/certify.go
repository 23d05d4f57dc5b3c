package planner

import (
	"context"
	"math"
	"slices"

	"github.com/cklplan/cklplan/internal/highs"
)

// Certified regrets: a query answered by a small LP and a plan, without
// re-solving the core.
//
// Let y be any multipliers of the core's rows (≥ 0 on a row held by its
// lower bound, ≤ 0 on one held by its upper bound) and d = c − Aᵀy. For
// every plan x of a query (some x fixed to 0), c·x = Σ_i y_i (A x)_i + d·x,
// so keeping the rows R of a region and pricing the others by y,
//
//	L_R(y) = Σ_{i∉R} y_i b_i + min { d_R·x : x in its box, the rows R hold }
//
// where d_R = c − Σ_{i∉R} y_i A_i, is a lower bound on the query's optimum,
// whatever y is. The root LP's duals make it strong, and its minimum is a
// small LP over the columns of R alone (every other column is at the end
// of its box that d prices lower, a constant). The region is the query's
// nodes, their choice rows and the rows of every live term over them.
//
// The inner minimum stays a lower bound over integral choices alone, at
// least the LP's, and elimination computes it (certelim.go); the small LP
// is what a region too large to eliminate falls back to.
//
// An upper bound is a plan: the optimum outside the region, the small LP's
// choices inside it (when they are integral), or the elimination's argmin
// over the region and its boundary. Where the two meet, the plan
// is optimal and the query is answered exactly. Where they do not, the LP
// priced a neighbour's change by y, and the region grows by the neighbours
// whose columns the LP moved away from the optimum; past a few rounds, or
// when its choices are fractional, the query goes to a re-solve of the core.

// certifyRounds bounds a query's regions, and certifyColumns (a fraction
// of the core's columns) their small LPs' columns, before it falls back to
// an LP re-solve of the core: on the dense 1,000-node DAG (23,030 columns)
// a small LP of 2,000 columns takes about as long as a warm re-solve of the
// core (10–20 ms), larger ones longer. Where that LP is fractional, the
// MILP of the whole core follows (compacted: compact.go), which since
// 2026-12-07 costs less than certificates of larger regions solved as
// MILPs (up to half the core's columns) did. Fewer than certifyQueries
// queries are all re-solved: the interior point solve that prices the
// certificates costs about as much as 50 warm re-solves.
// Six rounds left gen dag --invocations 1000 --exec-scale 100 --seed 2 62
// queries still growing, whose re-solves took 1.4 s; ten leave none (every
// regret 5.9 s → 4.6 s, seed 1 5.0–5.3 s → 4.8 s), and on the engine's
// dense DAG, whose misses are stuck, not growing, cost nothing (33.8 s,
// 1,266 re-solves instead of 1,305).
//
// Under a time limit the cheap certificates should come first: on the
// dense 1,000-node DAG, of the 1,794 certified queries 635 are certified
// by their first region (170 columns on average) and 897 by their second
// (985), while the queries no region certifies spend every round, up to
// the column limit. So the rounds are taken in passes over every open
// query (certifyPasses: the first region of each, then the second, then
// the rest, a round at a time), each query going on from its last region.
// Within a round, the queries of one node set at one region share that
// region's elimination (certifyRound; prepare in certelim.go): every other
// choice of a node starts at the same region, and on that DAG the 6,926
// queries of the second round stand at 2,414 regions.
const (
	certifyRounds     = 10
	certifyColumns    = 10 // a tenth of the core's
	certifyQueries    = 100
	certifyMinColumns = 500 // whatever the core's size
	certifySample     = 100 // certifySampled
)

// certifyPasses are the rounds of each pass; they sum to certifyRounds.
var certifyPasses = [...]int{1, 1, certifyRounds - 2}

// columnLimit is the core's columns divided by fraction, at least
// certifyMinColumns.
func (c *certifier) columnLimit(fraction int) int {
	return max(len(c.rg.cm.model.Columns)/fraction, certifyMinColumns)
}

// A certifier holds what every query's certificate shares: the root LP's
// multipliers and the optimum's point.
type certifier struct {
	rg      *regrets
	y       []float64 // row multipliers, their signs made valid
	d       []float64 // reduced costs c − Aᵀy
	costs   []float64 // the columns' costs less the appended rows' prices (nil: their costs)
	boxMin  []float64 // per column, min of d_j x_j over its box
	base    float64   // L(y) over no kept row: Σ y_i b_i + Σ boxMin + offset
	colRows [][]highs.Term
	star    []float64 // the optimum's point
	act     []float64 // row activities at star
	cost    float64   // c·star + offset
	termsOf [][]int   // core node → the core terms over it
	ones    []int     // core term → its y columns at 1 in a plan: its edges (delta)
	colTerm []int     // column → its core term (x columns: -1)
	tol     float64
	// tables are the core terms' cost functions over their classes, for
	// the regions' eliminations (certelim.go): nil where a term's columns
	// are not fixed by its scope's choices at its cost (a budget, a
	// shared conversion below 0) or it has over certifyTable entries.
	tables [][]float64
	// priced marks the core terms none of whose columns a budget uses,
	// whose plan's cost delta reads off the term's function; starCost is
	// that cost at the optimum.
	priced   []bool
	starCost []float64
	targets  int // the most targets of a group (a worker's seen)
	// shared marks the fan-out groups among them, eliminated through
	// auxiliary variables instead of a table (certelim.go, addShared).
	shared []bool
	// xBudget marks the core nodes an x column of which a budget uses.
	xBudget []bool
}

// newCertifier prices the core's rows by the LP duals rowDuals.
func newCertifier(rg *regrets, rowDuals []float64) *certifier {
	return newCertifierOn(rg, nil, rowDuals)
}

// newCertifierOn prices the rows of lp, the core's LP relaxation with
// rows and columns appended (clusterFanOuts; nil: none), by its duals
// rowDuals. The appended rows are never kept: priced, they move into
// the core columns' costs (c.costs) and the bound's constant (c.base,
// with the appended columns at their box minima), and a term whose
// columns they price is left to the small LPs.
func newCertifierOn(rg *regrets, lp *highs.Model, rowDuals []float64) *certifier {
	cm := rg.cm
	m := &cm.model
	c := &certifier{rg: rg, y: make([]float64, len(m.Rows)), d: make([]float64, len(m.Columns)),
		boxMin: make([]float64, len(m.Columns)), colRows: make([][]highs.Term, len(m.Columns)),
		act: make([]float64, len(m.Rows)), termsOf: make([][]int, len(rg.asg))}
	c.star = cm.point(rg.r, rg.asg)
	c.tol = math.Max(rg.opt.absoluteGap(), rg.opt.relativeGap()*math.Abs(rg.opt0))
	for j, col := range m.Columns {
		c.d[j] = col.Cost
		c.cost += col.Cost * c.star[j]
	}
	c.cost += m.Offset
	c.base = m.Offset
	for i, row := range m.Rows {
		y := validDual(row, rowDuals[i])
		c.y[i] = y
		c.base += y * rowBound(row, y)
		for _, t := range row.Terms {
			c.d[t.Col] -= y * t.Coef
			c.colRows[t.Col] = append(c.colRows[t.Col], highs.Term{Col: i, Coef: t.Coef})
			c.act[i] += t.Coef * c.star[t.Col]
		}
	}
	var moved []bool // the core columns an appended row prices
	if lp != nil && len(lp.Rows) > len(m.Rows) {
		moved = make([]bool, len(m.Columns))
		c.costs = make([]float64, len(m.Columns))
		for j, col := range m.Columns {
			c.costs[j] = col.Cost
		}
		extra := make([]float64, len(lp.Columns)-len(m.Columns))
		for j := range extra {
			extra[j] = lp.Columns[len(m.Columns)+j].Cost
		}
		for i := len(m.Rows); i < len(lp.Rows); i++ {
			row := lp.Rows[i]
			y := validDual(row, rowDuals[i])
			c.base += y * rowBound(row, y)
			for _, t := range row.Terms {
				if t.Col < len(m.Columns) {
					c.d[t.Col] -= y * t.Coef
					c.costs[t.Col] -= y * t.Coef
					moved[t.Col] = moved[t.Col] || y != 0
				} else {
					extra[t.Col-len(m.Columns)] -= y * t.Coef
				}
			}
		}
		for j, d := range extra {
			col := lp.Columns[len(m.Columns)+j]
			c.base += boxMin(d, col.Lower, col.Upper)
		}
	}
	for j, col := range m.Columns {
		c.boxMin[j] = boxMin(c.d[j], col.Lower, col.Upper)
		c.base += c.boxMin[j]
	}
	c.colTerm = make([]int, len(m.Columns))
	for j := range c.colTerm {
		c.colTerm[j] = -1
	}
	c.ones = make([]int, len(cm.terms))
	for t, ct := range cm.terms {
		for _, v := range ct.scope {
			c.termsOf[v] = append(c.termsOf[v], t)
		}
		c.ones[t] = 1
		if g := rg.r.terms[ct.term].group; g >= 0 {
			c.ones[t] = len(rg.r.in.groups[g].consumers)
		}
		for j := ct.colStart; j < ct.colEnd; j++ {
			c.colTerm[j] = t
		}
	}
	c.xBudget = make([]bool, len(rg.asg))
	for _, v := range rg.r.core {
		for k := range rg.r.in.domain[v] {
			c.xBudget[v] = c.xBudget[v] || c.budgeted(cm.xcol[v]+k)
		}
	}
	c.tables, c.shared = make([][]float64, len(cm.terms)), make([]bool, len(cm.terms))
	c.priced, c.starCost = make([]bool, len(cm.terms)), make([]float64, len(cm.terms))
	sc := rg.r.in.newScratch()
	c.targets = len(sc.seen)
	for t, ct := range cm.terms {
		c.tables[t], c.shared[t] = c.termTable(t, sc)
		c.priced[t] = true
		for j := ct.colStart; j < ct.colEnd; j++ {
			c.priced[t] = c.priced[t] && !c.budgeted(j)
		}
		if c.priced[t] {
			c.starCost[t] = rg.r.in.eval(&rg.r.terms[ct.term], rg.asg, sc.seen)
		}
		if moved != nil && slices.Contains(moved[ct.colStart:ct.colEnd], true) {
			// Its function is not what its columns cost now.
			c.tables[t], c.shared[t] = nil, false
		}
	}
	return c
}

// belowOptimum reports whether the certificates' bound at the root, L(y),
// is below the optimum by more than the tolerance and the interior point
// solve's own error (1e-8 of the optimum; its duals are optimal to 1e-10
// relative): on the engine's dense DAG L(y) is 2.4e-7 ns below, on gen dag
// --invocations 300 --exec-scale 100 --seed 3 6.5e-6 ns, both tight.
func (c *certifier) belowOptimum() bool {
	return c.rg.opt0-c.base > math.Max(c.tol, 1e-8*math.Abs(c.rg.opt0))
}

// colCost is column j's cost, its appended rows priced (newCertifierOn).
func (c *certifier) colCost(j int) float64 {
	if c.costs != nil {
		return c.costs[j]
	}
	return c.rg.cm.model.Columns[j].Cost
}

// validDual is y with the sign a multiplier of row needs (0 where the
// row has no bound on its side).
func validDual(row highs.Row, y float64) float64 {
	if math.IsInf(row.Lower, -1) {
		y = math.Min(y, 0)
	}
	if math.IsInf(row.Upper, 1) {
		y = math.Max(y, 0)
	}
	return y
}

// budgeted reports whether a budget row uses column j.
func (c *certifier) budgeted(j int) bool {
	return slices.ContainsFunc(c.colRows[j], func(t highs.Term) bool { return c.rg.cm.rows[t.Col].kind == rowBudget })
}

// termTable is core term t's cost over its classes, or nil where the
// elimination cannot take it: where a budget uses one of its columns (a
// row the elimination does not keep), where a column's box does not
// start at 0 and reach 1 (with x integral, its rows hold its columns at 0
// or 1), where a shared conversion costs below 0 (the small LP would take
// it whole, used or not) or the table would exceed certifyTable entries.
func (c *certifier) termTable(t int, sc *scratch) (tab []float64, shared bool) {
	cm, in := c.rg.cm, c.rg.r.in
	ct := &cm.terms[t]
	for j := ct.colStart; j < ct.colEnd; j++ {
		col := &cm.model.Columns[j]
		if c.budgeted(j) || col.Lower != 0 || col.Upper < 1 || cm.cols[j].kind == colShare && col.Cost < 0 {
			return nil, false
		}
	}
	tm := &c.rg.r.terms[ct.term]
	if tm.group >= 0 && len(in.groups[tm.group].consumers) > 1 {
		return nil, true
	}
	if tm.table != nil {
		return tm.table, false
	}
	size := 1
	reps := make([][]int, len(tm.scope))
	for j, n := range tm.ncls {
		if size > certifyTable/n {
			return nil, false
		}
		size *= n
		reps[j] = repsInto(tm.cls[j], make([]int, n))
	}
	tab = make([]float64, size)
	o := sc.odometer(tm.scope, reps)
	for e := range tab {
		tab[e] = in.eval(tm, sc.asg, sc.seen)
		o.next()
	}
	return tab, false
}

// rowBound is the bound of a row that a multiplier y prices: its lower
// bound for y > 0, its upper for y < 0.
func rowBound(row highs.Row, y float64) float64 {
	switch {
	case y > 0:
		return row.Lower
	case y < 0:
		return row.Upper
	}
	return 0
}

// boxMin is the least d·x over lower ≤ x ≤ upper.
func boxMin(d, lower, upper float64) float64 {
	switch {
	case d > 0:
		return d * lower
	case d < 0:
		return d * upper
	}
	return 0
}

// A certWorker is one worker's HiGHS instance and scratch.
type certWorker struct {
	s        *highs.Solver
	rowMark  []int // rowMark[i] == stamp: row i kept
	colLocal []int // column → its column in the small LP, valid where colMark is
	colMark  []int
	// colSeen[j] == seenStamp: column j counted (keptColumns).
	colSeen   []int
	seenStamp int
	inN       []int // inN[v] == stamp: node v in the region
	stamp     int
	asg       []int
	rows      []int
	cols      []int
	el        *eliminator
	// termMark[t] == termStamp: core term t kept (eliminate) or counted
	// (delta).
	termMark  []int
	termStamp int
	changed   []int     // the nodes where asg differs from the optimum
	seen      []bool    // a group's targets seen (delta)
	last      []int     // the query's nodes' local variables (prepare)
	saved     []float64 // their unaries while finish restricts them
	// search descends from the regions' plans (nil: not on this problem).
	search *chainPlan
}

func (c *certifier) newWorker(s *highs.Solver) *certWorker {
	m := &c.rg.cm.model
	w := &certWorker{s: s, rowMark: make([]int, len(m.Rows)), colMark: make([]int, len(m.Columns)), colSeen: make([]int, len(m.Columns)),
		colLocal: make([]int, len(m.Columns)), inN: make([]int, len(c.rg.asg)), asg: make([]int, len(c.rg.asg)),
		el: newEliminator(len(c.rg.asg)), termMark: make([]int, len(c.rg.cm.terms)),
		seen: make([]bool, c.targets)}
	if c.rg.descends() {
		w.search = c.rg.newChainPlan()
	}
	return w
}

// How a round of a query's certificate ended.
type roundEnd int

const (
	roundCertified roundEnd = iota // the query is answered
	roundGrown                     // its region grew: another round may answer it
	roundStuck                     // no region of it will: a re-solve must
)

// How a round finds its region's bound: eliminated alone (eliminate), or
// as one of the queries of its node set and region (prepare, then finish;
// where that elimination cannot take the region, alone), either from the
// start or from what prepare left in w.el.
type elimFrom int

const (
	elimAlone elimFrom = iota
	elimShared
	elimPrepared
)

// round is one round of query q's certificate on region, whose
// rows keepRegion kept last: the bound of the region's elimination (from
// from), or of its small LP where no elimination can take it, against the
// plan that comes with it. It returns the region grown by the nodes the
// plan moved (a new slice; region is not changed), and intact where w.el
// and w's kept rows and columns still hold what prepare left (from shared
// or prepared, and the queries' elimination took the region).
func (c *certifier) round(ctx context.Context, q *query, region []int, w *certWorker, maxColumns int, from elimFrom) (end roundEnd, grown []int, intact bool, err error) {
	rg, cm := c.rg, c.rg.cm
	stamp := w.stamp
	var lb float64
	var feasible, eliminated bool
	switch {
	case from == elimPrepared, from == elimShared && c.prepare(q.nodes, region, w):
		lb, feasible, eliminated = c.finish(q, w)
		intact = eliminated
	}
	if !eliminated {
		lb, feasible, eliminated = c.eliminate(q, region, w)
	}
	var res *highs.Result
	if !eliminated {
		res, err = c.smallLP(ctx, q, region, w, maxColumns)
		if err != nil || res == nil {
			return roundStuck, nil, intact, err
		}
		lb, feasible = res.DualBound, res.Status != highs.Infeasible
	}
	if !feasible {
		// L_R is +Inf: no plan answers the query.
		q.lo, q.hi = inf, inf
		rg.certifiedBy(res)
		return roundCertified, nil, intact, nil
	}
	lb = c.lowerBound(lb, w)
	q.known.lo = math.Max(q.known.lo, lb)
	delta, ok := c.delta(w)
	if ok {
		if lb >= c.cost+delta-c.tol {
			q.lo, q.hi = rg.opt0+delta, rg.opt0+delta
			rg.certifiedBy(res)
			return roundCertified, nil, intact, nil
		}
		q.known.hi = math.Min(q.known.hi, rg.opt0+delta)
		if w.search != nil {
			// A cheaper plan a descent from the region's finds
			// (descent.go).
			w.search.from(w.asg, w.changed, q)
		}
	}
	if lb >= q.known.hi-c.tol {
		// A plan found before (a window) meets the bound.
		q.lo, q.hi = q.known.hi, q.known.hi
		rg.certifiedBy(res)
		return roundCertified, nil, intact, nil
	}
	// Grow by the neighbours whose choice moved. An eliminated region's
	// plan costs more than its bound by its columns' slack outside the
	// region (d·x over their box minimum), the optimum's except at the
	// terms of the boundary nodes it moved, which join the region: that
	// slack is the optimum's own, nil where the root LP is tight and its
	// duals optimal. A small LP's region grows by the nodes of a moved
	// x and the scopes of the terms of a moved y or z outside the
	// region's. (Growing an eliminated region by its moved nodes'
	// neighbours too, as the small LP's, made its buckets too large
	// sooner: on the dense 1,000-invocation DAG, 1,900 of 11,400
	// queries went on to re-solves, against 54.)
	grown = slices.Clip(region)
	add := func(v int) {
		if w.inN[v] != stamp && !slices.Contains(grown, v) {
			grown = append(grown, v)
		}
	}
	if res == nil {
		for _, v := range w.changed {
			add(v)
		}
	} else {
		for k, j := range w.cols {
			if math.Abs(res.Values[k]-c.star[j]) <= 1e-6 {
				continue
			}
			if ref := &cm.cols[j]; ref.kind == colX {
				add(ref.node)
			} else {
				for _, v := range cm.terms[c.colTerm[j]].scope {
					add(v)
				}
			}
		}
	}
	if len(grown) == len(region) {
		return roundStuck, nil, intact, nil
	}
	return roundGrown, grown, intact, nil
}

// certifyRound takes one round of the certificates of the queries qs,
// which share their nodes and their region (q.resume, or their nodes where
// that is nil), as round takes it for each (from elimShared; a query alone,
// from elimAlone): one region kept and, where it can be
// eliminated, one elimination of the variables other than the queries'
// nodes (prepare), each query finishing its own. Each query ends the round
// certified (ends[i] true), with q.resume set to the region grown, or stuck
// (neither).
func (c *certifier) certifyRound(ctx context.Context, qs []*query, w *certWorker, maxColumns int, ends []bool) error {
	region := qs[0].resume
	if region == nil {
		region = qs[0].nodes
	}
	from := elimShared
	if len(qs) == 1 {
		from = elimAlone
	}
	prepared := false
	for i, q := range qs {
		q.resume = nil
		ends[i] = false
		if ctx.Err() != nil {
			// The regret time limit has struck: an elimination would
			// not notice it, as HiGHS does.
			continue
		}
		f := from
		if prepared {
			f = elimPrepared
		} else {
			c.keepRegion(region, w)
		}
		end, grown, intact, err := c.round(ctx, q, region, w, maxColumns, f)
		if err != nil {
			return err
		}
		prepared = intact
		if !intact {
			// What prepare leaves for the queries cannot take the
			// region (its buckets): eliminating it would not for
			// the next query either.
			from = elimAlone
		}
		switch end {
		case roundCertified:
			ends[i] = true
		case roundGrown:
			q.resume, q.last = grown, grown
		case roundStuck:
			q.last = region
		}
	}
	return nil
}

// certifiedBy counts a query certified by an eliminated region (res nil)
// rather than a small LP's result res.
func (rg *regrets) certifiedBy(res *highs.Result) {
	if res == nil {
		rg.mu.Lock()
		rg.eliminated++
		rg.mu.Unlock()
	}
}

// keepRegion starts a round on region: it marks its nodes and lists its
// kept rows in w.rows, the nodes' choice rows and their terms' rows.
func (c *certifier) keepRegion(region []int, w *certWorker) {
	cm := c.rg.cm
	w.stamp++
	for _, v := range region {
		w.inN[v] = w.stamp
	}
	w.rows = w.rows[:0]
	for _, v := range region {
		w.keep(cm.choiceRow[v])
		for _, t := range c.termsOf[v] {
			for i := cm.terms[t].rowStart; i < cm.terms[t].rowEnd; i++ {
				w.keep(i)
			}
		}
	}
}

// lowerBound is L_R(y) where min is its inner minimum, over the columns
// w.cols under the kept rows w.rows.
func (c *certifier) lowerBound(min float64, w *certWorker) float64 {
	lb := min + c.base
	for _, i := range w.rows {
		lb -= c.y[i] * rowBound(c.rg.cm.model.Rows[i], c.y[i])
	}
	for _, j := range w.cols {
		lb -= c.boxMin[j]
	}
	return lb
}

// keep adds row i to the kept rows of the region.
func (w *certWorker) keep(i int) {
	if w.rowMark[i] != w.stamp {
		w.rowMark[i] = w.stamp
		w.rows = append(w.rows, i)
	}
}

// eliminate computes the inner minimum of L_R(y) over integral choices by
// elimination (certelim.go), its argmin in w.asg and its nodes that moved
// from the optimum in w.changed, with the small LP's columns in w.cols
// (what the minimum covers) and the kept terms marked. It reports
// !feasible where no choices make it finite, and !ok where the
// elimination cannot take the region. It eliminates the query's nodes
// with the rest, the smallest bucket first, as a query alone does; prepare
// and finish eliminate them last, for queries that share the rest.
func (c *certifier) eliminate(q *query, region []int, w *certWorker) (min float64, feasible, ok bool) {
	if !c.build(region, w) {
		return 0, false, false
	}
	c.restrict(q, w)
	if !w.el.prepare(nil) {
		return 0, false, false
	}
	min, ok = w.el.finish()
	return c.argmin(min, ok, w)
}

// prepare builds the elimination of region, whose first nodes are a
// query's nodes, and eliminates every variable but those nodes
// (certelim.go), so that the queries of one node set and one region share
// that work and differ only in finish. It reports false where the
// elimination cannot take the region.
func (c *certifier) prepare(nodes, region []int, w *certWorker) bool {
	if !c.build(region, w) {
		return false
	}
	w.last = w.last[:0]
	for _, v := range nodes {
		w.last = append(w.last, w.el.local[v])
	}
	return w.el.prepare(w.last)
}

// finish completes the elimination prepare left for query q: its nodes'
// unaries +Inf outside its sets, for this call only. It returns what
// eliminate does.
func (c *certifier) finish(q *query, w *certWorker) (min float64, feasible, ok bool) {
	e := w.el
	c.restrict(q, w)
	min, ok = e.finish()
	saved := w.saved
	for _, v := range q.nodes {
		u := e.unary[e.local[v]]
		saved = saved[copy(u, saved):]
	}
	return c.argmin(min, ok, w)
}

// restrict sets the unaries of q's nodes to +Inf outside its sets, keeping
// them in w.saved.
func (c *certifier) restrict(q *query, w *certWorker) {
	e := w.el
	w.saved = w.saved[:0]
	for qi, v := range q.nodes {
		u := e.unary[e.local[v]]
		w.saved = append(w.saved, u...)
		for k := range u {
			if !slices.Contains(q.sets[qi], k) {
				u[k] = inf
			}
		}
	}
}

// argmin is eliminate's result for the elimination's minimum min (ok as
// the elimination's): w.asg and w.changed from its argmin.
func (c *certifier) argmin(min float64, ok bool, w *certWorker) (float64, bool, bool) {
	rg, e := c.rg, w.el
	if !ok || math.IsInf(min, 1) {
		return min, false, ok
	}
	copy(w.asg, rg.asg)
	w.changed = w.changed[:0]
	for i, v := range e.nodes {
		if v < 0 {
			continue
		}
		if w.asg[v] = e.asg[i]; w.asg[v] != rg.asg[v] {
			w.changed = append(w.changed, v)
		}
	}
	return min, true, true
}

// build sets up the elimination of region in w.el: its nodes and
// boundary, the kept terms (marked, their columns in w.cols) and the
// unaries, without a query's restriction. It reports false where the
// elimination cannot take the region (a budget, a term without a table).
func (c *certifier) build(region []int, w *certWorker) bool {
	rg, cm := c.rg, c.rg.cm
	m := &cm.model
	in := rg.r.in
	e := w.el
	e.reset()
	w.termStamp++
	w.cols = w.cols[:0]
	for _, v := range region {
		e.variable(v, len(in.domain[v]))
	}
	// The kept terms, each a factor over its scope: its other nodes are
	// the boundary.
	for _, v := range region {
		for _, t := range c.termsOf[v] {
			if w.termMark[t] == w.termStamp {
				continue
			}
			w.termMark[t] = w.termStamp
			ct := &cm.terms[t]
			tm := &rg.r.terms[ct.term]
			switch {
			case c.shared[t]:
				e.addShared(&in.groups[tm.group], in.domain)
			case c.tables[t] != nil:
				vars := e.intSlice(len(ct.scope))
				for j, u := range ct.scope {
					vars[j], _ = e.variable(u, len(in.domain[u]))
				}
				e.addFactor(vars, tm.cls, tm.ncls, c.tables[t])
			default:
				return false
			}
			for j := ct.colStart; j < ct.colEnd; j++ {
				w.cols = append(w.cols, j)
			}
		}
	}
	// The unaries: each x's cost priced by the rows not kept, +Inf where
	// its box rules it out.
	for i, v := range e.nodes {
		if v < 0 {
			continue
		}
		if c.xBudget[v] {
			return false
		}
		for k := range e.unary[i] {
			j := cm.xcol[v] + k
			w.cols = append(w.cols, j)
			cost := c.d[j]
			for _, t := range c.colRows[j] {
				if w.rowMark[t.Col] == w.stamp {
					cost += c.y[t.Col] * t.Coef
				}
			}
			if m.Columns[j].Upper < 1 {
				cost = inf
			}
			e.unary[i][k] = cost
		}
	}
	return true
}

// smallLP solves the region's small LP (where the LP's choices are
// fractional, its MILP) and sets w.asg to its choices (with the
// region's nodes that moved in w.changed) and w.cols to its columns. It
// returns nil where it answers nothing: the columns exceed maxColumns,
// HiGHS stopped short, or the choices are fractional still.
func (c *certifier) smallLP(ctx context.Context, q *query, region []int, w *certWorker, maxColumns int) (*highs.Result, error) {
	rg, cm := c.rg, c.rg.cm
	if c.keptColumns(w) > maxColumns {
		// The model would have these columns and more: not built
		// (on cklplan gen dag --invocations 300 --exec-scale 100
		// --seed 3, 908 such models took 0.5 s of CPU to build).
		return nil, nil
	}
	small := c.smallModel(q, w)
	if len(w.cols) > maxColumns {
		return nil, nil
	}
	opt := rg.opt.solverOptions()
	opt.Presolve = highs.PresolveOff
	res, err := w.s.Solve(ctx, small, opt)
	if err != nil {
		return nil, err
	}
	if res.Status == highs.Optimal && !c.choose(region, res.Values, w) {
		// Fractional choices: the same region with integral x, a
		// stronger bound (a Lagrangian relaxation of the integer
		// program is one) that gives a plan.
		for k, j := range w.cols {
			small.Columns[k].Integer = cm.cols[j].kind == colX
		}
		mopt := rg.opt.solverOptions()
		if start := c.queryStart(q, w); feasibleStart(small, start) {
			mopt.Start, mopt.NoFeasibilityJump = start, true
		}
		if res, err = w.s.Solve(ctx, small, mopt); err != nil {
			return nil, err
		}
		if res.Status == highs.Optimal && !c.choose(region, res.Values, w) {
			return nil, nil
		}
	}
	if res.Status != highs.Optimal && res.Status != highs.Infeasible {
		return nil, nil
	}
	return res, nil
}

// keptColumns counts the columns of the rows w keeps, the least of the
// small LP's (smallModel adds the budgets' rows over them).
func (c *certifier) keptColumns(w *certWorker) int {
	m := &c.rg.cm.model
	w.seenStamp++
	n := 0
	for _, i := range w.rows {
		for _, t := range m.Rows[i].Terms {
			if w.colSeen[t.Col] != w.seenStamp {
				w.colSeen[t.Col] = w.seenStamp
				n++
			}
		}
	}
	return n
}

// smallModel is the region's small LP over its columns, listed in w.cols,
// and its kept rows with the budgets over them (added to w.rows).
func (c *certifier) smallModel(q *query, w *certWorker) *highs.Model {
	rg, cm := c.rg, c.rg.cm
	m := &cm.model
	stamp := w.stamp
	// The small LP: the kept rows' columns, priced by the other rows.
	// The budgets over them are kept too: priced, a budget the query's
	// plan must free room in would leave the bounds apart.
	w.cols = w.cols[:0]
	var small highs.Model
	addRow := func(i int) {
		row := m.Rows[i]
		terms := make([]highs.Term, len(row.Terms))
		for k, t := range row.Terms {
			if w.colMark[t.Col] != stamp {
				w.colMark[t.Col] = stamp
				w.colLocal[t.Col] = len(w.cols)
				w.cols = append(w.cols, t.Col)
			}
			terms[k] = highs.Term{Col: w.colLocal[t.Col], Coef: t.Coef}
		}
		small.Rows = append(small.Rows, highs.Row{Lower: row.Lower, Upper: row.Upper, Terms: terms})
	}
	for _, i := range w.rows {
		addRow(i)
	}
	for _, j := range w.cols {
		for _, t := range c.colRows[j] {
			if k := cm.rows[t.Col].kind; k == rowBudget {
				w.keep(t.Col)
			}
		}
	}
	for _, i := range w.rows[len(small.Rows):] {
		addRow(i)
	}
	small.Columns = make([]highs.Column, len(w.cols))
	for k, j := range w.cols {
		cost := c.colCost(j)
		for _, t := range c.colRows[j] {
			if w.rowMark[t.Col] != stamp {
				cost -= c.y[t.Col] * t.Coef
			}
		}
		small.Columns[k] = highs.Column{Cost: cost, Lower: m.Columns[j].Lower, Upper: m.Columns[j].Upper}
	}
	for qi, v := range q.nodes {
		for k := range rg.r.in.domain[v] {
			if !slices.Contains(q.sets[qi], k) {
				small.Columns[w.colLocal[cm.xcol[v]+k]].Upper = 0
			}
		}
	}
	return &small
}

// queryStart is the small LP's point of the optimum with each of q's
// nodes moved to the first position of its set where it is outside: a
// plan of the query, when the kept rows hold there. It uses w.asg.
func (c *certifier) queryStart(q *query, w *certWorker) []float64 {
	copy(w.asg, c.rg.asg)
	for qi, v := range q.nodes {
		if !slices.Contains(q.sets[qi], w.asg[v]) {
			w.asg[v] = q.sets[qi][0]
		}
	}
	start := make([]float64, len(w.cols))
	for k, j := range w.cols {
		start[k] = c.rg.cm.colValue(c.rg.r, j, w.asg)
	}
	return start
}

// choose sets w.asg to the optimum outside the region and to the small
// LP's choices in it, and w.changed to the nodes where they differ; it
// reports whether they are integral.
func (c *certifier) choose(region []int, values []float64, w *certWorker) bool {
	rg, cm := c.rg, c.rg.cm
	copy(w.asg, rg.asg)
	w.changed = w.changed[:0]
	for _, v := range region {
		best := 0
		for k := range rg.r.in.domain[v] {
			x := values[w.colLocal[cm.xcol[v]+k]]
			if math.Abs(x-math.Round(x)) > 1e-6 {
				return false
			}
			if x > values[w.colLocal[cm.xcol[v]+best]] {
				best = k
			}
		}
		if w.asg[v] = best; best != rg.asg[v] {
			w.changed = append(w.changed, v)
		}
	}
	return true
}

// delta is the cost of w.asg (which differs from the optimum only at the
// nodes w.changed) minus the optimum's, over the columns that change with
// them (their x, their terms'), and whether w.asg is a plan: their boxes,
// their terms' rows and the budgets hold.
//
// A term's rows hold exactly where each of its edges' y (each consumer's,
// a fan-out group's) or its table's has a column at 1: an edge's source
// and target rows put the pair of classes its ends take on its y, and fail
// only where that pair has no column (no conversion between them); a fan-
// out group's z is 1 wherever a consumer's y is; a table's rows put the
// entry of its scope's classes on its y. So the rows are not summed, but
// the columns at 1 counted (c.ones; deltaByRows in the tests sums them);
// and outside the budgets, a term's cost is its function's at the plan
// (the reduction's; its columns are its finite values'), a node's its x's:
// on gen dag --invocations 1000 --exec-scale 100 the columns took a sixth
// of the certificates' CPU.
func (c *certifier) delta(w *certWorker) (float64, bool) {
	cm := c.rg.cm
	m := &cm.model
	delta := 0.0
	var budgets map[int]float64
	col := func(j int) (float64, bool) {
		x := cm.colValue(c.rg.r, j, w.asg)
		if x > m.Columns[j].Upper {
			return x, false
		}
		if dx := x - c.star[j]; dx != 0 {
			delta += m.Columns[j].Cost * dx
			for _, t := range c.colRows[j] {
				if cm.rows[t.Col].kind == rowBudget {
					if budgets == nil {
						budgets = map[int]float64{}
					}
					budgets[t.Col] += t.Coef * dx
				}
			}
		}
		return x, true
	}
	w.termStamp++
	for _, v := range w.changed {
		if c.xBudget[v] {
			for k := range c.rg.r.in.domain[v] {
				if _, ok := col(cm.xcol[v] + k); !ok {
					return 0, false
				}
			}
		} else {
			// One x leaves 1 and one comes to it.
			now, was := &m.Columns[cm.xcol[v]+w.asg[v]], &m.Columns[cm.xcol[v]+c.rg.asg[v]]
			if now.Upper < 1 {
				return 0, false
			}
			delta += now.Cost - was.Cost
		}
		for _, t := range c.termsOf[v] {
			if w.termMark[t] == w.termStamp {
				continue
			}
			w.termMark[t] = w.termStamp
			ct := &cm.terms[t]
			if c.priced[t] {
				// In no budget, its columns at 1 cost what the term's
				// function does at the plan, and there is none where that
				// is +Inf.
				now := c.rg.r.in.eval(&c.rg.r.terms[ct.term], w.asg, w.seen)
				if math.IsInf(now, 1) {
					return 0, false
				}
				delta += now - c.starCost[t]
				continue
			}
			ones := 0
			for j := ct.colStart; j < ct.colEnd; j++ {
				x, ok := col(j)
				if !ok {
					return 0, false
				}
				if x == 1 && cm.cols[j].kind != colShare {
					ones++
				}
			}
			if ones != c.ones[t] {
				return 0, false
			}
		}
	}
	for i, da := range budgets {
		if a := c.act[i] + da; a > m.Rows[i].Upper+budgetTolerance(m.Rows[i].Upper) || a < m.Rows[i].Lower-budgetTolerance(m.Rows[i].Lower) {
			return 0, false
		}
	}
	return delta, true
}

// fixings lists the core model's columns that no plan of query q costing
// at most the optimum plus delta has at 1 (reduced-cost fixing): by the
// Lagrangian of lp (the core's LP relaxation, with the rows that
// clusterFanOuts added after the core's) at the multipliers rowDuals (the
// query's own LP's duals, whose bound is that LP's optimum), with d ≥ its
// box minimum everywhere, a plan x costs at least
// L(y) + Σ_j (d_j x_j − boxMin_j), so one with x_j = 1 costs at least
// L(y) + d_j − boxMin_j.
func (c *certifier) fixings(lp *highs.Model, rowDuals []float64, q *query, delta float64) []int {
	cm := c.rg.cm
	m := lp
	d := make([]float64, len(m.Columns))
	upper := make([]float64, len(m.Columns))
	for j, col := range m.Columns {
		d[j], upper[j] = col.Cost, col.Upper
	}
	forced := make([]bool, len(m.Columns))
	for qi, v := range q.nodes {
		for k := range c.rg.r.in.domain[v] {
			forced[cm.xcol[v]+k] = true
			if !slices.Contains(q.sets[qi], k) {
				upper[cm.xcol[v]+k] = 0
			}
		}
	}
	lagrangian := m.Offset
	for i, row := range m.Rows {
		y := rowDuals[i]
		if math.IsInf(row.Lower, -1) {
			y = math.Min(y, 0)
		}
		if math.IsInf(row.Upper, 1) {
			y = math.Max(y, 0)
		}
		lagrangian += y * rowBound(row, y)
		for _, t := range row.Terms {
			d[t.Col] -= y * t.Coef
		}
	}
	for j, col := range m.Columns {
		lagrangian += boxMin(d[j], col.Lower, upper[j])
	}
	room := c.cost + delta - lagrangian + c.tol
	var fixed []int
	for j, col := range m.Columns[:len(cm.model.Columns)] {
		if col.Lower == 0 && upper[j] == 1 && !forced[j] && d[j]-boxMin(d[j], 0, 1) > room {
			fixed = append(fixed, j)
		}
	}
	return fixed
}

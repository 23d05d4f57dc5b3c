package planner

import (
	"context"
	"fmt"
	"math"

	"github.com/cklplan/cklplan/internal/highs"
)

// The MILP over the core, in the marginalization (local-polytope) form.
//
// Columns, in this order: for each core node v ascending, binary x[v,a] per
// domain position (cost: unary, with folded messages); for each live group
// in group order, each consumer e in order, continuous y[e,s,t] over the
// convertible (s, t) pairs of the labels present (s ascending, then t), and,
// for a fan-out group, z[g,s,t] (created at a pair's first consumer); for
// each live table term, y over its finite entries in row-major order. Rows:
//
//	Σ_a x[v,a] = 1                                  for every core v
//	Σ_t y[e,s,t] = Σ_{a: src(a)=s} x[u,a]           for every e, present s
//	Σ_s y[e,s,t] = Σ_{b: dst(b)=t} x[w,b]           for every e, present t
//	z[g,s,t] ≥ y[e,s,t]                             for fan-out groups
//	Σ_{entries with node j = a} y[τ,·] = x[n_j, a]  for every table τ, j, a
//	Σ uses ≤ capacity                               for every budget
//
// With x binary the y of an edge or table is the point mass on the chosen
// combination, and z is pushed down to the largest y it covers, so the
// model's optimum is the core's optimum exactly. A fan-out group's y carry no
// cost; its z carry the conversion cost and scratch once per (s, t).

type rowKind uint8

const (
	rowChoice rowKind = iota
	rowSource
	rowTarget
	rowShare
	rowTable
	rowBudget
	rowOrder
)

// rowRef says what a row is, to name it in a conflict.
type rowRef struct {
	kind     rowKind
	node     int // rowChoice, rowTable
	group    int // rowSource, rowTarget, rowShare
	consumer int
	label    string // rowSource, rowTarget: the label; rowShare: "s→t"; rowTable: the alternative id
	budget   int
	edge     int // rowOrder: index into the Problem's order edges
}

type coreModel struct {
	model highs.Model
	xcol  []int // node → its first x column, -1 outside the core
	rows  []rowRef
	cols  []colRef
	// choiceRow is a core node's row Σ_a x[v,a] = 1 (-1 outside the core);
	// terms are the live terms' rows and columns, in model order.
	choiceRow []int
	terms     []coreTerm
}

// A coreTerm is one live term's block of the model: its rows and its own
// columns (y and z; the x it links are the scope nodes').
type coreTerm struct {
	term             int // its index in reduction.terms
	scope            []int
	rowStart, rowEnd int
	colStart, colEnd int
}

type colKind uint8

const (
	colX colKind = iota
	colEdge
	colShare
	colTable
	colLevel
)

// colRef says what a column is, to build a point from an assignment.
type colRef struct {
	kind     colKind
	node, k  int // colX
	group    int // colEdge, colShare
	consumer int // colEdge
	s, t     int // colEdge, colShare
	term     int // colTable
	entry    int // colTable; colLevel: the level
}

func (cm *coreModel) addCol(c highs.Column, ref colRef) int {
	cm.cols = append(cm.cols, ref)
	return cm.model.AddColumn(c)
}

// point is the model's point of a full assignment (node → domain position):
// the start of a warm-started re-solve. It is feasible when the assignment is.
func (cm *coreModel) point(r *reduction, asg []int) []float64 {
	x := make([]float64, len(cm.cols))
	var levels []float64
	for j := range cm.cols {
		if cm.cols[j].kind == colLevel {
			if levels == nil {
				levels = r.in.order.levelsAt(r.in, asg)
			}
			x[j] = levels[cm.cols[j].entry]
			continue
		}
		x[j] = cm.colValue(r, j, asg)
	}
	return x
}

// feasibleStart reports whether x, a point of m's columns, satisfies m's
// bounds and rows (budgets to budgetTolerance): HiGHS then takes it as its
// first incumbent, and its feasibility jump could only look for what it
// has (highs.Options.NoFeasibilityJump).
func feasibleStart(m *highs.Model, x []float64) bool {
	for j, c := range m.Columns {
		if x[j] < c.Lower || x[j] > c.Upper {
			return false
		}
	}
	for i, row := range m.Rows {
		a := m.Activity(i, x)
		if a < row.Lower-budgetTolerance(row.Lower) || a > row.Upper+budgetTolerance(row.Upper) {
			return false
		}
	}
	return true
}

// colValue is column j's value at a full assignment.
func (cm *coreModel) colValue(r *reduction, j int, asg []int) float64 {
	in := r.in
	one := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	switch c := &cm.cols[j]; c.kind {
	case colX:
		return one(asg[c.node] == c.k)
	case colEdge:
		g := &in.groups[c.group]
		return one(g.src[asg[g.producer]] == c.s && g.consumers[c.consumer].tgt[asg[g.consumers[c.consumer].node]] == c.t)
	case colShare:
		g := &in.groups[c.group]
		for _, con := range g.consumers {
			if g.src[asg[g.producer]] == c.s && con.tgt[asg[con.node]] == c.t {
				return 1
			}
		}
	case colTable:
		return one(r.terms[c.term].index(asg) == c.entry)
	case colLevel:
		return in.order.levelsAt(in, asg)[c.entry]
	}
	return 0
}

// buildCore builds the core's MILP. It returns ok == false when a budget row
// with no terms cannot hold (capacity below 0): the problem is infeasible.
func buildCore(r *reduction) *coreModel {
	in := r.in
	cm := &coreModel{xcol: make([]int, len(in.p.Nodes)), choiceRow: make([]int, len(in.p.Nodes))}
	m := &cm.model
	m.Offset = r.offset
	for v := range cm.xcol {
		cm.xcol[v], cm.choiceRow[v] = -1, -1
	}
	addRow := func(ref rowRef, lo, hi float64, terms []highs.Term) {
		m.Rows = append(m.Rows, highs.Row{Lower: lo, Upper: hi, Terms: terms})
		cm.rows = append(cm.rows, ref)
	}
	budget := make([][]highs.Term, len(in.p.Budgets))
	addUses := func(col int, us []Use) {
		for _, u := range us {
			if u.Amount != 0 {
				budget[u.Budget] = append(budget[u.Budget], highs.Term{Col: col, Coef: u.Amount})
			}
		}
	}
	for _, v := range r.core {
		cm.xcol[v] = len(m.Columns)
		terms := make([]highs.Term, len(in.domain[v]))
		for k, a := range in.domain[v] {
			c := highs.Binary("", r.unary[v][k])
			if math.IsInf(c.Cost, 1) {
				c.Cost, c.Upper = 0, 0
			}
			col := cm.addCol(c, colRef{kind: colX, node: v, k: k})
			terms[k] = highs.Term{Col: col, Coef: 1}
			addUses(col, in.p.Nodes[v].Alternatives[a].Uses)
		}
		cm.choiceRow[v] = len(m.Rows)
		addRow(rowRef{kind: rowChoice, node: v}, 1, 1, terms)
	}
	x := func(v, k int) int { return cm.xcol[v] + k }
	for _, t := range r.liveTerms() {
		tm := &r.terms[t]
		ct := coreTerm{term: t, scope: tm.scope, rowStart: len(m.Rows), colStart: len(m.Columns)}
		if tm.group >= 0 {
			cm.addGroup(tm.group, in, addRow, addUses, x)
		} else {
			cm.addTable(t, tm, in, addRow, x)
		}
		ct.rowEnd, ct.colEnd = len(m.Rows), len(m.Columns)
		cm.terms = append(cm.terms, ct)
	}
	for b, bu := range in.p.Budgets {
		addRow(rowRef{kind: rowBudget, budget: b}, math.Inf(-1), bu.Capacity, budget[b])
	}
	if in.order != nil {
		in.order.addTo(cm, addRow)
	}
	return cm
}

func (cm *coreModel) addGroup(gi int, in *instance, addRow func(rowRef, float64, float64, []highs.Term),
	addUses func(int, []Use), x func(v, k int) int) {
	g := &in.groups[gi]
	fan := len(g.consumers) > 1
	srcPresent := make([]bool, len(g.sources))
	for _, s := range g.src {
		srcPresent[s] = true
	}
	zcol := map[int]int{}
	for ci, c := range g.consumers {
		tgtPresent := make([]bool, len(g.targets))
		for _, t := range c.tgt {
			tgtPresent[t] = true
		}
		srcRow := make([][]highs.Term, len(g.sources))
		tgtRow := make([][]highs.Term, len(g.targets))
		for s := range g.sources {
			if !srcPresent[s] {
				continue
			}
			for t := range g.targets {
				p := g.pair(s, t)
				if !tgtPresent[t] || math.IsInf(g.cost[p], 1) {
					continue
				}
				cost := g.cost[p]
				if fan {
					cost = 0
				}
				y := cm.addCol(highs.Column{Cost: cost, Upper: 1}, colRef{kind: colEdge, group: gi, consumer: ci, s: s, t: t})
				srcRow[s] = append(srcRow[s], highs.Term{Col: y, Coef: 1})
				tgtRow[t] = append(tgtRow[t], highs.Term{Col: y, Coef: 1})
				if !fan {
					addUses(y, g.pairUses(p))
					continue
				}
				z, ok := zcol[p]
				if !ok {
					z = cm.addCol(highs.Column{Cost: g.cost[p], Upper: 1}, colRef{kind: colShare, group: gi, s: s, t: t})
					zcol[p] = z
					addUses(z, g.pairUses(p))
				}
				addRow(rowRef{kind: rowShare, group: gi, consumer: ci, label: g.sources[s] + "→" + g.targets[t]},
					0, math.Inf(1), []highs.Term{{Col: z, Coef: 1}, {Col: y, Coef: -1}})
			}
		}
		for k, s := range g.src {
			srcRow[s] = append(srcRow[s], highs.Term{Col: x(g.producer, k), Coef: -1})
		}
		for k, t := range c.tgt {
			tgtRow[t] = append(tgtRow[t], highs.Term{Col: x(c.node, k), Coef: -1})
		}
		for s, terms := range srcRow {
			if srcPresent[s] {
				addRow(rowRef{kind: rowSource, group: gi, consumer: ci, label: g.sources[s]}, 0, 0, terms)
			}
		}
		for t, terms := range tgtRow {
			if tgtPresent[t] {
				addRow(rowRef{kind: rowTarget, group: gi, consumer: ci, label: g.targets[t]}, 0, 0, terms)
			}
		}
	}
}

func (cm *coreModel) addTable(ti int, tm *term, in *instance, addRow func(rowRef, float64, float64, []highs.Term),
	x func(v, k int) int) {
	// rows[j][c]: the marginal row of scope node j's class c.
	rows := make([][][]highs.Term, len(tm.scope))
	reps := make([][]int, len(tm.scope))
	for j := range tm.scope {
		rows[j] = make([][]highs.Term, tm.ncls[j])
		reps[j] = make([]int, tm.ncls[j])
		for k := len(tm.cls[j]) - 1; k >= 0; k-- {
			reps[j][tm.cls[j][k]] = k
		}
	}
	asg := make([]int, len(in.p.Nodes))
	o := newOdometer(tm.scope, reps, asg)
	for e, val := range tm.table {
		if !math.IsInf(val, 1) {
			y := cm.addCol(highs.Column{Cost: val, Upper: 1}, colRef{kind: colTable, term: ti, entry: e})
			for j := range tm.scope {
				rows[j][o.c[j]] = append(rows[j][o.c[j]], highs.Term{Col: y, Coef: 1})
			}
		}
		o.next()
	}
	for j, v := range tm.scope {
		for k, c := range tm.cls[j] {
			rows[j][c] = append(rows[j][c], highs.Term{Col: x(v, k), Coef: -1})
		}
		for c, terms := range rows[j] {
			addRow(rowRef{kind: rowTable, node: v, label: in.p.Nodes[v].Alternatives[in.domain[v][reps[j][c]]].ID}, 0, 0, terms)
		}
	}
}

// solverOptions are the HiGHS options of every solve: one thread and seed 0
// (deterministic), the gaps and the time limit.
func (o *Options) solverOptions() highs.Options {
	return highs.Options{
		TimeLimit:   o.TimeLimit,
		RelativeGap: o.relativeGap(),
		AbsoluteGap: o.absoluteGap(),
		Threads:     1,
		Seed:        0,
	}
}

// coreResult is one solve of the core.
type coreResult struct {
	status    highs.Status
	objective float64 // with the offset; +Inf without a solution
	bound     float64 // with the offset
	gap       float64
	nodes     int64
	asg       []int // node → domain position, for core nodes; nil without a solution
	values    []float64
	// iterations is HiGHS's simplex iterations (a MIP's LPs' in all).
	iterations int64
}

// solve solves the core model.
func (cm *coreModel) solve(ctx context.Context, s highs.MILPSolver, r *reduction, opt highs.Options) (*coreResult, error) {
	res, err := s.Solve(ctx, &cm.model, opt)
	if err != nil {
		return nil, fmt.Errorf("planner: HiGHS: %w", err)
	}
	cr := &coreResult{status: res.Status, objective: inf, bound: res.DualBound, gap: res.Gap, nodes: res.Nodes,
		iterations: int64(res.SimplexIterations)}
	if res.Status.HasSolution() {
		cr.objective = res.Objective
		cr.values = res.Values
		cr.asg = make([]int, len(r.in.p.Nodes))
		for _, v := range r.core {
			best := 0
			for k := range r.in.domain[v] {
				if res.Values[cm.xcol[v]+k] > res.Values[cm.xcol[v]+best] {
					best = k
				}
			}
			cr.asg[v] = best
		}
	}
	if res.Status == highs.Infeasible {
		cr.bound = inf
	}
	return cr, nil
}

// rowName names a row for a conflict.
func (in *instance) rowName(ref rowRef) string {
	p := in.p
	switch ref.kind {
	case rowChoice:
		return fmt.Sprintf("node %s: one alternative", p.Nodes[ref.node].Name)
	case rowSource:
		g := p.Groups[ref.group]
		return fmt.Sprintf("group %s → %s: source %s", g.Name, p.Nodes[g.Consumers[ref.consumer].Node].Name, ref.label)
	case rowTarget:
		g := p.Groups[ref.group]
		return fmt.Sprintf("group %s → %s: target %s", g.Name, p.Nodes[g.Consumers[ref.consumer].Node].Name, ref.label)
	case rowShare:
		g := p.Groups[ref.group]
		return fmt.Sprintf("group %s → %s: shared %s", g.Name, p.Nodes[g.Consumers[ref.consumer].Node].Name, ref.label)
	case rowTable:
		return fmt.Sprintf("node %s: joined term at %s", p.Nodes[ref.node].Name, ref.label)
	case rowBudget:
		return fmt.Sprintf("budget %s", p.Budgets[ref.budget].Name)
	case rowOrder:
		return fmt.Sprintf("kernel order at edge %s", p.order.edges[ref.edge].name)
	}
	return "?"
}

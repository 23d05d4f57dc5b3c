package planner

import (
	"cmp"
	"math"
	"slices"

	"github.com/cklplan/cklplan/internal/highs"
)

// Rows that make the re-solves' LP tight where its vertex is fractional.
//
// On cklplan gen dag --invocations 300 --exec-scale 100 (seed 1) the
// core's LP relaxation is 0.002 % below the optimum, and its vertex is
// fractional at two nodes only, with x at 0.5 on two choices each. So was
// the LP of every one of the 2,709 regret queries, whichever node it pins:
// each query inherited the root's small gap, and each was a MILP re-solve.
// The two nodes are in two fan-outs. A fan-out (addGroup) is written with
// an edge column y per consumer and pair, and a shared column z per pair,
// z ≥ y; each fan-out is thus described by its pairs (producer, consumer),
// and the LP may give two fan-outs that share two nodes joint choices of
// those two nodes that no single distribution of plans has.
//
// clusterFanOuts adds, for the fan-outs over the fractional nodes F, a
// cluster: a column w per combination of the producer's source label and
// the target label of each consumer in F (those whose pairs convert),
// with
//
//	y[c, s, t] = Σ {w : source s, and consumer c's target t}   (c in F)
//	z[s, t]    ≥ Σ {w : source s, and some consumer in F with target t}
//
// and, for each pair of nodes of F that two or more clusters hold, a
// joint column p[a, b] over the pair's choices, its marginals the two
// nodes' x, which each cluster's w must match label pair by label pair.
// Every row holds at every plan (w and p the indicators of its labels and
// choices), so the rows are valid cuts, and the MILP's optimum of every
// query stays what it was. On that DAG the LP of 2,708 of the 2,709
// queries became integral, and so exact without a MILP.
//
// The rows go to the re-solves' LP and to the certificates' bound: the
// plan and the MILP re-solves keep the core model. Where the core's LP is
// below the optimum, the rows are added before the certificates, which are
// then priced by the duals of the LP with them: their Lagrangian bound
// relaxes the rows (they are valid at every plan, whose w and p are
// indicators), so a term whose columns they price is left to the small
// LPs (newCertifierOn). On gen dag --invocations 300 --exec-scale 100
// --seed 1 the certificates' bound was 138.6 ns below the optimum, and
// they certified 343 of the 3,052 queries; priced so, the bound is the
// optimum, they certify 2,650, and 183 queries are re-solved instead of
// 1,742 (every regret 10.2 s → 3.7 s).
//
// Where the core's LP is tight, the queries' LPs can still be fractional,
// and most often at a few nodes between them: on gen dag --invocations 100
// --exec-scale 100 --seed 3, 85 of its 280 re-solved queries' LPs were,
// at 27 nodes in all, ten of them in about 50 queries each. So every
// query's LP is re-solved alone first (solveQueries), and where the nodes
// fractional in them are few, their fan-outs get their clusters too,
// before the queries left are re-solved: there 71 MILP re-solves → 24.
//
// A MILP re-solve's reduced-cost
// fixing (certifier.fixings) prices the whole LP, these rows included, by
// the LP re-solve's duals: a bound on every plan, each of which extends
// to these columns.

// clusterNodes bounds the fractional nodes (0: none), and clusterEntries a
// cluster's combinations, for which clusterFanOuts adds rows; tests change
// clusterNodes.
var clusterNodes = 64

const clusterEntries = 1 << 12

// A fanOutCluster is one fan-out's cluster: its w columns, each with the
// labels it gives the fractional nodes of the fan-out, and those nodes'
// labels by choice (domain position).
type fanOutCluster struct {
	ws     []int         // w columns
	labels []map[int]int // per w: fractional node → its label
	byNode map[int][]int // fractional node → its choices' labels
}

// clusterFanOuts returns lp with the rows above for the nodes fractional
// at values, a vertex of lp, and the clusters and pairs it added (0: lp
// itself).
func (rg *regrets) clusterFanOuts(lp *highs.Model, values []float64) (highs.Model, int) {
	if values == nil || len(values) < len(rg.cm.cols) {
		return *lp, 0
	}
	frac := map[int]bool{}
	rg.fractional(values, frac)
	return rg.clusterFanOutsAt(lp, frac)
}

// fractional adds to frac the core nodes whose x are fractional at values.
func (rg *regrets) fractional(values []float64, frac map[int]bool) {
	cm, in := rg.cm, rg.r.in
	for _, v := range rg.r.core {
		for k := range in.domain[v] {
			if x := values[cm.xcol[v]+k]; math.Abs(x-math.Round(x)) > 1e-6 {
				frac[v] = true
				break
			}
		}
	}
}

// clusterFanOutsAt is clusterFanOuts for the fractional nodes frac.
func (rg *regrets) clusterFanOutsAt(lp *highs.Model, frac map[int]bool) (highs.Model, int) {
	cm, in := rg.cm, rg.r.in
	if len(frac) == 0 || len(frac) > clusterNodes {
		return *lp, 0
	}
	var groups []int
	for _, ct := range cm.terms {
		gi := rg.r.terms[ct.term].group
		if gi < 0 || len(in.groups[gi].consumers) < 2 {
			continue // an edge's own rows are its exact formulation
		}
		if slices.ContainsFunc(in.groups[gi].consumers, func(c ccons) bool { return frac[c.node] }) {
			groups = append(groups, gi)
		}
	}
	if len(groups) == 0 {
		return *lp, 0
	}
	ycol, zcol := map[[4]int]int{}, map[[3]int]int{}
	for j, c := range cm.cols {
		switch c.kind {
		case colEdge:
			ycol[[4]int{c.group, c.consumer, c.s, c.t}] = j
		case colShare:
			zcol[[3]int{c.group, c.s, c.t}] = j
		}
	}
	out := *lp
	out.Columns, out.Rows = slices.Clone(lp.Columns), slices.Clone(lp.Rows)
	var clusters []fanOutCluster
	for _, gi := range groups {
		if cl, ok := clusterFanOut(&out, gi, &in.groups[gi], frac, ycol, zcol); ok {
			clusters = append(clusters, cl)
		}
	}
	added := len(clusters)
	// The pairs of fractional nodes that two or more clusters hold.
	nodes := make([]int, 0, len(frac))
	for v := range frac {
		nodes = append(nodes, v)
	}
	slices.Sort(nodes)
	for i, u := range nodes {
		for _, v := range nodes[i+1:] {
			var both []int
			for k := range clusters {
				if clusters[k].byNode[u] != nil && clusters[k].byNode[v] != nil {
					both = append(both, k)
				}
			}
			if len(both) < 2 {
				continue
			}
			du, dv := len(in.domain[u]), len(in.domain[v])
			p := len(out.Columns)
			for range du * dv {
				out.Columns = append(out.Columns, highs.Column{Upper: 1})
			}
			for a := range du {
				row := highs.Row{Terms: []highs.Term{{Col: cm.xcol[u] + a, Coef: -1}}}
				for b := range dv {
					row.Terms = append(row.Terms, highs.Term{Col: p + a*dv + b, Coef: 1})
				}
				out.Rows = append(out.Rows, row)
			}
			for b := range dv {
				row := highs.Row{Terms: []highs.Term{{Col: cm.xcol[v] + b, Coef: -1}}}
				for a := range du {
					row.Terms = append(row.Terms, highs.Term{Col: p + a*dv + b, Coef: 1})
				}
				out.Rows = append(out.Rows, row)
			}
			for _, k := range both {
				cl := &clusters[k]
				rows := map[[2]int][]highs.Term{}
				for i, w := range cl.ws {
					key := [2]int{cl.labels[i][u], cl.labels[i][v]}
					rows[key] = append(rows[key], highs.Term{Col: w, Coef: 1})
				}
				for a := range du {
					for b := range dv {
						key := [2]int{cl.byNode[u][a], cl.byNode[v][b]}
						rows[key] = append(rows[key], highs.Term{Col: p + a*dv + b, Coef: -1})
					}
				}
				// By label pair, so that the LP is the same from run to run.
				keys := make([][2]int, 0, len(rows))
				for key := range rows {
					keys = append(keys, key)
				}
				slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) })
				for _, key := range keys {
					out.Rows = append(out.Rows, highs.Row{Terms: rows[key]})
				}
			}
			added++
		}
	}
	if added == 0 {
		return *lp, 0
	}
	return out, added
}

// clusterFanOut adds to m the cluster of fan-out gi (g) over its producer
// and its consumers in frac, with the rows linking it to the fan-out's y
// and z columns; false when it has more than clusterEntries combinations.
func clusterFanOut(m *highs.Model, gi int, g *cgroup, frac map[int]bool, ycol map[[4]int]int, zcol map[[3]int]int) (fanOutCluster, bool) {
	sources := labelsOf(g.src)
	var part []int // the consumers in the cluster
	targets := make([][]int, len(g.consumers))
	entries := len(sources)
	for ci, c := range g.consumers {
		if frac[c.node] {
			part = append(part, ci)
			targets[ci] = labelsOf(c.tgt)
			entries *= len(targets[ci])
		}
	}
	if entries == 0 || entries > clusterEntries {
		return fanOutCluster{}, false
	}
	cl := fanOutCluster{byNode: map[int][]int{}}
	if frac[g.producer] {
		cl.byNode[g.producer] = g.src
	}
	for _, ci := range part {
		cl.byNode[g.consumers[ci].node] = g.consumers[ci].tgt
	}
	// Each combination whose every pair converts (has its y column) gets
	// its w; yRows and zRows gather the w of each y and z.
	yRows, zRows := map[int][]highs.Term{}, map[int][]highs.Term{}
	pick := make([]int, len(part)) // part[i] → index in its targets
	for _, s := range sources {
		clear(pick)
		for {
			converts := true
			for i, ci := range part {
				if _, ok := ycol[[4]int{gi, ci, s, targets[ci][pick[i]]}]; !ok {
					converts = false
					break
				}
			}
			if converts {
				w := len(m.Columns)
				m.Columns = append(m.Columns, highs.Column{Upper: 1})
				labels := map[int]int{}
				if frac[g.producer] {
					labels[g.producer] = s
				}
				var zs []int
				for i, ci := range part {
					t := targets[ci][pick[i]]
					labels[g.consumers[ci].node] = t
					y := ycol[[4]int{gi, ci, s, t}]
					yRows[y] = append(yRows[y], highs.Term{Col: w, Coef: -1})
					if z, ok := zcol[[3]int{gi, s, t}]; ok && !slices.Contains(zs, z) {
						zs = append(zs, z)
						zRows[z] = append(zRows[z], highs.Term{Col: w, Coef: -1})
					}
				}
				cl.ws, cl.labels = append(cl.ws, w), append(cl.labels, labels)
			}
			// The next combination of the consumers' targets.
			i := 0
			for ; i < len(pick); i++ {
				if pick[i]++; pick[i] < len(targets[part[i]]) {
					break
				}
				pick[i] = 0
			}
			if i == len(pick) {
				break
			}
		}
	}
	// y − Σ w = 0 for every y of the consumers in the cluster (one without
	// a w is 0), and z − Σ w ≥ 0, in the columns' order.
	for _, ci := range part {
		for _, s := range sources {
			for _, t := range targets[ci] {
				if y, ok := ycol[[4]int{gi, ci, s, t}]; ok {
					m.Rows = append(m.Rows, highs.Row{Terms: append([]highs.Term{{Col: y, Coef: 1}}, yRows[y]...)})
				}
			}
		}
	}
	for _, s := range sources {
		for t := range g.targets {
			if z, ok := zcol[[3]int{gi, s, t}]; ok && len(zRows[z]) > 0 {
				m.Rows = append(m.Rows, highs.Row{Upper: math.Inf(1), Terms: append([]highs.Term{{Col: z, Coef: 1}}, zRows[z]...)})
			}
		}
	}
	return cl, true
}

// labelsOf lists the labels of a domain's positions, each once, in order.
func labelsOf(label []int) []int {
	var out []int
	for _, l := range label {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

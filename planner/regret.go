package planner

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
)

// Exact regrets from min-marginals.
//
// The min-marginal of node v at alternative a is the best total cost of a
// plan with x_v = a; its regret is that minus the optimum. For the core, a
// re-solve of the core with the choice fixed gives it. For an eliminated node
// the junction-tree distribute pass gives it: with MMS_i(S_i), the
// min-marginal over bucket i's separator, the min-marginal over the bucket is
//
//	MM_i(x_v, S_i) = B_i(x_v, S_i) + MMS_i(S_i) − m_i(S_i)
//
// (+Inf where m_i is: then B_i is too), and a child bucket j, whose message
// went into bucket i, gets MMS_j(S_j) = min over the rest of bucket i of MM_i
// (S_j ⊆ {v} ∪ S_i). Buckets whose message went to the core get MMS by
// re-solving the core with the separator's choices fixed, one solve per
// assignment; a separator that is empty gets the optimum. Each such query
// (and each core node's other choice) is first answered, where it can be,
// by a certificate: a plan whose cost a lower bound from the LP relaxation's
// duals meets (certify.go). The rest are re-solved, in parallel, each
// warm-started from the optimum with the fixed choices put in.
//
// Every value is carried as an interval [lo, hi]: a re-solve stopped by a
// time limit gives its dual bound and incumbent, and min and + keep
// intervals. Without limits lo == hi and the regrets are exact.

type regrets struct {
	ctx context.Context
	// parent is ctx without the regrets' time limit: the context of the
	// searches a work budget bounds instead (Options.RegretWork).
	parent context.Context
	// planWork is the work of the core search that proved the plan
	// (searchResult.work).
	planWork int64
	// workBounded says a work budget bounded the searches or the
	// re-solves, in place of the regrets' time limit; workSpent that it
	// left a query unproven.
	workBounded, workSpent bool
	// planIterations is the simplex iterations of HiGHS's solve of the
	// plan, and iterationsLeft what the re-solves' work budget has left
	// (iterationBudget).
	planIterations, iterationsLeft int64
	r                              *reduction
	cm                             *coreModel // nil when the core is empty
	lib                            *highs.Library
	cs                             *coreSearch // non-nil: the search solved the core, and answers the queries
	root                           *rootLP     // non-nil: the root LP solved beside the plan's, for the certificates
	opt                            *Options
	asg                            []int   // the optimal plan, node → domain position
	opt0                           float64 // the optimum

	queries []query
	index   map[string]int
	// dp runs the distribute pass, where some needed bucket's message
	// went to the core (nil: no query is a separator's).
	dp *distributor
	// unneeded counts the separators' queries that no regret depends on
	// beyond what they had proven before their re-solves (dropUnneeded).
	unneeded int
	// unneededLP counts those of unneeded that their LP re-solves' bounds
	// left out.
	unneededLP int

	out       []Regret
	solves    int // queries answered by re-solving the core
	certified int // queries answered by a certificate instead
	// fanOutsClustered counts the fan-outs' clusters and the pairs of
	// nodes whose rows the re-solves' LP got (clusterFanOuts).
	fanOutsClustered int
	// descended counts the queries answered by the descent from the plan
	// of their chain's last query (chainPlan).
	descended int
	// dualsAhead: the certificates' duals came from root.
	dualsAhead bool
	// fracNodes gathers the core nodes fractional in the queries' LP
	// re-solves alone (lpOnly), and queryClusters counts the clusters and
	// pairs their fan-outs got (0: none).
	fracNodes     map[int]bool
	queryClusters int
	// certifySkipped counts the queries whose certificates got the first
	// round alone, the sample having certified none (certifySampled).
	certifySkipped int
	// clusterDuals: the certificates were priced by the duals of the LP
	// with the fan-outs' cluster rows.
	clusterDuals bool
	// lpAhead: a re-solve worker took the LP loaded while the
	// certificates waited for the duals (loadLP).
	lpAhead bool
	// certifiedLater counts the queries certified after the first pass.
	certifiedLater int
	// eliminated counts the queries certified by an eliminated region
	// (certelim.go) rather than a small LP.
	eliminated int
	// windowed counts the queries certified by their last region's
	// window (regionWindows).
	windowed int

	mu                   sync.Mutex
	lpSolves, milpSolves int
	// fixed counts the MILP re-solves whose columns a plan found before
	// the re-solve fixed.
	fixed int
	// capped counts the open queries left at what is proven because
	// Options.RegretSolves allowed no more re-solves.
	capped int

	// Progress while explaining: the open queries, those answered, when
	// the regrets began and when Options.Progress was last called.
	bound, gap float64 // the plan's, for Progress
	nOpen      int
	nAnswered  atomic.Int64
	begun      time.Time
	lastReport atomic.Int64 // UnixNano
	reporting  sync.Mutex
}

// answered counts one more open query answered, and reports the count
// through Options.Progress, at most every highs.ProgressEvery.
func (rg *regrets) answered() {
	n := rg.nAnswered.Add(1)
	if rg.opt.Progress == nil {
		return
	}
	now := time.Now().UnixNano()
	last := rg.lastReport.Load()
	if last != 0 && now-last < int64(highs.ProgressEvery) || !rg.lastReport.CompareAndSwap(last, now) {
		return
	}
	rg.reporting.Lock()
	defer rg.reporting.Unlock()
	rg.opt.Progress(Progress{Elapsed: time.Since(rg.begun), Incumbent: rg.opt0, Bound: rg.bound, Gap: rg.gap,
		Explaining: true, Answered: int(min(n, int64(rg.nOpen))), Queries: rg.nOpen})
}

// counting wraps a next function of parallel: each call after a worker's
// first means its last query is answered.
func (rg *regrets) counting(next func() (int, bool)) func() (int, bool) {
	first := true
	return func() (int, bool) {
		if !first {
			rg.answered()
		}
		first = false
		return next()
	}
}

// A query asks for the best plan with some core nodes' choices restricted
// to sets of domain positions (one position, or a class of a separator).
type query struct {
	nodes  []int
	sets   [][]int
	lo, hi float64
	// known is what is proven while the query is open: its optimum lies
	// in [known.lo, known.hi] (the optimum, and a plan that answers it;
	// +Inf: none found yet). A time limit leaves the query there.
	known struct{ lo, hi float64 }
	// resume is the region a certificate pass left the query at, for the
	// next pass to go on from (nil: none left to try).
	resume []int
	// last is the region of the query's last certificate round (nil:
	// none), whose window regionWindows re-plans.
	last []int
}

type interval struct{ lo, hi []float64 }

func (rg *regrets) compute() error {
	in := rg.r.in
	n := len(in.p.Nodes)
	explain := explainedAt(rg.opt, rg.r)
	order := rg.r.order
	needed := make([]bool, len(order))
	for i := range order {
		if explain[order[i].node] {
			needed[i] = true
		}
		if needed[i] && order[i].parent >= 0 {
			needed[order[i].parent] = true
		}
	}
	// Queries: a core node's every other choice; every assignment of a
	// needed root bucket's separator.
	rg.index = map[string]int{}
	coreQ := map[[2]int]int{}
	for _, v := range rg.r.core {
		if !explain[v] {
			continue
		}
		for k := range in.domain[v] {
			coreQ[[2]int{v, k}] = rg.ask([]int{v}, [][]int{{k}})
		}
	}
	rootQ := map[int][]int{} // bucket → query per separator assignment
	scr := make([]int, n)
	for i := range order {
		b := &order[i]
		if !needed[i] || b.parent >= 0 || len(b.sep) == 0 {
			continue
		}
		qs := make([]int, len(b.msg))
		o := newOdometer(b.sep, b.reps, scr)
		for e := range qs {
			sets := make([][]int, len(b.sep))
			for j := range b.sep {
				for k, c := range b.cls[j] {
					if c == o.c[j] {
						sets[j] = append(sets[j], k)
					}
				}
			}
			qs[e] = rg.ask(b.sep, sets)
			o.next()
		}
		rootQ[i] = qs
	}
	// The distribute pass, from the last bucket down, once the queries are
	// answered (and once before, to tell which root queries a regret can
	// depend on: dropUnneeded).
	children := make([][]int, len(order))
	for j := range order {
		if needed[j] && order[j].parent >= 0 {
			children[order[j].parent] = append(children[order[j].parent], j)
		}
	}
	var roots []int
	for i := len(order) - 1; i >= 0; i-- {
		if needed[i] && order[i].parent < 0 {
			roots = append(roots, i)
		}
	}
	dp := &distributor{rg: rg, order: order, children: children, needed: needed, roots: roots,
		explain: explain, rootQ: rootQ}
	if len(rootQ) > 0 {
		// (A separator of one core node asks what that node's own
		// queries ask, where its classes are single alternatives: those
		// are the node's regrets, and are not the separators' alone.)
		own := map[int]bool{}
		for _, q := range coreQ {
			own[q] = true
		}
		dp.sepQ = map[int]bool{}
		for _, qs := range rootQ {
			for _, q := range qs {
				if !own[q] {
					dp.sepQ[q] = true
				}
			}
		}
		rg.dp = dp
	}
	if err := rg.solveQueries(); err != nil {
		return err
	}
	dp.pass(rg.opt.workers())
	nodeMM := dp.nodeMM

	// The regrets, by node and alternative.
	tol := objectiveTolerance(rg.opt0)
	var pos []int
	count := 0
	for v, nd := range in.p.Nodes {
		if explain[v] {
			count += len(nd.Alternatives) - 1
		}
	}
	if count > 0 {
		rg.out = make([]Regret, 0, count)
	}
	for v, nd := range in.p.Nodes {
		if !explain[v] {
			continue
		}
		pos = growInts(pos, len(nd.Alternatives)) // alternative → domain position
		for k, a := range in.domain[v] {
			pos[a] = k
		}
		value := func(k int) (lo, hi float64) {
			if k == rg.asg[v] {
				return rg.opt0, rg.opt0
			}
			if rg.r.pos[v] >= 0 {
				return nodeMM[v].lo[k], nodeMM[v].hi[k]
			}
			q := rg.queries[coreQ[[2]int{v, k}]]
			return q.lo, q.hi
		}
		chosen := in.domain[v][rg.asg[v]]
		for a, alt := range nd.Alternatives {
			if a == chosen || alt.Removed != "" {
				continue
			}
			reg := Regret{Node: v, Alternative: a, ID: alt.ID, DominatedBy: -1}
			var lo, hi float64
			if d := in.dominatedBy(v, a); d >= 0 {
				reg.DominatedBy = d
				lo, hi = value(pos[d])
				shift := alt.Cost - nd.Alternatives[d].Cost
				lo, hi = lo+shift, hi+shift
			} else {
				lo, hi = value(pos[a])
			}
			reg.Regret = math.Max(0, hi-rg.opt0)
			reg.Lower = math.Max(0, math.Min(lo-rg.opt0, reg.Regret))
			if reg.Regret <= tol {
				reg.Regret, reg.Lower, reg.Tie = 0, 0, true
			}
			reg.Exact = reg.Lower == reg.Regret || (lo == hi)
			if reg.Exact {
				reg.Lower = reg.Regret
			}
			rg.out = append(rg.out, reg)
		}
	}
	if len(rg.out) == 0 {
		rg.out = nil // no regret: the same as none computed
	}
	return nil
}

// A distributor runs the distribute pass: a bucket is ready once its
// parent is done (its MMS known), so ready buckets run in parallel on
// workers, each with its own scratch. Every bucket's values depend only on
// its parent's, computed in a fixed order: the result does not depend on
// the schedule.
type distributor struct {
	rg       *regrets
	order    []bucket
	children [][]int
	needed   []bool // the buckets an explained node's min-marginals need
	roots    []int  // the needed buckets whose message went to the core
	mms      []interval
	nodeMM   []interval
	explain  []bool
	rootQ    map[int][]int
	sepQ     map[int]bool // the queries of rootQ, less those a core node's regrets ask too
	twoSided bool
}

// pass runs the distribute pass over the queries' values as they are:
// nodeMM then holds every explained eliminated node's min-marginals.
func (dp *distributor) pass(workers int) {
	dp.mms = make([]interval, len(dp.order))
	dp.nodeMM = make([]interval, len(dp.rg.r.in.p.Nodes))
	dp.twoSided = false
	for _, q := range dp.rg.queries {
		if q.lo != q.hi {
			dp.twoSided = true
		}
	}
	dp.run(dp.roots, workers)
}

// slack runs the distribute pass backwards, after pass: for each needed
// root bucket i with a separator and each of its separator's assignments
// e, it returns the least, over the explained nodes' alternatives k that
// bucket i's min-marginals reach, of what MMS_i(e) adds on its way to k's
// min-marginal, less k's min-marginal's upper end (nodeMM's hi). An
// alternative's min-marginal is a least over separator assignments of
// MMS_i(e) plus what the buckets on the way add (B − m, never negative);
// where MMS_i(e)'s lower end plus its slack is not below zero, every value
// through e is at least the upper end already known, so that no regret
// depends on MMS_i(e) beyond its lower end.
func (dp *distributor) slack() map[int][]float64 {
	rg, order := dp.rg, dp.order
	below := make([][]float64, len(order)) // bucket j → its slack per entry of its message
	out := map[int][]float64{}
	w := &dworker{sc: rg.r.in.newScratch()}
	sc, kn := w.sc, &w.kn
	for i := range order { // every child before its parent
		if !dp.needed[i] {
			continue
		}
		b := &order[i]
		kids := dp.children[i]
		kn.load(rg.r, b)
		w.row = grow(w.row, len(b.unary))
		w.kidIx, w.kidRest = w.kidIx[:0], w.kidRest[:0]
		w.kidBase = growInts(w.kidBase, len(kids))
		for _, j := range kids {
			w.kidIx = append(w.kidIx, newIndexer(order[j].sep, order[j].cls, classCounts(order[j].reps), b.node, &w.kidRest))
		}
		var hi []float64
		if dp.explain[b.node] {
			hi = dp.nodeMM[b.node].hi
		}
		sl := filled(len(b.msg), inf)
		o := newOdometer(b.sep, b.reps, sc.asg)
		keep := kn.rows(len(b.msg))
		from := 0
		for e := range b.msg {
			vals := kn.rowFrom(sc, w.row, from, keep)
			for c := range w.kidIx {
				w.kidBase[c] = w.kidIx[c].baseOf(sc.asg)
			}
			o.next()
			from = o.changed + 1
			if math.IsInf(b.msg[e], 1) {
				continue
			}
			for k, val := range vals {
				if math.IsInf(val, 1) {
					continue
				}
				t := inf
				if hi != nil {
					t = -hi[k]
				}
				for c, j := range kids {
					t = math.Min(t, below[j][w.kidIx[c].at(w.kidBase[c], k)])
				}
				if !math.IsInf(t, 1) {
					lower(&sl[e], val-b.msg[e]+t)
				}
			}
		}
		for _, j := range kids {
			below[j] = nil
		}
		if b.parent >= 0 {
			below[i] = sl
		} else if len(b.sep) > 0 {
			out[i] = sl
		}
	}
	return out
}

// dworker is one worker's scratch.
type dworker struct {
	sc      *scratch
	kn      kernel
	kidRest []scoped
	kidIx   []indexer
	kidBase []int
	row     []float64
}

func (dp *distributor) run(roots []int, workers int) {
	ready := make(chan int, len(dp.order))
	var pending sync.WaitGroup
	pending.Add(len(roots))
	for _, i := range roots {
		ready <- i
	}
	go func() {
		pending.Wait()
		close(ready)
	}()
	var done sync.WaitGroup
	for range max(1, workers) {
		done.Add(1)
		go func() {
			defer done.Done()
			w := &dworker{sc: dp.rg.r.in.newScratch()}
			for i := range ready {
				kids := dp.bucket(i, w)
				pending.Add(len(kids))
				for _, j := range kids {
					ready <- j
				}
				pending.Done()
			}
		}()
	}
	done.Wait()
}

// bucket computes bucket i's min-marginals: its node's, and its children's
// MMS, which it returns as ready.
func (dp *distributor) bucket(i int, w *dworker) []int {
	rg, order, children, mms, nodeMM, explain, rootQ, twoSided := dp.rg, dp.order, dp.children, dp.mms, dp.nodeMM, dp.explain, dp.rootQ, dp.twoSided
	sc, kn := w.sc, &w.kn
	b := &order[i]
	cur := mms[i]
	switch {
	case b.parent >= 0:
	case len(b.sep) == 0:
		cur = interval{[]float64{rg.opt0}, []float64{rg.opt0}}
	default:
		cur = interval{make([]float64, len(b.msg)), make([]float64, len(b.msg))}
		for e, q := range rootQ[i] {
			cur.lo[e], cur.hi[e] = rg.queries[q].lo, rg.queries[q].hi
		}
	}
	mms[i] = interval{}
	dv := len(b.unary)
	// When every value is exact (no re-solve stopped early), lo and hi
	// share their slices and only lo is computed.
	pair := func(size int) interval {
		lo := filled(size, inf)
		if !twoSided {
			return interval{lo, lo}
		}
		return interval{lo, filled(size, inf)}
	}
	node := pair(dv)
	kids := make([]interval, len(children[i]))
	for c, j := range children[i] {
		kids[c] = pair(len(order[j].msg))
	}
	kn.load(rg.r, b)
	w.row = grow(w.row, dv)
	row := w.row
	w.kidIx = w.kidIx[:0]
	w.kidBase = growInts(w.kidBase, len(children[i]))
	w.kidRest = w.kidRest[:0]
	for _, j := range children[i] {
		w.kidIx = append(w.kidIx, newIndexer(order[j].sep, order[j].cls, classCounts(order[j].reps), b.node, &w.kidRest))
	}
	kidIx, kidBase := w.kidIx, w.kidBase
	o := newOdometer(b.sep, b.reps, sc.asg)
	keep := kn.rows(len(b.msg))
	from := 0 // the first row: every term
	for e := range b.msg {
		vals := kn.rowFrom(sc, row, from, keep)
		for c := range kidIx {
			kidBase[c] = kidIx[c].baseOf(sc.asg)
		}
		for k, val := range vals {
			lo := combine(val, cur.lo[e], b.msg[e])
			lower(&node.lo[k], lo)
			for c := range kidIx {
				lower(&kids[c].lo[kidIx[c].at(kidBase[c], k)], lo)
			}
			if !twoSided {
				continue
			}
			hi := combine(val, cur.hi[e], b.msg[e])
			lower(&node.hi[k], hi)
			for c := range kidIx {
				lower(&kids[c].hi[kidIx[c].at(kidBase[c], k)], hi)
			}
		}
		o.next()
		from = o.changed + 1
	}
	for c, j := range children[i] {
		mms[j] = kids[c]
	}
	if explain[b.node] {
		nodeMM[b.node] = node
	}
	return children[i]
}

func classCounts(reps [][]int) []int {
	n := make([]int, len(reps))
	for i := range reps {
		n[i] = len(reps[i])
	}
	return n
}

// lower sets *x to v when v is smaller (no NaN arises here).
func lower(x *float64, v float64) {
	if v < *x {
		*x = v
	}
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func growInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

func filled(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// combine is val + mms − msg, +Inf where any is.
func combine(val, mms, msg float64) float64 {
	if math.IsInf(val, 1) || math.IsInf(mms, 1) || math.IsInf(msg, 1) {
		return inf
	}
	return val + mms - msg
}

// ask registers a query and returns its index; a query the optimum meets is
// answered at once.
func (rg *regrets) ask(nodes []int, sets [][]int) int {
	var b strings.Builder
	meets := true
	for j, v := range nodes {
		b.WriteString(strconv.Itoa(v))
		b.WriteByte(':')
		for _, k := range sets[j] {
			b.WriteString(strconv.Itoa(k))
			b.WriteByte('.')
		}
		b.WriteByte(',')
		if !slices.Contains(sets[j], rg.asg[v]) {
			meets = false
		}
	}
	key := b.String()
	if q, ok := rg.index[key]; ok {
		return q
	}
	q := query{nodes: nodes, sets: sets, lo: math.NaN(), hi: math.NaN()}
	q.known.lo, q.known.hi = rg.opt0, inf
	if meets {
		q.lo, q.hi = rg.opt0, rg.opt0
	}
	rg.queries = append(rg.queries, q)
	rg.index[key] = len(rg.queries) - 1
	return len(rg.queries) - 1
}

// solveQueries answers the open queries: first each by a certificate
// (certify.go), then the rest by re-solving the core, in parallel on at most
// Options.Workers HiGHS instances.
func (rg *regrets) solveQueries() error {
	var open []int
	for q := range rg.queries {
		if math.IsNaN(rg.queries[q].hi) {
			open = append(open, q)
		}
	}
	if len(open) == 0 {
		return nil
	}
	rg.nOpen, rg.begun = len(open), time.Now()
	if rg.cs != nil {
		return rg.searchQueries(open)
	}
	if err := rg.windowBounds(open); err != nil {
		return err
	}
	if rg.opt.windowsOnly {
		for _, qi := range open {
			q := &rg.queries[qi]
			q.lo, q.hi = q.known.lo, q.known.hi
		}
		return nil
	}
	lp := relaxation(&rg.cm.model)
	var ahead *loadedLP
	if rg.root != nil && (!rg.root.finished() || rg.opt.lpAhead) {
		// The certificates wait for the interior point duals, which take
		// one processor: the other loads the first re-solve worker's LP.
		ahead = rg.loadLP(&lp)
		defer ahead.close()
	}
	var cert *certifier
	if rg.root != nil && rg.root.wait(rg.ctx) && rg.root.duals != nil {
		// Solved beside the plan's branch and bound (certifiesAhead).
		cert = newCertifier(rg, rg.root.duals)
		rg.dualsAhead = true
	} else if mode := rg.opt.certify; !rg.r.in.p.ordered() && (mode == certifyAlways || mode == certifyFixings || mode == certifyAuto && len(open) >= certifyQueries) {
		// (A certificate's plan is not checked against kernel-order
		// levels: an ordered problem's queries are re-solved.)
		// The LP relaxation, solved once for its duals by the interior
		// point method (a vertex's duals are mostly 0 on this degenerate LP).
		res, err := rg.interiorDuals(&lp)
		if err != nil {
			return err
		}
		if res.Status == highs.Optimal {
			cert = newCertifier(rg, res.RowDuals)
		}
	}
	clustered := false
	if cert != nil && cert.belowOptimum() && !rg.opt.noClusterDuals {
		// The LP is below the optimum, and so is every certificate's bound
		// by as much. Where that is the fan-outs' doing, the rows that
		// tighten the re-solves' LP are added first, and the certificates
		// priced by its duals instead.
		if ahead == nil {
			ahead = rg.loadLP(&lp)
			defer ahead.close()
		}
		if ahead.optimalBasis() != nil {
			if tight, n := rg.clusterFanOuts(&lp, ahead.values); n > 0 {
				clustered = true
				ahead.close()
				lp = tight
				ahead = rg.loadLP(&lp)
				defer ahead.close()
				rg.fanOutsClustered = n
				res, err := rg.interiorDuals(&lp)
				if err != nil {
					return err
				}
				if res.Status == highs.Optimal {
					cert = newCertifierOn(rg, &lp, res.RowDuals)
					rg.clusterDuals = true
				}
			}
		}
	}
	if cert != nil && rg.opt.certify != certifyFixings {
		var err error
		if open, err = rg.certifySampled(cert, open); err != nil {
			return err
		}
	}
	open = rg.dropUnneeded(open)
	open = rg.solvesAllowed(open)
	rg.solves = len(open)
	if budget := rg.iterationBudget(); budget > 0 {
		// From here on the re-solves heed the work budget, not the time
		// limit.
		rg.workBounded, rg.iterationsLeft = true, budget
	}

	if ahead == nil && len(open) > 0 {
		// The first worker would solve the LP first: it is solved here,
		// for its vertex, and the other workers start from its basis.
		ahead = rg.loadLP(&lp)
		defer ahead.close()
	}
	if len(open) > 0 && !clustered && ahead.optimalBasis() != nil {
		// Where the LP's vertex is fractional at a few nodes, every query's
		// LP is most often fractional there too, and each is a MILP: the
		// fan-outs there get rows that make the LP tight (fanoutcut.go).
		if tight, n := rg.clusterFanOuts(&lp, ahead.values); n > 0 {
			clustered = true
			ahead.close()
			lp = tight
			ahead = rg.loadLP(&lp)
			defer ahead.close()
			rg.fanOutsClustered = n
		}
	}
	rg.fracNodes = map[int]bool{}
	lpDone := make([]bool, len(rg.queries)) // the queries whose LP was re-solved alone
	taken := false
	if rg.dp != nil && !rg.opt.allSeparators {
		// The separators' queries first, each to its LP's bound: with
		// those, fewer of them matter to a regret (dropUnneeded), and the
		// rest go on with the others.
		var seps []int
		for _, qi := range open {
			if rg.dp.sepQ[qi] {
				seps = append(seps, qi)
				lpDone[qi] = true
			}
		}
		if len(seps) > 0 {
			if err := rg.resolve(&lp, cert, ahead, false, seps, true); err != nil {
				return err
			}
			taken = true
			open = rg.stillOpen(open)
			if plantSeparatorLPs != nil {
				plantSeparatorLPs(rg, open)
			}
			before := rg.unneeded
			open = rg.dropUnneeded(open)
			rg.unneededLP = rg.unneeded - before
		}
	}
	if !clustered && !rg.opt.noQueryClusters && len(open) > 0 {
		// The other queries' LPs too, each alone: where those that come out
		// fractional are so at a few nodes between them, the fan-outs
		// there get their clusters' rows (fanoutcut.go), and the queries
		// left are re-solved on that LP, most of them integral now
		// instead of MILPs.
		var rest []int
		for _, qi := range open {
			if !lpDone[qi] {
				rest = append(rest, qi)
			}
		}
		if len(rest) > 0 {
			if err := rg.resolve(&lp, cert, ahead, taken, rest, true); err != nil {
				return err
			}
			taken = true
			open = rg.stillOpen(open)
		}
		if len(open) > 0 {
			if tight, n := rg.clusterFanOutsAt(&lp, rg.fracNodes); n > 0 {
				lp = tight
				ahead.close()
				ahead = rg.loadLP(&lp)
				defer ahead.close()
				taken = false
				rg.fanOutsClustered, rg.queryClusters = n, n
			}
		}
	}
	return rg.resolve(&lp, cert, ahead, taken, open, false)
}

// stillOpen returns the queries of open not answered yet, counting the
// others answered.
func (rg *regrets) stillOpen(open []int) []int {
	still := open[:0:0]
	for _, qi := range open {
		if math.IsNaN(rg.queries[qi].hi) {
			still = append(still, qi)
		} else {
			rg.answered()
		}
	}
	return still
}

// interiorDuals solves lp by the interior point method, for its duals.
func (rg *regrets) interiorDuals(lp *highs.Model) (*highs.Result, error) {
	s, err := rg.lib.NewSolver()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	opt := rg.opt.solverOptions()
	opt.Duals, opt.InteriorPoint = true, true
	return solveDuals(rg.ctx, s, lp, opt)
}

// plantSeparatorLPs, when set (by a test), is called with the queries
// left open after the separators' LP re-solves, before dropUnneeded.
var plantSeparatorLPs func(rg *regrets, open []int)

// resolve re-solves the queries open in chains, in parallel. The first
// worker takes the LP loaded ahead, where there is one and it is not
// taken yet, and the others start from its optimal basis; lpOnly stops each
// query at its LP re-solve, which answers it where its LP comes out
// integral and else raises its known.lo to the LP's bound.
//
// Under a work budget (rg.workBounded) the chains are taken in their order
// in batches of regretBatch, each chain of a batch allowed an eighth of
// the simplex iterations the batches before left (all of it among the
// last eight), as the searches' (searchQueries): what each re-solve may
// do, and so its answer, depends on the queries alone.
func (rg *regrets) resolve(lp *highs.Model, cert *certifier, ahead *loadedLP, taken bool, open []int, lpOnly bool) error {
	chains := chains(open)
	var gate *workGate
	if rg.workBounded {
		gate = newWorkGate(len(chains), rg.iterationsLeft)
		defer func() {
			rg.iterationsLeft = gate.left
			rg.workSpent = rg.workSpent || gate.cut
		}()
	}
	return rg.parallel(len(chains), func(w int, next func() (int, bool)) error {
		pre, from := ahead, (*loadedLP)(nil)
		if w > 0 || taken {
			pre, from = nil, ahead
		}
		var chain []int
		fresh := false // the query next takes begins a chain
		var budget *chainBudget
		count := rg.counting
		if lpOnly {
			count = func(next func() (int, bool)) func() (int, bool) { return next }
		}
		query := count(func() (int, bool) {
			if fresh = len(chain) == 0; fresh {
				var c int
				var ok bool
				if gate != nil {
					if budget != nil {
						gate.finish(budget)
					}
					c, budget, ok = gate.next()
				} else {
					c, ok = next()
				}
				if !ok {
					return 0, false
				}
				chain = chains[c]
			}
			qi := chain[0]
			chain = chain[1:]
			return qi, true
		})
		err := rg.worker(lp, cert, pre, from, lpOnly, func() (int, bool, *chainBudget, bool) {
			qi, ok := query()
			return qi, fresh, budget, ok
		})
		if err != nil && gate != nil {
			gate.fail()
		}
		return err
	})
}

// A chainBudget is the simplex iterations one chain's re-solves may take
// (limit) and have taken (used); cut says it left a query unproven.
type chainBudget struct {
	chain       int
	limit, used int64
	cut         bool
}

func (b *chainBudget) left() int64 { return b.limit - b.used }

// A workGate hands out n chains in batches of regretBatch under a work
// budget (resolve): a batch opens when the last one has ended, and each
// of its chains gets left divided among at most regretShare of the chains
// still to come (0 once it is spent).
type workGate struct {
	mu                 sync.Mutex
	cond               sync.Cond
	n                  int
	left               int64
	start, end, handed int // the batch open: chains [start, end), handed out up to start+handed
	budgets            []*chainBudget
	ended              int
	cut, failed        bool
}

func newWorkGate(n int, left int64) *workGate {
	g := &workGate{n: n, left: left}
	g.cond.L = &g.mu
	g.open(0)
	return g
}

// open opens the batch that begins at chain start; g.mu is held.
func (g *workGate) open(start int) {
	g.start, g.end, g.handed, g.ended = start, min(start+regretBatch, g.n), 0, 0
	var limit int64
	if g.left > 0 {
		limit = max(g.left/int64(max(min(g.n-start, regretShare), 1)), 1)
	}
	g.budgets = g.budgets[:0]
	for c := g.start; c < g.end; c++ {
		g.budgets = append(g.budgets, &chainBudget{chain: c, limit: limit})
	}
}

// next returns the next chain and its budget, waiting for the batch before
// to end; false when there is none left (or a worker failed).
func (g *workGate) next() (int, *chainBudget, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if g.failed || g.start >= g.n {
			return 0, nil, false
		}
		if g.start+g.handed < g.end {
			b := g.budgets[g.handed]
			g.handed++
			return b.chain, b, true
		}
		g.cond.Wait()
	}
}

// finish ends a chain handed out; the batch's last opens the next batch.
func (g *workGate) finish(b *chainBudget) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cut = g.cut || b.cut
	if g.ended++; g.ended < g.end-g.start {
		return
	}
	for _, b := range g.budgets {
		g.left -= b.used
	}
	g.open(g.end)
	g.cond.Broadcast()
}

// fail wakes every worker waiting for a batch, to end.
func (g *workGate) fail() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.failed = true
	g.cond.Broadcast()
}

// dropUnneeded leaves out of the re-solves, open, the separators' queries
// on which no regret depends: with every open query at what it has proven
// (known), the distribute pass gives each explained eliminated node's
// min-marginals as intervals, and a query whose lower end cannot bring any
// of them below its upper end (slack) would change no regret by its
// re-solve. Those keep [known.lo, known.hi]; the regrets come out the same
// as with every query re-solved. What is left out depends on the queries'
// known values alone, not on the time or the workers.
func (rg *regrets) dropUnneeded(open []int) []int {
	dp := rg.dp
	if dp == nil || rg.opt.allSeparators {
		return open
	}
	// The separators' queries still open.
	root := map[int]bool{}
	for _, qi := range open {
		if q := &rg.queries[qi]; dp.sepQ[qi] && math.IsNaN(q.hi) {
			root[qi] = true
			q.lo, q.hi = q.known.lo, q.known.hi
		}
	}
	if len(root) == 0 {
		return open
	}
	dp.pass(rg.opt.workers())
	slack := dp.slack()
	dp.mms, dp.nodeMM = nil, nil
	tol := objectiveTolerance(rg.opt0)
	needed := map[int]bool{}
	for i, qs := range dp.rootQ {
		for e, qi := range qs {
			q := &rg.queries[qi]
			if !math.IsInf(q.known.lo, 1) && q.known.lo+slack[i][e] < tol {
				needed[qi] = true
			}
		}
	}
	kept := open[:0:0]
	for _, qi := range open {
		if root[qi] && !needed[qi] {
			rg.unneeded++
			rg.answered()
			continue
		}
		if root[qi] {
			q := &rg.queries[qi]
			q.lo, q.hi = math.NaN(), math.NaN()
		}
		kept = append(kept, qi)
	}
	return kept
}

// The re-solves go in chains (chains) of resolveChainMin to
// resolveChainMax queries, about resolveChains of them where the queries
// are enough. On the engine's dense 1,000-node DAG (1,279 re-solves) every
// regret took 66.6 s with chains of 32, 74.4 s with chains of 8 and 82.7 s
// with chains of at most 8 queries of one node, one run each; 131.9 s
// without chains against 101.0 s with these in another hour. On cklplan
// gen dag --invocations 1000 --exec-scale 100 --seed 1 (39 re-solves)
// chains of 4 or 5 took them to 1.4–1.7 s from 2.2–2.9 s
// (docs/benchmarks.md, "The re-solves in chains").
const (
	resolveChains   = 16
	resolveChainMin = 4
	resolveChainMax = 32
)

// chains cuts the queries to re-solve, open, into chains of consecutive
// queries (resolveChains). A worker re-solves a chain's first query from
// the LP's optimal basis with HiGHS's simplex state cleared, and each next
// one from where the last ended: each answer depends on its chain alone,
// which depends on open alone, not on the workers or the timing, and a
// query warm from the last one's vertex skips the refactorization of the
// fixed start. The longest chains come first, for the workers to end
// together.
func chains(open []int) [][]int {
	n := min(max((len(open)+resolveChains-1)/resolveChains, resolveChainMin), resolveChainMax)
	var out [][]int
	for len(open) > 0 {
		k := min(n, len(open))
		out = append(out, open[:k:k])
		open = open[k:]
	}
	slices.SortStableFunc(out, func(a, b []int) int { return len(b) - len(a) })
	return out
}

// solvesAllowed keeps, of the open queries, the Options.RegretSolves whose
// plans found so far (known.hi: a window's, a certificate's) cost least,
// ties in the queries' order, and leaves every other at what is proven
// without a re-solve: which queries are re-solved depends on neither the
// time nor the workers, and each is re-solved to the end. The queries kept
// stay in open's order.
func (rg *regrets) solvesAllowed(open []int) []int {
	k := rg.opt.RegretSolves
	if k <= 0 || len(open) <= k {
		return open
	}
	order := slices.Clone(open)
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(rg.queries[a].known.hi, rg.queries[b].known.hi)
	})
	for _, qi := range order[k:] {
		q := &rg.queries[qi]
		q.lo, q.hi = q.known.lo, q.known.hi
		rg.answered()
	}
	rg.capped = len(order) - k
	kept := order[:k]
	slices.Sort(kept)
	return kept
}

// certificatePasses tries a certificate for each open query, in passes of
// certifyPasses rounds each (certify.go), and returns the queries left
// for re-solves. A pass takes its rounds one by one over every query still
// open, and a round takes the queries by their node set and region: the
// queries of one node set whose regions are the same (every other choice of
// a node, at its first region; a third of them at their second) share the
// region's elimination but for their nodes' (certifyRound), and each comes
// out as its own rounds would have left it.
func (rg *regrets) certificatePasses(cert *certifier, open []int) ([]int, error) {
	return rg.certificatePassesOf(cert, open, rg.certifyPasses())
}

// certifyPasses is certifyPasses, or the passes of Options.certifyRounds.
func (rg *regrets) certifyPasses() [3]int {
	if r := rg.opt.certifyRounds; r > 0 {
		return [...]int{1, min(r-1, 1), max(r-2, 0)}
	}
	return certifyPasses
}

// certificatePassesOf is certificatePasses in the given passes.
func (rg *regrets) certificatePassesOf(cert *certifier, open []int, passes [3]int) ([]int, error) {
	left := slices.Clone(open) // the queries the next round goes on with
	for i, qi := range left {
		if q := &rg.queries[qi]; rg.fixedOut(q) {
			q.lo, q.hi = inf, inf
			rg.certified++
			rg.answered()
			left[i] = -1
		}
	}
	left = slices.DeleteFunc(left, func(qi int) bool { return qi < 0 })
	for pass, rounds := range passes {
		for range rounds {
			groups := rg.regionGroups(left)
			done := make([]bool, len(left))
			err := rg.parallel(len(groups), func(w int, next func() (int, bool)) error {
				s, err := rg.lib.NewSolver()
				if err != nil {
					return err
				}
				defer s.Close()
				cw := cert.newWorker(s)
				var qs []*query
				for {
					g, ok := next()
					if !ok {
						return nil
					}
					qs = qs[:0]
					for _, i := range groups[g] {
						qs = append(qs, &rg.queries[left[i]])
					}
					ends := make([]bool, len(qs))
					if err := cert.certifyRound(rg.ctx, qs, cw, cert.columnLimit(certifyColumns), ends); err != nil {
						return err
					}
					for k, i := range groups[g] {
						if done[i] = ends[k]; done[i] {
							rg.answered()
						}
					}
				}
			})
			if err != nil {
				return nil, err
			}
			next := left[:0]
			for i, qi := range left {
				switch q := &rg.queries[qi]; {
				case done[i]:
					rg.certified++
					if pass > 0 {
						rg.certifiedLater++
					}
				case q.resume != nil:
					next = append(next, qi)
				}
			}
			left = next
		}
	}
	if err := rg.regionWindows(cert, open); err != nil {
		return nil, err
	}
	// Every query not certified is re-solved, in the order it was open.
	rest := open[:0]
	for _, qi := range open {
		if math.IsNaN(rg.queries[qi].hi) {
			rest = append(rest, qi)
		}
	}
	for _, qi := range rest {
		rg.queries[qi].resume, rg.queries[qi].last = nil, nil
	}
	return rest, nil
}

// regionWindows re-plans, for each query of open that its certificate left
// open, the window of its last region (query.last) exactly, the rest of
// the optimum fixed (windower.bestInto): a plan of the query, and where it
// costs what the certificate proved (known.lo), the query is answered.
//
// A certificate bounds a query by its region and prices the rest by the
// root LP's duals; the plan that comes with it keeps the optimum outside
// the region and its boundary. Where the query's best plan moves nodes a
// little further, the bound is exact and the plan is not, and the query
// went to an LP re-solve of the core. On the engine's dense 1,000-node
// DAG (BenchmarkDenseDAG), of its 555 LP re-solves after the
// certificates, 190 ended at the certificate's bound, their plans moving
// 3–12 nodes, connected, that the region had reached and the descents had
// not. A window of the region's nodes, the query's restricted to its sets,
// finds such a plan: 168–183 of those queries were answered so, in 0.8 s
// on one processor, against about 25 ms for each LP re-solve. Windows of
// a breadth-first ball of 4 to 32 nodes around the query instead answered
// at most 19 (docs/benchmarks.md).
func (rg *regrets) regionWindows(cert *certifier, open []int) error {
	p := rg.r.in.p
	if len(p.Budgets) > 0 || p.ordered() || rg.opt.noRegionWindows {
		return nil
	}
	var todo []int
	for _, qi := range open {
		if q := &rg.queries[qi]; math.IsNaN(q.hi) && q.last != nil && !math.IsInf(q.known.lo, 1) {
			todo = append(todo, qi)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	plan := rg.optimumPlan()
	// A sample first: where its windows answer none, the others' would
	// most likely answer none either (on cklplan gen dag --invocations
	// 300 --exec-scale 100 --seed 1, none of 403, in 0.14 s).
	// (Spread over the queries, as certifySampled's.)
	var sample, others []int
	n := min(len(todo), windowSample)
	for i, qi := range todo {
		if i*n/len(todo) != (i+1)*n/len(todo) {
			sample = append(sample, qi)
		} else {
			others = append(others, qi)
		}
	}
	if err := rg.windowsOf(cert, sample, plan); err != nil || rg.windowed == 0 {
		return err
	}
	return rg.windowsOf(cert, others, plan)
}

// optimumPlan is the optimum as alternative indices, one per node.
func (rg *regrets) optimumPlan() []int {
	plan := make([]int, len(rg.r.in.p.Nodes))
	for v, k := range rg.asg {
		plan[v] = rg.r.in.domain[v][k]
	}
	return plan
}

// queryAllowed appends to allowed, for each of q's nodes, the alternatives
// of its set (its domain positions' alternatives), as windower.best takes
// them.
func (rg *regrets) queryAllowed(q *query, allowed [][]int) [][]int {
	for j, v := range q.nodes {
		alts := make([]int, len(q.sets[j]))
		for n, k := range q.sets[j] {
			alts[n] = rg.r.in.domain[v][k]
		}
		allowed = append(allowed, alts)
	}
	return allowed
}

// windowSample is the queries regionWindows tries first, and
// regionWindowTable and regionWindowBudget bound its windows' buckets:
// a region is larger than improve's windows (20–50 nodes on the
// engine's dense DAG), and with improveTable and improveBudget 187 of its
// queries were answered, with these 216, in about the same time.
const (
	windowSample       = 50
	regionWindowTable  = 1 << 16
	regionWindowBudget = 1 << 18
)

// windowsOf is regionWindows for the queries todo, plan the optimum
// (node → alternative).
func (rg *regrets) windowsOf(cert *certifier, todo []int, plan []int) error {
	p, in := rg.r.in.p, rg.r.in
	return rg.parallel(len(todo), func(_ int, next func() (int, bool)) error {
		w := newWindower(p)
		w.table, w.budget = regionWindowTable, regionWindowBudget
		var seeds []int
		var allowed [][]int
		out, asg := slices.Clone(plan), slices.Clone(rg.asg)
		for rg.ctx.Err() == nil {
			i, ok := next()
			if !ok {
				return nil
			}
			q := &rg.queries[todo[i]]
			seeds = append(seeds[:0], q.nodes...)
			for _, v := range q.last {
				if !slices.Contains(q.nodes, v) {
					seeds = append(seeds, v)
				}
			}
			allowed = rg.queryAllowed(q, allowed[:0])
			for _, v := range seeds[len(q.nodes):] {
				allowed = append(allowed, in.domain[v])
			}
			w.size = len(seeds)
			before, after, ok := w.bestInto(seeds, allowed, plan, out, false)
			if !ok || math.IsInf(before, 1) || math.IsInf(after, 1) {
				continue
			}
			// The plan's cost as the core's model counts it, as the
			// re-solves' (canonical): the same number for the same plan.
			for _, v := range seeds {
				asg[v] = slices.Index(in.domain[v], out[v]) // allowed: in the domain
			}
			c := rg.cm.model.Objective(rg.cm.point(rg.r, asg))
			for _, v := range seeds {
				asg[v] = rg.asg[v]
			}
			q.known.hi = math.Min(q.known.hi, c)
			if q.known.lo >= q.known.hi-cert.tol {
				q.lo, q.hi = q.known.hi, q.known.hi
				rg.mu.Lock()
				rg.certified++
				rg.windowed++
				rg.mu.Unlock()
				rg.answered()
			}
		}
		return nil
	})
}

// certifySampled tries a certificate for each open query
// (certificatePasses) and returns the queries left for re-solves, in the
// order they were open. Where the certificates' bound at the root is below
// the optimum, a query's region must make up that gap to be certified,
// and where it comes from far off, none does, each after every round: on
// gen dag --invocations 1000 --exec-scale 100 --seed 3 (11.5 ns below)
// the certificates of its 10,332 queries took 205 s and certified none.
// There a sample of certifySample queries, spread evenly over the open
// ones, is tried first, and the others in full only where the sample
// certified one; else they get the first round alone, whose bounds leave
// separators' queries out of the re-solves (on gen dag --invocations 40
// --exec-scale 30 --seed 1, every other node explained, 385 re-solves
// instead of 416 without it; 384 with every round). Which queries are
// tried, and how far, depends on the queries alone.
func (rg *regrets) certifySampled(cert *certifier, open []int) ([]int, error) {
	if !cert.belowOptimum() || len(open) <= 2*certifySample || rg.opt.noCertifySample {
		return rg.certificatePasses(cert, open)
	}
	sampled := make([]bool, len(open))
	var sample, others []int
	for i := range certifySample {
		sampled[i*len(open)/certifySample] = true
	}
	for i, qi := range open {
		if sampled[i] {
			sample = append(sample, qi)
		} else {
			others = append(others, qi)
		}
	}
	left, err := rg.certificatePasses(cert, sample)
	if err != nil {
		return nil, err
	}
	passes := rg.certifyPasses()
	if len(left) == len(sample) {
		// The others get the first round alone: its bounds, cheap, leave
		// separators' queries out of the re-solves (dropUnneeded).
		passes = [...]int{1, 0, 0}
		rg.certifySkipped = len(others)
	}
	if _, err := rg.certificatePassesOf(cert, others, passes); err != nil {
		return nil, err
	}
	rest := open[:0:0]
	for _, qi := range open {
		if math.IsNaN(rg.queries[qi].hi) {
			rest = append(rest, qi)
		}
	}
	return rest, nil
}

// regionGroups groups the positions in left of the queries by their node
// set and region (q.resume, or their nodes), in the order of their first
// query, each group's queries in left's order.
func (rg *regrets) regionGroups(left []int) [][]int {
	var groups [][]int
	index := map[string]int{}
	var key []byte
	for i, qi := range left {
		q := &rg.queries[qi]
		region := q.resume
		if region == nil {
			region = q.nodes
		}
		key = key[:0]
		for _, v := range q.nodes {
			key = strconv.AppendInt(key, int64(v), 10)
			key = append(key, ',')
		}
		key = append(key, '|')
		for _, v := range region {
			key = strconv.AppendInt(key, int64(v), 10)
			key = append(key, ',')
		}
		g, ok := index[string(key)]
		if !ok {
			g = len(groups)
			index[string(key)] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// certifiesAhead reports whether the regrets of r's core will price
// certificates by the root LP's duals: by default, when the core's queries
// (every explained core node's alternatives) are at least certifyQueries.
func certifiesAhead(r *reduction, opt *Options) bool {
	if opt.NoRegrets || opt.certify != certifyAuto && opt.certify != certifyAlways || r.in.p.ordered() {
		return false
	}
	explain := explainedAt(opt, r)
	n := 0
	for _, v := range r.core {
		if explain[v] {
			n += len(r.in.domain[v])
		}
	}
	return opt.certify == certifyAlways || n >= certifyQueries
}

// explained marks the nodes of n whose regrets opt asks for: every one
// without Options.Explain.
func explained(opt *Options, n int) []bool {
	explain := make([]bool, n)
	for v := range explain {
		explain[v] = opt.Explain == nil
	}
	for _, v := range opt.Explain {
		explain[v] = true
	}
	return explain
}

// explainedAt is explained for the reduction r: without the nodes of
// Options.coreUnexplained that r leaves in the core.
func explainedAt(opt *Options, r *reduction) []bool {
	explain := explained(opt, len(r.in.p.Nodes))
	for _, v := range opt.coreUnexplained {
		if r.pos[v] < 0 {
			explain[v] = false
		}
	}
	return explain
}

// parallel runs work on at most Options.Workers goroutines, which take the
// indices 0 to n−1 from next; after an error the others stop at their next
// call.
func (rg *regrets) parallel(n int, work func(w int, next func() (int, bool)) error) error {
	return rg.parallelOn(rg.opt.workers(), n, work)
}

// parallelOn is parallel on at most workers goroutines.
func (rg *regrets) parallelOn(workers, n int, work func(w int, next func() (int, bool)) error) error {
	if n == 0 {
		return nil
	}
	workers = max(min(workers, n), 1)
	var mu sync.Mutex
	taken := 0
	failed := false
	next := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if failed || taken == n {
			return 0, false
		}
		taken++
		return taken - 1, true
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[w] = work(w, next); errs[w] != nil {
				mu.Lock()
				failed = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fixedOut reports whether a query fixes a choice whose column is fixed to
// 0 (its unary cost is +Inf): no plan makes it.
func (rg *regrets) fixedOut(q *query) bool {
	for j, v := range q.nodes {
		if !slices.ContainsFunc(q.sets[j], func(k int) bool { return rg.cm.model.Columns[rg.cm.xcol[v]+k].Upper > 0 }) {
			return true
		}
	}
	return false
}

// worker answers the queries next gives on its own HiGHS instances: the
// LP relaxation lp stays loaded on one, and each query changes a few bounds
// and re-solves, from the LP's optimal basis where next says the query
// begins a chain (chains), else from the last re-solve's. Where the LP's x are integral its
// optimum is the MILP's (LP ≤ MILP, and an integral x determines y and z
// exactly). Elsewhere the MILP is re-solved, with a certifier every column
// fixed to 0 that the LP's reduced costs show no plan at most as costly as
// the best one found before uses.
func (rg *regrets) worker(lp *highs.Model, cert *certifier, pre, from *loadedLP, lpOnly bool, next func() (qi int, fresh bool, budget *chainBudget, ok bool)) error {
	s, err := rg.lib.NewSolver()
	if err != nil {
		return err
	}
	defer s.Close()
	var cw *certWorker
	if cert != nil {
		cw = cert.newWorker(s)
	}
	lpSolver, lpLoaded, err := pre.take()
	if err != nil {
		return err
	}
	// start is the basis every chain's first LP re-solve starts from: the
	// LP's optimal basis, the same on every worker. From the last query's
	// basis whatever it was, the vertex a query's degenerate LP ends at
	// (among plans of one cost, whose sums differ in the last bits) would
	// depend on which queries the worker took before, so on the workers
	// and the timing: Options.RegretSolves promises the same regrets
	// (cklplan gen dag --invocations 60 --exec-scale 100,
	// TestRegretsSameOnAnyWorkers). Within a chain, fixed by the queries
	// alone, each goes on from the last: a start costs a refactorization
	// (on gen dag --invocations 150 --degree 8 --exec-scale 100, 0.3–0.5 s
	// more CPU in 5.7 s).
	var start *highs.Basis
	if lpLoaded {
		rg.lpAhead = true // worker 0's alone
		start = pre.basis
	}
	if lpSolver == nil {
		if lpSolver, err = rg.lib.NewSolver(); err != nil {
			return err
		}
	}
	defer lpSolver.Close()
	m := rg.cm.model
	m.Columns = slices.Clone(m.Columns)
	point := make([]int, len(rg.asg))
	base := rg.opt.solverOptions()
	var changes, restore []highs.BoundChange
	cp := newCompactor(&m)
	warm := false // the LP holds the basis of this chain's last re-solve
	// The plan that answered the chain's last query, for the next one's
	// descent (chainPlan; none at a chain's start, nil without descents).
	var ch *chainPlan
	if cw != nil && rg.descends() {
		ch = rg.newChainPlan()
	}
	// (Under a work budget the regrets have no time limit: rg.ctx is
	// rg.parent, Options.regretTimeLimit.)
	ctx := rg.ctx
	for {
		qi, fresh, budget, ok := next()
		if !ok {
			return nil
		}
		if fresh {
			warm = false
			if ch != nil {
				ch.valid = false
			}
		}
		q := &rg.queries[qi]
		if rg.fixedOut(q) {
			q.lo, q.hi = inf, inf
			continue
		}
		if ctx.Err() != nil || budget != nil && budget.left() <= 0 {
			// The regret time limit has struck (or the caller gave up),
			// or the work budget is spent: what is known is all that is
			// proven.
			q.lo, q.hi = q.known.lo, q.known.hi
			if budget != nil && ctx.Err() == nil {
				budget.cut = true
			}
			continue
		}
		if ch != nil && ch.answers(q, cert.tol) {
			rg.mu.Lock()
			rg.descended++
			rg.mu.Unlock()
			continue
		}
		changes, restore = changes[:0], restore[:0]
		for j, v := range q.nodes {
			for k := range rg.r.in.domain[v] {
				if col := rg.cm.xcol[v] + k; !slices.Contains(q.sets[j], k) {
					changes = append(changes, highs.BoundChange{Col: col, Lower: 0, Upper: 0})
					restore = append(restore, highs.BoundChange{Col: col, Lower: lp.Columns[col].Lower, Upper: lp.Columns[col].Upper})
				}
			}
		}
		if !lpLoaded {
			if _, err = rg.solveLP(lpSolver, lp, from.optimalBasis()); err != nil {
				return err
			}
			lpLoaded = true
			if start == nil {
				start, _ = lpSolver.Basis(lp) // none when the context ended first
			}
		}
		if err = lpSolver.SetBounds(lp, changes); errors.Is(err, highs.ErrNotLoaded) {
			// The context ended before the LP was loaded.
			q.lo, q.hi, lpLoaded = q.known.lo, q.known.hi, false
			continue
		} else if err != nil {
			return err
		}
		lpOpt := base
		lpOpt.Duals = cw != nil
		if fresh || !warm {
			lpOpt.Basis = start
		}
		if budget != nil {
			lpOpt.IterationLimit = budget.left()
		}
		res, err := lpSolver.Resolve(ctx, lp, lpOpt)
		if err != nil {
			return err
		}
		warm = true
		if err = lpSolver.SetBounds(lp, restore); err != nil {
			return err
		}
		if budget != nil {
			budget.used += int64(res.SimplexIterations)
			if iterationLimited(res.Status) {
				q.lo, q.hi = q.known.lo, q.known.hi
				budget.cut = true
				continue
			}
		}
		rg.mu.Lock()
		rg.lpSolves++
		rg.mu.Unlock()
		if res.Status == highs.Infeasible {
			q.lo, q.hi = inf, inf
			continue
		}
		if res.Status == highs.Optimal && rg.integral(res.Values) {
			c := rg.canonical(res.Values, point)
			q.lo, q.hi = c, c
			ch.record(point)
			continue
		}
		if lpOnly {
			if res.Status == highs.Optimal {
				q.known.lo = math.Min(math.Max(q.known.lo, res.DualBound), q.known.hi)
				rg.mu.Lock()
				rg.fractional(res.Values, rg.fracNodes)
				rg.mu.Unlock()
			}
			continue
		}
		// The query's LP bounds it, where its MILP stops short.
		lpBound := q.known.lo
		if res.Status == highs.Optimal {
			lpBound = math.Max(lpBound, res.DualBound)
		}
		if budget != nil && budget.left() <= 0 {
			q.lo, q.hi = math.Min(lpBound, q.known.hi), q.known.hi
			budget.cut = true
			continue
		}
		copy(point, rg.asg)
		for j, v := range q.nodes {
			if !slices.Contains(q.sets[j], point[v]) {
				point[v] = q.sets[j][0]
			}
		}
		for _, ch := range changes {
			m.Columns[ch.Col].Upper = 0
		}
		// The best plan found before (a window's, a certificate's) bounds
		// the MILP: no better plan uses the columns that bound rules out
		// (on the engine's dense DAG, thousands of its 23,030). Certificates
		// of larger regions solved as MILPs, tried here until 2026-12-07,
		// cost more than the compacted MILP they would spare: on cklplan gen
		// dag --invocations 100 --exec-scale 100 --seed 3, 24 of 30 missed,
		// 1.9–2.2 s of CPU against 0.4 s for all 30 MILPs (docs/benchmarks.md).
		ub := q.known.hi
		var fixed []int
		if res.RowDuals != nil && !math.IsInf(ub, 1) {
			fixed = cert.fixings(lp, res.RowDuals, q, ub-rg.opt0)
			for _, j := range fixed {
				m.Columns[j].Upper = 0
			}
		}
		// HiGHS gets the columns that the bounds leave free: its presolve
		// on the whole core took most of each MILP re-solve (compact.go).
		if c, ok := cp.compact(&m); !ok {
			res = &highs.Result{Status: highs.Infeasible}
		} else {
			opt := base
			if opt.Start = c.point(rg.cm.point(rg.r, point)); opt.Start != nil {
				opt.NoFeasibilityJump = feasibleStart(&c.model, opt.Start)
			}
			if budget != nil {
				opt.IterationLimit = budget.left()
			}
			res, err = s.Solve(ctx, &c.model, opt)
			if err == nil && budget != nil {
				budget.used += int64(res.SimplexIterations)
				budget.cut = budget.cut || iterationLimited(res.Status)
			}
			if err == nil && res.Values != nil {
				res.Values = c.expand(res.Values)
			}
		}
		for _, ch := range restore {
			m.Columns[ch.Col].Upper = ch.Upper
		}
		for _, j := range fixed {
			m.Columns[j].Upper = lp.Columns[j].Upper
		}
		if err != nil {
			return err
		}
		rg.mu.Lock()
		rg.milpSolves++
		if len(fixed) > 0 {
			rg.fixed++
		}
		rg.mu.Unlock()
		switch {
		case res.Status == highs.Optimal:
			c := rg.canonical(res.Values, point)
			q.lo, q.hi = math.Min(c, ub), math.Min(c, ub)
			ch.record(point)
		case res.Status == highs.Infeasible:
			q.lo, q.hi = ub, ub
		case res.Status.HasSolution():
			q.hi = math.Min(rg.canonical(res.Values, point), ub)
			q.lo = math.Min(math.Max(lpBound, res.DualBound), q.hi)
		default:
			q.lo, q.hi = math.Min(lpBound, ub), ub
			if !math.IsNaN(res.DualBound) {
				q.lo = math.Min(math.Max(lpBound, res.DualBound), ub)
			}
		}
	}
}

// solveLP solves the core's LP relaxation lp on s, from nothing or from
// basis (nil: none), the optimal basis of a solve of lp elsewhere: what a
// re-solve worker's warm re-solves start from. Without presolve, as the
// core's solve: every regret of the dense 1,000-node DAG took 41–47 s so,
// 46–50 s with it. From the LP loaded ahead's basis, the second worker's
// LP takes no simplex iteration instead of 0.4–0.6 s on cklplan gen dag
// --invocations 1000 --exec-scale 100.
func (rg *regrets) solveLP(s *highs.Solver, lp *highs.Model, basis *highs.Basis) (*highs.Result, error) {
	opt := rg.opt.solverOptions()
	opt.Presolve = highs.PresolveOff
	opt.Basis = basis
	return s.Solve(rg.ctx, lp, opt)
}

// A loadedLP is the core's LP relaxation solved on a HiGHS instance of
// its own (solveLP) while the certificates wait for the interior point
// duals, for the first re-solve worker to take. On the dense DAG of
// `cklplan gen dag --invocations 1000 --exec-scale 100` it takes 0.4–0.6 s,
// which the wait hides.
type loadedLP struct {
	s     *highs.Solver
	err   error
	done  chan struct{}
	taken bool
	// basis is the LP's optimal basis, taken before any worker changes
	// it, for the other workers' LPs to start from (nil: none), and values
	// the vertex it ends at (nil: none).
	basis  *highs.Basis
	values []float64
}

// optimalBasis waits for the solve and returns the LP's optimal basis (a
// nil l, or none: nil).
func (l *loadedLP) optimalBasis() *highs.Basis {
	if l == nil {
		return nil
	}
	<-l.done
	return l.basis
}

// loadLP starts solving lp.
func (rg *regrets) loadLP(lp *highs.Model) *loadedLP {
	l := &loadedLP{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		s, err := rg.lib.NewSolver()
		if err == nil {
			var res *highs.Result
			if res, err = rg.solveLP(s, lp, nil); err != nil {
				s.Close()
				s = nil
			} else if b, err := s.Basis(lp); err == nil {
				l.basis = b // none when the context ended first
				if res.Status == highs.Optimal {
					l.values = res.Values
				}
			}
		}
		l.s, l.err = s, err
	}()
	return l
}

// take waits for the solve and returns its instance, and whether it holds
// the LP (a nil l: nil and false). The caller closes the instance.
func (l *loadedLP) take() (*highs.Solver, bool, error) {
	if l == nil {
		return nil, false, nil
	}
	<-l.done
	l.taken = true
	return l.s, l.s != nil, l.err
}

// close waits for the solve and closes its instance, if no worker took it
// and it is not closed yet.
func (l *loadedLP) close() {
	<-l.done
	if !l.taken && l.s != nil {
		l.s.Close()
	}
	l.taken = true // closed once
}

// canonical is the core model's objective at the plan whose core choices
// are the largest x of values, written into asg (its other entries are not
// read). It is the same number for the same plan however the solver
// reached it: a warm LP's objective carries the rounding of its basis,
// which depends on the queries its worker answered before, and so on the
// schedule.
func (rg *regrets) canonical(values []float64, asg []int) float64 {
	for _, v := range rg.r.core {
		best, bk := math.Inf(-1), 0
		for k := range rg.r.in.domain[v] {
			if x := values[rg.cm.xcol[v]+k]; x > best {
				best, bk = x, k
			}
		}
		asg[v] = bk
	}
	return rg.cm.model.Objective(rg.cm.point(rg.r, asg))
}

// integral reports whether every x of a core point is within 1e-6 of 0 or 1.
func (rg *regrets) integral(values []float64) bool {
	for _, v := range rg.r.core {
		for k := range rg.r.in.domain[v] {
			x := values[rg.cm.xcol[v]+k]
			if math.Abs(x-math.Round(x)) > 1e-6 {
				return false
			}
		}
	}
	return true
}

// A query is searched first with the core's heuristic, for at most
// staticNodes (a few milliseconds): that heuristic does not see the query's
// restriction before the search reaches the restricted node, and a query
// it does not settle in so many nodes seldom settles in many more (on the
// 40-invocation dense DAG, seed 2, 139 of 527 queries spent 1 M nodes,
// 14 s in all, in vain). Then it is searched with heuristics of its own
// (coreSearch.restricted), of growing i-bounds (querySteps): the smaller
// ones take milliseconds to build where the core's takes a few hundred,
// and seeing the restriction matters more than the size of the messages.
// Every regret of that DAG took 26 s with the core's heuristic for up to
// 1 M nodes and then the core's i-bound, now 5 s; of the DAG of seed 1, 205
// s and 59 s (2026-12-03).
const staticNodes = 1 << 16

// querySteps are the i-bounds of a query's own heuristics, each searched
// for at most nodes; 0: the core's i-bound, without a node limit.
var querySteps = [...]struct {
	ibound int
	nodes  int64
}{{1 << 16, 1 << 17}, {1 << 19, 1 << 20}, {1 << 22, 1 << 22}, {0, 0}}

// searchQueries answers the open queries by the core's branch and bound
// (bnb.go), in parallel on at most Options.Workers goroutines, each query
// started from the optimum with the query's choices put in. A search the
// regret context or the work budget stops gives the interval [its bound,
// its best plan].
func (rg *regrets) searchQueries(open []int) error {
	// Past Options.RegretSolves, a query gets the start and the
	// heuristic's bound, as past the time limit: the queries searched are
	// the first in the queries' order (no window has priced them).
	allowed := len(open)
	if k := rg.opt.RegretSolves; k > 0 && k < allowed {
		allowed, rg.capped = k, len(open)-k
	}
	rg.solves = allowed
	left := rg.workBudget()
	if left == 0 {
		return rg.searchEach(len(open), func(s *searcher, i int) {
			rg.searchQuery(s, open[i], rg.ctx, i >= allowed || rg.ctx.Err() != nil, 0)
		})
	}
	// A work budget: the queries searched in batches of regretBatch, in
	// their order, each of a batch allowed an eighth of what the batches
	// before left (all of it among the last eight); what each did is
	// taken from it after the batch. All of it depends on the queries
	// alone, not on time or on the workers.
	rg.workBounded = true
	used := make([]int64, regretBatch)
	cut := make([]bool, regretBatch)
	for b := 0; b < len(open); b += regretBatch {
		e := min(b+regretBatch, len(open))
		limit := max(left/int64(max(min(allowed-b, regretShare), 1)), 1) // positive: bounded
		err := rg.searchEach(e-b, func(s *searcher, i int) {
			spent := b+i < allowed && left <= 0
			used[i], cut[i] = rg.searchQuery(s, open[b+i], rg.parent, b+i >= allowed || spent || rg.parent.Err() != nil, limit)
			cut[i] = cut[i] || spent
		})
		if err != nil {
			return err
		}
		for i, u := range used[:e-b] {
			left -= u
			rg.workSpent = rg.workSpent || cut[i]
		}
	}
	return nil
}

// searchEach calls each for the indices 0 to n-1, on at most
// Options.Workers goroutines, each with a searcher of the core's own,
// counting every answer for the progress report.
func (rg *regrets) searchEach(n int, each func(s *searcher, i int)) error {
	return rg.parallel(n, func(w int, next func() (int, bool)) error {
		next = rg.counting(next)
		s := rg.cs.newSearcher()
		for {
			i, ok := next()
			if !ok {
				return nil
			}
			each(s, i)
		}
	})
}

// regretBatch and regretShare are how a work budget is shared among the
// queries (searchQueries).
const (
	regretBatch = 4
	regretShare = 8
)

// iterationLimited says a solve stopped at highs.Options.IterationLimit.
func iterationLimited(st highs.Status) bool {
	return st == highs.IterationLimitFeasible || st == highs.IterationLimitNoSolution
}

// iterationBudget is the simplex iterations the re-solves of a core HiGHS
// solved may take in all (Options.RegretWork times the plan's, at least
// regretIterationFloor), 0 for no bound (a core the search proved has its
// own budget, workBudget).
func (rg *regrets) iterationBudget() int64 {
	if rg.opt.RegretWork <= 0 || rg.parent == nil || rg.cs != nil {
		return 0
	}
	floor := int64(regretIterationFloor)
	if rg.opt.iterationFloor > 0 {
		floor = rg.opt.iterationFloor
	}
	return max(int64(rg.opt.RegretWork*float64(rg.planIterations)), floor)
}

// regretIterationFloor is the least work budget of the re-solves of a core
// HiGHS solved (Options.RegretWork), as DefaultRegretTimeLimit is the
// least time.
const regretIterationFloor = 200_000

// regretWorkFloor is the least work budget of the regrets' searches
// (Options.RegretWork), as DefaultRegretTimeLimit is the least time: on
// the 44-node core of cklplan gen dag --invocations 50, two workers did
// 7.3 M of work (searchWork) a second, so this is about 9 s.
const regretWorkFloor = 1 << 26

// workBudget is the work the regrets' searches may do in all
// (Options.RegretWork), 0 for no bound.
func (rg *regrets) workBudget() int64 {
	if rg.opt.RegretWork <= 0 || rg.parent == nil {
		return 0
	}
	floor := int64(regretWorkFloor)
	if rg.opt.workFloor > 0 {
		floor = rg.opt.workFloor
	}
	return max(int64(rg.opt.RegretWork*float64(rg.planWork)), floor)
}

// searchQuery answers query qi by searches under ctx: one at most, of one
// node (the start and the heuristic's bound) where start says so, else the
// static heuristic's and then those of querySteps. With limit positive,
// the searches together do at most that much work (searchWork): a
// heuristic that would take more is not computed, and a search stops at
// what is left. It returns the work done, and whether limit left the query
// unproven.
func (rg *regrets) searchQuery(s *searcher, qi int, ctx context.Context, stop bool, limit int64) (int64, bool) {
	q := &rg.queries[qi]
	start := make([]int, len(rg.asg))
	copy(start, rg.asg)
	for j, v := range q.nodes {
		if !slices.Contains(q.sets[j], start[v]) {
			start[v] = q.sets[j][0]
		}
	}
	var work int64
	// nodes is a search's node limit n (0: none) within what is left of
	// limit; ok false where nothing is.
	nodes := func(n int64) (int64, bool) {
		if limit <= 0 {
			return n, true
		}
		rest := limit - work
		if rest <= 0 {
			return 0, false
		}
		if n == 0 || n > rest {
			n = rest
		}
		return n, true
	}
	lim := searchLimits{relGap: rg.opt.relativeGap(), absGap: rg.opt.absoluteGap()}
	if stop {
		lim.nodes = 1 // past the limit: the start and the heuristic's bound
	}
	first := lim
	if first.nodes == 0 {
		first.nodes = staticNodes
		if rg.opt.queryNodes > 0 {
			first.nodes = rg.opt.queryNodes
		}
		first.nodes, _ = nodes(first.nodes)
	}
	res := s.search(ctx, q.nodes, q.sets, start, first)
	work += res.nodes
	// A hard query: the heuristic computed with its restriction, and the
	// search again from the best plan so far; first with a smaller
	// i-bound (its messages take a fraction of the time, and seeing the
	// restriction matters more than their size), then, should that not
	// settle it, with the core's.
	for i, step := range querySteps {
		ib := min(step.ibound, rg.cs.ibound)
		if step.ibound == 0 {
			ib = rg.cs.ibound
		} else if i > 0 && ib == min(querySteps[i-1].ibound, rg.cs.ibound) {
			continue // the same heuristic as the step before
		}
		if res.proven || lim.nodes != 0 || ctx.Err() != nil {
			break
		}
		if res.asg != nil {
			start = res.asg
		}
		next := lim
		if ib < rg.cs.ibound {
			next.nodes = step.nodes
			if rg.opt.queryNodes > 0 {
				next.nodes = rg.opt.queryNodes
			}
		}
		budget := searchBudget
		if limit > 0 {
			// The heuristic's entries within what is left, and at
			// least a node's worth left for its search.
			rest := 2 * (limit - work - 1)
			if rest <= 0 {
				break
			}
			budget = int(min(int64(budget), rest))
		}
		if rcs, err := rg.cs.restricted(q.nodes, q.sets, ib, budget); err == nil {
			work += searchWork(0, rcs.entries)
			var ok bool
			if next.nodes, ok = nodes(next.nodes); !ok {
				break
			}
			res = rcs.newSearcher().search(ctx, q.nodes, q.sets, start, next)
			work += res.nodes
		} else {
			if limit > 0 {
				work += searchWork(0, budget) // what it computed, at most
			}
			if ib == rg.cs.ibound {
				var ok bool
				if lim.nodes, ok = nodes(lim.nodes); !ok {
					break
				}
				res = s.search(ctx, q.nodes, q.sets, start, lim)
				work += res.nodes
			}
		}
	}
	q.hi = res.objective
	q.lo = q.hi
	if !res.proven {
		q.lo = min(max(rg.opt0, res.bound), q.hi)
	}
	return work, limit > 0 && !stop && !res.proven && ctx.Err() == nil
}

// windowBounds gives every open query of a problem without budgets a plan
// that answers it, cheaply: the optimum with the query's nodes re-chosen
// exactly under its restriction (a window of queryWindow nodes,
// improve.go), the rest kept. Its cost bounds the query's optimum from
// above (known.hi); where a certificate's lower bound meets it, the regret
// is exact, and where a time limit stops the queries first, the regret is
// shown between the two, not open-ended. Windows stop at the regret time
// limit too. A node's other choices share one window, which prices every
// move of the node by the verifier (windower.moves) rather than by an
// elimination each: on gen dag --invocations 1000 --exec-scale 100, 0.3–0.4
// s less CPU than one window each, the same regrets. A query of several
// nodes (a separator's) prices each combination of their positions over
// their terms (descent.jointBest) rather than by the window's elimination:
// on gen dag --invocations 100 --exec-scale 100 --seed 1, every regret took
// 0.85–0.86 s instead of 1.20–1.24 s, the same regrets, byte for byte.
func (rg *regrets) windowBounds(open []int) error {
	p := rg.r.in.p
	if len(p.Budgets) > 0 || p.ordered() {
		return nil
	}
	in := rg.r.in
	plan := rg.optimumPlan()
	// The queries of one node (its other choices) share its window: one
	// unit of work prices every move of the node (windower.moves).
	var units [][]int
	byNode := map[int]int{}
	for _, qi := range open {
		q := &rg.queries[qi]
		if len(q.nodes) == 1 && len(q.sets[0]) == 1 && queryWindow == 1 {
			if u, ok := byNode[q.nodes[0]]; ok {
				units[u] = append(units[u], qi)
				continue
			}
			byNode[q.nodes[0]] = len(units)
		}
		units = append(units, []int{qi})
	}
	// While the interior point solve that prices the certificates runs
	// (certifiesAhead), the windows leave it a processor: they end before
	// it does either way, and a third thread on two processors slowed it.
	workers := rg.opt.workers()
	if rg.root != nil && !rg.root.finished() {
		workers--
	}
	return rg.parallelOn(workers, len(units), func(_ int, next func() (int, bool)) error {
		w := newWindower(p)
		w.size = queryWindow
		var allowed [][]int
		var alts []int
		// The descent from the optimum (descent.go), after each window,
		// where it finds a cheaper plan; it prices the windows of
		// several nodes too.
		var d *descent
		var asg []int
		if rg.descends() {
			d, asg = newDescent(in), slices.Clone(rg.asg)
		}
		// window prices a unit's queries by the window around its nodes.
		window := func(unit []int) {
			if q := &rg.queries[unit[0]]; len(q.nodes) == 1 && len(q.sets[0]) == 1 && queryWindow == 1 {
				v := q.nodes[0]
				alts = alts[:0]
				for _, qi := range unit {
					alts = append(alts, in.domain[v][rg.queries[qi].sets[0][0]])
				}
				before, after, ok := w.moves(v, alts, plan)
				if !ok || math.IsInf(before, 1) {
					return
				}
				for k, qi := range unit {
					if !math.IsInf(after[k], 1) {
						rg.queries[qi].known.hi = rg.opt0 + math.Max(0, after[k]-before)
					}
				}
				return
			}
			q := &rg.queries[unit[0]]
			if d != nil && queryWindow == 1 {
				// The window of the query's nodes alone, each combination
				// of their positions priced over their terms.
				if delta, ok := d.jointBest(asg, rg.asg, q.nodes, q.sets); ok {
					if !math.IsInf(delta, 1) {
						q.known.hi = rg.opt0 + math.Max(0, delta)
					}
					return
				}
			}
			allowed = rg.queryAllowed(q, allowed[:0])
			before, after, ok := w.best(q.nodes, allowed, plan, false)
			if ok && !math.IsInf(before, 1) && !math.IsInf(after, 1) {
				q.known.hi = rg.opt0 + math.Max(0, after-before)
			}
		}
		for rg.ctx.Err() == nil {
			u, ok := next()
			if !ok {
				return nil
			}
			window(units[u])
			if d == nil {
				continue
			}
			for _, qi := range units[u] {
				q := &rg.queries[qi]
				if delta := d.run(asg, q.nodes, q.sets); !math.IsInf(delta, 1) {
					q.known.hi = math.Min(q.known.hi, rg.opt0+math.Max(0, delta))
				}
				d.undo(asg)
			}
		}
		return nil
	})
}

// queryWindow is the window of a query's plan: its own nodes only, every
// other node kept. Measured on the engine's dense 1,000-node DAG (2,970
// queries) and on cklplan gen dag --invocations 800 --exec-scale 100 (8,837
// queries), windows of 1, 4 and 10 nodes took 0.48, 0.86 and 1.46 s and
// 1.1, 1.5 and 2.6 s of the regret time limit: the larger windows' plans
// were barely cheaper (the sum of the upper bounds 0.5 % lower at 4 nodes),
// and at 10 nodes a seventh of the queries got none within the limit.
const queryWindow = 1

// queryDescent says the queries' plans are improved by descents
// (descent.go): windowBounds's, the certificates' and the chains' last
// answers'; tests turn it off.
var queryDescent = true

// descends says the descents apply: a problem without budgets (whose
// moves a descent does not price) or kernel order.
func (rg *regrets) descends() bool {
	p := rg.r.in.p
	return queryDescent && len(p.Budgets) == 0 && !p.ordered()
}

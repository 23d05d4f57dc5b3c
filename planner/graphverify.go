package planner

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// This file is the graph-level verifier: it recomputes a plan's cost and
// feasibility from the task graph itself, edge by edge, under the cost rule
// of docs/format.md ("The cost rule"), without the lowered Problem — no
// labels, pair lists, groups or budgets rows of the lowering. Plan checks
// every plan it returns against it, so that a fault in the lowering (two
// consumers sharing what they should not, a label that drops a
// distinction, a pair costed under the wrong rule) is an error rather than
// a plan that silently costs something else. What it shares with the
// lowering is what defines a cost rather than how a plan is modelled: the
// conversion package's classification (through Cache.classify), the bank
// model of a store to or load from a shared-memory layout
// (sharedMovement), and what makes two layouts one (sameAddresses).

// A GraphChoice is one invocation's choice in the graph's terms, as a
// PlanChoice states it: the task alternative, and whether the conversions
// out of the invocation to the consumers in its group avoid shared-memory
// scratch.
type GraphChoice struct {
	Alternative               string
	NoSharedMemoryConversions bool
}

// ChoicesOf is the plan r chose, one GraphChoice per invocation.
func ChoicesOf(r *Result) []GraphChoice {
	if r == nil {
		return nil
	}
	out := make([]GraphChoice, len(r.Choices))
	for i, c := range r.Choices {
		out[i] = GraphChoice{Alternative: c.Alternative, NoSharedMemoryConversions: c.NoSharedMemoryConversions}
	}
	return out
}

// A GraphEvaluation is a plan's cost and feasibility recomputed from the
// graph (EvaluateGraph).
type GraphEvaluation struct {
	// Cost is Execution + Conversion; +Inf when an edge cannot be
	// converted or a choice is not a candidate of its invocation.
	Cost       float64
	Execution  float64
	Conversion float64
	// Invocations are each invocation's execution cost, in the graph's
	// order of invocations.
	Invocations []float64
	// Edges are each edge's cost, in the graph's order of edges.
	Edges []EdgeCost
	// Budgets are the shared-memory use of each group with a budget, in
	// the graph's order of groups, named as the plan's budgets are.
	Budgets []BudgetUse
	// Violations say why the plan is infeasible; empty when it is feasible.
	Violations []string
}

// Feasible reports whether the plan breaks nothing.
func (e *GraphEvaluation) Feasible() bool { return len(e.Violations) == 0 }

// An EdgeCost is what one edge pays under a plan.
type EdgeCost struct {
	Edge     string // "producer.port -> consumer.port"
	Crossing tasks.Crossing
	// Cost is what the edge pays: 0 where another edge pays a conversion,
	// store or boundary it shares (PaidOn), the loads of its own excepted.
	Cost float64
	// PaidOn is the edge that pays the conversion this edge shares (a
	// fan-out in a kernel, consumers reading one global layout), or the
	// store and kernel boundary of the port's edges that must cross; ""
	// for the edge that pays and an edge that shares nothing.
	PaidOn string
	// Scratch is the shared memory per block of the conversion the edge
	// pays, counted against the budget of the group holding its ends.
	Scratch int
	// Why says why the edge cannot be converted, when Cost is +Inf.
	Why string
}

// EvaluateGraph recomputes the cost and feasibility of the plan choices
// (one per invocation, in the graph's order) from the graph g, on the
// target and with the measurements of opts (the graph's target when
// opts.Target is nil), classifying conversions through opts.Cache (a new
// one when nil). It applies the cost rule of docs/format.md to each
// invocation and each edge directly. An error means choices does not fit g
// (its length, or an alternative the task lacks); a plan that breaks a
// rule is a GraphEvaluation with Violations.
func EvaluateGraph(g *tasks.Graph, choices []GraphChoice, opts PlanOptions) (*GraphEvaluation, error) {
	return evaluateGraph(g, choices, opts, nil)
}

// evaluateGraph is EvaluateGraph with the edges' names (namesOfEdges) when
// the caller has them already, nil when not.
func evaluateGraph(g *tasks.Graph, choices []GraphChoice, opts PlanOptions, names []string) (*GraphEvaluation, error) {
	target, cache, err := opts.targetAndCache(g)
	if err != nil {
		return nil, err
	}
	gv := &graphVerifier{g: g, target: target, measured: opts.Measured, prints: newPrints(target, opts.Measured), cache: cache, sms: target.Get("sm_count"),
		bw: target.Get("hbm_gb_per_s"), launch: target.Get("launch_overhead_ns"),
		classified: map[classifyKey]classified{}, accesses: map[accessKey]accessCost{}, same: map[sameKey]bool{},
		tileBytes: map[*tasks.Port]float64{}, measuredConversions: len(g.Measured().Conversions) > 0, names: names}
	if gv.sms <= 0 {
		return nil, fmt.Errorf("planner: target %s has no sm_count", target.Name)
	}
	return gv.evaluate(choices)
}

type graphVerifier struct {
	g        *tasks.Graph
	target   *costmodel.Target
	measured *costmodel.Measurements
	prints   *prints // the target's and the measurements', for the cache's keys
	cache    *Cache
	sms      float64
	bw       float64 // bytes per ns
	launch   float64
	// Memos by what decides each answer: a graph of thousands of
	// invocations converts between a few realizations.
	classified map[classifyKey]classified
	accesses   map[accessKey]accessCost
	same       map[sameKey]bool
	// groupOf[v] is the group holding invocation v, or nil.
	groupOf []*tasks.Group
	// tileBytes are each port's tile's bytes; payers and edges are
	// buffers reused port by port.
	tileBytes map[*tasks.Port]float64
	payers    []payer
	edges     []*tasks.Edge
	names     []string // each edge's name, by index
	// measuredConversions says the graph measures some conversion.
	measuredConversions bool
	cands               []*tasks.Candidate
	noSmem              []bool
}

type classifyKey struct {
	src, dst *distribution.Distribution
	rename   string
	noSmem   bool
}

type classified struct {
	res *conversion.Result
	err error
}

type accessKey struct {
	d      *distribution.Distribution
	l      *storage.Layout
	op     storage.Op
	rename string
}

type accessCost struct {
	perTile float64
	err     error
}

type sameKey struct {
	a, b   *storage.Layout
	rename string
}

func (gv *graphVerifier) evaluate(choices []GraphChoice) (*GraphEvaluation, error) {
	g := gv.g
	invs := g.Invocations()
	if len(choices) != len(invs) {
		return nil, fmt.Errorf("planner: graph verifier: %d choices for %d invocations", len(choices), len(invs))
	}
	ev := &GraphEvaluation{Invocations: make([]float64, len(invs))}
	violate := func(format string, args ...any) { ev.Violations = append(ev.Violations, fmt.Sprintf(format, args...)) }
	groups := g.Groups()
	gv.groupOf = make([]*tasks.Group, len(invs))
	for _, k := range groups {
		for _, v := range k.Invocations {
			gv.groupOf[v.Index] = k
		}
	}
	// The budget of each group with one: its invocations' shared memory
	// plus the scratch of the conversions inside it.
	budget := make([]int, len(groups))
	for i, k := range groups {
		budget[i] = -1
		if k.SharedMemoryBytes > 0 {
			budget[i] = len(ev.Budgets)
			ev.Budgets = append(ev.Budgets, BudgetUse{Name: kernelBudgetName(k.ID), Kernel: k.ID, Capacity: float64(k.SharedMemoryBytes)})
		}
	}

	// Rule 1, execution, and what removes an alternative: pins and
	// forbids, the target, a group's registers.
	tg := g.Target()
	gv.cands = make([]*tasks.Candidate, len(invs))
	gv.noSmem = make([]bool, len(invs))
	for vi, v := range invs {
		ch := choices[vi]
		alt := v.Task.Alternative(ch.Alternative)
		if alt == nil {
			return nil, fmt.Errorf("planner: graph verifier: invocation %s: task %s has no alternative %q", v.ID, v.Task.Name, ch.Alternative)
		}
		gv.noSmem[vi] = ch.NoSharedMemoryConversions
		var c *tasks.Candidate
		for _, cand := range v.Candidates {
			if cand.Alternative == alt {
				c = cand
				break
			}
		}
		if c == nil {
			violate("invocation %s: alternative %s is not allowed by its pins and forbids", v.ID, alt.ID)
			ev.Invocations[vi] = math.Inf(1)
			ev.Execution = math.Inf(1)
			continue
		}
		gv.cands[vi] = c
		if ok, why := tg.CanRun(alt); !ok {
			violate("invocation %s: alternative %s: the target cannot run it: %s", v.ID, alt.ID, why)
		}
		k := gv.groupOf[vi]
		if k != nil && k.RegistersPerThread > 0 && alt.Resources.RegistersPerThread > k.RegistersPerThread {
			violate("invocation %s: alternative %s needs %d registers per thread, over group %s's budget of %d",
				v.ID, alt.ID, alt.Resources.RegistersPerThread, k.ID, k.RegistersPerThread)
		}
		if k != nil && budget[k.Index] >= 0 {
			ev.Budgets[budget[k.Index]].Used += float64(alt.Resources.SharedMemoryBytes)
		}
		ns, err := gv.execution(c)
		if err != nil {
			return nil, fmt.Errorf("planner: graph verifier: invocation %s, alternative %s: %w", v.ID, alt.ID, err)
		}
		ev.Invocations[vi] = ns
		ev.Execution += ns
	}

	// Rules 2–5, edge by edge, one producer port at a time: what the
	// port's edges share is decided among them.
	edges := g.Edges()
	if gv.names == nil {
		gv.names = namesOfEdges(edges)
	}
	ev.Edges = make([]EdgeCost, len(edges))
	done := make([]bool, len(edges))
	for _, first := range edges {
		if done[first.Index] {
			continue
		}
		u := first.From.Invocation
		port := gv.edges[:0]
		for _, e := range u.Out {
			if e.From.Port == first.From.Port {
				port = append(port, e)
				done[e.Index] = true
			}
		}
		gv.port(ev, port, budget)
		gv.edges = port
	}
	for _, ec := range ev.Edges {
		ev.Conversion += ec.Cost
		if math.IsInf(ec.Cost, 1) {
			violate("edge %s cannot be converted: %s", ec.Edge, ec.Why)
		}
	}
	for _, b := range ev.Budgets {
		if b.Used > b.Capacity+budgetTolerance(b.Capacity) {
			violate("budget %s: use %g exceeds capacity %g", b.Name, b.Used, b.Capacity)
		}
	}
	ev.Cost = ev.Execution + ev.Conversion
	return ev, nil
}

// execution is candidate c's execution cost (rule 1): a measured or
// declared figure per tile and SM × the multiplicity / the SMs, else the
// roofline of its work × the multiplicity.
func (gv *graphVerifier) execution(c *tasks.Candidate) (float64, error) {
	m := float64(c.Multiplicity)
	if ns, ok := gv.g.Measured().AlternativeNS(c); ok {
		return ns * m / gv.sms, nil
	}
	cs := c.Alternative.Cost
	switch cs.Kind {
	case tasks.DeclaredCost:
		return cs.NS * m / gv.sms, nil
	case tasks.WorkCost:
		cost, err := gv.target.Execution(costmodel.Work{Flops: float64(cs.Work.Flops), Bytes: float64(cs.Work.Bytes),
			Instruction: costmodel.Instruction(cs.Work.Instruction)})
		if err != nil {
			return 0, err
		}
		return cost.NS * m, nil
	}
	return 0, fmt.Errorf("no execution cost")
}

// A side is one end of an edge under the plan.
type side struct {
	b      *tasks.Binding
	name   string // the distribution's or layout's name
	tiles  int64  // tiles crossing the port
	bytes  float64
	global bool
}

func (gv *graphVerifier) newSide(c *tasks.Candidate, port *tasks.Port) side {
	b := &c.Alternative.Bindings[port.Index]
	bytes, ok := gv.tileBytes[port]
	if !ok {
		bytes = float64(port.Tile.Size()) * float64(port.Element.Bits()) / 8
		gv.tileBytes[port] = bytes
	}
	return side{b: b, name: bindingName(b), tiles: c.PortMultiplicity[port.Index], bytes: bytes, global: b.InMemory()}
}

// realization is what a consumer needs, for sharing: the distribution or
// layout by name and content.
type realization struct {
	name   string
	dist   distribution.Fingerprint
	layout string
}

func (s side) realization() realization {
	r := realization{name: s.name}
	switch {
	case s.b.Distribution != nil:
		r.dist = s.b.Distribution.Fingerprint()
	case s.b.Layout != nil:
		r.layout = s.b.Layout.String()
	}
	return r
}

// A payer is the edge that pays a conversion others may share, and the
// group holding both ends of an edge it serves.
type payer struct {
	key   shareKey
	edge  int // index into GraphEvaluation.Edges
	group *tasks.Group
}

// A shareKey is what one conversion serves: consumers with equal keys are
// served by the first of them.
type shareKey struct {
	kind   int // readsGlobal or inKernel
	target realization
	rename string
	loop   string
	split  bool
	// splittable says no group holds both ends of a conversion between
	// two distributions, reads the tiles the consumer reads there.
	splittable bool
	reads      int64
}

const (
	readsGlobal = iota + 1
	crossReadsGlobal
	inKernelConversion
)

// port costs the edges of one producer port (rules 2–5).
func (gv *graphVerifier) port(ev *GraphEvaluation, edges []*tasks.Edge, budget []int) {
	u := edges[0].From.Invocation
	a := gv.cands[u.Index]
	if a == nil {
		for _, e := range edges {
			ev.Edges[e.Index] = EdgeCost{Edge: gv.names[e.Index], Cost: math.Inf(1), Why: "its producer's alternative is not a candidate"}
		}
		return
	}
	src := gv.newSide(a, edges[0].From.Port)
	noSmem := gv.noSmem[u.Index]
	// Rule 4: the edges that must cross share the producer's store and
	// one boundary, paid on the first of them.
	var firstCross *tasks.Edge
	for _, e := range edges {
		if e.MustCross() {
			firstCross = e
			break
		}
	}
	payers := gv.payers[:0]
	defer func() { gv.payers = payers[:0] }()
	// The port's boundary, paid on firstCross besides what it shares.
	fixed := 0.0
	for _, e := range edges {
		ec := EdgeCost{Edge: gv.names[e.Index]}
		w := e.To.Invocation
		b := gv.cands[w.Index]
		if b == nil {
			ec.Cost, ec.Why = math.Inf(1), "its consumer's alternative is not a candidate"
			ev.Edges[e.Index] = ec
			continue
		}
		dst := gv.newSide(b, e.To.Port)
		rename := ""
		if len(e.Rename) > 0 {
			rename = e.Rename.String()
		}
		var key shareKey
		switch {
		case e.MustCross():
			ec.Crossing = tasks.GlobalRoundTrip
			ec.Cost = gv.roundTrip(src, dst, e.Rename, rename, false)
			if e == firstCross {
				fixed = gv.launch
				if !src.global {
					fixed += src.bytes * float64(src.tiles) / gv.bw
				}
			} else {
				ec.PaidOn = gv.names[firstCross.Index]
			}
			if dst.global && ec.Cost > 0 {
				// Consumers that read one global layout themselves
				// share the copy into it after the port's boundary,
				// paid on the first of them (never after firstCross,
				// the port's first edge that must cross).
				key = shareKey{kind: crossReadsGlobal, target: dst.realization(), rename: rename}
			}
		case src.global || dst.global:
			ec.Crossing = tasks.GlobalRoundTrip
			ec.Cost = gv.roundTrip(src, dst, e.Rename, rename, true)
			if dst.global {
				// Consumers that read one global layout themselves
				// share the store into it (or the copy) and the
				// boundary before them.
				key = shareKey{kind: readsGlobal, target: dst.realization(), rename: rename}
			}
		default:
			ec.Crossing = tasks.InKernel
			if la, lb := src.b.Loop, dst.b.Loop; la != "" && lb != "" && la != lb {
				ec.Cost, ec.Why = math.Inf(1), fmt.Sprintf("the producer moves tiles in loop %q, the consumer in loop %q, and they share a kernel", la, lb)
				break
			}
			k := gv.groupOf[u.Index]
			inGroup := k != nil && k == gv.groupOf[w.Index]
			var split bool
			// The variant keeps out of shared memory only the conversions
			// whose scratch its kernel's budget would hold: those to
			// consumers in its group.
			ec.Cost, ec.Scratch, split, ec.Why = gv.inKernel(src, dst, e.Rename, rename, noSmem && inGroup, inGroup)
			if split {
				ec.Crossing = tasks.GlobalRoundTrip
			}
			key = shareKey{kind: inKernelConversion, target: dst.realization(), rename: rename, loop: dst.b.Loop, split: split}
			if dst.b.Distribution != nil && !inGroup {
				// The kernel may be split here: consumers share only
				// with those it may be split for, reading as many
				// tiles.
				key.splittable, key.reads = true, dst.tiles
			}
		}
		if key.kind != 0 && !math.IsInf(ec.Cost, 1) {
			// Rule 5: one conversion serves every consumer needing it.
			at := slices.IndexFunc(payers, func(p payer) bool { return p.key == key })
			if at >= 0 {
				p := &payers[at]
				ec.PaidOn, ec.Cost, ec.Scratch = ev.Edges[p.edge].Edge, 0, 0
				if p.group == nil {
					p.group = gv.sameGroup(u, w)
				}
			} else {
				payers = append(payers, payer{key: key, edge: e.Index, group: gv.sameGroup(u, w)})
			}
		}
		ev.Edges[e.Index] = ec
	}
	if firstCross != nil && !math.IsInf(ev.Edges[firstCross.Index].Cost, 1) {
		ev.Edges[firstCross.Index].Cost += fixed
	}
	// A conversion's scratch counts against the budget of the group that
	// holds both ends of an edge it serves.
	for _, p := range payers {
		if s := ev.Edges[p.edge].Scratch; s > 0 && p.group != nil && budget[p.group.Index] >= 0 {
			ev.Budgets[budget[p.group.Index]].Used += float64(s)
		}
	}
}

// sameGroup is the group holding both u and w, or nil.
func (gv *graphVerifier) sameGroup(u, w *tasks.Invocation) *tasks.Group {
	if k := gv.groupOf[u.Index]; k != nil && k == gv.groupOf[w.Index] {
		return k
	}
	return nil
}

// roundTrip is rule 4's cost of an edge across a kernel boundary: the
// producer's stores (unless it holds the tile in global memory), the
// consumer's loads (likewise), a copy kernel between two different global
// layouts, and one boundary; pays says whether this edge pays the store
// and the boundary (an edge that must cross and is not its port's first
// pays only its loads and its copy).
func (gv *graphVerifier) roundTrip(src, dst side, rename distribution.Rename, renamed string, pays bool) float64 {
	var total float64
	if pays {
		total += gv.launch
		if !src.global {
			total += src.bytes * float64(src.tiles) / gv.bw
		}
	}
	if !dst.global {
		total += dst.bytes * float64(dst.tiles) / gv.bw
	}
	if src.global && dst.global && !gv.sameAddresses(src.b.Layout, dst.b.Layout, rename, renamed) {
		total += gv.launch + 2*src.bytes*float64(src.tiles)/gv.bw
	}
	return total
}

// inKernel is rule 3's cost of converting src to dst inside one kernel,
// the scratch it takes, and whether the kernel is split at the edge
// instead; +Inf with the reason when it cannot be done. noSmem excludes the
// mechanisms that take shared-memory scratch.
func (gv *graphVerifier) inKernel(src, dst side, rename distribution.Rename, renamed string, noSmem, inGroup bool) (cost float64, scratch int, split bool, why string) {
	moves := float64(src.tiles)
	sd, dd := src.b.Distribution, dst.b.Distribution
	sl, dl := src.b.Layout, dst.b.Layout
	switch {
	case sd != nil && dd != nil:
		res, err := gv.classify(sd, dd, rename, renamed, noSmem)
		if err != nil {
			return math.Inf(1), 0, false, err.Error()
		}
		perTile := res.Cost.NS
		if res.Class == conversion.Identity {
			perTile = 0
		}
		if !noSmem {
			// A measurement wins, except over a mechanism chosen
			// without shared memory.
			if ns, ok := gv.measuredNS(src.name, dst.name, renamed); ok {
				perTile = ns
			}
		}
		cost = perTile * moves / gv.sms
		if w := res.Witness; w != nil {
			switch {
			case w.Shared != nil:
				scratch = w.Shared.ScratchBytes
			case w.Cluster != nil:
				scratch = w.Cluster.ScratchBytes
			}
			// Data crossing blocks outside a cluster: a kernel boundary
			// for every wave of tiles inside the kernel, or, where no
			// group holds both ends, one split of the kernel here.
			if w.Global != nil && w.Global.Launches > 0 && !inGroup {
				if rt := gv.roundTrip(src, dst, rename, renamed, true); rt < cost {
					return rt, 0, true, ""
				}
			}
		}
		return cost, scratch, false, ""
	case sl != nil && dl != nil && gv.sameAddresses(sl, dl, rename, renamed):
		return 0, 0, false, ""
	case sd != nil && dl != nil, sl != nil && dd != nil:
		// A store into (or load out of) a shared-memory layout takes no
		// scratch, whatever noSmem says.
		d, l, op := sd, dl, storage.Store
		if sl != nil {
			d, l, op = dd, sl, storage.Load
		}
		perTile, err := gv.access(d, l, op, rename, renamed)
		if err != nil {
			return math.Inf(1), 0, false, err.Error()
		}
		if ns, ok := gv.measuredNS(src.name, dst.name, renamed); ok {
			perTile = ns // a measured store or load wins over the bank model
		}
		return perTile * moves / gv.sms, 0, false, ""
	}
	return math.Inf(1), 0, false, fmt.Sprintf("%s and %s are two different shared-memory layouts", src.name, dst.name)
}

func (gv *graphVerifier) classify(src, dst *distribution.Distribution, rename distribution.Rename, renamed string, noSmem bool) (*conversion.Result, error) {
	k := classifyKey{src, dst, renamed, noSmem}
	if c, ok := gv.classified[k]; ok {
		return c.res, c.err
	}
	res, err := gv.cache.classify(src, dst, rename, gv.prints, noSmem)
	gv.classified[k] = classified{res, err}
	return res, err
}

// measuredNS is the measured conversion from src to dst under the renaming
// renamed, if the graph has one.
func (gv *graphVerifier) measuredNS(src, dst, renamed string) (float64, bool) {
	if !gv.measuredConversions {
		return 0, false
	}
	ns, ok := gv.g.Measured().Conversions[tasks.ConversionKey{Source: src, Target: dst, Rename: renamed}]
	return ns, ok
}

// access is the cost per tile and SM of storing a tile in registers into
// a shared-memory layout, or loading it from one: the bank model's
// accesses and wavefronts under the target's formula.
func (gv *graphVerifier) access(d *distribution.Distribution, l *storage.Layout, op storage.Op, rename distribution.Rename, renamed string) (float64, error) {
	k := accessKey{d, l, op, renamed}
	if c, ok := gv.accesses[k]; ok {
		return c.perTile, c.err
	}
	var c accessCost
	mv, err := sharedMovement(d, l, op, rename)
	if err != nil {
		c.err = fmt.Errorf("%s in shared layout %s: %v", d.Name(), l, err)
	} else {
		c.perTile = gv.target.ConversionFormula(mv).NS
	}
	gv.accesses[k] = c
	return c.perTile, c.err
}

func (gv *graphVerifier) sameAddresses(a, b *storage.Layout, rename distribution.Rename, renamed string) bool {
	k := sameKey{a, b, renamed}
	same, ok := gv.same[k]
	if !ok {
		same = sameAddresses(a, b, rename)
		gv.same[k] = same
	}
	return same
}

// A GraphVerifyError is a disagreement between the plan the planner
// found and its recomputation from the graph (EvaluateGraph): the plan
// breaks a rule of the graph, or costs other than the solver said. It is
// a bug in the planner, never an outcome. Differences name the first
// invocations and edges whose costs differ between the two.
type GraphVerifyError struct {
	Solver   float64 // the solver's objective
	Verified float64 // the graph's recomputation
	// Violations are the graph verifier's, when the plan breaks a rule.
	Violations []string
	// Differences are the invocations and edges whose costs differ, each
	// "what: planner X, graph Y", at most maxDifferences of them.
	Differences []string
}

const maxDifferences = 8

func (e *GraphVerifyError) Error() string {
	var b strings.Builder
	if len(e.Violations) > 0 {
		fmt.Fprintf(&b, "planner: graph verifier: the plan breaks the graph's rules: %s", strings.Join(e.Violations, "; "))
	} else {
		fmt.Fprintf(&b, "planner: graph verifier: the plan costs %v by the graph, the solver says %v (%+.6g ns)", e.Verified, e.Solver, e.Verified-e.Solver)
	}
	if len(e.Differences) > 0 {
		b.WriteString("; first differences: " + strings.Join(e.Differences, "; "))
	}
	return b.String()
}

// startVerifyGraph starts recomputing the plan sol read back from the
// graph, beside whatever the caller does next (the plan's report: the two
// take about as long on large graphs), and returns the check of the
// report r once written: r must choose what sol does, and the
// recomputation must find it feasible and costing the solver's objective
// within the solver's tolerance. On a disagreement the error names the
// invocations and edges whose costs differ from what the Problem charged
// them (each edge's share of its group's conversions, the first edge a
// conversion serves paying it).
func (lw *lowering) startVerifyGraph(sol *Solution, opts PlanOptions) func(r *Result) error {
	choices := make([]GraphChoice, len(sol.Choices))
	for vi, ch := range sol.Choices {
		if vi >= len(lw.invs) || ch.Alternative < 0 || ch.Alternative >= len(lw.alts[vi]) {
			err := fmt.Errorf("planner: graph verifier: the solution's choice %d of node %d names no alternative of the graph", ch.Alternative, vi)
			return func(*Result) error { return err }
		}
		na := lw.alts[vi][ch.Alternative]
		choices[vi] = GraphChoice{Alternative: lw.invs[vi].Task.Alternatives[na.task].ID, NoSharedMemoryConversions: na.noSmem}
	}
	var (
		ev   *GraphEvaluation
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		ev, err = evaluateGraph(lw.graph, choices, opts, lw.edgeNames)
	}()
	return func(r *Result) error {
		<-done
		if err != nil {
			return fmt.Errorf("planner: graph verifier: %w", err)
		}
		// Compared in place: ChoicesOf would copy them.
		same := len(r.Choices) == len(choices)
		for i := 0; same && i < len(choices); i++ {
			c := &r.Choices[i]
			same = choices[i] == GraphChoice{Alternative: c.Alternative, NoSharedMemoryConversions: c.NoSharedMemoryConversions}
		}
		if !same {
			return fmt.Errorf("planner: graph verifier: the plan's choices are not the solution's")
		}
		return lw.checkGraph(sol, r, ev)
	}
}

// checkGraph compares ev, the recomputation of the plan r from the graph,
// with the solution sol (startVerifyGraph).
func (lw *lowering) checkGraph(sol *Solution, r *Result, ev *GraphEvaluation) error {
	if ev.Feasible() && !(math.Abs(ev.Cost-sol.Objective) > objectiveTolerance(ev.Cost)) {
		return nil
	}
	ve := &GraphVerifyError{Solver: sol.Objective, Verified: ev.Cost, Violations: ev.Violations}
	edges := map[string]float64{}
	for gi, gc := range sol.Groups {
		info := lw.groups[gi]
		for _, c := range gc.Conversions {
			// An edge's cost may come from several groups: its port's,
			// its own loads' and the port's boundary.
			edges[edgeName(info.edges[c.Consumers[0]])] += c.Cost
		}
	}
	ve.Differences = differences(r, edges, ev)
	return ve
}

// differences lists where the planner's costs (r's choices, and the
// Problem's cost of each edge, by name; an edge of no group costs 0) and a
// GraphEvaluation of r's choices differ: executions, then edges in the
// graph's order, at most maxDifferences.
func differences(r *Result, edges map[string]float64, ev *GraphEvaluation) []string {
	var out []string
	differ := func(a, b float64) bool {
		return !(a == b || math.Abs(a-b) <= objectiveTolerance(math.Max(math.Abs(a), math.Abs(b))))
	}
	for i, c := range r.Choices {
		if i < len(ev.Invocations) && differ(c.CostNS, ev.Invocations[i]) && len(out) < maxDifferences {
			out = append(out, fmt.Sprintf("invocation %s (%s): planner %v ns, graph %v ns", c.Invocation, c.Alternative, c.CostNS, ev.Invocations[i]))
		}
	}
	boundary := make(map[string]*Boundary, len(r.Boundaries))
	for i := range r.Boundaries {
		boundary[r.Boundaries[i].Edge] = &r.Boundaries[i]
	}
	for _, ec := range ev.Edges {
		if len(out) >= maxDifferences {
			break
		}
		planned := edges[ec.Edge]
		b := boundary[ec.Edge]
		if !differ(planned, ec.Cost) && (b == nil || b.Crossing == ec.Crossing.String()) {
			continue
		}
		s := fmt.Sprintf("edge %s: planner %v ns", ec.Edge, planned)
		if b != nil {
			s += fmt.Sprintf(" (%s → %s, %s: %s)", b.Source, b.Target, b.Crossing, b.Detail)
		}
		s += fmt.Sprintf(", graph %v ns %s", ec.Cost, ec.Crossing)
		switch {
		case ec.PaidOn != "":
			s += ", paid on " + ec.PaidOn
		case ec.Why != "":
			s += ": " + ec.Why
		}
		out = append(out, s)
	}
	return out
}

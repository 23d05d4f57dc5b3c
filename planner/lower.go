package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// This file lowers a validated task graph to the abstract Problem: one node
// per invocation, one group per producer port, one budget per fused kernel's
// shared memory. The cost rules (docs/plan-format.md, "Costs") are:
//
//   - An alternative's execution cost is its per-tile cost × its
//     multiplicity: a measured figure for it if the graph has one, else its
//     declared ns, else the roofline of its work on the target (whole GPU).
//     Measured and declared per-tile figures are per SM in a steady-state
//     loop with every SM busy, so the total divides by the SM count.
//   - A conversion inside a kernel costs its cost_ns (per tile and SM) ×
//     the tiles that move (the producer port's multiplicity) / the SM count.
//     A conversion whose data crosses blocks outside a cluster pays a
//     kernel boundary per wave of tiles inside the kernel; where no group
//     holds both ends, the kernel is split at the edge instead when that
//     costs less (a round trip, below).
//   - A global round trip costs one kernel boundary plus the bytes the
//     producer stores and the consumer loads, at the target's HBM bandwidth;
//     the bytes a side moves in its own alternative (a binding that already
//     holds the tile in global memory) are in that alternative's cost. A
//     producer writing one global layout and a consumer reading another
//     (compared by address under the edge's renaming, tilemap.go) pay a
//     copy kernel: one more boundary, the bytes loaded and stored. The
//     edges of a port that must cross share the store and the boundary,
//     paid on the first; consumers reading one global layout share the
//     store into it.

// A Cache keeps classifications and costs of conversions across Plan calls,
// for a compiler that re-plans after small changes. An entry is keyed by
// the two distributions, the renaming, the target's figures and the
// measurements, by content: plans for one target share entries whichever
// copy of the target they are given. Entries are never evicted; a Cache
// grows with the distinct conversions it has seen. The zero value is an
// empty cache, as NewCache's. It is safe for concurrent use.
type Cache struct {
	mu   sync.Mutex
	conv map[convKey]*convEntry
	// prefetch ends the prefetches under way (Prefetch): a plan that has
	// listed what it needs takes over.
	prefetch []context.CancelFunc
	fetching sync.WaitGroup // the prefetches' goroutines
	// memo keeps what the classifications share: a plan classifies every
	// pair of a few distributions, and each distribution's side of the
	// work is the same in every pair it is in.
	memo *conversion.Memo
}

// prints are a target and a measurement table with their prints
// (targetPrint, measuredPrint), taken once per Plan (or EvaluateGraph, or
// Prefetch) call: a key is made per pair of labels, and a call has one
// target. They are taken afresh each call, never remembered by pointer, so
// that a target or table changed in place between two calls keys new
// entries.
type prints struct {
	target         *costmodel.Target
	measured       *costmodel.Measurements
	tprint, mprint string
}

func newPrints(target *costmodel.Target, measured *costmodel.Measurements) *prints {
	return &prints{target: target, measured: measured, tprint: targetPrint(target), mprint: measuredPrint(measured)}
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{conv: map[convKey]*convEntry{}, memo: conversion.NewMemo()} }

// A convKey names a classification by what decides it: the two
// distributions, the renaming, and the target's figures and the
// measurements by content (two targets alike, BuiltinTarget's copies say,
// share their entries).
type convKey struct {
	src, dst distribution.Fingerprint
	rename   string
	target   string
	measured string
	noSmem   bool
}

// targetPrint is what of t decides a classification: its name and figures.
func targetPrint(t *costmodel.Target) string {
	if t == nil {
		return ""
	}
	b := []byte(t.Name)
	for _, k := range costmodel.FigureKeys {
		b = append(b, 0)
		b = strconv.AppendFloat(b, t.Get(k.Key), 'g', -1, 64)
	}
	return string(b)
}

// measuredPrint is the measurements' content.
func measuredPrint(m *costmodel.Measurements) string {
	if m == nil {
		return ""
	}
	return fmt.Sprintf("%v", *m)
}

// A convEntry is one classification, done or under way: res and err are
// set before done is closed.
type convEntry struct {
	done chan struct{}
	res  *conversion.Result
	err  error
}

// Len is the number of conversions the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.conv)
}

func (c *Cache) key(src, dst *distribution.Distribution, rename distribution.Rename, p *prints, noSmem bool) convKey {
	return convKey{src.Fingerprint(), dst.Fingerprint(), rename.String(), p.tprint, p.mprint, noSmem}
}

func (c *Cache) has(k convKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.conv[k]
	return ok
}

func (c *Cache) classify(src, dst *distribution.Distribution, rename distribution.Rename, p *prints, noSmem bool) (*conversion.Result, error) {
	k := c.key(src, dst, rename, p, noSmem)
	c.mu.Lock()
	if c.conv == nil { // the zero Cache
		c.conv, c.memo = map[convKey]*convEntry{}, conversion.NewMemo()
	}
	e, ok := c.conv[k]
	if !ok {
		e = &convEntry{done: make(chan struct{})}
		c.conv[k] = e
	}
	memo := c.memo
	c.mu.Unlock()
	if ok {
		// Done, or under way on another goroutine: one classification
		// per key, whoever asks first.
		<-e.done
		return e.res, e.err
	}
	opts := conversion.Options{Rename: rename, Target: p.target, Measured: p.measured, Memo: memo}
	if noSmem {
		opts.Exclude = []conversion.Class{conversion.SharedMemory, conversion.ClusterSharedMemory}
	}
	e.res, e.err = conversion.Classify(src, dst, opts)
	close(e.done)
	return e.res, e.err
}

// An endpoint is one side of a boundary as an alternative realizes it: the
// label of a group's source or target is the endpoint's key.
type endpoint struct {
	dist   *distribution.Distribution // nil for a layout
	layout *storage.Layout            // nil for a distribution
	name   string                     // the binding's name, for reports
	moves  int64                      // tiles crossing the port
	loop   string
	tile   int64 // elements of the port's tile
	elem   storage.ElementType
	// Source side only: convert without shared-memory scratch where the
	// scratch would count against the producer's kernel's budget (see
	// withoutScratch).
	noSmem bool
	// Target side only:
	rename    distribution.Rename
	mustCross bool
	// inGroup says both ends are in one declared group: the conversion
	// stays inside that kernel, even one that needs a kernel boundary.
	inGroup bool
	// paidOn names the edge of the same producer port that pays the
	// store and the kernel boundary this edge's round trip shares: the
	// port's first edge that must cross (every one of them always does),
	// on every edge that must cross, that one included (the port's
	// boundary group costs them, crossGroup). "" on every other edge.
	paidOn string
}

// withoutScratch reports whether converting src to dst must do without
// shared-memory scratch: src is the variant of a producer whose
// conversions keep out of shared memory and dst is in the producer's
// kernel, whose budget would hold the scratch. A consumer outside the
// kernel takes none of its budget, so the variant converts to it as any
// alternative does (docs/format.md, "Groups").
func withoutScratch(src, dst *endpoint) bool {
	return src.noSmem && dst.inGroup
}

func (e *endpoint) inGlobal() bool {
	return e.layout != nil && e.layout.Memory() == storage.Global
}

func (e *endpoint) realization() string {
	switch {
	case e.dist != nil:
		return e.name + "#" + e.dist.Fingerprint().String()[len("sha256:"):][:12]
	case e.layout != nil:
		return e.name + "#" + e.layout.String()
	}
	return "none"
}

// sourceKey and targetKey are the labels: equal keys are interchangeable
// realizations, so consumers with equal target keys share one conversion.
func (e *endpoint) sourceKey() string {
	k := fmt.Sprintf("%s|moves=%d|loop=%s", e.realization(), e.moves, e.loop)
	if e.noSmem {
		k += "|no-shared-memory"
	}
	return k
}

// consumer is the consumer's port ("invocation.port"): an edge that must
// cross pays its own loads, even where one consumer reads the tile on two
// ports.
func (e *endpoint) targetKey(consumer string) string {
	loop, inGroup := e.loop, e.inGroup
	if e.inGlobal() {
		// Always a round trip, which neither a loop nor a group
		// constrains: consumers reading one global layout share the
		// store into it whatever loops they run in.
		loop = ""
	}
	if e.dist == nil {
		// A group decides only whether a conversion between two
		// distributions may split the kernel.
		inGroup = false
	}
	if e.mustCross && e.inGlobal() {
		// Consumers that read one global layout themselves over edges
		// that must cross share the copy into it (if the producer writes
		// another) after the port's boundary: one label for all of them.
		return fmt.Sprintf("%s|rename=%s|cross=true|paid-on=%s", e.realization(), e.rename.String(), e.paidOn)
	}
	k := fmt.Sprintf("%s|loop=%s|rename=%s|cross=%t", e.realization(), loop, e.rename.String(), e.mustCross)
	if e.mustCross {
		// Its loads from global memory are each consumer's own: never
		// shared. (Consumers that read one global layout themselves share
		// the store into it and the boundary before them.)
		k += "|consumer=" + consumer + fmt.Sprintf("|moves=%d", e.moves)
	}
	if e.dist != nil && !e.inGroup && !e.mustCross {
		// Where no group holds both ends the kernel may be split at the
		// edge, a round trip that loads the tiles the consumer reads:
		// consumers share it only when they read as many.
		k += fmt.Sprintf("|reads=%d", e.moves)
	}
	if e.paidOn != "" {
		k += "|paid-on=" + e.paidOn
	}
	if inGroup {
		k += "|in-group"
	}
	return k
}

// A lowering is a Problem together with what it was lowered from, so that a
// Solution can be read back in the graph's terms.
type lowering struct {
	// noReduce is the plan's Options.NoReduce and workers its
	// Options.Workers, at least 1 (nameReplannedChoices).
	noReduce bool
	workers  int
	// replanCores counts the pinned solves of nameReplannedChoices that
	// left a core to HiGHS (for tests: the dry run should rule them out).
	replanCores atomic.Int32
	graph       *tasks.Graph
	target      *costmodel.Target
	sms         float64
	cache       *Cache
	measure     *costmodel.Measurements
	prints      *prints // the target's and the measurements', for the cache's keys

	problem Problem
	invs    []*tasks.Invocation
	// loadSources are the source labels of load groups (loadGroup), by
	// the first element of the sources they are made from.
	loadSources map[*string][]string
	// notExplained is each invocation's reason for the alternatives whose
	// regrets were not computed (notExplainedReasons).
	notExplained []string
	// boundaryEdges are the edges of the Result's boundaries, in order.
	boundaryEdges []*tasks.Edge
	// edgeNames are the graph's edges' names (edgeName), by edge index,
	// cut from one string (namesOfEdges): the boundaries' and the graph
	// verifier's, built once for both.
	edgeNames []string
	// alts[v] maps node v's alternatives to the task's: a task alternative
	// appears once, or twice when the invocation produces a tile whose
	// cheapest conversion needs shared-memory scratch under a budget (the
	// second variant converts it without: a costlier mechanism that may be
	// what fits). Invocations of one class share the slice.
	alts [][]nodeAlt
	// orderCuts are the kernel-order conflicts whose blocks Plan added
	// (kernelorder.go, order.go); orderIndex[g] is group g's first edge in
	// the order system (-1 for a load's or a boundary's group); ownAlts
	// marks the nodes whose alternatives the regrets' pinned solves made
	// their own.
	orderCuts  []orderCut
	orderIndex []int
	ownAlts    map[int]bool
	// orderForRegrets says the rows being added are a regret's;
	// orderPlanTime is the plan's time before its regrets (the first
	// plan's solve, or that and the rounds' up to the last one's), which
	// bounds the pinned solves' time (orderTime).
	orderForRegrets bool
	orderPlanTime   time.Duration
	// orderPlanIterations and orderPlanEntries are the plan's work as
	// orderPlanTime is its time: HiGHS's simplex iterations and the
	// reductions' entries, which bound the pinned solves' work under
	// Options.RegretWork (orderRegrets).
	orderPlanIterations int64
	orderPlanEntries    int64
	// regretsSkipped counts the plans whose regrets were not computed
	// because the kernel order's rounds replace them (levelsReplace).
	regretsSkipped int
	// orderSearches counts the regrets' pinned plans the search over the
	// edges' states (ordersearch.go) proved, orderSearchesShort those it
	// left to the levels, orderSearchBranched those it branched for.
	orderSearches, orderSearchesShort, orderSearchBranched int
	// orderSearchPlans counts the plans the search gave the rounds
	// (searchPlan).
	orderSearchPlans int
	// orderPlans are the best plans with an order of kernels that the
	// regrets' searches found where the pinned plan had a conflict, by
	// node and alternative: the plans the reasons name the changes of.
	orderPlans map[[2]int]orderPlan
	// unmarked says the order system's diamonds are not marked yet
	// (solveCrossings); unflaggedPlan is the plan solved without their
	// flags, for diamondCuts.
	unmarked      bool
	unflaggedPlan *Solution
	// class[v] is node v's index in classes.
	class   []int
	classes []*nodeClass
	// groups[g] is what Problem.Groups[g] was lowered from.
	groups []groupInfo
	// kernelBudget[group index of the graph] is its shared-memory budget
	// index, or -1.
	kernelBudget []int
	// kernelOf[v] is the fused kernel holding invocation v, or nil.
	kernelOf []*tasks.Group
	// touch[v] lists the groups node v produces or consumes in, built on
	// first use by the explanations.
	touch [][]int
	// planStates[g] is group g's state under the plan the result
	// explains, which every reason compares with (nil before the result,
	// or where nothing is explained).
	planStates []groupState
	// pairs caches pair by the endpoints' keys, which say everything pair
	// reads: most groups of a graph convert between the same realizations.
	pairs map[[2]string]*pairInfo
	// keys caches endpoint keys by what makes them; endpoints are the
	// endpoints by key.
	keys      map[keyOf]string
	endpoints map[string]*endpoint
	// sources and targets are the label slices of a class's port, shared by
	// every group that has them (targets only where no consumer's id is in
	// a label); labelSets interns their distinct keys.
	sources   map[sourceOf]*labelSet
	targets   map[targetOf]*labelSet
	labelSets map[string]int
	// edgeTargets[e] is the target label set of graph edge e, once known.
	edgeTargets []*labelSet
	// sharedPairs holds the pair lists by the groups' label keys, and
	// pairLists the same by label sets, the cheaper key to find them by.
	sharedPairs map[string][]Pair
	pairLists   map[pairsOf][]Pair
	// bankRuns counts the runs of the bank model (sharedAccess): pair's
	// cache keeps them to one per distinct store or load, however many
	// kernels repeat it.
	bankRuns int
}

// A nodeClass is what invocations of one task share when their candidates,
// costs and fused kernel agree: the node's alternatives and every label
// slice made from them. A graph of thousands of invocations of a dozen
// tasks has a dozen classes, so the lowering's work per invocation is a
// comparison with its class.
type nodeClass struct {
	task    *tasks.Task
	kernel  *tasks.Group
	variant bool
	alts    []nodeAlt
	cands   []*tasks.Candidate // parallel to alts; nil where removed
	node    []Alternative      // Node.Alternatives
}

// classOf is what an invocation's class is looked up by before its
// candidates are compared.
type classOf struct {
	task    *tasks.Task
	kernel  *tasks.Group
	variant bool
	// costs hashes the alternatives' costs: invocations of one task whose
	// costs differ (a model's layers of random or measured costs) are
	// not compared one by one with every class of the task.
	costs uint64
}

// costsHash is an FNV-1a hash of the alternatives' costs, bit for bit.
func costsHash(node []Alternative) uint64 {
	h := uint64(14695981039346656037)
	for _, a := range node {
		h ^= math.Float64bits(a.Cost + 0) // −0 as 0, as same compares them
		h *= 1099511628211
	}
	return h
}

// same reports whether a class has the alternatives alts, node and the
// candidates cands.
func (cl *nodeClass) same(alts []nodeAlt, cands []*tasks.Candidate, node []Alternative) bool {
	if !slices.Equal(cl.alts, alts) || len(cl.node) != len(node) {
		return false
	}
	for i, c := range cands {
		d := cl.cands[i]
		if (c == nil) != (d == nil) || c != nil && (c.Alternative != d.Alternative || !slices.Equal(c.PortMultiplicity, d.PortMultiplicity)) {
			return false
		}
	}
	for i, a := range node {
		b := cl.node[i]
		if a.ID != b.ID || a.Cost != b.Cost || a.Removed != b.Removed || !slices.Equal(a.Uses, b.Uses) {
			return false
		}
	}
	return true
}

// A labelSet is one label per alternative of a node (a group's Sources or
// a consumer's Targets) and its distinct keys, sorted; id is the same for
// label sets with the same keys.
type labelSet struct {
	labels []string
	keys   []string
	id     int
}

type sourceOf struct {
	class int
	port  *tasks.Port
}

type targetOf struct {
	class     int
	port      *tasks.Port
	rename    string
	mustCross bool
	inGroup   bool
}

// pairsOf is a group's label sets: the source's id and up to maxPairsOf
// distinct target ids, sorted, -1 after the last.
type pairsOf struct {
	source  int
	targets [maxPairsOf]int
}

const maxPairsOf = 4

// keyOf is what an endpoint's key is made of, for the cache of keys.
type keyOf struct {
	binding   *tasks.Binding
	moves     int64
	noSmem    bool
	target    bool
	rename    string
	mustCross bool
	inGroup   bool
	consumer  string
	paidOn    string
}

// A nodeAlt is one alternative of a node: a task alternative, and whether
// the conversions out of the invocation to consumers in its kernel avoid
// shared-memory scratch.
type nodeAlt struct {
	task    int // index into the task's Alternatives
	noSmem  bool
	exec    execCost
	removed string
}

// noSmemSuffix marks the variant of an alternative whose conversions to
// consumers in its kernel use no shared-memory scratch, in node
// alternative ids.
const noSmemSuffix = " (its conversions without shared memory)"

type execCost struct {
	perTile      float64
	multiplicity int64
	origin       costmodel.Origin
}

type groupInfo struct {
	producer *tasks.Invocation
	port     *tasks.Port
	edges    []*tasks.Edge // parallel to the group's consumers
	// loads marks the group of one edge's own round trip out of a global
	// layout the producer writes (loadGroup): the edge's boundary and the
	// consumer's loads, which no other edge shares.
	loads bool
	// boundary marks the boundary group of a port with edges that must
	// cross (crossGroup): the store and the boundary, on the first of
	// them, its only edge.
	boundary bool
}

// pairInfo is how one (source, target) pair of a group is realized.
type pairInfo struct {
	crossing tasks.Crossing
	result   *conversion.Result // nil for identity or a round trip without distributions
	perTile  float64            // cost_ns per tile and SM (in a kernel)
	total    float64
	origin   costmodel.Origin
	why      string // why the pair cannot be converted, when total is +Inf
	detail   string
	// through says a tile moves through shared memory between registers
	// and a shared-memory layout (a store or a load by the block; load
	// says which).
	through, load bool
	// stored and loaded are the bytes a global round trip moves, copied
	// those a copy kernel relays from the producer's global layout into
	// the consumer's (loaded and stored again); paidOn, the edge that pays
	// the store and the boundary it shares.
	stored, loaded, copied float64
	paidOn                 string
	// phrase is pairWords' phrase, once a reason has asked for it (the
	// fields above do not change once the pair is made, and the reasons
	// of a large plan ask for a few hundred pairs thousands of times).
	phrase atomic.Pointer[string]
}

type portKey struct {
	v    *tasks.Invocation
	port *tasks.Port
}

// lowerGraph builds the Problem of g on target.
// kernelBudgetName names the shared-memory budget of group id.
func kernelBudgetName(id string) string { return "kernel " + id + ": shared memory (bytes)" }

// budgetKernel is the id of the fused group whose shared-memory budget is
// budget b of the problem; "" for another budget (the kernel order's).
func (lw *lowering) budgetKernel(b int) string {
	for i, kb := range lw.kernelBudget {
		if kb == b {
			return lw.graph.Groups()[i].ID
		}
	}
	return ""
}

func lowerGraph(ctx context.Context, g *tasks.Graph, target *costmodel.Target, measured *costmodel.Measurements, cache *Cache) (*lowering, error) {
	lw := &lowering{graph: g, target: target, cache: cache, measure: measured, prints: newPrints(target, measured), sms: target.Get("sm_count"),
		pairs: map[[2]string]*pairInfo{}, keys: map[keyOf]string{}, endpoints: map[string]*endpoint{},
		sources: map[sourceOf]*labelSet{}, targets: map[targetOf]*labelSet{}, labelSets: map[string]int{},
		sharedPairs: map[string][]Pair{}, pairLists: map[pairsOf][]Pair{}}
	if lw.sms <= 0 {
		return nil, fmt.Errorf("planner: target %s has no sm_count", target.Name)
	}
	invs := g.Invocations()
	lw.invs = invs
	edges := g.Edges()
	lw.edgeTargets = make([]*labelSet, len(edges))
	lw.edgeNames = namesOfEdges(edges)
	lw.kernelOf = make([]*tasks.Group, len(invs))

	// Budgets: each fused kernel with a shared-memory budget is a row.
	kernels := g.Groups()
	lw.kernelBudget = make([]int, len(kernels))
	for i, k := range kernels {
		lw.kernelBudget[i] = -1
		for _, v := range k.Invocations {
			lw.kernelOf[v.Index] = k
		}
		if k.SharedMemoryBytes > 0 {
			lw.kernelBudget[i] = len(lw.problem.Budgets)
			lw.problem.Budgets = append(lw.problem.Budgets, Budget{
				Name:     kernelBudgetName(k.ID),
				Capacity: float64(k.SharedMemoryBytes),
			})
		}
	}

	// The producer ports in the order of their first edges, each with its
	// edges in edge order: an invocation's Out edges are in edge order, so
	// an edge is its port's first when no earlier Out edge leaves the port.
	// (About one port per invocation: sized so, the slices are not regrown.)
	// Each invocation's Out edges are walked once, for every port's first
	// edge and count (a walk per edge was quadratic in an invocation's
	// edges: 32,000 ports fed by one output took seconds).
	ports := make([]portKey, 0, len(invs))
	portEdges := make([][]*tasks.Edge, 0, len(invs))
	// firstOut and countOut are by invocation and port index, invocation
	// v's ports from portAt[v]: two arrays for the graph, not two per
	// invocation (twenty thousand allocations at 10,000 invocations).
	portAt := make([]int, len(invs)+1)
	for vi, v := range invs {
		portAt[vi+1] = portAt[vi] + len(v.Task.Ports)
	}
	firstOut := make([]*tasks.Edge, portAt[len(invs)])
	countOut := make([]int, portAt[len(invs)])
	walked := make([]bool, len(invs))
	for _, e := range edges {
		v, port := e.From.Invocation, e.From.Port
		at := portAt[v.Index]
		if !walked[v.Index] {
			walked[v.Index] = true
			for _, o := range v.Out {
				i := at + o.From.Port.Index
				if firstOut[i] == nil {
					firstOut[i] = o
				}
				countOut[i]++
			}
		}
		if firstOut[at+port.Index] != e {
			continue
		}
		all := countOut[at+port.Index] == len(v.Out)
		ports = append(ports, portKey{v, port})
		if all {
			portEdges = append(portEdges, v.Out)
		} else {
			portEdges = append(portEdges, v.EdgesFrom(port))
		}
	}
	// Invocations whose output needs a scratch-free variant.
	variants := make([]bool, len(invs))
	for i, pk := range ports {
		if lw.scratchUnderBudget(pk, portEdges[i]) {
			variants[pk.v.Index] = true
		}
	}

	// Nodes: every alternative of the task (twice for the invocations with
	// variants), the ones the invocation or the target excludes marked
	// Removed with the reason. Invocations of one class share them.
	tg := g.Target()
	lw.alts = make([][]nodeAlt, len(invs))
	lw.class = make([]int, len(invs))
	lw.problem.Nodes = make([]Node, len(invs))
	byClass := map[classOf][]int{}
	var (
		alts  []nodeAlt
		cands []*tasks.Candidate
		node  []Alternative
	)
	for vi, v := range invs {
		alts, cands, node = alts[:0], cands[:0], node[:0]
		k := lw.kernelOf[vi]
		next := 0 // candidates are in the task's order
		for ti, alt := range v.Task.Alternatives {
			na := nodeAlt{task: ti}
			var c *tasks.Candidate
			if next < len(v.Candidates) && v.Candidates[next].Alternative == alt {
				c = v.Candidates[next]
				next++
			} else {
				c = v.Candidate(alt.ID)
			}
			if na.removed = removal(v, alt, c, &tg, k); na.removed == "" {
				var err error
				if na.exec, err = lw.candidateCost(v, c); err != nil {
					return nil, err
				}
			} else {
				c = nil
			}
			a := Alternative{ID: alt.ID, Cost: na.exec.total(), Removed: na.removed}
			if na.removed == "" && k != nil && alt.Resources.SharedMemoryBytes > 0 {
				if b := lw.kernelBudget[k.Index]; b >= 0 {
					a.Uses = []Use{{Budget: b, Amount: float64(alt.Resources.SharedMemoryBytes)}}
				}
			}
			node = append(node, a)
			alts = append(alts, na)
			cands = append(cands, c)
			if variants[vi] {
				na.noSmem = true
				a.ID += noSmemSuffix
				node = append(node, a)
				alts = append(alts, na)
				cands = append(cands, c)
			}
		}
		ck := classOf{v.Task, k, variants[vi], costsHash(node)}
		ci := slices.IndexFunc(byClass[ck], func(ci int) bool { return lw.classes[ci].same(alts, cands, node) })
		if ci >= 0 {
			ci = byClass[ck][ci]
		} else {
			ci = len(lw.classes)
			byClass[ck] = append(byClass[ck], ci)
			lw.classes = append(lw.classes, &nodeClass{task: v.Task, kernel: k, variant: variants[vi],
				alts: slices.Clone(alts), cands: slices.Clone(cands), node: slices.Clone(node)})
		}
		cl := lw.classes[ci]
		lw.class[vi] = ci
		lw.alts[vi] = cl.alts
		lw.problem.Nodes[vi] = Node{Name: v.ID, Alternatives: cl.node}
	}

	// Groups: one per producer port, its out edges the consumers.
	if err := lw.classifyAll(ctx, ports, portEdges); err != nil {
		return nil, err
	}
	lw.problem.Groups = make([]Group, 0, len(ports))
	lw.groups = make([]groupInfo, 0, len(ports))
	// The groups' names and consumers are cut from one string and one
	// array: two allocations, not two per group.
	size := 0
	for _, pk := range ports {
		size += len(pk.v.ID) + 1 + len(pk.port.Name)
	}
	names := cutStrings(len(ports), size, func(i int, b *strings.Builder) {
		b.WriteString(ports[i].v.ID)
		b.WriteByte('.')
		b.WriteString(ports[i].port.Name)
	})
	nc := 0
	for _, edges := range portEdges {
		nc += len(edges)
	}
	consumers := make([]Consumer, nc)
	for i, pk := range ports {
		cons := consumers[:len(portEdges[i]):len(portEdges[i])]
		consumers = consumers[len(portEdges[i]):]
		if err := lw.addGroup(pk.v, pk.port, portEdges[i], names[i], cons); err != nil {
			return nil, err
		}
	}
	return lw, nil
}

// scratchUnderBudget reports whether some conversion out of the port, at
// its cheapest, needs shared-memory scratch in a kernel with a budget that
// holds both ends: then the plan may have to choose a costlier mechanism.
func (lw *lowering) scratchUnderBudget(pk portKey, edges []*tasks.Edge) bool {
	k := lw.kernelOf[pk.v.Index]
	if k == nil || lw.kernelBudget[k.Index] < 0 {
		return false
	}
	for _, e := range edges {
		if lw.kernelOf[e.To.Invocation.Index] != k {
			continue
		}
		for _, c := range pk.v.Candidates {
			src := lw.endpoint(c, pk.port, false)
			if src.dist == nil {
				// Out of a layout: a load, or the same layout, never
				// scratch (pairInfo.scratch).
				continue
			}
			for _, d := range e.To.Invocation.Candidates {
				dst := lw.endpoint(d, e.To.Port, false)
				if dst.dist == nil {
					// A store into the consumer's layout takes
					// none: its shared memory is the consumer's own.
					continue
				}
				dst.rename = distribution.Rename(e.Rename)
				dst.mustCross = e.MustCross()
				if lw.pair(src, dst).scratch() > 0 {
					return true
				}
			}
		}
	}
	return false
}

func (ec execCost) total() float64 { return ec.perTile * float64(ec.multiplicity) }

// removal is why the plan leaves out alternative alt of invocation v (c
// its candidate, nil where the pins or forbids leave it out; tg the
// graph's target; k v's kernel, nil for none): "" when it may run.
func removal(v *tasks.Invocation, alt *tasks.Alternative, c *tasks.Candidate, tg *tasks.Target, k *tasks.Group) string {
	switch {
	case c == nil && slices.Contains(v.Forbid, alt.ID):
		return "forbidden by the invocation"
	case c == nil:
		return fmt.Sprintf("not among the invocation's pins (%s)", strings.Join(v.Pin, ", "))
	}
	if ok, why := tg.CanRun(alt); !ok {
		return "the target cannot run it: " + why
	}
	if k != nil && k.RegistersPerThread > 0 && alt.Resources.RegistersPerThread > k.RegistersPerThread {
		return fmt.Sprintf("needs %d registers per thread, over kernel %s's budget of %d",
			alt.Resources.RegistersPerThread, k.ID, k.RegistersPerThread)
	}
	return ""
}

// A CostError is an alternative of an invocation whose execution cost the
// planner refuses: one over MaxCostNS (a declared or measured time, or a
// multiplicity, that is an error in the input), or one the target's
// figures cannot give. Plan returns the first; CheckCosts lists them all.
type CostError struct {
	Invocation  string // the invocation's id
	Index       int    // its index in the graph's invocations
	Alternative string // the alternative's id
	Err         error  // what is wrong with its cost
}

func (e *CostError) Error() string {
	return fmt.Sprintf("planner: invocation %s, alternative %s: %v", e.Invocation, e.Alternative, e.Err)
}

func (e *CostError) Unwrap() error { return e.Err }

// candidateCost is executionCost checked against MaxCostNS, its error a
// *CostError naming the invocation and the alternative.
func (lw *lowering) candidateCost(v *tasks.Invocation, c *tasks.Candidate) (execCost, error) {
	ec, err := lw.executionCost(c)
	if err == nil && !(ec.total() <= MaxCostNS) {
		// Say it in the figures of the input: a declared or measured
		// time is SM time a tile, which the SMs divide (executionCost).
		how := fmt.Sprintf("%.4g ns a tile, the whole GPU's, × multiplicity %d", ec.perTile, ec.multiplicity)
		if ec.origin == costmodel.Declared || ec.origin == costmodel.Measured {
			how = fmt.Sprintf("%.4g ns a tile and SM × multiplicity %d / %g SMs", ec.perTile*lw.sms, ec.multiplicity, lw.sms)
		}
		err = fmt.Errorf("an execution cost of %.4g ns (%s) is over the planner's limit of %g ns", ec.total(), how, MaxCostNS)
	}
	if err != nil {
		return ec, &CostError{Invocation: v.ID, Index: v.Index, Alternative: c.Alternative.ID, Err: err}
	}
	return ec, nil
}

// CheckCosts lists the execution costs that Plan refuses on g, on its own
// target with its own measured costs (g.LoadMeasured's), each as the
// *CostError that Plan returns for the first, in the order of the
// invocations and of their task's alternatives; none when Plan refuses
// none. Like Plan, it costs no alternative that the pins or forbids, the
// target or a kernel's register budget leave out. A conversion's cost over
// the limit is found by Plan alone, which classifies the conversions. The
// error is for a target Plan cannot cost at all.
func CheckCosts(g *tasks.Graph) ([]*CostError, error) {
	if g == nil {
		return nil, errors.New("planner: no task graph (nil)")
	}
	target, err := graphTarget(g)
	if err != nil {
		return nil, err
	}
	lw := &lowering{graph: g, target: target, sms: target.Get("sm_count")}
	if lw.sms <= 0 {
		return nil, fmt.Errorf("planner: target %s has no sm_count", target.Name)
	}
	invs := g.Invocations()
	kernelOf := make([]*tasks.Group, len(invs))
	for _, k := range g.Groups() {
		for _, v := range k.Invocations {
			kernelOf[v.Index] = k
		}
	}
	tg := g.Target()
	var errs []*CostError
	for _, v := range invs {
		for _, alt := range v.Task.Alternatives {
			c := v.Candidate(alt.ID)
			if removal(v, alt, c, &tg, kernelOf[v.Index]) != "" {
				continue
			}
			if _, err := lw.candidateCost(v, c); err != nil {
				errs = append(errs, err.(*CostError))
			}
		}
	}
	return errs, nil
}

// executionCost is the cost of candidate c: measured, declared or the
// roofline of its work.
func (lw *lowering) executionCost(c *tasks.Candidate) (execCost, error) {
	ec := execCost{multiplicity: c.Multiplicity}
	if ns, ok := lw.graph.Measured().AlternativeNS(c); ok {
		ec.perTile, ec.origin = ns/lw.sms, costmodel.Measured
		return ec, nil
	}
	cs := c.Alternative.Cost
	switch cs.Kind {
	case tasks.DeclaredCost:
		ec.perTile, ec.origin = cs.NS/lw.sms, costmodel.Declared
		return ec, nil
	case tasks.WorkCost:
		w := costmodel.Work{Flops: float64(cs.Work.Flops), Bytes: float64(cs.Work.Bytes), Instruction: costmodel.Instruction(cs.Work.Instruction)}
		cost, err := lw.target.Execution(w)
		if err != nil {
			return ec, err
		}
		ec.perTile, ec.origin = cost.NS, cost.Origin
		return ec, nil
	}
	return ec, fmt.Errorf("no execution cost")
}

func (lw *lowering) endpoint(c *tasks.Candidate, port *tasks.Port, noSmem bool) *endpoint {
	b := &c.Alternative.Bindings[port.Index]
	e := bindingEndpoint(b)
	e.name, e.moves, e.tile, e.elem, e.noSmem = bindingName(b), c.PortMultiplicity[port.Index], int64(port.Tile.Size()), port.Element, noSmem
	return e
}

// bindingName is how reports name a binding's realization: its name in the
// graph, else its layout, or its distribution's own name with the start of
// its fingerprint: distributions written inline (or built in Go) are often
// named alike ("blocked") and differ, and the report must tell them apart.
func bindingName(b *tasks.Binding) string {
	switch {
	case b.Name != "":
		return b.Name
	case b.Distribution != nil:
		name := b.Distribution.Name()
		if name == "" {
			name = "inline"
		}
		return name + "#" + b.Distribution.Fingerprint().String()[len("sha256:"):][:8]
	case b.Layout != nil:
		return b.Layout.String()
	}
	return ""
}

// sourceLabels are the labels of producer class ci's port: one source key
// per node alternative, "removed" for a removed one.
func (lw *lowering) sourceLabels(ci int, port *tasks.Port) *labelSet {
	if ls, ok := lw.sources[sourceOf{ci, port}]; ok {
		return ls
	}
	cl := lw.classes[ci]
	labels := make([]string, len(cl.alts))
	for i, na := range cl.alts {
		c := cl.cands[i]
		if c == nil {
			labels[i] = "removed"
			continue
		}
		ko := keyOf{binding: &c.Alternative.Bindings[port.Index], moves: c.PortMultiplicity[port.Index], noSmem: na.noSmem}
		k, ok := lw.keys[ko]
		if !ok {
			e := lw.endpoint(c, port, na.noSmem)
			k = e.sourceKey()
			lw.keys[ko] = k
			lw.endpoints[k] = e
		}
		labels[i] = k
	}
	ls := lw.labelSet(labels)
	lw.sources[sourceOf{ci, port}] = ls
	return ls
}

// targetLabels are the labels of the consumer side of edge: one target key
// per node alternative of the consumer w, "removed" for a removed one.
// Consumers of one class share them unless a key names the consumer (a
// load from global memory, an edge that must cross kernels).
func (lw *lowering) targetLabels(edge *tasks.Edge, w *tasks.Invocation) *labelSet {
	if ls := lw.edgeTargets[edge.Index]; ls != nil {
		return ls
	}
	ls := lw.newTargetLabels(edge, w)
	lw.edgeTargets[edge.Index] = ls
	return ls
}

// newTargetLabels makes the label set targetLabels keeps for edge.
func (lw *lowering) newTargetLabels(edge *tasks.Edge, w *tasks.Invocation) *labelSet {
	ci := lw.class[w.Index]
	port := edge.To.Port
	rename := distribution.Rename(edge.Rename)
	renameKey := rename.String()
	mustCross := edge.MustCross()
	paidOn := ""
	if mustCross {
		// Every edge of the port that must cross does, whatever is chosen:
		// the producer stores the tile once and one kernel boundary
		// follows, paid on the first of them (in the port's boundary
		// group); each pays its loads, or its share of a copy.
		paidOn = lw.edgeNames[firstCrossing(edge.From.Invocation, edge.From.Port).Index]
	}
	k := lw.kernelOf[edge.From.Invocation.Index]
	inGroup := !mustCross && k != nil && k == lw.kernelOf[w.Index]
	cl := lw.classes[ci]
	own := mustCross // labels that name the consumer are its own
	for _, c := range cl.cands {
		own = own || c != nil && c.Alternative.Bindings[port.Index].InMemory()
	}
	to := targetOf{ci, port, renameKey, mustCross, inGroup}
	if !own {
		if ls, ok := lw.targets[to]; ok {
			return ls
		}
	}
	labels := make([]string, len(cl.alts))
	for i := range cl.alts {
		c := cl.cands[i]
		if c == nil {
			labels[i] = "removed"
			continue
		}
		b := &c.Alternative.Bindings[port.Index]
		ko := keyOf{binding: b, moves: c.PortMultiplicity[port.Index], target: true, rename: renameKey, mustCross: mustCross, inGroup: inGroup, paidOn: paidOn}
		if mustCross || b.InMemory() {
			ko.consumer = w.ID + "." + port.Name
		}
		k, ok := lw.keys[ko]
		if !ok {
			e := lw.endpoint(c, port, false)
			e.rename, e.mustCross, e.inGroup, e.paidOn = rename, mustCross, inGroup, paidOn
			k = e.targetKey(w.ID + "." + port.Name)
			lw.keys[ko] = k
			// Consumers reading one global layout over edges that must
			// cross share a key: any one's endpoint stands for all.
			lw.endpoints[k] = e
		}
		labels[i] = k
	}
	ls := lw.labelSet(labels)
	if !own {
		lw.targets[to] = ls
	}
	return ls
}

// labelSet makes the label set of labels, its id shared with every earlier
// one of the same keys.
func (lw *lowering) labelSet(labels []string) *labelSet {
	ls := &labelSet{labels: labels}
	for _, l := range labels {
		if l != "removed" && !slices.Contains(ls.keys, l) {
			ls.keys = append(ls.keys, l)
		}
	}
	slices.Sort(ls.keys)
	k := strings.Join(ls.keys, "\x00")
	id, ok := lw.labelSets[k]
	if !ok {
		id = len(lw.labelSets)
		lw.labelSets[k] = id
	}
	ls.id = id
	return ls
}

// addGroup lowers the group of producer port (prod, port), its edges the
// consumers: label slices from the classes, the pair list from an earlier
// group with the same label sets when there is one.
//
// name is the group's name (producer.port), and consumers its room for one
// consumer per edge.
func (lw *lowering) addGroup(prod *tasks.Invocation, port *tasks.Port, edges []*tasks.Edge, name string, consumers []Consumer) error {
	gi := groupInfo{producer: prod, port: port, edges: edges}
	pv := prod.Index
	grp := Group{Name: name, Producer: pv}
	src := lw.sourceLabels(lw.class[pv], port)
	grp.Sources = src.labels
	grp.Consumers = consumers
	// The group's label sets, by id: the key of its pair list when it has
	// few enough distinct targets.
	po := pairsOf{source: src.id}
	for i := range po.targets {
		po.targets[i] = -1
	}
	nt := 0
	dsts := make([]*labelSet, 0, len(edges))
	for i, edge := range edges {
		w := edge.To.Invocation
		dst := lw.targetLabels(edge, w)
		grp.Consumers[i] = Consumer{Node: w.Index, Targets: dst.labels}
		if slices.ContainsFunc(dsts, func(d *labelSet) bool { return d.id == dst.id }) {
			continue
		}
		dsts = append(dsts, dst)
		if nt < maxPairsOf {
			po.targets[nt] = dst.id
		}
		nt++
	}
	slices.Sort(po.targets[:min(nt, maxPairsOf)])
	if nt <= maxPairsOf {
		if shared, ok := lw.pairLists[po]; ok {
			grp.Pairs = shared
			return lw.keepGroup(grp, gi)
		}
	}
	// Every (source, target) pair that may occur, in a stable order.
	srcKeys := src.keys
	var dstKeys []string
	for _, d := range dsts {
		for _, k := range d.keys {
			if !slices.Contains(dstKeys, k) {
				dstKeys = append(dstKeys, k)
			}
		}
	}
	slices.Sort(dstKeys)
	sameKernel := func(w int) *tasks.Group {
		if k := lw.kernelOf[pv]; k != nil && k == lw.kernelOf[w] {
			return k
		}
		return nil
	}
	// Groups between the same realizations share one list of pairs (the
	// planner never changes a Problem), unless a pair takes a budget.
	shareKey := strings.Join(srcKeys, "\x00") + "\x01" + strings.Join(dstKeys, "\x00")
	if shared, ok := lw.sharedPairs[shareKey]; ok {
		grp.Pairs = shared
		if nt <= maxPairsOf {
			lw.pairLists[po] = shared
		}
		return lw.keepGroup(grp, gi)
	}
	budgeted := false
	grp.Pairs = make([]Pair, 0, len(srcKeys)*len(dstKeys))
	for _, sk := range srcKeys {
		for _, dk := range dstKeys {
			pi, ok := lw.pairs[[2]string{sk, dk}]
			if !ok {
				pi = lw.pair(lw.endpoints[sk], lw.endpoints[dk])
				lw.pairs[[2]string{sk, dk}] = pi
			}
			if pi.why == "" && !(pi.total <= MaxCostNS) {
				// Finite measurements or figures that multiply past the
				// limit: an error in the input, not an impossible pair.
				return fmt.Errorf("planner: boundaries of %s.%s: converting %s to %s costs %.4g ns (%s), over the planner's limit of %g ns",
					prod.ID, port.Name, lw.endpoints[sk].name, lw.endpoints[dk].name, pi.total, pi.costText(lw.endpoints[sk], lw.sms), MaxCostNS)
			}
			pair := Pair{Source: sk, Target: dk, Cost: pi.total}
			if ownTrip(lw.endpoints[sk], lw.endpoints[dk]) {
				// Each edge's own, in its load group.
				pair.Cost = 0
			}
			// A shared-memory conversion's scratch counts against the
			// budget of the kernel that holds both ends.
			if scratch := pi.scratch(); scratch > 0 {
				for _, cons := range grp.Consumers {
					if k := sameKernel(cons.Node); k != nil && lw.kernelBudget[k.Index] >= 0 &&
						slices.Contains(cons.Targets, dk) {
						pair.Uses = []Use{{Budget: lw.kernelBudget[k.Index], Amount: float64(scratch)}}
						budgeted = true
						break
					}
				}
			}
			grp.Pairs = append(grp.Pairs, pair)
		}
	}
	if !budgeted {
		lw.sharedPairs[shareKey] = grp.Pairs
		if nt <= maxPairsOf {
			lw.pairLists[po] = grp.Pairs
		}
	}
	return lw.keepGroup(grp, gi)
}

// keepGroup adds a group that has pairs to the Problem, then the load
// groups of its edges and the port's boundary group.
func (lw *lowering) keepGroup(grp Group, gi groupInfo) error {
	if len(grp.Pairs) == 0 {
		return nil
	}
	lw.problem.Groups = append(lw.problem.Groups, grp)
	lw.groups = append(lw.groups, gi)
	for i, edge := range gi.edges {
		lw.loadGroup(grp.Sources, grp.Consumers[i], edge)
	}
	lw.crossGroup(grp, gi)
	return nil
}

// firstCrossing is the first edge out of port (of invocation u) that must
// cross a kernel, or nil.
func firstCrossing(u *tasks.Invocation, port *tasks.Port) *tasks.Edge {
	for _, o := range u.Out {
		if o.From.Port == port && o.MustCross() {
			return o
		}
	}
	return nil
}

// crossGroup adds the boundary group of a port with edges that must cross:
// every one of them does whatever is chosen, so the producer stores its
// tile once (unless its alternative writes a global layout) and one kernel
// boundary follows, a cost of the producer's choice alone, paid on the
// first of them (rule 4). Kept out of the port's group, it leaves that
// group's labels what the edges pay besides: each consumer's loads, and a
// copy into the global layout it reads, which every consumer reading that
// layout shares.
func (lw *lowering) crossGroup(grp Group, gi groupInfo) {
	first := firstCrossing(gi.producer, gi.port)
	ci := slices.Index(gi.edges, first)
	if first == nil || ci < 0 {
		return
	}
	bw := lw.target.Get("hbm_gb_per_s")
	launch := lw.target.Get("launch_overhead_ns")
	const crosses = "crosses"
	srcLabels := make([]string, len(grp.Sources))
	var pairs []Pair
	for i, sk := range grp.Sources {
		if sk == "removed" {
			srcLabels[i] = sk
			continue
		}
		src := lw.endpoints[sk]
		stored := 0.0
		if !src.inGlobal() {
			stored = float64(src.tile) * float64(src.elem.Bits()) / 8 * float64(src.moves)
		}
		srcLabels[i] = fmt.Sprintf("stores %.0f bytes", stored)
		if !slices.ContainsFunc(pairs, func(p Pair) bool { return p.Source == srcLabels[i] }) {
			cost := launch
			if bw > 0 {
				cost += stored / bw
			}
			pairs = append(pairs, Pair{Source: srcLabels[i], Target: crosses, Cost: cost})
		}
	}
	cons := grp.Consumers[ci]
	tgtLabels := make([]string, len(cons.Targets))
	for i, tk := range cons.Targets {
		tgtLabels[i] = crosses
		if tk == "removed" {
			tgtLabels[i] = tk
		}
	}
	lw.problem.Groups = append(lw.problem.Groups, Group{Name: grp.Name + " (its kernel boundary)", Producer: grp.Producer, Sources: srcLabels,
		Consumers: []Consumer{{Node: cons.Node, Targets: tgtLabels}}, Pairs: pairs})
	lw.groups = append(lw.groups, groupInfo{producer: gi.producer, port: gi.port, edges: []*tasks.Edge{first}, boundary: true})
}

// ownTrip reports whether converting src to dst is a round trip out of a
// global layout the producer writes into a consumer that holds the tile
// outside global memory, on an edge that need not cross: the consumer's
// loads and the boundary are the edge's own (rule 4), shared with no other
// edge whatever it needs, so a group's label, which consumers needing the
// same realization share, cannot carry them. The edge's load group does.
func ownTrip(src, dst *endpoint) bool {
	return src != nil && dst != nil && src.inGlobal() && !dst.inGlobal() && !dst.mustCross
}

// loadGroup adds the group of edge's own round trip out of a global
// layout, when its producer may write one and its consumer may hold the
// tile elsewhere: sources "global" (an alternative that writes a global
// layout) or "elsewhere", targets by the tiles the consumer loads, a pair
// costing one boundary and the loads where the source is global.
func (lw *lowering) loadGroup(sources []string, cons Consumer, edge *tasks.Edge) {
	if edge.MustCross() {
		return
	}
	const global, elsewhere, inMemory = "global", "elsewhere", "reads a global layout"
	var src *endpoint
	// Groups share their sources' labels (one label set's): so do their
	// load groups, which every consumer of a group asks for.
	var srcLabels []string
	if len(sources) > 0 {
		srcLabels = lw.loadSources[&sources[0]]
	}
	fresh := srcLabels == nil
	if fresh {
		srcLabels = make([]string, len(sources))
	}
	for i, sk := range sources {
		label := elsewhere
		switch e := lw.endpoints[sk]; {
		case sk == "removed":
			label = sk
		case e.inGlobal():
			label, src = global, e
		}
		if fresh {
			srcLabels[i] = label
		}
	}
	if fresh && len(sources) > 0 {
		if lw.loadSources == nil {
			lw.loadSources = map[*string][]string{}
		}
		lw.loadSources[&sources[0]] = srcLabels
	}
	if src == nil {
		return
	}
	dsts := map[string]*endpoint{}
	tgtLabels := make([]string, len(cons.Targets))
	for i, tk := range cons.Targets {
		e := lw.endpoints[tk]
		switch {
		case tk == "removed":
			tgtLabels[i] = tk
			continue
		case e.inGlobal():
			tgtLabels[i] = inMemory
			continue
		}
		// The tiles this consumer's alternative loads: its own, not the
		// label's (which consumers of other multiplicities share).
		w := edge.To.Invocation
		ci := lw.class[w.Index]
		c := lw.classes[ci].cands[i]
		dst := lw.endpoint(c, edge.To.Port, false)
		dst.rename = distribution.Rename(edge.Rename)
		tgtLabels[i] = fmt.Sprintf("loads %d", dst.moves)
		dsts[tgtLabels[i]] = dst
	}
	if len(dsts) == 0 {
		return
	}
	grp := Group{Name: edgeName(edge) + " (its loads)", Producer: edge.From.Invocation.Index, Sources: srcLabels,
		Consumers: []Consumer{{Node: cons.Node, Targets: tgtLabels}}}
	for _, t := range append(slices.Sorted(maps.Keys(dsts)), inMemory) {
		cost := 0.0
		if dst := dsts[t]; dst != nil {
			cost = lw.roundTrip(src, dst).total
		}
		grp.Pairs = append(grp.Pairs, Pair{Source: global, Target: t, Cost: cost}, Pair{Source: elsewhere, Target: t})
	}
	lw.problem.Groups = append(lw.problem.Groups, grp)
	lw.groups = append(lw.groups, groupInfo{producer: edge.From.Invocation, port: edge.From.Port, edges: []*tasks.Edge{edge}, loads: true})
}

// crossLoops reports whether src and dst move their tiles in different
// loops.
func crossLoops(src, dst *endpoint) bool {
	return src.loop != "" && dst.loop != "" && src.loop != dst.loop
}

// classifies reports whether pair(src, dst) classifies a conversion.
func classifies(src, dst *endpoint) bool {
	global := src.inGlobal() || dst.inGlobal() || dst.mustCross
	return !global && !crossLoops(src, dst) && src.dist != nil && dst.dist != nil
}

// classifyAll classifies, on all processors, every conversion the groups
// of ports will cost and the cache does not hold yet: the lowering then
// finds them in the cache. The distinct conversions of a graph are few and
// each takes milliseconds, the rest of the lowering little more.
func (lw *lowering) classifyAll(ctx context.Context, ports []portKey, portEdges [][]*tasks.Edge) error {
	type conv struct{ src, dst *endpoint }
	sets := map[[2]int]bool{} // label set ids: most edges repeat a few
	seen := map[[2]string]bool{}
	keys := map[convKey]bool{}
	var todo []conv
	for i, pk := range ports {
		src := lw.sourceLabels(lw.class[pk.v.Index], pk.port)
		for _, edge := range portEdges[i] {
			dst := lw.targetLabels(edge, edge.To.Invocation)
			if sets[[2]int{src.id, dst.id}] {
				continue
			}
			sets[[2]int{src.id, dst.id}] = true
			for _, sk := range src.keys {
				for _, dk := range dst.keys {
					if seen[[2]string{sk, dk}] {
						continue
					}
					seen[[2]string{sk, dk}] = true
					s, d := lw.endpoints[sk], lw.endpoints[dk]
					if !classifies(s, d) {
						continue
					}
					k := lw.cache.key(s.dist, d.dist, d.rename, lw.prints, withoutScratch(s, d))
					if keys[k] || lw.cache.has(k) {
						continue
					}
					keys[k] = true
					todo = append(todo, conv{s, d})
				}
			}
		}
	}
	// The list is complete: a prefetch would only add what this plan does
	// not need.
	lw.cache.endPrefetch()
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	var (
		wg   sync.WaitGroup
		done atomic.Int64
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(todo); i += workers {
				// Thousands of distinct pairs take seconds: an interrupt
				// stops them between two.
				if ctx.Err() != nil {
					return
				}
				c := todo[i]
				lw.cache.classify(c.src.dist, c.dst.dist, c.dst.rename, lw.prints, withoutScratch(c.src, c.dst))
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil && int(done.Load()) < len(todo) {
		return &stoppedError{msg: fmt.Sprintf("planner: stopped while classifying the conversions, %d of %d classified: %v", done.Load(), len(todo), err), ctx: err}
	}
	return nil
}

// A stoppedError is an interrupt that came before any plan was found: it
// matches ErrNoPlan, as Plan promises, and the context's error.
type stoppedError struct {
	msg string
	ctx error
}

func (e *stoppedError) Error() string   { return e.msg }
func (e *stoppedError) Unwrap() []error { return []error{ErrNoPlan, e.ctx} }

// scratch is the shared memory per block the pair's conversion needs.
func (pi *pairInfo) scratch() int {
	if pi.result == nil || pi.crossing != tasks.InKernel || pi.result.Witness == nil {
		return 0
	}
	w := pi.result.Witness
	switch {
	case w.Shared != nil:
		return w.Shared.ScratchBytes
	case w.Cluster != nil:
		return w.Cluster.ScratchBytes
	}
	return 0
}

// pair costs converting from src to dst (total ns over the invocation), or
// +Inf with the reason when it cannot be done.
func (lw *lowering) pair(src, dst *endpoint) *pairInfo {
	global := src.inGlobal() || dst.inGlobal() || dst.mustCross
	if !global && crossLoops(src, dst) {
		return &pairInfo{total: math.Inf(1), why: fmt.Sprintf("the producer moves tiles in loop %q, the consumer in loop %q, and they share a kernel", src.loop, dst.loop)}
	}
	if global {
		return lw.roundTrip(src, dst)
	}
	switch {
	case src.dist != nil && dst.dist != nil:
		noScratch := withoutScratch(src, dst)
		res, err := lw.cache.classify(src.dist, dst.dist, dst.rename, lw.prints, noScratch)
		if err != nil {
			return &pairInfo{total: math.Inf(1), why: err.Error()}
		}
		moves := float64(src.moves)
		pi := &pairInfo{crossing: tasks.InKernel, result: res, perTile: res.Cost.NS, origin: res.Cost.Origin, detail: res.Cost.Detail}
		if res.Class == conversion.Identity {
			pi.perTile, pi.detail = 0, "nothing moves"
		}
		if ns, ok := lw.graph.Measured().ConversionNS(src.name, dst.name, dst.rename); ok && !noScratch {
			pi.perTile, pi.origin = ns, costmodel.Measured
			pi.detail = fmt.Sprintf("measured %.4g ns per tile and SM (the model's %s: %.4g ns)", ns, res.Mechanism, res.Cost.NS)
		}
		pi.total = pi.perTile * moves / lw.sms
		if w := res.Witness; w != nil && w.Global != nil && w.Global.Launches > 0 && !dst.inGroup {
			// Data crossing blocks outside a cluster needs a kernel
			// boundary inside the kernel for every wave of tiles; where
			// no group holds both ends, the kernel may be split here
			// once instead.
			if rt := lw.roundTrip(src, dst); rt.total < pi.total {
				rt.detail = fmt.Sprintf("the kernel is split here: %s (converted inside it, with a kernel boundary for each wave of tiles: %s)", rt.detail, fmtNS(pi.total))
				return rt
			}
		}
		return pi
	case src.layout != nil && dst.layout != nil && sameAddresses(src.layout, dst.layout, dst.rename):
		return &pairInfo{crossing: tasks.InKernel, origin: costmodel.Formula, detail: "the same storage layout"}
	case src.dist != nil && dst.layout != nil:
		// A store into the consumer's shared-memory layout (or a load
		// out of the producer's, below) takes no scratch: the layout's
		// shared memory is its alternative's own.
		pi := lw.sharedAccess(src.dist, dst.layout, storage.Store, dst.rename)
		lw.measuredAccess(pi, src, dst)
		pi.total = pi.perTile * float64(src.moves) / lw.sms
		return pi
	case src.layout != nil && dst.dist != nil:
		pi := lw.sharedAccess(dst.dist, src.layout, storage.Load, dst.rename)
		lw.measuredAccess(pi, src, dst)
		pi.total = pi.perTile * float64(src.moves) / lw.sms
		return pi
	}
	return &pairInfo{total: math.Inf(1), why: fmt.Sprintf("%s and %s are two different shared-memory layouts", src.name, dst.name)}
}

// measuredAccess puts a measured store into (or load from) a shared-memory
// layout in place of the bank model's cost, as a measured conversion
// replaces the model's between two distributions.
func (lw *lowering) measuredAccess(pi *pairInfo, src, dst *endpoint) {
	if math.IsInf(pi.total, 1) {
		return
	}
	if ns, ok := lw.graph.Measured().ConversionNS(src.name, dst.name, dst.rename); ok {
		pi.detail = fmt.Sprintf("measured %.4g ns per tile and SM (the bank model's: %.4g ns)", ns, pi.perTile)
		pi.perTile, pi.origin = ns, costmodel.Measured
	}
}

// costText says how a pair's total comes about, for an error (sms the
// target's SMs, which divide SM time inside a kernel).
func (pi *pairInfo) costText(src *endpoint, sms float64) string {
	if pi.crossing == tasks.GlobalRoundTrip {
		return pi.detail
	}
	return fmt.Sprintf("%.4g ns a tile and SM × %d tiles / %g SMs", pi.perTile, src.moves, sms)
}

// roundTrip costs a tile through global memory across one kernel boundary.
// A producer that writes one global layout and a consumer that reads
// another need the tile relaid between them: a copy kernel of its own,
// which loads every tile the producer wrote and stores it in the
// consumer's layout (one more boundary, the bytes both ways).
func (lw *lowering) roundTrip(src, dst *endpoint) *pairInfo {
	bw := lw.target.Get("hbm_gb_per_s") // bytes per ns
	launch := lw.target.Get("launch_overhead_ns")
	tileBytes := float64(src.tile) * float64(src.elem.Bits()) / 8
	var stores, loads, copied float64
	if !src.inGlobal() {
		stores = tileBytes * float64(src.moves)
	}
	if !dst.inGlobal() {
		loads = float64(dst.tile) * float64(dst.elem.Bits()) / 8 * float64(dst.moves)
	}
	relaid := src.inGlobal() && dst.inGlobal() && !sameAddresses(src.layout, dst.layout, dst.rename)
	copyNS, copyText := 0.0, ""
	if relaid {
		copied = tileBytes * float64(src.moves)
		copyNS = launch
		if bw > 0 {
			copyNS += 2 * copied / bw
		}
		into := dst.name
		if rn := dst.rename.String(); rn != "" {
			into += " (renamed " + rn + ")"
		}
		copyText = fmt.Sprintf("; a copy kernel relays %s into %s: %.4g ns + %.0f bytes loaded and stored", src.name, into, launch, copied)
	}
	if dst.paidOn != "" {
		// The store and the boundary are the port's, paid once.
		total := copyNS
		if bw > 0 {
			total += loads / bw
		}
		return &pairInfo{crossing: tasks.GlobalRoundTrip, total: total, origin: costmodel.Formula, loaded: loads, copied: copied, paidOn: dst.paidOn,
			detail: fmt.Sprintf("%.0f bytes loaded at %.4g GB/s; the store and the kernel boundary are paid on %s%s", loads, bw, dst.paidOn, copyText)}
	}
	total := launch + copyNS
	if bw > 0 {
		total += (stores + loads) / bw
	}
	return &pairInfo{crossing: tasks.GlobalRoundTrip, total: total, origin: costmodel.Formula, stored: stores, loaded: loads, copied: copied,
		detail: fmt.Sprintf("kernel boundary %.4g ns + %.0f bytes stored + %.0f bytes loaded at %.4g GB/s%s", launch, stores, loads, bw, copyText)}
}

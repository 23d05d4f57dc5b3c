package planner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Kernels contracted over their budgets.
//
// A budget row ties every node that uses it together, so the reduction
// leaves a fused kernel's invocations to HiGHS, and a budget that binds is
// a knapsack per kernel whose LP relaxation is weak: ten transformer layers,
// each a kernel over a binding shared-memory budget, kept HiGHS at a 9.5 %
// gap after a minute.
//
// A kernel is small, and it meets the rest of the graph at a few boundary
// nodes. Let K be the nodes that use budget b (and the members of the
// groups whose conversions take its scratch), ∂K those of K in a group
// with a node outside K, and I = K \ ∂K. For every assignment β of ∂K,
//
//	T(β) = min over I of Σ_{v∈I} cost(v) + Σ_{groups inside K} cost
//	       subject to Σ_{v∈K} use_b(v) + Σ_{groups inside K} scratch_b ≤ capacity_b
//
// is an exact dynamic program: the nodes of I are eliminated one by one, as
// the reduction does, except that a table entry is not one cost but the
// Pareto front of (use, cost) over the partial plans it stands for (a plan
// that uses more and costs no less is dropped). The kernel is then replaced
// by one auxiliary node over the tuples β, of cost T(β), tied to each
// boundary node by an equality; the budget and the groups inside K leave
// the problem, and the nodes of I stay only as placeholders. The contracted
// problem has the original's optimum, and its min-marginals at ∂K and
// outside K are the original's. The nodes of I get their choices from the
// same program with the boundary fixed at the chosen tuple, and their
// regrets from it with one more table over the boundary, W(β) = MM(β) −
// T(β), where MM is the auxiliary node's min-marginal: W(β) is the best the
// rest of the graph does around the kernel at β, so the program's least
// cost with v = a is the best plan's with v = a.

const (
	// contractMaxTuples bounds the boundary assignments of a kernel (four
	// boundary nodes of 16 alternatives), and contractMaxEntries the
	// entries of one table of its program (Pareto fronts counted whole); a
	// kernel past either keeps its budget row. contractMaxAllTuples bounds
	// the auxiliary nodes' alternatives in all: the kernels past it, in
	// budget order, keep their rows too. A contracted kernel of 4,096
	// tuples costs about 260 KB to plan (10,000 fused layers: 2.6 GB at
	// peak), and one left with its row costs far more, in HiGHS: the bound
	// is 16,384 such kernels.
	contractMaxTuples    = 1 << 16
	contractMaxEntries   = 1 << 20
	contractMaxAllTuples = 1 << 26
	// wholePerKernel is what each contracted kernel adds to the budget of
	// the whole elimination (wholeBudget), twice what a fused transformer's
	// layer takes.
	wholePerKernel = 1 << 17
)

// A paretoEntry is a partial plan's use of the kernel's budget and cost.
type paretoEntry struct{ use, cost float64 }

// A pfactor is a table over some of a kernel's nodes (local indices,
// ascending), row-major over their alternatives, of Pareto fronts sorted
// by ascending use (then strictly descending cost); an empty front is
// infeasible. A factor whose every front has at most one entry (a node's
// own use and cost, a group's conversions) keeps them in single instead of
// lists, an infinite use standing for the empty front: 16 bytes an entry,
// in one array, where a list of one costs a slice header and an allocation
// of its own (a kernel keeps its groups' factors from its contraction until
// its interior is read back).
type pfactor struct {
	vars   []int
	dims   []int
	lists  [][]paretoEntry
	single []paretoEntry
	// cls, when not nil, classes each variable's values: two of one class
	// leave every entry the same (classes.go).
	cls [][]int32
	// pos: the table is over the positions of its variables' alternatives
	// in the program's domains (budgetKernel.solve), not the alternatives.
	pos bool
}

// front is the factor's entry idx.
func (f *pfactor) front(idx int) []paretoEntry {
	if f.single == nil {
		return f.lists[idx]
	}
	if math.IsInf(f.single[idx].use, 1) {
		return nil
	}
	return f.single[idx : idx+1 : idx+1]
}

// newSingle is a factor of single entries over vars, every one infeasible.
func newSingle(vars, dims []int, size int) pfactor {
	f := pfactor{vars: vars, dims: dims, single: make([]paretoEntry, size)}
	for i := range f.single {
		f.single[i].use = math.Inf(1)
	}
	return f
}

// index is the entry of f at the assignment asg (by local node).
func (f *pfactor) index(asg []int) int {
	i := 0
	for k, v := range f.vars {
		i = i*f.dims[k] + asg[v]
	}
	return i
}

// partIndex is the part of f's index at asg (pasg where f.pos) from the
// variables in says yes to: index is the sum of the parts of any split.
func (f *pfactor) partIndex(in func(x int) bool, asg, pasg []int) int {
	at := asg
	if f.pos {
		at = pasg
	}
	i, stride := 0, 1
	for k := len(f.vars) - 1; k >= 0; k-- {
		if x := f.vars[k]; in(x) {
			i += stride * at[x]
		}
		stride *= f.dims[k]
	}
	return i
}

// assign is index's inverse: it sets f's variables in asg to entry idx.
func (f *pfactor) assign(idx int, asg []int) {
	for j := len(f.vars) - 1; j >= 0; j-- {
		asg[f.vars[j]] = idx % f.dims[j]
		idx /= f.dims[j]
	}
}

// A budgetKernel is one budget's nodes, the groups inside them, and the
// table of its contraction.
type budgetKernel struct {
	p        *Problem
	budget   int
	capacity float64
	nodes    []int           // K, ascending
	boundary []int           // local indices of ∂K, ascending
	internal []int           // local indices of I, ascending
	groups   []int           // the groups whose members are all in K
	unary    [][]paretoEntry // per node and alternative: its use and (interior) cost
	gfactors []pfactor       // the groups' factors, built once
	// gkeys[i] is what gfactors[i]'s entries are computed from (groupFactor),
	// for contentKey: a factor's entries are many more bytes.
	gkeys [][]byte
	// gfills fill gfactors' tables, where the kernel tabulates
	// (fillFactors): a kernel that shares another's never does.
	gfills []func(f *pfactor, asg []int)
	aux    int // the auxiliary node, in the contracted problem
	// tuples are the auxiliary node's alternatives: assignments of ∂K, as
	// row-major indices over the boundary's alternatives (bdims), and
	// table their T.
	tuples []int32
	bdims  []int
	table  []float64 // T of each tuple
	// alike is the kernel whose table this one shares (itself, if it
	// tabulated its own): kernels alike have the same content key.
	alike *budgetKernel
	// stop, when not nil, is set once the plan is interrupted: tabulating
	// stops between two entries of a message, and the kernel stays a row.
	stop *atomic.Bool
	// workers is how many goroutines one run of its program may take
	// (unionJoin): the contraction's, shared among its distinct kernels.
	workers int
}

// A contraction is a problem with some kernels contracted: q has p's nodes
// (those of the kernels' interiors as placeholders), then one auxiliary
// node per kernel.
type contraction struct {
	q       *Problem
	n       int
	kernels []*budgetKernel
}

// contractKernels contracts every kernel of p that it can, or returns nil
// when it can contract none.
func contractKernels(ctx context.Context, p *Problem, workers int) *contraction {
	n := len(p.Nodes)
	owner := make([]int, n) // node → the budget it uses, -1: none, -2: several
	for v := range owner {
		owner[v] = -1
	}
	claim := func(v, b int) {
		switch owner[v] {
		case -1:
			owner[v] = b
		case b:
		default:
			owner[v] = -2
		}
	}
	for v, nd := range p.Nodes {
		for _, a := range nd.Alternatives {
			if a.Removed != "" {
				continue
			}
			for _, u := range a.Uses {
				if u.Amount != 0 {
					claim(v, u.Budget)
				}
			}
		}
	}
	groupBudget := make([]int, len(p.Groups)) // -1 none, -2 several
	for gi, g := range p.Groups {
		groupBudget[gi] = -1
		for _, pr := range g.Pairs {
			for _, u := range pr.Uses {
				if u.Amount == 0 {
					continue
				}
				if groupBudget[gi] == -1 || groupBudget[gi] == u.Budget {
					groupBudget[gi] = u.Budget
				} else {
					groupBudget[gi] = -2
				}
			}
		}
		if b := groupBudget[gi]; b != -1 {
			for _, m := range groupNodes(&p.Groups[gi]) {
				if b == -2 {
					owner[m] = -2
				} else {
					claim(m, b)
				}
			}
		}
	}
	ok := make([]bool, len(p.Budgets))
	for b := range ok {
		ok[b] = true
	}
	for gi, b := range groupBudget {
		if b == -2 {
			for _, pr := range p.Groups[gi].Pairs {
				for _, u := range pr.Uses {
					ok[u.Budget] = false
				}
			}
		}
	}
	for v, b := range owner {
		if b == -2 {
			for _, a := range p.Nodes[v].Alternatives {
				for _, u := range a.Uses {
					ok[u.Budget] = false
				}
			}
		}
	}
	// The kernels are independent: their programs run in parallel, each
	// into its own slot, so the result does not depend on the schedule.
	var candidates []int
	for b := range p.Budgets {
		if ok[b] {
			candidates = append(candidates, b)
		}
	}
	// Each budget's nodes, and the groups that meet them, in one pass.
	nodesOf := make([][]int, len(p.Budgets))
	for v, b := range owner {
		if b >= 0 {
			nodesOf[b] = append(nodesOf[b], v)
		}
	}
	groupsOf := make([][]int, len(p.Budgets))
	for gi := range p.Groups {
		for _, m := range groupNodes(&p.Groups[gi]) {
			if b := owner[m]; b >= 0 && (len(groupsOf[b]) == 0 || groupsOf[b][len(groupsOf[b])-1] != gi) {
				groupsOf[b] = append(groupsOf[b], gi)
			}
		}
	}
	// A kernel's content is tens of KB (its groups' factors): kernels are
	// grouped by its digest, and a kernel whose digest matches another's
	// shares its table only once their contents are compared equal.
	built := make([]*budgetKernel, len(candidates))
	digests := make([][sha256.Size]byte, len(candidates))
	forEach(len(candidates), workers, func(i int) {
		if ctx.Err() == nil {
			b := candidates[i]
			if built[i] = newKernel(p, b, nodesOf[b], groupsOf[b], owner, groupBudget); built[i] != nil {
				digests[i] = sha256.Sum256(built[i].contentKey())
			}
		}
	})
	// Kernels alike (a model's layers) are tabulated once: the first of
	// each content tabulates, the others share its factors and table.
	firstOf := map[[sha256.Size]byte]int{}
	contents := map[int][]byte{}        // of the first kernels that others matched
	rep := make([]int, len(candidates)) // the kernel whose table i shares
	var distinct []int
	for i, k := range built {
		if k == nil {
			continue
		}
		if f, seen := firstOf[digests[i]]; seen {
			if contents[f] == nil {
				contents[f] = built[f].contentKey()
			}
			if bytes.Equal(contents[f], k.contentKey()) {
				rep[i] = f
				continue
			}
		} else {
			firstOf[digests[i]] = i
		}
		rep[i] = i
		distinct = append(distinct, i)
	}
	for _, k := range built {
		if k != nil {
			k.workers = max(1, workers/max(1, len(distinct)))
		}
	}
	// A program's joins of fronts can take minutes (a whole model in one
	// kernel under a tight budget): an interrupt stops them between two
	// entries, not after them.
	var stopped atomic.Bool
	defer context.AfterFunc(ctx, func() { stopped.Store(true) })()
	for _, k := range built {
		if k != nil {
			k.stop = &stopped
		}
	}
	tabulated := make([]bool, len(candidates))
	forEach(len(distinct), workers, func(j int) {
		if ctx.Err() == nil {
			tabulated[distinct[j]] = built[distinct[j]].tabulate()
		}
	})
	if ctx.Err() != nil {
		return nil // the rows path stops at once with what it has
	}
	for i, k := range built {
		if k == nil {
			continue
		}
		f := rep[i]
		if !tabulated[f] {
			built[i] = nil
			continue
		}
		k.share(built[f])
	}
	var kernels []*budgetKernel
	tuples := 0
	for _, k := range built {
		if k != nil && tuples+len(k.tuples) <= contractMaxAllTuples {
			kernels = append(kernels, k)
			tuples += len(k.tuples)
		}
	}
	if len(kernels) == 0 {
		return nil
	}

	// The contracted problem.
	c := &contraction{n: n, kernels: kernels}
	q := &Problem{}
	c.q = q
	contracted := make([]bool, len(p.Budgets))
	interior := make([]bool, n)
	inside := make([]bool, len(p.Groups))
	for _, k := range kernels {
		contracted[k.budget] = true
		for _, li := range k.internal {
			interior[k.nodes[li]] = true
		}
		for _, gi := range k.groups {
			inside[gi] = true
		}
	}
	newIndex := make([]int, len(p.Budgets))
	for b, bud := range p.Budgets {
		newIndex[b] = -1
		if !contracted[b] {
			newIndex[b] = len(q.Budgets)
			q.Budgets = append(q.Budgets, bud)
		}
	}
	keep := func(us []Use) []Use {
		var out []Use
		for _, u := range us {
			if newIndex[u.Budget] >= 0 {
				out = append(out, Use{Budget: newIndex[u.Budget], Amount: u.Amount})
			}
		}
		return out
	}
	q.Nodes = make([]Node, n, n+len(kernels))
	// Nodes whose alternatives are alike in q share one slice, as the
	// instance finds nodes alike by their slices' identity: without their
	// contracted budgets, the kernels of a model's layers are alike.
	cloned := map[string][]Alternative{}
	labels := interner{}
	var buf []byte
	for v, nd := range p.Nodes {
		alts := slices.Clone(nd.Alternatives)
		for a := range alts {
			alts[a].Uses = keep(alts[a].Uses)
			if interior[v] {
				// A placeholder: its cost is in its kernel's table.
				alts[a].Cost = 0
			}
		}
		buf = altsKey(buf[:0], alts)
		if same, ok := cloned[string(buf)]; ok {
			alts = same
		} else {
			cloned[string(buf)] = alts
		}
		q.Nodes[v] = Node{Name: nd.Name, Alternatives: alts}
	}
	for gi, g := range p.Groups {
		if inside[gi] {
			continue
		}
		if slices.ContainsFunc(g.Pairs, func(pr Pair) bool { return len(pr.Uses) > 0 }) {
			g.Pairs = slices.Clone(g.Pairs)
			for i := range g.Pairs {
				g.Pairs[i].Uses = keep(g.Pairs[i].Uses)
			}
		}
		// Labels alike share one slice too, for the same reason.
		g.Sources = labels.intern(g.Sources)
		g.Consumers = slices.Clone(g.Consumers)
		for ci := range g.Consumers {
			g.Consumers[ci].Targets = labels.intern(g.Consumers[ci].Targets)
		}
		q.Groups = append(q.Groups, g)
	}
	// Labels and the auxiliary nodes' ids are small numbers, shared.
	var numbers []string
	number := func(i int) string {
		for len(numbers) <= i {
			numbers = append(numbers, strconv.Itoa(len(numbers)))
		}
		return numbers[i]
	}
	// The links' labels are the same for kernels of the same boundary
	// tuples (a model's layers are alike): they are built once per
	// tuple list and shared.
	type links struct {
		src   [][]string
		pairs [][]Pair
		alts  map[string][]Alternative // by the table's bits
	}
	shared := map[string]*links{}
	var dsts [][]string // dsts[m]: the labels 0 … m−1
	for _, k := range kernels {
		k.aux = len(q.Nodes)
		key := k.tuplesKey()
		l := shared[key]
		if l == nil {
			l = &links{alts: map[string][]Alternative{}}
			for j := range k.boundary {
				src := make([]string, len(k.tuples))
				for t := range k.tuples {
					src[t] = number(k.tuple(t)[j])
				}
				l.src = append(l.src, src)
				l.pairs = append(l.pairs, identityPairs(src))
			}
			shared[key] = l
		}
		// Kernels alike (the same tuples and table) share the auxiliary
		// node's alternatives too, and so its domain and link groups in
		// the instance, which compiles them once.
		tkey := floatsKey(k.table)
		alts := l.alts[tkey]
		if alts == nil {
			alts = make([]Alternative, len(k.tuples))
			for t := range k.tuples {
				alts[t] = Alternative{ID: number(t), Cost: k.table[t]}
			}
			l.alts[tkey] = alts
		}
		q.Nodes = append(q.Nodes, Node{Name: p.Budgets[k.budget].Name + ": the kernel's interior", Alternatives: alts})
		for j, li := range k.boundary {
			v := k.nodes[li]
			m := len(p.Nodes[v].Alternatives)
			for len(dsts) <= m {
				dst := make([]string, len(dsts))
				for a := range dst {
					dst[a] = number(a)
				}
				dsts = append(dsts, dst)
			}
			q.Groups = append(q.Groups, Group{Name: q.Nodes[k.aux].Name + " at " + p.Nodes[v].Name, Producer: k.aux,
				Sources: l.src[j], Consumers: []Consumer{{Node: v, Targets: dsts[m]}}, Pairs: l.pairs[j]})
		}
	}
	return c
}

// An interner gives label lists alike one slice.
type interner struct {
	seen map[string][]string
	buf  []byte
}

func (in *interner) intern(ls []string) []string {
	if in.seen == nil {
		in.seen = map[string][]string{}
	}
	in.buf = in.buf[:0]
	for _, l := range ls {
		in.buf = binary.AppendUvarint(in.buf, uint64(len(l)))
		in.buf = append(in.buf, l...)
	}
	if same, ok := in.seen[string(in.buf)]; ok {
		return same
	}
	in.seen[string(in.buf)] = ls
	return ls
}

// altsKey appends to b what identifies alternatives by their content.
func altsKey(b []byte, alts []Alternative) []byte {
	for _, a := range alts {
		b = binary.AppendUvarint(b, uint64(len(a.ID)))
		b = append(b, a.ID...)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a.Cost))
		b = binary.AppendUvarint(b, uint64(len(a.Removed)))
		b = append(b, a.Removed...)
		b = binary.AppendUvarint(b, uint64(len(a.Uses)))
		for _, u := range a.Uses {
			b = binary.AppendUvarint(b, uint64(u.Budget))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(u.Amount))
		}
	}
	return b
}

// floatsKey identifies a list of numbers by their bits.
func floatsKey(xs []float64) string {
	b := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return string(b)
}

// tuplesKey identifies the kernel's boundary dimensions and tuple list.
func (k *budgetKernel) tuplesKey() string {
	b := make([]byte, 0, 4*(len(k.bdims)+1+len(k.tuples)))
	for _, d := range k.bdims {
		b = binary.LittleEndian.AppendUint32(b, uint32(d))
	}
	b = binary.LittleEndian.AppendUint32(b, math.MaxUint32)
	for _, t := range k.tuples {
		b = binary.LittleEndian.AppendUint32(b, uint32(t))
	}
	return string(b)
}

// identityPairs are the pairs (x, x) of cost 0 over the distinct labels.
func identityPairs(labels []string) []Pair {
	var out []Pair
	seen := map[string]bool{}
	for _, x := range labels {
		if !seen[x] {
			seen[x] = true
			out = append(out, Pair{Source: x, Target: x})
		}
	}
	return out
}

// newKernel gathers budget b's kernel and its factors, or returns nil
// when the kernel cannot be contracted: no interior, too many boundary
// assignments, or a group's table too large.
func newKernel(p *Problem, b int, nodes, groups []int, owner, groupBudget []int) *budgetKernel {
	k := &budgetKernel{p: p, budget: b, capacity: p.Budgets[b].Capacity, nodes: nodes}
	if len(k.nodes) == 0 {
		return nil
	}
	local := map[int]int{}
	for i, v := range k.nodes {
		local[v] = i
	}
	isBoundary := make([]bool, len(k.nodes))
	for _, gi := range groups {
		members := groupNodes(&p.Groups[gi])
		all := true
		for _, m := range members {
			all = all && owner[m] == b
		}
		if all {
			k.groups = append(k.groups, gi)
			continue
		}
		if groupBudget[gi] == b {
			return nil // scratch of b on a group that leaves the kernel
		}
		for _, m := range members {
			if owner[m] == b {
				isBoundary[local[m]] = true
			}
		}
	}
	tuples := 1
	for i, bd := range isBoundary {
		if bd {
			k.boundary = append(k.boundary, i)
			tuples *= len(p.Nodes[k.nodes[i]].Alternatives)
			if tuples > contractMaxTuples {
				return nil
			}
		} else {
			k.internal = append(k.internal, i)
		}
	}
	if len(k.internal) == 0 {
		return nil
	}
	// The unary fronts: a node's use, and its cost when interior (a
	// boundary node's cost stays in the contracted problem).
	k.unary = make([][]paretoEntry, len(k.nodes))
	for i, v := range k.nodes {
		for _, a := range p.Nodes[v].Alternatives {
			if a.Removed != "" {
				k.unary[i] = append(k.unary[i], paretoEntry{math.Inf(1), math.Inf(1)})
				continue
			}
			e := paretoEntry{use: useOf(a.Uses, b)}
			if !isBoundary[i] {
				e.cost = a.Cost
			}
			k.unary[i] = append(k.unary[i], e)
		}
	}
	for _, gi := range k.groups {
		f, key, fill, ok := k.groupFactor(gi, local)
		if !ok {
			return nil
		}
		k.gfactors, k.gkeys, k.gfills = append(k.gfactors, f), append(k.gkeys, key), append(k.gfills, fill)
	}
	return k
}

// fillFactors fills the groups' tables, once: a kernel alike another
// shares its (share), and 1,000 fused layers built 999 sets of tables for
// nothing.
func (k *budgetKernel) fillFactors() {
	asg := make([]int, len(k.nodes)) // the fills' scratch
	for i, fill := range k.gfills {
		fill(&k.gfactors[i], asg)
	}
	k.gfills = nil
}

// tabulate tabulates T over the kernel's boundary. It reports false when
// the kernel cannot be contracted: too many entries, or no feasible
// assignment (then the row stays, and the conflict is explained by it).
func (k *budgetKernel) tabulate() bool {
	k.fillFactors()
	t, ok := k.solve(nil, k.boundary)
	if !ok {
		return false
	}
	k.bdims = t.dims
	for idx := range t.single {
		if best := k.best(t.front(idx)); !math.IsInf(best, 1) {
			k.tuples = append(k.tuples, int32(idx))
			k.table = append(k.table, best)
		}
	}
	k.alike = k
	return len(k.tuples) > 0
}

// share makes k, whose content is f's, use f's factors and table.
func (k *budgetKernel) share(f *budgetKernel) {
	k.unary, k.gfactors, k.gkeys, k.gfills = f.unary, f.gfactors, f.gkeys, nil
	k.bdims, k.tuples, k.table = f.bdims, f.tuples, f.table
	k.alike = f
}

// contentKey identifies what the kernel's program reads: its capacity,
// its nodes' fronts and which are on the boundary, and its groups'
// factors (by what groupFactor computes their entries from: the same
// key, the same entries). Kernels of one key have one table, and at one
// boundary assignment the same interior choices.
func (k *budgetKernel) contentKey() []byte {
	size := 16 * (1 + len(k.boundary) + len(k.gfactors))
	for _, u := range k.unary {
		size += 16 * (1 + len(u))
	}
	for i, f := range k.gfactors {
		size += 16*len(f.vars) + len(k.gkeys[i])
	}
	b := make([]byte, 0, size)
	num := func(x float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x)) }
	num(k.capacity)
	b = binary.AppendUvarint(b, uint64(len(k.unary)))
	for _, u := range k.unary {
		b = binary.AppendUvarint(b, uint64(len(u)))
		for _, e := range u {
			num(e.use)
			num(e.cost)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(k.boundary)))
	for _, li := range k.boundary {
		b = binary.AppendUvarint(b, uint64(li))
	}
	b = binary.AppendUvarint(b, uint64(len(k.gfactors)))
	for fi, f := range k.gfactors {
		b = binary.AppendUvarint(b, uint64(len(f.vars)))
		for i, v := range f.vars {
			b = binary.AppendUvarint(b, uint64(v))
			b = binary.AppendUvarint(b, uint64(f.dims[i]))
		}
		b = binary.AppendUvarint(b, uint64(len(k.gkeys[fi])))
		b = append(b, k.gkeys[fi]...)
	}
	return b
}

// best is the least cost of a front within the capacity.
func (k *budgetKernel) best(front []paretoEntry) float64 {
	best := math.Inf(1)
	limit := k.capacity + budgetTolerance(k.capacity)
	for _, e := range front {
		if e.use <= limit {
			best = math.Min(best, e.cost)
		}
	}
	return best
}

// groupFactor is group gi's factor over its members, its variables and
// their sizes, and fill, which tabulates its entries: its conversions'
// cost and their scratch in the kernel's budget (asg is fill's scratch
// of a slot per kernel node: one per group made kernels of 50,000 nodes
// allocate 20 GB). The key is what the entries are computed from, beside
// the variables and their sizes: the producer's and each consumer's
// position among the variables and labels (numbered in order of first
// use), and each pair of labels' cost and scratch.
func (k *budgetKernel) groupFactor(gi int, local map[int]int) (_ pfactor, key []byte, fill func(f *pfactor, asg []int), ok bool) {
	g := &k.p.Groups[gi]
	members := slices.Compact(slices.Sorted(slices.Values(groupNodes(g))))
	f := pfactor{}
	size := 1
	for _, m := range members {
		f.vars = append(f.vars, local[m])
		f.dims = append(f.dims, len(k.p.Nodes[m].Alternatives))
		size *= f.dims[len(f.dims)-1]
		if size > contractMaxEntries {
			return f, nil, nil, false
		}
	}
	// The labels by number, and the pairs by their labels' numbers, so
	// that filling the table hashes no string.
	ids := map[string]int{}
	number := func(ls []string) []int { return numberLabels(ids, ls) }
	src := number(g.Sources)
	tgts := make([][]int, len(g.Consumers))
	at := make([]int, len(g.Consumers))
	for ci, c := range g.Consumers {
		tgts[ci], at[ci] = number(c.Targets), local[c.Node]
	}
	nl := len(ids)
	pairs := make([]*Pair, nl*nl)
	for i, pr := range g.Pairs {
		s, ok1 := ids[pr.Source]
		t, ok2 := ids[pr.Target]
		if ok1 && ok2 {
			pairs[s*nl+t] = &g.Pairs[i]
		}
	}
	// The entries in row-major order (the last variable fastest), each
	// member's alternative read from a digit of the odometer: producer
	// and consumer by their variable's position. An entry depends on the
	// labels alone, so where the label tuples are few each is summed once
	// (memo), in the same order as it would be for each entry.
	pos := func(li int) int { return slices.Index(f.vars, li) }
	pk := pos(local[g.Producer])
	ck := make([]int, len(g.Consumers))
	for ci := range g.Consumers {
		ck[ci] = pos(at[ci])
	}
	key = binary.AppendUvarint(nil, uint64(nl))
	labelsAt := func(v int, labels []int) { // the variable at position v, by its labels
		key = binary.AppendUvarint(key, uint64(v))
		key = binary.AppendUvarint(key, uint64(len(labels)))
		for _, l := range labels {
			key = binary.AppendUvarint(key, uint64(l))
		}
	}
	labelsAt(pk, src)
	key = binary.AppendUvarint(key, uint64(len(g.Consumers)))
	for ci := range g.Consumers {
		labelsAt(ck[ci], tgts[ci])
	}
	for _, pr := range pairs {
		if pr == nil || math.IsInf(pr.Cost, 1) {
			key = append(key, 0)
			continue
		}
		key = append(key, 1)
		key = binary.LittleEndian.AppendUint64(key, math.Float64bits(pr.Cost))
		key = binary.LittleEndian.AppendUint64(key, math.Float64bits(useOf(pr.Uses, k.budget)))
	}
	fill = func(f *pfactor, asg []int) {
		*f = newSingle(f.vars, f.dims, size)
		f.cls = groupClasses(f, pk, ck, src, tgts)
		var memo []paretoEntry
		var memoSet []bool
		if tuples := nl; len(g.Consumers) <= 3 {
			for range g.Consumers {
				tuples *= nl
			}
			if tuples <= 1<<12 {
				memo, memoSet = make([]paretoEntry, tuples), make([]bool, tuples)
			}
		}
		digits := asg[:len(f.vars)]
		clear(digits)
		var seen []int
		for idx := range f.single {
			s := src[digits[pk]]
			tuple := -1 // the entry's labels, as an index into memo
			if memo != nil {
				tuple = s
				for ci := range g.Consumers {
					tuple = tuple*nl + tgts[ci][digits[ck[ci]]]
				}
			}
			if tuple >= 0 && memoSet[tuple] {
				f.single[idx] = memo[tuple]
			} else {
				e := paretoEntry{}
				seen = seen[:0]
				for ci := range g.Consumers {
					t := tgts[ci][digits[ck[ci]]]
					if slices.Contains(seen, t) {
						continue
					}
					seen = append(seen, t)
					pr := pairs[s*nl+t]
					if pr == nil || math.IsInf(pr.Cost, 1) {
						e = paretoEntry{use: math.Inf(1)} // infeasible, as newSingle leaves it
						break
					}
					e.cost += pr.Cost
					e.use += useOf(pr.Uses, k.budget)
				}
				f.single[idx] = e
				if tuple >= 0 {
					memo[tuple], memoSet[tuple] = e, true
				}
			}
			for j := len(digits) - 1; j >= 0; j-- {
				if digits[j]++; digits[j] < f.dims[j] {
					break
				}
				digits[j] = 0
			}
		}
	}
	return f, key, fill, true
}

// groupClasses classes each member's alternatives of a group's factor f by
// their labels in the group (src as producer, at variable pk; tgts as
// each consumer, at ck): an entry depends on nothing else.
func groupClasses(f *pfactor, pk int, ck []int, src []int, tgts [][]int) [][]int32 {
	cls := make([][]int32, len(f.vars))
	ids := map[string]int32{}
	var lk []byte
	for j := range f.vars {
		clear(ids)
		cls[j] = make([]int32, f.dims[j])
		for a := range f.dims[j] {
			lk = lk[:0]
			if j == pk {
				lk = binary.AppendUvarint(lk, uint64(src[a]))
			}
			for ci := range ck {
				if ck[ci] == j {
					lk = binary.AppendUvarint(lk, uint64(tgts[ci][a]))
				}
			}
			id, seen := ids[string(lk)]
			if !seen {
				id = int32(len(ids))
				ids[string(lk)] = id
			}
			cls[j][a] = id
		}
	}
	return cls
}

// solve runs the program over the kernel with the alternatives allowed
// (nil: all), eliminating every node but keep, and returns the table over
// keep of the least cost within the capacity (single entries of use 0, by
// alternative; k.best reads them); false when a table would exceed
// contractMaxEntries.
func (k *budgetKernel) solve(allowed func(li, a int) bool, keep []int, extra ...pfactor) (pfactor, bool) {
	pr := k.prepare(allowed, extra)
	factors, limit, dims, dom, posOf := pr.factors, pr.limit, pr.dims, pr.dom, pr.posOf
	// The order of elimination and the limits are by the alternatives, as
	// is the table returned: the fronts are the same as over every
	// alternative, whose excluded ones only ever gave empty fronts.
	sc := &frontScratch{}
	kept := make([]bool, len(k.nodes))
	for _, li := range keep {
		kept[li] = true
	}
	if slices.ContainsFunc(dom, func(d []int) bool { return len(d) == 0 }) {
		return noPlan(keep, dims), true // a node with no alternative allowed
	}
	asg := make([]int, len(k.nodes))
	pasg := make([]int, len(k.nodes))
	// The pool holds the factors given and the messages, in the order of
	// the factors left at each step (those over v leave it, the message
	// joins it last).
	pool := slices.Clone(factors)
	ord := newElimOrder(pool, dims, kept)
	var with []pfactor
	for {
		// The next node: the one whose table is smallest (then the lowest).
		v, vsize := ord.next()
		if v < 0 {
			break
		}
		if vsize > contractMaxEntries {
			return pfactor{}, false
		}
		// The factors over v join the bucket; the others stay.
		joined := ord.over(v)
		with = with[:0]
		for _, i := range joined {
			with = append(with, pool[i])
		}
		scope := scopeOf(with, v)
		out, ok := sc.message(&pr, with, v, scope, asg, pasg)
		if !ok || pr.stopped() {
			return pfactor{}, false
		}
		ord.eliminate(v, joined, out.vars)
		pool = append(pool, out)
	}
	factors = factors[:0]
	for i, f := range pool {
		if !ord.dead[i] {
			factors = append(factors, f)
		}
	}
	// What is left is over keep: one table of the least cost within the
	// capacity, whose last join is only for its best sum.
	out := noPlan(keep, dims)
	var last *pfactor
	if len(factors) > 0 {
		last, factors = &factors[len(factors)-1], factors[:len(factors)-1]
	}
next:
	for idx := range out.single {
		if idx&63 == 0 && pr.stopped() {
			return pfactor{}, false
		}
		out.assign(idx, asg)
		for _, x := range keep {
			if pasg[x] = posOf[x][asg[x]]; pasg[x] < 0 {
				continue next // outside x's domain: no plan
			}
		}
		acc := sc.product(factors, asg, pasg, limit)
		c := k.best(acc)
		if last != nil {
			at := asg
			if last.pos {
				at = pasg
			}
			c = bestSum(acc, last.front(last.index(at)), limit)
		}
		if !math.IsInf(c, 1) {
			out.single[idx] = paretoEntry{0, c}
		}
	}
	return out, true
}

// marginals is, for every node of the kernel, its least cost at each of
// its alternatives (+Inf where no plan of the kernel fits the budget), with
// the extra factors: the program's min-marginals. solve with a node kept
// gives one node's; here one pass forward over the buckets of an
// elimination and one back (the junction tree of its order) give every
// node's. The fronts are a semiring (join: the Pareto front of the sums,
// within the capacity; marginalize: of the union), so the junction tree is
// exact. nil where a table would outgrow the limits.
func (k *budgetKernel) marginals(extra ...pfactor) [][]float64 {
	return k.marginalsOf(nil, nil, extra...)
}

// marginalsAllowed is marginals with only the alternatives allowed (nil:
// all); a node's alternative not allowed has +Inf.
func (k *budgetKernel) marginalsAllowed(allowed func(li, a int) bool, extra ...pfactor) [][]float64 {
	return k.marginalsOf(allowed, nil, extra...)
}

// marginalsOf is marginalsAllowed for the nodes need asks for (nil: all),
// the others' left +Inf: the backward pass goes only down to their
// buckets (a fused transformer's 1,000 invocations in one kernel, two of
// them explained: 6 s of it for every bucket).
func (k *budgetKernel) marginalsOf(allowed func(li, a int) bool, need func(li int) bool, extra ...pfactor) [][]float64 {
	pr := k.prepare(allowed, extra)
	n := len(k.nodes)
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, pr.dims[i])
		for a := range out[i] {
			out[i][a] = math.Inf(1)
		}
	}
	if slices.ContainsFunc(pr.dom, func(d []int) bool { return len(d) == 0 }) {
		return out // no plan at all
	}
	sc := &frontScratch{}
	asg := make([]int, n)
	pasg := make([]int, n)
	// Forward: the elimination, recording each bucket.
	run, ok := sc.record(&pr, asg, pasg)
	if !ok {
		return nil
	}
	pool, buckets, constants := run.pool, run.buckets, run.constants
	factorsOf := func(is []int) []pfactor {
		fs := make([]pfactor, len(is))
		for j, i := range is {
			fs[j] = pool[i]
		}
		return fs
	}
	// The buckets whose outside a node needed needs: its own and every
	// one its message goes through (a parent comes after its children).
	needed := make([]bool, len(buckets))
	for j := range buckets {
		if need == nil || need(buckets[j].v) {
			needed[j] = true
		}
	}
	for j := range buckets {
		if p := buckets[j].parent; needed[j] && p >= 0 {
			needed[p] = true
		}
	}
	// Backward: each bucket's outside, over its message's nodes: what the
	// rest of the kernel adds at each of their assignments.
	outside := make([]pfactor, len(buckets))
	for j := len(buckets) - 1; j >= 0; j-- {
		b := &buckets[j]
		if !needed[j] {
			continue
		}
		m := &pool[b.msg]
		o := pfactor{vars: m.vars, dims: m.dims, pos: true, lists: make([][]paretoEntry, len(m.lists))}
		if b.parent < 0 {
			var others []int
			for _, i := range constants {
				if i != b.msg {
					others = append(others, i)
				}
			}
			o.lists[0] = slices.Clone(sc.product(factorsOf(others), asg, pasg, pr.limit))
		} else {
			p := &buckets[b.parent]
			fs := []pfactor{outside[b.parent]}
			for _, i := range p.inputs {
				if i != b.msg {
					fs = append(fs, pool[i])
				}
			}
			// Entry by entry of o, the union over the parent's other
			// nodes, in scratch, copied once.
			rest := slices.DeleteFunc(slices.Clone(p.scope), func(x int) bool { return slices.Contains(o.vars, x) })
			sc.unionJoin(&pr, fs, &o, rest, 0, asg, pasg)
		}
		outside[j] = o
	}
	// Each node's marginal, from its bucket joined with its outside (only
	// for its best sum within the capacity: bucketMarginal). Each
	// bucket's on its own scratch, among the program's goroutines (each
	// writes its node's row alone).
	var todo []int
	for j, b := range buckets {
		if need == nil || need(b.v) {
			todo = append(todo, j)
		}
	}
	forEach(len(todo), pr.workers, func(i int) {
		b := &buckets[todo[i]]
		(&frontScratch{}).bucketMarginal(&pr, factorsOf(b.inputs), &outside[todo[i]], b.scope, b.v, out[b.v])
	})
	return out
}

// bucketMarginal lowers row[a], node v's least cost at each alternative a,
// to the best plan of the factors fs joined with the bucket's outside o
// (over scope less v), over every assignment of the bucket's scope.
//
// The nodes other than v are walked by class of fs (classes.go): at the
// assignments of one class tuple fs's join is the same, and its best with
// o at any of them is its best with the union of o's fronts over them,
// built once per tuple. The join is kept by prefix (as unionChunk keeps
// its): the odometer's slowest node is that of the first factor, and a
// step convolves again only from the first factor over a node it moved.
// Every sum is the same as a join of fs's fronts and one of o's in that
// order, so every entry of row is the same number whichever assignments
// are walked.
func (sc *frontScratch) bucketMarginal(pr *program, fs []pfactor, o *pfactor, scope []int, v int, row []float64) {
	n := len(pr.dom)
	asg, pasg := make([]int, n), make([]int, n)
	// The nodes of scope, slowest first: by the first factor over each
	// (len(fs) for none).
	keys := make([]int, n)
	order := slices.Clone(scope)
	for _, x := range order {
		keys[x] = len(fs)
		for k := range fs {
			if slices.Contains(fs[k].vars, x) {
				keys[x] = k
				break
			}
		}
	}
	slices.SortStableFunc(order, func(x, y int) int { return keys[x] - keys[y] })
	grid := newClassGrid(pr, fs, order, func(x int) bool { return x == v })
	// The union of o's fronts by class tuple of o's nodes (uIndex, over
	// o.vars' classes).
	at := make([]int, len(order)) // per node of o.vars, its index in order
	for i, x := range o.vars {
		at[i] = slices.Index(order, x)
	}
	uIndex := func() int {
		u := 0
		for i, x := range o.vars {
			j := at[i]
			u = u*len(grid.members[j]) + int(grid.cls[j][pasg[x]])
		}
		return u
	}
	nu := 1
	for i := range o.vars {
		nu *= len(grid.members[at[i]])
	}
	union := make([][]paretoEntry, nu)
	for idx := range len(o.lists) + len(o.single) {
		o.assign(idx, pasg)
		u := uIndex()
		sc.spare = mergeFronts(sc.spare[:0], union[u], o.front(idx))
		union[u] = append(union[u][:0], sc.spare...)
	}
	// The odometer over classes (v's every alternative its own).
	ci := make([]int, len(order))
	size := 1
	for j, x := range order {
		size *= len(grid.members[j])
		pasg[x] = grid.members[j][0][0]
		asg[x] = pr.dom[x][pasg[x]]
	}
	pre := make([][]paretoEntry, len(fs)+1)
	pre[0] = []paretoEntry{{}}
	from := 0 // the first factor whose front moved since the last assignment
	for range size {
		for k := from; k < len(fs); k++ {
			if len(pre[k]) == 0 {
				pre[k+1] = pre[k+1][:0]
				continue
			}
			f := &fs[k]
			at := asg
			if f.pos {
				at = pasg
			}
			pre[k+1] = sc.convolve(pre[k+1][:0], pre[k], f.front(f.index(at)), pr.limit)
		}
		if c := bestSum(pre[len(fs)], union[uIndex()], pr.limit); c < row[asg[v]] {
			row[asg[v]] = c
		}
		for j := len(order) - 1; j >= 0; j-- {
			x := order[j]
			from = keys[x]
			if ci[j]++; ci[j] >= len(grid.members[j]) {
				ci[j] = 0
			}
			pasg[x] = grid.members[j][ci[j]][0]
			asg[x] = pr.dom[x][pasg[x]]
			if ci[j] > 0 {
				break
			}
		}
	}
}

// A recorded run of a kernel's program over every node (record): the
// pool (the program's factors, then each bucket's message), the buckets
// in the order of elimination, and the pool's factors over no node that
// no bucket joined (the messages of the last buckets, one per connected
// part, and any extra constant).
type recordedRun struct {
	pool      []pfactor
	buckets   []recordedBucket
	constants []int
}

// A recordedBucket is one node's elimination in a recorded run.
type recordedBucket struct {
	v        int
	scope    []int // ascending, v among them
	inputs   []int // the pool's factors it joined
	msg      int   // the pool's factor it sent, over scope less v
	parent   int   // the bucket that joined msg; -1: none (msg is over no node)
	children []int // the buckets whose messages it joined, in order
}

// record runs the program pr over every node, recording its buckets;
// false where a table outgrows the limits.
func (sc *frontScratch) record(pr *program, asg, pasg []int) (recordedRun, bool) {
	n := len(pr.dom)
	pool := slices.Clone(pr.factors)
	consumer := make([]int, len(pool)) // the bucket that joined each; -1: none
	for i := range consumer {
		consumer[i] = -1
	}
	domDims := make([]int, n)
	for i := range n {
		domDims[i] = len(pr.dom[i])
	}
	var buckets []recordedBucket
	var with []pfactor
	ord := newElimOrder(pool, domDims, nil)
	for len(buckets) < n {
		v, vsize := ord.next()
		if v < 0 || vsize > contractMaxEntries {
			return recordedRun{}, false
		}
		joined := slices.Clone(ord.over(v))
		with = with[:0]
		for _, i := range joined {
			with = append(with, pool[i])
		}
		scope := scopeOf(with, v)
		msg, ok := sc.message(pr, with, v, scope, asg, pasg)
		if !ok {
			return recordedRun{}, false
		}
		j := len(buckets)
		for _, i := range joined {
			consumer[i] = j
		}
		ord.eliminate(v, joined, msg.vars)
		pool = append(pool, msg)
		consumer = append(consumer, -1)
		buckets = append(buckets, recordedBucket{v: v, scope: scope, inputs: joined, msg: len(pool) - 1})
	}
	run := recordedRun{pool: pool, buckets: buckets}
	for j := range buckets {
		p := consumer[buckets[j].msg]
		buckets[j].parent = p
		if p >= 0 {
			buckets[p].children = append(buckets[p].children, j)
		}
	}
	for i, f := range pool {
		if consumer[i] < 0 && len(f.vars) == 0 {
			run.constants = append(run.constants, i)
		}
	}
	return run, true
}

// A program is what a run of the kernel's program starts from: the factors
// (each node's own front, the groups', any extra), the capacity with its
// tolerance, and each node's alternatives (dims) and domain.
//
// The tables the program builds are over each node's domain, the
// alternatives its own front allows: with the boundary fixed (the interior
// read back) a boundary node's is one alternative, and its tables are that
// much smaller. An assignment is held twice: by alternative (asg) for the
// factors given, which are over alternatives, and by position in the
// domains (pasg) for the tables built, which are over positions.
type program struct {
	factors []pfactor
	limit   float64
	workers int // unionJoin's goroutines
	// stop, when not nil and set, ends the joins early (the kernel's
	// stop): the program's tables are then incomplete, and solve fails.
	stop  *atomic.Bool
	dims  []int
	dom   [][]int // per node, its allowed alternatives
	posOf [][]int // per node and alternative, its position in dom (-1: not allowed)
}

// stopped reports whether the program's stop is set.
func (pr *program) stopped() bool { return pr.stop != nil && pr.stop.Load() }

func (k *budgetKernel) prepare(allowed func(li, a int) bool, extra []pfactor) program {
	pr := program{factors: make([]pfactor, 0, len(k.nodes)+len(k.gfactors)+len(extra)), limit: k.capacity + budgetTolerance(k.capacity), workers: max(1, k.workers),
		stop: k.stop}
	for i, u := range k.unary {
		f := newSingle([]int{i}, []int{len(u)}, len(u))
		for a, e := range u {
			if !math.IsInf(e.use, 1) && e.use <= pr.limit && (allowed == nil || allowed(i, a)) {
				f.single[a] = e
			}
		}
		pr.factors = append(pr.factors, f)
	}
	pr.factors = append(pr.factors, k.gfactors...)
	pr.factors = append(pr.factors, extra...)
	pr.dims = make([]int, len(k.nodes))
	for i, v := range k.nodes {
		pr.dims[i] = len(k.p.Nodes[v].Alternatives)
	}
	pr.dom = make([][]int, len(k.nodes))
	pr.posOf = make([][]int, len(k.nodes))
	for i, u := range k.unary {
		pr.posOf[i] = make([]int, len(u))
		for a := range u {
			pr.posOf[i][a] = -1
			if !math.IsInf(pr.factors[i].single[a].use, 1) {
				pr.posOf[i][a] = len(pr.dom[i])
				pr.dom[i] = append(pr.dom[i], a)
			}
		}
	}
	return pr
}

// noPlan is a table over vars (dims by node) with no plan at any entry.
func noPlan(vars, dims []int) pfactor {
	size := 1
	d := make([]int, len(vars))
	for i, x := range vars {
		d[i] = dims[x]
		size *= dims[x]
	}
	return newSingle(slices.Clone(vars), d, size)
}

// message eliminates node v from the factors with, whose nodes are scope:
// the table over scope less v, by position in the domains, of the union
// over v's domain of their join's fronts (unionJoin). false past
// contractMaxEntries entries.
func (sc *frontScratch) message(pr *program, with []pfactor, v int, scope, asg, pasg []int) (pfactor, bool) {
	out := pfactor{vars: slices.DeleteFunc(slices.Clone(scope), func(x int) bool { return x == v }), pos: true}
	for _, x := range out.vars {
		out.dims = append(out.dims, len(pr.dom[x]))
	}
	sc.elim = append(sc.elim[:0], v)
	return out, sc.unionJoin(pr, with, &out, sc.elim, contractMaxEntries, asg, pasg)
}

// unionJoin fills out's fronts (out.vars and out.dims set, by position in
// the domains): at each of its entries, the union over every assignment
// of the nodes elim of the join of the factors with, their fronts
// convolved in with's order, as product does. The fronts are built in
// scratch and copied into one backing array per table: a few allocations
// per table, not per entry. false past maxEntries entries (0: no limit).
//
// The join's prefixes are kept per assignment of elim (up to
// unionPrefixes of them): from one entry to the next the odometer moves
// only its fastest nodes, and a prefix up to the first factor over one of
// them is the same. The odometer's slowest node is that of the first
// factor (unionChunk). On fused transformers of 300 and 1,000 invocations
// in one kernel that skipped half the convolutions, but not the costly
// ones (two fronts of many entries, whose factors are over v or the
// fastest nodes): 1–6 % of the plan. Putting those factors last in the
// join (which changes its sums in their last bits) gained nothing more.
func (sc *frontScratch) unionJoin(pr *program, with []pfactor, out *pfactor, elim []int, maxEntries int, asg, pasg []int) bool {
	if tails := tailFactors(with, out.vars); tails > 0 && !tailsOff {
		return sc.unionJoinTails(pr, with, tails, out, elim, maxEntries, asg, pasg)
	}
	size := 1
	for _, d := range out.dims {
		size *= d
	}
	out.lists = make([][]paretoEntry, size)
	// One entry filled per class tuple (classes.go), its front shared by
	// the tuple's others.
	grid := newClassGrid(pr, with, out.vars, nil)
	out.cls = grid.cls
	size = grid.size()
	nElim := 1
	for _, x := range elim {
		nElim *= len(pr.dom[x])
	}
	chunks := 1
	if size*nElim*max(1, len(with)) >= unionParallelWork {
		chunks = min(pr.workers, size)
	}
	if chunks <= 1 {
		entries := sc.unionChunk(pr, with, out, &grid, elim, 0, size, maxEntries, asg, pasg)
		return maxEntries <= 0 || entries <= maxEntries
	}
	// The entries in chunks, each on a goroutine with scratch of its own:
	// each entry's fronts are the same as on one.
	counts := make([]int, chunks)
	var wg sync.WaitGroup
	for c := range chunks {
		from, to := c*size/chunks, (c+1)*size/chunks
		sc := sc
		if c > 0 {
			sc = &frontScratch{}
		}
		wg.Go(func() {
			counts[c] = sc.unionChunk(pr, with, out, &grid, elim, from, to, maxEntries, slices.Clone(asg), slices.Clone(pasg))
		})
	}
	wg.Wait()
	total := 0
	for _, n := range counts {
		total += n
	}
	return maxEntries <= 0 || total <= maxEntries
}

// tailFactors counts the factors of with over one node of out, of single
// entries: a node's own front (its own costs, so that a table over it has
// a class per alternative), or W over a boundary of one node. The outside
// tables of a kernel's min-marginals join nodes' own fronts (marginalsOf).
func tailFactors(with []pfactor, vars []int) int {
	n := 0
	for k := range with {
		if f := &with[k]; len(f.vars) == 1 && f.single != nil && slices.Contains(vars, f.vars[0]) {
			n++
		}
	}
	return n
}

// unionJoinTails is unionJoin where some of with are nodes' own fronts
// (tailFactors): the union is of the other factors' join, by class, and
// each entry is then shifted by the tails' entries there. A node's own
// entry is the same at every assignment eliminated, so it shifts the
// union as it shifts each front in it. The sums are the same numbers
// added in another order (the tails last), equal to theirs up to
// rounding.
func (sc *frontScratch) unionJoinTails(pr *program, with []pfactor, tails int, out *pfactor, elim []int, maxEntries int, asg, pasg []int) bool {
	rest := make([]pfactor, 0, len(with)-tails)
	tail := make([]pfactor, 0, tails)
	for _, f := range with {
		if len(f.vars) == 1 && f.single != nil && slices.Contains(out.vars, f.vars[0]) {
			tail = append(tail, f)
		} else {
			rest = append(rest, f)
		}
	}
	union := pfactor{vars: out.vars, dims: out.dims, pos: true}
	if !sc.unionJoin(pr, rest, &union, elim, maxEntries, asg, pasg) {
		return false
	}
	out.cls = newClassGrid(pr, with, out.vars, nil).cls
	out.lists = make([][]paretoEntry, len(union.lists))
	var backing []paretoEntry
	entries := 0
	for idx, u := range union.lists {
		if len(u) == 0 {
			continue
		}
		out.assign(idx, pasg)
		d := paretoEntry{}
		for k := range tail {
			f := &tail[k]
			at := asg
			if f.pos {
				at = pasg
			} else {
				x := f.vars[0]
				asg[x] = pr.dom[x][pasg[x]]
			}
			e := f.front(f.index(at))
			if len(e) == 0 {
				d.use = math.Inf(1)
				break
			}
			d = paretoEntry{d.use + e[0].use, d.cost + e[0].cost}
		}
		if len(backing)+len(u) > cap(backing) {
			backing = make([]paretoEntry, 0, max(1024, 2*cap(backing), len(u)))
		}
		start := len(backing)
		backing = shift(backing, d, u, pr.limit)
		if len(backing) > start {
			out.lists[idx] = backing[start:len(backing):len(backing)]
			entries += len(backing) - start
		}
	}
	return maxEntries <= 0 || entries <= maxEntries
}

// unionChunk fills the entries of out's class tuples from to to (grid's,
// unionJoin) and returns how many front entries they hold, a front shared
// counted once per entry; it stops past maxEntries (0: no limit).
func (sc *frontScratch) unionChunk(pr *program, with []pfactor, out *pfactor, grid *classGrid, elim []int, from, to, maxEntries int, asg, pasg []int) int {
	ix := pfactor{vars: elim}
	nElim := 1
	for _, x := range elim {
		ix.dims = append(ix.dims, len(pr.dom[x]))
		nElim *= len(pr.dom[x])
	}
	// Each assignment of elim, by position and by alternative, once: the
	// divisions of assign were a sixth of a kernel's regrets.
	ePos := make([]int, nElim*len(elim))
	eAlt := make([]int, len(ePos))
	for e := range nElim {
		ix.assign(e, pasg)
		for i, x := range elim {
			ePos[e*len(elim)+i] = pasg[x]
			eAlt[e*len(elim)+i] = pr.dom[x][pasg[x]]
		}
	}
	// The entries are walked by an odometer over out's nodes, slowest
	// first the node of the first factor (keys[j]: the first factor over
	// out.vars[j]), so that a step that moves the fastest nodes leaves
	// the join's prefix up to their first factor as it was: with the
	// fastest node that of the first factor, every step joined anew. The
	// entries' fronts do not depend on the order they are filled in.
	keys := make([]int, len(out.vars))
	for j, x := range out.vars {
		keys[j] = len(with)
		for k := range with {
			if slices.Contains(with[k].vars, x) {
				keys[j] = k
				break
			}
		}
	}
	order := make([]int, len(out.vars)) // positions in out.vars, slowest first
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(i, j int) int { return keys[i] - keys[j] })
	cached := nElim <= unionPrefixes
	slots := 1
	if cached {
		slots = nElim
	}
	if len(sc.prefix) < slots {
		sc.prefix = append(sc.prefix, make([][][]paretoEntry, slots-len(sc.prefix))...)
	}
	for e := range slots {
		sc.prefix[e] = slices.Grow(sc.prefix[e][:0], len(with)+1)[:len(with)+1]
		sc.prefix[e][0] = append(sc.prefix[e][0][:0], paretoEntry{})
	}
	// A factor's index is a sum over its nodes (partIndex): the part of
	// elim's nodes once per assignment of elim, that of out's as the
	// odometer moves them.
	isElim := make([]bool, len(pr.dom))
	for _, x := range elim {
		isElim[x] = true
	}
	inElim := func(x int) bool { return isElim[x] }
	inOut := func(x int) bool { return !isElim[x] }
	ePart := make([]int, len(with)*nElim)
	for e := range nElim {
		for i, x := range elim {
			pasg[x], asg[x] = ePos[e*len(elim)+i], eAlt[e*len(elim)+i]
		}
		for k := range with {
			ePart[k*nElim+e] = with[k].partIndex(inElim, asg, pasg)
		}
	}
	oPart := make([]int, len(with))
	// The odometer, over each node's classes, at the chunk's first step.
	tuple := make([]int, len(out.vars))
	for t, i := from, len(order)-1; i >= 0; i-- {
		j := order[i]
		n := len(grid.members[j])
		tuple[j] = t % n
		t /= n
	}
	reached := make([]int, len(out.vars)) // forMembers' scratch
	var backing []paretoEntry
	entries := 0
	moved := 0 // the first factor whose front moved since the last entry
	for step := from; step < to; step++ {
		if step&63 == 0 && pr.stopped() {
			break // solve fails: what is left does not matter
		}
		if step > from {
			for i := len(order) - 1; i >= 0; i-- {
				j := order[i]
				moved = keys[j]
				if tuple[j]++; tuple[j] < len(grid.members[j]) {
					break
				}
				tuple[j] = 0
			}
			if !cached {
				moved = 0
			}
		}
		for j, x := range out.vars {
			pasg[x] = grid.members[j][tuple[j]][0]
			asg[x] = pr.dom[x][pasg[x]]
		}
		for k := moved; k < len(with); k++ {
			oPart[k] = with[k].partIndex(inOut, asg, pasg)
		}
		sc.merged = sc.merged[:0]
		for e := range nElim {
			pre := sc.prefix[0]
			if cached {
				pre = sc.prefix[e]
			}
			for k := moved; k < len(with); k++ {
				if len(pre[k]) == 0 {
					pre[k+1] = pre[k+1][:0]
					continue
				}
				pre[k+1] = sc.convolve(pre[k+1][:0], pre[k], with[k].front(oPart[k]+ePart[k*nElim+e]), pr.limit)
			}
			if acc := pre[len(with)]; len(acc) > 0 {
				sc.spare = mergeFronts(sc.spare[:0], sc.merged, acc)
				sc.merged, sc.spare = sc.spare, sc.merged
			}
		}
		if len(sc.merged) == 0 {
			continue
		}
		if len(backing)+len(sc.merged) > cap(backing) {
			// At first a few entries for each of the chunk's (a chain's
			// tables are of a few entries: 1,024 each took 16 KB for
			// each of a 50,000-node kernel's messages), then doubling.
			backing = make([]paretoEntry, 0, max(min(1024, 4*(to-from)), 2*cap(backing), len(sc.merged)))
		}
		start := len(backing)
		backing = append(backing, sc.merged...)
		front := backing[start:len(backing):len(backing)]
		grid.forMembers(tuple, out.dims, reached, func(idx int) {
			out.lists[idx] = front
			entries += len(front)
		})
		if maxEntries > 0 && entries > maxEntries {
			return entries
		}
	}
	return entries
}

// unionPrefixes bounds the assignments of the nodes a unionJoin eliminates
// whose joins' prefixes it keeps.
const unionPrefixes = 256

// unionParallelWork is the least work (entries × assignments eliminated ×
// factors) a unionJoin splits among goroutines (a variable for tests).
var unionParallelWork = 4096

// frontScratch is the program's scratch: the running product of a bucket's
// fronts (two buffers, in turn), the running union over the eliminated
// node's alternatives (two more), and convolve's (two more).
type frontScratch struct {
	acc, next, merged, spare []paretoEntry
	cur, union               []paretoEntry
	// unionJoin's: the joins' prefixes by assignment of the nodes
	// eliminated, and message's node.
	prefix [][][]paretoEntry
	elim   []int
}

// product is the front of the sum of the factors' entries at asg (pasg
// for the factors over positions), in scratch: valid until the next call.
func (sc *frontScratch) product(factors []pfactor, asg, pasg []int, limit float64) []paretoEntry {
	sc.acc = append(sc.acc[:0], paretoEntry{})
	for i := range factors {
		f := &factors[i]
		at := asg
		if f.pos {
			at = pasg
		}
		sc.next = sc.convolve(sc.next[:0], sc.acc, f.front(f.index(at)), limit)
		sc.acc, sc.next = sc.next, sc.acc
		if len(sc.acc) == 0 {
			break
		}
	}
	return sc.acc
}

// An elimOrder chooses the next node a kernel's program eliminates: the
// one whose table is smallest (the product of the dims of the other nodes
// of the live factors over it), then the lowest. It keeps each node's
// factors and the size of its table, and recomputes only the sizes of the
// nodes a message is over: a scan of every factor for every node at every
// step made one run of the program cubic in the kernel's nodes, and the
// interior, a run per node, quartic (a chain of 250 invocations in one
// group took 13 s to plan).
type elimOrder struct {
	dims []int
	vars [][]int // per factor of the pool, its nodes
	dead []bool  // per factor of the pool: joined into a message
	of   [][]int // per node, the pool's factors over it, ascending (and dead ones, until the node's size is recomputed)
	size []int   // per node, the size of its table
	done []bool  // per node: kept or eliminated
	h    keyHeap // (size, node), with stale entries
	mark []int
	gen  int
}

// newElimOrder starts an order over the factors of a pool, skipping the
// nodes kept (nil: none).
func newElimOrder(factors []pfactor, dims []int, kept []bool) *elimOrder {
	n := len(dims)
	o := &elimOrder{dims: dims, of: make([][]int, n), size: make([]int, n), done: make([]bool, n), mark: make([]int, n)}
	for _, f := range factors {
		o.add(f.vars)
	}
	for i := range n {
		if kept != nil && kept[i] {
			o.done[i] = true
			continue
		}
		o.size[i] = o.tableSize(i)
		o.h = append(o.h, keyed{o.size[i], i})
	}
	o.h.init()
	return o
}

func (o *elimOrder) add(vars []int) {
	f := len(o.vars)
	o.vars = append(o.vars, vars)
	o.dead = append(o.dead, false)
	for _, x := range vars {
		o.of[x] = append(o.of[x], f)
	}
}

// tableSize is the product of the dims of the nodes other than v of the
// live factors over v (1 when there is none), and drops v's dead factors.
func (o *elimOrder) tableSize(v int) int {
	o.gen++
	o.mark[v] = o.gen
	size := 1
	live := o.of[v][:0]
	for _, f := range o.of[v] {
		if o.dead[f] {
			continue
		}
		live = append(live, f)
		for _, x := range o.vars[f] {
			if o.mark[x] != o.gen {
				o.mark[x] = o.gen
				size *= o.dims[x]
			}
		}
	}
	o.of[v] = live
	return size
}

// next is the node to eliminate next and the size of its table; -1 when
// every node is kept or eliminated.
func (o *elimOrder) next() (int, int) {
	for len(o.h) > 0 {
		kv := o.h.pop()
		if !o.done[kv.node] && o.size[kv.node] == kv.size {
			return kv.node, kv.size
		}
	}
	return -1, 0
}

// over is the pool's live factors over v, ascending (the slice is the
// order's own until the next eliminate).
func (o *elimOrder) over(v int) []int {
	live := o.of[v][:0]
	for _, f := range o.of[v] {
		if !o.dead[f] {
			live = append(live, f)
		}
	}
	o.of[v] = live
	return live
}

// eliminate records v's elimination: the factors joined leave the pool and
// the message, over vars, joins it last; the sizes of vars change.
func (o *elimOrder) eliminate(v int, joined, vars []int) {
	o.done[v] = true
	for _, f := range joined {
		o.dead[f] = true
	}
	o.add(vars)
	for _, x := range vars {
		if o.done[x] {
			continue
		}
		if s := o.tableSize(x); s != o.size[x] {
			o.size[x] = s
			o.h.push(keyed{s, x})
		}
	}
}

// scopeOf is the union of the scopes of the factors over v, ascending.
func scopeOf(factors []pfactor, v int) []int {
	var out []int
	for _, f := range factors {
		if slices.Contains(f.vars, v) {
			for _, x := range f.vars {
				if i, found := slices.BinarySearch(out, x); !found {
					out = slices.Insert(out, i, x)
				}
			}
		}
	}
	if len(out) == 0 {
		out = []int{v}
	}
	return out
}

// convolve appends to dst the front of every sum of an entry of a and one
// of b. Each entry x of the shorter front shifts the longer one, which
// stays a front, and the shifted fronts are merged one by one, as they
// are shifted (mergeShifted): no sort.
// The sums are the same numbers in any order, so the front is too.
func (sc *frontScratch) convolve(dst, a, b []paretoEntry, limit float64) []paretoEntry {
	if len(a) == 0 || len(b) == 0 {
		return dst
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 1 {
		return shift(dst, a[0], b, limit)
	}
	sc.cur = sc.cur[:0]
	for _, x := range a {
		sc.union = mergeShifted(sc.union[:0], sc.cur, x, b, limit)
		sc.cur, sc.union = sc.union, sc.cur
	}
	return append(dst, sc.cur...)
}

// shift appends to dst the front b shifted by d, up to the limit: a front
// still.
func shift(dst []paretoEntry, d paretoEntry, b []paretoEntry, limit float64) []paretoEntry {
	for _, y := range b {
		if y.use+d.use > limit {
			break
		}
		dst = append(dst, paretoEntry{y.use + d.use, y.cost + d.cost})
	}
	return dst
}

// bestSum is the least cost of an entry of a plus one of b within the
// limit (+Inf for none).
func bestSum(a, b []paretoEntry, limit float64) float64 {
	return bestSumPlus(a, b, limit, 0)
}

// bestSumPlus is the least (x + plus) + y over entries x of a and y of b
// whose uses sum within limit (+Inf for none): the fronts' uses ascend and
// their costs descend, so for each x the best y is the last that fits,
// found by a pointer that only moves back as x's use grows.
func bestSumPlus(a, b []paretoEntry, limit, plus float64) float64 {
	best := math.Inf(1)
	j := len(b) - 1
	for _, x := range a {
		for j >= 0 && x.use+b[j].use > limit {
			j--
		}
		if j < 0 {
			break
		}
		if c := (x.cost + plus) + b[j].cost; c < best {
			best = c
		}
	}
	return best
}

// mergeFronts appends to out the front of the union of two fronts, in one
// pass.
// mergeShifted is mergeFronts(out, a, shift(nil, d, b, limit)) without
// the shifted copy, the same entries: convolve's inner step, where a
// plan's program spends most of its time. Past the end of either side,
// the other's entries cheaper than the last kept are a suffix of it, and
// go in at once.
func mergeShifted(out, a []paretoEntry, d paretoEntry, b []paretoEntry, limit float64) []paretoEntry {
	// b's entries within the limit once shifted.
	nb := 0
	for nb < len(b) && b[nb].use+d.use <= limit {
		nb++
	}
	i, j := 0, 0
	last := math.Inf(1)
	if len(out) > 0 {
		last = out[len(out)-1].cost
	} else if nb > 0 {
		// a's entries of less use than b's first shifted come first,
		// each cheaper than the one before: in at once.
		first := b[0].use + d.use
		i = sort.Search(len(a), func(k int) bool { return a[k].use >= first })
		if i > 0 {
			out = append(out, a[:i]...)
			last = a[i-1].cost
		}
	}
	for i < len(a) && j < nb {
		y := paretoEntry{b[j].use + d.use, b[j].cost + d.cost}
		var e paretoEntry
		if x := a[i]; x.use < y.use || x.use == y.use && x.cost <= y.cost {
			e, i = x, i+1
		} else {
			e, j = y, j+1
		}
		if e.cost < last {
			out = append(out, e)
			last = e.cost
		}
	}
	for ; i < len(a); i++ {
		if a[i].cost < last {
			return append(out, a[i:]...)
		}
	}
	for ; j < nb; j++ {
		if c := b[j].cost + d.cost; c < last {
			for ; j < nb; j++ {
				out = append(out, paretoEntry{b[j].use + d.use, b[j].cost + d.cost})
			}
			return out
		}
	}
	return out
}

func mergeFronts(out, a, b []paretoEntry) []paretoEntry {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var e paretoEntry
		if j == len(b) || i < len(a) && (a[i].use < b[j].use || a[i].use == b[j].use && a[i].cost <= b[j].cost) {
			e, i = a[i], i+1
		} else {
			e, j = b[j], j+1
		}
		if len(out) == 0 || e.cost < out[len(out)-1].cost {
			out = append(out, e)
		}
	}
	return out
}

func compareFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// fixed is the kernel's least cost with the boundary at tuple tu and the
// interior restricted by pick (node → alternative, -1 free). The boundary
// is kept to the end, as when T was tabulated, so the tables are no larger.
func (k *budgetKernel) fixed(tu []int, pick []int) float64 {
	isBoundary := make([]bool, len(k.nodes))
	asg := make([]int, len(k.nodes))
	for j, li := range k.boundary {
		isBoundary[li], asg[li] = true, tu[j]
	}
	t, ok := k.solve(func(li, a int) bool {
		if isBoundary[li] {
			return a == asg[li]
		}
		return pick[li] < 0 || pick[li] == a
	}, k.boundary)
	if !ok {
		return math.Inf(1)
	}
	return k.best(t.front(t.index(asg)))
}

// solveContracted solves p through its contraction c and states the
// solution in p's terms. Should the contracted problem have no plan, p is
// solved with its rows, whose conflict then explains why.
func solveContracted(ctx context.Context, p *Problem, c *contraction, opt Options, start time.Time) (*Solution, error) {
	interior := make([]bool, c.n)
	for _, k := range c.kernels {
		for _, li := range k.internal {
			interior[k.nodes[li]] = true
		}
	}
	explained := func(v int) bool { return opt.Explain == nil || slices.Contains(opt.Explain, v) }
	inner := opt
	inner.Start = nil // the contracted problem's nodes are others
	inner.Explain = []int{}
	for v := range c.n {
		if !interior[v] && explained(v) {
			inner.Explain = append(inner.Explain, v)
		}
	}
	// The auxiliary nodes' regrets (W) of the kernels with an interior
	// node explained. Where a kernel's tuples far outnumber its interior's
	// alternatives explained, an auxiliary node left in the core would
	// cost a re-solve per tuple: its interior's regrets are then each one
	// solve of the contracted problem instead (directRegrets), and the
	// auxiliary node's are wanted only where it is eliminated.
	// The tables by kernels alike and local node, each built once: kernels
	// alike have one table (the regrets below read them so too), and the
	// 90 layers of a generated fused transformer built each 90 times.
	type tableKey struct {
		alike *budgetKernel
		li    int
	}
	built := map[tableKey]*tupleTable{}
	atTuples := func(k *budgetKernel, li int) []float64 {
		if opt.tableRuns != nil {
			opt.tableRuns.Add(1)
		}
		return k.atTuples(li)
	}
	// directKernel[ki]: kernel ki's interior regrets are answered directly where
	// its auxiliary node stays in the core. Their tables are built only
	// then, after the solve and within the regrets' time limit: built
	// here, for every such kernel, they took 15 s of the 90 distinct fused
	// layers of a generated transformer, whose auxiliary nodes the
	// reduction all eliminates (and whose regrets need none).
	directKernel := make([]bool, len(c.kernels))
	for ki, k := range c.kernels {
		if !slices.ContainsFunc(k.internal, func(li int) bool { return explained(k.nodes[li]) }) {
			continue
		}
		inner.Explain = append(inner.Explain, k.aux)
		if opt.NoRegrets {
			continue
		}
		alts := 0
		for _, li := range k.internal {
			if explained(k.nodes[li]) {
				alts += len(k.unary[li])
			}
		}
		if len(k.tuples) < directTuples*alts {
			continue
		}
		directKernel[ki] = true
		inner.coreUnexplained = append(inner.coreUnexplained, k.aux)
	}
	var q *Problem // kept for directRegrets, where a kernel needs it
	if slices.Contains(directKernel, true) {
		q = c.q
	}
	// Each contracted kernel's auxiliary node and links take about 60,000
	// bucket entries to eliminate (58 M for the 1,000 layers of a fused
	// transformer), so the whole elimination's budget grows with them:
	// past it the contracted problem would go to HiGHS whole.
	inner.wholeExtra = len(c.kernels) * wholePerKernel
	s, err := solve(ctx, c.q, inner, start)
	c.q = nil // from here on only the kernels are needed: let it go
	if errors.Is(err, ErrInfeasible) {
		return solve(ctx, p, opt, start)
	}
	if err != nil {
		return nil, err
	}
	choices := make([]int, c.n)
	for v := range c.n {
		choices[v] = s.Choices[v].Alternative
	}
	// The interiors' choices: node by node, the first alternative that
	// keeps the kernel's optimum at the chosen boundary.
	// The auxiliary nodes' regrets, by kernel (the auxiliary node of
	// kernel i is node c.n + i) and tuple; nil where none.
	auxRegret := make([][]*Regret, len(c.kernels))
	for i := range s.Regrets {
		r := &s.Regrets[i]
		if ki := r.Node - c.n; ki >= 0 {
			if auxRegret[ki] == nil {
				auxRegret[ki] = make([]*Regret, len(c.kernels[ki].tuples))
			}
			auxRegret[ki][r.Alternative] = r
		}
	}
	// Each kernel's interior choices, in parallel, once per kernels alike
	// at one boundary assignment; then their regrets (disjoint entries of
	// choices, regrets gathered in kernel order).
	type readKey struct {
		alike *budgetKernel
		tuple int
	}
	firstOf := map[readKey]int{}
	var distinct []int
	for ki, k := range c.kernels {
		key := readKey{k.alike, s.Choices[k.aux].Alternative}
		if _, seen := firstOf[key]; !seen {
			firstOf[key] = ki
			distinct = append(distinct, ki)
		}
	}
	picks := make([][]int, len(c.kernels))
	forEach(len(distinct), opt.workers(), func(j int) {
		k := c.kernels[distinct[j]]
		picks[distinct[j]] = k.interior(s.Choices[k.aux].Alternative)
	})
	for _, k := range c.kernels {
		pick := picks[firstOf[readKey{k.alike, s.Choices[k.aux].Alternative}]]
		if pick == nil {
			return nil, errors.New("planner: a contracted kernel's interior has no choice at its optimum (a bug)")
		}
		for _, li := range k.internal {
			choices[k.nodes[li]] = pick[li]
		}
	}
	kernelRegrets := make([][]Regret, len(c.kernels))
	if s.explained && !opt.NoRegrets {
		// Many kernels alike share their tables T_{v=a}(β) (atTuples):
		// first each is built once, for the interior nodes explained, in
		// parallel; then each kernel's regrets read them. A table costs
		// several times one run of the program with W, so kernels alike
		// with few Ws apart (wShare) run the program instead.
		deadline := s.regretDeadline
		// The direct kernels' tables, where their auxiliary node stayed in
		// the core.
		var directKeys []tableKey
		for ki, k := range c.kernels {
			if !directKernel[ki] || s.Choices[k.aux].Eliminated {
				continue
			}
			for _, li := range k.internal {
				key := tableKey{k.alike, li}
				if explained(k.nodes[li]) && built[key] == nil {
					built[key] = &tupleTable{}
					directKeys = append(directKeys, key)
				}
			}
		}
		forEach(len(directKeys), opt.workers(), func(i int) {
			if deadline.IsZero() || time.Now().Before(deadline) {
				tt := built[directKeys[i]]
				tt.t, tt.built = atTuples(directKeys[i].alike, directKeys[i].li), true
			}
		})
		// by kernel: T_{v=a}(β) (atTuples), by local node; nil where the
		// kernel's auxiliary node was eliminated, or a table is missing
		// (unproven: past the time limit, or past its limits).
		directTables := make([][][]float64, len(c.kernels))
		unproven := make([]bool, len(c.kernels))
		for ki, k := range c.kernels {
			if !directKernel[ki] || s.Choices[k.aux].Eliminated {
				continue
			}
			tables := make([][]float64, len(k.nodes))
			for _, li := range k.internal {
				if !explained(k.nodes[li]) {
					continue
				}
				if tt := built[tableKey{k.alike, li}]; tt.built && tt.t != nil {
					tables[li] = tt.t
				} else {
					unproven[ki] = true
				}
			}
			if !unproven[ki] {
				directTables[ki] = tables
			}
		}
		// A table serves the kernels alike; one run of the program serves
		// those of them whose Ws differ by a constant (wShare): the
		// tables where those runs are many.
		ws := newWShare(c.kernels, s, auxRegret, explained, !opt.noWShare)
		runs := map[*budgetKernel]int{}
		for ki, k := range c.kernels {
			if ws.rep[ki] == ki {
				runs[k.alike]++
			}
		}
		tables := map[tableKey]*tupleTable{}
		var keys []tableKey
		for _, k := range c.kernels {
			if runs[k.alike] < tablesFrom(k, explained, opt.tableKernels) {
				continue
			}
			for _, li := range k.internal {
				key := tableKey{k.alike, li}
				if explained(k.nodes[li]) && tables[key] == nil {
					if tt := built[key]; tt != nil {
						tables[key] = tt // built above for the direct regrets
						continue
					}
					tables[key] = &tupleTable{}
					keys = append(keys, key)
				}
			}
		}
		forEach(len(keys), opt.workers(), func(i int) {
			if deadline.IsZero() || time.Now().Before(deadline) {
				tt := tables[keys[i]]
				tt.t, tt.built = atTuples(keys[i].alike, keys[i].li), true
			}
		})
		// The kernels whose auxiliary node the core kept unexplained:
		// their interiors' best plans, one solve each.
		var jobs []directJob
		for ki, k := range c.kernels {
			if directTables[ki] == nil || s.Choices[k.aux].Eliminated {
				continue
			}
			for _, li := range k.internal {
				v := k.nodes[li]
				if !explained(v) {
					continue
				}
				for a, alt := range p.Nodes[v].Alternatives {
					if a != choices[v] && alt.Removed == "" {
						jobs = append(jobs, directJob{ki: ki, li: li, a: a})
					}
				}
			}
		}
		direct, err := directRegrets(ctx, q, c, directTables, jobs, opt, s)
		if err != nil {
			return nil, err
		}
		for ki, k := range c.kernels {
			if !unproven[ki] {
				continue
			}
			// No table, and the core has not the auxiliary node's
			// regrets: every interior regret unproven, as a re-solve
			// the limit stops before it finds a plan.
			direct[ki] = make([][2][]float64, len(k.nodes))
			for _, li := range k.internal {
				if explained(k.nodes[li]) {
					n := len(k.unary[li])
					direct[ki][li] = [2][]float64{filled(n, s.Objective), filled(n, math.Inf(1))}
				}
			}
		}
		forEach(len(c.kernels), opt.workers(), func(ki int) {
			k := c.kernels[ki]
			kernelRegrets[ki] = k.regrets(s, auxRegret[ki], choices, explained, func(li int) *tupleTable { return tables[tableKey{k.alike, li}] }, direct[ki], ws, ki)
		})
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			s.regretsTimedOut = true // the limit struck while the kernels' regrets ran
		}
		s.kernelsSharingW = int(ws.shared.Load())
	}
	var regrets []Regret
	for _, rs := range kernelRegrets {
		regrets = append(regrets, rs...)
	}
	ev, err := p.verify(choices, s.Objective)
	if err != nil {
		return nil, err
	}
	s.Objective, s.Execution, s.Conversion = ev.Cost, ev.Execution, ev.Conversion
	s.Groups, s.BudgetUse = ev.Groups, ev.BudgetUse
	// The bound is the contracted problem's, which adds the costs in
	// another order than the verifier: a proven plan's bound may come out
	// an ulp above its objective, which no lower bound may be (solve keeps
	// it at most the objective likewise), or an ulp below it. Where the
	// reduction eliminated the contracted problem whole, the plan is
	// exact and its bound is its objective, as solve has it: a gap of
	// 1e-16 there would be the summation order's, not the proof's.
	if s.Model.CoreNodes == 0 && s.Status == Optimal {
		s.Bound, s.BoundFrom = s.Objective, ""
	} else {
		s.Bound = math.Min(s.Bound, s.Objective)
	}
	s.Gap = gap(s.Objective, s.Bound)
	eliminated := 0
	for v := range c.n {
		ch := &s.Choices[v]
		ch.Alternative = choices[v]
		alt := p.Nodes[v].Alternatives[choices[v]]
		ch.ID, ch.Cost = alt.ID, alt.Cost
		if interior[v] {
			ch.Eliminated = true
		}
		if ch.Eliminated {
			eliminated++
		}
	}
	s.Choices = s.Choices[:c.n]
	if s.explained && !opt.NoRegrets {
		s.Regrets = slices.DeleteFunc(s.Regrets, func(r Regret) bool { return r.Node >= c.n || interior[r.Node] })
		s.Regrets = append(s.Regrets, regrets...)
		if len(s.Regrets) == 0 {
			s.Regrets = nil // no regret: the same as none computed
		}
		slices.SortFunc(s.Regrets, func(x, y Regret) int {
			if x.Node != y.Node {
				return x.Node - y.Node
			}
			return x.Alternative - y.Alternative
		})
	}
	s.Removed = slices.DeleteFunc(s.Removed, func(r Removal) bool { return r.Node >= c.n || interior[r.Node] })
	for v := range c.n {
		if !interior[v] {
			continue
		}
		for a, alt := range p.Nodes[v].Alternatives {
			if alt.Removed != "" {
				s.Removed = append(s.Removed, Removal{Node: v, Alternative: a, ID: alt.ID, Reason: alt.Removed, DominatedBy: -1})
			}
		}
	}
	slices.SortFunc(s.Removed, func(x, y Removal) int {
		if x.Node != y.Node {
			return x.Node - y.Node
		}
		return x.Alternative - y.Alternative
	})
	s.Local = localChoice(p)
	alternatives := 0
	for _, nd := range p.Nodes {
		alternatives += len(nd.Alternatives)
	}
	s.Model.Nodes, s.Model.Alternatives = c.n, alternatives-len(s.Removed)
	s.Model.Eliminated, s.Model.CoreNodes = eliminated, c.n-eliminated
	s.Model.ContractedKernels = len(c.kernels)
	s.Model.Full = fullSize(newInstance(p, opt.KeepDominated))
	s.SolveTime = time.Since(start)
	return s, nil
}

// interior is the kernel's interior choices at its boundary tuple t, by
// local node (nil if none keeps its optimum, a bug): node by node, in the
// order of a depth-first walk of the program's elimination (its last
// bucket first, then each bucket's children in the order they were
// eliminated), the first alternative that keeps the kernel's optimum at t
// with the nodes before it fixed (interiorDecoded). Where a table outgrows
// the limits, or the choices do not keep the optimum (a bug), it is read
// node by node in the kernel's order instead (interiorNodeByNode), one
// run of the program per node: a chain of 1,000 nodes in one group took
// 5.5 s so, and 51 ms decoded. Wherever each node's first alternative by
// its min-marginal alone keeps the optimum together with the others', as
// without ties between plans that differ at several nodes, both orders
// choose it: a node's min-marginal with other nodes fixed is at least its
// min-marginal and, where those others are at these choices, at most
// their cost.
func (k *budgetKernel) interior(t int) []int {
	tu := k.tuple(t)
	target := k.table[t]
	isBoundary := make([]bool, len(k.nodes))
	at := make([]int, len(k.nodes))
	for j, li := range k.boundary {
		isBoundary[li], at[li] = true, tu[j]
	}
	allowed := func(lj, a int) bool { return !isBoundary[lj] || a == at[lj] }
	if pick, _ := k.interiorDecoded(allowed, target); pick != nil {
		for li := range pick {
			if isBoundary[li] {
				pick[li] = -1
			}
		}
		if k.fixed(tu, pick) <= target+objectiveTolerance(target) {
			return pick
		}
	}
	return k.interiorNodeByNode(t)
}

// interiorDecoded chooses every node's alternative among those allowed,
// keeping the kernel's optimum target: one run of the program forward,
// recording its buckets, then their tree walked depth first from the
// last, each bucket's node given the first alternative whose least cost,
// with the nodes chosen before it fixed, is the optimum. That least cost
// is the bucket's factors (the messages of its children, whose nodes are
// not chosen yet, as the program left them) joined with its outside: the
// walk's front at the nodes chosen, the parent's outside and factors but
// this bucket's message, the messages of the siblings walked before it
// taken at their choices and of those after as the program left them.
// nil where a table outgrows the limits or no alternative keeps target;
// order is the nodes in the order chosen.
func (k *budgetKernel) interiorDecoded(allowed func(li, a int) bool, target float64) (pick, order []int) {
	pr := k.prepare(allowed, nil)
	n := len(k.nodes)
	if slices.ContainsFunc(pr.dom, func(d []int) bool { return len(d) == 0 }) {
		return nil, nil
	}
	sc := &frontScratch{}
	asg := make([]int, n)
	pasg := make([]int, n)
	run, ok := sc.record(&pr, asg, pasg)
	if !ok {
		return nil, nil
	}
	pool, buckets, constants := run.pool, run.buckets, run.constants
	// The walk. A factor's front at the nodes chosen: a message whose
	// bucket's subtree is chosen, its front at those choices (one entry).
	chosen := make([][]paretoEntry, len(pool))
	done := make([]bool, len(pool))
	frontAt := func(i int) []paretoEntry {
		if done[i] {
			return chosen[i]
		}
		f := &pool[i]
		if f.pos {
			return f.front(f.index(pasg))
		}
		return f.front(f.index(asg))
	}
	var fronts [][]paretoEntry
	// join is the front of the sum of the factors is (but skip) and
	// extra at the nodes chosen, in scratch (valid until the next call).
	join := func(is []int, skip int, extra []paretoEntry) []paretoEntry {
		fronts = fronts[:0]
		for _, i := range is {
			if i != skip {
				fronts = append(fronts, frontAt(i))
			}
		}
		if extra != nil {
			fronts = append(fronts, extra)
		}
		sc.acc = append(sc.acc[:0], paretoEntry{})
		for _, f := range fronts {
			sc.next = sc.convolve(sc.next[:0], sc.acc, f, pr.limit)
			sc.acc, sc.next = sc.next, sc.acc
			if len(sc.acc) == 0 {
				break
			}
		}
		return sc.acc
	}
	keep := target + objectiveTolerance(target)
	pick = make([]int, n)
	order = make([]int, 0, n)
	var walk func(j int, outside []paretoEntry) bool
	walk = func(j int, outside []paretoEntry) bool {
		b := &buckets[j]
		v, found := b.v, false
		for p, a := range pr.dom[v] {
			asg[v], pasg[v] = a, p
			if bestSum(join(b.inputs, -1, nil), outside, pr.limit) <= keep {
				found = true
				break
			}
		}
		if !found {
			return false
		}
		pick[v] = asg[v]
		order = append(order, v)
		for _, c := range b.children {
			if !walk(c, slices.Clone(join(b.inputs, buckets[c].msg, outside))) {
				return false
			}
		}
		chosen[b.msg], done[b.msg] = slices.Clone(join(b.inputs, -1, nil)), true
		return true
	}
	// The parts of the kernel (the buckets whose message nothing joined,
	// the last first): each one's outside is the others' fronts, the
	// parts walked before at their choices.
	for j := len(buckets) - 1; j >= 0; j-- {
		if buckets[j].parent >= 0 {
			continue
		}
		if !walk(j, slices.Clone(join(constants, buckets[j].msg, nil))) {
			return nil, nil
		}
	}
	return pick, order
}

// interiorNodeByNode is interior read node by node: one run of the
// program per node, with the nodes before it fixed.
func (k *budgetKernel) interiorNodeByNode(t int) []int {
	tu := k.tuple(t)
	target := k.table[t]
	pick := make([]int, len(k.nodes))
	for i := range pick {
		pick[i] = -1
	}
	isBoundary := make([]bool, len(k.nodes))
	at := make([]int, len(k.nodes))
	for j, li := range k.boundary {
		isBoundary[li], at[li] = true, tu[j]
	}
	for _, li := range k.internal {
		v := k.nodes[li]
		// One run with v kept gives every alternative's least cost.
		f, ok := k.solve(func(lj, a int) bool {
			if isBoundary[lj] {
				return a == at[lj]
			}
			return pick[lj] < 0 || pick[lj] == a
		}, []int{li})
		for a, alt := range k.p.Nodes[v].Alternatives {
			if alt.Removed != "" {
				continue
			}
			var val float64
			if ok {
				val = k.best(f.front(a))
			} else {
				pick[li] = a
				val = k.fixed(tu, pick)
			}
			if val <= target+objectiveTolerance(target) {
				pick[li] = a
				break
			}
			pick[li] = -1
		}
		if pick[li] < 0 {
			return nil
		}
	}
	return pick
}

// regrets are the interior's regrets. With W(β) = MM(β) − T(β), where
// MM(β) is the auxiliary node's min-marginal (the best plan whose boundary
// is β; an interval where a time limit left it one), W is the best the
// rest of the graph does around the kernel at β, so node v's best plan
// with alternative a costs min_β W(β) + T_{v=a}(β), where T_{v=a}(β) is the
// kernel's least cost at β with v = a: one run of the program, with v and
// the boundary kept, gives it for every a and β. T_{v=a} is the kernel's
// own, the same for kernels alike: table gives it, by v's local index.
//
// direct, where not nil, gives by local node the best plans' costs with
// each alternative (directRegrets) instead.
func (k *budgetKernel) regrets(s *Solution, aux []*Regret, choices []int, explained func(int) bool, table func(li int) *tupleTable, direct [][2][]float64, ws *wShare, ki int) []Regret {
	opt0 := s.Objective
	wlo, whi, exact := k.wBounds(s, aux)
	// Where no table serves, the program's min-marginals with W as one
	// more table over the boundary (its lower and upper bounds, one where
	// exact) give every interior node's: computed at the first node that
	// needs them (once for the kernels alike whose Ws differ by a
	// constant: wShare).
	var mlo, mhi [][]float64
	tried := false
	withW := func() bool {
		if !tried {
			tried = true
			mlo, mhi = ws.marginals(ki)
		}
		return mlo != nil && mhi != nil
	}
	tol := objectiveTolerance(opt0)
	var out []Regret
	for _, li := range k.internal {
		v := k.nodes[li]
		if !explained(v) {
			continue
		}
		tt := table(li) // nil: run the program with W
		given := direct != nil && direct[li][0] != nil
		if !given && (tt != nil && !tt.built || !s.regretDeadline.IsZero() && time.Now().After(s.regretDeadline)) {
			// Past the regrets' time limit: unproven, as a re-solve the
			// limit stops before it finds a plan.
			for a, alt := range k.p.Nodes[v].Alternatives {
				if a != choices[v] && alt.Removed == "" {
					out = append(out, Regret{Node: v, Alternative: a, ID: alt.ID, DominatedBy: -1, Regret: math.Inf(1)})
				}
			}
			continue
		}
		// lo[a], hi[a]: the best plans with v = a.
		lo := make([]float64, len(k.p.Nodes[v].Alternatives))
		hi := make([]float64, len(lo))
		switch {
		case given:
			copy(lo, direct[li][0])
			copy(hi, direct[li][1])
		case tt != nil && tt.t != nil:
			nt := len(k.tuples)
			for a := range lo {
				lo[a] = minPlus(wlo, tt.t[a*nt:(a+1)*nt])
				if hi[a] = lo[a]; !exact {
					hi[a] = minPlus(whi, tt.t[a*nt:(a+1)*nt])
				}
			}
		case tt == nil && withW():
			copy(lo, mlo[li])
			copy(hi, mhi[li])
		default:
			k.scanTuples(li, s, aux, lo, hi)
		}
		for a, alt := range k.p.Nodes[v].Alternatives {
			if a == choices[v] || alt.Removed != "" {
				continue
			}
			reg := Regret{Node: v, Alternative: a, ID: alt.ID, DominatedBy: -1}
			reg.Regret = math.Max(0, hi[a]-opt0)
			reg.Lower = math.Max(0, math.Min(lo[a]-opt0, reg.Regret))
			if reg.Regret <= tol {
				reg.Regret, reg.Lower, reg.Tie = 0, 0, true
			}
			reg.Exact = reg.Lower == reg.Regret || lo[a] == hi[a]
			if reg.Exact {
				reg.Lower = reg.Regret
			}
			out = append(out, reg)
		}
	}
	return out
}

// directTuples is how many tuples per interior alternative explained a
// kernel has at least for its interior's regrets to be solved directly
// (directRegrets) when its auxiliary node is left in the core: a solve of
// the contracted problem costs a few of the core's re-solves, and the
// auxiliary node's regrets take one per tuple. On the 38-node seed 23 of
// midSizeProblem (4,937 tuples, 94 interior alternatives rejected) the
// regrets took 4,937 MILP re-solves, 67 s on two cores, and 94 solves, 6 s,
// directly.
const directTuples = 8

// A directJob is one interior alternative whose best plan directRegrets
// solves for: alternative a of local node li of kernel ki.
type directJob struct{ ki, li, a int }

// directRegrets gives, by kernel and local node, the best plans' costs
// (lower and upper bounds) with each interior alternative of jobs: the
// contracted problem q with the auxiliary node's cost at β T_{v=a}(β) (from
// tables, by kernel and local node) in place of T(β), solved without
// regrets. Its optimum is the best plan's with v = a: min over β of
// MM(β) − T(β) + T_{v=a}(β).
func directRegrets(ctx context.Context, q *Problem, c *contraction, tables [][][]float64, jobs []directJob, opt Options, s *Solution) ([][][2][]float64, error) {
	out := make([][][2][]float64, len(c.kernels))
	for _, j := range jobs {
		k := c.kernels[j.ki]
		if out[j.ki] == nil {
			out[j.ki] = make([][2][]float64, len(k.nodes))
		}
		if out[j.ki][j.li][0] == nil {
			n := len(k.unary[j.li])
			out[j.ki][j.li] = [2][]float64{filled(n, math.Inf(1)), filled(n, math.Inf(1))}
		}
	}
	if len(jobs) == 0 {
		return out, nil
	}
	o := opt
	o.Explain, o.coreUnexplained, o.NoRegrets, o.Progress = nil, nil, true, nil
	o.RelativeGap, o.AbsoluteGap = 0, 0 // exactly, as the regrets' re-solves
	rctx := ctx
	if !s.regretDeadline.IsZero() {
		var cancel context.CancelFunc
		rctx, cancel = context.WithDeadline(ctx, s.regretDeadline)
		defer cancel()
	}
	errs := make([]error, len(jobs))
	milp := make([]bool, len(jobs))
	forEach(len(jobs), opt.workers(), func(i int) {
		j := jobs[i]
		k := c.kernels[j.ki]
		lo, hi := &out[j.ki][j.li][0][j.a], &out[j.ki][j.li][1][j.a]
		*lo, *hi = s.Objective, math.Inf(1) // unproven
		if opt.RegretSolves > 0 && i >= opt.RegretSolves {
			return // past Options.RegretSolves, in the jobs' order
		}
		o := o
		if !s.regretDeadline.IsZero() {
			left := time.Until(s.regretDeadline)
			if left <= 0 {
				return
			}
			o.TimeLimit = left
		}
		if opt.RegretWork > 0 {
			// By work (Options.RegretWork), the same from run to run: each
			// solve a share of RegretWork times the plan's iterations.
			budget := max(int64(opt.RegretWork*float64(s.iterations)), regretIterationFloor)
			o.iterationLimit = max(budget/int64(min(len(jobs), regretShare)), 1)
		}
		nt := len(k.tuples)
		t := tables[j.ki][j.li][j.a*nt : (j.a+1)*nt]
		qa := *q
		qa.Nodes = slices.Clone(q.Nodes)
		alts := slices.Clone(q.Nodes[k.aux].Alternatives)
		for b := range alts {
			alts[b].Cost = t[b]
			if math.IsInf(t[b], 1) {
				alts[b].Cost, alts[b].Removed = 0, "no interior with this alternative fits the budget"
			}
		}
		qa.Nodes[k.aux].Alternatives = alts
		sol, err := solve(rctx, &qa, o, time.Now())
		switch {
		case errors.Is(err, ErrInfeasible):
			*lo = math.Inf(1)
		case errors.Is(err, ErrNoPlan):
		case err != nil:
			errs[i] = err
		case sol.Status == Optimal && sol.provedTight():
			*lo, *hi = sol.Objective, sol.Objective
		default:
			*lo, *hi = math.Min(math.Max(s.Objective, sol.Bound), sol.Objective), sol.Objective
		}
		milp[i] = err == nil && sol.Model.CoreNodes > 0 && (sol.Search == nil || !sol.Search.Proved)
	})
	if !s.regretDeadline.IsZero() && errors.Is(rctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		s.regretsTimedOut = true
	}
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		if milp[i] {
			s.RegretMILPSolves++
		}
	}
	solved := len(jobs)
	if opt.RegretSolves > 0 && solved > opt.RegretSolves {
		solved = opt.RegretSolves
		s.regretsCapped += len(jobs) - solved
	}
	s.RegretSolves += solved
	return out, nil
}

// tableKernels is the least number of runs of the program with W (one
// per group of kernels alike whose Ws differ by a constant: wShare) for
// which kernels alike read tables T_{v=a}(β) built once instead (atTuples,
// one per interior node explained): a table costs 4 to 15 such runs on
// the generated fused transformers, a layer to a kernel. tableInterior is
// such a kernel's interior: a larger kernel needs more runs in proportion
// (tablesFrom).
const (
	tableKernels  = 16
	tableInterior = 10
)

// tablesFrom is the least number of runs of k's program with W for which
// the kernels alike k read tables: tableKernels (or least, where a test
// sets it) for an interior
// of up to tableInterior nodes explained, and in proportion beyond. With
// three layers to a kernel (gen transformer --layers 99 --kernel-smem
// 49152 --kernel-layers 3, 33 kernels alike), the tables took 1.12 s
// against 0.94 s for the kernels' own runs, and 28.4–29.4 s against
// 19.9–21.0 s with --unfused 1.5 (docs/benchmarks.md, "A sweep of the
// generated families").
func tablesFrom(k *budgetKernel, explained func(v int) bool, least int) int {
	if least > 0 {
		return least
	}
	inner := 0
	for _, li := range k.internal {
		if explained(k.nodes[li]) {
			inner++
		}
	}
	return tableKernels * max(inner, tableInterior) / tableInterior
}

// wFactor is W as a factor over the boundary (no entry where +Inf).
func (k *budgetKernel) wFactor(w []float64) pfactor {
	dims := make([]int, len(k.boundary))
	size := 1
	for i, b := range k.boundary {
		dims[i] = len(k.unary[b])
		size *= dims[i]
	}
	f := newSingle(k.boundary, dims, size)
	for t, idx := range k.tuples {
		if !math.IsInf(w[t], 1) {
			f.single[idx] = paretoEntry{0, w[t]}
		}
	}
	return f
}

// A tupleTable is atTuples' table, once built (nil: past its limits).
type tupleTable struct {
	t     []float64
	built bool
}

// minPlus is min_t w[t] + x[t] (+Inf for none), none of them NaN.
func minPlus(w, x []float64) float64 {
	best := math.Inf(1)
	for t, wt := range w {
		if s := wt + x[t]; s < best {
			best = s
		}
	}
	return best
}

// atTuples is T_{li=a}(β) for every alternative a of interior node li and
// tuple β, at a·|tuples| + β (+Inf where no interior fits the budget), from
// one run of the program with li and the boundary kept; nil where that run
// outgrows its limits.
func (k *budgetKernel) atTuples(li int) []float64 {
	keep := append(slices.Clone(k.boundary), li)
	slices.Sort(keep)
	f, ok := k.solve(nil, keep)
	if !ok {
		return nil
	}
	nt := len(k.tuples)
	out := make([]float64, len(k.unary[li])*nt)
	asg := make([]int, len(k.nodes))
	for t := range k.tuples {
		for j, x := range k.tuple(t) {
			asg[k.boundary[j]] = x
		}
		for a := range k.unary[li] {
			asg[li] = a
			out[a*nt+t] = k.best(f.front(f.index(asg)))
		}
	}
	return out
}

// scanTuples is regrets' fallback where the program with node li kept and
// W outgrows its limits: each alternative a of li, at each tuple
// β in ascending MM(β), costs MM(β) − T(β) + T_{li=a}(β), and as T_{li=a} ≥ T,
// no tuple after one whose MM reaches the best found does better.
func (k *budgetKernel) scanTuples(li int, s *Solution, aux []*Regret, lo, hi []float64) {
	opt0 := s.Objective
	chosen := s.Choices[k.aux].Alternative
	type mm struct {
		t      int
		lo, hi float64
	}
	var order []mm
	for t := range k.tuples {
		e := mm{t: t, lo: opt0, hi: opt0}
		if t != chosen {
			if aux == nil || aux[t] == nil {
				continue
			}
			e.lo, e.hi = opt0+aux[t].Lower, opt0+aux[t].Regret
		}
		order = append(order, e)
	}
	slices.SortStableFunc(order, func(x, y mm) int { return compareFloat(x.lo, y.lo) })
	pick := make([]int, len(k.nodes))
	for a := range lo {
		lo[a], hi[a] = math.Inf(1), math.Inf(1)
		if k.p.Nodes[k.nodes[li]].Alternatives[a].Removed != "" {
			continue
		}
		for i := range pick {
			pick[i] = -1
		}
		pick[li] = a
		for _, e := range order {
			if e.lo >= hi[a] {
				break
			}
			if tv := k.fixed(k.tuple(e.t), pick); !math.IsInf(tv, 1) {
				shift := tv - k.table[e.t]
				lo[a], hi[a] = math.Min(lo[a], e.lo+shift), math.Min(hi[a], e.hi+shift)
			}
		}
	}
}

// useOf is the amount of budget b in uses.
func useOf(uses []Use, b int) float64 {
	s := 0.0
	for _, u := range uses {
		if u.Budget == b {
			s += u.Amount
		}
	}
	return s
}

// forEach calls f(0) … f(n−1) on at most workers goroutines.
func forEach(n, workers int, f func(i int)) {
	workers = max(1, min(workers, n))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// tuple is tuple t's alternative of each boundary node, in boundary order.
func (k *budgetKernel) tuple(t int) []int {
	tu := make([]int, len(k.bdims))
	rest := int(k.tuples[t])
	for j := len(k.bdims) - 1; j >= 0; j-- {
		tu[j] = rest % k.bdims[j]
		rest /= k.bdims[j]
	}
	return tu
}

// numberLabels is each label's number in ids, numbering the labels ids
// does not hold yet after those it does.
func numberLabels(ids map[string]int, ls []string) []int {
	out := make([]int, len(ls))
	for a, l := range ls {
		i, ok := ids[l]
		if !ok {
			i = len(ids)
			ids[l] = i
		}
		out[a] = i
	}
	return out
}

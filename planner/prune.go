package planner

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// A Removal is an alternative excluded before solving.
type Removal struct {
	Node        int
	Alternative int // index into the node's Alternatives
	ID          string
	// Reason is the caller's reason (Alternative.Removed), or, for a
	// dominated alternative, "dominated by ID".
	Reason string
	// DominatedBy is the index of the alternative that dominates this one, or
	// -1 for a removal by the caller.
	DominatedBy int
}

// instance is a validated Problem after the candidate stage: each node's
// domain is its active alternatives (not removed, not dominated), in
// ascending index order, and every group's labels are interned per domain
// position. Tables, terms and the MILP speak domain positions; Solution
// speaks alternative indices.
type instance struct {
	p       *Problem
	domain  [][]int     // node → active alternative indices, ascending
	unary   [][]float64 // node → execution cost per domain position
	groups  []cgroup
	touched []bool // node takes part in a budget row: it stays in the core
	removed []Removal
	// dominant[v][a] is the alternative dominating alternative a of node v,
	// or -1; dominant[v] is nil when v has no dominated alternative.
	dominant [][]int
	empty    []int // nodes left without an alternative, ascending
	// compiledAs[g] is the group whose compilation group g shares (g
	// itself when none): their label maps, pairs and costs are the same.
	compiledAs []int
	// order is the kernel order's levels and rows (order.go), nil without.
	order *orderModel
}

// cgroup is a Group over domain positions.
type cgroup struct {
	producer  int
	consumers []ccons
	// The rest is shared by the groups compiled alike (newInstance): a
	// transformer's ten thousand groups are a few dozen shapes, and a
	// group's own part is a fifth the size of the whole (1.2 MB less to
	// allocate and scan at 10,000 invocations).
	*groupLabels
}

// groupLabels is what groups compiled alike share: their labels and pairs.
type groupLabels struct {
	src     []int     // producer domain position → source label
	sources []string  // source labels, sorted
	targets []string  // target labels, sorted
	cost    []float64 // cost[s*len(targets)+t]; +Inf: not convertible
	uses    [][]Use   // uses[s*len(targets)+t]; nil when no pair uses anything
	hasUses bool
}

type ccons struct {
	node int
	tgt  []int // consumer domain position → target label
}

func (g *cgroup) pair(s, t int) int { return s*len(g.targets) + t }

// newInstance builds the candidate stage of a valid Problem: caller removals,
// then dominance pruning unless keepDominated.
//
// Nodes that share their alternatives and the label slices of their ports
// (a lowered graph's invocations of one task do) are pruned alike: the
// first is pruned and the others share its domain. Groups that share their
// label slices, pairs and domains compile alike too. Nothing shared is
// written after the instance is built.
func newInstance(p *Problem, keepDominated bool) *instance {
	in := &instance{
		p:        p,
		domain:   make([][]int, len(p.Nodes)),
		unary:    make([][]float64, len(p.Nodes)),
		touched:  make([]bool, len(p.Nodes)),
		dominant: make([][]int, len(p.Nodes)),
	}
	// ports[v] lists the label slices of v: a producer's sources and a
	// consumer's targets, in group order.
	// They are cut from one array.
	ports := make([][][]string, len(p.Nodes))
	count := make([]int, len(p.Nodes))
	all := 0
	for _, g := range p.Groups {
		count[g.Producer]++
		for _, c := range g.Consumers {
			count[c.Node]++
		}
		all += 1 + len(g.Consumers)
	}
	backing := make([][]string, all)
	for v, c := range count {
		ports[v], backing = backing[:0:c], backing[c:]
	}
	for _, g := range p.Groups {
		ports[g.Producer] = append(ports[g.Producer], g.Sources)
		for _, c := range g.Consumers {
			ports[c.Node] = append(ports[c.Node], c.Targets)
		}
	}
	pruned := map[nodeShape]int{} // → the first node of the shape
	var liveBuf []int
	for v, n := range p.Nodes {
		// live is scratch: a node that keeps it as its domain gets a copy
		// (prune's result is its own).
		live := liveBuf[:0]
		for a, alt := range n.Alternatives {
			if alt.Removed != "" {
				in.removed = append(in.removed, Removal{Node: v, Alternative: a, ID: alt.ID, Reason: alt.Removed, DominatedBy: -1})
				continue
			}
			live = append(live, a)
			if uses(alt.Uses) {
				in.touched[v] = true
			}
		}
		liveBuf = live
		shape, ok := shapeOfNode(n.Alternatives, ports[v])
		if u, seen := pruned[shape]; ok && seen {
			in.domain[v], in.unary[v], in.dominant[v] = in.domain[u], in.unary[u], in.dominant[u]
			for _, a := range live {
				if d := in.dominatedBy(v, a); d >= 0 {
					in.removed = append(in.removed, Removal{Node: v, Alternative: a, ID: n.Alternatives[a].ID,
						Reason: "dominated by " + n.Alternatives[d].ID, DominatedBy: d})
				}
			}
			if len(in.domain[v]) == 0 {
				in.empty = append(in.empty, v)
			}
			continue
		} else if ok {
			pruned[shape] = v
		}
		if keepDominated {
			live = slices.Clone(live)
		} else {
			live = in.prune(v, live, ports[v])
		}
		if len(live) == 0 {
			in.empty = append(in.empty, v)
		}
		in.domain[v] = live
		in.unary[v] = make([]float64, len(live))
		for k, a := range live {
			in.unary[v][k] = n.Alternatives[a].Cost
		}
	}
	slices.SortFunc(in.removed, func(x, y Removal) int {
		return cmp.Or(cmp.Compare(x.Node, y.Node), cmp.Compare(x.Alternative, y.Alternative))
	})
	in.groups = make([]cgroup, len(p.Groups))
	// Groups of one shape compile once; the others copy the first with
	// their own producer and consumer nodes.
	first := make([]int, len(p.Groups)) // → the group compiled for it
	in.compiledAs = first
	var compile []int
	shapes := map[groupShape]int{}
	for gi, g := range p.Groups {
		first[gi] = gi
		shape, ok := in.shapeOfGroup(g)
		if f, seen := shapes[shape]; ok && seen {
			first[gi] = f
			continue
		} else if ok {
			shapes[shape] = gi
		}
		compile = append(compile, gi)
	}
	// Groups compile independently: in parallel chunks.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(compile)/1024))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < len(compile); k += workers {
				gi := compile[k]
				in.groups[gi] = in.compileGroup(p.Groups[gi])
			}
		}()
	}
	wg.Wait()
	// The copies' consumers are cut from one array.
	nc := 0
	for gi, g := range p.Groups {
		if first[gi] != gi {
			nc += len(g.Consumers)
		}
	}
	consumers := make([]ccons, nc)
	for gi, g := range p.Groups {
		if f := first[gi]; f != gi {
			cg := in.groups[f]
			cg.producer = g.Producer
			cg.consumers, consumers = consumers[:len(g.Consumers):len(g.Consumers)], consumers[len(g.Consumers):]
			for ci, c := range g.Consumers {
				cg.consumers[ci] = ccons{node: c.Node, tgt: in.groups[f].consumers[ci].tgt}
			}
			in.groups[gi] = cg
		}
	}
	for gi, g := range p.Groups {
		if in.groups[gi].hasUses {
			in.touched[g.Producer] = true
			for _, c := range g.Consumers {
				in.touched[c.Node] = true
			}
		}
	}
	in.order = compileOrder(in)
	return in
}

// maxShape is the most ports of a node, or consumers of a group, whose
// shape is looked up; larger ones are pruned or compiled on their own.
const maxShape = 4

// A slice is a slice's identity: its first element and length.
type slice[T any] struct {
	first *T
	n     int
}

func sliceOf[T any](s []T) slice[T] {
	if len(s) == 0 {
		return slice[T]{}
	}
	return slice[T]{&s[0], len(s)}
}

// A nodeShape is what pruning reads of a node: its alternatives and the
// label slices of its ports, by identity.
type nodeShape struct {
	alternatives slice[Alternative]
	ports        [maxShape]slice[string]
	n            int
}

func shapeOfNode(alts []Alternative, ports [][]string) (nodeShape, bool) {
	if len(ports) > maxShape || len(alts) == 0 {
		return nodeShape{}, false
	}
	sh := nodeShape{alternatives: sliceOf(alts), n: len(ports)}
	for i, l := range ports {
		sh.ports[i] = sliceOf(l)
	}
	return sh, true
}

// A groupShape is what compileGroup reads of a group, by identity: the
// producer's labels and domain, each consumer's, and the pairs.
type groupShape struct {
	sources   slice[string]
	domain    slice[int]
	pairs     slice[Pair]
	targets   [maxShape]slice[string]
	domains   [maxShape]slice[int]
	consumers int
}

func (in *instance) shapeOfGroup(g Group) (groupShape, bool) {
	if len(g.Consumers) > maxShape {
		return groupShape{}, false
	}
	sh := groupShape{sources: sliceOf(g.Sources), domain: sliceOf(in.domain[g.Producer]), pairs: sliceOf(g.Pairs), consumers: len(g.Consumers)}
	for i, c := range g.Consumers {
		sh.targets[i], sh.domains[i] = sliceOf(c.Targets), sliceOf(in.domain[c.Node])
	}
	return sh, true
}

// uses reports whether any amount is positive.
func uses(us []Use) bool {
	return slices.ContainsFunc(us, func(u Use) bool { return u.Amount > 0 })
}

// prune removes dominated alternatives of node v: b is dominated by a when
// they carry the same label on every port of v and the same resource uses,
// and a costs less, or the same with a lower index. Within each class of
// alternatives that agree on labels and uses, only the cheapest (lowest
// index on ties) survives, and a plan using a dominated b costs exactly
// cost(b) − cost(a) more than the same plan with a, with the same resources:
// pruning keeps the optimum and makes b's regret exact by that shift.
func (in *instance) prune(v int, live []int, ports [][]string) []int {
	alts := in.p.Nodes[v].Alternatives
	if in.p.usesFrom != nil {
		// The same IDs and costs, with the uses of the budgets dropped.
		alts = in.p.usesFrom.Nodes[v].Alternatives
	}
	same := func(a, b int) bool {
		for _, labels := range ports {
			if labels[a] != labels[b] {
				return false
			}
		}
		return sameUses(alts[a].Uses, alts[b].Uses)
	}
	// rep[k] is the cheapest (lowest index on ties) alternative of live[k]'s class.
	rep := make([]int, len(live))
	if len(live) > pruneHashFrom {
		in.classesByKey(alts, live, ports, rep)
	} else {
		in.classesPairwise(alts, live, same, rep)
	}
	var kept []int
	for k, a := range live {
		if d := rep[k]; d != a {
			in.removed = append(in.removed, Removal{Node: v, Alternative: a, ID: alts[a].ID,
				Reason: "dominated by " + alts[d].ID, DominatedBy: d})
			if in.dominant[v] == nil {
				in.dominant[v] = make([]int, len(alts))
				for i := range in.dominant[v] {
					in.dominant[v][i] = -1
				}
			}
			in.dominant[v][a] = d
			continue
		}
		kept = append(kept, a)
	}
	return kept
}

// sameUses reports whether two use lists take the same amount of every
// budget (a missing budget takes 0).
// pruneHashFrom is the number of alternatives from which prune finds
// classes by hashing their labels and uses rather than pairwise: a
// contracted kernel's node has thousands (contract.go).
const pruneHashFrom = 32

// classesPairwise sets rep by comparing each alternative with the classes
// found before it.
func (in *instance) classesPairwise(alts []Alternative, live []int, same func(a, b int) bool, rep []int) {
	for k, a := range live {
		rep[k] = a
		for j := range k {
			if rep[j] == live[j] && same(live[j], a) {
				if alts[a].Cost < alts[live[j]].Cost {
					// a is cheaper than the class's representative so far: it takes over.
					for i := range k {
						if rep[i] == live[j] {
							rep[i] = a
						}
					}
				} else {
					rep[k] = live[j]
				}
				break
			}
		}
	}
}

// classesByKey sets rep as classesPairwise does, in one pass: alternatives
// are alike when their keys (every port's label, then the uses as sameUses
// reads them) are equal.
func (in *instance) classesByKey(alts []Alternative, live []int, ports [][]string, rep []int) {
	keys := make([]string, len(live))
	first := make(map[string]int, len(live)) // key → the class's cheapest so far
	var key []byte
	for k, a := range live {
		key = key[:0]
		for _, labels := range ports {
			key = strconv.AppendInt(key, int64(len(labels[a])), 10)
			key = append(key, ':')
			key = append(key, labels[a]...)
		}
		if u, ok := usesKey(alts[a].Uses); ok {
			key = append(key, u...)
		} else {
			// Uses that sameUses finds unlike any list, itself included.
			key = append(key, '#')
			key = strconv.AppendInt(key, int64(a), 10)
		}
		keys[k] = string(key)
		if r, seen := first[keys[k]]; !seen || alts[a].Cost < alts[r].Cost {
			first[keys[k]] = a
		}
	}
	for k := range live {
		rep[k] = first[keys[k]]
	}
}

// usesKey encodes uses as sameUses compares them: per budget, ascending,
// its amount where not 0. It fails where a budget appears twice with
// different amounts (sameUses then finds the list unlike every list).
func usesKey(uses []Use) (string, bool) {
	amounts := map[int]float64{}
	for _, u := range uses {
		if x, ok := amounts[u.Budget]; ok && x != u.Amount {
			return "", false
		}
		amounts[u.Budget] = u.Amount
	}
	budgets := make([]int, 0, len(amounts))
	for b, x := range amounts {
		if x != 0 {
			budgets = append(budgets, b)
		}
	}
	slices.Sort(budgets)
	var out []byte
	for _, b := range budgets {
		out = append(out, '|')
		out = strconv.AppendInt(out, int64(b), 10)
		out = append(out, '=')
		out = strconv.AppendUint(out, math.Float64bits(amounts[b]), 16)
	}
	return string(out), true
}

func sameUses(x, y []Use) bool {
	amount := func(us []Use, b int) float64 {
		for _, u := range us {
			if u.Budget == b {
				return u.Amount
			}
		}
		return 0
	}
	for _, u := range x {
		if amount(y, u.Budget) != u.Amount {
			return false
		}
	}
	for _, u := range y {
		if amount(x, u.Budget) != u.Amount {
			return false
		}
	}
	return true
}

// compileGroup interns a group's labels over the domains. Label sets are
// small: slices with linear search beat maps here.
func (in *instance) compileGroup(g Group) cgroup {
	cg := cgroup{producer: g.Producer, groupLabels: &groupLabels{}}
	for _, a := range in.domain[g.Producer] {
		cg.sources = addLabel(cg.sources, g.Sources[a])
	}
	for _, c := range g.Consumers {
		for _, a := range in.domain[c.Node] {
			cg.targets = addLabel(cg.targets, c.Targets[a])
		}
	}
	slices.Sort(cg.sources)
	slices.Sort(cg.targets)
	cg.src = make([]int, len(in.domain[g.Producer]))
	for k, a := range in.domain[g.Producer] {
		cg.src[k] = slices.Index(cg.sources, g.Sources[a])
	}
	for _, c := range g.Consumers {
		cc := ccons{node: c.Node, tgt: make([]int, len(in.domain[c.Node]))}
		for k, a := range in.domain[c.Node] {
			cc.tgt[k] = slices.Index(cg.targets, c.Targets[a])
		}
		cg.consumers = append(cg.consumers, cc)
	}
	ns, nt := len(cg.sources), len(cg.targets)
	cg.cost = make([]float64, ns*nt)
	for i := range cg.cost {
		cg.cost[i] = math.Inf(1)
	}
	for _, pr := range g.Pairs {
		s, t := slices.Index(cg.sources, pr.Source), slices.Index(cg.targets, pr.Target)
		if s < 0 || t < 0 {
			continue
		}
		i := cg.pair(s, t)
		cg.cost[i] = pr.Cost
		if !math.IsInf(pr.Cost, 1) && uses(pr.Uses) {
			if cg.uses == nil {
				cg.uses = make([][]Use, ns*nt)
			}
			cg.uses[i] = pr.Uses
			cg.hasUses = true
		}
	}
	return cg
}

func addLabel(labels []string, l string) []string {
	if slices.Contains(labels, l) {
		return labels
	}
	return append(labels, l)
}

// pairUses are the uses of pair p; nil when none.
func (g *cgroup) pairUses(p int) []Use {
	if g.uses == nil {
		return nil
	}
	return g.uses[p]
}

// dominatedBy is the alternative dominating alternative a of node v, or -1.
func (in *instance) dominatedBy(v, a int) int {
	if in.dominant[v] == nil {
		return -1
	}
	return in.dominant[v][a]
}

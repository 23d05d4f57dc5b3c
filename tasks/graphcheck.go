package tasks

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

func (v *validator) invocations() {
	s := v.spec
	g := v.g
	if len(s.Invocations) > v.lim.Invocations {
		v.d.Report(root.Key("invocations"), jsonv.Limit, "%d invocations, more than the limit of %d", len(s.Invocations), v.lim.Invocations)
		return
	}
	// Names every invocation can see, to report a name unknown to all once.
	known := maps.Clone(g.sizes)
	for _, inv := range s.Invocations {
		for k, n := range inv.Sizes {
			known[k] = n
		}
	}
	globallyUnknown := map[string]bool{}
	// usedBy[task] are the sizes its multiplicities name; usedAny, any
	// task's.
	usedBy := map[*Task]map[string]bool{}
	usedAny := map[string]bool{}
	for _, t := range g.tasks {
		tp := root.Key("tasks").Key(t.Name)
		used := map[string]bool{}
		usedBy[t] = used
		for _, a := range t.Alternatives {
			ap := tp.Key("alternatives").Index(a.Index)
			check := func(p jsonv.Path, e Expr) {
				for _, name := range e.names {
					used[name], usedAny[name] = true, true
					if _, ok := known[name]; !ok {
						globallyUnknown[name] = true
						v.d.Report(p, CodeMultiplicity, "multiplicity %q uses the unknown size %q (sizes: %s)", e.Source(), name, strings.Join(sortedKeys(known), ", "))
					}
				}
			}
			check(ap.Key("multiplicity"), a.Multiplicity)
			for i := range a.Bindings {
				if b := &a.Bindings[i]; b.Multiplicity.root != a.Multiplicity.root {
					check(ap.Key("ports").Key(b.Port.Name).Key("multiplicity"), b.Multiplicity)
				}
			}
		}
	}
	// A size nothing uses changes nothing: often a misspelt one, whose
	// intended multiplicity then reads another.
	for _, name := range sortedKeys(s.Sizes) {
		if !usedAny[name] {
			v.d.Warn(root.Key("sizes").Key(name), CodeUnusedSize, "size %s is used by no task's multiplicity: it changes nothing", name)
		}
	}
	for i, is := range s.Invocations {
		p := func() jsonv.Path { return root.Key("invocations").Index(i) } // built only to report
		inv := &Invocation{Index: i, ID: is.ID, Pin: slices.Clone(is.Pin), Forbid: slices.Clone(is.Forbid)}
		if is.ID == "" {
			v.d.Report(p().Key("id"), jsonv.Missing, "invocation %d has no id", i)
		} else {
			if !indexspace.IsIdent(is.ID) {
				v.checkName(p().Key("id"), is.ID)
			}
			if prev, dup := g.invByID[is.ID]; dup {
				v.d.Report(p().Key("id"), jsonv.DuplicateName, "invocation id %q is also invocations[%d]", is.ID, prev.Index)
			} else {
				g.invByID[is.ID] = inv
			}
		}
		g.invocations = append(g.invocations, inv)
		if len(is.Sizes) > 0 {
			v.checkSizes(p().Key("sizes"), is.Sizes)
		}
		inv.Sizes = g.sizes // shared, read-only, unless the invocation binds its own
		if len(is.Sizes) > 0 {
			inv.Sizes = maps.Clone(g.sizes)
			for k, n := range is.Sizes {
				inv.Sizes[k] = n
			}
		}
		t := g.taskByName[is.Task]
		if t == nil {
			if is.Task == "" {
				v.d.Report(p().Key("task"), jsonv.Missing, "invocation %s names no task", is.ID)
			} else if _, declared := s.Tasks[is.Task]; !declared {
				v.d.Report(p().Key("task"), jsonv.UnknownName, "unknown task %q", is.Task)
			}
			continue
		}
		inv.Task = t
		for _, name := range sortedKeys(is.Sizes) {
			if !usedBy[t][name] {
				v.d.Warn(p().Key("sizes").Key(name), CodeUnusedSize, "size %s is used by no multiplicity of task %s: it changes nothing for this invocation", name, t.Name)
			}
		}
		// Sets of the pinned and forbidden ids: a list as long as a
		// hostile file makes it is checked in linear time.
		var pinned, forbidden map[string]bool
		if len(is.Pin) > 0 {
			pinned = make(map[string]bool, min(len(is.Pin), len(t.Alternatives)))
		}
		if len(is.Forbid) > 0 {
			forbidden = make(map[string]bool, min(len(is.Forbid), len(t.Alternatives)))
		}
		for j, id := range is.Pin {
			if t.Alternative(id) == nil {
				v.d.Report(p().Key("pin").Index(j), jsonv.UnknownName, "task %s has no alternative %q (it has %s)", t.Name, id, t.alternativeNames())
			}
			if pinned[id] {
				v.d.Report(p().Key("pin").Index(j), jsonv.DuplicateName, "alternative %s is pinned twice", id)
			}
			pinned[id] = true
		}
		for j, id := range is.Forbid {
			if t.Alternative(id) == nil {
				v.d.Report(p().Key("forbid").Index(j), jsonv.UnknownName, "task %s has no alternative %q (it has %s)", t.Name, id, t.alternativeNames())
			}
			if forbidden[id] {
				v.d.Report(p().Key("forbid").Index(j), jsonv.DuplicateName, "alternative %s is forbidden twice", id)
			}
			forbidden[id] = true
			if pinned[id] {
				v.d.Report(p().Key("forbid").Index(j), CodePin, "alternative %s is both pinned and forbidden", id)
			}
		}
		// The candidates and their port multiplicities are cut from one
		// array each, sized for every alternative: a large graph's
		// invocations allocate a few times each, not per alternative.
		nb := 0
		for _, a := range t.Alternatives {
			nb += len(a.Bindings)
		}
		cands, mults := make([]Candidate, 0, len(t.Alternatives)), make([]int64, nb)
		inv.Candidates = make([]*Candidate, 0, len(t.Alternatives))
		for _, a := range t.Alternatives {
			if len(is.Pin) > 0 && !pinned[a.ID] || forbidden[a.ID] {
				continue
			}
			pm := mults[:len(a.Bindings):len(a.Bindings)]
			mults = mults[len(a.Bindings):]
			if c, ok := v.candidate(p, inv, a, globallyUnknown, pm); ok {
				cands = append(cands, c)
				inv.Candidates = append(inv.Candidates, &cands[len(cands)-1])
			}
		}
		if len(t.Alternatives) > 0 && len(inv.Candidates) == 0 && (len(is.Pin) > 0 || len(is.Forbid) > 0) {
			v.d.Report(p(), CodePin, "pins and forbids leave invocation %s no alternative of %s", is.ID, t.Name)
		}
		runs := false
		for _, c := range inv.Candidates {
			if ok, _ := g.target.CanRun(c.Alternative); ok {
				runs = true
			}
		}
		if len(inv.Candidates) > 0 && !runs && g.target.Name != "" {
			v.d.Warn(p(), CodeUnrunnable, "no allowed alternative of %s runs on target %s", t.Name, g.target.Name)
		}
	}
}

// candidate evaluates an alternative's multiplicities under an invocation's
// sizes, the ports' into pm (one per binding). Names unknown to every
// invocation were reported at the alternative.
func (v *validator) candidate(p func() jsonv.Path, inv *Invocation, a *Alternative, skip map[string]bool, pm []int64) (Candidate, bool) {
	lookup := func(name string) (int64, bool) { n, ok := inv.Sizes[name]; return n, ok }
	ok := true
	eval := func(what string, e Expr) int64 {
		for _, name := range e.names {
			if skip[name] || v.badSizes[name] {
				ok = false
				return 0
			}
		}
		n, err := e.Eval(lookup)
		if err != nil {
			code := CodeMultiplicity
			if ee, isExpr := err.(*ExprError); isExpr && ee.Kind == ExprOverflow {
				code = CodeOverflow
			}
			v.d.Wrap(p(), code, fmt.Errorf("alternative %s, %s: %w", a.ID, what, err))
			ok = false
			return 0
		}
		if n < 1 {
			v.d.Report(p(), CodeMultiplicity, "alternative %s, %s: multiplicity %q is %d under this invocation's sizes; it must be at least 1", a.ID, what, e.Source(), n)
			ok = false
		}
		return n
	}
	c := Candidate{Invocation: inv, Alternative: a, PortMultiplicity: pm}
	c.Multiplicity = eval("multiplicity", a.Multiplicity)
	for i := range a.Bindings {
		b := &a.Bindings[i]
		if b.Multiplicity.root == a.Multiplicity.root {
			c.PortMultiplicity[i] = c.Multiplicity
		} else {
			c.PortMultiplicity[i] = eval("port "+b.Port.Name, b.Multiplicity)
		}
	}
	return c, ok
}

func (v *validator) endpoint(path func() jsonv.Path, ref string) (Endpoint, bool) {
	id, port, found := strings.Cut(ref, ".")
	if !found || id == "" || port == "" {
		v.d.Report(path(), jsonv.Invalid, "endpoint %q: want invocation.port", ref)
		return Endpoint{}, false
	}
	inv := v.g.invByID[id]
	if inv == nil {
		v.d.Report(path(), jsonv.UnknownName, "unknown invocation %q", id)
		return Endpoint{}, false
	}
	if inv.Task == nil {
		return Endpoint{}, false
	}
	pt := inv.Task.Port(port)
	if pt == nil {
		v.d.Report(path(), jsonv.UnknownName, "task %s (invocation %s) has no port %q (it has %s)", inv.Task.Name, id, port, inv.Task.portNames())
		return Endpoint{}, false
	}
	return Endpoint{inv, pt}, true
}

func (v *validator) edges() {
	s := v.spec
	g := v.g
	if len(s.Edges) > v.lim.Edges {
		v.d.Report(root.Key("edges"), jsonv.Limit, "%d edges, more than the limit of %d", len(s.Edges), v.lim.Edges)
		return
	}
	fed := make(map[Endpoint]int, len(s.Edges))
	failed := map[string]bool{} // endpoints of edges with problems
	for i, es := range s.Edges {
		p := func() jsonv.Path { return root.Key("edges").Index(i) } // built only to report
		from, okFrom := v.endpoint(func() jsonv.Path { return p().Key("from") }, es.From)
		to, okTo := v.endpoint(func() jsonv.Path { return p().Key("to") }, es.To)
		if es.Kernel != MayShareKernel && es.Kernel != MustCrossKernel {
			v.d.Report(p().Key("kernel"), jsonv.Invalid, "invalid kernel requirement %d", es.Kernel)
		}
		if !okFrom || !okTo {
			failed[es.From], failed[es.To] = true, true
			continue
		}
		e := &Edge{Index: len(g.edges), From: from, To: to, Kernel: es.Kernel}
		// A port without a valid direction was reported at its task.
		ok := from.Port.Direction == Out && to.Port.Direction == In
		if from.Port.Direction == In {
			v.d.Report(p().Key("from"), CodeDirection, "%s is an input port: an edge starts at an output", es.From)
		}
		if to.Port.Direction == Out {
			v.d.Report(p().Key("to"), CodeDirection, "%s is an output port: an edge ends at an input", es.To)
		}
		if from.Port.IsMemory() != to.Port.IsMemory() {
			v.d.Report(p(), CodeBinding, "edge joins a memory port and a register port (%s → %s)", es.From, es.To)
			ok = false
		}
		// A port without a valid element type is reported where it is
		// declared, not again on each of its edges.
		if from.Port.Element != to.Port.Element && from.Port.Element != storage.InvalidElement && to.Port.Element != storage.InvalidElement {
			v.d.Report(p(), CodeElementMismatch, "producer element %s does not match consumer element %s (%s → %s)", from.Port.Element, to.Port.Element, es.From, es.To)
		}
		if prev, dup := fed[to]; dup && to.Port.Direction == In {
			v.d.Report(p().Key("to"), CodeFedTwice, "input %s is already fed by edges[%d]", es.To, prev)
			ok = false
		} else {
			fed[to] = i
		}
		var corresponds bool
		if e.Rename, corresponds = v.rename(p, e, es.Rename); !corresponds {
			ok = false
		}
		if !ok {
			failed[es.From], failed[es.To] = true, true
			continue
		}
		g.edges = append(g.edges, e)
		from.Invocation.Out = append(from.Invocation.Out, e)
		to.Invocation.In = append(to.Invocation.In, e)
	}
	// By port index: an edge of inv leaves it, enters it (one search of
	// inv's edges per port was quadratic in a task's ports).
	var leaves, enters []bool
	for _, inv := range g.invocations {
		if inv.Task == nil || g.invByID[inv.ID] != inv {
			// (A duplicate id or none, reported: the edges that name the
			// id are the first invocation's, and no edge can name none,
			// so its ports' want of edges is no news.)
			continue
		}
		n := len(inv.Task.Ports)
		leaves = slices.Grow(leaves[:0], n)[:n]
		enters = slices.Grow(enters[:0], n)[:n]
		clear(leaves)
		clear(enters)
		for _, e := range inv.Out {
			leaves[e.From.Port.Index] = true
		}
		for _, e := range inv.In {
			enters[e.To.Port.Index] = true
		}
		for _, port := range inv.Task.Ports {
			if port.IsMemory() || len(failed) > 0 && failed[inv.ID+"."+port.Name] {
				continue // the graph's inputs and outputs in memory; ports of edges with problems
			}
			if port.Direction == Out && !leaves[port.Index] {
				v.d.Warn(root.Key("invocations").Index(inv.Index), CodeUnconsumed, "output %s.%s is consumed by no edge", inv.ID, port.Name)
			}
			if port.Direction == In && !enters[port.Index] {
				v.d.Warn(root.Key("invocations").Index(inv.Index), CodeUnfed, "input %s.%s is fed by no edge: it is taken to arrive in the chosen realization", inv.ID, port.Name)
			}
		}
	}
	// A producer that emits more tiles than its consumer reads, whichever
	// alternatives run, pays its conversion for every tile it emits: the
	// mark of a port multiplicity left at the alternative's (an
	// accumulator's output counted once per K step).
	for _, e := range g.edges {
		fc, tc := e.From.Invocation.Candidates, e.To.Invocation.Candidates
		if len(fc) == 0 || len(tc) == 0 {
			continue
		}
		least, most := int64(math.MaxInt64), int64(0)
		for _, c := range fc {
			least = min(least, c.PortMultiplicity[e.From.Port.Index])
		}
		for _, c := range tc {
			most = max(most, c.PortMultiplicity[e.To.Port.Index])
		}
		if least > most {
			v.d.Warn(root.Key("edges").Index(e.Index), CodeTileCount,
				"%s.%s emits at least %d tiles and %s.%s reads at most %d: every tile emitted is converted (a port multiplicity, such as an accumulator's, left at its alternative's?)",
				e.From.Invocation.ID, e.From.Port.Name, least, e.To.Invocation.ID, e.To.Port.Name, most)
		}
	}
}

// rename checks an edge's renaming and the tile correspondence it makes, and
// returns the renaming (nil for none) and whether the tiles correspond.
func (v *validator) rename(path func() jsonv.Path, e *Edge, rename map[string]string) (distribution.Rename, bool) {
	src, dst := e.From.Port.axes, e.To.Port.axes
	if len(src) == 0 || len(dst) == 0 {
		return nil, false // the port's tile was reported
	}
	ends := fmt.Sprintf("%s.%s → %s.%s", e.From.Invocation.ID, e.From.Port.Name, e.To.Invocation.ID, e.To.Port.Name)
	if len(rename) == 0 {
		if !sameAxes(src, dst) {
			v.d.Report(path(), CodeTileMismatch, "producer tile %s does not match consumer tile %s (%s)%s", axesText(src), axesText(dst), ends, renameHint(src, dst))
			return nil, false
		}
		return nil, true
	}
	ok := true
	full := map[string]string{}
	for _, a := range src {
		full[a.name] = a.name
	}
	seen := map[string]string{}
	for _, k := range sortedKeys(rename) {
		to := rename[k]
		if !indexspace.IsIdent(to) {
			v.d.Report(path().Key("rename").Key(k), jsonv.Invalid, "axis %s renamed to %q, not an axis name (letters, digits, _)", k, to)
			ok = false
			continue
		}
		if !slices.ContainsFunc(src, func(a axis) bool { return a.name == k }) {
			v.d.Report(path().Key("rename").Key(k), jsonv.UnknownName, "the producer tile %s has no axis %q", axesText(src), k)
			ok = false
			continue
		}
		if prev, dup := seen[to]; dup {
			v.d.Report(path().Key("rename").Key(k), jsonv.DuplicateName, "axes %s and %s both renamed to %s", prev, k, to)
			ok = false
		}
		seen[to] = k
		full[k] = to
	}
	if !ok {
		return nil, false
	}
	renamed := make([]axis, len(src))
	for i, a := range src {
		renamed[i] = axis{full[a.name], a.size}
	}
	if !sameAxes(renamed, dst) {
		how := ""
		if len(rename) > 0 {
			how = " renamed to " + axesText(renamed)
		}
		v.d.Report(path(), CodeTileMismatch, "producer tile %s%s does not match consumer tile %s (%s)", axesText(src), how, axesText(dst), ends)
		return nil, false
	}
	return distribution.Rename(maps.Clone(rename)), true
}

func (v *validator) groups() {
	g := v.g
	member := map[*Invocation]string{}
	ids := map[string]int{}
	for i, gs := range v.spec.Groups {
		p := root.Key("groups").Index(i)
		gr := &Group{Index: i, ID: gs.ID, SharedMemoryBytes: gs.SharedMemoryBytes, RegistersPerThread: gs.RegistersPerThread}
		if gs.ID == "" {
			v.d.Report(p.Key("id"), jsonv.Missing, "group %d has no id", i)
		} else {
			v.checkName(p.Key("id"), gs.ID)
			if prev, dup := ids[gs.ID]; dup {
				v.d.Report(p.Key("id"), jsonv.DuplicateName, "group id %q is also groups[%d]", gs.ID, prev)
			}
			ids[gs.ID] = i
		}
		if gs.SharedMemoryBytes < 0 {
			v.d.Report(p.Key("shared_memory_bytes"), jsonv.Range, "budget must not be negative, have %d", gs.SharedMemoryBytes)
		}
		if gs.RegistersPerThread < 0 {
			v.d.Report(p.Key("registers_per_thread"), jsonv.Range, "budget must not be negative, have %d", gs.RegistersPerThread)
		}
		if t := g.target; t.SharedMemoryPerBlock > 0 && gs.SharedMemoryBytes > t.SharedMemoryPerBlock {
			v.d.Warn(p.Key("shared_memory_bytes"), CodeBudget,
				"group %s's budget of %d bytes of shared memory is more than a block has on %s (%d bytes): the plan holds the kernel to the budget, which the hardware does not give it",
				gs.ID, gs.SharedMemoryBytes, t.Name, t.SharedMemoryPerBlock)
		}
		if t := g.target; t.RegistersPerThread > 0 && gs.RegistersPerThread > t.RegistersPerThread {
			v.d.Warn(p.Key("registers_per_thread"), CodeBudget,
				"group %s's budget of %d registers per thread is more than a thread has on %s (%d)",
				gs.ID, gs.RegistersPerThread, t.Name, t.RegistersPerThread)
		}
		if len(gs.Invocations) == 0 {
			v.d.Report(p.Key("invocations"), jsonv.Missing, "group %s has no invocations", gs.ID)
		}
		for j, id := range gs.Invocations {
			inv := g.invByID[id]
			if inv == nil {
				v.d.Report(p.Key("invocations").Index(j), jsonv.UnknownName, "unknown invocation %q", id)
				continue
			}
			if other, dup := member[inv]; dup {
				v.d.Report(p.Key("invocations").Index(j), jsonv.DuplicateName, "invocation %s is also in group %s: a kernel group holds an invocation once", id, other)
				continue
			}
			member[inv] = gs.ID
			inv.group = gr
			gr.Invocations = append(gr.Invocations, inv)
		}
		g.groups = append(g.groups, gr)
		v.budgets(p, gr)
	}
	for _, e := range g.edges {
		a, inA := member[e.From.Invocation]
		b, inB := member[e.To.Invocation]
		e.betweenGroups = inA && inB && a != b
		if inA && inB && a == b && e.Kernel == MustCrossKernel {
			v.d.Report(root.Key("edges").Index(v.specEdgeIndex(e)).Key("kernel"), CodeKernel,
				"edge must cross a kernel boundary, but %s and %s are fused in group %s", e.From.Invocation.ID, e.To.Invocation.ID, a)
		}
	}
}

// budgets warns of a fused group's budget that no choice of alternatives
// fits: an invocation every runnable candidate of which needs more
// registers per thread than the group has, or shared memory that the
// invocations' least needs, summed, exceed (a conversion's scratch would
// only add to it). Planning the graph would find no feasible plan.
func (v *validator) budgets(p jsonv.Path, gr *Group) {
	if gr.SharedMemoryBytes <= 0 && gr.RegistersPerThread <= 0 {
		return
	}
	var least int64
	var takers []string
	for _, inv := range gr.Invocations {
		smem, runs, fits := int64(-1), false, false
		regs := int64(-1)
		for _, c := range inv.Candidates {
			a := c.Alternative
			if ok, _ := v.g.target.CanRun(a); !ok {
				continue
			}
			runs = true
			if regs < 0 || a.Resources.RegistersPerThread < regs {
				regs = a.Resources.RegistersPerThread
			}
			if gr.RegistersPerThread > 0 && a.Resources.RegistersPerThread > gr.RegistersPerThread {
				continue
			}
			fits = true
			if smem < 0 || a.Resources.SharedMemoryBytes < smem {
				smem = a.Resources.SharedMemoryBytes
			}
		}
		switch {
		case !runs: // the unrunnable warning says so
		case !fits:
			v.d.Warn(p.Key("registers_per_thread"), CodeBudget,
				"invocation %s needs at least %d registers per thread whichever alternative runs, over group %s's budget of %d: no plan fits",
				inv.ID, regs, gr.ID, gr.RegistersPerThread)
		case smem > 0:
			least += smem
			takers = append(takers, fmt.Sprintf("%s %d", inv.ID, smem))
		}
	}
	if gr.SharedMemoryBytes > 0 && least > gr.SharedMemoryBytes {
		v.d.Warn(p.Key("shared_memory_bytes"), CodeBudget,
			"the invocations of group %s take at least %d bytes of shared memory whichever alternatives run (%s), over its budget of %d: no plan fits",
			gr.ID, least, strings.Join(takers, ", "), gr.SharedMemoryBytes)
	}
}

// specEdgeIndex is the index of e in the Spec's edges (the graph drops edges
// with problems, so the two may differ): the first with e's ends. They are
// indexed by their ends when first asked: a search of the Spec's edges for
// each problem was quadratic in a file of an edge problem per edge.
func (v *validator) specEdgeIndex(e *Edge) int {
	if v.specEdges == nil {
		v.specEdges = make(map[[2]string]int, len(v.spec.Edges))
		for i, es := range v.spec.Edges {
			k := [2]string{es.From, es.To}
			if _, seen := v.specEdges[k]; !seen {
				v.specEdges[k] = i
			}
		}
	}
	if i, ok := v.specEdges[[2]string{e.From.Invocation.ID + "." + e.From.Port.Name, e.To.Invocation.ID + "." + e.To.Port.Name}]; ok {
		return i
	}
	return e.Index
}

func (v *validator) measured() {
	s := v.spec.Measured
	g := v.g
	// Whether a measured conversion is used is known only of a valid
	// graph: an error before (a size, a pin, an edge) can leave out the
	// edges or candidates that use it.
	valid := !v.d.Failed()
	g.measured = Measured{Target: s.Target, Alternatives: map[MeasuredKey]float64{}, Conversions: map[ConversionKey]float64{}}
	if s.Target != "" && v.g.target.Name != "" && s.Target != v.g.target.Name {
		v.d.Warn(root.Key("measured").Key("target"), CodeMeasuredTarget,
			"the costs were measured on %s, the graph's target is %s: planning on %s refuses them (plan on %s)", s.Target, g.target.Name, g.target.Name, s.Target)
	}
	checkNS := func(p jsonv.Path, ns float64) {
		if math.IsNaN(ns) || math.IsInf(ns, 0) || ns < 0 {
			v.d.Report(p.Key("ns"), jsonv.Range, "a measured time must be a finite non-negative number of ns, have %v", ns)
		}
	}
	for i, m := range s.Alternatives {
		p := root.Key("measured").Key("alternatives").Index(i)
		checkNS(p, m.NS)
		// Every name is checked, each where it is: an unknown task hides
		// neither an unknown invocation nor the other way round.
		t := g.taskByName[m.Task]
		ok := t != nil
		if t == nil {
			v.d.Report(p.Key("task"), jsonv.UnknownName, "unknown task %q", m.Task)
		} else if t.Alternative(m.Alternative) == nil {
			v.d.Report(p.Key("alternative"), jsonv.UnknownName, "task %s has no alternative %q (it has %s)", m.Task, m.Alternative, t.alternativeNames())
			ok = false
		}
		if m.Invocation != "" {
			inv := g.invByID[m.Invocation]
			switch {
			case inv == nil:
				v.d.Report(p.Key("invocation"), jsonv.UnknownName, "unknown invocation %q", m.Invocation)
				ok = false
			case t != nil && inv.Task != t:
				v.d.Report(p.Key("invocation"), jsonv.Invalid, "invocation %s is not an invocation of %s", m.Invocation, m.Task)
				ok = false
			}
		}
		if !ok {
			continue
		}
		k := MeasuredKey{m.Task, m.Alternative, m.Invocation}
		if _, dup := g.measured.Alternatives[k]; dup {
			v.d.Report(p, jsonv.DuplicateName, "measured twice")
		}
		g.measured.Alternatives[k] = positiveZero(m.NS)
	}
	for i, m := range s.Conversions {
		p := root.Key("measured").Key("conversions").Index(i)
		checkNS(p, m.NS)
		for _, end := range []struct{ key, name string }{{"source", m.Source}, {"target", m.Target}} {
			if !v.knownRealization(end.name) {
				v.d.Report(p.Key(end.key), jsonv.UnknownName, "unknown distribution or layout %q", end.name)
			}
		}
		rename, err := distribution.ParseRename(m.Rename)
		if err != nil {
			v.d.Wrap(p.Key("rename"), jsonv.Invalid, err)
		}
		k := ConversionKey{m.Source, m.Target, rename.String()}
		if _, dup := g.measured.Conversions[k]; dup {
			v.d.Report(p, jsonv.DuplicateName, "conversion %s → %s measured twice", m.Source, m.Target)
		}
		g.measured.Conversions[k] = positiveZero(m.NS)
		if err != nil || !valid || !v.knownRealization(m.Source) || !v.knownRealization(m.Target) {
			continue
		}
		how := "no renaming"
		if k.Rename != "" {
			how = "the renaming " + k.Rename
		}
		// Said apart: no edge forms the pair at all (a misspelt renaming,
		// a pair no edge has), or only edges that are a round trip do.
		switch inside, joined := v.edgePairs()[k]; {
		case !joined:
			v.d.Warn(p, CodeUnusedMeasured, "no edge joins a producer realized as %s to a consumer realized as %s with %s: the measurement is never used%s", m.Source, m.Target, how, v.otherRenamings(k))
		case !inside:
			v.d.Warn(p, CodeUnusedMeasured, "no edge that may stay inside one kernel joins a producer realized as %s to a consumer realized as %s with %s: the measurement is never used (a round trip through global memory is costed by its bytes and its boundary)", m.Source, m.Target, how)
		}
	}
}

// edgePairs is the set of (producer realization, consumer realization,
// renaming) of the graph's edges over their candidates, each true when an
// edge that may stay inside one kernel forms it, with neither side in
// global memory: the keys a measured conversion must have to be used.
// False is a pair only round trips form, which are costed by their bytes
// and their boundary. Made once, when first asked.
func (v *validator) edgePairs() map[ConversionKey]bool {
	if v.pairs != nil {
		return v.pairs
	}
	v.pairs = map[ConversionKey]bool{}
	type end struct {
		name     string
		inMemory bool
	}
	for _, e := range v.g.edges {
		crosses := e.MustCross()
		rename := distribution.Rename(e.Rename).String()
		var srcs, dsts []end
		for _, a := range e.From.Invocation.Candidates {
			if b := e.SourceBinding(a); b.Name != "" && !slices.Contains(srcs, end{b.Name, b.InMemory()}) {
				srcs = append(srcs, end{b.Name, b.InMemory()})
			}
		}
		for _, c := range e.To.Invocation.Candidates {
			if b := e.TargetBinding(c); b.Name != "" && !slices.Contains(dsts, end{b.Name, b.InMemory()}) {
				dsts = append(dsts, end{b.Name, b.InMemory()})
			}
		}
		for _, s := range srcs {
			for _, d := range dsts {
				k := ConversionKey{s.name, d.name, rename}
				v.pairs[k] = v.pairs[k] || !(crosses || s.inMemory || d.inMemory)
			}
		}
	}
	return v.pairs
}

func (v *validator) knownRealization(name string) bool {
	if _, ok := v.spec.Distributions[name]; ok {
		return true
	}
	if _, ok := v.spec.Layouts[name]; ok {
		return true
	}
	_, ok := distribution.BuiltinSpec(name)
	return ok
}

// order computes the topological order and the components with gonum, and
// reports every cycle, naming its invocations.
func (v *validator) order() {
	g := v.g
	dg := newAdjacency(len(g.invocations))
	for _, e := range g.edges {
		u, w := int64(e.From.Invocation.Index), int64(e.To.Invocation.Index)
		if u == w {
			v.d.Report(root.Key("edges").Index(v.specEdgeIndex(e)), CodeCycle, "cycle: %s → %s", e.From.Invocation.ID, e.To.Invocation.ID)
			continue
		}
		dg.addEdge(int(u), int(w))
	}
	dg.finish()
	sorted, err := topo.SortStabilized(dg, nil)
	if uo, cyclic := err.(topo.Unorderable); cyclic {
		for _, scc := range uo {
			v.cycle(scc)
		}
	} else {
		for _, n := range sorted {
			g.topo = append(g.topo, g.invocations[n.ID()])
		}
	}
	for _, comp := range topo.ConnectedComponents(graph.Undirect{G: dg}) {
		c := make([]*Invocation, len(comp))
		for i, n := range comp {
			c[i] = g.invocations[n.ID()]
		}
		slices.SortFunc(c, func(a, b *Invocation) int { return a.Index - b.Index })
		g.components = append(g.components, c)
	}
	slices.SortFunc(g.components, func(a, b []*Invocation) int { return a[0].Index - b[0].Index })
}

// cycle reports one cycle through the strongly connected component scc: from
// its first invocation s along its first edge into the component, then the
// shortest way back to s.
func (v *validator) cycle(scc []graph.Node) {
	g := v.g
	in := map[int64]bool{}
	first := scc[0].ID()
	for _, n := range scc {
		in[n.ID()] = true
		first = min(first, n.ID())
	}
	sub := simple.NewDirectedGraph()
	for _, n := range scc {
		sub.AddNode(n)
	}
	var start *Edge
	for _, e := range g.edges {
		u, w := int64(e.From.Invocation.Index), int64(e.To.Invocation.Index)
		if in[u] && in[w] && u != w {
			sub.SetEdge(simple.Edge{F: simple.Node(u), T: simple.Node(w)})
			if u == first && start == nil {
				start = e
			}
		}
	}
	if start == nil {
		return // not reached: a component of several nodes has an edge out of each
	}
	back, _ := path.DijkstraFrom(simple.Node(start.To.Invocation.Index), sub).To(first)
	names := []string{g.invocations[first].ID}
	for _, n := range back {
		names = append(names, g.invocations[n.ID()].ID)
	}
	v.d.Report(root.Key("edges").Index(v.specEdgeIndex(start)), CodeCycle, "cycle: %s", strings.Join(names, " → "))
}

var _ = storage.Global

// maxKernelPathBits caps the bits kernelPaths keeps: two bit sets over the
// crossing edges per invocation. Above it the inference is skipped, and a
// plan warns of what it would have found (planner's kernel conflicts).
const maxKernelPathBits = 1 << 28

// otherRenamings says which renamings the edges that join k's source to
// its target have, where k's is not among them (" (edges join them with
// the renaming n=k)"): a measurement that forgot an edge's renaming is
// never used; "" when no edge joins them at all.
func (v *validator) otherRenamings(k ConversionKey) string {
	var hows []string
	for pk := range v.edgePairs() {
		if pk.Source != k.Source || pk.Target != k.Target || pk.Rename == k.Rename {
			continue
		}
		how := "no renaming"
		if pk.Rename != "" {
			how = "the renaming " + pk.Rename
		}
		hows = append(hows, how)
	}
	if len(hows) == 0 {
		return ""
	}
	slices.Sort(hows)
	return " (edges join them with " + strings.Join(hows, ", with ") + ")"
}

// outsideBudgets warns of an invocation in no group that the plan may keep
// in the kernel of a group with a budget: one an edge that need not cross
// joins to the group's invocations, directly or through other invocations
// in no group (each such edge may stay inside one kernel: some candidate of
// each end holds the tile outside global memory). The group's budgets count
// its invocations only (docs/format.md, "Groups"), so where such an
// invocation may take shared memory (its own, or a conversion's scratch on
// its edges there) under a shared-memory budget, or more registers than a
// register budget, the budget may not hold the kernel the plan builds. One
// warning per group and invocation, at the group, naming the edge it is
// reached through. The same search, from every group with a budget or
// without, warns where invocations in no group join two groups
// (group_bridge): a plan that keeps the edges between them inside one
// kernel makes the two one kernel, which the planner does not rule out.
// Run after kernelPaths.
func (v *validator) outsideBudgets() {
	g := v.g
	if len(g.groups) == 0 {
		return
	}
	groupOf := make([]*Group, len(g.invocations))
	for _, gr := range g.groups {
		for _, inv := range gr.Invocations {
			groupOf[inv.Index] = gr
		}
	}
	// shares says the edge may stay inside one kernel.
	some := func(cs []*Candidate, b func(*Candidate) *Binding) bool {
		for _, c := range cs {
			if !b(c).InMemory() {
				return true
			}
		}
		return false
	}
	shares := func(e *Edge) bool {
		return !e.MustCross() && some(e.From.Invocation.Candidates, e.SourceBinding) && some(e.To.Invocation.Candidates, e.TargetBinding)
	}
	// converts says some pair of the ends' candidates, both outside global
	// memory, converts the tile: two realizations (an inline one is never
	// taken to be another's), or a renaming. An identity (a load's or a
	// store's register port bound like its neighbour's) takes no scratch.
	converts := func(e *Edge) bool {
		for _, cu := range e.From.Invocation.Candidates {
			bu := e.SourceBinding(cu)
			if bu.InMemory() {
				continue
			}
			for _, cw := range e.To.Invocation.Candidates {
				if bw := e.TargetBinding(cw); !bw.InMemory() && (bu.Name == "" || bu.Name != bw.Name || len(e.Rename) > 0) {
					return true
				}
			}
		}
		return false
	}
	incident := make([][]*Edge, len(g.invocations))
	for _, e := range g.edges {
		incident[e.From.Invocation.Index] = append(incident[e.From.Invocation.Index], e)
		incident[e.To.Invocation.Index] = append(incident[e.To.Invocation.Index], e)
	}
	// The regions are searched group by group; in all at most a few times
	// the edges are visited (a warning is advice, not a proof).
	work := 4*len(g.edges) + len(g.invocations)
	reached := make([]int, len(g.invocations)) // group index + 1 that last reached it
	for _, gr := range g.groups {
		mark := gr.Index + 1
		via := map[*Invocation]*Edge{}
		var queue []*Invocation
		inKernel := func(x *Invocation) bool { return groupOf[x.Index] == gr || reached[x.Index] == mark }
		queue = append(queue, gr.Invocations...)
		var region []*Invocation
		bridged := map[*Group]bool{}
		for len(queue) > 0 && work > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, e := range incident[x.Index] {
				work--
				y := e.To.Invocation
				if y == x {
					y = e.From.Invocation
				}
				if other := groupOf[y.Index]; other != nil && other != gr && groupOf[x.Index] == nil && shares(e) && !bridged[other] {
					// Reached from gr through invocations in no group:
					// said once a pair, at the group declared first.
					bridged[other] = true
					if other.Index > gr.Index {
						var path []string
						for z := x; groupOf[z.Index] != gr; {
							path = append(path, edgeText(via[z]))
							if via[z].To.Invocation == z {
								z = via[z].From.Invocation
							} else {
								z = via[z].To.Invocation
							}
						}
						slices.Reverse(path)
						path = append(path, edgeText(e))
						v.d.Warn(root.Key("groups").Index(gr.Index), CodeGroupBridge,
							"groups %s and %s are two kernels, but invocations in no group join them (%s): a plan that keeps these edges inside one kernel fuses both groups into one, over their budgets, and the planner does not rule that out; add the invocations to a group, or mark an edge on the way must_cross",
							gr.ID, other.ID, strings.Join(path, ", "))
					}
				}
				if groupOf[y.Index] != nil || reached[y.Index] == mark || !shares(e) {
					continue
				}
				reached[y.Index] = mark
				via[y] = e
				region = append(region, y)
				queue = append(queue, y)
			}
		}
		if gr.SharedMemoryBytes <= 0 && gr.RegistersPerThread <= 0 {
			continue
		}
		for _, x := range region {
			var missed []string
			if gr.SharedMemoryBytes > 0 {
				smem := slices.ContainsFunc(x.Candidates, func(c *Candidate) bool { return c.Alternative.Resources.SharedMemoryBytes > 0 })
				for _, e := range incident[x.Index] {
					y := e.To.Invocation
					if y == x {
						y = e.From.Invocation
					}
					if smem || inKernel(y) && shares(e) && converts(e) {
						smem = true
						break
					}
				}
				if smem {
					missed = append(missed, fmt.Sprintf("%s's shared-memory budget counts neither its shared memory nor the scratch of its conversions there", gr.ID))
				}
			}
			if gr.RegistersPerThread > 0 {
				most := int64(0)
				for _, c := range x.Candidates {
					most = max(most, c.Alternative.Resources.RegistersPerThread)
				}
				if most > gr.RegistersPerThread {
					missed = append(missed, fmt.Sprintf("its alternatives need up to %d registers per thread, over %s's budget of %d", most, gr.ID, gr.RegistersPerThread))
				}
			}
			if len(missed) == 0 {
				continue
			}
			v.d.Warn(root.Key("groups").Index(gr.Index), CodeOutsideBudget,
				"invocation %s is in no group, but the plan may keep it in group %s's kernel (through %s, inside one kernel): %s; add %s to the group, or mark an edge on the way must_cross",
				x.ID, gr.ID, edgeText(via[x]), strings.Join(missed, "; "), x.ID)
		}
	}
}

// kernelPaths finds the edges that must cross a kernel boundary because
// another path between their ends does, whatever the plan chooses: an edge
// u → w where some path u ⇝ x → y ⇝ w crosses at x → y in every plan (an
// edge that must cross, or one whose producer's every candidate writes its
// tile to global memory, or whose consumer's every candidate reads it
// from there). u's kernel runs before y's, so w's cannot be u's. Each such
// edge crosses (Edge.MustCross, with the crossing edge in
// Edge.CrossedOnPath) and is warned of (CodeKernelPath); inside one fused
// group it is a problem (CodeKernel): the group would be left and
// re-entered. Run after order, on an acyclic graph.
func (v *validator) kernelPaths() {
	g := v.g
	if len(g.topo) != len(g.invocations) {
		return // a cycle, reported already
	}
	every := func(cs []*Candidate, in func(*Candidate) bool) bool {
		if len(cs) == 0 {
			return false
		}
		for _, c := range cs {
			if !in(c) {
				return false
			}
		}
		return true
	}
	var crossing []*Edge
	for _, e := range g.edges {
		if e.MustCross() ||
			every(e.From.Invocation.Candidates, func(c *Candidate) bool { return e.SourceBinding(c).InMemory() }) ||
			every(e.To.Invocation.Candidates, func(c *Candidate) bool { return e.TargetBinding(c).InMemory() }) {
			crossing = append(crossing, e)
		}
	}
	m, n := len(crossing), len(g.invocations)
	if m == 0 || 2*m*n > maxKernelPathBits {
		return
	}
	words := (m + 63) / 64
	// ahead[v]: the crossing edges some path from v reaches (their tails
	// reachable from v); behind[v]: those some path into v comes through.
	ahead := make([]uint64, n*words)
	behind := make([]uint64, n*words)
	set := func(bits []uint64, v, i int) { bits[v*words+i/64] |= 1 << (i % 64) }
	or := func(bits []uint64, dst, src int) {
		d, s := bits[dst*words:(dst+1)*words], bits[src*words:(src+1)*words]
		for i := range d {
			d[i] |= s[i]
		}
	}
	index := make(map[*Edge]int, m)
	for i, e := range crossing {
		index[e] = i
	}
	groupOf := make([]*Group, n)
	for _, gr := range g.groups {
		for _, inv := range gr.Invocations {
			groupOf[inv.Index] = gr
		}
	}
	for _, u := range g.topo {
		for _, e := range u.In {
			or(behind, u.Index, e.From.Invocation.Index)
			if i, ok := index[e]; ok {
				set(behind, u.Index, i)
			}
		}
	}
	for k := len(g.topo) - 1; k >= 0; k-- {
		u := g.topo[k]
		for _, e := range u.Out {
			or(ahead, u.Index, e.To.Invocation.Index)
			if i, ok := index[e]; ok {
				set(ahead, u.Index, i)
			}
		}
	}
	for _, e := range g.edges {
		if _, ok := index[e]; ok {
			continue
		}
		a := ahead[e.From.Invocation.Index*words : (e.From.Invocation.Index+1)*words]
		b := behind[e.To.Invocation.Index*words : (e.To.Invocation.Index+1)*words]
		via := -1
		for i := range a {
			if x := a[i] & b[i]; x != 0 {
				via = i*64 + bits.TrailingZeros64(x)
				break
			}
		}
		if via < 0 {
			continue
		}
		c := crossing[via]
		e.crossedOnPath = c
		p := root.Key("edges").Index(v.specEdgeIndex(e))
		if gr := groupOf[e.From.Invocation.Index]; gr != nil && gr == groupOf[e.To.Invocation.Index] {
			v.d.Report(p, CodeKernel, "%s and %s are fused in group %s, but a path between them crosses a kernel boundary at %s: the group would be left and entered again",
				e.From.Invocation.ID, e.To.Invocation.ID, gr.ID, edgeText(c))
			continue
		}
		v.d.Warn(p, CodeKernelPath, "the edge must cross a kernel boundary: the path through %s crosses one, so %s's kernel runs before %s's (a global round trip is paid here; declare it \"kernel\": \"must_cross\" to say so)",
			edgeText(c), e.From.Invocation.ID, e.To.Invocation.ID)
	}
}

// edgeText names an edge as reports do: "u.port -> w.port".
func edgeText(e *Edge) string {
	return e.From.Invocation.ID + "." + e.From.Port.Name + " -> " + e.To.Invocation.ID + "." + e.To.Port.Name
}

// renameHint suggests the edge's "rename" where the two tiles differ only
// in their axes' names, position by position: "" otherwise.
func renameHint(src, dst []axis) string {
	if len(src) != len(dst) {
		return ""
	}
	var pairs []string
	for i, a := range src {
		if a.size != dst[i].size {
			return ""
		}
		if a.name != dst[i].name {
			pairs = append(pairs, fmt.Sprintf("%q: %q", a.name, dst[i].name))
		}
	}
	if len(pairs) == 0 {
		return ""
	}
	return `; the edge's "rename" maps the producer's axes to the consumer's: "rename": {` + strings.Join(pairs, ", ") + "}"
}

// listNames is names joined with commas: all of up to 16, or the first 12
// of more and their count (as the planner names a graph's invocations).
func listNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) > 16 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
}

// portNames lists t's ports, for a message naming one it lacks.
func (t *Task) portNames() string {
	names := make([]string, len(t.Ports))
	for i, p := range t.Ports {
		names[i] = p.Name
	}
	return listNames(names)
}

// alternativeNames lists t's alternatives, for a message naming one it
// lacks.
func (t *Task) alternativeNames() string {
	names := make([]string, len(t.Alternatives))
	for i, a := range t.Alternatives {
		names[i] = a.ID
	}
	return listNames(names)
}

package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// graphChoices is the plan that chooses alternative choices[v] of each node
// v, in the graph's terms (as ChoicesOf reads a Result).
func (lw *lowering) graphChoices(choices []int) []GraphChoice {
	out := make([]GraphChoice, len(choices))
	for v, a := range choices {
		na := lw.alts[v][a]
		out[v] = GraphChoice{Alternative: lw.invs[v].Task.Alternatives[na.task].ID, NoSharedMemoryConversions: na.noSmem}
	}
	return out
}

// agreeOnPlans compares, plan by plan, the Problem's evaluation with the
// graph's recomputation: every plan when there are at most limit of them,
// else limit plans drawn at random. They must agree on feasibility, on
// the cost of a feasible plan and on each budget's use. It returns how many
// feasible plans it compared.
func agreeOnPlans(t *testing.T, g *tasks.Graph, opts PlanOptions, limit int, seed uint64) int {
	t.Helper()
	target := opts.Target
	if target == nil {
		var err error
		if target, err = graphTarget(g); err != nil {
			t.Fatal(err)
		}
	}
	if opts.Cache == nil {
		opts.Cache = NewCache()
	}
	lw, err := lowerGraph(context.Background(), g, target, opts.Measured, opts.Cache)
	if err != nil {
		t.Fatal(err)
	}
	total := 1.0
	for _, n := range lw.problem.Nodes {
		total *= float64(len(n.Alternatives))
	}
	choices := make([]int, len(lw.problem.Nodes))
	rng := rand.New(rand.NewPCG(seed, 17))
	next := func(k int) bool {
		if total > float64(limit) {
			if k == limit {
				return false
			}
			for v, n := range lw.problem.Nodes {
				choices[v] = rng.IntN(len(n.Alternatives))
			}
			return true
		}
		if k == 0 {
			return true
		}
		for v := range choices {
			if choices[v]++; choices[v] < len(lw.problem.Nodes[v].Alternatives) {
				return true
			}
			choices[v] = 0
		}
		return false
	}
	feasible := 0
	for k := 0; next(k); k++ {
		pe, err := lw.problem.Evaluate(choices)
		if err != nil {
			t.Fatal(err)
		}
		ge, err := EvaluateGraph(g, lw.graphChoices(choices), opts)
		if err != nil {
			t.Fatal(err)
		}
		if pe.Feasible() != ge.Feasible() {
			t.Fatalf("plan %v: the Problem says feasible %t %v, the graph %t %v", lw.graphChoices(choices), pe.Feasible(), pe.Violations, ge.Feasible(), ge.Violations)
		}
		if !pe.Feasible() {
			continue
		}
		feasible++
		if !near(pe.Cost, ge.Cost) || !near(pe.Execution, ge.Execution) {
			t.Fatalf("plan %v: the Problem costs %v (execution %v), the graph %v (execution %v)\n%s",
				lw.graphChoices(choices), pe.Cost, pe.Execution, ge.Cost, ge.Execution, edgeDiffs(lw, pe, ge))
		}
		for b, used := range pe.BudgetUse {
			i := slices.IndexFunc(ge.Budgets, func(u BudgetUse) bool { return u.Name == lw.problem.Budgets[b].Name })
			if i < 0 || !near(ge.Budgets[i].Used, used) {
				t.Fatalf("plan %v: %s: the Problem uses %v, the graph %v", lw.graphChoices(choices), lw.problem.Budgets[b].Name, used, ge.Budgets)
			}
		}
	}
	return feasible
}

// edgeDiffs lists the edges whose Problem cost differs from the graph's.
func edgeDiffs(lw *lowering, pe *Evaluation, ge *GraphEvaluation) string {
	edges := map[string]float64{}
	for gi, gc := range pe.Groups {
		for _, c := range gc.Conversions {
			edges[edgeName(lw.groups[gi].edges[c.Consumers[0]])] += c.Cost
		}
	}
	var b strings.Builder
	for _, ec := range ge.Edges {
		if !near(edges[ec.Edge], ec.Cost) {
			fmt.Fprintf(&b, "\t%s: Problem %v, graph %v (paid on %q)\n", ec.Edge, edges[ec.Edge], ec.Cost, ec.PaidOn)
		}
	}
	return b.String()
}

// agreeOnBoundaries plans g (the graph verifier runs inside Plan) and
// checks every boundary's cost and crossing against the graph's
// recomputation of the plan.
func agreeOnBoundaries(t *testing.T, g *tasks.Graph, opts PlanOptions) *Result {
	t.Helper()
	r, err := Plan(context.Background(), g, opts)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := EvaluateGraph(g, ChoicesOf(r), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Feasible() || !near(ev.Cost, r.ObjectiveNS) || !near(ev.Execution, r.ExecutionNS) {
		t.Fatalf("the plan costs %v (execution %v) by the graph, %v (%v) by the planner; %v", ev.Cost, ev.Execution, r.ObjectiveNS, r.ExecutionNS, ev.Violations)
	}
	byEdge := map[string]EdgeCost{}
	for _, ec := range ev.Edges {
		byEdge[ec.Edge] = ec
	}
	// The boundaries add up to the plan's conversion cost: a shared
	// conversion is on one of them.
	sum := 0.0
	for _, b := range r.Boundaries {
		sum += b.CostNS
	}
	if !near(sum, r.ObjectiveNS-r.ExecutionNS) {
		t.Errorf("the boundaries add up to %v ns, the plan's conversions cost %v", sum, r.ObjectiveNS-r.ExecutionNS)
	}
	if len(r.Boundaries) != len(ev.Edges) {
		t.Fatalf("%d boundaries, %d edges", len(r.Boundaries), len(ev.Edges))
	}
	for _, b := range r.Boundaries {
		ec := byEdge[b.Edge]
		if !near(b.CostNS, ec.Cost) || b.Crossing != ec.Crossing.String() {
			t.Errorf("%s: the plan's boundary %v ns %s (%s), the graph's %v ns %s (paid on %q)", b.Edge, b.CostNS, b.Crossing, b.Detail, ec.Cost, ec.Crossing, ec.PaidOn)
		}
		// The edge a shared conversion is paid on, both ways.
		paidOn := ""
		if len(b.SharedWith) == 1 && b.CostNS == 0 {
			paidOn = b.SharedWith[0]
		}
		if paidOn != "" && ec.PaidOn != paidOn {
			t.Errorf("%s: shared with %s by the plan, paid on %q by the graph", b.Edge, paidOn, ec.PaidOn)
		}
	}
	for _, bu := range r.Budgets {
		i := slices.IndexFunc(ev.Budgets, func(u BudgetUse) bool { return u.Name == bu.Name })
		if i < 0 || !near(ev.Budgets[i].Used, bu.Used) {
			t.Errorf("%s: the plan uses %v, the graph %v", bu.Name, bu.Used, ev.Budgets)
		}
	}
	return r
}

// The graph verifier agrees with the planner on every example, with and
// without measured costs: on the plan chosen (its total, each boundary,
// each budget) and on every other plan (or a sample of them) as the
// Problem evaluates it.
func TestGraphVerifierAgreesOnExamples(t *testing.T) {
	measured, err := filepath.Glob("../examples/measured/*.json")
	if err != nil || len(measured) == 0 {
		t.Fatalf("no measured costs: %v", err)
	}
	withMeasured := 0
	for name, g := range examples(t) {
		graphs := map[string]*tasks.Graph{name: g}
		for _, f := range measured {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if mg, err := g.LoadMeasured(data); err == nil {
				graphs[name+"+"+filepath.Base(f)] = mg
				withMeasured++
			}
		}
		for name, g := range graphs {
			t.Run(name, func(t *testing.T) {
				opts := PlanOptions{Cache: NewCache(), Solve: Options{NoRegrets: true}}
				agreeOnBoundaries(t, g, opts)
				if agreeOnPlans(t, g, opts, 1500, 1) == 0 {
					t.Error("no feasible plan compared")
				}
			})
		}
	}
	if withMeasured < len(measured) {
		t.Errorf("measured costs applied to %d examples, want at least %d", withMeasured, len(measured))
	}
}

// The graph verifier agrees with the planner on taskgen's families: the
// transformer with its layers fused into kernels under shared-memory
// budgets (tight and loose), the random DAG and the tree.
func TestGraphVerifierAgreesOnGeneratedFamilies(t *testing.T) {
	family := map[string]func() (tasks.Spec, error){
		"transformer fused 300000": func() (tasks.Spec, error) {
			s, err := taskgen.Transformer(3, 2)
			if err == nil {
				err = taskgen.FuseLayers(&s, 300_000)
			}
			return s, err
		},
		"transformer fused 120000": func() (tasks.Spec, error) {
			s, err := taskgen.Transformer(2, 5)
			if err == nil {
				err = taskgen.FuseLayers(&s, 120_000)
			}
			return s, err
		},
		"transformer": func() (tasks.Spec, error) { return taskgen.Transformer(4, 3) },
		"dag":         func() (tasks.Spec, error) { return taskgen.DAG(30, 4, 1) },
		"tree":        func() (tasks.Spec, error) { return taskgen.Tree(40, 1) },
	}
	for name, gen := range family {
		t.Run(name, func(t *testing.T) {
			s, err := gen()
			if err != nil {
				t.Fatal(err)
			}
			g, err := tasks.New(s)
			if err != nil {
				t.Fatal(err)
			}
			opts := PlanOptions{Cache: NewCache(), Solve: Options{NoRegrets: true}}
			r := agreeOnBoundaries(t, g, opts)
			if name == "transformer fused 120000" && len(r.Budgets) == 0 {
				t.Fatal("no budgets")
			}
			agreeOnPlans(t, g, opts, 300, 2)
		})
	}
}

// randomGraph is a small random task graph over one of two tile families:
// (m:16, k:16) in f16 with distributions over one warp and over four, the
// mma A fragment, and global and shared layouts by rows and by columns (and
// edges that transpose the tile by their renaming); or (b:2, x:32) in f32
// over two blocks, where a conversion between blocks outside a cluster
// crosses the grid. Alternatives bind ports to any of them, in loops or
// none, with port multiplicities of their own; edges may have to cross a
// kernel; groups fuse invocations under budgets; pins and measured costs
// narrow and override.
func randomGraph(rng *rand.Rand, i int) string { return randomGraphWith(rng, i, 0) }

// graphKnobs widen randomGraph's choices (each bit one widening; none is
// randomGraph's own generator, draw for draw): FuzzGraphVerifier draws
// them.
type graphKnobs uint16

const (
	knobLarger    graphKnobs = 1 << iota // up to 10 invocations
	knobHub                              // most edges read one producer: fan-outs of 3+ consumers
	knobGroups                           // up to 4 groups of any invocations, not only runs
	knobCross                            // more must_cross edges, more global and shared layouts
	knobTri                              // a task of three inputs: one consumer reads a port on several
	knobSizes                            // invocations with sizes of their own, and forbids
	knobMeasured                         // measurements under renamings, for invocations
	knobLoops                            // every binding in a loop, or none
	_                                    // none: the corpus entry measured_identity_shared_by_a_fan_out sets it
	knobRegisters                        // registers per thread, and groups' budgets of them
	knobWork                             // costs as work for the roofline
)

// randomGraphWith is randomGraph widened by knobs.
func randomGraphWith(rng *rand.Rand, i int, knobs graphKnobs) string {
	has := func(k graphKnobs) bool { return knobs&k != 0 }
	var realizations []string // binding JSON
	var names []string        // distribution and layout names, for measurements
	header := ""
	tile, elem := "(m:16, k:16)", "f16"
	if rng.IntN(3) > 0 {
		header = `"index_maps": {"rows": "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)",
		                     "cols": "logical(m:16, k:16) -> physical(addr:256) = (k * 16 + m)"},
		"layouts": {"GR": "global f16 elements align 16: rows", "GC": "global f16 elements align 16: cols",
		            "SR": "shared f16 elements align 16: rows", "SC": "shared f16 elements align 16: cols"},
		"distributions": {
		  "rb": {"blocked": {"axes": ["m", "k"], "shape": [16, 16], "size_per_thread": [1, 8], "threads_per_warp": [16, 2], "warps_per_cta": [1, 1], "order": [1, 0]}},
		  "cb": {"blocked": {"axes": ["m", "k"], "shape": [16, 16], "size_per_thread": [8, 1], "threads_per_warp": [2, 16], "warps_per_cta": [1, 1], "order": [0, 1]}},
		  "w4": {"blocked": {"axes": ["m", "k"], "shape": [16, 16], "size_per_thread": [1, 2], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]}}},`
		names = []string{"rb", "cb", "w4", "mma.m16n8k16.a.f16", "GR", "GC", "SR", "SC"}
	} else {
		tile, elem = "(b:2, x:32)", "f32"
		header = `"layouts": {"GR": "global f32 elements align 16: logical(b:2, x:32) -> physical(addr:64) = (b * 32 + x)",
		            "GC": "global f32 elements align 16: logical(b:2, x:32) -> physical(addr:64) = (x * 2 + b)",
		            "SR": "shared f32 elements align 16: logical(b:2, x:32) -> physical(addr:64) = (b * 32 + x)"},
		"distributions": {
		  "rows": {"name": "rows", "executors": [{"name": "block", "size": 2, "level": "block"}, {"name": "lane", "size": 32, "level": "lane"}],
		           "tile": [{"name": "b", "size": 2}, {"name": "x", "size": 32}], "ownership": {"b": "block", "x": "lane"}},
		  "swapped": {"name": "swapped", "executors": [{"name": "block", "size": 2, "level": "block"}, {"name": "lane", "size": 32, "level": "lane"}],
		           "tile": [{"name": "b", "size": 2}, {"name": "x", "size": 32}], "ownership": {"b": "1 - block", "x": "lane"}}},`
		names = []string{"rows", "swapped", "GR", "GC", "SR"}
	}
	for _, n := range names {
		kind := "distribution"
		if len(n) == 2 && (n[0] == 'G' || n[0] == 'S') {
			kind = "layout"
		}
		realizations = append(realizations, fmt.Sprintf(`"%s": %q`, kind, n))
	}
	var layouts []string
	for _, r := range realizations {
		if strings.HasPrefix(r, `"layout"`) {
			layouts = append(layouts, r)
		}
	}
	pick := func() string {
		b := realizations[rng.IntN(len(realizations))]
		if has(knobCross) && rng.IntN(3) == 0 {
			b = layouts[rng.IntN(len(layouts))]
		}
		if loop := rng.IntN(4); loop == 0 || has(knobLoops) && loop == 1 {
			b += fmt.Sprintf(`, "loop": "%s"`, []string{"g", "h"}[rng.IntN(2)])
		}
		if rng.IntN(5) == 0 {
			b += fmt.Sprintf(`, "multiplicity": "%s"`, []string{"M * 2", "N"}[rng.IntN(2)])
		}
		return "{" + b + "}"
	}
	type taskShape struct {
		name    string
		ins     []string
		out     bool
		alts    int
		altName []string
	}
	shapes := []*taskShape{{name: "src", out: true}, {name: "un", ins: []string{"x"}, out: true},
		{name: "bin", ins: []string{"x", "r"}, out: true}, {name: "sink", ins: []string{"x"}}}
	if has(knobTri) {
		shapes = append(shapes, &taskShape{name: "tri", ins: []string{"x", "r", "z"}, out: true})
	}
	var taskJSON []string
	for _, sh := range shapes {
		var ports []string
		for _, in := range sh.ins {
			ports = append(ports, fmt.Sprintf(`%q: {"direction": "in", "tile": %q, "element": %q}`, in, tile, elem))
		}
		if sh.out {
			ports = append(ports, fmt.Sprintf(`"y": {"direction": "out", "tile": %q, "element": %q}`, tile, elem))
		}
		sh.alts = 1 + rng.IntN(3)
		var alts []string
		for a := range sh.alts {
			id := fmt.Sprintf("a%d", a)
			sh.altName = append(sh.altName, id)
			var bind []string
			for _, in := range sh.ins {
				bind = append(bind, fmt.Sprintf(`%q: %s`, in, pick()))
			}
			if sh.out {
				bind = append(bind, `"y": `+pick())
			}
			var res []string
			if rng.IntN(3) == 0 {
				res = append(res, fmt.Sprintf(`"shared_memory_bytes": %d`, []int{4096, 16384, 40000}[rng.IntN(3)]))
			}
			if has(knobRegisters) && rng.IntN(2) == 0 {
				res = append(res, fmt.Sprintf(`"registers_per_thread": %d`, []int{32, 96, 200}[rng.IntN(3)]))
			}
			resText := ""
			if len(res) > 0 {
				resText = `, "resources": {` + strings.Join(res, ", ") + `}`
			}
			cost := fmt.Sprintf(`{"ns": %.3f}`, 0.2+4*rng.Float64())
			if has(knobWork) && rng.IntN(3) == 0 {
				cost = fmt.Sprintf(`{"work": {"flops": %d, "bytes": %d, "instruction": %q}}`, []int{4096, 1 << 20}[rng.IntN(2)],
					[]int{0, 4096}[rng.IntN(2)], []string{"fma_f32", "mma_sync_f16", "tensor_f16"}[rng.IntN(3)])
			}
			alts = append(alts, fmt.Sprintf(`{"id": %q, "ports": {%s}, "cost": %s, "multiplicity": %q%s}`,
				id, strings.Join(bind, ", "), cost, []string{"M", "M * 2", "N"}[rng.IntN(3)], resText))
		}
		taskJSON = append(taskJSON, fmt.Sprintf(`%q: {"ports": {%s}, "alternatives": [%s]}`, sh.name, strings.Join(ports, ", "), strings.Join(alts, ", ")))
	}
	// Invocations: a source, then tasks fed by earlier outputs (fan-outs
	// come of it), the last a sink.
	n := 3 + rng.IntN(4)
	if has(knobLarger) {
		n += rng.IntN(5)
	}
	type inv struct {
		id string
		sh *taskShape
	}
	invs := []inv{{"i0", shapes[0]}}
	type edge struct {
		from, to    string
		cross, swap bool
	}
	var edges []edge
	var invJSON, edgeJSON []string
	var producers []string
	producers = append(producers, "i0")
	for k := 1; k < n; k++ {
		sh := shapes[1+rng.IntN(len(shapes)-1)]
		if k == n-1 {
			sh = shapes[3]
		}
		id := fmt.Sprintf("i%d", k)
		invs = append(invs, inv{id, sh})
		for _, in := range sh.ins {
			from := producers[rng.IntN(len(producers))]
			if has(knobHub) && rng.IntN(3) > 0 {
				from = producers[rng.IntN(min(2, len(producers)))]
			}
			e := edge{from: from, to: id + "." + in}
			e.cross = rng.IntN(6) == 0 || has(knobCross) && rng.IntN(5) == 0
			e.swap = elem == "f16" && rng.IntN(6) == 0
			edges = append(edges, e)
		}
		if sh.out {
			producers = append(producers, id)
		}
	}
	for _, v := range invs {
		extra := ""
		if len(v.sh.altName) > 1 && rng.IntN(8) == 0 {
			extra = fmt.Sprintf(`, "pin": [%q]`, v.sh.altName[rng.IntN(len(v.sh.altName))])
		} else if has(knobSizes) && len(v.sh.altName) > 1 && rng.IntN(5) == 0 {
			extra = fmt.Sprintf(`, "forbid": [%q]`, v.sh.altName[rng.IntN(len(v.sh.altName))])
		}
		if has(knobSizes) && rng.IntN(3) == 0 {
			extra += fmt.Sprintf(`, "sizes": {"M": %d, "N": %d}`, []int{16, 512, 2048}[rng.IntN(3)], []int{1, 64, 8192}[rng.IntN(3)])
		}
		invJSON = append(invJSON, fmt.Sprintf(`{"id": %q, "task": %q%s}`, v.id, v.sh.name, extra))
	}
	// Groups: up to two runs of consecutive invocations; or, widened, up
	// to four groups of any invocations (an edge inside one then never
	// must cross).
	var groups []string
	registers := func() string {
		if !has(knobRegisters) {
			return ""
		}
		return fmt.Sprintf(`, "registers_per_thread": %d`, []int{0, 64, 128}[rng.IntN(3)])
	}
	groupOf := map[string]int{}
	if has(knobGroups) {
		members := make([][]string, 4)
		for _, v := range invs {
			if k := rng.IntN(6) - 2; k >= 0 {
				groupOf[v.id] = k + 1
				members[k] = append(members[k], fmt.Sprintf("%q", v.id))
			}
		}
		for gk, m := range members {
			if len(m) > 0 {
				groups = append(groups, fmt.Sprintf(`{"id": "k%d", "invocations": [%s], "shared_memory_bytes": %d%s}`,
					gk, strings.Join(m, ", "), []int{0, 8192, 40000, 100000}[rng.IntN(4)], registers()))
			}
		}
	}
	at := 0
	for gk := 0; gk < 2 && at < n-1 && !has(knobGroups); gk++ {
		if rng.IntN(2) == 0 {
			at++
			continue
		}
		size := 2 + rng.IntN(2)
		var members []string
		for k := at; k < min(n, at+size); k++ {
			members = append(members, fmt.Sprintf("%q", invs[k].id))
		}
		at += size
		groups = append(groups, fmt.Sprintf(`{"id": "k%d", "invocations": [%s], "shared_memory_bytes": %d%s}`,
			gk, strings.Join(members, ", "), []int{0, 8192, 40000, 100000}[rng.IntN(4)], registers()))
	}
	for _, e := range edges {
		text := fmt.Sprintf(`"from": "%s.y", "to": %q`, e.from, e.to)
		if e.cross && (groupOf[e.from] == 0 || groupOf[e.from] != groupOf[strings.Split(e.to, ".")[0]]) {
			text += `, "kernel": "must_cross"`
		}
		if e.swap {
			text += `, "rename": {"m": "k", "k": "m"}`
		}
		edgeJSON = append(edgeJSON, "{"+text+"}")
	}
	measured := ""
	if rng.IntN(3) == 0 || has(knobMeasured) && rng.IntN(2) == 0 {
		var convs []string
		for range 1 + rng.IntN(3) {
			rename := ""
			if has(knobMeasured) && elem == "f16" && rng.IntN(2) == 0 {
				rename = `, "rename": "k=m,m=k"`
			}
			convs = append(convs, fmt.Sprintf(`{"source": %q, "target": %q, "ns": %.3f%s}`,
				names[rng.IntN(len(names))], names[rng.IntN(len(names))], 10*rng.Float64(), rename))
		}
		alts := fmt.Sprintf(`{"task": "un", "alternative": "a0", "ns": %.3f}`, 3*rng.Float64())
		if has(knobMeasured) {
			v := invs[rng.IntN(len(invs))]
			alts += fmt.Sprintf(`, {"task": %q, "alternative": "a0", "invocation": %q, "ns": %.3f}`, v.sh.name, v.id, 3*rng.Float64())
		}
		measured = fmt.Sprintf(`, "measured": {"conversions": [%s], "alternatives": [%s]}`, strings.Join(convs, ", "), alts)
	}
	groupJSON := ""
	if len(groups) > 0 {
		groupJSON = `, "groups": [` + strings.Join(groups, ", ") + `]`
	}
	return fmt.Sprintf(`{"version": 1, "name": "random-%d", "target": "h200", "sizes": {"M": 1024, "N": 4096},
		"spaces": {"t": %q}, %s
		"tasks": {%s}, "invocations": [%s], "edges": [%s]%s%s}`,
		i, tile, header, strings.Join(taskJSON, ", "), strings.Join(invJSON, ", "), strings.Join(edgeJSON, ", "), groupJSON, measured)
}

// The graph verifier and the Problem agree on every plan of hundreds of
// small random graphs, and the planner's plan of each passes the graph
// verifier (inside Plan) with every boundary as the graph costs it.
func TestGraphVerifierAgreesOnRandomGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	cache := NewCache()
	loaded, planned, compared := 0, 0, 0
	const graphs = 400
	for i := range graphs {
		text := randomGraph(rng, i)
		g, err := tasks.Load([]byte(text))
		if err != nil {
			continue // a must_cross edge inside a group, an unrunnable alternative
		}
		loaded++
		opts := PlanOptions{Cache: cache, Solve: Options{NoRegrets: true}}
		ok := t.Run(fmt.Sprint(i), func(t *testing.T) {
			compared += agreeOnPlans(t, g, opts, 2000, uint64(i))
			if _, err := Plan(context.Background(), g, opts); errors.Is(err, ErrInfeasible) {
				return
			}
			agreeOnBoundaries(t, g, opts)
			planned++
		})
		if !ok {
			t.Logf("graph %d:\n%s", i, text)
			break
		}
	}
	t.Logf("%d graphs of %d loaded, %d planned, %d feasible plans compared", loaded, graphs, planned, compared)
	if loaded < graphs/2 || planned < graphs/4 || compared < 10*graphs {
		t.Errorf("%d graphs of %d loaded, %d planned, %d feasible plans compared: the generator makes too few", loaded, graphs, planned, compared)
	}
}

// planted plans g with fault planted in its lowered Problem and returns
// the error, which must be the graph verifier's.
func planted(t *testing.T, g *tasks.Graph, fault func(lw *lowering)) *GraphVerifyError {
	t.Helper()
	plantInLowering = fault
	defer func() { plantInLowering = nil }()
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
	var ve *GraphVerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("a fault planted in the lowering: %v, %v; want a *GraphVerifyError", r, err)
	}
	return ve
}

// groupOf is the index of lw's group of the producer port named from.
func groupOf(t *testing.T, lw *lowering, from string) int {
	t.Helper()
	gi := slices.IndexFunc(lw.problem.Groups, func(g Group) bool { return g.Name == from })
	if gi < 0 {
		t.Fatalf("no group %s", from)
	}
	return gi
}

// threeReaders is p → c1, c2 over one tile: p leaves it in one
// distribution, c1 and c2 read it in two others, one conversion each.
func threeReaders(t *testing.T) *tasks.Graph {
	g, err := tasks.Load([]byte(`{"version": 1, "name": "two-readers", "target": "h200", "sizes": {"M": 4096},
  "spaces": {"t": "(m:16, k:16)"},
  "distributions": {
    "rb": {"blocked": {"axes": ["m", "k"], "shape": [16, 16], "size_per_thread": [1, 8], "threads_per_warp": [16, 2], "warps_per_cta": [1, 1], "order": [1, 0]}},
    "cb": {"blocked": {"axes": ["m", "k"], "shape": [16, 16], "size_per_thread": [8, 1], "threads_per_warp": [2, 16], "warps_per_cta": [1, 1], "order": [0, 1]}}},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "only", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "c1": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "only", "ports": {"x": "rb"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "c2": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "only", "ports": {"x": "cb"}, "cost": {"ns": 1}, "multiplicity": "M"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "c1", "task": "c1"}, {"id": "c2", "task": "c2"}],
  "edges": [{"from": "p.y", "to": "c1.x"}, {"from": "p.y", "to": "c2.x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Faults planted in the lowered Problem are caught by the graph verifier,
// which names where the planner's costs and the graph's part.
func TestGraphVerifierCatchesPlantedFaults(t *testing.T) {
	t.Run("a pair's cost", func(t *testing.T) {
		ve := planted(t, examples(t)["fanout"], func(lw *lowering) {
			g := &lw.problem.Groups[groupOf(t, lw, "norm.y")]
			g.Pairs = slices.Clone(g.Pairs) // groups may share their pairs
			for i := range g.Pairs {
				g.Pairs[i].Cost *= 0.5
			}
		})
		if ve.Violations != nil || !strings.Contains(strings.Join(ve.Differences, "\n"), "edge norm.y -> q_proj.lhs: planner ") {
			t.Errorf("%v", ve)
		}
	})
	t.Run("a label that makes two conversions one", func(t *testing.T) {
		ve := planted(t, threeReaders(t), func(lw *lowering) {
			g := &lw.problem.Groups[groupOf(t, lw, "p.y")]
			g.Consumers = slices.Clone(g.Consumers)
			g.Consumers[1].Targets = g.Consumers[0].Targets
		})
		diffs := strings.Join(ve.Differences, "\n")
		if ve.Verified <= ve.Solver || !strings.HasPrefix(diffs, "edge p.y -> c2.x: planner 0 ns") || strings.Contains(diffs, "edge p.y -> c1.x") {
			t.Errorf("%v", ve)
		}
	})
	t.Run("an execution cost", func(t *testing.T) {
		ve := planted(t, examples(t)["fanout"], func(lw *lowering) {
			v := slices.IndexFunc(lw.invs, func(v *tasks.Invocation) bool { return v.ID == "k_proj" })
			alts := slices.Clone(lw.problem.Nodes[v].Alternatives) // a class shares them
			alts[0].Cost *= 3
			lw.problem.Nodes[v].Alternatives = alts
		})
		if len(ve.Differences) != 1 || !strings.HasPrefix(ve.Differences[0], "invocation k_proj (mma_sync): planner ") {
			t.Errorf("%v", ve)
		}
	})
	t.Run("a conversion's scratch left out of its budget", func(t *testing.T) {
		ve := planted(t, examples(t)["smem_budget"], func(lw *lowering) {
			for gi := range lw.problem.Groups {
				g := &lw.problem.Groups[gi]
				g.Pairs = slices.Clone(g.Pairs)
				for i := range g.Pairs {
					g.Pairs[i].Uses = nil
				}
			}
		})
		if len(ve.Violations) != 1 || !strings.HasPrefix(ve.Violations[0], "budget kernel gemm_kernel: shared memory (bytes): use ") {
			t.Errorf("%v", ve)
		}
	})
}

// A plan that takes an alternative its invocation forbids, that its group's
// registers cannot hold, or whose conversions the graph cannot make, is
// infeasible by the graph, each for its reason.
func TestGraphVerifierViolations(t *testing.T) {
	fanout := examples(t)["fanout"]
	s := fanout.Spec()
	for i := range s.Invocations {
		if s.Invocations[i].ID == "norm" {
			s.Invocations[i].Forbid = []string{"into_mma_a"}
		}
	}
	s.Groups = []tasks.GroupSpec{{ID: "k", Invocations: []string{"load_wq", "q_proj"}, RegistersPerThread: 32}}
	g, err := tasks.New(s)
	if err != nil {
		t.Fatal(err)
	}
	choices := func(norm string) []GraphChoice {
		var out []GraphChoice
		for _, v := range g.Invocations() {
			alt := v.Task.Alternatives[0].ID
			if v.ID == "norm" {
				alt = norm
			}
			out = append(out, GraphChoice{Alternative: alt})
		}
		return out
	}
	ev, err := EvaluateGraph(g, choices("into_mma_a"), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"invocation norm: alternative into_mma_a is not allowed by its pins and forbids",
		"invocation q_proj: alternative mma_sync needs 64 registers per thread, over group k's budget of 32",
	}
	if !slices.Equal(ev.Violations[:min(len(ev.Violations), 2)], want) || !math.IsInf(ev.Cost, 1) {
		t.Errorf("violations %q, cost %v; want %q first and no cost", ev.Violations, ev.Cost, want)
	}
	if _, err := EvaluateGraph(g, choices("no_such"), PlanOptions{}); err == nil || !strings.Contains(err.Error(), `task rmsnorm_scale has no alternative "no_such"`) {
		t.Errorf("an alternative the task lacks: %v", err)
	}
}

// The round trips of one producer port, by rule 4: the edges that must
// cross share the producer's store and one boundary, paid on the first;
// the others pay their loads; a consumer reading a global layout itself
// pays its own boundary and the store into it, which a second consumer
// reading the same layout shares. Costs from the target's figures.
func TestGraphVerifierRoundTrips(t *testing.T) {
	b := tasks.NewBuilder("round-trips", "h200").Size("M", 4096).Space("t", "(m:16, k:16)").
		IndexMap("rows", "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)").
		Layout("G", "global f16 elements align 16: rows")
	b.Task("p").Out("y", "t", storage.F16).Alternative("only").Dist("y", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M")
	b.Task("reg").In("x", "t", storage.F16).Alternative("only").Dist("x", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M * 2")
	b.Task("glob").In("x", "t", storage.F16).Alternative("only").Layout("x", "G").CostNS(1).Multiplicity("M")
	b.Invoke("p", "p")
	for _, c := range []string{"x1", "x2", "g1", "g2"} {
		task := "reg"
		if c[0] == 'g' {
			task = "glob"
		}
		b.Invoke(c, task)
	}
	b.Edge("p.y", "g1.x")
	b.Edge("p.y", "x1.x").MustCrossKernel()
	b.Edge("p.y", "g2.x")
	b.Edge("p.y", "x2.x").MustCrossKernel()
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := EvaluateGraph(g, []GraphChoice{{Alternative: "only"}, {Alternative: "only"}, {Alternative: "only"}, {Alternative: "only"}, {Alternative: "only"}}, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := g.Target().Model
	launch, bw := m.Get("launch_overhead_ns"), m.Get("hbm_gb_per_s")
	tile := 16 * 16 * 2.0
	store, load := tile*4096/bw, tile*2*4096/bw // the producer emits M tiles, x1 and x2 read 2·M
	want := map[string]struct {
		cost   float64
		paidOn string
	}{
		"p.y -> g1.x": {launch + store, ""},
		"p.y -> x1.x": {launch + store + load, ""},
		"p.y -> g2.x": {0, "p.y -> g1.x"},
		"p.y -> x2.x": {load, "p.y -> x1.x"},
	}
	for _, ec := range ev.Edges {
		w := want[ec.Edge]
		if math.Abs(ec.Cost-w.cost) > 1e-9*w.cost || ec.PaidOn != w.paidOn || ec.Crossing != tasks.GlobalRoundTrip {
			t.Errorf("%s: %v ns %s paid on %q, want %v ns paid on %q", ec.Edge, ec.Cost, ec.Crossing, ec.PaidOn, w.cost, w.paidOn)
		}
	}
	agreeOnBoundaries(t, g, PlanOptions{})
}

// A producer that writes a global layout itself and consumers that hold
// the tile in registers: each edge is a round trip of its own, one boundary
// and the tiles its consumer reads (rule 4), even where two consumers need
// the same distribution — a fan-out shares conversions inside a kernel,
// not loads after a boundary. (The lowering once gave such consumers one
// label: one round trip for both, with the loads of either.) Two readers of
// one global layout in different loops share the boundary, which loops do
// not constrain; two stores into one shared layout, one by a consumer in
// the producer's group and one by a consumer outside it, are one store.
func TestRoundTripsOutOfAGlobalLayoutAreEachEdgesOwn(t *testing.T) {
	build := func(pin, loop string) *tasks.Graph {
		text := `{"version": 1, "name": "global-producer", "target": "h200", "sizes": {"M": 4096},
  "spaces": {"t": "(m:16, k:16)"},
  "index_maps": {"rows": "logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)"},
  "layouts": {"G": "global f16 elements align 16: rows", "S": "shared f16 elements align 16: rows"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "writes_g", "ports": {"y": {"layout": "G"}}, "cost": {"ns": 1}, "multiplicity": "M"},
                           {"id": "in_regs", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "once": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "only", "ports": {"x": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "twice": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "only", "ports": {"x": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M * 2"}]},
    "reads_g": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "g", "ports": {"x": {"layout": "G"}}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "reads_g_looped": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "g", "ports": {"x": {"layout": "G", "loop": "` + loop + `"}}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "reads_s": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "s", "ports": {"x": {"layout": "S"}}, "cost": {"ns": 1}, "multiplicity": "M"}]}},
  "invocations": [{"id": "p", "task": "p", "pin": ["` + pin + `"]}, {"id": "a", "task": "once"}, {"id": "b", "task": "twice"},
                  {"id": "g1", "task": "reads_g"}, {"id": "g2", "task": "reads_g_looped"}, {"id": "s1", "task": "reads_s"}, {"id": "s2", "task": "reads_s"}],
  "edges": [{"from": "p.y", "to": "a.x"}, {"from": "p.y", "to": "b.x"}, {"from": "p.y", "to": "g1.x"}, {"from": "p.y", "to": "g2.x"},
            {"from": "p.y", "to": "s1.x"}, {"from": "p.y", "to": "s2.x"}],
  "groups": [{"id": "k", "invocations": ["p", "s1"]}]}`
		g, err := tasks.Load([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	m := examples(t)["fanout"].Target().Model
	launch, bw := m.Get("launch_overhead_ns"), m.Get("hbm_gb_per_s")
	tile := 16 * 16 * 2.0
	r := agreeOnBoundaries(t, build("writes_g", "h"), PlanOptions{})
	want := map[string]float64{
		"p.y -> a.x":  launch + tile*4096/bw, // its own boundary and loads
		"p.y -> b.x":  launch + tile*2*4096/bw,
		"p.y -> g1.x": launch, // the producer's own layout: the boundary alone
		"p.y -> g2.x": 0,      // shared with g1, whatever its loop
		"p.y -> s1.x": launch + tile*4096/bw,
		"p.y -> s2.x": launch + tile*4096/bw,
	}
	for _, b := range r.Boundaries {
		if w := want[b.Edge]; math.Abs(b.CostNS-w) > 1e-9*w {
			t.Errorf("writing G: %s: %v ns (%s), want %v", b.Edge, b.CostNS, b.Detail, w)
		}
	}
	r = agreeOnBoundaries(t, build("in_regs", "h"), PlanOptions{})
	for _, b := range r.Boundaries {
		if b.Edge == "p.y -> s2.x" && (b.CostNS != 0 || !slices.Equal(b.SharedWith, []string{"p.y -> s1.x"})) {
			t.Errorf("in registers: %s: %v ns, shared with %v; want the store into S that s1 pays", b.Edge, b.CostNS, b.SharedWith)
		}
	}
}

// BenchmarkEvaluateGraph is the graph verifier's own cost on the plan of
// taskgen's transformer of 10,000 invocations, the cache warm as Plan
// leaves it.
//
//	go test ./planner -run '^$' -bench EvaluateGraph
func BenchmarkEvaluateGraph(b *testing.B) {
	g, err := tasks.Limits{FileBytes: 1 << 30, Invocations: 1 << 20, Edges: 1 << 21}.Load(benchGraph(b, "transformer", 10000))
	if err != nil {
		b.Fatal(err)
	}
	opts := PlanOptions{Cache: NewCache()}
	r, err := Plan(context.Background(), g, opts)
	if err != nil {
		b.Fatal(err)
	}
	choices := ChoicesOf(r)
	for b.Loop() {
		if _, err := EvaluateGraph(g, choices, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzGraphVerifier compares the Problem's evaluation with the graph
// verifier's on every plan (or a sample) of a random graph drawn from the
// fuzzer's seed, widened by its knobs (graphKnobs), and plans it: the
// plan must pass the graph verifier with every boundary as the graph costs
// it.
//
//	go test ./planner -run '^$' -fuzz FuzzGraphVerifier -fuzztime 10m -parallel 1
func FuzzGraphVerifier(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed, uint64(3), uint16(0))
		f.Add(seed, uint64(5), uint16(0xff))
		f.Add(seed, uint64(7), uint16(knobHub|knobCross|knobTri))
		f.Add(seed, uint64(9), uint16(knobGroups|knobLarger|knobMeasured))
		f.Add(seed, uint64(11), uint16(knobRegisters|knobWork|knobGroups|knobSizes))
	}
	f.Fuzz(func(t *testing.T, seed, stream uint64, knobs uint16) {
		text := randomGraphWith(rand.New(rand.NewPCG(seed, stream)), 0, graphKnobs(knobs))
		g, err := tasks.Load([]byte(text))
		if err != nil {
			return // a must_cross edge inside a group, an unrunnable alternative
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("graph:\n%s", text)
			}
		})
		opts := PlanOptions{Cache: NewCache(), Solve: Options{NoRegrets: true}}
		agreeOnPlans(t, g, opts, 400, seed)
		if _, err := Plan(context.Background(), g, opts); errors.Is(err, ErrInfeasible) {
			return
		}
		agreeOnBoundaries(t, g, opts)
	})
}

// Edges that must cross into two ports of one consumer, both holding the
// tile in one distribution, each load the tile (rule 4: the store and the
// boundary are paid on the port's first edge that must cross, "the others
// pay their loads"). (The lowering once labelled such edges by the
// consumer invocation: the two ports shared one load.)
func TestMustCrossEdgesIntoTwoPortsOfOneConsumerEachLoad(t *testing.T) {
	b := tasks.NewBuilder("two-ports", "h200").Size("M", 4096).Space("t", "(m:16, k:16)")
	b.Task("p").Out("y", "t", storage.F16).Alternative("only").Dist("y", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M")
	b.Task("one").In("x", "t", storage.F16).Alternative("only").Dist("x", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M")
	b.Task("two").In("x", "t", storage.F16).In("z", "t", storage.F16).Alternative("only").
		Dist("x", "mma.m16n8k16.a.f16", "").Dist("z", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M")
	b.Invoke("p", "p")
	b.Invoke("a", "one")
	b.Invoke("c", "two")
	b.Edge("p.y", "a.x").MustCrossKernel()
	b.Edge("p.y", "c.x").MustCrossKernel()
	b.Edge("p.y", "c.z").MustCrossKernel()
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	m := g.Target().Model
	launch, bw := m.Get("launch_overhead_ns"), m.Get("hbm_gb_per_s")
	load := 16 * 16 * 2.0 * 4096 / bw
	want := map[string]float64{"p.y -> a.x": launch + 2*load, "p.y -> c.x": load, "p.y -> c.z": load}
	r := agreeOnBoundaries(t, g, PlanOptions{})
	for _, bd := range r.Boundaries {
		if w := want[bd.Edge]; math.Abs(bd.CostNS-w) > 1e-9*w {
			t.Errorf("%s: %v ns (%s), want %v", bd.Edge, bd.CostNS, bd.Detail, w)
		}
	}
	if agreeOnPlans(t, g, PlanOptions{}, 10, 1) != 1 {
		t.Error("the plan not compared")
	}
}

// Consumers of a fan-out that need the producer's own distribution share
// a measured identity conversion as any other: one boundary pays it, the
// others are shared with it, and the boundaries add up to the plan's
// conversion cost. (The plan's boundaries once charged it on every edge,
// the identity being "nothing to share", while the objective counted it
// once.)
func TestMeasuredIdentityIsSharedByAFanOut(t *testing.T) {
	b := tasks.NewBuilder("measured-identity", "h200").Size("M", 4096).Space("t", "(m:16, k:16)").
		MeasuredConversion("mma.m16n8k16.a.f16", "mma.m16n8k16.a.f16", 3)
	b.Task("p").Out("y", "t", storage.F16).Alternative("only").Dist("y", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M")
	b.Task("c").In("x", "t", storage.F16).Alternative("only").Dist("x", "mma.m16n8k16.a.f16", "").CostNS(1).Multiplicity("M")
	b.Invoke("p", "p")
	b.Invoke("c1", "c")
	b.Invoke("c2", "c")
	b.Edge("p.y", "c1.x")
	b.Edge("p.y", "c2.x")
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	r := agreeOnBoundaries(t, g, PlanOptions{})
	want := 3 * 4096 / g.Target().Model.Get("sm_count")
	if len(r.Boundaries) != 2 || math.Abs(r.Boundaries[0].CostNS-want) > 1e-9*want ||
		r.Boundaries[1].CostNS != 0 || !slices.Equal(r.Boundaries[1].SharedWith, []string{"p.y -> c1.x"}) {
		t.Errorf("boundaries %+v; want %v ns on p.y -> c1.x, shared by p.y -> c2.x", r.Boundaries, want)
	}
}

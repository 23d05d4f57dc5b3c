package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/planner"
	"github.com/cklplan/cklplan/tasks"
)

var planCommand = &opTable[planRequest, *planRequest]{
	name:    "plan",
	summary: "plan a task graph: one alternative per invocation, one conversion per boundary, with HiGHS",
	about: `Plans the task graph in FILE (docs/format.md; - reads stdin): chooses one
alternative per invocation and one conversion per boundary jointly, minimizing
execution plus conversion cost under the kernels' budgets, with HiGHS; then
explains the choice. --format text (the default) is the report for people:
the summary, every invocation's choice and each rejected alternative's regret
(how much more the best plan using it costs) and reason, every boundary's
conversion. --format json is the plan for programs (docs/plan-format.md);
--format dot draws the graph for Graphviz, boundaries coloured by class.
An interrupt (Ctrl-C) stops the solve and reports the best plan found, with
its gap (HiGHS notices it between branch-and-bound steps; inside the first LP
of a large core, only once that LP is solved); one that comes while the
report is written lets it finish; a second one ends the program.
On a terminal, a plan that takes over a second shows its progress on stderr
(HiGHS's incumbent, bound and gap; then how many of the regrets' queries to
the core are answered); --quiet hides it. The graph's warnings (what
'cklplan check' warns of: an input no edge feeds, …) go to stderr, as
check writes them, and do not stop the plan; so does a plan whose kernels
have no order (an edge kept inside one kernel while another path between
its invocations crosses a kernel boundary: docs/plan-format.md,
kernel_conflicts).
Exit status: 0 planned, 1 invalid graph or no feasible plan, 2 usage.
`,
	flags: func(fs *flag.FlagSet, q *planRequest) {
		fs.StringVar(&q.target, "target", "", "plan for `target` (sm80, sm90, h200, or a target JSON file of figures, with the features of the built-in target it is named after, else the graph's) instead of the graph's: its features and limits decide which alternatives run")
		fs.Var((*durationFlag)(&q.timeLimit), "time-limit", "stop HiGHS after `duration` (e.g. 10s; 0: no limit) and report the best plan with its gap")
		fs.Float64Var(&q.gap, "gap", 0, "relative MIP `gap` at which HiGHS may stop (default 1e-9)")
		fs.StringVar(&q.regretLimit, "regret-time-limit", "auto", "also bound the regrets by time, to `limit`: a duration, auto (by work, the same every run: 5× the plan's, in its search's nodes, HiGHS's simplex iterations or the reductions' entries) or none (or 0); regrets it leaves unproven are shown as intervals, which then differ from run to run. A limit here or --time-limit also gives the kernel order's solves, where the plan chooses which edges cross, a window (3× the plan's solve, at least 2s); none without --time-limit times nothing")
		fs.StringVar(&q.regretSolves, "regret-solves", strconv.Itoa(defaultRegretSolves), "re-solve at most `n` of the core's regret queries (or all), those whose plans found so far cost least; the regrets left are shown as the intervals proven without them, the same from run to run")
		fs.Var(&q.explain, "explain", "compute regrets only for these comma-separated invocation `ids` (given again: for those too)")
		fs.StringVar(&q.costs, "costs", "", "measured costs `file` (docs/format.md, \"Measured costs\"; - reads stdin), overriding the graph's and the model's")
		fs.StringVar(&q.start, "start", "", "start from the plan in `file` (a JSON plan, --format json, of this graph or an earlier version of it; - reads stdin): its choices start the solve where they are better than the local choice, which under --time-limit can return a better plan; a plan proven optimal costs the same")
		fs.BoolVar(&q.noReduce, "no-reduce", false, "solve the whole model in HiGHS, without the exact structural reduction")
		fs.BoolVar(&q.quiet, "quiet", false, "no progress on stderr")
		fs.StringVar(&q.witnesses, "witnesses", "inline", "how --format json carries the conversions' witnesses: `form` inline (on every boundary), table (each distinct one once, in \"witnesses\", named by index from each boundary's \"witness_ref\") or none")
		fs.BoolVar(&q.timing, "timing", false, "report the solve time (the output then differs from run to run)")
	},
	ops: []*op[*planRequest]{{operands: "FILE", min: 1, max: 1, formats: []string{"text", "json", "dot"}, jsonFlags: []string{"witnesses"},
		flags: []string{"target", "time-limit", "gap", "regret-time-limit", "regret-solves", "explain", "costs", "start", "no-reduce", "quiet", "timing", "witnesses"}, run: runPlan}},
}

// planSignals counts the plans whose interrupts are caught (for tests).
var planSignals atomic.Int32

// The regrets' limits by default: planner.CommandLineOptions.
const (
	defaultRegretSolves = planner.DefaultRegretSolves
	autoRegretTime      = planner.DefaultRegretTimeLimit
	autoRegretFactor    = planner.DefaultRegretTimeFactor
)

// A planRequest is a task graph and how to plan it.
type planRequest struct {
	file        string
	data        []byte
	in          *input
	target      string
	timeLimit   time.Duration
	gap         float64
	explain     idList
	regretLimit string
	// regretSolves is --regret-solves: a count, or all.
	regretSolves string
	costs        string
	start        string // --start: a JSON plan to start from
	noReduce     bool
	quiet        bool
	timing       bool
	witnesses    string
}

func (q *planRequest) setOperands(args []string, in *input) error {
	if len(args) == 0 {
		return nil
	}
	q.file, q.in = args[0], in
	if err := bothStdin(q.file, q.costs); err != nil {
		return err
	}
	if q.start == "-" && (q.file == "-" || q.costs == "-") {
		return badRequest("--start and FILE or --costs are both - (stdin): give one of them as a file")
	}
	var err error
	q.data, err = in.file(q.file)
	return err
}

func (q *planRequest) count() int { return 1 }
func (q *planRequest) setTail(string, []string) error {
	return errors.New("plan takes no further arguments")
}

// durationSyntax is what time.ParseDuration reads, of any size.
var durationSyntax = regexp.MustCompile(`^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// A durationFlag is a time.Duration flag whose error says what a duration
// looks like: flag.Duration's says only "parse error", for "5" too.
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(v string) error {
	t, err := time.ParseDuration(v)
	if err != nil {
		if _, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			return fmt.Errorf("a number without a unit: want a duration such as %ss or %sms", v, v)
		}
		if durationSyntax.MatchString(v) {
			// Written as a duration, refused: it overflows.
			return errors.New("too long: want a duration of at most 2562047h (about 292 years)")
		}
		return errors.New("want a duration such as 10s, 500ms or 2m")
	}
	*d = durationFlag(t)
	return nil
}

// An idList is a flag of comma-separated ids, spaces around them dropped;
// set says the flag was given. Given again, it adds its ids to the
// earlier ones. An empty id ("", "a,,b") is refused.
type idList struct {
	ids []string
	set bool
}

func (l *idList) String() string { return strings.Join(l.ids, ",") }

func (l *idList) Set(v string) error {
	ids := strings.Split(v, ",")
	for i, id := range ids {
		if ids[i] = strings.TrimSpace(id); ids[i] == "" {
			return fmt.Errorf("id %d of %d is empty: want comma-separated invocation ids", i+1, len(ids))
		}
	}
	l.ids, l.set = append(l.ids, ids...), true
	return nil
}

// planResult renders a planner.Result.
type planResult struct{ *planner.Result }

func (r planResult) writeText(w io.Writer, format string) error {
	if format == "dot" {
		return r.WriteDOT(w)
	}
	return r.WriteText(w)
}

func (r planResult) writeJSON(w io.Writer) error { return r.WriteJSON(w) }

func runPlan(q *planRequest, env *env) (result, error) {
	// The flags' values first: a bad one is a usage error (exit 2).
	form, err := planner.ParseWitnessForm(q.witnesses)
	if err != nil {
		return nil, badRequest("--witnesses %q: want inline, table or none", q.witnesses)
	}
	if !(q.gap >= 0 && q.gap < 1) { // NaN too
		return nil, badRequest("--gap %v: want a number in [0, 1)", q.gap)
	}
	if q.timeLimit < 0 {
		return nil, badRequest("--time-limit %v: want a positive duration (e.g. 10s), or 0 for none", q.timeLimit)
	}
	regretSolves := 0 // all
	if q.regretSolves != "all" {
		n, err := strconv.Atoi(q.regretSolves)
		if err != nil || n <= 0 {
			return nil, badRequest("--regret-solves %q: want a positive count (e.g. %d) or all", q.regretSolves, defaultRegretSolves)
		}
		regretSolves = n
	}
	regretLimit := time.Duration(-1) // auto
	switch q.regretLimit {
	case "auto":
	case "none", "0":
		regretLimit = 0 // 0, as for --time-limit: no limit
	default:
		d, err := time.ParseDuration(q.regretLimit)
		if err != nil || d < 0 {
			return nil, badRequest("--regret-time-limit %q: want a duration (e.g. 30s; 0: none), auto or none", q.regretLimit)
		}
		regretLimit = d
	}
	var target *costmodel.Target
	if q.target != "" {
		var err error
		if target, err = loadTarget(q.target, q.in); err != nil {
			return nil, err
		}
	}
	// The first interrupt (Ctrl-C) stops the solve: the report is the best
	// plan found, with its gap; a second one ends the program. The
	// interrupts are caught until the report is written: one that comes
	// while it is written lets it finish (a large plan's JSON takes
	// seconds), where the default would end the program with nothing
	// written.
	ctx, stopNotify := signal.NotifyContext(context.Background(), os.Interrupt)
	planSignals.Add(1)
	stopSignals := sync.OnceFunc(func() {
		stopNotify()
		planSignals.Add(-1)
	})
	env.atFinish(stopSignals)
	context.AfterFunc(ctx, stopSignals)
	// The conversions between the tasks' distributions are classified on
	// another processor while the invocations and edges load.
	cache := planner.NewCache()
	g, err := tasks.Limits{}.LoadWith(q.data, func(pre *tasks.Prelude) { cache.Prefetch(ctx, pre, target) })
	if err != nil {
		return nil, inFiles(err, inputFiles{graph: shownName(q.file)})
	}
	// The target first, then the costs: a costs file's problems are then
	// named at its own paths, whatever the target.
	// --target replaces the graph's target whole: its features and limits
	// decide which alternatives run, as its figures cost them (a plan for
	// sm80 may not take a wgmma or TMA alternative). A target file holds
	// figures only: it takes the features of the built-in target it is
	// named after (and that name, with the file's, as a custom target may
	// not be named like a built-in one), else the graph's target's.
	if target != nil {
		spec := tasks.TargetSpec{Name: q.target}
		if _, ok := tasks.BuiltinTarget(q.target); !ok {
			name, features := target.Name, g.Target().Features
			if bt, ok := tasks.BuiltinTarget(name); ok {
				name, features = fmt.Sprintf("%s (%s)", name, q.target), bt.Features
			} else if env.stderr != nil {
				// Features decide which alternatives run: said, as a
				// file of an A100's figures under another name would
				// otherwise plan wgmma and TMA.
				fmt.Fprintf(env.stderr, "cklplan plan: --target %s: warning: %q is no built-in target's name (%s): it takes the features of the graph's target, %s (%s) [target_features]\n",
					q.target, name, strings.Join(costmodel.TargetNames(), ", "), g.Target().Name, strings.Join(features, ", "))
			}
			t := tasks.CustomTarget(name, features, target)
			spec = tasks.TargetSpec{Name: name, Custom: &t}
		}
		if g, err = g.WithTarget(spec); err != nil {
			// The graph's problems under another target: each line says
			// so before the file ("--target sm80: FILE: PATH: …").
			return nil, inFiles(err, inputFiles{graph: "--target " + q.target + ": " + shownName(q.file)})
		}
		// The figures under the target's name ("sm80 (FILE)" for a file
		// named like a built-in): the report names the target whose
		// figures cost the plan, not the built-in one.
		target = g.Target().Model
	}
	var own tasks.Measured // the graph's own measured costs, before the file's
	var costsData []byte
	if q.costs != "" {
		data, err := q.in.flagFile("costs", q.costs)
		if err != nil {
			return nil, err
		}
		own, costsData = g.Measured(), data
		if g, err = g.LoadMeasured(data); err != nil {
			// The problems name paths in the costs file, but for the
			// graph's own (an error a measurement makes in the graph).
			return nil, inFiles(err, inputFiles{graph: shownName(q.file), costs: shownName(q.costs)})
		}
	}
	// Costs measured on another target than the plan's are refused by the
	// planner; said here, at the file and the flag they came from, instead
	// of a warning and then the planner's error.
	if on := g.Measured().Target; on != "" && on != g.Target().Name {
		return nil, measuredTargetError(q, costsData, on, g.Target().Name)
	}
	// The graph's warnings (an input no edge feeds, an output no edge
	// reads, …) do not stop the plan, but they are said, as check says
	// them: a plan of a graph missing an edge is no surprise later.
	if env.stderr != nil {
		files := inputFiles{graph: shownName(q.file), costs: shownName(q.costs)}
		for _, p := range g.Warnings() {
			fmt.Fprintf(env.stderr, "cklplan plan: %s\n", files.line(p))
		}
	}
	opts := planner.PlanOptions{Solve: planner.Options{NoReduce: q.noReduce, TimeLimit: q.timeLimit, RelativeGap: q.gap, RegretSolves: regretSolves},
		Timing: q.timing, Target: target, Cache: cache}
	if regretLimit < 0 {
		opts.Solve.RegretTimeLimit, opts.Solve.RegretTimeFactor = autoRegretTime, autoRegretFactor
		opts.Solve.RegretWork = planner.DefaultRegretWork
	} else {
		opts.Solve.RegretTimeLimit = regretLimit
	}
	if q.explain.set {
		opts.ExplainIDs = q.explain.ids
	}
	if q.start != "" {
		data, err := q.in.file(q.start)
		var le *limitError
		switch {
		case errors.As(err, &le):
			// A JSON plan carries every boundary's witness by default:
			// 47 MB for a 300-invocation DAG, against 1.7 MB without.
			return nil, &limitError{what: "--start: " + le.what, flag: le.flag,
				hint: "a plan written with --witnesses none (or table) holds the same choices in far fewer bytes"}
		case err != nil:
			return nil, fmt.Errorf("--start: %w", err)
		}
		if opts.Start, err = planner.DecodeStart(data); err != nil {
			return nil, inFiles(err, inputFiles{graph: "--start " + shownName(q.start)})
		}
		if env.stderr != nil {
			if w := planner.UnmatchedStart(g, opts.Start); w != "" {
				fmt.Fprintf(env.stderr, "cklplan plan: --start %s: warning: %s [start]\n", shownName(q.start), w)
			}
		}
	}
	stop := func() {}
	if !q.quiet && env.stderr != nil && isTerminal(env.stderr) {
		stop = progress(env.stderr, &opts)
	}
	res, err := planner.Plan(ctx, g, opts)
	stop()
	var outside []string
	if err == nil {
		// What the plan keeps outside a kernel's budget, read from the
		// witnesses before WithWitnesses moves them.
		outside = planner.OutsideBudgets(g, res)
		res, err = res.WithWitnesses(form)
	}
	var pe *planner.PlanInfeasibleError
	if errors.As(err, &pe) {
		return infeasibleResult{pe}, nil
	}
	var ce *planner.CostError
	if errors.As(err, &ce) {
		// Every cost over the planner's limit, as check says them: at
		// the costs file's entry that measured it, else at its
		// invocation.
		if ps := costProblems(g, costsData, own); len(ps) > 0 {
			ps.Sort()
			return nil, problemsError{ps, inputFiles{graph: shownName(q.file), costs: shownName(q.costs)}}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shownName(q.file), err)
	}
	// A plan whose kernels have no order is said beside the graph's
	// warnings, whatever the format (JSON carries it in kernel_conflicts,
	// the text report in its summary).
	if env.stderr != nil {
		for _, c := range res.KernelConflicts {
			fmt.Fprintf(env.stderr, "cklplan plan: %s: warning: %s [kernel_conflict]\n", shownName(q.file), c)
		}
		for _, o := range outside {
			fmt.Fprintf(env.stderr, "cklplan plan: %s: warning: %s [outside_budget]\n", shownName(q.file), o)
		}

	}
	return planResult{res}, nil
}

// infeasibleResult reports a graph no plan fits: the conflict on stdout
// (text or JSON; nothing to draw for dot), the error on stderr, exit 1.
type infeasibleResult struct{ *planner.PlanInfeasibleError }

func (r infeasibleResult) writeText(w io.Writer, format string) error {
	if format == "dot" {
		return nil
	}
	return r.WriteText(w)
}

func (r infeasibleResult) writeJSON(w io.Writer) error { return r.WriteJSON(w) }
func (r infeasibleResult) failure() error              { return r.PlanInfeasibleError }

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress shows on stderr, once a solve has run for a second and every
// second after, the elapsed time and the solve's last report
// (progressLine); stop clears the line.
func progress(w io.Writer, opts *planner.PlanOptions) (stop func()) {
	var last atomic.Pointer[planner.Progress]
	opts.Solve.Progress = func(p planner.Progress) { last.Store(&p) }
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-t.C:
				shown = true
				fmt.Fprint(w, "\r\033[K"+progressLine(time.Since(start), last.Load()))
			}
		}
	}()
	return func() { close(done); <-finished }
}

// nsText writes a progress figure in ns, µs or ms, or "none" before HiGHS
// has one.
func nsText(ns float64) string {
	if math.IsInf(ns, 0) || math.IsNaN(ns) {
		return "none"
	}
	switch a := math.Abs(ns); {
	case a >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'g', 6, 64) + " ms"
	case a >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'g', 6, 64) + " µs"
	}
	return strconv.FormatFloat(ns, 'g', 6, 64) + " ns"
}

// progressLine is the progress shown after elapsed, p the solve's last
// report (nil: none yet).
func progressLine(elapsed time.Duration, p *planner.Progress) string {
	line := fmt.Sprintf("planning: %.0f s", elapsed.Seconds())
	switch {
	case p == nil:
	case p.Explaining:
		line += fmt.Sprintf("; plan %s (gap %s); regrets: %d of %d queries to the core answered",
			nsText(p.Incumbent), gapText(p.Gap), p.Answered, p.Queries)
	default:
		who := "HiGHS"
		if p.Searching {
			who = "branch and bound"
		}
		line += fmt.Sprintf("; %s: incumbent %s, bound %s, gap %s, %d nodes",
			who, nsText(p.Incumbent), nsText(p.Bound), gapText(p.Gap), p.Nodes)
	}
	return line
}

// gapText is a relative gap in percent, 0 below the solver's tolerances.
func gapText(gap float64) string {
	if math.IsInf(gap, 0) || math.IsNaN(gap) {
		return "none"
	}
	if gap < 1e-9 {
		return "0%"
	}
	return strconv.FormatFloat(100*gap, 'g', 3, 64) + "%"
}

// firstKey is the object key of p's first step, "" for none.
// costsProblem reports whether p, a problem of a graph with a costs file's
// measurements (tasks.Graph.LoadMeasured), is the costs file's, at its own
// paths: anywhere but under the keys a graph has and a costs file has not
// (the graph's measured target is $.measured.target, the file's $.target).
func costsProblem(p *jsonv.Problem) bool {
	switch firstKey(p.Path) {
	case "name", "sizes", "spaces", "index_maps", "layouts", "distributions", "tasks", "invocations", "edges", "groups", "measured":
		return false
	}
	return true
}

func firstKey(p jsonv.Path) string {
	if p.Len() == 0 {
		return ""
	}
	k, _ := p.At(0)
	return k
}

// measuredTargetError is the error of costs measured on another target
// (on) than the plan's: at the costs file's "target" where the file names
// it, else at the graph's own measured costs; the plan's target named with
// the flag that chose it.
func measuredTargetError(q *planRequest, costsData []byte, on, target string) error {
	file, path, leave := shownName(q.file), "$.measured.target", "its \"measured\""
	if q.costs != "" {
		if m, err := tasks.DecodeMeasured(costsData); err == nil && m.Target != "" {
			file, path, leave = shownName(q.costs), "$.target", "--costs"
		}
	}
	whose := "the graph's target"
	if q.target != "" {
		whose = "--target " + q.target
	}
	return errors.New(problemLine(file, path, fmt.Sprintf("the costs were measured on %s, but the plan is for %s (%s): they are not its costs (plan on %s, or leave out %s)", on, target, whose, on, leave), string(tasks.CodeMeasuredTarget), false))
}

package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/planner"
	"github.com/cklplan/cklplan/tasks"
)

var checkCommand = &opTable[checkRequest, *checkRequest]{
	name:    "check",
	summary: "validate a task-graph file and summarize it",
	about: `Validates a task graph (docs/format.md) and, with --costs, a file of measured
costs against it. A valid graph gets a summary (tasks, alternatives,
invocations, edges, sizes) and its warnings (an output nothing consumes),
exit 0. Otherwise every problem is listed, each with its code (the errors,
sorted by JSON path, then the warnings, sorted alike), and the exit status
is 1 (an execution cost over plan's limit of 1e15 ns is one, as plan says
it). Each line is whole, as a compiler writes an error: the file, the JSON
path, the message and the code.

  graph.json: $.invocations[3].task: unknown task "mma2" [unknown_name]

FILE "-" reads the graph from stdin. 'cklplan schema' prints the JSON Schema.
`,
	flags: func(fs *flag.FlagSet, q *checkRequest) {
		fs.StringVar(&q.costs, "costs", "", "a measured-costs `file` to validate against the graph (- reads stdin)")
	},
	ops: []*op[*checkRequest]{{operands: "FILE", min: 1, max: 1, flags: []string{"costs"}, run: runCheck}},
}

// A checkRequest is a task-graph file, read whole, and the measured-costs
// file to check with it.
type checkRequest struct {
	name  string
	data  []byte
	costs string
	in    *input
}

func (q *checkRequest) setOperands(args []string, in *input) error {
	q.name, q.in = args[0], in
	if err := bothStdin(q.name, q.costs); err != nil {
		return err
	}
	var err error
	q.data, err = in.file(args[0])
	return err
}

func (*checkRequest) setTail(string, []string) error { return nil }
func (*checkRequest) count() int                     { return 1 }

// A checkResult is the verdict on a graph: its problems (warnings
// included), and its summary when it is valid.
type checkResult struct {
	File     string         `json:"file"` // the graph's
	costs    string         // the costs file, "" without --costs
	Valid    bool           `json:"valid"`
	Problems []checkProblem `json:"problems"`
	Summary  *checkSummary  `json:"summary,omitempty"`
}

type checkProblem struct {
	// File is the file the path is in, given only with --costs: the
	// graph's or the costs file's.
	File    string `json:"file,omitempty"`
	Path    string `json:"path"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Warning bool   `json:"warning,omitempty"`
}

type checkSummary struct {
	Name         string           `json:"name"`
	Target       string           `json:"target"`
	Tasks        int              `json:"tasks"`
	Alternatives int              `json:"alternatives"`
	Invocations  int              `json:"invocations"`
	Candidates   int              `json:"candidates"`
	Edges        int              `json:"edges"`
	Renamed      int              `json:"renamed_edges"`
	MustCross    int              `json:"must_cross_edges"`
	Groups       int              `json:"groups"`
	Components   int              `json:"components"`
	Sizes        map[string]int64 `json:"sizes"`
	Measured     int              `json:"measured"`
}

// costProblems are the execution costs of g that plan refuses (over
// planner.MaxCostNS), each a range problem: at the costs file's entry
// (costsData, loaded over the graph's own measured costs own) where its
// measured time is the cost, else at the invocation in the graph's file.
// A target the planner cannot cost at all is plan's to report: none.
func costProblems(g *tasks.Graph, costsData []byte, own tasks.Measured) jsonv.Problems {
	costs, err := planner.CheckCosts(g)
	if err != nil || len(costs) == 0 {
		return nil
	}
	m, merr := tasks.DecodeMeasured(costsData) // it loaded: no error
	var ps jsonv.Problems
	for _, c := range costs {
		path := jsonv.Root.Key("invocations").Index(c.Index)
		if costsData != nil && merr == nil {
			if at, ok := costsEntry(m, own, g, c.Index, c.Alternative); ok {
				path = at
			}
		}
		ps = append(ps, &jsonv.Problem{Path: path, Code: jsonv.Range,
			Msg: strings.TrimPrefix(c.Error(), "planner: "), Offset: -1, Err: c})
	}
	return ps
}

func runCheck(q *checkRequest, _ *env) (result, error) {
	name, costs := shownName(q.name), shownName(q.costs)
	r := &checkResult{File: name, costs: costs, Problems: []checkProblem{}}
	g, err := tasks.Load(q.data)
	var own tasks.Measured // the graph's own measured costs, before the file's
	var costsData []byte
	if err == nil && q.costs != "" {
		if costsData, err = q.in.flagFile("costs", q.costs); err != nil {
			return nil, err
		}
		own = g.Measured()
		g, err = g.LoadMeasured(costsData)
	}
	var ps jsonv.Problems
	switch {
	case err == nil:
		ps = g.Warnings()
		// The execution costs plan refuses (over planner.MaxCostNS), as
		// plan says them: at the costs file's entry where its measured
		// time is the cost, else at their invocations in the graph's
		// file. A target the planner cannot cost at all is plan's to
		// report.
		if cps := costProblems(g, costsData, own); len(cps) > 0 {
			ps = append(ps, cps...)
			ps.Sort()
			err = ps
		}
	case !errors.As(err, &ps):
		return nil, err
	}
	for _, p := range ps {
		cp := checkProblem{Path: p.Path.String(), Code: string(p.Code), Message: p.Msg, Warning: p.Warning}
		if costs != "" {
			cp.File = name
			if costsProblem(p) {
				cp.File = costs
			}
		}
		r.Problems = append(r.Problems, cp)
	}
	// The errors first, then the warnings (what made the check fail
	// leads); in each, the graph's problems, then the costs file's, each
	// file's in the order of their paths.
	slices.SortStableFunc(r.Problems, func(a, b checkProblem) int {
		return cmp.Or(cmp.Compare(b2i(a.Warning), b2i(b.Warning)),
			cmp.Compare(b2i(costs != "" && a.File == costs), b2i(costs != "" && b.File == costs)))
	})
	if err != nil {
		return r, nil
	}
	r.Valid = true
	s := g.Summary()
	r.Summary = &checkSummary{Name: g.Name(), Target: g.Target().Name, Tasks: s.Tasks, Alternatives: s.Alternatives,
		Invocations: s.Invocations, Candidates: s.Candidates, Edges: s.Edges, Renamed: s.Renamed,
		MustCross: s.MustCross, Groups: s.Groups, Components: s.Components, Sizes: s.Sizes, Measured: s.Measured}
	return r, nil
}

func (r *checkResult) failure() error {
	if r.Valid {
		return nil
	}
	n, inCosts := 0, 0
	for _, p := range r.Problems {
		if !p.Warning {
			n++
			if r.costs != "" && p.File == r.costs {
				inCosts++
			}
		}
	}
	noun := "problems"
	if n == 1 {
		noun = "problem"
	}
	file := r.File
	if inCosts == n {
		file = r.costs + " (measured costs for " + r.File + ")"
	}
	return fmt.Errorf("%s: %d %s", file, n, noun)
}

// problemLine is how check writes a problem, and plan a problem of its
// input: one line, whole, as a compiler writes an error ("FILE: PATH:
// [warning: ]MESSAGE [CODE]"), so that an editor or grep takes it alone.
func problemLine(file, path, msg, code string, warning bool) string {
	warn := ""
	if warning {
		warn = "warning: "
	}
	return fmt.Sprintf("%s: %s: %s%s [%s]", oneLine(file), path, warn, oneLine(msg), code)
}

// oneLine escapes the control characters of s (a newline, a terminal
// escape) as a Go string literal would, so that a message that names what
// the input spelt with them, a name it refuses, stays one line of text.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !unicode.IsControl(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// inputFiles names the files of a graph's problems: the graph's, and the
// measured-costs file's ("" without one), whose problems are at its own
// paths (costsProblem).
type inputFiles struct{ graph, costs string }

// shownName is how a message names the input argument arg: "-" is
// "stdin", as every command says it.
func shownName(arg string) string {
	if arg == "-" {
		return "stdin"
	}
	return arg
}

// of is the file p's path is in.
func (f inputFiles) of(p *jsonv.Problem) string {
	if f.costs != "" && costsProblem(p) {
		return f.costs
	}
	return f.graph
}

// line is p written as check writes it, naming its file.
func (f inputFiles) line(p *jsonv.Problem) string {
	return problemLine(f.of(p), p.Path.String(), p.Msg, string(p.Code), p.Warning)
}

// problemsError is a list of input problems written as check writes them,
// one a line, the errors first, then the warnings. fail writes each line
// after the command's name, so that every line stays whole.
type problemsError struct {
	ps    jsonv.Problems
	files inputFiles
}

func (e problemsError) lines() []string {
	lines := make([]string, len(e.ps))
	for i, p := range e.ps.ErrorsFirst() {
		lines[i] = e.files.line(p)
	}
	return lines
}

func (e problemsError) Error() string { return strings.Join(e.lines(), "\n") }

func (e problemsError) Unwrap() error { return e.ps }

// inFiles is err, from loading the files f, with its input problems written
// as check writes them; another error is said after the graph's name.
func inFiles(err error, f inputFiles) error {
	var ps jsonv.Problems
	if errors.As(err, &ps) {
		return problemsError{ps, f}
	}
	return fmt.Errorf("%s: %w", f.graph, err)
}

func (r *checkResult) writeText(w io.Writer, _ string) error {
	for _, p := range r.Problems {
		file := p.File
		if file == "" {
			file = r.File
		}
		fmt.Fprintln(w, problemLine(file, p.Path, p.Message, p.Code, p.Warning))
	}
	s := r.Summary
	if s == nil {
		return nil
	}
	title := s.Name
	if title == "" {
		title = r.File
	}
	fmt.Fprintf(w, "ok: %s (target %s)\n", oneLine(title), s.Target)
	fmt.Fprintf(w, "  tasks         %d (%d alternatives)\n", s.Tasks, s.Alternatives)
	fmt.Fprintf(w, "  invocations   %d (%d candidates)\n", s.Invocations, s.Candidates)
	fmt.Fprintf(w, "  edges         %d (%d renamed, %d must cross a kernel)\n", s.Edges, s.Renamed, s.MustCross)
	fmt.Fprintf(w, "  groups        %d\n", s.Groups)
	fmt.Fprintf(w, "  components    %d\n", s.Components)
	var sizes []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.Sizes {
			if !yield(k) {
				return
			}
		}
	}) {
		sizes = append(sizes, fmt.Sprintf("%s=%d", k, s.Sizes[k]))
	}
	if len(sizes) == 0 {
		sizes = []string{"none"}
	}
	fmt.Fprintf(w, "  sizes         %s\n", strings.Join(sizes, " "))
	_, err := fmt.Fprintf(w, "  measured      %d\n", s.Measured)
	return err
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// costsEntry finds, in the measured-costs file m (the one --costs names,
// decoded), the entry that gives invocation index vi's alternative alt its
// cost in the graph it was loaded into, whose own measured costs (before
// the file's) are own: an entry for the invocation, else one for its task
// where the graph's own table has none for the invocation. Its path is
// the file's ($.alternatives[i].ns); false when the cost is not the file's.
func costsEntry(m tasks.MeasuredSpec, own tasks.Measured, g *tasks.Graph, vi int, alt string) (jsonv.Path, bool) {
	invs := g.Invocations()
	if vi < 0 || vi >= len(invs) {
		return jsonv.Root, false
	}
	v := invs[vi]
	at := func(inv string) int {
		return slices.IndexFunc(m.Alternatives, func(a tasks.MeasuredAlternative) bool {
			return a.Task == v.Task.Name && a.Alternative == alt && a.Invocation == inv
		})
	}
	i := at(v.ID)
	if i < 0 {
		if _, mine := own.Alternatives[tasks.MeasuredKey{Task: v.Task.Name, Alternative: alt, Invocation: v.ID}]; !mine {
			i = at("")
		}
	}
	if i < 0 {
		return jsonv.Root, false
	}
	return jsonv.Root.Key("alternatives").Index(i).Key("ns"), true
}

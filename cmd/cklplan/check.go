package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/tasks"
)

func init() {
	register(command{name: "check", summary: "validate a task-graph file and summarize it", run: runCheck})
}

func checkUsage(w io.Writer, fl *cmdFlags) {
	fmt.Fprintln(w, "usage: cklplan check [--costs MEASURED.json] FILE|-")
	fmt.Fprintln(w, `
Validates a task graph (docs/format.md) and, with --costs, a file of measured
costs against it. On success it prints a summary (tasks, alternatives,
invocations, edges, sizes) and exits 0; warnings (an output nothing consumes)
go to stderr. Otherwise it prints every problem, sorted by JSON path, each
with its code, to stderr and exits 1:

  $.invocations[3].task: unknown task "mma2" [unknown]

"-" reads the graph from stdin.`)
	if fl.hasFlags() {
		fmt.Fprintln(w, "\nflags:")
		fl.printDefaults(w)
	}
}

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("check", "FILE", stdout, stderr)
	costs := fl.String("costs", "", "a measured-costs `file` to validate against the graph")
	fl.usage = func(w io.Writer) { checkUsage(w, fl) }
	pos, code := parseFlags(fl, args, 1, 1)
	if code >= 0 {
		return code
	}
	name := pos[0]
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(io.LimitReader(stdin, tasks.MaxFileBytes+1))
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cklplan check: %v\n", err)
		return exitFail
	}
	g, err := tasks.Load(data)
	if err == nil && *costs != "" {
		g, err = withCosts(g, *costs)
		if err != nil {
			name = *costs + " (with " + name + ")"
		}
	}
	if err != nil {
		return reportProblems(stderr, name, err)
	}
	for _, w := range g.Warnings() {
		fmt.Fprintf(stderr, "warning: %s [%s]\n", w.Error(), w.Code)
	}
	printSummary(stdout, name, g)
	return exitOK
}

func withCosts(g *tasks.Graph, file string) (*tasks.Graph, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m, err := tasks.DecodeMeasured(data)
	if err != nil {
		return nil, err
	}
	return g.WithMeasured(m)
}

// reportProblems prints every problem of err, or err itself.
func reportProblems(stderr io.Writer, name string, err error) int {
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		fmt.Fprintf(stderr, "cklplan check: %s: %v\n", name, err)
		return exitFail
	}
	errs := 0
	for _, p := range ps {
		prefix := ""
		if p.Warning {
			prefix = "warning: "
		} else {
			errs++
		}
		fmt.Fprintf(stderr, "%s%s [%s]\n", prefix, p.Error(), p.Code)
	}
	fmt.Fprintf(stderr, "cklplan check: %s: %d %s\n", name, errs, plural(errs, "problem"))
	return exitFail
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

func printSummary(w io.Writer, name string, g *tasks.Graph) {
	s := g.Summary()
	title := g.Name()
	if title == "" {
		title = name
	}
	fmt.Fprintf(w, "ok: %s (target %s)\n", title, g.Target().Name)
	fmt.Fprintf(w, "  tasks         %d (%d alternatives)\n", s.Tasks, s.Alternatives)
	fmt.Fprintf(w, "  invocations   %d (%d candidates)\n", s.Invocations, s.Candidates)
	fmt.Fprintf(w, "  edges         %d (%d renamed, %d must cross a kernel)\n", s.Edges, s.Renamed, s.MustCross)
	fmt.Fprintf(w, "  groups        %d\n", s.Groups)
	fmt.Fprintf(w, "  components    %d\n", s.Components)
	names := make([]string, 0, len(s.Sizes))
	for k := range s.Sizes {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s=%d", k, s.Sizes[k])
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	fmt.Fprintf(w, "  sizes         %s\n", strings.Join(parts, " "))
	if s.Measured > 0 {
		fmt.Fprintf(w, "  measured      %d\n", s.Measured)
	}
	if s.Warnings > 0 {
		fmt.Fprintf(w, "  warnings      %d\n", s.Warnings)
	}
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/hardware"
)

func init() {
	register(command{name: "dist", summary: "distributions: show an instruction atom or a JSON file, list atoms, emit the CUDA check", run: runDist})
}

const distUsage = `usage: cklplan dist show NAME|FILE|- [--format table|json|spec]
       cklplan dist list
       cklplan dist cuda [-o FILE]

show   draws a distribution: a built-in atom by NAME, or a JSON file (- reads
       stdin) holding {"builtin": …}, {"tiled": …}, {"blocked": …} or the
       explicit form. --format table draws the tile with the owning thread and
       value in each cell: T5:a3 is value 3 of thread 5, threads numbered
       warp * lanes + lane within a block; B1. in front names the block;
       T5:a3+1 has 1 more owner along the replicated executor axes, which
       the header marks with *. --format json lists every (executor, value)
       and its tile coordinates; spec writes the explicit JSON definition.
list   lists the built-in atoms.
cuda   writes the CUDA program that checks the atoms on a GPU (docs/hardware.md).
`

func runDist(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, distUsage)
		return exitUsage
	}
	switch args[0] {
	case "show":
		return runDistShow(args[1:], stdin, stdout, stderr)
	case "list":
		if _, code := parseFlags(newDistFlagSet("list", stdout, stderr), args[1:], 0, 0); code >= 0 {
			return code
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, name := range distribution.BuiltinNames() {
			d, err := distribution.Builtin(name)
			if err != nil {
				fmt.Fprintf(stderr, "cklplan dist: %v\n", err)
				return exitFail
			}
			fmt.Fprintf(tw, "%s\ttile %s\texecutors %s\tvalues %s\n", name, axesText(d.Tile()), axesText(d.Executors()), axesText(d.Locals()))
		}
		tw.Flush()
		return exitOK
	case "cuda":
		return runDistCUDA(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, distUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "cklplan dist: unknown subcommand %q\n", args[0])
	fmt.Fprint(stderr, distUsage)
	return exitUsage
}

// axesText writes axes as "dist show" heads its table: (m:16, k:16).
func axesText[T fmt.Stringer](axes []T) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// newDistFlagSet is the flag set of "dist SUB", whose usage is distUsage.
func newDistFlagSet(sub string, stdout, stderr io.Writer) *cmdFlags {
	fl := newFlagSet("dist "+sub, "", stdout, stderr)
	fl.usage = func(w io.Writer) { fmt.Fprint(w, distUsage) }
	return fl
}

func runDistShow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newDistFlagSet("show", stdout, stderr)
	format := fl.String("format", "table", "output `format`: table, json or spec")
	pos, code := parseFlags(fl, args, 1, 1)
	if code >= 0 {
		return code
	}
	switch *format {
	case "table", "json", "spec":
	default:
		fmt.Fprintf(stderr, "cklplan dist show: unknown format %q (want table, json or spec)\n", *format)
		return exitUsage
	}
	d, err := loadDistribution(pos[0], stdin)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan dist show: %v\n", err)
		return exitFail
	}
	switch *format {
	case "table":
		io.WriteString(stdout, d.Diagram())
	case "json":
		stdout.Write(d.EntriesJSON())
	case "spec":
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "cklplan dist show: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "%s\n", data)
	}
	return exitOK
}

// loadDistribution resolves a built-in atom name, "-" (stdin) or a JSON file.
func loadDistribution(arg string, stdin io.Reader) (*distribution.Distribution, error) {
	if d, err := distribution.Builtin(arg); err == nil {
		return d, nil
	}
	var data []byte
	var err error
	name := arg
	if arg == "-" {
		name = "stdin"
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(arg)
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, `/\`) && !strings.HasSuffix(arg, ".json") {
			return nil, fmt.Errorf("%q is neither a built-in atom (cklplan dist list) nor a file", arg)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty input: want a JSON distribution object", name)
	}
	d, err := distribution.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return d, nil
}

func runDistCUDA(args []string, stdout, stderr io.Writer) int {
	fl := newDistFlagSet("cuda", stdout, stderr)
	out := fl.String("o", "", "write to `file` instead of stdout")
	if _, code := parseFlags(fl, args, 0, 0); code >= 0 {
		return code
	}
	src, err := hardware.Generate()
	if err != nil {
		fmt.Fprintf(stderr, "cklplan dist cuda: %v\n", err)
		return exitFail
	}
	if *out == "" {
		stdout.Write(src)
		return exitOK
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintf(stderr, "cklplan dist cuda: %v\n", err)
		return exitFail
	}
	return exitOK
}

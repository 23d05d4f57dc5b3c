package main

import (
	"errors"
	"flag"
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
       value in each cell (T5:a3); json lists every (executor, value) and its
       tile coordinates; spec writes the explicit JSON definition.
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
		if len(args) != 1 {
			fmt.Fprint(stderr, distUsage)
			return exitUsage
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, name := range distribution.BuiltinNames() {
			d, err := distribution.Builtin(name)
			if err != nil {
				fmt.Fprintf(stderr, "cklplan dist: %v\n", err)
				return exitFail
			}
			fmt.Fprintf(tw, "%s\ttile %v\texecutors %v\tvalues %v\n", name, d.Tile(), d.Executors(), d.Locals())
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

// parseInterleaved parses flags that may come before or after the positional
// arguments, which it returns.
func parseInterleaved(fl *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		if fl.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fl.Arg(0))
		args = fl.Args()[1:]
	}
}

func runDistShow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dist show", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "table", "output `format`: table, json or spec")
	fl.Usage = func() { fmt.Fprint(stderr, distUsage) }
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprint(stderr, distUsage)
		return exitUsage
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
	d, err := distribution.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return d, nil
}

func runDistCUDA(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dist cuda", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "", "write to `file` instead of stdout")
	fl.Usage = func() { fmt.Fprint(stderr, distUsage) }
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fmt.Fprint(stderr, distUsage)
		return exitUsage
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

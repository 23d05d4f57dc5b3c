package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/hardware"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/tasks"
)

var distCommand = &opTable[distRequest, *distRequest]{
	name:    "dist",
	summary: "distributions: show an instruction atom or a JSON file, list atoms, emit the CUDA check",
	noun:    "subcommand",
	flags: func(fs *flag.FlagSet, q *distRequest) {
		fs.StringVar(&q.out, "o", "", "write to `file` instead of stdout")
	},
	ops: []*op[*distRequest]{
		{name: "show", operands: "NAME|FILE|GRAPH#NAME|-", min: 1, max: 1, formats: []string{"picture", "text", "json", "spec"}, run: distShow,
			doc: `draws a distribution: a built-in atom by NAME, one a task graph defines
(GRAPH#NAME: the file GRAPH's "distributions", as cklplan check validates
them), or a JSON file (- reads stdin) holding {"builtin": …}, {"tiled": …}, {"blocked": …}, the
explicit form or the tabulated one ("tile" and "entries", what --format
json writes), each with an optional "element" (when absent, an atom's
own type, else f32) and
"blocks_per_cluster" (1 when absent: blocks outside a cluster exchange
only through global memory; give the cluster's size for distributed
shared memory), as distribution/json.go states. --format picture (the default) draws the tile with the
owning thread and value in each cell: T5:a3 is value 3 of thread 5,
threads numbered warp * lanes + lane within a block; B1. in front names
the block; T5:a3+1 has 1 more owner along the replicated executor axes,
which the header marks with *. The header says what each thread holds
where the axes do not: "every thread holds the whole tile" (each thread a
copy of all of it), "each thread holds one value" (no value axes, values
()). --format text writes the same header, and the ownership and storage
maps as index maps; json lists every (executor,
value) and its tile coordinates; spec writes the explicit JSON
definition.`},
		{name: "list", run: distList, doc: "lists the built-in atoms."},
		{name: "cuda", flags: []string{"o"}, run: distCUDA,
			doc: "writes the CUDA program that checks the atoms on a GPU (docs/hardware.md)."},
	},
}

// A distRequest names a distribution: a built-in atom, or the JSON read
// from a file or stdin; out is the file "dist cuda" writes.
type distRequest struct {
	name string
	data []byte                     // the JSON form, when name is no built-in atom
	dist *distribution.Distribution // one a task graph defines (GRAPH#NAME)
	out  string
}

// setOperands resolves a built-in atom name, or reads "-" (stdin) or a JSON
// file under the input cap.
func (q *distRequest) setOperands(args []string, in *input) error {
	if len(args) == 0 {
		return nil
	}
	arg := args[0]
	q.name = arg
	if _, err := distribution.Builtin(arg); err == nil {
		return nil
	}
	var err error
	if arg == "-" {
		q.name = "stdin"
		q.data, err = in.lim.readAll(in.stdin, "stdin")
		return err
	}
	if file, name, ok := strings.Cut(arg, "#"); ok {
		if file == "" || name == "" {
			return fmt.Errorf("%q: want GRAPH#NAME, a task-graph file and one of its distributions", arg)
		}
		q.dist, err = graphDistribution(file, name, in)
		return err
	}
	f, err := os.Open(arg)
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, `/\`) && !strings.HasSuffix(arg, ".json") {
		return fmt.Errorf("%q is neither a built-in atom (cklplan dist list) nor a file", arg)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	q.data, err = in.lim.readAll(f, arg)
	return err
}

func (*distRequest) setTail(string, []string) error { return nil }
func (q *distRequest) count() int                   { return 1 }

// graphDistribution is the distribution named name in the task graph file
// (its "distributions"), read under the input cap and validated as check
// validates it.
func graphDistribution(file, name string, in *input) (*distribution.Distribution, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := in.lim.readAll(f, file)
	if err != nil {
		return nil, err
	}
	g, err := tasks.Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	dists := g.Spec().Distributions
	if d := dists[name]; d != nil {
		if d.Name() != name {
			// A definition of a built-in atom ({"builtin": …}) goes by
			// the graph's name for it, as its plans say it.
			d = d.WithName(name)
		}
		return d, nil
	}
	names := slices.Sorted(maps.Keys(dists))
	if len(names) == 0 {
		return nil, fmt.Errorf("%s defines no distribution (its \"distributions\"); %q is not one", file, name)
	}
	return nil, fmt.Errorf("%s defines no distribution %q (it defines %s)", file, name, strings.Join(names, ", "))
}

// distribution returns the distribution the request names.
func (q *distRequest) distribution() (*distribution.Distribution, error) {
	if q.dist != nil {
		return q.dist, nil
	}
	if q.data == nil {
		return distribution.Builtin(q.name)
	}
	if len(bytes.TrimSpace(q.data)) == 0 {
		return nil, fmt.Errorf("%s: empty input: want a JSON distribution object", q.name)
	}
	// A JSON syntax error is said with its line, column and byte.
	if _, err := jsonv.Parse(q.data, jsonv.Limits{MaxBytes: int64(len(q.data))}); err != nil {
		return nil, fmt.Errorf("%s: %w", q.name, err)
	}
	d, err := distribution.DecodeJSON(q.data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q.name, err)
	}
	return d, nil
}

// A distShowResult is a distribution; its JSON is the tabulated ownership
// (Distribution.EntriesJSON).
type distShowResult struct {
	d   *distribution.Distribution
	lim *limits // the cap on the cells and entries written
}

func distShow(q *distRequest, env *env) (result, error) {
	d, err := q.distribution()
	if err != nil {
		return nil, err
	}
	return distShowResult{d, &env.lim}, nil
}

func (r distShowResult) writeJSON(w io.Writer) error {
	d := r.d
	if err := r.lim.checkTable(d.NumExecutors()*d.NumValues(), "the listing", "(executor, value) entries"); err != nil {
		return err
	}
	_, err := w.Write(d.EntriesJSON())
	return err
}

func (r distShowResult) writeText(w io.Writer, format string) error {
	d := r.d
	switch format {
	case "picture":
		if err := r.lim.checkTable(d.NumElements(), "the picture", "tile elements"); err != nil {
			return err
		}
		_, err := io.WriteString(w, d.Diagram())
		return err
	case "spec":
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	fmt.Fprintln(w, d.Heading())
	if d.Tabulated() {
		_, err := fmt.Fprintf(w, "ownership: tabulated, %d entries (no index maps)\n", d.NumExecutors()*d.NumValues())
		return err
	}
	fmt.Fprintf(w, "ownership: %v\n", d.Ownership())
	_, err := fmt.Fprintf(w, "storage: %v\n", d.Storage())
	return err
}

// A distListResult lists the built-in atoms with their axes.
type distListResult []distAtomJSON

type distAtomJSON struct {
	Name      string `json:"name"`
	Tile      string `json:"tile"`
	Executors string `json:"executors"`
	Values    string `json:"values"`
}

func distList(*distRequest, *env) (result, error) {
	var r distListResult
	for _, name := range distribution.BuiltinNames() {
		d, err := distribution.Builtin(name)
		if err != nil {
			return nil, err
		}
		r = append(r, distAtomJSON{name, axesText(d.Tile()), axesText(d.Executors()), axesText(d.Locals())})
	}
	return r, nil
}

func (r distListResult) writeText(w io.Writer, _ string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, a := range r {
		fmt.Fprintf(tw, "%s\ttile %s\texecutors %s\tvalues %s\n", a.Name, a.Tile, a.Executors, a.Values)
	}
	return tw.Flush()
}

// A distCUDAResult is the generated check program, or the file it went to.
type distCUDAResult struct {
	Source string `json:"source,omitempty"`
	File   string `json:"file,omitempty"`
}

func distCUDA(q *distRequest, _ *env) (result, error) {
	src, err := hardware.Generate()
	if err != nil {
		return nil, err
	}
	if q.out == "" {
		return distCUDAResult{Source: string(src)}, nil
	}
	if err := os.WriteFile(q.out, src, 0o644); err != nil {
		return nil, err
	}
	return distCUDAResult{File: q.out}, nil
}

func (r distCUDAResult) writeText(w io.Writer, _ string) error {
	_, err := io.WriteString(w, r.Source)
	return err
}

// axesText writes axes as "dist show" heads its table: (m:16, k:16).
func axesText[T fmt.Stringer](axes []T) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

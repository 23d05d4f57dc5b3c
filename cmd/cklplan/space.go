package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/indexspace"
)

func init() {
	register(command{name: "space", summary: "index spaces: show, prime and common refinement, coordinate ↔ flat index", run: runSpace})
}

const spaceUsage = `usage: cklplan space show SPACE [--format text|json]
       cklplan space refine A [B]
       cklplan space flat SPACE COORD...
       cklplan space coord SPACE INDEX

A SPACE is the indexspace text form, e.g. 'tile(m:16, n:(n0:2, n1:4))', or
its JSON form ({"name": ..., "axes": [...]}); "-" reads it from stdin.
Points flatten row-major over the leaves, the last leaf fastest.

show    the canonical text, the size, and every axis (groups and leaves) with
        its range of values, the leaves it covers and its stride in the flat
        index; --format json writes the same as one JSON object.
refine  with A alone, A's prime-factor refinement ((6,2) -> ((2,3),2)); with
        B, the coarsest common refinement of A and B (equal sizes, flat order
        kept) as a refinement of each, and the leaves that correspond, or the
        error naming the two axes whose boundaries conflict.
flat    the flat index of the point with the given leaf coordinates.
coord   the leaf coordinates of the point with the given flat index.

Exit status: 0 ok, 1 invalid input (the error says where and what), 2 usage.
`

// spaceSubcommands maps each subcommand of "cklplan space" to its runner.
var spaceSubcommands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	"show":   runSpaceShow,
	"refine": runSpaceRefine,
	"flat":   runSpaceFlat,
	"coord":  runSpaceCoord,
}

func runSpace(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return dispatch("space", spaceUsage, spaceSubcommands, args, stdin, stdout, stderr)
}

// parseSpaceArg parses a space given on the command line ("-": stdin), in its
// text form or, when it starts with "{", its JSON form.
func parseSpaceArg(cmd, arg string, stdin io.Reader, stderr io.Writer) (indexspace.Space, bool) {
	return parseArg(cmd, arg, stdin, stderr, indexspace.Parse)
}

// An axisRow is one axis of a space as "space show" prints it.
type axisRow struct {
	Name   string   `json:"name"`
	Leaf   bool     `json:"leaf"`
	Size   int      `json:"size"`
	Leaves []string `json:"leaves"` // the leaves the axis covers, in flat order
	Stride int      `json:"stride"` // the weight of the axis's value in the flat index
}

// axisRows lists every axis of s in text order, groups before their factors.
func axisRows(s indexspace.Space) []axisRow {
	leaves := s.Leaves()
	var rows []axisRow
	for _, name := range s.Names() {
		r, _ := s.Lookup(name)
		row := axisRow{Name: name, Leaf: r.Leaf, Size: r.Size, Stride: leaves[r.Last-1].Stride}
		for _, l := range leaves[r.First:r.Last] {
			row.Leaves = append(row.Leaves, l.Name)
		}
		rows = append(rows, row)
	}
	return rows
}

func runSpaceShow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("space show", "SPACE [--format text|json]", stdout, stderr)
	format := fl.String("format", "text", "output `format`: text or json")
	pos, code := parseFlags(fl, args, 1, 1)
	if code >= 0 {
		return code
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "cklplan space show: unknown format %q (want text or json)\n", *format)
		return exitUsage
	}
	s, ok := parseSpaceArg("space show", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	rows := axisRows(s)
	if *format == "json" {
		out := struct {
			Text  string           `json:"text"`
			Size  int              `json:"size"`
			Space indexspace.Space `json:"space"`
			Axes  []axisRow        `json:"axes"`
		}{s.String(), s.Size(), s, rows}
		return writeJSON("space show", out, stdout, stderr)
	}
	fmt.Fprintln(stdout, s)
	leaves := "leaves"
	if s.NumLeaves() == 1 {
		leaves = "leaf"
	}
	fmt.Fprintf(stdout, "size %d, %d %s, flat index row-major (last leaf fastest)\n", s.Size(), s.NumLeaves(), leaves)
	if len(rows) == 0 {
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "axis\tkind\tsize\tvalues\tleaves\tstride")
	for _, r := range rows {
		kind := "group"
		if r.Leaf {
			kind = "leaf"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t[0, %d)\t%s\t%d\n", r.Name, kind, r.Size, r.Size, strings.Join(r.Leaves, " "), r.Stride)
	}
	tw.Flush()
	return exitOK
}

func runSpaceRefine(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("space refine", "A [B]", stdout, stderr)
	pos, code := parseFlags(fl, args, 1, 2)
	if code >= 0 {
		return code
	}
	a, ok := parseSpaceArg("space refine", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	if len(pos) == 1 {
		r, err := a.PrimeRefine()
		if err != nil {
			fmt.Fprintf(stderr, "cklplan space refine: %v\n", err)
			return exitFail
		}
		fmt.Fprintln(stdout, r)
		return exitOK
	}
	b, ok := parseSpaceArg("space refine", pos[1], stdin, stderr)
	if !ok {
		return exitFail
	}
	ra, rb, err := indexspace.CommonRefinement(a, b)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan space refine: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, ra)
	fmt.Fprintln(stdout, rb)
	// CommonRefinement promises that the leaves of size ≥ 2 correspond one
	// to one, in flat order; show the pairs.
	la, lb := nontrivialLeaves(ra), nontrivialLeaves(rb)
	if len(la) != len(lb) {
		fmt.Fprintf(stderr, "cklplan space refine: internal error: %d and %d leaves of size ≥ 2\n", len(la), len(lb))
		return exitFail
	}
	pairs := make([]string, len(la))
	for i := range la {
		pairs[i] = fmt.Sprintf("%s=%s:%d", la[i].Name, lb[i].Name, la[i].Size)
	}
	if len(pairs) == 0 {
		pairs = []string{"none (every leaf has size 1)"}
	}
	fmt.Fprintf(stdout, "leaves: %s\n", strings.Join(pairs, " "))
	return exitOK
}

func nontrivialLeaves(s indexspace.Space) []indexspace.LeafAxis {
	var out []indexspace.LeafAxis
	for _, l := range s.Leaves() {
		if l.Size > 1 {
			out = append(out, l)
		}
	}
	return out
}

func runSpaceFlat(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("space flat", "SPACE COORD...", stdout, stderr)
	pos, code := parseFlags(fl, args, 1, -1)
	if code >= 0 {
		return code
	}
	coord, ok := parseInts("space flat", "coordinate", pos[1:], stderr)
	if !ok {
		return exitUsage
	}
	s, ok := parseSpaceArg("space flat", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	flat, err := s.Flat(coord)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan space flat: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, flat)
	return exitOK
}

func runSpaceCoord(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("space coord", "SPACE INDEX", stdout, stderr)
	pos, code := parseFlags(fl, args, 2, 2)
	if code >= 0 {
		return code
	}
	index, err := strconv.Atoi(pos[1])
	if err != nil {
		problem := "is not an integer"
		if errors.Is(err, strconv.ErrRange) {
			problem = "is out of the integer range"
		}
		fmt.Fprintf(stderr, "cklplan space coord: INDEX %q %s\n", pos[1], problem)
		return exitUsage
	}
	s, ok := parseSpaceArg("space coord", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	coord, err := s.Coord(index)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan space coord: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, pointText(s, coord))
	return exitOK
}

// pointText writes a point of s as (name=value, ...) over its leaves.
func pointText(s indexspace.Space, coord []int) string {
	parts := make([]string, len(coord))
	for i, c := range coord {
		parts[i] = s.Leaf(i).Name + "=" + strconv.Itoa(c)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func writeJSON(cmd string, v any, stdout, stderr io.Writer) int {
	// Map texts hold "->": keep them readable rather than HTML-safe.
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "cklplan %s: %v\n", cmd, err)
		return exitFail
	}
	return exitOK
}

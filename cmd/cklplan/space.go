package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cklplan/cklplan/indexspace"
)

var spaceCommand = &opTable[spaceRequest, *spaceRequest]{
	name:    "space",
	summary: "index spaces: show, prime and common refinement, coordinate ↔ flat index",
	noun:    "subcommand",
	about: `A SPACE is the indexspace text form, e.g. 'tile(m:16, n:(n0:2, n1:4))', or
its JSON form ({"name": ..., "axes": [...]}); "-" reads it from stdin.
Points flatten row-major over the leaves, the last leaf fastest.
`,
	ops: []*op[*spaceRequest]{
		{name: "show", operands: "SPACE", min: 1, max: 1, run: spaceShow,
			doc: `the canonical text, the size, and every axis (groups and leaves) with
its range of values, the leaves it covers and its stride in the flat
index.`},
		{name: "refine", operands: "A [B]", min: 1, max: 2, run: spaceRefine,
			doc: `with A alone, A's prime-factor refinement ((a:6, b:2) ->
(a:(a_0:2, a_1:3), b:2)); with B, the coarsest common refinement of A
and B (equal sizes, flat order kept) as a refinement of each, and the
leaves that correspond, or the error naming the two axes whose
boundaries conflict.`},
		{name: "flat", operands: "SPACE", min: 1, max: 1, tail: "coord", tailArgs: "COORD...", tailMax: -1, run: spaceFlat,
			doc: "the flat index of the point with the given leaf coordinates."},
		{name: "coord", operands: "SPACE", min: 1, max: 1, tail: "index", tailArgs: "INDEX", tailMin: 1, tailMax: 1, run: spaceCoord,
			doc: "the leaf coordinates of the point with the given flat index."},
	},
}

// A spaceRequest is a space operation's operands and the point it names.
type spaceRequest struct {
	args  []mapArg // text or JSON forms, as a map's
	coord []int
	index int
}

func (q *spaceRequest) setOperands(args []string, in *input) error {
	var m mapRequest
	err := m.setOperands(args, in)
	q.args = m.args
	return err
}

func (q *spaceRequest) setTail(tail string, args []string) (err error) {
	if tail == "coord" {
		q.coord, err = parseInts("coordinate", args)
		return err
	}
	if q.index, err = strconv.Atoi(args[0]); err != nil {
		return badRequest("INDEX %q %s", args[0], intProblem(err))
	}
	return nil
}

// spaceOperand parses operand i as a space, which the cap on axes bounds.
func (q *spaceRequest) spaceOperand(env *env, i int) (indexspace.Space, error) {
	s, err := parseOperand(q.args, i, indexspace.Parse, indexspace.DecodeJSON)
	if err != nil {
		return s, err
	}
	if err := env.lim.checkAxes(len(s.Names()), "the space"); err != nil {
		return s, &argError{index: i, err: err}
	}
	return s, nil
}

func (q *spaceRequest) count() int { return len(q.args) + len(q.coord) + 1 }

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

// A spaceShowResult is a space with every axis.
type spaceShowResult struct {
	Text  string           `json:"text"`
	Size  int              `json:"size"`
	Space indexspace.Space `json:"space"`
	Axes  []axisRow        `json:"axes"`
}

func spaceShow(q *spaceRequest, env *env) (result, error) {
	s, err := q.spaceOperand(env, 0)
	if err != nil {
		return nil, err
	}
	return &spaceShowResult{s.String(), s.Size(), s, axisRows(s)}, nil
}

func (r *spaceShowResult) writeText(w io.Writer, _ string) error {
	s := r.Space
	fmt.Fprintln(w, s)
	leaves := "leaves"
	if s.NumLeaves() == 1 {
		leaves = "leaf"
	}
	fmt.Fprintf(w, "size %d, %d %s, flat index row-major (last leaf fastest)\n", s.Size(), s.NumLeaves(), leaves)
	if len(r.Axes) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "axis\tkind\tsize\tvalues\tleaves\tstride")
	for _, a := range r.Axes {
		kind := "group"
		if a.Leaf {
			kind = "leaf"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t[0, %d)\t%s\t%d\n", a.Name, kind, a.Size, a.Size, strings.Join(a.Leaves, " "), a.Stride)
	}
	return tw.Flush()
}

// A refineResult is a prime refinement, or a common refinement as a
// refinement of each space with the leaves that correspond.
type refineResult struct {
	Result []string `json:"result"`
	Leaves []string `json:"leaves,omitempty"` // A's leaf=B's leaf:size, in flat order
}

func spaceRefine(q *spaceRequest, env *env) (result, error) {
	a, err := q.spaceOperand(env, 0)
	if err != nil {
		return nil, err
	}
	if len(q.args) == 1 {
		r, err := a.PrimeRefine()
		if err != nil {
			return nil, err
		}
		return &refineResult{Result: []string{r.String()}}, nil
	}
	b, err := q.spaceOperand(env, 1)
	if err != nil {
		return nil, err
	}
	ra, rb, err := indexspace.CommonRefinement(a, b)
	if err != nil {
		return nil, err
	}
	// CommonRefinement promises that the leaves of size ≥ 2 correspond one
	// to one, in flat order; show the pairs.
	la, lb := nontrivialLeaves(ra), nontrivialLeaves(rb)
	if len(la) != len(lb) {
		return nil, fmt.Errorf("internal error: %d and %d leaves of size ≥ 2", len(la), len(lb))
	}
	pairs := make([]string, len(la))
	for i := range la {
		pairs[i] = fmt.Sprintf("%s=%s:%d", la[i].Name, lb[i].Name, la[i].Size)
	}
	return &refineResult{Result: []string{ra.String(), rb.String()}, Leaves: pairs}, nil
}

func (r *refineResult) writeText(w io.Writer, _ string) error {
	for _, s := range r.Result {
		fmt.Fprintln(w, s)
	}
	if len(r.Result) == 1 {
		return nil
	}
	pairs := r.Leaves
	if len(pairs) == 0 {
		pairs = []string{"none (every leaf has size 1)"}
	}
	_, err := fmt.Fprintf(w, "leaves: %s\n", strings.Join(pairs, " "))
	return err
}

func spaceFlat(q *spaceRequest, env *env) (result, error) {
	s, err := q.spaceOperand(env, 0)
	if err != nil {
		return nil, err
	}
	return plain(s.Flat(q.coord))
}

// A coordResult is the leaf coordinates of a point.
type coordResult struct {
	Result []int `json:"result"`
	space  indexspace.Space
}

func (r coordResult) writeText(w io.Writer, _ string) error {
	_, err := fmt.Fprintln(w, pointText(r.space, r.Result))
	return err
}

func spaceCoord(q *spaceRequest, env *env) (result, error) {
	s, err := q.spaceOperand(env, 0)
	if err != nil {
		return nil, err
	}
	coord, err := s.Coord(q.index)
	if err != nil {
		return nil, err
	}
	return coordResult{coord, s}, nil
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

// pointText writes a point of s as (name=value, ...) over its leaves.
func pointText(s indexspace.Space, coord []int) string {
	parts := make([]string, len(coord))
	for i, c := range coord {
		parts[i] = s.Leaf(i).Name + "=" + strconv.Itoa(c)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

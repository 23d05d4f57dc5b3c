package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/internal/jsonv"
)

var layoutCommand = &opTable[layoutRequest, *layoutRequest]{
	name:    "layout",
	summary: "CuTe layout algebra: compose, complement, divide, recognize, …",
	noun:    "operation",
	about: `Prints the result in CuTe notation (first mode fastest) and its table of
values; --format json writes {"result": LAYOUT, "table": [...]}.
A LAYOUT is shape:stride, e.g. (6,2):(8,2); a TILER is a layout, <3:4,8:2>, or
a shape (3,8). An operand "-" is read from stdin.
`,
	ops: []*op[*layoutRequest]{
		{name: "eval", operands: "LAYOUT", min: 1, max: 1, doc: "the layout and its values",
			run: unary(func(l cute.Layout) (cute.Layout, error) { return l, nil })},
		{name: "coalesce", operands: "LAYOUT", min: 1, max: 1, doc: "the layout with its modes merged where they can be",
			run: unary(func(l cute.Layout) (cute.Layout, error) { return cute.Coalesce(l), nil })},
		{name: "flatten", operands: "LAYOUT", min: 1, max: 1, doc: "the layout with its nested modes flattened",
			run: unary(func(l cute.Layout) (cute.Layout, error) { return cute.Flatten(l), nil })},
		{name: "composition", operands: "LAYOUT TILER", min: 2, max: 2, doc: "LAYOUT ∘ TILER", run: withTiler(cute.CompositionTiler)},
		{name: "complement", operands: "LAYOUT [COTARGET]", min: 1, max: 2, doc: "the complement, up to COTARGET (a size or a shape)", run: complement},
		{name: "logical_divide", operands: "LAYOUT TILER", min: 2, max: 2, doc: "the tiles of TILER's shape, then the rest", run: withTiler(cute.LogicalDivide)},
		{name: "zipped_divide", operands: "LAYOUT TILER", min: 2, max: 2, doc: "logical_divide with the tile modes gathered first", run: withTiler(cute.ZippedDivide)},
		{name: "logical_product", operands: "LAYOUT TILER", min: 2, max: 2, doc: "LAYOUT repeated as TILER lays it out", run: withTiler(cute.LogicalProduct)},
		{name: "blocked_product", operands: "LAYOUT LAYOUT", min: 2, max: 2, doc: "the product with the blocks kept whole", run: binary(cute.BlockedProduct)},
		{name: "raked_product", operands: "LAYOUT LAYOUT", min: 2, max: 2, doc: "the product with the blocks interleaved", run: binary(cute.RakedProduct)},
		{name: "right_inverse", operands: "LAYOUT", min: 1, max: 1, doc: "a right inverse", run: unary(cute.RightInverse)},
		{name: "left_inverse", operands: "LAYOUT", min: 1, max: 1, doc: "a left inverse", run: unary(cute.LeftInverse)},
		{name: "recognize", tail: "values", tailArgs: "V0 V1 ...", tailMin: 1, tailMax: -1,
			doc: "the layout whose values are V0 V1 ... (integers within ±2^60; V0 = 0);\n--batch answers \"result\": null when there is none", run: recognize},
	},
	batch: layoutBatchUsage,
}

const layoutBatchUsage = `usage: cklplan layout --batch < requests.jsonl

--batch reads JSON Lines requests, {"op": OP, "args": [ARG, ...]} or
{"op": "recognize", "values": [V0, ...]}, and writes one line per request:
{"result": LAYOUT, "table": [...]} ("size" replaces "table" beyond 1048576
values; a recognize that finds no layout gives "result": null), or
{"error": {"code": ..., "message": "line N: ..."}}. Each answer is
written as soon as no further request is waiting, so a program may drive it
through a pipe one request at a time.
`

// tableLimit bounds the tables printed or written: a larger result is given
// without its table.
const tableLimit = 1 << 20

// layoutRequest answers --batch.
var _ batchRequest = (*layoutRequest)(nil)

// A layoutRequest is the operands of a layout operation, as CuTe notation,
// or the values to recognize.
type layoutRequest struct {
	args   []string
	values []int
}

func (q *layoutRequest) setOperands(args []string, in *input) (err error) {
	q.args, err = in.texts(args)
	return err
}

func (q *layoutRequest) setTail(_ string, args []string) (err error) {
	q.values, err = parseInts("value", args)
	return err
}

func (q *layoutRequest) count() int { return len(q.args) + len(q.values) }

// decodeArgs takes a JSON string, or a JSON integer as its decimal text.
func (q *layoutRequest) decodeArgs(d *jsonv.Decoder, args []*jsonv.Value, p jsonv.Path) {
	q.args = make([]string, len(args))
	for i, v := range args {
		switch v.Kind {
		case jsonv.String:
			q.args[i] = v.Str()
		case jsonv.Number:
			if n, ok := d.Int(v, p.Index(i)); ok {
				q.args[i] = strconv.Itoa(n)
			}
		default:
			d.Report(p.Index(i), jsonv.Type, "want a layout, tiler or integer as a string, or an integer; have %s", v.Describe())
		}
	}
}

// decodeField reads "values", a non-empty list of integers.
func (q *layoutRequest) decodeField(d *jsonv.Decoder, name string, v *jsonv.Value, p jsonv.Path) {
	q.values, _ = d.Ints(v, p)
	if v.Kind == jsonv.Array && len(v.Elems()) == 0 {
		d.Report(p, jsonv.Invalid, "recognize needs a non-empty %q list", name)
	}
}

// operand parses operand i, which the usage names name, with parse.
func operand[T any](q *layoutRequest, i int, name string, parse func(string) (T, error)) (T, error) {
	v, err := parse(q.args[i])
	if err != nil {
		return v, &argError{index: i, name: name, err: err}
	}
	return v, nil
}

func unary(f func(cute.Layout) (cute.Layout, error)) func(*layoutRequest, *env) (result, error) {
	return func(q *layoutRequest, _ *env) (result, error) {
		l, err := operand(q, 0, "LAYOUT", cute.Parse)
		if err != nil {
			return nil, err
		}
		return layoutAnswer(f(l))
	}
}

func binary(f func(a, b cute.Layout) (cute.Layout, error)) func(*layoutRequest, *env) (result, error) {
	return func(q *layoutRequest, _ *env) (result, error) {
		a, err := operand(q, 0, "LAYOUT", cute.Parse)
		if err != nil {
			return nil, err
		}
		b, err := operand(q, 1, "LAYOUT", cute.Parse)
		if err != nil {
			return nil, err
		}
		return layoutAnswer(f(a, b))
	}
}

func withTiler(f func(cute.Layout, cute.Tiler) (cute.Layout, error)) func(*layoutRequest, *env) (result, error) {
	return func(q *layoutRequest, _ *env) (result, error) {
		l, err := operand(q, 0, "LAYOUT", cute.Parse)
		if err != nil {
			return nil, err
		}
		t, err := operand(q, 1, "TILER", cute.ParseTiler)
		if err != nil {
			return nil, err
		}
		return layoutAnswer(f(l, t))
	}
}

func complement(q *layoutRequest, _ *env) (result, error) {
	l, err := operand(q, 0, "LAYOUT", cute.Parse)
	if err != nil {
		return nil, err
	}
	if len(q.args) == 1 {
		return layoutAnswer(cute.Complement(l))
	}
	t, err := operand(q, 1, "COTARGET", cute.ParseTuple)
	if err != nil {
		return nil, err
	}
	// A shape cotarget stands for its size, as in CuTe.
	m := 1
	for _, n := range t.Leaves() {
		if n < 1 || m > (1<<62)/n {
			return nil, &argError{index: 1, name: "COTARGET", err: &cute.Error{Code: cute.CodeBadArgument, Op: "complement", Msg: fmt.Sprintf("cotarget %v is not a positive size below 2^62", t)}}
		}
		m *= n
	}
	return layoutAnswer(cute.ComplementTo(l, m))
}

func recognize(q *layoutRequest, _ *env) (result, error) {
	l, ok := cute.Recognize(q.values)
	if ok {
		return layoutAnswer(l, nil)
	}
	if i := beyondRecognizeLimit(q.values); i >= 0 {
		return nil, &cute.Error{Code: cute.CodeOverflow, Op: "recognize", Msg: fmt.Sprintf("value %d, %d, is beyond ±2^60, the range recognize decides", i, q.values[i])}
	}
	return &layoutResult{values: q.values}, nil
}

// A layoutResult is a layout with its table of values ("size" instead
// beyond tableLimit values), or, from recognize, no layout: "result": null.
type layoutResult struct {
	Result *string `json:"result"`
	Table  []int   `json:"table,omitempty"`
	// Size stands in for a table longer than tableLimit, so that a missing
	// table is never mistaken for an empty one.
	Size   int `json:"size,omitempty"`
	layout cute.Layout
	values []int // the values recognize found no layout for
}

func layoutAnswer(l cute.Layout, err error) (result, error) {
	if err != nil {
		return nil, err
	}
	text := l.String()
	r := &layoutResult{Result: &text, layout: l}
	if l.Size() <= tableLimit {
		r.Table = l.Table()
	} else {
		r.Size = l.Size()
	}
	return r, nil
}

func (r *layoutResult) writeText(w io.Writer, _ string) error {
	if r.Result != nil {
		printLayout(w, r.layout, r.Table)
	}
	return nil
}

// failure says that recognize found no layout, naming a few of the values.
func (r *layoutResult) failure() error {
	if r.Result != nil {
		return nil
	}
	why := ""
	if r.values[0] != 0 {
		why = " (every layout maps 0 to 0)"
	}
	return fmt.Errorf("%s is not a layout%s", valuesText(r.values), why)
}

// valuesText writes values as [0 1 2 4], or, for a long list, its first and
// last few and how many there are.
func valuesText(values []int) string {
	const shown = 8
	text := func(vs []int) string {
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = strconv.Itoa(v)
		}
		return strings.Join(parts, " ")
	}
	if len(values) <= 2*shown {
		return "[" + text(values) + "]"
	}
	return fmt.Sprintf("[%s … %s] (%d values)", text(values[:shown]), text(values[len(values)-shown:]), len(values))
}

// recognizeLimit is the magnitude beyond which cute.Recognize decides
// nothing (its documentation: "values beyond ±2^60"), although layouts
// reach ±2^62: such values are not shown to be no layout.
const recognizeLimit = 1 << 60

// beyondRecognizeLimit returns the index of the first value beyond
// ±recognizeLimit, or -1.
func beyondRecognizeLimit(values []int) int {
	return slices.IndexFunc(values, func(v int) bool { return v < -recognizeLimit || v > recognizeLimit })
}

// printLayout writes l, its table of values, and a rank-2 layout's grid.
func printLayout(w io.Writer, l cute.Layout, table []int) {
	fmt.Fprintln(w, l)
	if l.Size() > tableLimit {
		fmt.Fprintf(w, "table: %d values, not printed (more than %d)\n", l.Size(), tableLimit)
		return
	}
	var b strings.Builder
	b.WriteString("table:")
	for _, v := range table {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(v))
	}
	fmt.Fprintln(w, b.String())
	if l.Rank() == 2 && len(table) <= gridLimit {
		printGrid(w, l.Mode(0).Size(), l.Mode(1).Size(), table)
	}
}

// gridLimit bounds the size of a rank-2 result drawn as a grid.
const gridLimit = 1024

// printGrid draws the table of a rank-2 layout as rows (mode 0) by columns
// (mode 1), as CuTe's print2D does: the value at (m, n) is table[m + rows*n].
func printGrid(w io.Writer, rows, cols int, table []int) {
	width := len(strconv.Itoa(max(rows, cols) - 1))
	for _, v := range table {
		width = max(width, len(strconv.Itoa(v)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%*s", width+1, "")
	for n := range cols {
		fmt.Fprintf(&b, " %*d", width, n)
	}
	fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	for m := range rows {
		b.Reset()
		fmt.Fprintf(&b, "%*d:", width, m)
		for n := range cols {
			fmt.Fprintf(&b, " %*d", width, table[m+rows*n])
		}
		fmt.Fprintln(w, b.String())
	}
}

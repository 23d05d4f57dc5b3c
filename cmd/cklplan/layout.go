package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/cute"
)

func init() {
	register(command{name: "layout", summary: "CuTe layout algebra: compose, complement, divide, recognize, …", run: runLayout})
}

// tableLimit bounds the tables printed or written: a larger result is given
// without its table.
const tableLimit = 1 << 20

// A layoutOp is one operation of "cklplan layout": its arguments are CuTe
// notation (layouts, tilers, integers) as text.
type layoutOp struct {
	name     string
	args     string // the usage of its arguments
	min, max int    // how many arguments it takes
	run      func(args []string) (cute.Layout, error)
}

var layoutOps = []layoutOp{
	{"eval", "LAYOUT", 1, 1, func(a []string) (cute.Layout, error) { return cute.Parse(a[0]) }},
	{"coalesce", "LAYOUT", 1, 1, unary(func(l cute.Layout) (cute.Layout, error) { return cute.Coalesce(l), nil })},
	{"flatten", "LAYOUT", 1, 1, unary(func(l cute.Layout) (cute.Layout, error) { return cute.Flatten(l), nil })},
	{"composition", "LAYOUT TILER", 2, 2, withTiler(cute.CompositionTiler)},
	{"complement", "LAYOUT [COTARGET]", 1, 2, complement},
	{"logical_divide", "LAYOUT TILER", 2, 2, withTiler(cute.LogicalDivide)},
	{"zipped_divide", "LAYOUT TILER", 2, 2, withTiler(cute.ZippedDivide)},
	{"logical_product", "LAYOUT TILER", 2, 2, withTiler(cute.LogicalProduct)},
	{"blocked_product", "LAYOUT LAYOUT", 2, 2, binary(cute.BlockedProduct)},
	{"raked_product", "LAYOUT LAYOUT", 2, 2, binary(cute.RakedProduct)},
	{"right_inverse", "LAYOUT", 1, 1, unary(cute.RightInverse)},
	{"left_inverse", "LAYOUT", 1, 1, unary(cute.LeftInverse)},
}

func unary(f func(cute.Layout) (cute.Layout, error)) func([]string) (cute.Layout, error) {
	return func(a []string) (cute.Layout, error) {
		l, err := cute.Parse(a[0])
		if err != nil {
			return cute.Layout{}, err
		}
		return f(l)
	}
}

func binary(f func(a, b cute.Layout) (cute.Layout, error)) func([]string) (cute.Layout, error) {
	return func(a []string) (cute.Layout, error) {
		l, err := cute.Parse(a[0])
		if err != nil {
			return cute.Layout{}, err
		}
		m, err := cute.Parse(a[1])
		if err != nil {
			return cute.Layout{}, err
		}
		return f(l, m)
	}
}

func withTiler(f func(cute.Layout, cute.Tiler) (cute.Layout, error)) func([]string) (cute.Layout, error) {
	return func(a []string) (cute.Layout, error) {
		l, err := cute.Parse(a[0])
		if err != nil {
			return cute.Layout{}, err
		}
		t, err := cute.ParseTiler(a[1])
		if err != nil {
			return cute.Layout{}, err
		}
		return f(l, t)
	}
}

func complement(a []string) (cute.Layout, error) {
	l, err := cute.Parse(a[0])
	if err != nil {
		return cute.Layout{}, err
	}
	if len(a) == 1 {
		return cute.Complement(l)
	}
	t, err := cute.ParseTuple(a[1])
	if err != nil {
		return cute.Layout{}, err
	}
	// A shape cotarget stands for its size, as in CuTe.
	m := 1
	for _, n := range t.Leaves() {
		if n < 1 || m > (1<<62)/n {
			return cute.Layout{}, &cute.Error{Code: cute.CodeBadArgument, Op: "complement", Msg: fmt.Sprintf("cotarget %v is not a positive size below 2^62", t)}
		}
		m *= n
	}
	return cute.ComplementTo(l, m)
}

func findOp(name string) (layoutOp, bool) {
	for _, op := range layoutOps {
		if op.name == name {
			return op, true
		}
	}
	return layoutOp{}, false
}

func layoutUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: cklplan layout OP ARGS...")
	fmt.Fprintln(w, "       cklplan layout recognize V0 V1 ...")
	fmt.Fprintln(w, "       cklplan layout --batch < requests.jsonl")
	fmt.Fprintln(w, "\nPrints the result in CuTe notation (first mode fastest) and its table of values.")
	fmt.Fprintln(w, "A LAYOUT is shape:stride, e.g. (6,2):(8,2); a TILER is a layout, <3:4,8:2>, or a shape (3,8).")
	fmt.Fprintln(w, "\noperations:")
	for _, op := range layoutOps {
		fmt.Fprintf(w, "  %-16s %s\n", op.name, op.args)
	}
	fmt.Fprintf(w, "  %-16s %s\n", "recognize", "V0 V1 ... (integers within ±2^60; V0 = 0)")
	fmt.Fprintln(w, "\n--batch reads JSON Lines requests, {\"op\": OP, \"args\": [ARG, ...]} or")
	fmt.Fprintln(w, "{\"op\": \"recognize\", \"values\": [V0, ...]}, and writes one line per request:")
	fmt.Fprintf(w, "{\"result\": LAYOUT, \"table\": [...]} (\"size\" replaces \"table\" beyond %d\n", tableLimit)
	fmt.Fprintln(w, "values; a recognize that finds no layout gives \"result\": null), or")
	fmt.Fprintln(w, "{\"error\": {\"code\": ..., \"message\": \"line N: ...\"}}. Each answer is")
	fmt.Fprintln(w, "written as soon as no further request is waiting, so a program may drive it")
	fmt.Fprintln(w, "through a pipe one request at a time.")
	fmt.Fprintln(w, "\nExit status: 0 ok, 1 a failed condition (the error names it), 2 usage.")
}

func runLayout(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("layout", "", stdout, stderr)
	batch := fl.Bool("batch", false, "read JSON Lines requests from stdin, write one JSON line per request")
	fl.usage = layoutUsage
	pos, code := parseFlags(fl, args, 0, -1)
	if code >= 0 {
		return code
	}
	if *batch {
		if len(pos) != 0 {
			return fl.usageError("--batch takes no arguments, got %d", len(pos))
		}
		if err := layoutBatch(stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "cklplan layout: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	if len(pos) == 0 {
		return fl.usageError("no operation")
	}
	name, rest := pos[0], pos[1:]
	if name == "recognize" {
		values, ok := parseInts("layout recognize", "value", rest, stderr)
		if !ok {
			return exitUsage
		}
		if len(values) == 0 {
			fmt.Fprintln(stderr, "cklplan layout recognize: takes at least 1 argument, got 0")
			fmt.Fprintln(stderr, "usage: cklplan layout recognize V0 V1 ...")
			return exitUsage
		}
		l, ok := cute.Recognize(values)
		if !ok {
			if i := beyondRecognizeLimit(values); i >= 0 {
				fmt.Fprintf(stderr, "cklplan layout: recognize: value %d, %d, is beyond ±2^60, the range recognize decides [%s]\n", i, values[i], cute.CodeOverflow)
				return exitFail
			}
			fmt.Fprintf(stderr, "cklplan layout: recognize: %v is not a layout%s\n", values, notLayoutReason(values))
			return exitFail
		}
		printLayout(stdout, l)
		return exitOK
	}
	op, ok := findOp(name)
	if !ok {
		return fl.usageError("unknown operation %q", name)
	}
	if len(rest) < op.min || len(rest) > op.max {
		fmt.Fprintf(stderr, "cklplan layout %s: %s, got %d\n", op.name, arity(op.min, op.max), len(rest))
		fmt.Fprintf(stderr, "usage: cklplan layout %s %s\n", op.name, op.args)
		return exitUsage
	}
	l, err := op.run(rest)
	if err != nil {
		var e *cute.Error
		if errors.As(err, &e) {
			fmt.Fprintf(stderr, "cklplan layout: %v [%s]\n", err, e.Code)
		} else {
			fmt.Fprintf(stderr, "cklplan layout: %v\n", err)
		}
		return exitFail
	}
	printLayout(stdout, l)
	return exitOK
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

// notLayoutReason says why Recognize refuses values before its scan.
func notLayoutReason(values []int) string {
	if len(values) > 0 && values[0] != 0 {
		return " (every layout maps 0 to 0)"
	}
	return ""
}

func printLayout(w io.Writer, l cute.Layout) {
	fmt.Fprintln(w, l)
	if l.Size() > tableLimit {
		fmt.Fprintf(w, "table: %d values, not printed (more than %d)\n", l.Size(), tableLimit)
		return
	}
	table := l.Table()
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

// A batchRequest is one line of "cklplan layout --batch".
type batchRequest struct {
	Op     string            `json:"op"`
	Args   []json.RawMessage `json:"args"`
	Values []int             `json:"values"`
}

// A batchResponse is one output line: a result (null when recognize finds no
// layout) with its table, or an error, with the composite's values as its
// table when a composition is not a layout.
type batchResponse struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *batchError     `json:"error,omitempty"`
	Table  []int           `json:"table,omitempty"`
	// Size stands in for a table longer than tableLimit, so that a missing
	// table is never mistaken for an empty one.
	Size int `json:"size,omitempty"`
}

type batchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// codeBadRequest marks a line that is not a well-formed request.
const codeBadRequest = "bad_request"

func layoutBatch(stdin io.Reader, stdout io.Writer) error {
	return serveBatch(stdin, stdout, answer, func(resp *batchResponse, n int) {
		if resp.Error != nil {
			resp.Error.Message = atLine(resp.Error.Message, n)
		}
	})
}

func badRequest(format string, args ...any) batchResponse {
	return batchResponse{Error: &batchError{Code: codeBadRequest, Message: fmt.Sprintf(format, args...)}}
}

// answer computes the response to one request line; the caller adds the
// line number to an error.
func answer(line []byte) (resp batchResponse) {
	defer func() {
		if p := recover(); p != nil {
			resp = batchResponse{Error: &batchError{Code: string(cute.CodeInternal), Message: fmt.Sprintf("internal error: %v", p)}}
		}
	}()
	if len(line) == 0 {
		return badRequest("empty line")
	}
	var req batchRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return badRequest("not a request object: %v", err)
	}
	if dec.More() {
		return badRequest("text after the request object")
	}
	if req.Op == "recognize" {
		if req.Args != nil {
			return badRequest(`recognize takes "values", not "args"`)
		}
		if len(req.Values) == 0 {
			return badRequest(`recognize needs a non-empty "values" list`)
		}
		l, ok := cute.Recognize(req.Values)
		if !ok {
			if i := beyondRecognizeLimit(req.Values); i >= 0 {
				return batchResponse{Error: &batchError{Code: string(cute.CodeOverflow), Message: fmt.Sprintf("recognize: value %d, %d, is beyond ±2^60, the range recognize decides", i, req.Values[i])}}
			}
			return batchResponse{Result: json.RawMessage("null")}
		}
		return success(l)
	}
	if req.Values != nil {
		return badRequest(`%q takes "args", not "values"`, req.Op)
	}
	op, ok := findOp(req.Op)
	if !ok {
		return badRequest("unknown operation %q", req.Op)
	}
	if len(req.Args) < op.min || len(req.Args) > op.max {
		return badRequest("%s takes %s (%d to %d arguments), got %d", op.name, op.args, op.min, op.max, len(req.Args))
	}
	args := make([]string, len(req.Args))
	for i, raw := range req.Args {
		s, ok := argText(raw)
		if !ok {
			return badRequest("argument %d, %s, is neither a string nor an integer", i, raw)
		}
		args[i] = s
	}
	l, err := op.run(args)
	if err != nil {
		var e *cute.Error
		if !errors.As(err, &e) {
			return batchResponse{Error: &batchError{Code: string(cute.CodeInternal), Message: err.Error()}}
		}
		resp := batchResponse{Error: &batchError{Code: string(e.Code), Message: e.Error()}}
		if len(e.Values) > 0 {
			resp.Table = e.Values
		}
		return resp
	}
	return success(l)
}

// argText accepts a JSON string, or a JSON integer as its decimal text.
func argText(raw json.RawMessage) (string, bool) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", false // Unmarshal would leave s empty and succeed
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true
	}
	var v int64
	if err := json.Unmarshal(raw, &v); err == nil {
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}

func success(l cute.Layout) batchResponse {
	text, _ := json.Marshal(l.String())
	resp := batchResponse{Result: text}
	if l.Size() <= tableLimit {
		resp.Table = l.Table()
	} else {
		resp.Size = l.Size()
	}
	return resp
}

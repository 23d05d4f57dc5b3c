package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/internal/jsonv"
)

var mapCommand = &opTable[mapRequest, *mapRequest]{
	name:    "map",
	summary: "guarded index maps: show, eval, simplify, compose, restrict, inverse, emit, CuTe",
	noun:    "subcommand",
	about: `A MAP is the indexmap text form (docs/algebra.md), e.g.
  'logical(m:4, k:8) -> physical(a:32) = (8 * m + k) if m < 3 broadcast(...)'
kind space -> kind space = (one result per codomain leaf) [if GUARD]
[broadcast(AXES)]; a kind is logical, thread-value or physical, or absent
(untyped). A MAP may also be given in its JSON form ({"domain": ...}). "-"
reads a MAP or LAYOUT from stdin (one argument at most). --format json writes
the object that --batch answers with.
`,
	flags: func(fs *flag.FlagSet, q *mapRequest) {
		fs.BoolVar(&q.table, "table", false, "print the image of every domain point")
		fs.BoolVar(&q.verbose, "v", false, "list the rules that fired, in order")
		fs.StringVar(&q.domain, "domain", "", "the domain's `kind`: logical, thread-value, physical or untyped (default untyped)")
		fs.StringVar(&q.codomain, "codomain", "", "the codomain's `kind`: logical, thread-value, physical or untyped (default untyped)")
	},
	ops: []*op[*mapRequest]{
		{name: "show", operands: "MAP", min: 1, max: 1, flags: []string{"table"}, fields: []string{"table"}, run: mapShow,
			doc: `the canonical text, the kinds and spaces, and the decided
properties (in range, injective, surjective, alias-free, dense
bijection; the last two with the broadcast axes factored out) with
the method that decided them (stride criterion or enumeration) and
the witness of the first that fails; --table adds the image of
every domain point.`},
		{name: "eval", operands: "MAP", min: 1, max: 1, tail: "coord", tailArgs: "COORD...", tailMax: -1, run: mapEval,
			doc: "the image of the point with the given leaf coordinates."},
		{name: "simplify", operands: "MAP", min: 1, max: 1, flags: []string{"v"}, run: mapSimplify,
			doc: `the map with its expressions simplified by the ordered rule table;
-v lists the rules that fired, in order.`},
		{name: "compose", operands: "OUTER INNER", min: 2, max: 2, run: mapCompose,
			doc: "OUTER ∘ INNER: INNER applies first; the literal substitution."},
		{name: "restrict", operands: "MAP", min: 1, max: 1, tail: "fixed", tailArgs: "AXIS=VALUE...", tailMin: 1, tailMax: -1, run: mapRestrict,
			doc: `the map with the named domain axes fixed (maps into physical or
untyped only), emitted as affine plus a constant where possible.`},
		{name: "inverse", operands: "MAP", min: 1, max: 1, run: mapUnary(indexmap.Map.Inverse),
			doc: "the inverse of a dense bijection (unguarded, no broadcast); a map into physical has one only as a swizzle (physical -> physical), as nothing else maps out of physical: write it untyped to invert it."},
		{name: "emit", operands: "MAP", min: 1, max: 1, run: mapEmit,
			doc: `each result as code generation prints it: one weighted sum of
digits when it is a layout, else the simplified composite; then the
form of each result.`},
		{name: "from-cute", operands: "LAYOUT", min: 1, max: 1, flags: []string{"domain", "codomain"}, fields: []string{"domain", "codomain"}, run: mapFromCute,
			doc: `a CuTe layout (fastest mode first) as a map; modes are reversed,
nested modes become groups, stride-0 modes declared broadcasts.`},
		{name: "to-cute", operands: "MAP", min: 1, max: 1, run: mapUnary(func(m indexmap.Map) (cute.Layout, error) { return indexmap.ToCute(m) }),
			doc: "the map as a CuTe layout."},
	},
	batch: mapBatchUsage,
}

const mapBatchUsage = `usage: cklplan map --batch < requests.jsonl

Reads one JSON request per line and writes one JSON line per request, in order;
each answer is written as soon as no further request is waiting, so a program
may drive it through a pipe one request at a time:

  in:  {"op": "compose", "args": [OUTER, INNER]}
  out: {"result": "logical(m1:3, m0:4) -> physical(x:43) = (...)"}
  in:  {"op": "inverse", "args": ["(m:4) -> (a:8) = (2 * m)"]}
  out: {"error": {"code": "failed", "message": "line 2: indexmap: inverse: not a bijection ..."}}

ops and their fields ("args" holds the maps, as text or as JSON objects,
or the CuTe layout as text); each answer is what "map OP --format json"
writes:
  show       args [MAP], table  -> result, map (its JSON form), properties
                                   {method, in_range, ...}, or undecided (why,
                                   e.g. a domain too large to enumerate)
                                   instead of properties; with "table": true,
                                   table (the image of every domain point)
  eval       args [MAP], coord  -> result (the image), valid (whether the guard
                                   holds; if not, the point has no image and
                                   result holds the expressions' values there)
  simplify   args [MAP]         -> result, rules (the rules that fired, in order)
  compose    args [OUTER, INNER]-> result
  restrict   args [MAP], fixed {"axis": value, ...} -> result
  inverse    args [MAP]         -> result
  emit       args [MAP]         -> result, forms (one per codomain leaf)
  from-cute  args [LAYOUT], domain, codomain (kinds; default untyped) -> result
  to-cute    args [MAP]         -> result (CuTe notation)

Every error message starts with the number of the line it answers. Error
codes: syntax (with "offset" into the argument "arg", from 0, when it is text), kind (a
kind rule is broken; the message holds the witness), limit (a cap is reached),
out_of_range (a coordinate outside its axis), failed (any other failed
condition), bad_request (a malformed line), and
CuTe's codes for a LAYOUT.
`

// mapRequest answers --batch.
var _ batchRequest = (*mapRequest)(nil)

// A mapRequest is a map operation's operands and fields.
type mapRequest struct {
	args             []mapArg
	coord            []int
	fixed            map[string]int
	domain, codomain string
	table, verbose   bool
}

// A mapArg is an operand: a map's text form, or (isJSON) its JSON form, as
// text from the command line or as the value at path in a --batch line.
type mapArg struct {
	text   string
	isJSON bool
	value  *jsonv.Value
	path   jsonv.Path
}

func (q *mapRequest) setOperands(args []string, in *input) error {
	texts, err := in.texts(args)
	q.args = make([]mapArg, len(texts))
	for i, text := range texts {
		q.args[i] = mapArg{text: text, isJSON: strings.HasPrefix(text, "{")}
	}
	return err
}

func (q *mapRequest) setTail(tail string, args []string) (err error) {
	if tail == "coord" {
		q.coord, err = parseInts("coordinate", args)
		return err
	}
	q.fixed = make(map[string]int, len(args))
	for _, a := range args {
		name, value, found := strings.Cut(a, "=")
		v, err := strconv.Atoi(strings.TrimSpace(value))
		name = strings.TrimSpace(name)
		if !found || name == "" || err != nil {
			return badRequest("%q is not AXIS=VALUE with an integer VALUE", a)
		}
		if _, dup := q.fixed[name]; dup {
			return badRequest("axis %q is fixed twice", name)
		}
		q.fixed[name] = v
	}
	return nil
}

func (q *mapRequest) count() int { return len(q.args) + len(q.coord) + len(q.fixed) }

// decodeArgs takes a map's text as a JSON string, or its JSON object, which
// the operation decodes (its problems are the map's, at their paths).
func (q *mapRequest) decodeArgs(d *jsonv.Decoder, args []*jsonv.Value, p jsonv.Path) {
	q.args = make([]mapArg, len(args))
	for i, v := range args {
		switch v.Kind {
		case jsonv.String:
			q.args[i] = mapArg{text: v.Str()}
		case jsonv.Object:
			q.args[i] = mapArg{isJSON: true, value: v, path: p.Index(i)}
		default:
			d.Report(p.Index(i), jsonv.Type, "want a map's text as a string, or its JSON object; have %s", v.Describe())
		}
	}
}

func (q *mapRequest) decodeField(d *jsonv.Decoder, name string, v *jsonv.Value, p jsonv.Path) {
	switch name {
	case "coord":
		q.coord, _ = d.Ints(v, p)
	case "fixed":
		o := d.Object(v, p)
		q.fixed = map[string]int{}
		for _, axis := range o.Keys() {
			q.fixed[axis] = o.Int(axis, true)
		}
	case "domain":
		q.domain, _ = d.String(v, p)
	case "codomain":
		q.codomain, _ = d.String(v, p)
	case "table":
		q.table, _ = d.Bool(v, p)
	}
}

// mapOperand parses operand i as a map, whose spaces the cap on axes bounds.
func (q *mapRequest) mapOperand(env *env, i int) (indexmap.Map, error) {
	m, err := parseOperand(q.args, i, indexmap.Parse, indexmap.DecodeJSON)
	if err != nil {
		return m, err
	}
	for _, side := range []struct {
		name string
		side indexmap.Side
	}{{"the domain", m.Domain()}, {"the codomain", m.Codomain()}} {
		if err := env.lim.checkAxes(len(side.side.Space.Names()), side.name); err != nil {
			return m, &argError{index: i, err: err}
		}
	}
	return m, nil
}

// parseOperand parses operand i in its text form with parse, or in its JSON
// form with decode. A syntax error in the text form points into it; the JSON
// form's errors name their JSON path, a JSON syntax error its line, column
// and byte.
func parseOperand[T any](args []mapArg, i int, parse func(string) (T, error), decode func(*jsonv.Decoder, *jsonv.Value, jsonv.Path) (T, bool)) (T, error) {
	a := args[i]
	var v T
	var err error
	if !a.isJSON {
		if v, err = parse(a.text); err != nil {
			return v, &argError{index: i, text: a.text, err: err}
		}
		return v, nil
	}
	if a.value != nil {
		var d jsonv.Decoder
		v, _ = decode(&d, a.value, a.path)
		if err := d.Err(); err != nil {
			return v, &argError{index: i, err: err}
		}
		return v, nil
	}
	if v, err = decodeJSON([]byte(a.text), decode); err != nil {
		return v, &argError{index: i, text: a.text, err: err}
	}
	return v, nil
}

// decodeJSON decodes data, a JSON document, with decode: every problem, at
// its JSON path.
func decodeJSON[T any](data []byte, decode func(*jsonv.Decoder, *jsonv.Value, jsonv.Path) (T, bool)) (T, error) {
	var zero T
	v, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return zero, err
	}
	var d jsonv.Decoder
	t, _ := decode(&d, v, jsonv.Root)
	if err := d.Err(); err != nil {
		return zero, err
	}
	return t, nil
}

// A plainResult is a result that is one value, written as its text.
type plainResult[T any] struct {
	Result T `json:"result"`
}

func (r plainResult[T]) writeText(w io.Writer, _ string) error {
	_, err := fmt.Fprintln(w, r.Result)
	return err
}

// plain is the result v, or err.
func plain[T any](v T, err error) (result, error) {
	if err != nil {
		return nil, err
	}
	return plainResult[T]{v}, nil
}

// stringOf is the result v written as its text, or err.
func stringOf[T fmt.Stringer](v T, err error) (result, error) {
	if err != nil {
		return nil, err
	}
	return plainResult[string]{v.String()}, nil
}

// mapUnary is an operation that computes one value from one map.
func mapUnary[T fmt.Stringer](f func(indexmap.Map) (T, error)) func(*mapRequest, *env) (result, error) {
	return func(q *mapRequest, env *env) (result, error) {
		m, err := q.mapOperand(env, 0)
		if err != nil {
			return nil, err
		}
		return stringOf(f(m))
	}
}

func mapCompose(q *mapRequest, env *env) (result, error) {
	outer, err := q.mapOperand(env, 0)
	if err != nil {
		return nil, err
	}
	inner, err := q.mapOperand(env, 1)
	if err != nil {
		return nil, err
	}
	return stringOf(indexmap.Compose(outer, inner))
}

func mapRestrict(q *mapRequest, env *env) (result, error) {
	m, err := q.mapOperand(env, 0)
	if err != nil {
		return nil, err
	}
	return stringOf(m.Restrict(q.fixed))
}

func mapFromCute(q *mapRequest, _ *env) (result, error) {
	var kinds [2]indexmap.Kind
	for i, k := range []struct{ flag, text string }{{"domain", q.domain}, {"codomain", q.codomain}} {
		if k.text == "" {
			continue
		}
		kind, err := indexmap.ParseKind(k.text)
		if err != nil {
			return nil, badRequest("%s: %v", k.flag, err)
		}
		kinds[i] = kind
	}
	l, err := cute.Parse(q.args[0].text)
	if err != nil {
		return nil, &argError{index: 0, err: err}
	}
	return stringOf(indexmap.FromCute(l, kinds[0], kinds[1]))
}

// A simplifyResult is the simplified map and the rules that fired; the text
// lists the rules with -v only.
type simplifyResult struct {
	Result  string   `json:"result"`
	Rules   []string `json:"rules,omitempty"`
	verbose bool
}

func mapSimplify(q *mapRequest, env *env) (result, error) {
	m, err := q.mapOperand(env, 0)
	if err != nil {
		return nil, err
	}
	s, fired := m.SimplifyTrace()
	return simplifyResult{s.String(), fired, q.verbose}, nil
}

func (r simplifyResult) writeText(w io.Writer, _ string) error {
	fmt.Fprintln(w, r.Result)
	if !r.verbose {
		return nil
	}
	if len(r.Rules) == 0 {
		fmt.Fprintln(w, "no rule fired")
	}
	for i, rule := range r.Rules {
		fmt.Fprintf(w, "%d. %s\n", i+1, rule)
	}
	return nil
}

// An emitResult is the emitted map and the form of each result.
type emitResult struct {
	Result string   `json:"result"`
	Forms  []string `json:"forms"`
	leaves []string // the codomain leaves, in result order
}

func mapEmit(q *mapRequest, env *env) (result, error) {
	m, err := q.mapOperand(env, 0)
	if err != nil {
		return nil, err
	}
	e, forms := m.Emit()
	r := emitResult{Result: e.String(), Forms: make([]string, len(forms))}
	cod := e.Codomain().Space
	for i, f := range forms {
		r.Forms[i] = f.String()
		r.leaves = append(r.leaves, cod.Leaf(i).Name)
	}
	return r, nil
}

func (r emitResult) writeText(w io.Writer, _ string) error {
	fmt.Fprintln(w, r.Result)
	for i, f := range r.Forms {
		fmt.Fprintf(w, "%s: %s\n", r.leaves[i], f)
	}
	return nil
}

// An evalResult is the image of a point, and whether the guard holds there;
// where it does not, the point has no image, which a one-shot "map eval"
// reports as a failure.
type evalResult struct {
	Result []int `json:"result"`
	Valid  bool  `json:"valid"`
	m      indexmap.Map
	coord  []int
}

func mapEval(q *mapRequest, env *env) (result, error) {
	m, err := q.mapOperand(env, 0)
	if err != nil {
		return nil, err
	}
	dom := m.Domain().Space
	if len(q.coord) != dom.NumLeaves() {
		return nil, fmt.Errorf("%d coordinates for the %d leaf axes of %v", len(q.coord), dom.NumLeaves(), dom)
	}
	image, valid, err := m.Eval(q.coord)
	if err != nil {
		return nil, err
	}
	return &evalResult{image, valid, m, q.coord}, nil
}

func (r *evalResult) writeText(w io.Writer, _ string) error {
	if !r.Valid {
		return nil
	}
	_, err := fmt.Fprintln(w, pointText(r.m.Codomain().Space, r.Result))
	return err
}

func (r *evalResult) failure() error {
	if r.Valid {
		return nil
	}
	return fmt.Errorf("the guard %v does not hold at %s: the point has no image (the results there are %s)",
		r.m.Guard(), pointText(r.m.Domain().Space, r.coord), pointText(r.m.Codomain().Space, r.Result))
}

// A showResult is a map with its decided properties, or why they are not
// decided, and with --table the image of every domain point.
type showResult struct {
	Result     string             `json:"result"`
	Map        indexmap.Map       `json:"map"`
	Properties *mapPropertiesJSON `json:"properties,omitempty"`
	Undecided  string             `json:"undecided,omitempty"`
	Table      [][]int            `json:"table,omitempty"` // per domain point; null where the guard fails
	props      indexmap.Properties
	tab        *indexmap.Table
}

func mapShow(q *mapRequest, env *env) (result, error) {
	m, err := q.mapOperand(env, 0)
	if err != nil {
		return nil, err
	}
	r := &showResult{Result: m.String(), Map: m}
	// A map whose properties cannot be decided (a domain too large to
	// enumerate) is shown with the reason.
	if r.props, err = m.Decide(); err != nil {
		r.Undecided = err.Error() + capHint(err)
	} else {
		r.Properties = propertiesJSON(r.props)
	}
	if q.table {
		if err := env.lim.checkTable(m.Domain().Space.Size(), "--table: the domain", "points"); err != nil {
			return nil, err
		}
		tab, err := m.Tabulate()
		if err != nil {
			return nil, err
		}
		r.tab = &tab
		r.Table = make([][]int, m.Domain().Space.Size())
		for i := range r.Table {
			if tab.Valid == nil || tab.Valid[i] {
				r.Table[i] = tab.At(i)
			}
		}
	}
	return r, nil
}

func (r *showResult) writeText(w io.Writer, _ string) error {
	m := r.Map
	fmt.Fprintln(w, m)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, side := range []struct {
		name string
		side indexmap.Side
	}{{"domain", m.Domain()}, {"codomain", m.Codomain()}} {
		fmt.Fprintf(tw, "%s:\t%v\t%v\t%d points\n", side.name, side.side.Kind, side.side.Space, side.side.Space.Size())
	}
	fmt.Fprintf(tw, "guard:\t%v\n", m.Guard())
	if b := m.Broadcast(); len(b) > 0 {
		fmt.Fprintf(tw, "broadcast:\t%s\n", strings.Join(b, ", "))
	} else {
		fmt.Fprintln(tw, "broadcast:\tnone")
	}
	tw.Flush()
	if r.Properties == nil {
		fmt.Fprintf(w, "properties: not decided: %s\n", r.Undecided)
	} else {
		props := r.props
		fmt.Fprintf(w, "properties, decided by %s:\n", methodText(props.Method, m.Domain().Space.Size()))
		// Alias-free and dense bijection hold once the broadcast axes are
		// factored out; say so, or "injective no, dense bijection yes"
		// reads as a contradiction.
		factored := ""
		if b := m.Broadcast(); len(b) > 0 {
			factored = " (" + strings.Join(b, ", ") + " factored out)"
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range []struct {
			name string
			ok   bool
		}{
			{"in range", props.InRange},
			{"injective", props.Injective},
			{"surjective", props.Surjective},
			{"alias-free" + factored, props.AliasFree},
			{"dense bijection" + factored, props.DenseBijection},
		} {
			fmt.Fprintf(tw, "  %s\t%s\n", p.name, yesNo(p.ok))
		}
		tw.Flush()
		if props.Witness != "" {
			fmt.Fprintf(w, "witness: %s\n", props.Witness)
		}
	}
	if r.tab != nil {
		printMapTable(w, m, *r.tab)
	}
	return nil
}

func methodText(m indexmap.Method, points int) string {
	if m == indexmap.ByEnumeration {
		return fmt.Sprintf("enumeration of %d points", points)
	}
	return "the " + m.String() + " (affine and unguarded)"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// printMapTable prints the image of every domain point in flat order: the
// flat index, the domain coordinates, and the image, or "-" where the guard
// does not hold.
func printMapTable(w io.Writer, m indexmap.Map, tab indexmap.Table) {
	dom, cod := m.Domain().Space, m.Codomain().Space
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	var head strings.Builder
	head.WriteString("flat\t")
	for _, l := range dom.Leaves() {
		head.WriteString(l.Name + "\t")
	}
	head.WriteString(" ->\t")
	for _, l := range cod.Leaves() {
		head.WriteString(l.Name + "\t")
	}
	fmt.Fprintln(tw, head.String())
	coord := make([]int, dom.NumLeaves())
	for i := range dom.Size() {
		var row strings.Builder
		row.WriteString(strconv.Itoa(i) + "\t")
		dom.CoordInto(coord, i)
		for _, c := range coord {
			row.WriteString(strconv.Itoa(c) + "\t")
		}
		row.WriteString(" ->\t")
		valid := tab.Valid == nil || tab.Valid[i]
		for _, v := range tab.At(i) {
			if valid {
				row.WriteString(strconv.Itoa(v) + "\t")
			} else {
				row.WriteString("-\t")
			}
		}
		fmt.Fprintln(tw, row.String())
	}
	tw.Flush()
}

// mapPropertiesJSON is Properties as "map show --format json" and "map
// --batch" write them.
type mapPropertiesJSON struct {
	Method         string `json:"method"` // "stride" or "enumeration"
	InRange        bool   `json:"in_range"`
	Injective      bool   `json:"injective"`
	Surjective     bool   `json:"surjective"`
	AliasFree      bool   `json:"alias_free"`
	DenseBijection bool   `json:"dense_bijection"`
	Witness        string `json:"witness,omitempty"`
}

func propertiesJSON(p indexmap.Properties) *mapPropertiesJSON {
	method := "stride"
	if p.Method == indexmap.ByEnumeration {
		method = "enumeration"
	}
	return &mapPropertiesJSON{method, p.InRange, p.Injective, p.Surjective, p.AliasFree, p.DenseBijection, p.Witness}
}

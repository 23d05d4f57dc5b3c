package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

func init() {
	register(command{name: "map", summary: "guarded index maps: show, eval, simplify, compose, restrict, inverse, emit, CuTe", run: runMap})
}

const mapUsage = `usage: cklplan map show MAP [--table] [--format text|json]
       cklplan map eval MAP COORD...
       cklplan map simplify MAP [-v]
       cklplan map compose OUTER INNER
       cklplan map restrict MAP AXIS=VALUE...
       cklplan map inverse MAP
       cklplan map emit MAP
       cklplan map from-cute LAYOUT [--domain KIND] [--codomain KIND]
       cklplan map to-cute MAP
       cklplan map --batch < requests.jsonl   (JSON Lines; "map --batch -h")

A MAP is the indexmap text form (docs/algebra.md), e.g.
  'logical(m:4, k:8) -> physical(a:32) = (8 * m + k) if m < 3 broadcast(...)'
kind space -> kind space = (one result per codomain leaf) [if GUARD]
[broadcast(AXES)]; a kind is logical, thread-value or physical, or absent
(untyped). A MAP may also be given in its JSON form ({"domain": ...}). "-"
reads a MAP or LAYOUT from stdin (one argument at most).

show       the canonical text, the kinds and spaces, and the decided
           properties (in range, injective, surjective, alias-free, dense
           bijection; the last two with the broadcast axes factored out) with
           the method that decided them (stride criterion or enumeration) and
           the witness of the first that fails; --table adds the image of
           every domain point; --format json writes one object.
eval       the image of the point with the given leaf coordinates.
simplify   the map with its expressions simplified by the ordered rule table;
           -v lists the rules that fired, in order.
compose    OUTER ∘ INNER: INNER applies first; the literal substitution.
restrict   the map with the named domain axes fixed (maps into physical or
           untyped only), emitted as affine plus a constant where possible.
inverse    the inverse of a dense bijection (unguarded, no broadcast).
emit       each result as code generation prints it: one weighted sum of
           digits when it is a layout, else the simplified composite; then the
           form of each result.
from-cute  a CuTe layout (fastest mode first) as a map; modes are reversed,
           nested modes become groups, stride-0 modes declared broadcasts.
to-cute    the map as a CuTe layout.

Exit status: 0 ok, 1 invalid input or a failed condition (the error says where
and what), 2 usage.
`

var mapSubcommands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	"show":      runMapShow,
	"eval":      runMapEval,
	"simplify":  runMapSimplify,
	"compose":   runMapCompose,
	"restrict":  runMapRestrict,
	"inverse":   runMapInverse,
	"emit":      runMapEmit,
	"from-cute": runMapFromCute,
	"to-cute":   runMapToCute,
}

func runMap(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--batch" || args[0] == "-batch") {
		switch {
		case slices.ContainsFunc(args[1:], func(a string) bool { return a == "-h" || a == "-help" || a == "--help" }):
			fmt.Fprint(stdout, mapBatchUsage)
			return exitOK
		case len(args) != 1:
			fmt.Fprintln(stderr, "cklplan map: --batch takes no arguments")
			fmt.Fprint(stderr, mapBatchUsage)
			return exitUsage
		}
		if err := mapBatch(stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "cklplan map --batch: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	return dispatch("map", mapUsage, mapSubcommands, args, stdin, stdout, stderr)
}

// dispatch runs the subcommand args[0] of the command name.
func dispatch(name, usage string, subs map[string]func([]string, io.Reader, io.Writer, io.Writer) int, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	sub, ok := subs[args[0]]
	if !ok {
		names := make([]string, 0, len(subs))
		for n := range subs {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "cklplan %s: unknown subcommand %q (want one of %s)\n", name, args[0], strings.Join(names, ", "))
		return exitUsage
	}
	return sub(args[1:], stdin, stdout, stderr)
}

// argOrStdin returns arg, or all of stdin when arg is "-".
func argOrStdin(arg string, stdin io.Reader) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("reading stdin: %v", err)
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "", errors.New(`stdin ("-") is empty`)
	}
	return text, nil
}

// jsonFormError says that err, from decoding an argument's JSON form, is a
// JSON syntax error, and where, when it is one; the packages' own errors
// already say what they are.
func jsonFormError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("JSON form: %v (after %d bytes)", err, se.Offset)
	}
	return err
}

// reportError writes err from parsing or checking text; a syntax error also
// gets the text with a caret under the offset it names.
func reportError(stderr io.Writer, cmd, text string, err error) {
	fmt.Fprintf(stderr, "cklplan %s: %v\n", cmd, err)
	offset := -1
	var me *indexmap.SyntaxError
	var se *indexspace.SyntaxError
	switch {
	case errors.As(err, &me):
		offset = me.Offset
	case errors.As(err, &se):
		offset = se.Offset
	}
	if text == "" || offset < 0 || offset > len(text) || !utf8.ValidString(text[:offset]) || strings.ContainsAny(text, "\n\r\t") {
		return
	}
	line, column := excerpt(text, offset)
	fmt.Fprintf(stderr, "  %s\n  %s^\n", line, strings.Repeat(" ", column))
}

// excerptRunes bounds how much of the text reportError shows on either side
// of the offset, so that a long input gives a short excerpt, not all of it.
const excerptRunes = 60

// excerpt returns the part of text around the byte offset, with "…" where it
// was cut, and the column (in runes) of the offset in that part.
func excerpt(text string, offset int) (string, int) {
	before, after := []rune(text[:offset]), []rune(text[offset:])
	prefix, suffix := "", ""
	if len(before) > excerptRunes {
		before, prefix = before[len(before)-excerptRunes:], "…"
	}
	if len(after) > excerptRunes {
		after, suffix = after[:excerptRunes], "…"
	}
	return prefix + string(before) + string(after) + suffix, utf8.RuneCountInString(prefix) + len(before)
}

// parseMapArg parses a map given on the command line ("-": stdin), in its
// text form or, when it starts with "{", its JSON form.
func parseMapArg(cmd, arg string, stdin io.Reader, stderr io.Writer) (indexmap.Map, bool) {
	return parseArg(cmd, arg, stdin, stderr, indexmap.Parse)
}

// parseArg parses a value given on the command line ("-": stdin): in its
// text form with parse or, when it starts with "{", its JSON form. It reports
// a failure on stderr, with a caret under the offset for the text form.
func parseArg[T any](cmd, arg string, stdin io.Reader, stderr io.Writer, parse func(string) (T, error)) (T, bool) {
	var v T
	text, err := argOrStdin(arg, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan %s: %v\n", cmd, err)
		return v, false
	}
	if strings.HasPrefix(text, "{") {
		err = jsonFormError(json.Unmarshal([]byte(text), &v))
		text = "" // offsets are into a JSON field, not into text: no caret
	} else {
		v, err = parse(text)
	}
	if err != nil {
		reportError(stderr, cmd, text, err)
		var zero T
		return zero, false
	}
	return v, true
}

// mapTableLimit bounds the points "map show --table" prints.
const mapTableLimit = 1 << 16

func runMapShow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("map show", "MAP [--table] [--format text|json]", stdout, stderr)
	table := fl.Bool("table", false, "print the image of every domain point")
	format := fl.String("format", "text", "output `format`: text or json")
	pos, code := parseFlags(fl, args, 1, 1)
	if code >= 0 {
		return code
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "cklplan map show: unknown format %q (want text or json)\n", *format)
		return exitUsage
	}
	m, ok := parseMapArg("map show", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	props, perr := m.Decide()
	var tab indexmap.Table
	if *table {
		if n := m.Domain().Space.Size(); n > mapTableLimit {
			fmt.Fprintf(stderr, "cklplan map show: --table: the domain has %d points, more than %d\n", n, mapTableLimit)
			return exitFail
		}
		var err error
		if tab, err = m.Tabulate(); err != nil {
			fmt.Fprintf(stderr, "cklplan map show: %v\n", err)
			return exitFail
		}
	}
	if *format == "json" {
		return writeJSON("map show", mapShowJSON(m, props, perr, tab, *table), stdout, stderr)
	}
	fmt.Fprintln(stdout, m)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
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
	if perr != nil {
		fmt.Fprintf(stdout, "properties: not decided: %v\n", perr)
	} else {
		fmt.Fprintf(stdout, "properties, decided by %s:\n", methodText(props.Method, m.Domain().Space.Size()))
		// Alias-free and dense bijection hold once the broadcast axes are
		// factored out; say so, or "injective no, dense bijection yes"
		// reads as a contradiction.
		factored := ""
		if b := m.Broadcast(); len(b) > 0 {
			factored = " (" + strings.Join(b, ", ") + " factored out)"
		}
		tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
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
			fmt.Fprintf(stdout, "witness: %s\n", props.Witness)
		}
	}
	if *table {
		printMapTable(stdout, m, tab)
	}
	return exitOK
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

// mapShowJSON is the object "map show --format json" writes.
func mapShowJSON(m indexmap.Map, props indexmap.Properties, perr error, tab indexmap.Table, withTable bool) any {
	out := struct {
		Text       string             `json:"text"`
		Map        indexmap.Map       `json:"map"`
		Properties *mapPropertiesJSON `json:"properties,omitempty"`
		Undecided  string             `json:"undecided,omitempty"`
		Table      [][]int            `json:"table,omitempty"` // per domain point; null where the guard fails
	}{Text: m.String(), Map: m}
	if perr != nil {
		out.Undecided = perr.Error()
	} else {
		out.Properties = propertiesJSON(props)
	}
	if withTable {
		out.Table = make([][]int, m.Domain().Space.Size())
		for i := range out.Table {
			if tab.Valid == nil || tab.Valid[i] {
				out.Table[i] = tab.At(i)
			}
		}
	}
	return out
}

func runMapEval(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("map eval", "MAP COORD...", stdout, stderr)
	pos, code := parseFlags(fl, args, 1, -1)
	if code >= 0 {
		return code
	}
	coord, ok := parseInts("map eval", "coordinate", pos[1:], stderr)
	if !ok {
		return exitUsage
	}
	m, ok := parseMapArg("map eval", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	dom, cod := m.Domain().Space, m.Codomain().Space
	if len(coord) != dom.NumLeaves() {
		fmt.Fprintf(stderr, "cklplan map eval: %d coordinates for the %d leaf axes of %v\n", len(coord), dom.NumLeaves(), dom)
		return exitFail
	}
	image, valid, err := m.Eval(coord)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan map eval: %v\n", err)
		return exitFail
	}
	if !valid {
		fmt.Fprintf(stderr, "cklplan map eval: the guard %v does not hold at %s: the point has no image (the results there are %s)\n",
			m.Guard(), pointText(dom, coord), pointText(cod, image))
		return exitFail
	}
	fmt.Fprintln(stdout, pointText(cod, image))
	return exitOK
}

func runMapSimplify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("map simplify", "MAP [-v]", stdout, stderr)
	verbose := fl.Bool("v", false, "list the rules that fired, in order")
	pos, code := parseFlags(fl, args, 1, 1)
	if code >= 0 {
		return code
	}
	m, ok := parseMapArg("map simplify", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	s, fired := m.SimplifyTrace()
	fmt.Fprintln(stdout, s)
	if *verbose {
		if len(fired) == 0 {
			fmt.Fprintln(stdout, "no rule fired")
		}
		for i, r := range fired {
			fmt.Fprintf(stdout, "%d. %s\n", i+1, r)
		}
	}
	return exitOK
}

func runMapCompose(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("map compose", "OUTER INNER", stdout, stderr)
	pos, code := parseFlags(fl, args, 2, 2)
	if code >= 0 {
		return code
	}
	outer, ok := parseMapArg("map compose", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	inner, ok := parseMapArg("map compose", pos[1], stdin, stderr)
	if !ok {
		return exitFail
	}
	r, err := indexmap.Compose(outer, inner)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan map compose: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, r)
	return exitOK
}

func runMapRestrict(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("map restrict", "MAP AXIS=VALUE...", stdout, stderr)
	pos, code := parseFlags(fl, args, 2, -1)
	if code >= 0 {
		return code
	}
	fixed := make(map[string]int, len(pos)-1)
	for _, a := range pos[1:] {
		name, value, found := strings.Cut(a, "=")
		v, err := strconv.Atoi(strings.TrimSpace(value))
		name = strings.TrimSpace(name)
		if !found || name == "" || err != nil {
			fmt.Fprintf(stderr, "cklplan map restrict: %q is not AXIS=VALUE with an integer VALUE\n", a)
			return exitUsage
		}
		if _, dup := fixed[name]; dup {
			fmt.Fprintf(stderr, "cklplan map restrict: axis %q is fixed twice\n", name)
			return exitUsage
		}
		fixed[name] = v
	}
	m, ok := parseMapArg("map restrict", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	r, err := m.Restrict(fixed)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan map restrict: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, r)
	return exitOK
}

func runMapInverse(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runMapUnary("map inverse", args, stdin, stdout, stderr, func(m indexmap.Map) (fmt.Stringer, error) {
		return m.Inverse()
	})
}

// runMapUnary runs a map subcommand that takes one MAP, computes one value
// from it and prints that value.
func runMapUnary(cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer, f func(indexmap.Map) (fmt.Stringer, error)) int {
	fl := newFlagSet(cmd, "MAP", stdout, stderr)
	pos, code := parseFlags(fl, args, 1, 1)
	if code >= 0 {
		return code
	}
	m, ok := parseMapArg(cmd, pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	v, err := f(m)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan %s: %v\n", cmd, err)
		return exitFail
	}
	fmt.Fprintln(stdout, v)
	return exitOK
}

func runMapEmit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("map emit", "MAP", stdout, stderr)
	pos, code := parseFlags(fl, args, 1, 1)
	if code >= 0 {
		return code
	}
	m, ok := parseMapArg("map emit", pos[0], stdin, stderr)
	if !ok {
		return exitFail
	}
	e, forms := m.Emit()
	fmt.Fprintln(stdout, e)
	cod := e.Codomain().Space
	for i, f := range forms {
		fmt.Fprintf(stdout, "%s: %s\n", cod.Leaf(i).Name, f)
	}
	return exitOK
}

func runMapFromCute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("map from-cute", "LAYOUT [--domain KIND] [--codomain KIND]", stdout, stderr)
	domain := fl.String("domain", "untyped", "the domain's `kind`: logical, thread-value, physical or untyped")
	codomain := fl.String("codomain", "untyped", "the codomain's `kind`: logical, thread-value, physical or untyped")
	pos, code := parseFlags(fl, args, 1, 1)
	if code >= 0 {
		return code
	}
	dk, err := indexmap.ParseKind(*domain)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan map from-cute: --domain: %v\n", err)
		return exitUsage
	}
	ck, err := indexmap.ParseKind(*codomain)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan map from-cute: --codomain: %v\n", err)
		return exitUsage
	}
	text, err := argOrStdin(pos[0], stdin)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan map from-cute: %v\n", err)
		return exitFail
	}
	l, err := cute.Parse(text)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan map from-cute: %v\n", err)
		return exitFail
	}
	m, err := indexmap.FromCute(l, dk, ck)
	if err != nil {
		fmt.Fprintf(stderr, "cklplan map from-cute: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, m)
	return exitOK
}

func runMapToCute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runMapUnary("map to-cute", args, stdin, stdout, stderr, func(m indexmap.Map) (fmt.Stringer, error) {
		return indexmap.ToCute(m)
	})
}

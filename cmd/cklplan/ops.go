package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/internal/jsonv"
)

// Every command is a table of operations (an opTable): "map show", "layout
// composition", "space refine", or the one unnamed operation of "doctor". An
// operation turns a request into a result value; the command line and a
// --batch line differ only in how the request is read, and text, JSON and
// --batch differ only in how the result is written. Computing happens in one
// place, the op's run.

// streams are a command's standard input, output and error.
type streams struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// A result is what an operation computes. Its JSON encoding is what
// "--format json" writes and what "--batch" answers; writeText renders it for
// people in the text format, or in the op's picture format.
type result interface {
	writeText(w io.Writer, format string) error
}

// A jsonWriter is a result that writes its own JSON form.
type jsonWriter interface {
	writeJSON(w io.Writer) error
}

// A failingResult is a result that a one-shot command reports as a failed
// condition (exit 1, the reason on stderr) after writing it, while --batch
// answers it as data: a point outside the guard, values that are no layout.
type failingResult interface {
	result
	failure() error
}

// A request is what an operation reads from the command line: operands,
// the trailing arguments, flags.
type request interface {
	// setOperands sets the operands from command-line arguments; in reads
	// "-" (stdin) and files under the caps.
	setOperands(args []string, in *input) error
	// setTail sets the request field tail ("coord") from the command-line
	// arguments after the operands.
	setTail(tail string, args []string) error
	// count is the number of operands and values the request holds, which
	// the cap on arguments bounds.
	count() int
}

// A batchRequest is the request of a command that answers --batch, which
// also reads it from one JSON line, decoded through internal/jsonv: every
// problem is recorded in d at its path.
type batchRequest interface {
	request
	// decodeArgs sets the operands from the entries of "args" (at p).
	decodeArgs(d *jsonv.Decoder, args []*jsonv.Value, p jsonv.Path)
	// decodeField sets the request field name from its value v at p.
	decodeField(d *jsonv.Decoder, name string, v *jsonv.Value, p jsonv.Path)
}

// An op is one operation of a command.
type op[P request] struct {
	name     string // "" for the one operation of a command without operations
	operands string // their usage: "OUTER INNER"
	min, max int    // how many operands: arguments, or entries of "args"
	// tail is the request field that the arguments after the operands fill
	// ("coord" for "map eval MAP COORD..."), tailArgs its usage, and
	// tailMin, tailMax (-1: any) how many arguments it takes. In a --batch
	// request the field is required.
	tail             string
	tailArgs         string
	tailMin, tailMax int
	flags            []string // the command's op-specific flags this op takes
	fields           []string // the --batch request fields it takes besides op, args and tail
	formats          []string // its output formats, the default first; nil: text, json
	jsonFlags        []string // of flags, those that shape only --format json
	doc              string   // what it does, for the command's usage
	run              func(q P, env *env) (result, error)
}

func (o *op[P]) formatList() []string {
	if o.formats == nil {
		return []string{"text", "json"}
	}
	return o.formats
}

// usageLine is "OP OPERANDS TAIL [FLAGS]" without the command; fs holds
// the flags.
func (o *op[P]) usageLine(fs *flag.FlagSet) string {
	parts := []string{}
	if o.name != "" {
		parts = append(parts, o.name)
	}
	for _, s := range []string{o.operands, o.tailArgs} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	for _, name := range o.flags {
		f := fs.Lookup(name)
		value, _ := flag.UnquoteUsage(f)
		dash := "--"
		if len(name) == 1 {
			dash = "-"
		}
		parts = append(parts, strings.TrimSpace("["+dash+name+" "+value)+"]")
	}
	parts = append(parts, "[--format "+strings.Join(o.formatList(), "|")+"]")
	return strings.Join(parts, " ")
}

// arity returns how many command-line arguments the op takes after its
// name (most < 0: no limit).
func (o *op[P]) arity() (least, most int) {
	if o.tail == "" {
		return o.min, o.max
	}
	if o.tailMax < 0 {
		return o.min + o.tailMin, -1
	}
	return o.min + o.tailMin, o.max + o.tailMax
}

// An opTable is a command: its operations, their flags, and whether it
// answers --batch.
type opTable[Q any, P interface {
	*Q
	request
}] struct {
	name    string // "map"
	summary string // one line, for "cklplan help"
	// noun names an operation in messages ("subcommand", "operation").
	noun string
	// about follows the usage lines in the command's usage: the notation
	// of its operands.
	about string
	ops   []*op[P]
	// flags declares the op-specific flags, bound to the request; each op
	// lists those it takes.
	flags func(fs *flag.FlagSet, q P)
	// batch is the help of --batch; "" when the command has none.
	batch string
}

func (t *opTable[Q, P]) single() bool { return len(t.ops) == 1 && t.ops[0].name == "" }

func (t *opTable[Q, P]) find(name string) *op[P] {
	for _, o := range t.ops {
		if o.name == name {
			return o
		}
	}
	return nil
}

// opNames lists the names of the operations, sorted.
func (t *opTable[Q, P]) opNames() []string {
	names := make([]string, len(t.ops))
	for i, o := range t.ops {
		names[i] = o.name
	}
	slices.Sort(names)
	return names
}

// command is t's entry in the command table.
func (t *opTable[Q, P]) command() command {
	return command{name: t.name, summary: t.summary, ops: len(t.ops), run: t.run}
}

// flagSet returns the command's flags: the common ones (--format, --batch,
// the caps) and every op's own, bound to q and env.
func (t *opTable[Q, P]) flagSet(q P, env *env) (*flag.FlagSet, *string, *bool) {
	fs := flag.NewFlagSet(t.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	format := fs.String("format", "", "output `format`: text or json (and a picture where the operation draws one)")
	batch := new(bool)
	if t.batch != "" {
		fs.BoolVar(batch, "batch", false, "read JSON Lines requests from stdin, write one JSON line per request")
	}
	env.lim.flags(fs, t.batch != "")
	if t.flags != nil {
		t.flags(fs, q)
	}
	return fs, format, batch
}

// commonFlag reports whether the flag name belongs to every operation.
func (t *opTable[Q, P]) commonFlag(name string) bool {
	return name == "format" || name == "batch" || isLimitFlag(name)
}

// run runs the command on its command-line arguments.
func (t *opTable[Q, P]) run(args []string, s streams) int {
	q := P(new(Q))
	env := &env{stderr: s.stderr}
	fs, format, batch := t.flagSet(q, env)
	pos, err := scanFlags(fs, args)
	var o *op[P]
	help := errors.Is(err, flag.ErrHelp)
	switch {
	case t.single():
		o = t.ops[0]
	case len(pos) > 0 && pos[0] == "help" && err == nil:
		// "cklplan map help [OP]" is "cklplan map [OP] -h".
		help = true
		if len(pos) > 1 {
			o = t.find(pos[1])
		}
	case len(pos) > 0:
		o = t.find(pos[0])
	}
	u := &reporter[Q, P]{t: t, o: o, fs: fs, batch: *batch, s: s}
	if help {
		u.write(s.stdout)
		return exitOK
	}
	if err != nil {
		return u.error("%v", err)
	}
	if err := env.lim.check(); err != nil {
		return u.error("%v", err)
	}
	defer env.lim.apply()()
	if *batch {
		u.o = nil
		if len(pos) != 0 {
			return u.error("--batch takes no arguments, got %d", len(pos))
		}
		if err := t.onlyCommonFlags(fs, "--batch"); err != nil {
			return u.error("%v", err)
		}
		if *format != "" {
			return u.error("--format does not go with --batch (it answers JSON lines)")
		}
		if err := t.serveBatch(s.stdin, s.stdout, env); err != nil {
			fmt.Fprintf(s.stderr, "cklplan %s --batch: %v\n", t.name, err)
			return exitFail
		}
		return exitOK
	}
	if !t.single() {
		switch {
		case len(pos) == 0:
			return u.error("no %s", t.noun)
		case o == nil:
			return u.error("unknown %s %q (want one of %s)", t.noun, pos[0], strings.Join(t.opNames(), ", "))
		}
		pos = pos[1:]
	}
	if err := t.onlyOpFlags(fs, o); err != nil {
		return u.error("%v", err)
	}
	if *format == "" {
		*format = o.formatList()[0]
	}
	if !slices.Contains(o.formatList(), *format) {
		return u.error("unknown format %q (want %s)", *format, orList(o.formatList()))
	}
	if err := onlyWithJSON(fs, o.jsonFlags, *format); err != nil {
		return u.error("%v", err)
	}
	if least, most := o.arity(); len(pos) < least || (most >= 0 && len(pos) > most) {
		return u.error("%s, got %d", arity(least, most), len(pos))
	}
	if err := env.lim.checkArgs(len(pos), "arguments"); err != nil {
		return u.fail(err)
	}
	in := &input{stdin: s.stdin, lim: &env.lim}
	n := min(len(pos), o.max)
	if err := q.setOperands(pos[:n], in); err != nil {
		return u.fail(err)
	}
	if o.tail != "" {
		if err := q.setTail(o.tail, pos[n:]); err != nil {
			return u.fail(err)
		}
	}
	defer env.finish()
	res, err := o.run(q, env)
	if err != nil {
		return u.fail(err)
	}
	w := bufio.NewWriter(s.stdout)
	if jw, ok := res.(jsonWriter); ok && *format == "json" {
		err = jw.writeJSON(w)
	} else if *format == "json" {
		err = writeJSON(w, res)
	} else {
		err = res.writeText(w, *format)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return u.fail(err)
	}
	if f, ok := res.(failingResult); ok {
		if err := f.failure(); err != nil {
			return u.fail(err)
		}
	}
	return exitOK
}

// onlyOpFlags checks that every flag given is common or one of o's.
func (t *opTable[Q, P]) onlyOpFlags(fs *flag.FlagSet, o *op[P]) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !t.commonFlag(f.Name) && !slices.Contains(o.flags, f.Name) {
			err = fmt.Errorf("-%s does not go with %s", f.Name, t.opTitle(o))
		}
	})
	return err
}

// onlyWithJSON refuses a flag of jsonOnly given with another format than
// json: it would change nothing, where its user expects it to.
func onlyWithJSON(fs *flag.FlagSet, jsonOnly []string, format string) error {
	if format == "json" {
		return nil
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(jsonOnly, f.Name) {
			err = fmt.Errorf("--%s shapes --format json only; it does nothing with --format %s", f.Name, format)
		}
	})
	return err
}

// onlyCommonFlags checks that no op-specific flag is given with what.
func (t *opTable[Q, P]) onlyCommonFlags(fs *flag.FlagSet, what string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !t.commonFlag(f.Name) {
			err = fmt.Errorf("-%s does not go with %s", f.Name, what)
		}
	})
	return err
}

// opTitle is "map show", or "doctor" for a command's only operation.
func (t *opTable[Q, P]) opTitle(o *op[P]) string {
	if o == nil || o.name == "" {
		return t.name
	}
	return t.name + " " + o.name
}

func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// writeJSON writes v as one line of JSON. HTML characters are not escaped,
// so map texts ("->") and tilers (<3:4, 8:2>) read as written.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// A usage is how a command reports help and errors: for the operation when
// one is named, for the whole command otherwise.
type reporter[Q any, P interface {
	*Q
	request
}] struct {
	t     *opTable[Q, P]
	o     *op[P]
	fs    *flag.FlagSet
	batch bool
	s     streams
}

// write prints the usage: of --batch, of the operation, or of the command.
func (u *reporter[Q, P]) write(w io.Writer) {
	t := u.t
	switch {
	case u.batch && t.batch != "":
		fmt.Fprint(w, t.batch)
	case u.o != nil && !t.single():
		fmt.Fprintf(w, "usage: cklplan %s %s\n", t.name, u.o.usageLine(u.fs))
		if u.o.doc != "" {
			// What the operation does, as the command's usage says.
			indent := "\n" + strings.Repeat(" ", len(u.o.name)+2)
			fmt.Fprintf(w, "\n%s: %s\n", u.o.name, strings.ReplaceAll(strings.TrimRight(u.o.doc, "\n"), "\n", indent))
		}
		u.writeFlags(w, u.o)
		fmt.Fprintf(w, "\nRun 'cklplan %s -h' for the whole command's usage.\n", t.name)
	default:
		t.writeUsageLines(w, u.fs)
		if t.batch != "" {
			fmt.Fprintf(w, "       cklplan %s --batch < requests.jsonl   (JSON Lines; \"%s --batch -h\")\n", t.name, t.name)
		}
		if t.about != "" {
			fmt.Fprintf(w, "\n%s", t.about)
		}
		if t.single() {
			u.writeFlags(w, t.ops[0])
			break
		}
		fmt.Fprintln(w)
		width := 0
		for _, o := range t.ops {
			width = max(width, len(o.name))
		}
		for _, o := range t.ops {
			for i, line := range strings.Split(strings.TrimRight(o.doc, "\n"), "\n") {
				name := ""
				if i == 0 {
					name = o.name
				}
				fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%-*s  %s", width, name, line), " "))
			}
		}
		fmt.Fprintf(w, "\n--format json writes the result as one JSON object. 'cklplan %s %s -h' lists\nthe flags of each %s, and the caps on input (docs/limits.md).\n",
			t.name, t.ops[0].name, t.noun)
		fmt.Fprintln(w, "\nExit status: 0 ok, 1 invalid input or a failed condition (the error says")
		fmt.Fprintln(w, "where and what), 2 usage.")
	}
}

// writeFlags lists the flags o takes: its own, --format, then the caps.
func (u *reporter[Q, P]) writeFlags(w io.Writer, o *op[P]) {
	fmt.Fprintln(w, "\nflags:")
	u.fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(o.flags, f.Name) {
			return
		}
		writeFlag(w, f)
	})
	fmt.Fprintf(w, "  --format string\n    \toutput format: %s (default %s)\n", orList(o.formatList()), o.formatList()[0])
	u.fs.VisitAll(func(f *flag.Flag) {
		if isLimitFlag(f.Name) {
			writeFlag(w, f)
		}
	})
}

// writeFlag writes one flag as flag.PrintDefaults does.
func writeFlag(w io.Writer, f *flag.Flag) {
	name, text := flag.UnquoteUsage(f)
	line := "  --" + f.Name
	if len(f.Name) == 1 {
		line = "  -" + f.Name // -o, -v: as the usage lines write them
	}
	if name != "" {
		line += " " + name
	}
	line += "\n    \t" + strings.ReplaceAll(text, "\n", "\n    \t")
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
		line += fmt.Sprintf(" (default %v)", f.DefValue)
	}
	fmt.Fprintln(w, line)
}

// error reports a usage error on stderr: what is wrong, the usage lines (of
// the operation when one is named, else of every operation), and where the
// whole usage is; the rest of the usage (the notation, the flags) is -h's,
// so that the error is not lost above it.
func (u *reporter[Q, P]) error(format string, args ...any) int {
	w, t := u.s.stderr, u.t
	fmt.Fprintf(w, "cklplan %s: %s\n", t.opTitle(u.o), fmt.Sprintf(format, args...))
	switch {
	case u.batch && t.batch != "":
		fmt.Fprintf(w, "usage: cklplan %s --batch < requests.jsonl\n", t.name)
		fmt.Fprintf(w, "Run 'cklplan %s --batch -h' for the request format and the flags.\n", t.name)
		return exitUsage
	case u.o != nil && !t.single():
		fmt.Fprintf(w, "usage: cklplan %s %s\n", t.name, u.o.usageLine(u.fs))
	default:
		t.writeUsageLines(w, u.fs)
	}
	fmt.Fprintf(w, "Run 'cklplan %s -h' for the flags and what they mean.\n", t.opTitle(u.o))
	return exitUsage
}

// fail reports err from reading the request or running the operation: a
// malformed request is a usage error (exit 2), anything else a failure (exit
// 1) said on stderr, with an excerpt of the text at the offset a syntax error
// names, and the code of a CuTe error.
func (u *reporter[Q, P]) fail(err error) int {
	if re := (*requestError)(nil); errors.As(err, &re) {
		return u.error("%v", err)
	}
	msg := err.Error() + capHint(err)
	if code := cuteCode(err); code != "" {
		msg += " [" + code + "]"
	}
	// A list of input problems is said one a line, the command's name
	// before each, so that every line is whole ("cklplan plan: FILE: PATH:
	// MESSAGE [CODE]"), as plan says its warnings.
	lines := []string{msg}
	if pe := (problemsError{}); errors.As(err, &pe) {
		lines = strings.Split(msg, "\n")
	}
	for _, line := range lines {
		fmt.Fprintf(u.s.stderr, "cklplan %s: %s\n", u.t.opTitle(u.o), line)
	}
	if text, offset, ok := errorExcerpt(err); ok {
		line, column := excerpt(text, offset)
		fmt.Fprintf(u.s.stderr, "  %s\n  %s^\n", line, strings.Repeat(" ", column))
	}
	return exitFail
}

// A requestError is a malformed request: a usage error on the command line,
// "bad_request" in --batch; err, when set, holds the problems a --batch
// line's decoding found.
type requestError struct {
	msg string
	err error
}

func (e *requestError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return e.msg
}

func (e *requestError) Unwrap() error { return e.err }

func badRequest(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...)}
}

// writeUsageLines writes one usage line per operation of t, the first led
// by "usage:".
func (t *opTable[Q, P]) writeUsageLines(w io.Writer, fs *flag.FlagSet) {
	for i, o := range t.ops {
		lead := "usage:"
		if i > 0 {
			lead = "      "
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%s cklplan %s %s", lead, t.name, o.usageLine(fs)), " "))
	}
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"

	"github.com/cklplan/cklplan/indexmap"
)

// limits are the caps on what one command reads and does, each raisable by
// a flag (docs/limits.md). The defaults keep a command under about 1 GiB of
// memory and a few seconds.
type limits struct {
	inputBytes int64 // stdin or a file, read whole
	lineBytes  int64 // one --batch request line
	args       int   // arguments of a command line, or values of one request
	terms      int   // terms of one parsed text or composite (indexmap)
	axes       int   // axes (groups and leaves) of one space
	points     int   // domain points enumerated (indexmap)
	table      int   // rows or cells one table, picture or listing writes
}

// A limitFlag is a cap's flag: its name, default and help.
type limitFlag struct {
	name  string
	def   int64
	help  string
	field func(l *limits) any // *int64 or *int
}

// limitFlags are the caps' flags, in the order the usage lists them.
var limitFlags = []limitFlag{
	{"max-input-bytes", 16 << 20, "cap on the `bytes` read from stdin or a file", func(l *limits) any { return &l.inputBytes }},
	{"max-line-bytes", 1 << 20, "cap on the `bytes` of one --batch request line", func(l *limits) any { return &l.lineBytes }},
	{"max-args", 1 << 16, "cap on the `number` of arguments, or of values in one request", func(l *limits) any { return &l.args }},
	{"max-terms", indexmap.DefaultMaxTerms, "cap on the `terms` of one expression text or composite", func(l *limits) any { return &l.terms }},
	{"max-axes", 1024, "cap on the `axes` (groups and leaves) of one space", func(l *limits) any { return &l.axes }},
	{"max-points", indexmap.EnumerationLimit, "cap on the domain `points` enumerated to decide properties and kinds", func(l *limits) any { return &l.points }},
	{"max-table", 1 << 16, "cap on the `rows` or cells a table, picture or listing writes", func(l *limits) any { return &l.table }},
}

func isLimitFlag(name string) bool {
	for _, f := range limitFlags {
		if f.name == name {
			return true
		}
	}
	return false
}

// flags declares the flags that raise the caps, with their defaults. A
// command without --batch (batch false) does not take --max-line-bytes, which
// bounds nothing else (docs/limits.md): its cap keeps the default, and the
// flag given is an unknown flag, as any other the command lacks.
func (l *limits) flags(fs *flag.FlagSet, batch bool) {
	for _, f := range limitFlags {
		if f.name == "max-line-bytes" && !batch {
			l.lineBytes = f.def
			continue
		}
		switch p := f.field(l).(type) {
		case *int64:
			fs.Int64Var(p, f.name, f.def, f.help)
		case *int:
			fs.IntVar(p, f.name, int(f.def), f.help)
		}
	}
}

// check reports a cap set to no positive value.
func (l *limits) check() error {
	for _, f := range limitFlags {
		var v int64
		switch p := f.field(l).(type) {
		case *int64:
			v = *p
		case *int:
			v = int64(*p)
		}
		if v < 1 {
			return fmt.Errorf("--%s %d: a cap must be positive", f.name, v)
		}
	}
	return nil
}

// apply sets the caps that the packages enforce (indexmap's) for the
// command's run, and returns what restores the previous ones.
func (l *limits) apply() (restore func()) {
	prev := indexmap.SetLimits(indexmap.Limits{MaxTerms: l.terms, MaxPoints: l.points})
	return func() { indexmap.SetLimits(prev) }
}

// A limitError reports a cap that input reached: what went over it, and the
// flag that raises it.
type limitError struct {
	what string // "stdin holds more than 16777216 bytes"
	flag string // "max-input-bytes"
	hint string // what else helps, or ""
}

func (e *limitError) Error() string {
	s := fmt.Sprintf("%s (the cap; raise it with --%s)", e.what, e.flag)
	if e.hint != "" {
		s += "; " + e.hint
	}
	return s
}

// capHint says which flag raises the cap a package's error names, or "".
func capHint(err error) string {
	var le *indexmap.LimitError
	switch {
	case errors.As(err, &le):
		return " (raise it with --max-terms)"
	case errors.Is(err, indexmap.ErrTooLarge):
		return " (raise it with --max-points)"
	}
	return ""
}

// readAll reads r whole, up to the input cap; name says what r is ("stdin").
func (l *limits) readAll(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, l.inputBytes+1))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == name {
			return nil, err // it names the file already ("read m: is a directory")
		}
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > l.inputBytes {
		return nil, &limitError{what: fmt.Sprintf("%s holds more than %d bytes", name, l.inputBytes), flag: "max-input-bytes"}
	}
	return data, nil
}

// checkArgs caps the number of arguments or values a request holds.
func (l *limits) checkArgs(n int, what string) error {
	if n > l.args {
		return &limitError{what: fmt.Sprintf("%d %s, more than %d", n, what, l.args), flag: "max-args"}
	}
	return nil
}

// checkAxes caps the axes of a space: its groups and leaves.
func (l *limits) checkAxes(n int, what string) error {
	if n > l.axes {
		return &limitError{what: fmt.Sprintf("%s has %d axes, more than %d", what, n, l.axes), flag: "max-axes"}
	}
	return nil
}

// checkTable caps the rows or cells an output writes: what has n of them,
// named by unit.
func (l *limits) checkTable(n int, what, unit string) error {
	if n > l.table {
		return &limitError{what: fmt.Sprintf("%s has %d %s, more than %d", what, n, unit, l.table), flag: "max-table"}
	}
	return nil
}

package jsonv

import (
	"cmp"
	"slices"
	"strings"
)

// A Code names the kind of a problem. Codes are stable: programs may match
// on them. Packages add their own (tasks.CodeCycle, say); the codes here are
// the ones every JSON form shares.
type Code string

// The codes shared by every JSON form.
const (
	// Syntax: the bytes are not JSON.
	Syntax Code = "syntax"
	// Type: a value of the wrong JSON kind (a string where a number belongs).
	Type Code = "type"
	// UnknownField: an object member the form does not define.
	UnknownField Code = "unknown_field"
	// DuplicateKey: a key given twice in one object.
	DuplicateKey Code = "duplicate_key"
	// Missing: a required member is absent.
	Missing Code = "missing"
	// Range: a number outside what the field allows, or too large to represent.
	Range Code = "range"
	// Invalid: a value of the right kind that breaks a rule of the form.
	Invalid Code = "invalid"
	// Limit: the input exceeds a cap (bytes, depth, count).
	Limit Code = "limit"
	// UnknownName: a reference to a name that is not defined.
	UnknownName Code = "unknown_name"
	// DuplicateName: a name or id defined twice.
	DuplicateName Code = "duplicate_name"
)

// A Problem is one mistake in a document: where (Path, and the byte Offset
// when the problem came from parsing bytes, else -1), what kind (Code) and
// what, in words (Msg). Err is the underlying error when another package
// found the problem (an index map's syntax error, say); Unwrap returns it.
// A warning does not make a document invalid.
type Problem struct {
	Path    Path
	Code    Code
	Msg     string
	Offset  int
	Err     error
	Warning bool
}

// Error writes "PATH: MSG", with "warning: " before a warning's message.
func (p *Problem) Error() string {
	msg := p.Msg
	if p.Warning {
		msg = "warning: " + msg
	}
	return p.Path.String() + ": " + msg
}

// Unwrap returns the cause, if any.
func (p *Problem) Unwrap() error { return p.Err }

// compare orders problems by path, then errors before warnings, then code,
// then message.
func compareProblems(a, b *Problem) int {
	if c := a.Path.Compare(b.Path); c != 0 {
		return c
	}
	if a.Warning != b.Warning {
		if a.Warning {
			return +1
		}
		return -1
	}
	if c := cmp.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	return cmp.Compare(a.Msg, b.Msg)
}

// Problems is a list of problems, and an error when it holds at least one
// that is not a warning. Lists built by this package are sorted.
type Problems []*Problem

// Error writes one problem per line: the errors first, then the warnings
// (each marked "warning: "), each kind in ps's order. A reader of a failed
// load meets what made it fail before what only might be a mistake.
func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps.ErrorsFirst() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// ErrorsFirst returns the errors, then the warnings, each kind in ps's
// order: the order in which Error writes them.
func (ps Problems) ErrorsFirst() Problems {
	return append(ps.Errors(), ps.Warnings()...)
}

// Unwrap returns the problems as errors, so errors.As and errors.Is look
// into each problem and its cause.
func (ps Problems) Unwrap() []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// Where lists every problem as "PATH CODE", in ps's order: what a program
// (or a test) compares to know which mistakes a document has, whatever the
// messages say.
func (ps Problems) Where() []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Path.String() + " " + string(p.Code)
	}
	return out
}

// Sort sorts ps in place by path, then code, then message.
func (ps Problems) Sort() { slices.SortStableFunc(ps, compareProblems) }

// Errors returns the problems that are not warnings.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if !p.Warning {
			out = append(out, p)
		}
	}
	return out
}

// Warnings returns the warnings.
func (ps Problems) Warnings() Problems {
	var out Problems
	for _, p := range ps {
		if p.Warning {
			out = append(out, p)
		}
	}
	return out
}

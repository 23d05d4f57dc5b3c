package cute

import (
	"fmt"
	"strings"
)

// A Code names the condition an operation found violated. Codes are stable:
// they appear in the CLI's JSON output and may be matched by callers.
type Code string

// The codes of Error.
const (
	CodeSyntax         Code = "syntax"          // the text is not CuTe notation
	CodeInvalid        Code = "invalid"         // shape and stride are not congruent, or a shape entry is not positive
	CodeOverflow       Code = "overflow"        // a size or a value does not fit the integer range
	CodeNotALayout     Code = "not_a_layout"    // the result, as a function, is no shape:stride layout
	CodeNoComplement   Code = "no_complement"   // the complement's divisibility conditions fail
	CodeDivisibility   Code = "divisibility"    // a divisibility condition of composition or left_inverse fails
	CodeOverlap        Code = "overlap"         // the modes of a composition's right operand overlap in the left one's domain
	CodeOutOfDomain    Code = "out_of_domain"   // a composition's right operand takes negative values
	CodeNotInjective   Code = "not_injective"   // the operation needs an injective layout
	CodeNegativeStride Code = "negative_stride" // the operation needs non-negative strides
	CodeRankMismatch   Code = "rank_mismatch"   // a tiler has more modes than the layout it tiles
	CodeInternal       Code = "internal"        // a computed result failed its own definition check (a bug)
	CodeBadArgument    Code = "bad_argument"    // an argument is out of range (e.g. a cotarget < 1)
)

// An Error reports a failed condition of a layout operation. Errors compare
// equal under errors.Is when their codes agree, so
//
//	errors.Is(err, cute.ErrNotALayout)
//
// tests for the code alone.
type Error struct {
	Code Code   // the failed condition
	Op   string // the operation that failed, e.g. "composition"
	Msg  string // what failed, and where
	// Values holds the values the operation computed as a function where it
	// could not name them as a layout: for a failed composition, the
	// composite A(B(i)) for every i of B's domain, in CuTe order.
	Values []int
	// Layout is, for a composition whose CuTe condition (Code) fails although
	// its composite is a layout compatible with the right operand, that
	// layout; the zero Layout otherwise.
	Layout Layout
	// reason is the failed condition alone, without the operands, for an
	// operation built from others to restate in terms of its own operands.
	reason string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("cute: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Op == "" && t.Msg == sentinelMsg(t.Code)
}

func sentinelMsg(c Code) string { return string(c) }

func sentinel(c Code) *Error { return &Error{Code: c, Msg: sentinelMsg(c)} }

// Sentinel errors, one per code, for errors.Is.
var (
	ErrSyntax         = sentinel(CodeSyntax)
	ErrInvalid        = sentinel(CodeInvalid)
	ErrOverflow       = sentinel(CodeOverflow)
	ErrNotALayout     = sentinel(CodeNotALayout)
	ErrNoComplement   = sentinel(CodeNoComplement)
	ErrDivisibility   = sentinel(CodeDivisibility)
	ErrOverlap        = sentinel(CodeOverlap)
	ErrOutOfDomain    = sentinel(CodeOutOfDomain)
	ErrNotInjective   = sentinel(CodeNotInjective)
	ErrNegativeStride = sentinel(CodeNegativeStride)
	ErrRankMismatch   = sentinel(CodeRankMismatch)
	ErrInternal       = sentinel(CodeInternal)
	ErrBadArgument    = sentinel(CodeBadArgument)
)

// within returns err with its operation replaced by op, the operation the
// caller asked for, and its message kept: an error from a step of op (a
// complement inside a product) is not prefixed with the steps' names.
func within(op string, err error) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	return &Error{Code: e.Code, Op: op, Msg: e.Msg, Values: e.Values, Layout: e.Layout, reason: e.reason}
}

// restate returns err, from a step of op on intermediate layouts, said in
// terms of op's own operands: subject names what failed, and the step's
// failed condition follows, without the intermediate layouts.
func restate(op string, err error, subject string) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	msg := subject
	if e.reason != "" {
		msg += ": " + e.reason
	}
	if len(e.Values) > 0 {
		msg += "; its values are " + brief(e.Values)
	}
	return &Error{Code: e.Code, Op: op, Msg: msg, Values: e.Values, Layout: e.Layout, reason: e.reason}
}

func errorf(code Code, op, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Msg: fmt.Sprintf(format, args...)}
}

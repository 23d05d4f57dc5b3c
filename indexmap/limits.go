package indexmap

import (
	"fmt"
	"sync/atomic"
)

// The default caps (Limits).
const (
	// DefaultMaxTerms bounds the terms (axis references and constants) of
	// one parsed text: a map's results and guard, an expression, a guard.
	// Evaluation, simplification, compilation and printing recurse along a
	// chain of binary operations, so the cap also bounds their depth.
	DefaultMaxTerms = 100_000
	// EnumerationLimit is the default largest domain size whose properties
	// are decided by enumeration when the stride criterion does not apply.
	EnumerationLimit = 1 << 22
)

// Limits are the caps on the work that text and maps may ask for: the terms
// of a parsed text or of a composite, and the domain points enumerated to
// decide properties, kinds, emission and CuTe conversion. A zero field means
// its default.
type Limits struct {
	MaxTerms  int
	MaxPoints int
}

var limits atomic.Pointer[Limits]

// SetLimits sets the caps for the whole process and returns the previous
// ones. It is meant for programs such as cklplan's command line, whose flags
// raise the caps on untrusted input; the defaults serve everyone else.
func SetLimits(l Limits) Limits {
	prev := limits.Swap(&l)
	if prev == nil {
		return Limits{}
	}
	return *prev
}

// CurrentLimits returns the caps in force, with the defaults filled in.
func CurrentLimits() Limits {
	var l Limits
	if p := limits.Load(); p != nil {
		l = *p
	}
	if l.MaxTerms <= 0 {
		l.MaxTerms = DefaultMaxTerms
	}
	if l.MaxPoints <= 0 {
		l.MaxPoints = EnumerationLimit
	}
	return l
}

// A LimitError reports text or a composite with more terms than the cap
// (Limits.MaxTerms). Offset is where the first term over the cap starts, or
// -1 for a composite.
type LimitError struct {
	Offset int
	Terms  int // the cap
}

func (e *LimitError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("indexmap: the composite has more than %d terms (the cap on expression terms)", e.Terms)
	}
	return fmt.Sprintf("indexmap: offset %d: more than %d terms (the cap on expression terms)", e.Offset, e.Terms)
}

// termsUpTo counts the terms of e, shared subtrees once per occurrence (as
// printing and evaluation visit them), without recursion; it stops counting
// at limit.
func termsUpTo(e Expr, limit int) int {
	n := 0
	stack := []Expr{e}
	for len(stack) > 0 && n < limit {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b, ok := top.(*Binary); ok {
			stack = append(stack, b.x, b.y)
			continue
		}
		n++
	}
	return n
}

package indexspace

import (
	"fmt"
	"strconv"
	"strings"
)

// A SyntaxError reports malformed text: the byte offset where parsing failed
// and what was expected there.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("indexspace: offset %d: %s", e.Offset, e.Msg)
}

// Parse parses the text form of a space: an optional space name followed by a
// parenthesized, comma-separated list of axes, each name:size for a leaf or
// name:(axes...) for a group, e.g. "tile(m:16, n:(n0:2, n1:4))". Spaces
// between tokens are ignored. Parse(s.String()) equals s.
func Parse(text string) (Space, error) {
	p := &parser{src: text}
	s, err := p.space()
	if err != nil {
		return Space{}, err
	}
	p.skip()
	if p.pos != len(p.src) {
		return Space{}, p.errorf("unexpected %s after the space", p.peekDesc())
	}
	return s, nil
}

// MustParse is Parse that panics on error; for tests and constant text.
func MustParse(text string) Space {
	s, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return s
}

// ParsePrefix parses a space at the start of text and returns it with the
// number of bytes consumed; packages that embed spaces in their own notation
// use it. Syntax errors are *SyntaxError with offsets into text.
func ParsePrefix(text string) (Space, int, error) {
	p := &parser{src: text}
	s, err := p.space()
	if err != nil {
		return Space{}, 0, err
	}
	return s, p.pos, nil
}

type parser struct {
	src  string
	pos  int
	seen map[string]int // axis name → offset of its first use
	// leafProduct is the product of the sizes of the leaves parsed so far in
	// the current space; the leaf that makes it exceed MaxSize is the one an
	// overflow error points at (a group's size is a product of leaves, so
	// any overflow of a group or of the space shows up here first).
	leafProduct int
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

func (p *parser) peekDesc() string {
	if p.pos >= len(p.src) {
		return "end of text"
	}
	r := []rune(p.src[p.pos:])[0]
	return strconv.QuoteRune(r)
}

func (p *parser) accept(c byte) bool {
	p.skip()
	if p.pos < len(p.src) && p.src[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(c byte, what string) error {
	if !p.accept(c) {
		return p.errorf("expected %q %s, found %s", c, what, p.peekDesc())
	}
	return nil
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}

func (p *parser) ident() (string, bool) {
	p.skip()
	start := p.pos
	for p.pos < len(p.src) && isIdentByte(p.src[p.pos], p.pos == start) {
		p.pos++
	}
	return p.src[start:p.pos], p.pos > start
}

func (p *parser) space() (Space, error) {
	p.skip()
	start := p.pos
	name, _ := p.ident()
	if err := p.expect('(', "opening the axis list"); err != nil {
		return Space{}, err
	}
	p.leafProduct = 1
	axes, err := p.axisList()
	if err != nil {
		return Space{}, err
	}
	s, err := New(name, axes...)
	if err != nil {
		// The parser checks every rule New checks, each at its own token;
		// this is a safety net that points at the whole space.
		return Space{}, &SyntaxError{Offset: start, Msg: strings.TrimPrefix(err.Error(), "indexspace: ")}
	}
	return s, nil
}

// axisList parses axes up to and including the closing parenthesis.
func (p *parser) axisList() ([]Axis, error) {
	var axes []Axis
	if p.accept(')') {
		return axes, nil
	}
	for {
		a, err := p.axis()
		if err != nil {
			return nil, err
		}
		axes = append(axes, a)
		if p.accept(')') {
			return axes, nil
		}
		if err := p.expect(',', "or ')' after an axis"); err != nil {
			return nil, err
		}
	}
}

const maxDepth = 64

func (p *parser) axis() (Axis, error) {
	return p.axisDepth(0)
}

// axisDepth parses one axis and checks the rules New checks, each reported
// at the offset of the offending token: a duplicate name at the name, a zero
// or too large size at the size, an empty group at its '(', and an overflow
// of the size at the name of the leaf whose size makes the product of the
// leaves exceed MaxSize.
func (p *parser) axisDepth(depth int) (Axis, error) {
	p.skip()
	if depth > maxDepth {
		return Axis{}, p.errorf("groups nested deeper than %d", maxDepth)
	}
	at := p.pos
	name, ok := p.ident()
	if !ok {
		return Axis{}, p.errorf("expected an axis name, found %s", p.peekDesc())
	}
	if first, dup := p.seen[name]; dup {
		return Axis{}, &SyntaxError{Offset: at, Msg: fmt.Sprintf("axis name %q is used twice (first at offset %d)", name, first)}
	}
	if p.seen == nil {
		p.seen = map[string]int{}
	}
	p.seen[name] = at
	if err := p.expect(':', fmt.Sprintf("after axis name %q", name)); err != nil {
		return Axis{}, err
	}
	p.skip()
	open := p.pos
	if p.accept('(') {
		var fs []Axis
		if p.accept(')') {
			return Axis{}, &SyntaxError{Offset: open, Msg: fmt.Sprintf("group %q has no factors", name)}
		}
		for {
			f, err := p.axisDepth(depth + 1)
			if err != nil {
				return Axis{}, err
			}
			fs = append(fs, f)
			if p.accept(')') {
				return Group(name, fs...), nil
			}
			if err := p.expect(',', "or ')' after a factor axis"); err != nil {
				return Axis{}, err
			}
		}
	}
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == start {
		return Axis{}, p.errorf("expected a size or '(' after %q:, found %s", name, p.peekDesc())
	}
	digits := p.src[start:p.pos]
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > MaxSize {
		return Axis{}, &SyntaxError{Offset: start, Msg: fmt.Sprintf("size %s of axis %q exceeds the limit %d", digits, name, MaxSize)}
	}
	if n < 1 {
		return Axis{}, &SyntaxError{Offset: start, Msg: fmt.Sprintf("axis %q has size %s; sizes must be positive", name, digits)}
	}
	product, ok := mulSize(p.leafProduct, int(n))
	if !ok {
		return Axis{}, &SyntaxError{Offset: at, Msg: fmt.Sprintf("size of space overflows (limit %d) at axis %q", MaxSize, name)}
	}
	p.leafProduct = product
	return Leaf(name, int(n)), nil
}

// String returns the canonical text form, e.g. "tile(m:16, n:(n0:2, n1:4))";
// it parses back to an equal Space.
func (s Space) String() string {
	var b strings.Builder
	b.WriteString(s.name)
	writeAxes(&b, s.axes)
	return b.String()
}

func writeAxes(b *strings.Builder, axes []Axis) {
	b.WriteByte('(')
	for i, a := range axes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	b.WriteByte(')')
}

// String returns the text form of the axis: "m:16" or "n:(n0:2, n1:4)".
func (a Axis) String() string {
	var b strings.Builder
	b.WriteString(a.name)
	b.WriteByte(':')
	if a.factors == nil {
		b.WriteString(strconv.Itoa(a.size))
	} else {
		writeAxes(&b, a.factors)
	}
	return b.String()
}

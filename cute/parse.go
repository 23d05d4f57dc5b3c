package cute

import (
	"fmt"
	"strconv"
)

// maxDepth bounds the nesting of parsed tuples.
const maxDepth = 64

// parser reads CuTe notation. Blanks (space, tab, newline) may separate tokens.
type parser struct {
	s   string
	pos int
}

func (p *parser) fail(format string, args ...any) error {
	where := "at end of input"
	if p.pos < len(p.s) {
		where = fmt.Sprintf("at offset %d (%q)", p.pos, p.s[p.pos:min(len(p.s), p.pos+8)])
	}
	return errorf(CodeSyntax, "parse", "%s: %s: %s", excerpt(p.s), where, fmt.Sprintf(format, args...))
}

func (p *parser) skip() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next non-blank byte, or 0 at the end.
func (p *parser) peek() byte {
	p.skip()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *parser) accept(c byte) bool {
	if p.peek() == c {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(c byte) error {
	if !p.accept(c) {
		return p.fail("expected %q", c)
	}
	return nil
}

// tuple reads an integer or a parenthesized, comma-separated, non-empty list
// of tuples.
func (p *parser) tuple(depth int) (Tuple, error) {
	if depth > maxDepth {
		return Tuple{}, p.fail("tuples nested deeper than %d", maxDepth)
	}
	if p.accept('(') {
		var es []Tuple
		for {
			e, err := p.tuple(depth + 1)
			if err != nil {
				return Tuple{}, err
			}
			es = append(es, e)
			if p.accept(',') {
				continue
			}
			if err := p.expect(')'); err != nil {
				return Tuple{}, p.fail("expected ',' or ')'")
			}
			return Tuple{elems: es, tup: true}, nil
		}
	}
	return p.integer()
}

// integer reads a decimal integer. CuTe prints a static integer with a
// leading underscore (_4, _-1); it is read as the same value, since all
// integers here are values.
func (p *parser) integer() (Tuple, error) {
	p.skip()
	start := p.pos
	if p.pos < len(p.s) && p.s[p.pos] == '_' {
		p.pos++
	}
	sign := p.pos
	if p.pos < len(p.s) && (p.s[p.pos] == '-' || p.s[p.pos] == '+') {
		p.pos++
	}
	digits := p.pos
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == digits {
		p.pos = start
		return Tuple{}, p.fail("expected an integer or '('")
	}
	text := p.s[sign:p.pos]
	v, err := strconv.Atoi(text)
	if err != nil || v < -limit || v > limit {
		p.pos = start
		return Tuple{}, p.fail("integer %s exceeds 2^62 in magnitude", text)
	}
	return Int(v), nil
}

// layout reads shape[:stride]; without a stride the layout is Compact(shape).
func (p *parser) layout() (Layout, error) {
	start := p.pos
	shape, err := p.tuple(0)
	if err != nil {
		return Layout{}, err
	}
	var l Layout
	if p.accept(':') {
		stride, err := p.tuple(0)
		if err != nil {
			return Layout{}, err
		}
		l, err = New(shape, stride)
		if err != nil {
			return Layout{}, p.wrap(start, err)
		}
		return l, nil
	}
	l, err = Compact(shape)
	if err != nil {
		return Layout{}, p.wrap(start, err)
	}
	return l, nil
}

// wrap prefixes a construction error with the input and the offset of the layout.
func (p *parser) wrap(start int, err error) error {
	e := err.(*Error)
	return &Error{Code: e.Code, Op: "parse", Msg: fmt.Sprintf("%s: at offset %d: %s", excerpt(p.s), start, e.Msg)}
}

func (p *parser) end() error {
	if p.peek() != 0 {
		return p.fail("unexpected text after the end")
	}
	return nil
}

// Parse reads a layout in CuTe notation: shape:stride, where shape and stride
// are congruent tuples, e.g. "12:1", "(6,2):(8,2)", "((2,2),3):((24,2),8)".
// A shape alone, e.g. "(4,3)" or "12", is the compact column-major layout of
// that shape. Strides may be zero or negative; shape entries must be positive.
// Errors have code CodeSyntax, CodeInvalid or CodeOverflow and say where.
func Parse(s string) (Layout, error) {
	p := &parser{s: s}
	l, err := p.layout()
	if err != nil {
		return Layout{}, err
	}
	if err := p.end(); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// MustParse is like Parse but panics on an error. It is for literals in programs and tests.
func MustParse(s string) Layout {
	l, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return l
}

// ParseTuple reads an integer tuple in CuTe notation, e.g. "24" or "(2,(3,4))".
func ParseTuple(s string) (Tuple, error) {
	p := &parser{s: s}
	t, err := p.tuple(0)
	if err != nil {
		return Tuple{}, err
	}
	if err := p.end(); err != nil {
		return Tuple{}, err
	}
	return t, nil
}

// excerptLimit bounds how much of an input an error message quotes.
const excerptLimit = 80

// excerpt quotes text for an error message, shortened in the middle when it
// is long (the offset in the message still counts from the start).
func excerpt(text string) string {
	if len(text) <= excerptLimit {
		return strconv.Quote(text)
	}
	head, tail := text[:excerptLimit/2], text[len(text)-excerptLimit/2:]
	return fmt.Sprintf("%s…%s (%d bytes)", strconv.Quote(head), strconv.Quote(tail), len(text))
}

package indexmap

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/indexspace"
)

// A SyntaxError reports malformed text: the byte offset where parsing failed
// and what went wrong there.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("indexmap: offset %d: %s", e.Offset, e.Msg)
}

// ParseExpr parses an expression. Grammar, loosest binding first, every
// binary operator associating to the left:
//
//	expr    = sum { "^" sum }
//	sum     = product { ("+" | "-") product }
//	product = unary { ("*" | "/" | "%") unary }
//	unary   = "-" unary | INT | IDENT | "(" expr ")"
//
// The right operand of / and % must be a positive constant. A minus sign
// before a constant is part of the constant (-3); before anything else it
// means -1 * operand. ParseExpr(e.String()) equals e.
func ParseExpr(text string) (Expr, error) {
	p := &parser{src: text}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return e, nil
}

// MustParseExpr is ParseExpr that panics on error; for tests and constants.
func MustParseExpr(text string) Expr {
	e, err := ParseExpr(text)
	if err != nil {
		panic(err)
	}
	return e
}

// ParseGuard parses a guard: "true", or comparisons joined by "&&", each
// expr op expr with op one of < <= == != >= >.
func ParseGuard(text string) (Guard, error) {
	p := &parser{src: text}
	if strings.TrimSpace(text) == "true" {
		return Guard{}, nil
	}
	g, err := p.guard()
	if err != nil {
		return Guard{}, err
	}
	if err := p.end(); err != nil {
		return Guard{}, err
	}
	return g, nil
}

// Parse parses the text form of a map (see Map.String):
//
//	map  = side "->" side "=" "(" [ expr { "," expr } ] ")" [ "if" guard ] [ "broadcast" "(" IDENT { "," IDENT } ")" ]
//	side = [ "logical" | "thread-value" | "physical" ] space
//
// where space is the indexspace text form. The parsed parts are checked by
// New; its errors are returned unchanged.
func Parse(text string) (Map, error) {
	p := &parser{src: text}
	var spec Spec
	var err error
	if spec.Domain, err = p.side(); err != nil {
		return Map{}, err
	}
	if err := p.expectOp("->", "between the domain and the codomain"); err != nil {
		return Map{}, err
	}
	if spec.Codomain, err = p.side(); err != nil {
		return Map{}, err
	}
	if err := p.expectOp("=", "after the codomain"); err != nil {
		return Map{}, err
	}
	if err := p.expectOp("(", "opening the result list"); err != nil {
		return Map{}, err
	}
	if !p.acceptOp(")") {
		for {
			e, err := p.expr()
			if err != nil {
				return Map{}, err
			}
			spec.Results = append(spec.Results, e)
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(",", "or ')' after a result expression"); err != nil {
				return Map{}, err
			}
		}
	}
	if p.acceptWord("if") {
		if spec.Guard, err = p.guard(); err != nil {
			return Map{}, err
		}
	}
	if p.acceptWord("broadcast") {
		if err := p.expectOp("(", "after broadcast"); err != nil {
			return Map{}, err
		}
		for {
			name, ok := p.ident()
			if !ok {
				return Map{}, p.errorf("expected a broadcast axis name, found %s", p.peekDesc())
			}
			spec.Broadcast = append(spec.Broadcast, name)
			if p.acceptOp(")") {
				break
			}
			if err := p.expectOp(",", "or ')' after a broadcast axis"); err != nil {
				return Map{}, err
			}
		}
	}
	if err := p.end(); err != nil {
		return Map{}, err
	}
	return New(spec)
}

// MustParse is Parse that panics on error; for tests and constants.
func MustParse(text string) Map {
	m, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return m
}

type parser struct {
	src      string
	pos      int
	depth    int
	terms    int // the terms parsed so far
	maxTerms int // their cap (Limits.MaxTerms); 0 until the first term
}

// term counts one more term, which starts at offset, failing once the text
// has more than the cap.
func (p *parser) term(offset int) error {
	if p.maxTerms == 0 {
		p.maxTerms = CurrentLimits().MaxTerms
	}
	if p.terms++; p.terms > p.maxTerms {
		return &LimitError{Offset: offset, Terms: p.maxTerms}
	}
	return nil
}

const maxDepth = 200

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skip() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *parser) end() error {
	p.skip()
	if p.pos != len(p.src) {
		return p.errorf("unexpected %s", p.peekDesc())
	}
	return nil
}

func (p *parser) peekDesc() string {
	p.skip()
	if p.pos >= len(p.src) {
		return "end of text"
	}
	rest := p.src[p.pos:]
	if len(rest) > 12 {
		rest = rest[:12] + "…"
	}
	return strconv.Quote(rest)
}

// peekOp reports whether the text at the cursor starts with op, not counting
// the longer operators that share its prefix.
func (p *parser) peekOp(op string) bool {
	p.skip()
	if !strings.HasPrefix(p.src[p.pos:], op) {
		return false
	}
	next := ""
	if p.pos+len(op) < len(p.src) {
		next = p.src[p.pos+len(op) : p.pos+len(op)+1]
	}
	switch op {
	case "-":
		return next != ">"
	case "<", ">", "=":
		return next != "="
	}
	return true
}

func (p *parser) acceptOp(op string) bool {
	if p.peekOp(op) {
		p.pos += len(op)
		return true
	}
	return false
}

func (p *parser) expectOp(op, what string) error {
	if !p.acceptOp(op) {
		return p.errorf("expected %q %s, found %s", op, what, p.peekDesc())
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

func (p *parser) acceptWord(w string) bool {
	save := p.pos
	if name, ok := p.ident(); ok && name == w {
		return true
	}
	p.pos = save
	return false
}

func (p *parser) side() (Side, error) {
	p.skip()
	var s Side
	save := p.pos
	if p.acceptWord("thread") && strings.HasPrefix(p.src[p.pos:], "-value") {
		p.pos += len("-value")
		s.Kind = ThreadValue
	} else {
		p.pos = save
		if name, ok := p.ident(); ok && (name == "logical" || name == "physical") {
			s.Kind, _ = ParseKind(name)
		} else {
			p.pos = save
		}
	}
	p.skip()
	start := p.pos
	sp, n, err := indexspace.ParsePrefix(p.src[start:])
	if err != nil {
		var se *indexspace.SyntaxError
		if errors.As(err, &se) {
			return Side{}, &SyntaxError{Offset: start + se.Offset, Msg: se.Msg}
		}
		return Side{}, &SyntaxError{Offset: start, Msg: err.Error()}
	}
	p.pos = start + n
	s.Space = sp
	return s, nil
}

func (p *parser) guard() (Guard, error) {
	var terms []Cmp
	for {
		x, err := p.expr()
		if err != nil {
			return Guard{}, err
		}
		var op CmpOp
		for _, c := range []CmpOp{LE, GE, EQ, NE, LT, GT} {
			if p.acceptOp(c.String()) {
				op = c
				break
			}
		}
		if op == 0 {
			return Guard{}, p.errorf("expected a comparison (< <= == != >= >) after %s, found %s", x, p.peekDesc())
		}
		y, err := p.expr()
		if err != nil {
			return Guard{}, err
		}
		terms = append(terms, Cmp{op, x, y})
		if !p.acceptOp("&&") {
			return Guard{terms}, nil
		}
	}
}

// expr is reached recursively only through unary (a parenthesis), which
// counts the nesting: one level per parenthesis or unary minus, the nesting
// that String reproduces, so that a parsed expression's text parses back.
func (p *parser) expr() (Expr, error) {
	x, err := p.sum()
	if err != nil {
		return nil, err
	}
	for p.acceptOp("^") {
		y, err := p.sum()
		if err != nil {
			return nil, err
		}
		x = &Binary{Xor, x, y}
	}
	return x, nil
}

func (p *parser) sum() (Expr, error) {
	x, err := p.product()
	if err != nil {
		return nil, err
	}
	for {
		var op Op
		switch {
		case p.acceptOp("+"):
			op = Add
		case p.acceptOp("-"):
			op = Sub
		default:
			return x, nil
		}
		y, err := p.product()
		if err != nil {
			return nil, err
		}
		x = &Binary{op, x, y}
	}
}

func (p *parser) product() (Expr, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		var op Op
		switch {
		case p.acceptOp("*"):
			op = Mul
		case p.acceptOp("/"):
			op = Div
		case p.acceptOp("%"):
			op = Mod
		default:
			return x, nil
		}
		p.skip()
		at := p.pos
		y, err := p.unary()
		if err != nil {
			return nil, err
		}
		if op == Div || op == Mod {
			if c, ok := y.(Const); !ok || c.value <= 0 {
				return nil, &SyntaxError{Offset: at, Msg: fmt.Sprintf("the right operand of %q must be a positive constant, not %s", op.String(), y)}
			}
		}
		x = &Binary{op, x, y}
	}
}

func (p *parser) unary() (Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errorf("expression nested deeper than %d", maxDepth)
	}
	p.skip()
	if p.acceptOp("-") {
		p.skip()
		if p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
			if err := p.term(p.pos); err != nil {
				return nil, err
			}
			return p.number(true)
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		if c, ok := x.(Const); ok && c.value != math.MinInt {
			return Const{-c.value}, nil
		}
		return &Binary{Mul, Const{-1}, x}, nil
	}
	if p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		if err := p.term(p.pos); err != nil {
			return nil, err
		}
		return p.number(false)
	}
	if p.acceptOp("(") {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")", "closing the parenthesis"); err != nil {
			return nil, err
		}
		return x, nil
	}
	start := p.pos
	if name, ok := p.ident(); ok {
		if err := p.term(start); err != nil {
			return nil, err
		}
		return Var{name}, nil
	}
	return nil, p.errorf("expected an axis, a number, '-' or '(', found %s", p.peekDesc())
}

func (p *parser) number(neg bool) (Expr, error) {
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	if p.pos < len(p.src) && isIdentByte(p.src[p.pos], true) {
		return nil, p.errorf("a number may not run into a name")
	}
	digits := p.src[start:p.pos]
	if neg {
		digits = "-" + digits
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		p.pos = start
		return nil, p.errorf("integer %s out of range", digits)
	}
	return Const{int(v)}, nil
}

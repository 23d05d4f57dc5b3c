package tasks

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// An Expr is a multiplicity: an integer expression over the graph's named
// sizes, such as "M/64 * N/64 * K/16". Its grammar is
//
//	expr     = product { ("+" | "-") product }
//	product  = quotient { "*" quotient }
//	quotient = operand { ("/" | "%") operand }
//	operand  = INT | NAME | FUNC "(" expr "," expr ")" | "(" expr ")"
//	FUNC     = "cdiv" | "min" | "max"
//
// Division binds tighter than multiplication, so that a product of tile
// counts reads as written: "M/64 * N/64" is (M/64)·(N/64), not
// ((M/64)·N)/64; write "(M * N) / 4096" for the other reading. Operators of
// one level associate to the left.
// "/" is floor division, cdiv(a, b) ceiling division and "%" the remainder;
// every value is a non-negative int64 and evaluation fails, never wraps, on
// overflow, a negative intermediate, or a division by zero. The zero Expr is
// the constant 1. Exprs are immutable; String is canonical and parses back.
type Expr struct {
	root  *exprNode
	text  string
	src   string   // the text as parsed ("" for one built): what errors quote
	names []string // the sizes it uses, sorted
}

type exprNode struct {
	op   byte // 'n' number, 's' size name, '+', '-', '*', '/', '%', 'c' cdiv, 'm' min, 'M' max
	num  int64
	name string
	l, r *exprNode
}

// Expression limits: longer or deeper text is rejected with an ExprError of
// kind ExprLimit, so that a hostile file cannot exhaust the stack.
const (
	MaxExprLength = 4096
	MaxExprDepth  = 32
)

// ExprErrorKind classifies an ExprError.
type ExprErrorKind uint8

// The kinds of expression error.
const (
	ExprSyntax      ExprErrorKind = iota + 1 // malformed text
	ExprLimit                                // text too long or nested too deep
	ExprUnknownSize                          // a name that is not a size
	ExprOverflow                             // a value beyond int64
	ExprNegative                             // a subtraction below zero
	ExprDivByZero                            // a division or remainder by zero
)

// An ExprError is a failure to parse or evaluate an expression. Offset is the
// byte offset in the text for syntax errors, -1 otherwise.
type ExprError struct {
	Kind   ExprErrorKind
	Text   string
	Offset int
	Name   string // the unknown size (ExprUnknownSize)
	Msg    string
}

func (e *ExprError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("multiplicity %q: offset %d: %s", e.Text, e.Offset, e.Msg)
	}
	return fmt.Sprintf("multiplicity %q: %s", e.Text, e.Msg)
}

// ConstExpr returns the constant expression n (n >= 0).
func ConstExpr(n int64) Expr {
	return newExpr(&exprNode{op: 'n', num: n})
}

// ParseExpr parses a multiplicity expression.
func ParseExpr(text string) (Expr, error) {
	if len(text) > MaxExprLength {
		return Expr{}, &ExprError{Kind: ExprLimit, Text: text[:40] + "…", Offset: -1,
			Msg: fmt.Sprintf("the expression has %d bytes, more than the limit of %d", len(text), MaxExprLength)}
	}
	p := &exprParser{src: text}
	n, err := p.expr(0)
	if err != nil {
		return Expr{}, err
	}
	p.skip()
	if p.pos < len(p.src) {
		return Expr{}, p.errorf("unexpected %q after the expression", p.src[p.pos:p.pos+1])
	}
	e := newExpr(n)
	e.src = text
	return e, nil
}

// Source is the text e was parsed from, as written (String where e was
// built, not parsed): what a message about e quotes, for its reader to
// find in the file.
func (e Expr) Source() string {
	if e.src == "" {
		return e.String()
	}
	return e.src
}

func newExpr(n *exprNode) Expr {
	e := Expr{root: n, text: n.String()}
	var walk func(n *exprNode)
	walk = func(n *exprNode) {
		if n == nil {
			return
		}
		if n.op == 's' {
			e.names = append(e.names, n.name)
		}
		walk(n.l)
		walk(n.r)
	}
	walk(n)
	slices.Sort(e.names)
	e.names = slices.Compact(e.names)
	return e
}

// MustParseExpr is ParseExpr that panics on error; for tests and constants.
func MustParseExpr(text string) Expr {
	e, err := ParseExpr(text)
	if err != nil {
		panic(err)
	}
	return e
}

// String returns the canonical text.
func (e Expr) String() string {
	if e.root == nil {
		return "1"
	}
	return e.text
}

// IsConst reports whether e is a number, and which.
func (e Expr) IsConst() (int64, bool) {
	if e.root == nil {
		return 1, true
	}
	if e.root.op == 'n' {
		return e.root.num, true
	}
	return 0, false
}

// Names returns the size names e uses, sorted, without duplicates.
func (e Expr) Names() []string { return slices.Clone(e.names) }

// Eval evaluates e with the sizes given by lookup.
func (e Expr) Eval(lookup func(name string) (int64, bool)) (int64, error) {
	if e.root == nil {
		return 1, nil
	}
	return e.root.eval(e.Source(), lookup)
}

func (n *exprNode) eval(text string, lookup func(string) (int64, bool)) (int64, error) {
	fail := func(kind ExprErrorKind, format string, args ...any) (int64, error) {
		return 0, &ExprError{Kind: kind, Text: text, Offset: -1, Msg: fmt.Sprintf(format, args...)}
	}
	switch n.op {
	case 'n':
		return n.num, nil
	case 's':
		v, ok := lookup(n.name)
		if !ok {
			return 0, &ExprError{Kind: ExprUnknownSize, Text: text, Offset: -1, Name: n.name,
				Msg: fmt.Sprintf("unknown size %q", n.name)}
		}
		return v, nil
	}
	a, err := n.l.eval(text, lookup)
	if err != nil {
		return 0, err
	}
	b, err := n.r.eval(text, lookup)
	if err != nil {
		return 0, err
	}
	switch n.op {
	case '+':
		if a > math.MaxInt64-b {
			return fail(ExprOverflow, "%s overflows int64 (%d + %d)", n, a, b)
		}
		return a + b, nil
	case '-':
		if a < b {
			return fail(ExprNegative, "%s is negative (%d - %d)", n, a, b)
		}
		return a - b, nil
	case '*':
		hi, lo := bits.Mul64(uint64(a), uint64(b))
		if hi != 0 || lo > math.MaxInt64 {
			return fail(ExprOverflow, "%s overflows int64 (%d * %d)", n, a, b)
		}
		return int64(lo), nil
	case 'm':
		return min(a, b), nil
	case 'M':
		return max(a, b), nil
	}
	if b == 0 {
		return fail(ExprDivByZero, "%s divides by zero", n)
	}
	switch n.op {
	case '/':
		return a / b, nil
	case '%':
		return a % b, nil
	}
	return a/b + min(a%b, 1), nil // cdiv
}

var exprFuncs = map[string]byte{"cdiv": 'c', "min": 'm', "max": 'M'}

func (n *exprNode) String() string {
	var b strings.Builder
	n.write(&b, 0)
	return b.String()
}

func precedence(op byte) int {
	switch op {
	case '+', '-':
		return 1
	case '*':
		return 2
	case '/', '%':
		return 3
	}
	return 4
}

// write prints n, parenthesized when its precedence is below ctx. Operators
// associate to the left, so a right operand of equal precedence is
// parenthesized.
func (n *exprNode) write(b *strings.Builder, ctx int) {
	switch n.op {
	case 'n':
		b.WriteString(strconv.FormatInt(n.num, 10))
		return
	case 's':
		b.WriteString(n.name)
		return
	case 'c', 'm', 'M':
		b.WriteString(map[byte]string{'c': "cdiv", 'm': "min", 'M': "max"}[n.op])
		b.WriteString("(")
		n.l.write(b, 0)
		b.WriteString(", ")
		n.r.write(b, 0)
		b.WriteString(")")
		return
	}
	p := precedence(n.op)
	if p < ctx {
		b.WriteString("(")
	}
	n.l.write(b, p)
	b.WriteString(" " + string(n.op) + " ")
	n.r.write(b, p+1)
	if p < ctx {
		b.WriteString(")")
	}
}

type exprParser struct {
	src string
	pos int
}

func (p *exprParser) errorf(format string, args ...any) error {
	return &ExprError{Kind: ExprSyntax, Text: p.src, Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *exprParser) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *exprParser) peek() byte {
	p.skip()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *exprParser) expect(c byte, what string) error {
	if p.peek() != c {
		return p.errorf("want %q %s, found %s", c, what, p.found())
	}
	p.pos++
	return nil
}

func (p *exprParser) found() string {
	if p.pos >= len(p.src) {
		return "the end"
	}
	return strconv.Quote(p.src[p.pos : p.pos+1])
}

func (p *exprParser) expr(depth int) (*exprNode, error) {
	if depth > MaxExprDepth {
		return nil, &ExprError{Kind: ExprLimit, Text: p.src, Offset: p.pos,
			Msg: fmt.Sprintf("nested deeper than %d levels", MaxExprDepth)}
	}
	l, err := p.product(depth)
	if err != nil {
		return nil, err
	}
	for {
		c := p.peek()
		if c != '+' && c != '-' {
			return l, nil
		}
		p.pos++
		r, err := p.product(depth)
		if err != nil {
			return nil, err
		}
		l = &exprNode{op: c, l: l, r: r}
	}
}

func (p *exprParser) product(depth int) (*exprNode, error) {
	l, err := p.quotient(depth)
	if err != nil {
		return nil, err
	}
	for p.peek() == '*' {
		p.pos++
		r, err := p.quotient(depth)
		if err != nil {
			return nil, err
		}
		l = &exprNode{op: '*', l: l, r: r}
	}
	return l, nil
}

func (p *exprParser) quotient(depth int) (*exprNode, error) {
	l, err := p.operand(depth)
	if err != nil {
		return nil, err
	}
	for {
		c := p.peek()
		if c != '/' && c != '%' {
			return l, nil
		}
		p.pos++
		r, err := p.operand(depth)
		if err != nil {
			return nil, err
		}
		l = &exprNode{op: c, l: l, r: r}
	}
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

func (p *exprParser) operand(depth int) (*exprNode, error) {
	c := p.peek()
	start := p.pos
	switch {
	case c >= '0' && c <= '9':
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
		digits := p.src[start:p.pos]
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return nil, &ExprError{Kind: ExprOverflow, Text: p.src, Offset: start,
				Msg: fmt.Sprintf("the number %s does not fit in int64", digits)}
		}
		return &exprNode{op: 'n', num: v}, nil
	case isNameByte(c, true):
		for p.pos < len(p.src) && isNameByte(p.src[p.pos], false) {
			p.pos++
		}
		name := p.src[start:p.pos]
		if op, ok := exprFuncs[name]; ok && p.peek() == '(' {
			p.pos++
			l, err := p.expr(depth + 1)
			if err != nil {
				return nil, err
			}
			if err := p.expect(',', "between "+name+"'s arguments"); err != nil {
				return nil, err
			}
			r, err := p.expr(depth + 1)
			if err != nil {
				return nil, err
			}
			if err := p.expect(')', "closing "+name); err != nil {
				return nil, err
			}
			return &exprNode{op: op, l: l, r: r}, nil
		}
		return &exprNode{op: 's', name: name}, nil
	case c == '(':
		p.pos++
		n, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect(')', "closing the parenthesis"); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, p.errorf("want a number, a size name or '(', found %s", p.found())
}

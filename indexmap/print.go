package indexmap

import (
	"strconv"
	"strings"
)

func (v Var) String() string   { return v.name }
func (c Const) String() string { return strconv.Itoa(c.value) }

// String prints x op y with the fewest parentheses that parse back to the
// same tree: a left operand is parenthesized when it binds more loosely than
// op, a right operand when it binds no tighter (operators associate left).
func (b *Binary) String() string {
	var sb strings.Builder
	writeExpr(&sb, b)
	return sb.String()
}

func writeExpr(sb *strings.Builder, e Expr) {
	b, ok := e.(*Binary)
	if !ok {
		sb.WriteString(e.String())
		return
	}
	p := b.op.Precedence()
	writeOperand(sb, b.x, func(q int) bool { return q < p })
	sb.WriteByte(' ')
	sb.WriteString(b.op.String())
	sb.WriteByte(' ')
	writeOperand(sb, b.y, func(q int) bool { return q <= p })
}

func writeOperand(sb *strings.Builder, e Expr, paren func(int) bool) {
	if b, ok := e.(*Binary); ok && paren(b.op.Precedence()) {
		sb.WriteByte('(')
		writeExpr(sb, e)
		sb.WriteByte(')')
		return
	}
	writeExpr(sb, e)
}

package indexmap

import (
	"fmt"
	"slices"
	"strings"
)

// A CmpOp is a comparison operator of a guard.
type CmpOp uint8

// The comparison operators.
const (
	LT CmpOp = iota + 1 // <
	LE                  // <=
	EQ                  // ==
	NE                  // !=
	GE                  // >=
	GT                  // >
)

var cmpText = [...]string{LT: "<", LE: "<=", EQ: "==", NE: "!=", GE: ">=", GT: ">"}

func (op CmpOp) String() string {
	if op >= LT && op <= GT {
		return cmpText[op]
	}
	return fmt.Sprintf("CmpOp(%d)", uint8(op))
}

func (op CmpOp) holds(a, b int) bool {
	switch op {
	case LT:
		return a < b
	case LE:
		return a <= b
	case EQ:
		return a == b
	case NE:
		return a != b
	case GE:
		return a >= b
	default:
		return a > b
	}
}

// A Cmp is one comparison x op y.
type Cmp struct {
	Op   CmpOp
	X, Y Expr
}

func (c Cmp) String() string {
	return c.X.String() + " " + c.Op.String() + " " + c.Y.String()
}

// A Guard is a conjunction of comparisons. The zero Guard is "true": it holds
// everywhere. Guards are immutable.
type Guard struct{ terms []Cmp }

// NewGuard returns the conjunction of terms. It fails on an unknown operator
// or a nil operand.
func NewGuard(terms ...Cmp) (Guard, error) {
	for i, t := range terms {
		if t.Op < LT || t.Op > GT {
			return Guard{}, fmt.Errorf("indexmap: guard term %d: unknown comparison %v", i, t.Op)
		}
		if t.X == nil || t.Y == nil {
			return Guard{}, fmt.Errorf("indexmap: guard term %d: nil operand", i)
		}
	}
	if len(terms) == 0 {
		return Guard{}, nil
	}
	return Guard{slices.Clone(terms)}, nil
}

// Terms returns a copy of the comparisons.
func (g Guard) Terms() []Cmp { return slices.Clone(g.terms) }

// IsTrue reports whether g has no terms.
func (g Guard) IsTrue() bool { return len(g.terms) == 0 }

// String returns "true" or the terms joined by " && ".
func (g Guard) String() string {
	if len(g.terms) == 0 {
		return "true"
	}
	parts := make([]string, len(g.terms))
	for i, t := range g.terms {
		parts[i] = t.String()
	}
	return strings.Join(parts, " && ")
}

// Equal reports whether g and h have the same terms in the same order.
func (g Guard) Equal(h Guard) bool {
	if len(g.terms) != len(h.terms) {
		return false
	}
	for i := range g.terms {
		a, b := g.terms[i], h.terms[i]
		if a.Op != b.Op || !Equal(a.X, b.X) || !Equal(a.Y, b.Y) {
			return false
		}
	}
	return true
}

// Eval reports whether g holds with axis values from env.
func (g Guard) Eval(env map[string]int) (bool, error) {
	for _, t := range g.terms {
		x, err := Eval(t.X, env)
		if err != nil {
			return false, err
		}
		y, err := Eval(t.Y, env)
		if err != nil {
			return false, err
		}
		if !t.Op.holds(x, y) {
			return false, nil
		}
	}
	return true, nil
}

// Vars returns the axis names g refers to, each once, in first-use order.
func (g Guard) Vars() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range g.terms {
		for _, e := range []Expr{t.X, t.Y} {
			for _, v := range Vars(e) {
				if !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		}
	}
	return out
}

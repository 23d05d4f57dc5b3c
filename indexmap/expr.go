package indexmap

import "fmt"

// An Expr is an integer expression over named axes: an axis reference (Var),
// an integer constant (Const) or a binary operation (*Binary). The set of node
// kinds is closed. Expressions are immutable trees; rewrites build new trees
// and share untouched subtrees.
type Expr interface {
	// String returns the canonical text, with the fewest parentheses that
	// parse back to the same tree.
	String() string
	isExpr()
}

// A Var is a reference to an axis of the domain space by name. A group axis
// stands for the flat index of its leaves.
type Var struct{ name string }

// A Const is an integer constant.
type Const struct{ value int }

// A Binary is x op y. For Div and Mod, y is a positive Const.
type Binary struct {
	op   Op
	x, y Expr
}

func (Var) isExpr()     {}
func (Const) isExpr()   {}
func (*Binary) isExpr() {}

// Name returns the axis name.
func (v Var) Name() string { return v.name }

// Value returns the constant's value.
func (c Const) Value() int { return c.value }

// Op returns the operator.
func (b *Binary) Op() Op { return b.op }

// X returns the left operand.
func (b *Binary) X() Expr { return b.x }

// Y returns the right operand.
func (b *Binary) Y() Expr { return b.y }

// An Op is a binary operator. Ops are listed from the loosest binding to the
// tightest; see Precedence.
type Op uint8

// The operators.
const (
	Xor Op = iota + 1 // bitwise exclusive or, for swizzles
	Add
	Sub
	Mul
	Div // floor division by a positive constant
	Mod // non-negative remainder by a positive constant
)

var opText = [...]string{Xor: "^", Add: "+", Sub: "-", Mul: "*", Div: "/", Mod: "%"}

func (op Op) String() string {
	if op >= Xor && op <= Mod {
		return opText[op]
	}
	return fmt.Sprintf("Op(%d)", uint8(op))
}

// Precedence returns the binding strength of op: 1 for ^, 2 for + and -, 3
// for *, / and %. All operators associate to the left.
func (op Op) Precedence() int {
	switch op {
	case Xor:
		return 1
	case Add, Sub:
		return 2
	default:
		return 3
	}
}

// V returns a reference to the axis called name.
func V(name string) Expr { return Var{name} }

// C returns the constant v.
func C(v int) Expr { return Const{v} }

// NewBinary returns x op y. It fails when op is not an operator or when op is
// Div or Mod and y is not a positive constant.
func NewBinary(op Op, x, y Expr) (Expr, error) {
	if op < Xor || op > Mod {
		return nil, fmt.Errorf("indexmap: unknown operator %v", op)
	}
	if x == nil || y == nil {
		return nil, fmt.Errorf("indexmap: nil operand of %v", op)
	}
	if op == Div || op == Mod {
		if c, ok := y.(Const); !ok || c.value <= 0 {
			return nil, fmt.Errorf("indexmap: the right operand of %q must be a positive constant, not %s", op.String(), y)
		}
	}
	return &Binary{op, x, y}, nil
}

// Sum returns x + y.
func Sum(x, y Expr) Expr { return &Binary{Add, x, y} }

// Difference returns x - y.
func Difference(x, y Expr) Expr { return &Binary{Sub, x, y} }

// Product returns x * y.
func Product(x, y Expr) Expr { return &Binary{Mul, x, y} }

// XorOf returns x ^ y.
func XorOf(x, y Expr) Expr { return &Binary{Xor, x, y} }

// Quotient returns x / k (floor division). It panics if k <= 0: a caller
// contract, since k is a literal in the caller's code.
func Quotient(x Expr, k int) Expr {
	if k <= 0 {
		panic(fmt.Sprintf("indexmap: Quotient by %d", k))
	}
	return &Binary{Div, x, Const{k}}
}

// Remainder returns x % k (non-negative remainder). It panics if k <= 0.
func Remainder(x Expr, k int) Expr {
	if k <= 0 {
		panic(fmt.Sprintf("indexmap: Remainder by %d", k))
	}
	return &Binary{Mod, x, Const{k}}
}

// Equal reports whether a and b are the same tree.
func Equal(a, b Expr) bool {
	switch a := a.(type) {
	case Var:
		b, ok := b.(Var)
		return ok && a == b
	case Const:
		b, ok := b.(Const)
		return ok && a == b
	case *Binary:
		b, ok := b.(*Binary)
		return ok && (a == b || a.op == b.op && Equal(a.x, b.x) && Equal(a.y, b.y))
	}
	return a == nil && b == nil
}

// Vars returns the axis names e refers to, each once, in first-use order.
func Vars(e Expr) []string {
	var out []string
	seen := map[string]bool{}
	walk(e, func(n Expr) {
		if v, ok := n.(Var); ok && !seen[v.name] {
			seen[v.name] = true
			out = append(out, v.name)
		}
	})
	return out
}

func walk(e Expr, f func(Expr)) {
	f(e)
	if b, ok := e.(*Binary); ok {
		walk(b.x, f)
		walk(b.y, f)
	}
}

// floorDiv and floorMod implement / and % on integers: floor division and the
// remainder in [0, k) for k > 0.
func floorDiv(a, k int) int {
	q := a / k
	if (a%k != 0) && (a < 0) != (k < 0) {
		q--
	}
	return q
}

func floorMod(a, k int) int {
	r := a % k
	if r != 0 && (r < 0) != (k < 0) {
		r += k
	}
	return r
}

func apply(op Op, a, b int) int {
	switch op {
	case Xor:
		return a ^ b
	case Add:
		return a + b
	case Sub:
		return a - b
	case Mul:
		return a * b
	case Div:
		return floorDiv(a, b)
	default:
		return floorMod(a, b)
	}
}

// Eval evaluates e with axis values from env. It fails when an axis is
// missing from env. Arithmetic wraps on overflow; Map bounds its expressions
// so that evaluation over its domain never overflows.
func Eval(e Expr, env map[string]int) (int, error) {
	switch e := e.(type) {
	case Var:
		v, ok := env[e.name]
		if !ok {
			return 0, fmt.Errorf("indexmap: no value for axis %q", e.name)
		}
		return v, nil
	case Const:
		return e.value, nil
	case *Binary:
		x, err := Eval(e.x, env)
		if err != nil {
			return 0, err
		}
		y, err := Eval(e.y, env)
		if err != nil {
			return 0, err
		}
		return apply(e.op, x, y), nil
	}
	return 0, fmt.Errorf("indexmap: nil expression")
}

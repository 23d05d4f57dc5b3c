package indexmap

import (
	"fmt"
	"math/bits"
)

// An Interval is the closed integer range [Lo, Hi].
type Interval struct{ Lo, Hi int }

func (iv Interval) String() string { return fmt.Sprintf("[%d, %d]", iv.Lo, iv.Hi) }

// Contains reports whether v lies in iv.
func (iv Interval) Contains(v int) bool { return iv.Lo <= v && v <= iv.Hi }

// boundLimit bounds every intermediate value of a Map's expressions over its
// domain. It leaves headroom so that the operations on two bounded values
// cannot overflow int64.
const boundLimit = 1 << 61

// errRange reports an expression whose intermediate values may leave
// [-boundLimit, boundLimit].
type rangeError struct{ e Expr }

func (r *rangeError) Error() string {
	return fmt.Sprintf("indexmap: %s may exceed the integer range ±2^61 over the domain", r.e)
}

// Bounds returns an interval containing every value e takes when each axis v
// ranges over axisRange(v). It fails when an axis is unknown or an
// intermediate value may exceed ±2^61, which keeps evaluation free of
// overflow. The interval is exact for affine expressions in distinct axes and
// conservative otherwise.
func Bounds(e Expr, axisRange func(name string) (Interval, bool)) (Interval, error) {
	switch e := e.(type) {
	case Var:
		iv, ok := axisRange(e.name)
		if !ok {
			return Interval{}, fmt.Errorf("indexmap: unknown axis %q", e.name)
		}
		return iv, nil
	case Const:
		iv := Interval{e.value, e.value}
		if !inLimit(iv) {
			return Interval{}, &rangeError{e}
		}
		return iv, nil
	case *Binary:
		x, err := Bounds(e.x, axisRange)
		if err != nil {
			return Interval{}, err
		}
		y, err := Bounds(e.y, axisRange)
		if err != nil {
			return Interval{}, err
		}
		iv := binaryBounds(e.op, x, y)
		if !inLimit(iv) {
			return Interval{}, &rangeError{e}
		}
		return iv, nil
	}
	return Interval{}, fmt.Errorf("indexmap: nil expression")
}

func inLimit(iv Interval) bool {
	return iv.Lo >= -boundLimit && iv.Hi <= boundLimit
}

// binaryBounds computes the bounds of x op y for operands within ±2^61; a
// result out of that range is returned as an interval exceeding it (products
// saturate).
func binaryBounds(op Op, x, y Interval) Interval {
	switch op {
	case Add:
		return Interval{x.Lo + y.Lo, x.Hi + y.Hi}
	case Sub:
		return Interval{x.Lo - y.Hi, x.Hi - y.Lo}
	case Mul:
		a, b, c, d := satMul(x.Lo, y.Lo), satMul(x.Lo, y.Hi), satMul(x.Hi, y.Lo), satMul(x.Hi, y.Hi)
		return Interval{min(a, b, c, d), max(a, b, c, d)}
	case Div:
		return Interval{floorDiv(x.Lo, y.Lo), floorDiv(x.Hi, y.Lo)}
	case Mod:
		k := y.Lo
		if floorDiv(x.Lo, k) == floorDiv(x.Hi, k) {
			return Interval{floorMod(x.Lo, k), floorMod(x.Hi, k)}
		}
		return Interval{0, k - 1}
	default: // Xor
		if x.Lo >= 0 && y.Lo >= 0 {
			return Interval{0, 1<<bits.Len(uint(max(x.Hi, y.Hi))) - 1}
		}
		m := max(-x.Lo, x.Hi, -y.Lo, y.Hi)
		p := 1 << bits.Len(uint(m))
		return Interval{-p, p - 1}
	}
}

// satMul multiplies a and b, saturating to ±2^62 beyond the bound limit.
func satMul(a, b int) int {
	const sat = 1 << 62
	if a == 0 || b == 0 {
		return 0
	}
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(abs(a)), uint64(abs(b))
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > sat {
		if neg {
			return -sat
		}
		return sat
	}
	if neg {
		return -int(lo)
	}
	return int(lo)
}

func abs(a int) int {
	if a < 0 {
		return -a
	}
	return a
}

package indexmap

import (
	"math/bits"
	"slices"
)

// A rewrite rule of the simplifier: a name, the rewrite it performs in the
// package's notation, and a function that returns the rewritten node and
// true when the rule applies at e (children already simplified). Rules use
// the axes' ranges for their side conditions.
type rule struct {
	name    string
	rewrite string
	apply   func(s *simplifier, e *Binary) (Expr, bool)
}

// rules is the ordered rule table; at each node the first rule that applies
// fires, and the result is simplified again, to a fixed point. Every rule
// preserves the value at every point where the axes lie in their ranges.
var rules = []rule{
	{"fold-constant", "c1 op c2 → c", foldConstant},
	{"xor-zero", "x ^ 0 → x, 0 ^ x → x", xorZero},
	{"xor-self", "x ^ x → 0", xorSelf},
	{"xor-disjoint-bits", "x ^ y → x + y when 0 ≤ y < 2^s and x ≥ 0 is a multiple of 2^s", xorDisjoint},
	{"div-one", "x / 1 → x", divOne},
	{"div-in-range", "x / k → c when c·k ≤ x < (c+1)·k", divInRange},
	{"div-div", "x / a / b → x / (a·b)", divDiv},
	{"div-common-factor", "(g·x) / (g·k) → x / k", divCommonFactor},
	{"div-small-remainder", "(g·x + r) / (g·k) → x / k when 0 ≤ r < g", divSmallRemainder},
	{"div-split-multiple", "(k·q + r) / k → q + r / k", divSplitMultiple},
	{"div-of-mod", "x % (a·b) / a → x / a % b", divOfMod},
	{"mod-one", "x % 1 → 0", modOne},
	{"mod-in-range", "x % k → x - c·k when c·k ≤ x < (c+1)·k", modInRange},
	{"mod-mod", "x % a % b → x % b when b | a", modMod},
	{"mod-common-factor", "(g·x) % (g·k) → g·(x % k)", modCommonFactor},
	{"mod-drop-multiple", "(k·q + r) % k → r % k", modDropMultiple},
	{"mod-small-remainder", "(g·x + r) % (g·k) → g·(x % k) + r when 0 ≤ r < g", modSmallRemainder},
	{"recombine-div-mod", "c·k·(x / k) + c·(x % k) → c·x", recombineDivMod},
	{"linear-normal-form", "sum of c·atom terms: constant first, like terms merged, zero terms dropped", linearNormalForm},
}

// RuleNames returns the names of the simplifier's rules in table order.
func RuleNames() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.name
	}
	return out
}

type simplifier struct {
	ranges func(string) (Interval, bool)
	budget int
	fired  []string
	// bounded memoizes the bounds of the operations seen: expressions are
	// immutable and the ranges fixed, so a node's bounds never change, and
	// a rule asking for the bounds of a long chain costs one step, not a
	// walk of the chain (a 2,000-term xor chain took 14 s).
	bounded map[*Binary]bounded
}

type bounded struct {
	iv Interval
	ok bool
}

// simplifyBudget caps the rewrites per expression, so simplification ends
// even if rules were to cycle.
const simplifyBudget = 10000

// SimplifyExpr rewrites e with the rule table to a fixed point, where each
// axis v ranges over ranges(v) (the side conditions use these ranges). The
// result has the same value as e wherever every axis lies in its range.
func SimplifyExpr(e Expr, ranges func(name string) (Interval, bool)) Expr {
	out, _ := SimplifyExprTrace(e, ranges)
	return out
}

// SimplifyExprTrace is SimplifyExpr that also returns the names of the rules
// that fired, in order.
func SimplifyExprTrace(e Expr, ranges func(name string) (Interval, bool)) (Expr, []string) {
	s := &simplifier{ranges: ranges, budget: simplifyBudget}
	return s.expr(e), s.fired
}

func (s *simplifier) expr(e Expr) Expr {
	b, ok := e.(*Binary)
	if !ok {
		return e
	}
	x, y := s.expr(b.x), s.expr(b.y)
	if x != b.x || y != b.y {
		b = &Binary{b.op, x, y}
	}
	if s.budget <= 0 {
		return b
	}
	for _, r := range rules {
		if out, ok := r.apply(s, b); ok {
			s.budget--
			s.fired = append(s.fired, r.name)
			return s.expr(out)
		}
	}
	return b
}

// bounds is Bounds(e, s.ranges), and whether it succeeded, memoized per
// operation node.
func (s *simplifier) bounds(e Expr) (Interval, bool) {
	b, ok := e.(*Binary)
	if !ok {
		iv, err := Bounds(e, s.ranges)
		return iv, err == nil
	}
	if m, ok := s.bounded[b]; ok {
		return m.iv, m.ok
	}
	x, okx := s.bounds(b.x)
	y, oky := s.bounds(b.y)
	iv := binaryBounds(b.op, x, y)
	m := bounded{iv, okx && oky && inLimit(iv)}
	if s.bounded == nil {
		s.bounded = map[*Binary]bounded{}
	}
	s.bounded[b] = m
	return m.iv, m.ok
}

// --- the rules ---

func foldConstant(_ *simplifier, e *Binary) (Expr, bool) {
	x, ok1 := e.x.(Const)
	y, ok2 := e.y.(Const)
	if !ok1 || !ok2 {
		return nil, false
	}
	iv := binaryBounds(e.op, Interval{x.value, x.value}, Interval{y.value, y.value})
	if !inLimit(iv) || !inLimit(Interval{x.value, y.value}) || !inLimit(Interval{y.value, x.value}) {
		return nil, false
	}
	return Const{apply(e.op, x.value, y.value)}, true
}

func isConst(e Expr, v int) bool {
	c, ok := e.(Const)
	return ok && c.value == v
}

func xorZero(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Xor {
		return nil, false
	}
	if isConst(e.y, 0) {
		return e.x, true
	}
	if isConst(e.x, 0) {
		return e.y, true
	}
	return nil, false
}

func xorSelf(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op == Xor && Equal(e.x, e.y) {
		return Const{0}, true
	}
	return nil, false
}

func xorDisjoint(s *simplifier, e *Binary) (Expr, bool) {
	if e.op != Xor {
		return nil, false
	}
	for _, pair := range [2][2]Expr{{e.x, e.y}, {e.y, e.x}} {
		hi, lo := pair[0], pair[1]
		lb, ok := s.bounds(lo)
		if !ok || lb.Lo < 0 {
			continue
		}
		hb, ok := s.bounds(hi)
		if !ok || hb.Lo < 0 {
			continue
		}
		// lo < 2^k; hi must be a multiple of 2^k.
		k := bits.Len(uint(lb.Hi))
		if k >= 62 {
			continue
		}
		ts, c := linearTerms(hi)
		if c%(1<<k) != 0 {
			continue
		}
		multiple := true
		for _, t := range ts {
			if t.coef%(1<<k) != 0 {
				multiple = false
				break
			}
		}
		if multiple {
			return &Binary{Add, hi, lo}, true
		}
	}
	return nil, false
}

func divisor(e *Binary) int { return e.y.(Const).value }

func divOne(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op == Div && divisor(e) == 1 {
		return e.x, true
	}
	return nil, false
}

func divInRange(s *simplifier, e *Binary) (Expr, bool) {
	if e.op != Div {
		return nil, false
	}
	if _, ok := e.x.(Const); ok {
		return nil, false // fold-constant's case
	}
	iv, ok := s.bounds(e.x)
	k := divisor(e)
	if ok && floorDiv(iv.Lo, k) == floorDiv(iv.Hi, k) {
		return Const{floorDiv(iv.Lo, k)}, true
	}
	return nil, false
}

func divDiv(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Div {
		return nil, false
	}
	inner, ok := e.x.(*Binary)
	if !ok || inner.op != Div {
		return nil, false
	}
	a, b := divisor(inner), divisor(e)
	if hi, lo := bits.Mul64(uint64(a), uint64(b)); hi != 0 || lo > boundLimit {
		return nil, false
	}
	return &Binary{Div, inner.x, Const{a * b}}, true
}

// commonFactor returns the gcd of the coefficients and the constant of a
// linear form (0 when all are zero).
func commonFactor(ts []term, c int) int {
	g := abs(c)
	for _, t := range ts {
		g = gcd(g, abs(t.coef))
	}
	return g
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func divCommonFactor(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Div {
		return nil, false
	}
	ts, c := linearTerms(e.x)
	if len(ts) == 0 {
		return nil, false
	}
	k := divisor(e)
	g := gcd(commonFactor(ts, c), k)
	if g <= 1 {
		return nil, false
	}
	return &Binary{Div, buildLinear(scaleTerms(ts, g), c/g), Const{k / g}}, true
}

func scaleTerms(ts []term, g int) []term {
	out := make([]term, len(ts))
	for i, t := range ts {
		out[i] = term{t.coef / g, t.atom}
	}
	return out
}

func divSplitMultiple(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Div {
		return nil, false
	}
	k := divisor(e)
	ts, c := linearTerms(e.x)
	var q, r []term
	for _, t := range ts {
		if t.coef%k == 0 {
			q = append(q, term{t.coef / k, t.atom})
		} else {
			r = append(r, t)
		}
	}
	qc, rc := floorDiv(c, k), floorMod(c, k)
	if len(q) == 0 && qc == 0 {
		return nil, false
	}
	rest := buildLinear(r, rc)
	if len(r) > 0 || rc != 0 {
		q = append(q, term{1, &Binary{Div, rest, Const{k}}})
	}
	return buildLinear(q, qc), true
}

// splitSmallRemainder finds g > 1 dividing k such that e = g·x + r with
// 0 ≤ r < g, where x collects the terms whose coefficients g divides; it
// returns x and r. Candidates for g are gcd(k, coefficient) of each term.
func (s *simplifier) splitSmallRemainder(e Expr, k int) (g int, x, r Expr, ok bool) {
	ts, c := linearTerms(e)
	for _, cand := range ts {
		g := gcd(k, abs(cand.coef))
		if g <= 1 {
			continue
		}
		var big, small []term
		for _, t := range ts {
			if t.coef%g == 0 {
				big = append(big, term{t.coef / g, t.atom})
			} else {
				small = append(small, t)
			}
		}
		if len(small) == 0 && c%g == 0 {
			continue // div-common-factor's case
		}
		rest := buildLinear(small, floorMod(c, g))
		iv, ok := s.bounds(rest)
		if !ok || iv.Lo < 0 || iv.Hi >= g {
			continue
		}
		return g, buildLinear(big, floorDiv(c, g)), rest, true
	}
	return 0, nil, nil, false
}

func divSmallRemainder(s *simplifier, e *Binary) (Expr, bool) {
	if e.op != Div {
		return nil, false
	}
	k := divisor(e)
	g, x, _, ok := s.splitSmallRemainder(e.x, k)
	if !ok {
		return nil, false
	}
	return &Binary{Div, x, Const{k / g}}, true
}

func modSmallRemainder(s *simplifier, e *Binary) (Expr, bool) {
	if e.op != Mod {
		return nil, false
	}
	k := divisor(e)
	g, x, r, ok := s.splitSmallRemainder(e.x, k)
	if !ok {
		return nil, false
	}
	return &Binary{Add, &Binary{Mul, Const{g}, &Binary{Mod, x, Const{k / g}}}, r}, true
}

func divOfMod(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Div {
		return nil, false
	}
	inner, ok := e.x.(*Binary)
	if !ok || inner.op != Mod {
		return nil, false
	}
	a, ab := divisor(e), divisor(inner)
	if ab%a != 0 {
		return nil, false
	}
	return &Binary{Mod, &Binary{Div, inner.x, Const{a}}, Const{ab / a}}, true
}

func modOne(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op == Mod && divisor(e) == 1 {
		return Const{0}, true
	}
	return nil, false
}

func modInRange(s *simplifier, e *Binary) (Expr, bool) {
	if e.op != Mod {
		return nil, false
	}
	if _, ok := e.x.(Const); ok {
		return nil, false
	}
	iv, ok := s.bounds(e.x)
	k := divisor(e)
	if !ok || floorDiv(iv.Lo, k) != floorDiv(iv.Hi, k) {
		return nil, false
	}
	if c := floorDiv(iv.Lo, k); c != 0 {
		return &Binary{Sub, e.x, Const{c * k}}, true
	}
	return e.x, true
}

func modMod(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Mod {
		return nil, false
	}
	inner, ok := e.x.(*Binary)
	if !ok || inner.op != Mod {
		return nil, false
	}
	// (a ≤ b needs no rule: mod-in-range removes the outer remainder.)
	if a, b := divisor(inner), divisor(e); a%b == 0 {
		return &Binary{Mod, inner.x, Const{b}}, true
	}
	return nil, false
}

func modCommonFactor(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Mod {
		return nil, false
	}
	ts, c := linearTerms(e.x)
	if len(ts) == 0 {
		return nil, false
	}
	k := divisor(e)
	g := gcd(commonFactor(ts, c), k)
	if g <= 1 {
		return nil, false
	}
	return &Binary{Mul, Const{g}, &Binary{Mod, buildLinear(scaleTerms(ts, g), c/g), Const{k / g}}}, true
}

func modDropMultiple(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Mod {
		return nil, false
	}
	k := divisor(e)
	ts, c := linearTerms(e.x)
	var r []term
	for _, t := range ts {
		if t.coef%k != 0 {
			r = append(r, t)
		}
	}
	rc := floorMod(c, k)
	if len(r) == len(ts) && rc == c {
		return nil, false
	}
	return &Binary{Mod, buildLinear(r, rc), Const{k}}, true
}

// recombineDivMod merges, in a sum, c·m·(Y / m) + c·(Y % m) into c·Y, and
// c·m·(X / (a·m)) + c·(X / a % m) into c·(X / a).
func recombineDivMod(_ *simplifier, e *Binary) (Expr, bool) {
	if e.op != Add && e.op != Sub {
		return nil, false
	}
	ts, c := linearTerms(e)
	for i, mt := range ts {
		mod, ok := mt.atom.(*Binary)
		if !ok || mod.op != Mod {
			continue
		}
		m := divisor(mod)
		for j, dt := range ts {
			div, ok := dt.atom.(*Binary)
			if !ok || div.op != Div || dt.coef != mt.coef*m {
				continue
			}
			match := Equal(div.x, mod.x) && divisor(div) == m
			if inner, ok := mod.x.(*Binary); !match && ok && inner.op == Div {
				match = Equal(div.x, inner.x) && divisor(div) == divisor(inner)*m
			}
			if !match {
				continue
			}
			out := slices.Clone(ts)
			out[i] = term{mt.coef, mod.x}
			out = slices.Delete(out, j, j+1)
			return buildLinear(out, c), true
		}
	}
	return nil, false
}

func linearNormalForm(_ *simplifier, e *Binary) (Expr, bool) {
	switch e.op {
	case Add, Sub:
	case Mul:
		_, cx := e.x.(Const)
		_, cy := e.y.(Const)
		if !cx && !cy {
			return nil, false
		}
	default:
		return nil, false
	}
	ts, c := linearTerms(e)
	out := buildLinear(ts, c)
	if Equal(out, e) {
		return nil, false
	}
	return out, true
}

// --- linear forms over atoms ---

// A term is coef·atom, where an atom is an expression that is not a sum, a
// constant or a product with a constant.
type term struct {
	coef int
	atom Expr
}

// linearTerms returns e as Σ coef·atom + c, with like atoms merged (in order
// of first appearance) and zero terms dropped.
func linearTerms(e Expr) ([]term, int) {
	var ts []term
	c := 0
	var add func(e Expr, scale int)
	add = func(e Expr, scale int) {
		switch e := e.(type) {
		case Const:
			c += scale * e.value
			return
		case *Binary:
			switch e.op {
			case Add:
				add(e.x, scale)
				add(e.y, scale)
				return
			case Sub:
				add(e.x, scale)
				add(e.y, -scale)
				return
			case Mul:
				if k, ok := e.x.(Const); ok {
					add(e.y, scale*k.value)
					return
				}
				if k, ok := e.y.(Const); ok {
					add(e.x, scale*k.value)
					return
				}
			}
		}
		for i := range ts {
			if Equal(ts[i].atom, e) {
				ts[i].coef += scale
				return
			}
		}
		ts = append(ts, term{scale, e})
	}
	add(e, 1)
	out := ts[:0]
	for _, t := range ts {
		if t.coef != 0 {
			out = append(out, t)
		}
	}
	return out, c
}

// buildLinear returns the canonical expression of Σ coef·atom + c: the
// constant first when nonzero, then the terms in order, a negative
// coefficient written as a subtraction.
func buildLinear(ts []term, c int) Expr {
	var e Expr
	if c != 0 {
		e = Const{c}
	}
	for _, t := range ts {
		if t.coef == 0 {
			continue
		}
		mag := abs(t.coef)
		var piece Expr = t.atom
		if mag != 1 {
			piece = &Binary{Mul, Const{mag}, t.atom}
		}
		switch {
		case e == nil && t.coef < 0:
			if t.coef == -1 {
				e = &Binary{Mul, Const{-1}, t.atom}
			} else {
				e = &Binary{Mul, Const{t.coef}, t.atom}
			}
		case e == nil:
			e = piece
		case t.coef < 0:
			e = &Binary{Sub, e, piece}
		default:
			e = &Binary{Add, e, piece}
		}
	}
	if e == nil {
		return Const{0}
	}
	return e
}

// Simplify returns m with its result expressions and guard simplified. Result
// expressions use the axis ranges of the domain narrowed by the guard's
// comparisons of an axis with a constant (so "m < 10" gives m ≤ 9); guard
// terms use the domain's ranges alone and are dropped when those ranges
// prove them true. The simplified map has the same image at every point
// where the guard holds.
func (m Map) Simplify() Map {
	out, _ := m.SimplifyTrace()
	return out
}

// SimplifyTrace is Simplify that also returns the names of the rules that
// fired, in order ("guard-always-true" for a dropped guard term).
func (m Map) SimplifyTrace() (Map, []string) {
	var fired []string
	narrowed := m.guardRanges()
	out := m
	out.prog = &lazyProgram{}
	out.results = make([]Expr, len(m.results))
	out.bounds = make([]Interval, len(m.results))
	for i, e := range m.results {
		se, names := SimplifyExprTrace(e, narrowed)
		iv, err := Bounds(se, m.domainRange)
		if err != nil {
			se, names = e, nil // keep the original where the new one is not bounded
			iv = m.bounds[i]
		}
		out.results[i], out.bounds[i] = se, iv
		fired = append(fired, names...)
	}
	var terms []Cmp
	for _, t := range m.guard.terms {
		x, nx := SimplifyExprTrace(t.X, m.domainRange)
		y, ny := SimplifyExprTrace(t.Y, m.domainRange)
		_, ex := Bounds(x, m.domainRange)
		_, ey := Bounds(y, m.domainRange)
		if ex != nil || ey != nil {
			x, y, nx, ny = t.X, t.Y, nil, nil
		}
		fired = append(fired, nx...)
		fired = append(fired, ny...)
		if alwaysTrue(t.Op, x, y, m.domainRange) {
			fired = append(fired, "guard-always-true")
			continue
		}
		terms = append(terms, Cmp{t.Op, x, y})
	}
	out.guard = Guard{terms}
	return out, fired
}

func alwaysTrue(op CmpOp, x, y Expr, ranges func(string) (Interval, bool)) bool {
	d, err := Bounds(&Binary{Sub, x, y}, ranges)
	if err != nil {
		return false
	}
	switch op {
	case LT:
		return d.Hi < 0
	case LE:
		return d.Hi <= 0
	case GT:
		return d.Lo > 0
	case GE:
		return d.Lo >= 0
	case EQ:
		return d.Lo == 0 && d.Hi == 0
	default:
		return d.Lo > 0 || d.Hi < 0
	}
}

// guardRanges returns the domain's axis ranges narrowed by the guard terms
// that compare an axis with a constant.
func (m Map) guardRanges() func(string) (Interval, bool) {
	narrow := map[string]Interval{}
	for _, t := range m.guard.terms {
		op, x, y := t.Op, t.X, t.Y
		if _, ok := x.(Const); ok {
			x, y = y, x
			op = map[CmpOp]CmpOp{LT: GT, LE: GE, GT: LT, GE: LE, EQ: EQ, NE: NE}[op]
		}
		v, ok1 := x.(Var)
		c, ok2 := y.(Const)
		if !ok1 || !ok2 {
			continue
		}
		iv, ok := narrow[v.name]
		if !ok {
			if iv, ok = m.domainRange(v.name); !ok {
				continue
			}
		}
		switch op {
		case LT:
			iv.Hi = min(iv.Hi, c.value-1)
		case LE:
			iv.Hi = min(iv.Hi, c.value)
		case GT:
			iv.Lo = max(iv.Lo, c.value+1)
		case GE:
			iv.Lo = max(iv.Lo, c.value)
		case EQ:
			iv.Lo, iv.Hi = max(iv.Lo, c.value), min(iv.Hi, c.value)
		}
		narrow[v.name] = iv
	}
	return func(name string) (Interval, bool) {
		if iv, ok := narrow[name]; ok {
			if iv.Lo > iv.Hi {
				// The guard never holds; any range is sound. Keep the domain's.
				return m.domainRange(name)
			}
			return iv, true
		}
		return m.domainRange(name)
	}
}

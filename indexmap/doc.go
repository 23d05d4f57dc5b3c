// Package indexmap models guarded maps between index spaces.
//
// # Model
//
// A Map sends each point of its domain space (package indexspace) to a point of
// its codomain space, by one result expression per codomain leaf axis, where
// its guard holds. Each side declares its kind: logical (a position in a
// tile), thread-value (who holds an element and in which value slot),
// physical (a memory offset or register slot), or untyped.
//
// # Notation
//
// Expressions are integers over the domain's axis names (a group axis stands
// for the row-major flat index of its leaves):
//
//	expr    = sum { "^" sum }                      ^ is xor, loosest
//	sum     = product { ("+" | "-") product }
//	product = unary { ("*" | "/" | "%") unary }     tightest
//	unary   = "-" unary | INT | IDENT | "(" expr ")"
//
// Every binary operator associates to the left. Note that ^ binds more
// loosely than + (as in C, unlike Go): "x ^ x / 8 % 8" is x xor ((x/8)%8).
// "/" is floor division and "%" the non-negative remainder, both by a
// positive constant only. A minus sign before a number is part of the
// constant; before anything else it means -1 * operand. String prints the
// fewest parentheses that parse back to the same tree.
//
// A guard is "true" or comparisons joined by "&&": expr OP expr with OP one of
// < <= == != >= >. A map's text form is
//
//	thread-value(lane:32, v:8) -> logical(m:16, k:16) = (lane / 4 + 8 * (v / 2 % 2), lane % 4 * 2 + v % 2 + 8 * (v / 4))
//	logical tile(m:12) -> physical smem(a:16) = (m) if m < 10
//	thread-value(w:4, lane:32) -> physical(a:32) = (lane) broadcast(w)
//
// that is: domain side, "->", codomain side, "=", the parenthesized results
// (one per codomain leaf, in flat order), an optional "if GUARD", and an
// optional "broadcast(AXES)" naming the domain axes along which replication
// is declared. A side is an optional kind (logical, thread-value, physical)
// followed by the indexspace text of its space. JSON carries expressions as
// text:
//
//	{"domain": {"kind": "thread-value", "space": {...}},   (kind "untyped" or absent: untyped)
//	 "codomain": {"kind": "logical", "space": {...}},
//	 "results": ["lane / 4 + 8 * (v / 2 % 2)", "..."], "guard": "...", "broadcast": ["w"]}
//
// # Invariants
//
//   - Values are immutable; Parse(m.String()) equals m (Equal), and likewise
//     for ParseExpr and ParseGuard.
//   - Every axis an expression names exists in the domain; there is one result
//     per codomain leaf.
//   - Every intermediate value of every expression stays within ±2^61 over the
//     domain (checked by interval bounds in New), so evaluation never
//     overflows.
//   - Kind rules ("A Simplified Layout Algebra for GPU Kernels"): maps into logical or thread-value are dense
//     bijections; maps into physical are alias-free except along declared
//     broadcast axes; nothing maps out of physical except a physical →
//     physical bijection (a swizzle). Typed maps carry no zero strides:
//     replication is declared with broadcast. A thread-value → physical map,
//     which the paper builds only as a composite, is accepted: a Map does not
//     record how it was built.
//   - Simplification never changes a value where the guard holds.
//   - Kind checks that need enumeration stop at Limits.MaxPoints points
//     (EnumerationLimit by default): a larger typed map that is not affine
//     and unguarded is rejected with a KindError saying it cannot be checked.
//   - A parsed text has at most Limits.MaxTerms terms (DefaultMaxTerms), and
//     so has a composite (counting each occurrence of a shared subtree), or
//     the operation fails with a *LimitError. Expressions are left-deep
//     binary trees and every walk over them (evaluation, compilation,
//     simplification, printing) recurses along them, so the cap bounds the
//     recursion depth too; nesting is capped at 200 parentheses by the
//     parser.
//
// # Operations
//
// Compose(outer, inner) substitutes inner's results for outer's domain axes
// (leafwise when the spaces have the same leaf sizes, through the flat index
// otherwise) after checking kinds, sizes and that inner stays in its
// codomain; the guard is the conjunction of both guards. Inner's domain axes
// that only feed outer's broadcast axes become broadcast axes of the
// composite (through the flat index, found on the simplified results), so
// CuTe's A ∘ B with a stride-0 mode of A along a whole mode of B imports with
// kinds; a broadcast along part of one of B's modes cannot be declared and is
// a KindError.
//
// Simplify rewrites expressions with an ordered table of named rules applied
// bottom-up to a fixed point (RuleNames lists them; SimplifyTrace reports
// which fired). Side conditions use the axes' ranges, narrowed by guard terms
// that compare an axis with a constant:
//
//	fold-constant        c1 op c2 → c
//	xor-zero             x ^ 0 → x
//	xor-self             x ^ x → 0
//	xor-disjoint-bits    x ^ y → x + y when 0 ≤ y < 2^s and x ≥ 0 is a multiple of 2^s
//	div-one              x / 1 → x
//	div-in-range         x / k → c when c·k ≤ x < (c+1)·k
//	div-div              x / a / b → x / (a·b)
//	div-common-factor    (g·x) / (g·k) → x / k
//	div-small-remainder  (g·x + r) / (g·k) → x / k when 0 ≤ r < g
//	div-split-multiple   (k·q + r) / k → q + r / k
//	div-of-mod           x % (a·b) / a → x / a % b
//	mod-one              x % 1 → 0
//	mod-in-range         x % k → x - c·k when c·k ≤ x < (c+1)·k
//	mod-mod              x % a % b → x % b when b | a
//	mod-common-factor    (g·x) % (g·k) → g·(x % k)
//	mod-drop-multiple    (k·q + r) % k → r % k
//	mod-small-remainder  (g·x + r) % (g·k) → g·(x % k) + r when 0 ≤ r < g
//	recombine-div-mod    c·k·(x / k) + c·(x % k) → c·x
//	linear-normal-form   sums as constant + Σ coef·atom, like terms merged
//
// plus guard-always-true, which drops a guard term the domain's ranges prove.
// For example (4*x + y) / 4 becomes x / 1 by div-small-remainder when
// 0 ≤ y < 4, then x by div-one; when y may reach 4 or more,
// div-split-multiple gives x + y / 4 instead.
// Simplification never changes a value where the guard holds (fuzzed).
//
// Decide returns Properties (in range, injective, alias-free, surjective,
// dense bijection) with a witness, by the sorted-stride criterion when the
// map is affine and unguarded (Lemma 1 of "A Simplified Layout Algebra for
// GPU Kernels": sorted by stride, the
// strides are the running products of the sizes) and by enumeration
// otherwise.
//
// Emit writes each result as code generation should print it (the paper's
// Section 4):
// when the result minus its value at the origin is separable over the
// domain's leaves and each part is a layout (cute.Recognize, Theorem 1), one
// weighted sum of digits s·(x / w % m) plus the constant; else the simplified
// composite. LayoutExpr does this for a list of values.
//
// Restrict fixes domain axes (the paper's Section 5) and emits the slice: affine plus a
// constant where possible, negative coefficients allowed ("3 - b").
// Inverse inverts a dense bijection. FromCute and ToCute convert CuTe layouts
// (fastest mode first) by reversing modes recursively; nested modes are
// factor groups and stride-0 modes declared broadcasts.
//
// # API
//
//	Expressions: Expr (sealed: Var, Const, *Binary), V, C, NewBinary, Sum,
//	  Difference, Product, XorOf, Quotient, Remainder, Equal, Vars, Eval,
//	  Bounds, Interval, AffineOf, Affine, ParseExpr, MustParseExpr,
//	  SimplifyExpr, SimplifyExprTrace, RuleNames; Op (Xor, Add, Sub, Mul, Div, Mod)
//	Guards: Guard, Cmp, CmpOp, NewGuard, ParseGuard
//	Maps: Kind, ParseKind, Side, Spec, New, MustNew, Parse, MustParse;
//	  Map.Domain, Codomain, Results, Result, Guard, Broadcast, ResultBounds,
//	  Spec, Equal, String, Eval, MarshalJSON, UnmarshalJSON
//	Algebra: Compose, Map.Simplify, SimplifyTrace, Restrict, Inverse, Emit
//	  (Form: AsSimplified, AsLayout), LayoutExpr, FromCute, ToCute
//	Properties: Map.Decide → Properties (Method: ByStride, ByEnumeration),
//	  IsInjective, IsSurjective, IsDenseBijection; KindError; ErrTooLarge
//	Caps: Limits (MaxTerms, MaxPoints), SetLimits, CurrentLimits,
//	  DefaultMaxTerms, EnumerationLimit, LimitError
//	Compiled evaluation: Map.Compile → *Program (Eval, Tabulate → Table),
//	  Map.Tabulate, DefaultTableLimit. A Program shares common
//	  subexpressions, recomputes per point only what depends on changed
//	  coordinates, and evaluates the fastest leaf's instructions a row at a
//	  time; affine results are evaluated incrementally.
//	One expression: CompileExpr(e, space) → *ExprProgram (Eval, Tabulate,
//	  Affine, Bounds, Expr, Space), the same Program code paths for callers
//	  that evaluate one function at many points; bounded like a Map's
//	  results. Affine.At evaluates an affine form (inlined by the compiler).
//
// Errors: syntax errors are *SyntaxError with a byte offset, a text over
// the cap on terms a *LimitError with the offset of the first term over it;
// other errors
// name the result, guard term or axis at fault.
package indexmap

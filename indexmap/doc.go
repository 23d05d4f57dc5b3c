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
//	{"domain": {"kind": "thread-value", "space": {...}},
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
//   - Kind rules (seed 001): maps into logical or thread-value are dense
//     bijections; maps into physical are alias-free except along declared
//     broadcast axes; nothing maps out of physical except a physical →
//     physical bijection (a swizzle). Typed maps carry no zero strides:
//     replication is declared with broadcast.
//   - Simplification never changes a value where the guard holds.
//
// # API
//
//	Expressions: Expr (sealed: Var, Const, *Binary), V, C, NewBinary, Sum,
//	  Difference, Product, XorOf, Quotient, Remainder, Equal, Vars, Eval,
//	  Bounds, ParseExpr, MustParseExpr; Op (Xor, Add, Sub, Mul, Div, Mod)
//	Guards: Guard, Cmp, CmpOp, NewGuard, ParseGuard
//	Maps: Kind, ParseKind, Side, Spec, New, MustNew, Parse, MustParse;
//	  Map.Domain, Codomain, Results, Result, Guard, Broadcast, ResultBounds,
//	  Spec, Equal, String, Eval, MarshalJSON, UnmarshalJSON
//	Compiled evaluation: Map.Compile → *Program (Eval, Tabulate → Table),
//	  Map.Tabulate. A Program shares common subexpressions and, when it
//	  tabulates the domain in flat order, recomputes only the instructions
//	  that depend on the coordinates that changed.
//
// Errors: syntax errors are *SyntaxError with a byte offset; other errors
// name the result, guard term or axis at fault.
package indexmap

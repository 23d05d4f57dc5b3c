// Package jsonv reads JSON documents as a tree of positioned values and
// decodes them with every problem collected, each at a typed path and with a
// stable code.
//
// Model. Parse turns bytes into a *Value tree (null, boolean, number, string,
// array, object) that remembers the byte offset of every value and keeps
// every member of an object, repeated keys included. A Decoder walks the
// tree: its helpers (Object, Array, Int, String, …) check kinds and ranges
// and record a *Problem for each mistake instead of stopping at the first, so
// a document with five mistakes gets five messages.
//
// Paths are values built from steps, never from strings: the root is the
// zero Path, written "$"; Key and Index extend it, and String writes
// "$.tasks.mma.alternatives[1].ports.lhs" (a key that is not an identifier is
// quoted: $.sizes["a b"]).
//
// Invariants. Unknown fields and repeated keys are problems, never silently
// dropped or overwritten. Numbers keep their text, so an integer that does not
// fit is a Range problem, not a rounded float. Problems are sorted by path
// (keys by their text, indexes numerically, an index before a key), then by
// code and message, so the same input gives the same report. A problem that
// wraps a cause (a syntax error of an index map in a string, say) keeps it:
// errors.As finds the cause's type through Problems.
//
// Limits. Parse refuses input over Limits.MaxBytes and nesting deeper than
// Limits.MaxDepth (recursion is bounded by it), with a Limit problem naming
// the limit.
package jsonv

// Package costmodel estimates execution and conversion costs on a hardware
// target.
//
// Model. A cost is a float64 number of nanoseconds on the chosen target, a
// total over the work an invocation covers (not per tile): a producer fused
// into its consumer's tile loop is paid as often as it is recomputed, and a
// conversion as often as its tiles move under the chosen pair.
//
// Invariants. Every estimate carries its origin: declared (given in the
// input), measured (from an imported measurement table, which overrides the
// formula) or formula (computed here, with the formula's inputs: bytes moved,
// shuffle rounds, barriers, bank-conflict wavefronts from package storage).
//
// Status: the cost tables are the subject of a later issue.
package costmodel

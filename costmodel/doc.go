// Package costmodel estimates execution and conversion costs, in nanoseconds on a
// hardware target. Every estimate says where it came from: declared, measured or
// formula.
package costmodel

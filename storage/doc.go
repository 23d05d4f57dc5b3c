// Package storage models storage layouts: maps from a logical tile space to
// addresses in a memory space (register, shared, global).
//
// Invariant: a storage layout is alias-free unless it declares a broadcast.
package storage

// Package indexmap models guarded maps between index spaces.
//
// A Map sends each point of its domain space to a point of its codomain space by
// one result expression per codomain leaf axis, where its guard holds. Invariants:
// Parse(m.String()) equals m; simplification never changes a value where the
// guard holds; maps into logical or thread-value spaces are dense bijections.
package indexmap

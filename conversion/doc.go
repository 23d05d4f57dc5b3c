// Package conversion classifies a (source, target) distribution pair by the
// lowest hardware level the movement must cross, and produces a movement witness.
package conversion

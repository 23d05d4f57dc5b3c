package distribution

import (
	"fmt"
	"strings"

	"github.com/cklplan/cklplan/storage"
)

// A Level is the hardware level an executor axis indexes. The levels are listed
// from the outermost (slowest to exchange data across) to the innermost.
type Level uint8

// The executor levels.
const (
	LevelBlock Level = iota + 1 // a CTA of the grid (or of a cluster)
	LevelWarp                   // a warp of a CTA
	LevelLane                   // a lane (thread) of a warp
)

var levelNames = [...]string{LevelBlock: "block", LevelWarp: "warp", LevelLane: "lane"}

// String returns the level's name: "block", "warp" or "lane".
func (l Level) String() string {
	if l >= LevelBlock && l <= LevelLane {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// ParseLevel is the inverse of Level.String.
func ParseLevel(s string) (Level, error) {
	for l := LevelBlock; l <= LevelLane; l++ {
		if levelNames[l] == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("distribution: unknown executor level %q (want block, warp or lane)", s)
}

// An Axis is a named axis of a local or tile space.
type Axis struct {
	Name string
	Size int
}

func (a Axis) String() string { return fmt.Sprintf("%s:%d", a.Name, a.Size) }

// An ExecutorAxis is an axis of the executor space. Several axes may share a
// level (a warp grid warp_m × warp_n): the level's index is then their flat
// row-major index. A replicated axis holds copies: every value of it owns the
// same number of elements, and ownership is a bijection once it is fixed.
type ExecutorAxis struct {
	Name       string
	Size       int
	Level      Level
	Replicated bool
}

func (a ExecutorAxis) String() string {
	s := fmt.Sprintf("%s:%d@%s", a.Name, a.Size, a.Level)
	if a.Replicated {
		s += "*"
	}
	return s
}

func axesString[T fmt.Stringer](axes []T) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// maxPoints bounds the size of every space a distribution tabulates, so that a
// hostile input cannot ask for an enormous table.
const maxPoints = 1 << 22

// product returns the product of sizes, or an error naming what overflowed
// maxPoints or held a non-positive size.
func product(what string, names []string, sizes []int) (int, error) {
	n := 1
	for i, s := range sizes {
		if s <= 0 {
			return 0, fmt.Errorf("%s axis %q: size %d is not positive", what, names[i], s)
		}
		if n > maxPoints/s {
			return 0, fmt.Errorf("%s space: more than %d points", what, maxPoints)
		}
		n *= s
	}
	return n, nil
}

// unflatten writes the row-major coordinates of flat index i over sizes into out.
func unflatten(i int, sizes []int, out []int) {
	for d := len(sizes) - 1; d >= 0; d-- {
		out[d] = i % sizes[d]
		i /= sizes[d]
	}
}

// flatten returns the row-major flat index of coords over sizes.
func flatten(coords, sizes []int) int {
	i := 0
	for d, c := range coords {
		i = i*sizes[d] + c
	}
	return i
}

// ParseElement reads an element type by storage's name ("f16", "bf16",
// "f8e4m3", "i8", "u4", …) or by the PTX ISA's spelling of the signed
// integers ("s8" is i8, "s4" is i4, "s16", "s32", "s64").
func ParseElement(s string) (storage.ElementType, error) {
	if rest, ok := strings.CutPrefix(s, "s"); ok {
		switch rest {
		case "4", "8", "16", "32", "64":
			s = "i" + rest
		}
	}
	return storage.ParseElementType(s)
}

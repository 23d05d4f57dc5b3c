package indexspace_test

import (
	"fmt"

	"github.com/cklplan/cklplan/indexspace"
)

func ExampleParse() {
	s, err := indexspace.Parse("tile(m:16, n:(n0:2, n1:4))")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s, s.Size(), s.NumLeaves())
	c, _ := s.Coord(13) // 13 = 1*8 + 1*4 + 1: row-major, last leaf fastest
	fmt.Println(c)
	i, _ := s.Flat([]int{1, 1, 3})
	fmt.Println(i)
	// Output:
	// tile(m:16, n:(n0:2, n1:4)) 128 3
	// [1 1 1]
	// 15
}

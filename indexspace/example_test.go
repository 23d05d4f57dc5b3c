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

func ExampleCommonRefinement() {
	a := indexspace.MustParse("(a:6, b:2)")
	b := indexspace.MustParse("(c:3, d:4)")
	ra, rb, _ := indexspace.CommonRefinement(a, b)
	fmt.Println(ra)
	fmt.Println(rb)
	// (6,2) and (4,3) cut the flat index at 2 and at 3: no common refinement.
	_, _, err := indexspace.CommonRefinement(a, indexspace.MustParse("(c:4, d:3)"))
	fmt.Println(err)
	p, _ := indexspace.MustParse("(c:4, d:3)").PrimeRefine()
	fmt.Println(p)
	// Output:
	// (a:(a_0:3, a_1:2), b:2)
	// (c:3, d:(d_0:2, d_1:2))
	// indexspace: (a:6, b:2) and (c:4, d:3) have no common refinement: a splits the flat index at 2 and c at 3, and 2 does not divide 3
	// (c:(c_0:2, c_1:2), d:3)
}

package indexspace_test

import (
	"errors"
	"fmt"
	json "github.com/goccy/go-json"

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

// Refinement names the factors of leaf a "a_0", "a_1", ... and doubles the
// separator when one of those names is already taken.
func ExampleSpace_PrimeRefine() {
	for _, text := range []string{"t(a:6, b:4)", "t(a:6, a_0:2)"} {
		r, err := indexspace.MustParse(text).PrimeRefine()
		fmt.Println(r, err)
	}
	// Output:
	// t(a:(a_0:2, a_1:3), b:(b_0:2, b_1:2)) <nil>
	// t(a:(a__0:2, a__1:3), a_0:2) <nil>
}

// Errors in the JSON form name the JSON path of each offending value.
func ExampleJSONErrors() {
	var s indexspace.Space
	err := json.Unmarshal([]byte(`{"name": "t", "axes": [{"name": "a", "size": "4"}, {"name": "b"}]}`), &s)
	fmt.Println(err)
	var je indexspace.JSONErrors
	if errors.As(err, &je) {
		fmt.Println(je[0].Path, je[0].Code)
	}
	// Output:
	// $.axes[0].size: want a positive integer, got "4"
	// $.axes[1]: missing "size" (for a leaf) or "axes" (for a group)
	// $.axes[0].size type
}

// A syntax or validation error in the text form carries the byte offset of
// the offending token.
func ExampleSyntaxError() {
	text := "t(a:4294967296, b:4294967296)"
	_, err := indexspace.Parse(text)
	fmt.Println(err)
	var se *indexspace.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(text[se.Offset:])
	}
	// Output:
	// indexspace: offset 16: size of space overflows (limit 4611686018427387903) at axis "b"
	// b:4294967296)
}

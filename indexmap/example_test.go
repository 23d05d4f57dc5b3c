package indexmap_test

import (
	"fmt"

	"github.com/cklplan/cklplan/indexmap"
)

func ExampleParse() {
	m, err := indexmap.Parse("thread-value(lane:32, v:8) -> logical(m:16, k:16) = (lane/4 + 8*(v/2%2), lane%4*2 + v%2 + 8*(v/4))")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m)
	out, _, _ := m.Eval([]int{5, 3}) // lane 5, value 3
	fmt.Println(out)
	// Output:
	// thread-value(lane:32, v:8) -> logical(m:16, k:16) = (lane / 4 + 8 * (v / 2 % 2), lane % 4 * 2 + v % 2 + 8 * (v / 4))
	// [9 3]
}

func ExampleParseExpr() {
	e, _ := indexmap.ParseExpr("((x * 4) + y) / 4")
	fmt.Println(e)
	_, err := indexmap.ParseExpr("x / y")
	fmt.Println(err)
	// Output:
	// (x * 4 + y) / 4
	// indexmap: offset 4: the right operand of "/" must be a positive constant, not y
}

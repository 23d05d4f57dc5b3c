package indexmap_test

import (
	"fmt"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// ExampleCompileExpr evaluates the address of a 128-byte swizzled f16 row
// (in elements) at a few points and over a whole small tile.
func ExampleCompileExpr() {
	tile := indexspace.MustParse("(m:2, k:16)")
	p, err := indexmap.CompileExpr(indexmap.MustParseExpr("m * 64 + (k ^ m % 8 * 8)"), tile)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := p.Eval([]int{1, 3})
	fmt.Println(v)
	_, affine := p.Affine()
	fmt.Println(affine, p.Bounds())
	all, _ := p.Tabulate(0)
	fmt.Println(all[14:18])
	_, err = indexmap.CompileExpr(indexmap.MustParseExpr("m + n"), tile)
	fmt.Println(err)
	// Output:
	// 75
	// false [0, 79]
	// [14 15 72 73]
	// indexmap: m + n over (m:2, k:16): unknown axis "n"
}

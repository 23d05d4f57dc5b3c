package indexmap_test

import (
	"fmt"

	"github.com/cklplan/cklplan/cute"
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

func ExampleCompose() {
	// The CuTe documentation's composition A ∘ B with A = (6,2):(8,2) and
	// B = (4,3):(3,1), imported (modes reversed) into typed maps.
	a, _ := indexmap.FromCute(cute.MustParse("(6,2):(8,2)"), indexmap.Logical, indexmap.Physical)
	b, _ := indexmap.FromCute(cute.MustParse("(4,3):(3,1)"), indexmap.Logical, indexmap.Logical)
	r, err := indexmap.Compose(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r) // the literal substitution
	e, forms := r.Emit()
	fmt.Println(e, forms) // one weighted sum: the composite is a layout
	l, _ := indexmap.ToCute(e)
	fmt.Println(l)
	// Output:
	// logical(m1:3, m0:4) -> physical(x:43) = (2 * ((m1 + 3 * m0) / 6) + 8 * ((m1 + 3 * m0) % 6))
	// logical(m1:3, m0:4) -> physical(x:43) = (8 * m1 + 24 * (m0 % 2) + 2 * (m0 / 2)) [layout]
	// ((2,2),3):((24,2),8)
}

func ExampleMap_Simplify() {
	m := indexmap.MustParse("(x:16, y:4) -> (a:16, b:32) = ((4 * x + y) / 4, 8 * (x / 8) + x % 8 + (y ^ 0))")
	s, fired := m.SimplifyTrace()
	fmt.Println(s)
	fmt.Println(fired)
	// Output:
	// (x:16, y:4) -> (a:16, b:32) = (x, x + y)
	// [div-small-remainder div-one recombine-div-mod xor-zero]
}

func ExampleLayoutExpr() {
	// [0, 1, 4, 5] is the layout (2,2):(1,4): one weighted sum of digits.
	e, ok := indexmap.LayoutExpr([]int{0, 1, 4, 5}, "i")
	fmt.Println(e, ok)
	// [0, 1, 2, 4] is no layout ("Tiling Is Function Composition"): emitted as the literal composite.
	_, ok = indexmap.LayoutExpr([]int{0, 1, 2, 4}, "i")
	fmt.Println(ok)
	// Output:
	// i % 2 + 4 * (i / 2) true
	// false
}

func ExampleMap_Restrict() {
	// "A Simplified Layout Algebra for GPU Kernels", Section 5: (2,2):(2,1) under the swizzle x ^ ((x >> 1) & 1), with a = 1.
	layout := indexmap.MustParse("logical(a:2, b:2) -> physical(x:4) = (2 * a + b)")
	swizzle := indexmap.MustParse("physical(x:4) -> physical(y:4) = (x ^ x / 2 % 2)")
	f, _ := indexmap.Compose(swizzle, layout)
	slice, _ := f.Restrict(map[string]int{"a": 1})
	fmt.Println(slice)
	// Output:
	// logical(b:2) -> physical(y:4) = (3 - b)
}

func ExampleSimplifyExpr() {
	// x in [0, 16), y in [0, 4): (4*x + y) / 4 → x.
	ranges := func(name string) (indexmap.Interval, bool) {
		switch name {
		case "x":
			return indexmap.Interval{Lo: 0, Hi: 15}, true
		case "y":
			return indexmap.Interval{Lo: 0, Hi: 3}, true
		}
		return indexmap.Interval{}, false
	}
	for _, text := range []string{"(4 * x + y) / 4", "(4 * x + y) % 4", "8 * (x / 8) + x % 8", "(x * 16 + y) % 32 / 4"} {
		e := indexmap.SimplifyExpr(indexmap.MustParseExpr(text), ranges)
		fmt.Printf("%s → %s\n", text, e)
	}
	// Output:
	// (4 * x + y) / 4 → x
	// (4 * x + y) % 4 → y
	// 8 * (x / 8) + x % 8 → x
	// (x * 16 + y) % 32 / 4 → 4 * (x % 2)
}

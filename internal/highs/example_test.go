package highs_test

import (
	"context"
	"fmt"
	"math"

	"github.com/cklplan/cklplan/internal/highs"
)

// A 0/1 knapsack: take items of value 10, 13 and 7 and weight 3, 4 and 2 into a
// bag of capacity 6. The best choice is the second and third item.
func ExampleLibrary_Solve() {
	lib, err := highs.Load(highs.Config{})
	if err != nil {
		fmt.Println(err) // says where it looked and how to install HiGHS
		return
	}
	m := &highs.Model{Maximize: true}
	a := m.AddColumn(highs.Binary("a", 10))
	b := m.AddColumn(highs.Binary("b", 13))
	c := m.AddColumn(highs.Binary("c", 7))
	m.AddRow(highs.Row{Name: "capacity", Lower: math.Inf(-1), Upper: 6,
		Terms: []highs.Term{{Col: a, Coef: 3}, {Col: b, Coef: 4}, {Col: c, Coef: 2}}})

	res, err := lib.Solve(context.Background(), m, highs.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.Objective)
	for j, x := range res.Values {
		fmt.Printf("%s=%v ", m.Columns[j].Name, math.Round(x))
	}
	fmt.Println()
	// Output:
	// optimal 20
	// a=0 b=1 c=1
}

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

// One Solver solves models one after another on the same HiGHS instance; every
// solve starts from the options it is given. Close it when done.
func ExampleSolver() {
	lib, err := highs.Load(highs.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := lib.NewSolver()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	// min x + y subject to x + 2y ≥ 3, x, y ∈ {0, 1, 2}: the optimum costs 2
	// (x = 1, y = 1, or y = 2); relaxed to an LP, 1.5 (y = 1.5).
	m := &highs.Model{}
	x := m.AddColumn(highs.Column{Name: "x", Cost: 1, Upper: 2, Integer: true})
	y := m.AddColumn(highs.Column{Name: "y", Cost: 1, Upper: 2, Integer: true})
	m.AddRow(highs.Row{Lower: 3, Upper: math.Inf(1),
		Terms: []highs.Term{{Col: x, Coef: 1}, {Col: y, Coef: 2}}})
	for _, integer := range []bool{true, false} {
		m.Columns[x].Integer, m.Columns[y].Integer = integer, integer
		res, err := s.Solve(context.Background(), m, highs.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("integer=%v: %s, objective %g\n", integer, res.Status, res.Objective)
	}
	// Output:
	// integer=true: optimal, objective 2
	// integer=false: optimal, objective 1.5
}

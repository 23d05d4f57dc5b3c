package planner_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/cklplan/cklplan/planner"
)

// A dequantize feeds two mma consumers. Its fast alternative leaves the tile
// in a row layout, which each mma must convert to its fragment layout; the
// slower one produces the fragment directly. Locally, the fast one wins;
// jointly, the slower one saves the conversion (one, shared by both mmas).
func ExampleSolve() {
	p := &planner.Problem{
		Nodes: []planner.Node{
			{Name: "dequant", Alternatives: []planner.Alternative{
				{ID: "rowwise", Cost: 10},
				{ID: "fragment", Cost: 14},
			}},
			{Name: "mma.gate", Alternatives: []planner.Alternative{{ID: "m16n8k16", Cost: 40}}},
			{Name: "mma.up", Alternatives: []planner.Alternative{{ID: "m16n8k16", Cost: 40}}},
		},
		Groups: []planner.Group{{
			Name:     "dequant.out",
			Producer: 0,
			Sources:  []string{"row", "frag"},
			Consumers: []planner.Consumer{
				{Node: 1, Targets: []string{"frag"}},
				{Node: 2, Targets: []string{"frag"}},
			},
			Pairs: []planner.Pair{
				{Source: "frag", Target: "frag", Cost: 0},
				{Source: "row", Target: "frag", Cost: 5}, // a shuffle conversion
			},
		}},
	}
	sol, err := planner.Solve(context.Background(), p, planner.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %v ns (bound %v), %d of %d nodes eliminated\n",
		sol.Status, sol.Objective, sol.Bound, sol.Model.Eliminated, sol.Model.Nodes)
	for _, c := range sol.Choices {
		fmt.Printf("  %s: %s\n", p.Nodes[c.Node].Name, c.ID)
	}
	for _, r := range sol.Regrets {
		fmt.Printf("  rejected %s.%s: regret %v ns\n", p.Nodes[r.Node].Name, r.ID, r.Regret)
	}
	for _, g := range sol.Groups {
		for _, c := range g.Conversions {
			fmt.Printf("  %s: %s→%s, %v ns, consumers %v\n", p.Groups[g.Group].Name, c.Source, c.Target, c.Cost, c.Consumers)
		}
	}
	fmt.Printf("local choice: %v ns, saving %v ns\n", sol.Local.Cost, sol.Local.Cost-sol.Objective)

	// A conversion that needs shared-memory scratch, under a budget too
	// small for it, is infeasible; the error names the budget and what
	// every plan takes of it.
	p.Budgets = []planner.Budget{{Name: "smem", Capacity: 1024}}
	p.Groups[0].Pairs[1].Uses = []planner.Use{{Budget: 0, Amount: 4096}}
	p.Pin(0, "rowwise", "pinned by the caller")
	_, err = planner.Solve(context.Background(), p, planner.Options{})
	var inf *planner.InfeasibleError
	if errors.As(err, &inf) {
		fmt.Println("infeasible; budgets in conflict:", inf.Budgets, errors.Is(err, planner.ErrInfeasible))
		fmt.Println("smem: capacity", p.Budgets[0].Capacity, "but every plan takes at least", inf.Least[0])
	}
	// Output:
	// optimal: 94 ns (bound 94), 3 of 3 nodes eliminated
	//   dequant: fragment
	//   mma.gate: m16n8k16
	//   mma.up: m16n8k16
	//   rejected dequant.rowwise: regret 1 ns
	//   dequant.out: frag→frag, 0 ns, consumers [0 1]
	// local choice: 95 ns, saving 1 ns
	// infeasible; budgets in conflict: [0] true
	// smem: capacity 1024 but every plan takes at least 4096
}

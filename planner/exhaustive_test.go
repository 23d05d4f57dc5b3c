package planner

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// exhaustive is the test oracle: it enumerates every plan of p (each node
// one alternative not removed by the caller), computes each plan's cost and
// feasibility from the Problem's definition, and returns the optimum and,
// for every node and alternative, the best cost of a feasible plan using it
// (+Inf when none). It shares no code with the planner.
type exhaustiveResult struct {
	opt     float64 // +Inf: infeasible
	choices []int   // an optimal plan
	best    [][]float64
}

func exhaustive(p *Problem) exhaustiveResult {
	n := len(p.Nodes)
	res := exhaustiveResult{opt: math.Inf(1), best: make([][]float64, n)}
	var options [][]int
	for v, node := range p.Nodes {
		res.best[v] = make([]float64, len(node.Alternatives))
		var opts []int
		for a, alt := range node.Alternatives {
			res.best[v][a] = math.Inf(1)
			if alt.Removed == "" {
				opts = append(opts, a)
			}
		}
		if len(opts) == 0 {
			return res
		}
		options = append(options, opts)
	}
	type pairKey struct{ s, t string }
	pairs := make([]map[pairKey]Pair, len(p.Groups))
	for g, gr := range p.Groups {
		pairs[g] = map[pairKey]Pair{}
		for _, pr := range gr.Pairs {
			pairs[g][pairKey{pr.Source, pr.Target}] = pr
		}
	}
	idx := make([]int, n)
	plan := make([]int, n)
	use := make([]float64, len(p.Budgets))
	for {
		for v := range n {
			plan[v] = options[v][idx[v]]
		}
		cost, ok := 0.0, true
		clear(use)
		for v, a := range plan {
			alt := p.Nodes[v].Alternatives[a]
			cost += alt.Cost
			for _, u := range alt.Uses {
				use[u.Budget] += u.Amount
			}
		}
		for g, gr := range p.Groups {
			s := gr.Sources[plan[gr.Producer]]
			done := map[string]bool{}
			for _, c := range gr.Consumers {
				t := c.Targets[plan[c.Node]]
				if done[t] {
					continue
				}
				done[t] = true
				pr, found := pairs[g][pairKey{s, t}]
				if !found || math.IsInf(pr.Cost, 1) {
					ok = false
					break
				}
				cost += pr.Cost
				for _, u := range pr.Uses {
					use[u.Budget] += u.Amount
				}
			}
		}
		for b, bu := range p.Budgets {
			if use[b] > bu.Capacity+1e-9*math.Max(1, math.Abs(bu.Capacity)) {
				ok = false
			}
		}
		if ok {
			if cost < res.opt {
				res.opt = cost
				res.choices = append([]int(nil), plan...)
			}
			for v, a := range plan {
				res.best[v][a] = math.Min(res.best[v][a], cost)
			}
		}
		v := n - 1
		for ; v >= 0; v-- {
			idx[v]++
			if idx[v] < len(options[v]) {
				break
			}
			idx[v] = 0
		}
		if v < 0 {
			return res
		}
	}
}

// randomProblem is a seeded random problem: up to maxNodes nodes with 1 to 4
// alternatives, integer costs (so that ties happen), labels from small sets,
// groups with one to three consumers and random pair costs (some pairs
// absent, some +Inf), sometimes budgets with uses on alternatives and on
// pairs, and sometimes alternatives removed by the caller.
func randomProblem(seed uint64, maxNodes int) *Problem {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	labels := []string{"a", "b", "c"}
	p := &Problem{}
	n := 1 + rng.IntN(maxNodes)
	nb := 0
	if rng.IntN(3) == 0 {
		nb = 1 + rng.IntN(2)
	}
	for b := range nb {
		p.Budgets = append(p.Budgets, Budget{Name: fmt.Sprintf("smem%d", b), Capacity: float64(rng.IntN(12))})
	}
	randomUses := func(prob int) []Use {
		var us []Use
		for b := range nb {
			if rng.IntN(prob) == 0 {
				us = append(us, Use{Budget: b, Amount: float64(1 + rng.IntN(5))})
			}
		}
		return us
	}
	for v := range n {
		node := Node{Name: fmt.Sprintf("v%d", v)}
		for a := range 1 + rng.IntN(4) {
			alt := Alternative{ID: fmt.Sprintf("a%d", a), Cost: float64(rng.IntN(20)), Uses: randomUses(3)}
			if rng.IntN(25) == 0 {
				alt.Removed = "pinned away"
			}
			node.Alternatives = append(node.Alternatives, alt)
		}
		p.Nodes = append(p.Nodes, node)
	}
	randLabels := func(v int, k int) []string {
		ls := make([]string, len(p.Nodes[v].Alternatives))
		for i := range ls {
			ls[i] = labels[rng.IntN(k)]
		}
		return ls
	}
	for u := range n {
		if n == 1 || rng.IntN(4) == 0 {
			continue
		}
		g := Group{Name: fmt.Sprintf("g%d", u), Producer: u, Sources: randLabels(u, 2+rng.IntN(2))}
		nc := 1
		if rng.IntN(3) == 0 {
			nc = 2 + rng.IntN(2)
		}
		for range nc {
			w := rng.IntN(n - 1)
			if w >= u {
				w++
			}
			g.Consumers = append(g.Consumers, Consumer{Node: w, Targets: randLabels(w, 2+rng.IntN(2))})
		}
		for _, s := range labels {
			for _, t := range labels {
				switch r := rng.IntN(20); {
				case r < 3:
					continue // absent: not convertible
				case r == 3:
					g.Pairs = append(g.Pairs, Pair{Source: s, Target: t, Cost: math.Inf(1)})
				default:
					cost := float64(rng.IntN(15))
					if s == t && rng.IntN(2) == 0 {
						cost = 0
					}
					g.Pairs = append(g.Pairs, Pair{Source: s, Target: t, Cost: cost, Uses: randomUses(8)})
				}
			}
		}
		p.Groups = append(p.Groups, g)
	}
	return p
}

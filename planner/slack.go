package planner

import (
	"math"
	"slices"
)

// A budget that no plan can exceed constrains nothing, yet its uses make
// its nodes a kernel: the reduction leaves them to contraction or HiGHS,
// and a kernel's Pareto fronts hold a point for each way of spending the
// budget, the more the looser it is (a 1,002-invocation megakernel under
// a budget of 100 MB, which it cannot fill: 105 s and 8 GB). Solve drops
// such budgets' uses first: every plan, every regret and every
// infeasibility is the same without them, and the plan's use of them is
// counted on the problem as given.

// dropSlack says whether Solve drops slack budgets; tests turn it off to
// compare.
var dropSlack = true

// withoutSlack returns p without the uses of its slack budgets (those the
// most any plan can use fits: slackBudgets), or nil when none is slack or
// none is used. The budgets keep their indices; the nodes and groups that
// used a slack budget are copied, those that share slices sharing the
// copies, and the copy's dominance pruning reads p's uses (usesFrom), so
// that it removes the same alternatives.
func withoutSlack(p *Problem) *Problem {
	if !dropSlack {
		return nil
	}
	slack := slackBudgets(p)
	if slack == nil {
		return nil
	}
	drop := func(us []Use) bool {
		for _, u := range us {
			if slack[u.Budget] {
				return true
			}
		}
		return false
	}
	keep := func(us []Use) []Use {
		var out []Use
		for _, u := range us {
			if !slack[u.Budget] {
				out = append(out, u)
			}
		}
		return out
	}
	q := &Problem{Budgets: p.Budgets, order: p.order, usesFrom: p}
	if p.usesFrom != nil {
		q.usesFrom = p.usesFrom
	}
	q.Nodes = make([]Node, len(p.Nodes))
	alts := map[*Alternative][]Alternative{}
	for v, n := range p.Nodes {
		q.Nodes[v] = n
		q.Nodes[v].Alternatives = withoutUses(n.Alternatives, func(a *Alternative) *[]Use { return &a.Uses }, alts, drop, keep)
	}
	q.Groups = make([]Group, len(p.Groups))
	pairs := map[*Pair][]Pair{}
	for gi, g := range p.Groups {
		q.Groups[gi] = g
		q.Groups[gi].Pairs = withoutUses(g.Pairs, func(pr *Pair) *[]Use { return &pr.Uses }, pairs, drop, keep)
	}
	return q
}

// withoutUses is s with the uses that drop finds replaced by what keep
// leaves of them: s itself where no element has such uses, else a copy,
// one per slice of p's (copies, by its first element), so that the slices
// that nodes or groups share stay shared.
func withoutUses[T any](s []T, uses func(*T) *[]Use, copies map[*T][]T, drop func([]Use) bool, keep func([]Use) []Use) []T {
	if len(s) == 0 {
		return s
	}
	if c, ok := copies[&s[0]]; ok && len(c) == len(s) {
		return c
	}
	if !slices.ContainsFunc(s, func(x T) bool { return drop(*uses(&x)) }) {
		return s
	}
	c := slices.Clone(s)
	for i := range c {
		if u := uses(&c[i]); drop(*u) {
			*u = keep(*u)
		}
	}
	copies[&s[0]] = c
	return c
}

// slackBudgets says, per budget, whether no plan can use more of it than
// its capacity (mostUse), or nil where none is slack and used.
func slackBudgets(p *Problem) []bool {
	if len(p.Budgets) == 0 {
		return nil
	}
	most, used := mostUse(p)
	var slack []bool
	for b, bu := range p.Budgets {
		if used[b] && most[b] <= bu.Capacity {
			if slack == nil {
				slack = make([]bool, len(p.Budgets))
			}
			slack[b] = true
		}
	}
	return slack
}

// mostUse bounds each budget's use by any plan, and says which budgets
// anything uses: the sum of each node's most over its alternatives and
// each group's most over its sources of the uses of every conversion from
// that source (each target is converted to once, however many consumers
// need it). Removed alternatives and pairs that cannot be converted count
// nothing.
func mostUse(p *Problem) (most []float64, used []bool) {
	most = make([]float64, len(p.Budgets))
	used = make([]bool, len(p.Budgets))
	part := make([]float64, len(p.Budgets)) // one node's or source's most
	var touched []int
	flush := func() {
		for _, b := range touched {
			most[b] += part[b]
			part[b] = 0
		}
		touched = touched[:0]
	}
	raise := func(b int, x float64) {
		if !slices.Contains(touched, b) {
			touched = append(touched, b)
		}
		part[b] = max(part[b], x)
		used[b] = true
	}
	for _, n := range p.Nodes {
		for _, a := range n.Alternatives {
			if a.Removed != "" {
				continue
			}
			for _, u := range a.Uses {
				if u.Amount > 0 {
					raise(u.Budget, u.Amount)
				}
			}
		}
		flush()
	}
	// A group's uses by source and budget: a few entries, searched.
	type sum struct {
		source string
		budget int
		amount float64
	}
	var sums []sum
	for _, g := range p.Groups {
		sums = sums[:0]
		for _, pr := range g.Pairs {
			if math.IsInf(pr.Cost, 1) {
				continue
			}
			for _, u := range pr.Uses {
				if u.Amount <= 0 {
					continue
				}
				i := slices.IndexFunc(sums, func(x sum) bool { return x.budget == u.Budget && x.source == pr.Source })
				if i < 0 {
					sums = append(sums, sum{pr.Source, u.Budget, 0})
					i = len(sums) - 1
				}
				sums[i].amount += u.Amount
			}
		}
		for _, x := range sums {
			raise(x.budget, x.amount)
		}
		flush()
	}
	return most, used
}

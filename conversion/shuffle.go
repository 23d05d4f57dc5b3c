package conversion

import (
	"cmp"
	"slices"

	"github.com/cklplan/cklplan/distribution"
)

// movedBits is the width of the type that travels between threads.
func (p *problem) movedBits() int { return p.moved().Bits() }

// shufflePlan schedules the words every lane needs from other lanes of its
// warp (see ShufflePlan for the rule) and assembles the destination
// registers from them.
func (p *problem) shufflePlan(routes []Route) (*ShufflePlan, *RegisterPlan) {
	mb := p.movedBits()
	type warpKey struct{ block, warp int }
	needs := map[warpKey]map[int][]need{}
	for _, r := range routes {
		if r.Src.Thread == r.Dst.Thread {
			continue
		}
		k := warpKey{r.Dst.Block, r.Dst.Warp}
		if needs[k] == nil {
			needs[k] = map[int][]need{}
		}
		for _, w := range ownWords(r.Src.Slot, mb) {
			n := need{r.Src.Lane, w.Reg}
			if !slices.Contains(needs[k][r.Dst.Lane], n) {
				needs[k][r.Dst.Lane] = append(needs[k][r.Dst.Lane], n)
			}
		}
	}
	keys := make([]warpKey, 0, len(needs))
	for k := range needs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b warpKey) int { return cmp.Or(cmp.Compare(a.block, b.block), cmp.Compare(a.warp, b.warp)) })

	lanes := max(p.src.d.LevelSize(distribution.LevelLane), p.dst.d.LevelSize(distribution.LevelLane))
	sp := &ShufflePlan{}
	// got[warp][lane][need] is the round in which the lane received it.
	type gotKey struct {
		k    warpKey
		lane int
		n    need
	}
	got := map[gotKey]int{}
	for _, k := range keys {
		pending := needs[k]
		// The lower bound: words one lane needs, registers one lane gives.
		gives := map[int]map[int]bool{}
		for _, ns := range pending {
			sp.LowerBound = max(sp.LowerBound, len(ns))
			for _, n := range ns {
				if gives[n.from] == nil {
					gives[n.from] = map[int]bool{}
				}
				gives[n.from][n.reg] = true
			}
		}
		for _, g := range gives {
			sp.LowerBound = max(sp.LowerBound, len(g))
		}
		ws := WarpShuffles{Block: k.block, Warp: k.warp}
		// Several schedules; the one with fewer rounds (then fewer
		// selects, then the first) wins.
		rounds, when := greedyOffers(pending, lanes)
		for order := range firstFitOrders {
			fr, fw := firstFit(pending, lanes, order)
			if len(fr) < len(rounds) || len(fr) == len(rounds) && sendSelects(fr) < sendSelects(rounds) {
				rounds, when = fr, fw
			}
		}
		for l, m := range when {
			for n, r := range m {
				got[gotKey{k, l, n}] = r
			}
		}
		ws.Rounds = rounds
		sp.Selects += sendSelects(rounds)
		sp.Rounds = max(sp.Rounds, len(ws.Rounds))
		sp.Shuffles += len(ws.Rounds)
		sp.Warps = append(sp.Warps, ws)
	}
	rp := p.registerPlan(routes, func(out []word, i int) []word {
		r := routes[i]
		n := len(out)
		out = appendOwnWords(out, r.Src.Slot, mb)
		if r.Src.Thread == r.Dst.Thread {
			return out
		}
		k := warpKey{r.Dst.Block, r.Dst.Warp}
		for j, w := range out[n:] {
			out[n+j] = word{Round: got[gotKey{k, r.Dst.Lane, need{r.Src.Lane, w.Reg}}], Reg: 0, Bit: w.Bit, Bits: w.Bits}
		}
		return out
	})
	p.sourceConversion(rp, routes)
	return sp, rp
}

// need is one word a lane wants from another lane of its warp.
type need struct{ from, reg int } // source lane, source register

// sendSelects counts the selp the senders need: per round, the distinct
// registers offered, less one.
func sendSelects(rounds []ShuffleRound) int {
	n := 0
	for _, r := range rounds {
		offered := map[int]bool{}
		for _, reg := range r.Send {
			if reg >= 0 {
				offered[reg] = true
			}
		}
		n += max(len(offered)-1, 0)
	}
	return n
}

func sortedLanes(pending map[int][]need) []int {
	ls := make([]int, 0, len(pending))
	for l := range pending {
		ls = append(ls, l)
	}
	slices.Sort(ls)
	return ls
}

// The orders in which firstFit takes the requests: by source lane,
// register and receiver; by register, source lane and receiver; by
// receiver, register and source lane; by register, receiver and source.
const firstFitOrders = 4

// firstFit gives every request, taken in the given order, the first round
// in which its receiver is free and its sender offers nothing yet or that
// register.
func firstFit(pending map[int][]need, lanes int, order int) ([]ShuffleRound, map[int]map[need]int) {
	type req struct {
		to int
		n  need
	}
	var reqs []req
	for _, l := range sortedLanes(pending) {
		for _, n := range pending[l] {
			reqs = append(reqs, req{l, n})
		}
	}
	slices.SortFunc(reqs, func(a, b req) int {
		from, reg, to := cmp.Compare(a.n.from, b.n.from), cmp.Compare(a.n.reg, b.n.reg), cmp.Compare(a.to, b.to)
		switch order {
		case 1:
			return cmp.Or(reg, from, to)
		case 2:
			return cmp.Or(to, reg, from)
		case 3:
			return cmp.Or(reg, to, from)
		}
		return cmp.Or(from, reg, to)
	})
	var rounds []ShuffleRound
	when := map[int]map[need]int{}
	for _, q := range reqs {
		r := 0
		for ; r < len(rounds); r++ {
			if rounds[r].From[q.to] < 0 && (rounds[r].Send[q.n.from] < 0 || rounds[r].Send[q.n.from] == q.n.reg) {
				break
			}
		}
		if r == len(rounds) {
			rounds = append(rounds, newRound(lanes))
		}
		rounds[r].Send[q.n.from] = q.n.reg
		rounds[r].From[q.to] = q.n.from
		if when[q.to] == nil {
			when[q.to] = map[need]int{}
		}
		when[q.to][q.n] = r
	}
	return rounds, when
}

func newRound(lanes int) ShuffleRound {
	r := ShuffleRound{Send: make([]int, lanes), From: make([]int, lanes)}
	for i := range lanes {
		r.Send[i], r.From[i] = -1, -1
	}
	return r
}

// greedyOffers builds rounds one at a time: every lane offers the register
// most pending requests ask of it (ties: the lowest), and every lane takes
// one of its pending words on offer (the lowest source lane).
func greedyOffers(pendingIn map[int][]need, lanes int) ([]ShuffleRound, map[int]map[need]int) {
	pending := map[int][]need{}
	left := 0
	for l, ns := range pendingIn {
		pending[l] = slices.Clone(ns)
		left += len(ns)
	}
	var rounds []ShuffleRound
	when := map[int]map[need]int{}
	for left > 0 {
		round := newRound(lanes)
		demand := map[int]map[int]int{}
		for _, ns := range pending {
			for _, n := range ns {
				if demand[n.from] == nil {
					demand[n.from] = map[int]int{}
				}
				demand[n.from][n.reg]++
			}
		}
		for s := range lanes {
			best, bestN := -1, 0
			for reg, c := range demand[s] {
				if c > bestN || c == bestN && reg < best {
					best, bestN = reg, c
				}
			}
			round.Send[s] = best
		}
		for _, l := range sortedLanes(pending) {
			ns := pending[l]
			pick := -1
			for i, n := range ns {
				if round.Send[n.from] == n.reg && (pick < 0 || n.from < ns[pick].from) {
					pick = i
				}
			}
			if pick < 0 {
				continue
			}
			n := ns[pick]
			round.From[l] = n.from
			if when[l] == nil {
				when[l] = map[need]int{}
			}
			when[l][n] = len(rounds)
			pending[l] = slices.Delete(ns, pick, pick+1)
			left--
		}
		rounds = append(rounds, round)
	}
	return rounds, when
}

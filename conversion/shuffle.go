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
	lanes := max(p.src.d.LevelSize(distribution.LevelLane), p.dst.d.LevelSize(distribution.LevelLane))
	// The warps by dense index (block × warps + warp, the order of
	// ShufflePlan.Warps), each with its lanes' needs in route order; a
	// lane needs at most two words of each of its routes.
	warps := make([]warpNeeds, p.dst.nThreads/p.dst.lanes)
	perLane := 2 * len(p.dst.slotOf)
	var ws []word
	for _, r := range routes {
		if r.Src.Thread == r.Dst.Thread {
			continue
		}
		wn := &warps[r.Dst.Block*p.dst.warps+r.Dst.Warp]
		if wn.pending == nil {
			wn.pending = make([][]need, lanes)
			all := make([]need, lanes*perLane)
			for l := range wn.pending {
				wn.pending[l] = all[l*perLane : l*perLane : (l+1)*perLane]
			}
		}
		ws = appendOwnWords(ws[:0], r.Src.Slot, mb)
		for _, w := range ws {
			n := need{r.Src.Lane, w.Reg}
			if ns := wn.pending[r.Dst.Lane]; !slices.Contains(ns, n) {
				wn.pending[r.Dst.Lane] = append(ns, n)
			}
			wn.regs = max(wn.regs, w.Reg+1)
		}
	}
	sp := &ShufflePlan{}
	for k := range warps {
		wn := &warps[k]
		if wn.pending == nil {
			continue
		}
		pending := wn.pending
		// The lower bound: words one lane needs, registers one lane gives.
		gives := make([]bool, lanes*wn.regs) // [from lane][register]
		for _, ns := range pending {
			sp.LowerBound = max(sp.LowerBound, len(ns))
			for _, n := range ns {
				gives[n.from*wn.regs+n.reg] = true
			}
		}
		for from := range lanes {
			sp.LowerBound = max(sp.LowerBound, count(gives[from*wn.regs:(from+1)*wn.regs]))
		}
		ws := WarpShuffles{Block: k / p.dst.warps, Warp: k % p.dst.warps}
		// Several schedules; the one with fewer rounds (then fewer
		// selects, then the first) wins.
		rounds, when := greedyOffers(pending, lanes, wn.regs)
		reqs := requests(pending)
		for order := range firstFitOrders {
			fr, fw := firstFit(pending, reqs, lanes, order)
			if len(fr) < len(rounds) || len(fr) == len(rounds) && sendSelects(fr) < sendSelects(rounds) {
				rounds, when = fr, fw
			}
		}
		wn.when = when
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
		wn := &warps[r.Dst.Block*p.dst.warps+r.Dst.Warp]
		for j, w := range out[n:] {
			out[n+j] = word{Round: wn.round(r.Dst.Lane, need{r.Src.Lane, w.Reg}), Reg: 0, Bit: w.Bit, Bits: w.Bits}
		}
		return out
	})
	p.sourceConversion(rp, routes)
	return sp, rp
}

// warpNeeds are the words the lanes of one warp need from each other, and
// the round in which each gets each.
type warpNeeds struct {
	pending [][]need // by lane, distinct; nil for a warp that moves nothing
	regs    int      // 1 + the highest register needed
	when    [][]int  // when[lane][i] is the round of pending[lane][i]
}

// round is the round in which lane receives n.
func (wn *warpNeeds) round(lane int, n need) int {
	if i := slices.Index(wn.pending[lane], n); i >= 0 {
		return wn.when[lane][i]
	}
	return 0
}

// count is the number of true values.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// need is one word a lane wants from another lane of its warp.
type need struct{ from, reg int } // source lane, source register

// sendSelects counts the selp the senders need: per round, the distinct
// registers offered, less one.
func sendSelects(rounds []ShuffleRound) int {
	n := 0
	var buf [32]int
	for _, r := range rounds {
		offered := buf[:0]
		for _, reg := range r.Send {
			if reg >= 0 && !slices.Contains(offered, reg) {
				offered = append(offered, reg)
			}
		}
		n += max(len(offered)-1, 0)
	}
	return n
}

// The orders in which firstFit takes the requests: by source lane,
// register and receiver; by register, source lane and receiver; by
// receiver, register and source lane; by register, receiver and source.
const firstFitOrders = 4

// A request is need i of lane to.
type request struct {
	to, i int
	n     need
}

// requests lists every lane's needs.
func requests(pending [][]need) []request {
	var reqs []request
	for l, ns := range pending {
		for i, n := range ns {
			reqs = append(reqs, request{l, i, n})
		}
	}
	return reqs
}

// newWhen is a table of rounds shaped like pending.
func newWhen(pending [][]need) [][]int {
	n := 0
	for _, ns := range pending {
		n += len(ns)
	}
	all := make([]int, n)
	when := make([][]int, len(pending))
	off := 0
	for l, ns := range pending {
		when[l] = all[off : off+len(ns) : off+len(ns)]
		off += len(ns)
	}
	return when
}

// firstFit gives every request (reqs lists them), taken in the given
// order, the first round in which its receiver is free and its sender
// offers nothing yet or that register.
func firstFit(pending [][]need, reqs []request, lanes int, order int) ([]ShuffleRound, [][]int) {
	var rounds []ShuffleRound
	when := newWhen(pending)
	for _, k := range sortRequests(reqs, order) {
		q := reqs[k]
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
		when[q.to][q.i] = r
	}
	return rounds, when
}

// sortRequests returns the indices of reqs in the given order. Every
// order is total (a lane needs a word once). Where the source lane,
// register, receiver and index fit in 16 bits each, as they always do in
// a warp, each request's place in the order is one integer, and sorting
// integers is several times faster than sorting by a comparison function.
func sortRequests(reqs []request, order int) []int {
	rank := func(q request) (a, b, c int) {
		switch order {
		case 1:
			return q.n.reg, q.n.from, q.to
		case 2:
			return q.to, q.n.reg, q.n.from
		case 3:
			return q.n.reg, q.to, q.n.from
		}
		return q.n.from, q.n.reg, q.to
	}
	out := make([]int, len(reqs))
	const limit = 1 << 16
	if len(reqs) <= limit && !slices.ContainsFunc(reqs, func(q request) bool {
		return q.to >= limit || q.n.from >= limit || q.n.reg >= limit || q.to < 0 || q.n.from < 0 || q.n.reg < 0
	}) {
		keys := make([]uint64, len(reqs))
		for k, q := range reqs {
			a, b, c := rank(q)
			keys[k] = uint64(a)<<48 | uint64(b)<<32 | uint64(c)<<16 | uint64(k)
		}
		slices.Sort(keys)
		for i, key := range keys {
			out[i] = int(key & (limit - 1))
		}
		return out
	}
	for i := range out {
		out[i] = i
	}
	slices.SortFunc(out, func(x, y int) int {
		xa, xb, xc := rank(reqs[x])
		ya, yb, yc := rank(reqs[y])
		return cmp.Or(cmp.Compare(xa, ya), cmp.Compare(xb, yb), cmp.Compare(xc, yc))
	})
	return out
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
func greedyOffers(pending [][]need, lanes, regs int) ([]ShuffleRound, [][]int) {
	done := make([][]bool, len(pending))
	left := 0
	for l, ns := range pending {
		done[l] = make([]bool, len(ns))
		left += len(ns)
	}
	var rounds []ShuffleRound
	when := newWhen(pending)
	demand := make([]int, lanes*regs) // [source lane][register]
	for left > 0 {
		round := newRound(lanes)
		clear(demand)
		for l, ns := range pending {
			for i, n := range ns {
				if !done[l][i] {
					demand[n.from*regs+n.reg]++
				}
			}
		}
		for s := range lanes {
			best, bestN := -1, 0
			for reg, c := range demand[s*regs : (s+1)*regs] {
				if c > bestN {
					best, bestN = reg, c
				}
			}
			round.Send[s] = best
		}
		for l, ns := range pending {
			pick := -1
			for i, n := range ns {
				if !done[l][i] && round.Send[n.from] == n.reg && (pick < 0 || n.from < ns[pick].from) {
					pick = i
				}
			}
			if pick < 0 {
				continue
			}
			round.From[l] = ns[pick].from
			when[l][pick] = len(rounds)
			done[l][pick] = true
			left--
		}
		rounds = append(rounds, round)
	}
	return rounds, when
}

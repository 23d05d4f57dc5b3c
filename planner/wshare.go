package planner

import (
	"encoding/binary"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// Kernels alike whose Ws differ by a constant.
//
// A kernel's interior regrets come from its program's min-marginals with
// W, what the rest of the graph does around the kernel at each boundary
// tuple (budgetKernel.regrets). Kernels alike run the same program, and in
// a stack of layers fused alike most kernels sit amid the same
// neighbours: their Ws are the same up to a constant, to the last bits the
// subtractions that give W leave (33 kernels of three fused layers each
// have 12 distinct Ws to 9 digits, 22 bit for bit). W enters every plan of
// the program once, so its min-marginals with W + c are those with W, plus
// c: wShare runs the program once per group of kernels alike whose Ws,
// less their least entry, are within wShareTolerance of the objective of
// each other, for the group's first kernel, and gives the others its
// min-marginals, shifted. A regret so taken is within the tolerance times
// the objective of the program's own (a millionth of the tolerance ties
// are decided at, objectiveTolerance), and each is taken from the same
// kernel on any number of goroutines.

// wShareTolerance bounds, relative to the objective, how far apart the
// entries of two Ws, less their least, may be for one to stand for both.
const wShareTolerance = 1e-12

// A wShare gives each kernel its min-marginals with W (regrets), once per
// group.
type wShare struct {
	kernels   []*budgetKernel
	explained func(int) bool
	rep       []int          // per kernel, its group's first kernel
	low, high []float64      // per kernel, the least finite entry of its lower and upper W
	w         [][2][]float64 // per kernel, its lower and upper W
	exact     []bool
	groups    []*wGroup    // by first kernel
	shared    atomic.Int64 // kernels given another's min-marginals
}

// A wGroup is a group's min-marginals, from its first kernel's program.
type wGroup struct {
	once   sync.Once
	lo, hi [][]float64
}

// newWShare groups the kernels (one group each where !share).
func newWShare(kernels []*budgetKernel, s *Solution, aux [][]*Regret, explained func(int) bool, share bool) *wShare {
	ws := &wShare{kernels: kernels, explained: explained, rep: make([]int, len(kernels)), low: make([]float64, len(kernels)),
		high: make([]float64, len(kernels)), w: make([][2][]float64, len(kernels)), exact: make([]bool, len(kernels)), groups: make([]*wGroup, len(kernels))}
	q := wShareTolerance * math.Max(1, math.Abs(s.Objective))
	first := map[string]int{}
	alike := map[*budgetKernel]int{}
	var key []byte
	for ki, k := range kernels {
		wlo, whi, exact := k.wBounds(s, aux[ki])
		ws.w[ki], ws.exact[ki] = [2][]float64{wlo, whi}, exact
		ws.low[ki], ws.high[ki] = leastFinite(wlo), leastFinite(whi)
		ws.rep[ki] = ki
		if !share {
			ws.groups[ki] = &wGroup{}
			continue
		}
		// The key: the kernel's content (by its first kernel alike), the
		// interior nodes needed, exactness, and each W's entries less its
		// least, on a grid of q (two entries of one point of it are less
		// than q apart).
		a, ok := alike[k.alike]
		if !ok {
			a = len(alike)
			alike[k.alike] = a
		}
		key = binary.AppendUvarint(key[:0], uint64(a))
		for _, li := range k.internal {
			key = binary.AppendUvarint(key, uint64(li))
			if explained(k.nodes[li]) {
				key = append(key, 1)
			} else {
				key = append(key, 0)
			}
		}
		if exact {
			key = append(key, 1)
		} else {
			key = append(key, 0)
		}
		for i, w := range [2][]float64{wlo, whi} {
			if i == 1 && exact {
				break
			}
			least := ws.low[ki]
			if i == 1 {
				least = ws.high[ki]
			}
			for _, x := range w {
				g := math.Inf(1)
				if !math.IsInf(x, 1) {
					g = math.Round((x - least) / q)
				}
				key = binary.LittleEndian.AppendUint64(key, math.Float64bits(g))
			}
		}
		if r, ok := first[string(key)]; ok {
			ws.rep[ki] = r
			continue
		}
		first[string(key)] = ki
		ws.groups[ki] = &wGroup{}
	}
	return ws
}

// leastFinite is the least finite entry of w (0 for none).
func leastFinite(w []float64) float64 {
	least := math.Inf(1)
	for _, x := range w {
		least = math.Min(least, x)
	}
	if math.IsInf(least, 1) {
		return 0
	}
	return least
}

// marginals is kernel ki's min-marginals with its lower and upper W (nil
// where the program outgrows its limits): its group's first kernel's,
// shifted by the difference of their Ws' least entries.
func (ws *wShare) marginals(ki int) (lo, hi [][]float64) {
	r := ws.rep[ki]
	g := ws.groups[r]
	g.once.Do(func() {
		g.lo, g.hi = ws.kernels[r].wMarginals(ws.explained, ws.w[r][0], ws.w[r][1], ws.exact[r])
	})
	if g.lo == nil || g.hi == nil {
		return nil, nil
	}
	if r == ki {
		return g.lo, g.hi
	}
	ws.shared.Add(1)
	shifted := func(m [][]float64, by float64) [][]float64 {
		out := make([][]float64, len(m))
		for i, row := range m {
			out[i] = slices.Clone(row)
			for a := range out[i] {
				out[i][a] += by // +Inf stays
			}
		}
		return out
	}
	lo = shifted(g.lo, ws.low[ki]-ws.low[r])
	hi = lo
	if !ws.exact[ki] {
		hi = shifted(g.hi, ws.high[ki]-ws.high[r])
	}
	return lo, hi
}

// wBounds is W over the kernel's tuples, from the auxiliary node's
// min-marginals' lower and upper bounds (+Inf where no plan is known, or
// none is proven not to be), and whether they are one.
func (k *budgetKernel) wBounds(s *Solution, aux []*Regret) (wlo, whi []float64, exact bool) {
	opt0 := s.Objective
	chosen := s.Choices[k.aux].Alternative
	wlo = make([]float64, len(k.tuples))
	whi = make([]float64, len(k.tuples))
	exact = true
	for t := range k.tuples {
		mlo, mhi := opt0, opt0
		if t != chosen {
			r := Regret{Lower: math.Inf(1), Regret: math.Inf(1), Exact: true}
			if aux != nil && aux[t] != nil {
				r = *aux[t]
			}
			mlo, mhi = opt0+r.Lower, opt0+r.Regret
			exact = exact && r.Exact
		}
		wlo[t], whi[t] = mlo-k.table[t], mhi-k.table[t]
	}
	return wlo, whi, exact
}

// wMarginals is the program's min-marginals of the interior nodes
// explained with W at its lower and upper bounds (the same where exact);
// nil where the program outgrows its limits.
func (k *budgetKernel) wMarginals(explained func(int) bool, wlo, whi []float64, exact bool) (lo, hi [][]float64) {
	// The interior's: the boundary's regrets are the contracted problem's.
	need := func(li int) bool { _, in := slices.BinarySearch(k.internal, li); return in && explained(k.nodes[li]) }
	if lo = k.marginalsOf(nil, need, k.wFactor(wlo)); lo == nil {
		return nil, nil
	}
	if hi = lo; !exact {
		hi = k.marginalsOf(nil, need, k.wFactor(whi))
	}
	return lo, hi
}

package conversion

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortRequests orders requests as each firstFit order defines, whether it
// packs them into integers (values below 2^16) or compares them (larger
// values).
func TestSortRequests(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, scale := range []int{32, 1 << 20} {
		for range 50 {
			seen := map[request]bool{}
			var reqs []request
			for range r.IntN(200) {
				q := request{to: r.IntN(scale), n: need{r.IntN(scale), r.IntN(4)}}
				if !seen[q] {
					seen[q] = true
					q.i = len(reqs)
					reqs = append(reqs, q)
				}
			}
			for order := range firstFitOrders {
				got := sortRequests(reqs, order)
				for k := 1; k < len(got); k++ {
					a, b := reqs[got[k-1]], reqs[got[k]]
					from, reg, to := cmp.Compare(a.n.from, b.n.from), cmp.Compare(a.n.reg, b.n.reg), cmp.Compare(a.to, b.to)
					c := [firstFitOrders]int{cmp.Or(from, reg, to), cmp.Or(reg, from, to), cmp.Or(to, reg, from), cmp.Or(reg, to, from)}[order]
					if c >= 0 {
						t.Fatalf("order %d, values below %d: %+v before %+v", order, scale, a, b)
					}
				}
				identity := make([]int, len(reqs))
				for k := range identity {
					identity[k] = k
				}
				if !slices.Equal(slices.Sorted(slices.Values(got)), identity) {
					t.Fatalf("order %d: %v is not a permutation of %d requests", order, got, len(reqs))
				}
			}
		}
	}
}

package planner_test

import (
	"context"
	"fmt"
	"os"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/planner"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// A compiler builds the dequantize → mma graph in Go — the dequantization
// fused into the GEMM loop, either unpacking straight into the mma A
// fragment or in load order (then converted) — plans it, and prints the
// report: the choice, the regret and reason of the rejected alternative,
// the conversion on each boundary.
func ExamplePlan() {
	blocked, err := distribution.NewBlocked(distribution.Blocked{Name: "a_blocked_f16", Axes: []string{"m", "k"},
		Shape: []int{16, 16}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{16, 2},
		WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}, Element: storage.F16})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := tasks.NewBuilder("dequantize-mma", "h200").
		Size("M", 4096).Size("N", 16).Size("K", 16384).
		Space("a_tile", "(m:16, k:16)").Space("c_tile", "(m:16, n:8)").
		Distribution("a_blocked_f16", blocked)
	const tiles = "M/16 * K/16"
	dq := b.Task("dequantize").Out("a", "a_tile", storage.F16)
	dq.Alternative("native").Implementation("each lane unpacks the nibbles of its own A fragment").
		Dist("a", "mma.m16n8k16.a.f16", "gemm").CostNS(2.3).Multiplicity(tiles)
	dq.Alternative("blocked").Implementation("vectorized unpack in load order").
		Dist("a", "a_blocked_f16", "gemm").CostNS(2.0).Multiplicity(tiles)
	mma := b.Task("mma").In("lhs", "a_tile", storage.F16).Out("out", "c_tile", storage.F32)
	mma.Alternative("mma_sync").Implementation("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32").
		Dist("lhs", "mma.m16n8k16.a.f16", "gemm").Dist("out", "mma.m16n8k16.c.f32", "").
		CostNS(2.7).Multiplicity("M/16 * N/8 * K/16")
	st := b.Task("epilogue").In("c", "c_tile", storage.F32)
	st.Alternative("st_global").Implementation("st.global.v2.f32 from the accumulator fragment").Dist("c", "mma.m16n8k16.c.f32", "").CostNS(1).Multiplicity("M/16 * N/8")
	b.Invoke("dequantize", "dequantize")
	b.Invoke("mma", "mma")
	b.Invoke("epilogue", "epilogue")
	b.Edge("dequantize.a", "mma.lhs")
	b.Edge("mma.out", "epilogue.c")
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := planner.Plan(context.Background(), g, planner.PlanOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := r.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// plan of dequantize-mma on h200
	//
	// status        optimal (proven); bound 15.3 µs, gap 0%
	// total         15.3 µs = execution 15.3 µs + conversions 0 ns
	// local choice  28.92 µs; planning jointly saves 13.63 µs (47.1%)
	// model         3 invocations, 4 alternatives left; the exact reduction eliminated 3 of the invocations, leaving 0 to HiGHS (MILP of 0 columns, 0 rows; the whole model: 7 columns, 8 rows)
	// solve         no MILP: the reduction solved the whole model
	//
	// invocations (chosen alternative, cost, origin; then each rejected one: regret, why)
	//   dequantize: native  4.568 µs  declared: 262144 tiles × 2.3 ns a tile and SM / 132 SMs
	//       blocked        +13.63 µs   execution −595.8 ns; dequantize.a -> mma.lhs: a warp_shuffle conversion via shared_memory (14.22 µs) instead of nothing to convert
	//   mma: mma_sync  10.72 µs  declared: 524288 tiles × 2.7 ns a tile and SM / 132 SMs
	//   epilogue: st_global  3.879 ns  declared: 512 tiles × 1 ns a tile and SM / 132 SMs
	//
	// boundaries (the data's class and the mechanism that moves it, cost, origin)
	//   dequantize.a -> mma.lhs: identity, 0 ns, formula
	//       mma.m16n8k16.a.f16 → mma.m16n8k16.a.f16
	//   mma.out -> epilogue.c: identity, 0 ns, formula
	//       mma.m16n8k16.c.f32 → mma.m16n8k16.c.f32
}

// A compiler that re-plans after a small change keeps one Cache across its
// Plan calls: the conversions it classified for the first plan are not
// classified again. Here the dequantize → mma graph is planned at a decode
// size and again at a prefill size; the second plan finds every pair of
// distributions it needs in the cache, and starts from the first plan
// (PlanOptions.Start: on a hard graph under a time limit, a better start;
// proven optimal, the same plan from any start).
func ExampleCache() {
	blocked, err := distribution.NewBlocked(distribution.Blocked{Name: "a_blocked_f16", Axes: []string{"m", "k"},
		Shape: []int{16, 16}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{16, 2},
		WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}, Element: storage.F16})
	if err != nil {
		fmt.Println(err)
		return
	}
	build := func(n int64) (*tasks.Graph, error) {
		b := tasks.NewBuilder("dequantize-mma", "h200").
			Size("M", 4096).Size("N", n).Size("K", 16384).
			Space("a_tile", "(m:16, k:16)").Space("c_tile", "(m:16, n:8)").
			Distribution("a_blocked_f16", blocked)
		dq := b.Task("dequantize").Out("a", "a_tile", storage.F16)
		dq.Alternative("native").Dist("a", "mma.m16n8k16.a.f16", "gemm").CostNS(2.3).Multiplicity("M/16 * K/16 * cdiv(N, 64)")
		dq.Alternative("blocked").Dist("a", "a_blocked_f16", "gemm").CostNS(2.0).Multiplicity("M/16 * K/16 * cdiv(N, 64)")
		mma := b.Task("mma").In("lhs", "a_tile", storage.F16)
		mma.Alternative("mma_sync").Dist("lhs", "mma.m16n8k16.a.f16", "gemm").CostNS(2.7).Multiplicity("M/16 * N/8 * K/16")
		b.Invoke("dequantize", "dequantize")
		b.Invoke("mma", "mma")
		b.Edge("dequantize.a", "mma.lhs")
		return b.Build()
	}
	cache := planner.NewCache()
	var earlier *planner.Result
	for _, n := range []int64{16, 4096} {
		g, err := build(n)
		if err != nil {
			fmt.Println(err)
			return
		}
		r, err := planner.Plan(context.Background(), g, planner.PlanOptions{Cache: cache, Start: earlier})
		if err != nil {
			fmt.Println(err)
			return
		}
		dq, _ := r.Choice("dequantize")
		fmt.Printf("N = %d: %s, dequantize %s, %.4g µs; the cache holds %d conversions\n",
			n, r.Status, dq.Alternative, r.ObjectiveNS/1000, cache.Len())
		earlier = r
	}
	// Output:
	// N = 16: optimal, dequantize native, 15.29 µs; the cache holds 2 conversions
	// N = 4096: optimal, dequantize native, 3038 µs; the cache holds 2 conversions
}

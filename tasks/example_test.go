package tasks_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// dequantizeMMA builds the dequantize → mma graph of
// examples/graphs/dequant_mma_n16.json in Go, as a compiler would.
func dequantizeMMA(n int64) *tasks.Builder {
	rows := func(name string) *distribution.Distribution {
		d, err := distribution.NewBlocked(distribution.Blocked{Name: name, Axes: []string{"m", "k"},
			Shape: []int{16, 16}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{16, 2},
			WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}})
		if err != nil {
			panic(err)
		}
		return d
	}
	b := tasks.NewBuilder(fmt.Sprintf("dequantize-mma-n%d", n), "h200").
		Size("M", 4096).Size("N", n).Size("K", 16384).
		Space("a_tile", "(m:16, k:16)").Space("b_tile", "(k:16, n:8)").Space("c_tile", "(m:16, n:8)").
		IndexMap("w_rows", "logical(m:16, k:16) -> physical(addr:262144) = (m * 16384 + k)").
		IndexMap("x_rows", fmt.Sprintf("logical(k:16, n:8) -> physical(addr:%d) = (k * %d + n)", 16*n, n)).
		IndexMap("y_rows", fmt.Sprintf("logical(m:16, n:8) -> physical(addr:%d) = (m * %d + n)", 16*n, n)).
		Layout("w_global_u4", "global u4 elements align 16: w_rows").
		Layout("a_global_f16", "global f16 elements align 16: w_rows").
		Layout("x_global_f16", "global f16 elements align 16: x_rows").
		Layout("y_global_f32", "global f32 elements align 16: y_rows").
		Distribution("w_u4_ld", rows("w_u4_ld")).
		Distribution("a_blocked_f16", rows("a_blocked_f16"))

	const fused, perTile = "M/16 * K/16 * cdiv(N, 64)", "M/16 * K/16"
	load := b.LoadTask("load_w").
		MemoryIn("src", "a_tile", storage.U4, storage.Global).
		Out("w", "a_tile", storage.U4)
	load.Alternative("ld_in_gemm").Implementation("ld.global.b32 per lane, inside the GEMM loop").
		Layout("src", "w_global_u4").Dist("w", "w_u4_ld", "gemm").
		Resources(tasks.Resources{RegistersPerThread: 1, ThreadsPerBlock: 32}).CostNS(2).Multiplicity(fused)
	load.Alternative("ld_once").Implementation("ld.global.b32 per lane, once per weight tile").
		Layout("src", "w_global_u4").Dist("w", "w_u4_ld", "dequant").
		Resources(tasks.Resources{RegistersPerThread: 1, ThreadsPerBlock: 32}).CostNS(2).Multiplicity(perTile)

	dq := b.Task("dequantize").In("w", "a_tile", storage.U4).Out("a", "a_tile", storage.F16)
	dq.Alternative("fused_native").Implementation("unpack into the mma A fragment inside the GEMM loop").
		Dist("w", "mma.m16n8k16.a.f16", "gemm").Dist("a", "mma.m16n8k16.a.f16", "gemm").
		Resources(tasks.Resources{RegistersPerThread: 12, ThreadsPerBlock: 32}).
		CostNS(2.5).Multiplicity(fused)
	dq.Alternative("fused_blocked").Implementation("vectorized unpack in load order inside the GEMM loop").
		Dist("w", "w_u4_ld", "gemm").Dist("a", "a_blocked_f16", "gemm").
		Resources(tasks.Resources{RegistersPerThread: 8, ThreadsPerBlock: 32}).CostNS(1.5).Multiplicity(fused)
	dq.Alternative("standalone").Implementation("a dequantization kernel writing f16 weights to global memory").
		Dist("w", "w_u4_ld", "dequant").Layout("a", "a_global_f16").
		Resources(tasks.Resources{RegistersPerThread: 16, ThreadsPerBlock: 128}).CostNS(3.5).Multiplicity(perTile)

	lx := b.LoadTask("load_x").MemoryIn("src", "b_tile", storage.F16, storage.Global).Out("x", "b_tile", storage.F16)
	lx.Alternative("ldmatrix_trans").Implementation("cp.async to shared memory, ldmatrix.trans").
		Layout("src", "x_global_f16").Dist("x", "mma.m16n8k16.b.f16", "gemm").
		Resources(tasks.Resources{SharedMemoryBytes: 4096, ThreadsPerBlock: 32}).
		Requires("cp_async", "ldmatrix").CostNS(0.5).Multiplicity("M/16 * N/8 * K/16")

	mma := b.Task("mma").In("lhs", "a_tile", storage.F16).In("rhs", "b_tile", storage.F16).Out("out", "c_tile", storage.F32)
	out := tasks.BindingSpec{Port: "out", Distribution: "mma.m16n8k16.c.f32", Multiplicity: "M/16 * N/8"}
	mma.Alternative("a_in_registers").Implementation("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32").
		Dist("lhs", "mma.m16n8k16.a.f16", "gemm").Dist("rhs", "mma.m16n8k16.b.f16", "gemm").Bind(out).
		Resources(tasks.Resources{RegistersPerThread: 40, ThreadsPerBlock: 32}).
		CostWork(tasks.Work{Flops: 4096, Instruction: "mma_sync_f16"}).Multiplicity("M/16 * N/8 * K/16")
	mma.Alternative("a_from_global").Implementation("cp.async + ldmatrix of f16 A, then mma.sync m16n8k16").
		Layout("lhs", "a_global_f16").Dist("rhs", "mma.m16n8k16.b.f16", "gemm").Bind(out).
		Resources(tasks.Resources{RegistersPerThread: 48, SharedMemoryBytes: 8192, ThreadsPerBlock: 32}).
		Requires("cp_async", "ldmatrix").CostNS(1.2).Multiplicity("M/16 * N/8 * K/16")

	st := b.StoreTask("store_y").In("y", "c_tile", storage.F32).MemoryOut("dst", "c_tile", storage.F32, storage.Global)
	st.Alternative("st_global").Implementation("st.global.v2.f32 from the accumulator fragment").
		Dist("y", "mma.m16n8k16.c.f32", "").Layout("dst", "y_global_f32").CostNS(1).Multiplicity("M/16 * N/8")

	for _, id := range []string{"load_w", "dequantize", "load_x", "mma", "store_y"} {
		b.Invoke(id, id)
	}
	b.Edge("load_w.w", "dequantize.w")
	b.Edge("dequantize.a", "mma.lhs")
	b.Edge("load_x.x", "mma.rhs")
	b.Edge("mma.out", "store_y.y")
	return b
}

// A compiler builds the dequantize → mma graph in Go. Each invocation's
// candidates carry their multiplicities evaluated: at N = 16 the fused
// dequantization runs once per weight tile, like the standalone kernel.
func ExampleBuilder() {
	g, err := dequantizeMMA(16).Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range g.Invocation("dequantize").Candidates {
		fmt.Printf("%-14s runs %7d times, a = %s\n", c.Alternative.ID, c.Multiplicity, c.Binding("a").Name)
	}
	// Output:
	// fused_native   runs  262144 times, a = mma.m16n8k16.a.f16
	// fused_blocked  runs  262144 times, a = a_blocked_f16
	// standalone     runs  262144 times, a = a_global_f16
}

// A compiler that has fixed how the dequantization runs pins it, and the
// planner then chooses the rest around it; an empty list unpins it again.
func ExampleGraph_WithPins() {
	g, err := dequantizeMMA(16).Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	candidates := func(g *tasks.Graph) []string {
		var ids []string
		for _, c := range g.Invocation("dequantize").Candidates {
			ids = append(ids, c.Alternative.ID)
		}
		return ids
	}
	pinned, err := g.WithPins(map[string][]string{"dequantize": {"standalone"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	unpinned, err := pinned.WithPins(map[string][]string{"dequantize": nil})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("built:   ", candidates(g))
	fmt.Println("pinned:  ", candidates(pinned))
	fmt.Println("unpinned:", candidates(unpinned))
	_, err = g.WithPins(map[string][]string{"dequant": {"standalone"}})
	fmt.Println(err)
	// Output:
	// built:    [fused_native fused_blocked standalone]
	// pinned:   [standalone]
	// unpinned: [fused_native fused_blocked standalone]
	// tasks: WithPins: no invocation "dequant" (the graph's invocations: load_w, dequantize, load_x, mma, store_y)
}

// At N = 4096 the fused dequantization runs cdiv(N, 64) = 64 times more often
// than the standalone kernel; the edge to mma is a global round trip when
// either side holds the tile in global memory.
func ExampleEdge_Crossing() {
	g, err := dequantizeMMA(4096).Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	dq, mma := g.Invocation("dequantize"), g.Invocation("mma")
	e := mma.In[0]
	for _, a := range dq.Candidates {
		for _, b := range mma.Candidates {
			fmt.Printf("%s → %s: %s, %d tiles move\n", a.Alternative.ID, b.Alternative.ID, e.Crossing(a, b), e.Moves(a, b))
		}
	}
	// Output:
	// fused_native → a_in_registers: in_kernel, 16777216 tiles move
	// fused_native → a_from_global: global_round_trip, 16777216 tiles move
	// fused_blocked → a_in_registers: in_kernel, 16777216 tiles move
	// fused_blocked → a_from_global: global_round_trip, 16777216 tiles move
	// standalone → a_in_registers: global_round_trip, 262144 tiles move
	// standalone → a_from_global: global_round_trip, 262144 tiles move
}

// The builder and the JSON file describe the same graph: both marshal to the
// same bytes.
func ExampleMarshal() {
	built, err := dequantizeMMA(16).Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := tasks.Load(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := tasks.Marshal(built)
	b, _ := tasks.Marshal(loaded)
	fmt.Println("same graph:", bytes.Equal(a, b))
	// Output:
	// same graph: true
}

// Load reports every problem of a file, sorted by JSON path, each with a
// code; a builder's graph is checked the same way, with the same paths.
func ExampleLoad_problems() {
	b := dequantizeMMA(16)
	b.Invoke("mma_2", "mma2")
	b.Edge("dequantize.a", "mma.rhs")
	_, err := b.Build()
	var ps tasks.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			fmt.Printf("%s [%s]\n", p.Error(), p.Code)
		}
	}
	// Output:
	// $.edges[4]: producer tile (m:16, k:16) does not match consumer tile (k:16, n:8) (dequantize.a → mma.rhs) [tile_mismatch]
	// $.edges[4].to: input mma.rhs is already fed by edges[2] [fed_twice]
	// $.invocations[5].task: unknown task "mma2" [unknown_name]
}

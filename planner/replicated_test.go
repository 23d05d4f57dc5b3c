package planner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/tasks"
)

// fusedLayers chains n copies of examples/graphs/transformer_layer.json:
// layer i's invocations are named l<i>_<id>, layer i's add2.s feeds layer
// i+1's norm1.x and add1.r (the residual stream; layer 0 loads it, the
// last layer stores it), and each layer's four kernels (split where the
// example's edges must cross) are groups with a shared-memory budget of
// smem bytes. A budget of 24,576 or less binds: a kernel then cannot hold
// both a weight tile and a shared A tile.
func fusedLayers(tb testing.TB, n int, smem int) *tasks.Graph {
	tb.Helper()
	data, err := os.ReadFile("../examples/graphs/transformer_layer.json")
	if err != nil {
		tb.Fatal(err)
	}
	type edge struct {
		From   string            `json:"from"`
		To     string            `json:"to"`
		Rename map[string]string `json:"rename,omitempty"`
		Kernel string            `json:"kernel,omitempty"`
	}
	var ex map[string]json.RawMessage
	if err := json.Unmarshal(data, &ex); err != nil {
		tb.Fatal(err)
	}
	var invs []map[string]any
	var edges []edge
	if err := json.Unmarshal(ex["invocations"], &invs); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(ex["edges"], &edges); err != nil {
		tb.Fatal(err)
	}
	kernels := [][]string{{"load_h", "norm1", "load_wqkv", "qkv_proj"},
		{"attention", "load_wo", "o_proj", "load_r", "add1"},
		{"norm2", "load_wup", "up_proj", "gelu"},
		{"load_wdown", "down_proj", "add2", "store_h"}}
	name := func(i int, id string) string { return fmt.Sprintf("l%d_%s", i, id) }
	inv := func(port string) string { id, _, _ := strings.Cut(port, "."); return id }
	var outInvs []map[string]any
	var outEdges []edge
	var groups []map[string]any
	for i := range n {
		skip := map[string]bool{}
		if i > 0 {
			skip["load_h"], skip["load_r"] = true, true
		}
		if i < n-1 {
			skip["store_h"] = true
		}
		for _, v := range invs {
			if id := v["id"].(string); !skip[id] {
				w := map[string]any{}
				for k, x := range v {
					w[k] = x
				}
				w["id"] = name(i, id)
				outInvs = append(outInvs, w)
			}
		}
		for _, e := range edges {
			if skip[inv(e.From)] || skip[inv(e.To)] {
				continue
			}
			e.From, e.To = name(i, e.From), name(i, e.To)
			outEdges = append(outEdges, e)
		}
		if i > 0 {
			outEdges = append(outEdges, edge{From: name(i-1, "add2") + ".s", To: name(i, "norm1") + ".x", Rename: map[string]string{"n": "k"}},
				edge{From: name(i-1, "add2") + ".s", To: name(i, "add1") + ".r"})
		}
		for k, ks := range kernels {
			var members []string
			for _, id := range ks {
				if !skip[id] {
					members = append(members, name(i, id))
				}
			}
			groups = append(groups, map[string]any{"id": fmt.Sprintf("l%d_k%d", i, k), "invocations": members, "shared_memory_bytes": smem})
		}
	}
	for k, v := range map[string]any{"invocations": outInvs, "edges": outEdges, "groups": groups} {
		if ex[k], err = json.Marshal(v); err != nil {
			tb.Fatal(err)
		}
	}
	if data, err = json.Marshal(ex); err != nil {
		tb.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// TestBankModelOncePerPair: lowering fused transformer layers runs the
// bank model of a store into (or load from) a shared-memory layout once
// per distinct pair, however many kernels repeat it. Deciding which
// producers need a scratch-free variant used to cost every such pair of
// every budgeted kernel anew, though a store or load takes no scratch: 16
// fused layers ran the bank model 170 times for the 10 distinct pairs (one
// layer: 20), and 512 layers spent 5 of their 6.3 s planning there.
func TestBankModelOncePerPair(t *testing.T) {
	runs := func(layers, smem int) int {
		return lowered(t, fusedLayers(t, layers, smem)).bankRuns
	}
	for _, smem := range []int{100_000, 20_000} {
		one, many := runs(1, smem), runs(16, smem)
		if one == 0 || many != one {
			t.Errorf("budget %d: the bank model ran %d times for one fused layer, %d for 16; want as many, and some", smem, one, many)
		}
	}
}

// BenchmarkFusedLayers plans chained transformer layers whose four kernels
// each have a binding shared-memory budget (fusedLayers), without regrets.
//
//	go test ./planner -run '^$' -bench FusedLayers -benchtime 3x -benchmem
func BenchmarkFusedLayers(b *testing.B) {
	for _, layers := range []int{32, 128, 512} {
		g := fusedLayers(b, layers, 20_000)
		b.Run(fmt.Sprintf("layers=%d", layers), func(b *testing.B) {
			for b.Loop() {
				r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
				if err != nil {
					b.Fatal(err)
				}
				if r.Status != Optimal {
					b.Fatalf("status %s", r.Status)
				}
			}
		})
	}
}

// TestRegretTablesOnlyWhereRead: the regrets of a fused model's kernel
// interiors read tables T_{v=a}(β), each one run of the program, only
// where they pay: once per interior node for 16 kernels alike or more,
// shared by them; never where the reduction eliminates the kernels'
// auxiliary nodes and fewer are alike (the program runs with W instead).
// The tables of the direct regrets used to be built for every kernel,
// before the solve and outside the regrets' time limit, whether read or
// not: 90 generated layers at B = 300,000 took 14.8 s to plan and
// explain, 15 s with every kernel distinct (0.44 and 0.81 s now), every
// regret exact either way.
//
// Kernels alike whose Ws differ by a constant run the program once
// (wShare), so tables pay only where those runs are many: the test counts
// the kernels alike without it, and with it checks that the layers alike,
// all of one W but those at the ends, build none.
func TestRegretTablesOnlyWhereRead(t *testing.T) {
	highstest.Library(t)
	noWShare := true
	runs := func(layers int, step int64) int64 {
		var n atomic.Int64
		r, err := Plan(context.Background(), fusedStepped(t, layers, 1, 300_000, step), PlanOptions{Solve: Options{tableRuns: &n, noWShare: noWShare}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Choices {
			for _, rj := range c.Rejected {
				if !rj.Exact {
					t.Fatalf("%d layers, step %d: %s's %s: regret not exact", layers, step, c.Invocation, rj.Alternative)
				}
			}
		}
		return n.Load()
	}
	if n := runs(2, 0); n != 0 {
		t.Errorf("2 layers alike built %d regret tables, want none", n)
	}
	if n := runs(8, 8); n != 0 {
		t.Errorf("8 distinct layers built %d regret tables, want none", n)
	}
	if n20, n40 := runs(20, 0), runs(40, 0); n20 == 0 || n40 != n20 {
		t.Errorf("20 layers alike built %d regret tables, 40 layers %d; want as many, and some", n20, n40)
	}
	noWShare = false
	if n := runs(40, 0); n != 0 {
		t.Errorf("40 layers alike, sharing their Ws, built %d regret tables, want none", n)
	}
}

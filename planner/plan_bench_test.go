package planner

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// The end-to-end benchmarks of a generated task graph: load and validate
// the JSON (the floor), then the whole of what "cklplan plan" does — load
// (classifying the conversions beside it), lower, reduce and solve,
// regrets, the text report.
//
//	go test ./planner -run '^$' -bench 'EndToEnd|LoadOnly' -benchmem
func benchGraph(b testing.TB, family string, n int) []byte {
	b.Helper()
	var (
		s   tasks.Spec
		err error
	)
	switch family {
	case "transformer":
		s, err = taskgen.Transformer(n/10, 1)
	case "dag":
		s, err = taskgen.DAG(n, 4, 1)
	case "tree":
		s, err = taskgen.Tree(n, 1)
	}
	if err != nil {
		b.Fatal(err)
	}
	data, err := tasks.MarshalSpec(s)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkLoadOnly(b *testing.B) {
	for _, c := range []struct {
		family string
		n      int
	}{{"transformer", 1000}, {"transformer", 10000}, {"transformer", 100000}} {
		data := benchGraph(b, c.family, c.n)
		b.Run(fmt.Sprintf("%s/invocations=%d", c.family, c.n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := (tasks.Limits{FileBytes: 1 << 30, Invocations: 1 << 20, Edges: 1 << 21}).Load(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEndToEnd(b *testing.B) {
	for _, c := range []struct {
		family string
		n      int
	}{{"transformer", 1000}, {"transformer", 10000}, {"transformer", 100000}, {"tree", 10000}} {
		data := benchGraph(b, c.family, c.n)
		b.Run(fmt.Sprintf("%s/invocations=%d", c.family, c.n), func(b *testing.B) {
			for b.Loop() {
				// As cklplan plan does: the conversions are classified
				// beside the load.
				cache := NewCache()
				g, err := (tasks.Limits{FileBytes: 1 << 30, Invocations: 1 << 20, Edges: 1 << 21}).LoadWith(data,
					func(pre *tasks.Prelude) { cache.Prefetch(context.Background(), pre, nil) })
				if err != nil {
					b.Fatal(err)
				}
				r, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
				if err != nil {
					b.Fatal(err)
				}
				if err := r.WriteText(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReplan is what a compiler that keeps its graph and a Cache
// across calls pays to plan again: Plan on a loaded graph whose
// conversions the cache already holds, and the text report.
//
//	go test ./planner -run '^$' -bench Replan -benchmem
func BenchmarkReplan(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		g, err := (tasks.Limits{FileBytes: 1 << 30, Invocations: 1 << 20, Edges: 1 << 21}).Load(benchGraph(b, "transformer", n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("transformer/invocations=%d", n), func(b *testing.B) {
			cache := NewCache()
			if _, err := Plan(context.Background(), g, PlanOptions{Cache: cache}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				r, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
				if err != nil {
					b.Fatal(err)
				}
				if err := r.WriteText(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExplained plans a 992-invocation transformer (99 layers, every
// invocation explained, as Plan does up to DefaultExplainAll) and writes
// the text report, against the same plan without regrets or reasons: plain,
// each layer a fused kernel with a 48 KiB shared-memory budget, and ten
// layers to a kernel.
//
//	go test ./planner -run '^$' -bench Explained -benchmem
func BenchmarkExplained(b *testing.B) {
	for _, c := range []struct {
		name      string
		perKernel int // layers per fused kernel, 0 for none
	}{{"plain", 0}, {"fused=1", 1}, {"fused=10", 10}} {
		s, err := taskgen.Transformer(99, 1)
		if err == nil && c.perKernel > 0 {
			err = taskgen.FuseLayersBy(&s, 48<<10, c.perKernel)
		}
		if err != nil {
			b.Fatal(err)
		}
		data, err := tasks.MarshalSpec(s)
		if err != nil {
			b.Fatal(err)
		}
		g, err := (tasks.Limits{FileBytes: 1 << 30}).Load(data)
		if err != nil {
			b.Fatal(err)
		}
		cache := NewCache()
		for _, regrets := range []bool{true, false} {
			name := c.name + "/explained"
			if !regrets {
				name = c.name + "/plan"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					r, err := Plan(context.Background(), g, PlanOptions{Cache: cache, Solve: Options{NoRegrets: !regrets}})
					if err != nil {
						b.Fatal(err)
					}
					if regrets && r.Explained != len(g.Invocations()) {
						b.Fatalf("%d of %d invocations explained", r.Explained, len(g.Invocations()))
					}
					if err := r.WriteText(io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

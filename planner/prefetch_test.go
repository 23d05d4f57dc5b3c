package planner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// A plan whose conversions were prefetched while its graph loaded is the
// same, byte for byte, as one that classified them itself; and on graphs
// whose links need nothing else (no rename, no pin, no budget), the
// prefetch has classified every conversion the plan needs.
func TestPrefetch(t *testing.T) {
	files, err := filepath.Glob("../examples/graphs/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example graphs: %v", err)
	}
	inputs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[strings.TrimSuffix(filepath.Base(f), ".json")] = data
	}
	spec, err := taskgen.Transformer(20, 5)
	if err != nil {
		t.Fatal(err)
	}
	if inputs["generated transformer"], err = tasks.MarshalSpec(spec); err != nil {
		t.Fatal(err)
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			g, err := tasks.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			want := planBytes(t, g, nil)

			cache := NewCache()
			preludes := 0
			g, err = tasks.Limits{}.LoadWith(data, func(pre *tasks.Prelude) {
				preludes++
				cache.Prefetch(context.Background(), pre, nil)
			})
			if err != nil {
				t.Fatal(err)
			}
			if preludes != 1 {
				t.Fatalf("%d preludes, want 1", preludes)
			}
			cache.fetching.Wait()
			fetched := cache.Len()
			if fetched == 0 {
				t.Errorf("nothing prefetched")
			}
			if got := planBytes(t, g, cache); got != want {
				t.Errorf("the plan with prefetched conversions differs from the plan without")
			}
			t.Logf("prefetched %d, after the plan %d", fetched, cache.Len())
			if name == "generated transformer" && cache.Len() != fetched {
				t.Errorf("the plan classified %d conversions the prefetch did not", cache.Len()-fetched)
			}
		})
	}
}

// planBytes is g's plan as text and JSON.
func planBytes(t *testing.T, g *tasks.Graph, cache *Cache) string {
	t.Helper()
	r, err := Plan(context.Background(), g, PlanOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A plan that starts while a prefetch is under way ends it, waits for the
// classifications it shares with it, and gives the same plan.
func TestPlanDuringPrefetch(t *testing.T) {
	spec, err := taskgen.Transformer(30, 2)
	if err != nil {
		t.Fatal(err)
	}
	data, err := tasks.MarshalSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	want := planBytes(t, g, nil)
	cache := NewCache()
	g, err = tasks.Limits{}.LoadWith(data, func(pre *tasks.Prelude) { cache.Prefetch(context.Background(), pre, nil) })
	if err != nil {
		t.Fatal(err)
	}
	if got := planBytes(t, g, cache); got != want {
		t.Errorf("the plan made during a prefetch differs from the plan without")
	}
	cache.fetching.Wait()
}

// A prefetch for another built-in target classifies only what that
// target's alternatives need: planning the graph re-targeted to sm80 (no
// wgmma) after it finds nothing prefetched in vain, where the prefetch
// once read the graph's own target's features and classified the wgmma
// alternatives' conversions too.
func TestPrefetchForAnotherTarget(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/transformer_layer.json")
	if err != nil {
		t.Fatal(err)
	}
	sm80, ok := tasks.BuiltinTarget("sm80")
	if !ok {
		t.Fatal("no built-in sm80")
	}
	cache := NewCache()
	g, err := tasks.Limits{}.LoadWith(data, func(pre *tasks.Prelude) { cache.Prefetch(context.Background(), pre, sm80.Model) })
	if err != nil {
		t.Fatal(err)
	}
	if g, err = g.WithTarget(tasks.TargetSpec{Name: "sm80"}); err != nil {
		t.Fatal(err)
	}
	cache.fetching.Wait()
	fetched := cache.Len()
	if _, err := Plan(context.Background(), g, PlanOptions{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	fresh := NewCache()
	if _, err := Plan(context.Background(), g, PlanOptions{Cache: fresh}); err != nil {
		t.Fatal(err)
	}
	if fetched == 0 || cache.Len() != fresh.Len() {
		t.Errorf("prefetched %d conversions; planning for sm80 left %d in that cache, %d in a fresh one: want the same, none in vain", fetched, cache.Len(), fresh.Len())
	}
}

package tasks

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// On random DAGs with random must_cross edges, an edge crosses on a path
// exactly when some other path from its producer to its consumer contains
// an edge that must cross, found by search over (invocation, crossed yet).
func TestKernelPathsRandom(t *testing.T) {
	inferred := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 3 + r.IntN(10)
		var tasks, invs, edges []string
		type edge struct {
			from, to int
			cross    bool
		}
		var es []edge
		for k := 0; k <= 3; k++ {
			var ports, binds []string
			for i := range k {
				ports = append(ports, fmt.Sprintf(`"x%d": {"direction": "in", "tile": "t", "element": "f16"}`, i))
				binds = append(binds, fmt.Sprintf(`"x%d": "mma.m16n8k16.a.f16"`, i))
			}
			ports = append(ports, `"y": {"direction": "out", "tile": "t", "element": "f16"}`)
			binds = append(binds, `"y": "mma.m16n8k16.a.f16"`)
			tasks = append(tasks, fmt.Sprintf(`"t%d": {"ports": {%s}, "alternatives": [{"id": "a", "ports": {%s}, "cost": {"ns": 1}, "multiplicity": "M"}]}`,
				k, strings.Join(ports, ", "), strings.Join(binds, ", ")))
		}
		for v := range n {
			k := 0
			if v > 0 {
				k = r.IntN(min(v, 3) + 1)
			}
			invs = append(invs, fmt.Sprintf(`{"id": "v%d", "task": "t%d"}`, v, k))
			for i := range k {
				e := edge{from: r.IntN(v), to: v, cross: r.IntN(5) == 0}
				es = append(es, e)
				kernel := ""
				if e.cross {
					kernel = `, "kernel": "must_cross"`
				}
				edges = append(edges, fmt.Sprintf(`{"from": "v%d.y", "to": "v%d.x%d"%s}`, e.from, v, i, kernel))
			}
		}
		g, err := Load([]byte(fmt.Sprintf(`{"version": 1, "name": "random", "target": "h200", "sizes": {"M": 4},
  "spaces": {"t": "(m:16, k:16)"}, "tasks": {%s}, "invocations": [%s], "edges": [%s]}`,
			strings.Join(tasks, ", "), strings.Join(invs, ", "), strings.Join(edges, ", "))))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		// crossedPath reports whether a path from a to b other than the
		// edge skip has an edge that must cross.
		crossedPath := func(a, b, skip int) bool {
			type state struct {
				v       int
				crossed bool
			}
			seen := map[state]bool{}
			stack := []state{{a, false}}
			for len(stack) > 0 {
				s := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if seen[s] {
					continue
				}
				seen[s] = true
				if s.v == b && s.crossed {
					return true
				}
				for i, e := range es {
					if i != skip && e.from == s.v {
						stack = append(stack, state{e.to, s.crossed || e.cross})
					}
				}
			}
			return false
		}
		for i, e := range g.Edges() {
			want := !es[i].cross && crossedPath(es[i].from, es[i].to, i)
			if want {
				inferred++
			}
			if got := e.CrossedOnPath() != nil; got != want {
				t.Errorf("seed %d: %s crossed on a path %v, want %v", seed, edgeText(e), got, want)
			}
			if c := e.CrossedOnPath(); c != nil && !c.MustCross() {
				t.Errorf("seed %d: %s crossed on %s, which need not cross", seed, edgeText(e), edgeText(c))
			}
			if e.MustCross() != (es[i].cross || want) {
				t.Errorf("seed %d: %s must cross %v", seed, edgeText(e), e.MustCross())
			}
		}
	}
	if inferred < 50 {
		t.Errorf("only %d edges crossed on a path in 300 graphs: the graphs test too little", inferred)
	}
}

package tasks

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// small is a valid graph: load → scale → mma ← load, mma → store, with a
// fused group. Each error-code case below breaks it in one place.
const small = `{
  "version": 1,
  "name": "small",
  "target": "h200",
  "sizes": {"M": 256, "K": 256, "N": 64},
  "spaces": {"a": "(m:16, k:16)", "b": "(k:16, n:8)", "c": "(m:16, n:8)"},
  "layouts": {
    "a_global": "global f16 elements align 16: logical(m:16, k:16) -> physical(addr:4096) = (m * 256 + k)",
    "b_global": "global f16 elements align 16: logical(k:16, n:8) -> physical(addr:1024) = (k * 64 + n)",
    "c_global": "global f32 elements align 16: logical(m:16, n:8) -> physical(addr:1024) = (m * 64 + n)"
  },
  "distributions": {
    "rows": {"name": "rows", "blocked": {"axes": ["m", "k"], "shape": [16, 16],
      "size_per_thread": [1, 8], "threads_per_warp": [16, 2], "warps_per_cta": [1, 1], "order": [1, 0]}}
  },
  "tasks": {
    "load_a": {"kind": "load",
      "ports": {"src": {"direction": "in", "tile": "a", "element": "f16", "memory": "global"},
                "a": {"direction": "out", "tile": "a", "element": "f16"}},
      "alternatives": [{"id": "ld", "ports": {"src": {"layout": "a_global"}, "a": "rows"},
                        "cost": {"ns": 1}, "multiplicity": "M/16 * K/16"}]},
    "load_b": {"kind": "load",
      "ports": {"src": {"direction": "in", "tile": "b", "element": "f16", "memory": "global"},
                "b": {"direction": "out", "tile": "b", "element": "f16"}},
      "alternatives": [{"id": "ld", "ports": {"src": {"layout": "b_global"}, "b": "mma.m16n8k16.b.f16"},
                        "cost": {"ns": 1}, "multiplicity": "K/16 * N/8"}]},
    "scale": {
      "ports": {"x": {"direction": "in", "tile": "a", "element": "f16"},
                "y": {"direction": "out", "tile": "a", "element": "f16"}},
      "alternatives": [
        {"id": "rows", "ports": {"x": "rows", "y": "rows"}, "cost": {"ns": 1}, "multiplicity": "M/16 * K/16"},
        {"id": "frag", "ports": {"x": "rows", "y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 2}, "multiplicity": "M/16 * K/16"}]},
    "mma": {
      "ports": {"lhs": {"direction": "in", "tile": "a", "element": "f16"},
                "rhs": {"direction": "in", "tile": "b", "element": "f16"},
                "out": {"direction": "out", "tile": "c", "element": "f32"}},
      "alternatives": [
        {"id": "sync", "ports": {"lhs": "mma.m16n8k16.a.f16", "rhs": "mma.m16n8k16.b.f16",
                                 "out": {"distribution": "mma.m16n8k16.c.f32", "multiplicity": "M/16 * N/8"}},
         "resources": {"registers_per_thread": 64, "shared_memory_bytes": 1024, "threads_per_block": 32},
         "cost": {"work": {"flops": 4096, "instruction": "tensor_f16"}}, "multiplicity": "M/16 * N/8 * K/16"}]},
    "store": {"kind": "store",
      "ports": {"c": {"direction": "in", "tile": "c", "element": "f32"},
                "dst": {"direction": "out", "tile": "c", "element": "f32", "memory": "global"}},
      "alternatives": [{"id": "st", "ports": {"c": "mma.m16n8k16.c.f32", "dst": {"layout": "c_global"}},
                        "cost": {"ns": 1}, "multiplicity": "M/16 * N/8"}]}
  },
  "invocations": [
    {"id": "load_a", "task": "load_a"},
    {"id": "scale", "task": "scale"},
    {"id": "load_b", "task": "load_b"},
    {"id": "mma", "task": "mma"},
    {"id": "store", "task": "store"}
  ],
  "edges": [
    {"from": "load_a.a", "to": "scale.x"},
    {"from": "scale.y", "to": "mma.lhs"},
    {"from": "load_b.b", "to": "mma.rhs"},
    {"from": "mma.out", "to": "store.c"}
  ],
  "groups": [{"id": "kernel", "invocations": ["scale", "mma"], "shared_memory_bytes": 49152}],
  "measured": {"conversions": [{"source": "rows", "target": "mma.m16n8k16.a.f16", "ns": 3}]}
}`

// A time of -0 ns is 0: declared, or measured for an alternative or a
// conversion, it is taken as 0, which reports print as 0, not -0.
func TestNegativeZeroTime(t *testing.T) {
	data := strings.Replace(small, `"alternatives": [{"id": "ld", "ports": {"src": {"layout": "a_global"}, "a": "rows"},
                        "cost": {"ns": 1}`, `"alternatives": [{"id": "ld", "ports": {"src": {"layout": "a_global"}, "a": "rows"},
                        "cost": {"ns": -0.0}`, 1)
	data = strings.Replace(data, `"ns": 3}]}`, `"ns": -0}], "alternatives": [{"task": "scale", "alternative": "rows", "ns": -0e5}]}`, 1)
	if data == small {
		t.Fatal("the edit changed nothing")
	}
	g, err := Load([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var ns []float64
	for _, v := range g.Invocations() {
		for _, c := range v.Candidates {
			if c.Alternative.Cost.Kind == DeclaredCost {
				ns = append(ns, c.Alternative.Cost.NS)
			}
			if m, ok := g.Measured().AlternativeNS(c); ok {
				ns = append(ns, m)
			}
		}
	}
	m, ok := g.Measured().ConversionNS("rows", "mma.m16n8k16.a.f16", nil)
	if !ok {
		t.Fatal("the conversion's measurement is lost")
	}
	ns = append(ns, m)
	zeros := 0
	for _, x := range ns {
		if x == 0 {
			zeros++
			if math.Signbit(x) {
				t.Errorf("a time of -0 ns kept its sign: %v", ns)
			}
		}
	}
	if zeros != 3 {
		t.Errorf("want 3 times of 0 ns (declared, measured, conversion), have %v", ns)
	}
}

// edit decodes small into generic values, lets change modify them, and
// encodes the result.
func edit(t testing.TB, change func(g map[string]any)) []byte {
	t.Helper()
	return editJSON(t, []byte(small), change)
}

// editJSON is the JSON document data with change made to it.
func editJSON(t testing.TB, data []byte, change func(g map[string]any)) []byte {
	t.Helper()
	var g map[string]any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	change(g)
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// at walks a generic value along keys and indexes ("tasks", "mma", 0, …).
func at(v any, steps ...any) any {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			v = v.(map[string]any)[s]
		case int:
			v = v.([]any)[s]
		}
	}
	return v
}

func obj(v any, steps ...any) map[string]any { return at(v, steps...).(map[string]any) }

func TestSmallIsValid(t *testing.T) {
	g, err := Load([]byte(small))
	if err != nil {
		t.Fatal(err)
	}
	if w := g.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
}

// problemsOf returns the problems of an error from Load, New or Decode.
func problemsOf(t *testing.T, err error) jsonv.Problems {
	t.Helper()
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v (%T) is not a jsonv.Problems", err, err)
	}
	return ps
}

func describeProblems(ps jsonv.Problems) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\n  %s [%s] warning=%v", p.Error(), p.Code, p.Warning)
	}
	return b.String()
}

type codeCase struct {
	name    string
	data    func(t testing.TB) []byte
	build   func() (*Graph, error) // a Go-built graph instead of data
	limits  Limits
	path    string
	code    jsonv.Code
	msg     string // a part of the message
	warning bool
}

func raw(s string) func(testing.TB) []byte { return func(testing.TB) []byte { return []byte(s) } }

func mutate(change func(g map[string]any)) func(testing.TB) []byte {
	return func(t testing.TB) []byte { return edit(t, change) }
}

// codeCases holds one case per problem code (and more for codes with several
// causes); TestEveryCodeTested checks that no code is left out.
var codeCases = []codeCase{
	{name: "syntax", data: raw(`{"version": 1,`), path: "$", code: jsonv.Syntax},
	{name: "type", data: mutate(func(g map[string]any) { g["version"] = "1" }),
		path: "$.version", code: jsonv.Type, msg: `the string "1"`},
	{name: "unknown field", data: mutate(func(g map[string]any) { obj(g, "edges", 0)["colour"] = "red" }),
		path: "$.edges[0].colour", code: jsonv.UnknownField},
	{name: "duplicate key", data: raw(strings.Replace(small, `"version": 1,`, `"version": 1, "version": 1,`, 1)),
		path: "$.version", code: jsonv.DuplicateKey},
	{name: "missing task", data: mutate(func(g map[string]any) { delete(obj(g, "invocations", 0), "task") }),
		path: "$.invocations[0]", code: jsonv.Missing, msg: `missing "task"`},
	{name: "unrealized port", data: mutate(func(g map[string]any) { delete(obj(g, "tasks", "scale", "alternatives", 0, "ports"), "y") }),
		path: "$.tasks.scale.alternatives[0].ports", code: jsonv.Missing, msg: "does not realize port y"},
	{name: "zero size", data: mutate(func(g map[string]any) { obj(g, "sizes")["N"] = 0 }),
		path: "$.sizes.N", code: jsonv.Range, msg: "must be positive"},
	{name: "direction word", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "ports", "x")["direction"] = "inout" }),
		path: "$.tasks.scale.ports.x.direction", code: jsonv.Invalid},
	{name: "bad space", data: mutate(func(g map[string]any) { obj(g, "spaces")["a"] = "(m:16, k:" }),
		path: "$.spaces.a", code: jsonv.Invalid, msg: "invalid space"},
	{name: "bad layout", data: mutate(func(g map[string]any) { obj(g, "layouts")["a_global"] = "global f16 elements: nonsense" }),
		path: "$.layouts.a_global", code: jsonv.Invalid, msg: "invalid storage layout"},
	{name: "version 2", data: mutate(func(g map[string]any) { g["version"] = 2 }),
		path: "$.version", code: jsonv.Invalid, msg: "unsupported version 2"},
	{name: "expression depth", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "scale", "alternatives", 0)["multiplicity"] = strings.Repeat("(", 40) + "M" + strings.Repeat(")", 40)
	}), path: "$.tasks.scale.alternatives[0].multiplicity", code: jsonv.Limit, msg: "nested deeper than 32"},
	{name: "distribution points", data: mutate(func(g map[string]any) {
		// Three of the largest distributions: 2^22 elements, 2^12
		// values on each of 2^10 threads, 2^23 points each; two are the
		// limit.
		for _, name := range []string{"big0", "big1", "big2"} {
			obj(g, "distributions")[name] = map[string]any{"blocked": map[string]any{"axes": []any{"m", "k"},
				"shape": []any{2048, 2048}, "size_per_thread": []any{1, 1}, "threads_per_warp": []any{1, 32},
				"warps_per_cta": []any{32, 1}, "order": []any{1, 0}}}
		}
	}), path: "$.distributions.big2", code: jsonv.Limit, msg: "tabulate more than 16777216 points"},
	{name: "file size", data: raw(small), limits: Limits{FileBytes: 100}, path: "$", code: jsonv.Limit, msg: "more than the limit of 100"},
	{name: "invocation count", data: raw(small), limits: Limits{Invocations: 4}, path: "$.invocations", code: jsonv.Limit,
		msg: "5 invocations, more than the limit of 4"},
	{name: "edge count", data: raw(small), limits: Limits{Edges: 3}, path: "$.edges", code: jsonv.Limit},
	{name: "JSON depth", data: raw(strings.Replace(small, `"name": "small"`, `"name": `+strings.Repeat("[", 70)+strings.Repeat("]", 70), 1)),
		path: "$", code: jsonv.Limit, msg: "nested deeper than 64 (the depth limit)"},
	{name: "unknown task", data: mutate(func(g map[string]any) { obj(g, "invocations", 3)["task"] = "mma2" }),
		path: "$.invocations[3].task", code: jsonv.UnknownName, msg: `unknown task "mma2"`},
	{name: "unknown space", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "ports", "x")["tile"] = "aa" }),
		path: "$.tasks.scale.ports.x.tile", code: jsonv.UnknownName, msg: `unknown space "aa"`},
	{name: "unknown distribution", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "alternatives", 0, "ports")["y"] = "rowz" }),
		path: "$.tasks.scale.alternatives[0].ports.y.distribution", code: jsonv.UnknownName},
	{name: "unknown feature", data: mutate(func(g map[string]any) { obj(g, "tasks", "mma", "alternatives", 0)["requires"] = []any{"tensor_cores"} }),
		path: "$.tasks.mma.alternatives[0].requires[0]", code: jsonv.UnknownName},
	{name: "unknown pin", data: mutate(func(g map[string]any) { obj(g, "invocations", 1)["pin"] = []any{"fragg"} }),
		path: "$.invocations[1].pin[0]", code: jsonv.UnknownName, msg: `task scale has no alternative "fragg" (it has rows, frag)`},
	{name: "unknown port on edge", data: mutate(func(g map[string]any) { obj(g, "edges", 1)["to"] = "mma.lhz" }),
		path: "$.edges[1].to", code: jsonv.UnknownName, msg: `task mma (invocation mma) has no port "lhz" (it has lhs, out, rhs)`},
	{name: "edge tile, the axes' names alone", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "ports", "x")["tile"] = "(m:16, j:16)" }),
		path: "$.edges[0]", code: CodeTileMismatch,
		msg: `producer tile (m:16, k:16) does not match consumer tile (m:16, j:16) (load_a.a → scale.x); the edge's "rename" maps the producer's axes to the consumer's: "rename": {"k": "j"}`},
	{name: "unknown measured", data: mutate(func(g map[string]any) { obj(g, "measured", "conversions", 0)["source"] = "colz" }),
		path: "$.measured.conversions[0].source", code: jsonv.UnknownName},
	{name: "unknown target", data: mutate(func(g map[string]any) { g["target"] = "h100" }),
		path: "$.target", code: jsonv.UnknownName},
	{name: "duplicate invocation", data: mutate(func(g map[string]any) { obj(g, "invocations", 1)["id"] = "load_a" }),
		path: "$.invocations[1].id", code: jsonv.DuplicateName, msg: "also invocations[0]"},
	{name: "duplicate alternative", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "alternatives", 1)["id"] = "rows" }),
		path: "$.tasks.scale.alternatives[1].id", code: jsonv.DuplicateName},
	{name: "invocation in two groups", data: mutate(func(g map[string]any) {
		g["groups"] = append(g["groups"].([]any), map[string]any{"id": "other", "invocations": []any{"mma"}})
	}), path: "$.groups[1].invocations[0]", code: jsonv.DuplicateName, msg: "also in group kernel"},
	{name: "edge from an input", data: mutate(func(g map[string]any) { obj(g, "edges", 0)["from"] = "scale.x"; obj(g, "edges", 0)["to"] = "mma.lhs" }),
		path: "$.edges[0].from", code: CodeDirection},
	{name: "port without direction", data: mutate(func(g map[string]any) { delete(obj(g, "tasks", "scale", "ports", "x"), "direction") }),
		path: "$.tasks.scale.ports.x", code: jsonv.Missing, msg: `missing "direction"`},
	{name: "distribution tile", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "scale", "alternatives", 1, "ports")["y"] = "mma.m16n8k16.b.f16"
	}), path: "$.tasks.scale.alternatives[1].ports.y", code: CodeTileMismatch,
		msg: "distribution mma.m16n8k16.b.f16 tile (k:16, n:8) does not match port tile (m:16, k:16)"},
	{name: "tile of no axes", data: mutate(func(g map[string]any) { obj(g, "spaces")["a"] = "()" }),
		path: "$.tasks.scale.ports.x.tile", code: jsonv.Invalid, msg: "port x has a tile of no axes (): a tile has at least one axis"},
	{name: "edge tile", data: mutate(func(g map[string]any) { obj(g, "edges", 1)["rename"] = map[string]any{"k": "n"} }),
		path: "$.edges[1]", code: CodeTileMismatch, msg: "renamed to (m:16, n:16)"},
	{name: "renamed to no name", data: mutate(func(g map[string]any) { obj(g, "edges", 1)["rename"] = map[string]any{"k": "a b"} }),
		path: "$.edges[1].rename.k", code: jsonv.Invalid, msg: `axis k renamed to "a b", not an axis name`},
	// An unknown alternative does not hide the unknown invocation beside it.
	{name: "measured invocation unknown too", data: mutate(func(g map[string]any) {
		obj(g, "measured")["alternatives"] = []any{map[string]any{"task": "scale", "alternative": "zz", "invocation": "qq", "ns": 1}}
	}), path: "$.measured.alternatives[0].invocation", code: jsonv.UnknownName, msg: `unknown invocation "qq"`},
	{name: "edge element", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "ports", "y")["element"] = "bf16" }),
		path: "$.edges[1]", code: CodeElementMismatch, msg: "producer element bf16 does not match consumer element f16"},
	{name: "layout element", data: mutate(func(g map[string]any) { obj(g, "tasks", "load_a", "ports", "src")["element"] = "f32" }),
		path: "$.tasks.load_a.alternatives[0].ports.src", code: CodeElementMismatch, msg: "layout a_global element f16 does not match port element f32"},
	{name: "layout over an invalid index map", data: mutate(func(g map[string]any) {
		g["index_maps"] = map[string]any{"a_rows": "logical(m:16, k:16) -> physical(addr:4096) = (m * 8 + k)"}
		obj(g, "layouts")["a_global"] = "global f16 elements align 16: a_rows"
	}), path: "$.layouts.a_global", code: jsonv.Invalid, msg: "invalid storage layout: its index map a_rows is invalid (at $.index_maps.a_rows)"},
	{name: "layout tile", data: mutate(func(g map[string]any) { obj(g, "tasks", "load_a", "ports", "src")["tile"] = "(m:16, k:8)" }),
		path: "$.tasks.load_a.alternatives[0].ports.src", code: CodeTileMismatch, msg: "layout a_global tile (m:16, k:16) does not match port tile (m:16, k:8)"},
	{name: "memory port with a distribution", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "load_a", "alternatives", 0, "ports")["src"] = "rows"
	}), path: "$.tasks.load_a.alternatives[0].ports.src", code: CodeBinding, msg: "needs a global layout"},
	{name: "compute task with a memory port", data: mutate(func(g map[string]any) { obj(g, "tasks", "load_a")["kind"] = "compute" }),
		path: "$.tasks.load_a.kind", code: CodeBinding},
	{name: "cycle", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "scale", "ports")["z"] = map[string]any{"direction": "in", "tile": "c", "element": "f32"}
		for _, a := range at(g, "tasks", "scale", "alternatives").([]any) {
			obj(a, "ports")["z"] = "mma.m16n8k16.c.f32"
		}
		g["edges"] = append(g["edges"].([]any), map[string]any{"from": "mma.out", "to": "scale.z"})
	}), path: "$.edges[1]", code: CodeCycle, msg: "cycle: scale → mma → scale"},
	{name: "self loop", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "scale", "ports")["z"] = map[string]any{"direction": "in", "tile": "a", "element": "f16"}
		for _, a := range at(g, "tasks", "scale", "alternatives").([]any) {
			obj(a, "ports")["z"] = "rows"
		}
		g["edges"] = append(g["edges"].([]any), map[string]any{"from": "scale.y", "to": "scale.z"})
	}), path: "$.edges[4]", code: CodeCycle, msg: "cycle: scale → scale"},
	{name: "fed twice", data: mutate(func(g map[string]any) {
		g["edges"] = append(g["edges"].([]any), map[string]any{"from": "load_a.a", "to": "mma.lhs"})
	}), path: "$.edges[4].to", code: CodeFedTwice, msg: "already fed by edges[1]"},
	{name: "unconsumed", data: mutate(func(g map[string]any) {
		g["edges"] = at(g, "edges").([]any)[:3]
		g["invocations"] = at(g, "invocations").([]any)[:4]
	}), path: "$.invocations[3]", code: CodeUnconsumed, msg: "output mma.out is consumed by no edge", warning: true},
	{name: "unused size", data: mutate(func(g map[string]any) { obj(g, "sizes")["Q"] = 8 }),
		path: "$.sizes.Q", code: CodeUnusedSize, msg: "size Q is used by no task's multiplicity", warning: true},
	{name: "unused invocation size", data: mutate(func(g map[string]any) { obj(g, "invocations", 1)["sizes"] = map[string]any{"N": 32} }),
		path: "$.invocations[1].sizes.N", code: CodeUnusedSize, msg: "size N is used by no multiplicity of task scale", warning: true},
	{name: "tile count", data: mutate(func(g map[string]any) {
		// The accumulator's output left at the alternative's multiplicity:
		// once per K step.
		delete(obj(g, "tasks", "mma", "alternatives", 0, "ports", "out"), "multiplicity")
	}), path: "$.edges[3]", code: CodeTileCount, msg: "mma.out emits at least 2048 tiles and store.c reads at most 128", warning: true},
	{name: "lone loop", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "load_a", "alternatives", 0, "ports")["a"] = map[string]any{"distribution": "rows", "loop": "k"}
	}), path: "$.tasks.load_a.alternatives[0].ports.a.loop", code: CodeLoop, msg: `loop "k" is named by this port only`, warning: true},
	{name: "unfed", data: mutate(func(g map[string]any) {
		g["edges"] = at(g, "edges").([]any)[1:]
		g["invocations"] = at(g, "invocations").([]any)[1:]
	}), path: "$.invocations[0]", code: CodeUnfed, msg: "input scale.x is fed by no edge", warning: true},
	{name: "invalid distribution", data: mutate(func(g map[string]any) { obj(g, "distributions", "rows", "blocked")["threads_per_warp"] = []any{16, 3} }),
		path: "$.distributions.rows.blocked.threads_per_warp[1]", code: jsonv.Invalid, msg: "not a positive power of two"},
	{name: "nil distribution from Go", build: func() (*Graph, error) {
		b := NewBuilder("g", "h200").Distribution("rows", nil)
		b.Task("t").Out("y", "(m:16, k:16)", storage.F16).Alternative("a").Dist("y", "rows", "").CostNS(1)
		b.Invoke("t", "t")
		return b.Build()
	}, path: "$.distributions.rows", code: CodeDistribution, msg: "is nil"},
	{name: "distribution retyped to an invalid element", build: func() (*Graph, error) {
		b := NewBuilder("g", "h200")
		b.Task("t").Out("y", "(m:16, k:16)", storage.ElementType(200)).Alternative("a").Dist("y", "mma.m16n8k16.a.f16", "").CostNS(1)
		b.Invoke("t", "t")
		return b.Build()
	}, path: "$.tasks.t.ports.y.element", code: jsonv.Invalid},
	{name: "more registers than a thread has", build: func() (*Graph, error) {
		d, err := distribution.NewBlocked(distribution.Blocked{Name: "tall", Axes: []string{"m", "n"}, Shape: []int{128, 64},
			SizePerThread: []int{128, 2}, ThreadsPerWarp: []int{1, 32}, WarpsPerCTA: []int{1, 1}, Order: []int{1, 0}})
		if err != nil {
			return nil, err
		}
		b := NewBuilder("g", "h200")
		b.Task("t").Out("y", "(m:128, n:64)", storage.F32).Alternative("a").InlineDist("y", d, "").CostNS(1)
		b.Invoke("t", "t")
		return b.Build()
	}, path: "$.tasks.t.alternatives[0].ports.y", code: jsonv.Range, msg: "holds 256 values of f32 per thread, 256 registers: a thread has at most 255"},
	{name: "more registers than a block has", build: func() (*Graph, error) {
		// b1 values pack 32 to a register: 4,096 a thread are 128
		// registers, within a thread's 255, but 1,024 threads hold
		// 131,072.
		d, err := distribution.NewBlocked(distribution.Blocked{Name: "wide", Axes: []string{"m", "k"}, Shape: []int{2048, 2048},
			SizePerThread: []int{1, 1}, ThreadsPerWarp: []int{1, 32}, WarpsPerCTA: []int{32, 1}, Order: []int{1, 0}})
		if err != nil {
			return nil, err
		}
		b := NewBuilder("g", "h200")
		b.Task("t").Out("y", "(m:2048, k:2048)", storage.B1).Alternative("a").InlineDist("y", d, "").CostNS(1)
		b.Invoke("t", "t")
		return b.Build()
	}, path: "$.tasks.t.alternatives[0].ports.y", code: jsonv.Range, msg: "holds 128 registers per thread over 1024 threads of a block, 131072 in all: a block has at most 65536"},
	{name: "more registers than the largest cluster has", build: func() (*Graph, error) {
		// 32 registers a lane, 32 lanes a block: within both limits
		// above, but 2,048 blocks hold 2,097,152.
		d, err := distribution.New(distribution.Spec{Name: "grid",
			Executors: []distribution.ExecutorAxis{{Name: "block", Size: 2048, Level: distribution.LevelBlock}, {Name: "lane", Size: 32, Level: distribution.LevelLane}},
			Locals:    []distribution.Axis{{Name: "v", Size: 32}},
			Tile:      []distribution.Axis{{Name: "b", Size: 2048}, {Name: "x", Size: 32}, {Name: "y", Size: 32}},
			Ownership: []string{"block", "lane", "v"}})
		if err != nil {
			return nil, err
		}
		b := NewBuilder("g", "h200")
		b.Task("t").Out("y", "(b:2048, x:32, y:32)", storage.F32).Alternative("a").InlineDist("y", d, "").CostNS(1)
		b.Invoke("t", "t")
		return b.Build()
	}, path: "$.tasks.t.alternatives[0].ports.y", code: jsonv.Range, msg: "holds 32 registers over its 65536 threads in 2048 blocks, 2097152 in all: one invocation's tile holds at most 1048576"},
	{name: "unrunnable", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "mma", "alternatives", 0, "resources")["shared_memory_bytes"] = 300000
	}), path: "$.tasks.mma.alternatives[0]", code: CodeUnrunnable,
		msg: "no target can run alternative sync: needs 300000 bytes of shared memory, h200 allows 232448 per block, sm80 allows 166912 per block, sm90 allows 232448 per block"},
	{name: "unrunnable on the graph's target", data: mutate(func(g map[string]any) {
		g["target"] = "sm80"
		obj(g, "tasks", "mma", "alternatives", 0)["requires"] = []any{"wgmma"}
	}), path: "$.invocations[3]", code: CodeUnrunnable, msg: "runs on target sm80", warning: true},
	{name: "unknown size", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "alternatives", 0)["multiplicity"] = "M/16 * Q" }),
		path: "$.tasks.scale.alternatives[0].multiplicity", code: CodeMultiplicity, msg: `unknown size "Q"`},
	{name: "zero multiplicity", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "alternatives", 0)["multiplicity"] = "N / 128" }),
		path: "$.invocations[1]", code: CodeMultiplicity, msg: `"N / 128" is 0`},
	{name: "division by zero", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "alternatives", 0)["multiplicity"] = "M / (N - 64)" }),
		path: "$.invocations[1]", code: CodeMultiplicity, msg: "divides by zero"},
	{name: "syntax of a multiplicity", data: mutate(func(g map[string]any) { obj(g, "tasks", "scale", "alternatives", 0)["multiplicity"] = "M/ * 2" }),
		path: "$.tasks.scale.alternatives[0].multiplicity", code: CodeMultiplicity, msg: "offset 3"},
	{name: "multiplicity overflow", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "scale", "alternatives", 0)["multiplicity"] = "M * M * M * M * M * M * M * M"
	}), path: "$.invocations[1]", code: CodeOverflow, msg: "overflows int64"},
	{name: "size overflow", data: mutate(func(g map[string]any) { obj(g, "sizes")["M"] = json.Number("9223372036854775807") }),
		path: "$.sizes.M", code: CodeOverflow, msg: "exceeds the largest size"},
	{name: "pinned and forbidden", data: mutate(func(g map[string]any) {
		obj(g, "invocations", 1)["pin"] = []any{"rows"}
		obj(g, "invocations", 1)["forbid"] = []any{"rows"}
	}), path: "$.invocations[1].forbid[0]", code: CodePin},
	{name: "an empty pin", data: mutate(func(g map[string]any) { obj(g, "invocations", 1)["pin"] = []any{} }),
		path: "$.invocations[1].pin", code: CodePin, msg: "an empty pin leaves no alternative"},
	{name: "pinned twice", data: mutate(func(g map[string]any) { obj(g, "invocations", 1)["pin"] = []any{"rows", "frag", "rows"} }),
		path: "$.invocations[1].pin[2]", code: jsonv.DuplicateName, msg: "alternative rows is pinned twice"},
	{name: "forbidden twice", data: mutate(func(g map[string]any) { obj(g, "invocations", 1)["forbid"] = []any{"rows", "rows"} }),
		path: "$.invocations[1].forbid[1]", code: jsonv.DuplicateName, msg: "alternative rows is forbidden twice"},
	{name: "everything forbidden", data: mutate(func(g map[string]any) { obj(g, "invocations", 1)["forbid"] = []any{"rows", "frag"} }),
		path: "$.invocations[1]", code: CodePin, msg: "no alternative of scale"},
	{name: "threads beyond the block", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "mma", "alternatives", 0, "resources")["threads_per_block"] = 16
	}), path: "$.tasks.mma.alternatives[0].ports.lhs", code: CodeResources, msg: "spans 32 threads of a block, the alternative declares 16"},
	{name: "group crossed by must_cross", data: mutate(func(g map[string]any) { obj(g, "edges", 1)["kernel"] = "must_cross" }),
		path: "$.edges[1].kernel", code: CodeKernel, msg: "fused in group kernel"},
	{name: "shared memory no choice fits", data: mutate(func(g map[string]any) { obj(g, "groups", 0)["shared_memory_bytes"] = 1000 }),
		path: "$.groups[0].shared_memory_bytes", code: CodeBudget, warning: true,
		msg: "group kernel take at least 1024 bytes of shared memory whichever alternatives run (mma 1024), over its budget of 1000: no plan fits"},
	{name: "unused measurement", data: mutate(func(g map[string]any) { obj(g, "measured", "conversions", 0)["rename"] = "m=k" }),
		path: "$.measured.conversions[0]", code: CodeUnusedMeasured, warning: true, msg: "the measurement is never used"},
	{name: "measured on another target", data: mutate(func(g map[string]any) { obj(g, "measured")["target"] = "sm80" }),
		path: "$.measured.target", code: CodeMeasuredTarget, warning: true, msg: "the costs were measured on sm80, the graph's target is h200"},
	{name: "parallel path crosses a kernel", data: mutate(diamond(func(g map[string]any) { obj(g, "edges", 0)["kernel"] = "must_cross" })),
		path: "$.edges[5]", code: CodeKernelPath, warning: true, msg: "the path through load_a.a -> scale.x crosses one, so load_a's kernel runs before join's"},
	{name: "shared memory over the target's", data: mutate(func(g map[string]any) { obj(g, "groups", 0)["shared_memory_bytes"] = 300000 }),
		path: "$.groups[0].shared_memory_bytes", code: CodeBudget, warning: true,
		msg: "group kernel's budget of 300000 bytes of shared memory is more than a block has on h200 (232448 bytes)"},
	{name: "registers no alternative fits", data: mutate(func(g map[string]any) { obj(g, "groups", 0)["registers_per_thread"] = 32 }),
		path: "$.groups[0].registers_per_thread", code: CodeBudget, warning: true,
		msg: "invocation mma needs at least 64 registers per thread whichever alternative runs, over group kernel's budget of 32"},
	// load_a, in no group, converting into scale's rows inside the
	// kernel: its scratch would be outside the group's budget. (As
	// written, load_a's rows feed scale's rows: no conversion, no
	// warning.)
	{name: "outside the group's budget", data: mutate(func(g map[string]any) {
		obj(g, "tasks", "load_a", "alternatives", 0, "ports")["a"] = "mma.m16n8k16.a.f16"
	}), path: "$.groups[0]", code: CodeOutsideBudget, warning: true,
		msg: "invocation load_a is in no group, but the plan may keep it in group kernel's kernel (through load_a.a -> scale.x, inside one kernel): kernel's shared-memory budget counts neither its shared memory nor the scratch of its conversions there"},
	// mma, in no group, between the groups of scale and store: kept
	// inside one kernel on both sides it makes them one kernel.
	{name: "two groups joined", data: mutate(func(g map[string]any) {
		g["groups"] = []any{map[string]any{"id": "kernel", "invocations": []any{"scale"}},
			map[string]any{"id": "epilogue", "invocations": []any{"store"}}}
	}), path: "$.groups[0]", code: CodeGroupBridge, warning: true,
		msg: "groups kernel and epilogue are two kernels, but invocations in no group join them (scale.y -> mma.lhs, mma.out -> store.c)"},
}

func TestErrorCodes(t *testing.T) {
	for _, tc := range codeCases {
		t.Run(tc.name, func(t *testing.T) {
			var g *Graph
			var err error
			if tc.build != nil {
				g, err = tc.build()
			} else {
				g, err = tc.limits.Load(tc.data(t))
			}
			var ps jsonv.Problems
			if err != nil {
				ps = problemsOf(t, err)
			} else {
				ps = g.Warnings()
			}
			found := slices.ContainsFunc(ps, func(p *jsonv.Problem) bool {
				return p.Path.String() == tc.path && p.Code == tc.code && strings.Contains(p.Msg, tc.msg) && p.Warning == tc.warning
			})
			if !found {
				t.Fatalf("want %s [%s] %q (warning %v), have:%s", tc.path, tc.code, tc.msg, tc.warning, describeProblems(ps))
			}
			if tc.warning != (err == nil) {
				t.Errorf("warning case %v, but Load's error is %v", tc.warning, err)
			}
			if !slices.IsSortedFunc(ps, compareProblems) {
				t.Errorf("problems not sorted:%s", describeProblems(ps))
			}
		})
	}
}

func compareProblems(a, b *jsonv.Problem) int {
	if c := a.Path.Compare(b.Path); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Code), string(b.Code)); c != 0 {
		return c
	}
	return strings.Compare(a.Msg, b.Msg)
}

// TestEveryCodeTested checks that every problem code has a case.
func TestEveryCodeTested(t *testing.T) {
	codes := []jsonv.Code{jsonv.Syntax, jsonv.Type, jsonv.UnknownField, jsonv.DuplicateKey, jsonv.Missing,
		jsonv.Range, jsonv.Invalid, jsonv.Limit, jsonv.UnknownName, jsonv.DuplicateName}
	codes = append(codes, Codes()...)
	for _, c := range codes {
		if !slices.ContainsFunc(codeCases, func(tc codeCase) bool { return tc.code == c }) {
			t.Errorf("no test case for code %s", c)
		}
	}
}

// TestFormatDocCodes checks that the table of problem codes in
// docs/format.md lists every code a task graph's problems can carry (jsonv's,
// this package's, and a tabulated distribution's), and no other.
func TestFormatDocCodes(t *testing.T) {
	doc, err := os.ReadFile("../docs/format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := bytes.Cut(doc, []byte("| code | what |\n"))
	if !ok {
		t.Fatal("docs/format.md has no table of problem codes")
	}
	table, _, _ = bytes.Cut(table, []byte("\n\n"))
	var documented []jsonv.Code
	for _, line := range strings.Split(string(table), "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			code, _, _ := strings.Cut(rest, "`")
			documented = append(documented, jsonv.Code(code))
		}
	}
	codes := []jsonv.Code{jsonv.Syntax, jsonv.Type, jsonv.UnknownField, jsonv.DuplicateKey, jsonv.Missing,
		jsonv.Range, jsonv.Invalid, jsonv.Limit, jsonv.UnknownName, jsonv.DuplicateName, distribution.CodeTable}
	codes = append(codes, Codes()...)
	for _, c := range codes {
		if !slices.Contains(documented, c) {
			t.Errorf("docs/format.md does not list the code %s", c)
		}
	}
	for _, c := range documented {
		if !slices.Contains(codes, c) {
			t.Errorf("docs/format.md lists the code %s, which no problem carries (or Codes() lacks it)", c)
		}
	}
}

// TestAllProblemsReported breaks the graph in several independent places and
// checks that each is reported, in sorted order.
func TestAllProblemsReported(t *testing.T) {
	data := edit(t, func(g map[string]any) {
		obj(g, "invocations", 3)["task"] = "mma2"
		obj(g, "sizes")["N"] = 0
		obj(g, "edges", 0)["colour"] = "red"
		obj(g, "tasks", "scale", "alternatives", 1, "ports")["y"] = "mma.m16n8k16.b.f16"
	})
	_, err := Load(data)
	ps := problemsOf(t, err)
	var got []string
	for _, p := range ps {
		got = append(got, p.Path.String()+" "+string(p.Code))
	}
	want := []string{
		"$.edges[0].colour unknown_field",
		"$.invocations[3].task unknown_name",
		"$.sizes.N range",
		"$.tasks.scale.alternatives[1].ports.y tile_mismatch",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s in%s", w, describeProblems(ps))
		}
	}
	if !slices.IsSortedFunc(ps, compareProblems) {
		t.Errorf("not sorted:%s", describeProblems(ps))
	}
}

// TestProblemsOnce: a problem is reported once, where it is: a custom
// target's missing name and unknown field not again by the cost model's
// decoder, and a port's bad element type not again on its edges.
func TestProblemsOnce(t *testing.T) {
	base, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, from, to string
		want           []string
	}{
		{"custom target", `"target": "h200"`, `"target": {"base": "h200"}`,
			[]string{"$.target missing", "$.target missing", "$.target.base unknown_field"}},
		{"bad element", `"a": {"direction": "out", "tile": "a_tile", "element": "f16"}`, `"a": {"direction": "out", "tile": "a_tile", "element": "f17"}`,
			[]string{"$.tasks.dequantize.ports.a.element invalid"}},
	} {
		data := bytes.Replace(base, []byte(c.from), []byte(c.to), 1)
		if bytes.Equal(data, base) {
			t.Fatalf("%s: %q not in the example", c.name, c.from)
		}
		_, err := Load(data)
		var got []string
		for _, p := range problemsOf(t, err) {
			got = append(got, p.Path.String()+" "+string(p.Code))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: problems %q, want %q\n%v", c.name, got, c.want, err)
		}
	}
}

// TestDuplicateInvocationAlone: an invocation whose id an earlier one has
// is reported once, as that; the edges that name the id are the earlier
// one's, and the duplicate's ports, fed and consumed by none, are not
// warned of besides.
func TestDuplicateInvocationAlone(t *testing.T) {
	data := edit(t, func(g map[string]any) {
		invs := g["invocations"].([]any)
		g["invocations"] = append(invs, maps.Clone(invs[1].(map[string]any)))
	})
	_, err := Load(data)
	var got []string
	for _, p := range problemsOf(t, err) {
		got = append(got, p.Path.String()+" "+string(p.Code))
	}
	if want := []string{"$.invocations[5].id duplicate_name"}; !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q\n%v", got, want, err)
	}
}

// TestLoneLoop: a loop name only one port uses is warned of (a misspelt
// loop rules fusions out silently), naming the loops the graph has.
func TestLoneLoop(t *testing.T) {
	base, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Load(base)
	if err != nil || len(g.Warnings()) > 0 {
		t.Fatalf("the example: %v, warnings %v", err, g.Warnings())
	}
	data := bytes.Replace(base, []byte(`"loop": "dequant"`), []byte(`"loop": "dequnt"`), 1)
	g, err = Load(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range g.Warnings() {
		got = append(got, p.Path.String()+" "+string(p.Code)+": "+p.Msg)
	}
	// "dequant" had two ports: both are alone now.
	want := []string{
		`$.tasks.dequantize.alternatives[2].ports.w.loop loop: loop "dequant" is named by this port only: inside a kernel it meets no other port's loop; the others are "dequnt", "gemm"`,
		`$.tasks.load_w.alternatives[1].ports.w.loop loop: loop "dequnt" is named by this port only: inside a kernel it meets no other port's loop; the others are "dequant", "gemm"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// diamond adds to small an invocation join fed by scale.y and by load_a.a
// (edges[4] and [5]), a second path from load_a to join beside load_a →
// scale → join, then makes change.
func diamond(change func(g map[string]any)) func(g map[string]any) {
	return func(g map[string]any) {
		obj(g, "tasks")["join"] = map[string]any{
			"ports": map[string]any{"x": map[string]any{"direction": "in", "tile": "a", "element": "f16"},
				"y": map[string]any{"direction": "in", "tile": "a", "element": "f16"}},
			"alternatives": []any{map[string]any{"id": "r", "ports": map[string]any{"x": "rows", "y": "rows"},
				"cost": map[string]any{"ns": 1}, "multiplicity": "M/16 * K/16"}}}
		g["invocations"] = append(g["invocations"].([]any), map[string]any{"id": "join", "task": "join"})
		g["edges"] = append(g["edges"].([]any), map[string]any{"from": "scale.y", "to": "join.x"},
			map[string]any{"from": "load_a.a", "to": "join.y"})
		change(g)
	}
}

// An edge parallel to a path that crosses a kernel boundary in every plan
// must cross too; inside one group it is a problem, and a crossing that a
// plan may choose implies nothing.
func TestKernelPaths(t *testing.T) {
	load := func(change func(g map[string]any)) (*Graph, error) {
		t.Helper()
		return Load(edit(t, diamond(change)))
	}
	// load_a ⇝ scale ⇝ join crosses at load_a → scale: load_a → join must.
	g, err := load(func(g map[string]any) { obj(g, "edges", 0)["kernel"] = "must_cross" })
	if err != nil {
		t.Fatal(err)
	}
	e := g.Edges()[5]
	if !e.MustCross() || e.CrossedOnPath() != g.Edges()[0] {
		t.Errorf("load_a.a -> join.y: must cross %v, crossed on %v; want it crossed on load_a.a -> scale.x", e.MustCross(), e.CrossedOnPath())
	}
	if e := g.Edges()[4]; e.MustCross() {
		t.Errorf("scale.y -> join.x must cross, with nothing on a parallel path")
	}
	// The same when every alternative of scale writes its tile to global
	// memory: scale → join crosses in every plan.
	g, err = load(func(g map[string]any) {
		for _, a := range obj(g, "tasks", "scale")["alternatives"].([]any) {
			a.(map[string]any)["ports"].(map[string]any)["y"] = map[string]any{"layout": "a_global"}
		}
		g["groups"] = []any{}
		obj(g, "edges", 1)["to"] = "join.x"
		g["edges"] = append(g["edges"].([]any)[:4:4], g["edges"].([]any)[5])
		obj(g, "edges", 1)["to"] = "join.x"
	})
	if err != nil {
		t.Fatal(err)
	}
	var crossed []string
	for _, e := range g.Edges() {
		if e.CrossedOnPath() != nil {
			crossed = append(crossed, edgeText(e)+" via "+edgeText(e.CrossedOnPath()))
		}
	}
	if want := []string{"load_a.a -> join.y via scale.y -> join.x"}; !slices.Equal(crossed, want) {
		t.Errorf("crossed on paths %q, want %q", crossed, want)
	}
	// A crossing a plan may choose (scale's rows alternative keeps its tile
	// in registers) implies nothing.
	g, err = load(func(g map[string]any) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range g.Edges() {
		if e.CrossedOnPath() != nil {
			t.Errorf("%s crossed on %s, with no edge that crosses in every plan", edgeText(e), edgeText(e.CrossedOnPath()))
		}
	}
	// Inside one group: the group would be left and entered again.
	_, err = load(func(g map[string]any) {
		obj(g, "edges", 0)["kernel"] = "must_cross"
		g["groups"] = []any{map[string]any{"id": "k2", "invocations": []any{"load_a", "join"}}}
	})
	var ps jsonv.Problems
	if !errors.As(err, &ps) || len(ps.Errors()) != 1 || ps.Errors()[0].Code != CodeKernel || ps.Errors()[0].Path.String() != "$.edges[5]" ||
		!strings.Contains(ps.Errors()[0].Msg, "fused in group k2, but a path between them crosses a kernel boundary at load_a.a -> scale.x") {
		t.Errorf("a group left and entered again: %v", err)
	}
}

// A message naming what a list lacks says "none" of an empty list: a task
// without ports gave "has no port "x" (it has )".
func TestListNamesOfNone(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{{nil, "none"}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a, b"}} {
		if got := listNames(c.names); got != c.want {
			t.Errorf("listNames(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

// TestWarningsBesideDecodingErrors: a file whose only errors are unknown
// fields, which decoding ignores, still gets its graph's warnings; one with
// a value that failed to decode does not, as the graph then warns of what
// it dropped.
func TestWarningsBesideDecodingErrors(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/fanout.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		edit  func(spec map[string]any)
		want  jsonv.Code // a warning's code that must be said
		never jsonv.Code // one that must not
	}{
		{"an unknown field beside an unused size", func(spec map[string]any) {
			spec["sizes"].(map[string]any)["Q"] = 3
			spec["bogus"] = 1
		}, CodeUnusedSize, ""},
		{"an edge's from a number", func(spec map[string]any) {
			spec["edges"].([]any)[0].(map[string]any)["from"] = 5
		}, "", CodeUnconsumed},
		{"an edge a number", func(spec map[string]any) {
			spec["edges"].([]any)[0] = 7
		}, "", CodeUnconsumed},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(editJSON(t, data, c.edit))
			var ps jsonv.Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Load: %v, want problems", err)
			}
			if len(ps.Errors()) != 1 {
				t.Errorf("errors %v, want the one decoding error", ps.Errors())
			}
			found := false
			for _, p := range ps.Warnings() {
				found = found || p.Code == c.want
				if p.Code == c.never {
					t.Errorf("%s: %s [%s], of what decoding dropped", p.Path, p.Msg, p.Code)
				}
			}
			if c.want != "" && !found {
				t.Errorf("warnings %v, want one [%s]", ps.Warnings(), c.want)
			}
		})
	}
}

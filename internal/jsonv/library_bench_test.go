package jsonv

import (
	stdjson "encoding/json"
	"testing"

	gojson "github.com/goccy/go-json"
)

// The module marshals with one JSON library. These benchmarks measured the
// choice (docs/benchmarks.md, "JSON library"): decoding the same document
// into a generic tree, and marshalling a plan-like value, with
// encoding/json and github.com/goccy/go-json.

func BenchmarkDecodeAny(b *testing.B) {
	doc := benchDocument()
	b.Run("lib=jsonv", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if _, err := Parse(doc, Limits{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lib=encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			var v any
			if err := stdjson.Unmarshal(doc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lib=goccy-go-json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			var v any
			if err := gojson.Unmarshal(doc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type benchChoice struct {
	Invocation  string   `json:"invocation"`
	Alternative string   `json:"alternative"`
	CostNS      float64  `json:"cost_ns"`
	Rejected    []string `json:"rejected"`
}

type benchPlan struct {
	Status      string        `json:"status"`
	ObjectiveNS float64       `json:"objective_ns"`
	Choices     []benchChoice `json:"choices"`
}

func BenchmarkMarshalPlan(b *testing.B) {
	plan := benchPlan{Status: "optimal", ObjectiveNS: 12345.5}
	for i := range 10000 {
		plan.Choices = append(plan.Choices, benchChoice{Invocation: "inv", Alternative: "mma.m16n8k16", CostNS: float64(i) * 1.25, Rejected: []string{"a", "b", "c"}})
	}
	b.Run("lib=encoding-json", func(b *testing.B) {
		for b.Loop() {
			if _, err := stdjson.Marshal(plan); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lib=goccy-go-json", func(b *testing.B) {
		for b.Loop() {
			if _, err := gojson.Marshal(plan); err != nil {
				b.Fatal(err)
			}
		}
	})
}

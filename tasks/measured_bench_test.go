package tasks_test

import (
	"fmt"
	"testing"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// BenchmarkWithMeasured applies a costs file that re-measures every
// (invocation, alternative) of a transformer-like graph whose own measured
// table already holds each: the file's entries replace the graph's by key,
// in time linear in the two tables (it was their product: 98 ms at 8,016
// entries, 10.8 s at 80,016; docs/benchmarks.md).
func BenchmarkWithMeasured(b *testing.B) {
	for _, layers := range []int{100, 1000} {
		s, err := taskgen.Transformer(layers, 1)
		if err != nil {
			b.Fatal(err)
		}
		var m tasks.MeasuredSpec
		for _, inv := range s.Invocations {
			for _, a := range s.Tasks[inv.Task].Alternatives {
				e := tasks.MeasuredAlternative{Task: inv.Task, Alternative: a.ID, Invocation: inv.ID, NS: 5}
				s.Measured.Alternatives = append(s.Measured.Alternatives, e)
				e.NS = 7
				m.Alternatives = append(m.Alternatives, e)
			}
		}
		g, err := tasks.New(s)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("entries=%d", len(m.Alternatives)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.WithMeasured(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package planner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cklplan/cklplan/tasks"
)

// BenchmarkLocalChoiceSaving reports, for every bundled example and every
// generated family, what planning jointly saves over the local choice (each
// invocation's cheapest alternative, then the conversions its neighbours
// force): the metrics optimum-ns, local-ns, saving-ns and saving-% of the
// local choice, and gap-% (0 when the plan is proven optimal). Where a
// solve stops at its time limit the optimum is the best plan found, so the
// saving is a lower bound on the joint optimum's.
//
//	go test ./planner -run '^$' -bench LocalChoiceSaving -benchtime 1x
func BenchmarkLocalChoiceSaving(b *testing.B) {
	type graph struct {
		name  string
		g     *tasks.Graph
		limit time.Duration
	}
	var graphs []graph
	files, err := filepath.Glob("../examples/graphs/*.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		g, err := tasks.Load(data)
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		graphs = append(graphs, graph{name: "example=" + name, g: g})
		measured := filepath.Join("../examples/measured", filepath.Base(f))
		if mdata, err := os.ReadFile(measured); err == nil {
			m, err := tasks.DecodeMeasured(mdata)
			if err != nil {
				b.Fatalf("%s: %v", measured, err)
			}
			gm, err := g.WithMeasured(m)
			if err != nil {
				b.Fatalf("%s: %v", measured, err)
			}
			graphs = append(graphs, graph{name: "example=" + name + "+measured", g: gm})
		}
	}
	for _, c := range []struct {
		family string
		n      int
		limit  time.Duration
	}{
		{"transformer", 1000, 0}, {"transformer", 10000, 0}, {"tree", 1000, 0}, {"tree", 10000, 0},
		{"dag", 40, 60 * time.Second}, {"dag", 1000, 60 * time.Second},
	} {
		g, err := tasks.Limits{FileBytes: 1 << 30, Invocations: 1 << 20, Edges: 1 << 21}.Load(benchGraph(b, c.family, c.n))
		if err != nil {
			b.Fatal(err)
		}
		graphs = append(graphs, graph{name: c.family + "/invocations=" + strconv.Itoa(c.n), g: g, limit: c.limit})
	}
	for _, gr := range graphs {
		b.Run(gr.name, func(b *testing.B) {
			var r *Result
			for b.Loop() {
				var err error
				r, err = Plan(context.Background(), gr.g, PlanOptions{Solve: Options{NoRegrets: true, TimeLimit: gr.limit}})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(r.ObjectiveNS, "optimum-ns")
			b.ReportMetric(100*r.Gap, "gap-%")
			if r.LocalChoiceNS == nil || r.SavingNS == nil {
				// The local choice breaks a budget or a forbidden
				// conversion: there is no cost to compare with.
				b.ReportMetric(float64(len(r.LocalChoiceViolations)), "local-violations")
				return
			}
			b.ReportMetric(*r.LocalChoiceNS, "local-ns")
			b.ReportMetric(*r.SavingNS, "saving-ns")
			b.ReportMetric(100**r.SavingNS / *r.LocalChoiceNS, "saving-%")
		})
	}
}

package planner

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/cklplan/cklplan/tasks"
)

// A conversion over MaxCostNS is refused naming the figures it comes from,
// which multiply to the cost it states: the cost a tile and SM, the tiles
// moved and the SMs that divide them. Here nothing executes for anything
// (0 ns a tile), but 2^62 − 1 tiles of mma's A fragment go to a row-blocked
// distribution inside one kernel.
func TestConversionCostLimitMessage(t *testing.T) {
	g, err := tasks.Load([]byte(`{"version": 1, "name": "many", "target": "h200", "sizes": {"M": 4611686018427387903},
  "spaces": {"t": "(m:16, k:16)"},
  "distributions": {"rows": {"blocked": {"axes": ["m", "k"], "shape": [16, 16],
    "size_per_thread": [1, 8], "threads_per_warp": [16, 2], "warps_per_cta": [1, 1], "order": [1, 0]}}},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 0}, "multiplicity": "M"}]},
    "c": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x": "rows"}, "cost": {"ns": 0}, "multiplicity": "M"}]}
  },
  "invocations": [{"id": "p", "task": "p"}, {"id": "c", "task": "c"}],
  "edges": [{"from": "p.y", "to": "c.x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Plan(context.Background(), g, PlanOptions{})
	if err == nil {
		t.Fatal("Plan took a conversion of 2^62 − 1 tiles")
	}
	m := regexp.MustCompile(`^planner: boundaries of p\.y: converting mma\.m16n8k16\.a\.f16 to rows costs (\S+) ns \((\S+) ns a tile and SM × (\d+) tiles / (\d+) SMs\), over the planner's limit of 1e\+15 ns$`).
		FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("Plan: %v", err)
	}
	var f [4]float64
	for i := range f {
		if f[i], err = strconv.ParseFloat(m[i+1], 64); err != nil {
			t.Fatal(err)
		}
	}
	if f[2] != 4611686018427387903 || f[3] != 132 {
		t.Errorf("tiles %v, SMs %v: want 2^62 − 1 and 132", f[2], f[3])
	}
	// The figures are printed to 4 digits.
	if got := f[1] * f[2] / f[3]; math.Abs(got-f[0]) > 1e-3*f[0] {
		t.Errorf("%s: %v × %v / %v is %v, not the cost %v", err, f[1], f[2], f[3], got, f[0])
	}
}

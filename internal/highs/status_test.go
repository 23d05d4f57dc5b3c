package highs_test

import (
	json "github.com/goccy/go-json"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
)

func TestStatusText(t *testing.T) {
	tests := []struct {
		status      highs.Status
		text        string
		hasSolution bool
	}{
		{highs.Optimal, "optimal", true},
		{highs.TimeLimitFeasible, "time limit (feasible)", true},
		{highs.InterruptedFeasible, "interrupted (feasible)", true},
		{highs.IterationLimitFeasible, "iteration limit (feasible)", true},
		{highs.Infeasible, "infeasible", false},
		{highs.Unbounded, "unbounded", false},
		{highs.UnboundedOrInfeasible, "unbounded or infeasible", false},
		{highs.TimeLimitNoSolution, "time limit (no solution)", false},
		{highs.InterruptedNoSolution, "interrupted (no solution)", false},
		{highs.IterationLimitNoSolution, "iteration limit (no solution)", false},
		{highs.SolverError, "solver error", false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := tt.status.String(); got != tt.text {
				t.Errorf("String() = %q, want %q", got, tt.text)
			}
			if got := tt.status.HasSolution(); got != tt.hasSolution {
				t.Errorf("HasSolution() = %v, want %v", got, tt.hasSolution)
			}
			back, err := highs.ParseStatus(tt.text)
			if err != nil || back != tt.status {
				t.Errorf("ParseStatus(%q) = %v, %v", tt.text, back, err)
			}
			j, err := json.Marshal(struct{ S highs.Status }{tt.status})
			if err != nil {
				t.Fatal(err)
			}
			var v struct{ S highs.Status }
			if err := json.Unmarshal(j, &v); err != nil || v.S != tt.status {
				t.Errorf("JSON %s read back as %v, %v", j, v.S, err)
			}
		})
	}
	if _, err := highs.ParseStatus("optimal-ish"); err == nil || err.Error() != `highs: unknown status "optimal-ish"` {
		t.Errorf("ParseStatus of an unknown name: %v", err)
	}
	if got := highs.Status(42).String(); got != "Status(42)" {
		t.Errorf("String of an invalid status = %q", got)
	}
	if _, err := json.Marshal(highs.Status(-1)); err == nil {
		t.Error("an invalid status marshals")
	}
}

func FuzzParseStatus(f *testing.F) {
	for _, s := range []string{"optimal", "time limit (feasible)", "solver error", "", "Optimal", "interrupted"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := highs.ParseStatus(s)
		if err != nil {
			return
		}
		if st.String() != s {
			t.Fatalf("ParseStatus(%q) = %v, which prints as %q", s, st, st.String())
		}
	})
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
)

var doctorCommand = &opTable[noOperands, *noOperands]{
	name:    "doctor",
	summary: "check that HiGHS is found and solves a known MILP",
	about:   "Checks that HiGHS is found and solves a small MILP to its known optimum.\nExit status: 0 all is well, 1 HiGHS missing or wrong, 2 usage.\n",
	ops:     []*op[*noOperands]{{run: runDoctor}},
}

// A doctorResult is every HiGHS discovery step, the library found, its
// version and HighsInt size, and the check solve; Problem says what failed.
type doctorResult struct {
	Steps          []string     `json:"steps"`
	Library        string       `json:"library,omitempty"`
	Version        string       `json:"version,omitempty"`
	Tested         bool         `json:"tested_version"` // 1.15.x, the version the project tests
	SizeofHighsInt int          `json:"sizeof_highs_int,omitempty"`
	Check          *doctorSolve `json:"check,omitempty"`
	Problem        string       `json:"problem,omitempty"`
}

// A doctorSolve is the check solve: the knapsack, its optimum by
// enumeration, and what HiGHS returned.
type doctorSolve struct {
	Items     int     `json:"items"`
	Optimum   float64 `json:"optimum"`
	Choices   int     `json:"choices"`
	Status    string  `json:"status"`
	Objective float64 `json:"objective"`
	DualBound float64 `json:"dual_bound"`
	Nodes     int64   `json:"nodes"`
}

func (r *doctorResult) failure() error {
	if r.Problem != "" {
		return errors.New(r.Problem)
	}
	return nil
}

func (r *doctorResult) writeText(w io.Writer, _ string) error {
	fmt.Fprintln(w, "HiGHS search:")
	for i, s := range r.Steps {
		fmt.Fprintf(w, "  %d. %s\n", i+1, s)
	}
	if r.Library == "" {
		_, err := fmt.Fprintln(w, "HiGHS: not found")
		return err
	}
	fmt.Fprintf(w, "HiGHS library: %s\n", r.Library)
	if r.Tested {
		fmt.Fprintf(w, "HiGHS version: %s\n", r.Version)
	} else {
		fmt.Fprintf(w, "HiGHS version: %s (accepted; cklplan is tested with 1.15.x)\n", r.Version)
	}
	fmt.Fprintf(w, "HighsInt: %d bytes, as the binding assumes\n", r.SizeofHighsInt)
	c := r.Check
	if c == nil {
		return nil
	}
	fmt.Fprintf(w, "check MILP: 0/1 knapsack of %d items; optimum %g by enumerating %d choices\n", c.Items, c.Optimum, c.Choices)
	fmt.Fprintf(w, "HiGHS: %s, objective %g, dual bound %g, nodes %d\n", c.Status, c.Objective, c.DualBound, c.Nodes)
	if r.Problem == "" {
		fmt.Fprintln(w, "ok: HiGHS is ready")
	}
	return nil
}

// runDoctor finds HiGHS, then solves a built-in knapsack whose optimum it
// computes by enumeration.
func runDoctor(*noOperands, *env) (result, error) {
	r := &doctorResult{Steps: []string{}}
	lib, err := highs.Load(highs.Config{})
	var steps []highs.Step
	var le *highs.LoadError
	switch {
	case err == nil:
		steps = lib.Steps()
	case errors.As(err, &le):
		steps = le.Steps
	}
	for _, s := range steps {
		r.Steps = append(r.Steps, s.String())
	}
	if err != nil {
		r.Problem = err.Error()
		return r, nil
	}
	r.Library = lib.Path()
	v := lib.Version()
	r.Version, r.Tested = v.String(), v.Major == 1 && v.Minor == 15
	r.SizeofHighsInt = lib.SizeofHighsInt()

	k := doctorCheck
	want, choices := k.optimum()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := lib.Solve(ctx, k.model(), highs.Options{RelativeGap: 1e-9, AbsoluteGap: 1e-9})
	if err != nil {
		r.Problem = fmt.Sprintf("solving the check MILP: %v", err)
		return r, nil
	}
	r.Check = &doctorSolve{len(k.value), want, choices, res.Status.String(), res.Objective, res.DualBound, res.Nodes}
	if res.Status != highs.Optimal || math.Abs(res.Objective-want) > 1e-6*math.Max(1, want) {
		r.Problem = fmt.Sprintf("HiGHS returned %s with objective %g; the optimum is %g", res.Status, res.Objective, want)
	}
	return r, nil
}

// doctorKnapsack is a 0/1 knapsack: maximize Σ value·x subject to Σ weight·x ≤ capacity.
type doctorKnapsack struct {
	value, weight []float64
	capacity      float64
}

// doctorCheck is small enough to enumerate; its optimum is unique, and
// neither greedy choice (by value, by value/weight) finds it, so a solver that
// stopped at its first heuristic answer would fail the check.
var doctorCheck = doctorKnapsack{
	value:    []float64{33, 41, 75, 67, 39, 27, 73, 57},
	weight:   []float64{11, 9, 28, 23, 9, 25, 30, 18},
	capacity: 60,
}

func (k doctorKnapsack) model() *highs.Model {
	m := &highs.Model{Maximize: true}
	row := highs.Row{Name: "capacity", Lower: math.Inf(-1), Upper: k.capacity}
	for i, v := range k.value {
		j := m.AddColumn(highs.Binary(fmt.Sprintf("item%d", i), v))
		row.Terms = append(row.Terms, highs.Term{Col: j, Coef: k.weight[i]})
	}
	m.AddRow(row)
	return m
}

// optimum enumerates every subset and returns the best value that fits and
// the number of subsets.
func (k doctorKnapsack) optimum() (best float64, choices int) {
	choices = 1 << len(k.value)
	for set := range choices {
		v, w := 0.0, 0.0
		for i := range k.value {
			if set&(1<<i) != 0 {
				v += k.value[i]
				w += k.weight[i]
			}
		}
		if w <= k.capacity && v > best {
			best = v
		}
	}
	return best, choices
}

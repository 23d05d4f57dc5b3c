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

func init() {
	register(command{name: "doctor", summary: "check that HiGHS is found and solves a known MILP", run: runDoctor})
}

// runDoctor prints every HiGHS discovery step, the library found, its version
// and HighsInt size, then solves a built-in knapsack whose optimum it computes
// by enumeration. It exits 0 only if all of that succeeds.
func runDoctor(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("doctor", "", stdout, stderr)
	fl.usage = func(w io.Writer) {
		fmt.Fprintln(w, "usage: cklplan doctor")
		fmt.Fprintln(w, "\nChecks that HiGHS is found and solves a small MILP to its known optimum.")
		fmt.Fprintln(w, "\nExit status: 0 all is well, 1 HiGHS missing or wrong, 2 usage.")
	}
	if _, code := parseFlags(fl, args, 0, 0); code >= 0 {
		return code
	}

	lib, err := highs.Load(highs.Config{})
	var steps []highs.Step
	var le *highs.LoadError
	switch {
	case err == nil:
		steps = lib.Steps()
	case errors.As(err, &le):
		steps = le.Steps
	}
	fmt.Fprintln(stdout, "HiGHS search:")
	for i, s := range steps {
		fmt.Fprintf(stdout, "  %d. %s\n", i+1, s)
	}
	if err != nil {
		fmt.Fprintln(stdout, "HiGHS: not found")
		fmt.Fprintf(stderr, "cklplan doctor: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "HiGHS library: %s\n", lib.Path())
	if v := lib.Version(); v.Major == 1 && v.Minor == 15 {
		fmt.Fprintf(stdout, "HiGHS version: %s\n", v)
	} else {
		fmt.Fprintf(stdout, "HiGHS version: %s (accepted; cklplan is tested with 1.15.x)\n", v)
	}
	fmt.Fprintf(stdout, "HighsInt: %d bytes, as the binding assumes\n", lib.SizeofHighsInt())

	k := doctorCheck
	want, choices := k.optimum()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := lib.Solve(ctx, k.model(), highs.Options{RelativeGap: 1e-9, AbsoluteGap: 1e-9})
	if err != nil {
		fmt.Fprintf(stderr, "cklplan doctor: solving the check MILP: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "check MILP: 0/1 knapsack of %d items; optimum %g by enumerating %d choices\n",
		len(k.value), want, choices)
	fmt.Fprintf(stdout, "HiGHS: %s, objective %g, dual bound %g, nodes %d\n", res.Status, res.Objective, res.DualBound, res.Nodes)
	if res.Status != highs.Optimal || math.Abs(res.Objective-want) > 1e-6*math.Max(1, want) {
		fmt.Fprintf(stderr, "cklplan doctor: HiGHS returned %s with objective %g; the optimum is %g\n",
			res.Status, res.Objective, want)
		return exitFail
	}
	fmt.Fprintln(stdout, "ok: HiGHS is ready")
	return exitOK
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

package highs

import "fmt"

// Status is the outcome of a solve, HiGHS's model status folded into the cases
// a caller acts on. The order is meaningful: the statuses up to and including
// IterationLimitFeasible carry a feasible solution.
type Status int

const (
	// Optimal: the solution is optimal within the gap tolerances.
	Optimal Status = iota
	// TimeLimitFeasible: the time limit stopped the solve after an incumbent
	// was found; Result.Gap says how far from proven optimal it may be.
	TimeLimitFeasible
	// InterruptedFeasible: the context stopped the solve after an incumbent was
	// found.
	InterruptedFeasible
	// IterationLimitFeasible: Options.IterationLimit stopped the solve after
	// an incumbent was found.
	IterationLimitFeasible
	// Infeasible: no point satisfies the constraints.
	Infeasible
	// Unbounded: the objective improves without bound.
	Unbounded
	// UnboundedOrInfeasible: presolve proved one of the two but not which.
	UnboundedOrInfeasible
	// TimeLimitNoSolution: the time limit stopped the solve before any
	// feasible point was found.
	TimeLimitNoSolution
	// InterruptedNoSolution: the context stopped the solve before any feasible
	// point was found.
	InterruptedNoSolution
	// IterationLimitNoSolution: Options.IterationLimit stopped the solve
	// before any feasible point was found.
	IterationLimitNoSolution
	// SolverError: HiGHS failed (load, presolve, solve or postsolve error) or
	// stopped at a limit this binding never sets; Result.HighsStatus is the
	// model status HiGHS reported.
	SolverError
)

var statusNames = [...]string{
	Optimal:                  "optimal",
	TimeLimitFeasible:        "time limit (feasible)",
	InterruptedFeasible:      "interrupted (feasible)",
	IterationLimitFeasible:   "iteration limit (feasible)",
	Infeasible:               "infeasible",
	Unbounded:                "unbounded",
	UnboundedOrInfeasible:    "unbounded or infeasible",
	TimeLimitNoSolution:      "time limit (no solution)",
	InterruptedNoSolution:    "interrupted (no solution)",
	IterationLimitNoSolution: "iteration limit (no solution)",
	SolverError:              "solver error",
}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ParseStatus is the inverse of Status.String.
func ParseStatus(s string) (Status, error) {
	for st, name := range statusNames {
		if name == s {
			return Status(st), nil
		}
	}
	return 0, fmt.Errorf("highs: unknown status %q", s)
}

// MarshalText writes the status as its String.
func (s Status) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(statusNames) {
		return nil, fmt.Errorf("highs: cannot marshal %v", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a status written by MarshalText.
func (s *Status) UnmarshalText(text []byte) error {
	st, err := ParseStatus(string(text))
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// HasSolution reports whether a result with this status carries a feasible
// solution.
func (s Status) HasSolution() bool { return s >= Optimal && s <= IterationLimitFeasible }

// highsModelStatusNames are HiGHS's own names for its model statuses
// (Highs::modelStatusToString), for SolverError messages.
var highsModelStatusNames = [cModelStatusCount]string{
	cModelStatusNotset:                "Not Set",
	cModelStatusLoadError:             "Load error",
	cModelStatusModelError:            "Model error",
	cModelStatusPresolveError:         "Presolve error",
	cModelStatusSolveError:            "Solve error",
	cModelStatusPostsolveError:        "Postsolve error",
	cModelStatusModelEmpty:            "Empty",
	cModelStatusOptimal:               "Optimal",
	cModelStatusInfeasible:            "Infeasible",
	cModelStatusUnboundedOrInfeasible: "Primal infeasible or unbounded",
	cModelStatusUnbounded:             "Unbounded",
	cModelStatusObjectiveBound:        "Bound on objective reached",
	cModelStatusObjectiveTarget:       "Target for objective reached",
	cModelStatusTimeLimit:             "Time limit reached",
	cModelStatusIterationLimit:        "Iteration limit reached",
	cModelStatusUnknown:               "Unknown",
	cModelStatusSolutionLimit:         "Solution limit reached",
	cModelStatusInterrupt:             "Interrupted by user",
}

// HighsModelStatusName is HiGHS's name for one of its model statuses.
func HighsModelStatusName(s int) string {
	if s >= 0 && s < len(highsModelStatusNames) {
		return highsModelStatusNames[s]
	}
	return fmt.Sprintf("model status %d", s)
}

// statusOf maps a HiGHS model status, with whether a feasible primal solution
// exists, to a Status.
func statusOf(modelStatus int, feasible bool) Status {
	switch modelStatus {
	case cModelStatusOptimal:
		return Optimal
	case cModelStatusInfeasible:
		return Infeasible
	case cModelStatusUnbounded:
		return Unbounded
	case cModelStatusUnboundedOrInfeasible:
		return UnboundedOrInfeasible
	case cModelStatusTimeLimit:
		if feasible {
			return TimeLimitFeasible
		}
		return TimeLimitNoSolution
	case cModelStatusInterrupt:
		if feasible {
			return InterruptedFeasible
		}
		return InterruptedNoSolution
	case cModelStatusIterationLimit:
		if feasible {
			return IterationLimitFeasible
		}
		return IterationLimitNoSolution
	}
	return SolverError
}

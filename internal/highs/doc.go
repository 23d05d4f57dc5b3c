// Package highs is cklplan's binding to the HiGHS optimization library
// (https://highs.dev), loaded at run time: the build needs no C toolchain and no
// HiGHS (it works with CGO_ENABLED=0, through github.com/ebitengine/purego),
// and a missing HiGHS is an error at Load, never a build failure or a panic.
//
// # Model
//
// A Model is a mixed-integer linear program: columns with a cost, bounds and
// integrality; rows with bounds over sparse terms; an objective sense and
// offset. Solve validates it (every error names the column, row or term), hands
// it to HiGHS row-wise, and maps HiGHS's model status to a Status: Optimal,
// TimeLimitFeasible, InterruptedFeasible (these carry a solution), Infeasible,
// Unbounded, UnboundedOrInfeasible, TimeLimitNoSolution,
// InterruptedNoSolution, SolverError. A Result also carries the objective, the
// MIP dual bound and gap, the node count and HiGHS's run time. For an
// infeasible model, Solver.Conflict names an irreducible infeasible subset of
// the LP relaxation's rows and column bounds (HiGHS's IIS), to explain it.
//
// # Use
//
//	lib, err := highs.Load(highs.Config{}) // once per process; cached by path
//	res, err := lib.Solve(ctx, model, highs.Options{TimeLimit: time.Second})
//
// or, to solve many models on one HiGHS instance, lib.NewSolver, Solver.Solve
// and Solver.Close. Both are a MILPSolver, the one-method interface a caller
// that only solves should depend on. Options' zero value solves to HiGHS's
// default gaps, on one thread (deterministic), with seed 0 and no time limit;
// Options.Start hands HiGHS a first incumbent. HiGHS's output is always
// silenced. After a Solve, the model stays loaded on the Solver:
// Solver.SetBounds changes column bounds there and Solver.Resolve solves it
// again, an LP from its last basis (a few simplex iterations after a few
// bound changes), until the next Solve or Conflict loads another model.
// Solver.Basis takes an LP's basis, and Options.Basis starts another
// Solver's solve of the same LP from it.
//
// # Invariants
//
//   - Each HiGHS instance lives on one goroutine locked to its OS thread for
//     its whole life; every C call on the instance is made there. Instances
//     are closed explicitly (Solver.Close); there are no finalizers.
//   - Any number of Solvers may solve concurrently; one Solver solves one
//     model at a time.
//   - Cancelling the context of a Solve interrupts HiGHS at its next check
//     (simplex, IPM and MIP interrupt callbacks) and returns the incumbent, if
//     any. HiGHS solves a MIP's LP relaxations on an inner instance without
//     the callback: where it has not stopped 0.2 s after the cancel, Solve
//     returns InterruptedNoSolution without it, and the run ends at its next
//     check on the instance's thread; the Solver's next call waits for it,
//     and Close returns at once. A context's deadline is also HiGHS's time
//     limit (where sooner than Options.TimeLimit), which the inner instance
//     keeps; a solve it stops is interrupted, not timed out. One purego
//     callback serves the whole process; it finds the instance by an integer
//     id passed as HiGHS's callback user data.
//   - A Solver's options are reset to HiGHS's defaults before every solve, so
//     nothing carries over between solves.
//
// # Discovery
//
// Load tries, in order, and records every step (cklplan doctor prints them):
//
//  1. CKL_HIGHS_LIBRARY, a file; when set, nothing else is tried.
//  2. $HiGHS_HOME/lib/libhighs.so.
//  3. The project's own install, made by `make setup` (scripts/setup-highs.sh):
//     .highs/ at the module root (the directory holding go.mod), found by
//     walking up from the working directory and, failing that, in the module
//     cklplan was compiled in. .highs/libhighs.path records the library's path
//     relative to .highs/.
//  4. python3 -c 'import highsbox' → highsbox.highs_lib_dir().
//  5. The dynamic loader's search for libhighs.so, then libhighs.so.1.
//
// A candidate is used only if it loads, exports the C API used here, is HiGHS
// 1.10 or newer (1.15.x is what the project pins and tests), and its HighsInt
// is 32 bits (Highs_getSizeofHighsInt), as this binding assumes. When no step
// succeeds, Load returns a *LoadError listing every step and the command that
// installs HiGHS; errors.Is(err, ErrNotFound) holds.
package highs

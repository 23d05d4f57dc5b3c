package highs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ErrClosed is returned by a Solver used after Close.
var ErrClosed = errors.New("highs: solver is closed")

// A Result is what one solve found.
type Result struct {
	Status Status
	// HighsStatus is HiGHS's own model status (kHighsModelStatus*); see
	// HighsModelStatusName.
	HighsStatus int
	// Values holds one value per column when Status.HasSolution(), else nil.
	// Integer columns hold integral values up to HiGHS's feasibility
	// tolerance; Round them where exact integers matter.
	Values []float64
	// Objective is the objective at Values (NaN without a solution).
	Objective float64
	// DualBound is the best proven bound on the optimum: for a MIP, HiGHS's
	// mip_dual_bound; for an LP solved to optimality, Objective.
	DualBound float64
	// Gap is HiGHS's mip_gap, |Objective − DualBound| / |Objective|; 0 for an
	// optimal LP, +Inf without a solution.
	Gap float64
	// Nodes is the number of branch-and-bound nodes (0 for an LP).
	Nodes int64
	// RunTime is the wall-clock time HiGHS spent in the solve.
	RunTime time.Duration
	// SimplexIterations is HiGHS's simplex_iteration_count for the solve
	// (of an LP; of a MIP, its LPs').
	SimplexIterations int
	// RowDuals and ReducedCosts are an LP's dual solution, one value per
	// row and per column, when Options.Duals asked for them and the LP is
	// Optimal (else nil): ReducedCosts = Cost − Aᵀ RowDuals, up to HiGHS's
	// tolerances. A row's dual is ≥ 0 where its lower bound holds it, ≤ 0
	// where its upper bound does (of a minimization).
	RowDuals, ReducedCosts []float64
}

// A MILPSolver solves models. *Library (a fresh HiGHS instance per solve)
// and *Solver (one instance, reused) are both MILPSolvers; code that only
// solves, such as the planner, can depend on this interface alone.
type MILPSolver interface {
	Solve(ctx context.Context, m *Model, opt Options) (*Result, error)
}

var (
	_ MILPSolver = (*Library)(nil)
	_ MILPSolver = (*Solver)(nil)
)

// A Solver owns one HiGHS instance, on one locked OS thread for the instance's
// whole life. It solves one model at a time (concurrent calls wait their turn);
// use one Solver per goroutine for parallel solves. Close it when done: there
// is no finalizer.
type Solver struct {
	lib  *Library
	mu   sync.Mutex // held for a whole solve
	inst *instance  // nil once closed
	// loaded is the model the last Solve passed to HiGHS, still loaded
	// there (with any bound changes since); nil when none is.
	loaded *Model
	// busy, when not nil, is closed once a run that a call left behind
	// (await) ends: every later call waits for it (settle).
	busy chan struct{}
}

// abandonAfter is how long a run may go on once its context is done
// before the call returns without it. HiGHS takes the interrupt only at
// its checks, and a MIP's LP relaxations run on an inner instance that
// has no callback: HiGHS 1.15 solves the root LP of a dense core (2.8 s of
// dual simplex on a 700-invocation DAG) without a check, and an interrupt
// then waited for all of it. The run left behind stops at its next check
// (the interrupt stays set), on its own thread, and the Solver's next call
// waits for it.
var abandonAfter = 200 * time.Millisecond // a variable for the tests alone

// settle waits for a run an earlier call left behind; s.mu is held.
func (s *Solver) settle() {
	if s.busy != nil {
		<-s.busy
		s.busy = nil
	}
}

// await runs f on the instance's thread and waits for it, or, once ctx is
// done, for at most abandonAfter more: then it returns false and leaves f
// running (settle). s.mu is held and s settled.
func (s *Solver) await(ctx context.Context, f func(h uintptr)) bool {
	fin := make(chan struct{})
	s.inst.calls <- func(h uintptr) {
		defer close(fin)
		f(h)
	}
	select {
	case <-fin:
		return true
	case <-ctx.Done():
	}
	t := time.NewTimer(abandonAfter)
	defer t.Stop()
	select {
	case <-fin:
		return true
	case <-t.C:
		s.busy = fin
		return false
	}
}

// interrupted is the result of a run stopped by its context before it had
// a solution to give.
func interrupted() *Result {
	return &Result{Status: InterruptedNoSolution, HighsStatus: cModelStatusInterrupt,
		Objective: math.NaN(), DualBound: math.NaN(), Gap: math.Inf(1)}
}

// abandoned is the result of a run left behind (await): a MIP's Start,
// where one was given and is a point of m (HiGHS's first incumbent, which
// a run stopped early returns or betters), else no solution.
func abandoned(m *Model, start []float64) *Result {
	r := interrupted()
	if start == nil || !slices.ContainsFunc(m.Columns, func(c Column) bool { return c.Integer }) || !m.holds(start) {
		return r
	}
	r.Status, r.Values, r.Objective = InterruptedFeasible, slices.Clone(start), m.Objective(start)
	return r
}

// withDeadline gives opt the time limit that ctx's deadline leaves, where
// that is sooner than opt's own: HiGHS stops by its clock even inside the
// phases where it takes no interrupt. fromCtx says the limit is ctx's.
func withDeadline(ctx context.Context, opt Options) (_ Options, fromCtx bool) {
	d, ok := ctx.Deadline()
	if !ok {
		return opt, false
	}
	left := max(time.Until(d), time.Millisecond)
	if opt.TimeLimit == 0 || left < opt.TimeLimit {
		opt.TimeLimit = left
		return opt, true
	}
	return opt, false
}

// byContext reports a run that ctx's deadline stopped (fromCtx: the time
// limit was its, whether or not ctx has noticed its deadline yet) as
// interrupted, as a cancel would be.
func byContext(res *Result, fromCtx bool) {
	if res == nil || !fromCtx {
		return
	}
	switch res.Status {
	case TimeLimitFeasible:
		res.Status = InterruptedFeasible
	case TimeLimitNoSolution:
		res.Status = InterruptedNoSolution
	}
}

// NewSolver starts a HiGHS instance.
func (l *Library) NewSolver() (*Solver, error) {
	inst, err := newInstance(l)
	if err != nil {
		return nil, err
	}
	return &Solver{lib: l, inst: inst}, nil
}

// Close destroys the HiGHS instance and ends its thread, after a solve in
// progress ends (cancel its context to end it sooner). Closing twice is
// harmless.
func (s *Solver) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst == nil {
		return nil
	}
	if busy, inst := s.busy, s.inst; busy != nil {
		// A run left behind (await) ends at its next check: the instance
		// is destroyed then, without keeping the caller.
		go func() {
			<-busy
			inst.close()
		}()
		s.busy = nil
	} else {
		s.inst.close()
	}
	s.inst = nil
	return nil
}

// Solve solves m on a fresh instance that is closed before Solve returns.
func (l *Library) Solve(ctx context.Context, m *Model, opt Options) (*Result, error) {
	s, err := l.NewSolver()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Solve(ctx, m, opt)
}

// Solve passes m to HiGHS with the options and runs it. Solver outcomes
// (infeasible, time limit, ...) are the Result's Status, not errors; the error
// is for an invalid model or options (*ModelError, *OptionError), a closed
// solver, or HiGHS refusing the model.
//
// When ctx is done during the solve HiGHS is interrupted at its next check and
// the result has status InterruptedFeasible, with the incumbent, or
// InterruptedNoSolution; where HiGHS has not stopped abandonAfter later
// (inside a MIP's LP relaxation, which it solves without a check), Solve
// returns without it, InterruptedFeasible at opt.Start for a MIP whose Start
// is a point of m and else InterruptedNoSolution, and the run ends on its
// own thread at its next check. A ctx done before the solve starts gives
// InterruptedNoSolution without running HiGHS. A ctx deadline sooner than
// opt.TimeLimit is HiGHS's time limit, and a solve it stops is interrupted.
func (s *Solver) Solve(ctx context.Context, m *Model, opt Options) (*Result, error) {
	if err := validateInput(m, opt); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst == nil {
		return nil, ErrClosed
	}
	s.settle()
	if ctx.Err() != nil {
		return interrupted(), nil
	}
	opt, fromCtx := withDeadline(ctx, opt)
	in := newInput(m, s.lib.infinity)
	inst := s.inst
	inst.interrupt.Store(false)
	stop := context.AfterFunc(ctx, func() { inst.interrupt.Store(true) })
	defer stop()

	var res *Result
	var loaded bool
	var err error
	s.loaded = nil
	if !s.await(ctx, func(h uintptr) {
		inst.progress, inst.lastProgress = opt.Progress, time.Time{}
		res, loaded, err = s.run(h, inst, m, in, opt)
		inst.progress = nil
	}) {
		return abandoned(m, opt.Start), nil
	}
	if loaded {
		s.loaded = m
	}
	byContext(res, fromCtx)
	return res, err
}

// input is a Model in the arrays Highs_passMip takes (row-wise matrix).
type input struct {
	colCost, colLower, colUpper []float64
	rowLower, rowUpper          []float64
	aStart, aIndex              []highsInt
	aValue                      []float64
	integrality                 []highsInt
}

func newInput(m *Model, inf float64) *input {
	nc, nr, nz := len(m.Columns), len(m.Rows), m.NumNonzeros()
	in := &input{
		colCost: make([]float64, nc), colLower: make([]float64, nc), colUpper: make([]float64, nc),
		integrality: make([]highsInt, nc),
		rowLower:    make([]float64, nr), rowUpper: make([]float64, nr),
		aStart: make([]highsInt, nr), aIndex: make([]highsInt, 0, nz), aValue: make([]float64, 0, nz),
	}
	clamp := func(v float64) float64 {
		switch {
		case math.IsInf(v, 1):
			return inf
		case math.IsInf(v, -1):
			return -inf
		}
		return v
	}
	for j, c := range m.Columns {
		in.colCost[j] = c.Cost
		in.colLower[j], in.colUpper[j] = clamp(c.Lower), clamp(c.Upper)
		if c.Integer {
			in.integrality[j] = cVarTypeInteger
		} else {
			in.integrality[j] = cVarTypeContinuous
		}
	}
	for i, r := range m.Rows {
		in.rowLower[i], in.rowUpper[i] = clamp(r.Lower), clamp(r.Upper)
		in.aStart[i] = highsInt(len(in.aIndex))
		for _, t := range r.Terms {
			in.aIndex = append(in.aIndex, highsInt(t.Col))
			in.aValue = append(in.aValue, t.Coef)
		}
	}
	return in
}

// ptr is the address of a slice's first element, or nil for an empty slice
// (HiGHS reads nothing through it then).
func ptr[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// load replaces the instance's model and options; it is called on the
// instance's thread.
// It reads the instance as inst, never s.inst: a run that a call left
// behind (await) may still be here after Close has cleared s.inst.
func (s *Solver) load(h uintptr, inst *instance, m *Model, in *input, opt Options) error {
	c := &s.lib.c
	if c.clearModel(h) == cStatusError {
		return errors.New("highs: Highs_clearModel failed")
	}
	// HiGHS sizes the task scheduler of the thread that runs it once, at the
	// first run, and refuses a later run asking for another size. The
	// scheduler belongs to the calling thread (HiGHS 1.15 keeps its handle
	// thread_local: parallel/HighsTaskExecutor.h), and this thread serves
	// only this instance, so resizing it touches no other solve.
	if threads := opt.threadCount(); inst.threads != threads {
		if inst.threads != 0 {
			c.resetGlobalScheduler(1)
		}
		inst.threads = threads
	}
	if err := setOptions(c, h, opt, m.IsMIP()); err != nil {
		return err
	}
	sense := highsInt(cObjSenseMinimize)
	if m.Maximize {
		sense = cObjSenseMaximize
	}
	st := c.passMip(h, highsInt(len(m.Columns)), highsInt(len(m.Rows)), highsInt(len(in.aIndex)),
		cMatrixFormatRowwise, sense, m.Offset,
		ptr(in.colCost), ptr(in.colLower), ptr(in.colUpper), ptr(in.rowLower), ptr(in.rowUpper),
		ptr(in.aStart), ptr(in.aIndex), ptr(in.aValue), ptr(in.integrality))
	runtime.KeepAlive(in)
	if st == cStatusError {
		return errors.New("highs: HiGHS refused the model (Highs_passMip failed)")
	}
	if opt.Start != nil && c.setSolution(h, ptr(opt.Start), nil, nil, nil) == cStatusError {
		return &OptionError{"Start", "HiGHS refused the point (Highs_setSolution failed)"}
	}
	if b := opt.Basis; b != nil && !m.IsMIP() && !opt.InteriorPoint && c.setBasis(h, ptr(b.cols), ptr(b.rows)) == cStatusError {
		return &OptionError{"Basis", "HiGHS refused the basis (Highs_setBasis failed): not a basis of this model"}
	}
	for _, t := range []highsInt{cCallbackSimplexInterrupt, cCallbackIpmInterrupt, cCallbackMipInterrupt} {
		if c.startCallback(h, t) == cStatusError {
			return fmt.Errorf("highs: Highs_startCallback(%d) failed", t)
		}
	}
	return nil
}

// run does one solve; it is called on inst's thread. loaded says HiGHS
// took the model (the caller records it in s.loaded, which a run left
// behind must not write).
func (s *Solver) run(h uintptr, inst *instance, m *Model, in *input, opt Options) (res *Result, loaded bool, err error) {
	if err := s.load(h, inst, m, in, opt); err != nil {
		return nil, false, err
	}
	res, err = s.execute(h, inst, m, opt)
	return res, true, err
}

// execute runs the loaded model m and reads the result; it is called on the
// instance's thread.
func (s *Solver) execute(h uintptr, inst *instance, m *Model, opt Options) (*Result, error) {
	c := &s.lib.c
	c.zeroAllClocks(h)
	duals := opt.Duals
	inst.iterationLimit, inst.iterationStop = 0, false
	if m.IsMIP() {
		inst.iterationLimit = opt.IterationLimit
	}
	// A run status of error goes with a model status that says which error;
	// the model status is what the result reports.
	c.run(h)

	ms := int(c.getModelStatus(h))
	var pss highsInt
	c.getIntInfoValue(h, "primal_solution_status", &pss)
	feasible := pss == cSolutionStatusFeasible
	r := &Result{
		HighsStatus: ms,
		RunTime:     time.Duration(c.getRunTime(h) * float64(time.Second)),
		Objective:   math.NaN(),
		DualBound:   math.NaN(),
		Gap:         math.Inf(1),
	}
	inst.iterationLimit = 0
	r.Status = statusOf(ms, feasible)
	if ms == cModelStatusInterrupt && inst.iterationStop {
		r.Status = statusOf(cModelStatusIterationLimit, feasible)
	}
	var iterations highsInt
	if c.getIntInfoValue(h, "simplex_iteration_count", &iterations) != cStatusError {
		r.SimplexIterations = int(iterations)
	}
	if ms == cModelStatusModelEmpty {
		// HiGHS calls a model without columns empty and optimal whatever its
		// rows say; every row's activity is 0 then, so decide here.
		r.Status = Optimal
		for _, row := range m.Rows {
			if row.Lower > 0 || row.Upper < 0 {
				r.Status = Infeasible
			}
		}
	}
	if r.Status.HasSolution() {
		r.Values = make([]float64, len(m.Columns))
		if len(m.Columns) > 0 && c.getSolution(h, &r.Values[0], nil, nil, nil) == cStatusError {
			return nil, errors.New("highs: Highs_getSolution failed")
		}
		r.Objective = c.getObjectiveValue(h)
		if ms == cModelStatusModelEmpty {
			r.Objective = m.Offset
		}
	}
	if m.IsMIP() {
		var nodes int64
		var bound, gap float64
		if c.getInt64InfoValue(h, "mip_node_count", &nodes) != cStatusError {
			r.Nodes = nodes
		}
		if c.getDoubleInfoValue(h, "mip_dual_bound", &bound) != cStatusError {
			r.DualBound = bound
		}
		if r.Status.HasSolution() && c.getDoubleInfoValue(h, "mip_gap", &gap) != cStatusError {
			r.Gap = gap
		}
	} else if r.Status == Optimal {
		r.DualBound, r.Gap = r.Objective, 0
		if duals && len(m.Columns) > 0 {
			r.ReducedCosts, r.RowDuals = make([]float64, len(m.Columns)), make([]float64, len(m.Rows))
			rowValues := make([]float64, len(m.Rows))
			if c.getSolution(h, &r.Values[0], ptr(r.ReducedCosts), ptr(rowValues), ptr(r.RowDuals)) == cStatusError {
				return nil, errors.New("highs: Highs_getSolution failed")
			}
		}
	}
	if r.Status == Optimal && m.IsMIP() && math.IsInf(r.DualBound, 0) {
		// Presolve solved the MIP outright: no search, and its bound is the optimum.
		r.DualBound, r.Gap = r.Objective, 0
	}
	return r, nil
}

// An OptionError is an invalid option.
type OptionError struct {
	Option string
	What   string
}

func (e *OptionError) Error() string { return "highs: option " + e.Option + ": " + e.What }

func (o Options) validate() error {
	switch {
	case o.TimeLimit < 0:
		return &OptionError{"TimeLimit", fmt.Sprintf("%v is negative", o.TimeLimit)}
	case o.RelativeGap < 0 || math.IsNaN(o.RelativeGap) || math.IsInf(o.RelativeGap, 0):
		return &OptionError{"RelativeGap", fmt.Sprintf("%v is not a finite non-negative number", o.RelativeGap)}
	case o.AbsoluteGap < 0 || math.IsNaN(o.AbsoluteGap) || math.IsInf(o.AbsoluteGap, 0):
		return &OptionError{"AbsoluteGap", fmt.Sprintf("%v is not a finite non-negative number", o.AbsoluteGap)}
	case o.Threads < 0 || o.Threads > math.MaxInt32:
		return &OptionError{"Threads", fmt.Sprintf("%d is out of range", o.Threads)}
	case o.Seed < 0 || o.Seed > math.MaxInt32:
		return &OptionError{"Seed", fmt.Sprintf("%d is out of range [0, 2147483647]", o.Seed)}
	case o.Presolve < PresolveChoose || o.Presolve > PresolveOff:
		return &OptionError{"Presolve", fmt.Sprintf("%d is not a Presolve value", int(o.Presolve))}
	case o.IterationLimit < 0:
		return &OptionError{"IterationLimit", fmt.Sprintf("%d is negative", o.IterationLimit)}
	}
	return nil
}

// validateInput checks a model and the options to solve it with, before any
// HiGHS call.
func validateInput(m *Model, opt Options) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if err := opt.validate(); err != nil {
		return err
	}
	if err := opt.Basis.fits(m); err != nil {
		return err
	}
	return opt.validateStart(m)
}

// validateStart checks that a start point fits the model.
func (o Options) validateStart(m *Model) error {
	if o.Start == nil {
		return nil
	}
	if len(o.Start) != len(m.Columns) {
		return &OptionError{"Start", fmt.Sprintf("%d values for %d columns", len(o.Start), len(m.Columns))}
	}
	for j, v := range o.Start {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &OptionError{"Start", fmt.Sprintf("value %d (%s) is %v", j, colName(j, m.Columns[j]), v)}
		}
	}
	return nil
}

func colName(j int, c Column) string {
	if c.Name != "" {
		return c.Name
	}
	return fmt.Sprintf("column %d", j)
}

// threadCount is the threads option HiGHS gets.
func (o Options) threadCount() int {
	if o.Threads == 0 {
		return 1
	}
	return o.Threads
}

// setOptions resets the instance's options to HiGHS's defaults and applies
// opt, so that nothing carries over from an earlier solve.
func setOptions(c *cfuncs, h uintptr, opt Options, mip bool) error {
	threads := opt.threadCount()
	type set struct {
		name string
		ok   bool
	}
	sets := []set{
		{"(reset)", c.resetOptions(h) != cStatusError},
		{"output_flag", c.setBoolOptionValue(h, "output_flag", 0) != cStatusError},
		{"threads", c.setIntOptionValue(h, "threads", highsInt(threads)) != cStatusError},
		{"random_seed", c.setIntOptionValue(h, "random_seed", highsInt(opt.Seed)) != cStatusError},
		{"presolve", c.setStringOptionValue(h, "presolve", opt.Presolve.String()) != cStatusError},
	}
	if opt.NoFeasibilityJump {
		// A hint for speed (Options): a HiGHS without the option may
		// refuse it.
		c.setBoolOptionValue(h, "mip_heuristic_run_feasibility_jump", 0)
	}
	if opt.TimeLimit > 0 {
		sets = append(sets, set{"time_limit", c.setDoubleOptionValue(h, "time_limit", opt.TimeLimit.Seconds()) != cStatusError})
	}
	if opt.IterationLimit > 0 && !mip {
		// A MIP's limit is the callback's (interruptCallback): HiGHS sets
		// limits of its own on the LPs of its search.
		sets = append(sets, set{"simplex_iteration_limit", c.setIntOptionValue(h, "simplex_iteration_limit", highsInt(min(opt.IterationLimit, math.MaxInt32))) != cStatusError})
	}
	if opt.RelativeGap > 0 {
		sets = append(sets, set{"mip_rel_gap", c.setDoubleOptionValue(h, "mip_rel_gap", opt.RelativeGap) != cStatusError})
	}
	if opt.AbsoluteGap > 0 {
		sets = append(sets, set{"mip_abs_gap", c.setDoubleOptionValue(h, "mip_abs_gap", opt.AbsoluteGap) != cStatusError})
	}
	if opt.InteriorPoint {
		sets = append(sets,
			set{"solver", c.setStringOptionValue(h, "solver", "ipm") != cStatusError},
			set{"run_crossover", c.setStringOptionValue(h, "run_crossover", "off") != cStatusError},
			set{"ipm_optimality_tolerance", c.setDoubleOptionValue(h, "ipm_optimality_tolerance", ipmTolerance) != cStatusError})
		if opt.Presolve != PresolveOff {
			// A hint (InteriorPoint): a HiGHS whose rule 10 is another
			// one only presolves less.
			c.setIntOptionValue(h, "presolve_rule_off", presolveRuleDependentEquations)
		}
	}
	for _, s := range sets {
		if !s.ok {
			return &OptionError{s.name, "HiGHS refused the value"}
		}
	}
	return nil
}

// controlledOptions are the HiGHS options Solve sets, in the order
// optionText prints them.
var controlledOptions = []struct{ name, kind string }{
	{"output_flag", "bool"},
	{"threads", "int"},
	{"random_seed", "int"},
	{"presolve", "string"},
	{"time_limit", "double"},
	{"simplex_iteration_limit", "int"},
	{"mip_rel_gap", "double"},
	{"mip_abs_gap", "double"},
	{"mip_heuristic_run_feasibility_jump", "bool"},
	{"solver", "string"},
	{"run_crossover", "string"},
	{"ipm_optimality_tolerance", "double"},
	{"presolve_rule_off", "int"},
}

// optionText reads back, from HiGHS, the options Solve controls: one
// "name = value" line each. Tests use it to see that Options reach HiGHS.
func (s *Solver) optionText() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst == nil {
		return "", ErrClosed
	}
	s.settle()
	c := &s.lib.c
	var b strings.Builder
	var err error
	s.inst.do(func(h uintptr) {
		for _, o := range controlledOptions {
			var st highsInt
			var v string
			switch o.kind {
			case "bool":
				var x highsInt
				st = c.getBoolOptionValue(h, o.name, &x)
				v = strconv.FormatBool(x != 0)
			case "int":
				var x highsInt
				st = c.getIntOptionValue(h, o.name, &x)
				v = strconv.Itoa(int(x))
			case "double":
				var x float64
				st = c.getDoubleOptionValue(h, o.name, &x)
				v = strconv.FormatFloat(x, 'g', -1, 64)
			case "string":
				buf := make([]byte, cMaximumStringLength)
				st = c.getStringOptionValue(h, o.name, &buf[0])
				if n := bytes.IndexByte(buf, 0); n >= 0 {
					buf = buf[:n]
				}
				v = string(buf)
			}
			if st == cStatusError {
				err = fmt.Errorf("highs: cannot read option %s", o.name)
				return
			}
			fmt.Fprintf(&b, "%s = %s\n", o.name, v)
		}
	})
	return b.String(), err
}

// An instance is one Highs object and the goroutine, locked to its OS thread,
// that makes every call on it.
type instance struct {
	lib       *Library
	id        uintptr            // the callback's user data: a key of instances, not a Go pointer
	calls     chan func(uintptr) // closed by close
	done      chan struct{}      // closed when the thread has destroyed the instance
	interrupt atomic.Bool        // set to stop the current run
	threads   int                // the size of this thread's HiGHS scheduler; 0 before the first run
	// progress is the current run's Options.Progress, and lastProgress
	// when it was last called; both touched on the instance's thread only.
	progress     func(Progress)
	lastProgress time.Time
	// iterationLimit is the current MIP run's Options.IterationLimit (0:
	// none), and iterationStop says the callback stopped the run at it;
	// both touched on the instance's thread only.
	iterationLimit int64
	iterationStop  bool
}

var (
	instances  sync.Map // id → *instance, for the callback
	lastID     atomic.Uintptr
	callback   uintptr
	callbackMu sync.Once
)

// The callback, one for the whole process (purego's callbacks are a limited
// resource, never freed), serves every instance: HiGHS hands back the
// instance's id as user data. HiGHS calls it on the thread running Highs_run,
// at its interrupt checks; user_interrupt (the first field of
// HighsCallbackDataIn, a C int) set to 1 asks HiGHS to stop.
func interruptCallback(callbackType int32, _, dataOut, dataIn unsafe.Pointer, userData uintptr) {
	switch callbackType {
	case cCallbackSimplexInterrupt, cCallbackIpmInterrupt, cCallbackMipInterrupt:
	default:
		return
	}
	v, ok := instances.Load(userData)
	if !ok || dataIn == nil {
		return
	}
	// No progress once interrupted: the call may have returned (await).
	if in := v.(*instance); callbackType == cCallbackMipInterrupt && in.progress != nil && dataOut != nil && !in.interrupt.Load() {
		if now := time.Now(); in.lastProgress.IsZero() || now.Sub(in.lastProgress) >= ProgressEvery {
			in.lastProgress = now
			in.progress(readProgress(dataOut))
		}
	}
	// HiGHS keeps the field between runs, so write it either way: a solve
	// after an interrupted one must not inherit the interrupt.
	var stop int32
	in := v.(*instance)
	if in.interrupt.Load() {
		stop = 1
	}
	// The MIP's LP iterations so far (readProgress's layout): a work
	// limit that stops it at the same check every run.
	if callbackType == cCallbackMipInterrupt && in.iterationLimit > 0 && dataOut != nil && *(*int64)(unsafe.Add(dataOut, 56)) >= in.iterationLimit {
		stop, in.iterationStop = 1, true
	}
	*(*int32)(dataIn) = stop
}

// readProgress reads HighsCallbackDataOut (lp_data/HighsCallbackStruct.h of
// HiGHS 1.10 and later, x86-64 and arm64 layout, 32-bit HighsInt, which Load
// checks): void* cbdata at 0, int log_type at 8, double running_time at 16,
// three HighsInt iteration counts at 24, double objective_function_value at
// 40, int64 mip_node_count at 48, int64 mip_total_lp_iterations at 56,
// double mip_primal_bound at 64, mip_dual_bound at 72, mip_gap at 80.
func readProgress(out unsafe.Pointer) Progress {
	f64 := func(off uintptr) float64 { return *(*float64)(unsafe.Add(out, off)) }
	return Progress{
		Elapsed:   time.Duration(f64(16) * float64(time.Second)),
		Nodes:     *(*int64)(unsafe.Add(out, 48)),
		Incumbent: f64(64),
		Bound:     f64(72),
		Gap:       f64(80),
	}
}

func newInstance(l *Library) (*instance, error) {
	callbackMu.Do(func() { callback = purego.NewCallback(interruptCallback) })
	inst := &instance{
		lib:   l,
		id:    lastID.Add(1),
		calls: make(chan func(uintptr)),
		done:  make(chan struct{}),
	}
	ready := make(chan error, 1)
	go inst.serve(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return inst, nil
}

// serve runs on its own OS thread for the instance's whole life. It never
// unlocks the thread: when it returns, the thread ends with it, and with it
// whatever thread-local state HiGHS kept.
func (inst *instance) serve(ready chan<- error) {
	runtime.LockOSThread()
	defer close(inst.done)
	c := &inst.lib.c
	h := c.create()
	if h == 0 {
		ready <- errors.New("highs: Highs_create failed")
		return
	}
	defer func() {
		c.destroy(h)
		if inst.threads > 1 {
			// Stop the scheduler's worker threads with this thread.
			c.resetGlobalScheduler(1)
		}
	}()
	if c.setBoolOptionValue(h, "output_flag", 0) == cStatusError {
		ready <- errors.New("highs: cannot silence HiGHS (output_flag)")
		return
	}
	instances.Store(inst.id, inst)
	defer instances.Delete(inst.id)
	if c.setCallback(h, callback, inst.id) == cStatusError {
		ready <- errors.New("highs: Highs_setCallback failed")
		return
	}
	ready <- nil
	for f := range inst.calls {
		f(h)
	}
}

// do runs f on the instance's thread and waits for it.
func (inst *instance) do(f func(h uintptr)) {
	fin := make(chan struct{})
	inst.calls <- func(h uintptr) {
		defer close(fin)
		f(h)
	}
	<-fin
}

// close destroys the instance and waits for its thread to end.
func (inst *instance) close() {
	close(inst.calls)
	<-inst.done
}

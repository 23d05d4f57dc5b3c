package highs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
)

// A Conflict is an irreducible infeasible subset (IIS) of a model's
// constraints: the row and column bounds it names admit no solution together,
// and dropping any one of those bounds makes the rest satisfiable. Columns
// listed with SideFree take part only through their terms. For a MIP it is a
// conflict of the LP relaxation; integrality alone never appears in one.
type Conflict struct {
	Rows    []ConflictBound // sorted by index
	Columns []ConflictBound // sorted by index: column bounds in the conflict
}

// A ConflictBound is one row or column of a Conflict and the bounds of it
// that take part.
type ConflictBound struct {
	Index int
	Side  Side
}

// Side says which bounds of a row or column take part in a conflict.
type Side int

const (
	SideFree  Side = iota // neither bound (the item is in the conflict through its terms)
	SideLower             // the lower bound
	SideUpper             // the upper bound
	SideBoth              // both bounds (a boxed or fixed item)
)

func (s Side) String() string {
	switch s {
	case SideFree:
		return "free"
	case SideLower:
		return "lower"
	case SideUpper:
		return "upper"
	case SideBoth:
		return "both"
	}
	return fmt.Sprintf("Side(%d)", int(s))
}

// IIS bound kinds (kHighsIisBound*).
const (
	cIisBoundFree  = 1
	cIisBoundLower = 2
	cIisBoundUpper = 3
	cIisBoundBoxed = 4
)

// iisStrategyLP asks for an irreducible set from the LP (kIisStrategyFromLp |
// kIisStrategyIrreducible).
const iisStrategyLP = 2 | 4

// iisVersion is the oldest HiGHS whose Highs_getIis this binding calls: it is
// written against 1.15's signature and not checked against older releases.
var iisVersion = Version{1, 15, 0}

// ErrNoConflict is returned by Conflict when the model's LP relaxation is
// feasible: nothing but integrality (if anything) makes the model infeasible.
var ErrNoConflict = errors.New("highs: no infeasible subset found")

// Conflict computes an irreducible infeasible subset of m's rows and column
// bounds, to explain an Infeasible result; it needs HiGHS 1.15 or newer. opt's
// time limit bounds the search.
func (s *Solver) Conflict(ctx context.Context, m *Model, opt Options) (*Conflict, error) {
	if s.lib.iisErr != nil {
		return nil, s.lib.iisErr
	}
	if err := validateInput(m, opt); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst == nil {
		return nil, ErrClosed
	}
	s.settle()
	in := newInput(m, s.lib.infinity)
	for j := range in.integrality {
		in.integrality[j] = cVarTypeContinuous
	}
	inst := s.inst
	inst.interrupt.Store(false)
	stop := context.AfterFunc(ctx, func() { inst.interrupt.Store(true) })
	defer stop()
	var conf *Conflict
	var err error
	s.loaded = nil // conflict loads a continuous copy
	if !s.await(ctx, func(h uintptr) { conf, err = s.conflict(h, inst, m, in, opt) }) {
		return nil, fmt.Errorf("highs: %w before the conflict was found", context.Cause(ctx))
	}
	return conf, err
}

// conflict works on the LP relaxation (in has every column continuous): it
// solves it, and only when that is infeasible asks HiGHS for an IIS. (HiGHS
// 1.15's own MIP path, kIisStrategyRelaxation, crashed on a MIP whose
// relaxation is feasible.)
func (s *Solver) conflict(h uintptr, inst *instance, m *Model, in *input, opt Options) (*Conflict, error) {
	c := &s.lib.c
	if err := s.load(h, inst, m, in, opt); err != nil {
		return nil, err
	}
	c.run(h)
	switch ms := int(c.getModelStatus(h)); ms {
	case cModelStatusInfeasible:
	case cModelStatusOptimal, cModelStatusUnbounded, cModelStatusModelEmpty:
		return nil, ErrNoConflict
	default:
		return nil, fmt.Errorf("highs: the LP relaxation ended %q before its feasibility was decided", HighsModelStatusName(ms))
	}
	if c.setIntOptionValue(h, "iis_strategy", iisStrategyLP) == cStatusError {
		return nil, &OptionError{"iis_strategy", "HiGHS refused the value"}
	}
	if opt.TimeLimit > 0 && c.setDoubleOptionValue(h, "iis_time_limit", opt.TimeLimit.Seconds()) == cStatusError {
		return nil, &OptionError{"iis_time_limit", "HiGHS refused the value"}
	}
	nc, nr := len(m.Columns), len(m.Rows)
	var numCol, numRow highsInt
	colIndex := make([]highsInt, nc+1)
	rowIndex := make([]highsInt, nr+1)
	colBound := make([]highsInt, nc+1)
	rowBound := make([]highsInt, nr+1)
	colStatus := make([]highsInt, nc+1)
	rowStatus := make([]highsInt, nr+1)
	if c.getIis(h, &numCol, &numRow, &colIndex[0], &rowIndex[0], &colBound[0], &rowBound[0],
		&colStatus[0], &rowStatus[0]) == cStatusError {
		return nil, errors.New("highs: Highs_getIis failed")
	}
	if numCol == 0 && numRow == 0 {
		return nil, ErrNoConflict
	}
	if int(numCol) > nc || int(numRow) > nr || numCol < 0 || numRow < 0 {
		return nil, fmt.Errorf("highs: Highs_getIis returned %d columns and %d rows for a model of %d and %d",
			numCol, numRow, nc, nr)
	}
	conf := &Conflict{}
	var bad error
	pick := func(index, bound highsInt, n int) ConflictBound {
		if index < 0 || int(index) >= n {
			bad = fmt.Errorf("highs: Highs_getIis returned index %d out of range [0, %d)", index, n)
		}
		side := SideFree
		switch bound {
		case cIisBoundLower:
			side = SideLower
		case cIisBoundUpper:
			side = SideUpper
		case cIisBoundBoxed:
			side = SideBoth
		}
		return ConflictBound{Index: int(index), Side: side}
	}
	for k := range int(numRow) {
		conf.Rows = append(conf.Rows, pick(rowIndex[k], rowBound[k], nr))
	}
	for k := range int(numCol) {
		conf.Columns = append(conf.Columns, pick(colIndex[k], colBound[k], nc))
	}
	if bad != nil {
		return nil, bad
	}
	sortBounds(conf.Rows)
	sortBounds(conf.Columns)
	return conf, nil
}

func sortBounds(b []ConflictBound) {
	slices.SortFunc(b, func(x, y ConflictBound) int { return cmp.Compare(x.Index, y.Index) })
}

package highs

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// A BoundChange sets a column's bounds in the model loaded on a Solver.
type BoundChange struct {
	Col          int
	Lower, Upper float64
}

// ErrNotLoaded is returned by SetBounds and Resolve when the model they are
// given is not the one the Solver's last Solve loaded.
var ErrNotLoaded = errors.New("highs: the model is not the one loaded on this solver")

// SetBounds changes column bounds of m inside HiGHS, where m is the model the
// last Solve on s loaded; m itself is not changed (its bounds are what the
// next Solve loads). The changes stay until changed back.
func (s *Solver) SetBounds(m *Model, changes []BoundChange) error {
	for i, ch := range changes {
		if ch.Col < 0 || ch.Col >= len(m.Columns) {
			return &ModelError{fmt.Sprintf("bound change %d", i), fmt.Sprintf("column %d out of range [0, %d)", ch.Col, len(m.Columns))}
		}
		if err := checkBounds(ch.Lower, ch.Upper); err != "" {
			return &ModelError{fmt.Sprintf("bound change %d: %s", i, colWhere(ch.Col, m.Columns[ch.Col])), err}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle()
	if err := s.loadedErr(m); err != nil {
		return err
	}
	inf := s.lib.infinity
	clamp := func(v float64) float64 {
		switch {
		case math.IsInf(v, 1):
			return inf
		case math.IsInf(v, -1):
			return -inf
		}
		return v
	}
	var err error
	s.inst.do(func(h uintptr) {
		for _, ch := range changes {
			if s.lib.c.changeColBounds(h, highsInt(ch.Col), clamp(ch.Lower), clamp(ch.Upper)) == cStatusError {
				err = fmt.Errorf("highs: Highs_changeColBounds(%d) failed", ch.Col)
				return
			}
		}
	})
	return err
}

// Resolve solves again the model the last Solve on s loaded, with the bound
// changes made since (SetBounds). For an LP, HiGHS starts from the basis of
// the previous solve, so a re-solve after a few bound changes takes a few
// simplex iterations; a MIP starts its search over. opt must ask for the
// same number of threads as that Solve; it replaces its other options (Start
// is not used). An LP re-solve with opt.Basis starts from that basis, with
// HiGHS's other simplex state cleared (Highs_clearSolver): its result then
// does not depend on what was solved on s before, as it does otherwise (a
// degenerate LP's optimal vertex, among several).
func (s *Solver) Resolve(ctx context.Context, m *Model, opt Options) (*Result, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle()
	if err := s.loadedErr(m); err != nil {
		return nil, err
	}
	if err := opt.Basis.fits(m); err != nil {
		return nil, err
	}
	if opt.threadCount() != s.inst.threads {
		return nil, &OptionError{"Threads", fmt.Sprintf("%d, but the model was loaded with %d", opt.threadCount(), s.inst.threads)}
	}
	if ctx.Err() != nil {
		return interrupted(), nil
	}
	opt, fromCtx := withDeadline(ctx, opt)
	inst := s.inst
	inst.interrupt.Store(false)
	stop := context.AfterFunc(ctx, func() { inst.interrupt.Store(true) })
	defer stop()
	var res *Result
	var err error
	if !s.await(ctx, func(h uintptr) {
		if err = setOptions(&s.lib.c, h, opt, m.IsMIP()); err != nil {
			return
		}
		if b := opt.Basis; b != nil && !m.IsMIP() && !opt.InteriorPoint {
			if s.lib.c.clearSolver(h) == cStatusError || s.lib.c.setBasis(h, ptr(b.cols), ptr(b.rows)) == cStatusError {
				err = &OptionError{"Basis", "HiGHS refused the basis (Highs_setBasis failed): not a basis of this model"}
				return
			}
		}
		res, err = s.execute(h, inst, m, opt)
	}) {
		return interrupted(), nil
	}
	byContext(res, fromCtx)
	return res, err
}

// A Basis is a simplex basis of an LP: each column's and each row's status
// (at its lower bound, basic, at its upper bound, zero or nonbasic), as
// HiGHS keeps it after a simplex solve. Solver.Basis takes one; a Solve
// with Options.Basis starts from it.
type Basis struct {
	cols, rows []highsInt
}

// Basis returns the basis of the LP m that the last Solve or Resolve on s
// solved by the simplex method (m must be the model it loaded), or an error
// where HiGHS has none (an interior point solve without crossover, a MIP).
func (s *Solver) Basis(m *Model) (*Basis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle()
	if err := s.loadedErr(m); err != nil {
		return nil, err
	}
	if m.IsMIP() {
		return nil, errors.New("highs: a MIP has no basis to take")
	}
	b := &Basis{cols: make([]highsInt, len(m.Columns)), rows: make([]highsInt, len(m.Rows))}
	var st highsInt
	s.inst.do(func(h uintptr) {
		st = s.lib.c.getBasis(h, ptr(b.cols), ptr(b.rows))
	})
	if st == cStatusError {
		return nil, errors.New("highs: HiGHS has no basis of the model (Highs_getBasis failed)")
	}
	for _, v := range b.cols {
		if v < 0 || v > 4 { // kHighsBasisStatusLower … Nonbasic
			return nil, errors.New("highs: HiGHS has no valid basis of the model")
		}
	}
	return b, nil
}

// loadedErr says why m cannot be worked on where it is loaded: s is
// closed, or m is not the model s's last Solve loaded (nil: it can). s.mu
// must be held.
func (s *Solver) loadedErr(m *Model) error {
	if s.inst == nil {
		return ErrClosed
	}
	if s.loaded != m {
		return ErrNotLoaded
	}
	return nil
}

// fits checks that b (nil: none) is a basis of m's shape.
func (b *Basis) fits(m *Model) error {
	if b != nil && (len(b.cols) != len(m.Columns) || len(b.rows) != len(m.Rows)) {
		return &OptionError{"Basis", fmt.Sprintf("a basis of %d columns and %d rows for a model of %d and %d", len(b.cols), len(b.rows), len(m.Columns), len(m.Rows))}
	}
	return nil
}

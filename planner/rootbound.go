package planner

import (
	"context"
	"math"
	"slices"

	"github.com/cklplan/cklplan/internal/highs"
)

// The root bound under a time limit. A large core's first LP can outlast
// the limit inside HiGHS's branch and bound (dual simplex took 12–80 s on
// the cores of the generated 1,000-invocation DAGs), and the bound
// reported is then only the execution floor. The same LP solved by the
// interior point method on the other processor, beside the branch and
// bound, gives a bound in a fraction of that time: its duals prove one
// through lagrangeBound, whatever tolerance stopped it.

// A rootLP is the core's LP relaxation solved by the interior point method
// on the other processor, beside the branch and bound: under a time limit
// for the bound its duals prove (HiGHS may stop inside its own root LP),
// and for the duals themselves when the regrets will price certificates
// by them (certify.go), so that the regrets' time is not spent on it. It
// is solved with the options of the regrets' own solve, so its duals are
// the ones that solve would find.
type rootLP struct {
	stop  context.CancelFunc
	done  chan struct{}
	duals []float64 // nil when the solve did not end optimal
	bound float64   // NaN when the solve did not end optimal
}

// startRootLP starts solving m's LP relaxation with opt (the duals and the
// interior point method are added) until ctx ends or stop is called.
func startRootLP(ctx context.Context, lib *highs.Library, m *highs.Model, opt highs.Options) *rootLP {
	ctx, stop := context.WithCancel(ctx)
	rl := &rootLP{stop: stop, done: make(chan struct{}), bound: math.NaN()}
	opt.Duals, opt.InteriorPoint = true, true
	opt.Start, opt.Progress = nil, nil
	go func() {
		defer close(rl.done)
		s, err := lib.NewSolver()
		if err != nil {
			return
		}
		defer s.Close()
		lp := relaxation(m)
		res, err := solveDuals(ctx, s, &lp, opt)
		if err != nil || res.Status != highs.Optimal || len(res.RowDuals) != len(lp.Rows) {
			return
		}
		rl.duals = res.RowDuals
		rl.bound = lagrangeBound(&lp, res.RowDuals)
	}()
	return rl
}

// solveDuals solves the LP lp on s with opt, which asks for its duals by
// the interior point method. HiGHS's postsolve can leave the optimal
// interior point of the presolved LP with dual infeasibilities, and then
// calls its status unknown, with no duals: on the core of cklplan gen dag
// --invocations 1000 --exec-scale 100 --seed 5, 15 reduced costs up to
// −52 ns, after the removal of dependent equations, which presolve now
// skips under highs.Options.InteriorPoint. Without the certificates those
// duals price, every regret took 157 s there. So an LP whose status is
// unknown still is solved again without presolve, whose interior point is
// the one HiGHS returns (TestDualsWithoutPostsolve): seed 5's every regret
// took 4.5 s that way, 2.5 s with the equations kept.
func solveDuals(ctx context.Context, s *highs.Solver, lp *highs.Model, opt highs.Options) (*highs.Result, error) {
	res, err := s.Solve(ctx, lp, opt)
	if err != nil || res.Status != highs.SolverError || opt.Presolve == highs.PresolveOff || ctx.Err() != nil {
		return res, err
	}
	opt.Presolve = highs.PresolveOff
	return s.Solve(ctx, lp, opt)
}

// wait waits for the solve to end, or for ctx: then it stops the solve and
// reports false.
func (rl *rootLP) wait(ctx context.Context) bool {
	select {
	case <-rl.done:
		return true
	case <-ctx.Done():
		rl.stop()
		return false
	}
}

// finished reports whether the solve has ended.
func (rl *rootLP) finished() bool {
	select {
	case <-rl.done:
		return true
	default:
		return false
	}
}

// relaxation is m's LP relaxation: m with no integer column (the rows and
// the rest of the columns shared).
func relaxation(m *highs.Model) highs.Model {
	lp := *m
	lp.Columns = slices.Clone(m.Columns)
	for j := range lp.Columns {
		lp.Columns[j].Integer = false
	}
	return lp
}

// lagrangeBound is the Lagrangian bound of the minimization m priced by
// the row multipliers y (certify.go):
//
//	L(y) = Offset + Σ_i y_i b_i(y_i) + Σ_j min { d_j x_j : l_j ≤ x_j ≤ u_j },  d = c − Aᵀy,
//
// where b_i(y_i) is row i's lower bound for y_i > 0 and its upper for
// y_i < 0. It bounds every point that satisfies the rows and boxes, so for
// any y, optimal or not: approximate duals give a bound a little below the
// LP's optimum, never above it. It is −Inf when y prices an unbounded row
// side or column end.
func lagrangeBound(m *highs.Model, y []float64) float64 {
	d := make([]float64, len(m.Columns))
	for j, c := range m.Columns {
		d[j] = c.Cost
	}
	bound := m.Offset
	for i, row := range m.Rows {
		if y[i] == 0 {
			continue
		}
		bound += y[i] * rowBound(row, y[i])
		for _, t := range row.Terms {
			d[t.Col] -= y[i] * t.Coef
		}
	}
	for j, c := range m.Columns {
		bound += boxMin(d[j], c.Lower, c.Upper)
	}
	if math.IsNaN(bound) {
		return math.Inf(-1)
	}
	return bound
}

package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// edgeBlocks splits a graph's edges into its biconnected components: a
// triangle a-b-c, a bridge c-d, two parallel edges d-e (a cycle of two),
// and a square e-f-g-h.
func TestEdgeBlocks(t *testing.T) {
	ends := [][2]int{
		{0, 1}, {1, 2}, {0, 2}, // triangle
		{2, 3},         // bridge
		{3, 4}, {3, 4}, // parallel
		{4, 5}, {5, 6}, {6, 7}, {4, 7}, // square
		{8, 9}, // another component
	}
	block, n := edgeBlocks(10, ends)
	if n != 5 {
		t.Fatalf("%d blocks %v, want 5", n, block)
	}
	same := func(is ...int) bool {
		for _, i := range is {
			if block[i] != block[is[0]] {
				return false
			}
		}
		return true
	}
	if !same(0, 1, 2) || !same(4, 5) || !same(6, 7, 8, 9) {
		t.Errorf("blocks %v: the triangle, the parallel pair and the square are each one", block)
	}
	distinct := []int{block[0], block[3], block[4], block[6], block[10]}
	slices.Sort(distinct)
	if len(slices.Compact(distinct)) != 5 {
		t.Errorf("blocks %v: the triangle, the bridge, the pair, the square and the last edge are five", block)
	}
}

// On a random DAG whose every invocation may cross a kernel boundary, the
// levels of one block make the plan the cheapest with an order of kernels,
// proven: with the rows against single conflicts that came before them,
// 50 invocations spent 4 min 26 s in 32 rounds and still had conflicts.
func TestKernelOrderLevels(t *testing.T) {
	minTime := orderMinTime
	defer func() { orderMinTime = minTime }()
	orderMinTime = time.Hour
	g := orderGraph(t, rand.New(rand.NewPCG(20, 3)), 20)
	r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Optimal || len(r.KernelConflicts) > 0 || len(r.KernelOrder) != 1 {
		t.Fatalf("status %v, conflicts %q, blocks added for %q; want a plan proven optimal with an order, one block added", r.Status, r.KernelConflicts, r.KernelOrder)
	}
	ev, err := EvaluateGraph(g, ChoicesOf(r), PlanOptions{})
	if err != nil || !hasKernelOrder(ev.Edges) {
		t.Fatalf("the plan's kernels have no order (%v)", err)
	}
	// Without the levels the cheapest plan has conflicts: the levels cost
	// something here.
	rounds := orderRounds
	orderRounds, orderFlags = 0, false
	defer func() { orderRounds, orderFlags = rounds, true }()
	free, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true}})
	if err != nil || len(free.KernelConflicts) == 0 || !(free.ObjectiveNS < r.ObjectiveNS) {
		t.Errorf("without levels: %v (%v); want a cheaper plan with conflicts", free, err)
	}
}

// Where the rounds' time (under a time limit) runs out before the levels' solve is proven, the
// plan that comes back is the best one found whose kernels have an order,
// not the first plan with its conflicts: orderRepair gives HiGHS such a
// plan to start from. Its cost is what the graph says (an incumbent HiGHS
// stops at may carry slack in its fan-outs' columns: the plan's cost is
// its point's).
func TestKernelOrderUnderTimeLimit(t *testing.T) {
	minTime := orderMinTime
	defer func() { orderMinTime = minTime }()
	orderMinTime = time.Second
	for _, n := range []int{50, 100} {
		g := orderGraph(t, rand.New(rand.NewPCG(uint64(n), 3)), n)
		// The windows are there only under a time bound.
		r, err := Plan(context.Background(), g, PlanOptions{Solve: Options{NoRegrets: true, TimeLimit: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.KernelConflicts) > 0 {
			t.Errorf("%d invocations: conflicts %q; want the best plan found with an order", n, r.KernelConflicts)
		}
		ev, err := EvaluateGraph(g, ChoicesOf(r), PlanOptions{})
		if err != nil || !hasKernelOrder(ev.Edges) || !ev.Feasible() {
			t.Errorf("%d invocations: the plan's kernels have no order (%v)", n, err)
		}
	}
}

// orderRepair finds a plan whose kernels have an order from a plan with
// conflicts, on random DAGs whose every invocation may cross.
func TestOrderRepair(t *testing.T) {
	repaired := 0
	for _, n := range []int{10, 20, 50, 100} {
		g := orderGraph(t, rand.New(rand.NewPCG(uint64(n), 5)), n)
		lw := lowered(t, g)
		local := localChoice(&lw.problem).Choices
		if !lw.hasOrderConflict(local) {
			continue
		}
		plan := lw.orderRepair(local, time.Now().Add(time.Minute))
		if plan == nil || lw.hasOrderConflict(plan) {
			t.Errorf("%d invocations: no repair of the local choice (%v)", n, plan)
		}
		repaired++
	}
	if repaired < 2 {
		t.Errorf("%d local choices had conflicts: the test tests too little", repaired)
	}
}

// On a triangle u→v→w with u→w whose three edges the choices decide, the
// cycle's rows say that u→w crosses where u→v or v→w does, and that one of
// those crosses where u→w does: c_uv ≤ c_uw, c_vw ≤ c_uw, c_uw ≤ c_uv + c_vw.
func TestCycleRowsOfATriangle(t *testing.T) {
	o := &orderSystem{edges: []orderSysEdge{{u: 0, w: 1}, {u: 1, w: 2}, {u: 0, w: 2}}}
	om := &orderModel{}
	// Crossing columns 0, 1, 2 for the edges 0, 1, 2.
	om.cycleRows(o, []int{0, 1, 2}, []int8{-1, -1, -1}, []int{0, 1, 2})
	var got []string
	for _, r := range om.rows {
		row := ""
		for _, tm := range r.terms {
			row += fmt.Sprintf("%+g·c%d ", tm.coef, tm.level)
		}
		got = append(got, fmt.Sprintf("%s≤ %g", row, r.hi))
	}
	slices.Sort(got)
	want := []string{"+1·c0 -1·c2 ≤ 0", "+1·c1 -1·c2 ≤ 0", "+1·c2 -1·c0 -1·c1 ≤ 0"}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	// An edge fixed to cross against the direction satisfies the row
	// whatever the plan: no row; one fixed inside drops out of the sums.
	om = &orderModel{}
	om.cycleRows(o, []int{0, 1, 2}, []int8{-1, -1, 1}, []int{0, 1, -1})
	if len(om.rows) != 0 {
		t.Errorf("with u→w crossing in every plan: rows %v, want none", om.rows)
	}
	om = &orderModel{}
	om.cycleRows(o, []int{0, 1, 2}, []int8{-1, -1, 0}, []int{0, 1, -1})
	if len(om.rows) != 2 || len(om.rows[0].terms) != 1 || len(om.rows[1].terms) != 1 {
		t.Errorf("with u→w inside in every plan: rows %v, want c0 ≤ 0 and c1 ≤ 0", om.rows)
	}
}

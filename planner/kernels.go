package planner

import (
	"fmt"
	"slices"

	"github.com/cklplan/cklplan/tasks"
)

// maxKernelConflicts is how many conflicts a plan names.
const maxKernelConflicts = 8

// kernelConflicts checks that the plan's kernels can run in some order.
// The invocations that edges planned inside one kernel join are one kernel
// (a declared group is not: an alternative in it may be a kernel of its
// own, docs/format.md); every edge that crosses a kernel
// boundary orders its producer's kernel before its consumer's. A boundary
// inside one kernel, or a cycle of kernels, has no order: a tile would have
// to stay inside a kernel that another path leaves and re-enters. It
// returns, for the boundaries in such a conflict (at most
// maxKernelConflicts, then a count), what is wrong, in words.
func (lw *lowering) kernelConflicts(bs []Boundary) []string {
	kernels := newUnionFind(len(lw.invs))
	find, union := kernels.find, kernels.union
	inKernel := tasks.InKernel.String()
	for i := range bs { // by index: a Boundary is large to copy
		if bs[i].Crossing == inKernel {
			e := lw.boundaryEdges[i]
			union(e.From.Invocation.Index, e.To.Invocation.Index)
		}
	}
	// The kernels' order: a boundary inside one kernel conflicts at once;
	// the others are ordered by Kahn's algorithm, and those left on a
	// cycle conflict.
	var conflicts []int // indices in bs
	succ := map[int][]int{}
	indeg := map[int]int{}
	var crossing []int
	for i := range bs {
		if bs[i].Crossing == inKernel {
			continue
		}
		e := lw.boundaryEdges[i]
		ku, kv := find(e.From.Invocation.Index), find(e.To.Invocation.Index)
		if ku == kv {
			conflicts = append(conflicts, i)
			continue
		}
		crossing = append(crossing, i)
		succ[ku] = append(succ[ku], kv)
		indeg[kv]++
	}
	var ready []int
	for _, i := range crossing {
		e := lw.boundaryEdges[i]
		if ku := find(e.From.Invocation.Index); indeg[ku] == 0 && !slices.Contains(ready, ku) {
			ready = append(ready, ku)
		}
	}
	done := ordered(ready, succ, indeg)
	for _, i := range crossing {
		e := lw.boundaryEdges[i]
		if ku := find(e.From.Invocation.Index); !done[ku] && indeg[find(e.To.Invocation.Index)] > 0 {
			conflicts = append(conflicts, i)
		}
	}
	slices.Sort(conflicts)
	out := lw.groupsJoined(bs, find)
	for k, i := range conflicts {
		if len(out) == maxKernelConflicts {
			out = append(out, fmt.Sprintf("and %d more kernel boundaries in conflict", len(conflicts)-k))
			break
		}
		e := lw.boundaryEdges[i]
		u, v := e.From.Invocation, e.To.Invocation
		if find(u.Index) == find(v.Index) {
			out = append(out, fmt.Sprintf("%s crosses a kernel boundary, but %s and %s are in one kernel (%s): no kernel runs both sides of its own boundary; re-read the tile after the boundary, or mark the edges that cannot stay in one kernel must_cross",
				bs[i].Edge, u.ID, v.ID, lw.joinedBy(bs, u, v)))
			continue
		}
		out = append(out, fmt.Sprintf("%s crosses a kernel boundary from %s's kernel to %s's, and a path of boundaries leads back: no order of kernels runs them; re-read the tile after a boundary, or mark the edges that cannot stay in one kernel must_cross",
			bs[i].Edge, u.ID, v.ID))
	}
	return out
}

// groupsJoined says where the plan keeps invocations of two groups in one
// kernel (find gives the kernels), at most maxKernelConflicts times: two
// groups are two kernels (docs/format.md, "Groups"), and such a kernel holds
// what both budgets count apart. An edge between two groups always crosses,
// so the kernel joins them through invocations in no group, which the
// planner does not keep from it: said here, as check says where it may
// happen (group_bridge).
func (lw *lowering) groupsJoined(bs []Boundary, find func(int) int) []string {
	first := map[int]*tasks.Invocation{} // a kernel → its first invocation in a group
	said := map[[2]*tasks.Group]bool{}
	var out []string
	for _, v := range lw.invs {
		gv := lw.kernelOf[v.Index]
		if gv == nil {
			continue
		}
		k := find(v.Index)
		u, ok := first[k]
		if !ok {
			first[k] = v
			continue
		}
		gu := lw.kernelOf[u.Index]
		if gu == gv || said[[2]*tasks.Group{gu, gv}] || len(out) == maxKernelConflicts {
			continue
		}
		said[[2]*tasks.Group{gu, gv}] = true
		out = append(out, fmt.Sprintf("groups %s and %s are two kernels, but the plan keeps %s and %s in one (%s): it holds what both budgets count apart; the planner does not rule this out: add the invocations between them to a group, or mark an edge on the way must_cross",
			gu.ID, gv.ID, u.ID, v.ID, lw.joinedBy(bs, u, v)))
	}
	return out
}

// joinedBy says how u and v come to be in one kernel: the shortest path
// of boundaries planned inside one kernel between them (in either
// direction).
func (lw *lowering) joinedBy(bs []Boundary, u, v *tasks.Invocation) string {
	inKernel := tasks.InKernel.String()
	adj := map[*tasks.Invocation][]int{}
	for i, b := range bs {
		if b.Crossing == inKernel {
			e := lw.boundaryEdges[i]
			adj[e.From.Invocation] = append(adj[e.From.Invocation], i)
			adj[e.To.Invocation] = append(adj[e.To.Invocation], i)
		}
	}
	via := map[*tasks.Invocation]int{u: -1}
	queue := []*tasks.Invocation{u}
	for len(queue) > 0 && via[v] == 0 {
		w := queue[0]
		queue = queue[1:]
		for _, i := range adj[w] {
			e := lw.boundaryEdges[i]
			x := e.To.Invocation
			if x == w {
				x = e.From.Invocation
			}
			if _, seen := via[x]; !seen {
				via[x] = i + 1 // 1 + the boundary that reached x
				queue = append(queue, x)
			}
		}
	}
	if _, ok := via[v]; !ok || v == u {
		return "through boundaries planned inside one kernel"
	}
	var path []string
	for x := v; x != u; {
		i := via[x] - 1
		path = append(path, bs[i].Edge)
		e := lw.boundaryEdges[i]
		if e.To.Invocation == x {
			x = e.From.Invocation
		} else {
			x = e.To.Invocation
		}
	}
	slices.Reverse(path)
	return "joined by " + edgeList(path) + ", planned inside one kernel"
}

// A unionFind is a partition of 0…n−1 (the invocations joined into
// kernels), each class named by its least member.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

// find is v's class.
func (u unionFind) find(v int) int {
	for u[v] != v {
		u[v] = u[u[v]]
		v = u[v]
	}
	return v
}

// union joins a's class and b's.
func (u unionFind) union(a, b int) {
	if ra, rb := u.find(a), u.find(b); ra != rb {
		u[max(ra, rb)] = min(ra, rb)
	}
}

// ordered runs Kahn's algorithm over the kernels from ready (those no arc
// enters), taking indeg down as it goes: the kernels it orders. Those left
// are on or after a cycle.
func ordered(ready []int, succ map[int][]int, indeg map[int]int) map[int]bool {
	done := map[int]bool{}
	for len(ready) > 0 {
		k := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		done[k] = true
		for _, s := range succ[k] {
			if indeg[s]--; indeg[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	return done
}

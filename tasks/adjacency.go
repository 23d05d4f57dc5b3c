package tasks

import (
	"slices"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
)

// adjacency is the invocation graph as gonum's graph.Directed, over slices:
// node i is invocation i, and succ[i], pred[i] its distinct neighbours in
// ascending order. gonum's algorithms (topo.SortStabilized, TarjanSCC,
// ConnectedComponents through graph.Undirect) run on it directly, without
// the maps of simple.DirectedGraph.
type adjacency struct {
	nodes      []graph.Node
	succ, pred [][]graph.Node
}

func newAdjacency(n int) *adjacency {
	a := &adjacency{nodes: make([]graph.Node, n), succ: make([][]graph.Node, n), pred: make([][]graph.Node, n)}
	for i := range a.nodes {
		a.nodes[i] = simple.Node(i)
	}
	return a
}

// addEdge adds u → w (u ≠ w); finish sorts and deduplicates.
func (a *adjacency) addEdge(u, w int) {
	a.succ[u] = append(a.succ[u], a.nodes[w])
	a.pred[w] = append(a.pred[w], a.nodes[u])
}

func (a *adjacency) finish() {
	byID := func(x, y graph.Node) int { return int(x.ID() - y.ID()) }
	same := func(x, y graph.Node) bool { return x.ID() == y.ID() }
	for i := range a.nodes {
		slices.SortFunc(a.succ[i], byID)
		a.succ[i] = slices.CompactFunc(a.succ[i], same)
		slices.SortFunc(a.pred[i], byID)
		a.pred[i] = slices.CompactFunc(a.pred[i], same)
	}
}

func (a *adjacency) has(id int64) bool { return id >= 0 && id < int64(len(a.nodes)) }

func (a *adjacency) Node(id int64) graph.Node {
	if !a.has(id) {
		return nil
	}
	return a.nodes[id]
}

func (a *adjacency) Nodes() graph.Nodes { return iterator.NewOrderedNodes(a.nodes) }

func (a *adjacency) From(id int64) graph.Nodes {
	if !a.has(id) || len(a.succ[id]) == 0 {
		return graph.Empty
	}
	return iterator.NewOrderedNodes(a.succ[id])
}

func (a *adjacency) To(id int64) graph.Nodes {
	if !a.has(id) || len(a.pred[id]) == 0 {
		return graph.Empty
	}
	return iterator.NewOrderedNodes(a.pred[id])
}

func (a *adjacency) HasEdgeFromTo(u, w int64) bool {
	if !a.has(u) || !a.has(w) {
		return false
	}
	_, found := slices.BinarySearchFunc(a.succ[u], w, func(n graph.Node, id int64) int { return int(n.ID() - id) })
	return found
}

func (a *adjacency) HasEdgeBetween(x, y int64) bool {
	return a.HasEdgeFromTo(x, y) || a.HasEdgeFromTo(y, x)
}

func (a *adjacency) Edge(u, w int64) graph.Edge {
	if !a.HasEdgeFromTo(u, w) {
		return nil
	}
	return simple.Edge{F: a.nodes[u], T: a.nodes[w]}
}

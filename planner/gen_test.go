package planner

import (
	"fmt"
	"math/rand/v2"
)

// Generators of large abstract problems for the benchmarks.

// genAlternatives is the number of alternatives per node and genLabels the
// distributions a port may be in, in the transformer-like family.
const (
	genAlternatives = 8
	genLabels       = 4
)

type generator struct {
	rng    *rand.Rand
	p      *Problem
	alts   int
	labels []string
	forbid bool // one non-identity pair in eight cannot be converted
}

func newGenerator(seed uint64, alts, labels int) *generator {
	g := &generator{rng: rand.New(rand.NewPCG(seed, 0x6e6e)), p: &Problem{}, alts: alts, forbid: true}
	for l := range labels {
		g.labels = append(g.labels, fmt.Sprintf("d%d", l))
	}
	return g
}

// node adds a node with random execution costs (100–1100 ns).
func (g *generator) node(name string) int {
	n := Node{Name: name}
	for a := range g.alts {
		n.Alternatives = append(n.Alternatives, Alternative{ID: fmt.Sprintf("alt%d", a), Cost: float64(100 + g.rng.IntN(1000))})
	}
	g.p.Nodes = append(g.p.Nodes, n)
	return len(g.p.Nodes) - 1
}

func (g *generator) portLabels(v int) []string {
	ls := make([]string, len(g.p.Nodes[v].Alternatives))
	for i := range ls {
		ls[i] = g.labels[g.rng.IntN(len(g.labels))]
	}
	return ls
}

// edge adds a group from producer u to its consumers: every pair of
// distributions convertible (identity free, others 20–420 ns), except that,
// when g.forbid, one non-identity pair in eight cannot be converted.
func (g *generator) edge(u int, consumers ...int) {
	gr := Group{Name: fmt.Sprintf("%s.out%d", g.p.Nodes[u].Name, len(g.p.Groups)), Producer: u, Sources: g.portLabels(u)}
	for _, w := range consumers {
		gr.Consumers = append(gr.Consumers, Consumer{Node: w, Targets: g.portLabels(w)})
	}
	for _, s := range g.labels {
		for _, t := range g.labels {
			switch {
			case s == t:
				gr.Pairs = append(gr.Pairs, Pair{Source: s, Target: t})
			case g.rng.IntN(8) == 0 && g.forbid:
			default:
				gr.Pairs = append(gr.Pairs, Pair{Source: s, Target: t, Cost: float64(20 + g.rng.IntN(400))})
			}
		}
	}
	g.p.Groups = append(g.p.Groups, gr)
}

// transformerNodesPerLayer is the node count of one transformerLike layer.
const transformerNodesPerLayer = 15

// transformerLike is a stack of layers over a residual stream x:
//
//	ln1 = norm(x); q, k, v = proj(ln1) (fan-out); s = q·kᵀ; p = softmax(s);
//	a = p·v; o = proj(a); h = o + x (residual); ln2 = norm(h);
//	gate, up = proj(ln2) (fan-out); m = gate * up; d = proj(m); x' = d + h (residual)
//
// with alts alternatives per node and 4 distributions per port; x feeds ln1 and
// the first add, h feeds ln2 and the second add (fan-outs).
func transformerLike(seed uint64, nodes, alts int) *Problem {
	g := newGenerator(seed, alts, genLabels)
	x := g.node("embed")
	for l := 0; len(g.p.Nodes)+transformerNodesPerLayer <= nodes; l++ {
		name := func(s string) string { return fmt.Sprintf("l%d.%s", l, s) }
		ln1 := g.node(name("ln1"))
		q, k, v := g.node(name("q")), g.node(name("k")), g.node(name("v"))
		s := g.node(name("qk"))
		pr := g.node(name("softmax"))
		a := g.node(name("pv"))
		o := g.node(name("o"))
		h := g.node(name("add1"))
		ln2 := g.node(name("ln2"))
		gate, up := g.node(name("gate")), g.node(name("up"))
		m := g.node(name("mul"))
		d := g.node(name("down"))
		x2 := g.node(name("add2"))
		g.edge(x, ln1, h)
		g.edge(ln1, q, k, v)
		g.edge(q, s)
		g.edge(k, s)
		g.edge(s, pr)
		g.edge(pr, a)
		g.edge(v, a)
		g.edge(a, o)
		g.edge(o, h)
		g.edge(h, ln2, x2)
		g.edge(ln2, gate, up)
		g.edge(gate, m)
		g.edge(up, m)
		g.edge(m, d)
		g.edge(d, x2)
		x = x2
	}
	for len(g.p.Nodes) < nodes {
		next := g.node(fmt.Sprintf("tail%d", len(g.p.Nodes)))
		g.edge(x, next)
		x = next
	}
	return g.p
}

// randomDAG has n nodes with alts alternatives; each node after the first
// two consumes two earlier nodes chosen at random (average degree 4). A
// producer's consumers share one fan-out group. Every pair converts (with
// forbidden pairs, a node with many producers is soon infeasible).
func randomDAG(seed uint64, n, alts int) *Problem {
	g := newGenerator(seed, alts, genLabels)
	g.forbid = false
	consumers := make([][]int, n)
	for v := range n {
		g.node(fmt.Sprintf("v%d", v))
		if v < 2 {
			continue
		}
		a := g.rng.IntN(v)
		b := g.rng.IntN(v - 1)
		if b >= a {
			b++
		}
		consumers[a] = append(consumers[a], v)
		consumers[b] = append(consumers[b], v)
	}
	for u, cs := range consumers {
		if len(cs) > 0 {
			g.edge(u, cs...)
		}
	}
	return g.p
}

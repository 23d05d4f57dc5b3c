package planner

// A kernel evaluates a bucket row by row: for one assignment of the
// separator's classes it computes each term's base index once, and then the
// bucket's value at every alternative of the eliminated node with one lookup
// per term. It is the inner loop of elimination and of the distribute pass.
type kernel struct {
	b     *bucket
	tabs  []indexer // tabulated terms
	vals  [][]float64
	slow  []int // terms without a table, evaluated from their group
	terms []term
	in    *instance
	rest  []scoped // backing store of the indexers' rest
}

// An indexer computes a table's entry from an assignment, split into the
// part fixed by the separator (base) and the eliminated node's offset.
type indexer struct {
	vcls    []int // the eliminated node's class map, nil when not in scope
	vstride int
	rest    []scoped
}

type scoped struct {
	node   int
	cls    []int
	stride int
}

// newIndexer indexes a table over scope (class maps cls, class counts ncls)
// with node v split out; it appends the other nodes to store, which backs
// the indexer's rest.
func newIndexer(scope []int, cls [][]int, ncls []int, v int, store *[]scoped) indexer {
	var ix indexer
	stride := 1
	start := len(*store)
	for j := len(scope) - 1; j >= 0; j-- {
		if scope[j] == v {
			ix.vcls, ix.vstride = cls[j], stride
		} else {
			*store = append(*store, scoped{scope[j], cls[j], stride})
		}
		stride *= ncls[j]
	}
	ix.rest = (*store)[start:len(*store):len(*store)]
	return ix
}

func (ix *indexer) baseOf(asg []int) int {
	idx := 0
	for _, s := range ix.rest {
		idx += s.cls[asg[s.node]] * s.stride
	}
	return idx
}

func (ix *indexer) at(base, k int) int {
	if ix.vcls == nil {
		return base
	}
	return base + ix.vcls[k]*ix.vstride
}

// load sets the kernel up for bucket b, reusing its buffers.
func (kn *kernel) load(r *reduction, b *bucket) {
	kn.b, kn.terms, kn.in = b, r.terms, r.in
	kn.tabs, kn.vals, kn.slow, kn.rest = kn.tabs[:0], kn.vals[:0], kn.slow[:0], kn.rest[:0]
	for _, t := range b.terms {
		tm := &r.terms[t]
		if tm.table == nil {
			kn.slow = append(kn.slow, t)
			continue
		}
		kn.tabs = append(kn.tabs, newIndexer(tm.scope, tm.cls, tm.ncls, b.node, &kn.rest))
		kn.vals = append(kn.vals, tm.table)
	}
}

// row writes the bucket's value at every alternative of the eliminated node
// into out, for the separator assignment in sc.asg. Each value is the unary
// cost plus the terms in order, the same sum whatever the loop order.
func (kn *kernel) row(sc *scratch, out []float64) {
	copy(out, kn.b.unary)
	for i := range kn.tabs {
		ix := &kn.tabs[i]
		base := ix.baseOf(sc.asg)
		vals := kn.vals[i]
		if ix.vcls == nil {
			c := vals[base]
			for k := range out {
				out[k] += c
			}
			continue
		}
		vs := ix.vstride
		for k, c := range ix.vcls[:len(out)] {
			out[k] += vals[base+c*vs]
		}
	}
	if len(kn.slow) > 0 {
		v := kn.b.node
		for k := range out {
			sc.asg[v] = k
			for _, t := range kn.slow {
				out[k] += kn.in.eval(&kn.terms[t], sc.asg, sc.seen)
			}
		}
	}
}

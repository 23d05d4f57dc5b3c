package planner

// A kernel evaluates a bucket row by row: for one assignment of the
// separator's classes it computes each term's base index once, and then the
// bucket's value at every alternative of the eliminated node with one lookup
// per term. It is the inner loop of elimination and of the distribute pass.
//
// The rows come in the odometer's order, the separator's last node fastest,
// and most terms do not read it: a term's values at the eliminated node's
// alternatives (its contribution) change only where a node of its scope
// does. So each tabulated term's contribution is kept, and the running sums
// unary + t_1 + … + t_i too; a row whose separator changed from position p
// on takes new values of the terms whose scope reaches p or later, and sums
// again from the first of them. The sums are the same as term by term, in
// the same order, bit for bit. (On a 16-invocation DAG whose every task may
// run as its own kernel, whose buckets reach 171,875 entries, the row took
// 29 of the 64 s of every regret, 12 s of them in baseOf.)
type kernel struct {
	b     *bucket
	tabs  []indexer // tabulated terms
	vals  [][]float64
	slow  []int // terms without a table, evaluated from their group
	terms []term
	in    *instance
	rest  []scoped // backing store of the indexers' rest

	// level[i] is 1 + the last separator position that tabulated term i
	// reads (0: none); firstAt[p] the first term of level p or more.
	level, firstAt []int
	// contrib[i] and sums[i] (each the eliminated node's domain long) are
	// term i's contribution and unary + t_0 + … + t_i, at the last row.
	contrib, sums [][]float64
	buf           []float64 // their backing store
	// seps holds the separator positions of the nodes in rest, by node
	// (-1 elsewhere), while a bucket loads.
	seps []int
	// pos[i] are the separator positions of tabulated term i's rest (in
	// its order: descending), and suffix[i][j] the sum of its entries' base
	// parts from j on, at the last row: a row recomputes the parts of the
	// positions that changed, the deepest first.
	pos, suffix    [][]int
	posBuf, sufBuf []int
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

// keptRows is the least number of rows for which a bucket's rows go on
// from the last one's (rowFrom): below it, each row is summed from
// nothing (row), and the kernel keeps nothing of it. (The 10,000-node
// transformer's buckets, most of a few rows, took 1–3 % longer kept.)
const keptRows = 16

// rows returns the bucket's rows in the odometer's order, over the n
// entries of its message: the rows that go on from the last one's (keep),
// or each from nothing.
func (kn *kernel) rows(n int) (keep bool) {
	if n < keptRows {
		return false
	}
	kn.keep()
	return true
}

// keep sets up what rowFrom keeps of the bucket loaded.
func (kn *kernel) keep() {
	b := kn.b
	// Each term's level, from its scope's separator positions.
	if len(kn.seps) < len(kn.in.p.Nodes) {
		kn.seps = make([]int, len(kn.in.p.Nodes))
		for i := range kn.seps {
			kn.seps[i] = -1
		}
	}
	for p, n := range b.sep {
		kn.seps[n] = p
	}
	kn.level, kn.posBuf, kn.sufBuf = kn.level[:0], kn.posBuf[:0], kn.sufBuf[:0]
	for i := range kn.tabs {
		l := 0
		for _, s := range kn.tabs[i].rest {
			l = max(l, kn.seps[s.node]+1)
			kn.posBuf = append(kn.posBuf, kn.seps[s.node])
			kn.sufBuf = append(kn.sufBuf, 0)
		}
		kn.level = append(kn.level, l)
		kn.sufBuf = append(kn.sufBuf, 0)
	}
	kn.pos, kn.suffix = kn.pos[:0], kn.suffix[:0]
	pb, sb := 0, 0
	for i := range kn.tabs {
		n := len(kn.tabs[i].rest)
		kn.pos = append(kn.pos, kn.posBuf[pb:pb+n:pb+n])
		kn.suffix = append(kn.suffix, kn.sufBuf[sb:sb+n+1:sb+n+1])
		pb, sb = pb+n, sb+n+1
	}
	for _, n := range b.sep {
		kn.seps[n] = -1
	}
	kn.firstAt = kn.firstAt[:0]
	for p := 0; p <= len(b.sep); p++ {
		first := len(kn.tabs)
		for i, l := range kn.level {
			if l >= p {
				first = i
				break
			}
		}
		kn.firstAt = append(kn.firstAt, first)
	}
	dv := len(b.unary)
	if need := 2 * len(kn.tabs) * dv; cap(kn.buf) < need {
		kn.buf = make([]float64, need)
	}
	kn.contrib, kn.sums = kn.contrib[:0], kn.sums[:0]
	for i := range kn.tabs {
		at := 2 * i * dv
		kn.contrib = append(kn.contrib, kn.buf[at:at+dv:at+dv])
		kn.sums = append(kn.sums, kn.buf[at+dv:at+2*dv:at+2*dv])
	}
}

// rowFrom is row where the separator assignment in sc.asg differs from the
// last row's (of this bucket, since keep) only at positions from − 1 and
// later: from is 1 + the odometer's changed position (odometer.changed), 0
// for a first row or any assignment. It returns the row: out, or where
// every term is tabulated the kernel's own sums, which the caller must not
// change and which the next row overwrites. Without keep (rows said
// not to) it is row.
func (kn *kernel) rowFrom(sc *scratch, out []float64, from int, keep bool) []float64 {
	if !keep {
		kn.row(sc, out)
		return out
	}
	first := kn.firstAt[min(from, len(kn.firstAt)-1)]
	prev := kn.b.unary
	if first > 0 {
		prev = kn.sums[first-1]
	}
	for i := first; i < len(kn.tabs); i++ {
		c := kn.contrib[i][:len(out)]
		if kn.level[i] >= from {
			ix := &kn.tabs[i]
			pos, suf := kn.pos[i], kn.suffix[i]
			j := 0
			for j < len(pos) && pos[j] >= from-1 {
				j++
			}
			for m := j - 1; m >= 0; m-- {
				s := &ix.rest[m]
				suf[m] = suf[m+1] + s.cls[sc.asg[s.node]]*s.stride
			}
			base := suf[0]
			vals := kn.vals[i]
			if ix.vcls == nil {
				v := vals[base]
				for k := range c {
					c[k] = v
				}
			} else {
				vs := ix.vstride
				for k, cl := range ix.vcls[:len(c)] {
					c[k] = vals[base+cl*vs]
				}
			}
		}
		sum := kn.sums[i][:len(out)]
		for k, p := range prev[:len(out)] {
			sum[k] = p + c[k]
		}
		prev = sum
	}
	if len(kn.slow) == 0 {
		return prev[:len(out)]
	}
	copy(out, prev)
	kn.addSlow(sc, out)
	return out
}

// row writes the bucket's value at every alternative of the eliminated node
// into out, for the separator assignment in sc.asg. Each value is the unary
// cost plus the terms in order, the same sum whatever the loop order. It is
// what rowFrom computes, from nothing (TestRowFromIsRow).
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
	kn.addSlow(sc, out)
}

// addSlow adds the terms without a table to out.
func (kn *kernel) addSlow(sc *scratch, out []float64) {
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

package planner

import (
	"math"
	"testing"
)

// TestRowFromIsRow eliminates random problems (fan-outs, pairs that cannot
// be converted, ties) and dense random DAGs whole, then goes through every
// bucket again row by row, in the odometer's order as message does: each
// row that rowFrom gives from what it kept is row's from scratch, bit for
// bit, and the rows' minima are the bucket's message.
func TestRowFromIsRow(t *testing.T) {
	var problems []*Problem
	for seed := range uint64(300) {
		problems = append(problems, randomProblem(seed, 12))
	}
	for seed := range uint64(4) {
		problems = append(problems, randomDAG(seed, 14, 4))
	}
	buckets, rows, kept := 0, 0, 0
	for pi, p := range problems {
		in := newInstance(p, false)
		if len(in.empty) > 0 {
			continue
		}
		r := reduce(in, 1<<20, true)
		sc := in.newScratch()
		var kn kernel
		for bi := range r.order {
			b := &r.order[bi]
			buckets++
			kn.load(r, b)
			kn.keep() // whatever the rows
			want := make([]float64, len(b.unary))
			out := make([]float64, len(b.unary))
			o := sc.odometer(b.sep, b.reps)
			from := 0
			for e := range b.msg {
				got := kn.rowFrom(sc, out, from, true)
				if from > 0 {
					kept++
				}
				kn.row(sc, want)
				best := math.Inf(1)
				for k := range want {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
						t.Fatalf("problem %d, bucket of node %d, entry %d (from %d): rowFrom %v, row %v", pi, b.node, e, from, got, want)
					}
					best = math.Min(best, want[k])
				}
				if best != b.msg[e] && !(math.IsInf(best, 1) && math.IsInf(b.msg[e], 1)) {
					t.Fatalf("problem %d, bucket of node %d, entry %d: the rows' least %v, the message %v", pi, b.node, e, best, b.msg[e])
				}
				rows++
				o.next()
				from = o.changed + 1
			}
		}
	}
	if kept < rows/2 {
		t.Errorf("%d of %d rows went on from the last: the test reaches too few", kept, rows)
	}
	t.Logf("%d buckets, %d rows (%d from the last row's sums)", buckets, rows, kept)
}

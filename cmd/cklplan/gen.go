package main

import (
	"errors"
	"flag"
	"io"
	"math"

	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

var genCommand = &opTable[genRequest, *genRequest]{
	name:    "gen",
	summary: "generate synthetic task graphs (transformer-like, random DAG, tree) for benchmarks",
	noun:    "family",
	about: `Writes a synthetic task graph (docs/format.md) to stdout, the same for the same
flags. Every port carries a 16×16 f16 tile; every task has 8 alternatives that
bind each port to one of 4 one-warp distributions; costs are drawn from --seed.
`,
	flags: func(fs *flag.FlagSet, q *genRequest) {
		fs.IntVar(&q.layers, "layers", 1000, "transformer `layers` (10 invocations each, plus 2)")
		fs.IntVar(&q.n, "invocations", 1000, "`number` of invocations of a DAG or tree, before the sink invocations that read the outputs nothing else reads")
		fs.IntVar(&q.degree, "degree", 4, "average `degree` of a DAG's invocations")
		fs.Uint64Var(&q.seed, "seed", 1, "random `seed`")
		fs.Float64Var(&q.execScale, "exec-scale", 1, "multiply every alternative's execution cost by `factor` (conversions keep the model's cost): the tasks execute in about 1 to 25 ns a tile, their alternatives within ±20 % of one another, against 6 to 11 ns a tile for a conversion, so 10 to 100 makes the alternatives' execution differ by as much as a conversion costs")
		fs.Int64Var(&q.kernelSmem, "kernel-smem", 0, "fuse each transformer layer into one kernel with this shared-memory budget (`bytes`), the faster alternatives staging more in shared memory (0 to 48 KiB); 0: no kernels")
		fs.Float64Var(&q.unfused, "unfused", 0, "give every task three unfused alternatives, each its own kernel reading its inputs, writing its output or both through global memory, at `factor` times its cheapest alternative's execution cost, so that the plan chooses where kernels split (0: none)")
		fs.BoolVar(&q.gated, "gated", false, "give each transformer layer a gated MLP (SwiGLU): norm2 → up, gate → mul → down, eleven invocations a layer")
		fs.IntVar(&q.kernelLayers, "kernel-layers", 1, "with --kernel-smem, fuse this many consecutive `layers` into each kernel (at least --layers: the whole model in one kernel, a persistent megakernel)")
	},
	ops: []*op[*genRequest]{
		{name: "transformer", flags: []string{"layers", "seed", "exec-scale", "kernel-smem", "kernel-layers", "unfused", "gated"}, formats: []string{"json"}, run: genFamily("transformer"),
			doc: "a stack of --layers transformer-like layers, ten invocations each with two\nresidual edges: x → norm1 → qkv → attn → proj → add1(x) → norm2 → up → act\n→ down → add2(add1), the first x an embedding (--gated: norm2 → up, gate → mul\n→ down, eleven); --kernel-smem fuses each layer\n(each --kernel-layers layers) into one kernel with that shared-memory budget"},
		{name: "dag", flags: []string{"invocations", "degree", "seed", "exec-scale", "unfused"}, formats: []string{"json"}, run: genFamily("dag"),
			doc: "a random DAG of --invocations invocations, each but the first taking 1 to\ndegree−1 inputs from earlier ones (mostly recent), so of average degree about\n--degree; a final chain of sinks, invocations beyond those, reads the outputs\nnothing else reads"},
		{name: "tree", flags: []string{"invocations", "seed", "exec-scale", "unfused"}, formats: []string{"json"}, run: genFamily("tree"),
			doc: "a random in-tree of --invocations invocations: every invocation but the\nroot feeds exactly one later one, which takes up to 3 inputs; one more, a\nsink, reads the root"},
	},
}

// A genRequest is a family and its parameters.
type genRequest struct {
	family    string
	layers, n int
	degree    int
	seed      uint64
	// kernelSmem fuses a transformer's layers into kernels with this
	// shared-memory budget; 0: none.
	kernelSmem int64
	// kernelLayers is how many consecutive layers each kernel holds.
	kernelLayers int
	// execScale multiplies the alternatives' execution costs.
	execScale float64
	// unfused, when positive, adds unfused alternatives at this factor
	// of a task's cheapest cost.
	unfused float64
	// gated gives a transformer's layers gated MLPs.
	gated bool
}

func (q *genRequest) setOperands([]string, *input) error { return nil }
func (q *genRequest) count() int                         { return 0 }
func (q *genRequest) setTail(string, []string) error     { return errors.New("gen takes no arguments") }

// A genResult is a generated graph, written in the task-graph format.
type genResult struct{ data []byte }

func (r genResult) writeText(w io.Writer, _ string) error { return r.writeJSON(w) }
func (r genResult) writeJSON(w io.Writer) error {
	_, err := w.Write(r.data)
	return err
}

// maxGenerated caps what gen writes: graphs beyond a few million
// invocations exceed what the loader accepts anyway.
const maxGenerated = 1_000_000

// genFamily is the operation that generates one family.
func genFamily(family string) func(*genRequest, *env) (result, error) {
	return func(q *genRequest, env *env) (result, error) {
		q.family = family
		return runGen(q)
	}
}

func runGen(q *genRequest) (result, error) {
	var (
		s   tasks.Spec
		err error
	)
	switch {
	case q.layers < 1 || q.layers*11 > maxGenerated:
		return nil, badRequest("--layers %d: want 1 to %d", q.layers, maxGenerated/11)
	case q.n < 1 || q.n > maxGenerated:
		return nil, badRequest("--invocations %d: want 1 to %d", q.n, maxGenerated)
	case q.degree < 2 || q.degree > 16:
		// Every invocation but the first reads at least one input: no
		// DAG of these has an average degree under 2.
		return nil, badRequest("--degree %d: want 2 to 16", q.degree)
	case !(q.execScale > 0) || math.IsInf(q.execScale, 0):
		return nil, badRequest("--exec-scale %v: want a positive factor", q.execScale)
	case q.unfused < 0 || math.IsInf(q.unfused, 0) || math.IsNaN(q.unfused):
		return nil, badRequest("--unfused %v: want a positive factor, or 0 for none", q.unfused)
	case q.kernelSmem < 0:
		return nil, badRequest("--kernel-smem %d: want a number of bytes, or 0 for no kernels", q.kernelSmem)
	case q.kernelLayers < 1:
		return nil, badRequest("--kernel-layers %d: want 1 or more layers a kernel", q.kernelLayers)
	case q.kernelLayers > 1 && q.kernelSmem == 0:
		return nil, badRequest("--kernel-layers %d: kernels need a budget: give --kernel-smem too", q.kernelLayers)
	}
	switch q.family {
	case "transformer":
		if q.gated {
			s, err = taskgen.GatedTransformer(q.layers, q.seed)
		} else {
			s, err = taskgen.Transformer(q.layers, q.seed)
		}
		if err == nil && q.kernelSmem > 0 {
			err = taskgen.FuseLayersBy(&s, q.kernelSmem, q.kernelLayers)
		}
	case "dag":
		s, err = taskgen.DAG(q.n, q.degree, q.seed)
	case "tree":
		s, err = taskgen.Tree(q.n, q.seed)
	}
	if err == nil {
		err = taskgen.ScaleExecution(&s, q.execScale)
	}
	if err == nil && q.unfused > 0 {
		err = taskgen.AddUnfused(&s, q.unfused)
	}
	if err != nil {
		return nil, err
	}
	data, err := tasks.MarshalSpec(s)
	if err != nil {
		return nil, err
	}
	return genResult{data}, nil
}

// Package tasks models the task graph the planner reads, loads it from its
// JSON format (docs/format.md) or builds it in Go, and validates it fully
// before any planner sees it.
//
// # Model
//
//   - A Task is a logical computation with named ports; each port has a
//     direction, a logical tile space and an element type. A load reads its
//     memory input ports (the layout of the memory operation) into register
//     outputs; a store writes register inputs to memory output ports.
//   - An Alternative realizes a task: an implementation id, a Binding per
//     port (a distribution for the tile in registers, or a storage layout
//     for the tile in memory), resources per block, required target
//     features, an execution cost per execution of its tile body (declared
//     in ns, or work for the cost model), and a multiplicity: how often the
//     body runs for the whole invocation, an Expr over the graph's sizes
//     ("M/16 * K/16 * cdiv(N, 64)"). A binding may override the multiplicity
//     (the tiles crossing that port) and name the loop its tiles move in.
//   - An Invocation uses a task; its sizes overlay the graph's, and pins and
//     forbids narrow its alternatives to its Candidates, whose
//     multiplicities are evaluated.
//   - An Edge carries a producer's output tiles to a consumer's input; its
//     Rename relates their tile axes; it must cross a kernel boundary
//     (MustCross) when declared must_cross or when its ends are fused in
//     two different groups. Crossing, Compatible and Moves state, for a
//     chosen pair, whether the tile goes through global memory, whether the
//     pair may realize the edge, and how many tiles move (so how often a
//     conversion is paid).
//   - Groups fuse invocations into one kernel with shared-memory and
//     register budgets; Measured costs override the cost model.
//
// # Invariants
//
//   - A Graph exists only validated: New (for a Spec, from a Builder or
//     Decode) and Load check everything and report every problem found as
//     jsonv.Problems, sorted by JSON path, each with a code (jsonv's shared
//     codes and the Code… constants here). Paths are those of the JSON form,
//     whichever way the graph was made. Warnings (an output nothing
//     consumes) do not stop validation; Graph.Warnings keeps them.
//   - Names are unique where they are defined; every reference resolves;
//     every port of every alternative is realized, with a tile equal to the
//     port's (by axis name and size) and the port's element type; every edge
//     goes from an output to an input with equal tiles after renaming, and
//     no input is fed twice; the graph has no cycle (each is reported with
//     its invocations named); every alternative can run on some target;
//     every multiplicity evaluates without overflow to at least 1 under
//     every invocation's sizes.
//   - Load, Marshal and Load again give the same graph, and Marshal the same
//     bytes. No input makes Load panic (FuzzLoad).
//   - Limits cap the file size, the number of invocations and edges; Expr
//     caps an expression's length and depth.
//
// # Reading a graph (for planners)
//
//	g.Target()                     features, limits, Model (costmodel figures)
//	g.Invocations(), g.TopologicalOrder(), g.Components(), g.Groups(), g.GroupOf(v)
//	v.Candidates                   allowed alternatives (pins, forbids applied), each with
//	  c.Alternative                  ID, Implementation, Resources, Requires, Cost
//	  c.Multiplicity                 executions of the tile body (evaluated)
//	  c.PortMultiplicity[i]          tiles crossing port i (evaluated)
//	  c.Binding(port)                Distribution (typed with the port's element) or Layout, Name, Loop
//	v.In, v.Out, v.EdgesFrom(p), v.EdgeInto(p)
//	e.From, e.To                   (invocation, port); e.Rename
//	e.MustCross()                  a kernel boundary is required: declared (e.Kernel) or between groups
//	e.SourceBinding(a), e.TargetBinding(b)
//	e.Crossing(a, b)               in_kernel or global_round_trip
//	e.Compatible(a, b)             whether the pair may realize the edge
//	e.Moves(a, b), e.Reads(b)      tiles the producer emits, tiles the consumer reads
//	g.Measured().AlternativeNS(c), g.Measured().ConversionNS(src, dst, rename)
//	g.WithTarget(t), g.WithMeasured(m)   the graph re-validated for another target or costs
//	g.WithPins(pins)               … with some invocations' pins replaced (a compiler's fixed choices)
//	g.WithoutMeasured()            … without measured costs (another target's, after WithTarget)
//
// Costs follow the rule of docs/format.md: execution ns × multiplicity,
// over sm_count for a declared or measured ns (SM time per tile); a
// conversion inside one kernel paid Moves times (per-tile SM time over
// sm_count too); a global round trip paid for
// the producer's stores (Moves), the consumer's loads (Reads) and one kernel
// boundary, with a copy kernel (one more boundary, the bytes both ways)
// where the producer writes one global layout and the consumer reads
// another. The planner shares stores and boundaries among a port's edges
// (docs/plan-format.md, "Costs").
//
// The graph algorithms (topological order, strongly connected components
// for cycles, weakly connected components) are gonum's graph/topo.
package tasks

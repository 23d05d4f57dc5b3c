// Package costmodel estimates execution and conversion costs on a hardware
// target.
//
// # Model
//
// A cost is a float64 number of nanoseconds on the chosen target, with its
// Origin: declared (given in the input), measured (from an imported
// measurement table, which overrides the formula) or formula (computed
// here). Cost.Detail says which terms or which measurement produced it.
//
// A Target is a table of figures (FigureKeys: SM count, clock, shared
// memory per SM and per block, cluster size, issue and pipe throughputs,
// memory bandwidth, tensor and FMA peaks, latencies of shuffles, shared
// memory, barriers, distributed shared memory and global memory, and the
// overhead of a kernel boundary), each with its source: a datasheet or
// guide by title, a paper, or "assumed" with the reason. The built-in
// targets sm80 (A100 SXM4 80 GB), sm90 (H100 SXM5) and h200 (H200 SXM) are
// JSON data under targets/, read by DecodeTarget like any target file, so
// that a calibration refits the h200 numbers without touching the formulas
// (Target.With replaces one figure in Go). The h200 target's conversion
// figures (pipe throughputs, barriers, latencies) are fitted to conversions
// measured on an H200 (hardware.FitConvTarget; docs/hardware.md,
// Calibration); its latencies are effective figures of the formula, not
// single-instruction latencies.
//
// Conversions. A Movement counts what a conversion does per block of its
// tile: ALU and cvt instructions, shuffles and their rounds, shared-memory
// accesses and wavefronts, barriers, distributed-shared-memory accesses and
// bytes, cluster barriers, global accesses and bytes, kernel boundaries.
// Target.ConversionFormula turns it into
//
//   - cost_ns: the time the conversion adds per tile and per SM to a
//     steady-state loop with every SM busy (throughput): the busiest of the
//     issue slots and the pipes (ALU, cvt, shuffle, shared memory,
//     distributed shared memory) plus the barriers, plus the SM's share of
//     device-memory bandwidth and the whole of any kernel boundary;
//   - latency_ns: one tile on an otherwise idle SM: the above plus the
//     latency of each stage the movement has, and for a shuffle plan its
//     dependent chain: per round, the shuffle's latency and one ALU
//     latency per step of the selects that wait on it.
//
// ConversionFormula's comment gives the formula exactly.
//
// Executions. Target.Execution costs an alternative's Work: declared in
// nanoseconds, or by a roofline max(flops / peak, bytes / bandwidth) with
// the peak of its instruction kind (tensor_f16, mma_sync_f16, fma_f32).
//
// Measurements. DecodeMeasurements reads a table of measured conversion
// costs, per (source fingerprint, destination fingerprint, renaming) pair
// and mechanism, or per mechanism and tile size in bytes (interpolated
// linearly between the two nearest sizes, never extrapolated). A Model
// (target and table) looks a conversion up before it applies the formula,
// like a timing cache. A table names the target it was measured on and
// costs that target's conversions only: Model ignores it on another, and
// Classify and the planner refuse it there (Measurements.CheckTarget). A
// pair's renaming matches however the table writes it (pair order, spaces);
// a pair measured twice for one mechanism is a problem, as a size is.
//
// # Invariants
//
// Every figure of a target is present, finite, positive (a few may be zero:
// sm80 has no clusters) and sourced; the counts (sm_count,
// shared_bytes_per_sm, shared_bytes_per_block, max_cluster_blocks) are whole
// numbers of at most 2^53, since they are used as integers; decoding reports every problem at its
// JSON path with a jsonv code. Every cost carries its origin. Costs grow
// with every count of a Movement.
package costmodel

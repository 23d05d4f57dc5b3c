// Package hardware holds cklplan's checks and measurements on a real GPU
// (docs/hardware.md): the CUDA program that checks the instruction
// distributions, the dequantize → mma plans as real kernels, conversions
// lowered from their witnesses, checked and timed (the h200 target's
// conversion figures are fitted to them), and the kernel boundary.
//
// Generate writes one self-contained .cu file whose per-lane index tables
// come from package distribution: entry [executor*values + value] of a table
// is the row-major flat index of the tile element that the distribution puts
// in that executor's value. The program scatters random matrices into
// registers with the A and B tables, runs the instruction (inline PTX),
// gathers the result with the C table and compares it exactly with a CPU
// reference; for ldmatrix it loads a random tile from shared memory and
// checks every lane's registers against the table. Values are packed two
// 16-bit halves per 32-bit register, value 2r in the low half of register r,
// as the PTX ISA packs .f16x2 and .b16 fragments.
//
// The committed distcheck.cu is Generate's output (TestGeneratedUpToDate,
// refreshed with go test ./hardware -update); run.sh builds and runs it.
//
// The dequantize → mma example as real kernels lives in dequant/
// (dequant_mma.cu, hand-written: four plans and three variants, checked
// against a double-precision reference and timed whole and by parts; run.sh
// builds and runs it). DecodeDequantRecord reads the JSON record that program
// writes (every timing by key, each positive, every problem at its JSON
// path); DequantRecord.Measured turns it into the planner's measured-costs
// files (examples/measured/), per-tile SM time of marginal costs inside the
// kernel, whose sum over a plan reproduces the plan's measured time
// (TestDequantMeasuredAddsUp); DequantRecord.Compare sets each plan's time
// beside the additive model of its parts timed alone.
//
// Conversions are lowered from package conversion's witnesses
// (LowerConversion): every thread runs the same straight-line program —
// shuffle rounds, shared or distributed shared-memory stores, barriers,
// loads, and the register assembly of each destination register from the
// witness's pieces — and what differs between threads (the register a lane
// offers or stores, the lane it reads, its address, the piece pattern of a
// destination register) is an affine expression of lane, warp and block
// where one fits every thread, else a per-thread parameter read once before
// the loop. ConvProgram.Run executes that program on the CPU as the kernel
// does; ConversionCases builds the checked cases (Classify's witness for
// each pair, and variants: a row-major scratch with its bank conflicts,
// scalar stores, the cluster plan pulled instead of pushed, each replayed
// by conversion.Replay before it is lowered; and a broken negative case);
// GenerateConversions writes convcheck/convcheck.cu, whose harness checks
// every destination register of every thread on the GPU and times each
// conversion with every SM busy and alone. ConvCalibration sets the cost
// model's formula beside the measurements. The cases are classified with the
// target the record was made with (RecordTarget, convcheck/record/target.json),
// so they stay the measured programs. FitConvTarget refits the h200 target's
// conversion figures to the record by coordinate search on the squared log
// ratios of model to measurement, ConvHeldOut's cases left out to test it;
// the built-in h200 target is that fit (go test ./hardware -update rewrites
// it).
//
// The kernel boundary is timed by boundary/boundary.cu (hand-written: K
// dependent kernels against one kernel of the same work, from a stream and
// from a CUDA graph; run.sh builds and runs it). BoundaryRecord reads its
// record, KernelBoundaryNS takes the figure from it, and WithKernelBoundary
// sets the h200 target's launch_overhead_ns to it beside the fit (sm90, the
// H100, whose launch path and SMs the H200 shares, takes the same figure;
// sm80 keeps an assumed one).
package hardware

// Package hardware generates the CUDA program that checks cklplan's
// instruction distributions on a real GPU (docs/hardware.md).
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
package hardware

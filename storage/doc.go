// Package storage models storage layouts: maps from a logical tile space to
// addresses in a memory space (register, shared, global).
//
// # Model
//
// A Layout is an address map from the points of a logical tile space to an
// integer address, together with
//
//   - a memory space: register, shared or global;
//   - an element type with its size in bits (f64 … b1; types narrower than a
//     byte are packed, two 4-bit elements to a byte, the even address in the
//     low nibble);
//   - an address unit, Bytes or Elements: the element at address a occupies
//     bytes [a, a+E) (E = Bits/8, Bytes unit, Bits >= 8, a % E == 0), or bits
//     [a*Bits, (a+1)*Bits) (Elements unit);
//   - a base alignment in bytes (a power of two): the base address is a
//     multiple of it;
//   - an optional swizzle, CuTe's Swizzle<B,M,S>, applied to the address in
//     its own unit before the base is added:
//     swizzle(a) = a ^ ((a / 2^(M+S)) % 2^B * 2^M), the B bits at [M+S, M+S+B)
//     xor-ed into the B bits at [M, M+B);
//   - an optional broadcast: tile axes along which every element shares one
//     address (a read-side replication).
//
// The physical position of tile point c is base + swizzle(offset(c)) units.
//
// # Invariants
//
//   - A layout is alias-free: two tile points whose elements overlap in
//     memory differ only at declared broadcast axes, and the address does
//     not depend on a broadcast axis. The check uses the stride criterion
//     where the map is affine and enumerates the tile otherwise.
//   - Addresses are non-negative. A swizzled layout's base alignment covers
//     the swizzle's period (2^(B+M+S) units), so that swizzling the offset
//     equals swizzling the absolute address, as CuTe's swizzled pointers do.
//     In the Bytes unit a swizzle moves whole elements (2^M >= E).
//   - Values are immutable; String() is canonical and Parse reads it back.
//
// # Shared-memory bank model
//
// CountWavefronts and Layout.Wavefronts cost one warp-wide shared-memory
// access by this model (NVIDIA CUDA C++ Programming Guide, "Shared Memory"
// under compute capability 5.x and later; the phase split for 64- and 128-bit
// accesses is the one Nsight Compute reports as shared-memory wavefronts):
//
//   - shared memory has 32 banks of 4-byte words; word w = byte/4 lies in
//     bank w % 32;
//   - an access of W bytes per lane is served in phases: W <= 4: one phase of
//     32 lanes; W = 8: two phases of 16 lanes (0-15, 16-31); W = 16: four
//     phases of 8 lanes;
//   - within a phase, lanes that touch the same word are served together (a
//     broadcast); a phase costs the largest number of distinct words any one
//     bank must deliver, i.e. that many 128-byte wavefronts;
//   - wavefronts = the sum over phases; the conflict-free ideal is the number
//     of phases with an active lane.
//
// Where the base alignment is below 128 bytes, the banks depend on the base;
// Layout.Wavefronts reports the worst case over the possible base residues.
package storage

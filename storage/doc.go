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
//     not depend on a broadcast axis. New decides it from an affine map
//     whose strides, sorted by magnitude, each clear the span of the
//     smaller ones (a sufficient condition); any other map it enumerates,
//     for tiles of up to MaxEnumerate points, and fails as undecided on
//     larger ones. indexmap's own kind check (a map into physical is
//     alias-free and in range) runs first.
//   - Addresses are non-negative. A swizzled layout's base alignment covers
//     the swizzle's period (2^(B+M+S) units), so that swizzling the offset
//     equals swizzling the absolute address, as CuTe's swizzled pointers do.
//     In the Bytes unit a swizzle moves whole elements (2^M >= E).
//   - Values are immutable; String() is canonical and Parse reads it back.
//
// # Shared-memory bank model
//
// CountWavefronts and Layout.Wavefronts cost one warp-wide shared-memory
// access by the following model:
//
//   - shared memory has 32 banks of 4-byte words; word w = byte/4 lies in
//     bank w % 32;
//   - an access of W bytes per lane is served in phases: W <= 4: one phase of
//     32 lanes; W = 8: two phases of 16 lanes (0-15, 16-31); W = 16: four
//     phases of 8 lanes;
//   - except that an 8- or 16-byte load in which every active lane reads
//     the same address as its partner lane l^1, or every active lane the
//     same as its partner l^2 (an inactive partner matches anything), is
//     served with twice as many lanes per phase (one phase of 32, or two of
//     16): it has at most half as many distinct requests. Stores keep the
//     fixed phases;
//   - within a phase, lanes that touch the same word are served together (a
//     broadcast); a phase costs the largest number of distinct words any one
//     bank must deliver, i.e. that many 128-byte wavefronts;
//   - wavefronts = the sum over phases; the conflict-free ideal is the number
//     of phases with an active lane.
//
// Sources: the banks, their words and the broadcast are those of the CUDA
// C++ Programming Guide ("Shared Memory" under compute capability 5.x); the
// phases (by access width) are the model above; the pairing exception for
// loads was found by measurement. On an NVIDIA H200 (sm_90) the model gives
// exactly the wavefronts Nsight Compute counts
// (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}) for all 134
// patterns of testdata/hwbanks (strided warps at every width, the golden
// catalog's padded and swizzled layouts, broadcast structures), loaded and
// stored; TestHardwareRecord replays both records, and
// testdata/hwbanks/README.md has the method.
//
// Moving all addresses by a multiple of 4 bytes only renames banks, so the
// base address matters only when its alignment is below 4 bytes (1- and
// 2-byte accesses); Layout.Wavefronts then reports the worst case over the
// residues the alignment allows.
//
// # Vector width
//
// Layout.Vector(axis) is the widest v (a power of two, v·Bits <= 128) such
// that v divides the axis, the base alignment is a multiple of v·Bits, and
// for every tile point whose coordinate on the axis is a multiple of v, the v
// elements from it along the axis sit at consecutive bit positions starting
// at a multiple of v·Bits. Limit says what stops the next width: the 16-byte
// maximum, the axis size, the base alignment, or the first element (in flat
// order) that is misaligned or out of sequence, e.g. after padding or where a
// swizzle moves a chunk.
//
// # Text and JSON
//
//	shared f16 bytes align 1024 Swizzle<3,4,3>: logical tile(m:8, k:64) -> physical(addr:1024) = (m * 128 + k * 2)
//
// is memory, element, unit, "align" and the base alignment in bytes, the
// swizzle if any, then the unswizzled address map in indexmap's text form
// (broadcast axes are part of the map). JSON:
//
//	{"memory": "shared", "element": "f16", "unit": "bytes", "align": 1024,
//	 "swizzle": "Swizzle<3,4,3>", "map": {...indexmap's object or text form...}}
//
// A JSON string holding the text form decodes too.
//
// # API
//
//	Layouts:      New(offset, Config), Parse, MustParse; constructors Strided,
//	              RowMajor, ColMajor (with padding), CuTeStrides (CuTe's mode
//	              order), FromCuTe (a cute.Layout), SwizzledRowMajor with
//	              Swizzle32B/64B/128B
//	Layout:       Tile, Offset, Address (swizzle composed in), Memory, Element,
//	              Unit, BaseAlign, Swizzle, Broadcast, Footprint, BitOffset,
//	              Vector, Wavefronts, Equal, String, MarshalJSON, UnmarshalJSON
//	Accesses:     Access (per-lane tile points, vector, axis, load or store),
//	              AccessOf (from a lane → tile map)
//	Choosing:     SharedCandidates (padded and xor-swizzled row-major shared
//	              layouts), ChooseShared (the cheapest for a set of accesses,
//	              with every candidate's cost), CheapestShared (the same
//	              choice, costing candidates only as far as they could win)
//	Bank model:   CountWavefronts(Load|Store, width, lane addresses),
//	              LanesPerPhase, Wavefronts, Phase, Op
//	Swizzle:      NewSwizzle, ParseSwizzle, Apply, Period, Expr, Map, String
//	Enums:        ElementType (Bits), MemorySpace, AddressUnit, with Parse*
//
// Errors: *SyntaxError for malformed text (byte offset); *AliasError for two
// overlapping elements; every other error names the element (as "(m=1,
// k=0)"), axis, lane or field at fault. indexmap's kind check, which runs
// first, also rejects maps into physical space that alias or leave their
// codomain, naming the two points.
package storage

// Package distribution models which executor (block, warp, lane) owns which tile
// element, and where in its registers the element sits.
//
// # Model
//
// A Distribution has three spaces of named axes: the executor space (block,
// warp and lane axes, outermost first), the local space (the values an
// executor holds; their flat row-major index is the value index, a0…a7 in the
// PTX ISA's numbering) and the tile space (the logical tile, e.g. (m, k)). Two
// index maps relate them, kept separate because two distributions may give a
// lane the same elements in different register orders:
//
//	ownership      executor × local → tile       thread-value → logical
//	local storage  local → register slot          → physical
//
// Both are index-map text (package indexmap), e.g. the A operand of
// mma.m16n8k16:
//
//	m = lane / 4 + 8 * (v / 2 % 2)
//	k = lane % 4 * 2 + v % 2 + 8 * (v / 4)
//
// Replication is declared per executor axis: a replicated axis holds copies
// (warp_n for the A operand of a warp grid over (m, n)).
//
// Every element has one type (Spec.Element, f32 when not given; the atoms
// have their instruction's: mma.m16n8k16.c.f16 is f16). Values pack into
// 32-bit registers in register-slot order: the value in slot s of a b-bit
// type sits in register ⌊s·b/32⌋ from bit s·b mod 32, so two f16 values
// share a register and a move of whole registers is a rename (Register,
// NumRegisters).
//
// Blocks may form thread-block clusters (Spec.BlocksPerCluster, 1 when not
// given): flat block b is in cluster b / BlocksPerCluster, which must divide
// the number of blocks. Blocks of one cluster reach each other's shared
// memory; other blocks meet only through global memory.
//
// Two distributions of a producer and its consumer relate their tiles by
// name, or through an explicit Rename ("n=k": the producer's n is the
// consumer's k). MatchTiles checks that the renamed tiles have the same axes
// and sizes (in any order) and names every axis that differs.
//
// # Invariants
//
// New and every constructor tabulate both maps and return a *ValidityError,
// naming each element or executor at fault, unless:
//
//   - every executor value lands inside the tile;
//   - for every value of the replicated axes, ownership is a bijection from
//     the other executor axes × local axes onto the tile (so every element is
//     owned, and owned once up to replication);
//   - local storage is a bijection from values onto register slots 0…n-1;
//   - executor axes are ordered block, warp, lane, so that the flat executor
//     index is the (block, warp, lane) order.
//
// Distributions are immutable. Their Fingerprint depends only on the tile
// axes, the element type, the number of blocks, warps and lanes, the blocks
// per cluster, and which tile element every (block, warp, lane, register
// slot) holds: equal distributions written
// differently (other local axes, reordered terms, a lane split in two axes)
// have equal fingerprints.
//
// # Constructors
//
//   - New(Spec): explicit axes and index-map text.
//   - Builtin(name): the atoms of real instructions, exactly from the PTX ISA:
//     mma.m16n8k16.{a,b}.{f16,bf16}, mma.m16n8k16.c.{f32,f16}, ldmatrix.x4,
//     ldmatrix.x4.trans, wgmma.m64nNk16.c.f32 for N in 8, 16, …, 256, and
//     wgmma.m64k16.a.{f16,bf16}, the A operand of every wgmma.m64nNk16
//     taken from registers.
//   - TileAtom(atom, Tiling): an atom × a warp grid × repetitions covering a
//     CTA tile (CuTe's TiledMMA idea). Each warp axis goes along a tile axis
//     of the atom or is AlongReplicated (its warps hold copies); an Along that
//     is neither is an error, never an implied replication.
//   - NewBlocked(Blocked): Triton's blocked encoding (sizePerThread,
//     threadsPerWarp, warpsPerCTA, order).
//   - NewTabulated(Tabulation): a table of (executor, value) → tile element,
//     as dumped from a GPU or another compiler; an element listed under
//     several executors is replicated there. A table has no index-map text
//     (Tabulated reports it; Ownership and Storage are zero Maps).
//   - DecodeJSON: any of these as JSON (see MarshalJSON for the forms),
//     EntriesJSON's output included; DecodeValue inside a larger document.
//     Every problem is reported (jsonv.Problems), each at the JSON path at
//     fault with a stable code, in the form's terms: $.blocked.axes[1],
//     $.tiled.warps[0].along, $.entries[3].slot, "want an integer, have the
//     string "8"".
//
// # Queries and renderings
//
// Owners(tile...) gives the owners and register slot of an element;
// Holds(executor...) what an executor holds, in register order; Table the whole
// tabulation; EntriesJSON the tabulation as JSON; Diagram the tile drawn like
// the PTX ISA's fragment figures ("T5:a3").
//
// Ownership and Storage return the typed index maps for the algebra
// (thread-value → logical with the replicated axes as broadcast, local →
// physical). New checks the invariants above on its own tabulation, and that
// no ownership expression names a replicated axis, which is everything
// indexmap's kind rules require of these maps; indexmap.New builds and checks
// them again on the first call, so New does not pay for that second check
// (an enumeration for non-affine maps) unless the maps are used.
package distribution

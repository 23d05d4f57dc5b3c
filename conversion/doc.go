// Package conversion classifies a (source, destination) distribution pair,
// chooses how to carry the conversion out, and produces a witness concrete
// enough to lower.
//
// # Model
//
// Both distributions cover the same tile, the source's axes renamed by
// Options.Rename (distribution.MatchTiles names every axis that differs).
// Threads are matched by their flat (block, warp, lane) indices. Every
// destination place (thread, register slot) takes its element from the
// nearest source place that holds it: the same thread, else the same warp,
// the same block, the same cluster (both distributions must put the two
// blocks in one cluster), else anywhere. The class is the highest level
// any destination place must reach, in the order of Class:
//
//	identity               every destination register already holds its element (same slot, same type)
//	register_permute       elements stay in their thread and change register or type
//	warp_shuffle           elements stay in their warp and change lane
//	shared_memory          elements cross warps of one block
//	cluster_shared_memory  elements cross blocks of one thread-block cluster
//	global_memory          elements cross blocks outside a cluster, or Options.KernelBoundary
//
// Replication follows: dropping copies is free (a destination takes one of
// them, the nearest), adding copies crosses the level they span. Through
// memory, a replicated element is stored once per memory, by its first copy
// there (lowest block, warp, lane, slot), so that whole warps store.
//
// # Mechanisms
//
// The class is a lower bound; the mechanism is chosen by cost among those
// at or above it: register moves, shuffles, shared memory, distributed
// shared memory (push: the source stores into the destination block; pull:
// the destination loads from the source block) and global memory. Each is
// planned in full and costed by package costmodel (measurements override
// its formulas); the cheapest wins (ties: the lower level) and the others
// are listed as rejected, with their costs or why they cannot serve.
//
// # Witnesses
//
// A Witness gives, for every destination place, the source place
// (Routes), and the schedule of its mechanism:
//
//   - registers (RegisterPlan): every destination register is assembled
//     from pieces of the thread's own registers or of what it received.
//     Values pack into 32-bit registers (distribution.Register): a whole
//     register that moves is a rename and costs nothing; pieces from other
//     registers need prmt (sub-byte values: a shift and a masked merge
//     per field, a run of values that move together); a type change is
//     cvt (two values at once where PTX has the paired form). Lanes of one
//     warp whose pieces differ run each pattern and select (selp).
//   - shuffles (ShufflePlan): rounds of shfl.sync.idx with the register
//     each lane offers and the lane each lane reads. The schedule is the
//     best of a greedy offer-by-demand plan and first-fit plans in four
//     request orders (ShufflePlan says how); its counts are exact for the
//     plan emitted, and LowerBound says how far from optimal it can be
//     among plans that send whole source registers (packing sub-word
//     values into one word first is not planned, and can take fewer). On
//     the layouts Triton's transferWithinWarp handles, the plan uses no
//     more shuffles than Triton's formulas (tested).
//   - memory (MemoryPlan): warp-wide store and load instructions with the
//     vector width, per lane the register slot and the address. Shared
//     memory uses the layout storage.ChooseShared picks (padded or
//     swizzled) for the vector widths that cost least, with the
//     wavefronts of each access under storage's bank model; the scratch is
//     the whole tile (one round) and costs two barriers per tile (publish,
//     and free for the next tile). Distributed shared memory uses a
//     row-major scratch per block and two cluster barriers; global memory a
//     row-major buffer and, by the class, two barriers (every move inside
//     a block: bar.sync orders its global accesses too), two cluster
//     barriers (inside a cluster) or one kernel boundary (across blocks).
//
// A type change happens in registers: at the source before the move when
// the destination type is narrower (fewer bytes travel), at the
// destination after it otherwise, and within the assembly for register
// moves. Conversions involving 64-bit types are not modelled.
//
// # Classifying many pairs
//
// A planner classifies every pair of a few distributions. Much of the work
// depends on one side alone: a distribution's stores into a block's scratch
// are the same whatever it converts to, and are costed on the same
// candidate layouts; its loads, and the registers they are assembled into,
// are the same whatever it converts from. A Memo in Options keeps that
// work, keyed by its whole input, for the next classification; results are
// the same with it as without (tested on every pair of the corpus and of
// random pairs), and witnesses of different results may then share
// read-only parts (lanes of memory instructions, register operations).
//
// # Invariants
//
// The class is the lowest level crossed. Replay executes a witness bit by
// bit from the source's ownership, using only its schedule, and checks that
// every destination slot holds exactly its element, in the destination's
// type (one cvt of the whole source element where the type changes); it also
// checks what the cost reads beside the bits: a register op counted as a
// free rename is one whole register in place, every memory access reaches
// its level's memory (the block's own shared memory, its cluster's, global
// memory), each lane takes part in a warp access once at an address aligned
// to its width, the shared scratch's addresses are those of its layout
// (MemoryPlan.Layout, parsed by storage) for the tile points the lanes name
// and hold, the wavefronts of each shared access (through a cluster, each
// access local to its block) are storage's bank model's for its addresses
// and width and the totals their sums, no two stores write one bit, and a
// barrier of the scope the data crosses (bar.sync in a block, a cluster
// barrier across its blocks, a kernel boundary beyond, or after another
// kernel) separates the stores from the loads, and the barriers per tile are
// exactly those the plan takes (see Witnesses above: two through shared
// memory, two cluster barriers through a cluster's, through global memory
// two of the scope the data crosses or one kernel boundary). The tests
// replay every mechanism of every pair of a corpus, and check that broken
// witnesses fail.
package conversion

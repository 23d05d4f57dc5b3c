package conversion

import (
	"github.com/cklplan/cklplan/costmodel"
)

// A Witness is one mechanism's plan for a conversion, concrete enough to
// lower and to replay (Replay): where every destination element comes from,
// the register work on each side, and the mechanism's own schedule.
type Witness struct {
	Mechanism Mechanism `json:"mechanism"`
	// SrcElement and DstElement are the element types; Moved is the one
	// that travels between threads (the narrower; "" when nothing leaves
	// its thread). ConvertAt is "source"
	// when the source converts before the move, "destination" when the
	// destination converts after it, "" when the types agree.
	SrcElement string `json:"src_element"`
	DstElement string `json:"dst_element"`
	Moved      string `json:"moved_element,omitempty"`
	ConvertAt  string `json:"convert_at,omitempty"`
	// Routes gives, for every destination place (executor and register
	// slot, destination order), the source place its element comes from.
	Routes []Route `json:"routes"`
	// Registers is the register work that assembles each destination
	// register from the thread's own registers and what it received.
	Registers *RegisterPlan `json:"registers,omitempty"`
	// Exactly one of these describes the movement between threads.
	Shuffle *ShufflePlan `json:"shuffle,omitempty"`
	Shared  *MemoryPlan  `json:"shared,omitempty"`
	Cluster *MemoryPlan  `json:"cluster,omitempty"`
	Global  *MemoryPlan  `json:"global,omitempty"`
	// Movement is what the cost model reads: the counts above for the
	// busiest block.
	Movement costmodel.Movement `json:"movement"`
}

// A RegisterPlan is the register work of a conversion. Every destination
// register (a 32-bit register, or the pair holding a 64-bit value) is one
// RegisterOp: the pieces it is assembled from. Counts are warp instructions
// over the whole tile.
//
// The plan it stands for: per warp and destination register, the lanes'
// piece lists (their patterns) are computed one after the other, then a
// selp per pattern beyond the first picks each lane's own. A pattern is a
// rename (one whole source register, bits in place: no instruction), a
// prmt per extra source register (one prmt gathers bytes of two
// registers; at least one when bytes move), shift-and-insert pairs for
// sub-byte elements, or cvt instructions when the type changes (the paired
// forms cvt.rn.f16x2.f32, cvt.rn.bf16x2.f32, cvt.rn.satfinite.e4m3x2.f32
// … convert two values at once) followed by prmts joining the converted
// parts.
type RegisterPlan struct {
	// FromBits is the width of the pieces' source elements, ToBits of the
	// destination's.
	FromBits int `json:"from_bits"`
	ToBits   int `json:"to_bits"`
	// SourceCvt and SourcePrmt are the conversions (and the prmts packing
	// them) a narrowing source does before the move; SourceALU the shifts
	// that bring a stored element to the low bits.
	SourceCvt  int `json:"source_cvt,omitempty"`
	SourcePrmt int `json:"source_prmt,omitempty"`
	SourceALU  int `json:"source_alu,omitempty"`
	// Renames counts destination registers that are whole source registers
	// in every lane (free); Prmt, Cvt, Selects and BitOps the instructions.
	Renames int          `json:"renames"`
	Prmt    int          `json:"prmt"`
	Cvt     int          `json:"cvt"`
	Selects int          `json:"selects"`
	BitOps  int          `json:"bit_ops,omitempty"`
	Ops     []RegisterOp `json:"ops"`
}

// A RegisterOp assembles one destination register of one thread.
type RegisterOp struct {
	Thread Thread  `json:"thread"`
	Reg    int     `json:"reg"`
	Kind   string  `json:"kind"` // rename, prmt, cvt, bits
	Pieces []Piece `json:"pieces"`
}

// A Piece is one element (or one 32-bit half of a 64-bit element) of a
// destination register: Bits bits at bit Bit of register Reg of the
// thread's own source registers (Round -1) or of what it received in round
// or access Round, written (converted if the types differ) at bit ToBit of
// the destination register.
type Piece struct {
	Round int `json:"round"`
	Reg   int `json:"reg"`
	Bit   int `json:"bit"`
	Bits  int `json:"bits"`
	ToBit int `json:"to_bit"`
}

// A ShufflePlan moves 32-bit words between the lanes of each warp in
// rounds of one shfl.sync.idx: in round r lane s offers its register
// Send[s] and lane l reads the offer of lane From[l] into a temporary
// register of round r (From[l] = -1: the lane takes nothing).
//
// How the plan is found: every lane lists the words it needs from other
// lanes (source lane, source register). Round after round, every lane
// offers the register most still-pending requests ask of it (ties: the
// lowest register), and every lane takes one of its pending words that is
// on offer (the lowest source lane). Each round serves at least one
// request, so the plan ends; LowerBound is the larger of the most words
// one lane needs and the most distinct registers one lane must give, which
// no plan that sends the source's registers as they are, from the copies
// the routes chose, can beat. A plan that packs the halves one destination
// needs into one word first (prmt, cvt.rn.f16x2.f32), or reads another copy
// of a replicated source, can: the mma.m16n8k16 f16 accumulator into the B
// operand takes 4 rounds here and 2 so packed. Selects counts the selp a lane needs to offer a
// register that differs across the warp (distinct registers − 1 per
// round); the destination's selects are in the RegisterPlan.
type ShufflePlan struct {
	Rounds     int            `json:"rounds"`      // most rounds of any warp
	LowerBound int            `json:"lower_bound"` // no plan sending whole registers from these copies needs fewer
	Shuffles   int            `json:"shuffles"`    // shfl.sync over the tile
	Selects    int            `json:"selects"`     // sender selp over the tile
	Warps      []WarpShuffles `json:"warps"`
}

// WarpShuffles is the schedule of one warp.
type WarpShuffles struct {
	Block  int            `json:"block"`
	Warp   int            `json:"warp"`
	Rounds []ShuffleRound `json:"rounds"`
}

// A ShuffleRound is one shfl.sync.idx of a warp: per lane, the register it
// offers (-1: any) and the lane it reads (-1: none).
type ShuffleRound struct {
	Send []int `json:"send"`
	From []int `json:"from"`
}

// A MemoryPlan moves a tile through shared, distributed shared or global
// memory: the sources store their elements, a barrier publishes them, the
// destinations load them into temporaries that the RegisterPlan assembles.
type MemoryPlan struct {
	// Layout is the storage layout of the scratch (storage's text form).
	Layout string `json:"layout"`
	// Bytes moved: stored and loaded. RemoteBytes crossed to another
	// block's shared memory (clusters).
	StoredBytes int `json:"stored_bytes"`
	LoadedBytes int `json:"loaded_bytes"`
	RemoteBytes int `json:"remote_bytes,omitempty"`
	// ScratchBytes is the footprint per block (global memory: in all).
	ScratchBytes int `json:"scratch_bytes"`
	Rounds       int `json:"rounds"`
	// Barriers are bar.sync per tile; ClusterBarriers barrier.cluster
	// arrive/wait pairs; Launches kernel boundaries (global memory).
	Barriers        int `json:"barriers,omitempty"`
	ClusterBarriers int `json:"cluster_barriers,omitempty"`
	Launches        int `json:"launches,omitempty"`
	// Vector widths in elements per lane, and the wavefronts of each side
	// under storage's bank model (shared memory).
	StoreVector     int `json:"store_vector"`
	LoadVector      int `json:"load_vector"`
	StoreWavefronts int `json:"store_wavefronts,omitempty"`
	LoadWavefronts  int `json:"load_wavefronts,omitempty"`
	// Considered is how many shared layouts ChooseShared compared.
	Considered int         `json:"layouts_considered,omitempty"`
	Stores     []MemAccess `json:"stores"`
	Loads      []MemAccess `json:"loads"`
}

// A MemAccess is one warp-wide store or load instruction.
type MemAccess struct {
	Block      int          `json:"block"`
	Warp       int          `json:"warp"`
	Vector     int          `json:"vector"`
	Wavefronts int          `json:"wavefronts,omitempty"`
	Lanes      []LaneAccess `json:"lanes"`
}

// A LaneAccess is one lane's part of a MemAccess: Vector elements from
// register slot Slot on (stores), or into temporary Temp (loads), at bit
// address Bit of the memory of block Memory (-1: global memory), which
// holds the tile point Tile (destination coordinates) and the ones after
// it along the last tile axis.
type LaneAccess struct {
	Lane   int   `json:"lane"`
	Slot   int   `json:"slot,omitempty"`
	Temp   int   `json:"temp,omitempty"`
	Memory int   `json:"memory"`
	Bit    int64 `json:"bit"`
	Tile   []int `json:"tile"`
}

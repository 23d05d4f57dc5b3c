package costmodel

import (
	"fmt"
	"math"
	"strings"
)

// A Movement is what one conversion does to one tile, in the counts the
// formulas need. Counts are per block: the tile's totals divided by the
// number of blocks it spans (a tile spread over several blocks runs on
// several SMs at once); warp instructions count once per warp that issues
// them.
type Movement struct {
	// Mechanism names how the tile moves: "register_permute",
	// "warp_shuffle", "shared_memory", "cluster_shared_memory" or
	// "global_memory" (the conversion classes' names); Variant refines it
	// ("push", "pull").
	Mechanism string `json:"mechanism"`
	Variant   string `json:"variant,omitempty"`
	// Bytes is the size of the tile moved, for measurement tables per size.
	Bytes int `json:"bytes"`
	// ALU counts prmt, selp, shift and lop3 warp instructions; Cvt the type
	// conversions.
	ALU int `json:"alu"`
	Cvt int `json:"cvt"`
	// Shuffles counts shfl.sync warp instructions; ShuffleRounds how many
	// follow each other in one warp.
	Shuffles      int `json:"shuffles,omitempty"`
	ShuffleRounds int `json:"shuffle_rounds,omitempty"`
	// SharedAccesses counts shared-memory warp instructions (local stores
	// and loads); SharedWavefronts what they cost under the bank model.
	SharedAccesses   int `json:"shared_accesses,omitempty"`
	SharedWavefronts int `json:"shared_wavefronts,omitempty"`
	Barriers         int `json:"barriers,omitempty"`
	// RemoteAccesses counts warp instructions that reach another block's
	// shared memory (RemoteLoads of them loads, which wait for the round
	// trip); RemoteBytes the bytes they carry; ClusterBarriers the
	// cluster-wide barriers.
	RemoteAccesses  int `json:"remote_accesses,omitempty"`
	RemoteLoads     int `json:"remote_loads,omitempty"`
	RemoteBytes     int `json:"remote_bytes,omitempty"`
	ClusterBarriers int `json:"cluster_barriers,omitempty"`
	// GlobalAccesses counts global-memory warp instructions, GlobalBytes the
	// bytes stored and loaded, Launches the kernel boundaries.
	GlobalAccesses int `json:"global_accesses,omitempty"`
	GlobalBytes    int `json:"global_bytes,omitempty"`
	Launches       int `json:"launches,omitempty"`
}

// ConversionFormula costs a movement on t. In clocks of one SM, with f the
// target's figures:
//
//	issue   = (ALU + Cvt + Shuffles + SharedAccesses + RemoteAccesses + GlobalAccesses) / warp_issue_per_clock
//	pipes   = max(32·ALU / alu_lanes_per_clock, 32·Cvt / cvt_lanes_per_clock,
//	              32·Shuffles / shuffle_lanes_per_clock, 128·SharedWavefronts / shared_bytes_per_clock,
//	              RemoteBytes / dsmem_bytes_per_clock)
//	sync    = Barriers · barrier_cycles + ClusterBarriers · cluster_barrier_cycles
//
//	cost_ns    = (max(issue, pipes) + sync) / clock_ghz
//	             + GlobalBytes / (hbm_gb_per_s / sm_count) + Launches · launch_overhead_ns
//	latency_ns = cost_ns + (chain + the latency of each other stage the movement has, once:
//	             2·shared_latency_cycles if SharedAccesses,
//	             dsmem_latency_cycles if RemoteAccesses,
//	             2·global_latency_cycles if GlobalAccesses) / clock_ghz
//	chain      = ShuffleRounds · (shuffle_latency_cycles + ⌈(ALU + Cvt) / warps / ShuffleRounds⌉ · alu_latency_cycles)
//	             with warps = ⌈Shuffles / ShuffleRounds⌉, if ShuffleRounds > 0;
//	             else alu_latency_cycles if ALU or Cvt
//
// The chain is the dependent work one warp waits for. Shuffle rounds follow
// each other, and the selects and prmt between two rounds take the earlier
// round's result: the assumption is that a warp's ALU and cvt instructions
// split evenly over its rounds and that each round's share is a chain of
// dependent steps (a select consumes the previous select's result), so
// each round pays the shuffle's latency and one ALU latency per step.
// Without shuffles, the ALU and cvt instructions each read only the tile's
// input registers (a prmt or cvt per output register), so they overlap and
// the chain is one step deep. A remote access pays dsmem_latency_cycles
// once whether it loads or stores: a load waits for the reply, a store's
// release at the cluster barrier for the acknowledgement.
//
// The throughput cost assumes every SM is busy with its own tiles: global
// memory bandwidth is shared by sm_count SMs, and a kernel boundary (or a
// grid-wide synchronization) stalls every SM at once, so its whole overhead
// counts for each tile. The latency adds what one tile waits for on an
// otherwise idle SM.
func (t *Target) ConversionFormula(m Movement) Cost {
	clock := t.Get("clock_ghz")
	issue := float64(m.ALU+m.Cvt+m.Shuffles+m.SharedAccesses+m.RemoteAccesses+m.GlobalAccesses) / t.Get("warp_issue_per_clock")
	pipes := max(
		32*float64(m.ALU)/t.Get("alu_lanes_per_clock"),
		32*float64(m.Cvt)/t.Get("cvt_lanes_per_clock"),
		32*float64(m.Shuffles)/t.Get("shuffle_lanes_per_clock"),
		128*float64(m.SharedWavefronts)/t.Get("shared_bytes_per_clock"),
	)
	if m.RemoteBytes > 0 {
		if bw := t.Get("dsmem_bytes_per_clock"); bw > 0 {
			pipes = max(pipes, float64(m.RemoteBytes)/bw)
		}
	}
	sync := float64(m.Barriers)*t.Get("barrier_cycles") + float64(m.ClusterBarriers)*t.Get("cluster_barrier_cycles")
	sms := t.Get("sm_count")
	hbm := float64(m.GlobalBytes) / (t.Get("hbm_gb_per_s") / sms)
	launch := float64(m.Launches) * t.Get("launch_overhead_ns")
	cost := (max(issue, pipes)+sync)/clock + hbm + launch

	var stages float64
	switch {
	case m.ShuffleRounds > 0:
		rounds := float64(m.ShuffleRounds)
		warps := max(math.Ceil(float64(m.Shuffles)/rounds), 1)
		steps := math.Ceil(float64(m.ALU+m.Cvt) / warps / rounds)
		stages += rounds * (t.Get("shuffle_latency_cycles") + steps*t.Get("alu_latency_cycles"))
	case m.ALU+m.Cvt > 0:
		stages += t.Get("alu_latency_cycles")
	}
	if m.SharedAccesses > 0 {
		stages += 2 * t.Get("shared_latency_cycles")
	}
	if m.RemoteAccesses > 0 {
		stages += t.Get("dsmem_latency_cycles") // a round trip, loads and stores alike
	}
	if m.GlobalAccesses > 0 {
		stages += 2 * t.Get("global_latency_cycles")
	}
	latency := cost + stages/clock

	var terms []string
	add := func(name string, v float64) {
		if v > 0 {
			terms = append(terms, fmt.Sprintf("%s %.4g", name, v))
		}
	}
	add("issue", issue)
	add("pipes", pipes)
	add("sync", sync)
	if (m == Movement{Mechanism: m.Mechanism, Variant: m.Variant, Bytes: m.Bytes}) {
		return Cost{Origin: Formula, Detail: t.Name + ": nothing moves"}
	}
	detail := fmt.Sprintf("%s: max(issue, pipes) + sync cycles at %.4g GHz", t.Name, clock)
	if len(terms) > 0 {
		detail += " (" + strings.Join(terms, ", ") + ")"
	}
	if hbm > 0 {
		detail += fmt.Sprintf(" + %.4g ns of global memory", hbm)
	}
	if launch > 0 {
		detail += fmt.Sprintf(" + %d kernel boundary(ies) of %g ns", m.Launches, t.Get("launch_overhead_ns"))
	}
	return Cost{NS: cost, LatencyNS: latency, Origin: Formula, Detail: detail}
}

// A ConversionKey identifies a conversion for a measurement table: the
// fingerprints of the source and destination distributions and the tile
// renaming between them ("" for none).
type ConversionKey struct {
	Src, Dst string
	Rename   string
}

// A Model is a target with its measurement table: measurements override
// the formulas, like a timing cache.
type Model struct {
	Target   *Target
	Measured *Measurements // nil: none
}

// Conversion returns the cost of a movement: measured where the table has
// the pair (for that mechanism) or the mechanism at this size, else the
// formula. A table measured on another target (Measurements.CheckTarget)
// is not used.
func (m Model) Conversion(key ConversionKey, mv Movement) Cost {
	if m.Measured != nil && m.Measured.CheckTarget(m.Target) == nil {
		if c, ok := m.Measured.Lookup(key, mv); ok {
			return c
		}
	}
	return m.Target.ConversionFormula(mv)
}

// Execution returns the cost of an alternative's work on the model's
// target (Target.Execution).
func (m Model) Execution(w Work) (Cost, error) { return m.Target.Execution(w) }

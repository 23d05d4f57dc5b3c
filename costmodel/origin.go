package costmodel

import "fmt"

// An Origin says where a cost comes from. The order is the order of
// precedence: a declared cost overrides a measurement, which overrides a
// formula.
type Origin uint8

// The origins of a cost.
const (
	// Declared: given in the input (a task's alternative states its cost).
	Declared Origin = iota
	// Measured: read from an imported measurement table.
	Measured
	// Formula: computed here from the target's figures and the work.
	Formula
)

var originNames = [...]string{Declared: "declared", Measured: "measured", Formula: "formula"}

func (o Origin) String() string {
	if int(o) < len(originNames) {
		return originNames[o]
	}
	return fmt.Sprintf("Origin(%d)", uint8(o))
}

// ParseOrigin is the inverse of Origin.String.
func ParseOrigin(s string) (Origin, error) {
	for o, name := range originNames {
		if name == s {
			return Origin(o), nil
		}
	}
	return 0, fmt.Errorf("costmodel: unknown origin %q (want declared, measured or formula)", s)
}

// MarshalText writes the origin as its String.
func (o Origin) MarshalText() ([]byte, error) {
	if int(o) >= len(originNames) {
		return nil, fmt.Errorf("costmodel: cannot marshal %v", o)
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads an origin written by MarshalText.
func (o *Origin) UnmarshalText(text []byte) error {
	v, err := ParseOrigin(string(text))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// A Cost is an estimate in nanoseconds on one target, with its origin.
type Cost struct {
	// NS is the throughput cost: the time the work adds per tile and per SM
	// to a steady-state loop with every SM busy (for a conversion), or the
	// time of the whole invocation (for an execution).
	NS float64 `json:"cost_ns"`
	// LatencyNS is the time of one tile on an otherwise idle SM (for an
	// execution, equal to NS).
	LatencyNS float64 `json:"latency_ns"`
	Origin    Origin  `json:"origin"`
	// Detail says how the figure was obtained: the formula's terms, or the
	// measurement it came from.
	Detail string `json:"detail,omitempty"`
}

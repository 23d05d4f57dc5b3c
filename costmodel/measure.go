package costmodel

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/internal/jsonv"
)

// Measurements are conversion costs measured on hardware. They override the
// formulas: per (source, destination, renaming) pair, or per mechanism and
// size (interpolated linearly between the two nearest sizes measured, never
// extrapolated).
type Measurements struct {
	Target string
	Pairs  []PairMeasurement
	Sizes  []SizeMeasurement
}

// A PairMeasurement is the measured cost of one conversion by one mechanism.
type PairMeasurement struct {
	Key       ConversionKey
	Mechanism string
	Variant   string
	CostNS    float64
	LatencyNS float64
	Source    string // the harness run it came from
}

// A SizeMeasurement is the measured cost of a mechanism moving a tile of
// Bytes bytes.
type SizeMeasurement struct {
	Mechanism string
	Variant   string
	Bytes     int
	CostNS    float64
	LatencyNS float64
	Source    string
}

// Lookup returns the measured cost of a movement, if the table has it. A
// pair's renaming matches however it is written (canonicalRename).
func (ms *Measurements) Lookup(key ConversionKey, mv Movement) (Cost, bool) {
	for _, p := range ms.Pairs {
		if sameKey(p.Key, key) && p.Mechanism == mv.Mechanism && p.Variant == mv.Variant {
			return Cost{NS: p.CostNS, LatencyNS: p.LatencyNS, Origin: Measured,
				Detail: fmt.Sprintf("measured pair on %s: %s", ms.Target, p.Source)}, true
		}
	}
	var below, above *SizeMeasurement
	for i := range ms.Sizes {
		s := &ms.Sizes[i]
		if s.Mechanism != mv.Mechanism || s.Variant != mv.Variant {
			continue
		}
		if s.Bytes <= mv.Bytes && (below == nil || s.Bytes > below.Bytes) {
			below = s
		}
		if s.Bytes >= mv.Bytes && (above == nil || s.Bytes < above.Bytes) {
			above = s
		}
	}
	if below == nil || above == nil {
		return Cost{}, false
	}
	if below.Bytes == above.Bytes {
		return Cost{NS: below.CostNS, LatencyNS: below.LatencyNS, Origin: Measured,
			Detail: fmt.Sprintf("measured %s at %d bytes on %s: %s", mv.Mechanism, below.Bytes, ms.Target, below.Source)}, true
	}
	f := float64(mv.Bytes-below.Bytes) / float64(above.Bytes-below.Bytes)
	return Cost{
		NS:        below.CostNS + f*(above.CostNS-below.CostNS),
		LatencyNS: below.LatencyNS + f*(above.LatencyNS-below.LatencyNS),
		Origin:    Measured,
		Detail:    fmt.Sprintf("measured %s on %s, interpolated between %d and %d bytes", mv.Mechanism, ms.Target, below.Bytes, above.Bytes),
	}, true
}

// DecodeMeasurements reads a measurement table:
//
//	{"target": "h200",
//	 "pairs": [{"src": "sha256:…", "dst": "sha256:…", "rename": "n=k",
//	            "mechanism": "warp_shuffle", "cost_ns": 9.5, "latency_ns": 41, "source": "…"}],
//	 "sizes": [{"mechanism": "shared_memory", "bytes": 8192, "cost_ns": 60, "latency_ns": 300}]}
//
// "rename", "variant", "latency_ns" and "source" may be left out; a size
// entry may name its mechanism as "class" (the conversion class whose
// mechanism it is, e.g. "warp_shuffle"). A pair's "rename" is kept in its
// canonical form (pairs sorted by the source axis, as Classify keys a
// conversion). Every problem is reported at its JSON path; a renaming that
// is not one is invalid, and a pair or a size given twice for one mechanism
// is a duplicate.
func DecodeMeasurements(data []byte) (*Measurements, error) {
	root, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return nil, err
	}
	var d jsonv.Decoder
	o := d.Object(root, jsonv.Root, "target", "pairs", "sizes")
	ms := &Measurements{Target: o.String("target", true)}
	nonNegative := func(e *jsonv.ObjectReader, key string, required bool) float64 {
		v := e.Float(key, required)
		if v < 0 {
			_, p := e.Field(key)
			d.Report(p, jsonv.Range, "%v ns: want a non-negative time", v)
		}
		return v
	}
	type pairKey struct {
		key           ConversionKey
		mech, variant string
	}
	seenPairs := map[pairKey]int{}
	if v, p := o.Field("pairs"); v != nil {
		elems, _ := d.Array(v, p)
		for i, ev := range elems {
			e := d.Object(ev, p.Index(i), "src", "dst", "rename", "mechanism", "variant", "cost_ns", "latency_ns", "source")
			pm := PairMeasurement{
				Key:       ConversionKey{Src: e.String("src", true), Dst: e.String("dst", true), Rename: e.String("rename", false)},
				Mechanism: e.String("mechanism", true), Variant: e.String("variant", false),
				CostNS: nonNegative(e, "cost_ns", true), LatencyNS: nonNegative(e, "latency_ns", false),
				Source: e.String("source", false),
			}
			if e != nil && e.Has("rename") {
				if r, err := canonicalRename(pm.Key.Rename); err != nil {
					d.Report(p.Index(i).Key("rename"), jsonv.Invalid, "renaming %q: %v", pm.Key.Rename, err)
				} else {
					pm.Key.Rename = r
				}
			}
			k := pairKey{pm.Key, pm.Mechanism, pm.Variant}
			if j, dup := seenPairs[k]; dup && e != nil {
				d.Report(p.Index(i), jsonv.DuplicateName, "%s of this pair is measured twice (also pairs[%d])", pm.Mechanism, j)
			} else {
				seenPairs[k] = i
			}
			e.End()
			ms.Pairs = append(ms.Pairs, pm)
		}
	}
	type sizeKey struct {
		mech, variant string
		bytes         int
	}
	seen := map[sizeKey]int{}
	if v, p := o.Field("sizes"); v != nil {
		elems, _ := d.Array(v, p)
		for i, ev := range elems {
			e := d.Object(ev, p.Index(i), "mechanism", "class", "variant", "bytes", "cost_ns", "latency_ns", "source")
			// A size is measured per mechanism, which may be written as the
			// class it carries ("class": "shared_memory").
			key := "mechanism"
			if e.Has("class") {
				key = "class"
				if e.Has("mechanism") {
					d.Report(p.Index(i), jsonv.Invalid, `give "mechanism" or "class", not both`)
				}
			}
			sm := SizeMeasurement{
				Mechanism: e.String(key, true), Variant: e.String("variant", false),
				Bytes:  e.Int("bytes", true),
				CostNS: nonNegative(e, "cost_ns", true), LatencyNS: nonNegative(e, "latency_ns", false),
				Source: e.String("source", false),
			}
			if e != nil && e.Has("bytes") && sm.Bytes <= 0 {
				d.Report(p.Index(i).Key("bytes"), jsonv.Range, "%d bytes: want a positive size", sm.Bytes)
			}
			k := sizeKey{sm.Mechanism, sm.Variant, sm.Bytes}
			if j, dup := seen[k]; dup && e != nil {
				d.Report(p.Index(i), jsonv.DuplicateName, "%s at %d bytes is measured twice (also sizes[%d])", sm.Mechanism, sm.Bytes, j)
			}
			seen[k] = i
			e.End()
			ms.Sizes = append(ms.Sizes, sm)
		}
	}
	o.End()
	if err := d.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(ms.Sizes, func(a, b SizeMeasurement) int {
		return cmp.Or(cmp.Compare(a.Mechanism, b.Mechanism), cmp.Compare(a.Variant, b.Variant), cmp.Compare(a.Bytes, b.Bytes))
	})
	return ms, nil
}

// CheckTarget reports an error when the table was measured on another
// target than t (its Target is not t's name); a nil table fits any.
func (ms *Measurements) CheckTarget(t *Target) error {
	if ms == nil || ms.Target == t.Name {
		return nil
	}
	return fmt.Errorf("costmodel: the measurement table was measured on %q, not on %q: its costs are not this target's", ms.Target, t.Name)
}

// canonicalRename writes a tile renaming ("n=k,m=x") as Classify keys it
// (distribution.Rename's String form): its pairs sorted by the source axis,
// spaces and pairs that keep a name left out. It reports a text that is not
// a renaming: a pair without "=", an empty axis, an axis renamed twice.
func canonicalRename(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	to := map[string]string{}
	for i, part := range strings.Split(s, ",") {
		from, dst, ok := strings.Cut(part, "=")
		from, dst = strings.TrimSpace(from), strings.TrimSpace(dst)
		switch {
		case !ok:
			return "", fmt.Errorf("pair %d %q: want from=to", i+1, part)
		case from == "" || dst == "":
			return "", fmt.Errorf("pair %d %q: an empty axis name", i+1, part)
		}
		if prev, dup := to[from]; dup {
			return "", fmt.Errorf("axis %s renamed twice (to %s and to %s)", from, prev, dst)
		}
		to[from] = dst
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(to)) {
		if to[k] != k {
			parts = append(parts, k+"="+to[k])
		}
	}
	return strings.Join(parts, ","), nil
}

// sameKey reports whether a pair measured under key k is the conversion
// key q, the renamings compared in their canonical form.
func sameKey(k, q ConversionKey) bool {
	if k.Src != q.Src || k.Dst != q.Dst {
		return false
	}
	if k.Rename == q.Rename {
		return true
	}
	kr, err1 := canonicalRename(k.Rename)
	qr, err2 := canonicalRename(q.Rename)
	return err1 == nil && err2 == nil && kr == qr
}

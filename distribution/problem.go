package distribution

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A problem is a fault in one field of a Tiling or a Blocked, found before
// anything is built, so that both the Go API and the JSON form can say where
// it is in their own terms: Warps[0].Along for Go, $.tiled.warps[0].along for
// JSON.
type problem struct {
	at     []any  // steps: string (a field, by its JSON key), int (an index), mapKey
	msg    string // what is wrong, in terms common to both forms
	jsonIs string // a hint for the JSON form, appended after "; "
	goIs   string // the same hint for the Go API
}

// A mapKey is a step into a map field (Tiling.Repeat, "repeat").
type mapKey string

// goFieldNames maps the JSON keys of the tiled and blocked forms to the Go
// fields of Tiling, GridAxis and Blocked.
var goFieldNames = map[string]string{
	"warps": "Warps", "repeat": "Repeat", "name": "Name", "size": "Size", "along": "Along",
	"axes": "Axes", "shape": "Shape", "size_per_thread": "SizePerThread",
	"threads_per_warp": "ThreadsPerWarp", "warps_per_cta": "WarpsPerCTA", "order": "Order",
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// jsonStep writes one step of a JSON path: .key, [i], or ["odd key"].
func jsonStep(b *strings.Builder, key string) {
	if plainKey.MatchString(key) {
		b.WriteString("." + key)
	} else {
		b.WriteString("[" + strconv.Quote(key) + "]")
	}
}

func (p *problem) jsonPath(prefix string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, s := range p.at {
		switch s := s.(type) {
		case string:
			jsonStep(&b, s)
		case mapKey:
			jsonStep(&b, string(s))
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		}
	}
	return b.String()
}

func (p *problem) goPath() string {
	var b strings.Builder
	for _, s := range p.at {
		switch s := s.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteString(".")
			}
			b.WriteString(goFieldNames[s])
		case mapKey:
			fmt.Fprintf(&b, "[%q]", string(s))
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		}
	}
	return b.String()
}

// jsonError is the problem as a JSON form error under prefix.
func (p *problem) jsonError(prefix string) error {
	msg := p.msg
	if p.jsonIs != "" {
		msg += "; " + p.jsonIs
	}
	return fmt.Errorf("%s: %s", p.jsonPath(prefix), msg)
}

// goText is the problem as the Go API states it.
func (p *problem) goText() string {
	msg := p.goPath() + ": " + p.msg
	if p.goIs != "" {
		msg += "; " + p.goIs
	}
	return msg
}

// tileNames lists the tile axis names, "(m, n)".
func tileNames(tile []Axis) string {
	var names []string
	for _, a := range tile {
		names = append(names, a.Name)
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// checkTiling finds the first fault of t as a tiling of an atom with spec as:
// the repetitions in tile-axis-name order, then the warp axes in order.
func checkTiling(as Spec, t Tiling) *problem {
	isTile := map[string]bool{}
	for _, a := range as.Tile {
		isTile[a.Name] = true
	}
	for _, ax := range slices.Sorted(maps.Keys(t.Repeat)) {
		r := t.Repeat[ax]
		if !isTile[ax] {
			return &problem{at: []any{"repeat", mapKey(ax)}, msg: fmt.Sprintf("%q is not a tile axis of the atom %s", ax, tileNames(as.Tile))}
		}
		if r <= 0 || r > maxPoints {
			return &problem{at: []any{"repeat", mapKey(ax)}, msg: fmt.Sprintf("%d repetitions, not in 1..%d", r, maxPoints)}
		}
	}
	// The names the result has besides the warp axes: the atom's axes and
	// the repetition axes.
	taken := map[string]string{}
	for _, a := range as.Executors {
		taken[a.Name] = "an executor axis of the atom"
	}
	for _, a := range as.Locals {
		taken[a.Name] = "a value axis of the atom"
	}
	for _, a := range as.Tile {
		if t.Repeat[a.Name] > 1 {
			taken["rep_"+a.Name] = "the repetition axis along " + a.Name
		}
	}
	for i, g := range t.Warps {
		switch prev, dup := taken[g.Name]; {
		case g.Name == "":
			return &problem{at: []any{"warps", i, "name"}, msg: "the warp axis has no name"}
		case dup:
			return &problem{at: []any{"warps", i, "name"}, msg: fmt.Sprintf("%q is already the name of %s", g.Name, prev)}
		}
		taken[g.Name] = fmt.Sprintf("warp axis %d", i)
		if g.Size <= 0 || g.Size > maxPoints {
			return &problem{at: []any{"warps", i, "size"}, msg: fmt.Sprintf("%d warps, not in 1..%d", g.Size, maxPoints)}
		}
		switch {
		case g.Along == AlongReplicated:
		case g.Along == "":
			return &problem{at: []any{"warps", i, "along"}, msg: fmt.Sprintf("missing: name a tile axis of the atom %s, or %q for warps that hold copies", tileNames(as.Tile), AlongReplicated)}
		case !isTile[g.Along]:
			return &problem{at: []any{"warps", i, "along"},
				msg:    fmt.Sprintf("%q is not a tile axis of the atom %s", g.Along, tileNames(as.Tile)),
				jsonIs: `to replicate the tile over these warps, write "along": "replicated"`,
				goIs:   "to replicate the tile over these warps, use AlongReplicated"}
		}
	}
	return nil
}

// checkBlocked finds the first fault of a blocked encoding's fields.
func checkBlocked(b Blocked) *problem {
	rank := len(b.Shape)
	if rank == 0 {
		return &problem{at: []any{"shape"}, msg: "no dimensions: want one extent per tile axis"}
	}
	fields := []struct {
		key string
		v   []int
	}{{"shape", b.Shape}, {"size_per_thread", b.SizePerThread}, {"threads_per_warp", b.ThreadsPerWarp}, {"warps_per_cta", b.WarpsPerCTA}, {"order", b.Order}}
	for _, f := range fields[1:] {
		if len(f.v) != rank {
			return &problem{at: []any{f.key}, msg: fmt.Sprintf("%d entries, want %d (one per dimension of shape)", len(f.v), rank)}
		}
	}
	if len(b.Axes) != 0 {
		if len(b.Axes) != rank {
			return &problem{at: []any{"axes"}, msg: fmt.Sprintf("%d axis names, want %d (one per dimension of shape)", len(b.Axes), rank)}
		}
		first := map[string]int{}
		for i, a := range b.Axes {
			if a == "" {
				return &problem{at: []any{"axes", i}, msg: "the axis has no name"}
			}
			if j, dup := first[a]; dup {
				return &problem{at: []any{"axes", i}, msg: fmt.Sprintf("%q is used twice (axes[%d] and axes[%d])", a, j, i)}
			}
			first[a] = i
		}
		// The executor and value axes are named after the tile axes.
		for i, a := range b.Axes {
			for _, pre := range []string{"warp_", "lane_", "rep_", "elem_"} {
				for _, derived := range []string{pre + a, pre + a + "_copy"} {
					if j, clash := first[derived]; clash {
						return &problem{at: []any{"axes", j}, msg: fmt.Sprintf("%q is also the name of an axis derived from axes[%d] %q", derived, i, a)}
					}
				}
			}
		}
	}
	perm := slices.Clone(b.Order)
	slices.Sort(perm)
	for d := range rank {
		if perm[d] != d {
			return &problem{at: []any{"order"}, msg: fmt.Sprintf("%s is not a permutation of 0..%d", intsJSON(b.Order), rank-1)}
		}
	}
	lanes := 1
	for d := range rank {
		for _, f := range fields[:4] {
			if !isPow2(f.v[d]) {
				return &problem{at: []any{f.key, d}, msg: fmt.Sprintf("%d is not a positive power of two", f.v[d])}
			}
		}
		if b.SizePerThread[d] > b.Shape[d] {
			return &problem{at: []any{"size_per_thread", d}, msg: fmt.Sprintf("%d exceeds the extent %d of shape[%d]: a thread would hold an element twice", b.SizePerThread[d], b.Shape[d], d)}
		}
		lanes *= b.ThreadsPerWarp[d]
	}
	if lanes != 32 {
		return &problem{at: []any{"threads_per_warp"}, msg: fmt.Sprintf("%s has %d threads in all, want 32 (one warp)", intsJSON(b.ThreadsPerWarp), lanes)}
	}
	return nil
}

// intsJSON writes a list of integers as JSON does.
func intsJSON(v []int) string {
	var parts []string
	for _, x := range v {
		parts = append(parts, strconv.Itoa(x))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

package distribution

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/internal/jsonv"
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

// report records the problem in d at its path under base.
func (p *problem) report(d *jsonv.Decoder, base jsonv.Path) {
	path := base
	for _, s := range p.at {
		switch s := s.(type) {
		case string:
			path = path.Key(s)
		case mapKey:
			path = path.Key(string(s))
		case int:
			path = path.Index(s)
		}
	}
	msg := p.msg
	if p.jsonIs != "" {
		msg += "; " + p.jsonIs
	}
	d.Report(path, jsonv.Invalid, "%s", msg)
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

// goTexts joins problems as the Go API states them.
func goTexts(ps []*problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.goText()
	}
	return strings.Join(parts, "; ")
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

// checkTiling finds every fault of t as a tiling of an atom with spec as:
// the repetitions in tile-axis-name order, then the warp axes in order.
func checkTiling(as Spec, t Tiling) []*problem {
	var out []*problem
	isTile := map[string]bool{}
	for _, a := range as.Tile {
		isTile[a.Name] = true
	}
	for _, ax := range slices.Sorted(maps.Keys(t.Repeat)) {
		r := t.Repeat[ax]
		if !isTile[ax] {
			out = append(out, &problem{at: []any{"repeat", mapKey(ax)}, msg: fmt.Sprintf("%q is not a tile axis of the atom %s", ax, tileNames(as.Tile))})
		} else if r <= 0 || r > maxPoints {
			out = append(out, &problem{at: []any{"repeat", mapKey(ax)}, msg: fmt.Sprintf("%d repetitions, not in 1..%d", r, maxPoints)})
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
		if r := t.Repeat[a.Name]; r > 1 && r <= maxPoints {
			taken["rep_"+a.Name] = "the repetition axis along " + a.Name
		}
	}
	for i, g := range t.Warps {
		switch prev, dup := taken[g.Name]; {
		case g.Name == "":
			out = append(out, &problem{at: []any{"warps", i, "name"}, msg: "the warp axis has no name"})
		case dup:
			out = append(out, &problem{at: []any{"warps", i, "name"}, msg: fmt.Sprintf("%q is already the name of %s", g.Name, prev)})
		default:
			taken[g.Name] = fmt.Sprintf("warp axis %d", i)
		}
		if g.Size <= 0 || g.Size > maxPoints {
			out = append(out, &problem{at: []any{"warps", i, "size"}, msg: fmt.Sprintf("%d warps, not in 1..%d", g.Size, maxPoints)})
		}
		switch {
		case g.Along == AlongReplicated:
		case g.Along == "":
			out = append(out, &problem{at: []any{"warps", i, "along"}, msg: fmt.Sprintf("missing: name a tile axis of the atom %s, or %q for warps that hold copies", tileNames(as.Tile), AlongReplicated)})
		case !isTile[g.Along]:
			out = append(out, &problem{at: []any{"warps", i, "along"},
				msg:    fmt.Sprintf("%q is not a tile axis of the atom %s", g.Along, tileNames(as.Tile)),
				jsonIs: `to replicate the tile over these warps, write "along": "replicated"`,
				goIs:   "to replicate the tile over these warps, use AlongReplicated"})
		}
	}
	return out
}

// checkBlocked finds the faults of a blocked encoding's fields: every
// field of the wrong length, or else every axis name, order and extent at
// fault.
func checkBlocked(b Blocked) []*problem {
	rank := len(b.Shape)
	if rank == 0 {
		return []*problem{{at: []any{"shape"}, msg: "no dimensions: want one extent per tile axis"}}
	}
	var out []*problem
	fields := []struct {
		key string
		v   []int
	}{{"shape", b.Shape}, {"size_per_thread", b.SizePerThread}, {"threads_per_warp", b.ThreadsPerWarp}, {"warps_per_cta", b.WarpsPerCTA}, {"order", b.Order}}
	for _, f := range fields[1:] {
		if len(f.v) != rank {
			out = append(out, &problem{at: []any{f.key}, msg: fmt.Sprintf("%d entries, want %d (one per dimension of shape)", len(f.v), rank)})
		}
	}
	if len(b.Axes) != 0 && len(b.Axes) != rank {
		out = append(out, &problem{at: []any{"axes"}, msg: fmt.Sprintf("%d axis names, want %d (one per dimension of shape)", len(b.Axes), rank)})
	}
	if len(out) > 0 {
		return out
	}
	if len(b.Axes) != 0 {
		first := map[string]int{}
		for i, a := range b.Axes {
			if a == "" {
				out = append(out, &problem{at: []any{"axes", i}, msg: "the axis has no name"})
				continue
			}
			if j, dup := first[a]; dup {
				out = append(out, &problem{at: []any{"axes", i}, msg: fmt.Sprintf("%q is used twice (axes[%d] and axes[%d])", a, j, i)})
				continue
			}
			first[a] = i
		}
		// The executor and value axes are named after the tile axes.
		for i, a := range b.Axes {
			for _, pre := range []string{"warp_", "lane_", "rep_", "elem_"} {
				for _, derived := range []string{pre + a, pre + a + "_copy"} {
					if j, clash := first[derived]; clash {
						out = append(out, &problem{at: []any{"axes", j}, msg: fmt.Sprintf("%q is also the name of an axis derived from axes[%d] %q", derived, i, a)})
					}
				}
			}
		}
	}
	perm := slices.Clone(b.Order)
	slices.Sort(perm)
	for d := range rank {
		if perm[d] != d {
			out = append(out, &problem{at: []any{"order"}, msg: fmt.Sprintf("%s is not a permutation of 0..%d", intsJSON(b.Order), rank-1)})
			break
		}
	}
	lanes, pow2 := 1, true
	for d := range rank {
		for _, f := range fields[:4] {
			if !isPow2(f.v[d]) {
				out = append(out, &problem{at: []any{f.key, d}, msg: fmt.Sprintf("%d is not a positive power of two", f.v[d])})
				pow2 = pow2 && f.key != "threads_per_warp"
			}
		}
		if b.SizePerThread[d] > b.Shape[d] {
			out = append(out, &problem{at: []any{"size_per_thread", d}, msg: fmt.Sprintf("%d exceeds the extent %d of shape[%d]: a thread would hold an element twice", b.SizePerThread[d], b.Shape[d], d)})
		}
		if lanes <= 32 {
			lanes *= max(b.ThreadsPerWarp[d], 1)
		}
	}
	if pow2 && lanes != 32 {
		out = append(out, &problem{at: []any{"threads_per_warp"}, msg: fmt.Sprintf("%s has %d threads in all, want 32 (one warp)", intsJSON(b.ThreadsPerWarp), lanes)})
	}
	return out
}

// intsJSON writes a list of integers as JSON does.
func intsJSON(v []int) string {
	var parts []string
	for _, x := range v {
		parts = append(parts, strconv.Itoa(x))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

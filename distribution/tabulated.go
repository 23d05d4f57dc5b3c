package distribution

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// A Tabulation declares a distribution by its table, as "cklplan dist show
// --format json" (EntriesJSON) prints it: how tables dumped from a GPU or
// from another compiler come in.
type Tabulation struct {
	Name string
	// Tile names the tile axes; Sizes, when not nil, gives their sizes,
	// else each is one more than the largest coordinate listed.
	Tile  []string
	Sizes []int
	// Levels lists the executor levels the entries index, outermost first
	// (block, warp, lane; any may be absent). The executor axes of the
	// result are one per level, named after it, of size one more than the
	// largest index listed.
	Levels []Level
	// Entries lists every (executor, value) and the tile element it holds.
	Entries []Entry
	// Element is the element type (zero: f32); BlocksPerCluster the
	// cluster size (zero: 1).
	Element          storage.ElementType
	BlocksPerCluster int
}

// An Entry is one executor's value: the executor by its flat index within
// each level of Tabulation.Levels, the value (its index among the
// executor's values), the register slot it sits in (-1: the value's own
// index) and the tile coordinates of the element.
type Entry struct {
	Block, Warp, Lane int
	Value             int
	Slot              int
	Tile              []int
}

// A TableError lists what is wrong with a Tabulation, entry by entry.
type TableError struct {
	Name     string
	Problems []TableProblem
}

// A TableProblem is one fault of a tabulation: at entry Entry (-1: the
// table as a whole), in its field Field ("" for the entry itself).
type TableProblem struct {
	Entry int
	Field string
	Msg   string
}

func (e *TableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "distribution %q: the table is invalid:", e.Name)
	for _, p := range e.Problems {
		switch {
		case p.Entry < 0:
			fmt.Fprintf(&b, "\n\tentries: %s", p.Msg)
		case p.Field == "":
			fmt.Fprintf(&b, "\n\tentries[%d]: %s", p.Entry, p.Msg)
		default:
			fmt.Fprintf(&b, "\n\tentries[%d].%s: %s", p.Entry, p.Field, p.Msg)
		}
	}
	return b.String()
}

// maxTableReports bounds the missing entries and unowned elements reported
// one by one.
const maxTableReports = 8

// NewTabulated checks a tabulation and returns its distribution. It
// checks that every (executor, value) is listed exactly once, that a value
// has one slot and no slot holds two values, that every coordinate lies in
// the tile and every element is held by some entry; an element held by
// several executors is replicated there. The result has no index-map text:
// Ownership and Storage return zero Maps, MarshalJSON writes the tabulated
// form, and TileAtom refuses it as an atom.
func NewTabulated(t Tabulation) (*Distribution, error) {
	d, ps := newTabulated(t)
	if len(ps) > 0 {
		return nil, &TableError{Name: t.Name, Problems: ps}
	}
	return d, nil
}

func newTabulated(t Tabulation) (*Distribution, []TableProblem) {
	var ps []TableProblem
	add := func(entry int, field, format string, args ...any) {
		ps = append(ps, TableProblem{entry, field, fmt.Sprintf(format, args...)})
	}
	if len(t.Tile) == 0 {
		add(-1, "", "the tile has no axes")
	}
	seen := map[string]bool{}
	for _, a := range t.Tile {
		if a == "" || seen[a] {
			add(-1, "", "tile axis name %q empty or used twice", a)
		}
		seen[a] = true
	}
	for i := 1; i < len(t.Levels); i++ {
		if t.Levels[i] <= t.Levels[i-1] {
			add(-1, "", "levels %v: want block, warp, lane in that order, each once", t.Levels)
		}
	}
	if t.Sizes != nil && len(t.Sizes) != len(t.Tile) {
		add(-1, "", "%d sizes for %d tile axes", len(t.Sizes), len(t.Tile))
	}
	if len(t.Entries) == 0 {
		add(-1, "", "no entries")
	}
	if len(ps) > 0 {
		return nil, ps
	}
	// Sizes: one more than the largest index, unless given.
	levelSize := map[Level]int{}
	nv := 0
	tileSizes := make([]int, len(t.Tile))
	for i, e := range t.Entries {
		for _, l := range t.Levels {
			if x := e.level(l); x < 0 {
				add(i, l.String(), "%d is negative", x)
			} else {
				levelSize[l] = max(levelSize[l], x+1)
			}
		}
		if e.Value < 0 {
			add(i, "value", "%d is negative", e.Value)
		}
		nv = max(nv, e.Value+1)
		if len(e.Tile) != len(t.Tile) {
			add(i, "tile", "%d coordinates for the tile (%s)", len(e.Tile), strings.Join(t.Tile, ", "))
			continue
		}
		for j, c := range e.Tile {
			switch {
			case c < 0:
				add(i, fmt.Sprintf("tile[%d]", j), "%d is negative", c)
			case t.Sizes != nil && c >= t.Sizes[j]:
				add(i, fmt.Sprintf("tile[%d]", j), "%d outside the %s axis 0..%d", c, t.Tile[j], t.Sizes[j]-1)
			default:
				tileSizes[j] = max(tileSizes[j], c+1)
			}
		}
	}
	if t.Sizes != nil {
		for j, s := range t.Sizes {
			if s <= 0 {
				add(-1, "", "size %d of the %s axis is not positive", s, t.Tile[j])
			}
			tileSizes[j] = s
		}
	}
	if len(ps) > 0 {
		return nil, ps
	}
	spec := Spec{Name: t.Name, Element: t.Element, BlocksPerCluster: t.BlocksPerCluster, Locals: []Axis{{"v", nv}}}
	for _, l := range t.Levels {
		spec.Executors = append(spec.Executors, ExecutorAxis{Name: l.String(), Size: levelSize[l], Level: l})
	}
	for j, a := range t.Tile {
		spec.Tile = append(spec.Tile, Axis{a, tileSizes[j]})
	}
	shape := &Distribution{spec: cloneSpec(spec)}
	if err := shape.checkShape(); err != nil {
		add(-1, "", "%v", err)
		return nil, ps
	}
	execSizes := shape.execSizes
	nExec := shape.nExec
	if int64(nExec)*int64(nv) > maxPoints {
		add(-1, "", "%d executors × %d values: more than %d entries", nExec, nv, maxPoints)
		return nil, ps
	}
	table := make([]int32, nExec*nv)
	first := make([]int32, nExec*nv)
	for i := range table {
		table[i] = -1
	}
	slotOf := make([]int, nv)
	slotFrom := make([]int, nv) // the entry that set the value's slot
	for v := range slotOf {
		slotOf[v], slotFrom[v] = -1, -1
	}
	coords := make([]int, len(t.Levels))
	for i, e := range t.Entries {
		for k, l := range t.Levels {
			coords[k] = e.level(l)
		}
		p := flatten(coords, execSizes)*nv + e.Value
		if table[p] >= 0 {
			add(i, "", "%s value %d is listed again (first at entries[%d])", e.executorText(t.Levels), e.Value, first[p])
			continue
		}
		table[p], first[p] = int32(flatten(e.Tile, tileSizes)), int32(i)
		if e.Slot >= 0 {
			switch {
			case e.Slot >= nv:
				add(i, "slot", "%d outside 0..%d (one slot per value)", e.Slot, nv-1)
			case slotOf[e.Value] < 0:
				slotOf[e.Value], slotFrom[e.Value] = e.Slot, i
			case slotOf[e.Value] != e.Slot:
				add(i, "slot", "value %d in slot %d, but entries[%d] puts it in slot %d", e.Value, e.Slot, slotFrom[e.Value], slotOf[e.Value])
			}
		}
	}
	valueIn := make([]int, nv)
	for s := range valueIn {
		valueIn[s] = -1
	}
	for v, s := range slotOf {
		if s < 0 {
			slotOf[v], s = v, v
		}
		if valueIn[s] >= 0 {
			add(max(slotFrom[v], slotFrom[valueIn[s]]), "slot", "slot %d holds values %d and %d", s, valueIn[s], v)
			continue
		}
		valueIn[s] = v
	}
	missing := 0
	for p, x := range table {
		if x >= 0 {
			continue
		}
		if missing < maxTableReports {
			e, v := p/nv, p%nv
			unflatten(e, execSizes, coords)
			ent := Entry{Value: v}
			for k, l := range t.Levels {
				ent.setLevel(l, coords[k])
			}
			add(-1, "", "no entry for %s value %d: every executor holds every value", ent.executorText(t.Levels), v)
		}
		missing++
	}
	if missing > maxTableReports {
		add(-1, "", "… and %d more (executor, value) pairs without an entry", missing-maxTableReports)
	}
	if len(ps) > 0 {
		return nil, ps
	}
	d, err := build(spec,
		func(point, tile []int) error {
			unflatten(int(table[flatten(point, append(slices.Clone(execSizes), nv))]), tileSizes, tile)
			return nil
		},
		func(local []int) (int, error) { return slotOf[local[0]], nil })
	if err != nil {
		if ve, ok := err.(*ValidityError); ok {
			for _, p := range ve.Problems {
				add(-1, "", "%s", p.Message)
			}
			return nil, ps
		}
		add(-1, "", "%v", err)
		return nil, ps
	}
	return d, nil
}

func (e Entry) level(l Level) int {
	switch l {
	case LevelBlock:
		return e.Block
	case LevelWarp:
		return e.Warp
	}
	return e.Lane
}

func (e *Entry) setLevel(l Level, x int) {
	switch l {
	case LevelBlock:
		e.Block = x
	case LevelWarp:
		e.Warp = x
	default:
		e.Lane = x
	}
}

// executorText writes the executor as "(warp 1, lane 3)".
func (e Entry) executorText(levels []Level) string {
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = fmt.Sprintf("%s %d", l, e.level(l))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Tabulated reports whether d was declared by its table (NewTabulated, or
// the tabulated JSON form) rather than by index maps.
func (d *Distribution) Tabulated() bool { return d.spec.Ownership == nil }

var entryFields = []string{"block", "warp", "lane", "value", "slot", "tile"}

// decodeTabulated reads the tabulated form: {"name", "tile": [names],
// "sizes"?: [sizes], "entries": [{"block"?, "warp"?, "lane"?, "value",
// "slot"?, "tile": [coordinates]}], "element"?, "blocks_per_cluster"?}.
func decodeTabulated(d *jsonv.Decoder, o *jsonv.ObjectReader, name string, element storage.ElementType, clusters int) (*Distribution, bool) {
	before := d.ErrorCount()
	t := Tabulation{Name: name, Element: element, BlocksPerCluster: clusters}
	if tv, tp := o.Require("tile", "the tile axis names"); tv != nil {
		t.Tile, _ = d.Strings(tv, tp)
	}
	if sv, sp := o.Field("sizes"); sv != nil {
		t.Sizes, _ = d.Ints(sv, sp)
	}
	ev, ep := o.Field("entries")
	elems, _ := d.Array(ev, ep)
	levelsFrom := -1
	for i, v := range elems {
		eo := d.Object(v, ep.Index(i), entryFields...)
		if eo == nil {
			continue
		}
		var levels []Level
		e := Entry{Slot: -1}
		for _, l := range []Level{LevelBlock, LevelWarp, LevelLane} {
			if eo.Has(l.String()) {
				levels = append(levels, l)
				e.setLevel(l, eo.Int(l.String(), true))
			}
		}
		e.Value = eo.Int("value", true)
		if eo.Has("slot") {
			e.Slot = eo.Int("slot", true)
			if e.Slot < 0 {
				d.Report(ep.Index(i).Key("slot"), jsonv.Range, "%d is negative", e.Slot)
			}
		}
		if tv, tp := eo.Require("tile", "the tile coordinates"); tv != nil {
			e.Tile, _ = d.Ints(tv, tp)
		}
		eo.End()
		if levelsFrom < 0 {
			t.Levels, levelsFrom = levels, i
		} else if !slices.Equal(levels, t.Levels) {
			d.Report(ep.Index(i), CodeTable, "names the levels %v, but entries[%d] names %v", levels, levelsFrom, t.Levels)
		}
		t.Entries = append(t.Entries, e)
	}
	if d.ErrorCount() > before {
		return nil, false
	}
	dist, ps := newTabulated(t)
	for _, p := range ps {
		path := ep
		if p.Entry >= 0 {
			path = path.Index(p.Entry)
			if p.Field != "" {
				field, index, _ := strings.Cut(p.Field, "[")
				path = path.Key(field)
				if index != "" {
					var k int
					fmt.Sscanf(index, "%d]", &k)
					path = path.Index(k)
				}
			}
		}
		d.Report(path, CodeTable, "%s", p.Msg)
	}
	return dist, len(ps) == 0
}

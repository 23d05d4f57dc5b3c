package distribution

import (
	"fmt"
	"strconv"
	"strings"
)

// EntriesJSON returns the tabulated ownership as JSON, one entry per
// (executor, value) in executor then value order; DecodeJSON reads it back
// as the same distribution (NewTabulated):
//
//	{
//	  "name": "mma.m16n8k16.a.f16",
//	  "element": "f16",
//	  "tile": ["m", "k"],
//	  "entries": [
//	    {"lane": 0, "value": 0, "tile": [0, 0]},
//	    …
//	  ]
//	}
//
// An entry names the block, warp and lane levels the distribution has (the
// flat index over each level's axes) and, when values do not sit in the
// register slot of their own index, the "slot". "blocks_per_cluster"
// follows "element" when the blocks form clusters.
func (d *Distribution) EntriesJSON() []byte {
	var b strings.Builder
	b.WriteString("{\n  \"name\": ")
	b.WriteString(strconv.Quote(d.spec.Name))
	fmt.Fprintf(&b, ",\n  \"element\": %q", d.spec.Element.String())
	if d.spec.BlocksPerCluster > 1 {
		fmt.Fprintf(&b, ",\n  \"blocks_per_cluster\": %d", d.spec.BlocksPerCluster)
	}
	b.WriteString(",\n  \"tile\": [")
	for i, a := range d.spec.Tile {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(a.Name))
	}
	b.WriteString("],\n  \"entries\": [")
	identity := d.IdentityStorage()
	tile := make([]int, len(d.tileSizes))
	for e := 0; e < d.nExec; e++ {
		lv := d.levelIndex(e)
		for v := 0; v < d.nLocal; v++ {
			if e > 0 || v > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    {")
			for l := LevelBlock; l <= LevelLane; l++ {
				if d.hasLevel(l) {
					fmt.Fprintf(&b, "%q: %d, ", l.String(), lv[l])
				}
			}
			fmt.Fprintf(&b, "\"value\": %d, ", v)
			if !identity {
				fmt.Fprintf(&b, "\"slot\": %d, ", d.slotOf[v])
			}
			unflatten(int(d.owned[e*d.nLocal+v]), d.tileSizes, tile)
			b.WriteString("\"tile\": [")
			for i, c := range tile {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Itoa(c))
			}
			b.WriteString("]}")
		}
	}
	b.WriteString("\n  ]\n}\n")
	return []byte(b.String())
}

// Heading is the line that heads d's renderings (Diagram, cklplan's text
// form): its name and axes, "mma.m16n8k16.c.f32: tile (m:16, n:8),
// executors (lane:32@lane), values (v:4)", replicated executor axes marked
// with *. Where the axes do not show what a thread holds, the line says it:
// "every thread holds the whole tile" (", one value" when that is one
// element) when every executor owns every element, however the
// distribution was written (a tabulated one marks no axis replicated); "each
// thread holds one value" when there are no value axes, which "values ()"
// alone does not say.
func (d *Distribution) Heading() string {
	h := fmt.Sprintf("%s: tile %s, executors %s, values %s", d.spec.Name, axesString(d.spec.Tile), axesString(d.spec.Executors), axesString(d.spec.Locals))
	whole := d.everyExecutorHoldsTile()
	switch {
	case whole && d.nLocal == 1:
		h += ": every thread holds the whole tile, one value"
	case whole:
		h += ": every thread holds the whole tile"
	case len(d.spec.Locals) == 0:
		h += ": each thread holds one value"
	}
	return h
}

// everyExecutorHoldsTile reports whether each executor's values are the
// whole tile: every element, each once.
func (d *Distribution) everyExecutorHoldsTile() bool {
	if d.nLocal != d.nTile {
		return false
	}
	seenBy := make([]int, d.nTile) // the executor that last held the element, plus 1
	for e := 0; e < d.nExec; e++ {
		for _, t := range d.owned[e*d.nLocal : (e+1)*d.nLocal] {
			if seenBy[t] == e+1 {
				return false
			}
			seenBy[t] = e + 1
		}
	}
	return true
}

func (d *Distribution) hasLevel(l Level) bool {
	for _, a := range d.spec.Executors {
		if a.Level == l {
			return true
		}
	}
	return false
}

// Diagram draws the tile, under its Heading, the way the PTX ISA's fragment
// figures do: one cell per element holding its owner and value, "T5:a3" for
// value 3 of thread 5. Threads are numbered within a block (warp*lanes +
// lane); a block level adds "B1." in front. An element with several owners
// (replicated axes) shows the first and how many more ("T0:a0+3"). The last
// tile axis runs across, the one before it down; a tile of more axes is
// drawn as one slice per point of the leading axes.
func (d *Distribution) Diagram() string {
	label := make([]string, d.nTile)
	width := 0
	prefix := d.valuePrefix()
	blocks := d.hasLevel(LevelBlock)
	for t := 0; t < d.nTile; t++ {
		owners := d.ownList[d.ownStart[t]:d.ownStart[t+1]]
		p := int(owners[0])
		e, v := p/d.nLocal, p%d.nLocal
		lv := d.levelIndex(e)
		s := ""
		if blocks {
			s = fmt.Sprintf("B%d.", lv[LevelBlock])
		}
		s += fmt.Sprintf("T%d:%s%d", lv[LevelWarp]*d.levelSizes[LevelLane]+lv[LevelLane], prefix, v)
		if len(owners) > 1 {
			s += fmt.Sprintf("+%d", len(owners)-1)
		}
		label[t] = s
		width = max(width, len(s))
	}
	rank := len(d.tileSizes)
	rows, cols := 1, d.tileSizes[rank-1]
	corner := d.spec.Tile[rank-1].Name
	if rank >= 2 {
		rows = d.tileSizes[rank-2]
		corner = d.spec.Tile[rank-2].Name + `\` + corner
	}
	rowW := max(len(corner), len(strconv.Itoa(rows-1)))
	width = max(width, len(strconv.Itoa(cols-1)))
	var b strings.Builder
	b.WriteString(d.Heading())
	b.WriteByte('\n')
	line := func(head string, cells func(c int) string) {
		var l strings.Builder
		fmt.Fprintf(&l, "%*s", rowW, head)
		for c := 0; c < cols; c++ {
			fmt.Fprintf(&l, "  %*s", width, cells(c))
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	lead := make([]int, max(rank-2, 0))
	for sl := 0; sl < d.nTile/(rows*cols); sl++ {
		b.WriteByte('\n')
		if rank > 2 {
			unflatten(sl, d.tileSizes[:rank-2], lead)
			parts := make([]string, len(lead))
			for i, c := range lead {
				parts[i] = fmt.Sprintf("%s=%d", d.spec.Tile[i].Name, c)
			}
			fmt.Fprintf(&b, "[%s]\n", strings.Join(parts, ", "))
		}
		line(corner, strconv.Itoa)
		for r := 0; r < rows; r++ {
			base := (sl*rows + r) * cols
			head := ""
			if rank >= 2 {
				head = strconv.Itoa(r)
			}
			line(head, func(c int) string { return label[base+c] })
		}
	}
	return b.String()
}

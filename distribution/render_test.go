package distribution

import (
	"fmt"
	"strings"
	"testing"
)

// TestHeading checks the line that heads a distribution's renderings: the
// axes, and what a thread holds where the axes do not show it. Whether every
// thread holds the whole tile is checked against Holds over every executor,
// not only against the expected text.
func TestHeading(t *testing.T) {
	tests := []struct {
		name string
		json string // any JSON form; "builtin NAME" for an atom
		want string
	}{{
		name: "an atom: the axes say it all",
		json: "builtin mma.m16n8k16.c.f32",
		want: "mma.m16n8k16.c.f32: tile (m:16, n:8), executors (lane:32@lane), values (v:4)",
	}, {
		name: "warps holding copies: each thread still holds part of the tile",
		json: `{"name": "cta.a", "tiled": {"atom": "mma.m16n8k16.a.f16",
			"warps": [{"name": "warp_m", "size": 2, "along": "m"}, {"name": "warp_n", "size": 2, "along": "replicated"}]}}`,
		want: "cta.a: tile (m:32, k:16), executors (warp_m:2@warp, warp_n:2@warp*, lane:32@lane), values (v:8)",
	}, {
		name: "every lane holds the one element",
		json: `{"name": "bcast", "executors": [{"name": "lane", "size": 32, "level": "lane", "replicated": true}],
			"locals": [], "tile": [{"name": "m", "size": 1}], "ownership": {"m": "0"}}`,
		want: "bcast: tile (m:1), executors (lane:32@lane*), values (): every thread holds the whole tile, one value",
	}, {
		name: "every lane holds the whole row",
		json: `{"name": "row", "executors": [{"name": "lane", "size": 32, "level": "lane", "replicated": true}],
			"locals": [{"name": "v", "size": 4}], "tile": [{"name": "m", "size": 4}], "ownership": {"m": "v"}}`,
		want: "row: tile (m:4), executors (lane:32@lane*), values (v:4): every thread holds the whole tile",
	}, {
		name: "the same row tabulated: no axis is marked, every thread still holds it",
		json: `{"name": "row", "tile": ["m"], "entries": [
			{"lane": 0, "value": 0, "tile": [0]}, {"lane": 0, "value": 1, "tile": [1]},
			{"lane": 1, "value": 0, "tile": [0]}, {"lane": 1, "value": 1, "tile": [1]}]}`,
		want: "row: tile (m:2), executors (lane:2@lane), values (v:2): every thread holds the whole tile",
	}, {
		name: "one element a lane, no value axes",
		json: `{"name": "spread", "executors": [{"name": "lane", "size": 32, "level": "lane"}],
			"locals": [], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "lane"}}`,
		want: "spread: tile (m:32), executors (lane:32@lane), values (): each thread holds one value",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d *Distribution
			var err error
			if name, ok := strings.CutPrefix(tt.json, "builtin "); ok {
				d, err = Builtin(name)
			} else {
				d, err = DecodeJSON([]byte(tt.json))
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Heading(); got != tt.want {
				t.Errorf("Heading() = %q\nwant         %q", got, tt.want)
			}
			if first, _, _ := strings.Cut(d.Diagram(), "\n"); first != tt.want {
				t.Errorf("Diagram() begins %q, want %q", first, tt.want)
			}
			whole := strings.Contains(tt.want, "every thread holds the whole tile")
			if held := everyExecutorHolds(t, d); held != whole {
				t.Errorf("every executor holds the whole tile: %v, the heading says %v", held, whole)
			}
		})
	}
}

// everyExecutorHolds reports, by Holds over every executor, whether each
// one holds every element of d's tile.
func everyExecutorHolds(t *testing.T, d *Distribution) bool {
	t.Helper()
	var sizes []int
	for _, a := range d.Executors() {
		sizes = append(sizes, a.Size)
	}
	coords := make([]int, len(sizes))
	for e := 0; e < d.NumExecutors(); e++ {
		unflatten(e, sizes, coords)
		held, err := d.Holds(coords...)
		if err != nil {
			t.Fatal(err)
		}
		tile := map[string]bool{}
		for _, h := range held {
			tile[fmt.Sprint(h.Tile)] = true
		}
		if len(tile) != d.NumElements() {
			return false
		}
	}
	return true
}

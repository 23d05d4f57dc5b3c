package distribution

import (
	"fmt"

	json "github.com/goccy/go-json"
)

// The JSON form of a distribution is one object holding exactly one of five
// ways to write it:
//
//	{"builtin": "mma.m16n8k16.a.f16"}
//
//	{"name": "cta.a", "tiled": {"atom": "mma.m16n8k16.a.f16",
//	  "warps": [{"name": "warp_m", "size": 2, "along": "m"},
//	            {"name": "warp_n", "size": 2, "along": "replicated"}],
//	  "repeat": {"m": 2}, "warp_contiguous": true}}
//
//	{"name": "ld", "blocked": {"axes": ["m", "n"], "shape": [64, 64],
//	  "size_per_thread": [1, 8], "threads_per_warp": [4, 8],
//	  "warps_per_cta": [4, 1], "order": [1, 0]}}
//
//	{"name": "mma.m16n8k16.c.f32",
//	 "executors": [{"name": "lane", "size": 32, "level": "lane"}],
//	 "locals": [{"name": "v", "size": 4}],
//	 "tile": [{"name": "m", "size": 16}, {"name": "n", "size": 8}],
//	 "ownership": {"m": "lane / 4 + 8 * (v / 2)", "n": "lane % 4 * 2 + v % 2"},
//	 "storage": "v", "value_prefix": "c"}
//
//	{"name": "pair", "element": "f16", "tile": ["x"], "entries": [
//	  {"lane": 0, "value": 0, "tile": [0]}, {"lane": 1, "value": 0, "tile": [1]}]}
//
// The tabulated form (the last) is exactly what EntriesJSON (and "cklplan
// dist show --format json") writes: every (executor, value) with the tile
// element it holds, the block, warp and lane levels the table has, an
// optional "slot", and optional "sizes" (one per tile axis; else one more
// than the largest coordinate). An element listed under several executors
// is replicated there (NewTabulated).
//
// Every form may give "element" (the element type, f32 when absent; it
// overrides a built-in or tiled atom's) and "blocks_per_cluster" (1 when
// absent).
//
// The explicit form (the fourth) is what MarshalJSON writes; "storage" and
// "value_prefix" may be left out, an executor's "replicated" defaults to false.
// A tiled atom is a built-in name or a nested object of this form. A warp
// axis goes "along" a tile axis of the atom, or is "replicated" (its warps
// hold copies): replication is written out, never inferred.

type axisJSON struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

type executorJSON struct {
	Name       string `json:"name"`
	Size       int    `json:"size"`
	Level      string `json:"level"`
	Replicated bool   `json:"replicated,omitempty"`
}

type distJSON struct {
	Name        string            `json:"name,omitempty"`
	Element     string            `json:"element"`
	Clusters    int               `json:"blocks_per_cluster,omitempty"`
	Executors   []executorJSON    `json:"executors,omitempty"`
	Locals      []axisJSON        `json:"locals,omitempty"`
	Tile        []axisJSON        `json:"tile,omitempty"`
	Ownership   map[string]string `json:"ownership,omitempty"`
	Storage     string            `json:"storage,omitempty"`
	ValuePrefix string            `json:"value_prefix,omitempty"`
}

// MarshalJSON writes d in the explicit form, with the index-map text in
// canonical form. DecodeJSON reads it back to an equal distribution.
func (d *Distribution) MarshalJSON() ([]byte, error) {
	if d.Tabulated() {
		return d.EntriesJSON(), nil
	}
	s := d.spec
	j := distJSON{Name: s.Name, Storage: s.Storage, ValuePrefix: s.ValuePrefix, Ownership: map[string]string{}, Element: s.Element.String()}
	if s.BlocksPerCluster > 1 {
		j.Clusters = s.BlocksPerCluster
	}
	for _, a := range s.Executors {
		j.Executors = append(j.Executors, executorJSON{a.Name, a.Size, a.Level.String(), a.Replicated})
	}
	for _, a := range s.Locals {
		j.Locals = append(j.Locals, axisJSON(a))
	}
	for i, a := range s.Tile {
		j.Tile = append(j.Tile, axisJSON(a))
		j.Ownership[a.Name] = s.Ownership[i]
	}
	return json.Marshal(j)
}

// String returns the explicit JSON form on one line (MarshalJSON); DecodeJSON
// reads it back to an equal distribution.
func (d *Distribution) String() string {
	data, err := d.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("distribution %q: %v", d.spec.Name, err)
	}
	return string(data)
}

// UnmarshalJSON reads any JSON form into d (see DecodeJSON).
func (d *Distribution) UnmarshalJSON(data []byte) error {
	n, err := DecodeJSON(data)
	if err != nil {
		return err
	}
	*d = *n
	return nil
}

package distribution

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	json "github.com/goccy/go-json"
)

// The JSON form of a distribution is one object holding exactly one of four
// ways to write it:
//
//	{"builtin": "mma.m16n8k16.a.f16"}
//
//	{"name": "cta.a", "tiled": {"atom": "mma.m16n8k16.a.f16",
//	  "warps": [{"name": "warp_m", "size": 2, "along": "m"},
//	            {"name": "warp_n", "size": 2, "along": "n"}],
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
// The last, explicit form is what MarshalJSON writes; "storage" and
// "value_prefix" may be left out, an executor's "replicated" defaults to false.
// A tiled atom is a built-in name or a nested object of this form.

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

type gridJSON struct {
	Name  string `json:"name"`
	Size  int    `json:"size"`
	Along string `json:"along"`
}

type tiledJSON struct {
	Atom           json.RawMessage `json:"atom"`
	Warps          []gridJSON      `json:"warps,omitempty"`
	Repeat         map[string]int  `json:"repeat,omitempty"`
	WarpContiguous bool            `json:"warp_contiguous,omitempty"`
}

type blockedJSON struct {
	Axes           []string `json:"axes,omitempty"`
	Shape          []int    `json:"shape"`
	SizePerThread  []int    `json:"size_per_thread"`
	ThreadsPerWarp []int    `json:"threads_per_warp"`
	WarpsPerCTA    []int    `json:"warps_per_cta"`
	Order          []int    `json:"order"`
}

type distJSON struct {
	Name        string            `json:"name,omitempty"`
	Builtin     string            `json:"builtin,omitempty"`
	Tiled       *tiledJSON        `json:"tiled,omitempty"`
	Blocked     *blockedJSON      `json:"blocked,omitempty"`
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
	s := d.spec
	j := distJSON{Name: s.Name, Storage: s.Storage, ValuePrefix: s.ValuePrefix, Ownership: map[string]string{}}
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

// DecodeJSON reads a distribution in any of the JSON forms. Errors name the
// JSON path at fault.
func DecodeJSON(data []byte) (*Distribution, error) {
	return decodeJSON(data, "$", 0)
}

// maxNesting bounds how deeply tiled atoms may nest.
const maxNesting = 8

func decodeJSON(data []byte, path string, depth int) (*Distribution, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%s: tiled atoms nested more than %d deep", path, maxNesting)
	}
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var name string
		if err := json.Unmarshal(data, &name); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		d, err := Builtin(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return d, nil
	}
	var j distJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: trailing data after the distribution object", path)
	}
	forms := 0
	var which []string
	explicit := j.Executors != nil || j.Locals != nil || j.Tile != nil || j.Ownership != nil || j.Storage != "" || j.ValuePrefix != ""
	for _, f := range []struct {
		name    string
		present bool
	}{{"builtin", j.Builtin != ""}, {"tiled", j.Tiled != nil}, {"blocked", j.Blocked != nil}, {"explicit", explicit}} {
		if f.present {
			forms++
			which = append(which, f.name)
		}
	}
	if forms != 1 {
		return nil, fmt.Errorf(`%s: want exactly one of "builtin", "tiled", "blocked" or the explicit fields (executors, locals, tile, ownership); have %d %v`, path, forms, which)
	}
	rename := func(d *Distribution) *Distribution {
		if j.Name != "" {
			return d.WithName(j.Name)
		}
		return d
	}
	switch {
	case j.Builtin != "":
		d, err := Builtin(j.Builtin)
		if err != nil {
			return nil, fmt.Errorf("%s.builtin: %v", path, err)
		}
		return rename(d), nil
	case j.Tiled != nil:
		if len(j.Tiled.Atom) == 0 {
			return nil, fmt.Errorf("%s.tiled.atom: missing", path)
		}
		atom, err := decodeJSON(j.Tiled.Atom, path+".tiled.atom", depth+1)
		if err != nil {
			return nil, err
		}
		t := Tiling{Name: j.Name, Repeat: j.Tiled.Repeat, WarpContiguous: j.Tiled.WarpContiguous}
		for _, g := range j.Tiled.Warps {
			t.Warps = append(t.Warps, GridAxis(g))
		}
		d, err := TileAtom(atom, t)
		if err != nil {
			return nil, fmt.Errorf("%s.tiled: %v", path, err)
		}
		return d, nil
	case j.Blocked != nil:
		b := j.Blocked
		d, err := NewBlocked(Blocked{Name: j.Name, Axes: b.Axes, Shape: b.Shape, SizePerThread: b.SizePerThread,
			ThreadsPerWarp: b.ThreadsPerWarp, WarpsPerCTA: b.WarpsPerCTA, Order: b.Order})
		if err != nil {
			return nil, fmt.Errorf("%s.blocked: %v", path, err)
		}
		return d, nil
	}
	spec := Spec{Name: j.Name, Storage: j.Storage, ValuePrefix: j.ValuePrefix}
	for i, e := range j.Executors {
		l, err := ParseLevel(e.Level)
		if err != nil {
			return nil, fmt.Errorf("%s.executors[%d].level: %v", path, i, strings.TrimPrefix(err.Error(), "distribution: "))
		}
		spec.Executors = append(spec.Executors, ExecutorAxis{e.Name, e.Size, l, e.Replicated})
	}
	for _, a := range j.Locals {
		spec.Locals = append(spec.Locals, Axis(a))
	}
	seen := map[string]bool{}
	for i, a := range j.Tile {
		spec.Tile = append(spec.Tile, Axis(a))
		text, ok := j.Ownership[a.Name]
		if !ok {
			return nil, fmt.Errorf("%s.ownership: no expression for tile axis %q (tile[%d])", path, a.Name, i)
		}
		seen[a.Name] = true
		spec.Ownership = append(spec.Ownership, text)
	}
	for _, k := range slices.Sorted(maps.Keys(j.Ownership)) {
		if !seen[k] {
			return nil, fmt.Errorf("%s.ownership.%s: not a tile axis", path, k)
		}
	}
	d, err := New(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
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

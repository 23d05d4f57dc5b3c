package distribution

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/indexmap"
)

// The JSON form of a distribution is one object holding exactly one of four
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
// The last, explicit form is what MarshalJSON writes; "storage" and
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

// DecodeJSON reads a distribution in any of the JSON forms. Errors name the
// JSON path at fault and say what is wrong in the form's own terms
// ($.blocked.size_per_thread[1]: want an integer, have the string "8").
func DecodeJSON(data []byte) (*Distribution, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("$: the input is empty: want a JSON distribution object")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("$: malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("$: trailing data after the distribution object")
	}
	return decodeValue(v, "$", 0)
}

// formText is an error of the Go API as the JSON form states it: without
// the package prefix.
func formText(err error) string {
	return strings.TrimPrefix(err.Error(), "distribution: ")
}

// builtinJSON looks up a built-in atom named at path, suggesting the atoms
// that differ from name only in its last dotted part.
func builtinJSON(name, path string) (*Distribution, error) {
	if d, err := Builtin(name); err == nil {
		return d, nil
	}
	msg := fmt.Sprintf("%s: no built-in atom %q", path, name)
	if i := strings.LastIndex(name, "."); i > 0 {
		var near []string
		for _, n := range BuiltinNames() {
			if strings.HasPrefix(n, name[:i+1]) {
				near = append(near, n)
			}
		}
		if len(near) > 0 {
			msg += " (did you mean " + strings.Join(near, ", ") + "?)"
		}
	}
	return nil, errors.New(msg)
}

// maxNesting bounds how deeply tiled atoms may nest.
const maxNesting = 8

// The fields of each object of the JSON forms.
var (
	distFields     = []string{"name", "element", "blocks_per_cluster", "builtin", "tiled", "blocked", "executors", "locals", "tile", "ownership", "storage", "value_prefix"}
	explicitFields = []string{"executors", "locals", "tile", "ownership", "storage", "value_prefix"}
	tiledFields    = []string{"atom", "warps", "repeat", "warp_contiguous"}
	warpFields     = []string{"name", "size", "along"}
	blockedFields  = []string{"axes", "shape", "size_per_thread", "threads_per_warp", "warps_per_cta", "order"}
	executorFields = []string{"name", "size", "level", "replicated"}
	axisFields     = []string{"name", "size"}
)

func decodeValue(v any, path string, depth int) (*Distribution, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%s: tiled atoms nested more than %d deep", path, maxNesting)
	}
	if name, ok := v.(string); ok {
		return builtinJSON(name, path)
	}
	o, err := asObject(v, path, "a distribution object or a built-in atom name", distFields)
	if err != nil {
		return nil, err
	}
	var which []string
	for _, f := range []string{"builtin", "tiled", "blocked"} {
		if o.has(f) {
			which = append(which, f)
		}
	}
	if slices.ContainsFunc(explicitFields, o.has) {
		which = append(which, "explicit")
	}
	if len(which) != 1 {
		return nil, fmt.Errorf(`%s: want exactly one of "builtin", "tiled", "blocked" or the explicit fields (executors, locals, tile, ownership); have %d %v`, path, len(which), which)
	}
	name, err := o.str("name", false)
	if err != nil {
		return nil, err
	}
	d, err := decodeForm(o, which[0], name, depth)
	if err != nil {
		return nil, err
	}
	// The element type and the clusters apply to every form: they override
	// what a built-in or tiled atom has.
	if o.has("element") {
		text, err := o.str("element", true)
		if err != nil {
			return nil, err
		}
		e, err := ParseElement(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", o.sub("element"), strings.TrimPrefix(err.Error(), "storage: "))
		}
		if d, err = d.WithElement(e); err != nil {
			return nil, fmt.Errorf("%s: %s", o.sub("element"), err)
		}
	}
	if o.has("blocks_per_cluster") {
		n, err := o.integer("blocks_per_cluster", true)
		if err != nil {
			return nil, err
		}
		if d, err = d.withClusters(n); err != nil {
			return nil, fmt.Errorf("%s: %s", o.sub("blocks_per_cluster"), err)
		}
	}
	return d, nil
}

func decodeForm(o *object, which, name string, depth int) (*Distribution, error) {
	switch which {
	case "builtin":
		b, err := o.str("builtin", true)
		if err != nil {
			return nil, err
		}
		d, err := builtinJSON(b, o.sub("builtin"))
		if err != nil {
			return nil, err
		}
		if name != "" {
			d = d.WithName(name)
		}
		return d, nil
	case "tiled":
		return decodeTiled(o, name, depth)
	case "blocked":
		return decodeBlocked(o, name)
	}
	return decodeExplicit(o, name)
}

func decodeTiled(parent *object, name string, depth int) (*Distribution, error) {
	o, err := parent.obj("tiled", tiledFields)
	if err != nil {
		return nil, err
	}
	if !o.has("atom") {
		return nil, fmt.Errorf("%s.atom: missing: want a built-in atom name or a distribution object", o.path)
	}
	atom, err := decodeValue(o.m["atom"], o.path+".atom", depth+1)
	if err != nil {
		return nil, err
	}
	t := Tiling{Name: name}
	if t.WarpContiguous, err = o.boolean("warp_contiguous"); err != nil {
		return nil, err
	}
	if o.has("repeat") {
		r, err := o.obj("repeat", nil)
		if err != nil {
			return nil, err
		}
		t.Repeat = map[string]int{}
		for _, k := range slices.Sorted(maps.Keys(r.m)) {
			if t.Repeat[k], err = r.integer(k, true); err != nil {
				return nil, err
			}
		}
	}
	warps, err := o.objects("warps", warpFields)
	if err != nil {
		return nil, err
	}
	for _, w := range warps {
		var g GridAxis
		if g.Name, err = w.str("name", true); err != nil {
			return nil, err
		}
		if g.Size, err = w.integer("size", true); err != nil {
			return nil, err
		}
		if g.Along, err = w.str("along", true); err != nil {
			return nil, err
		}
		t.Warps = append(t.Warps, g)
	}
	if p := checkTiling(atom.Spec(), t); p != nil {
		return nil, p.jsonError(o.path)
	}
	d, err := TileAtom(atom, t)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", o.path, formText(err))
	}
	return d, nil
}

func decodeBlocked(parent *object, name string) (*Distribution, error) {
	o, err := parent.obj("blocked", blockedFields)
	if err != nil {
		return nil, err
	}
	b := Blocked{Name: name}
	if b.Axes, err = o.strs("axes"); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		key string
		v   *[]int
	}{{"shape", &b.Shape}, {"size_per_thread", &b.SizePerThread}, {"threads_per_warp", &b.ThreadsPerWarp}, {"warps_per_cta", &b.WarpsPerCTA}, {"order", &b.Order}} {
		if !o.has(f.key) {
			return nil, fmt.Errorf("%s.%s: missing: want an array of integers, one per dimension", o.path, f.key)
		}
		if *f.v, err = o.ints(f.key); err != nil {
			return nil, err
		}
	}
	if p := checkBlocked(b); p != nil {
		return nil, p.jsonError(o.path)
	}
	d, err := NewBlocked(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", o.path, formText(err))
	}
	return d, nil
}

func decodeExplicit(o *object, name string) (*Distribution, error) {
	spec := Spec{Name: name}
	var err error
	if spec.Storage, err = o.str("storage", false); err != nil {
		return nil, err
	}
	if spec.ValuePrefix, err = o.str("value_prefix", false); err != nil {
		return nil, err
	}
	// Executor and local axes share one namespace, tile axes have their own.
	names := map[string]string{}
	claim := func(a *object, namespace map[string]string) (string, int, error) {
		n, err := a.str("name", true)
		if err != nil {
			return "", 0, err
		}
		if n == "" {
			return "", 0, fmt.Errorf("%s.name: the axis has no name", a.path)
		}
		if prev, dup := namespace[n]; dup {
			return "", 0, fmt.Errorf("%s.name: %q is already the name of %s", a.path, n, prev)
		}
		namespace[n] = strings.TrimPrefix(a.path, o.path+".")
		size, err := a.integer("size", true)
		if err != nil {
			return "", 0, err
		}
		if size <= 0 {
			return "", 0, fmt.Errorf("%s.size: %d is not a positive size", a.path, size)
		}
		return n, size, nil
	}
	execs, err := o.objects("executors", executorFields)
	if err != nil {
		return nil, err
	}
	for _, e := range execs {
		n, size, err := claim(e, names)
		if err != nil {
			return nil, err
		}
		text, err := e.str("level", true)
		if err != nil {
			return nil, err
		}
		l, err := ParseLevel(text)
		if err != nil {
			return nil, fmt.Errorf("%s.level: %s", e.path, formText(err))
		}
		rep, err := e.boolean("replicated")
		if err != nil {
			return nil, err
		}
		if len(spec.Executors) > 0 {
			if last := spec.Executors[len(spec.Executors)-1]; l < last.Level {
				return nil, fmt.Errorf("%s.level: a %s axis after the %s axis %q; order the executors block, warp, lane", e.path, l, last.Level, last.Name)
			}
		}
		spec.Executors = append(spec.Executors, ExecutorAxis{n, size, l, rep})
	}
	locals, err := o.objects("locals", axisFields)
	if err != nil {
		return nil, err
	}
	for _, a := range locals {
		n, size, err := claim(a, names)
		if err != nil {
			return nil, err
		}
		spec.Locals = append(spec.Locals, Axis{n, size})
	}
	// Expressions may name only the executor and local axes (storage: only
	// the local axes), and ownership no replicated axis.
	checkVars := func(path, text, declared string, allowed func(name, decl string) string) error {
		e, err := indexmap.ParseExpr(text)
		if err != nil {
			return fmt.Errorf("%s: %q: %s", path, text, trimPkg(err))
		}
		for _, v := range indexmap.Vars(e) {
			decl, ok := names[v]
			if !ok {
				return fmt.Errorf("%s: %q: %q is not %s", path, text, v, declared)
			}
			if why := allowed(v, decl); why != "" {
				return fmt.Errorf("%s: %q: %s", path, text, why)
			}
		}
		return nil
	}
	if o.has("storage") {
		err := checkVars(o.sub("storage"), spec.Storage, "a local axis", func(v, decl string) string {
			if strings.HasPrefix(decl, "executors[") {
				return fmt.Sprintf("%q is an executor axis (%s): a register slot depends on the local axes only", v, decl)
			}
			return ""
		})
		if err != nil {
			return nil, err
		}
	}
	tile, err := o.objects("tile", axisFields)
	if err != nil {
		return nil, err
	}
	if len(tile) == 0 {
		return nil, fmt.Errorf("%s: no tile axes: want at least one", o.sub("tile"))
	}
	replicated := map[string]bool{}
	for _, e := range spec.Executors {
		replicated[e.Name] = e.Replicated
	}
	own, err := o.obj("ownership", nil)
	if err != nil {
		return nil, err
	}
	tileAxes := map[string]string{}
	for i, a := range tile {
		n, size, err := claim(a, tileAxes)
		if err != nil {
			return nil, err
		}
		spec.Tile = append(spec.Tile, Axis{n, size})
		if !own.has(n) {
			return nil, fmt.Errorf("%s: no expression for tile axis %q (tile[%d])", own.path, n, i)
		}
		text, err := own.str(n, true)
		if err != nil {
			return nil, err
		}
		err = checkVars(own.sub(n), text, "an executor or local axis", func(v, decl string) string {
			if replicated[v] {
				return fmt.Sprintf("%q is a replicated executor axis (%s): copies cannot own different elements", v, decl)
			}
			return ""
		})
		if err != nil {
			return nil, err
		}
		spec.Ownership = append(spec.Ownership, text)
	}
	for _, k := range slices.Sorted(maps.Keys(own.m)) {
		if _, ok := tileAxes[k]; !ok {
			return nil, fmt.Errorf("%s: not a tile axis of %s", own.sub(k), tileNames(spec.Tile))
		}
	}
	d, err := New(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.path, err)
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

package distribution

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// DecodeJSON reads a distribution in any of the JSON forms (see
// MarshalJSON). Every problem is reported, not just the first: the error is
// jsonv.Problems, each problem at the JSON path of the offending value with
// a stable code, in the form's own terms
// ($.blocked.size_per_thread[1]: want an integer, have the string "8").
// A distribution that breaks an invariant is reported at its object's path,
// and errors.As finds the *ValidityError.
func DecodeJSON(data []byte) (*Distribution, error) {
	v, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return nil, err
	}
	var d jsonv.Decoder
	dist, ok := DecodeValue(&d, v, jsonv.Root)
	if err := d.Err(); err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("distribution: decoding failed without a problem") // not reached
	}
	return dist, nil
}

// DecodeValue decodes a distribution in any JSON form from the value v at
// path p of a larger document, recording every problem in d. It reports
// whether the distribution is valid.
func DecodeValue(d *jsonv.Decoder, v *jsonv.Value, p jsonv.Path) (*Distribution, bool) {
	return decodeValue(d, v, p, 0)
}

// maxNesting bounds how deeply tiled atoms may nest.
const maxNesting = 8

// The fields of each object of the JSON forms.
var (
	distFields     = []string{"name", "element", "blocks_per_cluster", "builtin", "tiled", "blocked", "executors", "locals", "tile", "ownership", "storage", "value_prefix", "entries", "sizes"}
	explicitFields = []string{"executors", "locals", "ownership", "storage", "value_prefix"}
	tiledFields    = []string{"atom", "warps", "repeat", "warp_contiguous"}
	warpFields     = []string{"name", "size", "along"}
	blockedFields  = []string{"axes", "shape", "size_per_thread", "threads_per_warp", "warps_per_cta", "order"}
	executorFields = []string{"name", "size", "level", "replicated"}
	axisFields     = []string{"name", "size"}
)

// CodeTable is the problem code of a tabulated entry that breaks the
// form's rules: an (executor, value) listed twice or not at all, a slot
// that disagrees, an element no executor holds.
const CodeTable jsonv.Code = "table"

func decodeValue(d *jsonv.Decoder, v *jsonv.Value, p jsonv.Path, depth int) (*Distribution, bool) {
	if depth > maxNesting {
		d.Report(p, jsonv.Limit, "tiled atoms nested more than %d deep", maxNesting)
		return nil, false
	}
	if v.Kind == jsonv.String {
		return builtinValue(d, v.Str(), p)
	}
	if v.Kind != jsonv.Object {
		d.Report(p, jsonv.Type, "want a distribution object or a built-in atom name, have %s", v.Describe())
		return nil, false
	}
	before := d.ErrorCount()
	o := d.Object(v, p, distFields...)
	defer o.End()
	var which []string
	for _, f := range []string{"builtin", "tiled", "blocked", "entries"} {
		if o.Has(f) {
			which = append(which, f)
		}
	}
	if slices.ContainsFunc(explicitFields, o.Has) || o.Has("tile") && !o.Has("entries") {
		which = append(which, "explicit")
	}
	if len(which) != 1 {
		d.Report(p, jsonv.Invalid, `want exactly one of "builtin", "tiled", "blocked", "entries" (the tabulated form) or the explicit fields (executors, locals, tile, ownership); have %d %v`, len(which), which)
		return nil, false
	}
	name := o.String("name", false)
	element, elementSet := decodeElement(d, o)
	clusters, clustersSet := 0, false
	if cv, cp := o.Field("blocks_per_cluster"); cv != nil {
		if n, ok := d.Int(cv, cp); ok {
			if n <= 0 {
				d.Report(cp, jsonv.Range, "%d blocks per cluster: want a positive integer", n)
			} else {
				clusters, clustersSet = n, true
			}
		}
	}
	if which[0] != "entries" {
		if sv, sp := o.Field("sizes"); sv != nil {
			d.Report(sp, jsonv.Invalid, `"sizes" belongs to the tabulated form (with "entries")`)
		}
	}
	var dist *Distribution
	var ok bool
	switch which[0] {
	case "builtin":
		bv, bp := o.Field("builtin")
		if s, good := d.String(bv, bp); good {
			dist, ok = builtinValue(d, s, bp)
			if ok && name != "" {
				dist = dist.WithName(name)
			}
		}
	case "tiled":
		tv, tp := o.Field("tiled")
		dist, ok = decodeTiled(d, tv, tp, name, depth)
	case "blocked":
		bv, bp := o.Field("blocked")
		dist, ok = decodeBlocked(d, bv, bp, name)
	case "entries":
		dist, ok = decodeTabulated(d, o, name, element, clusters)
		elementSet, clustersSet = false, false // applied by the table itself
	default:
		dist, ok = decodeExplicit(d, o, name)
	}
	if !ok || d.ErrorCount() > before {
		return nil, false
	}
	var err error
	if elementSet {
		if dist, err = dist.WithElement(element); err != nil {
			_, ep := o.Field("element")
			d.Wrap(ep, jsonv.Invalid, err)
			return nil, false
		}
	}
	if clustersSet {
		if dist, err = dist.withClusters(clusters); err != nil {
			_, cp := o.Field("blocks_per_cluster")
			d.Wrap(cp, jsonv.Invalid, err)
			return nil, false
		}
	}
	return dist, true
}

// decodeElement reads the optional "element" field.
func decodeElement(d *jsonv.Decoder, o *jsonv.ObjectReader) (e storage.ElementType, set bool) {
	ev, ep := o.Field("element")
	if ev == nil {
		return 0, false
	}
	s, ok := d.String(ev, ep)
	if !ok {
		return 0, false
	}
	t, err := ParseElement(s)
	if err != nil {
		d.Wrap(ep, jsonv.UnknownName, err)
		return 0, false
	}
	return t, true
}

// builtinValue looks up a built-in atom named at p, suggesting the atoms
// that differ from name only in its last dotted part.
func builtinValue(d *jsonv.Decoder, name string, p jsonv.Path) (*Distribution, bool) {
	if dist, err := Builtin(name); err == nil {
		return dist, true
	}
	msg := fmt.Sprintf("no built-in atom %q", name)
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
	d.Report(p, jsonv.UnknownName, "%s", msg)
	return nil, false
}

func decodeTiled(d *jsonv.Decoder, v *jsonv.Value, p jsonv.Path, name string, depth int) (*Distribution, bool) {
	before := d.ErrorCount()
	o := d.Object(v, p, tiledFields...)
	if o == nil {
		return nil, false
	}
	defer o.End()
	var atom *Distribution
	if av, ap := o.Require("atom", "a built-in atom name or a distribution object"); av != nil {
		atom, _ = decodeValue(d, av, ap, depth+1)
	}
	t := Tiling{Name: name, WarpContiguous: o.Bool("warp_contiguous")}
	if rv, rp := o.Field("repeat"); rv != nil {
		if r := d.Object(rv, rp); r != nil {
			t.Repeat = map[string]int{}
			for _, k := range r.Keys() {
				t.Repeat[k] = r.Int(k, true)
			}
			r.End()
		}
	}
	if wv, wp := o.Field("warps"); wv != nil {
		elems, _ := d.Array(wv, wp)
		for i, ev := range elems {
			w := d.Object(ev, wp.Index(i), warpFields...)
			if w == nil {
				continue
			}
			t.Warps = append(t.Warps, GridAxis{Name: w.String("name", true), Size: w.Int("size", true), Along: w.String("along", true)})
			w.End()
		}
	}
	if atom == nil || d.ErrorCount() > before {
		return nil, false
	}
	if ps := checkTiling(atom.Spec(), t); len(ps) > 0 {
		for _, pr := range ps {
			pr.report(d, p)
		}
		return nil, false
	}
	dist, err := TileAtom(atom, t)
	if err != nil {
		d.Wrap(p, jsonv.Invalid, err)
		return nil, false
	}
	return dist, true
}

func decodeBlocked(d *jsonv.Decoder, v *jsonv.Value, p jsonv.Path, name string) (*Distribution, bool) {
	before := d.ErrorCount()
	o := d.Object(v, p, blockedFields...)
	if o == nil {
		return nil, false
	}
	defer o.End()
	b := Blocked{Name: name}
	if av, ap := o.Field("axes"); av != nil {
		b.Axes, _ = d.Strings(av, ap)
	}
	for _, f := range []struct {
		key string
		v   *[]int
	}{{"shape", &b.Shape}, {"size_per_thread", &b.SizePerThread}, {"threads_per_warp", &b.ThreadsPerWarp}, {"warps_per_cta", &b.WarpsPerCTA}, {"order", &b.Order}} {
		if fv, fp := o.Require(f.key, "an array of integers, one per dimension"); fv != nil {
			*f.v, _ = d.Ints(fv, fp)
		}
	}
	if d.ErrorCount() > before {
		return nil, false
	}
	if ps := checkBlocked(b); len(ps) > 0 {
		for _, pr := range ps {
			pr.report(d, p)
		}
		return nil, false
	}
	dist, err := NewBlocked(b)
	if err != nil {
		d.Wrap(p, jsonv.Invalid, err)
		return nil, false
	}
	return dist, true
}

func decodeExplicit(d *jsonv.Decoder, o *jsonv.ObjectReader, name string) (*Distribution, bool) {
	before := d.ErrorCount()
	spec := Spec{Name: name, ValuePrefix: o.String("value_prefix", false)}
	spec.Storage, _ = readString(d, o, "storage", false)
	// Executor and local axes share one namespace, tile axes have their own.
	names := map[string]jsonv.Path{}
	isExec := map[string]bool{}
	replicated := map[string]bool{}
	claim := func(a *jsonv.ObjectReader, namespace map[string]jsonv.Path) (string, int, bool) {
		n, nameOK := readString(d, a, "name", true)
		size, sizeOK := readInt(d, a, "size", true)
		ok := nameOK && sizeOK
		np := a.Path().Key("name")
		switch prev, dup := namespace[n]; {
		case !nameOK:
		case n == "":
			d.Report(np, jsonv.Invalid, "the axis has no name")
			ok = false
		case dup:
			d.Report(np, jsonv.DuplicateName, "%q is already the name of %s", n, strings.TrimPrefix(prev.String(), "$."))
			ok = false
		default:
			namespace[n] = a.Path()
		}
		if sizeOK && size <= 0 {
			d.Report(a.Path().Key("size"), jsonv.Range, "%d is not a positive size", size)
			ok = false
		}
		return n, size, ok
	}
	objects := func(key string, known []string) []*jsonv.ObjectReader {
		v, p := o.Field(key)
		if v == nil {
			return nil
		}
		elems, _ := d.Array(v, p)
		var out []*jsonv.ObjectReader
		for i, e := range elems {
			if a := d.Object(e, p.Index(i), known...); a != nil {
				out = append(out, a)
			}
		}
		return out
	}
	var last *ExecutorAxis
	for _, e := range objects("executors", executorFields) {
		n, size, _ := claim(e, names)
		isExec[n] = true
		rep := e.Bool("replicated")
		replicated[n] = rep
		if text, good := readString(d, e, "level", true); good {
			l, err := ParseLevel(text)
			if err != nil {
				d.Report(e.Path().Key("level"), jsonv.Invalid, "unknown executor level %q (want block, warp or lane)", text)
			} else {
				if last != nil && l < last.Level {
					d.Report(e.Path().Key("level"), jsonv.Invalid, "a %s axis after the %s axis %q; order the executors block, warp, lane", l, last.Level, last.Name)
				}
				spec.Executors = append(spec.Executors, ExecutorAxis{n, size, l, rep})
				last = &spec.Executors[len(spec.Executors)-1]
			}
		}
		e.End()
	}
	for _, a := range objects("locals", axisFields) {
		n, size, _ := claim(a, names)
		spec.Locals = append(spec.Locals, Axis{n, size})
		a.End()
	}
	// Expressions may name only the executor and local axes (storage: only
	// the local axes), and ownership no replicated axis.
	checkVars := func(p jsonv.Path, text, declared string, allowed func(v string) string) {
		e, err := indexmap.ParseExpr(text)
		if err != nil {
			d.Wrap(p, jsonv.Invalid, fmt.Errorf("%q: %w", text, err))
			return
		}
		for _, v := range indexmap.Vars(e) {
			if _, ok := names[v]; !ok {
				d.Report(p, jsonv.UnknownName, "%q: %q is not %s", text, v, declared)
			} else if why := allowed(v); why != "" {
				d.Report(p, jsonv.Invalid, "%q: %s", text, why)
			}
		}
	}
	if _, good := readString(d, o, "storage", false); good {
		_, sp := o.Field("storage")
		checkVars(sp, spec.Storage, "a local axis", func(v string) string {
			if isExec[v] {
				return fmt.Sprintf("%q is an executor axis (%s): a register slot depends on the local axes only", v, strings.TrimPrefix(names[v].String(), "$."))
			}
			return ""
		})
	}
	tile := objects("tile", axisFields)
	if tv, tp := o.Field("tile"); tv == nil {
		d.Report(o.Path(), jsonv.Missing, `missing "tile": want the tile axes`)
	} else if len(tile) == 0 && tv.Kind == jsonv.Array {
		d.Report(tp, jsonv.Invalid, "no tile axes: want at least one")
	}
	ov, op := o.Require("ownership", "an object of one expression per tile axis")
	own := d.Object(ov, op)
	tileAxes := map[string]jsonv.Path{}
	for i, a := range tile {
		n, size, ok := claim(a, tileAxes)
		a.End()
		spec.Tile = append(spec.Tile, Axis{n, size})
		if !ok || own == nil {
			continue
		}
		if !own.Has(n) {
			d.Report(op, jsonv.Missing, "no expression for tile axis %q (tile[%d])", n, i)
			continue
		}
		text, good := readString(d, own, n, true)
		if !good {
			continue
		}
		checkVars(op.Key(n), text, "an executor or local axis", func(v string) string {
			if replicated[v] {
				return fmt.Sprintf("%q is a replicated executor axis (%s): copies cannot own different elements", v, strings.TrimPrefix(names[v].String(), "$."))
			}
			return ""
		})
		spec.Ownership = append(spec.Ownership, text)
	}
	for _, k := range own.Keys() {
		if _, ok := tileAxes[k]; !ok {
			own.Field(k)
			d.Report(op.Key(k), jsonv.UnknownName, "not a tile axis of %s", tileNames(spec.Tile))
		}
	}
	own.End()
	if d.ErrorCount() > before {
		return nil, false
	}
	dist, err := New(spec)
	if err != nil {
		d.Wrap(o.Path(), jsonv.Invalid, err)
		return nil, false
	}
	return dist, true
}

// readString reads a string field, reporting whether it is present and a
// string (a missing required field or a wrong kind is recorded).
func readString(d *jsonv.Decoder, o *jsonv.ObjectReader, key string, required bool) (string, bool) {
	v, p := o.Field(key)
	if v == nil {
		if required {
			o.Require(key, "a string")
		}
		return "", false
	}
	return d.String(v, p)
}

// readInt reads an integer field likewise.
func readInt(d *jsonv.Decoder, o *jsonv.ObjectReader, key string, required bool) (int, bool) {
	v, p := o.Field(key)
	if v == nil {
		if required {
			o.Require(key, "an integer")
		}
		return 0, false
	}
	return d.Int(v, p)
}

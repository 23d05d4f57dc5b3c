package indexspace

import (
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/internal/jsonv"
)

// jsonAxis is the JSON form of an axis: {"name": "m", "size": 16} for a leaf,
// {"name": "n", "axes": [...]} for a group.
type jsonAxis struct {
	Name string     `json:"name"`
	Size int        `json:"size,omitempty"`
	Axes []jsonAxis `json:"axes,omitempty"`
}

type jsonSpace struct {
	Name string     `json:"name,omitempty"`
	Axes []jsonAxis `json:"axes"`
}

// MarshalJSON encodes the space as {"name": "tile", "axes": [{"name": "m",
// "size": 16}, {"name": "n", "axes": [...]}]}.
func (s Space) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonSpace{Name: s.name, Axes: toJSONAxes(s.axes)})
}

func toJSONAxes(axes []Axis) []jsonAxis {
	out := make([]jsonAxis, len(axes))
	for i, a := range axes {
		if a.factors == nil {
			out[i] = jsonAxis{Name: a.name, Size: a.size}
		} else {
			out[i] = jsonAxis{Name: a.name, Axes: toJSONAxes(a.factors)}
		}
	}
	return out
}

// JSONErrors is the error UnmarshalJSON returns for a form that breaks a
// rule: every problem, sorted by JSON path, each with a stable code
// (jsonv.Missing, jsonv.Type, …) and the path of the offending value, e.g.
//
//	$.axes[0].size: want a positive integer, got "4"
type JSONErrors = jsonv.Problems

// UnmarshalJSON decodes the object form written by MarshalJSON, or a JSON
// string holding the text form ("tile(m:16, n:(n0:2, n1:4))"); JSON null
// leaves s unchanged. The object must have "axes" and may have "name"; an
// axis must have "name" and exactly one of "size" (a leaf) and "axes" (a
// group). Unknown fields and repeated keys are errors. A form that breaks a
// rule is reported as JSONErrors; a text form that does not parse is
// reported at the root, and errors.As finds its *SyntaxError.
func (s *Space) UnmarshalJSON(data []byte) error {
	v, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return err
	}
	if v.Kind == jsonv.Null {
		return nil
	}
	var d jsonv.Decoder
	t, _ := DecodeJSON(&d, v, jsonv.Root)
	if err := d.Err(); err != nil {
		return err
	}
	*s = t
	return nil
}

// DecodeJSON decodes a space in either JSON form from the value v at path p
// of a larger document, recording every problem in d. It reports whether the
// space is valid.
func DecodeJSON(d *jsonv.Decoder, v *jsonv.Value, p jsonv.Path) (Space, bool) {
	if v.Kind == jsonv.String {
		t, err := Parse(v.Str())
		if err != nil {
			d.Wrap(p, jsonv.Invalid, err)
			return Space{}, false
		}
		return t, true
	}
	if v.Kind != jsonv.Object {
		d.Report(p, jsonv.Type, "want a space object or its text form as a string, got %s", describe(v))
		return Space{}, false
	}
	before := d.ErrorCount()
	sd := &jsonDecoder{d: d, seen: map[string]string{}, product: 1}
	o := d.Object(v, p, "name", "axes")
	name := ""
	if raw, rp := o.Field("name"); raw != nil {
		name, _ = sd.ident(rp, raw, true)
	}
	var axes []Axis
	if raw, rp := o.Field("axes"); raw != nil {
		axes = sd.axes(rp, raw, 0)
	} else {
		d.Report(p, jsonv.Missing, `missing "axes"`)
	}
	o.End()
	if d.ErrorCount() > before {
		return Space{}, false
	}
	t, err := New(name, axes...)
	if err != nil {
		d.Wrap(p, jsonv.Invalid, err) // not reached: the decoder checks every rule New checks
		return Space{}, false
	}
	return t, true
}

// A jsonDecoder checks a JSON form field by field, collecting every problem
// with its path.
type jsonDecoder struct {
	d          *jsonv.Decoder
	seen       map[string]string // axis name → path of its first use
	product    int               // product of the leaf sizes so far
	overflowed bool
}

// ident decodes a name: a JSON string holding an identifier ("" too when
// empty is true).
func (sd *jsonDecoder) ident(p jsonv.Path, v *jsonv.Value, empty bool) (string, bool) {
	if v.Kind != jsonv.String {
		sd.d.Report(p, jsonv.Type, "want a string, got %s", describe(v))
		return "", false
	}
	name := v.Str()
	if !isIdent(name) && !(empty && name == "") {
		sd.d.Report(p, jsonv.Invalid, "want an identifier (a letter or '_', then letters, digits, '_'), got %s", describe(v))
		return "", false
	}
	return name, true
}

// axes decodes the array of axes at p.
func (sd *jsonDecoder) axes(p jsonv.Path, v *jsonv.Value, depth int) []Axis {
	if depth > maxDepth {
		sd.d.Report(p, jsonv.Limit, "groups nested deeper than %d", maxDepth)
		return nil
	}
	if v.Kind != jsonv.Array {
		sd.d.Report(p, jsonv.Type, "want an array of axes, got %s", describe(v))
		return nil
	}
	out := make([]Axis, 0, len(v.Elems()))
	for i, e := range v.Elems() {
		out = append(out, sd.axis(p.Index(i), e, depth))
	}
	return out
}

// axis decodes the axis object at p.
func (sd *jsonDecoder) axis(p jsonv.Path, v *jsonv.Value, depth int) Axis {
	if v.Kind != jsonv.Object {
		sd.d.Report(p, jsonv.Type, `want an axis object ({"name": ..., "size": ...} or {"name": ..., "axes": [...]}), got %s`, describe(v))
		return Axis{}
	}
	o := sd.d.Object(v, p, "name", "size", "axes")
	defer o.End()
	name := ""
	if rawName, np := o.Field("name"); rawName == nil {
		sd.d.Report(p, jsonv.Missing, `missing "name"`)
	} else if n, ok := sd.ident(np, rawName, false); ok {
		if first, dup := sd.seen[n]; dup {
			sd.d.Report(np, jsonv.DuplicateName, "axis name %q is used twice (first at %s)", n, first)
		} else {
			sd.seen[n] = np.String()
		}
		name = n
	}
	rawSize, sp := o.Field("size")
	rawAxes, ap := o.Field("axes")
	switch {
	case rawSize != nil && rawAxes != nil:
		sd.d.Report(p, jsonv.Invalid, `has both "size" and "axes" (a leaf has a size, a group has axes)`)
		return Axis{}
	case rawSize != nil:
		return Leaf(name, sd.size(sp, rawSize, name))
	case rawAxes != nil:
		fs := sd.axes(ap, rawAxes, depth+1)
		if fs != nil && len(fs) == 0 {
			sd.d.Report(ap, jsonv.Invalid, "group %q has no factors", name)
		}
		return Group(name, fs...)
	default:
		sd.d.Report(p, jsonv.Missing, `missing "size" (for a leaf) or "axes" (for a group)`)
		return Axis{}
	}
}

// size decodes the size of leaf name at p: an integer in [1, MaxSize]
// written with digits only.
func (sd *jsonDecoder) size(p jsonv.Path, v *jsonv.Value, name string) int {
	text := v.Num()
	digits := strings.TrimPrefix(text, "-")
	if v.Kind != jsonv.Number || strings.Trim(digits, "0123456789") != "" {
		sd.d.Report(p, jsonv.Type, "want a positive integer, got %s", describe(v))
		return 0
	}
	n, err := strconv.ParseInt(text, 10, 64)
	switch {
	case err == nil && n < 1 || err != nil && text[0] == '-':
		sd.d.Report(p, jsonv.Range, "want a positive integer, got %s", describe(v))
		return 0
	case err != nil || n > MaxSize:
		sd.d.Report(p, jsonv.Range, "size %s of axis %q exceeds the limit %d", text, name, MaxSize)
		return 0
	}
	if !sd.overflowed {
		var ok bool
		if sd.product, ok = mulSize(sd.product, int(n)); !ok {
			sd.overflowed = true
			sd.d.Report(p, jsonv.Range, "size of space overflows (limit %d) at axis %q", MaxSize, name)
		}
	}
	return int(n)
}

// describe returns a JSON value as it appears in an error: its JSON text,
// cut to about 40 bytes.
func describe(v *jsonv.Value) string {
	var text string
	switch v.Kind {
	case jsonv.Null:
		text = "null"
	case jsonv.Bool:
		text = strconv.FormatBool(v.Bool())
	case jsonv.Number:
		text = v.Num()
	case jsonv.String:
		b, _ := json.Marshal(v.Str())
		text = string(b)
	default:
		b, _ := json.Marshal(compact(v))
		text = string(b)
	}
	const max = 40
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "..."
}

// compact turns a value into Go values that marshal back to its JSON text
// (members in document order, numbers as written).
func compact(v *jsonv.Value) any {
	switch v.Kind {
	case jsonv.Null:
		return nil
	case jsonv.Bool:
		return v.Bool()
	case jsonv.Number:
		return json.RawMessage(v.Num())
	case jsonv.String:
		return v.Str()
	case jsonv.Array:
		out := make([]any, len(v.Elems()))
		for i, e := range v.Elems() {
			out[i] = compact(e)
		}
		return out
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range v.Members() {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		e, _ := json.Marshal(compact(m.Value))
		b.Write(k)
		b.WriteByte(':')
		b.Write(e)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

package indexspace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
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

// A JSONError is one problem of a JSON form: the JSON path of the offending
// value ("axes[0].size", "axes[1].axes[0].name"; "" for the whole document)
// and what is wrong with it.
type JSONError struct {
	Path string
	Msg  string
}

func (e JSONError) Error() string { return "indexspace: " + e.where() }

func (e JSONError) where() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// JSONErrors lists every problem UnmarshalJSON found in a JSON form, in the
// order of the document's axes (within an object: unknown fields, then
// "name", "size", "axes").
type JSONErrors []JSONError

func (e JSONErrors) Error() string {
	parts := make([]string, len(e))
	for i, x := range e {
		parts[i] = x.where()
	}
	return "indexspace: " + strings.Join(parts, "; ")
}

// UnmarshalJSON decodes the object form written by MarshalJSON, or a JSON
// string holding the text form ("tile(m:16, n:(n0:2, n1:4))"); JSON null
// leaves s unchanged. The object must have "axes" and may have "name"; an
// axis must have "name" and exactly one of "size" (a leaf) and "axes" (a
// group). A form that breaks a rule is reported as JSONErrors naming the
// JSON path of every offending value, e.g.
//
//	indexspace: axes[0].size: want a positive integer, got "4"
//
// and a text form that does not parse as a *SyntaxError.
func (s *Space) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		return nil
	case len(data) > 0 && data[0] == '"':
		var text string
		if err := json.Unmarshal(data, &text); err != nil {
			return fmt.Errorf("indexspace: %w", err)
		}
		t, err := Parse(text)
		if err != nil {
			return err
		}
		*s = t
		return nil
	case len(data) == 0 || data[0] != '{':
		return JSONErrors{{Msg: "want a space object or its text form as a string, got " + describe(data)}}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("indexspace: %w", err)
	}
	d := &jsonDecoder{seen: map[string]string{}, product: 1}
	d.unknown("", fields, "name", "axes")
	name := ""
	if raw, ok := fields["name"]; ok {
		name, _ = d.ident("name", raw, true)
	}
	var axes []Axis
	if raw, ok := fields["axes"]; ok {
		axes = d.axes("axes", raw, 0)
	} else {
		d.errorf("", `missing "axes"`)
	}
	if len(d.errs) > 0 {
		return d.errs
	}
	t, err := New(name, axes...)
	if err != nil {
		return err // not reached: the decoder checks every rule New checks
	}
	*s = t
	return nil
}

// A jsonDecoder checks a JSON form field by field, collecting every problem
// with its path.
type jsonDecoder struct {
	errs       JSONErrors
	seen       map[string]string // axis name → path of its first use
	product    int               // product of the leaf sizes so far
	overflowed bool
}

func (d *jsonDecoder) errorf(path, format string, args ...any) {
	d.errs = append(d.errs, JSONError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// field returns the path of field key of the object at path.
func field(path, key string) string {
	if !isIdent(key) {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// unknown reports the fields of an object other than the allowed ones.
func (d *jsonDecoder) unknown(path string, fields map[string]json.RawMessage, allowed ...string) {
	var keys []string
	for k := range fields {
		if !slices.Contains(allowed, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	want := `"` + strings.Join(allowed, `", "`) + `"`
	for _, k := range keys {
		d.errorf(field(path, k), "unknown field (want %s)", want)
	}
}

// ident decodes a name: a JSON string holding an identifier ("" too when
// empty is true).
func (d *jsonDecoder) ident(path string, raw json.RawMessage, empty bool) (string, bool) {
	var name string
	if kind(raw) != '"' || json.Unmarshal(raw, &name) != nil {
		d.errorf(path, "want a string, got %s", describe(raw))
		return "", false
	}
	if !isIdent(name) && !(empty && name == "") {
		d.errorf(path, "want an identifier (a letter or '_', then letters, digits, '_'), got %s", describe(raw))
		return "", false
	}
	return name, true
}

// axes decodes the array of axes at path.
func (d *jsonDecoder) axes(path string, raw json.RawMessage, depth int) []Axis {
	if depth > maxDepth {
		d.errorf(path, "groups nested deeper than %d", maxDepth)
		return nil
	}
	var elems []json.RawMessage
	if kind(raw) != '[' || json.Unmarshal(raw, &elems) != nil {
		d.errorf(path, "want an array of axes, got %s", describe(raw))
		return nil
	}
	out := make([]Axis, 0, len(elems))
	for i, e := range elems {
		out = append(out, d.axis(fmt.Sprintf("%s[%d]", path, i), e, depth))
	}
	return out
}

// axis decodes the axis object at path.
func (d *jsonDecoder) axis(path string, raw json.RawMessage, depth int) Axis {
	var fields map[string]json.RawMessage
	if kind(raw) != '{' || json.Unmarshal(raw, &fields) != nil {
		d.errorf(path, `want an axis object ({"name": ..., "size": ...} or {"name": ..., "axes": [...]}), got %s`, describe(raw))
		return Axis{}
	}
	d.unknown(path, fields, "name", "size", "axes")
	name := ""
	if rawName, ok := fields["name"]; !ok {
		d.errorf(path, `missing "name"`)
	} else if n, ok := d.ident(field(path, "name"), rawName, false); ok {
		if first, dup := d.seen[n]; dup {
			d.errorf(field(path, "name"), "axis name %q is used twice (first at %s)", n, first)
		} else {
			d.seen[n] = field(path, "name")
		}
		name = n
	}
	rawSize, leaf := fields["size"]
	rawAxes, group := fields["axes"]
	switch {
	case leaf && group:
		d.errorf(path, `has both "size" and "axes" (a leaf has a size, a group has axes)`)
		return Axis{}
	case leaf:
		return Leaf(name, d.size(field(path, "size"), rawSize, name))
	case group:
		fs := d.axes(field(path, "axes"), rawAxes, depth+1)
		if fs != nil && len(fs) == 0 {
			d.errorf(field(path, "axes"), "group %q has no factors", name)
		}
		return Group(name, fs...)
	default:
		d.errorf(path, `missing "size" (for a leaf) or "axes" (for a group)`)
		return Axis{}
	}
}

// size decodes the size of leaf name at path: an integer in [1, MaxSize]
// written with digits only.
func (d *jsonDecoder) size(path string, raw json.RawMessage, name string) int {
	text := string(bytes.TrimSpace(raw))
	digits := strings.TrimPrefix(text, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		d.errorf(path, "want a positive integer, got %s", describe(raw))
		return 0
	}
	n, err := strconv.ParseInt(text, 10, 64)
	switch {
	case err == nil && n < 1 || err != nil && text[0] == '-':
		d.errorf(path, "want a positive integer, got %s", describe(raw))
		return 0
	case err != nil || n > MaxSize:
		d.errorf(path, "size %s of axis %q exceeds the limit %d", text, name, MaxSize)
		return 0
	}
	if !d.overflowed {
		var ok bool
		if d.product, ok = mulSize(d.product, int(n)); !ok {
			d.overflowed = true
			d.errorf(path, "size of space overflows (limit %d) at axis %q", MaxSize, name)
		}
	}
	return int(n)
}

// kind returns the first byte of a JSON value: '{', '[', '"', 't', 'f', 'n'
// or the start of a number.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// describe returns a JSON value as it appears in an error: compacted and
// cut to about 40 bytes.
func describe(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(bytes.TrimSpace(raw))
	}
	if b.Len() == 0 {
		return "nothing"
	}
	const max = 40
	text := b.String()
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "..."
}

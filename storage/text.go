package storage

import (
	"fmt"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/internal/jsonv"
)

// String is the canonical text form, which Parse reads back:
//
//	shared f16 bytes align 1024 Swizzle<3,4,3>: logical tile(m:8, k:64) -> physical(addr:1024) = (m * 128 + k * 2)
//
// memory space, element type, address unit, "align" and the base alignment
// in bytes, the swizzle when there is one, then ": " and the unswizzled
// address map in indexmap's text form (broadcast axes included).
func (l Layout) String() string {
	if !l.memory.Valid() {
		return "invalid storage layout"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v %v %v align %d", l.memory, l.element, l.unit, l.align)
	if sw, ok := l.Swizzle(); ok {
		b.WriteString(" ")
		b.WriteString(sw.String())
	}
	b.WriteString(": ")
	b.WriteString(l.offset.String())
	return b.String()
}

// A SyntaxError reports malformed layout text: the byte offset where it
// went wrong and what is wrong there.
type SyntaxError struct {
	Offset int
	Msg    string
	// Err is the error of another package behind this one (an
	// *indexmap.SyntaxError in the address map), or nil.
	Err error
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("storage: offset %d: %s", e.Offset, e.Msg) }

// Unwrap returns the error behind this one, if any.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Parse reads the text form of String:
//
//	layout = memory element unit [ "align" INT ] [ swizzle ] ":" map
//
// An omitted alignment takes Config's default. Syntax errors are
// *SyntaxError; errors of the map carry indexmap's offsets shifted to the
// whole text; the parts are then checked by New.
func Parse(text string) (Layout, error) {
	colon := strings.IndexByte(text, ':')
	if colon < 0 {
		return Layout{}, &SyntaxError{Offset: len(text), Msg: "expected ':' between the properties and the address map"}
	}
	var cfg Config
	fields := headFields(text[:colon])
	want := []string{"a memory space", "an element type", "an address unit"}
	if len(fields) < len(want) {
		return Layout{}, &SyntaxError{Offset: colon, Msg: fmt.Sprintf("expected %s before ':'", want[len(fields)])}
	}
	var err error
	if cfg.Memory, err = ParseMemorySpace(fields[0].text); err != nil {
		return Layout{}, &SyntaxError{Offset: fields[0].offset, Msg: strings.TrimPrefix(err.Error(), "storage: ")}
	}
	if cfg.Element, err = ParseElementType(fields[1].text); err != nil {
		return Layout{}, &SyntaxError{Offset: fields[1].offset, Msg: strings.TrimPrefix(err.Error(), "storage: ")}
	}
	if cfg.Unit, err = ParseAddressUnit(fields[2].text); err != nil {
		return Layout{}, &SyntaxError{Offset: fields[2].offset, Msg: strings.TrimPrefix(err.Error(), "storage: ")}
	}
	rest := fields[3:]
	if len(rest) > 0 && rest[0].text == "align" {
		if len(rest) < 2 {
			return Layout{}, &SyntaxError{Offset: colon, Msg: "expected the base alignment in bytes after align"}
		}
		n, err := strconv.Atoi(rest[1].text)
		if err != nil || n <= 0 {
			return Layout{}, &SyntaxError{Offset: rest[1].offset, Msg: fmt.Sprintf("base alignment %q: want a positive number of bytes", rest[1].text)}
		}
		cfg.BaseAlign = n
		rest = rest[2:]
	}
	if len(rest) > 0 {
		// The swizzle may contain spaces after its commas: it is the rest.
		swText := strings.TrimSpace(text[rest[0].offset:colon])
		if !strings.HasPrefix(swText, "Swizzle<") {
			return Layout{}, &SyntaxError{Offset: rest[0].offset, Msg: fmt.Sprintf("unexpected %q: want align N or Swizzle<B,M,S> before ':'", rest[0].text)}
		}
		if cfg.Swizzle, err = ParseSwizzle(swText); err != nil {
			return Layout{}, &SyntaxError{Offset: rest[0].offset, Msg: strings.TrimPrefix(err.Error(), "storage: ")}
		}
	}
	m, err := indexmap.Parse(text[colon+1:])
	if err != nil {
		if se, ok := err.(*indexmap.SyntaxError); ok {
			return Layout{}, &SyntaxError{Offset: colon + 1 + se.Offset, Msg: "address map: " + se.Msg, Err: se}
		}
		return Layout{}, fmt.Errorf("storage: address map: %w", err)
	}
	return New(m, cfg)
}

// MustParse is Parse that panics on error; for tests and constant text.
func MustParse(text string) Layout {
	l, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return l
}

type field struct {
	text   string
	offset int
}

// headFields splits the property list before ':' at spaces.
func headFields(s string) []field {
	var out []field
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
			j++
		}
		out = append(out, field{s[i:j], i})
		i = j
	}
	return out
}

type jsonLayout struct {
	Memory  string          `json:"memory"`
	Element string          `json:"element"`
	Unit    string          `json:"unit"`
	Align   int             `json:"align,omitempty"`
	Swizzle string          `json:"swizzle,omitempty"`
	Map     json.RawMessage `json:"map"`
}

// MarshalJSON encodes the layout as
//
//	{"memory": "shared", "element": "f16", "unit": "bytes", "align": 1024,
//	 "swizzle": "Swizzle<3,4,3>", "map": {...indexmap object form...}}
//
// swizzle is omitted when there is none. (The encoder escapes the angle brackets
// of the swizzle as \u003c and \u003e.)
func (l Layout) MarshalJSON() ([]byte, error) {
	if !l.memory.Valid() {
		return nil, fmt.Errorf("storage: cannot encode an invalid layout")
	}
	m, err := json.Marshal(l.offset)
	if err != nil {
		return nil, err
	}
	j := jsonLayout{Memory: l.memory.String(), Element: l.element.String(), Unit: l.unit.String(), Align: l.align, Map: m}
	if sw, ok := l.Swizzle(); ok {
		j.Swizzle = sw.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes the object form of MarshalJSON or a JSON string
// holding the text form. "unit" and "align" may be omitted (Config's
// defaults); "map" may be indexmap's object or text form. Every problem is
// reported (jsonv.Problems, sorted), each at its JSON path with a code;
// unknown fields and repeated keys are errors.
func (l *Layout) UnmarshalJSON(data []byte) error {
	v, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return err
	}
	var d jsonv.Decoder
	p, _ := DecodeJSON(&d, v, jsonv.Root)
	if err := d.Err(); err != nil {
		return err
	}
	*l = p
	return nil
}

// DecodeJSON decodes a layout in either JSON form from the value v at path p
// of a larger document, recording every problem in d. It reports whether the
// layout is valid.
func DecodeJSON(d *jsonv.Decoder, v *jsonv.Value, p jsonv.Path) (Layout, bool) {
	if v.Kind == jsonv.String {
		l, err := Parse(v.Str())
		if err != nil {
			d.Wrap(p, jsonv.Invalid, err)
			return Layout{}, false
		}
		return l, true
	}
	if v.Kind != jsonv.Object {
		d.Report(p, jsonv.Type, "want a storage layout object or its text form as a string, have %s", v.Describe())
		return Layout{}, false
	}
	before := d.ErrorCount()
	o := d.Object(v, p, "memory", "element", "unit", "align", "swizzle", "map")
	var cfg Config
	parse := func(name string, required bool, f func(string) error) {
		fv, fp := o.Field(name)
		if fv == nil {
			if required {
				d.Report(p, jsonv.Missing, "missing %q: want a string", name)
			}
			return
		}
		if text, ok := d.String(fv, fp); ok {
			if err := f(text); err != nil {
				d.Wrap(fp, jsonv.Invalid, err)
			}
		}
	}
	parse("memory", true, func(s string) (err error) { cfg.Memory, err = ParseMemorySpace(s); return })
	parse("element", true, func(s string) (err error) { cfg.Element, err = ParseElementType(s); return })
	parse("unit", false, func(s string) (err error) { cfg.Unit, err = ParseAddressUnit(s); return })
	parse("swizzle", false, func(s string) (err error) { cfg.Swizzle, err = ParseSwizzle(s); return })
	if av, ap := o.Field("align"); av != nil {
		if n, ok := d.Int(av, ap); ok && n <= 0 {
			d.Report(ap, jsonv.Range, "want a positive number of bytes, have %d", n)
		} else {
			cfg.BaseAlign = n
		}
	}
	var m indexmap.Map
	if mv, mp := o.Require("map", "an index map"); mv != nil {
		m, _ = indexmap.DecodeJSON(d, mv, mp)
	}
	o.End()
	if d.ErrorCount() > before {
		return Layout{}, false
	}
	l, err := New(m, cfg)
	if err != nil {
		d.Wrap(p, jsonv.Invalid, err)
		return Layout{}, false
	}
	return l, true
}

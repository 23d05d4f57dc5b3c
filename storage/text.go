package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/indexmap"
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
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("storage: offset %d: %s", e.Offset, e.Msg) }

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
		return Layout{}, &SyntaxError{len(text), "expected ':' between the properties and the address map"}
	}
	var cfg Config
	fields := headFields(text[:colon])
	want := []string{"a memory space", "an element type", "an address unit"}
	if len(fields) < len(want) {
		return Layout{}, &SyntaxError{colon, fmt.Sprintf("expected %s before ':'", want[len(fields)])}
	}
	var err error
	if cfg.Memory, err = ParseMemorySpace(fields[0].text); err != nil {
		return Layout{}, &SyntaxError{fields[0].offset, strings.TrimPrefix(err.Error(), "storage: ")}
	}
	if cfg.Element, err = ParseElementType(fields[1].text); err != nil {
		return Layout{}, &SyntaxError{fields[1].offset, strings.TrimPrefix(err.Error(), "storage: ")}
	}
	if cfg.Unit, err = ParseAddressUnit(fields[2].text); err != nil {
		return Layout{}, &SyntaxError{fields[2].offset, strings.TrimPrefix(err.Error(), "storage: ")}
	}
	rest := fields[3:]
	if len(rest) > 0 && rest[0].text == "align" {
		if len(rest) < 2 {
			return Layout{}, &SyntaxError{colon, "expected the base alignment in bytes after align"}
		}
		n, err := strconv.Atoi(rest[1].text)
		if err != nil || n <= 0 {
			return Layout{}, &SyntaxError{rest[1].offset, fmt.Sprintf("base alignment %q: want a positive number of bytes", rest[1].text)}
		}
		cfg.BaseAlign = n
		rest = rest[2:]
	}
	if len(rest) > 0 {
		// The swizzle may contain spaces after its commas: it is the rest.
		swText := strings.TrimSpace(text[rest[0].offset:colon])
		if !strings.HasPrefix(swText, "Swizzle<") {
			return Layout{}, &SyntaxError{rest[0].offset, fmt.Sprintf("unexpected %q: want align N or Swizzle<B,M,S> before ':'", rest[0].text)}
		}
		if cfg.Swizzle, err = ParseSwizzle(swText); err != nil {
			return Layout{}, &SyntaxError{rest[0].offset, strings.TrimPrefix(err.Error(), "storage: ")}
		}
	}
	m, err := indexmap.Parse(text[colon+1:])
	if err != nil {
		if se, ok := err.(*indexmap.SyntaxError); ok {
			return Layout{}, &SyntaxError{colon + 1 + se.Offset, "address map: " + se.Msg}
		}
		return Layout{}, fmt.Errorf("storage: address map: %s", strings.TrimPrefix(err.Error(), "indexmap: "))
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
// swizzle is omitted when there is none. (encoding/json escapes the angle
// brackets of the swizzle as \u003c and \u003e unless the encoder's
// SetEscapeHTML is off.)
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
// defaults); "map" may be indexmap's object or text form. Errors name the
// field; unknown fields are errors.
func (l *Layout) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var text string
		if err := json.Unmarshal(data, &text); err != nil {
			return fmt.Errorf("storage: %v", err)
		}
		p, err := Parse(text)
		if err != nil {
			return err
		}
		*l = p
		return nil
	}
	var j jsonLayout
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("storage: json: %v", err)
	}
	var cfg Config
	var err error
	if j.Memory == "" {
		return fmt.Errorf("storage: json: memory: missing")
	}
	if cfg.Memory, err = ParseMemorySpace(j.Memory); err != nil {
		return fmt.Errorf("storage: json: memory: %s", strings.TrimPrefix(err.Error(), "storage: "))
	}
	if j.Element == "" {
		return fmt.Errorf("storage: json: element: missing")
	}
	if cfg.Element, err = ParseElementType(j.Element); err != nil {
		return fmt.Errorf("storage: json: element: %s", strings.TrimPrefix(err.Error(), "storage: "))
	}
	if j.Unit != "" {
		if cfg.Unit, err = ParseAddressUnit(j.Unit); err != nil {
			return fmt.Errorf("storage: json: unit: %s", strings.TrimPrefix(err.Error(), "storage: "))
		}
	}
	if j.Align < 0 {
		return fmt.Errorf("storage: json: align: %d: want a positive number of bytes", j.Align)
	}
	cfg.BaseAlign = j.Align
	if j.Swizzle != "" {
		if cfg.Swizzle, err = ParseSwizzle(j.Swizzle); err != nil {
			return fmt.Errorf("storage: json: swizzle: %s", strings.TrimPrefix(err.Error(), "storage: "))
		}
	}
	if len(j.Map) == 0 || string(j.Map) == "null" {
		return fmt.Errorf("storage: json: map: missing")
	}
	var m indexmap.Map
	if err := json.Unmarshal(j.Map, &m); err != nil {
		return fmt.Errorf("storage: json: map: %s", strings.TrimPrefix(err.Error(), "indexmap: "))
	}
	p, err := New(m, cfg)
	if err != nil {
		return fmt.Errorf("storage: json: %s", strings.TrimPrefix(err.Error(), "storage: "))
	}
	*l = p
	return nil
}

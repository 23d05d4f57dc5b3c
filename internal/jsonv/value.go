package jsonv

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A Kind is the JSON kind of a value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}

// String names the kind as messages do: "a number", "an object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Value is one JSON value of a parsed document and the byte offset where it
// starts. Objects keep every member in document order, repeated keys
// included; the Decoder reports repeats.
type Value struct {
	Kind   Kind
	Offset int

	text    string // a string's contents, or a number's text
	boolean bool
	elems   []*Value
	members []Member
}

// A Member is one key and value of an object.
type Member struct {
	Key       string
	KeyOffset int
	Value     *Value
}

// Str returns a string's contents ("" for other kinds).
func (v *Value) Str() string {
	if v.Kind != String {
		return ""
	}
	return v.text
}

// Num returns a number's text as written ("" for other kinds).
func (v *Value) Num() string {
	if v.Kind != Number {
		return ""
	}
	return v.text
}

// Bool returns a boolean's value (false for other kinds).
func (v *Value) Bool() bool { return v.Kind == Bool && v.boolean }

// Elems returns an array's elements (nil for other kinds).
func (v *Value) Elems() []*Value { return v.elems }

// Members returns an object's members in document order (nil for other kinds).
func (v *Value) Members() []Member { return v.members }

// Describe names the value for a message: its kind, with short scalars
// spelt out ("the string \"4\"", "the number 1.5", "an object").
func (v *Value) Describe() string {
	switch v.Kind {
	case Null:
		return "null"
	case Bool:
		return strconv.FormatBool(v.boolean)
	case Number:
		if len(v.text) > 40 {
			return "a number"
		}
		return "the number " + v.text
	case String:
		if len(v.text) > 40 {
			return "a string"
		}
		return "the string " + strconv.Quote(v.text)
	}
	return v.Kind.String()
}

// Limits caps what Parse accepts. A zero field takes its default.
type Limits struct {
	// MaxBytes caps the input's length (default DefaultMaxBytes).
	MaxBytes int64
	// MaxDepth caps the nesting of arrays and objects (default DefaultMaxDepth).
	MaxDepth int
}

// The default limits.
const (
	DefaultMaxBytes = 64 << 20
	DefaultMaxDepth = 200
)

func (l Limits) maxBytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return DefaultMaxBytes
}

func (l Limits) maxDepth() int {
	if l.MaxDepth > 0 {
		return l.MaxDepth
	}
	return DefaultMaxDepth
}

// Parse reads one JSON document. A document that is not JSON, or exceeds a
// limit, is reported as Problems holding one problem at the root with the
// byte offset and the line and column of the fault.
func Parse(data []byte, lim Limits) (*Value, error) {
	if int64(len(data)) > lim.maxBytes() {
		return nil, Problems{{Code: Limit, Offset: -1,
			Msg: fmt.Sprintf("input is %d bytes, over the limit of %d bytes", len(data), lim.maxBytes())}}
	}
	p := &parser{data: data, maxDepth: lim.maxDepth()}
	p.space()
	v := p.value(0)
	if p.err == nil {
		p.space()
		if p.pos < len(p.data) {
			p.fail(p.pos, "unexpected %s after the document", p.describeAt(p.pos))
		}
	}
	if p.err != nil {
		return nil, Problems{p.err}
	}
	return v, nil
}

type parser struct {
	data     []byte
	pos      int
	maxDepth int
	err      *Problem
}

// fail records the first syntax error; later ones are consequences.
func (p *parser) fail(off int, format string, args ...any) {
	if p.err != nil {
		return
	}
	line, col := 1, 1
	for _, c := range p.data[:min(off, len(p.data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else if c&0xC0 != 0x80 {
			col++
		}
	}
	p.err = &Problem{Code: Syntax, Offset: off,
		Msg: fmt.Sprintf("syntax error at line %d, column %d (byte %d): %s", line, col, off, fmt.Sprintf(format, args...))}
}

func (p *parser) describeAt(off int) string {
	if off >= len(p.data) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.data[off:])
	return strconv.QuoteRune(r)
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) *Value {
	if p.pos >= len(p.data) {
		p.fail(p.pos, "unexpected end of input (want a value)")
		return nil
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, ok := p.string()
		if !ok {
			return nil
		}
		return &Value{Kind: String, Offset: start, text: s}
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case p.literal("true"):
		return &Value{Kind: Bool, Offset: start, boolean: true}
	case p.literal("false"):
		return &Value{Kind: Bool, Offset: start}
	case p.literal("null"):
		return &Value{Kind: Null, Offset: start}
	}
	p.fail(p.pos, "unexpected %s (want a value)", p.describeAt(p.pos))
	return nil
}

func (p *parser) literal(word string) bool {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *parser) nest(depth int) bool {
	if depth >= p.maxDepth {
		p.fail(p.pos, "arrays and objects nested deeper than %d (the depth limit)", p.maxDepth)
		p.err.Code = Limit // a cap, not a fault of the JSON
		return false
	}
	return true
}

func (p *parser) object(depth int) *Value {
	if !p.nest(depth) {
		return nil
	}
	v := &Value{Kind: Object, Offset: p.pos}
	p.pos++ // '{'
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			p.fail(p.pos, "unexpected %s (want a key in double quotes)", p.describeAt(p.pos))
			return nil
		}
		keyOff := p.pos
		key, ok := p.string()
		if !ok {
			return nil
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			p.fail(p.pos, "unexpected %s after key %s (want ':')", p.describeAt(p.pos), strconv.Quote(key))
			return nil
		}
		p.pos++
		p.space()
		elem := p.value(depth + 1)
		if elem == nil {
			return nil
		}
		v.members = append(v.members, Member{Key: key, KeyOffset: keyOff, Value: elem})
		p.space()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				continue
			case '}':
				p.pos++
				return v
			}
		}
		p.fail(p.pos, "unexpected %s in an object (want ',' or '}')", p.describeAt(p.pos))
		return nil
	}
}

func (p *parser) array(depth int) *Value {
	if !p.nest(depth) {
		return nil
	}
	v := &Value{Kind: Array, Offset: p.pos}
	p.pos++ // '['
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		v.elems = []*Value{}
		return v
	}
	for {
		p.space()
		elem := p.value(depth + 1)
		if elem == nil {
			return nil
		}
		v.elems = append(v.elems, elem)
		p.space()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				continue
			case ']':
				p.pos++
				return v
			}
		}
		p.fail(p.pos, "unexpected %s in an array (want ',' or ']')", p.describeAt(p.pos))
		return nil
	}
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *parser) number() *Value {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		p.fail(p.pos, "unexpected %s in a number (want a digit)", p.describeAt(p.pos))
		return nil
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			p.fail(p.pos, "unexpected %s after a decimal point (want a digit)", p.describeAt(p.pos))
			return nil
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			p.fail(p.pos, "unexpected %s in an exponent (want a digit)", p.describeAt(p.pos))
			return nil
		}
	}
	return &Value{Kind: Number, Offset: start, text: string(p.data[start:p.pos])}
}

// string scans a string starting at its opening quote and returns its
// contents.
func (p *parser) string() (string, bool) {
	p.pos++ // '"'
	start := p.pos
	// Fast path: no escapes, ASCII or valid UTF-8.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				break
			}
			p.pos++
			return string(s), true
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	p.pos = start
	var out []byte
	for {
		if p.pos >= len(p.data) {
			p.fail(p.pos, "unexpected end of input in a string")
			return "", false
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(out), true
		case c < 0x20:
			p.fail(p.pos, "control character %#02x in a string (escape it)", c)
			return "", false
		case c == '\\':
			r, ok := p.escape()
			if !ok {
				return "", false
			}
			out = utf8.AppendRune(out, r)
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.pos++
		default:
			r, n := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && n <= 1 {
				p.fail(p.pos, "invalid UTF-8 in a string")
				return "", false
			}
			out = append(out, p.data[p.pos:p.pos+n]...)
			p.pos += n
		}
	}
}

// escape reads one escape sequence at p.pos (the backslash).
func (p *parser) escape() (rune, bool) {
	start := p.pos
	p.pos++
	if p.pos >= len(p.data) {
		p.fail(p.pos, "unexpected end of input in an escape")
		return 0, false
	}
	c := p.data[p.pos]
	p.pos++
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return 0, false
		}
		if utf16.IsSurrogate(r) {
			if len(p.data)-p.pos >= 6 && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				r2, ok := p.hex4()
				if !ok {
					return 0, false
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					return d, true
				}
				p.pos = save
			}
			return utf8.RuneError, true
		}
		return r, true
	}
	p.fail(start, "invalid escape \\%c in a string", c)
	return 0, false
}

func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.pos < 4 {
		p.fail(p.pos, "unexpected end of input in a \\u escape")
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r*16 + rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			p.fail(p.pos, "invalid \\u escape (want four hex digits)")
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

package jsonv

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Decoder collects the problems found while decoding one document. The
// zero Decoder is ready to use. Its helpers never stop at a problem: they
// record it and return a zero value and false, so that decoding goes on and
// finds the next one.
type Decoder struct {
	problems Problems
	errors   int
}

// Report records a problem at p.
func (d *Decoder) Report(p Path, code Code, format string, args ...any) {
	d.add(&Problem{Path: p, Code: code, Msg: fmt.Sprintf(format, args...), Offset: -1})
}

// Warn records a warning at p: a problem that does not make the document
// invalid.
func (d *Decoder) Warn(p Path, code Code, format string, args ...any) {
	d.add(&Problem{Path: p, Code: code, Msg: fmt.Sprintf(format, args...), Offset: -1, Warning: true})
}

// Wrap records err as a problem at p, keeping err as its cause so errors.As
// finds err's type. The message is err's own text, unedited. If err is
// itself Problems (a nested document), its problems are re-rooted at p.
func (d *Decoder) Wrap(p Path, code Code, err error) {
	if ps, ok := err.(Problems); ok {
		for _, q := range ps {
			d.add(&Problem{Path: join(p, q.Path), Code: q.Code, Msg: q.Msg, Offset: q.Offset, Err: q.Err, Warning: q.Warning})
		}
		return
	}
	d.add(&Problem{Path: p, Code: code, Msg: err.Error(), Offset: -1, Err: err})
}

// join appends q's steps to p.
func join(p, q Path) Path {
	for _, s := range q.steps() {
		if s.index >= 0 {
			p = p.Index(s.index)
		} else {
			p = p.Key(s.key)
		}
	}
	return p
}

// Add records a problem built by the caller.
func (d *Decoder) Add(pr *Problem) { d.add(pr) }

func (d *Decoder) add(pr *Problem) {
	d.problems = append(d.problems, pr)
	if !pr.Warning {
		d.errors++
	}
}

// ErrorCount is the number of problems recorded that are not warnings: a
// decoder of a part compares it before and after to learn whether the part
// was valid.
func (d *Decoder) ErrorCount() int { return d.errors }

// Failed reports whether any problem that is not a warning was recorded.
func (d *Decoder) Failed() bool { return d.errors > 0 }

// Problems returns every problem recorded, warnings included, sorted.
func (d *Decoder) Problems() Problems {
	out := append(Problems(nil), d.problems...)
	out.Sort()
	return out
}

// Err returns nil if no problem other than a warning was recorded, else
// every problem, sorted.
func (d *Decoder) Err() error {
	if d.errors == 0 {
		return nil
	}
	return d.Problems()
}

// want records a Type problem: v at p is not of the wanted kind.
func (d *Decoder) want(v *Value, p Path, want string) {
	d.add(&Problem{Path: p, Code: Type, Msg: "want " + want + ", have " + v.Describe(), Offset: v.Offset})
}

// An ObjectReader reads the members of one object. Fields it is asked for
// are marked read; End reports the rest as unknown fields.
type ObjectReader struct {
	d    *Decoder
	path Path
	v    *Value
	// index maps a key to its first member in a large object; a small one
	// (most of them) is searched in place, without a map.
	index  map[string]int
	first  []bool // first[i]: member i is its key's first occurrence
	read   []bool // read[i]: member i's field was asked for
	known  []string
	closed bool
}

// smallObject is the size up to which members are searched in place.
const smallObject = 16

// Object starts reading the object v at p. Known, when given, lists every
// field the form defines: End reports the others, and the message lists the
// known ones. A repeated key is reported at once, at its second and later
// occurrences; the first occurrence is the one read. If v is not an object,
// Object records a Type problem and returns nil; every method of a nil
// *ObjectReader returns zero values.
func (d *Decoder) Object(v *Value, p Path, known ...string) *ObjectReader {
	if v == nil {
		return nil
	}
	if v.Kind != Object {
		d.want(v, p, "an object")
		return nil
	}
	n := len(v.members)
	o := &ObjectReader{d: d, path: p, v: v, known: known, first: make([]bool, n), read: make([]bool, n)}
	if n > smallObject {
		o.index = make(map[string]int, n)
	}
	for i, m := range v.members {
		if first := o.lookup(m.Key, i); first >= 0 {
			d.add(&Problem{Path: p.Key(m.Key), Code: DuplicateKey, Offset: m.KeyOffset,
				Msg: fmt.Sprintf("key %s is repeated (first at byte %d)", strconv.Quote(m.Key), v.members[first].KeyOffset)})
			continue
		}
		o.first[i] = true
		if o.index != nil {
			o.index[m.Key] = i
		}
	}
	return o
}

// lookup returns the index of the first member before limit with the key,
// or -1.
func (o *ObjectReader) lookup(key string, limit int) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok && i < limit {
			return i
		}
		return -1
	}
	for i := 0; i < limit; i++ {
		if o.first[i] && o.v.members[i].Key == key {
			return i
		}
	}
	return -1
}

// Path is the path of the object.
func (o *ObjectReader) Path() Path {
	if o == nil {
		return Root
	}
	return o.path
}

// Has reports whether the object has the field.
func (o *ObjectReader) Has(name string) bool {
	if o == nil {
		return false
	}
	return o.lookup(name, len(o.v.members)) >= 0
}

// Keys returns the object's keys in document order, each once.
func (o *ObjectReader) Keys() []string {
	if o == nil {
		return nil
	}
	var out []string
	for i, m := range o.v.members {
		if o.first[i] {
			out = append(out, m.Key)
		}
	}
	return out
}

// Field returns the value of the field and its path, marking it read; the
// value is nil when the field is absent.
func (o *ObjectReader) Field(name string) (*Value, Path) {
	if o == nil {
		return nil, Root
	}
	p := o.path.Key(name)
	i := o.lookup(name, len(o.v.members))
	if i < 0 {
		return nil, p
	}
	o.read[i] = true
	return o.v.members[i].Value, p
}

// Require returns the field's value, recording a Missing problem (and
// returning nil) when it is absent. What describes the wanted value ("a
// string", "an array of axes").
func (o *ObjectReader) Require(name, what string) (*Value, Path) {
	v, p := o.Field(name)
	if v == nil && o != nil {
		o.d.add(&Problem{Path: o.path, Code: Missing, Offset: o.v.Offset,
			Msg: fmt.Sprintf("missing %s: want %s", strconv.Quote(name), what)})
	}
	return v, p
}

func (o *ObjectReader) get(name string, required bool, what string) (*Value, Path) {
	if required {
		return o.Require(name, what)
	}
	return o.Field(name)
}

// String reads a string field; absent is "".
func (o *ObjectReader) String(name string, required bool) string {
	v, p := o.get(name, required, "a string")
	if v == nil {
		return ""
	}
	s, _ := o.d.String(v, p)
	return s
}

// Int reads an integer field; absent is 0.
func (o *ObjectReader) Int(name string, required bool) int {
	v, p := o.get(name, required, "an integer")
	if v == nil {
		return 0
	}
	n, _ := o.d.Int(v, p)
	return n
}

// Float reads a number field; absent is 0.
func (o *ObjectReader) Float(name string, required bool) float64 {
	v, p := o.get(name, required, "a number")
	if v == nil {
		return 0
	}
	f, _ := o.d.Float(v, p)
	return f
}

// Bool reads a boolean field; absent is false.
func (o *ObjectReader) Bool(name string) bool {
	v, p := o.Field(name)
	if v == nil {
		return false
	}
	b, _ := o.d.Bool(v, p)
	return b
}

// End reports every field that is neither known nor read as an unknown
// field. It may be called once.
func (o *ObjectReader) End() {
	if o == nil || o.closed {
		return
	}
	o.closed = true
	for i, m := range o.v.members {
		if !o.first[i] || o.read[i] || contains(o.known, m.Key) {
			continue
		}
		msg := "unknown field " + strconv.Quote(m.Key)
		if len(o.known) > 0 {
			msg += " (want " + quoteList(o.known) + ")"
		}
		o.d.add(&Problem{Path: o.path.Key(m.Key), Code: UnknownField, Offset: m.KeyOffset, Msg: msg})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// Array returns the elements of the array v at p, or records a Type problem
// and returns nil, false.
func (d *Decoder) Array(v *Value, p Path) ([]*Value, bool) {
	if v.Kind != Array {
		d.want(v, p, "an array")
		return nil, false
	}
	return v.elems, true
}

// String returns the string v at p, or records a Type problem.
func (d *Decoder) String(v *Value, p Path) (string, bool) {
	if v.Kind != String {
		d.want(v, p, "a string")
		return "", false
	}
	return v.text, true
}

// Bool returns the boolean v at p, or records a Type problem.
func (d *Decoder) Bool(v *Value, p Path) (bool, bool) {
	if v.Kind != Bool {
		d.want(v, p, "true or false")
		return false, false
	}
	return v.boolean, true
}

// Int returns the integer v at p: a number written without a fraction or an
// exponent that fits in an int. Otherwise it records a Type or Range
// problem.
func (d *Decoder) Int(v *Value, p Path) (int, bool) {
	if v.Kind != Number {
		d.want(v, p, "an integer")
		return 0, false
	}
	n, err := strconv.ParseInt(v.text, 10, strconv.IntSize)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			d.add(&Problem{Path: p, Code: Range, Offset: v.Offset, Msg: fmt.Sprintf("%s is too large for an integer", v.text)})
			return 0, false
		}
		d.want(v, p, "an integer")
		return 0, false
	}
	return int(n), true
}

// Float returns the finite number v at p, or records a problem.
func (d *Decoder) Float(v *Value, p Path) (float64, bool) {
	if v.Kind != Number {
		d.want(v, p, "a number")
		return 0, false
	}
	f, err := strconv.ParseFloat(v.text, 64)
	if err != nil || math.IsInf(f, 0) {
		d.add(&Problem{Path: p, Code: Range, Offset: v.Offset, Msg: fmt.Sprintf("%s is out of the range of a float64", v.text)})
		return 0, false
	}
	return f, true
}

// Strings returns the array of strings v at p, recording a problem for each
// element that is not a string.
func (d *Decoder) Strings(v *Value, p Path) ([]string, bool) {
	elems, ok := d.Array(v, p)
	if !ok {
		return nil, false
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		s, good := d.String(e, p.Index(i))
		ok = ok && good
		out[i] = s
	}
	return out, ok
}

// Ints returns the array of integers v at p, recording a problem for each
// element that is not an integer.
func (d *Decoder) Ints(v *Value, p Path) ([]int, bool) {
	elems, ok := d.Array(v, p)
	if !ok {
		return nil, false
	}
	out := make([]int, len(elems))
	for i, e := range elems {
		n, good := d.Int(e, p.Index(i))
		ok = ok && good
		out[i] = n
	}
	return out, ok
}

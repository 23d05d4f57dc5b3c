package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPathString(t *testing.T) {
	tests := []struct {
		path Path
		want string
	}{
		{Root, "$"},
		{Root.Key("tasks"), "$.tasks"},
		{Root.Key("tasks").Key("mma").Key("alternatives").Index(1).Key("ports").Key("lhs"), "$.tasks.mma.alternatives[1].ports.lhs"},
		{Root.Key("sizes").Key("a b"), `$.sizes["a b"]`},
		{Root.Key("x").Key(""), `$.x[""]`},
		{Root.Key("1st"), `$["1st"]`},
		{Root.Index(0).Index(12), "$[0][12]"},
		{Root.Key(`q"`), `$["q\""]`},
	}
	for _, tt := range tests {
		if got := tt.path.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}

// TestPathCompare checks Compare is a total order consistent with the
// documented rule on every pair of a small set of paths, and that Key and
// Index never change the receiver.
func TestPathCompare(t *testing.T) {
	base := Root.Key("a")
	paths := []Path{Root, base, base.Index(0), base.Index(2), base.Index(10), base.Key("b"), base.Key("c"), Root.Key("b"), base.Index(2).Key("x")}
	if base.String() != "$.a" {
		t.Fatalf("extending a path changed it: %s", base)
	}
	// paths is listed in ascending order except the last, which sits between
	// base.Index(2) and base.Index(10).
	order := []int{0, 1, 2, 3, 8, 4, 5, 6, 7}
	rank := map[int]int{}
	for r, i := range order {
		rank[i] = r
	}
	for i, p := range paths {
		for j, q := range paths {
			want := cmpInt(rank[i], rank[j])
			if got := p.Compare(q); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", p, q, got, want)
			}
		}
	}
}

// TestParseAgreesWithEncodingJSON decodes valid documents with both parsers
// and compares the trees.
func TestParseAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		`null`, `true`, `false`, `0`, `-0`, `1.5e-3`, `-12E+2`, `""`, `"a\"b\\c\/\b\f\n\r\t"`,
		`"\u00e9\ud83d\ude00"`, `"é€😀"`, `[]`, `{}`, `[1,[2,[3,{}]]]`,
		` { "a" : [ 1 , "x" , null ] , "b" : { "c" : false } } `,
		`"\ud800"`, `"\udc00x"`,
	}
	for _, doc := range docs {
		v, err := Parse([]byte(doc), Limits{})
		if err != nil {
			t.Errorf("Parse(%s): %v", doc, err)
			continue
		}
		want := stdDecode(t, doc)
		if diff := cmp.Diff(want, toAny(v)); diff != "" {
			t.Errorf("Parse(%s) differs from encoding/json (-want +got):\n%s", doc, diff)
		}
	}
}

func stdDecode(t *testing.T, doc string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return normalize(v)
}

func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		return string(v)
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = normalize(v[k])
		}
	}
	return v
}

// toAny converts a tree as encoding/json would, the last repeated key winning.
func toAny(v *Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Bool()
	case Number:
		return v.Num()
	case String:
		return v.Str()
	case Array:
		out := []any{}
		for _, e := range v.Elems() {
			out = append(out, toAny(e))
		}
		return out
	}
	out := map[string]any{}
	for _, m := range v.Members() {
		out[m.Key] = toAny(m.Value)
	}
	return out
}

func TestParseSyntaxErrors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{``, "$: syntax error at line 1, column 1 (byte 0): unexpected end of input (want a value)"},
		{`{"a": 1,}`, `$: syntax error at line 1, column 9 (byte 8): unexpected '}' (want a key in double quotes)`},
		{"{\n  \"a\" 1}", `$: syntax error at line 2, column 7 (byte 8): unexpected '1' after key "a" (want ':')`},
		{`[1 2]`, `$: syntax error at line 1, column 4 (byte 3): unexpected '2' in an array (want ',' or ']')`},
		{`01`, `$: syntax error at line 1, column 2 (byte 1): unexpected '1' after the document`},
		{`1.`, `$: syntax error at line 1, column 3 (byte 2): unexpected end of input after a decimal point (want a digit)`},
		{`"a`, `$: syntax error at line 1, column 3 (byte 2): unexpected end of input in a string`},
		{"\"\x01\"", `$: syntax error at line 1, column 2 (byte 1): control character 0x01 in a string (escape it)`},
		{`"\x"`, `$: syntax error at line 1, column 2 (byte 1): invalid escape \x in a string`},
		{`tru`, `$: syntax error at line 1, column 1 (byte 0): unexpected 't' (want a value)`},
		{"\"\xff\"", `$: syntax error at line 1, column 2 (byte 1): invalid UTF-8 in a string`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.doc), Limits{})
		if err == nil {
			t.Errorf("Parse(%q) = nil error, want %s", tt.doc, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tt.doc, err, tt.want)
		}
		var p *Problem
		if !errors.As(err, &p) || p.Code != Syntax || p.Offset < 0 {
			t.Errorf("Parse(%q): want a Syntax problem with an offset, got %#v", tt.doc, p)
		}
	}
}

func TestParseLimits(t *testing.T) {
	deep := strings.Repeat("[", 50) + strings.Repeat("]", 50)
	if _, err := Parse([]byte(deep), Limits{MaxDepth: 50}); err != nil {
		t.Errorf("depth 50 under a limit of 50: %v", err)
	}
	_, err := Parse([]byte(deep), Limits{MaxDepth: 49})
	if err == nil || !strings.Contains(err.Error(), "nested deeper than 49") {
		t.Errorf("depth 50 under a limit of 49: %v", err)
	}
	// The default limit holds against a document far deeper than any stack.
	huge := bytes.Repeat([]byte("["), 10_000_000)
	_, err = Parse(huge, Limits{})
	var lp *Problem
	if !errors.As(err, &lp) || lp.Code != Limit || !strings.Contains(lp.Msg, "depth limit") {
		t.Errorf("10^7 open brackets: %v, want a Limit problem", err)
	}
	_, err = Parse([]byte(`[1, 2, 3]`), Limits{MaxBytes: 8})
	var p *Problem
	if !errors.As(err, &p) || p.Code != Limit || p.Msg != "input is 9 bytes, over the limit of 8 bytes" {
		t.Errorf("9 bytes under a limit of 8: %v", err)
	}
}

// TestDecoderCollectsEveryProblem decodes an object with one mistake of each
// kind and checks every problem, its path and its code, in sorted order.
func TestDecoderCollectsEveryProblem(t *testing.T) {
	doc := `{
  "name": 7,
  "size": 1.5,
  "big": 99999999999999999999,
  "axes": [{"name": "m", "size": "4"}, {"name": "n", "size": 2, "colour": "red"}],
  "name": "again",
  "extra": true
}`
	v, err := Parse([]byte(doc), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	o := d.Object(v, Root, "name", "size", "big", "axes", "flag")
	_ = o.String("name", true)
	_ = o.Int("size", true)
	_ = o.Int("big", false)
	_ = o.Bool("flag")
	_ = o.String("label", true)
	if axes, p := o.Field("axes"); axes != nil {
		elems, _ := d.Array(axes, p)
		for i, e := range elems {
			a := d.Object(e, p.Index(i), "name", "size")
			a.String("name", true)
			a.Int("size", true)
			a.End()
		}
	}
	o.End()

	type row struct{ Path, Code, Msg string }
	var got []row
	err = d.Err()
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Err() = %v, want Problems", err)
	}
	for _, p := range ps {
		got = append(got, row{p.Path.String(), string(p.Code), p.Msg})
	}
	want := []row{
		{"$", "missing", `missing "label": want a string`},
		{"$.axes[0].size", "type", `want an integer, have the string "4"`},
		{"$.axes[1].colour", "unknown_field", `unknown field "colour" (want "name", "size")`},
		{"$.big", "range", "99999999999999999999 is too large for an integer"},
		{"$.extra", "unknown_field", `unknown field "extra" (want "name", "size", "big", "axes", "flag")`},
		{"$.name", "duplicate_key", `key "name" is repeated (first at byte 4)`},
		{"$.name", "type", "want a string, have the number 7"},
		{"$.size", "type", "want an integer, have the number 1.5"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

type causeError struct{ at int }

func (e *causeError) Error() string { return "bad term" }

// TestWrapKeepsTheCause checks errors.As finds a wrapped cause through
// Problems, and that nested Problems are re-rooted.
func TestWrapKeepsTheCause(t *testing.T) {
	var d Decoder
	d.Wrap(Root.Key("maps").Key("f"), Invalid, &causeError{at: 3})
	inner := Problems{{Path: Root.Key("axes").Index(0), Code: Type, Msg: "want an object, have null"}}
	d.Wrap(Root.Key("spaces").Key("tile"), Invalid, inner)
	d.Warn(Root.Key("outputs"), "unconsumed", "nothing reads output %q", "o")
	err := d.Err()
	var ce *causeError
	if !errors.As(err, &ce) || ce.at != 3 {
		t.Errorf("errors.As did not find the cause in %v", err)
	}
	want := "$.maps.f: bad term\n$.spaces.tile.axes[0]: want an object, have null\n$.outputs: warning: nothing reads output \"o\""
	if err.Error() != want {
		t.Errorf("Err():\n%s\nwant\n%s", err, want)
	}
	var only Decoder
	only.Warn(Root, "w", "just a warning")
	if only.Err() != nil || len(only.Problems()) != 1 {
		t.Errorf("a warning alone: Err() = %v, Problems() = %v", only.Err(), only.Problems())
	}
}

// TestProblemsErrorListsErrorsFirst checks that Error writes the errors,
// then the warnings, each kind in path order, whatever paths the warnings
// have: a failed load's text leads with what made it fail.
func TestProblemsErrorListsErrorsFirst(t *testing.T) {
	tests := []struct {
		name string
		add  func(d *Decoder)
		want string
	}{{
		name: "a warning before an error in path order comes after it",
		add: func(d *Decoder) {
			d.Warn(Root.Key("invocations").Index(1), "unconsumed", "output scale.y is consumed by no edge")
			d.Report(Root.Key("invocations").Index(2).Key("task"), UnknownName, "unknown task %q", "scale2")
		},
		want: "$.invocations[2].task: unknown task \"scale2\"\n" +
			"$.invocations[1]: warning: output scale.y is consumed by no edge",
	}, {
		name: "each kind keeps its path order",
		add: func(d *Decoder) {
			d.Report(Root.Key("sizes").Key("M"), Range, "size M must be positive, have 0")
			d.Warn(Root.Key("edges").Index(0), "tile_count", "p.y emits 4 tiles and c.x reads 1")
			d.Report(Root.Key("edges").Index(1).Key("to"), UnknownName, "unknown invocation %q", "c2")
			d.Warn(Root.Key("invocations").Index(0), "unfed", "input p.x is fed by no edge")
		},
		want: "$.edges[1].to: unknown invocation \"c2\"\n" +
			"$.sizes.M: size M must be positive, have 0\n" +
			"$.edges[0]: warning: p.y emits 4 tiles and c.x reads 1\n" +
			"$.invocations[0]: warning: input p.x is fed by no edge",
	}, {
		name: "an error and a warning at one path",
		add: func(d *Decoder) {
			d.Warn(Root.Key("edges").Index(0), "tile_count", "p.y emits 4 tiles and c.x reads 1")
			d.Report(Root.Key("edges").Index(0), Invalid, "bad endpoint")
		},
		want: "$.edges[0]: bad endpoint\n$.edges[0]: warning: p.y emits 4 tiles and c.x reads 1",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Decoder
			tt.add(&d)
			err := d.Err()
			if err == nil {
				t.Fatal("Err() = nil, want the problems")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Error():\n%s\nwant\n%s", got, tt.want)
			}
			// The list itself stays in path order: only its text leads
			// with the errors.
			if ps := d.Problems(); !slices.IsSortedFunc(ps, compareProblems) {
				t.Errorf("Problems() = %v, not in path order", ps.Where())
			}
		})
	}
}

func TestNilObjectReader(t *testing.T) {
	var d Decoder
	v, _ := Parse([]byte(`[1]`), Limits{})
	o := d.Object(v, Root.Key("x"), "a")
	if o != nil {
		t.Fatal("Object of an array returned a reader")
	}
	// Every method of a nil reader is safe and returns zero values.
	if o.String("a", true) != "" || o.Int("a", true) != 0 || o.Has("a") || o.Keys() != nil {
		t.Error("nil reader returned a value")
	}
	o.End()
	if got := d.Err().Error(); got != "$.x: want an object, have an array" {
		t.Errorf("Err() = %s", got)
	}
}

// FuzzParse checks that Parse never panics, accepts exactly what
// encoding/json accepts (up to its depth limit), and agrees on the value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\u00e9"`, `[1e5,-0.5]`, `{"a":1,"a":2}`, `[`, `{"a" 1}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data, Limits{})
		stdOK := json.Valid(data)
		if (err == nil) != stdOK {
			// encoding/json accepts invalid UTF-8 in strings (replacing it);
			// Parse refuses it.
			var p *Problem
			if !(errors.As(err, &p) && strings.Contains(p.Msg, "invalid UTF-8")) {
				t.Fatalf("Parse(%q): err = %v, encoding/json valid = %v", data, err, stdOK)
			}
			return
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if dec.Decode(&want) != nil {
			t.Fatalf("encoding/json rejects %q", data)
		}
		if diff := cmp.Diff(normalize(want), toAny(v)); diff != "" {
			t.Fatalf("Parse(%q) differs (-std +got):\n%s", data, diff)
		}
	})
}

// FuzzDecode checks the decoder helpers never panic on any tree.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"name": "x", "size": 3, "axes": [{"name": 1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data, Limits{})
		if err != nil {
			return
		}
		var d Decoder
		o := d.Object(v, Root, "name", "size")
		o.String("name", true)
		o.Int("size", false)
		o.Float("size", false)
		if a, p := o.Field("axes"); a != nil {
			d.Strings(a, p)
			d.Ints(a, p)
		}
		o.End()
		_ = d.Err()
	})
}

func BenchmarkParse(b *testing.B) {
	doc := benchDocument()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := Parse(doc, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDocument is a task-graph-like document of about 1 MB.
func benchDocument() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.WriteString(`{"version": 1, "invocations": [`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id": "inv`)
		b.WriteString(strings.Repeat("x", r.IntN(8)))
		b.WriteString(`", "task": "mma", "multiplicity": "M/64 * N/64", "costs": [1.5, 2.25, 3e2], "pins": [], "flags": {"fused": true, "group": null}}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

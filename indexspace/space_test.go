package indexspace

import (
	"errors"
	"fmt"
	json "github.com/goccy/go-json"
	"strings"
	"testing"
)

func TestParseString(t *testing.T) {
	tests := []struct {
		name, in, want string
		size, leaves   int
	}{
		{"named with group", "tile(m:16, n:(n0:2, n1:4))", "tile(m:16, n:(n0:2, n1:4))", 128, 3},
		{"unnamed", "(lane:32,v:8)", "(lane:32, v:8)", 256, 2},
		{"empty product", "()", "()", 1, 0},
		{"named empty", " s ( ) ", "s()", 1, 0},
		{"nested groups", "x(a:(b:(c:2, d:3), e:5))", "x(a:(b:(c:2, d:3), e:5))", 30, 3},
		{"size one leaf", "(k:1, m:7)", "(k:1, m:7)", 7, 2},
		{"whitespace everywhere", "\tt (\n m : 4 ,n:( p:2 ) )", "t(m:4, n:(p:2))", 8, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got := s.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if s.Size() != tc.size || s.NumLeaves() != tc.leaves {
				t.Errorf("Size, NumLeaves = %d, %d; want %d, %d", s.Size(), s.NumLeaves(), tc.size, tc.leaves)
			}
			back, err := Parse(s.String())
			if err != nil || !back.Equal(s) {
				t.Errorf("round trip: %v, %v", back, err)
			}
		})
	}
}

// TestParseErrors checks that every error is a *SyntaxError at the offset
// of the offending token (the caret the CLI draws) saying what is wrong.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		offset   int // where the error points, found by strings.Index of its token
		want     string
	}{
		{"empty text", "", 0, "expected '(' opening the axis list, found end of text"},
		{"missing size", "(m:)", strings.Index("(m:)", ")"), "expected a size or '(' after \"m\":, found ')'"},
		// Regression: validation errors pointed at offset 0 (the space).
		{"zero size at the size", "t(a:0)", strings.Index("t(a:0)", "0"), `axis "a" has size 0; sizes must be positive`},
		{"zero size after spaces", "t(b:2, a:  00)", strings.Index("t(b:2, a:  00)", "00"), `axis "a" has size 00; sizes must be positive`},
		{"overflow at the axis that overflows", "t(a:4294967296, b:4294967296)", strings.Index("t(a:4294967296, b:4294967296)", "b"),
			`size of space overflows (limit 4611686018427387903) at axis "b"`},
		{"overflow inside a group", "(a:4294967296, g:(c:1, b:4294967296))", strings.Index("(a:4294967296, g:(c:1, b:4294967296))", "b"),
			`size of space overflows (limit 4611686018427387903) at axis "b"`},
		{"overflow of a group alone", "(g:(c:4294967296, d:4294967296), e:1)", strings.Index("(g:(c:4294967296, d:4294967296), e:1)", "d"),
			`size of space overflows (limit 4611686018427387903) at axis "d"`},
		{"empty group at its parenthesis", "(n: ( ))", strings.Index("(n: ( ))", "( )"), `group "n" has no factors`},
		{"duplicate leaf", "(m:2, m:3)", 6, `axis name "m" is used twice (first at offset 1)`},
		{"group name reused by factor", "(n:(n:2))", 4, `axis name "n" is used twice (first at offset 1)`},
		{"leaf name reused in a group", "(m:2, n:(m:2))", 9, `axis name "m" is used twice (first at offset 1)`},
		{"trailing text", "(m:2) x", 6, `unexpected 'x' after the space`},
		{"huge literal", "(a:99999999999999999999999)", 3, "size 99999999999999999999999 of axis \"a\" exceeds the limit 4611686018427387903"},
		{"literal above MaxSize", "(a:4611686018427387904)", 3, "size 4611686018427387904 of axis \"a\" exceeds the limit 4611686018427387903"},
		{"missing colon", "(m 4)", 3, `expected ':' after axis name "m", found '4'`},
		{"missing comma", "(m:4 n:2)", 5, `expected ',' or ')' after an axis, found 'n'`},
		{"bad name", "(1m:4)", 1, `expected an axis name, found '1'`},
		{"unclosed", "(m:4", 4, `expected ',' or ')' after an axis, found end of text`},
		{"nested too deep", "(" + nest(70), strings.Index("("+nest(70), "g65:"), "groups nested deeper than 64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, want a *SyntaxError", tc.in, err)
			}
			if se.Offset != tc.offset || se.Msg != tc.want {
				t.Errorf("Parse(%q) error at offset %d: %s\nwant offset %d: %s", tc.in, se.Offset, se.Msg, tc.offset, tc.want)
			}
			if want := fmt.Sprintf("indexspace: offset %d: %s", tc.offset, tc.want); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err, want)
			}
		})
	}
}

// nest returns n groups g0:(g1:(...(x:2)...)) nested in one another, with
// one more ')' closing the space.
func nest(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "g%d:(", i)
	}
	b.WriteString("x:2")
	b.WriteString(strings.Repeat(")", n+1))
	return b.String()
}

// TestFlatCoord checks Flat and Coord are inverse over the whole domain and
// that the flat order is row-major with the last leaf fastest.
func TestFlatCoord(t *testing.T) {
	for _, text := range []string{"tile(m:3, n:(n0:2, n1:4))", "()", "(a:1, b:5, c:(d:1, e:2))"} {
		t.Run(text, func(t *testing.T) {
			s := MustParse(text)
			prev := []int(nil)
			for i := 0; i < s.Size(); i++ {
				c, err := s.Coord(i)
				if err != nil {
					t.Fatal(err)
				}
				back, err := s.Flat(c)
				if err != nil || back != i {
					t.Fatalf("Flat(Coord(%d)) = %d, %v", i, back, err)
				}
				if prev != nil && !lexLess(prev, c) {
					t.Fatalf("Coord(%d)=%v not after Coord(%d)=%v in row-major order", i, c, i-1, prev)
				}
				prev = c
			}
			if _, err := s.Coord(s.Size()); err == nil {
				t.Errorf("Coord(Size()) succeeded")
			}
			if _, err := s.Coord(-1); err == nil {
				t.Errorf("Coord(-1) succeeded")
			}
			if _, err := s.Flat(make([]int, s.NumLeaves()+1)); err == nil {
				t.Errorf("Flat with too many coordinates succeeded")
			}
			if s.NumLeaves() > 0 {
				c := make([]int, s.NumLeaves())
				c[0] = s.Leaf(0).Size
				if _, err := s.Flat(c); err == nil {
					t.Errorf("Flat out of range succeeded")
				}
			}
		})
	}
}

func lexLess(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func TestLookupGroupValue(t *testing.T) {
	s := MustParse("tile(m:3, n:(n0:2, n1:4))")
	r, ok := s.Lookup("n")
	if !ok || r.First != 1 || r.Last != 3 || r.Size != 8 || r.Leaf {
		t.Fatalf("Lookup(n) = %+v, %v", r, ok)
	}
	// The group's value is the flat index of its leaves.
	for i := 0; i < s.Size(); i++ {
		c, _ := s.Coord(i)
		if got, want := r.Value(s, c), i%8; got != want {
			t.Errorf("n at %v = %d, want %d", c, got, want)
		}
	}
	if got := strings.Join(s.Names(), ","); got != "m,n,n0,n1" {
		t.Errorf("Names = %s", got)
	}
}

func TestJSON(t *testing.T) {
	s := MustParse("tile(m:16, n:(n0:2, n1:4))")
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"tile","axes":[{"name":"m","size":16},{"name":"n","axes":[{"name":"n0","size":2},{"name":"n1","size":4}]}]}`
	if string(data) != want {
		t.Errorf("Marshal = %s\nwant %s", data, want)
	}
	var back Space
	if err := json.Unmarshal(data, &back); err != nil || !back.Equal(s) {
		t.Errorf("Unmarshal = %v, %v", back, err)
	}
	var fromText Space
	if err := json.Unmarshal([]byte(`"tile(m:16, n:(n0:2, n1:4))"`), &fromText); err != nil || !fromText.Equal(s) {
		t.Errorf("Unmarshal text = %v, %v", fromText, err)
	}
}

// TestUnmarshalJSONErrors checks that a JSON form breaking a rule is
// reported with the JSON path of every offending value, in document order,
// and never with a Go type name.
func TestUnmarshalJSONErrors(t *testing.T) {
	const maxSize = "4611686018427387903"
	tests := []struct{ name, in, want string }{
		// Regressions: "size 0" with no path, and a Go type name
		// (jsonAxis.axes.size) with no index.
		{"missing size", `{"name":"t","axes":[{"name":"a"}]}`, `$.axes[0]: missing "size" (for a leaf) or "axes" (for a group)`},
		{"size as a string", `{"name":"t","axes":[{"name":"a","size":"4"}]}`, `$.axes[0].size: want a positive integer, got "4"`},
		{"zero size", `{"axes":[{"name":"m","size":0}]}`, `$.axes[0].size: want a positive integer, got 0`},
		{"negative size", `{"axes": [{"name": "m", "size": -4}]}`, `$.axes[0].size: want a positive integer, got -4`},
		{"fractional size", `{"axes":[{"name":"m","size":2.5}]}`, `$.axes[0].size: want a positive integer, got 2.5`},
		{"size in exponent form", `{"axes":[{"name":"m","size":1e3}]}`, `$.axes[0].size: want a positive integer, got 1e3`},
		{"size above MaxSize", `{"axes":[{"name":"m","size":99999999999999999999}]}`, `$.axes[0].size: size 99999999999999999999 of axis "m" exceeds the limit ` + maxSize},
		{"missing name", `{"axes":[{"size":2}]}`, `$.axes[0]: missing "name"`},
		{"name not a string", `{"axes":[{"name":7,"size":2}]}`, `$.axes[0].name: want a string, got 7`},
		{"name not an identifier", `{"axes":[{"name":"1m","size":2}]}`, `$.axes[0].name: want an identifier (a letter or '_', then letters, digits, '_'), got "1m"`},
		{"space name not an identifier", `{"name":"a b","axes":[]}`, `$.name: want an identifier (a letter or '_', then letters, digits, '_'), got "a b"`},
		{"missing axes", `{"name":"t"}`, `$: missing "axes"`},
		{"axes not an array", `{"axes":{"name":"m","size":2}}`, `$.axes: want an array of axes, got {"name":"m","size":2}`},
		{"axes null", `{"axes":null}`, `$.axes: want an array of axes, got null`},
		{"axis not an object", `{"axes":[{"name":"m","size":2}, 3]}`, `$.axes[1]: want an axis object ({"name": ..., "size": ...} or {"name": ..., "axes": [...]}), got 3`},
		{"size and axes", `{"axes":[{"name":"m","size":2,"axes":[{"name":"x","size":2}]}]}`, `$.axes[0]: has both "size" and "axes" (a leaf has a size, a group has axes)`},
		{"empty group", `{"axes":[{"name":"g","axes":[]}]}`, `$.axes[0].axes: group "g" has no factors`},
		{"unknown field of the space", `{"axes":[],"bogus":1}`, `$.bogus: unknown field "bogus" (want "name", "axes")`},
		{"unknown field of an axis", `{"axes":[{"name":"m","size":2,"Size":3}]}`, `$.axes[0].Size: unknown field "Size" (want "name", "size", "axes")`},
		{"odd field name quoted", `{"axes":[],"a b":1}`, `$["a b"]: unknown field "a b" (want "name", "axes")`},
		{"duplicate name in a group", `{"axes":[{"name":"m","size":2},{"name":"g","axes":[{"name":"m","size":3}]}]}`,
			`$.axes[1].axes[0].name: axis name "m" is used twice (first at $.axes[0].name)`},
		{"overflow at the leaf", `{"axes":[{"name":"a","size":4294967296},{"name":"g","axes":[{"name":"c","size":1},{"name":"b","size":4294967296}]}]}`,
			`$.axes[1].axes[1].size: size of space overflows (limit ` + maxSize + `) at axis "b"`},
		{"every problem, in order", `{"axes":[{"name":"a"},{"name":"b","size":"x"},{"size":0}]}`,
			"$.axes[0]: missing \"size\" (for a leaf) or \"axes\" (for a group)\n$.axes[1].size: want a positive integer, got \"x\"\n$.axes[2]: missing \"name\"\n$.axes[2].size: want a positive integer, got 0"},
		{"repeated key", `{"axes":[],"name":"t","axes":[{"name":"m","size":2}]}`, `$.axes: key "axes" is repeated (first at byte 1)`},
		{"not an object", `[]`, `$: want a space object or its text form as a string, got []`},
		{"long value cut", `{"axes":"` + strings.Repeat("x", 60) + `"}`, `$.axes: want an array of axes, got "` + strings.Repeat("x", 39) + `...`},
		{"nested too deep", `{"axes":[` + jsonNest(70) + `]}`, "$." + strings.Repeat("axes[0].", 65) + `axes: groups nested deeper than 64`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Space
			err := json.Unmarshal([]byte(tc.in), &s)
			var je JSONErrors
			if !errors.As(err, &je) {
				t.Fatalf("Unmarshal(%s) = %v, want JSONErrors", tc.in, err)
			}
			if got, want := err.Error(), tc.want; got != want {
				t.Errorf("Unmarshal(%s) error\n%s\nwant\n%s", tc.in, got, want)
			}
		})
	}
}

// jsonNest returns n groups {"name":"g0","axes":[{"name":"g1",...}]} nested
// in one another around the leaf x:2.
func jsonNest(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"name":"g%d","axes":[`, i)
	}
	b.WriteString(`{"name":"x","size":2}`)
	b.WriteString(strings.Repeat("]}", n))
	return b.String()
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"tile(m:16, n:(n0:2, n1:4))", "()", "(a:1)", "x(a:(b:(c:2)))", "(m:0)", "(("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(text)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(text) {
				t.Fatalf("Parse(%q): error %v is not a *SyntaxError with an offset in [0, %d]", text, err, len(text))
			}
			return
		}
		back, err := Parse(s.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %v; its String %q does not parse: %v", text, s, s.String(), err)
		}
		if !back.Equal(s) || back.String() != s.String() {
			t.Fatalf("round trip of %q: %v != %v", text, back, s)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`{"name":"tile","axes":[{"name":"m","size":16},{"name":"n","axes":[{"name":"n0","size":2}]}]}`,
		`"tile(m:16)"`, `{"axes":[]}`, `{"axes":[{"name":"g","axes":[]}]}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Space
		if err := json.Unmarshal(data, &s); err != nil {
			if msg := err.Error(); strings.Contains(msg, "Go ") || strings.Contains(msg, "jsonAxis") || strings.Contains(msg, "jsonSpace") {
				t.Fatalf("Unmarshal(%s): error %q names a Go type", data, msg)
			}
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal(%v): %v", s, err)
		}
		var back Space
		if err := json.Unmarshal(out, &back); err != nil || !back.Equal(s) {
			t.Fatalf("JSON round trip of %s: %v, %v", data, back, err)
		}
	})
}

// TestJSONEveryProblemCodes decodes a space with several mistakes and checks
// every problem's path and code (the messages are checked above).
func TestJSONEveryProblemCodes(t *testing.T) {
	in := `{"name": "1t", "axes": [{"name": "a"}, {"name": "b", "size": "x"}, {"size": 0}, {"name": "a", "size": 2},
	        {"name": "g", "axes": []}, 7], "colour": 1, "axes": []}`
	var s Space
	err := json.Unmarshal([]byte(in), &s)
	var ps JSONErrors
	if !errors.As(err, &ps) {
		t.Fatalf("Unmarshal: %v, want JSONErrors", err)
	}
	got := ps.Where()
	want := []string{
		"$.axes duplicate_key",
		"$.axes[0] missing",
		"$.axes[1].size type",
		"$.axes[2] missing",
		"$.axes[2].size range",
		"$.axes[3].name duplicate_name",
		"$.axes[4].axes invalid",
		"$.axes[5] type",
		"$.colour unknown_field",
		"$.name invalid",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(got), len(want), err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("problem %d: got %v, want %v\n%v", i, got[i], want[i], err)
		}
	}
}

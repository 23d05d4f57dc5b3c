package storage

import (
	"errors"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/internal/jsonv"
)

// TestTextRoundTrip parses text forms, checks the canonical String, and
// that String parses back to an equal layout with the same addresses.
func TestTextRoundTrip(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"canonical", f16RowsSW, f16RowsSW},
		{"alignment defaults to the element", "global f32 elements: logical(k:4) -> physical(a:4) = (k)",
			"global f32 elements align 4: logical(k:4) -> physical(a:4) = (k)"},
		{"alignment defaults to the swizzle period", "shared f16 bytes Swizzle<3,4,3>: logical(m:8, k:64) -> physical(a:1024) = (m * 128 + k * 2)",
			"shared f16 bytes align 1024 Swizzle<3,4,3>: logical(m:8, k:64) -> physical(a:1024) = (m * 128 + k * 2)"},
		{"spaces inside the swizzle", "shared  f16 bytes   align 2048 Swizzle<3, 4, 3> :logical(m:8, k:64)->physical(a:1024)=(m*128+k*2)",
			"shared f16 bytes align 2048 Swizzle<3,4,3>: logical(m:8, k:64) -> physical(a:1024) = (m * 128 + k * 2)"},
		{"sub-byte alignment default", "register u4 elements: logical(v:8) -> physical(r:8) = (v)",
			"register u4 elements align 1: logical(v:8) -> physical(r:8) = (v)"},
		{"broadcast and groups", "shared f32 elements align 16: logical tile(w:4, n:(n0:2, n1:4)) -> physical smem(a:8) = (n) broadcast(w)",
			"shared f32 elements align 16: logical tile(w:4, n:(n0:2, n1:4)) -> physical smem(a:8) = (n) broadcast(w)"},
		{"non-affine map", "shared f32 elements align 16: logical(m:4, k:4) -> physical(a:16) = (m * 4 + k ^ m)",
			"shared f32 elements align 16: logical(m:4, k:4) -> physical(a:16) = (m * 4 + k ^ m)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.String(); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			back, err := Parse(l.String())
			if err != nil {
				t.Fatalf("Parse(String()): %v", err)
			}
			if !back.Equal(l) {
				t.Fatalf("Parse(String()) = %v, not equal to %v", back, l)
			}
			checkSamePositions(t, l, back)
		})
	}
}

// checkSamePositions checks that two layouts place every tile point alike.
func checkSamePositions(t *testing.T, a, b Layout) {
	t.Helper()
	if !a.Tile().Equal(b.Tile()) {
		t.Fatalf("tiles differ: %v vs %v", a.Tile(), b.Tile())
	}
	for flat := range a.Tile().Size() {
		c, _ := a.Tile().Coord(flat)
		pa, erra := a.BitOffset(c)
		pb, errb := b.BitOffset(c)
		if pa != pb || erra != nil || errb != nil {
			t.Fatalf("point %v: bit %d (%v) vs %d (%v)", c, pa, erra, pb, errb)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, err string
		syntax        bool
	}{
		{"no colon", "shared f32 elements", "storage: offset 19: expected ':' between the properties and the address map", true},
		{"missing unit", "shared f32: logical(k:4) -> physical(a:4) = (k)", "storage: offset 10: expected an address unit before ':'", true},
		{"empty head", ": logical(k:4) -> physical(a:4) = (k)", "storage: offset 0: expected a memory space before ':'", true},
		{"bad memory", "local f32 elements: logical(k:4) -> physical(a:4) = (k)", `storage: offset 0: unknown memory space "local"`, true},
		{"bad element", "shared f31 elements: logical(k:4) -> physical(a:4) = (k)", `storage: offset 7: unknown element type "f31"`, true},
		{"bad unit", "shared f32 words: logical(k:4) -> physical(a:4) = (k)", `storage: offset 11: unknown address unit "words"`, true},
		{"align without value", "shared f32 elements align: logical(k:4) -> physical(a:4) = (k)", "storage: offset 25: expected the base alignment in bytes after align", true},
		{"align not a number", "shared f32 elements align x: logical(k:4) -> physical(a:4) = (k)", `storage: offset 26: base alignment "x": want a positive number of bytes`, true},
		{"align zero", "shared f32 elements align 0: logical(k:4) -> physical(a:4) = (k)", `storage: offset 26: base alignment "0"`, true},
		{"stray word", "shared f32 elements packed: logical(k:4) -> physical(a:4) = (k)", `storage: offset 20: unexpected "packed": want align N or Swizzle<B,M,S> before ':'`, true},
		{"bad swizzle", "shared f16 bytes Swizzle<3,4>: logical(k:4) -> physical(a:8) = (k * 2)", "storage: offset 17: swizzle \"Swizzle<3,4>\": want three parameters", true},
		{"map syntax", "shared f32 elements: logical(k:4) -> physical(a:4) = (k +)", "storage: offset 57: address map: expected an axis, a number, '-' or '(', found \")\"", true},
		{"map check", "shared f32 elements: logical(k:4) -> physical(a:4) = (q)", "storage: address map:", false},
		{"layout check", "shared f32 elements: logical(k:4) -> physical(a:4) = (k % 2)", "(k=0) and (k=2)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Parse(%q) = %v, want error containing %q", tt.in, err, tt.err)
			}
			var se *SyntaxError
			if errors.As(err, &se) != tt.syntax {
				t.Errorf("error %v: *SyntaxError = %v, want %v", err, !tt.syntax, tt.syntax)
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, text := range []string{f32RowMajor, f16RowsSW, f16RowsSWel,
		"register u4 elements align 1: logical(v:8) -> physical(r:8) = (v)",
		"shared f32 elements align 16: logical tile(w:4, n:(n0:2, n1:4)) -> physical smem(a:8) = (n) broadcast(w)"} {
		l := MustParse(text)
		data, err := json.Marshal(l)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		var back Layout
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: Unmarshal(%s): %v", text, data, err)
		}
		if !back.Equal(l) {
			t.Fatalf("JSON round trip of %s gave %s", l, back)
		}
		// The text form as a JSON string decodes too.
		str, _ := json.Marshal(l.String())
		var fromText Layout
		if err := json.Unmarshal(str, &fromText); err != nil || !fromText.Equal(l) {
			t.Fatalf("Unmarshal(%s) = %v, %v", str, fromText, err)
		}
	}
	// encoding/json escapes < and > in a Marshaler's output (as \u003c, \u003e).
	got, _ := json.Marshal(MustParse(f16RowsSW))
	want := `{"memory":"shared","element":"f16","unit":"bytes","align":1024,"swizzle":"Swizzle\u003c3,4,3\u003e","map":{"domain":{"kind":"logical","space":{"axes":[{"name":"m","size":16},{"name":"k","size":64}]}},"codomain":{"kind":"physical","space":{"axes":[{"name":"addr","size":2048}]}},"results":["m * 128 + k * 2"]}}`
	if string(got) != want {
		t.Errorf("Marshal:\ngot  %s\nwant %s", got, want)
	}
	if _, err := json.Marshal(Layout{}); err == nil {
		t.Error("Marshal of the zero Layout: no error")
	}
}

func TestJSONErrors(t *testing.T) {
	const m = `"logical(k:4) -> physical(a:4) = (k)"`
	tests := []struct{ name, in, err string }{
		{"not an object", `[1]`, "$: want a storage layout object or its text form as a string, have an array"},
		{"unknown field", `{"memory":"shared","element":"f32","map":` + m + `,"stride":1}`, `$.stride: unknown field "stride"`},
		{"missing memory", `{"element":"f32","map":` + m + `}`, `$: missing "memory": want a string`},
		{"bad memory", `{"memory":"smem","element":"f32","map":` + m + `}`, `$.memory: storage: unknown memory space "smem"`},
		{"missing element", `{"memory":"shared","map":` + m + `}`, `$: missing "element": want a string`},
		{"bad element", `{"memory":"shared","element":"f7","map":` + m + `}`, `$.element: storage: unknown element type "f7"`},
		{"bad unit", `{"memory":"shared","element":"f32","unit":"bits","map":` + m + `}`, `$.unit: storage: unknown address unit "bits"`},
		{"negative align", `{"memory":"shared","element":"f32","align":-1,"map":` + m + `}`, "$.align: want a positive number of bytes, have -1"},
		{"bad swizzle", `{"memory":"shared","element":"f32","swizzle":"Sw","map":` + m + `}`, `$.swizzle: storage: swizzle "Sw"`},
		{"missing map", `{"memory":"shared","element":"f32"}`, `$: missing "map": want an index map`},
		{"null map", `{"memory":"shared","element":"f32","map":null}`, "$.map: want a map object or its text form as a string, have null"},
		{"bad map", `{"memory":"shared","element":"f32","map":"logical(k:4) -> "}`, "$.map: indexmap: offset 16:"},
		{"aliasing map", `{"memory":"shared","element":"f32","map":"logical(k:4) -> physical(a:4) = (k / 2)"}`, "$.map: indexmap: logical -> physical map: a map into physical must be alias-free except along declared broadcast axes: points (k=0) and (k=1)"},
		{"bad text", `"shared f32"`, "storage: offset 10: expected ':'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l Layout
			err := json.Unmarshal([]byte(tt.in), &l)
			if !errorMatches(err, tt.err) {
				t.Fatalf("Unmarshal(%s) = %v, want error containing %q", tt.in, err, tt.err)
			}
		})
	}
}

// TestJSONEveryProblem decodes a layout form with several mistakes and
// checks every problem, its path and its code; the index map's own problems
// appear under $.map, and errors.As finds an indexmap error inside.
func TestJSONEveryProblem(t *testing.T) {
	in := `{"memory": "smem", "unit": "bits", "align": 0, "swizzle": 3, "element": "f16",
	        "map": {"domain": {"kind": "logical", "space": "(k:4)"}, "codomain": {"kind": "physical", "space": "(a:4)"}, "results": ["k +"]},
	        "memory": "shared", "stride": 1}`
	var l Layout
	err := json.Unmarshal([]byte(in), &l)
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Unmarshal: %v, want jsonv.Problems", err)
	}
	got := ps.Where()
	want := []string{
		"$.align range",
		"$.map.results[0] invalid",
		"$.memory duplicate_key",
		"$.memory invalid",
		"$.stride unknown_field",
		"$.swizzle type",
		"$.unit invalid",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nerror:\n%v", diff, err)
	}
	var se *indexmap.SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("errors.As found no *indexmap.SyntaxError in %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{f32RowMajor, f32Padded, f16Rows, f16RowsSW, f16RowsSWel,
		"register u4 elements: logical(v:8) -> physical(r:8) = (v)",
		"shared f32 elements align 16: logical tile(w:4, n:(n0:2, n1:4)) -> physical smem(a:8) = (n) broadcast(w)",
		"shared f32 elements: logical(k:4) -> physical(a:4) = (k % 2)",
		"shared f16 bytes Swizzle<3, 4, 3>:", ":", "shared"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(l.String())
		if err != nil {
			t.Fatalf("Parse(%q) prints %q, which does not parse: %v", s, l.String(), err)
		}
		if !back.Equal(l) || back.String() != l.String() {
			t.Fatalf("Parse(%q) = %q, which parses back as %q", s, l.String(), back.String())
		}
		data, err := json.Marshal(l)
		if err != nil {
			t.Fatalf("Marshal(%v): %v", l, err)
		}
		var j Layout
		if err := json.Unmarshal(data, &j); err != nil || !j.Equal(l) {
			t.Fatalf("JSON round trip of %v: %v, %v", l, j, err)
		}
		// The queries must not panic on any valid layout.
		_, _ = l.Vector("")
		_, _ = l.Address()
		if l.Memory() == Shared && l.Tile().NumLeaves() > 0 {
			_, _ = l.Wavefronts(Access{Lanes: [][]int{make([]int, l.Tile().NumLeaves())}})
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`{"memory":"shared","element":"f16","unit":"bytes","align":1024,"swizzle":"Swizzle<3,4,3>","map":"logical(m:8, k:64) -> physical(a:1024) = (m * 128 + k * 2)"}`,
		`{"memory":"shared","element":"f32","map":{"domain":{"kind":"logical","space":"(k:4)"},"codomain":{"kind":"physical","space":"(a:4)"},"results":["k"]}}`,
		`"shared f32 elements: logical(k:4) -> physical(a:4) = (k)"`, `{}`, `null`, `{"map":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var l Layout
		if err := json.Unmarshal(data, &l); err != nil {
			return
		}
		back, err := Parse(l.String())
		if err != nil || !back.Equal(l) {
			t.Fatalf("decoded %q from %q; text round trip: %v, %v", l.String(), data, back, err)
		}
	})
}

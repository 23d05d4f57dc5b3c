package indexmap

import (
	"errors"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/internal/jsonv"
)

// mmaA is the A-operand fragment of mma.m16n8k16 (row-major 16×16 tile over
// 32 lanes × 8 values), written as a thread-value → logical map.
const mmaA = "thread-value(lane:32, v:8) -> logical(m:16, k:16) = (lane / 4 + 8 * (v / 2 % 2), lane % 4 * 2 + v % 2 + 8 * (v / 4))"

func TestParseMapString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"mma fragment", mmaA, mmaA},
		{"named spaces", "logical tile(m:4, n:8) -> physical smem(addr:64) = (m*16+n)", "logical tile(m:4, n:8) -> physical smem(addr:64) = (m * 16 + n)"},
		{"untyped", "(i:12) -> (j:12) = (i)", "(i:12) -> (j:12) = (i)"},
		{"guard", "logical(m:12) -> physical(a:16) = (m) if m < 10 && m != 3", "logical(m:12) -> physical(a:16) = (m) if m < 10 && m != 3"},
		{"group axis reference", "logical(m:(m0:2, m1:4)) -> physical(a:8) = (m)", "logical(m:(m0:2, m1:4)) -> physical(a:8) = (m)"},
		{"broadcast in domain order", "thread-value(w:4, lane:32) -> physical(a:32) = (lane) broadcast(w)", "thread-value(w:4, lane:32) -> physical(a:32) = (lane) broadcast(w)"},
		{"empty codomain", "(i:3) -> () = ()", "(i:3) -> () = ()"},
		{"xor swizzle", "physical(x:64) -> physical(y:64) = (x ^ x / 8 % 8)", "physical(x:64) -> physical(y:64) = (x ^ x / 8 % 8)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := m.String(); got != tc.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tc.want)
			}
			back, err := Parse(m.String())
			if err != nil || !back.Equal(m) {
				t.Errorf("round trip: %v, %v", back, err)
			}
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var fromJSON Map
			if err := json.Unmarshal(data, &fromJSON); err != nil || !fromJSON.Equal(m) {
				t.Errorf("JSON round trip of %s: %v, %v", data, fromJSON, err)
			}
		})
	}
}

func TestParseMapErrors(t *testing.T) {
	tests := []struct{ name, in, wantSub string }{
		{"too few results", "(i:4, j:4) -> (a:4, b:4) = (i)", "1 result expressions for 2 codomain leaf axes"},
		{"unknown axis", "(i:4) -> (a:4) = (j)", `unknown axis "j"`},
		{"unknown guard axis", "(i:4) -> (a:4) = (i) if q < 2", `guard term 0`},
		{"unknown broadcast", "(i:4) -> (a:4) = (i) broadcast(q)", `broadcast axis "q"`},
		{"repeated broadcast", "(i:4) -> (a:4) = (i) broadcast(i, i)", `declared twice`},
		{"missing arrow", "(i:4) (a:4) = (i)", `expected "->"`},
		{"bad kind", "registers tile(i:4) -> (a:4) = (i)", `expected '('`},
		{"bad space", "logical(i:0) -> (a:4) = (i)", "sizes must be positive"},
		{"overflow", "(i:4) -> (a:4) = (i * 4611686018427387904)", "may exceed"},
		{"garbage after", "(i:4) -> (a:4) = (i) junk", "unexpected"},
		{"bad guard", "(i:4) -> (a:4) = (i) if i", "expected a comparison"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want error with %q", tc.in, tc.wantSub)
			}
			if !strings.Contains(err.Error(), tc.wantSub) {
				t.Errorf("Parse(%q) = %q, want %q", tc.in, err, tc.wantSub)
			}
		})
	}
	// A Go-built untyped side may not carry a kind's name: its text would
	// read back as typed.
	named := indexspace.MustParse("logical(i:4)")
	if _, err := New(Spec{Domain: Side{Space: named}, Codomain: Side{Space: named}, Results: []Expr{V("i")}}); err == nil {
		t.Errorf("New with an untyped space named logical succeeded")
	}
}

// TestEvalMMA checks Eval on the mma fragment: every logical element is hit
// exactly once (the fragment is a dense bijection), computed by enumeration.
func TestEvalMMA(t *testing.T) {
	m := MustParse(mmaA)
	seen := map[[2]int]bool{}
	for lane := 0; lane < 32; lane++ {
		for v := 0; v < 8; v++ {
			out, ok, err := m.Eval([]int{lane, v})
			if err != nil || !ok {
				t.Fatalf("Eval(%d, %d): %v, %v", lane, v, ok, err)
			}
			want := [2]int{lane/4 + 8*(v/2%2), lane%4*2 + v%2 + 8*(v/4)}
			if [2]int{out[0], out[1]} != want {
				t.Fatalf("Eval(%d, %d) = %v, want %v", lane, v, out, want)
			}
			seen[want] = true
		}
	}
	if len(seen) != 256 {
		t.Errorf("image has %d points, want 256", len(seen))
	}
	if _, _, err := m.Eval([]int{32, 0}); err == nil {
		t.Errorf("Eval out of range succeeded")
	}
	if _, _, err := m.Eval([]int{1}); err == nil {
		t.Errorf("Eval with too few coordinates succeeded")
	}
}

func TestEvalGuardAndGroups(t *testing.T) {
	m := MustParse("logical(m:(m0:3, m1:4)) -> physical(a:24) = (2 * m) if m < 10")
	for i := 0; i < 12; i++ {
		out, ok, err := m.Eval([]int{i / 4, i % 4})
		if err != nil || out[0] != 2*i || ok != (i < 10) {
			t.Errorf("Eval at m=%d = %v, %v, %v", i, out, ok, err)
		}
	}
}

func TestJSONForm(t *testing.T) {
	m := MustParse("logical(m:12) -> physical(a:16) = (m) if m < 10")
	data, _ := json.Marshal(m)
	want := `{"domain":{"kind":"logical","space":{"axes":[{"name":"m","size":12}]}},"codomain":{"kind":"physical","space":{"axes":[{"name":"a","size":16}]}},"results":["m"],"guard":"m \u003c 10"}`
	if string(data) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", data, want)
	}
	var fromText Map
	if err := json.Unmarshal([]byte(`"logical(m:12) -> physical(a:16) = (m) if m < 10"`), &fromText); err != nil || !fromText.Equal(m) {
		t.Errorf("Unmarshal of the text form: %v, %v", fromText, err)
	}
	for name, bad := range map[string]string{
		"bad kind":       `{"domain":{"kind":"reg","space":"(m:2)"},"codomain":{"kind":"physical","space":"(a:2)"},"results":["m"]}`,
		"bad expression": `{"domain":{"kind":"logical","space":"(m:2)"},"codomain":{"kind":"physical","space":"(a:2)"},"results":["m +"]}`,
		"bad guard":      `{"domain":{"kind":"logical","space":"(m:2)"},"codomain":{"kind":"physical","space":"(a:2)"},"results":["m"],"guard":"m"}`,
		"unknown field":  `{"domain":{"kind":"logical","space":"(m:2)"},"codomain":{"kind":"physical","space":"(a:2)"},"results":["m"],"x":1}`,
	} {
		var n Map
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("%s: Unmarshal succeeded", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{mmaA, "(i:4) -> (a:4) = (i) if i < 3 broadcast(i)", "logical tile(m:4) -> physical(a:4) = (3 - m)", "(i:4)->(a:4)=(i%0)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := Parse(text)
		if err != nil {
			return
		}
		back, err := Parse(m.String())
		if err != nil {
			t.Fatalf("String %q of Parse(%q) does not parse: %v", m, text, err)
		}
		if !back.Equal(m) || back.String() != m.String() {
			t.Fatalf("round trip of %q: %q != %q", text, back, m)
		}
	})
}

func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`{"domain":{"kind":"logical","space":"(m:12)"},"codomain":{"kind":"physical","space":{"axes":[{"name":"a","size":16}]}},"results":["m"],"guard":"m < 10"}`,
		`"(i:4) -> (a:4) = (3 - i)"`, `{"domain":{},"codomain":{},"results":[]}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Map
		if err := json.Unmarshal(data, &m); err != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal(%v): %v", m, err)
		}
		var back Map
		if err := json.Unmarshal(out, &back); err != nil || !back.Equal(m) {
			t.Fatalf("JSON round trip of %s: %v, %v", data, back, err)
		}
	})
}

func FuzzParseGuard(f *testing.F) {
	for _, s := range []string{"true", "m < 10 && k != 3", "a ^ b >= -1", "x <", "x == y == z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		g, err := ParseGuard(text)
		if err != nil {
			return
		}
		back, err := ParseGuard(g.String())
		if err != nil || !back.Equal(g) {
			t.Fatalf("guard round trip of %q: %q, %v", text, back, err)
		}
	})
}

// TestJSONEveryProblem decodes a map form with several mistakes and checks
// every problem, its path and its code; a syntax error in an expression keeps
// its type under the JSON path.
func TestJSONEveryProblem(t *testing.T) {
	in := `{
  "domain": {"kind": "reg", "space": {"axes": [{"name": "m", "size": "2"}]}},
  "codomain": {"space": "(a:2)", "colour": 1},
  "results": ["m +", 3],
  "guard": "m",
  "results": []
}`
	var m Map
	err := json.Unmarshal([]byte(in), &m)
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Unmarshal: %v, want jsonv.Problems", err)
	}
	got := ps.Where()
	want := []string{
		"$.codomain.colour unknown_field",
		"$.domain.kind invalid",
		"$.domain.space.axes[0].size type",
		"$.guard invalid",
		"$.results duplicate_key",
		"$.results[0] invalid",
		"$.results[1] type",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nerror:\n%v", diff, err)
	}
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("errors.As found no *SyntaxError in %v", err)
	}
	// An empty object is not a map.
	if err := json.Unmarshal([]byte(`{}`), &m); err == nil || !strings.Contains(err.Error(), `$: missing "domain"`) {
		t.Errorf("Unmarshal({}) = %v, want missing fields", err)
	}
}

package indexspace

import (
	"encoding/json"
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

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, wantSub string }{
		{"empty text", "", "expected '('"},
		{"missing size", "(m:)", "expected a size"},
		{"zero size", "(m:0)", "sizes must be positive"},
		{"duplicate leaf", "(m:2, m:3)", `offset 6: axis name "m" is used twice (first at offset 1)`},
		{"group name reused by factor", "(n:(n:2))", `offset 4: axis name "n" is used twice (first at offset 1)`},
		{"leaf name reused in a group", "(m:2, n:(m:2))", `offset 9: axis name "m" is used twice (first at offset 1)`},
		{"empty group", "(n:())", "no factors"},
		{"trailing text", "(m:2) x", "after the space"},
		{"overflow", "(a:4294967296, b:4294967296)", "overflows"},
		{"huge literal", "(a:99999999999999999999999)", "exceeds the limit"},
		{"missing colon", "(m 4)", "expected ':'"},
		{"missing comma", "(m:4 n:2)", "expected ','"},
		{"bad name", "(1m:4)", "expected an axis name"},
		{"unclosed", "(m:4", "expected ','"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want error containing %q", tc.in, tc.wantSub)
			}
			if !strings.Contains(err.Error(), tc.wantSub) {
				t.Errorf("Parse(%q) error %q, want it to contain %q", tc.in, err, tc.wantSub)
			}
		})
	}
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
	for name, bad := range map[string]string{
		"size and axes": `{"axes":[{"name":"m","size":2,"axes":[{"name":"x","size":2}]}]}`,
		"zero size":     `{"axes":[{"name":"m"}]}`,
		"unknown field": `{"axes":[],"bogus":1}`,
		"empty group":   `{"axes":[{"name":"g","axes":[]}]}`,
	} {
		var sp Space
		if err := json.Unmarshal([]byte(bad), &sp); err == nil {
			t.Errorf("%s: Unmarshal(%s) succeeded", name, bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"tile(m:16, n:(n0:2, n1:4))", "()", "(a:1)", "x(a:(b:(c:2)))", "(m:0)", "(("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse(text)
		if err != nil {
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

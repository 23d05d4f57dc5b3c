package distribution

import (
	"bytes"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

func TestJSONRoundTrip(t *testing.T) {
	var all []*Distribution
	for _, name := range BuiltinNames() {
		d, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, d)
	}
	a, b, c := cta64(t, true)
	all = append(all, a, b, c)
	bl, err := NewBlocked(Blocked{Name: "bl", Axes: []string{"m", "n"}, Shape: []int{16, 16}, SizePerThread: []int{1, 8}, ThreadsPerWarp: []int{4, 8}, WarpsPerCTA: []int{4, 1}, Order: []int{1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	rot := a.Spec()
	rot.Name, rot.Storage = "rotated", "(rep_m * 8 + v + 3) % 16"
	all = append(all, bl, MustNew(rot))
	for _, d := range all {
		t.Run(d.Name(), func(t *testing.T) {
			data, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeJSON(data)
			if err != nil {
				t.Fatalf("DecodeJSON(%s): %v", data, err)
			}
			if back.Fingerprint() != d.Fingerprint() || back.Name() != d.Name() {
				t.Errorf("round trip changed %s", data)
			}
			again, _ := json.Marshal(back)
			if !bytes.Equal(again, data) {
				t.Errorf("second encoding differs:\n%s\n%s", data, again)
			}
			if s := d.String(); s != string(data) {
				t.Errorf("String() = %s, MarshalJSON %s", s, data)
			}
			var viaUnmarshal Distribution
			if err := json.Unmarshal(data, &viaUnmarshal); err != nil || !viaUnmarshal.Equal(d) {
				t.Errorf("json.Unmarshal: %v", err)
			}
		})
	}
}

// The four JSON forms of one distribution, fields in any order, decode equal.
func TestJSONForms(t *testing.T) {
	_, _, want := cta64(t, false)
	forms := map[string]string{
		"tiled with a built-in atom": `{"name": "x", "tiled": {"atom": "mma.m16n8k16.c.f32",
			"warps": [{"name": "warp_m", "size": 2, "along": "m"}, {"name": "warp_n", "size": 2, "along": "n"}],
			"repeat": {"n": 4, "m": 2}}}`,
		"tiled with a nested explicit atom": `{"tiled": {"repeat": {"m": 2, "n": 4}, "atom": {"tile": [{"name": "m", "size": 16}, {"name": "n", "size": 8}],
			"ownership": {"n": "2 * (lane % 4) + v % 2", "m": "lane / 4 + 8 * (v / 2)"},
			"locals": [{"size": 4, "name": "v"}], "executors": [{"level": "lane", "name": "lane", "size": 32}]},
			"warps": [{"name": "warp_m", "size": 2, "along": "m"}, {"name": "warp_n", "size": 2, "along": "n"}]}}`,
		"explicit": `{"name": "x", "executors": [{"name": "warp_m", "size": 2, "level": "warp"}, {"name": "warp_n", "size": 2, "level": "warp"}, {"name": "lane", "size": 32, "level": "lane"}],
			"locals": [{"name": "rm", "size": 2}, {"name": "rn", "size": 4}, {"name": "v", "size": 4}],
			"tile": [{"name": "m", "size": 64}, {"name": "n", "size": 64}],
			"ownership": {"m": "32 * rm + 16 * warp_m + lane / 4 + 8 * (v / 2)", "n": "16 * rn + 8 * warp_n + lane % 4 * 2 + v % 2"}}`,
	}
	for name, text := range forms {
		t.Run(name, func(t *testing.T) {
			d, err := DecodeJSON([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			if !d.Equal(want) {
				t.Errorf("decoded %s differs from the tiled CTA C", d.Name())
			}
		})
	}
	d, err := DecodeJSON([]byte(`{"builtin": "wgmma.m64n64k16.c.f32", "name": "acc"}`))
	if err != nil || d.Name() != "acc" || d.NumValues() != 32 {
		t.Errorf("builtin form: %v", err)
	}
}

func TestJSONErrors(t *testing.T) {
	tests := []struct {
		name, text, substr string
	}{
		{"two forms", `{"builtin": "ldmatrix.x4", "tile": [{"name": "m", "size": 1}]}`, `$: want exactly one of "builtin", "tiled", "blocked" or the explicit fields`},
		{"no form", `{"name": "x"}`, "have 0"},
		{"unknown builtin", `{"builtin": "mma.m8n8k4"}`, `$.builtin: distribution: no built-in atom "mma.m8n8k4"`},
		{"unknown field", `{"builtin": "ldmatrix.x4", "colour": 1}`, "$: "},
		{"bad level", `{"executors": [{"name": "t", "size": 32, "level": "thread"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t"}}`, `$.executors[0].level: unknown executor level "thread"`},
		{"missing expression", `{"executors": [{"name": "t", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {}}`, `$.ownership: no expression for tile axis "m" (tile[0])`},
		{"extra expression", `{"executors": [{"name": "t", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t", "q": "0"}}`, `$.ownership.q: not a tile axis`},
		{"invalid distribution", `{"executors": [{"name": "t", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t / 2"}}`, `owned twice: element (m=0) is owned by t=0 and by t=1`},
		{"nested error path", `{"tiled": {"atom": {"builtin": "nope"}}}`, `$.tiled.atom.builtin: distribution: no built-in atom "nope"`},
		{"tiling error", `{"tiled": {"atom": "mma.m16n8k16.c.f32", "repeat": {"q": 2}}}`, `$.tiled: distribution: tiling`},
		{"missing atom", `{"tiled": {}}`, `$.tiled.atom: missing`},
		{"blocked error", `{"blocked": {"shape": [4]}}`, `$.blocked: distribution: blocked "blocked": sizePerThread has 0 entries`},
		{"trailing data", `{"builtin": "ldmatrix.x4"} {}`, "trailing data"},
		{"not an object", `[1]`, "$: "},
		{"deep nesting", strings.Repeat(`{"tiled": {"atom": `, 10) + `"ldmatrix.x4"` + strings.Repeat("}}", 10), "nested more than 8 deep"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeJSON([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("DecodeJSON: %v, want an error containing %q", err, tc.substr)
			}
		})
	}
}

// The tabulated form parses as JSON and lists one entry per (executor, value).
func TestEntriesJSON(t *testing.T) {
	_, _, c := cta64(t, false)
	var doc struct {
		Name    string   `json:"name"`
		Tile    []string `json:"tile"`
		Entries []struct {
			Warp  *int  `json:"warp"`
			Lane  int   `json:"lane"`
			Value int   `json:"value"`
			Slot  *int  `json:"slot"`
			Tile  []int `json:"tile"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(c.EntriesJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Name != c.Name() || len(doc.Tile) != 2 || len(doc.Entries) != 4*32*32 {
		t.Fatalf("name %q tile %v, %d entries", doc.Name, doc.Tile, len(doc.Entries))
	}
	for i, e := range doc.Entries {
		w, lane, v := i/(32*32), i/32%32, i%32
		if e.Warp == nil || *e.Warp != w || e.Lane != lane || e.Value != v || e.Slot != nil {
			t.Fatalf("entry %d: %+v", i, e)
		}
		want, _ := c.At([]int{w / 2, w % 2, lane}, v)
		if e.Tile[0] != want[0] || e.Tile[1] != want[1] {
			t.Fatalf("entry %d tile %v, want %v", i, e.Tile, want)
		}
	}
}

// FuzzDecodeJSON: no input panics, and whatever decodes re-encodes to a
// distribution with the same fingerprint.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"builtin": "mma.m16n8k16.a.f16"}`,
		`"ldmatrix.x4.trans"`,
		`{"tiled": {"atom": "mma.m16n8k16.c.f32", "warps": [{"name": "w", "size": 2, "along": "m"}], "repeat": {"n": 2}}}`,
		`{"blocked": {"shape": [16, 16], "size_per_thread": [1, 8], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]}}`,
		`{"executors": [{"name": "t", "size": 4, "level": "lane"}], "locals": [{"name": "v", "size": 2}], "tile": [{"name": "m", "size": 8}], "ownership": {"m": "t * 2 + v"}, "storage": "1 - v"}`,
		`{"executors": [{"name": "t", "size": 4, "level": "lane", "replicated": true}], "tile": [{"name": "m", "size": 1}], "ownership": {"m": "t ^ t"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeJSON(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeJSON(out)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", out, err)
		}
		if !back.Equal(d) {
			t.Fatalf("round trip of %s changed the fingerprint", data)
		}
		_ = d.Diagram()
		_ = d.EntriesJSON()
	})
}

// FuzzNew: ownership and storage text never panics New, and what New accepts
// satisfies the invariants it promises.
func FuzzNew(f *testing.F) {
	f.Add("lane / 4 + 8 * (v / 2)", "lane % 4 * 2 + v % 2", "")
	f.Add("lane / 4 + 8 * (v / 2)", "lane % 4 * 2", "v")
	f.Add("(lane ^ v) % 16", "lane / 4", "3 - v")
	f.Add("lane / 4 + 8 * (v % 2)", "lane % 4 * 2 + v / 2", "(v + 1) % 4")
	f.Fuzz(func(t *testing.T, m, n, storage string) {
		d, err := New(Spec{Name: "f", Executors: lane32, Locals: []Axis{{"v", 4}}, Tile: []Axis{{"m", 16}, {"n", 8}},
			Ownership: []string{m, n}, Storage: storage})
		if err != nil {
			return
		}
		seen := make([]bool, d.NumElements())
		for lane := range 32 {
			held, err := d.Holds(lane)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range held {
				e := h.Tile[0]*8 + h.Tile[1]
				if seen[e] {
					t.Fatalf("element %v held twice", h.Tile)
				}
				seen[e] = true
			}
		}
	})
}

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
		{"two forms", `{"builtin": "ldmatrix.x4", "tile": [{"name": "m", "size": 1}]}`, `$: want exactly one of "builtin", "tiled", "blocked", "entries" (the tabulated form) or the explicit fields`},
		{"no form", `{"name": "x"}`, "have 0"},
		{"unknown builtin", `{"builtin": "mma.m8n8k4"}`, `$.builtin: no built-in atom "mma.m8n8k4"`},
		{"unknown field", `{"builtin": "ldmatrix.x4", "colour": 1}`, `$.colour: unknown field "colour" (want "name", "element"`},
		{"bad level", `{"executors": [{"name": "t", "size": 32, "level": "thread"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t"}}`, `$.executors[0].level: unknown executor level "thread"`},
		{"missing expression", `{"executors": [{"name": "t", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {}}`, `$.ownership: no expression for tile axis "m" (tile[0])`},
		{"extra expression", `{"executors": [{"name": "t", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t", "q": "0"}}`, `$.ownership.q: not a tile axis`},
		{"invalid distribution", `{"executors": [{"name": "t", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t / 2"}}`, `owned twice: element (m=0) is owned by t=0 and by t=1`},
		{"nested error path", `{"tiled": {"atom": {"builtin": "nope"}}}`, `$.tiled.atom.builtin: no built-in atom "nope"`},
		{"tiling error", `{"tiled": {"atom": "mma.m16n8k16.c.f32", "repeat": {"q": 2}}}`, `$.tiled.repeat.q: "q" is not a tile axis of the atom (m, n)`},
		{"missing atom", `{"tiled": {}}`, `$.tiled: missing "atom"`},
		{"blocked error", `{"blocked": {"shape": [4]}}`, `$.blocked: missing "size_per_thread": want an array of integers, one per dimension`},
		{"unexpected '{' after the document", `{"builtin": "ldmatrix.x4"} {}`, "unexpected '{' after the document"},
		{"not an object", `[1]`, "$: want a distribution object or a built-in atom name, have an array"},
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
		`{"tiled": {"atom": "mma.m16n8k16.a.f16", "warps": [{"name": "w", "size": 2, "along": "replicated"}], "repeat": {"k": 2}}}`,
		`{"blocked": {"axes": ["m", "n"], "shape": [64, 64], "size_per_thread": [1, "8"], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]}}`,
		`{"name": "p", "element": "bf16", "blocks_per_cluster": 2, "tile": ["x"], "entries": [{"block": 0, "lane": 0, "value": 0, "slot": 0, "tile": [0]}, {"block": 1, "lane": 0, "value": 0, "tile": [1]}]}`,
		`{"name": "p", "tile": ["x", "y"], "sizes": [2, 1], "entries": [{"lane": 0, "value": 0, "tile": [0, 0]}, {"lane": 0, "value": 1, "tile": [1, 0]}, {"lane": 1, "value": 0, "tile": [1, 0]}, {"lane": 1, "value": 1, "tile": [0, 0]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeJSON(data)
		if err != nil {
			// Every error says where, as a JSON path.
			if !strings.HasPrefix(err.Error(), "$") {
				t.Fatalf("error without a JSON path: %v", err)
			}
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

// Every error of the JSON form names the JSON path at fault and says what is
// wrong in JSON's terms (no Go type or field names, no derived axis names).
func TestJSONErrorsSayWhere(t *testing.T) {
	const blocked = `"shape": [64, 64], "size_per_thread": [1, 8], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]`
	tests := []struct {
		name, text, want string
	}{
		// Regression: an along that names no tile axis was silently a
		// replicated warp axis.
		{"along a misspelt axis is not replication",
			`{"name": "x", "tiled": {"atom": "mma.m16n8k16.c.f32", "warps": [{"name": "warp_m", "size": 2, "along": "q"}]}}`,
			`$.tiled.warps[0].along: "q" is not a tile axis of the atom (m, n); to replicate the tile over these warps, write "along": "replicated"`},
		{"along an axis of the CTA the atom lacks",
			`{"tiled": {"atom": "mma.m16n8k16.a.f16", "warps": [{"name": "warp_m", "size": 2, "along": "m"}, {"name": "warp_n", "size": 2, "along": "n"}]}}`,
			`$.tiled.warps[1].along: "n" is not a tile axis of the atom (m, k); to replicate the tile over these warps, write "along": "replicated"`},
		{"along missing",
			`{"tiled": {"atom": "mma.m16n8k16.c.f32", "warps": [{"name": "warp_m", "size": 2}]}}`,
			`$.tiled.warps[0]: missing "along": want a string`},
		{"warp named like an atom axis",
			`{"tiled": {"atom": "mma.m16n8k16.c.f32", "warps": [{"name": "lane", "size": 2, "along": "m"}]}}`,
			`$.tiled.warps[0].name: "lane" is already the name of an executor axis of the atom`},
		{"warp count zero",
			`{"tiled": {"atom": "mma.m16n8k16.c.f32", "warps": [{"name": "w", "size": 0, "along": "m"}]}}`,
			`$.tiled.warps[0].size: 0 warps, not in 1..4194304`},
		{"repeat count a string",
			`{"tiled": {"atom": "mma.m16n8k16.c.f32", "repeat": {"m": "2"}}}`,
			`$.tiled.repeat.m: want an integer, have the string "2"`},
		{"unknown warp field",
			`{"tiled": {"atom": "mma.m16n8k16.c.f32", "warps": [{"name": "w", "size": 2, "along": "m", "replicated": true}]}}`,
			`$.tiled.warps[0].replicated: unknown field "replicated" (want "name", "size", "along")`},
		// Regression: a repeated blocked axis was reported by the derived
		// executor axis name, "lane_m" used twice (executor and executor).
		{"blocked axis named twice",
			`{"name": "x", "blocked": {"axes": ["m", "m"], ` + blocked + `}}`,
			`$.blocked.axes[1]: "m" is used twice (axes[0] and axes[1])`},
		{"blocked axis named like a derived axis",
			`{"blocked": {"axes": ["m", "elem_m"], ` + blocked + `}}`,
			`$.blocked.axes[1]: "elem_m" is also the name of an axis derived from axes[0] "m"`},
		// Regression: a type error was reported at $ with Go type names.
		{"integer written as a string",
			`{"name": "x", "blocked": {"axes": ["m", "n"], "shape": [64, 64], "size_per_thread": [1, "8"], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]}}`,
			`$.blocked.size_per_thread[1]: want an integer, have the string "8"`},
		{"fractional integer",
			`{"blocked": {"shape": [64, 64.5], "size_per_thread": [1, 8], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]}}`,
			`$.blocked.shape[1]: want an integer, have the number 64.5`},
		{"integer too large",
			`{"blocked": {"shape": [64, 99999999999999999999], "size_per_thread": [1, 8], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]}}`,
			`$.blocked.shape[1]: 99999999999999999999 is too large for an integer`},
		{"array written as a number",
			`{"blocked": {"shape": 64, "size_per_thread": [1, 8], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]}}`,
			`$.blocked.shape: want an array, have the number 64`},
		{"blocked rank mismatch",
			`{"blocked": {"shape": [64, 64], "size_per_thread": [1, 8], "threads_per_warp": [4, 8], "warps_per_cta": [4], "order": [1, 0]}}`,
			`$.blocked.warps_per_cta: 1 entries, want 2 (one per dimension of shape)`},
		{"blocked not a power of two",
			`{"blocked": {"shape": [48, 64], "size_per_thread": [1, 8], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [1, 0]}}`,
			`$.blocked.shape[0]: 48 is not a positive power of two`},
		{"blocked threads",
			`{"blocked": {"shape": [64, 64], "size_per_thread": [1, 8], "threads_per_warp": [4, 4], "warps_per_cta": [4, 1], "order": [1, 0]}}`,
			`$.blocked.threads_per_warp: [4, 4] has 16 threads in all, want 32 (one warp)`},
		{"blocked order",
			`{"blocked": {"shape": [64, 64], "size_per_thread": [1, 8], "threads_per_warp": [4, 8], "warps_per_cta": [4, 1], "order": [0, 0]}}`,
			`$.blocked.order: [0, 0] is not a permutation of 0..1`},
		{"explicit executor named twice",
			`{"executors": [{"name": "t", "size": 32, "level": "lane"}, {"name": "t", "size": 2, "level": "lane"}], "tile": [{"name": "m", "size": 64}], "ownership": {"m": "t"}}`,
			`$.executors[1].name: "t" is already the name of executors[0]`},
		{"explicit local named like an executor",
			`{"executors": [{"name": "t", "size": 32, "level": "lane"}], "locals": [{"name": "t", "size": 2}], "tile": [{"name": "m", "size": 64}], "ownership": {"m": "t"}}`,
			`$.locals[0].name: "t" is already the name of executors[0]`},
		{"explicit size zero",
			`{"executors": [{"name": "t", "size": 0, "level": "lane"}], "tile": [{"name": "m", "size": 64}], "ownership": {"m": "t"}}`,
			`$.executors[0].size: 0 is not a positive size`},
		{"explicit replicated not a boolean",
			`{"executors": [{"name": "t", "size": 32, "level": "lane", "replicated": "yes"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t"}}`,
			`$.executors[0].replicated: want true or false, have the string "yes"`},
		{"explicit ownership not a string",
			`{"executors": [{"name": "t", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": 3}}`,
			`$.ownership.m: want a string, have the number 3`},
		{"explicit null size",
			`{"executors": [{"name": "t", "size": null, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t"}}`,
			`$.executors[0].size: want an integer, have null`},
		{"odd key quoted in the path",
			`{"executors": [{"name": "t", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "t", "a b": "0"}}`,
			`$.ownership["a b"]: not a tile axis of (m)`},
		{"explicit executors out of level order",
			`{"executors": [{"name": "l", "size": 32, "level": "lane"}, {"name": "w", "size": 2, "level": "warp"}], "tile": [{"name": "m", "size": 64}], "ownership": {"m": "l + 32 * w"}}`,
			`$.executors[1].level: a warp axis after the lane axis "l"; order the executors block, warp, lane`},
		{"explicit no tile axes",
			`{"executors": [{"name": "l", "size": 32, "level": "lane"}], "tile": [], "ownership": {}}`,
			`$.tile: no tile axes: want at least one`},
		{"explicit ownership names an unknown axis",
			`{"executors": [{"name": "l", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "q"}}`,
			`$.ownership.m: "q": "q" is not an executor or local axis`},
		{"explicit ownership depends on a replicated axis",
			`{"executors": [{"name": "l", "size": 32, "level": "lane", "replicated": true}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "l"}}`,
			`$.ownership.m: "l": "l" is a replicated executor axis (executors[0]): copies cannot own different elements`},
		{"explicit ownership malformed",
			`{"executors": [{"name": "l", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "l *"}}`,
			`$.ownership.m: "l *": indexmap: offset `},
		{"explicit storage names an executor",
			`{"executors": [{"name": "l", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "l"}, "storage": "l"}`,
			`$.storage: "l": "l" is an executor axis (executors[0]): a register slot depends on the local axes only`},
		{"explicit storage names an unknown axis",
			`{"executors": [{"name": "l", "size": 32, "level": "lane"}], "tile": [{"name": "m", "size": 32}], "ownership": {"m": "l"}, "storage": "zz"}`,
			`$.storage: "zz": "zz" is not a local axis`},
		{"builtin misspelt suggests its kin",
			`{"builtin": "ldmatrix.x9"}`,
			`$.builtin: no built-in atom "ldmatrix.x9" (did you mean ldmatrix.x4, ldmatrix.x4.trans?)`},
		{"tiled not an object", `{"tiled": "x"}`, `$.tiled: want an object, have the string "x"`},
		{"null", `null`, `$: want a distribution object or a built-in atom name, have null`},
		// Regression: empty input read as "$: EOF".
		{"empty input", ``, `$: syntax error at line 1, column 1 (byte 0): unexpected end of input (want a value)`},
		{"blank input", " \n\t", `$: syntax error at line 2, column 2 (byte 3): unexpected end of input (want a value)`},
		{"malformed", `{"builtin": }`, `$: syntax error at line 1, column 13 (byte 12): `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeJSON([]byte(tc.text))
			if err == nil {
				t.Fatalf("DecodeJSON succeeded, want %q", tc.want)
			}
			got := err.Error()
			if strings.HasSuffix(tc.want, " ") {
				if !strings.HasPrefix(got, tc.want) {
					t.Errorf("DecodeJSON:\n got %s\nwant %s…", got, tc.want)
				}
				return
			}
			if got != tc.want {
				t.Errorf("DecodeJSON:\n got %s\nwant %s", got, tc.want)
			}
			for _, goWord := range []string{"cannot unmarshal", "distJSON", "SizePerThread", "Warps[", "lane_m"} {
				if strings.Contains(got, goWord) {
					t.Errorf("error speaks Go, not the JSON form: %s", got)
				}
			}
		})
	}
}

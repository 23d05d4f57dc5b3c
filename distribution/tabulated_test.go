package distribution

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// What EntriesJSON writes reads back as the same distribution: every
// built-in atom, every example, tiles with copies, another element type,
// clusters, and a register order of its own.
func TestTabulatedRoundTrip(t *testing.T) {
	var ds []*Distribution
	for _, name := range BuiltinNames() {
		d, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	files, _ := filepath.Glob("../examples/distributions/*.json")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ds = append(ds, d)
	}
	a, b, c := cta64(t, false)
	ds = append(ds, a, b, c)
	f8, err := c.WithElement(storage.F8E4M3)
	if err != nil {
		t.Fatal(err)
	}
	clustered, err := New(Spec{Name: "rows", BlocksPerCluster: 2, Element: storage.BF16,
		Executors: []ExecutorAxis{{Name: "block", Size: 4, Level: LevelBlock}, {Name: "lane", Size: 32, Level: LevelLane}},
		Locals:    []Axis{{"v", 2}}, Storage: "1 - v",
		Tile: []Axis{{"b", 4}, {"x", 64}}, Ownership: []string{"block", "lane * 2 + v"}})
	if err != nil {
		t.Fatal(err)
	}
	ds = append(ds, f8, clustered)
	for _, d := range ds {
		data := d.EntriesJSON()
		back, err := DecodeJSON(data)
		if err != nil {
			t.Errorf("%s: %v", d.Name(), err)
			continue
		}
		if !back.Equal(d) || back.Name() != d.Name() || back.Element() != d.Element() || back.BlocksPerCluster() != d.BlocksPerCluster() || !back.Tabulated() {
			t.Errorf("%s: reads back as %v (%v, %d per cluster), fingerprints %v and %v", d.Name(), back.Name(), back.Element(), back.BlocksPerCluster(), back.Fingerprint(), d.Fingerprint())
		}
		if again := back.EntriesJSON(); string(again) != string(data) {
			t.Errorf("%s: the table of the table differs", d.Name())
		}
		// MarshalJSON of a table is the table.
		if m, err := back.MarshalJSON(); err != nil || string(m) != string(data) {
			t.Errorf("%s: MarshalJSON of a table: %v", d.Name(), err)
		}
	}
	if _, err := TileAtom(mustTable(t, a), Tiling{}); err == nil || !strings.Contains(err.Error(), "cannot be tiled") {
		t.Errorf("tiling a table: %v", err)
	}
}

func mustTable(t *testing.T, d *Distribution) *Distribution {
	t.Helper()
	back, err := DecodeJSON(d.EntriesJSON())
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// Sizes are one more than the largest coordinate unless given; an element
// listed under several executors is replicated there.
func TestTabulatedForm(t *testing.T) {
	two := `{"name": "pair", "tile": ["x"], "entries": [
	  {"lane": 0, "value": 0, "tile": [0]}, {"lane": 1, "value": 0, "tile": [1]},
	  {"lane": 2, "value": 0, "tile": [0]}, {"lane": 3, "value": 0, "tile": [1]}]}`
	d, err := DecodeJSON([]byte(two))
	if err != nil {
		t.Fatal(err)
	}
	if d.NumElements() != 2 || d.NumExecutors() != 4 || d.Element() != storage.F32 {
		t.Errorf("%d elements, %d executors, %v", d.NumElements(), d.NumExecutors(), d.Element())
	}
	owners, _ := d.Owners(1)
	if len(owners) != 2 || owners[0].Lane != 1 || owners[1].Lane != 3 {
		t.Errorf("owners of x=1: %+v", owners)
	}
	// A size larger than what is listed leaves an element unheld.
	_, err = DecodeJSON([]byte(strings.Replace(two, `"tile": ["x"],`, `"tile": ["x"], "sizes": [3],`, 1)))
	if err == nil || !strings.Contains(err.Error(), "element (x=2) is held by no entry") {
		t.Errorf("sizes [3]: %v", err)
	}
}

type wantProblem struct {
	path string
	code jsonv.Code
	msg  string // a fragment of the message
}

// checkProblems decodes text and checks that it reports exactly the
// problems wanted, each at its path with its code.
func checkProblems(t *testing.T, name, text string, want []wantProblem) {
	t.Helper()
	_, err := DecodeJSON([]byte(text))
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		t.Errorf("%s: error %v is not jsonv.Problems", name, err)
		return
	}
	used := make([]bool, len(ps))
	for _, w := range want {
		found := false
		for i, p := range ps {
			if !used[i] && p.Path.String() == w.path && p.Code == w.code && strings.Contains(p.Msg, w.msg) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("%s: no %s problem at %s saying %q in:\n%v", name, w.code, w.path, w.msg, err)
		}
	}
	for i, p := range ps {
		if !used[i] {
			t.Errorf("%s: unexpected problem %s [%s]", name, p, p.Code)
		}
	}
}

// Every form reports every mistake, each at its path with its code.
func TestJSONEveryProblem(t *testing.T) {
	cases := []struct {
		name, text string
		want       []wantProblem
	}{
		{"builtin", `{"builtin": "mma.m16n8k16.a.f64", "element": "f12", "blocks_per_cluster": 0, "colour": 1}`, []wantProblem{
			{"$.builtin", jsonv.UnknownName, `no built-in atom "mma.m16n8k16.a.f64" (did you mean`},
			{"$.element", jsonv.UnknownName, `unknown element type "f12"`},
			{"$.blocks_per_cluster", jsonv.Range, "0 blocks per cluster"},
			{"$.colour", jsonv.UnknownField, `unknown field "colour"`},
		}},
		{"tiled", `{"tiled": {"atom": "mma.m16n8k16.c.f32", "repeat": {"q": 2, "m": "2"},
		  "warps": [{"name": "w", "size": 2, "along": "k"}, {"name": "w", "size": 0, "along": "m"}, {"size": 2}], "shape": 1}}`, []wantProblem{
			{"$.tiled.repeat.m", jsonv.Type, `want an integer, have the string "2"`},
			{"$.tiled.warps[2]", jsonv.Missing, `missing "name"`},
			{"$.tiled.warps[2]", jsonv.Missing, `missing "along"`},
			{"$.tiled.shape", jsonv.UnknownField, `unknown field "shape"`},
		}},
		{"tiling rules", `{"tiled": {"atom": "mma.m16n8k16.c.f32", "repeat": {"q": 2},
		  "warps": [{"name": "w", "size": 2, "along": "k"}, {"name": "w", "size": 0, "along": "m"}]}}`, []wantProblem{
			{"$.tiled.repeat.q", jsonv.Invalid, `"q" is not a tile axis of the atom (m, n)`},
			{"$.tiled.warps[0].along", jsonv.Invalid, `"k" is not a tile axis`},
			{"$.tiled.warps[1].name", jsonv.Invalid, `"w" is already the name of warp axis 0`},
			{"$.tiled.warps[1].size", jsonv.Invalid, "0 warps"},
		}},
		{"blocked", `{"blocked": {"axes": ["m", 7], "shape": [64, 64], "size_per_thread": [1, "8"], "threads_per_warp": [4, 8], "order": [1, 0]}}`, []wantProblem{
			{"$.blocked.axes[1]", jsonv.Type, "want a string, have the number 7"},
			{"$.blocked.size_per_thread[1]", jsonv.Type, `want an integer, have the string "8"`},
			{"$.blocked", jsonv.Missing, `missing "warps_per_cta"`},
		}},
		{"blocked rules", `{"blocked": {"axes": ["m", "m"], "shape": [64, 48], "size_per_thread": [1, 8], "threads_per_warp": [4, 4], "warps_per_cta": [4, 1], "order": [1, 1]}}`, []wantProblem{
			{"$.blocked.axes[1]", jsonv.Invalid, `"m" is used twice (axes[0] and axes[1])`},
			{"$.blocked.order", jsonv.Invalid, "[1, 1] is not a permutation of 0..1"},
			{"$.blocked.shape[1]", jsonv.Invalid, "48 is not a positive power of two"},
			{"$.blocked.threads_per_warp", jsonv.Invalid, "16 threads in all, want 32"},
		}},
		{"explicit", `{"executors": [{"name": "t", "size": 32, "level": "thread"}, {"name": "t", "size": -1, "level": "lane"}],
		  "locals": [{"name": "v", "size": null}], "tile": [{"name": "m", "size": 32}, {"name": "n"}],
		  "ownership": {"m": "t + q", "k": "0"}, "storage": "t"}`, []wantProblem{
			{"$.executors[0].level", jsonv.Invalid, `unknown executor level "thread"`},
			{"$.executors[1].name", jsonv.DuplicateName, `"t" is already the name of executors[0]`},
			{"$.executors[1].size", jsonv.Range, "-1 is not a positive size"},
			{"$.locals[0].size", jsonv.Type, "want an integer, have null"},
			{"$.tile[1]", jsonv.Missing, `missing "size"`},
			{"$.ownership.m", jsonv.UnknownName, `"q" is not an executor or local axis`},
			{"$.ownership.k", jsonv.UnknownName, "not a tile axis of (m, n)"},
			{"$.storage", jsonv.Invalid, `"t" is an executor axis (executors[0])`},
		}},
		{"tabulated", `{"name": "t", "tile": ["m", "n"], "element": "f16", "entries": [
		  {"lane": 0, "value": 0, "tile": [0, 0]},
		  {"lane": -1, "value": 1, "tile": [0]},
		  {"warp": 0, "lane": 1, "value": 0, "tile": [1, 0]},
		  {"lane": 1, "value": "0", "tile": [1, 0], "colour": 2}]}`, []wantProblem{
			// The form's own checks; the table's come once the form is right
			// (TestTabulatedProblems).
			{"$.entries[2]", CodeTable, "names the levels [warp lane], but entries[0] names [lane]"},
			{"$.entries[3].value", jsonv.Type, `want an integer, have the string "0"`},
			{"$.entries[3].colour", jsonv.UnknownField, `unknown field "colour"`},
		}},
	}
	for _, tc := range cases {
		checkProblems(t, tc.name, tc.text, tc.want)
	}
}

// A well-formed table that breaks the table's rules names the entries.
func TestTabulatedProblems(t *testing.T) {
	checkProblems(t, "table", `{"name": "t", "tile": ["m", "n"], "entries": [
	  {"lane": 0, "value": 0, "slot": 1, "tile": [0, 0]},
	  {"lane": 0, "value": 1, "slot": 1, "tile": [0, 1]},
	  {"lane": 1, "value": 0, "slot": 0, "tile": [1, 0]},
	  {"lane": 0, "value": 0, "tile": [1, 1]},
	  {"lane": -2, "value": 1, "tile": [1, 1, 0]}]}`, []wantProblem{
		{"$.entries[4].lane", CodeTable, "-2 is negative"},
		{"$.entries[4].tile", CodeTable, "3 coordinates for the tile (m, n)"},
	})
	checkProblems(t, "table after the coordinates", `{"name": "t", "tile": ["m", "n"], "sizes": [2, 2], "entries": [
	  {"lane": 0, "value": 0, "slot": 1, "tile": [0, 0]},
	  {"lane": 0, "value": 1, "slot": 1, "tile": [0, 1]},
	  {"lane": 1, "value": 0, "slot": 0, "tile": [1, 0]},
	  {"lane": 0, "value": 0, "tile": [1, 1]},
	  {"lane": 2, "value": 1, "tile": [1, 3]}]}`, []wantProblem{
		{"$.entries[4].tile[1]", CodeTable, "3 outside the n axis 0..1"},
	})
	checkProblems(t, "duplicates and holes", `{"name": "t", "tile": ["m", "n"], "entries": [
	  {"lane": 0, "value": 0, "slot": 1, "tile": [0, 0]},
	  {"lane": 0, "value": 1, "slot": 1, "tile": [0, 1]},
	  {"lane": 1, "value": 0, "slot": 0, "tile": [1, 0]},
	  {"lane": 0, "value": 0, "tile": [1, 1]}]}`, []wantProblem{
		{"$.entries[2].slot", CodeTable, "value 0 in slot 0, but entries[0] puts it in slot 1"},
		{"$.entries[3]", CodeTable, "(lane 0) value 0 is listed again (first at entries[0])"},
		{"$.entries[1].slot", CodeTable, "slot 1 holds values 0 and 1"},
		{"$.entries", CodeTable, "no entry for (lane 1) value 1"},
	})
}

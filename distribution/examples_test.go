package distribution

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// exampleDir holds the example distributions (examples/README.md lists them).
const exampleDir = "../examples/distributions"

// TestExamples decodes and validates every file under examples/distributions.
func TestExamples(t *testing.T) {
	readme, err := os.ReadFile("../examples/README.md")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatalf("%s is empty", exampleDir)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			if err := checkExample(filepath.Join(exampleDir, e.Name()), string(readme)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// checkExample reads one example file and checks that it is a distribution
// that New accepts (every invariant of doc.go), named after its file, listed
// in readme with its tile, that reads back from its explicit form to the
// same distribution, and whose every element is owned once per value of the
// replicated axes (recomputed with Owners and At).
func checkExample(path, readme string) error {
	file := filepath.Base(path)
	name, ok := strings.CutSuffix(file, ".json")
	if !ok {
		return fmt.Errorf("%s: an example distribution is a .json file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	d, err := DecodeJSON(data)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if d.Name() != name {
		return fmt.Errorf("%s: the distribution is named %q, want the file's name %q", path, d.Name(), name)
	}
	row := "| `" + file + "` |"
	if !strings.Contains(readme, row) {
		return fmt.Errorf("%s: examples/README.md has no row %q", path, row)
	}
	if tile := "| " + axesString(d.Tile()) + " |"; !strings.Contains(readme[strings.Index(readme, row):], tile) {
		return fmt.Errorf("%s: the README row does not give the tile %s", path, axesString(d.Tile()))
	}
	explicit, err := d.MarshalJSON()
	if err != nil {
		return fmt.Errorf("%s: MarshalJSON: %v", path, err)
	}
	back, err := DecodeJSON(explicit)
	if err != nil {
		return fmt.Errorf("%s: the explicit form does not decode: %v", path, err)
	}
	if !back.Equal(d) || back.Fingerprint() != d.Fingerprint() {
		return fmt.Errorf("%s: the explicit form reads back to a different distribution", path)
	}
	copies := 1
	for _, a := range d.Executors() {
		if a.Replicated {
			copies *= a.Size
		}
	}
	if d.NumExecutors()*d.NumValues() != copies*d.NumElements() {
		return fmt.Errorf("%s: %d executors × %d values for %d elements × %d copies", path, d.NumExecutors(), d.NumValues(), d.NumElements(), copies)
	}
	sizes := make([]int, len(d.Tile()))
	for i, a := range d.Tile() {
		sizes[i] = a.Size
	}
	tile := make([]int, len(sizes))
	for e := range d.NumElements() {
		unflatten(e, sizes, tile)
		owners, err := d.Owners(tile...)
		if err != nil {
			return fmt.Errorf("%s: Owners%v: %v", path, tile, err)
		}
		if len(owners) != copies {
			return fmt.Errorf("%s: element %v has %d owners, want %d", path, tile, len(owners), copies)
		}
		for _, o := range owners {
			at, err := d.At(o.Executor, o.Value)
			if err != nil || !slices.Equal(at, tile) {
				return fmt.Errorf("%s: owner %v value %d of element %v holds %v (%v)", path, o.Executor, o.Value, tile, at, err)
			}
		}
	}
	return nil
}

// TestCheckExampleRejects checks that checkExample fails on bad files, and
// says which and why.
func TestCheckExampleRejects(t *testing.T) {
	const readme = "| `good.json` | a 2-lane tile | (m:2) | lane:2 | 1 |\n| `twice.json` | x | (m:2) | x | x |\n"
	tests := []struct {
		name, file, data, want string
	}{
		{"not json", "good.txt", `{}`, "an example distribution is a .json file"},
		{"malformed", "good.json", `{"name": "good", "builtin": }`, "good.json: "},
		{"owned twice", "twice.json", `{"name": "twice", "executors": [{"name": "lane", "size": 2, "level": "lane"}],
			"locals": [], "tile": [{"name": "m", "size": 2}], "ownership": {"m": "0"}}`, "owned"},
		{"named otherwise", "good.json", `{"name": "other", "executors": [{"name": "lane", "size": 2, "level": "lane"}],
			"tile": [{"name": "m", "size": 2}], "ownership": {"m": "lane"}}`, `named "other", want the file's name "good"`},
		{"not in the README", "absent.json", `{"name": "absent", "executors": [{"name": "lane", "size": 2, "level": "lane"}],
			"tile": [{"name": "m", "size": 2}], "ownership": {"m": "lane"}}`, "examples/README.md has no row"},
		{"wrong tile in the README", "twice.json", `{"name": "twice", "executors": [{"name": "lane", "size": 4, "level": "lane"}],
			"tile": [{"name": "m", "size": 4}], "ownership": {"m": "lane"}}`, "does not give the tile (m:4)"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			err := checkExample(path, readme)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("checkExample = %v; want an error containing %q", err, tt.want)
			}
		})
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"name": "good", "executors": [{"name": "lane", "size": 2, "level": "lane"}],
		"tile": [{"name": "m", "size": 2}], "ownership": {"m": "1 - lane"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkExample(good, readme); err != nil {
		t.Fatalf("a good file: %v", err)
	}
}

// TestExampleScript checks that the CLI script dist_examples.txtar shows the
// example files as they are: its copies equal the files under examples/.
func TestExampleScript(t *testing.T) {
	a, err := txtar.ParseFile("../cmd/cklplan/testdata/script/dist_examples.txtar")
	if err != nil {
		t.Fatal(err)
	}
	copies := 0
	for _, f := range a.Files {
		if !strings.HasPrefix(f.Name, "examples/") {
			continue
		}
		copies++
		want, err := os.ReadFile(filepath.Join("..", f.Name))
		if err != nil {
			t.Fatalf("the script holds %s: %v", f.Name, err)
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("the script's copy of %s differs from the file", f.Name)
		}
	}
	if copies == 0 {
		t.Error("the script holds no copy of an example file")
	}
}

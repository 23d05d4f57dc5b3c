package tasks

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/storage"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateSchema(s *jsonschema.Schema, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// exampleFiles lists the example graphs of the repository.
func exampleFiles(t testing.TB) []string {
	files, err := filepath.Glob("../examples/graphs/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example graphs: %v", err)
	}
	return files
}

// TestSchemaExamples checks every example graph against the JSON Schema and
// loads it; and the Marshal form of each against the schema too.
func TestSchemaExamples(t *testing.T) {
	s := compileSchema(t)
	for _, f := range exampleFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateSchema(s, data); err != nil {
				t.Fatalf("schema: %v", err)
			}
			g, err := Load(data)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if w := g.Warnings(); len(w) > 0 {
				t.Errorf("warnings: %v", w)
			}
			out, err := Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateSchema(s, out); err != nil {
				t.Fatalf("schema of the marshalled graph: %v", err)
			}
		})
	}
}

// TestSchemaAcceptsOtherForms: a graph whose index map is in its JSON form
// and whose distribution is in the tabulated form (what cklplan map show and
// dist show --format json write) loads, and the schema accepts it too.
func TestSchemaAcceptsOtherForms(t *testing.T) {
	s := compileSchema(t)
	data, err := os.ReadFile("testdata/other_forms.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(data); err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := validateSchema(s, data); err != nil {
		t.Errorf("schema: %v", err)
	}
}

// TestSchemaMeasuredTarget: a graph's measured costs may name the target they
// were measured on (docs/format.md, "Measured costs"): the loader takes it,
// and so must the schema, for the file and for its Marshal form; a blank
// target is an error of both.
func TestSchemaMeasuredTarget(t *testing.T) {
	s := compileSchema(t)
	base, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	with := func(target string) []byte {
		data := bytes.Replace(base, []byte(`"invocations": [`), []byte(`"measured": {"target": `+target+
			`, "alternatives": [{"task": "mma", "alternative": "a_in_registers", "ns": 2.7}]},
  "invocations": [`), 1)
		if bytes.Equal(data, base) {
			t.Fatal(`"invocations": [ not found in the example`)
		}
		return data
	}
	data := with(`"h200"`)
	g, err := Load(data)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if got := g.Spec().Measured.Target; got != "h200" {
		t.Fatalf("measured target %q, want h200", got)
	}
	if err := validateSchema(s, data); err != nil {
		t.Errorf("schema: %v", err)
	}
	out, err := Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"target": "h200"`)) {
		t.Errorf("the marshalled graph lost the measured target:\n%s", out)
	}
	if err := validateSchema(s, out); err != nil {
		t.Errorf("schema of the marshalled graph: %v", err)
	}
	blank := with(`" "`)
	if err := validateSchema(s, blank); err == nil {
		t.Errorf("the schema accepts a blank measured target")
	}
	if _, err := Load(blank); err == nil {
		t.Errorf("Load accepts a blank measured target")
	}
}

// TestSchemaRejects checks that shape errors the loader reports are errors of
// the schema too: the two describe one format.
func TestSchemaRejects(t *testing.T) {
	s := compileSchema(t)
	base, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to string }{
		{"unknown top-level field", `"version": 1,`, `"version": 1, "colour": "red",`},
		{"version 2", `"version": 1,`, `"version": 2,`},
		{"unknown target", `"target": "h200"`, `"target": "h100"`},
		{"direction", `"direction": "in"`, `"direction": "inout"`},
		{"element", `"element": "u4"`, `"element": "u3"`},
		{"negative size", `"N": 16`, `"N": -16`},
		{"unknown feature", `"requires": ["cp_async", "ldmatrix"]`, `"requires": ["cp_async", "ldmatrixx"]`},
		{"both costs", `"cost": {"ns": 1.0}`, `"cost": {"ns": 1.0, "work": {"instruction": "alu"}}`},
		{"endpoint without port", `"from": "load_w.w"`, `"from": "load_w"`},
		{"kernel", `{"from": "load_x.x", "to": "mma.rhs"}`, `{"from": "load_x.x", "to": "mma.rhs", "kernel": "maybe"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bytes.Replace(base, []byte(tc.from), []byte(tc.to), 1)
			if bytes.Equal(data, base) {
				t.Fatalf("%q not found in the example", tc.from)
			}
			if err := validateSchema(s, data); err == nil {
				t.Errorf("the schema accepts it")
			}
			if _, err := Load(data); err == nil {
				t.Errorf("Load accepts it")
			}
		})
	}
}

// TestSchemaEnums checks that the schema's closed lists are the package's.
func TestSchemaEnums(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	defs := doc.(map[string]any)["$defs"].(map[string]any)
	enum := func(v any) []string {
		var out []string
		for _, e := range v.(map[string]any)["enum"].([]any) {
			out = append(out, e.(string))
		}
		return out
	}
	if got := enum(defs["feature"]); !slices.Equal(got, Features) {
		t.Errorf("schema features %v, package %v", got, Features)
	}
	work := defs["alternative"].(map[string]any)["properties"].(map[string]any)["cost"].(map[string]any)["oneOf"].([]any)[1]
	instr := work.(map[string]any)["properties"].(map[string]any)["work"].(map[string]any)["properties"].(map[string]any)["instruction"]
	if got := enum(instr); !slices.Equal(got, InstructionKinds) {
		t.Errorf("schema instruction kinds %v, package %v", got, InstructionKinds)
	}
	var elems []string
	for _, e := range storage.ElementTypes() {
		elems = append(elems, e.String())
	}
	port := defs["port"].(map[string]any)["properties"].(map[string]any)
	if got := enum(port["element"]); !slices.Equal(got, elems) {
		t.Errorf("schema element types %v, package %v", got, elems)
	}
	target := doc.(map[string]any)["properties"].(map[string]any)["target"].(map[string]any)["oneOf"].([]any)[0]
	got := enum(target)
	slices.Sort(got)
	if !slices.Equal(got, TargetNames()) {
		t.Errorf("schema targets %v, package %v", got, TargetNames())
	}
}

// TestFormatDocExample checks that the complete example of docs/format.md is
// the example file, byte for byte, so that the page cannot drift.
func TestFormatDocExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/format.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../examples/graphs/dequant_mma_n16.json")
	if err != nil {
		t.Fatal(err)
	}
	_, last, ok := bytes.Cut(doc, []byte("## A complete example"))
	if !ok {
		t.Fatal("docs/format.md has no complete example")
	}
	_, block, ok := bytes.Cut(last, []byte("```json\n"))
	if !ok {
		t.Fatal("the complete example has no json block")
	}
	block, _, _ = bytes.Cut(block, []byte("```"))
	if !bytes.Equal(block, want) {
		t.Errorf("the complete example of docs/format.md differs from examples/graphs/dequant_mma_n16.json")
	}
}

// TestSchemaCustomTarget: the schema checks a custom target's figures as
// the loader does — the cost model's figures, every one but those with a
// default required, no other; a value and a non-empty source each; the
// values positive (0 allowed where the figure allows it) and the counts
// whole numbers of at most 2^53 — so the two agree on each edit below.
func TestSchemaCustomTarget(t *testing.T) {
	s := compileSchema(t)
	figures := func(g map[string]any) map[string]any {
		return at(g, "target", "figures").(map[string]any)
	}
	for _, tc := range []struct {
		name  string
		valid bool
		edit  func(f map[string]any)
	}{
		{"as the cost model writes it", true, func(map[string]any) {}},
		{"mma_sync_f16_tflops left out", true, func(f map[string]any) { delete(f, "mma_sync_f16_tflops") }},
		{"no distributed shared memory", true, func(f map[string]any) {
			f["dsmem_bytes_per_clock"] = map[string]any{"value": 0, "source": "sm_80 has none"}
		}},
		{"a figure left out", false, func(f map[string]any) { delete(f, "sm_count") }},
		{"an unknown figure", false, func(f map[string]any) { f["tensor_cores"] = map[string]any{"value": 432, "source": "datasheet"} }},
		{"a count not whole", false, func(f map[string]any) { f["sm_count"] = map[string]any{"value": 107.5, "source": "datasheet"} }},
		{"a count over 2^53", false, func(f map[string]any) {
			f["shared_bytes_per_block"] = map[string]any{"value": 1 << 54, "source": "datasheet"}
		}},
		{"a count of 0", false, func(f map[string]any) { f["max_cluster_blocks"] = map[string]any{"value": 0, "source": "datasheet"} }},
		{"0 where the figure is positive", false, func(f map[string]any) { f["clock_ghz"] = map[string]any{"value": 0, "source": "datasheet"} }},
		{"a negative figure", false, func(f map[string]any) {
			f["cluster_barrier_cycles"] = map[string]any{"value": -1, "source": "datasheet"}
		}},
		{"a value as a string", false, func(f map[string]any) { f["clock_ghz"] = map[string]any{"value": "1.41", "source": "datasheet"} }},
		{"an empty source", false, func(f map[string]any) { f["clock_ghz"] = map[string]any{"value": 1.41, "source": ""} }},
		{"no source", false, func(f map[string]any) { f["clock_ghz"] = map[string]any{"value": 1.41} }},
		{"a field besides value and source", false, func(f map[string]any) {
			f["clock_ghz"] = map[string]any{"value": 1.41, "source": "datasheet", "unit": "GHz"}
		}},
		{"a bare number", false, func(f map[string]any) { f["clock_ghz"] = 1.41 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := edit(t, func(g map[string]any) {
				g["target"] = customTargetJSON(t, []string{"sm_80", "cp_async"}, 100000)
				tc.edit(figures(g))
			})
			if err := validateSchema(s, data); (err == nil) != tc.valid {
				t.Errorf("schema: %v, want valid %v", err, tc.valid)
			}
			if _, err := Load(data); (err == nil) != tc.valid {
				t.Errorf("Load: %v, want valid %v", err, tc.valid)
			}
		})
	}
}

// TestSchemaFigureKeys checks that the schema's figures are the cost
// model's: the same keys, required where the figure has no default, and 0
// allowed exactly where the figure allows it.
func TestSchemaFigureKeys(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	figs := at(doc, "$defs", "customTarget", "properties", "figures").(map[string]any)
	props := figs["properties"].(map[string]any)
	var required []string
	for _, r := range figs["required"].([]any) {
		required = append(required, r.(string))
	}
	var keys, want []string
	for _, k := range costmodel.FigureKeys {
		keys = append(keys, k.Key)
		if k.Default == "" {
			want = append(want, k.Key)
		}
		p, ok := props[k.Key].(map[string]any)
		if !ok {
			t.Errorf("the schema has no figure %s", k.Key)
			continue
		}
		if zero := p["$ref"] == "#/$defs/figure"; zero != k.Zero {
			t.Errorf("figure %s: schema %s, the cost model allows 0: %v", k.Key, p["$ref"], k.Zero)
		}
	}
	if len(props) != len(keys) {
		t.Errorf("schema figures %d, the cost model's %d", len(props), len(keys))
	}
	if !slices.Equal(required, want) {
		t.Errorf("schema requires %v, the cost model %v", required, want)
	}
}

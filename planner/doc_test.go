package planner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/tasks"
)

// TestPlanFormatDocExample checks that the JSON plan docs/plan-format.md
// shows is what cklplan plan writes for the example it names
// (examples/graphs/smem_budget.json): every top-level field with its value,
// and each choice and boundary shown whole (the witness elided), so that the
// page cannot drift from the output it quotes.
func TestPlanFormatDocExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/plan-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(doc, []byte("`cklplan plan examples/graphs/smem_budget.json --format json`"))
	if !ok {
		t.Fatal("docs/plan-format.md no longer quotes the plan of smem_budget.json")
	}
	_, block, ok := bytes.Cut(rest, []byte("```json\n"))
	if !ok {
		t.Fatal("the quoted plan has no json block")
	}
	block, _, _ = bytes.Cut(block, []byte("```"))
	var shown map[string]any
	if err := json.Unmarshal(block, &shown); err != nil {
		t.Fatalf("the quoted plan is not JSON: %v", err)
	}
	src, err := os.ReadFile("../examples/graphs/smem_budget.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := tasks.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = r.WithWitnesses(WitnessesNone); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var real map[string]any
	if err := json.Unmarshal(out.Bytes(), &real); err != nil {
		t.Fatal(err)
	}
	for k, v := range real {
		s, ok := shown[k]
		switch {
		case !ok:
			t.Errorf("the quoted plan lacks the field %q (%v)", k, v)
		case k == "choices" || k == "boundaries":
		case !reflect.DeepEqual(s, v):
			t.Errorf("the quoted plan's %q is %v, the plan's %v", k, s, v)
		}
	}
	for k := range shown {
		if _, ok := real[k]; !ok {
			t.Errorf("the quoted plan has a field %q the plan has not", k)
		}
	}
	// Each choice and boundary shown is the plan's, whole.
	for _, list := range []struct{ key, id string }{{"choices", "invocation"}, {"boundaries", "edge"}} {
		byID := map[any]map[string]any{}
		for _, e := range real[list.key].([]any) {
			m := e.(map[string]any)
			delete(m, "witness")
			byID[m[list.id]] = m
		}
		entries, _ := shown[list.key].([]any)
		if len(entries) == 0 {
			t.Errorf("the quoted plan shows no %s", list.key)
		}
		for _, e := range entries {
			m := e.(map[string]any)
			delete(m, "witness")
			want, ok := byID[m[list.id]]
			if !ok {
				t.Errorf("the quoted plan's %s %v is not the plan's", list.key, m[list.id])
				continue
			}
			if !reflect.DeepEqual(m, want) {
				got, _ := json.Marshal(m)
				exp, _ := json.Marshal(want)
				t.Errorf("the quoted plan's %s %v differs:\n shown %s\n plan  %s", list.key, m[list.id], got, exp)
			}
		}
	}
}

// TestPlanFormatDocFields checks that docs/plan-format.md names every field
// of the JSON plan (and of the infeasible answer) as `field`, `field[]` or
// `parent.field`: a field the
// Go types write that the page never names is one a reader cannot look up.
func TestPlanFormatDocFields(t *testing.T) {
	doc, err := os.ReadFile("../docs/plan-format.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, where string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.PkgPath() != reflect.TypeFor[Result]().PkgPath() {
			return
		}
		seen[ty] = true
		for f := range ty.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !regexp.MustCompile("`([a-z_]+\\.)?" + name + "(\\[\\])?`").Match(doc) {
				t.Errorf("docs/plan-format.md does not name %s.%s (`%s`)", where, f.Name, name)
			}
			walk(f.Type, where+"."+f.Name)
		}
	}
	walk(reflect.TypeFor[Result](), "Result")
	walk(reflect.TypeFor[BudgetConflict](), "BudgetConflict")
	walk(reflect.TypeFor[InvocationConflict](), "InvocationConflict")
}

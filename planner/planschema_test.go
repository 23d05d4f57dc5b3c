package planner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// The JSON plan's schema, as docs/plan-format.md documents it: every object
// the plan holds, its fields, their JSON types, whether they are always
// there, and the values an enumerated field takes. TestJSONPlanSchema walks
// real plans against it and checks it against the page, so that neither the
// page nor the code can add, drop or rename a field, or a value of an
// enumeration, without the other.

// A fieldKind is a field's JSON type.
type fieldKind int

const (
	kString   fieldKind = iota
	kNumber             // any finite number
	kInt                // a non-negative integer
	kBool               // true or false, always written
	kTrue               // true: written only when true (absent when false)
	kNullable           // a number or null
	kStrings            // an array of strings
	kObject             // one object of the schema named by obj
	kObjects            // an array of objects of the schema named by obj
	kOpaque             // an object documented elsewhere (conversion.Witness)
	kOpaques            // an array of such objects
)

type fieldSpec struct {
	kind     fieldKind
	required bool     // written in every object of its kind
	obj      string   // the schema of an object or of an array's objects
	enum     []string // the values an enumerated string takes, from the code
	// byTable: the values are listed by the class table, not in the
	// field's row.
	byTable bool
}

// objectSpec is one kind of object of the plan: its fields, and the rows of
// docs/plan-format.md's field tables (their first column) whose text must
// name every field in backquotes.
type objectSpec struct {
	fields map[string]fieldSpec
	docRow []string // "" : each field is a row of its own
}

func req(k fieldKind) fieldSpec { return fieldSpec{kind: k, required: true} }
func opt(k fieldKind) fieldSpec { return fieldSpec{kind: k} }

// The enumerations, from the code that writes them.
func statusValues() []string { return statusNames[:] }

func originValues() []string {
	return []string{costmodel.Declared.String(), costmodel.Measured.String(), costmodel.Formula.String()}
}

// conversionOrigins: a conversion's cost is the model's or a measurement,
// never declared.
func conversionOrigins() []string {
	return []string{costmodel.Formula.String(), costmodel.Measured.String()}
}

func classValues() []string {
	var out []string
	for _, c := range conversion.Classes() {
		out = append(out, c.String())
	}
	return out
}

// mechanismsOf is the class table of docs/plan-format.md: the mechanisms a
// boundary of each class may use (conversion's mechanisms at or above the
// class; a round trip's own mechanism on a global_memory boundary).
var mechanismsOf = map[string][]string{
	"identity":              {"identity"},
	"register_permute":      {"register_permute", "shared_memory", "global_memory"},
	"warp_shuffle":          {"warp_shuffle", "shared_memory", "global_memory"},
	"shared_memory":         {"shared_memory", "global_memory"},
	"cluster_shared_memory": {"cluster_shared_memory/push", "cluster_shared_memory/pull", "global_memory"},
	"global_memory":         {"global_memory", "global_round_trip"},
}

func mechanismValues() []string {
	var out []string
	for _, c := range classValues() {
		for _, m := range mechanismsOf[c] {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// rejectableMechanisms are the mechanisms a boundary may have rejected:
// those above a class (identity, alone at its level, never is; nor is a
// round trip, which has no rejected_mechanisms).
func rejectableMechanisms() []string {
	return slices.DeleteFunc(mechanismValues(), func(m string) bool { return m == "identity" || m == "global_round_trip" })
}

func planSchema() map[string]objectSpec {
	enum := func(f fieldSpec, values []string) fieldSpec { f.enum = values; return f }
	obj := func(f fieldSpec, name string) fieldSpec { f.obj = name; return f }
	table := func(f fieldSpec) fieldSpec { f.byTable = true; return f }
	return map[string]objectSpec{
		"plan": {fields: map[string]fieldSpec{
			"graph": req(kString), "target": req(kString), "sm_count": req(kInt),
			"status":       enum(req(kString), statusValues()),
			"objective_ns": req(kNumber), "execution_ns": req(kNumber), "conversion_ns": req(kNumber),
			"bound_ns": req(kNumber), "gap": req(kNumber),
			"bound_from":       enum(opt(kString), []string{BoundMILP, BoundRootLP, BoundSearch, BoundFloor}),
			"solve_ms":         opt(kNumber),
			"milp_nodes":       req(kInt),
			"core_search":      obj(opt(kObject), "core_search"),
			"model":            obj(req(kObject), "model"),
			"explained":        req(kInt),
			"unproven_regrets": opt(kInt),
			"unproven_by":      enum(opt(kString), []string{UnprovenByRegretSolves, UnprovenByWorkLimit, UnprovenByTimeLimit, UnprovenByInterrupt}),
			"local_choice_ns":  req(kNullable), "saving_ns": req(kNullable),
			"local_choice_violations": opt(kStrings),
			"kernel_conflicts":        opt(kStrings),
			"kernel_order":            opt(kStrings),
			"choices":                 obj(req(kObjects), "choice"),
			"boundaries":              obj(req(kObjects), "boundary"),
			"witnesses":               opt(kOpaques),
			"budgets":                 obj(opt(kObjects), "budget"),
		}, docRow: []string{""}},
		"core_search": {fields: map[string]fieldSpec{"nodes": req(kInt), "proved": req(kBool)}, docRow: []string{"core_search"}},
		"model": {fields: map[string]fieldSpec{
			"invocations": req(kInt), "alternatives": req(kInt), "eliminated": req(kInt), "core": req(kInt),
			"max_bucket": req(kInt), "contracted_kernels": opt(kInt),
			"whole": obj(req(kObject), "milp"), "solved": obj(req(kObject), "milp"),
		}, docRow: []string{"model"}},
		"milp": {fields: map[string]fieldSpec{"columns": req(kInt), "rows": req(kInt), "nonzeros": req(kInt)}, docRow: []string{"model"}},
		"choice": {fields: map[string]fieldSpec{
			"invocation": req(kString), "task": req(kString), "alternative": req(kString),
			"implementation": opt(kString), "cost_ns": req(kNumber), "multiplicity": req(kInt),
			"origin": enum(req(kString), originValues()),
			"tie":    opt(kTrue), "group": opt(kString), "eliminated": opt(kTrue),
			"no_shared_memory_conversions": opt(kTrue), "not_explained": opt(kTrue),
			"rejected": obj(req(kObjects), "rejected"),
		}, docRow: []string{"choices[]"}},
		"rejected": {fields: map[string]fieldSpec{
			"alternative": req(kString), "regret_ns": req(kNullable), "regret_lower_ns": opt(kNumber),
			"exact": req(kBool), "infeasible": opt(kTrue), "tie": opt(kTrue), "removed": opt(kTrue),
			"dominated_by": opt(kString), "replanned": obj(opt(kObjects), "replanned"), "reason": req(kString),
		}, docRow: []string{"rejected[]"}},
		"replanned": {fields: map[string]fieldSpec{
			"invocation": req(kString), "alternative": req(kString), "no_shared_memory_conversions": opt(kTrue),
		}, docRow: []string{"rejected[]"}},
		"boundary": {fields: map[string]fieldSpec{
			"edge": req(kString), "edge_index": req(kInt), "from": req(kString), "to": req(kString),
			"crossing":  enum(req(kString), []string{tasks.InKernel.String(), tasks.GlobalRoundTrip.String()}),
			"class":     table(enum(req(kString), classValues())),
			"mechanism": table(enum(req(kString), mechanismValues())),
			"cost_ns":   req(kNumber), "per_tile_ns": opt(kNumber), "moves": req(kInt),
			"origin": enum(req(kString), conversionOrigins()),
			"detail": req(kString), "source": req(kString), "target": req(kString),
			"shared_with": opt(kStrings), "witness": opt(kOpaque), "witness_ref": opt(kInt),
			"rejected_mechanisms": obj(opt(kObjects), "rejected_mechanism"),
		}, docRow: []string{""}},
		"rejected_mechanism": {fields: map[string]fieldSpec{
			"mechanism": table(enum(req(kString), rejectableMechanisms())), "per_tile_ns": req(kNumber),
			"origin": enum(opt(kString), conversionOrigins()), "reason": req(kString),
		}, docRow: []string{"rejected_mechanisms[]"}},
		"budget": {fields: map[string]fieldSpec{"name": req(kString), "kernel": req(kString), "used": req(kNumber), "capacity": req(kNumber)}, docRow: []string{"budgets[]"}},

		// The object a graph without a feasible plan writes instead.
		"infeasible": {fields: map[string]fieldSpec{
			"graph": req(kString), "target": req(kString),
			"status": enum(req(kString), []string{"infeasible"}), "message": req(kString),
			"conflict": obj(req(kObject), "conflict"),
		}, docRow: []string{""}},
		"conflict": {fields: map[string]fieldSpec{
			"no_alternative": req(kStrings), "budgets": obj(req(kObjects), "budget_conflict"),
			"invocations": obj(req(kObjects), "invocation_conflict"), "boundaries": req(kStrings),
			"note": opt(kString),
		}, docRow: []string{""}},
		"budget_conflict": {fields: map[string]fieldSpec{"name": req(kString), "kernel": req(kString), "capacity": req(kNumber), "least_use": req(kNumber)},
			docRow: []string{"conflict.budgets[]"}},
		"invocation_conflict": {fields: map[string]fieldSpec{"id": req(kString), "least_use": obj(req(kObjects), "least_use"), "removed": req(kStrings)},
			docRow: []string{"conflict.invocations[]"}},
		"least_use": {fields: map[string]fieldSpec{"budget": req(kString), "amount": req(kNumber)}, docRow: []string{"conflict.invocations[]"}},
	}
}

// docFieldRows reads the "| field | meaning |" tables of the part of
// docs/plan-format.md under heading (up to the next "## "): each row's
// first-column names (backquoted, with their paths: `conflict.budgets[]`)
// and its whole text.
func docFieldRows(t *testing.T, heading string) map[string]string {
	t.Helper()
	doc, err := os.ReadFile("../docs/plan-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, part, ok := strings.Cut(string(doc), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("docs/plan-format.md has no section %q", heading)
	}
	part, _, _ = strings.Cut(part, "\n## ")
	rows := map[string]string{}
	name := regexp.MustCompile("`([a-z_.\\[\\]]+)`")
	inTable := false
	for line := range strings.SplitSeq(part, "\n") {
		switch {
		case strings.HasPrefix(line, "| field | meaning |"):
			inTable = true
			continue
		case !strings.HasPrefix(line, "|"):
			inTable = false
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		first, _, _ := strings.Cut(line[1:], "|")
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			rows[m[1]] = line
		}
	}
	if len(rows) == 0 {
		t.Fatalf("docs/plan-format.md, %q: no field table", heading)
	}
	return rows
}

// TestJSONPlanSchemaMatchesDoc: every field of the schema is named in the
// page's field tables, where its object is described (a field of the plan or
// of a boundary as a row of its own, a field of a choice in the choices[]
// row, …), every enumerated value appears in its field's row, and every row
// of the tables is a field the schema knows; the class table lists exactly
// the classes conversion has and, for each, the mechanisms a boundary of it
// may use.
func TestJSONPlanSchemaMatchesDoc(t *testing.T) {
	plan := docFieldRows(t, "The JSON plan")
	conflict := docFieldRows(t, "No feasible plan")
	schema := planSchema()
	rowsOf := func(name string) map[string]string {
		switch name {
		case "infeasible", "conflict", "budget_conflict", "invocation_conflict", "least_use":
			return conflict
		}
		return plan
	}
	known := map[string]bool{}
	for name, o := range schema {
		rows := rowsOf(name)
		for f, fs := range o.fields {
			key := f
			switch name {
			case "conflict":
				key = "conflict." + f
			case "boundary":
				if f == "witness_ref" {
					key = "boundaries[].witness_ref"
				}
			}
			if fs.kind == kObjects || fs.kind == kOpaques {
				if _, ok := rows[key+"[]"]; ok {
					key += "[]"
				}
			}
			var texts []string
			for _, r := range o.docRow {
				if r == "" {
					texts = append(texts, rows[key])
					known[key] = true
				} else {
					texts = append(texts, rows[r])
				}
			}
			text := strings.Join(texts, "\n")
			if !strings.Contains(text, "`"+f+"`") && !strings.Contains(text, "`"+key+"`") {
				t.Errorf("%s.%s: docs/plan-format.md does not document the field (rows %q)", name, f, o.docRow)
				continue
			}
			for _, v := range fs.enum {
				if fs.byTable {
					break
				}
				if !strings.Contains(text, "`"+v+"`") {
					t.Errorf("%s.%s: docs/plan-format.md does not list the value %q", name, f, v)
				}
			}
		}
	}
	for _, rows := range []map[string]string{plan, conflict} {
		for key := range rows {
			if !known[key] && !slices.ContainsFunc(slices.Collect(func(yield func(string) bool) {
				for _, o := range schema {
					for _, r := range o.docRow {
						if !yield(r) {
							return
						}
					}
				}
			}), func(r string) bool { return r == key }) {
				t.Errorf("docs/plan-format.md documents %q, which no plan writes", key)
			}
		}
	}
	// The class table: | `class` | what crosses | `mechanism` |.
	doc, err := os.ReadFile("../docs/plan-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "| `class` | what crosses | `mechanism` |\n")
	if !ok {
		t.Fatal("docs/plan-format.md has no class table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	tick := regexp.MustCompile("`([a-z_/]+)`")
	got := map[string][]string{}
	for line := range strings.SplitSeq(table, "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < 4 || strings.HasPrefix(line, "|---") {
			continue
		}
		class := tick.FindStringSubmatch(cols[1])
		if class == nil {
			t.Fatalf("class table row %q names no class", line)
		}
		for _, m := range tick.FindAllStringSubmatch(cols[3], -1) {
			if !slices.Contains(got[class[1]], m[1]) {
				got[class[1]] = append(got[class[1]], m[1])
			}
		}
	}
	if len(got) != len(classValues()) {
		t.Errorf("the class table has classes %v, conversion has %v", got, classValues())
	}
	for _, c := range classValues() {
		if !slices.Equal(got[c], mechanismsOf[c]) {
			t.Errorf("class %s: the table lists mechanisms %q, the plan uses %q", c, got[c], mechanismsOf[c])
		}
	}
}

// walkJSON checks v against the schema's object name: no field it does not
// know, every required field, each of the right type and enumerated value.
func walkJSON(t *testing.T, schema map[string]objectSpec, name, path string, v any) {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: %T, want an object", path, v)
		return
	}
	spec := schema[name]
	for k := range obj {
		if _, ok := spec.fields[k]; !ok {
			t.Errorf("%s.%s: a field docs/plan-format.md does not document", path, k)
		}
	}
	for k, fs := range spec.fields {
		x, ok := obj[k]
		if !ok {
			if fs.required {
				t.Errorf("%s.%s: missing", path, k)
			}
			continue
		}
		p := path + "." + k
		isNumber := func(x any) bool {
			n, ok := x.(json.Number)
			if !ok {
				return false
			}
			f, err := n.Float64()
			return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
		}
		switch fs.kind {
		case kString:
			s, ok := x.(string)
			if !ok {
				t.Errorf("%s: %v, want a string", p, x)
			} else if fs.enum != nil && !slices.Contains(fs.enum, s) {
				t.Errorf("%s: %q, not one of %q", p, s, fs.enum)
			}
		case kNumber:
			if !isNumber(x) {
				t.Errorf("%s: %v, want a number", p, x)
			}
		case kNullable:
			if x != nil && !isNumber(x) {
				t.Errorf("%s: %v, want a number or null", p, x)
			}
		case kInt:
			n, ok := x.(json.Number)
			if i, err := n.Int64(); !ok || err != nil || i < 0 {
				t.Errorf("%s: %v, want a non-negative integer", p, x)
			}
		case kBool:
			if _, ok := x.(bool); !ok {
				t.Errorf("%s: %v, want a bool", p, x)
			}
		case kTrue:
			if x != true {
				t.Errorf("%s: %v, want true (false is left out)", p, x)
			}
		case kStrings:
			xs, ok := x.([]any)
			if !ok {
				t.Errorf("%s: %v, want an array", p, x)
			}
			for i, s := range xs {
				if _, ok := s.(string); !ok {
					t.Errorf("%s[%d]: %v, want a string", p, i, s)
				}
			}
		case kObject:
			walkJSON(t, schema, fs.obj, p, x)
		case kObjects:
			xs, ok := x.([]any)
			if !ok {
				t.Errorf("%s: %v, want an array", p, x)
			}
			for i, o := range xs {
				walkJSON(t, schema, fs.obj, fmt.Sprintf("%s[%d]", p, i), o)
			}
		case kOpaque:
			if o, ok := x.(map[string]any); !ok || o["mechanism"] == nil {
				t.Errorf("%s: %v, want a witness (an object with its mechanism)", p, x)
			}
		case kOpaques:
			xs, ok := x.([]any)
			if !ok {
				t.Errorf("%s: %v, want an array", p, x)
			}
			for i, o := range xs {
				if o, ok := o.(map[string]any); !ok || o["mechanism"] == nil {
					t.Errorf("%s[%d]: want a witness", p, i)
				}
			}
		}
	}
}

func decodeJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Accessors on a decoded plan.
func num(v any) float64 {
	n, _ := v.(json.Number)
	f, _ := n.Float64()
	return f
}
func objs(v any) []map[string]any {
	var out []map[string]any
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}
func strs(v any) []string {
	var out []string
	if v == nil {
		return nil
	}
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// near: a sum of float64 costs within the rounding of its summation order.
func nearSum(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// checkPlanInvariants checks what docs/plan-format.md says the numbers and
// the cross-references of a plan are (g the graph planned).
func checkPlanInvariants(t *testing.T, g *tasks.Graph, p map[string]any) {
	t.Helper()
	obj, exec, conv := num(p["objective_ns"]), num(p["execution_ns"]), num(p["conversion_ns"])
	if !nearSum(obj, exec+conv) {
		t.Errorf("objective_ns %v is not execution_ns %v + conversion_ns %v", obj, exec, conv)
	}
	choices, boundaries := objs(p["choices"]), objs(p["boundaries"])
	var se, sb float64
	for _, c := range choices {
		se += num(c["cost_ns"])
	}
	for _, b := range boundaries {
		sb += num(b["cost_ns"])
	}
	if !nearSum(se, exec) || !nearSum(sb, conv) {
		t.Errorf("the choices' cost_ns sum to %v (execution_ns %v), the boundaries' to %v (conversion_ns %v)", se, exec, sb, conv)
	}
	// gap = (objective − bound) / objective, 0 when the bound meets it.
	bound, gap := num(p["bound_ns"]), num(p["gap"])
	want := 0.0
	if obj-bound > 0 {
		want = (obj - bound) / math.Abs(obj)
	}
	if !nearSum(gap, want) || bound > obj+1e-6*math.Max(1, obj) {
		t.Errorf("bound_ns %v, gap %v: want gap %v and the bound at most the objective %v", bound, gap, want, obj)
	}
	status, _ := p["status"].(string)
	_, boundFrom := p["bound_from"]
	if status != "optimal" && !boundFrom {
		t.Errorf("status %q without bound_from", status)
	}
	if status == "optimal" && !boundFrom && obj-bound > math.Max(defaultAbsoluteGap, defaultRelativeGap*obj) {
		t.Errorf("optimal at the default gaps (no bound_from), but bound %v is %v below the objective", bound, obj-bound)
	}
	explained := int(num(p["explained"]))
	if (status != "optimal" || boundFrom) && explained != 0 {
		t.Errorf("explained %d for a plan not proven at the default gaps", explained)
	}
	if len(choices) != len(g.Invocations()) {
		t.Errorf("%d choices for %d invocations", len(choices), len(g.Invocations()))
	}
	lc, sv := p["local_choice_ns"], p["saving_ns"]
	_, viol := p["local_choice_violations"]
	switch {
	case lc == nil && (sv != nil || !viol):
		t.Errorf("local_choice_ns null: want saving_ns null (%v) and local_choice_violations", sv)
	case lc != nil && (viol || sv == nil || !nearSum(num(sv), num(lc)-obj)):
		t.Errorf("local_choice_ns %v, saving_ns %v, violations %v: want the saving local − objective, no violations", lc, sv, viol)
	}
	// Choices, in the graph's order; their rejected alternatives case by case.
	unproven, explainedSeen := 0, 0
	for i, c := range choices {
		inv := g.Invocations()[i]
		if c["invocation"] != inv.ID || c["task"] != inv.Task.Name {
			t.Errorf("choice %d is %v (%v), want invocation %s of task %s", i, c["invocation"], c["task"], inv.ID, inv.Task.Name)
		}
		if len(objs(c["rejected"])) != len(inv.Task.Alternatives)-1 {
			t.Errorf("%s: %d rejected alternatives, want every other of the task's %d", inv.ID, len(objs(c["rejected"])), len(inv.Task.Alternatives))
		}
		notExplained := c["not_explained"] == true
		if !notExplained {
			explainedSeen++
		}
		anyTie := false
		for _, r := range objs(c["rejected"]) {
			at := fmt.Sprintf("%s, rejected %v", inv.ID, r["alternative"])
			if r["alternative"] == c["alternative"] {
				t.Errorf("%s: the chosen alternative is also rejected", at)
			}
			if by, ok := r["dominated_by"].(string); ok {
				// Another alternative of the task, named in the reason.
				if by == r["alternative"] || inv.Task.Alternative(by) == nil || !strings.HasPrefix(r["reason"].(string), "dominated by "+by+" ") {
					t.Errorf("%s: dominated_by %q: not another alternative of the task that the reason names", at, by)
				}
			}
			regret, lower := r["regret_ns"], r["regret_lower_ns"]
			exact, infeasible, removed, tie := r["exact"] == true, r["infeasible"] == true, r["removed"] == true, r["tie"] == true
			anyTie = anyTie || tie
			switch {
			case removed:
				if !infeasible || !exact || regret != nil || lower != nil {
					t.Errorf("%s: removed, want infeasible, exact, regret null, no lower bound: %v", at, r)
				}
			case infeasible:
				if !exact || regret != nil || lower != nil {
					t.Errorf("%s: infeasible, want exact, regret null, no lower bound: %v", at, r)
				}
			case lower != nil:
				unproven++
				if exact || tie || regret != nil && num(lower) > num(regret)+1e-9*math.Max(1, num(regret)) || num(lower) < -1e-6 {
					t.Errorf("%s: an interval [%v, %v], exact %v: want 0 ≤ lower ≤ regret, not exact", at, lower, regret, exact)
				}
			case exact:
				if regret == nil || num(regret) < -1e-6 || tie != (num(regret) == 0) {
					t.Errorf("%s: exact, regret %v, tie %v: want a regret ≥ 0, a tie exactly when 0", at, regret, tie)
				}
			default:
				// Not computed: the plan is not proven, or the
				// invocation was not explained.
				if regret != nil || tie || status == "optimal" && !boundFrom && !notExplained {
					t.Errorf("%s: no regret computed for an explained invocation of a proven plan: %v", at, r)
				}
				if notExplained && r["reason"] != "not explained (ask with --explain "+inv.ID+")" {
					t.Errorf("%s: not explained, reason %q", at, r["reason"])
				}
			}
		}
		if (c["tie"] == true) != anyTie {
			t.Errorf("%s: tie %v, but a rejected alternative with regret 0: %v", inv.ID, c["tie"], anyTie)
		}
		if notExplained && (status != "optimal" || boundFrom) {
			t.Errorf("%s: marked not explained in a plan not proven", inv.ID)
		}
	}
	if explained > 0 && explained != explainedSeen {
		t.Errorf("explained %d, but %d choices are not marked not_explained", explained, explainedSeen)
	}
	if n := int(num(p["unproven_regrets"])); n != unproven {
		t.Errorf("unproven_regrets %d, %d rejected alternatives with regret_lower_ns", n, unproven)
	}
	if _, by := p["unproven_by"]; by != (unproven > 0) {
		t.Errorf("unproven_by present %v with %d unproven regrets", by, unproven)
	}
	// Boundaries: one per edge, grouped by producer port.
	if len(boundaries) != len(g.Edges()) {
		t.Errorf("%d boundaries for %d edges", len(boundaries), len(g.Edges()))
	}
	index := map[string]int{}
	portDone := map[string]bool{}
	sms := num(p["sm_count"])
	witnesses := p["witnesses"]
	nextRef := 0
	for i, b := range boundaries {
		edge, from, to := b["edge"].(string), b["from"].(string), b["to"].(string)
		if edge != from+" -> "+to {
			t.Errorf("boundary %d: edge %q is not %q -> %q", i, edge, from, to)
		}
		if _, dup := index[edge]; dup {
			t.Errorf("edge %s has two boundaries", edge)
		}
		index[edge] = i
		if i > 0 && boundaries[i-1]["from"] != from {
			if portDone[from] {
				t.Errorf("the boundaries of port %s are not together", from)
			}
			portDone[boundaries[i-1]["from"].(string)] = true
		}
		class, mech, crossing := b["class"].(string), b["mechanism"].(string), b["crossing"].(string)
		if !slices.Contains(mechanismsOf[class], mech) {
			t.Errorf("%s: class %s by mechanism %s", edge, class, mech)
		}
		if (crossing == tasks.GlobalRoundTrip.String()) != (mech == "global_round_trip") {
			t.Errorf("%s: crossing %s, mechanism %s: a round trip is exactly a global_round_trip", edge, crossing, mech)
		}
		_, hasW := b["witness"]
		_, hasRef := b["witness_ref"]
		if (hasW || hasRef) && (crossing != tasks.InKernel.String() || class == "identity") {
			t.Errorf("%s: a witness on a %s %s boundary", edge, crossing, class)
		}
		if hasRef {
			ref := int(num(b["witness_ref"]))
			if ref < 0 || witnesses == nil || ref >= len(witnesses.([]any)) {
				t.Errorf("%s: witness_ref %d out of the table", edge, ref)
			} else if ref > nextRef {
				t.Errorf("%s: witness_ref %d before %d was first used: the table is in order of first use", edge, ref, nextRef)
			} else if ref == nextRef {
				nextRef++
			}
		}
		cost := num(b["cost_ns"])
		served := strings.HasPrefix(b["detail"].(string), "shared with ")
		if per, ok := b["per_tile_ns"]; ok && !served {
			if want := num(per) * num(b["moves"]) / sms; !nearSum(cost, want) {
				t.Errorf("%s: cost_ns %v, per_tile_ns × moves / sm_count = %v", edge, cost, want)
			}
		} else if !ok && !served && crossing == tasks.InKernel.String() && cost != 0 {
			t.Errorf("%s: cost_ns %v in a kernel without per_tile_ns", edge, cost)
		}
		if cost < 0 {
			t.Errorf("%s: cost_ns %v", edge, cost)
		}
	}
	if witnesses != nil && nextRef != len(witnesses.([]any)) {
		t.Errorf("%d witnesses in the table, %d referenced", len(witnesses.([]any)), nextRef)
	}
	// shared_with: the paying edge (the first) lists the edges it serves;
	// each served edge lists the one edge that pays, costs 0 and says so.
	for i, b := range boundaries {
		sw := strs(b["shared_with"])
		if len(sw) == 0 {
			continue
		}
		if d := b["detail"].(string); strings.HasPrefix(d, "shared with ") {
			payer, ok := index[sw[0]]
			if len(sw) != 1 || !ok || payer >= i || d != "shared with "+sw[0]+", which pays it" || num(b["cost_ns"]) != 0 ||
				!slices.Contains(strs(boundaries[payer]["shared_with"]), b["edge"].(string)) || boundaries[payer]["from"] != b["from"] {
				t.Errorf("%s: served by %q (detail %q, cost %v): want the one earlier edge of its port that pays, listing it", b["edge"], sw, d, b["cost_ns"])
			}
			continue
		}
		for _, e := range sw {
			j, ok := index[e]
			if !ok || j <= i || !slices.Equal(strs(boundaries[j]["shared_with"]), []string{b["edge"].(string)}) {
				t.Errorf("%s pays for %s, which does not list it as the one edge that pays", b["edge"], e)
			}
		}
	}
	for _, bu := range objsOrNil(p["budgets"]) {
		if num(bu["used"]) > num(bu["capacity"])+1e-9 {
			t.Errorf("budget %v: used %v over capacity %v", bu["name"], bu["used"], bu["capacity"])
		}
	}
}

func objsOrNil(v any) []map[string]any {
	if v == nil {
		return nil
	}
	return objs(v)
}

// TestJSONPlanSchema plans a range of graphs — every example, with its
// measured costs where it has them and without the reduction; taskgen's
// transformer (fused under budgets or not), DAGs with a real core (regrets
// left as intervals by RegretSolves 1, a core search), trees; a subset
// explained; a plan stopped by a time limit; the solve timed; pins, forbids
// and ties; kernel conflicts — and walks each JSON plan against the schema
// (unknown fields fail, missing required fields fail, types and enumerations
// are checked) and its numbers against the rules of docs/plan-format.md
// (totals, gap, regret cases, shared_with, witness_ref). Each plan is also
// written with the witness table and with none: the table holds each
// witness the inline form carries, once, and witness_ref stands exactly
// where witness did. A graph with no feasible plan writes the conflict
// object, walked likewise.
func TestJSONPlanSchema(t *testing.T) {
	highstest.Library(t)
	schema := planSchema()
	type planCase struct {
		name string
		g    *tasks.Graph
		opts PlanOptions
	}
	var cases []planCase
	ex := examples(t)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range ex {
			if !yield(k) {
				return
			}
		}
	}) {
		g := ex[name]
		cases = append(cases, planCase{name, g, PlanOptions{}}, planCase{name + " no-reduce", g, PlanOptions{Solve: Options{NoReduce: true}}})
		if data, err := os.ReadFile("../examples/measured/" + name + ".json"); err == nil {
			mg, err := g.LoadMeasured(data)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, planCase{name + " measured", mg, PlanOptions{}})
		}
	}
	spec := func(s tasks.Spec, err error) *tasks.Graph {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		g, err := tasks.New(s)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	load := func(src string) *tasks.Graph {
		t.Helper()
		g, err := tasks.Load([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	fused := func(layers int, seed uint64, smem int64, scale float64) *tasks.Graph {
		s, err := taskgen.Transformer(layers, seed)
		if err == nil && smem > 0 {
			err = taskgen.FuseLayers(&s, smem)
		}
		if err == nil {
			err = taskgen.ScaleExecution(&s, scale)
		}
		return spec(s, err)
	}
	pinned := load(`{"version": 1, "name": "pins", "target": "h200", "sizes": {"T": 1024},
  "spaces": {"tile": "(row:16, col:16)"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "tile", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"y": "ldmatrix.x4"}, "cost": {"ns": 5}, "multiplicity": "T"},
                           {"id": "b", "ports": {"y": "ldmatrix.x4"}, "cost": {"ns": 5}, "multiplicity": "T"},
                           {"id": "c", "ports": {"y": "ldmatrix.x4.trans"}, "cost": {"ns": 1}, "multiplicity": "T"}]},
    "q": {"ports": {"x": {"direction": "in", "tile": "tile", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x": "ldmatrix.x4"}, "cost": {"ns": 5}, "multiplicity": "T"},
                           {"id": "b", "ports": {"x": "ldmatrix.x4.trans"}, "cost": {"ns": 50}, "multiplicity": "T"}]}},
  "invocations": [{"id": "p1", "task": "p", "forbid": ["c"]}, {"id": "q1", "task": "q"}, {"id": "q2", "task": "q", "pin": ["b"]}],
  "edges": [{"from": "p1.y", "to": "q1.x"}, {"from": "p1.y", "to": "q2.x"}]}`)
	conflicts := load(`{"version": 1, "name": "kernel-order", "target": "h200", "sizes": {"M": 64},
  "spaces": {"t": "(m:16, k:16)"},
  "layouts": {"g": "global f16 elements align 16: logical(m:16, k:16) -> physical(addr:256) = (m * 16 + k)"},
  "tasks": {
    "p": {"ports": {"y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "mid": {"ports": {"x": {"direction": "in", "tile": "t", "element": "f16"}, "y": {"direction": "out", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "regs", "ports": {"x": "mma.m16n8k16.a.f16", "y": "mma.m16n8k16.a.f16"}, "cost": {"ns": 100000}, "multiplicity": "M"},
                           {"id": "global", "ports": {"x": "mma.m16n8k16.a.f16", "y": {"layout": "g"}}, "cost": {"ns": 1}, "multiplicity": "M"}]},
    "join": {"ports": {"x1": {"direction": "in", "tile": "t", "element": "f16"}, "x2": {"direction": "in", "tile": "t", "element": "f16"}},
          "alternatives": [{"id": "a", "ports": {"x1": "mma.m16n8k16.a.f16", "x2": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": "M"}]}},
  "invocations": [{"id": "p", "task": "p"}, {"id": "m", "task": "mid"}, {"id": "j", "task": "join"}],
  "edges": [{"from": "p.y", "to": "m.x"}, {"from": "m.y", "to": "j.x2"}, {"from": "p.y", "to": "j.x1"}]}`)
	// A graph with nothing to plan writes its lists empty, never null.
	empty := load(`{"version": 1, "name": "empty", "target": "h200", "sizes": {}, "spaces": {"tile": "(m:16, k:16)"},
  "tasks": {"t": {"ports": {"x": {"direction": "in", "tile": "tile", "element": "f16"}},
                  "alternatives": [{"id": "a", "ports": {"x": "mma.m16n8k16.a.f16"}, "cost": {"ns": 1}, "multiplicity": 1}]}},
  "invocations": [], "edges": []}`)
	dag30 := spec(taskgen.DAG(30, 4, 1))
	cases = append(cases,
		planCase{"transformer", fused(2, 1, 0, 1), PlanOptions{}},
		planCase{"transformer fused", fused(2, 5, 120_000, 1), PlanOptions{}},
		planCase{"transformer fused scaled", fused(3, 1, 12_288, 30), PlanOptions{}},
		planCase{"dag 30", dag30, PlanOptions{}},
		planCase{"dag 30 explain v3,v10", dag30, PlanOptions{ExplainIDs: []string{"v3", "v10"}}},
		planCase{"dag 30 timed", dag30, PlanOptions{Timing: true, Solve: Options{NoRegrets: true}}},
		planCase{"dag 40 core search", scaledDAG(t, 40, 1, 1), PlanOptions{ExplainIDs: []string{}}},
		planCase{"dag 60 scaled, 1 regret solve", scaledDAG(t, 60, 1, 100), PlanOptions{Solve: Options{RegretSolves: 1}}},
		planCase{"dag 250 scaled, 1ms", scaledDAG(t, 250, 1, 100), PlanOptions{Solve: Options{TimeLimit: time.Millisecond}}},
		planCase{"tree", spec(taskgen.Tree(30, 1)), PlanOptions{}},
		planCase{"pins, forbids, ties", pinned, PlanOptions{}},
		planCase{"kernel order", conflicts, PlanOptions{}},
		// Without the rounds that rule them out, a warning (below).
		planCase{"kernel conflicts", conflicts, PlanOptions{}},
		planCase{"nothing to plan", empty, PlanOptions{}},
	)
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "kernel conflicts" {
				defer func(n int) { orderRounds, orderFlags = n, true }(orderRounds)
				orderRounds, orderFlags = 0, false
			}
			r, err := Plan(context.Background(), c.g, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			forms := map[WitnessForm][]byte{}
			for _, form := range []WitnessForm{WitnessesInline, WitnessesTable, WitnessesNone} {
				fr, err := r.WithWitnesses(form)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := fr.WriteJSON(&buf); err != nil {
					t.Fatal(err)
				}
				forms[form] = buf.Bytes()
			}
			inline := decodeJSON(t, forms[WitnessesInline])
			walkJSON(t, schema, "plan", "$", inline)
			checkPlanInvariants(t, c.g, inline)
			table, none := decodeJSON(t, forms[WitnessesTable]), decodeJSON(t, forms[WitnessesNone])
			walkJSON(t, schema, "plan", "$", table)
			checkPlanInvariants(t, c.g, table)
			walkJSON(t, schema, "plan", "$", none)
			if _, ok := none["witnesses"]; ok {
				t.Error("--witnesses none writes a witness table")
			}
			tab := table["witnesses"]
			for i, b := range objs(inline["boundaries"]) {
				tb, nb := objs(table["boundaries"])[i], objs(none["boundaries"])[i]
				w, hasW := b["witness"]
				ref, hasRef := tb["witness_ref"]
				if hasW != hasRef || tb["witness"] != nil || nb["witness"] != nil || nb["witness_ref"] != nil {
					t.Errorf("%s: witness %v inline, witness_ref %v in the table form: want witness_ref exactly where witness is, and nothing under none", b["edge"], hasW, hasRef)
					continue
				}
				if hasW && !jsonEqual(w, tab.([]any)[int(num(ref))]) {
					t.Errorf("%s: witness_ref %v is not the boundary's witness", b["edge"], ref)
				}
				if _, rm := b["rejected_mechanisms"]; rm && !hasW {
					t.Errorf("%s: rejected_mechanisms without a witness", b["edge"])
				}
			}
			// What the run shows of the optional parts, for the check
			// below that the cases reach them.
			for k := range inline {
				seen[k] = true
			}
			if ms, ok := inline["model"].(map[string]any); ok && ms["contracted_kernels"] != nil {
				seen["contracted_kernels"] = true
			}
			for _, ch := range objs(inline["choices"]) {
				for k := range ch {
					seen["choice."+k] = true
				}
				for _, rj := range objs(ch["rejected"]) {
					for k := range rj {
						seen["rejected."+k] = true
					}
				}
			}
			for _, b := range objs(inline["boundaries"]) {
				for k := range b {
					seen["boundary."+k] = true
				}
				seen["crossing "+b["crossing"].(string)] = true
			}
			if _, ok := table["witnesses"]; ok {
				seen["witnesses"] = true
			}
			seen["status "+inline["status"].(string)] = true
			if _, ok := inline["unproven_by"]; ok {
				seen["unproven_by "+inline["unproven_by"].(string)] = true
			}
		})
	}
	// The cases reach every optional field but those of a plan stopped by
	// an interrupt and the cases named here, so that a check above is
	// never vacuous.
	for _, k := range []string{"bound_from", "solve_ms", "core_search", "unproven_regrets", "unproven_by", "local_choice_violations",
		"kernel_conflicts", "kernel_order", "witnesses", "budgets", "contracted_kernels", "status optimal", "status time limit", "unproven_by regret_solves",
		"choice.implementation", "choice.tie", "choice.group", "choice.eliminated", "choice.no_shared_memory_conversions", "choice.not_explained",
		"rejected.regret_lower_ns", "rejected.infeasible", "rejected.tie", "rejected.removed",
		"boundary.per_tile_ns", "boundary.shared_with", "boundary.witness", "boundary.rejected_mechanisms",
		"crossing in_kernel", "crossing global_round_trip"} {
		if !seen[k] {
			t.Errorf("no case writes %s", k)
		}
	}

	// No feasible plan: the budget of smem_budget cut below what every
	// plan takes.
	tight := ex["smem_budget"].Spec()
	tight.Groups[0].SharedMemoryBytes = 4096
	g, err := tasks.New(tight)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Plan(context.Background(), g, PlanOptions{})
	var inf *PlanInfeasibleError
	if !errors.As(err, &inf) {
		t.Fatalf("%v, want a *PlanInfeasibleError", err)
	}
	var buf bytes.Buffer
	if err := inf.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	v := decodeJSON(t, buf.Bytes())
	walkJSON(t, schema, "infeasible", "$", v)
	if v["message"] != inf.Error() {
		t.Errorf("message %q, want the error %q", v["message"], inf.Error())
	}
	for _, b := range objs(v["conflict"].(map[string]any)["budgets"]) {
		if num(b["least_use"]) <= num(b["capacity"]) {
			t.Errorf("budget %v: least use %v within capacity %v, though it alone rules every plan out here", b["name"], b["least_use"], b["capacity"])
		}
	}
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

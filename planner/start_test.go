package planner

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/tasks"
)

// DecodeStart reads a JSON plan's choices, and nothing else of it.
func TestDecodeStart(t *testing.T) {
	data, err := os.ReadFile("testdata/examples/fanout.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := DecodeStart(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Choices) == 0 {
		t.Fatal("no choices read from a JSON plan")
	}
	for _, c := range r.Choices {
		if !strings.Contains(string(data), `"invocation": "`+c.Invocation+`"`) || !strings.Contains(string(data), `"alternative": "`+c.Alternative+`"`) {
			t.Errorf("choice %s = %s is not the plan's", c.Invocation, c.Alternative)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`[]`, `$: want an object, have an array`},
		{`{}`, `$: missing "choices"`},
		{`{"choices": {}}`, `$.choices: want an array`},
		{`{"choices": [1]}`, `$.choices[0]: want an object, have the number 1`},
		{`{"choices": [{"invocation": "a"}]}`, `$.choices[0]: missing "alternative"`},
		{`{"choices": [{"invocation": "", "alternative": "x"}]}`, `$.choices[0].invocation: an empty string: want the invocation's id`},
		{`{"choices": [{"invocation": "a", "alternative": 3}]}`, `$.choices[0].alternative: want a string, have the number 3`},
		{`{"choices": [{"invocation": "a", "alternative": "x"}, {"invocation": "a", "alternative": "y"}]}`, `$.choices[1].invocation: invocation "a" is chosen twice (also choices[0])`},
		{`{"choices": [{"invocation": "a", "alternative": "x", "no_shared_memory_conversions": "yes"}]}`, `$.choices[0].no_shared_memory_conversions: want true or false, have the string "yes"`},
		{`{"choices": [`, `syntax`},
		// Nested one deeper than a task graph may.
		{nested(tasks.MaxJSONDepth + 1), `nested deeper than 64 (the depth limit)`},
	} {
		_, err := DecodeStart([]byte(c.in))
		var ps jsonv.Problems
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		} else if !errors.As(err, &ps) {
			t.Errorf("%s: %T, want jsonv.Problems", c.in, err)
		}
	}
}

// nested is a start plan with no choices whose JSON nests depth deep.
func nested(depth int) string {
	return `{"choices": [], "x": ` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
}

// DecodeStart takes JSON nested as deep as a task graph may be.
// UnmatchedStart names what of a start plan starts nothing: an invocation
// the graph lacks, an alternative its task lacks, or one its pins leave out.
func TestUnmatchedStart(t *testing.T) {
	g := examples(t)["fanout"]
	r, err := Plan(context.Background(), g, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w := UnmatchedStart(g, r); w != "" {
		t.Errorf("a plan of the graph itself: %q", w)
	}
	if w := UnmatchedStart(g, nil); w != "" {
		t.Errorf("no start: %q", w)
	}
	bad := &Result{Choices: []PlanChoice{{Invocation: "nope", Alternative: "x"}, r.Choices[0], {Invocation: r.Choices[0].Invocation, Alternative: "zzz"}}}
	want := `2 of its 3 choices are ignored (the first: the graph has no invocation "nope")`
	if w := UnmatchedStart(g, bad); w != want {
		t.Errorf("UnmatchedStart = %q, want %q", w, want)
	}
}

func TestDecodeStartDepth(t *testing.T) {
	if _, err := DecodeStart([]byte(nested(tasks.MaxJSONDepth))); err != nil {
		t.Errorf("nested %d deep: %v", tasks.MaxJSONDepth, err)
	}
}

// FuzzDecodeStart: no input panics DecodeStart, and what it accepts names
// each invocation once, with an alternative.
func FuzzDecodeStart(f *testing.F) {
	for _, name := range []string{"fanout", "attention", "dequant_mma_n16"} {
		data, err := os.ReadFile("testdata/examples/" + name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"choices": [{"invocation": "a", "alternative": "x", "no_shared_memory_conversions": true}]}`))
	f.Add([]byte(`{"choices": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeStart(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, c := range r.Choices {
			if c.Invocation == "" || c.Alternative == "" || seen[c.Invocation] {
				t.Fatalf("accepted %+v", c)
			}
			seen[c.Invocation] = true
		}
	})
}

package planner

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/tasks"
)

// DecodeStart reads the choices of a JSON plan (docs/plan-format.md), as
// cklplan plan --format json writes it, into a Result to start another plan
// from (PlanOptions.Start): of each entry of "choices", its "invocation",
// "alternative" and "no_shared_memory_conversions". The plan's other
// fields are not read, so a plan of an older graph, or one a program wrote
// with the choices alone, will do. Every problem is reported at its JSON
// path (a jsonv.Problems error): a choice that is not an object, an
// invocation or alternative that is not a non-empty string, an invocation
// chosen twice. The JSON nests at most as deep as a task graph's
// (tasks.MaxJSONDepth; a plan nests 5 deep).
func DecodeStart(data []byte) (*Result, error) {
	root, err := jsonv.Parse(data, jsonv.Limits{MaxDepth: tasks.MaxJSONDepth})
	if err != nil {
		return nil, err
	}
	var d jsonv.Decoder
	o := d.Object(root, jsonv.Root)
	r := &Result{}
	v, p := o.Require("choices", "an array of choices, each naming an invocation and its alternative")
	var elems []*jsonv.Value
	if v != nil {
		elems, _ = d.Array(v, p)
	}
	seen := make(map[string]int, len(elems))
	for i, ev := range elems {
		e := d.Object(ev, p.Index(i))
		if e == nil {
			continue
		}
		c := PlanChoice{Invocation: e.String("invocation", true), Alternative: e.String("alternative", true),
			NoSharedMemoryConversions: e.Bool("no_shared_memory_conversions")}
		for _, f := range [...]struct{ key, id string }{{"invocation", c.Invocation}, {"alternative", c.Alternative}} {
			if v, fp := e.Field(f.key); v != nil && v.Kind == jsonv.String && f.id == "" {
				d.Report(fp, jsonv.Invalid, "an empty string: want the %s's id", f.key)
			}
		}
		if c.Invocation != "" {
			if j, dup := seen[c.Invocation]; dup {
				d.Report(p.Index(i).Key("invocation"), jsonv.DuplicateName, "invocation %q is chosen twice (also choices[%d])", c.Invocation, j)
				continue
			}
			seen[c.Invocation] = i
		}
		r.Choices = append(r.Choices, c)
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// UnmatchedStart says, when some of start's choices name an invocation g
// lacks, an alternative its task lacks, or one its pins or forbids leave
// out, how many and the first: they start nothing (PlanOptions.Start),
// which a plan of another graph would otherwise do silently. "" when every
// choice names one, or start is nil.
func UnmatchedStart(g *tasks.Graph, start *Result) string {
	if g == nil || start == nil {
		return ""
	}
	byID := make(map[string]*tasks.Invocation, len(g.Invocations()))
	for _, v := range g.Invocations() {
		byID[v.ID] = v
	}
	n, first := 0, ""
	for _, c := range start.Choices {
		v := byID[c.Invocation]
		why := ""
		switch {
		case v == nil:
			why = fmt.Sprintf("the graph has no invocation %s", quoteShort(c.Invocation))
		case v.Task.Alternative(c.Alternative) == nil:
			why = fmt.Sprintf("task %s of invocation %s has no alternative %s", v.Task.Name, v.ID, quoteShort(c.Alternative))
		case v.Candidate(c.Alternative) == nil:
			why = fmt.Sprintf("invocation %s's pins or forbids leave out %s", v.ID, c.Alternative)
		default:
			continue
		}
		if n == 0 {
			first = why
		}
		n++
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of its %d choices are ignored (the first: %s)", n, len(start.Choices), first)
}

// quoteShort quotes s, cut to its first 64 bytes (and a count) where it
// is longer: a name from a file, said in a message.
func quoteShort(s string) string {
	if len(s) <= 64 {
		return strconv.Quote(s)
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

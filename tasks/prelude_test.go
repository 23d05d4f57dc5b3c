package tasks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The prelude's links are the task ports of the edges without a rename:
// every such edge of the loaded graph has its link, every link an edge,
// each link once.
func TestPreludeLinks(t *testing.T) {
	files, err := filepath.Glob("../examples/graphs/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example graphs: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var pre *Prelude
			g, err := Limits{}.LoadWith(data, func(p *Prelude) { pre = p })
			if err != nil {
				t.Fatal(err)
			}
			if pre == nil {
				t.Fatal("no prelude")
			}
			if !slices.Equal(pre.Tasks, g.Tasks()) {
				t.Errorf("prelude tasks differ from the graph's")
			}
			links := pre.Links()
			want := map[Link]bool{}
			for _, e := range g.Edges() {
				if len(e.Rename) > 0 {
					continue
				}
				l := Link{e.From.Invocation.Task, e.From.Port, e.To.Invocation.Task, e.To.Port, e.MustCross()}
				if !slices.Contains(links, l) {
					t.Errorf("edge %s.%s -> %s.%s: no link", e.From.Invocation.ID, e.From.Port.Name, e.To.Invocation.ID, e.To.Port.Name)
				}
				want[l] = true
			}
			for i, l := range links {
				if !want[l] {
					t.Errorf("link %s.%s -> %s.%s: no edge", l.FromTask.Name, l.From.Name, l.ToTask.Name, l.To.Name)
				}
				if slices.Contains(links[:i], l) {
					t.Errorf("link %s.%s -> %s.%s twice", l.FromTask.Name, l.From.Name, l.ToTask.Name, l.To.Name)
				}
			}
		})
	}
}

// A file whose tasks have a problem gives no prelude, and the load reports
// the problem as Load does.
func TestNoPreludeForBadTasks(t *testing.T) {
	data, err := os.ReadFile("../examples/graphs/fanout.json")
	if err != nil {
		t.Fatal(err)
	}
	spec, problems := Decode(data)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for name, ts := range spec.Tasks {
		ts.Ports = nil // a task without ports
		spec.Tasks[name] = ts
		break
	}
	bad, err := MarshalSpec(*spec)
	if err != nil {
		t.Fatal(err)
	}
	called := false
	_, err = Limits{}.LoadWith(bad, func(*Prelude) { called = true })
	_, want := Load(bad)
	if called {
		t.Error("a prelude for tasks with problems")
	}
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("LoadWith: %v\nLoad: %v", err, want)
	}
}

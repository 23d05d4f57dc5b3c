package tasks

import (
	"slices"
	"strings"
)

// A Prelude is what a load has validated before it reads the invocations
// and the edges: the target and the tasks. Loading a large graph is mostly
// the invocations and the edges, so work that depends only on the tasks
// (the planner classifies the conversions between their distributions) can
// run beside the rest of the load: see Limits.LoadWith.
type Prelude struct {
	// Target is the graph's target.
	Target Target
	// Tasks are the graph's tasks, sorted by name. They do not change
	// once the prelude is given.
	Tasks []*Task

	spec Spec
}

// A Link is a pair of task ports that an edge of the file joins.
type Link struct {
	FromTask *Task
	From     *Port
	ToTask   *Task
	To       *Port
	// MustCross is true when the edge must cross a kernel boundary
	// (Edge.MustCross: declared so, or between two groups).
	MustCross bool
}

// Links are the distinct task ports that the file's edges without a
// rename join, in the order of their first edge. They are read from the
// decoded file, not validated: an edge that validation will reject may be
// among them, one it will accept is not left out. Links may be called on
// another goroutine while the load goes on.
func (p *Prelude) Links() []Link {
	byName := make(map[string]*Task, len(p.Tasks))
	for _, t := range p.Tasks {
		byName[t.Name] = t
	}
	taskOf := make(map[string]*Task, len(p.spec.Invocations))
	for _, inv := range p.spec.Invocations {
		if t := byName[inv.Task]; t != nil {
			taskOf[inv.ID] = t
		}
	}
	port := func(ref string) (*Task, *Port) {
		id, name, found := strings.Cut(ref, ".")
		t := taskOf[id]
		if !found || t == nil {
			return nil, nil
		}
		return t, t.Port(name)
	}
	group := map[string]string{} // invocation → its (first) group
	for _, gs := range p.spec.Groups {
		for _, id := range gs.Invocations {
			if _, ok := group[id]; !ok {
				group[id] = gs.ID
			}
		}
	}
	seen := map[Link]bool{}
	var links []Link
	for _, es := range p.spec.Edges {
		if len(es.Rename) > 0 {
			continue
		}
		var l Link
		l.FromTask, l.From = port(es.From)
		l.ToTask, l.To = port(es.To)
		from, _, _ := strings.Cut(es.From, ".")
		to, _, _ := strings.Cut(es.To, ".")
		gf, inF := group[from]
		gt, inT := group[to]
		l.MustCross = es.Kernel == MustCrossKernel || inF && inT && gf != gt
		if l.From == nil || l.To == nil || seen[l] {
			continue
		}
		seen[l] = true
		links = append(links, l)
	}
	return links
}

// LoadWith is Load, which calls prelude once the target and the tasks are
// validated, on the loading goroutine, and goes on when it returns: a
// caller that wants work done beside the load starts it there. A file
// whose target or tasks have problems gives no prelude.
func (l Limits) LoadWith(data []byte, prelude func(*Prelude)) (*Graph, error) {
	return l.load(data, prelude)
}

// prelude gives the validated target and tasks to f, unless validation
// has found a problem so far.
func (v *validator) prelude(f func(*Prelude)) {
	if f == nil || v.d.Err() != nil {
		return
	}
	f(&Prelude{Target: v.g.target, Tasks: slices.Clone(v.g.tasks), spec: v.spec})
}

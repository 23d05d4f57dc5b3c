package tasks

import (
	"bytes"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/costmodel"
)

// Marshal writes g in the JSON format, indented, with every named definition
// kept by name, ports in declaration order and maps sorted by key. Load reads
// it back to a graph that marshals to the same bytes.
func Marshal(g *Graph) ([]byte, error) { return MarshalSpec(g.spec) }

// MarshalSpec writes a Spec in the JSON format (see Marshal).
func MarshalSpec(s Spec) ([]byte, error) {
	var b bytes.Buffer
	if err := specJSON(s).write(&b); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// An ordered JSON tree: objects keep the order members were added in.
type (
	jvalue interface{ write(*bytes.Buffer) error }
	jobj   []jmember
	jarr   []jvalue
	jraw   []byte
	jstr   string
)

type jmember struct {
	key string
	val jvalue
}

func (o *jobj) add(k string, v jvalue) { *o = append(*o, jmember{k, v}) }

func (o jobj) write(b *bytes.Buffer) error {
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := jstr(m.key).write(b); err != nil {
			return err
		}
		b.WriteByte(':')
		if err := m.val.write(b); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func (a jarr) write(b *bytes.Buffer) error {
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := v.write(b); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func (r jraw) write(b *bytes.Buffer) error { b.Write(r); return nil }

func (s jstr) write(b *bytes.Buffer) error {
	q, err := json.MarshalWithOption(string(s), json.DisableHTMLEscape())
	b.Write(q)
	return err
}

func jint(n int64) jraw { return jraw(strconv.FormatInt(n, 10)) }

func jfloat(f float64) jraw { return jraw(strconv.FormatFloat(f, 'g', -1, 64)) }

func jstrs(ss []string) jarr {
	a := jarr{}
	for _, s := range ss {
		a = append(a, jstr(s))
	}
	return a
}

// jmarshal embeds a value's own JSON form (a distribution).
type jmarshal struct{ v json.Marshaler }

func (m jmarshal) write(b *bytes.Buffer) error {
	data, err := m.v.MarshalJSON()
	b.Write(data)
	return err
}

func sizesJSON(m map[string]int64) jobj {
	var o jobj
	for _, k := range sortedKeys(m) {
		o.add(k, jint(m[k]))
	}
	return o
}

func textsJSON(m map[string]string) jobj {
	var o jobj
	for _, k := range sortedKeys(m) {
		o.add(k, jstr(m[k]))
	}
	return o
}

// multiplicityJSON writes a constant as a number and an expression as text.
func multiplicityJSON(text string) jvalue {
	if e, err := ParseExpr(text); err == nil {
		if n, ok := e.IsConst(); ok {
			return jint(n)
		}
	}
	return jstr(text)
}

func specJSON(s Spec) jobj {
	var o jobj
	o.add("version", jint(int64(s.Version)))
	if s.Name != "" {
		o.add("name", jstr(s.Name))
	}
	o.add("target", targetJSON(s.Target))
	if len(s.Sizes) > 0 {
		o.add("sizes", sizesJSON(s.Sizes))
	}
	if len(s.Spaces) > 0 {
		o.add("spaces", textsJSON(s.Spaces))
	}
	if len(s.IndexMaps) > 0 {
		o.add("index_maps", textsJSON(s.IndexMaps))
	}
	if len(s.Layouts) > 0 {
		o.add("layouts", textsJSON(s.Layouts))
	}
	if len(s.Distributions) > 0 {
		var d jobj
		for _, k := range sortedKeys(s.Distributions) {
			d.add(k, jmarshal{s.Distributions[k]})
		}
		o.add("distributions", d)
	}
	tasks := jobj{}
	for _, k := range sortedKeys(s.Tasks) {
		tasks.add(k, taskJSON(s.Tasks[k]))
	}
	o.add("tasks", tasks)
	invs := jarr{}
	for _, inv := range s.Invocations {
		var io jobj
		io.add("id", jstr(inv.ID))
		io.add("task", jstr(inv.Task))
		if len(inv.Sizes) > 0 {
			io.add("sizes", sizesJSON(inv.Sizes))
		}
		if len(inv.Pin) > 0 {
			io.add("pin", jstrs(inv.Pin))
		}
		if len(inv.Forbid) > 0 {
			io.add("forbid", jstrs(inv.Forbid))
		}
		invs = append(invs, io)
	}
	o.add("invocations", invs)
	if len(s.Edges) > 0 {
		edges := jarr{}
		for _, e := range s.Edges {
			var eo jobj
			eo.add("from", jstr(e.From))
			eo.add("to", jstr(e.To))
			if len(e.Rename) > 0 {
				eo.add("rename", textsJSON(e.Rename))
			}
			if e.Kernel != MayShareKernel {
				eo.add("kernel", jstr(e.Kernel.String()))
			}
			edges = append(edges, eo)
		}
		o.add("edges", edges)
	}
	if len(s.Groups) > 0 {
		groups := jarr{}
		for _, g := range s.Groups {
			var gobj jobj
			gobj.add("id", jstr(g.ID))
			gobj.add("invocations", jstrs(g.Invocations))
			if g.SharedMemoryBytes != 0 {
				gobj.add("shared_memory_bytes", jint(g.SharedMemoryBytes))
			}
			if g.RegistersPerThread != 0 {
				gobj.add("registers_per_thread", jint(g.RegistersPerThread))
			}
			groups = append(groups, gobj)
		}
		o.add("groups", groups)
	}
	if m := measuredJSON(s.Measured); len(m) > 0 {
		o.add("measured", m)
	}
	return o
}

func measuredJSON(m MeasuredSpec) jobj {
	var o jobj
	if m.Target != "" {
		o.add("target", jstr(m.Target))
	}
	if len(m.Alternatives) > 0 {
		a := jarr{}
		for _, x := range m.Alternatives {
			var xo jobj
			xo.add("task", jstr(x.Task))
			xo.add("alternative", jstr(x.Alternative))
			if x.Invocation != "" {
				xo.add("invocation", jstr(x.Invocation))
			}
			xo.add("ns", jfloat(x.NS))
			a = append(a, xo)
		}
		o.add("alternatives", a)
	}
	if len(m.Conversions) > 0 {
		a := jarr{}
		for _, x := range m.Conversions {
			var xo jobj
			xo.add("source", jstr(x.Source))
			xo.add("target", jstr(x.Target))
			if x.Rename != "" {
				xo.add("rename", jstr(x.Rename))
			}
			xo.add("ns", jfloat(x.NS))
			a = append(a, xo)
		}
		o.add("conversions", a)
	}
	return o
}

func targetJSON(t TargetSpec) jvalue {
	if t.Custom == nil {
		return jstr(t.Name)
	}
	var o jobj
	o.add("name", jstr(t.Name))
	if m := t.Custom.Model; m != nil && m.Description != "" {
		o.add("description", jstr(m.Description))
	}
	if len(t.Custom.Features) > 0 {
		o.add("features", jstrs(t.Custom.Features))
	}
	if m := t.Custom.Model; m != nil {
		o.add("figures", jfigures{m})
	}
	return o
}

// jfigures writes a cost-model target's figures, in its own order.
type jfigures struct{ m *costmodel.Target }

func (f jfigures) write(b *bytes.Buffer) error {
	var o jobj
	for _, k := range costmodel.FigureKeys {
		fig := f.m.Figures[k.Key]
		var fo jobj
		fo.add("value", jfloat(fig.Value))
		fo.add("source", jstr(fig.Source))
		o.add(k.Key, fo)
	}
	return o.write(b)
}

func taskJSON(t TaskSpec) jobj {
	var o jobj
	if t.Kind != ComputeTask {
		o.add("kind", jstr(t.Kind.String()))
	}
	ports := jobj{}
	for _, p := range t.Ports {
		var po jobj
		po.add("direction", jstr(p.Direction.String()))
		po.add("tile", jstr(p.Tile))
		po.add("element", jstr(p.Element.String()))
		if p.Memory != 0 {
			po.add("memory", jstr(p.Memory.String()))
		}
		ports.add(p.Name, po)
	}
	o.add("ports", ports)
	alts := jarr{}
	for _, a := range t.Alternatives {
		alts = append(alts, alternativeJSON(a))
	}
	o.add("alternatives", alts)
	return o
}

func alternativeJSON(a AlternativeSpec) jobj {
	var o jobj
	o.add("id", jstr(a.ID))
	if a.Implementation != "" {
		o.add("implementation", jstr(a.Implementation))
	}
	ports := jobj{}
	for _, b := range a.Ports {
		if b.Distribution != "" && b.Multiplicity == "" && b.Loop == "" {
			ports.add(b.Port, jstr(b.Distribution))
			continue
		}
		var bo jobj
		switch {
		case b.Distribution != "":
			bo.add("distribution", jstr(b.Distribution))
		case b.InlineDistribution != nil:
			bo.add("distribution", jmarshal{b.InlineDistribution})
		case b.Layout != "":
			bo.add("layout", jstr(b.Layout))
		case b.InlineLayout != "":
			bo.add("layout", jstr(b.InlineLayout))
		}
		if b.Multiplicity != "" {
			bo.add("multiplicity", multiplicityJSON(b.Multiplicity))
		}
		if b.Loop != "" {
			bo.add("loop", jstr(b.Loop))
		}
		ports.add(b.Port, bo)
	}
	o.add("ports", ports)
	r := a.Resources
	var ro jobj
	for _, f := range []struct {
		k string
		v int64
	}{{"registers_per_thread", r.RegistersPerThread}, {"shared_memory_bytes", r.SharedMemoryBytes},
		{"threads_per_block", r.ThreadsPerBlock}, {"cluster_size", r.ClusterSize}} {
		if f.v != 0 {
			ro.add(f.k, jint(f.v))
		}
	}
	if len(ro) > 0 {
		o.add("resources", ro)
	}
	if len(a.Requires) > 0 {
		o.add("requires", jstrs(a.Requires))
	}
	var co jobj
	switch a.Cost.Kind {
	case DeclaredCost:
		co.add("ns", jfloat(a.Cost.NS))
	case WorkCost:
		var wo jobj
		if a.Cost.Work.Flops != 0 {
			wo.add("flops", jint(a.Cost.Work.Flops))
		}
		if a.Cost.Work.Bytes != 0 {
			wo.add("bytes", jint(a.Cost.Work.Bytes))
		}
		if a.Cost.Work.Instruction != "" {
			wo.add("instruction", jstr(a.Cost.Work.Instruction))
		}
		co.add("work", wo)
	}
	o.add("cost", co)
	if a.Multiplicity != "" {
		o.add("multiplicity", multiplicityJSON(a.Multiplicity))
	}
	return o
}

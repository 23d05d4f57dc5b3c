package tasks

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/internal/jsonv"
	"github.com/cklplan/cklplan/storage"
)

// MaxJSONDepth is how deeply a task-graph file may nest.
const MaxJSONDepth = 64

// Load reads a task graph in the JSON format (docs/format.md) and validates
// it. The error, if any, is a jsonv.Problems listing every problem, sorted by
// JSON path, each with a code; warnings alone are not an error (see
// Graph.Warnings).
func Load(data []byte) (*Graph, error) { return Limits{}.Load(data) }

// Load is the package's Load under the limits l.
func (l Limits) Load(data []byte) (*Graph, error) { return l.load(data, nil) }

func (l Limits) load(data []byte, prelude func(*Prelude)) (*Graph, error) {
	spec, problems := l.Decode(data)
	if spec == nil {
		return nil, problems
	}
	if len(problems) > 0 {
		prelude = nil // the tasks may lack what failed to decode
	}
	g, err := l.build(*spec, prelude)
	if len(problems) == 0 {
		return g, err
	}
	var later jsonv.Problems
	if ps, ok := err.(jsonv.Problems); ok {
		later = ps
	} else if err == nil && g != nil {
		later = g.Warnings()
	}
	if !onlyUnknownFields(problems) {
		// A value that failed to decode is missing from the graph, which
		// can then warn of what it dropped (an output "consumed by no
		// edge" whose edge had a number for its "from"): its warnings
		// are left out. Beside unknown fields alone, which decoding
		// ignores and leaves the rest whole, they are said, as beside
		// validation errors.
		later = later.Errors()
	}
	return nil, merge(problems, later)
}

// onlyUnknownFields reports whether every error of ps is an unknown field,
// which decoding ignores and leaves the rest of its object whole.
func onlyUnknownFields(ps jsonv.Problems) bool {
	for _, p := range ps {
		if !p.Warning && p.Code != jsonv.UnknownField {
			return false
		}
	}
	return true
}

// merge adds to the decoding problems the validation problems that do not sit
// at or under a path decoding already reported (a field that failed to decode
// leaves a zero value that validation would report again).
func merge(decoded, validated jsonv.Problems) jsonv.Problems {
	out := slices.Clone(decoded)
	for _, p := range validated {
		ps := p.Path.String()
		covered := false
		for _, q := range decoded {
			qs := q.Path.String()
			if ps == qs || strings.HasPrefix(ps, qs+".") || strings.HasPrefix(ps, qs+"[") {
				covered = true
				break
			}
			// A definition whose parts failed to decode is not reported
			// again as a whole.
			if definitionPath(ps) && (strings.HasPrefix(qs, ps+".") || strings.HasPrefix(qs, ps+"[")) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	out.Sort()
	return out
}

// definitionPath reports whether a path names one named definition
// ($.layouts.w, say).
func definitionPath(p string) bool {
	for _, sec := range []string{"$.spaces.", "$.index_maps.", "$.layouts.", "$.distributions."} {
		if rest, ok := strings.CutPrefix(p, sec); ok && !strings.ContainsAny(rest, ".[") {
			return true
		}
	}
	return false
}

// Decode reads the JSON format into a Spec without validating what the Spec
// means (New does). It returns every decoding problem (syntax, types, unknown
// fields, invalid distributions); the Spec is nil only when the input is not
// JSON at all.
func Decode(data []byte) (*Spec, jsonv.Problems) { return Limits{}.Decode(data) }

// Decode is the package's Decode under the limits l.
func (l Limits) Decode(data []byte) (*Spec, jsonv.Problems) {
	l = l.withDefaults()
	if int64(len(data)) > l.FileBytes {
		return nil, jsonv.Problems{{Code: jsonv.Limit, Offset: -1, Msg: fmt.Sprintf("the file has %d bytes, more than the limit of %d", len(data), l.FileBytes)}}
	}
	v, err := jsonv.Parse(data, jsonv.Limits{MaxBytes: l.FileBytes, MaxDepth: MaxJSONDepth})
	if err != nil {
		if ps, ok := err.(jsonv.Problems); ok {
			return nil, ps
		}
		return nil, jsonv.Problems{{Code: jsonv.Syntax, Offset: -1, Msg: err.Error(), Err: err}}
	}
	dc := &decoder{d: &jsonv.Decoder{}}
	spec := dc.graph(v)
	return spec, dc.d.Problems()
}

type decoder struct {
	d      *jsonv.Decoder
	layout map[string]bool
	// points counts the points the decoded distributions tabulate
	// (executors × values and tile elements), up to MaxDistributionPoints.
	points int64
}

// MaxDistributionPoints bounds the points that the distributions of one
// task-graph file tabulate together (each distribution's executors ×
// values and tile elements; named definitions and inline ones, used or
// not): a distribution tabulates up to 2^22 points in each of its spaces,
// about 80 MB, and sixty such definitions, 10 KB of JSON, ran a check out
// of memory.
const MaxDistributionPoints = 1 << 24

func (dc *decoder) distribution(v *jsonv.Value, p jsonv.Path) *distribution.Distribution {
	if dc.points > MaxDistributionPoints {
		dc.d.Report(p, jsonv.Limit, "not read: the distributions before it tabulate more than %d points, the limit of one graph", MaxDistributionPoints)
		return nil
	}
	d, ok := distribution.DecodeValue(dc.d, v, p)
	if !ok {
		return nil
	}
	dc.points += int64(d.NumExecutors())*int64(d.NumValues()) + int64(d.NumElements())
	if dc.points > MaxDistributionPoints {
		dc.d.Report(p, jsonv.Limit, "the distributions up to this one tabulate more than %d points (executors × values and tile elements), the limit of one graph", MaxDistributionPoints)
		return nil
	}
	return d
}

func (dc *decoder) graph(v *jsonv.Value) *Spec {
	s := &Spec{}
	o := dc.d.Object(v, root, "version", "name", "target", "sizes", "spaces", "index_maps", "layouts", "distributions", "tasks", "invocations", "edges", "groups", "measured")
	if o == nil {
		return s
	}
	s.Version = o.Int("version", true)
	s.Name = o.String("name", false)
	if tv, tp := o.Require("target", "a target name ("+strings.Join(TargetNames(), ", ")+") or a custom target object"); tv != nil {
		s.Target = dc.target(tv, tp)
	}
	s.Sizes = dc.sizes(o.Field("sizes"))
	s.Spaces = dc.texts(o, "spaces", func(v *jsonv.Value, p jsonv.Path) (string, bool) {
		sp, ok := indexspace.DecodeJSON(dc.d, v, p)
		return sp.String(), ok
	})
	s.IndexMaps = dc.texts(o, "index_maps", func(v *jsonv.Value, p jsonv.Path) (string, bool) {
		m, ok := indexmap.DecodeJSON(dc.d, v, p)
		return m.String(), ok
	})
	s.Layouts = dc.texts(o, "layouts", func(v *jsonv.Value, p jsonv.Path) (string, bool) {
		l, ok := storage.DecodeJSON(dc.d, v, p)
		return l.String(), ok
	})
	dc.layout = map[string]bool{}
	for k := range s.Layouts {
		dc.layout[k] = true
	}
	if dv, dp := o.Field("distributions"); dv != nil {
		if do := dc.d.Object(dv, dp); do != nil {
			s.Distributions = map[string]*distribution.Distribution{}
			for _, m := range dv.Members() {
				_, p := do.Field(m.Key)
				// A distribution that failed to decode stays, as nil, so
				// that its uses are not reported as unknown names.
				s.Distributions[m.Key] = dc.distribution(m.Value, p)
			}
		}
	}
	if tv, tp := o.Require("tasks", "an object of tasks"); tv != nil {
		if to := dc.d.Object(tv, tp); to != nil {
			s.Tasks = map[string]TaskSpec{}
			for _, m := range tv.Members() {
				_, p := to.Field(m.Key)
				s.Tasks[m.Key] = dc.task(m.Value, p)
			}
		}
	}
	iv, ip := o.Require("invocations", "an array of invocations")
	for i, e := range dc.array(iv, ip) {
		s.Invocations = append(s.Invocations, dc.invocation(e, ip.Index(i)))
	}
	ev, ep := o.Field("edges")
	for i, e := range dc.array(ev, ep) {
		s.Edges = append(s.Edges, dc.edge(e, ep.Index(i)))
	}
	gv, gp := o.Field("groups")
	for i, e := range dc.array(gv, gp) {
		s.Groups = append(s.Groups, dc.group(e, gp.Index(i)))
	}
	if mv, mp := o.Field("measured"); mv != nil {
		s.Measured = dc.measured(mv, mp)
	}
	o.End()
	return s
}

// array reads an optional array (nil when absent).
func (dc *decoder) array(v *jsonv.Value, p jsonv.Path) []*jsonv.Value {
	if v == nil {
		return nil
	}
	a, _ := dc.d.Array(v, p)
	return a
}

func (dc *decoder) int64(v *jsonv.Value, p jsonv.Path) int64 {
	n, _ := dc.d.Int(v, p)
	return int64(n)
}

func (dc *decoder) float(v *jsonv.Value, p jsonv.Path) float64 {
	if v.Kind != jsonv.Number {
		dc.d.Report(p, jsonv.Type, "want a number, have %s", v.Describe())
		return 0
	}
	f, err := strconv.ParseFloat(v.Num(), 64)
	if err != nil {
		dc.d.Report(p, jsonv.Range, "the number %s is out of range", v.Num())
	}
	return f
}

func (dc *decoder) strings(v *jsonv.Value, p jsonv.Path) []string {
	var out []string
	for i, e := range dc.array(v, p) {
		if s, ok := dc.d.String(e, p.Index(i)); ok {
			out = append(out, s)
		}
	}
	return out
}

// sizes reads an object of positive integers.
func (dc *decoder) sizes(v *jsonv.Value, p jsonv.Path) map[string]int64 {
	if v == nil {
		return nil
	}
	o := dc.d.Object(v, p)
	if o == nil {
		return nil
	}
	out := map[string]int64{}
	for _, m := range v.Members() {
		_, mp := o.Field(m.Key)
		out[m.Key] = dc.int64(m.Value, mp)
	}
	return out
}

// texts reads an object of definitions, each text (kept as written, checked
// by New, so that a layout may name an index map) or an object form that
// object decodes and writes as canonical text.
func (dc *decoder) texts(o *jsonv.ObjectReader, key string, object func(*jsonv.Value, jsonv.Path) (string, bool)) map[string]string {
	v, p := o.Field(key)
	if v == nil {
		return nil
	}
	to := dc.d.Object(v, p)
	if to == nil {
		return nil
	}
	out := map[string]string{}
	for _, m := range v.Members() {
		_, mp := to.Field(m.Key)
		switch m.Value.Kind {
		case jsonv.String:
			out[m.Key] = m.Value.Str()
		case jsonv.Object:
			// A definition that failed stays defined, empty, so that its
			// uses are not reported as unknown names.
			text, ok := object(m.Value, mp)
			if !ok {
				text = ""
			}
			out[m.Key] = text
		default:
			dc.d.Report(mp, jsonv.Type, "want text or an object, have %s", m.Value.Describe())
		}
	}
	return out
}

func (dc *decoder) target(v *jsonv.Value, p jsonv.Path) TargetSpec {
	if v.Kind == jsonv.String {
		return TargetSpec{Name: v.Str()}
	}
	o := dc.d.Object(v, p, "name", "description", "features", "figures")
	if o == nil {
		return TargetSpec{}
	}
	name := o.String("name", true)
	fv, fp := o.Field("features")
	features := dc.strings(fv, fp)
	o.Field("description")
	o.Field("figures")
	o.End()
	// The figures are the cost model's: its decoder reads the object
	// without the capability list, and without what was reported above
	// (an unknown field, a missing name), which it would report again.
	var members []jsonv.Member
	named := false
	for _, m := range v.Members() {
		switch m.Key {
		case "name":
			named = true
			members = append(members, m)
		case "description", "figures":
			members = append(members, m)
		}
	}
	if !named {
		members = append(members, jsonv.Member{Key: "name", Value: &jsonv.Value{Kind: jsonv.String}})
	}
	model, err := costmodel.DecodeTarget(encodeObject(members))
	if err != nil {
		dc.d.Wrap(p, jsonv.Invalid, err)
		model = nil
	}
	return TargetSpec{Name: name, Custom: &Target{Features: features, Model: model, figuresReported: err != nil}}
}

func (dc *decoder) task(v *jsonv.Value, p jsonv.Path) TaskSpec {
	var t TaskSpec
	o := dc.d.Object(v, p, "kind", "ports", "alternatives")
	if o == nil {
		return t
	}
	if k := o.String("kind", false); k != "" {
		kind, err := ParseTaskKind(k)
		if err != nil {
			dc.d.Report(p.Key("kind"), jsonv.Invalid, "%v", err)
		}
		t.Kind = kind
	}
	if pv, pp := o.Require("ports", "an object of ports"); pv != nil {
		po := dc.d.Object(pv, pp)
		for _, m := range pv.Members() {
			_, mp := po.Field(m.Key)
			t.Ports = append(t.Ports, dc.port(m.Key, m.Value, mp))
		}
	}
	av, ap := o.Require("alternatives", "an array of alternatives")
	for i, e := range dc.array(av, ap) {
		t.Alternatives = append(t.Alternatives, dc.alternative(e, ap.Index(i)))
	}
	o.End()
	return t
}

func (dc *decoder) port(name string, v *jsonv.Value, p jsonv.Path) PortSpec {
	ps := PortSpec{Name: name}
	o := dc.d.Object(v, p, "direction", "tile", "element", "memory")
	if o == nil {
		return ps
	}
	if s := o.String("direction", true); s != "" {
		d, err := ParseDirection(s)
		if err != nil {
			dc.d.Report(p.Key("direction"), jsonv.Invalid, "%v", err)
		}
		ps.Direction = d
	}
	ps.Tile = o.String("tile", true)
	if s := o.String("element", true); s != "" {
		e, err := storage.ParseElementType(s)
		if err != nil {
			dc.d.Wrap(p.Key("element"), jsonv.Invalid, err)
		}
		ps.Element = e
	}
	if s := o.String("memory", false); s != "" {
		m, err := storage.ParseMemorySpace(s)
		if err != nil {
			dc.d.Wrap(p.Key("memory"), jsonv.Invalid, err)
		}
		ps.Memory = m
	}
	o.End()
	return ps
}

// multiplicity reads a multiplicity: a non-negative integer or an expression.
func (dc *decoder) multiplicity(v *jsonv.Value, p jsonv.Path) string {
	if v == nil {
		return ""
	}
	if v.Kind == jsonv.Number {
		n, ok := dc.d.Int(v, p)
		if ok {
			return strconv.Itoa(n)
		}
		return ""
	}
	if v.Kind != jsonv.String {
		dc.d.Report(p, jsonv.Type, "want an integer or an expression over the sizes, have %s", v.Describe())
		return ""
	}
	if v.Str() == "" {
		dc.d.Report(p, CodeMultiplicity, "empty multiplicity")
	}
	return v.Str()
}

func (dc *decoder) alternative(v *jsonv.Value, p jsonv.Path) AlternativeSpec {
	var a AlternativeSpec
	o := dc.d.Object(v, p, "id", "implementation", "ports", "resources", "requires", "cost", "multiplicity")
	if o == nil {
		return a
	}
	a.ID = o.String("id", true)
	a.Implementation = o.String("implementation", false)
	if pv, pp := o.Require("ports", "the realization of every port"); pv != nil {
		po := dc.d.Object(pv, pp)
		for _, m := range pv.Members() {
			_, mp := po.Field(m.Key)
			a.Ports = append(a.Ports, dc.binding(m.Key, m.Value, mp))
		}
	}
	if rv, rp := o.Field("resources"); rv != nil {
		if ro := dc.d.Object(rv, rp, "registers_per_thread", "shared_memory_bytes", "threads_per_block", "cluster_size"); ro != nil {
			a.Resources = Resources{
				RegistersPerThread: int64(ro.Int("registers_per_thread", false)),
				SharedMemoryBytes:  int64(ro.Int("shared_memory_bytes", false)),
				ThreadsPerBlock:    int64(ro.Int("threads_per_block", false)),
				ClusterSize:        int64(ro.Int("cluster_size", false)),
			}
			ro.End()
		}
	}
	a.Requires = dc.strings(o.Field("requires"))
	if cv, cp := o.Require("cost", `{"ns": …} or {"work": …}`); cv != nil {
		a.Cost = dc.cost(cv, cp)
	}
	a.Multiplicity = dc.multiplicity(o.Field("multiplicity"))
	o.End()
	return a
}

func (dc *decoder) cost(v *jsonv.Value, p jsonv.Path) CostSpec {
	var c CostSpec
	o := dc.d.Object(v, p, "ns", "work")
	if o == nil {
		return c
	}
	nv, np := o.Field("ns")
	wv, wp := o.Field("work")
	switch {
	case nv != nil && wv != nil:
		dc.d.Report(p, jsonv.Invalid, "give ns or work, not both")
	case nv != nil:
		c.Kind, c.NS = DeclaredCost, dc.float(nv, np)
	case wv != nil:
		c.Kind = WorkCost
		if wo := dc.d.Object(wv, wp, "flops", "bytes", "instruction"); wo != nil {
			c.Work.Flops = int64(wo.Int("flops", false))
			c.Work.Bytes = int64(wo.Int("bytes", false))
			c.Work.Instruction = wo.String("instruction", false)
			wo.End()
		}
	default:
		dc.d.Report(p, jsonv.Missing, "missing: want ns or work")
	}
	o.End()
	return c
}

func (dc *decoder) binding(port string, v *jsonv.Value, p jsonv.Path) BindingSpec {
	b := BindingSpec{Port: port}
	if v.Kind == jsonv.String {
		b.Distribution = v.Str()
		return b
	}
	o := dc.d.Object(v, p, "distribution", "layout", "multiplicity", "loop")
	if o == nil {
		return b
	}
	if dv, dp := o.Field("distribution"); dv != nil {
		if dv.Kind == jsonv.String {
			b.Distribution = dv.Str()
		} else {
			b.InlineDistribution = dc.distribution(dv, dp)
		}
	}
	if s := o.String("layout", false); s != "" {
		if strings.ContainsRune(s, ':') {
			b.InlineLayout = s
		} else {
			b.Layout = s
		}
	}
	b.Multiplicity = dc.multiplicity(o.Field("multiplicity"))
	b.Loop = o.String("loop", false)
	o.End()
	return b
}

func (dc *decoder) invocation(v *jsonv.Value, p jsonv.Path) InvocationSpec {
	var inv InvocationSpec
	o := dc.d.Object(v, p, "id", "task", "sizes", "pin", "forbid")
	if o == nil {
		return inv
	}
	inv.ID = o.String("id", true)
	inv.Task = o.String("task", true)
	inv.Sizes = dc.sizes(o.Field("sizes"))
	pin, pinPath := o.Field("pin")
	inv.Pin = dc.strings(pin, pinPath)
	if pin != nil && pin.Kind == jsonv.Array && len(pin.Elems()) == 0 {
		// Read as no pin it would allow every alternative; read as
		// written it allows none.
		dc.d.Report(pinPath, CodePin, "an empty pin leaves no alternative; leave pin out to allow every one")
	}
	inv.Forbid = dc.strings(o.Field("forbid"))
	o.End()
	return inv
}

func (dc *decoder) edge(v *jsonv.Value, p jsonv.Path) EdgeSpec {
	var e EdgeSpec
	o := dc.d.Object(v, p, "from", "to", "rename", "kernel")
	if o == nil {
		return e
	}
	e.From = o.String("from", true)
	e.To = o.String("to", true)
	if rv, rp := o.Field("rename"); rv != nil {
		if ro := dc.d.Object(rv, rp); ro != nil {
			e.Rename = map[string]string{}
			for _, m := range rv.Members() {
				_, mp := ro.Field(m.Key)
				if s, ok := dc.d.String(m.Value, mp); ok {
					e.Rename[m.Key] = s
				}
			}
		}
	}
	if s := o.String("kernel", false); s != "" {
		k, err := ParseKernelBoundary(s)
		if err != nil {
			dc.d.Report(p.Key("kernel"), jsonv.Invalid, "%v", err)
		}
		e.Kernel = k
	}
	o.End()
	return e
}

func (dc *decoder) group(v *jsonv.Value, p jsonv.Path) GroupSpec {
	var g GroupSpec
	o := dc.d.Object(v, p, "id", "invocations", "shared_memory_bytes", "registers_per_thread")
	if o == nil {
		return g
	}
	g.ID = o.String("id", true)
	iv, ip := o.Require("invocations", "the ids of the group's invocations")
	g.Invocations = dc.strings(iv, ip)
	g.SharedMemoryBytes = int64(o.Int("shared_memory_bytes", false))
	g.RegistersPerThread = int64(o.Int("registers_per_thread", false))
	o.End()
	return g
}

func (dc *decoder) measured(v *jsonv.Value, p jsonv.Path) MeasuredSpec {
	var m MeasuredSpec
	o := dc.d.Object(v, p, "target", "alternatives", "conversions")
	if o == nil {
		return m
	}
	dc.measuredEntries(o, &m)
	o.End()
	return m
}

func (dc *decoder) measuredEntries(o *jsonv.ObjectReader, m *MeasuredSpec) {
	m.Target = o.String("target", false)
	if o.Has("target") && strings.TrimSpace(m.Target) == "" {
		dc.d.Report(o.Path().Key("target"), jsonv.Invalid, "an empty target: name the target the costs were measured on, or leave the field out")
	}
	av, ap := o.Field("alternatives")
	for i, e := range dc.array(av, ap) {
		if eo := dc.d.Object(e, ap.Index(i), "task", "alternative", "invocation", "ns"); eo != nil {
			m.Alternatives = append(m.Alternatives, MeasuredAlternative{
				Task: eo.String("task", true), Alternative: eo.String("alternative", true),
				Invocation: eo.String("invocation", false), NS: eo.Float("ns", true)})
			eo.End()
		}
	}
	cv, cp := o.Field("conversions")
	for i, e := range dc.array(cv, cp) {
		if eo := dc.d.Object(e, cp.Index(i), "source", "target", "rename", "ns"); eo != nil {
			m.Conversions = append(m.Conversions, MeasuredConversion{
				Source: eo.String("source", true), Target: eo.String("target", true),
				Rename: eo.String("rename", false), NS: eo.Float("ns", true)})
			eo.End()
		}
	}
}

// DecodeMeasured reads a measured-costs file: {"version": 1, "target":
// "h200", "alternatives": [...], "conversions": [...]}, the fields as in a
// graph's "measured" ("target" optional).
func DecodeMeasured(data []byte) (MeasuredSpec, error) {
	v, err := jsonv.Parse(data, jsonv.Limits{MaxBytes: MaxFileBytes, MaxDepth: MaxJSONDepth})
	if err != nil {
		return MeasuredSpec{}, err
	}
	dc := &decoder{d: &jsonv.Decoder{}}
	var m MeasuredSpec
	if o := dc.d.Object(v, root, "version", "target", "alternatives", "conversions"); o != nil {
		// A missing version is reported as missing, not also as version 0.
		if ver := o.Int("version", true); ver != Version && o.Has("version") {
			dc.d.Report(root.Key("version"), jsonv.Invalid, "unsupported version %d: this cklplan reads version %d", ver, Version)
		}
		dc.measuredEntries(o, &m)
		o.End()
	}
	return m, dc.d.Err()
}

// WithMeasured returns a graph whose measured costs are g's overridden by m's
// (same task, alternative and invocation; same source, target and renaming,
// however each writes the renaming), validated
// again. Problems name paths in m's file ($.alternatives[i],
// $.conversions[i]); an entry m has twice is one of them, and so is m's
// Target where the graph's measured costs name another ($.target). m's
// Target, when set, is the result's.
func (g *Graph) WithMeasured(m MeasuredSpec) (*Graph, error) {
	s := cloneSpec(g.spec)
	var conflict *jsonv.Problem
	if m.Target != "" {
		if s.Measured.Target != "" && s.Measured.Target != m.Target {
			conflict = &jsonv.Problem{Path: root.Key("target"), Code: jsonv.Invalid, Offset: -1,
				Msg: fmt.Sprintf("costs measured on %q, but the graph's own measured costs were measured on %q: one table is another target's", m.Target, s.Measured.Target)}
		}
		s.Measured.Target = m.Target
	}
	// The entries m overrides, found by key: a graph's table and a
	// costs file of tens of thousands of entries each meet in linear
	// time, not in their product.
	alts := make(map[MeasuredAlternative]bool, len(m.Alternatives))
	for _, a := range m.Alternatives {
		alts[MeasuredAlternative{Task: a.Task, Alternative: a.Alternative, Invocation: a.Invocation}] = true
	}
	s.Measured.Alternatives = slices.DeleteFunc(s.Measured.Alternatives, func(x MeasuredAlternative) bool {
		return alts[MeasuredAlternative{Task: x.Task, Alternative: x.Alternative, Invocation: x.Invocation}]
	})
	convs := make(map[MeasuredConversion]bool, len(m.Conversions))
	for _, c := range m.Conversions {
		convs[MeasuredConversion{Source: c.Source, Target: c.Target, Rename: canonicalRename(c.Rename)}] = true
	}
	s.Measured.Conversions = slices.DeleteFunc(s.Measured.Conversions, func(x MeasuredConversion) bool {
		return convs[MeasuredConversion{Source: x.Source, Target: x.Target, Rename: canonicalRename(x.Rename)}]
	})
	// The graph's entries that stay come first, then m's, every one of
	// them: validation sees m's duplicates.
	keep := map[string]int{"alternatives": len(s.Measured.Alternatives), "conversions": len(s.Measured.Conversions)}
	s.Measured.Alternatives = append(s.Measured.Alternatives, m.Alternatives...)
	s.Measured.Conversions = append(s.Measured.Conversions, m.Conversions...)
	gm, err := g.limits.build(s, nil)
	// m's entries are named at m's own paths: $.conversions[i].
	ours := func(p *jsonv.Problem) (*jsonv.Problem, bool) {
		q := *p
		if m.Target != "" && q.Path.String() == "$.measured.target" {
			q.Path = jsonv.Root.Key("target")
			return &q, true
		}
		if q.Path.Len() >= 3 {
			k0, _ := q.Path.At(0)
			k1, _ := q.Path.At(1)
			_, i := q.Path.At(2)
			if n, ok := keep[k1]; ok && k0 == "measured" && i >= n {
				q.Path = q.Path.Rebase(3, jsonv.Root.Key(k1).Index(i-n))
				return &q, true
			}
		}
		return &q, false
	}
	if err == nil {
		if conflict != nil {
			return nil, jsonv.Problems{conflict}
		}
		for i, p := range gm.warnings {
			gm.warnings[i], _ = ours(p)
		}
		return gm, nil
	}
	var ps jsonv.Problems
	if !errors.As(err, &ps) {
		return gm, err
	}
	if conflict != nil {
		ps = append(jsonv.Problems{conflict}, ps...)
	}
	// The graph was valid with its own entries: what is wrong is m's. Its
	// problems name m's file; the graph's own warnings, known from its
	// load, are left out.
	out := make(jsonv.Problems, 0, len(ps))
	for _, p := range ps {
		if q, mine := ours(p); mine || !q.Warning {
			out = append(out, q)
		}
	}
	return nil, out
}

// canonicalRename is a renaming's key as measured conversions write it:
// two renamings are one key when they are equal once parsed (spaces, pair
// order and pairs that keep a name do not matter, as for the graph's own
// keys), and one that does not parse (it is reported where it is checked)
// is the key of that text alone.
func canonicalRename(r string) string {
	if rn, err := distribution.ParseRename(r); err == nil {
		return rn.String()
	}
	return "\x00" + r
}

// LoadMeasured reads a measured-costs file (DecodeMeasured) and returns g
// with its costs (WithMeasured), or every problem of the file at once: its
// syntax and types, and what it names that g lacks, all at the file's
// paths. An entry with a problem of its own is not also checked against g.
func (g *Graph) LoadMeasured(data []byte) (*Graph, error) {
	m, err := DecodeMeasured(data)
	if err == nil {
		return g.WithMeasured(m)
	}
	var ps jsonv.Problems
	if !errors.As(err, &ps) || len(m.Alternatives)+len(m.Conversions) == 0 {
		return nil, err
	}
	_, err2 := g.WithMeasured(m)
	var more jsonv.Problems
	if !errors.As(err2, &more) {
		return nil, err
	}
	entry := func(p jsonv.Path) (string, int, bool) {
		if p.Len() < 2 {
			return "", 0, false
		}
		k, _ := p.At(0)
		_, i := p.At(1)
		return k, i, i >= 0
	}
	broken := map[[2]any]bool{}
	for _, p := range ps {
		if k, i, ok := entry(p.Path); ok {
			broken[[2]any{k, i}] = true
		}
	}
	for _, p := range more {
		if k, i, ok := entry(p.Path); !ok || !broken[[2]any{k, i}] {
			ps = append(ps, p)
		}
	}
	slices.SortStableFunc(ps, func(a, b *jsonv.Problem) int { return a.Path.Compare(b.Path) })
	return nil, ps
}

// WithTarget returns g planned for another target (a built-in name, or a
// custom target), validated again (under the Limits g was loaded with):
// the alternatives must still be runnable
// on some target, and the warnings are the new target's. Costs measured on
// another target stay, with a warning (measured_target) that the planner
// refuses them: WithoutMeasured drops them.
func (g *Graph) WithTarget(t TargetSpec) (*Graph, error) {
	s := cloneSpec(g.spec)
	s.Target = t
	if t.Custom != nil {
		c := *t.Custom
		c.Features = slices.Clone(c.Features)
		s.Target.Custom = &c
	}
	return g.limits.build(s, nil)
}

// WithoutMeasured returns g without measured costs (its "measured"), so
// that the planner costs every alternative and conversion by its figures
// and the model: what a compiler that moves a graph to another target
// (WithTarget) does with the costs measured on the old one. g is not
// changed.
func (g *Graph) WithoutMeasured() (*Graph, error) {
	s := cloneSpec(g.spec)
	s.Measured = MeasuredSpec{}
	return g.limits.build(s, nil)
}

// WithPins returns g with the pins of the invocations that pins names
// replaced, validated again as New validates a Spec (under the Limits g
// was loaded with, as WithTarget and WithMeasured are): pins[id] lists the
// alternatives invocation id may take, as its "pin" does in the JSON, and
// an empty list removes its pin. The other invocations keep their pins,
// every invocation its forbids, and g is not changed. A compiler that fixes
// some choices and plans the rest (planner.Plan) pins them so.
//
// Errors: an id that names no invocation (the message lists the graph's),
// and the Problems a pin can have in the JSON, at the invocation's path in
// the Spec: an alternative its task does not have, or a pin that its
// forbids leave nothing of. A pin that leaves nothing the target runs is a
// warning (unrunnable, in Warnings), as in the JSON: planner.Plan then
// finds no plan and names the invocation and the features its target
// lacks.
func (g *Graph) WithPins(pins map[string][]string) (*Graph, error) {
	s := cloneSpec(g.spec)
	index := make(map[string]int, len(s.Invocations))
	for i, inv := range s.Invocations {
		index[inv.ID] = i
	}
	ids := slices.Sorted(maps.Keys(pins))
	for _, id := range ids {
		i, ok := index[id]
		if !ok {
			names := make([]string, len(s.Invocations))
			for k, inv := range s.Invocations {
				names[k] = inv.ID
			}
			return nil, fmt.Errorf("tasks: WithPins: no invocation %q (the graph's invocations: %s)", id, listNames(names))
		}
		s.Invocations[i].Pin = nil
		if len(pins[id]) > 0 {
			s.Invocations[i].Pin = slices.Clone(pins[id])
		}
	}
	return g.limits.build(s, nil)
}

// encodeObject writes an object of the given members.
func encodeObject(members []jsonv.Member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(m.Key)
		b.Write(q)
		b.WriteByte(':')
		b.Write(encode(m.Value))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// encode writes a value tree back to JSON, for the packages whose decoders
// read bytes.
func encode(v *jsonv.Value) []byte {
	var b bytes.Buffer
	var walk func(v *jsonv.Value)
	walk = func(v *jsonv.Value) {
		switch v.Kind {
		case jsonv.Null:
			b.WriteString("null")
		case jsonv.Bool:
			b.WriteString(strconv.FormatBool(v.Bool()))
		case jsonv.Number:
			b.WriteString(v.Num())
		case jsonv.String:
			q, _ := json.Marshal(v.Str())
			b.Write(q)
		case jsonv.Array:
			b.WriteByte('[')
			for i, e := range v.Elems() {
				if i > 0 {
					b.WriteByte(',')
				}
				walk(e)
			}
			b.WriteByte(']')
		case jsonv.Object:
			b.WriteByte('{')
			for i, m := range v.Members() {
				if i > 0 {
					b.WriteByte(',')
				}
				q, _ := json.Marshal(m.Key)
				b.Write(q)
				b.WriteByte(':')
				walk(m.Value)
			}
			b.WriteByte('}')
		}
	}
	walk(v)
	return b.Bytes()
}

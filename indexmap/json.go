package indexmap

import (
	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/internal/jsonv"
)

type jsonSide struct {
	Kind  string           `json:"kind"`
	Space indexspace.Space `json:"space"`
}

// jsonMap is the object form, for marshalling.
type jsonMap struct {
	Domain    jsonSide `json:"domain"`
	Codomain  jsonSide `json:"codomain"`
	Results   []string `json:"results"`
	Guard     string   `json:"guard,omitempty"`
	Broadcast []string `json:"broadcast,omitempty"`
}

// MarshalJSON encodes the map as an object with expressions as text:
//
//	{"domain": {"kind": "thread-value", "space": {...}},
//	 "codomain": {"kind": "logical", "space": {...}},
//	 "results": ["lane / 4 + 8 * (v / 2 % 2)", ...],
//	 "guard": "m < 10", "broadcast": ["v"]}
//
// guard and broadcast are omitted when empty.
func (m Map) MarshalJSON() ([]byte, error) {
	j := jsonMap{
		Domain:    jsonSide{m.dom.Kind.String(), m.dom.Space},
		Codomain:  jsonSide{m.cod.Kind.String(), m.cod.Space},
		Results:   make([]string, len(m.results)),
		Broadcast: m.broadcast,
	}
	for i, e := range m.results {
		j.Results[i] = e.String()
	}
	if !m.guard.IsTrue() {
		j.Guard = m.guard.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes the object form written by MarshalJSON, or a JSON
// string holding the text form. Every problem is reported (jsonv.Problems,
// sorted), each at its JSON path with a code: $.results[1] for an expression
// that does not parse (errors.As finds its *SyntaxError), $.domain.kind for
// an unknown kind, $.x for an unknown field.
func (m *Map) UnmarshalJSON(data []byte) error {
	v, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return err
	}
	var d jsonv.Decoder
	n, _ := DecodeJSON(&d, v, jsonv.Root)
	if err := d.Err(); err != nil {
		return err
	}
	*m = n
	return nil
}

// DecodeJSON decodes a map in either JSON form from the value v at path p of
// a larger document, recording every problem in d. It reports whether the
// map is valid. The object form must have "domain", "codomain" and
// "results"; an empty object is not a map.
func DecodeJSON(d *jsonv.Decoder, v *jsonv.Value, p jsonv.Path) (Map, bool) {
	if v.Kind == jsonv.String {
		n, err := Parse(v.Str())
		if err != nil {
			d.Wrap(p, jsonv.Invalid, err)
			return Map{}, false
		}
		return n, true
	}
	if v.Kind != jsonv.Object {
		d.Report(p, jsonv.Type, "want a map object or its text form as a string, have %s", v.Describe())
		return Map{}, false
	}
	before := d.ErrorCount()
	o := d.Object(v, p, "domain", "codomain", "results", "guard", "broadcast")
	var spec Spec
	spec.Domain = decodeSide(d, o, "domain")
	spec.Codomain = decodeSide(d, o, "codomain")
	if rv, rp := o.Require("results", "an array of expressions"); rv != nil {
		elems, _ := d.Array(rv, rp)
		for i, ev := range elems {
			if text, ok := d.String(ev, rp.Index(i)); ok {
				e, err := ParseExpr(text)
				if err != nil {
					d.Wrap(rp.Index(i), jsonv.Invalid, err)
					continue
				}
				spec.Results = append(spec.Results, e)
			}
		}
	}
	if gv, gp := o.Field("guard"); gv != nil {
		if text, ok := d.String(gv, gp); ok && text != "" {
			g, err := ParseGuard(text)
			if err != nil {
				d.Wrap(gp, jsonv.Invalid, err)
			}
			spec.Guard = g
		}
	}
	if bv, bp := o.Field("broadcast"); bv != nil {
		spec.Broadcast, _ = d.Strings(bv, bp)
	}
	o.End()
	if d.ErrorCount() > before {
		return Map{}, false
	}
	n, err := New(spec)
	if err != nil {
		d.Wrap(p, jsonv.Invalid, err)
		return Map{}, false
	}
	return n, true
}

// decodeSide decodes the domain or codomain {"kind": ..., "space": ...}; an
// absent kind is untyped.
func decodeSide(d *jsonv.Decoder, o *jsonv.ObjectReader, name string) Side {
	v, p := o.Require(name, `an object {"kind": ..., "space": ...}`)
	if v == nil {
		return Side{}
	}
	so := d.Object(v, p, "kind", "space")
	var side Side
	if kv, kp := so.Field("kind"); kv != nil {
		if text, ok := d.String(kv, kp); ok {
			k, err := ParseKind(text)
			if err != nil {
				d.Wrap(kp, jsonv.Invalid, err)
			}
			side.Kind = k
		}
	}
	if sv, sp := so.Require("space", "a space"); sv != nil {
		side.Space, _ = indexspace.DecodeJSON(d, sv, sp)
	}
	so.End()
	return side
}

// MarshalText and UnmarshalText let an Expr-holding type use the text form;
// for Guard they write and read Guard.String.

// MarshalText returns the guard's text.
func (g Guard) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText parses a guard's text.
func (g *Guard) UnmarshalText(text []byte) error {
	h, err := ParseGuard(string(text))
	if err != nil {
		return err
	}
	*g = h
	return nil
}

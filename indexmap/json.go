package indexmap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cklplan/cklplan/indexspace"
)

type jsonSide struct {
	Kind  string           `json:"kind"`
	Space indexspace.Space `json:"space"`
}

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
// string holding the text form. Errors name the field.
func (m *Map) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var text string
		if err := json.Unmarshal(data, &text); err != nil {
			return fmt.Errorf("indexmap: %v", err)
		}
		n, err := Parse(text)
		if err != nil {
			return err
		}
		*m = n
		return nil
	}
	var j jsonMap
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("indexmap: %v", err)
	}
	var spec Spec
	var err error
	// An absent kind is untyped.
	if j.Domain.Kind == "" {
		j.Domain.Kind = Untyped.String()
	}
	if j.Codomain.Kind == "" {
		j.Codomain.Kind = Untyped.String()
	}
	if spec.Domain.Kind, err = ParseKind(j.Domain.Kind); err != nil {
		return fmt.Errorf("indexmap: domain.kind: %s", strings.TrimPrefix(err.Error(), "indexmap: "))
	}
	if spec.Codomain.Kind, err = ParseKind(j.Codomain.Kind); err != nil {
		return fmt.Errorf("indexmap: codomain.kind: %s", strings.TrimPrefix(err.Error(), "indexmap: "))
	}
	spec.Domain.Space, spec.Codomain.Space = j.Domain.Space, j.Codomain.Space
	for i, text := range j.Results {
		e, err := ParseExpr(text)
		if err != nil {
			return fmt.Errorf("indexmap: results[%d]: %s", i, strings.TrimPrefix(err.Error(), "indexmap: "))
		}
		spec.Results = append(spec.Results, e)
	}
	if j.Guard != "" {
		if spec.Guard, err = ParseGuard(j.Guard); err != nil {
			return fmt.Errorf("indexmap: guard: %s", strings.TrimPrefix(err.Error(), "indexmap: "))
		}
	}
	spec.Broadcast = j.Broadcast
	n, err := New(spec)
	if err != nil {
		return err
	}
	*m = n
	return nil
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

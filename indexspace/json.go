package indexspace

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// jsonAxis is the JSON form of an axis: {"name": "m", "size": 16} for a leaf,
// {"name": "n", "axes": [...]} for a group.
type jsonAxis struct {
	Name string     `json:"name"`
	Size int        `json:"size,omitempty"`
	Axes []jsonAxis `json:"axes,omitempty"`
}

type jsonSpace struct {
	Name string     `json:"name,omitempty"`
	Axes []jsonAxis `json:"axes"`
}

// MarshalJSON encodes the space as {"name": "tile", "axes": [{"name": "m",
// "size": 16}, {"name": "n", "axes": [...]}]}.
func (s Space) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonSpace{Name: s.name, Axes: toJSONAxes(s.axes)})
}

func toJSONAxes(axes []Axis) []jsonAxis {
	out := make([]jsonAxis, len(axes))
	for i, a := range axes {
		if a.factors == nil {
			out[i] = jsonAxis{Name: a.name, Size: a.size}
		} else {
			out[i] = jsonAxis{Name: a.name, Axes: toJSONAxes(a.factors)}
		}
	}
	return out
}

// UnmarshalJSON decodes the object form written by MarshalJSON, or a JSON
// string holding the text form ("tile(m:16, n:(n0:2, n1:4))").
func (s *Space) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var text string
		if err := json.Unmarshal(data, &text); err != nil {
			return fmt.Errorf("indexspace: %v", err)
		}
		t, err := Parse(text)
		if err != nil {
			return err
		}
		*s = t
		return nil
	}
	var js jsonSpace
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&js); err != nil {
		return fmt.Errorf("indexspace: %v", err)
	}
	axes, err := fromJSONAxes(js.Axes, "axes", 0)
	if err != nil {
		return err
	}
	t, err := New(js.Name, axes...)
	if err != nil {
		return err
	}
	*s = t
	return nil
}

func fromJSONAxes(js []jsonAxis, path string, depth int) ([]Axis, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("indexspace: %s: groups nested deeper than %d", path, maxDepth)
	}
	out := make([]Axis, len(js))
	for i, a := range js {
		where := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case a.Axes != nil && a.Size != 0:
			return nil, fmt.Errorf("indexspace: %s: axis %q has both a size and factor axes", where, a.Name)
		case a.Axes != nil:
			fs, err := fromJSONAxes(a.Axes, where+".axes", depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = Group(a.Name, fs...)
		default:
			out[i] = Leaf(a.Name, a.Size)
		}
	}
	return out, nil
}

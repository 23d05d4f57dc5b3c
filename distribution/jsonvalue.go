package distribution

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
)

// The JSON forms are read from the generic value tree (objects, arrays,
// strings, json.Number, booleans, null) rather than into Go structs, so that
// every error names its JSON path and says what is wrong in JSON's terms: a
// string where an integer belongs, an unknown field, a missing one.

// An object is a JSON object at a path.
type object struct {
	path string
	m    map[string]any
}

// asObject checks that v is an object with no fields outside known (nil: any
// field is allowed).
func asObject(v any, path, want string, known []string) (*object, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want %s, have %s", path, want, describe(v))
	}
	o := &object{path, m}
	if known != nil {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(known, k) {
				return nil, fmt.Errorf("%s: unknown field (want %s)", o.sub(k), strings.Join(known, ", "))
			}
		}
	}
	return o, nil
}

// sub is the path of the field key.
func (o *object) sub(key string) string {
	var b strings.Builder
	b.WriteString(o.path)
	jsonStep(&b, key)
	return b.String()
}

func (o *object) has(key string) bool {
	_, ok := o.m[key]
	return ok
}

func (o *object) missing(key, want string) error {
	return fmt.Errorf("%s: missing: want %s", o.sub(key), want)
}

// str reads a string field; absent is "" unless required.
func (o *object) str(key string, required bool) (string, error) {
	v, ok := o.m[key]
	if !ok {
		if required {
			return "", o.missing(key, "a string")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, have %s", o.sub(key), describe(v))
	}
	return s, nil
}

// integer reads an integer field; absent is 0 unless required.
func (o *object) integer(key string, required bool) (int, error) {
	v, ok := o.m[key]
	if !ok {
		if required {
			return 0, o.missing(key, "an integer")
		}
		return 0, nil
	}
	return asInt(v, o.sub(key))
}

// boolean reads a field that is true or false; absent is false.
func (o *object) boolean(key string) (bool, error) {
	v, ok := o.m[key]
	if !ok {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: want true or false, have %s", o.sub(key), describe(v))
	}
	return b, nil
}

// obj reads an object field; absent is an empty object.
func (o *object) obj(key string, known []string) (*object, error) {
	v, ok := o.m[key]
	if !ok {
		return &object{o.sub(key), map[string]any{}}, nil
	}
	return asObject(v, o.sub(key), "an object", known)
}

// array reads an array field; absent is nil.
func (o *object) array(key, want string) ([]any, error) {
	v, ok := o.m[key]
	if !ok {
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want %s, have %s", o.sub(key), want, describe(v))
	}
	return a, nil
}

// objects reads an array of objects.
func (o *object) objects(key string, known []string) ([]*object, error) {
	a, err := o.array(key, "an array of objects")
	if err != nil {
		return nil, err
	}
	var out []*object
	for i, v := range a {
		e, err := asObject(v, fmt.Sprintf("%s[%d]", o.sub(key), i), "an object", known)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ints reads an array of integers; absent is nil.
func (o *object) ints(key string) ([]int, error) {
	a, err := o.array(key, "an array of integers")
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(a))
	for i, v := range a {
		n, err := asInt(v, fmt.Sprintf("%s[%d]", o.sub(key), i))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// strs reads an array of strings; absent is nil.
func (o *object) strs(key string) ([]string, error) {
	a, err := o.array(key, "an array of strings")
	if err != nil {
		return nil, err
	}
	var out []string
	for i, v := range a {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string, have %s", o.sub(key), i, describe(v))
		}
		out = append(out, s)
	}
	return out, nil
}

// asInt reads an integer: a JSON number with no fraction and no exponent
// that fits in 64 bits.
func asInt(v any, path string) (int, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: want an integer, have %s", path, describe(v))
	}
	n, err := strconv.ParseInt(string(num), 10, 0)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%s: %s is too large for an integer", path, num)
		}
		return 0, fmt.Errorf("%s: want an integer, have the number %s", path, num)
	}
	return int(n), nil
}

// describe names a JSON value's kind, with short scalars spelt out.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return "the number " + string(v)
	case string:
		if len(v) > 40 {
			return "a string"
		}
		return "the string " + strconv.Quote(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v) // not reached: the decoder makes only the kinds above
}

package jsonv

import (
	"strconv"
	"strings"
)

// A Path locates a value in a JSON document: the root "$" followed by steps,
// each an object key or an array index. Paths are immutable values; Key and
// Index return a new path sharing its prefix with the receiver. The zero
// Path is the root.
type Path struct {
	last *step
}

type step struct {
	parent *step
	key    string
	index  int // ≥ 0 for an index step, -1 for a key step
	depth  int // number of steps up to and including this one
}

// Root is the path of the whole document, "$".
var Root = Path{}

// Key is the path of member k of the object at p.
func (p Path) Key(k string) Path {
	return Path{&step{parent: p.last, key: k, index: -1, depth: p.Len() + 1}}
}

// Index is the path of element i of the array at p.
func (p Path) Index(i int) Path {
	if i < 0 {
		panic("jsonv: negative index in a path") // a caller bug: indexes come from arrays
	}
	return Path{&step{parent: p.last, index: i, depth: p.Len() + 1}}
}

// Len is the number of steps after the root.
func (p Path) Len() int {
	if p.last == nil {
		return 0
	}
	return p.last.depth
}

// IsRoot reports whether p is the root "$".
func (p Path) IsRoot() bool { return p.last == nil }

// steps returns the steps of p, first first.
func (p Path) steps() []*step {
	out := make([]*step, p.Len())
	for s, i := p.last, len(out)-1; s != nil; s, i = s.parent, i-1 {
		out[i] = s
	}
	return out
}

// String writes p in JSONPath notation: $.a.b[2]["not an ident"].
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range p.steps() {
		switch {
		case s.index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case isIdent(s.key):
			b.WriteByte('.')
			b.WriteString(s.key)
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(s.key))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// At is step i of p (0 the first, i < Len): an object key (index -1), or
// an array index (key "").
func (p Path) At(i int) (key string, index int) {
	s := p.steps()[i]
	return s.key, s.index
}

// Rebase is q followed by the steps of p after its first n: the same place
// seen from another root.
func (p Path) Rebase(n int, q Path) Path {
	for _, s := range p.steps()[n:] {
		if s.index >= 0 {
			q = q.Index(s.index)
		} else {
			q = q.Key(s.key)
		}
	}
	return q
}

// MarshalText writes p as String does, so paths appear as strings in JSON.
func (p Path) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Equal reports whether p and q have the same steps.
func (p Path) Equal(q Path) bool { return p.Compare(q) == 0 }

// Compare orders paths step by step: a prefix first, an index before a key,
// indexes numerically, keys by their text. It returns -1, 0 or +1.
func (p Path) Compare(q Path) int {
	if p.last == q.last {
		return 0
	}
	ps, qs := p.steps(), q.steps()
	for i := 0; i < len(ps) && i < len(qs); i++ {
		a, b := ps[i], qs[i]
		switch {
		case a.index >= 0 && b.index >= 0:
			if a.index != b.index {
				return cmpInt(a.index, b.index)
			}
		case a.index >= 0:
			return -1
		case b.index >= 0:
			return +1
		default:
			if c := strings.Compare(a.key, b.key); c != 0 {
				return c
			}
		}
	}
	return cmpInt(len(ps), len(qs))
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return +1
	}
	return 0
}

// isIdent reports whether k is written bare after a dot: a letter or '_',
// then letters, digits and '_'.
func isIdent(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		letter := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

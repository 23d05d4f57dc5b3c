package indexmap

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cklplan/cklplan/indexspace"
)

// A Kind says what the points of one side of a map are.
type Kind uint8

// The kinds, in the order of docs/algebra.md. Untyped sides carry no kind
// rules; they are for intermediate and imported maps.
const (
	Untyped     Kind = iota
	Logical          // a logical index into a tile
	ThreadValue      // a (thread, value) index: who holds an element and where
	Physical         // an offset in memory (or a register slot)
)

var kindText = [...]string{Untyped: "untyped", Logical: "logical", ThreadValue: "thread-value", Physical: "physical"}

func (k Kind) String() string {
	if k <= Physical {
		return kindText[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind returns the kind named by text: "logical", "thread-value",
// "physical" or "untyped".
func ParseKind(text string) (Kind, error) {
	for k, s := range kindText {
		if s == text {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("indexmap: unknown kind %q (want logical, thread-value, physical or untyped)", text)
}

// A Side is one side of a map: a space and what its points are.
type Side struct {
	Kind  Kind
	Space indexspace.Space
}

// String returns "kind space", e.g. "logical tile(m:16)" or "logical(m:16)";
// an untyped side is its space alone.
func (s Side) String() string {
	sp := s.Space.String()
	if s.Kind == Untyped {
		return sp
	}
	if s.Space.Name() != "" {
		return s.Kind.String() + " " + sp
	}
	return s.Kind.String() + sp
}

func (s Side) equal(t Side) bool { return s.Kind == t.Kind && s.Space.Equal(t.Space) }

// A Spec lists the parts of a map for New.
type Spec struct {
	Domain, Codomain Side
	// Results holds one expression over Domain's axes per leaf of Codomain,
	// in flat order.
	Results []Expr
	// Guard restricts the map to the points where it holds (padding, bounds).
	Guard Guard
	// Broadcast names the domain axes along which replication is declared:
	// points that differ only in these axes may share an image.
	Broadcast []string
}

// A Map is a guarded map from its domain space to its codomain space: the
// point x of the domain where the guard holds goes to the codomain point whose
// leaf coordinates are the result expressions evaluated at x. Map values are
// immutable.
type Map struct {
	dom, cod  Side
	results   []Expr
	guard     Guard
	broadcast []string
	bounds    []Interval // of each result over the domain
	prog      *lazyProgram
}

// lazyProgram compiles a map once, on its first Eval; copies of a Map share it.
type lazyProgram struct {
	once sync.Once
	p    *Program
	err  error
}

func (m Map) program() (*Program, error) {
	if m.prog == nil {
		return m.Compile()
	}
	m.prog.once.Do(func() { m.prog.p, m.prog.err = m.Compile() })
	return m.prog.p, m.prog.err
}

// New checks spec and returns its map. It fails when the number of results is
// not the number of codomain leaves, an expression names an axis the domain
// lacks, a broadcast axis is unknown or repeated, an intermediate value may
// overflow (see Bounds), or a side's kind rule is broken.
func New(spec Spec) (Map, error) {
	m := Map{
		dom:     spec.Domain,
		cod:     spec.Codomain,
		results: slices.Clone(spec.Results),
		guard:   spec.Guard,
	}
	for _, s := range []Side{m.dom, m.cod} {
		if s.Kind > Physical {
			return Map{}, fmt.Errorf("indexmap: unknown kind %v", s.Kind)
		}
		if s.Kind == Untyped {
			if _, err := ParseKind(s.Space.Name()); err == nil {
				return Map{}, fmt.Errorf("indexmap: untyped space may not be named %q, a kind", s.Space.Name())
			}
		}
	}
	leaves := m.cod.Space.Leaves()
	if len(m.results) != len(leaves) {
		return Map{}, fmt.Errorf("indexmap: %d result expressions for %d codomain leaf axes of %s", len(m.results), len(leaves), m.cod.Space)
	}
	axisRange := m.domainRange
	m.bounds = make([]Interval, len(m.results))
	for i, e := range m.results {
		if e == nil {
			return Map{}, fmt.Errorf("indexmap: result %s is nil", leaves[i].Name)
		}
		iv, err := Bounds(e, axisRange)
		if err != nil {
			return Map{}, fmt.Errorf("indexmap: result %s: %s", leaves[i].Name, strings.TrimPrefix(err.Error(), "indexmap: "))
		}
		m.bounds[i] = iv
	}
	for i, t := range m.guard.terms {
		for _, e := range []Expr{t.X, t.Y} {
			if _, err := Bounds(e, axisRange); err != nil {
				return Map{}, fmt.Errorf("indexmap: guard term %d (%s): %s", i, t, strings.TrimPrefix(err.Error(), "indexmap: "))
			}
		}
	}
	seen := map[string]bool{}
	for _, b := range spec.Broadcast {
		if _, ok := m.dom.Space.Lookup(b); !ok {
			return Map{}, fmt.Errorf("indexmap: broadcast axis %q is not an axis of the domain %s", b, m.dom.Space)
		}
		if seen[b] {
			return Map{}, fmt.Errorf("indexmap: broadcast axis %q is declared twice", b)
		}
		seen[b] = true
	}
	// Canonical order: the domain's text order.
	for _, name := range m.dom.Space.Names() {
		if seen[name] {
			m.broadcast = append(m.broadcast, name)
		}
	}
	if err := m.checkKinds(); err != nil {
		return Map{}, err
	}
	m.prog = &lazyProgram{}
	return m, nil
}

// MustNew is New that panics on error; for tests and constant maps.
func MustNew(spec Spec) Map {
	m, err := New(spec)
	if err != nil {
		panic(err)
	}
	return m
}

func (m Map) domainRange(name string) (Interval, bool) {
	r, ok := m.dom.Space.Lookup(name)
	if !ok {
		return Interval{}, false
	}
	return Interval{0, r.Size - 1}, true
}

// Domain returns the domain side.
func (m Map) Domain() Side { return m.dom }

// Codomain returns the codomain side.
func (m Map) Codomain() Side { return m.cod }

// Results returns a copy of the result expressions, one per codomain leaf.
func (m Map) Results() []Expr { return slices.Clone(m.results) }

// Result returns the expression of codomain leaf i.
func (m Map) Result(i int) Expr { return m.results[i] }

// Guard returns the guard.
func (m Map) Guard() Guard { return m.guard }

// Broadcast returns the declared broadcast axes, in the domain's order.
func (m Map) Broadcast() []string { return slices.Clone(m.broadcast) }

// ResultBounds returns an interval containing every value of result i over the
// domain (ignoring the guard).
func (m Map) ResultBounds(i int) Interval { return m.bounds[i] }

// Spec returns the parts of m, for building a modified map with New.
func (m Map) Spec() Spec {
	return Spec{Domain: m.dom, Codomain: m.cod, Results: m.Results(), Guard: m.guard, Broadcast: m.Broadcast()}
}

// Equal reports whether m and n are the same map text: same sides, same
// expression trees, same guard and broadcast axes.
func (m Map) Equal(n Map) bool {
	if !m.dom.equal(n.dom) || !m.cod.equal(n.cod) || !m.guard.Equal(n.guard) ||
		!slices.Equal(m.broadcast, n.broadcast) || len(m.results) != len(n.results) {
		return false
	}
	for i := range m.results {
		if !Equal(m.results[i], n.results[i]) {
			return false
		}
	}
	return true
}

// String returns the canonical text form, which Parse reads back:
//
//	thread-value(lane:32, v:8) -> logical(m:16, k:16) = (lane / 4 + 8 * (v / 2 % 2), lane % 4 * 2 + v % 2 + 8 * (v / 4))
//
// followed by " if GUARD" when the guard is not true and " broadcast(AXES)"
// when broadcast axes are declared.
func (m Map) String() string {
	var b strings.Builder
	b.WriteString(m.dom.String())
	b.WriteString(" -> ")
	b.WriteString(m.cod.String())
	b.WriteString(" = (")
	for i, e := range m.results {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.String())
	}
	b.WriteByte(')')
	if !m.guard.IsTrue() {
		b.WriteString(" if ")
		b.WriteString(m.guard.String())
	}
	if len(m.broadcast) > 0 {
		b.WriteString(" broadcast(")
		b.WriteString(strings.Join(m.broadcast, ", "))
		b.WriteByte(')')
	}
	return b.String()
}

// env returns the values of every domain axis (groups too) at the point with
// leaf coordinates coord.
func (m Map) env(coord []int) map[string]int {
	env := make(map[string]int, len(coord))
	for _, name := range m.dom.Space.Names() {
		r, _ := m.dom.Space.Lookup(name)
		env[name] = r.Value(m.dom.Space, coord)
	}
	return env
}

// Eval returns the image of the domain point with leaf coordinates coord, and
// whether the guard holds there (when it does not, the point has no image and
// the returned values are those of the expressions, for diagnostics). It fails
// when coord is not a point of the domain. The map is compiled on its first
// Eval (see Compile) and the program is kept for later calls.
func (m Map) Eval(coord []int) ([]int, bool, error) {
	p, err := m.program()
	if err != nil {
		return nil, false, err
	}
	out := make([]int, len(m.results))
	ok, err := p.Eval(coord, out)
	if err != nil {
		return nil, false, err
	}
	return out, ok, nil
}

// evalTree evaluates m at coord by walking the expression trees; tests use it
// as the reference for the compiled evaluator.
func (m Map) evalTree(coord []int) ([]int, bool, error) {
	if _, err := m.dom.Space.Flat(coord); err != nil {
		return nil, false, fmt.Errorf("indexmap: %w", err)
	}
	env := m.env(coord)
	out := make([]int, len(m.results))
	for i, e := range m.results {
		v, err := Eval(e, env)
		if err != nil {
			return nil, false, err
		}
		out[i] = v
	}
	ok, err := m.guard.Eval(env)
	if err != nil {
		return nil, false, err
	}
	return out, ok, nil
}

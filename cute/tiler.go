package cute

import "strings"

// A Tiler is CuTe's tiler: a layout, applied to a layout as a whole (as a
// function on 1-D indices), or a tuple of tilers, applied mode by mode to the
// first modes of a layout, written <3:4, 8:2>. A shape used as a tiler, e.g.
// (3,8), is the by-mode tiler of stride-1 layouts <3:1, 8:1>. Tilers are
// immutable values.
type Tiler struct {
	layout Layout
	modes  []Tiler // by mode when non-nil
}

// LayoutTiler returns the tiler that applies l as a whole.
func LayoutTiler(l Layout) Tiler { return Tiler{layout: l} }

// ModeTiler returns the by-mode tiler of the given tilers; it copies ts.
// It panics on no tilers, a programming error.
func ModeTiler(ts ...Tiler) Tiler {
	if len(ts) == 0 {
		panic("cute: empty tiler")
	}
	return Tiler{modes: append([]Tiler(nil), ts...)}
}

// ShapeTiler returns CuTe's reading of a shape as a tiler: an integer n is
// the layout n:1, a tuple is the by-mode tiler of its elements' tilers.
func ShapeTiler(shape Tuple) (Tiler, error) {
	if shape.IsInt() {
		l, err := New(shape, Int(1))
		if err != nil {
			return Tiler{}, err
		}
		return LayoutTiler(l), nil
	}
	ts := make([]Tiler, shape.Rank())
	for i := range ts {
		var err error
		if ts[i], err = ShapeTiler(shape.At(i)); err != nil {
			return Tiler{}, err
		}
	}
	return ModeTiler(ts...), nil
}

// IsLayout reports whether t applies one layout as a whole.
func (t Tiler) IsLayout() bool { return t.modes == nil }

// Layout returns the layout of a layout tiler.
func (t Tiler) Layout() Layout { return t.layout }

// Rank returns the number of modes of a by-mode tiler, and 1 for a layout tiler.
func (t Tiler) Rank() int {
	if t.modes == nil {
		return 1
	}
	return len(t.modes)
}

// Mode returns mode i of a by-mode tiler.
func (t Tiler) Mode(i int) Tiler { return t.modes[i] }

// String returns t in CuTe notation: a layout, or <T0,T1,...>.
// ParseTiler(t.String()) equals t.
func (t Tiler) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Tiler) write(b *strings.Builder) {
	if t.modes == nil {
		b.WriteString(t.layout.String())
		return
	}
	b.WriteByte('<')
	for i, m := range t.modes {
		if i > 0 {
			b.WriteByte(',')
		}
		m.write(b)
	}
	b.WriteByte('>')
}

// Equal reports whether t and u are the same tiler.
func (t Tiler) Equal(u Tiler) bool {
	if (t.modes == nil) != (u.modes == nil) {
		return false
	}
	if t.modes == nil {
		return t.layout.Equal(u.layout)
	}
	if len(t.modes) != len(u.modes) {
		return false
	}
	for i := range t.modes {
		if !t.modes[i].Equal(u.modes[i]) {
			return false
		}
	}
	return true
}

func (p *parser) tiler(depth int) (Tiler, error) {
	if depth > maxDepth {
		return Tiler{}, p.fail("tilers nested deeper than %d", maxDepth)
	}
	if p.accept('<') {
		var ts []Tiler
		for {
			t, err := p.tiler(depth + 1)
			if err != nil {
				return Tiler{}, err
			}
			ts = append(ts, t)
			if p.accept(',') {
				continue
			}
			if !p.accept('>') {
				return Tiler{}, p.fail("expected ',' or '>'")
			}
			return Tiler{modes: ts}, nil
		}
	}
	start := p.pos
	shape, err := p.tuple(0)
	if err != nil {
		return Tiler{}, err
	}
	if p.accept(':') {
		stride, err := p.tuple(0)
		if err != nil {
			return Tiler{}, err
		}
		l, err := New(shape, stride)
		if err != nil {
			return Tiler{}, p.wrap(start, err)
		}
		return LayoutTiler(l), nil
	}
	t, err := ShapeTiler(shape)
	if err != nil {
		return Tiler{}, p.wrap(start, err)
	}
	return t, nil
}

// ParseTiler reads a tiler in CuTe notation: a layout "4:2", a by-mode tuple
// of tilers "<3:4, 8:2>", or a shape "(3,8)", read by mode as <3:1,8:1>. A
// lone integer n is the layout n:1.
func ParseTiler(s string) (Tiler, error) {
	p := &parser{s: s}
	t, err := p.tiler(0)
	if err != nil {
		return Tiler{}, err
	}
	if err := p.end(); err != nil {
		return Tiler{}, err
	}
	return t, nil
}

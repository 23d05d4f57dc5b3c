package indexmap

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrTooLarge reports a property that would need enumerating more than
// Limits.MaxPoints points (EnumerationLimit by default).
var ErrTooLarge = errors.New("indexmap: domain too large to enumerate")

// ErrOutOfRange is matched (errors.Is) by the error of a coordinate outside
// its axis, in evaluation or restriction.
var ErrOutOfRange = errors.New("out of range")

// A Method says how properties were decided.
type Method uint8

// The methods.
const (
	ByStride      Method = iota + 1 // the sorted-stride criterion on an affine map (Lemma 1 of "A Simplified Layout Algebra for GPU Kernels")
	ByEnumeration                   // evaluation at every point of the domain
)

func (m Method) String() string {
	switch m {
	case ByStride:
		return "stride criterion"
	case ByEnumeration:
		return "enumeration"
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}

// Properties are the facts about a map that its kinds depend on. Only points
// where the guard holds count.
type Properties struct {
	// InRange: every image lies in the codomain (each result in [0, size) of
	// its leaf).
	InRange bool
	// Injective: distinct points have distinct images.
	Injective bool
	// AliasFree: two points share an image only if they differ only along
	// declared broadcast axes (injective once those axes are factored out).
	AliasFree bool
	// Surjective: every codomain point is an image, and every image lies in
	// the codomain (InRange): a map whose images leave its codomain is not
	// surjective onto it even where it reaches every codomain point.
	Surjective bool
	// DenseBijection: InRange, AliasFree and Surjective: a bijection onto the
	// codomain once the broadcast axes are factored out.
	DenseBijection bool
	// Method says how the properties were decided.
	Method Method
	// Witness explains the first property found false: two points with one
	// image, a point out of range, or a codomain point no point reaches.
	Witness string
}

// Decide returns the map's properties, by the sorted-stride criterion when the
// map is affine and unguarded and by enumeration otherwise. It fails with
// ErrTooLarge when enumeration would exceed EnumerationLimit points.
func (m Map) Decide() (Properties, error) {
	if p, ok := m.decideByStride(); ok {
		return p, nil
	}
	return m.decideByEnumeration()
}

// IsInjective reports whether distinct valid points have distinct images.
func (m Map) IsInjective() (bool, error) {
	p, err := m.Decide()
	return p.Injective, err
}

// IsSurjective reports whether every codomain point is the image of a valid
// point.
func (m Map) IsSurjective() (bool, error) {
	p, err := m.Decide()
	return p.Surjective, err
}

// IsDenseBijection reports whether m is a bijection onto its codomain once
// its broadcast axes are factored out.
func (m Map) IsDenseBijection() (bool, error) {
	p, err := m.Decide()
	return p.DenseBijection, err
}

// broadcastLeaves marks the domain leaves covered by broadcast axes.
func (m Map) broadcastLeaves() []bool {
	sp := m.dom.Space
	out := make([]bool, sp.NumLeaves())
	for _, b := range m.broadcast {
		r, _ := sp.Lookup(b)
		for i := r.First; i < r.Last; i++ {
			out[i] = true
		}
	}
	return out
}

func (m Map) pointText(coord []int) string {
	parts := make([]string, len(coord))
	for i, c := range coord {
		parts[i] = fmt.Sprintf("%s=%d", m.dom.Space.Leaf(i).Name, c)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func (m Map) imageText(vals []int) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprintf("%s=%d", m.cod.Space.Leaf(i).Name, v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

type strided struct {
	leaf, size, stride int
}

// decideByStride applies when the guard is true and every result is affine.
// The codomain is flattened row-major, which is faithful because affine
// bounds are exact: if every result is in range, distinct images have
// distinct flat indices.
func (m Map) decideByStride() (Properties, bool) {
	if !m.guard.IsTrue() {
		return Properties{}, false
	}
	sp, cod := m.dom.Space, m.cod.Space
	flatConst := 0
	stride := make([]int, sp.NumLeaves())
	p := Properties{Method: ByStride, InRange: true}
	for j, e := range m.results {
		a, ok := AffineOf(e, sp)
		if !ok {
			return Properties{}, false
		}
		leaf := cod.Leaf(j)
		if iv := m.bounds[j]; iv.Lo < 0 || iv.Hi >= leaf.Size {
			// Out of range: the flat index would no longer be faithful.
			return Properties{}, false
		}
		flatConst += a.Const * leaf.Stride
		for i, c := range a.Coef {
			stride[i] += c * leaf.Stride
		}
	}
	bc := m.broadcastLeaves()
	var modes []strided
	p.Injective = true
	n := 1
	for i, l := range sp.Leaves() {
		if l.Size < 2 {
			continue
		}
		if bc[i] {
			p.Injective = false
			if p.Witness == "" {
				p.Witness = fmt.Sprintf("broadcast axis %s replicates every image %d times", l.Name, l.Size)
			}
			continue
		}
		if stride[i] == 0 {
			return Properties{}, false // let enumeration name the collision
		}
		modes = append(modes, strided{i, l.Size, stride[i]})
		n *= l.Size
	}
	slices.SortStableFunc(modes, func(a, b strided) int { return abs(a.stride) - abs(b.stride) })
	dense, minVal := true, flatConst
	want := 1
	gap := ""
	for _, md := range modes {
		if abs(md.stride) != want && dense {
			dense = false
			gap = fmt.Sprintf("sorted by stride, axis %s (size %d) has stride %d where a dense bijection needs %d (the running product of the smaller sizes)",
				sp.Leaf(md.leaf).Name, md.size, abs(md.stride), want)
		}
		want *= md.size
		if md.stride < 0 {
			minVal += md.stride * (md.size - 1)
		}
	}
	if dense {
		p.AliasFree = true
		p.Surjective = minVal == 0 && n == cod.Size()
		p.DenseBijection = p.Surjective
		if !p.Surjective {
			p.Witness = fmt.Sprintf("the image is [%d, %d), not all %d points of the codomain", minVal, minVal+n, cod.Size())
		}
		return p, true
	}
	// Not dense; injective if each stride exceeds the span of the smaller ones.
	span := 0
	for _, md := range modes {
		if abs(md.stride) <= span {
			return Properties{}, false
		}
		span += abs(md.stride) * (md.size - 1)
	}
	p.AliasFree = true
	p.Surjective = false
	p.Witness = gap
	return p, true
}

func (m Map) decideByEnumeration() (Properties, error) {
	sp, cod := m.dom.Space, m.cod.Space
	if limit := CurrentLimits().MaxPoints; sp.Size() > limit {
		return Properties{}, fmt.Errorf("%w: %s has %d points (limit %d)", ErrTooLarge, sp, sp.Size(), limit)
	}
	prog, err := m.Compile()
	if err != nil {
		return Properties{}, err
	}
	p := Properties{Method: ByEnumeration, InRange: true, Injective: true, AliasFree: true}
	bc := m.broadcastLeaves()
	nl := sp.NumLeaves()
	// quotient index: the flat index over the non-broadcast leaves.
	quotient := func(r []int) int {
		q := 0
		for i := 0; i < nl; i++ {
			if !bc[i] {
				q = q*sp.Leaf(i).Size + r[i]
			}
		}
		return q
	}
	type seen struct{ flat, quot int }
	// A dense table of the codomain when it is not much larger than the
	// domain; maps otherwise.
	dense := cod.Size() <= 1<<26 && cod.Size() <= 8*sp.Size()+1024
	var byFlat []int32 // codomain flat index → point flat index + 1
	var quotOf []int32
	if dense {
		byFlat = make([]int32, cod.Size())
		quotOf = make([]int32, cod.Size())
	}
	sparse := map[int]seen{} // in-range images when the codomain is not dense
	// Images outside the codomain, by their flat index in the box of the
	// results' bounds when that index fits an int (keying by text cost
	// seconds and a gigabyte for a domain at the limit all out of range),
	// else by text.
	box, boxSize, boxed := m.boundsBox()
	var boxFlat, boxQuot []int32 // box index → point flat index + 1, its quotient
	if boxed && boxSize <= 1<<26 && boxSize <= 8*sp.Size()+1024 {
		boxFlat, boxQuot = make([]int32, boxSize), make([]int32, boxSize)
	}
	outsideFlat := map[int]seen{}
	outside := map[string]seen{}
	hits := 0
	vals := make([]int, len(m.results))
	var firstErr string
	note := func(s string) {
		if firstErr == "" {
			firstErr = s
		}
	}
	prog.each(func(i int, r []int) {
		if !prog.holds(r) {
			return
		}
		in := true
		flat := 0
		prog.outputs(r, vals)
		for j, v := range vals {
			leaf := cod.Leaf(j)
			if v < 0 || v >= leaf.Size {
				in = false
			}
			flat += v * leaf.Stride
		}
		q := quotient(r)
		var prev seen
		var found bool
		switch {
		case in && dense:
			if byFlat[flat] != 0 {
				prev, found = seen{int(byFlat[flat]) - 1, int(quotOf[flat])}, true
			} else {
				byFlat[flat], quotOf[flat] = int32(i+1), int32(q)
			}
		case in:
			if prev, found = sparse[flat]; !found {
				sparse[flat] = seen{i, q}
			}
		case boxed && box.contains(vals) && boxFlat != nil:
			key := box.index(vals)
			if boxFlat[key] != 0 {
				prev, found = seen{int(boxFlat[key]) - 1, int(boxQuot[key])}, true
			} else {
				boxFlat[key], boxQuot[key] = int32(i+1), int32(q)
			}
		case boxed && box.contains(vals):
			key := box.index(vals)
			if prev, found = outsideFlat[key]; !found {
				outsideFlat[key] = seen{i, q}
			}
		default:
			key := fmt.Sprint(vals)
			if prev, found = outside[key]; !found {
				outside[key] = seen{i, q}
			}
		}
		if !in && p.InRange {
			p.InRange = false
			c, _ := sp.Coord(i)
			note(fmt.Sprintf("point %s maps to %s, outside the codomain %s", m.pointText(c), m.imageText(vals), cod))
		}
		if !found {
			if in {
				hits++
			}
			return
		}
		needInjective, needAliasFree := p.Injective, prev.quot != q && p.AliasFree
		if !needInjective && !needAliasFree {
			return
		}
		a, _ := sp.Coord(prev.flat)
		b, _ := sp.Coord(i)
		if needInjective {
			p.Injective = false
			if prev.quot == q {
				note(fmt.Sprintf("points %s and %s both map to %s (replication along broadcast axes)", m.pointText(a), m.pointText(b), m.imageText(vals)))
			}
		}
		if needAliasFree {
			p.AliasFree = false
			note(fmt.Sprintf("points %s and %s both map to %s", m.pointText(a), m.pointText(b), m.imageText(vals)))
		}
	})
	p.Surjective = p.InRange && hits == cod.Size()
	if !p.Surjective && p.InRange && dense {
		for f, v := range byFlat {
			if v == 0 {
				c, _ := cod.Coord(f)
				note(fmt.Sprintf("no point maps to %s", m.imageText(c)))
				break
			}
		}
	}
	if !p.Surjective && p.InRange {
		note(fmt.Sprintf("only %d of the %d points of the codomain are images", hits, cod.Size()))
	}
	p.DenseBijection = p.InRange && p.AliasFree && p.Surjective
	p.Witness = firstErr
	return p, nil
}

// A box is the product of the results' bounds, with a row-major index.
type box []Interval

// boundsBox returns the box of the results' bounds, its size, and whether
// every point of it has an index that fits an int.
func (m Map) boundsBox() (box, int, bool) {
	size := 1
	for _, iv := range m.bounds {
		n := iv.Hi - iv.Lo + 1
		if iv.Hi < iv.Lo || n <= 0 || size > math.MaxInt/n {
			return nil, 0, false
		}
		size *= n
	}
	return box(m.bounds), size, true
}

// contains reports whether vals lies in b; the bounds hold every image, so
// this only guards against an unsound bound.
func (b box) contains(vals []int) bool {
	for j, iv := range b {
		if !iv.Contains(vals[j]) {
			return false
		}
	}
	return true
}

// index is the row-major index of vals, a point of b.
func (b box) index(vals []int) int {
	k := 0
	for j, iv := range b {
		k = k*(iv.Hi-iv.Lo+1) + vals[j] - iv.Lo
	}
	return k
}

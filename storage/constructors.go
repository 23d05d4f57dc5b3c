package storage

import (
	"fmt"
	"slices"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// The byte swizzles of CUTLASS's shared-memory atoms (the SW32, SW64 and
// SW128 modes of TMA and wgmma): 16-byte chunks of a 32-, 64- or 128-byte row
// xor-ed with the row index modulo 2, 4 or 8. They act on byte addresses.
var (
	Swizzle32B  = Swizzle{B: 1, M: 4, S: 3}
	Swizzle64B  = Swizzle{B: 2, M: 4, S: 3}
	Swizzle128B = Swizzle{B: 3, M: 4, S: 3}
)

// OffsetName is the name of the leaf of the physical space that the
// constructors' maps go to.
const OffsetName = "addr"

// Strided returns the layout whose offset is Σ stride[i]·x[i] over the tile's
// leaves x[i] (in flat order), with strides counted in elements: in the Bytes
// unit they are multiplied by the element size. A leaf of a broadcast axis
// must have stride 0.
func Strided(tile indexspace.Space, stride []int, cfg Config) (Layout, error) {
	if len(stride) != tile.NumLeaves() {
		return Layout{}, fmt.Errorf("storage: %d strides for the %d leaves of %v", len(stride), tile.NumLeaves(), tile)
	}
	if !cfg.Element.Valid() {
		return Layout{}, fmt.Errorf("storage: element type %v: want one of the declared types", cfg.Element)
	}
	scale := 1
	if cfg.Unit == Bytes {
		scale = max(1, cfg.Element.Bits()/8)
	}
	leaves := tile.Leaves()
	var sum indexmap.Expr
	hi := 0
	for i, s := range stride {
		if s == 0 || leaves[i].Size == 1 {
			continue
		}
		s, ok := mulChecked(s, scale)
		if ok {
			s, ok = mulChecked(s, leaves[i].Size-1)
		}
		if !ok || hi > maxOffset-abs(s) {
			return Layout{}, fmt.Errorf("storage: leaf %s: stride %d overflows the address range", leaves[i].Name, stride[i])
		}
		if s > 0 {
			hi += s
		}
		var term indexmap.Expr = indexmap.V(leaves[i].Name)
		if k := stride[i] * scale; k != 1 {
			term = indexmap.Product(term, indexmap.C(k))
		}
		if sum == nil {
			sum = term
		} else {
			sum = indexmap.Sum(sum, term)
		}
	}
	if sum == nil {
		sum = indexmap.C(0)
	}
	cod, err := indexspace.New("", indexspace.Leaf(OffsetName, hi+max(1, scale)))
	if err != nil {
		return Layout{}, fmt.Errorf("storage: address space: %v", err)
	}
	m, err := indexmap.New(indexmap.Spec{
		Domain:    indexmap.Side{Kind: indexmap.Logical, Space: tile},
		Codomain:  indexmap.Side{Kind: indexmap.Physical, Space: cod},
		Results:   []indexmap.Expr{sum},
		Broadcast: cfg.Broadcast,
	})
	if err != nil {
		return Layout{}, fmt.Errorf("storage: address map: %w", err)
	}
	cfg.Broadcast = nil
	return New(m, cfg)
}

// maxOffset bounds the constructors' offsets so that sums cannot overflow.
const maxOffset = 1 << 53

func mulChecked(a, b int) (int, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || abs(p) > maxOffset {
		return 0, false
	}
	return p, true
}

// RowMajor returns the row-major layout of the tile (the last leaf fastest)
// with pad elements of padding after every run of the fastest leaf: the leaf
// before it has stride n+pad where n is the fastest leaf's size, and every
// earlier leaf the product of the strides and sizes after it. Leaves of
// broadcast axes get stride 0 and are skipped.
func RowMajor(tile indexspace.Space, pad int, cfg Config) (Layout, error) {
	stride, err := packedStrides(tile, pad, cfg.Broadcast, false)
	if err != nil {
		return Layout{}, err
	}
	return Strided(tile, stride, cfg)
}

// ColMajor is RowMajor with the first leaf fastest.
func ColMajor(tile indexspace.Space, pad int, cfg Config) (Layout, error) {
	stride, err := packedStrides(tile, pad, cfg.Broadcast, true)
	if err != nil {
		return Layout{}, err
	}
	return Strided(tile, stride, cfg)
}

func packedStrides(tile indexspace.Space, pad int, broadcast []string, firstFastest bool) ([]int, error) {
	if pad < 0 {
		return nil, fmt.Errorf("storage: padding %d: want a non-negative number of elements", pad)
	}
	leaves := tile.Leaves()
	skip := make([]bool, len(leaves))
	for _, b := range broadcast {
		r, ok := tile.Lookup(b)
		if !ok {
			return nil, fmt.Errorf("storage: broadcast axis %q is not an axis of %v", b, tile)
		}
		for i := r.First; i < r.Last; i++ {
			skip[i] = true
		}
	}
	order := make([]int, 0, len(leaves)) // fastest first
	for i := range leaves {
		if !skip[i] {
			order = append(order, i)
		}
	}
	if !firstFastest {
		slices.Reverse(order)
	}
	stride := make([]int, len(leaves))
	next := 1
	for j, i := range order {
		stride[i] = next
		size := leaves[i].Size
		if j == 0 {
			size += pad
		}
		var ok bool
		if next, ok = mulChecked(next, size); !ok {
			return nil, fmt.Errorf("storage: leaf %s: the packed stride overflows", leaves[i].Name)
		}
	}
	return stride, nil
}

// CuTeStrides returns the layout with CuTe's strides: stride lists one stride
// per leaf in CuTe's mode order, the fastest mode first, which is the tile's
// leaf order reversed (docs/architecture.md, Conventions). The CuTe layout (64,8):(1,64) is the
// tile (m:8, k:64) with CuTeStrides [1, 64]: k has stride 1, m stride 64.
func CuTeStrides(tile indexspace.Space, stride []int, cfg Config) (Layout, error) {
	ours := slices.Clone(stride)
	slices.Reverse(ours)
	return Strided(tile, ours, cfg)
}

// SwizzledRowMajor returns a shared-memory-style tile: row-major in the
// Bytes unit with the byte swizzle sw, e.g. Swizzle128B over rows of 64
// 16-bit elements. A zero cfg.BaseAlign becomes the swizzle's period.
func SwizzledRowMajor(tile indexspace.Space, sw Swizzle, cfg Config) (Layout, error) {
	cfg.Unit = Bytes
	cfg.Swizzle = sw
	return RowMajor(tile, 0, cfg)
}

// withSwizzle is the layout New builds from l's map and configuration with
// the swizzle sw and base alignment align (bytes) instead: New's address
// checks concern the unswizzled offsets, which stay, so only the
// configuration is checked again.
func (l Layout) withSwizzle(sw Swizzle, align int) (Layout, error) {
	l.swizzle, l.align = sw, align
	if err := l.fillConfig(); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// FromCuTe returns the layout of the CuTe layout cl (strides in elements)
// over the tile: cl's flattened modes, listed fastest first in CuTe's
// order, are the tile's leaves in reverse (docs/architecture.md, Conventions), so (64,8):(1,64)
// stores tile (m:8, k:64) row-major. Each flattened shape entry must equal
// the size of its leaf. CuTe's stride-0 modes are broadcasts; their leaves
// must be declared in cfg.Broadcast.
func FromCuTe(tile indexspace.Space, cl cute.Layout, cfg Config) (Layout, error) {
	shape, stride := cl.FlatShape(), cl.FlatStride()
	leaves := tile.Leaves()
	if len(shape) != len(leaves) {
		return Layout{}, fmt.Errorf("storage: CuTe layout %v has %d flattened modes, the tile %v %d leaves", cl, len(shape), tile, len(leaves))
	}
	for j, n := range shape {
		leaf := leaves[len(leaves)-1-j]
		if n != leaf.Size {
			return Layout{}, fmt.Errorf("storage: CuTe layout %v: mode %d has size %d, but its leaf %s (the tile's leaves reversed) has size %d", cl, j, n, leaf.Name, leaf.Size)
		}
	}
	return CuTeStrides(tile, stride, cfg)
}

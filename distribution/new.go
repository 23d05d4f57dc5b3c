package distribution

import (
	"fmt"
	"slices"
	"sync"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// New parses the index-map text of spec, tabulates the ownership and local
// storage maps over their domains and checks every invariant. An invalid
// distribution is reported as a *ValidityError listing each element or
// executor at fault; malformed text as an error naming the tile axis or the
// storage map and the offset.
func New(spec Spec) (*Distribution, error) {
	if len(spec.Ownership) != len(spec.Tile) {
		return nil, fmt.Errorf("distribution %q: %d ownership expressions for %d tile axes %s", spec.Name, len(spec.Ownership), len(spec.Tile), axesString(spec.Tile))
	}
	var domAxes, localAxes, tileAxes []indexspace.Axis
	for _, a := range spec.Executors {
		domAxes = append(domAxes, indexspace.Leaf(a.Name, a.Size))
	}
	for _, a := range spec.Locals {
		localAxes = append(localAxes, indexspace.Leaf(a.Name, a.Size))
	}
	domAxes = append(domAxes, localAxes...)
	for _, a := range spec.Tile {
		tileAxes = append(tileAxes, indexspace.Leaf(a.Name, a.Size))
	}
	// Check the shape first: its errors are the clearest.
	shape := &Distribution{spec: cloneSpec(spec)}
	if err := shape.checkShape(); err != nil {
		return nil, err
	}
	dom, err := indexspace.New("", domAxes...)
	if err != nil {
		return nil, fmt.Errorf("distribution %q: executor × local space: %w", spec.Name, err)
	}
	localSpace, err := indexspace.New("", localAxes...)
	if err != nil {
		return nil, fmt.Errorf("distribution %q: local space: %w", spec.Name, err)
	}
	tileSpace, err := indexspace.New("", tileAxes...)
	if err != nil {
		return nil, fmt.Errorf("distribution %q: tile space: %w", spec.Name, err)
	}

	results := make([]indexmap.Expr, len(spec.Ownership))
	for i, text := range spec.Ownership {
		if results[i], err = indexmap.ParseExpr(text); err != nil {
			return nil, fmt.Errorf("distribution %q: ownership of %s %q: %w", spec.Name, spec.Tile[i].Name, text, err)
		}
	}
	own, err := indexmap.New(indexmap.Spec{
		Domain:   indexmap.Side{Space: dom},
		Codomain: indexmap.Side{Space: tileSpace},
		Results:  results,
	})
	if err != nil {
		return nil, fmt.Errorf("distribution %q: ownership: %w", spec.Name, err)
	}
	ownTable, err := tabulate(own)
	if err != nil {
		return nil, fmt.Errorf("distribution %q: ownership: %w", spec.Name, err)
	}

	storageText := spec.Storage
	if storageText == "" {
		storageText = flatLocalText(spec.Locals)
	}
	slotExpr, err := indexmap.ParseExpr(storageText)
	if err != nil {
		return nil, fmt.Errorf("distribution %q: storage %q: %w", spec.Name, spec.Storage, err)
	}
	nLocal := max(localSpace.Size(), 1)
	slotSpace, err := indexspace.New("", indexspace.Leaf("reg", nLocal))
	if err != nil {
		return nil, fmt.Errorf("distribution %q: register space: %w", spec.Name, err)
	}
	store, err := indexmap.New(indexmap.Spec{
		Domain:   indexmap.Side{Space: localSpace},
		Codomain: indexmap.Side{Space: slotSpace},
		Results:  []indexmap.Expr{slotExpr},
	})
	if err != nil {
		return nil, fmt.Errorf("distribution %q: storage: %w", spec.Name, err)
	}
	storeTable, err := tabulate(store)
	if err != nil {
		return nil, fmt.Errorf("distribution %q: storage: %w", spec.Name, err)
	}

	canon := cloneSpec(spec)
	for i, e := range results {
		canon.Ownership[i] = e.String()
	}
	if spec.Storage != "" {
		canon.Storage = slotExpr.String()
	}
	pointSizes := make([]int, 0, len(domAxes))
	for _, a := range spec.Executors {
		pointSizes = append(pointSizes, a.Size)
	}
	localSizes := make([]int, 0, len(localAxes))
	for _, a := range spec.Locals {
		localSizes = append(localSizes, a.Size)
	}
	pointSizes = append(pointSizes, localSizes...)
	d, err := build(canon,
		func(point, tile []int) error {
			copy(tile, ownTable.At(flatten(point, pointSizes)))
			return nil
		},
		func(local []int) (int, error) {
			return storeTable.At(flatten(local, localSizes))[0], nil
		})
	if err != nil {
		return nil, err
	}

	// The typed maps, for the algebra: thread-value → logical with the
	// replicated axes declared as broadcast, and local → physical registers.
	// build has checked what indexmap's kind rules require of them (a dense
	// bijection once the replicated axes are fixed, distinct register slots)
	// except that a result may not depend on a replicated axis (indexmap's
	// broadcast rule), checked here. indexmap.New checks them again, by
	// enumeration for non-affine maps, when they are first asked for.
	var broadcast []string
	for _, a := range spec.Executors {
		if a.Replicated {
			broadcast = append(broadcast, a.Name)
		}
	}
	for i, e := range results {
		for _, v := range indexmap.Vars(e) {
			if slices.Contains(broadcast, v) {
				return nil, fmt.Errorf("distribution %q: ownership: result %s depends on %s, which is declared broadcast", spec.Name, spec.Tile[i].Name, v)
			}
		}
	}
	d.typed = &typedMaps{
		ownership: indexmap.Spec{
			Domain:    indexmap.Side{Kind: indexmap.ThreadValue, Space: dom},
			Codomain:  indexmap.Side{Kind: indexmap.Logical, Space: tileSpace},
			Results:   results,
			Broadcast: broadcast,
		},
		storage: indexmap.Spec{
			Domain:   indexmap.Side{Space: localSpace},
			Codomain: indexmap.Side{Kind: indexmap.Physical, Space: slotSpace},
			Results:  []indexmap.Expr{slotExpr},
		},
	}
	return d, nil
}

// typedMaps holds a distribution's typed index maps, built by indexmap.New
// (and so checked by indexmap's kind rules) once, on first use; copies of a
// Distribution (WithName) share it.
type typedMaps struct {
	ownership, storage indexmap.Spec
	once               sync.Once
	own, store         indexmap.Map
	err                error
}

func (d *Distribution) typedMaps() *typedMaps {
	t := d.typed
	if t == nil { // the zero Distribution: zero maps, as before New built them
		return &typedMaps{}
	}
	t.once.Do(func() {
		if t.own, t.err = indexmap.New(t.ownership); t.err != nil {
			t.err = fmt.Errorf("ownership: %w", t.err)
			return
		}
		if t.store, t.err = indexmap.New(t.storage); t.err != nil {
			t.err = fmt.Errorf("storage: %w", t.err)
		}
	})
	if t.err != nil {
		// New checked everything indexmap.New checks (TestTypedMaps and
		// FuzzTypedMaps hold it to that); reaching here is a bug.
		panic(fmt.Sprintf("distribution %q: a typed map of a valid distribution is rejected: %v", d.spec.Name, t.err))
	}
	return t
}

// MustNew is New that panics on error; for tests and constant specs.
func MustNew(spec Spec) *Distribution {
	d, err := New(spec)
	if err != nil {
		panic(err)
	}
	return d
}

// Ownership returns the ownership map: thread-value (executor and local
// axes) → logical tile, with the replicated axes declared as broadcast. It is
// built and checked by indexmap.New on the first call.
func (d *Distribution) Ownership() indexmap.Map { return d.typedMaps().own }

// Storage returns the local storage map: local axes → physical register slot.
// It is built and checked by indexmap.New on the first call.
func (d *Distribution) Storage() indexmap.Map { return d.typedMaps().store }

func tabulate(m indexmap.Map) (indexmap.Table, error) {
	p, err := m.Compile()
	if err != nil {
		return indexmap.Table{}, err
	}
	return p.Tabulate(maxPoints * 8)
}

// flatLocalText is the row-major flat index of the local axes as an
// expression: "v", or "(a * 2 + b) * 2 + c"; "0" when there are none.
func flatLocalText(locals []Axis) string {
	if len(locals) == 0 {
		return "0"
	}
	s := locals[0].Name
	for _, a := range locals[1:] {
		s = fmt.Sprintf("(%s) * %d + %s", s, a.Size, a.Name)
	}
	return s
}

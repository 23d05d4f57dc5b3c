package planner

import "encoding/binary"

// Classes of a kernel's alternatives.
//
// Inside a fused kernel most of a node's alternatives differ to a group's
// table only by the distribution of the port the group reads or writes:
// the table's entries at two alternatives of one label are the same. A
// message that eliminates v is then the same at two alternatives of one of
// its nodes x when every factor it joins over x is the same at both, and so
// is every table built from it. So the kernel's program fills one entry per
// class of each node's alternatives and shares its front with the class's
// other entries, and a bucket's min-marginals walk one assignment per class
// of the nodes other than the bucket's own. Each entry filled is the same
// convolutions, in the same order, as before: every front and every cost is
// the same number.
//
// A factor's classes (pfactor.cls) are, per variable, a class number for
// each of its values (alternatives, or positions where pos): two values of
// one class leave every entry of the table the same, bit for bit. nil
// stands for every value a class of its own (a node's own front, W). The
// groups' factors get theirs from their members' labels (groupFactor), the
// messages from the factors they join (newClassGrid).

// classesOff makes every class one value, and tailsOff joins nodes' own
// fronts in their order (unionJoinTails), for tests: the program's numbers
// are the same either way (with tailsOff, up to rounding).
var classesOff, tailsOff bool

// A classGrid is the assignments of some nodes (vars, by position in the
// program's domains) by class: per node, each class's positions
// (ascending, the first its representative) and each position's class.
type classGrid struct {
	vars    []int
	members [][][]int // per var, per class, its positions
	cls     [][]int32 // per var, per position, its class
}

// newClassGrid classes the positions of each node of vars by the factors
// over it: two positions share a class where every factor of with over the
// node has them in one class, and all where full says so (nil: none) has
// every position a class of its own.
func newClassGrid(pr *program, with []pfactor, vars []int, full func(x int) bool) classGrid {
	g := classGrid{vars: vars, members: make([][][]int, len(vars)), cls: make([][]int32, len(vars))}
	var key []byte
	for j, x := range vars {
		d := len(pr.dom[x])
		c := make([]int32, d)
		g.cls[j] = c
		if classesOff || full != nil && full(x) {
			g.members[j] = make([][]int, d)
			for p := range d {
				c[p] = int32(p)
				g.members[j][p] = []int{p}
			}
			continue
		}
		ids := make(map[string]int32)
		for p := range d {
			key = key[:0]
			for k := range with {
				f := &with[k]
				for i, y := range f.vars {
					if y != x {
						continue
					}
					val := int32(p)
					if !f.pos {
						val = int32(pr.dom[x][p])
					}
					if f.cls != nil {
						val = f.cls[i][val]
					}
					key = binary.LittleEndian.AppendUint32(key, uint32(val))
				}
			}
			id, ok := ids[string(key)]
			if !ok {
				id = int32(len(g.members[j]))
				ids[string(key)] = id
				g.members[j] = append(g.members[j], nil)
			}
			c[p] = id
			g.members[j][id] = append(g.members[j][id], p)
		}
	}
	return g
}

// size is the number of class tuples.
func (g *classGrid) size() int {
	n := 1
	for _, m := range g.members {
		n *= len(m)
	}
	return n
}

// forMembers calls fn with every entry (row-major over g.vars, dims
// those of the program's domains) whose positions are in the classes
// tuple (one class per var).
func (g *classGrid) forMembers(tuple []int, dims []int, idx []int, fn func(idx int)) {
	// idx: scratch of len(vars), the position reached in each class.
	for j := range idx {
		idx[j] = 0
	}
	for {
		e := 0
		for j := range g.vars {
			e = e*dims[j] + g.members[j][tuple[j]][idx[j]]
		}
		fn(e)
		j := len(idx) - 1
		for ; j >= 0; j-- {
			if idx[j]++; idx[j] < len(g.members[j][tuple[j]]) {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

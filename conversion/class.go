package conversion

import "fmt"

// A Class is the lowest hardware level a conversion must cross, in the
// order of the hierarchy: each class is slower to cross than the one before.
type Class uint8

// The conversion classes.
const (
	// Identity: every destination register already holds its element.
	Identity Class = iota
	// RegisterPermute: elements stay in their thread and change register
	// (or type).
	RegisterPermute
	// WarpShuffle: elements stay in their warp and change lane.
	WarpShuffle
	// SharedMemory: elements cross warps of one block.
	SharedMemory
	// ClusterSharedMemory: elements cross blocks of one thread-block
	// cluster.
	ClusterSharedMemory
	// GlobalMemory: elements cross blocks outside a cluster, or the tile
	// crosses a kernel boundary.
	GlobalMemory
)

var classNames = [...]string{
	Identity:            "identity",
	RegisterPermute:     "register_permute",
	WarpShuffle:         "warp_shuffle",
	SharedMemory:        "shared_memory",
	ClusterSharedMemory: "cluster_shared_memory",
	GlobalMemory:        "global_memory",
}

// Classes lists the classes in order.
func Classes() []Class {
	out := make([]Class, len(classNames))
	for i := range out {
		out[i] = Class(i)
	}
	return out
}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// ParseClass is the inverse of Class.String.
func ParseClass(s string) (Class, error) {
	for c, name := range classNames {
		if name == s {
			return Class(c), nil
		}
	}
	return 0, fmt.Errorf("conversion: unknown class %q", s)
}

// MarshalText writes the class as its String.
func (c Class) MarshalText() ([]byte, error) {
	if int(c) >= len(classNames) {
		return nil, fmt.Errorf("conversion: cannot marshal %v", c)
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads a class written by MarshalText.
func (c *Class) UnmarshalText(text []byte) error {
	v, err := ParseClass(string(text))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// A Mechanism is how a conversion is carried out: the level it moves the
// elements through (a Class at or above the conversion's class) and, for
// distributed shared memory, whether the sources push or the destinations
// pull.
type Mechanism struct {
	Via     Class
	Variant string // "push" or "pull" for ClusterSharedMemory, else ""
}

// String is the level's name, with the variant after a slash:
// "cluster_shared_memory/push".
func (m Mechanism) String() string {
	if m.Variant == "" {
		return m.Via.String()
	}
	return m.Via.String() + "/" + m.Variant
}

// MarshalText writes the mechanism as its String.
func (m Mechanism) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

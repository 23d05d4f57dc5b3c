package storage

import (
	"fmt"
	"strings"
)

// An ElementType is the type of one stored tile element. The set is closed;
// the zero value is invalid.
type ElementType uint8

// The element types, widest first within each family.
const (
	InvalidElement ElementType = iota
	F64                        // IEEE binary64
	F32                        // IEEE binary32
	TF32                       // TensorFloat-32: 19 significant bits stored in 32
	F16                        // IEEE binary16
	BF16                       // bfloat16
	F8E4M3                     // 8-bit float, 4 exponent and 3 mantissa bits
	F8E5M2                     // 8-bit float, 5 exponent and 2 mantissa bits
	F4E2M1                     // 4-bit float, 2 exponent and 1 mantissa bit
	I64                        // signed integers
	I32
	I16
	I8
	I4
	U64 // unsigned integers
	U32
	U16
	U8
	U4
	B1 // a single bit
)

var elementInfo = [...]struct {
	name string
	bits int
}{
	InvalidElement: {"invalid", 0},
	F64:            {"f64", 64},
	F32:            {"f32", 32},
	TF32:           {"tf32", 32},
	F16:            {"f16", 16},
	BF16:           {"bf16", 16},
	F8E4M3:         {"f8e4m3", 8},
	F8E5M2:         {"f8e5m2", 8},
	F4E2M1:         {"f4e2m1", 4},
	I64:            {"i64", 64},
	I32:            {"i32", 32},
	I16:            {"i16", 16},
	I8:             {"i8", 8},
	I4:             {"i4", 4},
	U64:            {"u64", 64},
	U32:            {"u32", 32},
	U16:            {"u16", 16},
	U8:             {"u8", 8},
	U4:             {"u4", 4},
	B1:             {"b1", 1},
}

// ElementTypes lists every valid element type in declaration order.
func ElementTypes() []ElementType {
	ts := make([]ElementType, 0, len(elementInfo)-1)
	for t := F64; int(t) < len(elementInfo); t++ {
		ts = append(ts, t)
	}
	return ts
}

// Valid reports whether t is one of the declared element types.
func (t ElementType) Valid() bool { return t > InvalidElement && int(t) < len(elementInfo) }

// Bits is the storage size of one element in bits: 1, 4, 8, 16, 32 or 64.
// Types narrower than a byte are packed, 8/Bits to a byte.
func (t ElementType) Bits() int {
	if !t.Valid() {
		return 0
	}
	return elementInfo[t].bits
}

// String is the canonical name, e.g. "bf16"; ParseElementType reads it back.
func (t ElementType) String() string {
	if !t.Valid() {
		return fmt.Sprintf("ElementType(%d)", uint8(t))
	}
	return elementInfo[t].name
}

// ParseElementType reads an element type name ("f32", "f8e4m3", "u4", ...).
func ParseElementType(s string) (ElementType, error) {
	for _, t := range ElementTypes() {
		if elementInfo[t].name == s {
			return t, nil
		}
	}
	names := make([]string, 0, len(elementInfo))
	for _, t := range ElementTypes() {
		names = append(names, t.String())
	}
	return InvalidElement, fmt.Errorf("storage: unknown element type %q (want one of %s)", s, strings.Join(names, ", "))
}

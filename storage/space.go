package storage

import "fmt"

// A MemorySpace is where a layout's addresses live.
type MemorySpace uint8

// The memory spaces, innermost first. The zero value is invalid.
const (
	InvalidMemory MemorySpace = iota
	Register                  // a thread's registers; an address names a byte of its register file
	Shared                    // a CTA's shared memory: 32 banks of 4 bytes
	Global                    // device memory
)

var memoryNames = [...]string{InvalidMemory: "invalid", Register: "register", Shared: "shared", Global: "global"}

// Valid reports whether m is Register, Shared or Global.
func (m MemorySpace) Valid() bool { return m > InvalidMemory && int(m) < len(memoryNames) }

// String is the canonical name: "register", "shared" or "global".
func (m MemorySpace) String() string {
	if !m.Valid() {
		return fmt.Sprintf("MemorySpace(%d)", uint8(m))
	}
	return memoryNames[m]
}

// ParseMemorySpace reads "register", "shared" or "global".
func ParseMemorySpace(s string) (MemorySpace, error) {
	for m := Register; int(m) < len(memoryNames); m++ {
		if memoryNames[m] == s {
			return m, nil
		}
	}
	return InvalidMemory, fmt.Errorf("storage: unknown memory space %q (want register, shared or global)", s)
}

// An AddressUnit says what one step of a layout's address counts. The
// physical position of an element whose address is a, relative to the base:
//
//	Bytes:    bytes [a, a+E) where E = Bits/8; needs Bits >= 8 and a % E == 0
//	Elements: bits  [a*Bits, (a+1)*Bits), i.e. byte floor(a*Bits/8) at bit
//	          offset a*Bits % 8 (sub-byte elements fill a byte from its
//	          least significant bit: for 4-bit types, even a is the low nibble)
//
// A swizzle acts on the address in its own unit, before the base is added.
type AddressUnit uint8

// The address units. The zero value is invalid.
const (
	InvalidUnit AddressUnit = iota
	Bytes
	Elements
)

var unitNames = [...]string{InvalidUnit: "invalid", Bytes: "bytes", Elements: "elements"}

// Valid reports whether u is Bytes or Elements.
func (u AddressUnit) Valid() bool { return u > InvalidUnit && int(u) < len(unitNames) }

// String is the canonical name: "bytes" or "elements".
func (u AddressUnit) String() string {
	if !u.Valid() {
		return fmt.Sprintf("AddressUnit(%d)", uint8(u))
	}
	return unitNames[u]
}

// ParseAddressUnit reads "bytes" or "elements".
func ParseAddressUnit(s string) (AddressUnit, error) {
	switch s {
	case "bytes":
		return Bytes, nil
	case "elements":
		return Elements, nil
	}
	return InvalidUnit, fmt.Errorf("storage: unknown address unit %q (want bytes or elements)", s)
}

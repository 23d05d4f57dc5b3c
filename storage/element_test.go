package storage

import (
	"strings"
	"testing"
)

func TestElementTypes(t *testing.T) {
	bits := map[string]int{
		"f64": 64, "f32": 32, "tf32": 32, "f16": 16, "bf16": 16, "f8e4m3": 8, "f8e5m2": 8, "f4e2m1": 4,
		"i64": 64, "i32": 32, "i16": 16, "i8": 8, "i4": 4, "u64": 64, "u32": 32, "u16": 16, "u8": 8, "u4": 4, "b1": 1,
	}
	if got := len(ElementTypes()); got != len(bits) {
		t.Errorf("ElementTypes() has %d types, the table %d", got, len(bits))
	}
	for _, et := range ElementTypes() {
		want, ok := bits[et.String()]
		if !ok {
			t.Errorf("%v: not in the table", et)
			continue
		}
		if et.Bits() != want {
			t.Errorf("%v.Bits() = %d, want %d", et, et.Bits(), want)
		}
		if 8%want != 0 && want%8 != 0 {
			t.Errorf("%v: %d bits neither packs into nor fills whole bytes", et, want)
		}
		back, err := ParseElementType(et.String())
		if err != nil || back != et {
			t.Errorf("ParseElementType(%q) = %v, %v", et.String(), back, err)
		}
	}
	if _, err := ParseElementType("f12"); err == nil || !strings.Contains(err.Error(), `unknown element type "f12" (want one of f64, f32`) {
		t.Errorf("ParseElementType(f12) = %v", err)
	}
	if got := InvalidElement.String(); got != "ElementType(0)" {
		t.Errorf("InvalidElement.String() = %q", got)
	}
}

func TestEnumsText(t *testing.T) {
	for _, m := range []MemorySpace{Register, Shared, Global} {
		if back, err := ParseMemorySpace(m.String()); err != nil || back != m {
			t.Errorf("ParseMemorySpace(%q) = %v, %v", m, back, err)
		}
	}
	for _, u := range []AddressUnit{Bytes, Elements} {
		if back, err := ParseAddressUnit(u.String()); err != nil || back != u {
			t.Errorf("ParseAddressUnit(%q) = %v, %v", u, back, err)
		}
	}
	if _, err := ParseMemorySpace("local"); err == nil || !strings.Contains(err.Error(), `unknown memory space "local"`) {
		t.Errorf("ParseMemorySpace(local) = %v", err)
	}
	if _, err := ParseAddressUnit("bits"); err == nil || !strings.Contains(err.Error(), `unknown address unit "bits"`) {
		t.Errorf("ParseAddressUnit(bits) = %v", err)
	}
}

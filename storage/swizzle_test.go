package storage

import (
	"strings"
	"testing"

	"github.com/cklplan/cklplan/indexmap"
)

// smallSwizzles lists every valid Swizzle<B,M,S> with B <= 3, M <= 4, S <= B+3.
func smallSwizzles(t *testing.T) []Swizzle {
	t.Helper()
	var out []Swizzle
	for b := 1; b <= 3; b++ {
		for m := 0; m <= 4; m++ {
			for s := b; s <= b+3; s++ {
				sw, err := NewSwizzle(b, m, s)
				if err != nil {
					t.Fatalf("NewSwizzle(%d,%d,%d): %v", b, m, s, err)
				}
				out = append(out, sw)
			}
		}
	}
	return out
}

// TestSwizzleBijection checks that a swizzle permutes its span [0, Period),
// is an involution, and commutes with adding multiples of its period.
func TestSwizzleBijection(t *testing.T) {
	for _, sw := range smallSwizzles(t) {
		p := sw.Period()
		seen := make([]bool, p)
		for a := range p {
			y := sw.Apply(a)
			if y < 0 || y >= p {
				t.Fatalf("%v(%d) = %d, outside [0, %d)", sw, a, y, p)
			}
			if seen[y] {
				t.Fatalf("%v is not injective on [0, %d): %d is hit twice", sw, p, y)
			}
			seen[y] = true
			if z := sw.Apply(y); z != a {
				t.Fatalf("%v(%v(%d)) = %d, want %d", sw, sw, a, z, a)
			}
			if z := sw.Apply(a + 3*p); z != y+3*p {
				t.Fatalf("%v(%d + 3*%d) = %d, want %d", sw, a, p, z, y+3*p)
			}
		}
	}
}

// TestSwizzleDefinitions checks Apply against CuTe's bit-mask definition
// (cute/swizzle.hpp: yyy bits [M+S, M+S+B) xor-ed into zzz bits [M, M+B))
// and against the arithmetic expression that Expr prints.
func TestSwizzleDefinitions(t *testing.T) {
	for _, sw := range smallSwizzles(t) {
		bitMask := int64(1)<<sw.B - 1
		yyy := bitMask << (sw.M + sw.S)
		zzz := bitMask << sw.M
		pow := func(e int) int64 { return int64(1) << e }
		for a := range 4 * sw.Period() {
			cute := a ^ ((a & yyy) >> sw.S)
			arith := a ^ ((a/pow(sw.M+sw.S))%pow(sw.B))*pow(sw.M)
			got := sw.Apply(a)
			if got != cute || got != arith {
				t.Fatalf("%v(%d) = %d; CuTe mask form %d, arithmetic form %d", sw, a, got, cute, arith)
			}
			if (got^a)&^zzz != 0 {
				t.Fatalf("%v(%d) changed bits outside zzz mask %#b", sw, a, zzz)
			}
		}
	}
}

// TestSwizzleDefinition4Example is the example of Definition 4 of "A Simplified Layout
// Algebra for GPU Kernels": b=1, src=1,
// dst=0 (Swizzle<1,0,1>) is x ^ ((x >> 1) & 1), and on f(a,b) = 2a+b it gives
// (2a+b) ^ a, which at a = 1 is 3-b.
func TestSwizzleDefinition4Example(t *testing.T) {
	sw, err := NewSwizzle(1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	for x := range int64(64) {
		if got, want := sw.Apply(x), x^((x>>1)&1); got != want {
			t.Errorf("%v(%d) = %d, want %d", sw, x, got, want)
		}
	}
	for b := range int64(2) {
		if got, want := sw.Apply(2*1+b), 3-b; got != want {
			t.Errorf("%v(2+%d) = %d, want %d", sw, b, got, want)
		}
	}
}

func TestSwizzleText(t *testing.T) {
	tests := []struct {
		name, in, want, expr, err string
	}{
		{name: "128B swizzle on bytes", in: "Swizzle<3,4,3>", want: "Swizzle<3,4,3>", expr: "a ^ ((a / 128) % 8 * 16)"},
		{name: "128B swizzle on 16-bit elements", in: "Swizzle<3, 3, 3>", want: "Swizzle<3,3,3>", expr: "a ^ ((a / 64) % 8 * 8)"},
		{name: "64B swizzle on bytes", in: "Swizzle<2,4,3>", want: "Swizzle<2,4,3>", expr: "a ^ ((a / 128) % 4 * 16)"},
		{name: "seed example", in: "Swizzle<1,0,1>", want: "Swizzle<1,0,1>", expr: "a ^ ((a / 2) % 2 * 1)"},
		{name: "no prefix", in: "<3,4,3>", err: "want Swizzle<B,M,S>"},
		{name: "unclosed", in: "Swizzle<3,4,3", err: "want Swizzle<B,M,S>"},
		{name: "two parameters", in: "Swizzle<3,4>", err: "want three parameters B,M,S, have 2"},
		{name: "not a number", in: "Swizzle<3,x,3>", err: `parameter M: "x" is not an integer`},
		{name: "empty parameter", in: "Swizzle<3,,3>", err: `parameter M: "" is not an integer`},
		{name: "B zero", in: "Swizzle<0,4,3>", err: "B = 0, want B >= 1"},
		{name: "M negative", in: "Swizzle<3,-1,3>", err: "M = -1, want M >= 0"},
		{name: "S below B", in: "Swizzle<3,4,2>", err: "S = 2 < B = 3"},
		{name: "widest allowed", in: "Swizzle<10,20,10>", want: "Swizzle<10,20,10>", expr: "a ^ ((a / 1073741824) % 1024 * 1048576)"},
		{name: "too wide", in: "Swizzle<10,21,10>", err: "B+M+S = 41 exceeds 40 address bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw, err := ParseSwizzle(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseSwizzle(%q) = %v, %v; want error containing %q", tt.in, sw, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSwizzle(%q): %v", tt.in, err)
			}
			if got := sw.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := sw.Expr("a"); got != tt.expr {
				t.Errorf("Expr(a) = %q, want %q", got, tt.expr)
			}
		})
	}
}

func FuzzParseSwizzle(f *testing.F) {
	for _, s := range []string{"Swizzle<3,4,3>", "Swizzle<1,0,1>", "Swizzle<3, 3, 3>", "Swizzle<0,0,0>", "Swizzle<", "Swizzle<9999999999999999999,1,1>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sw, err := ParseSwizzle(s)
		if err != nil {
			return
		}
		back, err := ParseSwizzle(sw.String())
		if err != nil || back != sw {
			t.Fatalf("ParseSwizzle(%q) = %v, which prints %q and parses back as %v, %v", s, sw, sw.String(), back, err)
		}
		for a := range min(sw.Period(), 1<<12) {
			if sw.Apply(sw.Apply(a)) != a {
				t.Fatalf("%v is not an involution at %d", sw, a)
			}
		}
	})
}

// TestSwizzleMap checks the swizzle as an index map, and its Expr text
// parsed by indexmap, against Apply at every address of two periods.
func TestSwizzleMap(t *testing.T) {
	for _, sw := range []Swizzle{Swizzle32B, Swizzle64B, Swizzle128B, {B: 3, M: 3, S: 3}, {B: 1, M: 0, S: 1}} {
		size := int(2 * sw.Period())
		m, err := sw.Map("a", size)
		if err != nil {
			t.Fatalf("%v.Map: %v", sw, err)
		}
		e, err := indexmap.ParseExpr(sw.Expr("a"))
		if err != nil {
			t.Fatalf("ParseExpr(%q): %v", sw.Expr("a"), err)
		}
		for a := range size {
			got, ok, err := m.Eval([]int{a})
			if err != nil || !ok || int64(got[0]) != sw.Apply(int64(a)) {
				t.Fatalf("%v.Map at %d = %v, %v, %v; want %d", sw, a, got, ok, err, sw.Apply(int64(a)))
			}
			v, err := indexmap.Eval(e, map[string]int{"a": a})
			if err != nil || int64(v) != sw.Apply(int64(a)) {
				t.Fatalf("%q at a=%d = %d, %v; want %d", sw.Expr("a"), a, v, err, sw.Apply(int64(a)))
			}
		}
	}
	if got, want := mustMapString(t, Swizzle128B, 1024), "physical(a:1024) -> physical(a:1024) = (a ^ a / 128 % 8 * 16)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, size := range []int{0, 100, -1024} {
		if _, err := Swizzle128B.Map("a", size); err == nil || !strings.Contains(err.Error(), "want a positive multiple of the period 1024") {
			t.Errorf("Map(a, %d) = %v", size, err)
		}
	}
	if _, err := (Swizzle{}).Map("a", 8); err == nil {
		t.Error("zero Swizzle.Map: no error")
	}
}

func mustMapString(t *testing.T, sw Swizzle, size int) string {
	t.Helper()
	m, err := sw.Map("a", size)
	if err != nil {
		t.Fatal(err)
	}
	return m.String()
}

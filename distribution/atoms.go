package distribution

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cklplan/cklplan/storage"
)

// The fragment layouts below are facts from the PTX ISA ("Matrix Fragments for
// mma.m16n8k16 with floating point type", "Warp-level matrix load instruction:
// ldmatrix", "Register Fragments and Shared Memory Matrix Layouts" of wgmma),
// written as index-map text so that they are data. Each was checked on an H200
// by the harness under hardware/ (docs/hardware.md).

var (
	warpLane = []ExecutorAxis{{Name: "lane", Size: 32, Level: LevelLane}}
	// A warpgroup: four consecutive warps.
	warpgroup = []ExecutorAxis{{Name: "warp", Size: 4, Level: LevelWarp}, {Name: "lane", Size: 32, Level: LevelLane}}
)

// mmaA is the A operand (m:16, k:16) of mma.m16n8k16 for 16-bit types: a0…a7.
func mmaA(name string, e storage.ElementType) Spec {
	return Spec{
		Element:   e,
		Name:      name,
		Executors: warpLane,
		Locals:    []Axis{{"v", 8}},
		Tile:      []Axis{{"m", 16}, {"k", 16}},
		Ownership: []string{
			"lane / 4 + 8 * (v / 2 % 2)",
			"lane % 4 * 2 + v % 2 + 8 * (v / 4)",
		},
		ValuePrefix: "a",
	}
}

// mmaB is the B operand (k:16, n:8) of mma.m16n8k16 for 16-bit types: b0…b3.
func mmaB(name string, e storage.ElementType) Spec {
	return Spec{
		Element:   e,
		Name:      name,
		Executors: warpLane,
		Locals:    []Axis{{"v", 4}},
		Tile:      []Axis{{"k", 16}, {"n", 8}},
		Ownership: []string{
			"lane % 4 * 2 + v % 2 + 8 * (v / 2)",
			"lane / 4",
		},
		ValuePrefix: "b",
	}
}

// mmaC is the C/D accumulator (m:16, n:8) of mma.m16n8k16: c0…c3 (the same
// positions for f32 and f16 accumulators; f16 packs c0,c1 and c2,c3 into one
// register each).
func mmaC(name string, e storage.ElementType) Spec {
	return Spec{
		Element:   e,
		Name:      name,
		Executors: warpLane,
		Locals:    []Axis{{"v", 4}},
		Tile:      []Axis{{"m", 16}, {"n", 8}},
		Ownership: []string{
			"lane / 4 + 8 * (v / 2)",
			"lane % 4 * 2 + v % 2",
		},
		ValuePrefix: "c",
	}
}

// ldmatrixX4 is what ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16 leaves in
// the registers d0…d3 (values 0…7, two 16-bit halves per register, the low
// half first), for the 16×16 shared-memory tile (row:16, col:16) under the
// usual addressing: lane t supplies the address of row t%16, columns
// 8*(t/16)…8*(t/16)+7, so matrix i is the 8×8 block at rows 8*(i%2), columns
// 8*(i/2). Without .trans, lane l receives row l/4 of each matrix, columns
// 2*(l%4) and 2*(l%4)+1; with .trans, each matrix arrives transposed.
func ldmatrixX4(trans bool) Spec {
	s := Spec{
		Element:     storage.F16,
		Name:        "ldmatrix.x4",
		Executors:   warpLane,
		Locals:      []Axis{{"v", 8}},
		Tile:        []Axis{{"row", 16}, {"col", 16}},
		ValuePrefix: "d",
		Ownership: []string{
			"lane / 4 + 8 * (v / 2 % 2)",
			"lane % 4 * 2 + v % 2 + 8 * (v / 4)",
		},
	}
	if trans {
		s.Name = "ldmatrix.x4.trans"
		s.Ownership = []string{
			"lane % 4 * 2 + v % 2 + 8 * (v / 2 % 2)",
			"lane / 4 + 8 * (v / 4)",
		}
	}
	return s
}

// wgmmaC is the f32 accumulator (m:64, n:N) of wgmma.mma_async.m64nNk16 over a
// warpgroup: warp w holds rows 16w…16w+15; within a warp each 8-column chunk
// j is laid out as the mma.m16n8k16 accumulator, in values 4j…4j+3.
func wgmmaC(n int) Spec {
	return Spec{
		Element:   storage.F32,
		Name:      fmt.Sprintf("wgmma.m64n%dk16.c.f32", n),
		Executors: warpgroup,
		Locals:    []Axis{{"v", n / 2}},
		Tile:      []Axis{{"m", 64}, {"n", n}},
		Ownership: []string{
			"16 * warp + lane / 4 + 8 * (v / 2 % 2)",
			"8 * (v / 4) + lane % 4 * 2 + v % 2",
		},
		ValuePrefix: "d",
	}
}

// wgmmaA is the A operand (m:64, k:16) of wgmma.mma_async.m64nNk16 taken
// from registers, for 16-bit types and every N: warp w of the warpgroup
// holds rows 16w…16w+15, laid out as the mma.m16n8k16 A operand, a0…a7 (PTX
// ISA, "Register Fragments and Shared Memory Matrix Layouts", the
// .m64nNk16 A fragment).
func wgmmaA(name string, e storage.ElementType) Spec {
	return Spec{
		Element:   e,
		Name:      name,
		Executors: warpgroup,
		Locals:    []Axis{{"v", 8}},
		Tile:      []Axis{{"m", 64}, {"k", 16}},
		Ownership: []string{
			"16 * warp + lane / 4 + 8 * (v / 2 % 2)",
			"lane % 4 * 2 + v % 2 + 8 * (v / 4)",
		},
		ValuePrefix: "a",
	}
}

// builtinSpecs returns the spec of every built-in atom by name.
func builtinSpecs() map[string]Spec {
	m := map[string]Spec{
		"mma.m16n8k16.a.f16":  mmaA("mma.m16n8k16.a.f16", storage.F16),
		"mma.m16n8k16.a.bf16": mmaA("mma.m16n8k16.a.bf16", storage.BF16),
		"mma.m16n8k16.b.f16":  mmaB("mma.m16n8k16.b.f16", storage.F16),
		"mma.m16n8k16.b.bf16": mmaB("mma.m16n8k16.b.bf16", storage.BF16),
		"mma.m16n8k16.c.f32":  mmaC("mma.m16n8k16.c.f32", storage.F32),
		"mma.m16n8k16.c.f16":  mmaC("mma.m16n8k16.c.f16", storage.F16),
		"ldmatrix.x4":         ldmatrixX4(false),
		"ldmatrix.x4.trans":   ldmatrixX4(true),
		"wgmma.m64k16.a.f16":  wgmmaA("wgmma.m64k16.a.f16", storage.F16),
		"wgmma.m64k16.a.bf16": wgmmaA("wgmma.m64k16.a.bf16", storage.BF16),
	}
	for n := 8; n <= 256; n += 8 {
		s := wgmmaC(n)
		m[s.Name] = s
	}
	return m
}

var builtins = struct {
	once  sync.Once
	specs map[string]Spec
	mu    sync.Mutex
	built map[string]*Distribution
}{}

// BuiltinNames returns the names of the built-in atoms, sorted (wgmma by N).
func BuiltinNames() []string {
	builtins.once.Do(initBuiltins)
	names := make([]string, 0, len(builtins.specs))
	for n := range builtins.specs {
		names = append(names, n)
	}
	slices.SortFunc(names, compareNatural)
	return names
}

// Builtin returns the built-in atom of the given name.
func Builtin(name string) (*Distribution, error) {
	builtins.once.Do(initBuiltins)
	spec, ok := builtins.specs[name]
	if !ok {
		return nil, fmt.Errorf("distribution: no built-in atom %q (see BuiltinNames)", name)
	}
	builtins.mu.Lock()
	defer builtins.mu.Unlock()
	if d := builtins.built[name]; d != nil {
		return d, nil
	}
	d, err := New(spec)
	if err != nil {
		return nil, err
	}
	builtins.built[name] = d
	return d, nil
}

// BuiltinSpec returns the declaration of the built-in atom of the given name.
func BuiltinSpec(name string) (Spec, bool) {
	builtins.once.Do(initBuiltins)
	s, ok := builtins.specs[name]
	return cloneSpec(s), ok
}

func initBuiltins() {
	builtins.specs = builtinSpecs()
	builtins.built = map[string]*Distribution{}
}

// compareNatural orders strings with embedded decimal numbers by value
// ("wgmma.m64n16k16" after "wgmma.m64n8k16").
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		da, db := digitPrefix(a), digitPrefix(b)
		if da > 0 && db > 0 {
			na, _ := strconv.Atoi(a[:da])
			nb, _ := strconv.Atoi(b[:db])
			if na != nb {
				return na - nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitPrefix(s string) int {
	return len(s) - len(strings.TrimLeft(s, "0123456789"))
}

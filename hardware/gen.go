package hardware

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cklplan/cklplan/distribution"
)

// WGMMAWidths are the N of the wgmma.m64nNk16 accumulators the program checks
// (built only with -DCKL_WGMMA for sm_90a).
var WGMMAWidths = []int{8, 16, 24, 64, 128, 256}

// A table is one distribution's tabulation, named for C++.
type table struct {
	ident string
	d     *distribution.Distribution
	wgmma bool // only in the sm_90a build
}

// CTA64 returns the distributions of the 4-warp 64×64 CTA tile that the
// program checks: a 2×2 warp grid over (m, n), the mma.m16n8k16 atom repeated
// 2× along m and 4× along n per warp, for A (m:64, k:16), B (k:16, n:64) and
// C (m:64, n:64).
func CTA64(warpContiguous bool) (a, b, c *distribution.Distribution, err error) {
	// The warp grid is (m, n); A (m, k) holds copies along warp_n, B (k, n)
	// along warp_m.
	warps := func(m, n string) []distribution.GridAxis {
		return []distribution.GridAxis{{Name: "warp_m", Size: 2, Along: m}, {Name: "warp_n", Size: 2, Along: n}}
	}
	suffix := ""
	if warpContiguous {
		suffix = ".contiguous"
	}
	tile := func(atom string, warps []distribution.GridAxis, repeat map[string]int) (*distribution.Distribution, error) {
		at, err := distribution.Builtin(atom)
		if err != nil {
			return nil, err
		}
		return distribution.TileAtom(at, distribution.Tiling{Name: "cta64." + atom + suffix, Warps: warps, Repeat: repeat, WarpContiguous: warpContiguous})
	}
	if a, err = tile("mma.m16n8k16.a.f16", warps("m", distribution.AlongReplicated), map[string]int{"m": 2}); err != nil {
		return
	}
	if b, err = tile("mma.m16n8k16.b.f16", warps(distribution.AlongReplicated, "n"), map[string]int{"n": 4}); err != nil {
		return
	}
	c, err = tile("mma.m16n8k16.c.f32", warps("m", "n"), map[string]int{"m": 2, "n": 4})
	return
}

// LdmatrixRowStart is the addressing the ldmatrix.x4 atoms assume: lane t
// supplies the address of row t%16, column 8*(t/16) of the 16×16 tile (row
// t%8 of matrix t/8). It returns the row-major flat index of that element.
func LdmatrixRowStart(lane int) int { return (lane%16)*16 + (lane/16)*8 }

// Generate returns the CUDA source of the hardware check.
func Generate() ([]byte, error) {
	var tabs []table
	add := func(ident string, d *distribution.Distribution) {
		tabs = append(tabs, table{ident: ident, d: d})
	}
	for _, n := range []struct{ ident, name string }{
		{"mma_a_f16", "mma.m16n8k16.a.f16"},
		{"mma_a_bf16", "mma.m16n8k16.a.bf16"},
		{"mma_b_f16", "mma.m16n8k16.b.f16"},
		{"mma_b_bf16", "mma.m16n8k16.b.bf16"},
		{"mma_c_f32", "mma.m16n8k16.c.f32"},
		{"mma_c_f16", "mma.m16n8k16.c.f16"},
		{"ldmatrix_x4", "ldmatrix.x4"},
		{"ldmatrix_x4_trans", "ldmatrix.x4.trans"},
	} {
		d, err := distribution.Builtin(n.name)
		if err != nil {
			return nil, err
		}
		add(n.ident, d)
	}
	for _, contiguous := range []bool{false, true} {
		a, b, c, err := CTA64(contiguous)
		if err != nil {
			return nil, err
		}
		sfx := ""
		if contiguous {
			sfx = "_contiguous"
		}
		// The kernel holds A in 8 registers of (rep_m, v/2), B in 8 of
		// (rep_n, v/2) and C in 32 floats of (rep_m, rep_n, v): check the
		// value order is the one it assumes.
		for _, x := range []struct {
			d    *distribution.Distribution
			want string
		}{{a, "[rep_m:2 v:8]"}, {b, "[rep_n:4 v:4]"}, {c, "[rep_m:2 rep_n:4 v:4]"}} {
			if got := fmt.Sprint(x.d.Locals()); got != x.want || !x.d.IdentityStorage() {
				return nil, fmt.Errorf("hardware: %s has values %s, the kernel assumes %s", x.d.Name(), got, x.want)
			}
		}
		add("cta64_a"+sfx, a)
		add("cta64_b"+sfx, b)
		add("cta64_c"+sfx, c)
	}
	{
		d, err := distribution.Builtin("wgmma.m64k16.a.f16")
		if err != nil {
			return nil, err
		}
		tabs = append(tabs, table{ident: "wgmma_m64k16_a_f16", d: d, wgmma: true})
	}
	for _, n := range WGMMAWidths {
		d, err := distribution.Builtin(fmt.Sprintf("wgmma.m64n%dk16.c.f32", n))
		if err != nil {
			return nil, err
		}
		tabs = append(tabs, table{ident: fmt.Sprintf("wgmma_m64n%dk16_c_f32", n), d: d, wgmma: true})
	}
	// Negative controls: valid distributions that are wrong for their
	// instruction. The check must catch each of them.
	for _, w := range wrongAtoms() {
		d, err := distribution.New(w.spec)
		if err != nil {
			return nil, fmt.Errorf("hardware: negative control %s: %v", w.ident, err)
		}
		tabs = append(tabs, table{ident: w.ident, d: d, wgmma: w.wgmma})
	}

	var b bytes.Buffer
	b.WriteString(header)
	for _, t := range tabs {
		if t.wgmma {
			b.WriteString("#ifdef CKL_WGMMA\n")
		}
		writeTable(&b, t)
		if t.wgmma {
			b.WriteString("#endif\n")
		}
	}
	b.WriteString("// The ldmatrix.x4 addressing: lane t supplies the row starting at this flat index.\n")
	b.WriteString("static const int32_t kLdmatrixRowStart[32] = {")
	for lane := range 32 {
		if lane > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, LdmatrixRowStart(lane))
	}
	b.WriteString("};\n")
	b.WriteString(kernels)
	b.WriteString("\n#ifdef CKL_WGMMA\n")
	for _, n := range WGMMAWidths {
		writeWGMMA(&b, n)
	}
	for _, n := range wgmmaRegisterAWidths {
		writeWGMMARegisterA(&b, n)
	}
	b.WriteString(wgmmaKernel)
	b.WriteString("#endif  // CKL_WGMMA\n")
	b.WriteString(host)
	b.WriteString("int main() {\n  print_device();\n  std::mt19937 rng(20261130);\n  int failed = 0;\n")
	b.WriteString(`  failed += !check_mma_f32("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false, T_mma_a_f16, T_mma_b_f16, T_mma_c_f32, "mma.m16n8k16.a.f16", "mma.m16n8k16.b.f16", "mma.m16n8k16.c.f32", rng);
  failed += !check_mma_f32("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", true, T_mma_a_bf16, T_mma_b_bf16, T_mma_c_f32, "mma.m16n8k16.a.bf16", "mma.m16n8k16.b.bf16", "mma.m16n8k16.c.f32", rng);
  failed += !check_mma_f16("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", T_mma_a_f16, T_mma_b_f16, T_mma_c_f16, rng);
  failed += !check_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.shared.b16", false, T_ldmatrix_x4, "ldmatrix.x4", rng);
  failed += !check_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", true, T_ldmatrix_x4_trans, "ldmatrix.x4.trans", rng);
  failed += !check_cta64(T_cta64_a, T_cta64_b, T_cta64_c, "cta64 (CuTe placement)", rng);
  failed += !check_cta64(T_cta64_a_contiguous, T_cta64_b_contiguous, T_cta64_c_contiguous, "cta64 (warp-contiguous placement)", rng);
#ifdef CKL_WGMMA
`)
	for _, n := range WGMMAWidths {
		fmt.Fprintf(&b, "  failed += !check_wgmma<%d>(T_wgmma_m64n%dk16_c_f32, \"wgmma.m64n%dk16.c.f32\", rng);\n", n, n, n)
	}
	for _, n := range wgmmaRegisterAWidths {
		fmt.Fprintf(&b, "  failed += !check_wgmma_ra<%d>(T_wgmma_m64k16_a_f16, T_wgmma_m64n%dk16_c_f32, \"wgmma.m64k16.a.f16\", rng);\n", n, n)
	}
	b.WriteString("#endif\n")
	b.WriteString(`  // Negative controls: each wrong distribution must be caught.
  negative = true;
  failed += !check_mma_f32("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false, T_wrong_a_halves, T_mma_b_f16, T_mma_c_f32, "wrong.a.halves", "mma.m16n8k16.b.f16", "mma.m16n8k16.c.f32", rng);
  failed += !check_mma_f32("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false, T_mma_a_f16, T_wrong_b_k_order, T_mma_c_f32, "mma.m16n8k16.a.f16", "wrong.b.k_order", "mma.m16n8k16.c.f32", rng);
  failed += !check_mma_f32("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false, T_mma_a_f16, T_mma_b_f16, T_wrong_c_transposed_values, "mma.m16n8k16.a.f16", "mma.m16n8k16.b.f16", "wrong.c.transposed_values", rng);
  failed += !check_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", true, T_ldmatrix_x4, "ldmatrix.x4 (the non-transposed atom)", rng);
#ifdef CKL_WGMMA
  failed += !check_wgmma<64>(T_wrong_wgmma_m64n64k16_warps_reversed, "wrong.wgmma.m64n64k16.warps_reversed", rng);
  failed += !check_wgmma_ra<8>(T_wrong_wgmma_m64k16_a_k_halves, T_wgmma_m64n8k16_c_f32, "wrong.wgmma.m64k16.a.k_halves", rng);
#endif
  negative = false;
`)
	b.WriteString("  std::printf(\"%s: %d check(s) failed\\n\", failed ? \"FAIL\" : \"ALL PASS\", failed);\n  return failed ? 1 : 0;\n}\n")
	return b.Bytes(), nil
}

func writeTable(b *bytes.Buffer, t table) {
	d := t.d
	s := d.Spec()
	fmt.Fprintf(b, "// %s: tile %v, executors %v, values %v\n", d.Name(), d.Tile(), d.Executors(), d.Locals())
	for i, a := range s.Tile {
		fmt.Fprintf(b, "//   %s = %s\n", a.Name, s.Ownership[i])
	}
	fmt.Fprintf(b, "//   %s\n", d.Fingerprint())
	tab := d.Table()
	fmt.Fprintf(b, "static const int32_t T_%s[%d] = {", t.ident, len(tab))
	for i, x := range tab {
		if i%d.NumValues() == 0 {
			b.WriteString("\n ")
		}
		fmt.Fprintf(b, " %d,", x)
	}
	b.WriteString("\n};\n")
}

// writeWGMMA writes the inline-PTX wrapper of one wgmma shape, A and B
// from shared-memory descriptors, overloaded on the accumulator array's
// length.
func writeWGMMA(b *bytes.Buffer, n int) {
	regs := n / 2
	writeWGMMAWrapper(b, n, "wgmma_acc", "uint64_t da, uint64_t db",
		fmt.Sprintf("%%%d, %%%d, p, 1, 1, 0, 0", regs, regs+1), regs+2, `"l"(da), "l"(db)`)
}

// wgmmaRegisterAWidths are the N of the wgmma.m64nNk16 with A from
// registers that the program checks the A atom with (its layout does not
// depend on N).
var wgmmaRegisterAWidths = []int{8, 64}

// writeWGMMARegisterA writes the inline-PTX wrapper of one wgmma shape with
// A from four registers, overloaded on the accumulator array's length.
func writeWGMMARegisterA(b *bytes.Buffer, n int) {
	regs := n / 2
	writeWGMMAWrapper(b, n, "wgmma_acc_ra", "const uint32_t (&a)[4], uint64_t db",
		fmt.Sprintf("{%%%d, %%%d, %%%d, %%%d}, %%%d, p, 1, 1, 0", regs, regs+1, regs+2, regs+3, regs+4), regs+5,
		`"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db)`)
}

// writeWGMMAWrapper writes name(float (&d)[n/2], params): one
// wgmma.mma_async.m64nNk16 (f32 += f16 × f16) on the accumulators d.
// operands are the instruction's operands after d; inputs the asm inputs
// after d's, which a constant 1 follows as input number scale, the
// predicate p (scale-d) set from it.
func writeWGMMAWrapper(b *bytes.Buffer, n int, name, params, operands string, scale int, inputs string) {
	regs := n / 2
	fmt.Fprintf(b, "__device__ __forceinline__ void %s(float (&d)[%d], %s) {\n", name, regs, params)
	b.WriteString("  asm volatile(\n    \"{\\n.reg .pred p;\\n\"\n")
	fmt.Fprintf(b, "    \"setp.ne.b32 p, %%%d, 0;\\n\"\n", scale)
	fmt.Fprintf(b, "    \"wgmma.mma_async.sync.aligned.m64n%dk16.f32.f16.f16 {\"\n", n)
	for i := 0; i < regs; i += 8 {
		var parts []string
		for j := i; j < min(i+8, regs); j++ {
			parts = append(parts, fmt.Sprintf("%%%d", j))
		}
		sep := ", "
		if i+8 >= regs {
			sep = ""
		}
		fmt.Fprintf(b, "    \"%s%s\"\n", strings.Join(parts, ", "), sep)
	}
	fmt.Fprintf(b, "    \"}, %s;\\n}\\n\"\n    :", operands)
	for i := range regs {
		if i > 0 {
			b.WriteString(",")
		}
		if i%8 == 0 {
			b.WriteString("\n      ")
		} else {
			b.WriteString(" ")
		}
		fmt.Fprintf(b, "\"+f\"(d[%d])", i)
	}
	fmt.Fprintf(b, "\n    : %s, \"r\"(1));\n}\n", inputs)
}

// A wrongAtom is a negative control: a valid distribution that is not the
// instruction's.
type wrongAtom struct {
	ident string
	spec  distribution.Spec
	wgmma bool
}

func wrongAtoms() []wrongAtom {
	lane := []distribution.ExecutorAxis{{Name: "lane", Size: 32, Level: distribution.LevelLane}}
	return []wrongAtom{
		{ident: "wrong_a_halves", spec: distribution.Spec{
			// a2,a3 and a4,a5 exchanged: the row half and the column half swapped.
			Name: "wrong.a.halves", Executors: lane, Locals: []distribution.Axis{{Name: "v", Size: 8}},
			Tile:      []distribution.Axis{{Name: "m", Size: 16}, {Name: "k", Size: 16}},
			Ownership: []string{"lane / 4 + 8 * (v / 4)", "lane % 4 * 2 + v % 2 + 8 * (v / 2 % 2)"},
		}},
		{ident: "wrong_b_k_order", spec: distribution.Spec{
			// b0…b3 as four consecutive rows of k.
			Name: "wrong.b.k_order", Executors: lane, Locals: []distribution.Axis{{Name: "v", Size: 4}},
			Tile:      []distribution.Axis{{Name: "k", Size: 16}, {Name: "n", Size: 8}},
			Ownership: []string{"lane % 4 * 4 + v", "lane / 4"},
		}},
		{ident: "wrong_c_transposed_values", spec: distribution.Spec{
			// c1 and c2 exchanged: the values walk down before across.
			Name: "wrong.c.transposed_values", Executors: lane, Locals: []distribution.Axis{{Name: "v", Size: 4}},
			Tile:      []distribution.Axis{{Name: "m", Size: 16}, {Name: "n", Size: 8}},
			Ownership: []string{"lane / 4 + 8 * (v % 2)", "lane % 4 * 2 + v / 2"},
		}},
		{ident: "wrong_wgmma_m64n64k16_warps_reversed", wgmma: true, spec: distribution.Spec{
			// Warp w holding rows 16*(3-w)….
			Name:      "wrong.wgmma.m64n64k16.warps_reversed",
			Executors: []distribution.ExecutorAxis{{Name: "warp", Size: 4, Level: distribution.LevelWarp}, lane[0]},
			Locals:    []distribution.Axis{{Name: "v", Size: 32}},
			Tile:      []distribution.Axis{{Name: "m", Size: 64}, {Name: "n", Size: 64}},
			Ownership: []string{"16 * (3 - warp) + lane / 4 + 8 * (v / 2 % 2)", "8 * (v / 4) + lane % 4 * 2 + v % 2"},
		}},
		{ident: "wrong_wgmma_m64k16_a_k_halves", wgmma: true, spec: distribution.Spec{
			// The registers' two K halves exchanged: a0,a1 from columns 8…15.
			Name:      "wrong.wgmma.m64k16.a.k_halves",
			Executors: []distribution.ExecutorAxis{{Name: "warp", Size: 4, Level: distribution.LevelWarp}, lane[0]},
			Locals:    []distribution.Axis{{Name: "v", Size: 8}},
			Tile:      []distribution.Axis{{Name: "m", Size: 64}, {Name: "k", Size: 16}},
			Ownership: []string{"16 * warp + lane / 4 + 8 * (v / 2 % 2)", "lane % 4 * 2 + v % 2 + 8 * (1 - v / 4)"},
		}},
	}
}

package hardware

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cklplan/cklplan/distribution"
)

// WGMMAWidths are the N of the wgmma.m64nNk16 accumulators the program checks
// (built only with -DCKL_WGMMA for sm_90a).
var WGMMAWidths = []int{8, 64, 256}

// A table is one distribution's tabulation, named for C++.
type table struct {
	ident string
	d     *distribution.Distribution
}

// CTA64 returns the distributions of the 4-warp 64×64 CTA tile that the
// program checks: a 2×2 warp grid over (m, n), the mma.m16n8k16 atom repeated
// 2× along m and 4× along n per warp, for A (m:64, k:16), B (k:16, n:64) and
// C (m:64, n:64).
func CTA64(warpContiguous bool) (a, b, c *distribution.Distribution, err error) {
	warps := []distribution.GridAxis{{Name: "warp_m", Size: 2, Along: "m"}, {Name: "warp_n", Size: 2, Along: "n"}}
	suffix := ""
	if warpContiguous {
		suffix = ".contiguous"
	}
	tile := func(atom string, repeat map[string]int) (*distribution.Distribution, error) {
		at, err := distribution.Builtin(atom)
		if err != nil {
			return nil, err
		}
		return distribution.TileAtom(at, distribution.Tiling{Name: "cta64." + atom + suffix, Warps: warps, Repeat: repeat, WarpContiguous: warpContiguous})
	}
	if a, err = tile("mma.m16n8k16.a.f16", map[string]int{"m": 2}); err != nil {
		return
	}
	if b, err = tile("mma.m16n8k16.b.f16", map[string]int{"n": 4}); err != nil {
		return
	}
	c, err = tile("mma.m16n8k16.c.f32", map[string]int{"m": 2, "n": 4})
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
		tabs = append(tabs, table{ident, d})
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
	for _, n := range WGMMAWidths {
		d, err := distribution.Builtin(fmt.Sprintf("wgmma.m64n%dk16.c.f32", n))
		if err != nil {
			return nil, err
		}
		add(fmt.Sprintf("wgmma_m64n%dk16_c_f32", n), d)
	}

	var b bytes.Buffer
	b.WriteString(header)
	for _, t := range tabs {
		writeTable(&b, t)
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
	b.WriteString("#endif\n  std::printf(\"%s: %d check(s) failed\\n\", failed ? \"FAIL\" : \"ALL PASS\", failed);\n  return failed ? 1 : 0;\n}\n")
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

// writeWGMMA writes the inline-PTX wrapper of one wgmma shape, overloaded on
// the accumulator array's length.
func writeWGMMA(b *bytes.Buffer, n int) {
	regs := n / 2
	fmt.Fprintf(b, "__device__ __forceinline__ void wgmma_acc(float (&d)[%d], uint64_t da, uint64_t db) {\n", regs)
	b.WriteString("  asm volatile(\n    \"{\\n.reg .pred p;\\n\"\n")
	fmt.Fprintf(b, "    \"setp.ne.b32 p, %%%d, 0;\\n\"\n", regs+2)
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
	fmt.Fprintf(b, "    \"}, %%%d, %%%d, p, 1, 1, 0, 0;\\n}\\n\"\n    :", regs, regs+1)
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
	b.WriteString("\n    : \"l\"(da), \"l\"(db), \"r\"(1));\n}\n")
}

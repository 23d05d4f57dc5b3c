package indexmap

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenCases are operations in a small command notation; each is checked
// by its definition (evaluation) and its printed result is compared with
// testdata/algebra.golden.
var goldenCases = []string{
	"compose-cute (6,2):(8,2) | (4,3):(3,1)",
	"compose-cute (4,8):(8,1) | (8,4):(4,1)",
	"compose-cute ((4,2),8):((2,1),8) | (4,16):(16,1)",
	"compose-cute (3,2):(1,4) | (2,3):(3,1)",
	// logical_divide((4,2,3):(2,1,8), 4:2) = A ∘ (B, complement(B, 24)), as in CuTe's layout algebra documentation.
	"compose-cute (4,2,3):(2,1,8) | (4,(2,3)):(2,(1,8))",
	"compose " + mmaA + " | logical(m:16, k:16) -> logical(k2:16, m2:16) = (k, m)",
	"simplify thread-value(lane:32, v:8) -> logical(m:16, k:16) = ((lane * 2 + v % 2) / 8 + 8 * (v / 2 % 2), (2 * lane + v % 2) % 8 + 8 * (v / 4))",
	"emit (i:4, j:6) -> (x:64) = ((4 * i + j) % 8 + 16 * ((4 * i + j) / 8))",
	"emit (i:4) -> (x:5) = (i % 3 + 4 * (i / 3))",
	"restrict logical(w:4, lane:32, v:4) -> physical(a:512) = (128 * w + 4 * lane + v) | w=2",
	"restrict logical(r:8, c:8) -> physical(y:64) = (8 * r + (c ^ r)) | r=5",
	"restrict logical(t:(tr:4, tc:8), v:2) -> physical(a:64) = ((t ^ t / 8 % 4 * 2) * 2 + v) | tr=1",
	"inverse " + mmaA,
	"inverse physical(x:64) -> physical(y:64) = (x ^ x / 8 % 8)",
	"decide (i:4, j:8) -> (x:40) = (10 * i + j)",
	"decide (i:3, j:2) -> (x:8) = (i + 2 * j)",
	"decide (lane:32, v:8) -> (x:256) = (lane / 4 * 16 + lane % 4 * 2 + v % 2 + 8 * (v / 2))",
	"decide (lane:32, v:8) -> (x:256) = (lane / 4 * 32 + lane % 4 * 2 + v % 2 + 8 * (v / 2))",
}

func runGolden(t *testing.T, c string) string {
	op, rest, _ := strings.Cut(c, " ")
	args := strings.Split(rest, " | ")
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", c)
	switch op {
	case "compose-cute":
		cc := composeCute(t, args[0], args[1])
		a, bm, r, e, forms := cc.a, cc.b, cc.r, cc.e, cc.forms
		fmt.Fprintf(&b, "  A: %s\n  B: %s\n  A∘B: %s\n  emitted (%v): %s\n", a, bm, r, forms[0], e)
		if l, err := ToCute(e); err == nil {
			fmt.Fprintf(&b, "  CuTe: %s\n", l)
		} else {
			fmt.Fprintf(&b, "  CuTe: %v\n", err)
		}
	case "compose":
		outer, inner := MustParse(args[1]), MustParse(args[0])
		// args[0] is applied first: compose args[1] ∘ args[0].
		r, err := Compose(outer, inner)
		if err != nil {
			t.Fatal(err)
		}
		sp := r.Domain().Space
		for i := 0; i < sp.Size(); i++ {
			x, _ := sp.Coord(i)
			mid, _, _ := inner.Eval(x)
			want, _, _ := outer.Eval(mid)
			got, _, _ := r.Eval(x)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: at %v got %v want %v", c, x, got, want)
			}
		}
		e, _ := r.Emit()
		checkSameMap(t, r, e)
		fmt.Fprintf(&b, "  composite: %s\n  emitted: %s\n", r, e)
	case "simplify":
		m := MustParse(args[0])
		s, fired := m.SimplifyTrace()
		checkSameMap(t, m, s)
		fmt.Fprintf(&b, "  %s\n  rules: %s\n", s, strings.Join(fired, " "))
	case "emit":
		m := MustParse(args[0])
		e, forms := m.Emit()
		checkSameMap(t, m, e)
		fmt.Fprintf(&b, "  %s %v\n", e, forms)
	case "restrict":
		m := MustParse(args[0])
		fixed := map[string]int{}
		for _, kv := range strings.Split(args[1], ",") {
			var v int
			name, val, _ := strings.Cut(kv, "=")
			fmt.Sscan(val, &v)
			fixed[name] = v
		}
		r, err := m.Restrict(fixed)
		if err != nil {
			t.Fatal(err)
		}
		checkSlice(t, m, r, fixed)
		fmt.Fprintf(&b, "  %s\n", r)
	case "inverse":
		m := MustParse(args[0])
		inv, err := m.Inverse()
		if err != nil {
			t.Fatal(err)
		}
		sp := m.Domain().Space
		for i := 0; i < sp.Size(); i++ {
			x, _ := sp.Coord(i)
			y, _, _ := m.Eval(x)
			back, _, _ := inv.Eval(y)
			if !slices.Equal(back, x) {
				t.Fatalf("%s: inverse(m(%v)) = %v", c, x, back)
			}
		}
		fmt.Fprintf(&b, "  %s\n", inv)
	case "decide":
		m := MustParse(args[0])
		p, err := m.Decide()
		if err != nil {
			t.Fatal(err)
		}
		if o := oracle(t, m); !sameVerdicts(p, o) {
			t.Fatalf("%s: Decide %+v, oracle %+v", c, p, o)
		}
		fmt.Fprintf(&b, "  by %v: in range %v, injective %v, alias-free %v, surjective %v, dense bijection %v\n", p.Method, p.InRange, p.Injective, p.AliasFree, p.Surjective, p.DenseBijection)
		if p.Witness != "" {
			fmt.Fprintf(&b, "  witness: %s\n", p.Witness)
		}
	default:
		t.Fatalf("unknown golden op %q", op)
	}
	return b.String()
}

// checkSlice checks r against m at every point of m that agrees with fixed.
func checkSlice(t *testing.T, m, r Map, fixed map[string]int) {
	t.Helper()
	sp := m.Domain().Space
	for i := 0; i < sp.Size(); i++ {
		c, _ := sp.Coord(i)
		env := m.env(c)
		match := true
		for name, v := range fixed {
			match = match && env[name] == v
		}
		if !match {
			continue
		}
		var rc []int
		for _, l := range r.Domain().Space.Leaves() {
			ar, _ := sp.Lookup(l.Name)
			rc = append(rc, c[ar.First])
		}
		want, _, _ := m.Eval(c)
		got, _, err := r.Eval(rc)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("slice %s at %v: %v, map %v (%v)", r, c, got, want, err)
		}
	}
}

func TestGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range goldenCases {
		b.WriteString(runGolden(t, c))
		b.WriteByte('\n')
	}
	path := filepath.Join("testdata", "algebra.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("golden output differs; run with -update and review the diff.\ngot:\n%s", got)
	}
}

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/storage"
	"github.com/cklplan/cklplan/tasks"
)

// zeros is an endless stream of zero bytes, like /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestInputCap reads stdin without end: every reader of "-" stops at the cap
// on input bytes, exit 1, naming the cap and its flag.
func TestInputCap(t *testing.T) {
	for _, args := range [][]string{
		{"map", "show", "-"},
		{"space", "show", "-"},
		{"layout", "eval", "-"},
		{"dist", "show", "-"},
		{"map", "show", "--max-input-bytes", "1000", "-"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, zeros{}, &stdout, &stderr)
		if code != exitFail || !strings.Contains(stderr.String(), "stdin holds more than") || !strings.Contains(stderr.String(), "--max-input-bytes") {
			t.Errorf("cklplan %q < /dev/zero: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// flatChain is a map whose result is a chain of n terms, m + 0 + … + 0; at
// 1.8 million terms (4 MB) it overflowed the goroutine stack.
func flatChain(n int) string {
	return "(m:4) -> (a:4) = (m" + strings.Repeat(" + 0", n-1) + ")"
}

// TestFlatChain runs every map subcommand on a flat chain of 1.8 million
// terms, and --batch with it between two good lines, and distribution
// ownership with such a chain: each is refused by the cap on terms, and
// --batch answers every line.
func TestFlatChain(t *testing.T) {
	chain := flatChain(1_800_000)
	for _, args := range [][]string{
		{"map", "show", "-"}, {"map", "eval", "-", "1"}, {"map", "simplify", "-"},
		{"map", "compose", "-", "(a:4) -> (b:4) = (a)"}, {"map", "restrict", "-", "m=1"},
		{"map", "inverse", "-"}, {"map", "emit", "-"}, {"map", "to-cute", "-"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(chain), &stdout, &stderr); code != exitFail || !strings.Contains(stderr.String(), "more than 100000 terms") {
			t.Errorf("cklplan %q: exit %d, stderr %.200q", args, code, stderr.String())
		}
	}

	request, _ := json.Marshal(map[string]any{"op": "simplify", "args": []string{chain}})
	good := `{"op": "eval", "args": ["(a:4) -> (b:4) = (3 - a)"], "coord": [1]}`
	in := good + "\n" + string(request) + "\n" + good + "\n"
	var out bytes.Buffer
	if code := run([]string{"map", "--batch", "--max-line-bytes", "8000000"}, strings.NewReader(in), &out, io.Discard); code != exitOK {
		t.Fatalf("--batch: exit %d", code)
	}
	answers := checkBatchAnswers(t, in, out.String())
	if !bytes.Contains(answers[1]["error"], []byte(`"code":"limit"`)) || answers[2]["result"] == nil {
		t.Errorf("--batch answers:\n%s", out.String())
	}

	spec := `{"name": "chain", "executors": [{"name": "lane", "size": 32, "level": "lane"}], "locals": [{"name": "v", "size": 4}],
		"tile": [{"name": "m", "size": 16}, {"name": "n", "size": 8}],
		"ownership": {"m": "lane / 4 + 8 * (v / 2)` + strings.Repeat(" + 0", 1_800_000) + `", "n": "lane % 4 * 2 + v % 2"}}`
	var stderr bytes.Buffer
	if code := run([]string{"dist", "show", "-"}, strings.NewReader(spec), io.Discard, &stderr); code != exitFail || !strings.Contains(stderr.String(), "more than 100000 terms") {
		t.Errorf("dist show: exit %d, stderr %.300q", code, stderr.String())
	}
}

// countingWriter counts the writes it is given.
type countingWriter struct {
	writes, bytes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	w.bytes += len(p)
	return len(p), nil
}

// TestBufferedOutput checks that large outputs reach stdout in large writes
// (a space of 10⁶ leaves made 12 million write calls): at most one write per
// 4 KiB written, and a few more.
func TestBufferedOutput(t *testing.T) {
	var axes []string
	for i := range 1000 {
		axes = append(axes, "a"+strconv.Itoa(i)+":1")
	}
	for _, args := range [][]string{
		{"map", "show", "--table", "(a:256, b:256) -> (c:65536) = (256 * a + b)"},
		{"space", "show", "(" + strings.Join(axes, ", ") + ")"},
		{"dist", "show", "mma.m16n8k16.a.f16"},
		{"layout", "eval", "(1024,1024):(1,1024)"},
	} {
		var w countingWriter
		if code := run(args, nil, &w, io.Discard); code != exitOK {
			t.Fatalf("cklplan %.60q: exit %d", args, code)
		}
		if w.writes > w.bytes/4096+4 {
			t.Errorf("cklplan %.60q: %d writes for %d bytes", args, w.writes, w.bytes)
		}
	}
}

// TestRecognizeFailureIsShort checks that a failed recognize of many values
// names a few of them, not all.
func TestRecognizeFailureIsShort(t *testing.T) {
	args := []string{"layout", "recognize"}
	for i := range 40000 {
		args = append(args, strconv.Itoa(i*i%7919))
	}
	var stderr bytes.Buffer
	if code := run(args, nil, io.Discard, &stderr); code != exitFail {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stderr.Len() > 300 || !strings.Contains(stderr.String(), "(40000 values) is not a layout") {
		t.Errorf("stderr (%d bytes): %.400s", stderr.Len(), stderr.String())
	}
}

// TestBatchRequestKeys checks that request keys match exactly: another case,
// a repeated key, or {} as a map is a bad request, each with its line.
func TestBatchRequestKeys(t *testing.T) {
	tests := []struct {
		command, request, want string
	}{
		{"map", `{"Op": "show", "args": ["(a:2) -> (b:2) = (a)"]}`, `$.Op: unknown field \"Op\" (keys are case-sensitive: \"op\")`},
		{"map", `{"op": "show", "ARGS": ["(a:2) -> (b:2) = (a)"]}`, `unknown field \"ARGS\" (keys are case-sensitive: \"args\")`},
		{"map", `{"op": "eval", "args": ["(a:2) -> (b:2) = (a)"], "Coord": [1]}`, `unknown field \"Coord\" (keys are case-sensitive: \"coord\")`},
		{"layout", `{"op": "eval", "op": "coalesce", "args": ["2:1"]}`, `$.op: key \"op\" is repeated`},
		{"map", `{"op": "restrict", "args": ["(a:2, b:2) -> (c:4) = (2 * a + b)"], "fixed": {"a": 1, "a": 0}}`, `$.fixed.a: key \"a\" is repeated`},
		{"map", `{"op": "show", "args": [{}]}`, `missing \"domain\"`},
		{"layout", `{"op": "recognize", "values": []}`, `recognize needs a non-empty \"values\" list`},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		in := `{"op": "eval", "args": ["(a:2) -> (b:2) = (a)"], "coord": [1]}` + "\n" + tt.request + "\n"
		if tt.command == "layout" {
			in = `{"op": "eval", "args": ["2:1"]}` + "\n" + tt.request + "\n"
		}
		if code := run([]string{tt.command, "--batch"}, strings.NewReader(in), &out, io.Discard); code != exitOK {
			t.Fatalf("exit %d", code)
		}
		answers := checkBatchAnswers(t, in, out.String())
		if answers[0]["result"] == nil || !strings.Contains(string(answers[1]["error"]), tt.want) {
			t.Errorf("%s --batch %s:\n%s\nwant an error holding %s", tt.command, tt.request, out.String(), tt.want)
		}
	}
}

// FuzzBatchCaps feeds arbitrary input to map --batch under small caps on
// line bytes, terms, arguments and axes: every line gets its answer.
func FuzzBatchCaps(f *testing.F) {
	for _, s := range []string{
		`{"op": "simplify", "args": ["(a:4) -> (b:4) = (a + 0 + 0 + 0 + 0 + 0 + 0 + 0)"]}`,
		`{"op": "eval", "args": ["(a:2, b:2, c:2) -> (d:8) = (a + 2 * b + 4 * c)"], "coord": [1, 1, 1]}`,
		`{"op": "compose", "args": ["(a:4) -> (b:4) = (a + a + a)", "(x:4) -> (a:4) = (x + 0 + 0)"]}`,
		strings.Repeat("x", 300) + "\n{}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		args := []string{"map", "--batch", "--max-line-bytes", "200", "--max-terms", "8", "--max-args", "3", "--max-axes", "2", "--max-points", "64"}
		if code := run(args, strings.NewReader(in), &out, io.Discard); code != exitOK {
			t.Fatalf("exit %d", code)
		}
		checkBatchAnswers(t, in, out.String())
	})
}

// BenchmarkRecognize40000Args runs "layout recognize $(seq 0 39999)": the
// argument scan was quadratic (12 s).
func BenchmarkRecognize40000Args(b *testing.B) {
	args := []string{"layout", "recognize"}
	for i := range 40000 {
		args = append(args, strconv.Itoa(i))
	}
	b.ReportAllocs()
	for b.Loop() {
		if code := run(args, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkFlatChainRefused parses a flat chain of 1.8 million terms (4 MB,
// which overflowed the stack) up to the cap on terms, where it is refused.
func BenchmarkFlatChainRefused(b *testing.B) {
	chain := flatChain(1_800_000)
	b.ReportAllocs()
	for b.Loop() {
		if code := run([]string{"map", "show", "-"}, strings.NewReader(chain), io.Discard, io.Discard); code != exitFail {
			b.Fatalf("exit %d", code)
		}
	}
}

// wideGraph is the fan-out example grown along one dimension, as a hostile
// or generated file may: "alternatives", its first task given n copies of
// its first alternative; "pins", its first invocation pinned n times to one
// alternative and forbidden n unknown ones (every repeat a problem);
// "ports", its normalization given n more inputs, each fed by the load;
// "group", its normalization repeated n times in a chain fused into one
// group with a shared-memory budget; "groupbind", the same with a budget
// that only a third of the normalizations' cheaper alternative fits (1 KB
// of shared memory each: ties, which of them take it); "kernel_path", the same chain in no
// group, its first edge crossing a kernel boundary and the first
// normalization feeding every other through another input (n kernel_path
// warnings).
func wideGraph(tb testing.TB, dim string, n int) []byte {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "graphs", "fanout.json"))
	if err != nil {
		tb.Fatal(err)
	}
	g, err := tasks.Load(data)
	if err != nil {
		tb.Fatal(err)
	}
	s := g.Spec()
	task := s.Invocations[0].Task
	ts := s.Tasks[task]
	a0 := ts.Alternatives[0]
	switch dim {
	case "alternatives":
		ts.Alternatives = nil
		for i := range n {
			a := a0
			a.ID = fmt.Sprintf("x%d", i)
			ts.Alternatives = append(ts.Alternatives, a)
		}
		s.Tasks[task] = ts
	case "pins":
		for i := range n {
			s.Invocations[0].Pin = append(s.Invocations[0].Pin, a0.ID)
			s.Invocations[0].Forbid = append(s.Invocations[0].Forbid, fmt.Sprintf("y%d", i))
		}
	case "ports":
		norm := s.Tasks["rmsnorm_scale"]
		x := norm.Ports[0]
		for i := range n {
			p := x
			p.Name = fmt.Sprintf("p%d", i)
			norm.Ports = append(norm.Ports, p)
			for j := range norm.Alternatives {
				a := &norm.Alternatives[j]
				a.Ports = append(a.Ports, tasks.BindingSpec{Port: p.Name, Distribution: a.Ports[0].Distribution})
			}
			s.Edges = append(s.Edges, tasks.EdgeSpec{From: "load_x.x", To: "norm." + p.Name})
		}
		s.Tasks["rmsnorm_scale"] = norm
	case "fanout1":
		// norm.y feeds n stores of one alternative each, alternately
		// wanting norm's load distribution and the mma A fragment: one
		// fan-out term over norm and every store, whose consumers each
		// have one class.
		for k, d := range []string{"row_blocked_f16", "mma.m16n8k16.a.f16"} {
			s.Tasks[fmt.Sprintf("sink%d", k)] = tasks.TaskSpec{
				Kind: tasks.StoreTask,
				Ports: []tasks.PortSpec{
					{Name: "x", Direction: tasks.In, Tile: "a_tile", Element: storage.F16},
					{Name: "dst", Direction: tasks.Out, Tile: "a_tile", Element: storage.F16, Memory: storage.Global},
				},
				Alternatives: []tasks.AlternativeSpec{{
					ID:           "st",
					Ports:        []tasks.BindingSpec{{Port: "x", Distribution: d}, {Port: "dst", Layout: "x_global"}},
					Cost:         tasks.CostSpec{Kind: tasks.DeclaredCost, NS: 0.5},
					Multiplicity: "T/16 * D/16",
				}},
			}
		}
		for i := range n {
			id := fmt.Sprintf("sink%d", i)
			s.Invocations = append(s.Invocations, tasks.InvocationSpec{ID: id, Task: fmt.Sprintf("sink%d", i%2)})
			s.Edges = append(s.Edges, tasks.EdgeSpec{From: "norm.y", To: id + ".x"})
		}
	case "group", "groupbind", "kernel_path":
		// norm, norm1, …, norm{n-1}, in a chain; the last feeds the
		// projections.
		last := "norm"
		for i := 1; i < n; i++ {
			id := fmt.Sprintf("norm%d", i)
			s.Invocations = append(s.Invocations, tasks.InvocationSpec{ID: id, Task: "rmsnorm_scale"})
			s.Edges = append(s.Edges, tasks.EdgeSpec{From: last + ".y", To: id + ".x"})
			last = id
		}
		for i := range s.Edges {
			if s.Edges[i].From == "norm.y" && strings.HasSuffix(s.Edges[i].To, "_proj.lhs") {
				s.Edges[i].From = last + ".y"
			}
		}
		if dim != "kernel_path" {
			g := tasks.GroupSpec{ID: "norms", SharedMemoryBytes: 1 << 16}
			for _, v := range s.Invocations {
				if strings.HasPrefix(v.ID, "norm") {
					g.Invocations = append(g.Invocations, v.ID)
				}
			}
			if dim == "groupbind" {
				norm := s.Tasks["rmsnorm_scale"]
				norm.Alternatives[0].Resources.SharedMemoryBytes = 1024
				s.Tasks["rmsnorm_scale"] = norm
				g.SharedMemoryBytes = 1024 * int64(n/3)
			}
			s.Groups = append(s.Groups, g)
			break
		}
		norm := s.Tasks["rmsnorm_scale"]
		z := norm.Ports[0]
		z.Name = "z"
		norm.Ports = append(norm.Ports, z)
		for j := range norm.Alternatives {
			a := &norm.Alternatives[j]
			a.Ports = append(a.Ports, tasks.BindingSpec{Port: "z", Distribution: a.Ports[0].Distribution})
		}
		s.Tasks["rmsnorm_scale"] = norm
		for i := range s.Edges {
			if s.Edges[i].From == "norm.y" {
				s.Edges[i].Kernel = tasks.MustCrossKernel
			}
		}
		for i := 2; i < n; i++ {
			s.Edges = append(s.Edges, tasks.EdgeSpec{From: "norm.y", To: fmt.Sprintf("norm%d.z", i)})
		}
	}
	out, err := tasks.MarshalSpec(s)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkWideGraphs runs check and plan on wideGraph files of 50,000
// alternatives and pins, 32,000 ports, 8,000 kernel_path warnings, a
// group of 1,000 invocations and one of 640 whose budget binds, and a
// fan-out to 4,000 consumers of one alternative (2.0 s and 735 MB, now
// 0.26 s and 41 MB); each was quadratic or worse somewhere
// (docs/benchmarks.md, "cmd/cklplan: hostile input": checking the
// alternatives took 36 s, planning them 19 s, checking the pins 18 s,
// checking the ports 19.5 s, planning a group of 250 13 s, of 1,000
// 5.8 s and the binding 640 11.8 s).
func BenchmarkWideGraphs(b *testing.B) {
	highstest.Library(b)
	for _, c := range []struct {
		cmd, dim string
		n, code  int
	}{
		{"check", "alternatives", 50000, exitOK}, {"plan", "alternatives", 50000, exitOK}, {"check", "pins", 50000, exitFail},
		{"check", "ports", 32000, exitOK}, {"plan", "ports", 32000, exitOK},
		{"check", "kernel_path", 8000, exitOK}, {"plan", "group", 1000, exitOK}, {"plan", "groupbind", 640, exitOK},
		{"plan", "fanout1", 4000, exitOK},
	} {
		n := c.n
		f := filepath.Join(b.TempDir(), c.dim+".json")
		if err := os.WriteFile(f, wideGraph(b, c.dim, n), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/%s=%d", c.cmd, c.dim, n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var stderr bytes.Buffer
				if code := run([]string{c.cmd, "--max-input-bytes", "100000000", f}, nil, io.Discard, &stderr); code != c.code {
					b.Fatalf("exit %d, want %d: %.500s", code, c.code, stderr.String())
				}
			}
		})
	}
}

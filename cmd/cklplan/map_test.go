package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

// TestMapSpaceExitCodes checks the exit status of "cklplan map" and "cklplan
// space", which the txtar scripts cannot tell apart (they see only success or
// failure): 0 ok, 1 invalid input or a failed condition, 2 usage.
func TestMapSpaceExitCodes(t *testing.T) {
	const tv = "thread-value(lane:32, v:8) -> logical(m:16, k:16) = (lane / 4 + 8 * (v / 2 % 2), lane % 4 * 2 + v % 2 + 8 * (v / 4))"
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"map show", []string{"map", "show", tv}, exitOK},
		{"map show table json", []string{"map", "show", "--table", "--format", "json", tv}, exitOK},
		{"map show help", []string{"map", "show", "-h"}, exitOK},
		{"map help", []string{"map", "help"}, exitOK},
		{"map eval", []string{"map", "eval", tv, "5", "3"}, exitOK},
		{"map simplify flag after the map", []string{"map", "simplify", tv, "-v"}, exitOK},
		{"map eval after --", []string{"map", "eval", "--", tv, "5", "3"}, exitOK},
		{"map inverse", []string{"map", "inverse", tv}, exitOK},
		{"map to-cute", []string{"map", "to-cute", "(a:4, b:2) -> (x:8) = (a + 4 * b)"}, exitOK},
		{"map from-cute", []string{"map", "from-cute", "(2,2):(1,4)"}, exitOK},
		{"space show", []string{"space", "show", "(a:2, b:3)"}, exitOK},
		{"space refine", []string{"space", "refine", "(a:6, b:2)", "(c:3, d:4)"}, exitOK},

		{"map syntax error", []string{"map", "show", "(a:2) -> (b:2) = (a"}, exitFail},
		{"map kind violation", []string{"map", "show", "logical(m:4, n:2) -> physical(a:8) = (m + n)"}, exitFail},
		{"map eval outside guard", []string{"map", "eval", "(m:4) -> (a:4) = (m) if m < 2", "3"}, exitFail},
		{"map eval out of range", []string{"map", "eval", tv, "32", "0"}, exitFail},
		{"map eval wrong count", []string{"map", "eval", tv, "1"}, exitFail},
		{"map inverse not bijective", []string{"map", "inverse", "(m:4) -> (a:8) = (2 * m)"}, exitFail},
		{"map compose size mismatch", []string{"map", "compose", "(a:4) -> (b:4) = (a)", "(x:8) -> (y:8) = (x)"}, exitFail},
		{"map restrict logical", []string{"map", "restrict", tv, "lane=1"}, exitFail},
		{"map to-cute guarded", []string{"map", "to-cute", "(m:4) -> (a:4) = (m) if m < 3"}, exitFail},
		{"map from-cute bad layout", []string{"map", "from-cute", "(2,2):(1"}, exitFail},
		{"space refine conflict", []string{"space", "refine", "(a:6, b:2)", "(c:4, d:3)"}, exitFail},
		{"space flat out of range", []string{"space", "flat", "(a:2)", "2"}, exitFail},
		{"space coord out of range", []string{"space", "coord", "(a:2)", "2"}, exitFail},

		{"map no subcommand", []string{"map"}, exitUsage},
		{"map unknown subcommand", []string{"map", "frobnicate"}, exitUsage},
		{"map show no argument", []string{"map", "show"}, exitUsage},
		{"map show two arguments", []string{"map", "show", tv, tv}, exitUsage},
		{"map show bad format", []string{"map", "show", "--format", "xml", tv}, exitUsage},
		{"map unknown flag", []string{"map", "inverse", "--frobnicate", tv}, exitUsage},
		{"map eval not an integer", []string{"map", "eval", tv, "x", "1"}, exitUsage},
		{"map restrict not AXIS=VALUE", []string{"map", "restrict", tv, "lane"}, exitUsage},
		{"map restrict twice", []string{"map", "restrict", tv, "v=1", "v=2"}, exitUsage},
		{"map from-cute bad kind", []string{"map", "from-cute", "--codomain", "tile", "4:1"}, exitUsage},
		{"map compose two stdin", []string{"map", "compose", "-", "-"}, exitUsage},
		{"map batch", []string{"map", "--batch"}, exitOK},
		{"map batch help", []string{"map", "--batch", "-h"}, exitOK},
		{"map batch with argument", []string{"map", "--batch", "x"}, exitUsage},
		{"space no subcommand", []string{"space"}, exitUsage},
		{"space coord no index", []string{"space", "coord", "(a:2)"}, exitUsage},
		{"space flat not an integer", []string{"space", "flat", "(a:2)", "one"}, exitUsage},
		{"space show bad format", []string{"space", "show", "--format=xml", "(a:2)"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			if got != tt.want {
				t.Errorf("cklplan %q: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.args, got, tt.want, stdout.String(), stderr.String())
			}
			if got != exitOK && stderr.Len() == 0 {
				t.Errorf("cklplan %q: exit %d with nothing on stderr", tt.args, got)
			}
		})
	}
}

// TestSpaceCoordFlatRoundTrip checks "space coord" against "space flat" at
// every point of a space with a group: coord prints (name=value, ...), and
// flat of those values is the index again.
func TestSpaceCoordFlatRoundTrip(t *testing.T) {
	const text = "tile(m:3, n:(n0:2, n1:4))"
	s := indexspace.MustParse(text)
	for i := range s.Size() {
		var out, errs bytes.Buffer
		if code := run([]string{"space", "coord", text, strconv.Itoa(i)}, nil, &out, &errs); code != exitOK {
			t.Fatalf("space coord %d: exit %d: %s", i, code, errs.String())
		}
		args := []string{"space", "flat", text}
		for _, part := range strings.Split(strings.Trim(strings.TrimSpace(out.String()), "()"), ", ") {
			_, v, _ := strings.Cut(part, "=")
			args = append(args, v)
		}
		out.Reset()
		if code := run(args, nil, &out, &errs); code != exitOK {
			t.Fatalf("%q: exit %d: %s", args, code, errs.String())
		}
		if got := strings.TrimSpace(out.String()); got != strconv.Itoa(i) {
			t.Errorf("%q = %s, want %d", args, got, i)
		}
	}
}

// TestMapShowTable checks "map show --table" against Map.Eval at every point:
// each row is the flat index, the coordinates, "->" and the image, or "-"
// where the guard fails.
func TestMapShowTable(t *testing.T) {
	const text = "(a:3, b:4) -> (x:4, y:8) = ((a + b) % 4, a ^ b) if a + b != 3"
	m := indexmap.MustParse(text)
	var out, errs bytes.Buffer
	if code := run([]string{"map", "show", "--table", text}, nil, &out, &errs); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	rows := lines[len(lines)-m.Domain().Space.Size():]
	dom := m.Domain().Space
	for i, row := range rows {
		coord, _ := dom.Coord(i)
		image, valid, err := m.Eval(coord)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{strconv.Itoa(i)}
		for _, c := range coord {
			want = append(want, strconv.Itoa(c))
		}
		want = append(want, "->")
		for _, v := range image {
			if valid {
				want = append(want, strconv.Itoa(v))
			} else {
				want = append(want, "-")
			}
		}
		if got := strings.Fields(row); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("row %d: %q, want %q", i, got, want)
		}
	}
}

// FuzzMapCommand runs every "cklplan map" and "cklplan space" subcommand on
// arbitrary text: none may panic, each exits 0, 1 or 2, and a failure says
// something on stderr.
func FuzzMapCommand(f *testing.F) {
	for _, s := range []string{
		"thread-value(lane:32, v:8) -> logical(m:16, k:16) = (lane / 4 + 8 * (v / 2 % 2), lane % 4 * 2 + v % 2 + 8 * (v / 4))",
		"logical tile(m:12) -> physical smem(a:16) = (m) if m < 10",
		"thread-value(w:4, lane:32) -> physical(a:32) = (lane) broadcast(w)",
		"logical(a:2, b:2) -> physical(y:4) = (2 * a + b ^ (2 * a + b) / 2 % 2)",
		"(i:4) -> (x:7) = (4 * (i / 3) + i % 3)",
		"(m:4, n:2) -> (a:8) = (m + n",
		"tile(m:16, n:(n0:2, n1:4))",
		"((2,2),3):((24,2),8)",
		`{"domain": {"kind": "logical", "space": "(m:3)"}, "codomain": {"kind": "physical", "space": {"axes": [{"name": "a", "size": 4}]}}, "results": ["m + 1"], "guard": "m != 1"}`,
		`{"name": "tile", "axes": [{"name": "m", "size": 16}]}`,
		"",
	} {
		f.Add(s, "a=1")
	}
	const small = "(a:2, b:2) -> (x:4) = (2 * a + b)"
	f.Fuzz(func(t *testing.T, text, arg string) {
		for _, args := range [][]string{
			{"map", "show", "--table", text},
			{"map", "show", "--format", "json", text},
			{"map", "eval", text, "1", "1"},
			{"map", "simplify", "-v", text},
			{"map", "compose", text, small},
			{"map", "compose", small, text},
			{"map", "restrict", text, arg},
			{"map", "inverse", text},
			{"map", "emit", text},
			{"map", "from-cute", text},
			{"map", "to-cute", text},
			{"space", "show", text},
			{"space", "refine", text},
			{"space", "refine", text, "(a:6, b:2)"},
			{"space", "coord", text, "5"},
			{"space", "flat", text, "1", "1"},
		} {
			var stdout, stderr bytes.Buffer
			code := run(args, strings.NewReader(""), &stdout, &stderr)
			if code != exitOK && code != exitFail && code != exitUsage {
				t.Fatalf("cklplan %q: exit %d", args, code)
			}
			if code != exitOK && stderr.Len() == 0 {
				t.Fatalf("cklplan %q: exit %d with nothing on stderr", args, code)
			}
		}
	})
}

// FuzzMapBatch feeds arbitrary input to "cklplan map --batch": it must not
// panic, and must answer every input line with exactly one JSON object that
// holds a result or an error.
func FuzzMapBatch(f *testing.F) {
	for _, s := range []string{
		`{"op": "compose", "args": ["logical(m1:2, m0:6) -> physical(x:43) = (2 * m1 + 8 * m0)", "logical(m1:3, m0:4) -> logical(x:12) = (m1 + 3 * m0)"]}`,
		`{"op": "restrict", "args": ["thread-value(w:4, r:8, v:4) -> physical(x:128) = (32 * w + r + 8 * v)"], "fixed": {"w": 2}}`,
		`{"op": "eval", "args": ["(m:4) -> (a:4) = (m) if m < 2"], "coord": [3]}` + "\n" + `{"op": "inverse", "args": ["(m:4) -> (a:8) = (2 * m)"]}`,
		`{"op": "from-cute", "args": ["(2,4):(0,1)"], "domain": "thread-value", "codomain": "physical"}`,
		`{"op": "show", "args": ["(m:4, n:2) -> (a:8) = (m + n"]}`,
		"not json\n\n{}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		if code := run([]string{"map", "--batch"}, strings.NewReader(in), &out, &bytes.Buffer{}); code != exitOK {
			t.Fatalf("exit %d", code)
		}
		checkBatchAnswers(t, in, out.String())
	})
}

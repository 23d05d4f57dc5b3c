package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseFlags checks how a command line splits into flags and positional
// arguments: flags anywhere before "--", negative integers positional, help
// to stdout with exit 0, usage errors on stderr with exit 2 and a message
// that says what is wrong.
func TestParseFlags(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		least, most int
		wantPos     []string // nil with a code
		wantCode    int      // -1: go on
		wantFormat  string
		wantStdout  string // a line the output must hold
		wantStderr  string
	}{
		{name: "flag first", args: []string{"--format", "json", "A"}, least: 1, most: 1, wantPos: []string{"A"}, wantCode: -1, wantFormat: "json"},
		{name: "flag last", args: []string{"A", "--format=json"}, least: 1, most: 1, wantPos: []string{"A"}, wantCode: -1, wantFormat: "json"},
		{name: "flag between", args: []string{"A", "-format", "json", "B"}, least: 2, most: 2, wantPos: []string{"A", "B"}, wantCode: -1, wantFormat: "json"},
		{name: "negative integers are positional", args: []string{"A", "-1", "-20"}, least: 1, most: -1, wantPos: []string{"A", "-1", "-20"}, wantCode: -1, wantFormat: "text"},
		{name: "flag after a negative integer", args: []string{"A", "-1", "--format", "json", "2"}, least: 1, most: -1, wantPos: []string{"A", "-1", "2"}, wantCode: -1, wantFormat: "json"},
		{name: "double dash ends the flags", args: []string{"--", "--format", "-x"}, least: 0, most: -1, wantPos: []string{"--format", "-x"}, wantCode: -1, wantFormat: "text"},
		{name: "stdin once", args: []string{"-", "A"}, least: 2, most: 2, wantPos: []string{"-", "A"}, wantCode: -1, wantFormat: "text"},
		{name: "no arguments", args: nil, least: 0, most: 0, wantCode: -1, wantFormat: "text"},

		{name: "help first", args: []string{"-h", "A"}, least: 1, most: 1, wantCode: exitOK, wantStdout: "usage: cklplan cmd sub ARGS"},
		{name: "help last", args: []string{"A", "B", "--help"}, least: 1, most: 1, wantCode: exitOK, wantStdout: "usage: cklplan cmd sub ARGS"},
		{name: "help after a negative integer", args: []string{"A", "-1", "-help"}, least: 1, most: 1, wantCode: exitOK, wantStdout: "usage: cklplan cmd sub ARGS"},

		{name: "unknown flag", args: []string{"A", "--colour"}, least: 1, most: 1, wantCode: exitUsage, wantStderr: "cklplan cmd sub: flag provided but not defined: -colour"},
		{name: "flag without its value", args: []string{"A", "--format"}, least: 1, most: 1, wantCode: exitUsage, wantStderr: "cklplan cmd sub: flag needs an argument: -format"},
		{name: "too many", args: []string{"A", "B"}, least: 1, most: 1, wantCode: exitUsage, wantStderr: "cklplan cmd sub: takes 1 argument, got 2"},
		{name: "too few", args: nil, least: 2, most: -1, wantCode: exitUsage, wantStderr: "cklplan cmd sub: takes at least 2 arguments, got 0"},
		{name: "range", args: []string{"A", "B", "C"}, least: 1, most: 2, wantCode: exitUsage, wantStderr: "cklplan cmd sub: takes 1 to 2 arguments, got 3"},
		{name: "none wanted", args: []string{"A"}, least: 0, most: 0, wantCode: exitUsage, wantStderr: "cklplan cmd sub: takes 0 arguments, got 1"},
		{name: "stdin twice", args: []string{"-", "-"}, least: 2, most: 2, wantCode: exitUsage, wantStderr: `cklplan cmd sub: only one argument may be "-" (stdin)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			fl := newFlagSet("cmd sub", "ARGS", &stdout, &stderr)
			format := fl.String("format", "text", "output `format`")
			pos, code := parseFlags(fl, tt.args, tt.least, tt.most)
			if code != tt.wantCode {
				t.Fatalf("code %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			if diff := cmp.Diff(tt.wantPos, pos); diff != "" {
				t.Errorf("positional arguments (-want +got):\n%s", diff)
			}
			if code < 0 && *format != tt.wantFormat {
				t.Errorf("--format %q, want %q", *format, tt.wantFormat)
			}
			if !hasLine(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout lacks the line %q:\n%s", tt.wantStdout, stdout.String())
			}
			if !hasLine(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr lacks the line %q:\n%s", tt.wantStderr, stderr.String())
			}
			switch code {
			case exitOK:
				if stderr.Len() != 0 {
					t.Errorf("help wrote to stderr:\n%s", stderr.String())
				}
			case exitUsage:
				if stdout.Len() != 0 || !strings.Contains(stderr.String(), "usage: cklplan cmd sub ARGS") {
					t.Errorf("a usage error writes the usage to stderr only; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
				}
			default:
				if stdout.Len() != 0 || stderr.Len() != 0 {
					t.Errorf("parsing wrote output; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
				}
			}
		})
	}
}

// hasLine reports whether text holds line as a whole line; "" is in any text.
func hasLine(text, line string) bool {
	if line == "" {
		return true
	}
	for l := range strings.Lines(text) {
		if strings.TrimSuffix(l, "\n") == line {
			return true
		}
	}
	return false
}

func TestIsNegativeInt(t *testing.T) {
	for _, tt := range []struct {
		arg  string
		want bool
	}{
		{"-1", true}, {"-0", true}, {"-99999999999999999999", true},
		{"-", false}, {"--", false}, {"1", false}, {"-h", false}, {"--1", false}, {"-1x", false}, {"-1.5", false}, {"", false},
	} {
		if got := isNegativeInt(tt.arg); got != tt.want {
			t.Errorf("isNegativeInt(%q) = %v, want %v", tt.arg, got, tt.want)
		}
	}
}

// FuzzCommandLine runs the commands on arbitrary argument lists (the fuzz
// text split at spaces): none may panic; each exits 0, 1 or 2; a failure
// says something on stderr; help (exit 0 after -h) writes to stdout only.
// doctor (a solver run) and dist cuda (which writes files) are left out.
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"layout composition (6,2):(8,2) (4,3):(3,1)",
		"layout recognize 0 -1 -2 2305843009213693952",
		"layout eval -h",
		"layout complement 4:2 -3",
		"space flat (a:6,b:2) -1 0",
		"space coord (a:6,b:2) 99999999999999999999",
		"space refine t(a:6,a_0:2)",
		"map eval (a:4)->(b:4)=(a) -1 --bogus",
		"map restrict (a:4)->(b:4)=(a) a=-1",
		"dist show mma.m16n8k16.c.f32 --format json",
		"dist list -h",
		"help layout",
		"help -- --",
		"version -h",
		"-- layout",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 || slices.Contains(args, "doctor") || slices.Contains(args, "cuda") {
			return
		}
		if args[0] == "dist" && strings.ContainsAny(line, `/\`) {
			return // no reading of arbitrary files
		}
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		switch code {
		case exitOK, exitFail, exitUsage:
		default:
			t.Fatalf("cklplan %q: exit %d", args, code)
		}
		if code != exitOK && stderr.Len() == 0 {
			t.Fatalf("cklplan %q: exit %d with nothing on stderr", args, code)
		}
	})
}

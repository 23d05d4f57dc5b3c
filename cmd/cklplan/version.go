package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	register(command{name: "version", summary: "print cklplan's version", run: runVersion})
}

func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("version", "", stdout, stderr)
	fl.usage = func(w io.Writer) { fmt.Fprintln(w, "usage: cklplan version") }
	if _, code := parseFlags(fl, args, 0, 0); code >= 0 {
		return code
	}
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintf(stdout, "cklplan %s\n", v)
	return exitOK
}

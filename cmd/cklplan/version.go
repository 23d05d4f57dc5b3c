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
	if len(args) != 0 {
		fmt.Fprintln(stderr, "usage: cklplan version")
		return exitUsage
	}
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintf(stdout, "cklplan %s\n", v)
	return exitOK
}

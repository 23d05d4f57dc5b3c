package main

import (
	"fmt"
	"io"

	"github.com/cklplan/cklplan/tasks"
)

func init() {
	register(command{name: "schema", summary: "print the JSON Schema of task-graph files", run: runSchema})
}

func runSchema(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fl := newFlagSet("schema", "", stdout, stderr)
	fl.usage = func(w io.Writer) {
		fmt.Fprintln(w, "usage: cklplan schema")
		fmt.Fprintln(w, "\nPrints the JSON Schema (draft 2020-12) of the task-graph format that")
		fmt.Fprintln(w, "'cklplan check' reads. The schema checks a file's shape; check also checks")
		fmt.Fprintln(w, "names, tiles, cycles, multiplicities and targets.")
	}
	if _, code := parseFlags(fl, args, 0, 0); code >= 0 {
		return code
	}
	if _, err := stdout.Write(tasks.Schema()); err != nil {
		fmt.Fprintf(stderr, "cklplan schema: %v\n", err)
		return exitFail
	}
	return exitOK
}

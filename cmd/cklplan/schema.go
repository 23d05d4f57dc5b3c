package main

import (
	"io"

	"github.com/cklplan/cklplan/tasks"
)

var schemaCommand = &opTable[noOperands, *noOperands]{
	name:    "schema",
	summary: "print the JSON Schema of task-graph files",
	about: `Prints the JSON Schema (draft 2020-12) of the task-graph format that
'cklplan check' reads. The schema checks a file's shape; check also checks
names, tiles, cycles, multiplicities and targets.
`,
	ops: []*op[*noOperands]{{run: func(*noOperands, *env) (result, error) { return schemaResult(tasks.Schema()), nil }}},
}

// A schemaResult is the schema, the same in text and JSON.
type schemaResult []byte

func (r schemaResult) writeText(w io.Writer, _ string) error {
	_, err := w.Write(r)
	return err
}

func (r schemaResult) writeJSON(w io.Writer) error { return r.writeText(w, "json") }

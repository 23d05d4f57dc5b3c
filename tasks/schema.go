package tasks

import _ "embed"

//go:embed schema.json
var schema []byte

// Schema returns the JSON Schema (draft 2020-12) of the task-graph format.
// It checks the shape of a file; New checks what the file means.
func Schema() []byte { return append([]byte(nil), schema...) }

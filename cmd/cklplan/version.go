package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

var versionCommand = &opTable[noOperands, *noOperands]{
	name:    "version",
	summary: "print cklplan's version",
	ops: []*op[*noOperands]{{
		run: func(*noOperands, *env) (result, error) {
			v := "(devel)"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			return versionResult{Version: v}, nil
		},
	}},
}

type versionResult struct {
	Version string `json:"version"`
}

func (r versionResult) writeText(w io.Writer, _ string) error {
	_, err := fmt.Fprintf(w, "cklplan %s\n", r.Version)
	return err
}

// noOperands is the request of an operation that takes no operands.
type noOperands struct{}

func (*noOperands) setOperands([]string, *input) error { return nil }
func (*noOperands) setTail(string, []string) error     { return nil }
func (*noOperands) count() int                         { return 0 }

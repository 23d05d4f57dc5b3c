package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the txtar scripts under testdata/script run "cklplan" in process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cklplan": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts: each is a txtar archive holding the commands,
// their expected stdout and stderr, and their exit codes.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		RequireExplicitExec: false,
	})
}

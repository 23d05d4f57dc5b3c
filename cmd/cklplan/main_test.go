package main

import (
	"fmt"
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
		Setup: func(e *testscript.Env) error {
			// A script's environment is its own, but HiGHS is found as
			// the test's is: from an explicit path or a system install
			// as well as from the project's (which needs nothing passed).
			for _, k := range highsEnv {
				if v, ok := os.LookupEnv(k); ok {
					e.Setenv(k, v)
				}
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "highs_explicit" {
				// HiGHS comes from CKL_HIGHS_LIBRARY, not from a
				// search a script can steer.
				return os.Getenv("CKL_HIGHS_LIBRARY") != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// highsEnv are the variables HiGHS's discovery reads (internal/highs).
var highsEnv = []string{"CKL_HIGHS_LIBRARY", "HiGHS_HOME", "LD_LIBRARY_PATH"}

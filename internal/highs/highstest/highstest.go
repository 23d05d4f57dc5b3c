package highstest

import (
	"os"
	"sync"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
)

// EnvRequire names the variable that demands the pinned HiGHS release.
const EnvRequire = "CKL_REQUIRE_HIGHS"

// Pinned is the HiGHS release the project installs (major and minor).
var Pinned = highs.Version{Major: 1, Minor: 15}

var (
	once sync.Once
	lib  *highs.Library
	err  error
)

// Library returns the HiGHS found by highs.Load with the zero Config, or fails
// the test.
func Library(t testing.TB) *highs.Library {
	t.Helper()
	once.Do(func() { lib, err = highs.Load(highs.Config{}) })
	if err != nil {
		t.Fatalf("HiGHS is needed by this test and was not found:\n%v", err)
	}
	if os.Getenv(EnvRequire) == "1" {
		v := lib.Version()
		if v.Major != Pinned.Major || v.Minor != Pinned.Minor {
			t.Fatalf("%s=1: HiGHS %s found at %s, want %d.%d.x; run `%s` or set %s",
				EnvRequire, v, lib.Path(), Pinned.Major, Pinned.Minor, highs.InstallCommand, highs.EnvLibrary)
		}
	}
	return lib
}

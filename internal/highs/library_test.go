package highs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/google/go-cmp/cmp"
)

// TestLoadSteps checks the discovery order step by step. Each case builds a
// world in a temporary directory ($TMP in the expected steps) from the real
// library ($LIB): files, symlinks, a module with a project install, a fake
// python3, and environment variables.
func TestLoadSteps(t *testing.T) {
	real := highstest.Library(t).Path()
	tests := []struct {
		name   string
		env    map[string]string
		files  map[string]string // path under $TMP → content; "->X" makes a symlink to X ($LIB: the real library)
		python string            // path under $TMP of the python to ask; "" skips the step
		system []string
		dir    string   // where Load starts, under $TMP; "" means sub/dir
		want   []string // the steps, found or not
		found  string   // the source that found the library; "" when Load fails
	}{
		{
			name:  "CKL_HIGHS_LIBRARY names the library",
			env:   map[string]string{"CKL_HIGHS_LIBRARY": "$TMP/lib/libhighs.so"},
			files: map[string]string{"lib/libhighs.so": "->$LIB"},
			want:  []string{"CKL_HIGHS_LIBRARY: $TMP/lib/libhighs.so: ok"},
			found: "CKL_HIGHS_LIBRARY",
		},
		{
			name:  "CKL_HIGHS_LIBRARY names a missing file: nothing else is tried",
			env:   map[string]string{"CKL_HIGHS_LIBRARY": "$TMP/nope/libhighs.so", "HiGHS_HOME": "$TMP/home"},
			files: map[string]string{"home/lib/libhighs.so": "->$LIB"},
			want: []string{
				"CKL_HIGHS_LIBRARY: $TMP/nope/libhighs.so: no such file",
				"other steps: not tried because CKL_HIGHS_LIBRARY is set",
			},
		},
		{
			name:  "CKL_HIGHS_LIBRARY names a file that is not a library",
			env:   map[string]string{"CKL_HIGHS_LIBRARY": "$TMP/libhighs.so"},
			files: map[string]string{"libhighs.so": "This text file is not a shared library, whatever its name says: dlopen must refuse it.\n"},
			want: []string{
				"CKL_HIGHS_LIBRARY: $TMP/libhighs.so: cannot load: $TMP/libhighs.so: invalid ELF header",
				"other steps: not tried because CKL_HIGHS_LIBRARY is set",
			},
		},
		{
			name:  "CKL_HIGHS_LIBRARY names a directory",
			env:   map[string]string{"CKL_HIGHS_LIBRARY": "$TMP/lib"},
			files: map[string]string{"lib/libhighs.so": "->$LIB"},
			want: []string{
				"CKL_HIGHS_LIBRARY: $TMP/lib: not a regular file",
				"other steps: not tried because CKL_HIGHS_LIBRARY is set",
			},
		},
		{
			name:  "HiGHS_HOME holds lib/libhighs.so",
			env:   map[string]string{"HiGHS_HOME": "$TMP/home"},
			files: map[string]string{"home/lib/libhighs.so": "->$LIB"},
			want:  []string{"CKL_HIGHS_LIBRARY: not set", "HiGHS_HOME: $TMP/home/lib/libhighs.so: ok"},
			found: "HiGHS_HOME",
		},
		{
			name: "the project install, by its record",
			env:  map[string]string{"HiGHS_HOME": "$TMP/empty"},
			files: map[string]string{
				"mod/go.mod":               "module example.com/m\n",
				"mod/.highs/libhighs.path": "v/libhighs.so\n",
				"mod/.highs/v/libhighs.so": "->$LIB",
			},
			dir: "mod/sub/dir",
			want: []string{
				"CKL_HIGHS_LIBRARY: not set",
				"HiGHS_HOME: $TMP/empty/lib/libhighs.so: no such file",
				"project install (module above $TMP/mod/sub/dir): $TMP/mod/.highs/v/libhighs.so: ok",
			},
			found: "project install (module above $TMP/mod/sub/dir)",
		},
		{
			name: "the project install, by the wheel's layout without a record",
			files: map[string]string{
				"mod/go.mod": "module example.com/m\n",
				"mod/.highs/highsbox-1.15.1/highsbox/highs_dist/lib/libhighs.so": "->$LIB",
			},
			dir: "mod/sub/dir",
			want: []string{
				"CKL_HIGHS_LIBRARY: not set",
				"HiGHS_HOME: not set",
				"project install (module above $TMP/mod/sub/dir): $TMP/mod/.highs/highsbox-1.15.1/highsbox/highs_dist/lib/libhighs.so: ok",
			},
			found: "project install (module above $TMP/mod/sub/dir)",
		},
		{
			name:   "python's highsbox",
			files:  map[string]string{"py/lib/libhighs.so": "->$LIB", "bin/python3": "#!/bin/sh\necho $TMP/py/lib\n"},
			python: "bin/python3",
			want: []string{
				"CKL_HIGHS_LIBRARY: not set",
				"HiGHS_HOME: not set",
				"project install (module above $TMP/sub/dir): no go.mod in $TMP/sub/dir or above",
				"python highsbox: $TMP/py/lib/libhighs.so: ok",
			},
			found: "python highsbox",
		},
		{
			name: "nothing anywhere; a system library that is not HiGHS",
			files: map[string]string{
				"mod/go.mod":               "module example.com/m\n",
				"mod/.highs/libhighs.path": "gone/libhighs.so\n",
				"bin/python3":              "#!/bin/sh\necho 'ModuleNotFoundError: No module named highsbox' >&2\nexit 1\n",
			},
			python: "bin/python3",
			dir:    "mod/sub/dir",
			system: []string{"libz.so.1", "libhighs-nonexistent.so"},
			want: []string{
				"CKL_HIGHS_LIBRARY: not set",
				"HiGHS_HOME: not set",
				"project install (module above $TMP/mod/sub/dir): $TMP/mod/.highs: recorded library $TMP/mod/.highs/gone/libhighs.so: no such file",
				"python highsbox: $TMP/bin/python3: ModuleNotFoundError: No module named highsbox",
				"system: libz.so.1: not a usable HiGHS library: symbol Highs_versionMajor not found",
				"system: libhighs-nonexistent.so: cannot load: libhighs-nonexistent.so: cannot open shared object file: No such file or directory",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			expand := func(s string) string {
				return strings.NewReplacer("$TMP", tmp, "$LIB", real).Replace(s)
			}
			unexpand := func(s string) string { return strings.ReplaceAll(s, tmp, "$TMP") }
			for name, content := range tt.files {
				p := filepath.Join(tmp, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				if target, ok := strings.CutPrefix(content, "->"); ok {
					err = os.Symlink(expand(target), p)
				} else {
					err = os.WriteFile(p, []byte(expand(content)), 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			cfg := highs.Config{
				Getenv:          func(k string) string { return expand(tt.env[k]) },
				Dir:             filepath.Join(tmp, "sub", "dir"),
				SkipBuildModule: true,
				Python:          "-",
				SystemNames:     tt.system,
			}
			if tt.python != "" {
				cfg.Python = filepath.Join(tmp, tt.python)
			}
			if tt.system == nil {
				cfg.SystemNames = []string{}
			}
			if tt.dir != "" {
				cfg.Dir = filepath.Join(tmp, tt.dir)
			}
			if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			lib, err := highs.Load(cfg)
			var steps []highs.Step
			if tt.found != "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				steps = lib.Steps()
				if got := steps[len(steps)-1].Source; unexpand(got) != tt.found {
					t.Errorf("found by %q, want %q", unexpand(got), tt.found)
				}
				if lib.Version().Major != 1 || lib.SizeofHighsInt() != 4 {
					t.Errorf("version %v, HighsInt %d bytes", lib.Version(), lib.SizeofHighsInt())
				}
			} else {
				var le *highs.LoadError
				if !errors.As(err, &le) || !errors.Is(err, highs.ErrNotFound) {
					t.Fatalf("Load: %v (%T), want a *LoadError wrapping ErrNotFound", err, err)
				}
				steps = le.Steps
				msg := err.Error()
				if !strings.Contains(msg, "make setup") || !strings.Contains(msg, "CKL_HIGHS_LIBRARY") {
					t.Errorf("error does not say how to install HiGHS:\n%s", msg)
				}
			}
			var got []string
			for _, s := range steps {
				got = append(got, unexpand(s.String()))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadErrorText pins the documented error: every step, then what to do:
// here, where the variable names a library that is not there, fix or unset
// it (installing alone would not help).
func TestLoadErrorText(t *testing.T) {
	_, err := highs.Load(highs.Config{
		Getenv: func(k string) string {
			if k == highs.EnvLibrary {
				return "/nonexistent/libhighs.so"
			}
			return ""
		},
	})
	want := `highs: no usable HiGHS library (1.15.x expected, at least 1.10); searched:
  CKL_HIGHS_LIBRARY: /nonexistent/libhighs.so: no such file
  other steps: not tried because CKL_HIGHS_LIBRARY is set
point CKL_HIGHS_LIBRARY at a libhighs.so, or unset it to use the one ` + "`make setup`" + ` installs at the cklplan module root`
	if err == nil || err.Error() != want {
		t.Fatalf("error\n%v\nwant\n%s", err, want)
	}
}

func TestCheckVersion(t *testing.T) {
	tests := []struct {
		name    string
		version highs.Version
		want    string // "" when accepted
	}{
		{"the pinned release", highs.Version{Major: 1, Minor: 15, Patch: 1}, ""},
		{"the oldest accepted", highs.Version{Major: 1, Minor: 10, Patch: 0}, ""},
		{"a later major", highs.Version{Major: 2, Minor: 0, Patch: 0}, ""},
		{"just too old", highs.Version{Major: 1, Minor: 9, Patch: 99},
			"HiGHS 1.9.99 is too old: cklplan needs HiGHS 1.10 or newer (1.15.x expected)"},
		{"far too old", highs.Version{Major: 0, Minor: 12, Patch: 0},
			"HiGHS 0.12.0 is too old: cklplan needs HiGHS 1.10 or newer (1.15.x expected)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := highs.CheckVersion(tt.version)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("CheckVersion(%v) = %q, want %q", tt.version, got, tt.want)
			}
		})
	}
}

func TestCheckIntSize(t *testing.T) {
	v := highs.Version{Major: 1, Minor: 15, Patch: 1}
	tests := []struct {
		name string
		size int
		want string // "" when accepted
	}{
		{"32-bit HighsInt, the default build", 4, ""},
		{"64-bit HighsInt (HIGHSINT64)", 8,
			"HiGHS 1.15.1 uses 8-byte HighsInt; this binding assumes 4 (HiGHS built without HIGHSINT64)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := highs.CheckIntSize(v, tt.size); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("CheckIntSize(%d) = %q, want %q", tt.size, got, tt.want)
			}
		})
	}
}

// TestLoadConcurrent loads from many goroutines at once: every call finds the
// same library, and each Library carries its own copy of the steps.
func TestLoadConcurrent(t *testing.T) {
	want := highstest.Library(t).Path()
	const n = 8
	libs := make([]*highs.Library, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { libs[i], errs[i] = highs.Load(highs.Config{}) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Load %d: %v", i, errs[i])
		}
		if libs[i].Path() != want {
			t.Errorf("Load %d found %s, want %s", i, libs[i].Path(), want)
		}
	}
	steps := libs[0].Steps()
	steps[0].Source = "changed"
	if libs[0].Steps()[0].Source == "changed" {
		t.Error("Steps returns the library's own slice")
	}
}

package highs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ebitengine/purego"
)

// The oldest HiGHS the binding accepts. The C API it calls is that of 1.15;
// every function it uses exists, with the same signature, since 1.10.
const (
	minMajor = 1
	minMinor = 10
)

// InstallCommand is the one command, run at the module root, that installs
// HiGHS where Load finds it.
const InstallCommand = "make setup"

// Environment variables read by Load.
const (
	EnvLibrary = "CKL_HIGHS_LIBRARY" // a file: the only library tried when set
	EnvHome    = "HiGHS_HOME"        // an install prefix holding lib/libhighs.so
)

// The project's own install, made by scripts/setup-highs.sh under the module
// root: recordFile (relative to installDir) names the library, relative to
// installDir as well.
const (
	installDir   = ".highs"
	recordFile   = "libhighs.path"
	defaultBuild = "highsbox-1.15.1/highsbox/highs_dist/lib/libhighs.so"
)

// ErrNotFound is the sentinel under every LoadError: no usable HiGHS library.
var ErrNotFound = errors.New("highs: no usable HiGHS library found")

// Config says where Load looks for HiGHS. Its zero value searches the process
// environment, the working directory and the system, in the order documented in
// the package comment.
type Config struct {
	// Getenv reads an environment variable; nil means os.Getenv.
	Getenv func(key string) string
	// Dir is where the search for the module root (the directory holding
	// go.mod) starts; "" means the working directory.
	Dir string
	// SkipBuildModule leaves out the module cklplan was compiled in from the
	// project-install step (for tests of discovery itself).
	SkipBuildModule bool
	// Python is the interpreter asked for the highsbox package; "" means
	// "python3", "-" skips the step.
	Python string
	// SystemNames are the names handed to the dynamic loader in the last step;
	// nil means libhighs.so and libhighs.so.1.
	SystemNames []string
}

// A Step is one place Load looked, in order, and what it found there.
type Step struct {
	Source string // which rule: "CKL_HIGHS_LIBRARY", "HiGHS_HOME", "project install", ...
	Path   string // the file or name tried; "" when the rule had nothing to try
	Err    error  // why the step did not give a usable library; nil for the one that did
}

// String is "source: path: outcome", or "source: outcome" when the step had
// no path to try (an unset variable, say).
func (s Step) String() string {
	outcome := "ok"
	if s.Err != nil {
		outcome = s.Err.Error()
	}
	if s.Path == "" {
		return fmt.Sprintf("%s: %s", s.Source, outcome)
	}
	return fmt.Sprintf("%s: %s: %s", s.Source, s.Path, outcome)
}

// LoadError is returned by Load when no step gave a usable library. It lists
// every step and the command that installs HiGHS; errors.Is(err, ErrNotFound)
// holds.
type LoadError struct {
	Steps []Step
}

func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString("highs: no usable HiGHS library (1.15.x expected, at least 1.10); searched:")
	for _, s := range e.Steps {
		b.WriteString("\n  ")
		b.WriteString(s.String())
	}
	if len(e.Steps) > 0 && e.Steps[0].Source == EnvLibrary && e.Steps[0].Path != "" {
		// The variable names the only library tried: installing does
		// not help until it is fixed or unset.
		b.WriteString("\npoint " + EnvLibrary + " at a libhighs.so, or unset it to use the one `" + InstallCommand +
			"` installs at the cklplan module root")
		return b.String()
	}
	b.WriteString("\ninstall HiGHS with `" + InstallCommand + "` at the cklplan module root, or set " +
		EnvLibrary + " to a libhighs.so")
	return b.String()
}

func (e *LoadError) Unwrap() error { return ErrNotFound }

// Version is a HiGHS release number.
type Version struct {
	Major, Minor, Patch int
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less reports whether v is an older release than w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// A Library is a loaded, checked libhighs. It is safe for concurrent use and
// lives for the rest of the process (a shared library is never unloaded).
type Library struct {
	path     string
	version  Version
	infinity float64
	iisErr   error // why Solver.Conflict is unavailable; nil when it is
	steps    []Step
	c        cfuncs
}

// Path is the file (or system name) the library was loaded from.
func (l *Library) Path() string { return l.path }

// Version is the HiGHS release of the library.
func (l *Library) Version() Version { return l.version }

// SizeofHighsInt is the size in bytes of the library's HighsInt, as checked by
// Load against what the binding assumes.
func (l *Library) SizeofHighsInt() int { return sizeofHighsInt }

// Steps are the discovery steps Load took, the last one being the step that
// found this library.
func (l *Library) Steps() []Step { return append([]Step(nil), l.steps...) }

// loaded caches libraries by path: dlopen of a file already loaded returns the
// same handle, so checking it again is wasted work.
var loaded sync.Map // path → *Library

// Load finds libhighs in the order the package comment documents, loads it and
// checks it (the version is at least 1.10; HighsInt is 32 bits). It never
// panics: a missing or unusable library is a *LoadError naming every step.
func Load(cfg Config) (*Library, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var steps []Step
	try := func(source, path string) *Library {
		lib, err := open(path)
		steps = append(steps, Step{Source: source, Path: path, Err: err})
		if err != nil {
			return nil
		}
		l := *lib
		l.steps = append([]Step(nil), steps...)
		return &l
	}
	skip := func(source, path string, err error) {
		steps = append(steps, Step{Source: source, Path: path, Err: err})
	}

	// 1. An explicit file: the user's choice, so nothing else is tried.
	if p := getenv(EnvLibrary); p == "" {
		skip(EnvLibrary, "", errors.New("not set"))
	} else {
		if err := fileError(p); err != nil {
			skip(EnvLibrary, p, err)
		} else if lib := try(EnvLibrary, p); lib != nil {
			return lib, nil
		}
		skip("other steps", "", fmt.Errorf("not tried because %s is set", EnvLibrary))
		return nil, &LoadError{Steps: steps}
	}

	// 2. An install prefix.
	if home := getenv(EnvHome); home == "" {
		skip(EnvHome, "", errors.New("not set"))
	} else if p := filepath.Join(home, "lib", "libhighs.so"); fileError(p) != nil {
		skip(EnvHome, p, fileError(p))
	} else if lib := try(EnvHome, p); lib != nil {
		return lib, nil
	}

	// 3. The project's own install, found from the working directory and from
	// the module root this package was compiled in (tests and CLI scripts run
	// in temporary directories outside the module).
	for _, r := range projectRoots(cfg.Dir, !cfg.SkipBuildModule) {
		source := "project install (" + r.how + ")"
		if r.err != nil {
			skip(source, "", r.err)
			continue
		}
		p, err := projectLibrary(r.root)
		if err != nil {
			skip(source, filepath.Join(r.root, installDir), err)
			continue
		}
		if lib := try(source, p); lib != nil {
			return lib, nil
		}
	}

	// 4. The highsbox package of the system's Python.
	python := cfg.Python
	if python == "" {
		python = "python3"
	}
	if python == "-" {
		skip("python highsbox", "", errors.New("skipped by the configuration"))
	} else if dir, err := pythonHighsbox(python); err != nil {
		skip("python highsbox", "", err)
	} else if p := filepath.Join(dir, "libhighs.so"); fileError(p) != nil {
		skip("python highsbox", p, fileError(p))
	} else if lib := try("python highsbox", p); lib != nil {
		return lib, nil
	}

	// 5. The dynamic loader's own search (LD_LIBRARY_PATH, ld.so.cache).
	names := cfg.SystemNames
	if names == nil {
		names = []string{"libhighs.so", "libhighs.so.1"}
	}
	for _, n := range names {
		if lib := try("system", n); lib != nil {
			return lib, nil
		}
	}
	return nil, &LoadError{Steps: steps}
}

// fileError says why p is not a file to load, or returns nil.
func fileError(p string) error {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errors.New("no such file")
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return errors.New("not a regular file")
	}
	return nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

type projectRoot struct {
	how  string
	root string
	err  error
}

// projectRoots lists the module roots to look for .highs/ in: the one above
// dir (or the working directory) and the one this file was compiled in,
// without repeats.
func projectRoots(dir string, buildModule bool) []projectRoot {
	var roots []projectRoot
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			roots = append(roots, projectRoot{how: "working directory", err: err})
		}
		dir = wd
	}
	if dir != "" {
		r, err := moduleRoot(dir)
		roots = append(roots, projectRoot{how: "module above " + dir, root: r, err: err})
	}
	if !buildModule {
		return roots
	}
	if _, file, _, ok := runtime.Caller(0); !ok || !filepath.IsAbs(file) {
		roots = append(roots, projectRoot{how: "module cklplan was built in",
			err: errors.New("unknown (built with -trimpath)")})
	} else if r, err := moduleRoot(filepath.Dir(file)); err != nil {
		roots = append(roots, projectRoot{how: "module cklplan was built in", err: err})
	} else if len(roots) == 0 || roots[0].root != r {
		roots = append(roots, projectRoot{how: "module cklplan was built in", root: r})
	}
	return roots
}

// moduleRoot walks up from dir to the directory holding go.mod.
func moduleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if isFile(filepath.Join(d, "go.mod")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("no go.mod in " + dir + " or above")
		}
		d = parent
	}
}

// projectLibrary reads the library path recorded by scripts/setup-highs.sh,
// falling back to the wheel's layout when the record is missing.
func projectLibrary(root string) (string, error) {
	dir := filepath.Join(root, installDir)
	rec, err := os.ReadFile(filepath.Join(dir, recordFile))
	rel := defaultBuild
	if err == nil {
		rel = strings.TrimSpace(string(rec))
	}
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, rel)
	}
	if !isFile(p) {
		if err != nil {
			return "", errors.New("not installed")
		}
		return "", fmt.Errorf("recorded library %s: no such file", p)
	}
	return p, nil
}

// pythonHighsbox asks python for the highsbox package's library directory.
func pythonHighsbox(python string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", "import highsbox; print(highsbox.highs_lib_dir())")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg != "" {
			return "", fmt.Errorf("%s: %s", python, msg)
		}
		return "", fmt.Errorf("%s: %v", python, err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

var openMu sync.Mutex

// open loads and checks one candidate library.
func open(path string) (*Library, error) {
	if l, ok := loaded.Load(path); ok {
		return l.(*Library), nil
	}
	openMu.Lock()
	defer openMu.Unlock()
	if l, ok := loaded.Load(path); ok {
		return l.(*Library), nil
	}
	// dlerror's message is the failing thread's: the goroutine stays on
	// its thread from dlopen to dlerror, or the reason can come back empty.
	runtime.LockOSThread()
	handle, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	runtime.UnlockOSThread()
	if err != nil {
		return nil, fmt.Errorf("cannot load: %v", err)
	}
	l := &Library{path: path}
	if err := l.init(handle); err != nil {
		purego.Dlclose(handle)
		return nil, err
	}
	loaded.Store(path, l)
	return l, nil
}

// checkVersion refuses releases older than the binding's C API.
func checkVersion(v Version) error {
	if v.Less(Version{minMajor, minMinor, 0}) {
		return fmt.Errorf("HiGHS %s is too old: cklplan needs HiGHS %d.%d or newer (1.15.x expected)",
			v, minMajor, minMinor)
	}
	return nil
}

// init binds the C functions of a freshly opened library and checks its
// version and HighsInt size.
func (l *Library) init(handle uintptr) error {
	if err := bind(handle, l.c.versionSymbols()); err != nil {
		return err
	}
	l.version = Version{int(l.c.versionMajor()), int(l.c.versionMinor()), int(l.c.versionPatch())}
	if err := checkVersion(l.version); err != nil {
		return err
	}
	if err := bind(handle, l.c.solverSymbols()); err != nil {
		return fmt.Errorf("HiGHS %s: %v", l.version, err)
	}
	if !l.version.Less(iisVersion) {
		l.iisErr = bind(handle, l.c.iisSymbols())
	} else {
		l.iisErr = fmt.Errorf("HiGHS %s: conflicts (IIS) need HiGHS %s or newer", l.version, iisVersion)
	}
	// HighsInt's size and infinity are properties of an instance; ask a
	// throwaway one, on its own locked thread like every instance.
	inst, err := newInstance(l)
	if err != nil {
		return err
	}
	var size highsInt
	inst.do(func(h uintptr) {
		size = l.c.getSizeofHighsInt(h)
		l.infinity = l.c.getInfinity(h)
	})
	inst.close()
	return checkIntSize(l.version, int(size))
}

// checkIntSize refuses a HiGHS whose HighsInt is not the binding's.
func checkIntSize(v Version, size int) error {
	if size != sizeofHighsInt {
		return fmt.Errorf("HiGHS %s uses %d-byte HighsInt; this binding assumes %d (HiGHS built without HIGHSINT64)",
			v, size, sizeofHighsInt)
	}
	return nil
}

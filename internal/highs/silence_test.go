package highs_test

import (
	"context"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cklplan/cklplan/internal/highs"
	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/ebitengine/purego"
)

// TestSilent runs solves of every outcome with the process's stdout and
// stderr (file descriptors 1 and 2, where HiGHS prints) redirected to a pipe,
// flushes C's stdio buffers, and checks that nothing was written.
func TestSilent(t *testing.T) {
	lib := highstest.Library(t)
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatalf("libc for fflush: %v", err)
	}
	var fflush func(stream uintptr) int32
	purego.RegisterLibFunc(&fflush, libc, "fflush")

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var saved [3]int
	for _, fd := range []int{1, 2} {
		if saved[fd], err = syscall.Dup(fd); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Dup3(int(w.Fd()), fd, 0); err != nil {
			t.Fatal(err)
		}
	}
	captured := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		captured <- b
	}()

	// Nothing may print to the test's output while fds 1 and 2 are redirected.
	var errs []error
	solve := func(m *highs.Model, opt highs.Options) {
		if _, err := lib.Solve(context.Background(), m, opt); err != nil {
			errs = append(errs, err)
		}
	}
	k := randomKnapsack(16, 4)
	solve(k.model(), highs.Options{})
	solve(hardModel(), highs.Options{TimeLimit: 20 * time.Millisecond})
	solve(&highs.Model{Columns: []highs.Column{highs.Binary("x", 1)},
		Rows: []highs.Row{{Lower: 2, Upper: 3, Terms: []highs.Term{{Col: 0, Coef: 1}}}}}, highs.Options{})
	solve(&highs.Model{Columns: []highs.Column{{Cost: -1, Upper: 1e300}}}, highs.Options{Presolve: highs.PresolveOff, Threads: 2})
	fflush(0) // every C stream

	for _, fd := range []int{1, 2} {
		if err := syscall.Dup3(saved[fd], fd, 0); err != nil {
			panic(err) // the test binary has lost its output
		}
		syscall.Close(saved[fd])
	}
	w.Close()
	out := <-captured
	r.Close()
	for _, err := range errs {
		t.Error(err)
	}
	if len(out) != 0 {
		t.Errorf("HiGHS wrote %d bytes to stdout or stderr:\n%s", len(out), out)
	}
}

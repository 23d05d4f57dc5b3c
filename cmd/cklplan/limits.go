package main

import (
	"flag"
	"fmt"
	"io"
)

// limits are the caps on what one command reads and does, each raisable by
// a flag (docs/limits.md). The defaults keep a command under about 1 GiB of
// memory and a few seconds.
type limits struct {
	inputBytes int64 // stdin or a file, read whole
}

// The defaults of the caps.
const (
	defaultInputBytes = 16 << 20
)

// limitFlags are the names of the flags that raise the caps.
var limitFlags = []string{"max-input-bytes"}

func isLimitFlag(name string) bool {
	for _, f := range limitFlags {
		if f == name {
			return true
		}
	}
	return false
}

// flags declares the flags that raise the caps, with their defaults.
func (l *limits) flags(fs *flag.FlagSet) {
	fs.Int64Var(&l.inputBytes, "max-input-bytes", defaultInputBytes, "cap on the `bytes` read from stdin or a file")
}

// check reports a cap set to no positive value.
func (l *limits) check() error {
	if l.inputBytes < 1 {
		return fmt.Errorf("-max-input-bytes %d: want a positive number of bytes", l.inputBytes)
	}
	return nil
}

// A limitError reports a cap that input reached: which cap, and the flag
// that raises it.
type limitError struct {
	what  string // "stdin holds more than 16777216 bytes"
	flag  string // "max-input-bytes"
	limit int64
}

func (e *limitError) Error() string {
	return fmt.Sprintf("%s (the cap; raise it with --%s)", e.what, e.flag)
}

// readAll reads r whole, up to the input cap; name says what r is ("stdin").
func (l *limits) readAll(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, l.inputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > l.inputBytes {
		return nil, &limitError{what: fmt.Sprintf("%s holds more than %d bytes", name, l.inputBytes), flag: "max-input-bytes", limit: l.inputBytes}
	}
	return data, nil
}

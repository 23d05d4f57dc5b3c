package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// A cmdFlags is the flag set of one command or subcommand ("map show") with
// its usage. Help asked for with -h goes to stdout and exits 0; a usage error
// says what is wrong on stderr, then gives the usage there, and exits 2.
type cmdFlags struct {
	*flag.FlagSet
	cmd            string
	usage          func(w io.Writer)
	stdout, stderr io.Writer
}

// newFlagSet returns the flag set of the subcommand cmd ("map show"), whose
// usage line lists args.
func newFlagSet(cmd, args string, stdout, stderr io.Writer) *cmdFlags {
	fl := &cmdFlags{FlagSet: flag.NewFlagSet(cmd, flag.ContinueOnError), cmd: cmd, stdout: stdout, stderr: stderr}
	// The flag package's own messages are discarded: parseFlags reports the
	// error itself, then the usage, on the stream that fits.
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	fl.usage = func(w io.Writer) {
		fmt.Fprintf(w, "usage: cklplan %s %s\n", cmd, args)
		if fl.hasFlags() {
			fmt.Fprintln(w, "\nflags:")
			fl.printDefaults(w)
		}
		fmt.Fprintf(w, "\nRun 'cklplan %s -h' for the notation.\n", strings.Fields(cmd)[0])
	}
	return fl
}

func (fl *cmdFlags) hasFlags() bool {
	var n int
	fl.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func (fl *cmdFlags) printDefaults(w io.Writer) {
	fl.SetOutput(w)
	fl.PrintDefaults()
	fl.SetOutput(io.Discard)
}

// usageError reports a usage error on stderr, then the usage, and returns
// the exit code for it.
func (fl *cmdFlags) usageError(format string, args ...any) int {
	fmt.Fprintf(fl.stderr, "cklplan %s: %s\n", fl.cmd, fmt.Sprintf(format, args...))
	fl.usage(fl.stderr)
	return exitUsage
}

// isNegativeInt reports whether arg is a negative decimal integer ("-1"),
// which is a positional argument (a coordinate, a value), never a flag.
func isNegativeInt(arg string) bool {
	if len(arg) < 2 || arg[0] != '-' {
		return false
	}
	for _, c := range arg[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseFlags parses args with flags before, between or after the positional
// arguments ("--" ends the flags; a negative integer such as "-1" is
// positional) and checks that there are between least and most positional
// arguments (most < 0: no limit). It returns the positional arguments and -1,
// or the exit code when the command is to stop: 0 after -h (the usage went to
// stdout), 2 on a usage error (reported on stderr).
func parseFlags(fl *cmdFlags, args []string, least, most int) ([]string, int) {
	var pos []string
	for len(args) > 0 {
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		if isNegativeInt(args[0]) {
			pos = append(pos, args[0])
			args = args[1:]
			continue
		}
		// Let the flag package see the arguments up to the next "--" or
		// negative integer; it stops at the first positional one.
		end := slices.IndexFunc(args, func(a string) bool { return a == "--" || isNegativeInt(a) })
		if end < 0 {
			end = len(args)
		}
		if err := fl.Parse(args[:end]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fl.usage(fl.stdout)
				return nil, exitOK
			}
			return nil, fl.usageError("%v", err)
		}
		rest := fl.Args()
		if len(rest) > 0 {
			pos = append(pos, rest[0])
			rest = rest[1:]
		}
		args = slices.Concat(rest, args[end:])
	}
	stdinArgs := 0
	for _, p := range pos {
		if p == "-" {
			stdinArgs++
		}
	}
	if stdinArgs > 1 {
		return nil, fl.usageError("only one argument may be \"-\" (stdin)")
	}
	if len(pos) < least || (most >= 0 && len(pos) > most) {
		return nil, fl.usageError("%s, got %d", arity(least, most), len(pos))
	}
	return pos, -1
}

// arity says how many arguments a command takes.
func arity(least, most int) string {
	plural := func(n int) string {
		if n == 1 {
			return "1 argument"
		}
		return strconv.Itoa(n) + " arguments"
	}
	switch {
	case least == most:
		return "takes " + plural(least)
	case most < 0:
		return "takes at least " + plural(least)
	}
	return fmt.Sprintf("takes %d to %s", least, plural(most))
}

// parseInts parses integers given on the command line; what names them in
// errors ("coordinate 2"), numbered from 0.
func parseInts(cmd, what string, args []string, stderr io.Writer) ([]int, bool) {
	out := make([]int, len(args))
	for i, a := range args {
		v, err := strconv.Atoi(a)
		if err != nil {
			problem := "is not an integer"
			if errors.Is(err, strconv.ErrRange) {
				problem = "is out of the integer range"
			}
			fmt.Fprintf(stderr, "cklplan %s: %s %d, %q, %s\n", cmd, what, i, a, problem)
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

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

// scanFlags parses args with flags before, between or after the positional
// arguments ("--" ends the flags; a negative integer such as "-1" is
// positional) and returns the positional arguments. The error is
// flag.ErrHelp after -h, with the positional arguments seen before it, or
// what is wrong with a flag. At most one positional argument may be "-"
// (stdin).
//
// Each flag.Parse call takes the arguments up to the next "--" or negative
// integer and stops at the first positional one; the scan goes on after it,
// so that it takes time linear in the number of arguments.
func scanFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for i := 0; i < len(args); {
		if args[i] == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if isNegativeInt(args[i]) || args[i] == "-" || len(args[i]) == 0 || args[i][0] != '-' {
			pos = append(pos, args[i])
			i++
			continue
		}
		end := i + 1
		for end < len(args) && args[end] != "--" && !isNegativeInt(args[end]) && (len(args[end]) == 0 || args[end][0] == '-') && args[end] != "-" {
			end++
		}
		// A flag's value may stand in the next argument ("--format json"):
		// give flag.Parse one argument more, and see how many it took.
		if end < len(args) && args[end] != "--" && !isNegativeInt(args[end]) {
			end++
		}
		if err := fs.Parse(args[i:end]); err != nil {
			const needs = "flag needs an argument: "
			if msg := err.Error(); strings.HasPrefix(msg, needs) && end < len(args) && isNegativeInt(args[end]) {
				// "--gap -1": the flag, the last one parsed, has its value
				// in a negative integer, elsewhere an argument. Given to
				// the flag, its range refuses it (no flag of cklplan takes
				// one) as it refuses "--gap=-1".
				name := strings.TrimLeft(strings.TrimPrefix(msg, needs), "-")
				if err := fs.Set(name, args[end]); err != nil {
					return pos, fmt.Errorf("invalid value %q for flag --%s: %v", args[end], name, err)
				}
				i = end + 1
				continue
			}
			return pos, doubleDash(err)
		}
		rest := fs.Args()
		i = end - len(rest)
	}
	if n := len(slices.DeleteFunc(slices.Clone(pos), func(a string) bool { return a != "-" })); n > 1 {
		return pos, errors.New(`only one argument may be "-" (stdin)`)
	}
	// A value given empty ("--target ''", or "--target $T" with T unset)
	// would read as the flag left out: say so instead.
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		if f.Value.String() == "" {
			empty = append(empty, "--"+f.Name)
		}
	})
	if len(empty) > 0 {
		return pos, fmt.Errorf("%s: an empty value; leave the flag out for its default", strings.Join(empty, ", "))
	}
	return pos, nil
}

// doubleDash is an error of package flag with the flag named as cklplan's
// usage lines and help name it: "--name", a one-letter flag "-o" (the
// package writes "-name").
func doubleDash(err error) error {
	msg := err.Error()
	for _, at := range []string{"flag provided but not defined: -", " for flag -", " for -", "flag needs an argument: -"} {
		i := strings.Index(msg, at)
		if i < 0 {
			continue
		}
		j := i + len(at)
		name := msg[j:]
		if k := strings.IndexByte(name, ':'); k >= 0 {
			name = name[:k]
		}
		if len(name) > 1 {
			return errors.New(msg[:j] + "-" + msg[j:])
		}
		return err
	}
	return err
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
// errors ("coordinate 2"), numbered from 0. An error is a malformed request.
func parseInts(what string, args []string) ([]int, error) {
	out := make([]int, len(args))
	for i, a := range args {
		v, err := strconv.Atoi(a)
		if err != nil {
			return nil, badRequest("%s %d, %q, %s", what, i, a, intProblem(err))
		}
		out[i] = v
	}
	return out, nil
}

// intProblem says why strconv.Atoi refused an argument.
func intProblem(err error) string {
	if errors.Is(err, strconv.ErrRange) {
		return "is out of the integer range"
	}
	return "is not an integer"
}

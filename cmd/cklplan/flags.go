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
				// "--invocations -5": the value is there, but a negative
				// integer is always an argument.
				name := strings.TrimLeft(strings.TrimPrefix(msg, needs), "-")
				// No flag of cklplan takes one: "--invocations=-5" would
				// only be refused by the flag's range.
				return pos, fmt.Errorf("--%s %s: no flag takes a negative number (a negative integer is an argument)", name, args[end])
			}
			return pos, err
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

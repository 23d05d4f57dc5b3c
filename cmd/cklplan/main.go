// Command cklplan plans how a graph of GPU tile computations is realized.
//
// Usage:
//
//	cklplan COMMAND [ARGS...]
//
// Run "cklplan help" for the list of commands.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit codes.
const (
	exitOK    = 0 // success
	exitFail  = 1 // input or planning failure
	exitUsage = 2 // bad command line
)

// A command is one subcommand of cklplan. Each lives in its own file and adds
// itself to commands with register.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("cklplan: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "help":
		return help(args[1:], stdin, stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "cklplan: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

// help lists the commands, or, given one, prints its usage as its -h does.
func help(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		usage(stdout)
		return exitOK
	case 1:
		if c, ok := commands[args[0]]; ok {
			return c.run([]string{"-h"}, stdin, stdout, stderr)
		}
		fmt.Fprintf(stderr, "cklplan help: unknown command %q\n", args[0])
	default:
		fmt.Fprintf(stderr, "cklplan help: takes at most 1 argument, got %d\n", len(args))
	}
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: cklplan COMMAND [ARGS...]")
	fmt.Fprintln(w, "       cklplan help [COMMAND]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nEach command prints its usage with -h. Exit status: 0 ok, 1 input failure, 2 usage.")
}

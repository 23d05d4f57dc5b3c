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
	"slices"
	"strings"
)

// Exit codes.
const (
	exitOK    = 0 // success
	exitFail  = 1 // input or planning failure
	exitUsage = 2 // bad command line
)

// A command is one entry of the command table.
type command struct {
	name    string
	summary string
	ops     int // how many operations it has (usage lines)
	run     func(args []string, s streams) int
}

// commands is the command table, in the order "cklplan help" lists it. A
// command is an opTable (ops.go) in a file of its own; adding one is adding
// its entry here.
func commands() []command {
	return []command{
		checkCommand.command(),
		classifyCommand.command(),
		distCommand.command(),
		doctorCommand.command(),
		genCommand.command(),
		layoutCommand.command(),
		mapCommand.command(),
		planCommand.command(),
		schemaCommand.command(),
		spaceCommand.command(),
		versionCommand.command(),
	}
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func main() {
	adjustStartingHeap()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := streams{stdin, stdout, stderr}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "cklplan: no command")
		listCommands(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		listCommands(stdout)
		return exitOK
	case "help":
		return help(args[1:], s)
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "cklplan: unknown command %q\n", args[0])
		listCommands(stderr)
		return exitUsage
	}
	return c.run(args[1:], s)
}

// help lists the commands, or, given one, prints its usage as its -h does.
// Its own -h, wherever it stands before "--", lists the commands.
func help(args []string, s streams) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--h" || a == "--help" {
			listCommands(s.stdout)
			return exitOK
		}
	}
	switch len(args) {
	case 0:
		listCommands(s.stdout)
		return exitOK
	case 1:
		if args[0] == "help" {
			listCommands(s.stdout)
			return exitOK
		}
		if c, ok := lookup(args[0]); ok {
			return c.run([]string{"-h"}, s)
		}
		fmt.Fprintf(s.stderr, "cklplan help: unknown command %q\n", args[0])
	default:
		if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") }) {
			fmt.Fprintf(s.stderr, "cklplan help: takes no flags (cklplan help COMMAND, or cklplan COMMAND -h)\n")
			break
		}
		fmt.Fprintf(s.stderr, "cklplan help: takes at most 1 argument, got %d\n", len(args))
	}
	listCommands(s.stderr)
	return exitUsage
}

func listCommands(w io.Writer) {
	fmt.Fprintln(w, "usage: cklplan COMMAND [ARGS...]")
	fmt.Fprintln(w, "       cklplan help [COMMAND]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEach command prints its usage with -h. Exit status: 0 ok, 1 input failure, 2 usage.")
}

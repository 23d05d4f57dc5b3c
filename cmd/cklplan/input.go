package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/internal/jsonv"
)

// An env is what every operation runs with: the caps on its input and work.
type env struct {
	lim limits
	// stderr is where a long operation shows its progress.
	stderr io.Writer
	// finally are what an operation leaves to be done once its result is
	// written (finish), last first.
	finally []func()
}

// atFinish has f run once the operation's result is written, or its
// failure reported.
func (e *env) atFinish(f func()) { e.finally = append(e.finally, f) }

// finish runs what atFinish was given.
func (e *env) finish() {
	for i := len(e.finally) - 1; i >= 0; i-- {
		e.finally[i]()
	}
	e.finally = nil
}

// An input reads the operands that stand for more text: "-" (stdin, once)
// and files, under the caps.
type input struct {
	stdin io.Reader
	lim   *limits
}

// text returns arg, or all of stdin when arg is "-".
func (in *input) text(arg string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	data, err := in.lim.readAll(in.stdin, "stdin")
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "", errors.New(`stdin ("-") is empty`)
	}
	return text, nil
}

// file returns the bytes of the file name, or all of stdin when name is
// "-", under the cap on input bytes.
func (in *input) file(name string) ([]byte, error) {
	if name == "-" {
		return in.lim.readAll(in.stdin, "stdin")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return in.lim.readAll(f, name)
}

// flagFile is file for the value of a flag (--costs): an error opening or
// reading it names the flag; one over the cap on input bytes names the file
// and the cap, as for FILE.
func (in *input) flagFile(flag, name string) ([]byte, error) {
	data, err := in.file(name)
	if le := (*limitError)(nil); err != nil && !errors.As(err, &le) {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return data, err
}

// namedFile reads the file name (never stdin: "-" is a file's name here)
// under the cap on input bytes.
func (in *input) namedFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return in.lim.readAll(f, name)
}

// bothStdin is the usage error of a command whose graph FILE and --costs
// file are both "-": stdin is read once.
func bothStdin(file, costs string) error {
	if file == "-" && costs == "-" {
		return badRequest("FILE and --costs are both - (stdin): give one of them as a file")
	}
	return nil
}

// texts returns args with "-" replaced by all of stdin.
func (in *input) texts(args []string) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		text, err := in.text(a)
		if err != nil {
			return nil, err
		}
		out[i] = text
	}
	return out, nil
}

// An argError is an error in operand index (from 0) of a request; text is
// the operand's text when offsets in the error are into it, "" otherwise.
type argError struct {
	index int
	name  string // how the usage names the operand ("TILER"), or ""
	text  string
	err   error
}

func (e *argError) Error() string {
	if e.name == "" {
		return e.err.Error()
	}
	return fmt.Sprintf("%s (argument %d): %v", e.name, e.index+1, e.err)
}

func (e *argError) Unwrap() error { return e.err }

// errorExcerpt returns the operand text and the byte offset into it that a
// syntax error in err names, when there is one to point at.
func errorExcerpt(err error) (string, int, bool) {
	ae := (*argError)(nil)
	if !errors.As(err, &ae) || ae.text == "" {
		return "", 0, false
	}
	offset := -1
	var me *indexmap.SyntaxError
	var se *indexspace.SyntaxError
	var le *indexmap.LimitError
	switch {
	case errors.As(err, &me):
		offset = me.Offset
	case errors.As(err, &se):
		offset = se.Offset
	case errors.As(err, &le):
		offset = le.Offset
	}
	if jp := (*jsonv.Problem)(nil); offset < 0 && errors.As(err, &jp) && jp.Code == jsonv.Syntax {
		offset = jp.Offset
	}
	text := ae.text
	if offset < 0 || offset > len(text) || !utf8.ValidString(text[:offset]) || strings.ContainsAny(text, "\n\r\t") {
		return "", 0, false
	}
	return text, offset, true
}

// excerptRunes bounds how much of the text an error excerpt shows on either
// side of the offset, so that a long input gives a short excerpt, not all of
// it.
const excerptRunes = 60

// excerpt returns the part of text around the byte offset, with "…" where it
// was cut, and the column (in runes) of the offset in that part.
func excerpt(text string, offset int) (string, int) {
	before, after := []rune(text[:offset]), []rune(text[offset:])
	prefix, suffix := "", ""
	if len(before) > excerptRunes {
		before, prefix = before[len(before)-excerptRunes:], "…"
	}
	if len(after) > excerptRunes {
		after, suffix = after[:excerptRunes], "…"
	}
	return prefix + string(before) + string(after) + suffix, utf8.RuneCountInString(prefix) + len(before)
}

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/goccy/go-json"
)

// serveBatch answers JSON Lines requests: one response line per input line,
// in order. answer turns one trimmed request line into its response; when the
// response is an error, lineError prefixes its message with the line number
// (DESIGN §8: every error says where). HTML characters are not escaped, so
// tilers (<3:4, 8:2>) read as written.
func serveBatch[R any](stdin io.Reader, stdout io.Writer, answer func(line []byte) R, lineError func(resp *R, n int)) error {
	r := bufio.NewReader(stdin)
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return err
		}
		resp := answer(bytes.TrimSpace(line))
		lineError(&resp, n)
		if eerr := enc.Encode(resp); eerr != nil {
			return eerr
		}
		if err == io.EOF {
			break
		}
		if ferr := flushIfIdle(r, w); ferr != nil {
			return ferr
		}
	}
	return w.Flush()
}

// flushIfIdle flushes the answers written so far when no further request is
// waiting in r, before the next read may block: a program that drives
// --batch through a pipe, one request at a time, gets each answer at once,
// while a file of requests is still answered in large writes.
func flushIfIdle(r *bufio.Reader, w *bufio.Writer) error {
	if r.Buffered() > 0 {
		return nil
	}
	return w.Flush()
}

// atLine prefixes a batch error message with the line it answers.
func atLine(message string, n int) string { return fmt.Sprintf("line %d: %s", n, message) }

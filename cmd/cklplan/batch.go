package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
	"github.com/cklplan/cklplan/internal/jsonv"
)

// serveBatch answers JSON Lines requests: one answer line per input line, in
// order, whatever goes wrong with another line. An answer is the op's result
// encoded as JSON, as "--format json" writes it, or an error object whose
// message starts with the line it answers.
func (t *opTable[Q, P]) serveBatch(stdin io.Reader, stdout io.Writer, env *env) error {
	r := bufio.NewReader(stdin)
	w := bufio.NewWriter(stdout)
	for n := 1; ; n++ {
		line, long, err := readLine(r, env.lim.lineBytes)
		if len(line) == 0 && !long && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return err
		}
		var ans any
		if long {
			ans = errorAnswer(&limitError{fmt.Sprintf("the line holds more than %d bytes", env.lim.lineBytes), "max-line-bytes"}, n)
		} else {
			ans = t.answer(bytes.TrimSpace(line), n, env)
		}
		if werr := writeJSON(w, ans); werr != nil {
			return werr
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

// readLine reads one line of at most max bytes, without its newline. A
// longer line is read to its end and dropped: long reports it, and the next
// read starts at the next line.
func readLine(r *bufio.Reader, max int64) (line []byte, long bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !long {
			if int64(len(line)+len(chunk)) > max+1 { // +1: the newline
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			if err == nil {
				line = bytes.TrimSuffix(line, []byte("\n"))
			}
			return line, long, err
		}
	}
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

// answer computes the answer to request line n.
func (t *opTable[Q, P]) answer(line []byte, n int, env *env) (ans any) {
	defer func() {
		if p := recover(); p != nil {
			ans = errorAnswerJSON{Error: &batchError{Code: codeInternal, Message: fmt.Sprintf("line %d: internal error: %v", n, p)}}
		}
	}()
	q, o, err := t.decodeRequest(line, env)
	if err != nil {
		return errorAnswer(err, n)
	}
	res, err := o.run(q, env)
	if err != nil {
		return errorAnswer(err, n)
	}
	return res
}

// decodeRequest reads one request line: a JSON object with "op", the op's
// "args", and the fields the op takes. Keys match exactly; a repeated key,
// an unknown one, or one that goes with another op is a bad request.
func (t *opTable[Q, P]) decodeRequest(line []byte, env *env) (P, *op[P], error) {
	if len(line) == 0 {
		return nil, nil, badRequest("empty line")
	}
	members, err := objectMembers(line)
	if err != nil {
		return nil, nil, badRequest("not a request object: %v", err)
	}
	fields := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		fields[m.key] = m.value
	}
	for _, m := range members {
		if m.key != "op" && m.key != "args" && len(t.opsTaking(m.key)) == 0 {
			return nil, nil, badRequest("unknown field %q%s", m.key, t.caseHint(m.key))
		}
	}
	raw, ok := fields["op"]
	if !ok {
		return nil, nil, badRequest(`no "op": want one of %s`, quotedList(t.opNames()))
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil || raw[0] != '"' {
		return nil, nil, badRequest(`"op", %s, is not a string`, raw)
	}
	o := t.find(name)
	if o == nil || name == "" {
		return nil, nil, badRequest("unknown op %q", name)
	}
	for _, m := range members {
		if m.key == "op" || m.key == "args" || m.key == o.tail || slices.Contains(o.fields, m.key) {
			continue
		}
		return nil, nil, badRequest("%q goes with %s only", m.key, orList(t.opsTaking(m.key)))
	}
	q := P(new(Q))
	var args []json.RawMessage
	if raw, ok := fields["args"]; ok {
		if err := json.Unmarshal(raw, &args); err != nil || raw[0] != '[' {
			return nil, nil, badRequest(`"args", %s, is not a list`, raw)
		}
	}
	switch {
	case o.max == 0 && fields["args"] != nil:
		return nil, nil, badRequest(`%s takes no "args"`, name)
	case len(args) < o.min || len(args) > o.max:
		return nil, nil, badRequest("%s takes %s (%s), got %d", name, plural(o.min, o.max, "arg"), o.operands, len(args))
	}
	if err := env.lim.checkArgs(len(args), `entries in "args"`); err != nil {
		return nil, nil, err
	}
	if err := q.decodeArgs(args); err != nil {
		return nil, nil, err
	}
	if o.tail != "" && fields[o.tail] == nil {
		return nil, nil, badRequest("%s needs %q", name, o.tail)
	}
	for _, m := range members {
		if m.key == "op" || m.key == "args" {
			continue
		}
		if err := q.decodeField(m.key, m.value); err != nil {
			return nil, nil, err
		}
	}
	if err := env.lim.checkArgs(q.count(), "arguments and values"); err != nil {
		return nil, nil, err
	}
	return q, o, nil
}

// caseHint names the field that key spells in other case: keys are
// case-sensitive.
func (t *opTable[Q, P]) caseHint(key string) string {
	names := []string{"op", "args"}
	for _, o := range t.ops {
		names = append(names, o.tail)
		names = append(names, o.fields...)
	}
	for _, n := range names {
		if n != "" && strings.EqualFold(n, key) {
			return fmt.Sprintf(" (keys are case-sensitive: %q)", n)
		}
	}
	return ""
}

// opsTaking lists the ops that take the request field name.
func (t *opTable[Q, P]) opsTaking(name string) []string {
	var names []string
	for _, o := range t.ops {
		if o.tail == name || slices.Contains(o.fields, name) {
			names = append(names, o.name)
		}
	}
	return names
}

func quotedList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return orList(q)
}

// plural says how many of thing a request takes: "2 args", "1 to 2 args".
func plural(least, most int, thing string) string {
	s := func(n int) string {
		if n == 1 {
			return "1 " + thing
		}
		return strconv.Itoa(n) + " " + thing + "s"
	}
	if least == most {
		return s(least)
	}
	return fmt.Sprintf("%d to %s", least, s(most))
}

// A member is one key and value of a JSON object, as written.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers returns the members of the JSON object data, in order; it is
// an error if data is no object, holds text after it, or repeats a key.
func objectMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, have %s", jsonKind(data))
	}
	var members []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("a key is not a string")
		}
		if seen[key] {
			return nil, fmt.Errorf("the key %q is repeated", key)
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		members = append(members, member{key, bytes.TrimSpace(value)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("text after the object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the object")
	}
	return members, nil
}

// jsonKind names the kind of the JSON value that data starts with.
func jsonKind(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// The error codes of --batch answers beside CuTe's (cute.Code): a request
// that is not well formed, a syntax error with the argument and offset, a
// broken kind rule, a cap reached, any other failed condition.
const (
	codeBadRequest = "bad_request"
	codeSyntax     = "syntax"
	codeKind       = "kind"
	codeLimit      = "limit"
	codeFailed     = "failed"
	codeInternal   = "internal"
)

// A batchError is the error object of a --batch answer.
type batchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Arg     *int   `json:"arg,omitempty"`    // the argument (from 0) the error is in
	Offset  *int   `json:"offset,omitempty"` // the byte offset there, for a syntax error or a cap
}

// An errorAnswerJSON is a failed request's answer line; Table holds a failed
// composition's values as a function (cute.Error.Values).
type errorAnswerJSON struct {
	Error *batchError `json:"error"`
	Table []int       `json:"table,omitempty"`
}

// errorAnswer is the answer to request line n that failed with err.
func errorAnswer(err error, n int) errorAnswerJSON {
	e := &batchError{Code: errorCode(err), Message: fmt.Sprintf("line %d: %v%s", n, err, capHint(err))}
	if ae := (*argError)(nil); errors.As(err, &ae) {
		arg := ae.index
		e.Arg = &arg
		if _, offset, ok := errorExcerpt(err); ok {
			e.Offset = &offset
		}
	}
	ans := errorAnswerJSON{Error: e}
	if ce := (*cute.Error)(nil); errors.As(err, &ce) && len(ce.Values) > 0 {
		ans.Table = ce.Values
	}
	return ans
}

// errorCode is the --batch code of err.
func errorCode(err error) string {
	var (
		re *requestError
		le *limitError
		ce *cute.Error
		ke *indexmap.KindError
		me *indexmap.SyntaxError
		se *indexspace.SyntaxError
	)
	switch {
	case errors.As(err, &re):
		return codeBadRequest
	case errors.As(err, &le), capHint(err) != "":
		return codeLimit
	case errors.As(err, &ce):
		return string(ce.Code)
	case errors.As(err, &ke):
		return codeKind
	case errors.As(err, &me), errors.As(err, &se):
		return codeSyntax
	}
	if jp := (*jsonv.Problem)(nil); errors.As(err, &jp) {
		switch jp.Code {
		case jsonv.Syntax:
			return codeSyntax
		case jsonv.Limit:
			return codeLimit
		}
	}
	return codeFailed
}

// cuteCode is the code of a CuTe error, "" for any other error.
func cuteCode(err error) string {
	if ce := (*cute.Error)(nil); errors.As(err, &ce) {
		return string(ce.Code)
	}
	return ""
}

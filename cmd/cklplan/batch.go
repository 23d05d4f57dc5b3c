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
			ans = errorAnswer(&limitError{what: fmt.Sprintf("the line holds more than %d bytes", env.lim.lineBytes), flag: "max-line-bytes"}, n)
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
	res, err := o.run(q.(P), env)
	if err != nil {
		return errorAnswer(err, n)
	}
	return res
}

// decodeRequest reads one request line through internal/jsonv: a JSON
// object with "op", the op's "args", and the fields the op takes. Keys match
// exactly; a repeated key, an unknown one, or one that goes with another op
// is a bad request, and every problem of the line is reported at its path.
func (t *opTable[Q, P]) decodeRequest(line []byte, env *env) (batchRequest, *op[P], error) {
	if len(line) == 0 {
		return nil, nil, badRequest("empty line")
	}
	v, err := jsonv.Parse(line, jsonv.Limits{MaxBytes: env.lim.lineBytes})
	if err != nil {
		return nil, nil, &requestError{err: err}
	}
	var d jsonv.Decoder
	obj := d.Object(v, jsonv.Root)
	if obj == nil {
		return nil, nil, &requestError{err: d.Err()}
	}
	for _, k := range obj.Keys() {
		if k != "op" && k != "args" && len(t.opsTaking(k)) == 0 {
			d.Report(jsonv.Root.Key(k), jsonv.UnknownField, "unknown field %q%s", k, t.caseHint(k))
		}
	}
	name := obj.String("op", true)
	if d.Failed() {
		return nil, nil, &requestError{err: d.Err()}
	}
	o := t.find(name)
	if o == nil || name == "" {
		d.Report(jsonv.Root.Key("op"), jsonv.UnknownName, "unknown op %q", name)
		return nil, nil, &requestError{err: d.Err()}
	}
	q, ok := any(P(new(Q))).(batchRequest)
	if !ok {
		return nil, nil, badRequest("%s takes no --batch requests", t.name)
	}
	for _, k := range obj.Keys() {
		if k != "op" && k != "args" && k != o.tail && !slices.Contains(o.fields, k) && len(t.opsTaking(k)) > 0 {
			d.Report(jsonv.Root.Key(k), jsonv.UnknownField, "%q goes with %s only", k, orList(t.opsTaking(k)))
		}
	}
	var args []*jsonv.Value
	av, ap := obj.Field("args")
	switch {
	case av == nil && o.min > 0:
		d.Report(jsonv.Root, jsonv.Missing, "%s needs \"args\": %s", name, o.operands)
	case av != nil && o.max == 0:
		d.Report(ap, jsonv.UnknownField, "%s takes no \"args\"", name)
	case av != nil:
		if args, ok = d.Array(av, ap); ok && (len(args) < o.min || len(args) > o.max) {
			d.Report(ap, jsonv.Invalid, "%s takes %s (%s), got %d", name, plural(o.min, o.max, "arg"), o.operands, len(args))
		}
	}
	if err := env.lim.checkArgs(len(args), `entries in "args"`); err != nil {
		return nil, nil, err
	}
	if !d.Failed() {
		q.decodeArgs(&d, args, ap)
	}
	if o.tail != "" && !obj.Has(o.tail) {
		d.Report(jsonv.Root, jsonv.Missing, "%s needs %q", name, o.tail)
	}
	for _, k := range obj.Keys() {
		if k == o.tail || slices.Contains(o.fields, k) {
			fv, fp := obj.Field(k)
			q.decodeField(&d, k, fv, fp)
		}
	}
	if d.Failed() {
		return nil, nil, &requestError{err: d.Err()}
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

// The error codes of --batch answers beside CuTe's (cute.Code): a request
// that is not well formed, a syntax error with the argument and offset, a
// broken kind rule, a cap reached, a coordinate outside its axis, any other
// failed condition.
const (
	codeBadRequest = "bad_request"
	codeSyntax     = "syntax"
	codeKind       = "kind"
	codeLimit      = "limit"
	codeFailed     = "failed"
	codeOutOfRange = "out_of_range"
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
	case errors.Is(err, indexmap.ErrOutOfRange):
		return codeOutOfRange
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

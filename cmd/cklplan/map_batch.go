package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	json "github.com/goccy/go-json"

	"github.com/cklplan/cklplan/cute"
	"github.com/cklplan/cklplan/indexmap"
	"github.com/cklplan/cklplan/indexspace"
)

const mapBatchUsage = `usage: cklplan map --batch < requests.jsonl

Reads one JSON request per line and writes one JSON line per request, in order;
each answer is written as soon as no further request is waiting, so a program
may drive it through a pipe one request at a time:

  in:  {"op": "compose", "args": [OUTER, INNER]}
  out: {"result": "logical(m1:3, m0:4) -> physical(x:43) = (...)"}
  in:  {"op": "inverse", "args": ["(m:4) -> (a:8) = (2 * m)"]}
  out: {"error": {"code": "failed", "message": "line 2: indexmap: inverse: not a bijection ..."}}

ops and their fields ("args" holds the maps, as text or as JSON objects,
or the CuTe layout as text):
  show       args [MAP]         -> result, properties {method, in_range, ...},
                                   or undecided (why, e.g. a domain too large
                                   to enumerate) instead of properties
  eval       args [MAP], coord  -> result (the image), valid (whether the guard
                                   holds; if not, the point has no image and
                                   result holds the expressions' values there)
  simplify   args [MAP]         -> result, rules (the rules that fired, in order)
  compose    args [OUTER, INNER]-> result
  restrict   args [MAP], fixed {"axis": value, ...} -> result
  inverse    args [MAP]         -> result
  emit       args [MAP]         -> result, forms (one per codomain leaf)
  from-cute  args [LAYOUT], domain, codomain (kinds; default untyped) -> result
  to-cute    args [MAP]         -> result (CuTe notation)

Every error message starts with the number of the line it answers. Error
codes: syntax (with "offset" into the argument "arg"), kind (a kind rule is
broken; the message holds the witness), failed (any other failed condition),
bad_request (a malformed line).
`

// A mapRequest is one line of "cklplan map --batch".
type mapRequest struct {
	Op       string            `json:"op"`
	Args     []json.RawMessage `json:"args"`
	Coord    []int             `json:"coord"`
	Fixed    map[string]int    `json:"fixed"`
	Domain   string            `json:"domain"`
	Codomain string            `json:"codomain"`
}

// A mapResponse is one output line: a result or an error.
type mapResponse struct {
	Result     any                `json:"result,omitempty"`
	Valid      *bool              `json:"valid,omitempty"`
	Rules      []string           `json:"rules,omitempty"`
	Forms      []string           `json:"forms,omitempty"`
	Properties *mapPropertiesJSON `json:"properties,omitempty"`
	Undecided  string             `json:"undecided,omitempty"` // why show decided no properties
	Error      *mapBatchError     `json:"error,omitempty"`
}

type mapBatchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Arg     *int   `json:"arg,omitempty"`    // the argument a syntax error is in
	Offset  *int   `json:"offset,omitempty"` // its byte offset there
}

// The error codes of "cklplan map --batch".
const (
	mapCodeSyntax     = "syntax"
	mapCodeKind       = "kind"
	mapCodeFailed     = "failed"
	mapCodeBadRequest = "bad_request"
)

// mapBatchOps lists the ops and how many args each takes.
var mapBatchOps = map[string]int{
	"show": 1, "eval": 1, "simplify": 1, "compose": 2, "restrict": 1,
	"inverse": 1, "emit": 1, "from-cute": 1, "to-cute": 1,
}

func mapBatch(stdin io.Reader, stdout io.Writer) error {
	return serveBatch(stdin, stdout, mapAnswer, func(resp *mapResponse, n int) {
		if resp.Error != nil {
			resp.Error.Message = atLine(resp.Error.Message, n)
		}
	})
}

func mapBadRequest(format string, args ...any) mapResponse {
	return mapResponse{Error: &mapBatchError{Code: mapCodeBadRequest, Message: fmt.Sprintf(format, args...)}}
}

// mapFailure is the response to err, which arose from argument arg (-1: none).
func mapFailure(err error, arg int) mapResponse {
	e := &mapBatchError{Code: mapCodeFailed, Message: err.Error()}
	var me *indexmap.SyntaxError
	var se *indexspace.SyntaxError
	var ke *indexmap.KindError
	var ce *cute.Error
	offset := -1
	switch {
	case errors.As(err, &me):
		offset = me.Offset
	case errors.As(err, &se):
		offset = se.Offset
	case errors.As(err, &ke):
		e.Code = mapCodeKind
	case errors.As(err, &ce) && ce.Code == cute.CodeSyntax:
		e.Code = mapCodeSyntax // CuTe's parser gives no offset
	}
	if offset >= 0 && arg >= 0 {
		e.Code = mapCodeSyntax
		e.Arg, e.Offset = &arg, &offset
	}
	return mapResponse{Error: e}
}

// mapAnswer computes the response to one request line; the caller adds the
// line number to an error.
func mapAnswer(line []byte) (resp mapResponse) {
	defer func() {
		if p := recover(); p != nil {
			resp = mapResponse{Error: &mapBatchError{Code: mapCodeFailed, Message: fmt.Sprintf("internal error: %v", p)}}
		}
	}()
	if len(line) == 0 {
		return mapBadRequest("empty line")
	}
	var req mapRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return mapBadRequest("not a request object: %v", err)
	}
	if dec.More() {
		return mapBadRequest("text after the request object")
	}
	nargs, ok := mapBatchOps[req.Op]
	if !ok {
		return mapBadRequest("unknown op %q", req.Op)
	}
	if len(req.Args) != nargs {
		return mapBadRequest("%s takes %d args, got %d", req.Op, nargs, len(req.Args))
	}
	for _, f := range []struct {
		name, op string
		given    bool
	}{{"coord", "eval", req.Coord != nil}, {"fixed", "restrict", req.Fixed != nil}} {
		switch {
		case f.given && req.Op != f.op:
			return mapBadRequest("%q goes with %s only", f.name, f.op)
		case !f.given && req.Op == f.op:
			return mapBadRequest("%s needs %q", f.op, f.name)
		}
	}
	if (req.Domain != "" || req.Codomain != "") && req.Op != "from-cute" {
		return mapBadRequest(`"domain" and "codomain" go with from-cute only`)
	}
	if req.Op == "from-cute" {
		return mapFromCuteAnswer(req)
	}
	maps := make([]indexmap.Map, len(req.Args))
	for i, raw := range req.Args {
		var m indexmap.Map
		var err error
		switch raw = bytes.TrimSpace(raw); {
		case len(raw) > 0 && raw[0] == '"':
			var text string
			if err = json.Unmarshal(raw, &text); err == nil {
				m, err = indexmap.Parse(text)
			}
		case len(raw) > 0 && raw[0] == '{':
			// The JSON form, as the command line accepts it; offsets
			// would be into one of its fields, so no "arg" is given.
			if err = json.Unmarshal(raw, &m); err != nil {
				return mapFailure(err, -1)
			}
		default:
			return mapBadRequest("args[%d], %s, is neither a map's text nor its JSON object", i, raw)
		}
		if err != nil {
			return mapFailure(err, i)
		}
		maps[i] = m
	}
	m := maps[0]
	switch req.Op {
	case "show":
		// As "map show" does: a map whose properties cannot be decided
		// (a domain too large to enumerate) is shown with the reason.
		props, err := m.Decide()
		if err != nil {
			return mapResponse{Result: m.String(), Undecided: err.Error()}
		}
		return mapResponse{Result: m.String(), Properties: propertiesJSON(props)}
	case "eval":
		if len(req.Coord) != m.Domain().Space.NumLeaves() {
			return mapFailure(fmt.Errorf("%d coordinates for the %d leaf axes of %v", len(req.Coord), m.Domain().Space.NumLeaves(), m.Domain().Space), -1)
		}
		image, valid, err := m.Eval(req.Coord)
		if err != nil {
			return mapFailure(err, -1)
		}
		return mapResponse{Result: image, Valid: &valid}
	case "simplify":
		s, fired := m.SimplifyTrace()
		return mapResponse{Result: s.String(), Rules: fired}
	case "compose":
		r, err := indexmap.Compose(maps[0], maps[1])
		if err != nil {
			return mapFailure(err, -1)
		}
		return mapResponse{Result: r.String()}
	case "restrict":
		r, err := m.Restrict(req.Fixed)
		if err != nil {
			return mapFailure(err, -1)
		}
		return mapResponse{Result: r.String()}
	case "inverse":
		r, err := m.Inverse()
		if err != nil {
			return mapFailure(err, -1)
		}
		return mapResponse{Result: r.String()}
	case "emit":
		e, forms := m.Emit()
		resp := mapResponse{Result: e.String(), Forms: make([]string, len(forms))}
		for i, f := range forms {
			resp.Forms[i] = f.String()
		}
		return resp
	case "to-cute":
		l, err := indexmap.ToCute(m)
		if err != nil {
			return mapFailure(err, -1)
		}
		return mapResponse{Result: l.String()}
	}
	return mapBadRequest("unknown op %q", req.Op)
}

func mapFromCuteAnswer(req mapRequest) mapResponse {
	kinds := [2]indexmap.Kind{}
	for i, text := range []string{req.Domain, req.Codomain} {
		if text == "" {
			continue
		}
		k, err := indexmap.ParseKind(text)
		if err != nil {
			return mapBadRequest("%v", err)
		}
		kinds[i] = k
	}
	var text string
	if err := json.Unmarshal(req.Args[0], &text); err != nil || bytes.Equal(bytes.TrimSpace(req.Args[0]), []byte("null")) {
		return mapBadRequest("args[0], %s, is not a CuTe layout's text", req.Args[0])
	}
	l, err := cute.Parse(text)
	if err != nil {
		return mapFailure(err, 0)
	}
	m, err := indexmap.FromCute(l, kinds[0], kinds[1])
	if err != nil {
		return mapFailure(err, -1)
	}
	return mapResponse{Result: m.String()}
}

package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// FuzzLayoutBatch feeds arbitrary input to "cklplan layout --batch": it must
// not panic, and must answer every input line with exactly one JSON object
// holding a result or an error.
func FuzzLayoutBatch(f *testing.F) {
	for _, s := range []string{
		`{"op": "composition", "args": ["(6,2):(8,2)", "(4,3):(3,1)"]}`,
		`{"op": "complement", "args": ["(2,2):(1,3)", "24"]}`,
		`{"op": "recognize", "values": [0,1,2,4]}`,
		`{"op": "zipped_divide", "args": ["(8,6):(6,1)", "<2:1,3:2>"]}` + "\n" + `{"op": "left_inverse", "args": ["(4,2):(1,2)"]}`,
		`{"op": "raked_product", "args": ["(2,5):(5,1)", 7]}`,
		"not json\n\n{}",
		`{"op": "complement", "args": ["4:1", "(4611686018427387904,4)"]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		if code := run([]string{"layout", "--batch"}, strings.NewReader(in), &out, &bytes.Buffer{}); code != exitOK {
			t.Fatalf("exit %d", code)
		}
		for _, l := range checkBatchAnswers(t, in, out.String()) {
			if e, ok := l["error"]; ok && bytes.Contains(e, []byte(`"internal"`)) {
				t.Fatalf("internal error: %s", e)
			}
		}
	})
}

// checkBatchAnswers checks the contract of every --batch mode: one JSON
// object per input line, each holding exactly one of result and error, each
// error message starting with the line it answers. It returns the objects.
func checkBatchAnswers(t *testing.T, in, out string) []map[string]json.RawMessage {
	t.Helper()
	want := strings.Count(in, "\n")
	if in != "" && !strings.HasSuffix(in, "\n") {
		want++
	}
	var lines []string
	if out != "" {
		lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	}
	if len(lines) != want {
		t.Fatalf("%d input lines, %d output lines:\n%s", want, len(lines), out)
	}
	answers := make([]map[string]json.RawMessage, len(lines))
	for i, l := range lines {
		var resp map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &resp); err != nil {
			t.Fatalf("output line %q is not a JSON object: %v", l, err)
		}
		if e, ok := resp["error"]; ok {
			var msg struct{ Message string }
			if err := json.Unmarshal(e, &msg); err != nil || !strings.HasPrefix(msg.Message, "line "+strconv.Itoa(i+1)+": ") {
				t.Fatalf("output line %d: the error message does not start with its line number: %s", i+1, l)
			}
		}
		_, hasResult := resp["result"]
		_, hasError := resp["error"]
		if hasResult == hasError {
			t.Fatalf("output line %q has neither or both of result and error", l)
		}
		answers[i] = resp
	}
	return answers
}

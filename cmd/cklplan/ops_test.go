package main

import (
	"bytes"
	"strings"
	"testing"

	json "github.com/goccy/go-json"
)

// TestOneShotJSONIsBatchAnswer checks that one operation table serves both
// modes: "cklplan CMD OP ARGS --format json" writes exactly the line that
// "cklplan CMD --batch" answers to the same request, for every op of map and
// layout, and a one-shot failure is a batch error with the same message.
func TestOneShotJSONIsBatchAnswer(t *testing.T) {
	const (
		tv      = "thread-value(lane:32, v:8) -> logical(m:16, k:16) = (lane / 4 + 8 * (v / 2 % 2), lane % 4 * 2 + v % 2 + 8 * (v / 4))"
		guarded = "logical tile(m:12) -> physical smem(a:16) = (m) if m < 10"
	)
	tests := []struct {
		args    []string // the one-shot command line
		request string   // the same request as a --batch line
	}{
		{[]string{"map", "show", tv}, `{"op": "show", "args": [` + quote(tv) + `]}`},
		{[]string{"map", "show", "--table", guarded}, `{"op": "show", "args": [` + quote(guarded) + `], "table": true}`},
		{[]string{"map", "eval", tv, "5", "3"}, `{"op": "eval", "args": [` + quote(tv) + `], "coord": [5, 3]}`},
		{[]string{"map", "simplify", "(x:16, y:4) -> (a:16) = ((4 * x + y) / 4)"}, `{"op": "simplify", "args": ["(x:16, y:4) -> (a:16) = ((4 * x + y) / 4)"]}`},
		{[]string{"map", "compose", "(a:4) -> (b:8) = (2 * a)", "(x:4) -> (y:4) = (3 - x)"}, `{"op": "compose", "args": ["(a:4) -> (b:8) = (2 * a)", "(x:4) -> (y:4) = (3 - x)"]}`},
		{[]string{"map", "restrict", "(a:2, b:2) -> (x:4) = (2 * a + b)", "a=1"}, `{"op": "restrict", "args": ["(a:2, b:2) -> (x:4) = (2 * a + b)"], "fixed": {"a": 1}}`},
		{[]string{"map", "inverse", tv}, `{"op": "inverse", "args": [` + quote(tv) + `]}`},
		{[]string{"map", "emit", tv}, `{"op": "emit", "args": [` + quote(tv) + `]}`},
		{[]string{"map", "from-cute", "--domain", "thread-value", "(2,4):(0,1)"}, `{"op": "from-cute", "args": ["(2,4):(0,1)"], "domain": "thread-value"}`},
		{[]string{"map", "to-cute", "(a:4, b:2) -> (x:8) = (a + 4 * b)"}, `{"op": "to-cute", "args": ["(a:4, b:2) -> (x:8) = (a + 4 * b)"]}`},
		{[]string{"map", "inverse", "(m:4) -> (a:8) = (2 * m)"}, `{"op": "inverse", "args": ["(m:4) -> (a:8) = (2 * m)"]}`},
		{[]string{"layout", "composition", "(6,2):(8,2)", "(4,3):(3,1)"}, `{"op": "composition", "args": ["(6,2):(8,2)", "(4,3):(3,1)"]}`},
		{[]string{"layout", "complement", "(2,2):(1,3)", "24"}, `{"op": "complement", "args": ["(2,2):(1,3)", 24]}`},
		{[]string{"layout", "zipped_divide", "(8,6):(6,1)", "<2:1,3:2>"}, `{"op": "zipped_divide", "args": ["(8,6):(6,1)", "<2:1,3:2>"]}`},
		{[]string{"layout", "recognize", "0", "1", "4", "5"}, `{"op": "recognize", "values": [0, 1, 4, 5]}`},
		{[]string{"layout", "left_inverse", "(4,2):(1,2)"}, `{"op": "left_inverse", "args": ["(4,2):(1,2)"]}`},
		{[]string{"layout", "eval", "(6,2):(8"}, `{"op": "eval", "args": ["(6,2):(8"]}`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " "), func(t *testing.T) {
			var oneShot, stderr bytes.Buffer
			code := run(append(tt.args, "--format", "json"), strings.NewReader(""), &oneShot, &stderr)
			var batch bytes.Buffer
			if bc := run([]string{tt.args[0], "--batch"}, strings.NewReader(tt.request+"\n"), &batch, &bytes.Buffer{}); bc != exitOK {
				t.Fatalf("--batch: exit %d", bc)
			}
			answer := batch.String()
			if code == exitOK {
				if oneShot.String() != answer {
					t.Errorf("one-shot --format json:\n%s--batch:\n%s", oneShot.String(), answer)
				}
				return
			}
			var e struct{ Error struct{ Message string } }
			if err := json.Unmarshal([]byte(answer), &e); err != nil || e.Error.Message == "" {
				t.Fatalf("one-shot exit %d (%s), but --batch answers %s", code, stderr.String(), answer)
			}
			msg := strings.TrimPrefix(e.Error.Message, "line 1: ")
			if !strings.Contains(stderr.String(), msg) {
				t.Errorf("one-shot stderr %q does not hold the --batch message %q", stderr.String(), msg)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

package main

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"
)

// TestBatchAnswersEachRequestAtOnce drives layout --batch and map --batch
// the way a compiler would drive them as a co-process: one request through
// a pipe, then wait for its answer before sending the next. Each answer must
// arrive while the input is still open, not only at end of input.
func TestBatchAnswersEachRequestAtOnce(t *testing.T) {
	tests := []struct {
		name     string
		command  string
		requests []string
		answers  []string // a prefix of each answer line
	}{
		{
			name:     "layout",
			command:  "layout",
			requests: []string{`{"op": "eval", "args": ["(2,2):(1,4)"]}`, `{"op": "recognize", "values": [0, 1, 4, 5]}`, `not json`},
			answers:  []string{`{"result":"(2,2):(1,4)","table":[0,1,4,5]}`, `{"result":"(2,2):(1,4)"`, `{"error":{"code":"bad_request","message":"line 3: `},
		},
		{
			name:     "map",
			command:  "map",
			requests: []string{`{"op": "simplify", "args": ["(x:4, y:4) -> (a:4) = ((4 * x + y) / 4)"]}`, `{"op": "eval", "args": ["(a:4) -> (b:4) = (3 - a)"], "coord": [1]}`},
			answers:  []string{`{"result":"(x:4, y:4) -> (a:4) = (x)"`, `{"result":[2],"valid":true}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan int, 1)
			go func() {
				code := run([]string{tt.command, "--batch"}, inR, outW, io.Discard)
				outW.Close()
				done <- code
			}()
			answers := bufio.NewReader(outR)
			for i, req := range tt.requests {
				if _, err := io.WriteString(inW, req+"\n"); err != nil {
					t.Fatalf("writing request %d: %v", i+1, err)
				}
				line := make(chan string, 1)
				go func() {
					l, _ := answers.ReadString('\n')
					line <- l
				}()
				select {
				case l := <-line:
					if !strings.HasPrefix(l, tt.answers[i]) {
						t.Fatalf("answer %d = %q, want it to start with %q", i+1, l, tt.answers[i])
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("no answer to request %d while the input is open", i+1)
				}
			}
			inW.Close()
			if code := <-done; code != exitOK {
				t.Fatalf("exit %d", code)
			}
			if rest, _ := io.ReadAll(answers); len(rest) != 0 {
				t.Fatalf("output after the last answer: %q", rest)
			}
		})
	}
}

package planner

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/cklplan/cklplan/tasks"
)

func TestZZRegrets(t *testing.T) {
	data, err := os.ReadFile("/tmp/dag1k_e100.json")
	if err != nil {
		t.Skip()
	}
	g, err := (tasks.Limits{FileBytes: 1 << 30, Invocations: 1 << 20, Edges: 1 << 21}).Load(data)
	if err != nil {
		t.Fatal(err)
	}
	target, _ := graphTarget(g)
	lw, err := lowerGraph(g, target, nil, NewCache())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	sol, err := Solve(context.Background(), &lw.problem, Options{NoRegrets: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plan %v status %v", time.Since(t0), sol.Status)
	t0 = time.Now()
	sol, err = Solve(context.Background(), &lw.problem, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with regrets %v: solves %d milp %d certified %d later %d ahead %v", time.Since(t0), sol.RegretSolves, sol.RegretMILPSolves, sol.RegretCertified, sol.certifiedLater, sol.dualsAhead)
}

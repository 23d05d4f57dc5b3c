package planner

import (
	"context"
	"math"
	"testing"

	"github.com/cklplan/cklplan/internal/highs/highstest"
	"github.com/cklplan/cklplan/internal/taskgen"
	"github.com/cklplan/cklplan/tasks"
)

// sameRegrets fails t unless got and want (solved as gotAs and wantAs
// say) have the same regrets: the same queries, as exact in both, their
// values within the objective's tolerance. With exact, their objectives
// must be the same too, and every regret of want exact.
func sameRegrets(t *testing.T, got, want *Solution, gotAs, wantAs string, exact bool) {
	t.Helper()
	if exact && got.Objective != want.Objective || len(got.Regrets) != len(want.Regrets) {
		t.Fatalf("objective %v and %d regrets %s, %v and %d %s", got.Objective, len(got.Regrets), gotAs, want.Objective, len(want.Regrets), wantAs)
	}
	tol := objectiveTolerance(got.Objective)
	for i, r := range got.Regrets {
		w := want.Regrets[i]
		if r.Node != w.Node || r.Alternative != w.Alternative || r.Exact != w.Exact || exact && !w.Exact || math.Abs(r.Regret-w.Regret) > tol {
			t.Errorf("regret %d: %+v %s, %+v %s", i, r, gotAs, w, wantAs)
		}
	}
}

// genDAGSeed1 is the lowered graph of gen dag --invocations n --exec-scale
// scale --seed 1.
func genDAGSeed1(t *testing.T, n int, scale float64) *Problem {
	t.Helper()
	spec, err := taskgen.DAG(n, 4, 1)
	if err == nil {
		err = taskgen.ScaleExecution(&spec, scale)
	}
	var g *tasks.Graph
	if err == nil {
		g, err = tasks.New(spec)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &lowered(t, g).problem
}

// On cklplan gen dag --invocations 200 --exec-scale 100 (seed 1) the
// core's LP vertex is fractional at two nodes that share fan-outs, and so
// is the LP of nearly every regret query: each was a MILP re-solve. With
// the fan-outs' clusters and the pair's agreement (fanoutcut.go) the
// queries' LPs come out integral: every regret of five invocations is the
// same as without them, with fewer MILP re-solves.
func TestFanOutClustersKeepTheRegrets(t *testing.T) {
	highstest.Library(t)
	p := genDAGSeed1(t, 200, 100)
	var explain []int
	for v := 0; v < len(p.Nodes); v += 40 {
		explain = append(explain, v)
	}
	solveWith := func(nodes int) *Solution {
		defer func(n int) { clusterNodes = n }(clusterNodes)
		clusterNodes = nodes
		sol, err := Solve(context.Background(), p, Options{Explain: explain})
		if err != nil {
			t.Fatal(err)
		}
		return sol
	}
	with, without := solveWith(64), solveWith(0)
	if with.fanOutsClustered == 0 {
		t.Fatal("no cluster added: the graph's LP vertex is no longer fractional at a fan-out, and the test needs another")
	}
	if with.RegretMILPSolves >= without.RegretMILPSolves {
		t.Errorf("MILP re-solves: %d with the clusters, %d without; want fewer", with.RegretMILPSolves, without.RegretMILPSolves)
	}
	sameRegrets(t, with, without, "with the clusters", "without", false)
	t.Logf("%d regrets; %d clusters and pairs; MILP re-solves %d → %d of %d re-solves", len(with.Regrets), with.fanOutsClustered,
		without.RegretMILPSolves, with.RegretMILPSolves, with.RegretSolves)
}

// TestClusterDualsKeepTheRegrets: where the core's LP is below the
// optimum because of its fan-outs, the certificates are priced by the
// duals of the LP with the clusters' rows (newCertifierOn), whose bound
// is the optimum there. Every regret must be what the certificates priced
// by the core's own LP give, and more of them certified. On gen dag
// --invocations n --exec-scale 100 --seed 1, with every node explained
// (every fourth under the race detector).
func TestClusterDualsKeepTheRegrets(t *testing.T) {
	highstest.Library(t)
	n, every := 200, 1
	if raceEnabled {
		every = 4
	}
	p := genDAGSeed1(t, n, 100)
	var explain []int
	for v := 0; v < len(p.Nodes); v += every {
		explain = append(explain, v)
	}
	with, err := Solve(context.Background(), p, Options{Explain: explain})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Solve(context.Background(), p, Options{Explain: explain, noClusterDuals: true})
	if err != nil {
		t.Fatal(err)
	}
	if !with.clusterDuals || without.clusterDuals {
		t.Fatalf("certificates priced with the clusters: %v, and %v without; want true and false (the graph's LP may be tight now: the test needs another)", with.clusterDuals, without.clusterDuals)
	}
	sameRegrets(t, with, without, "with the clusters' duals", "without", true)
	if with.RegretCertified <= without.RegretCertified {
		t.Errorf("certified %d with the clusters' duals, %d without; want more", with.RegretCertified, without.RegretCertified)
	}
	t.Logf("%d regrets; certified %d → %d, re-solves %d → %d", len(with.Regrets), without.RegretCertified, with.RegretCertified, without.RegretSolves, with.RegretSolves)
}

// TestCertifySampledKeepsTheRegrets: where the certificates' bound is
// below the optimum even with the fan-outs' clusters, a sample of the
// queries is certified first, and the others in full only where the
// sample certified one (certifySampled). On gen dag --invocations 40
// --exec-scale 30 --seed 1 (121 ns below) the sample certifies none, and
// every regret must come out as with a certificate tried for every query.
func TestCertifySampledKeepsTheRegrets(t *testing.T) {
	highstest.Library(t)
	p := genDAGSeed1(t, 40, 30)
	every := 2
	if raceEnabled {
		every = 4
	}
	var explain []int
	for v := 0; v < len(p.Nodes); v += every {
		explain = append(explain, v)
	}
	sampled, err := Solve(context.Background(), p, Options{Explain: explain})
	if err != nil {
		t.Fatal(err)
	}
	all, err := Solve(context.Background(), p, Options{Explain: explain, noCertifySample: true})
	if err != nil {
		t.Fatal(err)
	}
	if sampled.certifySkipped == 0 || all.certifySkipped != 0 {
		t.Fatalf("queries skipped: %d sampled, %d without the sample; want some and none (the graph's certificates may certify its sample now: the test needs another)", sampled.certifySkipped, all.certifySkipped)
	}
	sameRegrets(t, sampled, all, "sampled", "without the sample", true)
	t.Logf("%d regrets; %d queries skipped; certified %d → %d, re-solves %d → %d", len(sampled.Regrets), sampled.certifySkipped,
		all.RegretCertified, sampled.RegretCertified, all.RegretSolves, sampled.RegretSolves)
}

// TestQueryClustersKeepTheRegrets: the queries' LPs are re-solved alone
// first, and where those that come out fractional are so at a few nodes
// between them, the fan-outs there get their clusters' rows before the
// queries left are re-solved (solveQueries). On gen dag --invocations 100
// --exec-scale 100 --seed 3, whose core LP is tight but 85 of whose
// queries' LPs were fractional (at 27 nodes in all), every regret must be
// what it is without those rows, with fewer MILP re-solves.
func TestQueryClustersKeepTheRegrets(t *testing.T) {
	highstest.Library(t)
	p, third := genDAG3(t, 100)
	opt := Options{}
	if raceEnabled {
		opt.Explain = third
	}
	with, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.noQueryClusters = true
	without, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if with.queryClusters == 0 || without.queryClusters != 0 {
		t.Fatalf("clusters for the queries' fractional nodes: %d, and %d without; want some and none (the graph's queries may be integral now: the test needs another)", with.queryClusters, without.queryClusters)
	}
	sameRegrets(t, with, without, "with the clusters", "without", true)
	if with.RegretMILPSolves >= without.RegretMILPSolves {
		t.Errorf("MILP re-solves: %d with the clusters, %d without; want fewer", with.RegretMILPSolves, without.RegretMILPSolves)
	}
	t.Logf("%d regrets; %d clusters and pairs; MILP re-solves %d → %d of %d → %d re-solves", len(with.Regrets), with.queryClusters,
		without.RegretMILPSolves, with.RegretMILPSolves, without.RegretSolves, with.RegretSolves)
}

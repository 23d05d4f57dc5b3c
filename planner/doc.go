// Package planner chooses one alternative per task invocation and one conversion
// per boundary, jointly over the whole graph, with a MILP solved by HiGHS. A
// returned plan is re-checked against the graph independently of the solver.
package planner

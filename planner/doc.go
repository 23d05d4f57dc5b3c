// Package planner chooses one alternative per task invocation and one
// conversion per producer→consumer boundary, jointly over the whole graph.
//
// Model. A MILP in the marginalization (local-polytope) form: binary x[v,a]
// (invocation v uses alternative a), continuous y[e,s,t] over the (source,
// target) distribution pairs an edge allows, minimizing execution plus
// conversion cost under resource rows; degree-0, 1 and 2 invocations are
// eliminated exactly before the core goes to HiGHS (internal/highs), and the
// same passes give every eliminated invocation's exact regrets.
//
// Invariants. A returned plan is re-checked against the graph and the costs
// independently of the solver; the same input gives the same plan, byte for
// byte (stable variable order, fixed seed and thread count, stated tie-break).
//
// Status: the planner is the subject of a later issue; the solver binding it
// will use is internal/highs.
package planner

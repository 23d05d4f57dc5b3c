// Package tasks models the task graph the planner reads: tasks (logical tile
// computations), their alternatives (realizations: tile sizes, instruction,
// the distribution of each port), invocations of tasks, and edges from a
// producer port of one invocation to a consumer port of another.
//
// Model. An alternative declares its ports' distributions (package
// distribution), its execution cost with the cost's origin, its resource use
// and its multiplicity (how often it runs per invocation, so that a fused
// producer recomputed per consumer tile is costed honestly).
//
// Invariants. A graph is fully validated when loaded, from JSON or built with
// the Go API, before any planner sees it; every error names where (a JSON path
// such as invocations[3].task, a task, port or axis) and what, and the loader
// reports all errors it finds, sorted.
//
// Status: the task-graph format and loader are the subject of a later issue.
package tasks

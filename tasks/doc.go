// Package tasks models tasks, alternatives, ports, invocations and edges, loaded
// from task-graph JSON or built with a Go API. A loaded graph is fully validated
// before a planner sees it.
package tasks

package tasks

import (
	"fmt"

	"github.com/cklplan/cklplan/distribution"
	"github.com/cklplan/cklplan/storage"
)

// Version is the task-graph format version this package reads and writes.
const Version = 1

// A Spec declares a task graph as plain data: what the JSON format decodes
// into and what a Builder fills. New validates it into a Graph. Problems are
// reported at the JSON path of the offending value in the Spec's JSON form
// (docs/format.md), whichever way the Spec was made.
type Spec struct {
	Version int
	Name    string
	Target  TargetSpec
	// Sizes are the graph's named sizes (M, N, K, …), positive.
	Sizes map[string]int64
	// Spaces are named tile spaces in indexspace text ("(m:16, k:16)").
	Spaces map[string]string
	// IndexMaps are named index maps in indexmap text.
	IndexMaps map[string]string
	// Layouts are named storage layouts in storage text.
	Layouts map[string]string
	// Distributions are named distributions; a port may also name a built-in
	// atom ("mma.m16n8k16.a.f16") directly.
	Distributions map[string]*distribution.Distribution
	Tasks         map[string]TaskSpec
	Invocations   []InvocationSpec
	Edges         []EdgeSpec
	Groups        []GroupSpec
	Measured      MeasuredSpec
}

// A TargetSpec names a built-in target or gives a custom one: its Features
// and its Model (the cost model's figures); the other fields of Custom are
// filled by New.
type TargetSpec struct {
	Name   string  // "sm80", "sm90", "h200", or the custom target's name
	Custom *Target // nil for a built-in target
}

// A TaskKind says whether a task computes or is a memory boundary.
type TaskKind uint8

// The task kinds. A load reads its memory input ports (global memory, in the
// layout of the memory operation) into register outputs; a store writes
// register inputs to its memory output ports; a compute task has register
// ports only.
const (
	ComputeTask TaskKind = iota
	LoadTask
	StoreTask
)

var taskKindNames = []string{"compute", "load", "store"}

func (k TaskKind) String() string {
	if int(k) < len(taskKindNames) {
		return taskKindNames[k]
	}
	return fmt.Sprintf("TaskKind(%d)", k)
}

// ParseTaskKind reads "compute", "load" or "store".
func ParseTaskKind(s string) (TaskKind, error) {
	for i, n := range taskKindNames {
		if n == s {
			return TaskKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown task kind %q (want compute, load or store)", s)
}

// A Direction is a port's data direction.
type Direction uint8

// The directions; the zero value is invalid.
const (
	InvalidDirection Direction = iota
	In
	Out
)

func (d Direction) String() string {
	switch d {
	case In:
		return "in"
	case Out:
		return "out"
	}
	return "invalid"
}

// ParseDirection reads "in" or "out".
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "in":
		return In, nil
	case "out":
		return Out, nil
	}
	return InvalidDirection, fmt.Errorf("unknown direction %q (want in or out)", s)
}

// A TaskSpec declares a task: its ports, in order, and its alternatives.
type TaskSpec struct {
	Kind         TaskKind
	Ports        []PortSpec
	Alternatives []AlternativeSpec
}

// A PortSpec declares a port.
type PortSpec struct {
	Name      string
	Direction Direction
	// Tile is the name of a space in Spec.Spaces or indexspace text.
	Tile    string
	Element storage.ElementType
	// Memory is storage.Global or storage.Shared for the memory side of a
	// load or store, zero for a register port.
	Memory storage.MemorySpace
}

// An AlternativeSpec declares one realization of a task.
type AlternativeSpec struct {
	ID             string
	Implementation string
	Ports          []BindingSpec
	Resources      Resources
	Requires       []string
	Cost           CostSpec
	// Multiplicity is how many times the alternative's tile body runs for the
	// whole invocation: an Expr text; "" means 1.
	Multiplicity string
}

// A BindingSpec realizes one port of an alternative: exactly one of a
// distribution (register data) or a storage layout (data in memory), each by
// name or inline.
type BindingSpec struct {
	Port string
	// Distribution names a distribution of Spec.Distributions or a built-in
	// atom; InlineDistribution gives one in place.
	Distribution       string
	InlineDistribution *distribution.Distribution
	// Layout names a layout of Spec.Layouts; InlineLayout is storage text.
	Layout       string
	InlineLayout string
	// Multiplicity overrides the alternative's for this port: how many tiles
	// cross the port (Expr text; "" means the alternative's).
	Multiplicity string
	// Loop names the loop nest the port's tiles move in ("gemm_mk_n"). Two
	// register realizations joined inside one kernel must name the same loop,
	// or either none: a fused producer runs in its consumer's loop.
	Loop string
}

// Resources are an alternative's needs per block; zero means none (a cluster
// size of 0 means 1).
type Resources struct {
	RegistersPerThread int64
	SharedMemoryBytes  int64
	ThreadsPerBlock    int64
	ClusterSize        int64
}

// A CostKind says how an alternative's execution cost is given.
type CostKind uint8

// The cost kinds; the zero value (no cost given) is invalid.
const (
	NoCost       CostKind = iota
	DeclaredCost          // nanoseconds per execution of the tile body
	WorkCost              // work for the cost model to estimate
)

// A CostSpec is an alternative's execution cost per execution of its tile
// body: NS (Kind DeclaredCost) or Work (Kind WorkCost).
type CostSpec struct {
	Kind CostKind
	NS   float64
	Work Work
}

// Work is what one execution of a tile body does, for the cost model.
type Work struct {
	Flops       int64
	Bytes       int64
	Instruction string // one of InstructionKinds
}

// An InvocationSpec is one use of a task. Sizes bind or override the graph's
// sizes for this invocation's multiplicities (its iteration space); Pin
// restricts it to the listed alternatives, Forbid removes alternatives.
type InvocationSpec struct {
	ID     string // an identifier, [A-Za-z_][A-Za-z0-9_]*
	Task   string
	Sizes  map[string]int64
	Pin    []string
	Forbid []string
}

// A KernelBoundary says whether an edge's two ends may run in one kernel.
type KernelBoundary uint8

// The kernel-boundary requirements.
const (
	MayShareKernel  KernelBoundary = iota // the plan decides
	MustCrossKernel                       // a kernel boundary (a global round trip) is required
)

func (k KernelBoundary) String() string {
	if k == MustCrossKernel {
		return "must_cross"
	}
	return "may_share"
}

// ParseKernelBoundary reads "may_share" or "must_cross".
func ParseKernelBoundary(s string) (KernelBoundary, error) {
	switch s {
	case "may_share":
		return MayShareKernel, nil
	case "must_cross":
		return MustCrossKernel, nil
	}
	return 0, fmt.Errorf("unknown kernel requirement %q (want may_share or must_cross)", s)
}

// An EdgeSpec connects a producer's output port to a consumer's input port,
// each written "invocation.port". Rename maps producer tile axes to consumer
// tile axes; axes it does not name correspond by name.
type EdgeSpec struct {
	From, To string
	Rename   map[string]string
	Kernel   KernelBoundary
}

// A GroupSpec fuses invocations into one kernel with budgets (0: no budget).
type GroupSpec struct {
	ID                 string
	Invocations        []string
	SharedMemoryBytes  int64
	RegistersPerThread int64
}

// MeasuredSpec holds measured costs; they override the cost model.
type MeasuredSpec struct {
	// Target names the target the costs were measured on ("": not said).
	// A plan on another target refuses them (the planner's Plan).
	Target       string
	Alternatives []MeasuredAlternative
	Conversions  []MeasuredConversion
}

// A MeasuredAlternative is the measured time of one execution of an
// alternative's tile body, for every invocation of its task or for one.
type MeasuredAlternative struct {
	Task, Alternative string
	Invocation        string // "" for every invocation
	NS                float64
}

// A MeasuredConversion is the measured time of moving one tile from the
// Source distribution or layout to the Target one (names), under the tile
// renaming Rename ("n=k", distribution.ParseRename's form; "" for none).
type MeasuredConversion struct {
	Source, Target string
	Rename         string
	NS             float64
}

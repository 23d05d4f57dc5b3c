package tasks

import (
	"fmt"
	"slices"
	"strings"
)

// Features are the target capabilities an alternative may require. The set
// is closed: a name outside it is an error, so that a misspelt requirement
// never silently removes an alternative.
var Features = []string{
	"clusters", // thread-block clusters and distributed shared memory (sm_90+)
	"cp_async", // cp.async global → shared copies (sm_80+)
	"fp8",      // 8-bit floating-point mma (sm_89+)
	"ldmatrix", // ldmatrix / stmatrix (sm_75+ / sm_90+)
	"sm_80",    // compute capability 8.0 or later
	"sm_90",    // compute capability 9.0 or later
	"sm_90a",   // the sm_90a architecture-specific features
	"tma",      // the tensor memory accelerator (sm_90+)
	"wgmma",    // warpgroup mma (sm_90a)
}

// A Target is the hardware a graph is planned for: a named built-in figure set
// (sm80, sm90, h200) or a custom one. Its limits decide which alternatives it
// can run; Figures are numbers the cost model reads (left empty for built-ins,
// whose figures the cost model knows).
type Target struct {
	Name                 string
	Custom               bool
	Features             []string // sorted
	SharedMemoryPerBlock int64    // bytes a block may use
	RegistersPerThread   int64
	ThreadsPerBlock      int64
	MaxClusterSize       int64
	Figures              map[string]float64
}

// The built-in targets. Limits are the CUDA C++ Programming Guide's figures
// for compute capabilities 8.0 and 9.0 (the opt-in maximum shared memory per
// block: 163 KiB and 227 KiB; 255 registers per thread; 1024 threads per
// block; a portable cluster of at most 8 blocks).
var builtinTargets = []Target{
	{Name: "h200", Features: []string{"clusters", "cp_async", "fp8", "ldmatrix", "sm_80", "sm_90", "sm_90a", "tma", "wgmma"},
		SharedMemoryPerBlock: 232448, RegistersPerThread: 255, ThreadsPerBlock: 1024, MaxClusterSize: 8},
	{Name: "sm80", Features: []string{"cp_async", "ldmatrix", "sm_80"},
		SharedMemoryPerBlock: 166912, RegistersPerThread: 255, ThreadsPerBlock: 1024, MaxClusterSize: 1},
	{Name: "sm90", Features: []string{"clusters", "cp_async", "fp8", "ldmatrix", "sm_80", "sm_90", "sm_90a", "tma", "wgmma"},
		SharedMemoryPerBlock: 232448, RegistersPerThread: 255, ThreadsPerBlock: 1024, MaxClusterSize: 8},
}

// TargetNames lists the built-in target names, sorted.
func TargetNames() []string {
	out := make([]string, len(builtinTargets))
	for i, t := range builtinTargets {
		out[i] = t.Name
	}
	return out
}

// BuiltinTarget returns a copy of the named built-in target.
func BuiltinTarget(name string) (Target, bool) {
	for _, t := range builtinTargets {
		if t.Name == name {
			t.Features = slices.Clone(t.Features)
			return t, true
		}
	}
	return Target{}, false
}

// Has reports whether t has the feature.
func (t Target) Has(feature string) bool {
	_, ok := slices.BinarySearch(t.Features, feature)
	return ok
}

// CanRun reports whether t can run alternative a, and if not, why (the first
// missing feature or exceeded limit, in the order features, shared memory,
// registers, threads, cluster size).
func (t Target) CanRun(a *Alternative) (bool, string) {
	var missing []string
	for _, f := range a.Requires {
		if !t.Has(f) {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return false, fmt.Sprintf("%s lacks %s", t.Name, strings.Join(missing, ", "))
	}
	r := a.Resources
	switch {
	case t.SharedMemoryPerBlock > 0 && r.SharedMemoryBytes > t.SharedMemoryPerBlock:
		return false, fmt.Sprintf("needs %d bytes of shared memory, %s allows %d per block", r.SharedMemoryBytes, t.Name, t.SharedMemoryPerBlock)
	case t.RegistersPerThread > 0 && r.RegistersPerThread > t.RegistersPerThread:
		return false, fmt.Sprintf("needs %d registers per thread, %s allows %d", r.RegistersPerThread, t.Name, t.RegistersPerThread)
	case t.ThreadsPerBlock > 0 && r.ThreadsPerBlock > t.ThreadsPerBlock:
		return false, fmt.Sprintf("needs %d threads per block, %s allows %d", r.ThreadsPerBlock, t.Name, t.ThreadsPerBlock)
	case t.MaxClusterSize > 0 && r.ClusterSize > t.MaxClusterSize:
		return false, fmt.Sprintf("needs a cluster of %d blocks, %s allows %d", r.ClusterSize, t.Name, t.MaxClusterSize)
	}
	return true, ""
}

// InstructionKinds are the kinds of instruction a work estimate may name; the
// cost model turns flops of that kind into time.
var InstructionKinds = []string{
	"alu",    // integer and bit operations (unpacking, shifts, prmt)
	"fma",    // scalar floating-point fma on the CUDA cores
	"memory", // dominated by memory traffic (bytes)
	"mma",    // mma.sync tensor-core instructions
	"sfu",    // special functions (exp2, rcp) on the SFUs
	"wgmma",  // warpgroup tensor-core instructions (sm_90a)
}

package tasks

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cklplan/cklplan/costmodel"
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

// The per-thread and per-block limits every compute capability since 5.0
// shares (CUDA C++ Programming Guide, Technical Specifications per Compute
// Capability): 255 registers per thread, 1024 threads per block, 64K
// 32-bit registers per block.
const (
	registersPerThread = 255
	threadsPerBlock    = 1024
	registersPerBlock  = 64 << 10
)

// maxTileBlocks is the largest thread-block cluster of any target (16 on
// sm_90 with the non-portable cluster size; the CUDA C++ Programming Guide,
// Thread Block Clusters), and registersPerTile what their register files
// hold: the most one invocation's tile may take in registers.
const (
	maxTileBlocks    = 16
	registersPerTile = maxTileBlocks * registersPerBlock
)

// A Target is the hardware a graph is planned for: a built-in one (sm80,
// sm90, h200) or a custom one. Model holds its figures for the cost model
// (package costmodel); Features and the limits decide which alternatives it
// can run. The shared memory per block and the largest cluster come from the
// figures (shared_bytes_per_block, max_cluster_blocks).
type Target struct {
	Name                 string
	Custom               bool
	Features             []string // sorted
	SharedMemoryPerBlock int64
	RegistersPerThread   int64
	ThreadsPerBlock      int64
	MaxClusterSize       int64
	Model                *costmodel.Target
	// figuresReported says the decoder reported the figures it could not
	// read (Model is then nil): they are not also reported missing.
	figuresReported bool
}

// The built-in targets' features; their figures are costmodel's.
var builtinFeatures = map[string][]string{
	"sm80": {"cp_async", "ldmatrix", "sm_80"},
	"sm90": {"clusters", "cp_async", "fp8", "ldmatrix", "sm_80", "sm_90", "sm_90a", "tma", "wgmma"},
	"h200": {"clusters", "cp_async", "fp8", "ldmatrix", "sm_80", "sm_90", "sm_90a", "tma", "wgmma"},
}

// TargetNames lists the built-in target names, sorted.
func TargetNames() []string {
	names := costmodel.TargetNames()
	slices.Sort(names)
	return names
}

// builtinTargets holds the built-in targets, made once.
var builtinTargets = sync.OnceValue(func() map[string]Target {
	out := map[string]Target{}
	for name, features := range builtinFeatures {
		if model, err := costmodel.BuiltinTarget(name); err == nil {
			out[name] = newTarget(name, false, features, model)
		}
	}
	return out
})

// BuiltinTarget returns the named built-in target. Its Model is shared:
// callers must not modify it.
func BuiltinTarget(name string) (Target, bool) {
	t, ok := builtinTargets()[name]
	t.Features = slices.Clone(t.Features)
	return t, ok
}

// newTarget fills a target's limits from its figures.
func newTarget(name string, custom bool, features []string, model *costmodel.Target) Target {
	t := Target{Name: name, Custom: custom, Features: slices.Sorted(slices.Values(features)), Model: model,
		RegistersPerThread: registersPerThread, ThreadsPerBlock: threadsPerBlock}
	t.Features = slices.Compact(t.Features)
	if model != nil {
		t.SharedMemoryPerBlock = int64(model.Get("shared_bytes_per_block"))
		t.MaxClusterSize = int64(model.Get("max_cluster_blocks"))
	}
	return t
}

// CustomTarget returns a custom target with the given features and figures.
// The figures take the target's name, as in a graph's JSON form: figures
// named otherwise (a built-in target's, or a copy With a figure changed)
// are copied under it, and model is not changed.
func CustomTarget(name string, features []string, model *costmodel.Target) Target {
	if model != nil && model.Name != name {
		named := *model
		named.Name = name
		model = &named
	}
	return newTarget(name, true, features, model)
}

// Has reports whether t has the feature.
func (t Target) Has(feature string) bool {
	_, ok := slices.BinarySearch(t.Features, feature)
	return ok
}

// CanRun reports whether t can run alternative a, and if not, why: the
// missing features, else the first exceeded limit in the order shared
// memory, registers, threads, cluster size.
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
	case r.SharedMemoryBytes > t.SharedMemoryPerBlock:
		return false, fmt.Sprintf("needs %d bytes of shared memory, %s allows %d per block", r.SharedMemoryBytes, t.Name, t.SharedMemoryPerBlock)
	case r.RegistersPerThread > t.RegistersPerThread:
		return false, fmt.Sprintf("needs %d registers per thread, %s allows %d", r.RegistersPerThread, t.Name, t.RegistersPerThread)
	case r.ThreadsPerBlock > t.ThreadsPerBlock:
		return false, fmt.Sprintf("needs %d threads per block, %s allows %d", r.ThreadsPerBlock, t.Name, t.ThreadsPerBlock)
	case r.ClusterSize > t.MaxClusterSize:
		return false, fmt.Sprintf("needs a cluster of %d blocks, %s allows %d", r.ClusterSize, t.Name, t.MaxClusterSize)
	}
	return true, ""
}

// InstructionKinds are the instruction kinds a work estimate may name: the
// cost model's roofline peaks (costmodel.TensorF16, costmodel.FMAF32).
var InstructionKinds = []string{string(costmodel.FMAF32), string(costmodel.MMASyncF16), string(costmodel.TensorF16)}

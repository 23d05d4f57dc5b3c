package planner

import (
	"context"

	"github.com/cklplan/cklplan/costmodel"
	"github.com/cklplan/cklplan/tasks"
)

// Prefetch classifies, on one goroutine of its own, the conversions that
// the links of a graph being loaded can need: for every link, each pair of
// the two tasks' alternatives that the target runs, where both ports hold a
// distribution. Call it from the prelude of tasks.Limits.LoadWith: loading
// a large graph is mostly its invocations and edges, on one processor, and
// the classifications (milliseconds each) are then done beside it. Plan,
// given this cache, finds them done or waits for the one under way; once it
// has listed the conversions it needs, it ends the prefetch and classifies
// the rest itself. The results are those Plan would compute, only earlier.
//
// target is the cost-model target Plan will be given (PlanOptions.Target),
// or nil for the graph's own; a target named like a built-in one
// (tasks.BuiltinTarget) prefetches only for the alternatives that one runs,
// as for a graph re-targeted with Graph.WithTarget. Measured costs are not prefetched for: a plan
// with PlanOptions.Measured classifies for itself.
func (c *Cache) Prefetch(ctx context.Context, pre *tasks.Prelude, target *costmodel.Target) {
	if c == nil || pre == nil {
		return // nothing to classify, or nowhere to keep it
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// Which alternatives run: the graph's target's features, or, for a
	// target named like a built-in one, that one's (a plan for sm80 takes
	// no wgmma alternative, as cklplan plan --target sm80 re-validates).
	runs := pre.Target
	if target == nil {
		target = pre.Target.Model
	} else if bt, ok := tasks.BuiltinTarget(target.Name); ok {
		runs = bt
	}
	if target == nil {
		return
	}
	p := newPrints(target, nil)
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.prefetch = append(c.prefetch, cancel)
	c.mu.Unlock()
	c.fetching.Go(func() {
		defer cancel()
		for _, l := range pre.Links() {
			if l.MustCross {
				continue // through global memory: nothing to classify
			}
			for _, a := range l.FromTask.Alternatives {
				if ok, _ := runs.CanRun(a); !ok {
					continue
				}
				src := bindingEndpoint(&a.Bindings[l.From.Index])
				for _, b := range l.ToTask.Alternatives {
					if ok, _ := runs.CanRun(b); !ok {
						continue
					}
					dst := bindingEndpoint(&b.Bindings[l.To.Index])
					if !classifies(src, dst) {
						continue
					}
					if ctx.Err() != nil {
						return
					}
					c.classify(src.dist, dst.dist, nil, p, false)
				}
			}
		}
	})
}

// endPrefetch ends every prefetch under way: a classification already
// started finishes, no other starts.
func (c *Cache) endPrefetch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.prefetch {
		cancel()
	}
	c.prefetch = nil
}

// bindingEndpoint is the part of an alternative's port binding that tells
// whether and how its conversions classify.
func bindingEndpoint(b *tasks.Binding) *endpoint {
	return &endpoint{dist: b.Distribution, layout: b.Layout, loop: b.Loop}
}

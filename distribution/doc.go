// Package distribution models which executor (block, warp, lane) owns which tile
// element, and where in its registers the element sits.
//
// The ownership map (executor × local → tile) is kept separate from the local
// storage map (local → register slot). Invariants: every tile element is owned;
// ownership is a bijection once replicated executor axes are factored out.
package distribution

// Package conversion classifies a (source, target) distribution pair and
// produces a movement witness.
//
// Model. With C = target⁻¹ ∘ source, mapping each source (block, warp, lane,
// register) slot to the target slot that must hold the same tile element, a
// conversion belongs to the lowest hardware level the movement must cross, in
// this order:
//
//	identity               C is the identity: nothing moves
//	register_permute       elements stay in their thread and change register
//	warp_shuffle           elements stay in their warp and change lane
//	shared_memory          elements cross warps of one CTA
//	cluster_shared_memory  elements cross CTAs of one cluster (sm_90+)
//	global_memory          elements cross CTAs without a cluster, or a kernel boundary
//
// The class is a lower bound; the mechanism that realizes it is chosen by cost
// and may sit higher (an intra-warp all-to-all can be cheaper through swizzled
// shared memory than through shuffles). Replication on either side is part of
// the movement: dropping copies is free, adding copies needs the level the
// copies span.
//
// Invariants. The class is the lowest level crossed; a witness is concrete and
// checkable: replaying it moves every element of the source to every slot of
// the target that holds it.
//
// Status: the classes and witnesses are the subject of a later issue; the
// distributions they are computed from live in package distribution.
package conversion

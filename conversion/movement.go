package conversion

import "github.com/cklplan/cklplan/costmodel"

// fillMovement sums a witness into the counts the cost model reads, per
// block of the tile.
func (p *problem) fillMovement(w *Witness) {
	// Neighbouring routes are nearly always in the same blocks: the map
	// is written only when a block differs from the last one seen.
	blocks := map[int]bool{}
	last := -1
	for _, r := range w.Routes {
		for _, b := range [2]int{r.Src.Block, r.Dst.Block} {
			if b != last {
				blocks[b], last = true, b
			}
		}
	}
	nb := max(len(blocks), 1)
	per := func(n int) int { return (n + nb - 1) / nb }
	m := &w.Movement
	*m = costmodel.Movement{}
	m.Mechanism = w.Mechanism.Via.String()
	m.Variant = w.Mechanism.Variant
	m.Bytes = p.nElem * p.movedBits() / 8
	if rp := w.Registers; rp != nil {
		m.ALU = per(rp.Prmt + rp.Selects + rp.BitOps + rp.SourcePrmt + rp.SourceALU)
		m.Cvt = per(rp.Cvt + rp.SourceCvt)
	}
	if sp := w.Shuffle; sp != nil {
		m.Shuffles = per(sp.Shuffles)
		m.ShuffleRounds = sp.Rounds
		m.ALU += per(sp.Selects)
	}
	if mp := w.Shared; mp != nil {
		m.SharedAccesses = per(len(mp.Stores) + len(mp.Loads))
		m.SharedWavefronts = per(mp.StoreWavefronts + mp.LoadWavefronts)
		m.Barriers = mp.Barriers
	}
	if mp := w.Cluster; mp != nil {
		local, remote, remoteLoads := 0, 0, 0
		for i, list := range [][]MemAccess{mp.Stores, mp.Loads} {
			for _, a := range list {
				isRemote := false
				for _, la := range a.Lanes {
					isRemote = isRemote || la.Memory != a.Block
				}
				switch {
				case !isRemote:
					local++
				case i == 1:
					remote++
					remoteLoads++
				default:
					remote++
				}
			}
		}
		m.SharedAccesses = per(local)
		m.SharedWavefronts = per(mp.StoreWavefronts + mp.LoadWavefronts)
		m.RemoteAccesses, m.RemoteLoads = per(remote), per(remoteLoads)
		m.RemoteBytes = per(mp.RemoteBytes)
		m.ClusterBarriers = mp.ClusterBarriers
	}
	if mp := w.Global; mp != nil {
		m.GlobalAccesses = per(len(mp.Stores) + len(mp.Loads))
		m.GlobalBytes = per(mp.StoredBytes + mp.LoadedBytes)
		m.Launches = mp.Launches
		m.Barriers += mp.Barriers
		m.ClusterBarriers += mp.ClusterBarriers
	}
}

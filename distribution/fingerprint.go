package distribution

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// A Fingerprint identifies a distribution up to how it is written: two
// distributions have equal fingerprints exactly when they have the same tile
// axes (names and sizes), the same element type, span the same number of
// blocks, warps and lanes in the same clusters, and every (block, warp,
// lane, register slot) holds the same tile element. Names of
// the distribution, of its local axes and of its executor axes, the split of a
// level into several axes, and the text of the maps do not matter.
type Fingerprint [sha256.Size]byte

// String returns "sha256:" and the hexadecimal digest.
func (f Fingerprint) String() string { return "sha256:" + hex.EncodeToString(f[:]) }

// Fingerprint returns d's canonical fingerprint.
func (d *Distribution) Fingerprint() Fingerprint { return d.fp }

// Equal reports whether d and o distribute their tiles identically (equal
// fingerprints).
func (d *Distribution) Equal(o *Distribution) bool { return d.fp == o.fp }

// fingerprint hashes the canonical tabulation: the tile axes, the level sizes,
// then, for every executor in (block, warp, lane) order and every register slot
// in order, the flat tile index held there. Executor axes are ordered by level
// and flatten row-major, so the flat executor index is already the
// (block, warp, lane) order.
func (d *Distribution) fingerprint() Fingerprint {
	h := sha256.New()
	fmt.Fprintf(h, "cklplan.distribution.v2\ntile")
	for _, a := range d.spec.Tile {
		fmt.Fprintf(h, " %q:%d", a.Name, a.Size)
	}
	fmt.Fprintf(h, "\nelement %s\nlevels %d %d %d\ncluster %d\n", d.spec.Element, d.levelSizes[LevelBlock], d.levelSizes[LevelWarp], d.levelSizes[LevelLane], d.spec.BlocksPerCluster)
	buf := make([]byte, 4*d.nLocal)
	for e := 0; e < d.nExec; e++ {
		for s := 0; s < d.nLocal; s++ {
			binary.LittleEndian.PutUint32(buf[4*s:], uint32(d.owned[e*d.nLocal+int(d.localAt[s])]))
		}
		h.Write(buf)
	}
	var f Fingerprint
	h.Sum(f[:0])
	return f
}

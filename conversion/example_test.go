package conversion_test

import (
	"fmt"

	"github.com/cklplan/cklplan/conversion"
	"github.com/cklplan/cklplan/distribution"
)

// The f32 accumulators of two adjacent m16n8k16 tiles become the f16 A
// operand of the next mma without leaving their threads: four paired cvt.
func ExampleClassify() {
	c, _ := distribution.Builtin("mma.m16n8k16.c.f32")
	acc, _ := distribution.TileAtom(c, distribution.Tiling{Name: "acc", Repeat: map[string]int{"n": 2}})
	a, _ := distribution.Builtin("mma.m16n8k16.a.f16")
	rename, _ := distribution.ParseRename("n=k")
	res, err := conversion.Classify(acc, a, conversion.Options{Rename: rename})
	if err != nil {
		fmt.Println(err)
		return
	}
	rp := res.Witness.Registers
	fmt.Println(res.Class, res.Mechanism)
	fmt.Println("cvt", rp.Cvt, "prmt", rp.Prmt, "selects", rp.Selects)
	fmt.Println(conversion.Replay(acc, a, conversion.Options{Rename: rename}, res.Witness))
	// Output:
	// register_permute register_permute
	// cvt 4 prmt 0 selects 0
	// <nil>
}

// FlashAttention-3's P: the f32 accumulator of wgmma.m64n16k16 (S = Q·Kᵀ,
// softmaxed in place) becomes the f16 A operand of the next wgmma, taken
// from registers, with no data leaving its thread: a paired cvt for each
// two values, four per warp.
func ExampleClassify_wgmmaAccumulatorAsA() {
	acc, _ := distribution.Builtin("wgmma.m64n16k16.c.f32")
	a, _ := distribution.Builtin("wgmma.m64k16.a.f16")
	rename, _ := distribution.ParseRename("n=k")
	res, err := conversion.Classify(acc, a, conversion.Options{Rename: rename})
	if err != nil {
		fmt.Println(err)
		return
	}
	rp := res.Witness.Registers
	fmt.Println(res.Class, res.Mechanism)
	fmt.Println("cvt", rp.Cvt, "prmt", rp.Prmt, "selects", rp.Selects)
	fmt.Println(conversion.Replay(acc, a, conversion.Options{Rename: rename}, res.Witness))
	// Output:
	// register_permute register_permute
	// cvt 16 prmt 0 selects 0
	// <nil>
}

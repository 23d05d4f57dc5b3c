package hardware

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cklplan/cklplan/conversion"
)

// A ConvProgram is a conversion witness lowered to one straight-line program
// that every thread of the tile runs: the same instructions in the same
// order, with what differs between threads (the register a lane offers or
// stores, the lane it reads, its address, which piece pattern assembles a
// destination register) held in per-thread parameters, or folded into an
// expression of the lane, warp and block where one fits them all.
//
// It covers the register, shuffle, shared-memory and cluster mechanisms of
// package conversion; a type change only within registers (f32 to f16, as
// the witness's cvt pieces say).
type ConvProgram struct {
	Name      string
	Mechanism string // the witness's mechanism, e.g. "shared_memory"
	Blocks    int    // blocks of the tile (a cluster, for cluster plans)
	Warps     int    // warps per block
	SrcRegs   int    // 32-bit source registers per thread
	DstRegs   int    // 32-bit destination registers per thread
	SrcBits   int    // element bits in the source registers
	DstBits   int    // element bits in the destination registers
	MovedBits int    // element bits that travel between threads
	Cvt       bool   // f32 sources converted to f16 destinations
	Cluster   bool   // the memory is the cluster's distributed shared memory
	Scratch   int    // shared-memory bytes per block
	Barriers  int    // barriers per tile (bar.sync, or barrier.cluster pairs)

	Rounds []ConvRound
	Stores []ConvAccess
	Loads  []ConvAccess
	Dst    []ConvDst

	// Per thread (flat: block*Warps*32 + warp*32 + lane): the initial source
	// registers, holding element codes (Code) where the witness's routes
	// read, and the destination registers expected, with the bits checked.
	Init, Expect, Mask [][]uint32
}

// A ConvRound is one shfl.sync.idx: each thread offers Offer[Send[t]] (a
// source register) and reads lane From[t] into the round's temporary.
type ConvRound struct {
	Offer []int
	Send  []int
	From  []int
}

// A ConvAccess is one warp-wide shared-memory store or load of Bits bits per
// lane (16, 32, 64 or 128). Thread t takes part when Active[t]; it addresses
// byte Addr[t] of the scratch of block Memory[t] (its own, or another block
// of its cluster). A store writes the source registers Values[Value[t]]
// (for 16 bits: the half at bit Values[..][1] of register Values[..][0]); a
// load fills the temporaries of its index.
type ConvAccess struct {
	Bits   int
	Active []bool
	Addr   []int
	Memory []int
	Values [][2]int
	Value  []int
}

// A ConvDst assembles one destination register: thread t uses
// Patterns[Pattern[t]].
type ConvDst struct {
	Patterns [][]conversion.Piece
	Cvt      []bool // per pattern: the pieces are f32 converted to f16
	Pattern  []int
}

// Code is the value a thread holds for tile element e (the flat index in
// the destination's tile) in an element of bits bits: e itself, or for a
// float source the f32 value e.
func Code(e, bits int, float bool) uint32 {
	if float {
		return math.Float32bits(float32(e))
	}
	return uint32(e) & uint32(1<<bits-1)
}

// f16Code is the f16 bits of the integer e, exact for e < 2048.
func f16Code(e int) uint32 {
	if e == 0 {
		return 0
	}
	exp := 0
	for 1<<(exp+1) <= e {
		exp++
	}
	mant := (e<<10>>exp - 1<<10) & 0x3ff
	return uint32(exp+15)<<10 | uint32(mant)
}

func bitsOf(element string) (int, error) {
	switch element {
	case "f32", "i32", "u32", "tf32":
		return 32, nil
	case "f16", "bf16", "i16", "u16":
		return 16, nil
	}
	return 0, fmt.Errorf("element type %q: the generator handles 16- and 32-bit elements", element)
}

// LowerConversion lowers w (a witness of conversion.Classify, possibly
// transformed and replayed) to a ConvProgram.
func LowerConversion(name string, w *conversion.Witness) (*ConvProgram, error) {
	sb, err := bitsOf(w.SrcElement)
	if err != nil {
		return nil, err
	}
	db, err := bitsOf(w.DstElement)
	if err != nil {
		return nil, err
	}
	via := w.Mechanism.Via
	if sb != db && (via != conversion.RegisterPermute || sb != 32 || db != 16) {
		return nil, fmt.Errorf("%s: a %s to %s change by %s: the generator converts types only f32 to f16 in registers", name, w.SrcElement, w.DstElement, w.Mechanism)
	}
	if w.Global != nil {
		return nil, fmt.Errorf("%s: global-memory plans are not lowered", name)
	}
	p := &ConvProgram{Name: name, Mechanism: w.Mechanism.String(), SrcBits: sb, DstBits: db, MovedBits: sb, Cvt: sb != db}
	// The threads.
	for _, r := range w.Routes {
		for _, t := range []conversion.Thread{r.Src.Thread, r.Dst.Thread} {
			p.Blocks, p.Warps = max(p.Blocks, t.Block+1), max(p.Warps, t.Warp+1)
		}
	}
	if p.Blocks == 0 {
		return nil, fmt.Errorf("%s: the witness has no routes", name)
	}
	nt := p.Blocks * p.Warps * 32
	tid := func(t conversion.Thread) int { return (t.Block*p.Warps+t.Warp)*32 + t.Lane }
	maxSrc, maxDst := 0, 0
	for _, r := range w.Routes {
		maxSrc, maxDst = max(maxSrc, r.Src.Slot+1), max(maxDst, r.Dst.Slot+1)
	}
	p.SrcRegs, p.DstRegs = (maxSrc*sb+31)/32, (maxDst*db+31)/32
	p.Init, p.Expect, p.Mask = grid(nt, p.SrcRegs), grid(nt, p.DstRegs), grid(nt, p.DstRegs)
	float := p.Cvt
	for _, r := range w.Routes {
		s, d := tid(r.Src.Thread), tid(r.Dst.Thread)
		put(p.Init[s], r.Src.Slot, sb, Code(r.Element, sb, float))
		want := Code(r.Element, db, false)
		if p.Cvt {
			if r.Element >= 2048 {
				return nil, fmt.Errorf("%s: element %d has no exact f16 code", name, r.Element)
			}
			want = f16Code(r.Element)
		}
		put(p.Expect[d], r.Dst.Slot, db, want)
		put(p.Mask[d], r.Dst.Slot, db, uint32(1<<db-1))
	}
	if sb == 16 && nt > 0 && len(w.Routes) > 1<<16 {
		return nil, fmt.Errorf("%s: %d elements do not fit 16-bit codes", name, len(w.Routes))
	}

	if sp := w.Shuffle; sp != nil {
		n := 0
		for _, ws := range sp.Warps {
			n = max(n, len(ws.Rounds))
		}
		for r := range n {
			send, from := make([]int, nt), make([]int, nt)
			for t := range nt {
				from[t] = t % 32
				send[t] = -1
			}
			for _, ws := range sp.Warps {
				if r >= len(ws.Rounds) {
					continue
				}
				for l := range 32 {
					t := (ws.Block*p.Warps+ws.Warp)*32 + l
					if l < len(ws.Rounds[r].Send) {
						send[t] = ws.Rounds[r].Send[l]
					}
					if l < len(ws.Rounds[r].From) && ws.Rounds[r].From[l] >= 0 {
						from[t] = ws.Rounds[r].From[l]
					}
				}
			}
			offer, idx := distinct(send)
			p.Rounds = append(p.Rounds, ConvRound{Offer: offer, Send: idx, From: from})
		}
	}

	mp := w.Shared
	if w.Cluster != nil {
		mp, p.Cluster = w.Cluster, true
	}
	if mp != nil {
		p.Scratch = mp.ScratchBytes
		p.Barriers = max(mp.Barriers, mp.ClusterBarriers)
		if p.Barriers == 0 {
			p.Barriers = 2
		}
		mb := p.MovedBits
		var err error
		if p.Stores, err = p.accesses(mp.Stores, mb, true, tid, nt); err != nil {
			return nil, fmt.Errorf("%s: stores: %w", name, err)
		}
		if p.Loads, err = p.accesses(mp.Loads, mb, false, tid, nt); err != nil {
			return nil, fmt.Errorf("%s: loads: %w", name, err)
		}
		for _, as := range [][]ConvAccess{p.Stores, p.Loads} {
			for _, a := range as {
				for t := range nt {
					if a.Active[t] && a.Addr[t]+a.Bits/8 > p.Scratch {
						return nil, fmt.Errorf("%s: byte %d is past the %d-byte scratch", name, a.Addr[t], p.Scratch)
					}
				}
			}
		}
	}

	if rp := w.Registers; rp != nil {
		byReg := make([][]int, p.DstRegs) // reg → thread → op index
		for j := range byReg {
			byReg[j] = make([]int, nt)
			for t := range byReg[j] {
				byReg[j][t] = -1
			}
		}
		for i, op := range rp.Ops {
			if op.Reg < p.DstRegs {
				byReg[op.Reg][tid(op.Thread)] = i
			}
		}
		for j := range p.DstRegs {
			d := ConvDst{Pattern: make([]int, nt)}
			keys := map[string]int{}
			for t := range nt {
				var pieces []conversion.Piece
				cvt := false
				if i := byReg[j][t]; i >= 0 {
					pieces, cvt = rp.Ops[i].Pieces, rp.Ops[i].Kind == "cvt"
				}
				k := fmt.Sprint(cvt, pieces)
				at, ok := keys[k]
				if !ok {
					at = len(d.Patterns)
					keys[k] = at
					d.Patterns = append(d.Patterns, pieces)
					d.Cvt = append(d.Cvt, cvt)
				}
				d.Pattern[t] = at
			}
			p.Dst = append(p.Dst, d)
		}
	} else if via == conversion.Identity {
		p.DstRegs = p.SrcRegs
		p.Expect, p.Mask = grid(nt, p.DstRegs), grid(nt, p.DstRegs)
		for _, r := range w.Routes {
			d := tid(r.Dst.Thread)
			put(p.Expect[d], r.Dst.Slot, db, Code(r.Element, db, false))
			put(p.Mask[d], r.Dst.Slot, db, uint32(1<<db-1))
		}
		for j := range p.DstRegs {
			d := ConvDst{Patterns: [][]conversion.Piece{{{Round: -1, Reg: j, Bits: 32}}}, Cvt: []bool{false}, Pattern: make([]int, nt)}
			p.Dst = append(p.Dst, d)
		}
	} else {
		return nil, fmt.Errorf("%s: %s witness without a register plan", name, w.Mechanism)
	}
	return p, nil
}

func (p *ConvProgram) accesses(list []conversion.MemAccess, mb int, store bool, tid func(conversion.Thread) int, nt int) ([]ConvAccess, error) {
	byWarp := map[[2]int][]conversion.MemAccess{}
	for _, a := range list {
		k := [2]int{a.Block, a.Warp}
		byWarp[k] = append(byWarp[k], a)
	}
	n := 0
	for _, as := range byWarp {
		n = max(n, len(as))
	}
	var out []ConvAccess
	for i := range n {
		a := ConvAccess{Active: make([]bool, nt), Addr: make([]int, nt), Memory: make([]int, nt), Value: make([]int, nt)}
		keys := map[[2]int]int{}
		for k, as := range byWarp {
			if i >= len(as) {
				continue
			}
			m := as[i]
			bits := m.Vector * mb
			if a.Bits != 0 && a.Bits != bits {
				return nil, fmt.Errorf("access %d is %d bits in one warp and %d in another", i, a.Bits, bits)
			}
			a.Bits = bits
			if bits != 16 && bits != 32 && bits != 64 && bits != 128 {
				return nil, fmt.Errorf("%d-bit accesses are not lowered", bits)
			}
			for _, la := range m.Lanes {
				t := tid(conversion.Thread{Block: k[0], Warp: k[1], Lane: la.Lane})
				if la.Bit%8 != 0 || (la.Bit/8)%int64(bits/8) != 0 {
					return nil, fmt.Errorf("bit address %d is not aligned to %d bits", la.Bit, bits)
				}
				if !store && la.Temp != i {
					return nil, fmt.Errorf("load %d of lane %d fills temporary %d", i, la.Lane, la.Temp)
				}
				a.Active[t], a.Addr[t], a.Memory[t] = true, int(la.Bit/8), la.Memory
				if store {
					reg, bit := la.Slot*mb/32, la.Slot*mb%32
					if bits >= 32 && bit != 0 {
						return nil, fmt.Errorf("a %d-bit store from slot %d does not start a register", bits, la.Slot)
					}
					key := [2]int{reg, bit}
					at, ok := keys[key]
					if !ok {
						at = len(a.Values)
						keys[key] = at
						a.Values = append(a.Values, key)
					}
					a.Value[t] = at
				}
			}
		}
		out = append(out, a)
	}
	return out, nil
}

func grid(n, m int) [][]uint32 {
	g := make([][]uint32, n)
	for i := range g {
		g[i] = make([]uint32, m)
	}
	return g
}

// put writes v (bits wide) at slot of a register file.
func put(regs []uint32, slot, bits int, v uint32) {
	b := slot * bits
	regs[b/32] |= v << (b % 32)
}

// distinct returns the distinct non-negative values of xs in order of first
// appearance, and each x's index among them (a negative x gets 0).
func distinct(xs []int) ([]int, []int) {
	var vals []int
	idx := make([]int, len(xs))
	at := map[int]int{}
	for i, x := range xs {
		if x < 0 {
			continue
		}
		j, ok := at[x]
		if !ok {
			j = len(vals)
			at[x] = j
			vals = append(vals, x)
		}
		idx[i] = j
	}
	if len(vals) == 0 {
		vals = []int{0}
	}
	return vals, idx
}

// Run executes the program on the CPU exactly as the generated kernel does
// and returns the destination registers per thread.
func (p *ConvProgram) Run() [][]uint32 {
	nt := len(p.Init)
	src := p.Init
	temps := make([][][]uint32, nt) // thread → temporary → registers
	for t := range temps {
		temps[t] = make([][]uint32, max(len(p.Rounds), len(p.Loads)))
	}
	for r, rd := range p.Rounds {
		for t := range nt {
			base := t - t%32
			s := base + rd.From[t]
			temps[t][r] = []uint32{src[s][rd.Offer[rd.Send[s]]]}
		}
	}
	mem := map[[2]int]uint32{} // (block, byte) → byte value
	for _, a := range p.Stores {
		for t := range nt {
			if !a.Active[t] {
				continue
			}
			v := a.Values[a.Value[t]]
			var words []uint32
			if a.Bits == 16 {
				words = []uint32{src[t][v[0]] >> v[1] & 0xffff}
			} else {
				words = src[t][v[0] : v[0]+a.Bits/32]
			}
			for b := range a.Bits / 8 {
				mem[[2]int{a.Memory[t], a.Addr[t] + b}] = words[b/4] >> (8 * (b % 4)) & 0xff
			}
		}
	}
	for i, a := range p.Loads {
		for t := range nt {
			if !a.Active[t] {
				continue
			}
			words := make([]uint32, max(a.Bits/32, 1))
			for b := range a.Bits / 8 {
				words[b/4] |= mem[[2]int{a.Memory[t], a.Addr[t] + b}] << (8 * (b % 4))
			}
			temps[t][i] = words
		}
	}
	out := grid(nt, p.DstRegs)
	for j, d := range p.Dst {
		for t := range nt {
			pat := d.Pattern[t]
			var v uint32
			for _, pc := range d.Patterns[pat] {
				var x uint32
				if pc.Round < 0 {
					x = src[t][pc.Reg]
				} else if pc.Reg < len(temps[t][pc.Round]) {
					x = temps[t][pc.Round][pc.Reg]
				}
				x >>= pc.Bit
				if pc.Bits < 32 {
					x &= 1<<pc.Bits - 1
				}
				if d.Cvt[pat] {
					x = f16Code(int(math.Float32frombits(x)))
				}
				v |= x << pc.ToBit
			}
			out[t][j] = v
		}
	}
	return out
}

// Check runs the program and counts the checked destination bits that
// differ from the expected ones, per thread and register.
func (p *ConvProgram) Check() (wrong int) {
	out := p.Run()
	for t := range out {
		for j := range out[t] {
			if (out[t][j]^p.Expect[t][j])&p.Mask[t][j] != 0 {
				wrong++
			}
		}
	}
	return wrong
}

// An affine form c0 + c1*lane + c2*warp + c3*block that gives a per-thread
// value for every thread that uses it, or ok = false.
func affine(vals []int, use func(t int) bool, warps int) (c [4]int, ok bool) {
	first := -1
	for t := range vals {
		if use(t) {
			first = t
			break
		}
	}
	if first < 0 {
		return c, true
	}
	coord := func(t int) [3]int { return [3]int{t % 32, t / 32 % warps, t / 32 / warps} }
	// Fit each coefficient from a thread that differs in that coordinate only.
	c[0] = vals[first]
	f := coord(first)
	for k := range 3 {
		for t := range vals {
			ct := coord(t)
			if !use(t) || ct[k] == f[k] || ct[(k+1)%3] != f[(k+1)%3] || ct[(k+2)%3] != f[(k+2)%3] {
				continue
			}
			if (vals[t]-vals[first])%(ct[k]-f[k]) != 0 {
				return c, false
			}
			c[k+1] = (vals[t] - vals[first]) / (ct[k] - f[k])
			break
		}
	}
	c[0] -= c[1]*f[0] + c[2]*f[1] + c[3]*f[2]
	for t := range vals {
		ct := coord(t)
		if use(t) && vals[t] != c[0]+c[1]*ct[0]+c[2]*ct[1]+c[3]*ct[2] {
			return c, false
		}
	}
	return c, true
}

func affineExpr(c [4]int) string {
	terms := []string{}
	for k, name := range []string{"", "lane", "warp", "blk"} {
		switch {
		case c[k] == 0:
		case k == 0:
			terms = append(terms, fmt.Sprint(c[k]))
		case c[k] == 1:
			terms = append(terms, name)
		default:
			terms = append(terms, fmt.Sprintf("%d * %s", c[k], name))
		}
	}
	if len(terms) == 0 {
		return "0"
	}
	return "(" + strings.Join(terms, " + ") + ")"
}

// codegen emits one conversion's kernel into b, with its per-thread
// parameter table. Parameters that an affine form fits are expressions
// instead.
type codegen struct {
	p      *ConvProgram
	b      *bytes.Buffer
	params [][]uint32 // per thread
}

// param returns a C expression for the per-thread values vals (only threads
// with use(t) matter): an affine form of lane, warp and block, or a
// parameter loaded before the loop.
func (g *codegen) param(vals []int, use func(int) bool) string {
	if c, ok := affine(vals, use, g.p.Warps); ok {
		return affineExpr(c)
	}
	k := len(g.params[0])
	for t := range g.params {
		g.params[t] = append(g.params[t], uint32(vals[t]))
	}
	return fmt.Sprintf("P%d", k)
}

func sel(idx string, opts []string) string {
	if len(opts) == 1 {
		return opts[0]
	}
	s := opts[len(opts)-1]
	for i := len(opts) - 2; i >= 0; i-- {
		s = fmt.Sprintf("(%s == %d ? %s : %s)", idx, i, opts[i], s)
	}
	return s
}

func everyThread(int) bool { return true }

// GenerateConversion returns the CUDA of one conversion: a kernel conv_NAME
// that runs the conversion iters times, each round's destination registers
// renamed into the next round's sources, and a host descriptor (tables and
// launch shape) that the harness of GenerateConversions runs.
func GenerateConversion(p *ConvProgram) ([]byte, error) {
	nt := len(p.Init)
	g := &codegen{p: p, b: &bytes.Buffer{}, params: make([][]uint32, nt)}
	body := &bytes.Buffer{}
	pre := &bytes.Buffer{}
	id := strings.NewReplacer(".", "_", "-", "_", "/", "_").Replace(p.Name)
	// Shuffle rounds.
	for r, rd := range p.Rounds {
		from := g.param(rd.From, everyThread)
		fromVar := fmt.Sprintf("from%d", r)
		fmt.Fprintf(pre, "  const int %s = %s;\n", fromVar, from)
		var opts []string
		for _, reg := range rd.Offer {
			opts = append(opts, fmt.Sprintf("s%d", reg))
		}
		idx := "0"
		if len(opts) > 1 {
			idx = fmt.Sprintf("snd%d", r)
			fmt.Fprintf(pre, "  const int %s = %s;\n", idx, g.param(rd.Send, everyThread))
		}
		fmt.Fprintf(body, "    const uint32_t t%d_0 = __shfl_sync(0xffffffffu, %s, %s);\n", r, sel(idx, opts), fromVar)
	}
	// Memory.
	space := "shared"
	if p.Cluster {
		space = "shared::cluster"
	}
	barrier := "    __syncthreads();\n"
	if p.Cluster {
		barrier = "    asm volatile(\"barrier.cluster.arrive.release.aligned;\\nbarrier.cluster.wait.acquire.aligned;\\n\" ::: \"memory\");\n"
	}
	access := func(kind string, i int, a ConvAccess) {
		use := func(t int) bool { return a.Active[t] }
		allActive := !slices.Contains(a.Active, false)
		addr := g.param(a.Addr, use)
		av := fmt.Sprintf("%s%d", kind, i)
		if p.Cluster {
			mem := g.param(a.Memory, use)
			fmt.Fprintf(pre, "  uint32_t %s;\n  asm(\"mapa.shared::cluster.u32 %%0, %%1, %%2;\" : \"=r\"(%s) : \"r\"(scratch + %s), \"r\"(%s));\n", av, av, addr, mem)
		} else {
			fmt.Fprintf(pre, "  const uint32_t %s = scratch + %s;\n", av, addr)
		}
		guard := ""
		if !allActive {
			act := make([]int, nt)
			for t := range nt {
				if a.Active[t] {
					act[t] = 1
				}
			}
			fmt.Fprintf(pre, "  const bool %s_on = %s;\n", av, g.param(act, everyThread))
			guard = fmt.Sprintf("if (%s_on) ", av)
		}
		words := max(a.Bits/32, 1)
		if kind == "st" {
			vidx := "0"
			if len(a.Values) > 1 {
				vidx = av + "_v"
				fmt.Fprintf(pre, "  const int %s = %s;\n", vidx, g.param(a.Value, use))
			}
			var regs []string
			for w := range words {
				var opts []string
				for _, v := range a.Values {
					if a.Bits == 16 {
						opts = append(opts, fmt.Sprintf("(s%d >> %d)", v[0], v[1]))
					} else {
						opts = append(opts, fmt.Sprintf("s%d", v[0]+w))
					}
				}
				regs = append(regs, sel(vidx, opts))
			}
			switch a.Bits {
			case 16:
				fmt.Fprintf(body, "    %s{ asm volatile(\"st.%s.u16 [%%0], %%1;\" :: \"r\"(%s), \"h\"((unsigned short)%s) : \"memory\"); }\n", guard, space, av, regs[0])
			case 32:
				fmt.Fprintf(body, "    %s{ asm volatile(\"st.%s.b32 [%%0], %%1;\" :: \"r\"(%s), \"r\"(%s) : \"memory\"); }\n", guard, space, av, regs[0])
			case 64:
				fmt.Fprintf(body, "    %s{ asm volatile(\"st.%s.v2.b32 [%%0], {%%1, %%2};\" :: \"r\"(%s), \"r\"(%s), \"r\"(%s) : \"memory\"); }\n", guard, space, av, regs[0], regs[1])
			case 128:
				fmt.Fprintf(body, "    %s{ asm volatile(\"st.%s.v4.b32 [%%0], {%%1, %%2, %%3, %%4};\" :: \"r\"(%s), \"r\"(%s), \"r\"(%s), \"r\"(%s), \"r\"(%s) : \"memory\"); }\n", guard, space, av, regs[0], regs[1], regs[2], regs[3])
			}
			return
		}
		var outs []string
		for w := range words {
			outs = append(outs, fmt.Sprintf("t%d_%d", i, w))
		}
		fmt.Fprintf(body, "    uint32_t %s = 0;\n", strings.Join(outs, " = 0, "))
		switch a.Bits {
		case 16:
			fmt.Fprintf(body, "    %s{ unsigned short h_; asm volatile(\"ld.%s.u16 %%0, [%%1];\" : \"=h\"(h_) : \"r\"(%s) : \"memory\"); t%d_0 = h_; }\n", guard, space, av, i)
		case 32:
			fmt.Fprintf(body, "    %s{ asm volatile(\"ld.%s.b32 %%0, [%%1];\" : \"=r\"(t%d_0) : \"r\"(%s) : \"memory\"); }\n", guard, space, i, av)
		case 64:
			fmt.Fprintf(body, "    %s{ asm volatile(\"ld.%s.v2.b32 {%%0, %%1}, [%%2];\" : \"=r\"(t%d_0), \"=r\"(t%d_1) : \"r\"(%s) : \"memory\"); }\n", guard, space, i, i, av)
		case 128:
			fmt.Fprintf(body, "    %s{ asm volatile(\"ld.%s.v4.b32 {%%0, %%1, %%2, %%3}, [%%4];\" : \"=r\"(t%d_0), \"=r\"(t%d_1), \"=r\"(t%d_2), \"=r\"(t%d_3) : \"r\"(%s) : \"memory\"); }\n", guard, space, i, i, i, i, av)
		}
	}
	if len(p.Stores) > 0 {
		for i, a := range p.Stores {
			access("st", i, a)
		}
		body.WriteString(barrier)
		for i, a := range p.Loads {
			access("ld", i, a)
		}
		body.WriteString(barrier)
	}
	// Destination registers.
	for j, d := range p.Dst {
		var opts []string
		for k, pat := range d.Patterns {
			opts = append(opts, pieceExpr(pat, d.Cvt[k]))
		}
		idx := "0"
		if len(opts) > 1 {
			idx = fmt.Sprintf("pat%d", j)
			fmt.Fprintf(pre, "  const int %s = %s;\n", idx, g.param(d.Pattern, everyThread))
		}
		fmt.Fprintf(body, "    d%d = %s;\n", j, sel(idx, opts))
	}

	b := g.b
	np := len(g.params[0])
	fmt.Fprintf(b, "// %s: %s, %d block(s) of %d warps; %d source and %d destination registers per thread,\n", p.Name, p.Mechanism, p.Blocks, p.Warps, p.SrcRegs, p.DstRegs)
	fmt.Fprintf(b, "// %d shuffle round(s), %d store(s) and %d load(s) per thread, %d per-thread parameter(s).\n", len(p.Rounds), len(p.Stores), len(p.Loads), np)
	if p.Cluster {
		fmt.Fprintf(b, "__global__ void __cluster_dims__(%d, 1, 1) __launch_bounds__(%d) conv_%s(const uint32_t* __restrict__ prm, const uint32_t* __restrict__ init, uint32_t* __restrict__ out, int iters) {\n", p.Blocks, p.Warps*32, id)
	} else {
		fmt.Fprintf(b, "__global__ void __launch_bounds__(%d) conv_%s(const uint32_t* __restrict__ prm, const uint32_t* __restrict__ init, uint32_t* __restrict__ out, int iters) {\n", p.Warps*32, id)
	}
	if p.Scratch > 0 {
		fmt.Fprintf(b, "  __shared__ __align__(128) unsigned char smem[%d];\n  const uint32_t scratch = static_cast<uint32_t>(__cvta_generic_to_shared(smem));\n", p.Scratch)
	}
	fmt.Fprintf(b, "  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, blk = blockIdx.x %% %d;\n", p.Blocks)
	fmt.Fprintf(b, "  const int gt = blk * %d + threadIdx.x;\n", p.Warps*32)
	b.WriteString("  (void)lane; (void)warp;\n")
	for k := range np {
		fmt.Fprintf(b, "  const int P%d = int(prm[gt * %d + %d]);\n", k, np, k)
	}
	for k := range p.SrcRegs {
		fmt.Fprintf(b, "  uint32_t s%d = init[gt * %d + %d];\n", k, p.SrcRegs, k)
	}
	b.Write(pre.Bytes())
	var ds []string
	for j := range p.DstRegs {
		ds = append(ds, fmt.Sprintf("d%d = 0", j))
	}
	fmt.Fprintf(b, "  uint32_t %s;\n", strings.Join(ds, ", "))
	b.WriteString("  for (int it = 0; it < iters; ++it) {\n")
	b.Write(body.Bytes())
	// The destination feeds the next round's sources by renaming: no
	// instruction, but every round depends on the last, so nothing can be
	// hoisted out of the loop. Source registers beyond the destination's
	// get a copy made distinct by one xor each, so that no two sources are
	// known equal.
	for k := range p.SrcRegs {
		if k < p.DstRegs {
			fmt.Fprintf(b, "    s%d = d%d;\n", k, k)
		} else {
			fmt.Fprintf(b, "    s%d = d%d ^ 0x%08xu;\n", k, k%p.DstRegs, uint32(k)*0x9e3779b9)
		}
	}
	b.WriteString("  }\n")
	fmt.Fprintf(b, "  if (blockIdx.x < %d) {\n", p.Blocks)
	for j := range p.DstRegs {
		fmt.Fprintf(b, "    out[gt * %d + %d] = d%d;\n", p.DstRegs, j, j)
	}
	b.WriteString("  }\n}\n\n")

	// Host descriptor.
	table := func(name string, rows [][]uint32, width int) {
		fmt.Fprintf(b, "static const uint32_t %s_%s[%d] = {", name, id, max(len(rows)*width, 1))
		n := 0
		for _, row := range rows {
			for _, v := range row[:width] {
				if n%12 == 0 {
					b.WriteString("\n   ")
				}
				fmt.Fprintf(b, " 0x%x,", v)
				n++
			}
		}
		if n == 0 {
			b.WriteString(" 0")
		}
		b.WriteString("};\n")
	}
	table("prm", g.params, np)
	table("init", p.Init, p.SrcRegs)
	table("expect", p.Expect, p.DstRegs)
	table("mask", p.Mask, p.DstRegs)
	fmt.Fprintf(b, "static const ConvCase case_%s = {%q, %q, %d, %d, %d, %d, %d, %d, %v, prm_%s, init_%s, expect_%s, mask_%s, conv_%s};\n\n",
		id, p.Name, p.Mechanism, p.Blocks, p.Warps*32, np, p.SrcRegs, p.DstRegs, p.Scratch, p.Cluster, id, id, id, id, id)
	return b.Bytes(), nil
}

func pieceExpr(pieces []conversion.Piece, cvt bool) string {
	if len(pieces) == 0 {
		return "0u"
	}
	var terms []string
	for _, pc := range pieces {
		x := fmt.Sprintf("s%d", pc.Reg)
		if pc.Round >= 0 {
			x = fmt.Sprintf("t%d_%d", pc.Round, pc.Reg)
		}
		if pc.Bit != 0 {
			x = fmt.Sprintf("(%s >> %d)", x, pc.Bit)
		}
		if pc.Bits < 32 {
			x = fmt.Sprintf("(%s & 0x%xu)", x, uint32(1<<pc.Bits-1))
		}
		if cvt {
			x = fmt.Sprintf("uint32_t(__half_as_ushort(__float2half_rn(__uint_as_float(%s))))", x)
		}
		if pc.ToBit != 0 {
			x = fmt.Sprintf("(%s << %d)", x, pc.ToBit)
		}
		terms = append(terms, x)
	}
	return strings.Join(terms, " | ")
}

package hardware

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cklplan/cklplan/internal/jsonv"
)

// The dequantize → mma problem of hardware/dequant/dequant_mma.cu:
// Y (N×M) = X (N×K) · Wdq^T with int4 weights dequantized per group of 128 k.
const (
	DequantM = 4096
	DequantK = 16384
)

// DequantPlans are the whole plans the program times, in its order: the four
// plans of the example (fused with a shuffle conversion, with a shared-memory
// conversion, producing the mma fragment natively; unfused through global
// memory) and three variants (shuffling the packed words, shared memory
// without the swizzle, weights repacked offline in fragment order).
var DequantPlans = []string{"fused_shfl", "fused_smem", "fused_native", "unfused",
	"fused_shfl_packed", "fused_smem_conflict", "fused_native_prepacked"}

// A DequantRecord is what dequant_mma.cu writes to its JSON file: the device
// and every timing by key, each the median over repetitions of one whole
// launch (or launch pair) over the whole problem, in ns.
//
// Timing keys are "N<n>.split<s>.plan.<plan>" and "N<n>.split<s>.part.<part>"
// (split-K factor s), and "conv.<mechanism>.<where>.ns_per_tile" for the
// conversion loops (ns per 16×64 warp tile per SM, where = all_sms, one_sm,
// one_warp).
type DequantRecord struct {
	Device      string
	SMs         int
	CUDARuntime int
	Failures    int
	NS          map[string]float64
}

// DecodeDequantRecord reads a record; every problem is reported at its JSON
// path.
func DecodeDequantRecord(data []byte) (*DequantRecord, error) {
	v, err := jsonv.Parse(data, jsonv.Limits{})
	if err != nil {
		return nil, fmt.Errorf("dequant record: %w", err)
	}
	d := &jsonv.Decoder{}
	r := &DequantRecord{NS: map[string]float64{}}
	o := d.Object(v, jsonv.Root)
	if o != nil {
		r.Device = o.String("device", true)
		r.SMs = o.Int("sms", true)
		r.CUDARuntime = o.Int("cuda_runtime", true)
		r.Failures = o.Int("failures", true)
		if o.Has("sms") && r.SMs <= 0 {
			d.Report(jsonv.Root.Key("sms"), jsonv.Range, "want a positive number of SMs, have %d", r.SMs)
		}
		for _, k := range o.Keys() {
			if k == "device" || k == "sms" || k == "cuda_runtime" || k == "failures" {
				continue
			}
			fv, p := o.Field(k)
			if !validTimingKey(k) {
				d.Report(p, jsonv.Invalid, "unknown timing key %s (want N<n>.split<s>.plan.<plan>, N<n>.split<s>.part.<part> or conv.<mechanism>.<where>.ns_per_tile)", strconv.Quote(k))
				continue
			}
			ns, ok := d.Float(fv, p)
			if ok && !(ns > 0 && !math.IsInf(ns, 0)) {
				d.Report(p, jsonv.Range, "want a positive time in ns, have %v", ns)
			}
			r.NS[k] = ns
		}
		o.End()
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("dequant record: %w", err)
	}
	return r, nil
}

func validTimingKey(k string) bool {
	f := strings.Split(k, ".")
	if f[0] == "conv" {
		return len(f) == 4 && f[1] != "" && f[2] != "" && f[3] == "ns_per_tile"
	}
	if len(f) < 4 || (f[2] != "plan" && f[2] != "part") {
		return false
	}
	n, err1 := strconv.Atoi(strings.TrimPrefix(f[0], "N"))
	s, err2 := strconv.Atoi(strings.TrimPrefix(f[1], "split"))
	return strings.HasPrefix(f[0], "N") && strings.HasPrefix(f[1], "split") && err1 == nil && err2 == nil && n > 0 && s > 0
}

// get returns the timing of key, or an error naming the key.
func (r *DequantRecord) get(n, split int, kind, name string) (float64, error) {
	k := fmt.Sprintf("N%d.split%d.%s.%s", n, split, kind, name)
	ns, ok := r.NS[k]
	if !ok {
		return 0, fmt.Errorf("dequant record: no timing %s", strconv.Quote(k))
	}
	return ns, nil
}

// DequantTiles returns the multiplicities of the example's task graphs at N
// (examples/graphs/dequant_mma_n16.json and _n4096.json): 16×16 weight tiles
// handled inside the GEMM loop (once per 64 columns of Y, as the fused plans'
// 64-wide blocks do at N = 4096; one block covers N = 16), weight tiles handled
// once, and m16n8k16 mma tiles.
func DequantTiles(n int) (fused, once, mma int64) {
	once = DequantM / 16 * DequantK / 16
	fused = once * int64((n+63)/64)
	mma = DequantM / 16 * int64(n) / 8 * DequantK / 16
	return fused, once, mma
}

// MeasuredCosts is a measured-costs file the planner reads (version 1):
// ns per execution of an alternative's tile body and per moved tile of a
// conversion between two named distributions.
type MeasuredCosts struct {
	Version int `json:"version"`
	// Target is the built-in target of the GPU the record was measured on:
	// a plan on another target refuses the costs.
	Target       string                `json:"target"`
	Alternatives []MeasuredAlternative `json:"alternatives"`
	Conversions  []MeasuredConversion  `json:"conversions"`
}

// A MeasuredAlternative is the measured ns of one execution of a task's
// alternative.
type MeasuredAlternative struct {
	Task        string  `json:"task"`
	Alternative string  `json:"alternative"`
	NS          float64 `json:"ns"`
}

// A MeasuredConversion is the measured ns of moving one tile from Source to
// Target.
type MeasuredConversion struct {
	Source string  `json:"source"`
	Target string  `json:"target"`
	NS     float64 `json:"ns"`
}

// DequantOnceSplit is the split-K factor of the N = 16 run whose load of
// the packed weights (each read once, from device memory) costs the unfused
// plan's load: there every weight is read exactly once.
const DequantOnceSplit = 16

// Measured derives the planner's per-tile costs at N from the timings of
// split-K factor split (and, for the load that happens once, of N = 16 at
// DequantOnceSplit). Every ns is SM time per tile: the whole-problem time
// times the SM count over the multiplicity, so that a plan's costs times
// their multiplicities, summed and divided by the SM count, give its time.
//
// The costs are marginal costs inside the fused kernel, not parts timed
// alone: with m the mma loop alone, b the fused kernel with the blocked load
// and dequantization but no conversion, and l the blocked load alone,
//
//	ld_in_gemm = l; fused_blocked = fused_native = b − m − l; a_in_registers = m;
//	a_blocked_f16 → mma.a = (the shared-memory plan) − b, the cheapest mechanism;
//	w_u4_ld → mma.a (the native plan's loads of its own fragment) = (the native plan) − b;
//	ld_once = l at N = 16; standalone = (the dequantize kernel) − ld_once;
//	a_from_global = (the f16 GEMM kernel);
//	load_x and store_y = 0: the mma loop and the GEMM kernels read X and
//	write Y, so their times hold those loads and stores already.
//
// So the fused plans' costs add up to their measured times exactly, and the
// unfused plan's to the sum of its two kernels timed one by one. A negative
// marginal (noise) is clamped to 0.
func (r *DequantRecord) Measured(n, split int) (*MeasuredCosts, error) {
	var errs []error
	get := func(n, split int, kind, name string) float64 {
		ns, err := r.get(n, split, kind, name)
		if err != nil {
			errs = append(errs, err)
		}
		return ns
	}
	m := get(n, split, "part", "mma_loop")
	b := get(n, split, "part", "no_conversion.blocked")
	l := get(n, split, "part", "load.blocked")
	smem := get(n, split, "plan", "fused_smem")
	shfl := get(n, split, "plan", "fused_shfl")
	native := get(n, split, "plan", "fused_native")
	deq := get(n, split, "part", "unfused.dequant_kernel")
	f16 := get(n, split, "part", "unfused.gemm_f16")
	once := get(16, DequantOnceSplit, "part", "load.blocked")
	if len(errs) > 0 {
		return nil, errs[0]
	}
	fused, onceTiles, mma := DequantTiles(n)
	per := func(ns float64, tiles int64) float64 {
		v := max(ns, 0) * float64(r.SMs) / float64(tiles)
		return math.Round(v*1e4) / 1e4
	}
	if !strings.Contains(r.Device, "H200") {
		return nil, fmt.Errorf("dequant record: measured on %q: only the H200 (target h200) has a built-in target here", r.Device)
	}
	return &MeasuredCosts{
		Version: 1,
		Target:  "h200",
		Alternatives: []MeasuredAlternative{
			{"dequantize", "fused_blocked", per(b-m-l, fused)},
			{"dequantize", "fused_native", per(b-m-l, fused)},
			{"dequantize", "standalone", per(deq-once, onceTiles)},
			{"load_w", "ld_in_gemm", per(l, fused)},
			{"load_w", "ld_once", per(once, onceTiles)},
			{"load_x", "ldmatrix_trans", 0},
			{"mma", "a_from_global", per(f16, mma)},
			{"mma", "a_in_registers", per(m, mma)},
			{"store_y", "st_global", 0},
		},
		Conversions: []MeasuredConversion{
			{"a_blocked_f16", "mma.m16n8k16.a.f16", per(min(smem, shfl)-b, fused)},
			{"w_u4_ld", "mma.m16n8k16.a.f16", per(native-b, fused)},
		},
	}, nil
}

// A DequantRow compares one plan's measured time with the additive model
// built from parts timed alone (Isolated: the producer kernel — load,
// dequantize, convert, no mma — plus the mma loop; or the two unfused
// kernels one by one). For the plans with a conversion it also gives the
// conversion's cost inside the kernel (InKernel: the plan minus the kernel
// without its conversion) beside the prediction of the steady-state
// conversion loop (Loop: its ns per warp tile per SM on all SMs, times the
// 16×64 warp tiles per SM); both are 0 for the plans without one.
type DequantRow struct {
	Plan               string
	Measured, Isolated float64
	InKernel, Loop     float64
}

// dequantLoop names the conversion loop of each plan with a conversion.
var dequantLoop = map[string]string{"fused_shfl": "shfl", "fused_smem": "smem",
	"fused_smem_conflict": "smem_conflict", "fused_shfl_packed": "shfl_packed"}

// Compare returns a row per plan of DequantPlans at N and split, in ns.
func (r *DequantRecord) Compare(n, split int) ([]DequantRow, error) {
	var errs []error
	get := func(kind, name string) float64 {
		ns, err := r.get(n, split, kind, name)
		if err != nil {
			errs = append(errs, err)
		}
		return ns
	}
	m := get("part", "mma_loop")
	isolated := map[string]float64{
		"fused_shfl":             get("part", "producer.fused_shfl") + m,
		"fused_smem":             get("part", "producer.fused_smem") + m,
		"fused_native":           get("part", "load_dequant.native") + m,
		"unfused":                get("part", "unfused.dequant_kernel") + get("part", "unfused.gemm_f16"),
		"fused_shfl_packed":      get("part", "producer.fused_shfl_packed") + m,
		"fused_smem_conflict":    get("part", "producer.fused_smem_conflict") + m,
		"fused_native_prepacked": get("part", "load_dequant.prepacked") + m,
	}
	fused, _, _ := DequantTiles(n)
	warpTilesPerSM := float64(fused/4) / float64(r.SMs)
	var rows []DequantRow
	for _, p := range DequantPlans {
		row := DequantRow{Plan: p, Measured: get("plan", p), Isolated: isolated[p]}
		if c, ok := dequantLoop[p]; ok {
			base := get("part", "no_conversion.blocked")
			if p == "fused_shfl_packed" {
				base = get("part", "no_conversion.shfl_packed")
			}
			k := "conv." + c + ".all_sms.ns_per_tile"
			loop, ok := r.NS[k]
			if !ok {
				errs = append(errs, fmt.Errorf("dequant record: no timing %s", strconv.Quote(k)))
			}
			row.InKernel, row.Loop = row.Measured-base, loop*warpTilesPerSM
		}
		rows = append(rows, row)
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return rows, nil
}

// Fastest returns the plan with the least time under f among the first k
// rows (k = 4: the example's four plans), ties to the earlier row.
func Fastest(rows []DequantRow, k int, f func(DequantRow) float64) string {
	rows = rows[:min(k, len(rows))]
	i := 0
	for j := range rows {
		if f(rows[j]) < f(rows[i]) {
			i = j
		}
	}
	return rows[i].Plan
}

// Splits returns the split-K factors the record holds for N, ascending.
func (r *DequantRecord) Splits(n int) []int {
	seen := map[int]bool{}
	for k := range r.NS {
		f := strings.Split(k, ".")
		if f[0] != fmt.Sprintf("N%d", n) || len(f) < 2 {
			continue
		}
		if s, err := strconv.Atoi(strings.TrimPrefix(f[1], "split")); err == nil {
			seen[s] = true
		}
	}
	var out []int
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

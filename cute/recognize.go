package cute

// recognizeLimit bounds the magnitude of the values Recognize accepts, so that
// its arithmetic, and that of the layout it returns, cannot overflow.
const recognizeLimit = 1 << 60

// Recognize decides whether values, read as a function g on [0, n) with
// n = len(values), is a layout of some flat shape of size n, and if so returns
// the coarsest such layout, flat and in CuTe order (first mode fastest, no
// modes of size 1 unless n = 1, which gives 1:0). A single mode is returned
// as an integral layout, e.g. 4:1 rather than (4):(1).
//
// Values are integers, negative ones included; values[0] must be 0, since
// every layout maps 0 to 0. Recognize reports false for an empty slice, a
// nonzero values[0], and values beyond ±2^60.
//
// The test is the O(n) scan over first differences h(t) = g(t) - g(t-1) of
// Theorem 1 of "A Simplified Layout Algebra for GPU Kernels": scanning t = 1..n-1, a nonzero residual ρ(t) must sit at a
// divisor t of n that is a multiple of the last recorded t; it is recorded
// with a_t = ρ(t) and subtracted from ρ at every multiple of t. The recorded
// points with 1 form the chain 1 = w_1 | w_2 | … | w_k of the shape
// m_j = w_{j+1}/w_j (w_{k+1} = n), and the strides are g(w_j).
func Recognize(values []int) (Layout, bool) {
	n := len(values)
	if n == 0 || values[0] != 0 {
		return Layout{}, false
	}
	for _, v := range values {
		if v < -recognizeLimit || v > recognizeLimit {
			return Layout{}, false
		}
	}
	if n == 1 {
		return Layout{}.norm(), true
	}
	rho := make([]int, n)
	for t := 1; t < n; t++ {
		rho[t] = values[t] - values[t-1]
	}
	chain := []int{1}
	last := 1
	for t := 1; t < n; t++ {
		a := rho[t]
		if a == 0 {
			continue
		}
		if n%t != 0 || t%last != 0 {
			return Layout{}, false
		}
		if t > 1 {
			chain = append(chain, t)
		}
		last = t
		for u := t; u < n; u += t {
			r := rho[u] - a
			if r < -limit || r > limit {
				return Layout{}, false // no layout within range has such differences
			}
			rho[u] = r
		}
	}
	k := len(chain)
	shape, stride := make([]int, k), make([]int, k)
	for j, w := range chain {
		next := n
		if j+1 < k {
			next = chain[j+1]
		}
		shape[j] = next / w
		stride[j] = values[w]
	}
	l, err := New(Ints(shape...), Ints(stride...))
	if err != nil {
		return Layout{}, false
	}
	return l, true
}

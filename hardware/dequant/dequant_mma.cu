// dequant_mma.cu: the dequantize -> mma example on an sm_90 GPU, as real kernels.
//
// Problem: Y[n][m] = sum_k X[n][k] * Wdq[m][k], M = 4096, K = 16384, N = 16 or 4096.
//   W    int4 weights, stored transposed and packed: row m holds K/8 32-bit words, word w
//        holds k = 8w..8w+7, k = 8w+j in bits 4j..4j+3 (value q in 0..15, zero point 8).
//   S    f16 scales, one per (m, group of 128 k): S[m * K/128 + k/128].
//   Wdq  = (q - 8) * s, rounded once to f16 (every plan computes exactly this value).
//   X    f16 activations, row-major N x K (k contiguous).
//   Y    f32, row-major N x M (so Y^T = Wdq X^T is the mma's D with A = Wdq, B = X^T).
//
// The GEMM is mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 with the weights as A.
// A block is 8 warps and computes a 128 (m) x BN (n) tile of Y; warp w owns rows 16w..16w+15
// of it and all BN columns, so no two warps need the same weights. The k loop steps by 64:
// per step each warp needs four A fragments (a 16 x 64 "warp tile" of weights), and the
// block reads the BN x 64 slice of X through shared memory (cp.async, two stages, swizzled)
// and ldmatrix.x4. Plans differ only in how the warp tile reaches the A fragments:
//
//   shfl         load the packed tile in a blocked distribution (lane l: row (l/4) + 8*((l%4)/2),
//                k 32*(l%2) .. +32, one 16-byte load), dequantize there (16 f16x2 registers),
//                then move to the fragments with 16 shuffle rounds and selects on both sides.
//   shfl_packed  the same blocked load, but the shuffles move the packed words (16 rounds, no
//                selects); each lane then dequantizes exactly its fragment's nibbles.
//   smem         blocked load and dequantize, 4 st.shared.v4 into a swizzled 16 x 64 f16 tile,
//                __syncwarp, 4 ldmatrix.x4 (the store/barrier/load conversion).
//   smem_conflict the same with no swizzle (4-way conflicts on the stores, 8-way on ldmatrix).
//   native       each lane loads the packed words that hold its own fragment elements (rows
//                l/4 and l/4+8, 4 x 16-byte loads; the 4 lanes of a quad load the same words)
//                and dequantizes in place: no conversion.
//   native_prepacked  the weights repacked offline in fragment order (lane l's 32-bit word
//                holds its a0..a7 of one 16x16 tile): one coalesced 16-byte load, no conversion.
//                A different global layout, so a different load task; reported beside the plans.
//   unfused      a dequantize kernel writes Wdq (f16, M x K) to global memory, then the GEMM
//                reads it with cp.async into swizzled shared memory and ldmatrix.x4.
//
// Part timings come from the same kernel with stages switched off (MODE flags): the producer
// alone (load, dequantize, convert; no mma), load and dequantize alone, the load alone, the mma
// loop alone (constant A fragments, X still read), and the full kernel without its conversion
// (wrong fragments: the negative control of the check). Conversions alone are timed in a
// steady-state loop (convloop) over all SMs, on one SM, and for one warp.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o dequant_mma dequant_mma.cu
// Run:   ./dequant_mma [JSON_OUT]   (exit 1 when a check fails)

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)

constexpr int M = 4096, K = 16384, G = 128;
constexpr int KW = K / 8;    // packed words per row
constexpr int KG = K / G;    // scale groups per row
constexpr int BM = 128, BK = 64, THREADS = 256;
constexpr int KC = K / BK;   // k steps

enum Plan { SHFL, SHFL_PACKED, SMEM, SMEM_CONFLICT, NATIVE, NATIVE_PREPACKED, F16 };
enum { LOADF = 1, DEQF = 2, CONVF = 4, MMAF = 8 };
constexpr int FULL = LOADF | DEQF | CONVF | MMAF;
constexpr int NOCONV = LOADF | DEQF | MMAF;
constexpr int MMAONLY = MMAF;
constexpr int PRODUCER = LOADF | DEQF | CONVF;
constexpr int LOADDEQ = LOADF | DEQF;
constexpr int LOADONLY = LOADF;

// ---------------------------------------------------------------- device helpers

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
__device__ __forceinline__ void sts128(uint32_t addr, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  asm volatile("st.shared.v4.b32 [%0], {%1,%2,%3,%4};\n" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d)
               : "memory");
}
__device__ __forceinline__ void mma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ uint32_t comp(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}
__device__ __forceinline__ uint32_t sel4(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, int i) {
  return i == 0 ? x0 : i == 1 ? x1 : i == 2 ? x2 : x3;
}
__device__ __forceinline__ uint32_t h2u(__half2 h) { return *reinterpret_cast<uint32_t*>(&h); }
__device__ __forceinline__ __half2 u2h(uint32_t u) { return *reinterpret_cast<__half2*>(&u); }

// Nibbles 2p and 2p+1 of w (k = 8w'+2p, +1) as f16x2 {(q0-8)*s, (q1-8)*s}: 1024+q is exact in
// f16, so is (1024+q)-1032 = q-8, and the product is rounded once, as the reference does.
__device__ __forceinline__ uint32_t dq2(uint32_t w, int p, __half2 s) {
  const uint32_t t = w >> (8 * p);
  const uint32_t h = (t & 0x0000000fu) | ((t << 12) & 0x000f0000u) | 0x64006400u;
  const __half2 x = __hsub2(u2h(h), __float2half2_rn(1032.0f));
  return h2u(__hmul2(x, s));
}

// Swizzle of the warp's 16 x 64 f16 conversion tile (rows of 128 bytes, 8 chunks of 16 bytes):
// chunk c of row r lives at chunk c ^ swz(r). The blocked stores (rows r, r+8 in one phase) and
// the ldmatrix phases (8 consecutive rows) then touch 8 distinct chunks.
template <bool SWZ>
__device__ __forceinline__ int swz(int row) {
  return SWZ ? ((row & 7) ^ ((row >> 3) << 1)) : 0;
}

struct AReg {  // a plan loads only some of these; the rest stay zero
  uint4 w[4] = {};
  __half s[2] = {};
};

// Loads the packed warp tile (rows m0..m0+15, k step kc) in the plan's distribution.
template <int P>
__device__ __forceinline__ void loadA(AReg& a, const uint32_t* __restrict__ W, const __half* __restrict__ S,
                                      int m0, int kc, int lane) {
  const int g = lane >> 2, q = lane & 3, kw0 = kc * (BK / 8), kg = (kc * BK) / G;
  if constexpr (P == NATIVE) {
    const uint4* r0 = reinterpret_cast<const uint4*>(W + size_t(m0 + g) * KW + kw0);
    const uint4* r1 = reinterpret_cast<const uint4*>(W + size_t(m0 + g + 8) * KW + kw0);
    a.w[0] = __ldg(r0);
    a.w[1] = __ldg(r0 + 1);
    a.w[2] = __ldg(r1);
    a.w[3] = __ldg(r1 + 1);
    a.s[0] = S[(m0 + g) * KG + kg];
    a.s[1] = S[(m0 + g + 8) * KG + kg];
  } else if constexpr (P == NATIVE_PREPACKED) {
    a.w[0] = __ldg(reinterpret_cast<const uint4*>(W + (size_t((m0 >> 4) * KC + kc) * 32 + lane) * 4));
    a.s[0] = S[(m0 + g) * KG + kg];
    a.s[1] = S[(m0 + g + 8) * KG + kg];
  } else if constexpr (P != F16) {
    const int row = m0 + g + 8 * (q >> 1);
    a.w[0] = __ldg(reinterpret_cast<const uint4*>(W + size_t(row) * KW + kw0 + 4 * (q & 1)));
    if constexpr (P == SHFL_PACKED) {
      a.s[0] = S[(m0 + g) * KG + kg];
      a.s[1] = S[(m0 + g + 8) * KG + kg];
    } else {
      a.s[0] = S[row * KG + kg];
    }
  }
}

// Dequantize (and convert) the loaded warp tile into the four A fragments f[t][0..3] of the k
// sub-steps t = 0..3 (a0a1, a2a3, a4a5, a6a7 of mma.m16n8k16). Without DQ the raw words stand in
// for the f16 values (one shift each); without CV the values stay where the load put them (the
// fragments are then wrong: the check catches it).
template <int P, bool DQ, bool CV>
__device__ __forceinline__ void makeFrag(uint32_t (&f)[4][4], const AReg& a, uint32_t wsm, int lane) {
  const int g = lane >> 2, q = lane & 3;
  if constexpr (P == SHFL || P == SMEM || P == SMEM_CONFLICT) {
    // Blocked: R[4i+p] = k 32h + 8i + 2p, +1 of row g + 8(q/2), h = q%2.
    uint32_t R[16];
    const __half2 s = __half2half2(a.s[0]);
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
      for (int p = 0; p < 4; p++) R[4 * i + p] = DQ ? dq2(comp(a.w[0], i), p, s) : comp(a.w[0], i) >> (8 * p);
    if constexpr (!CV) {
#pragma unroll
      for (int j = 0; j < 16; j++) f[j >> 2][j & 3] = R[j];
    } else if constexpr (P == SHFL) {
      // Round (a, b): lane q reads the lane of its quad whose source index is a' = (a+q)%4
      // (source a' holds row g + 8(a'/2), k half a'%2); the sender sends its register
      // 4b + ((q_s - a)%4), the one its reader needs. The reader files it at k step
      // t = 2(a'%2) + b/2, fragment register (a'/2) + 2(b%2).
#pragma unroll
      for (int b = 0; b < 4; b++) {
        uint32_t v[4];
#pragma unroll
        for (int a2 = 0; a2 < 4; a2++) {
          const uint32_t send = sel4(R[4 * b], R[4 * b + 1], R[4 * b + 2], R[4 * b + 3], (q - a2) & 3);
          v[a2] = __shfl_sync(0xffffffffu, send, (lane & ~3) | ((a2 + q) & 3));
        }
#pragma unroll
        for (int ap = 0; ap < 4; ap++)
          f[2 * (ap & 1) + (b >> 1)][(ap >> 1) + 2 * (b & 1)] = sel4(v[0], v[1], v[2], v[3], (ap - q) & 3);
      }
    } else {
      constexpr bool S = P == SMEM;
      const int rho = g + 8 * (q >> 1), h = q & 1;
      __syncwarp();
#pragma unroll
      for (int i = 0; i < 4; i++)
        sts128(wsm + rho * 128 + (((4 * h + i) ^ swz<S>(rho)) << 4), R[4 * i], R[4 * i + 1], R[4 * i + 2],
               R[4 * i + 3]);
      __syncwarp();
      const int row = lane & 15;
#pragma unroll
      for (int t = 0; t < 4; t++) ldmatrix_x4(f[t], wsm + row * 128 + (((2 * t + (lane >> 4)) ^ swz<S>(row)) << 4));
    }
  } else if constexpr (P == SHFL_PACKED) {
    // Source lane 4g+a' holds words w = 0..3 of row g + 8(a'/2), k 32(a'%2) + 8w. Every lane of
    // the quad reads the same (lane, register): a broadcast, no select.
    const __half2 s0 = __half2half2(a.s[0]), s1 = __half2half2(a.s[1]);
#pragma unroll
    for (int ap = 0; ap < 4; ap++)
#pragma unroll
      for (int w = 0; w < 4; w++) {
        const uint32_t word = CV ? __shfl_sync(0xffffffffu, comp(a.w[0], w), (lane & ~3) | ap) : comp(a.w[0], w);
        f[2 * (ap & 1) + (w >> 1)][(ap >> 1) + 2 * (w & 1)] =
            DQ ? dq2(word, q, (ap >> 1) ? s1 : s0) : word >> (8 * q);
      }
  } else if constexpr (P == NATIVE) {
    // w[0], w[1]: row g words 0..7; w[2], w[3]: row g+8. Pair q of word 2t is a0a1 / a2a3,
    // of word 2t+1 a4a5 / a6a7.
    const __half2 s0 = __half2half2(a.s[0]), s1 = __half2half2(a.s[1]);
#pragma unroll
    for (int t = 0; t < 4; t++) {
      const uint32_t g0 = comp(a.w[t >> 1], 2 * (t & 1)), g1 = comp(a.w[t >> 1], 2 * (t & 1) + 1);
      const uint32_t h0 = comp(a.w[2 + (t >> 1)], 2 * (t & 1)), h1 = comp(a.w[2 + (t >> 1)], 2 * (t & 1) + 1);
      f[t][0] = DQ ? dq2(g0, q, s0) : g0 >> (8 * q);
      f[t][1] = DQ ? dq2(h0, q, s1) : h0 >> (8 * q);
      f[t][2] = DQ ? dq2(g1, q, s0) : g1 >> (8 * q);
      f[t][3] = DQ ? dq2(h1, q, s1) : h1 >> (8 * q);
    }
  } else if constexpr (P == NATIVE_PREPACKED) {
    const __half2 s0 = __half2half2(a.s[0]), s1 = __half2half2(a.s[1]);
#pragma unroll
    for (int t = 0; t < 4; t++)
#pragma unroll
      for (int r = 0; r < 4; r++) f[t][r] = DQ ? dq2(comp(a.w[0], t), r, (r & 1) ? s1 : s0) : comp(a.w[0], t) >> (8 * r);
  }
}

// The GEMM. Grid (M/BM, N/BN, split); block z sums k steps z*kIters .. +kIters (atomicAdd when
// split > 1). D: how many k steps ahead the packed weights are loaded into registers.
template <int P, int MODE, int BN, int D>
__global__ void __launch_bounds__(THREADS) gemm(const uint32_t* __restrict__ W, const __half* __restrict__ S,
                                                const __half* __restrict__ Wf, const __half* __restrict__ X,
                                                float* __restrict__ Y, int kIters, int atomic) {
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr bool L = MODE & LOADF, DQ = MODE & DEQF, CV = MODE & CONVF, MM = MODE & MMAF;
  constexpr int BSTAGE = BN * BK * 2, ASTAGE = P == F16 ? BM * BK * 2 : 0, STAGE = ASTAGE + BSTAGE;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int mblk = blockIdx.x * BM, m0 = mblk + warp * 16, n0 = blockIdx.y * BN, kc0 = blockIdx.z * kIters;
  const uint32_t sbase = smem_addr(smem), wsm = sbase + 2 * STAGE + warp * 2048;

  float acc[BN / 8][4];
#pragma unroll
  for (int i = 0; i < BN / 8; i++) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
  uint32_t f[4][4];
  uint32_t sink = 0;

  auto issue = [&](int it) {
    if (it < kIters) {
      const uint32_t st = sbase + (it & 1) * STAGE;
      const int k0 = (kc0 + it) * BK;
      if constexpr (P == F16) {
#pragma unroll
        for (int j = 0; j < BM * 8 / THREADS; j++) {
          const int idx = tid + j * THREADS, r = idx >> 3, c = idx & 7;
          cp_async16(st + r * 128 + ((c ^ (r & 7)) << 4), Wf + size_t(mblk + r) * K + k0 + 8 * c);
        }
      }
#pragma unroll
      for (int j = 0; j < (BN * 8 + THREADS - 1) / THREADS; j++) {
        const int idx = tid + j * THREADS, n = idx >> 3, c = idx & 7;
        if (idx < BN * 8) cp_async16(st + ASTAGE + n * 128 + ((c ^ (n & 7)) << 4), X + size_t(n0 + n) * K + k0 + 8 * c);
      }
    }
    cp_async_commit();
  };

  AReg ar[D];
  if constexpr (L && P != F16) {
#pragma unroll
    for (int s = 0; s < D; s++)
      if (s < kIters) loadA<P>(ar[s], W, S, m0, kc0 + s, lane);
  }
  if constexpr (!L && P != F16) {
#pragma unroll
    for (int t = 0; t < 4; t++)
#pragma unroll
      for (int r = 0; r < 4; r++) f[t][r] = 0x3c003c00u ^ ((lane * 4 + t * 16 + r) << 2);  // near 1.0
  }
  if constexpr (MM) issue(0);

  for (int it0 = 0; it0 < kIters; it0 += D) {
#pragma unroll
    for (int s = 0; s < D; s++) {
      const int it = it0 + s;
      if constexpr (L && P != F16) {
        const AReg cur = ar[s];
        if (it + D < kIters) loadA<P>(ar[s], W, S, m0, kc0 + it + D, lane);
        if constexpr (DQ || CV || MM) {
          makeFrag<P, DQ, CV>(f, cur, wsm, lane);
        } else {
#pragma unroll
          for (int i = 0; i < 4; i++) sink ^= cur.w[i].x ^ cur.w[i].y ^ cur.w[i].z ^ cur.w[i].w;
        }
      }
      if constexpr (MM) {
        issue(it + 1);
        cp_async_wait<1>();
        __syncthreads();
        const uint32_t st = sbase + (it & 1) * STAGE;
        if constexpr (P == F16) {
          const int row = warp * 16 + (lane & 15);
#pragma unroll
          for (int t = 0; t < 4; t++) ldmatrix_x4(f[t], st + row * 128 + (((2 * t + (lane >> 4)) ^ (row & 7)) << 4));
        }
#pragma unroll
        for (int t = 0; t < 4; t++)
#pragma unroll
          for (int np = 0; np < BN / 16; np++) {
            const int n = 16 * np + (lane & 7) + 8 * (lane >> 4), c = 2 * t + ((lane >> 3) & 1);
            uint32_t b[4];
            ldmatrix_x4(b, st + ASTAGE + n * 128 + ((c ^ (n & 7)) << 4));
            mma16816(acc[2 * np], f[t], b[0], b[1]);
            mma16816(acc[2 * np + 1], f[t], b[2], b[3]);
          }
        __syncthreads();
      } else if constexpr (DQ || CV) {
#pragma unroll
        for (int t = 0; t < 4; t++) sink ^= f[t][0] ^ f[t][1] ^ f[t][2] ^ f[t][3];
      }
    }
  }
  if constexpr (MM) {
    cp_async_wait<0>();
    const int g = lane >> 2, q = lane & 3;
#pragma unroll
    for (int nt = 0; nt < BN / 8; nt++)
#pragma unroll
      for (int v = 0; v < 4; v++) {
        const int m = m0 + g + 8 * (v >> 1), n = n0 + 8 * nt + 2 * q + (v & 1);
        if (atomic)
          atomicAdd(Y + size_t(n) * M + m, acc[nt][v]);
        else
          Y[size_t(n) * M + m] = acc[nt][v];
      }
  } else {
    if (sink == 0x9e3779b9u) Y[blockIdx.x * THREADS + tid] = 1.0f;  // keeps the work alive
  }
}

// The unfused plan's first kernel: Wdq = dequantize(W), f16 to global memory. Thread per packed
// word: reads 4 bytes, writes 16 (coalesced on both sides).
__global__ void dequant_kernel(const uint32_t* __restrict__ W, const __half* __restrict__ S, __half* __restrict__ Wf) {
  const size_t total = size_t(M) * KW;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < total; i += size_t(gridDim.x) * blockDim.x) {
    const uint32_t w = __ldg(W + i);
    const int m = int(i / KW), kw = int(i % KW);
    const __half2 s = __half2half2(S[m * KG + kw * 8 / G]);
    uint4 o;
    o.x = dq2(w, 0, s);
    o.y = dq2(w, 1, s);
    o.z = dq2(w, 2, s);
    o.w = dq2(w, 3, s);
    reinterpret_cast<uint4*>(Wf)[i] = o;
  }
}

// ---------------------------------------------------------------- inputs and reference

__device__ __forceinline__ uint32_t hash32(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return uint32_t((x ^ (x >> 31)) >> 16);
}
__global__ void fill_words(uint32_t* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = hash32(seed * 0x100000000ull + i) ^ (hash32(seed * 0x100000000ull + i + 0x5555) << 16);
}
// uniform in [lo, hi)
__global__ void fill_half(__half* p, size_t n, uint64_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = __float2half_rn(lo + (hi - lo) * (hash32(seed * 0x100000000ull + i) & 0xffffff) / 16777216.0f);
}
__global__ void fill_float(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = v;
}
// Reference dequantization, element by element, written independently of dq2.
__global__ void ref_dequant(const uint32_t* __restrict__ W, const __half* __restrict__ S, __half* __restrict__ R) {
  const size_t total = size_t(M) * K;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < total; i += size_t(gridDim.x) * blockDim.x) {
    const int m = int(i / K), k = int(i % K);
    const int qv = int((W[size_t(m) * KW + k / 8] >> (4 * (k % 8))) & 15u);
    R[i] = __hmul(__int2half_rn(qv - 8), S[m * KG + k / G]);
  }
}
// The fragment-order packing: word ((mt*KC + kc)*32 + lane)*4 + t holds lane's a0..a7 of the
// 16x16 tile (rows 16mt.., k 64kc + 16t ..): nibble 2r+e = row 16mt + g + 8(r%2), k .. + 8(r/2) + 2q + e.
__global__ void repack(const uint32_t* __restrict__ W, uint32_t* __restrict__ Wp) {
  const size_t total = size_t(M) * KW;
  for (size_t o = blockIdx.x * size_t(blockDim.x) + threadIdx.x; o < total; o += size_t(gridDim.x) * blockDim.x) {
    const int t = int(o & 3), lane = int((o >> 2) & 31);
    const size_t tile = o >> 7;
    const int kc = int(tile % KC), mt = int(tile / KC), g = lane >> 2, q = lane & 3;
    uint32_t word = 0;
    for (int r = 0; r < 4; r++)
      for (int e = 0; e < 2; e++) {
        const int m = 16 * mt + g + 8 * (r & 1), k = 64 * kc + 16 * t + 8 * (r >> 1) + 2 * q + e;
        const uint32_t nib = (W[size_t(m) * KW + k / 8] >> (4 * (k % 8))) & 15u;
        word |= nib << (4 * (2 * r + e));
      }
    Wp[o] = word;
  }
}
// Yref[i][m] = sum_k R[m][k] X[nlist[i]][k] in double; a warp per m.
__global__ void ref_gemm(const __half* __restrict__ R, const __half* __restrict__ X, const int* __restrict__ nlist,
                         int nS, double* __restrict__ Yref) {
  const int lane = threadIdx.x & 31, m = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
  if (m >= M) return;
  for (int c = 0; c < nS; c += 8) {
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = lane; k < K; k += 32) {
      const double w = __half2float(R[size_t(m) * K + k]);
#pragma unroll
      for (int j = 0; j < 8; j++)
        if (c + j < nS) acc[j] += w * double(__half2float(X[size_t(nlist[c + j]) * K + k]));
    }
#pragma unroll
    for (int j = 0; j < 8; j++) {
      double v = acc[j];
      for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
      if (lane == 0 && c + j < nS) Yref[size_t(c + j) * M + m] = v;
    }
  }
}
__global__ void count_mismatch_half(const __half* a, const __half* b, size_t n, unsigned long long* bad) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    local += __half_as_ushort(a[i]) != __half_as_ushort(b[i]);
  if (local) atomicAdd(bad, local);
}
__global__ void count_nan(const float* y, size_t n, unsigned long long* bad) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    local += isnan(y[i]) ? 1 : 0;
  if (local) atomicAdd(bad, local);
}

// ---------------------------------------------------------------- conversion alone

// A steady-state loop of one conversion of the 16 x 64 warp tile from the blocked distribution
// to the four A fragments: the output is renamed back into the input (no other work), so the
// loop is the conversion alone. CONV_NONE is the empty loop. SHFL_PACKED converts 4 packed
// words per lane (16 broadcast rounds) and folds the 16 received words back into 4 (8 LOP3).
enum { CONV_NONE = 100 };
template <int C>
__global__ void __launch_bounds__(THREADS) convloop(uint32_t* out, int iters) {
  __shared__ __align__(128) unsigned char sm[8 * 2048];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint32_t wsm = smem_addr(sm) + warp * 2048;
  uint32_t f[4][4];
  AReg a;
  a.w[0] = make_uint4(lane * 0x01010101u, lane ^ 0x5a5a5a5au, lane * 7u, ~lane);
  a.s[0] = a.s[1] = __float2half(1.0f);
#pragma unroll
  for (int j = 0; j < 16; j++) f[j >> 2][j & 3] = (lane << 8) ^ (j * 0x01000193u);
  for (int it = 0; it < iters; it++) {
    if constexpr (C == SHFL || C == SMEM || C == SMEM_CONFLICT) {
      // The blocked registers of this round are the fragments of the last one (a renaming).
      uint32_t R[16];
#pragma unroll
      for (int j = 0; j < 16; j++) R[j] = f[j >> 2][j & 3];
      const int g = lane >> 2, q = lane & 3;
      if constexpr (C == SHFL) {
#pragma unroll
        for (int b = 0; b < 4; b++) {
          uint32_t v[4];
#pragma unroll
          for (int a2 = 0; a2 < 4; a2++) {
            const uint32_t send = sel4(R[4 * b], R[4 * b + 1], R[4 * b + 2], R[4 * b + 3], (q - a2) & 3);
            v[a2] = __shfl_sync(0xffffffffu, send, (lane & ~3) | ((a2 + q) & 3));
          }
#pragma unroll
          for (int ap = 0; ap < 4; ap++)
            f[2 * (ap & 1) + (b >> 1)][(ap >> 1) + 2 * (b & 1)] = sel4(v[0], v[1], v[2], v[3], (ap - q) & 3);
        }
      } else {
        constexpr bool S = C == SMEM;
        const int rho = g + 8 * (q >> 1), h = q & 1;
        __syncwarp();
#pragma unroll
        for (int i = 0; i < 4; i++)
          sts128(wsm + rho * 128 + (((4 * h + i) ^ swz<S>(rho)) << 4), R[4 * i], R[4 * i + 1], R[4 * i + 2],
                 R[4 * i + 3]);
        __syncwarp();
        const int row = lane & 15;
#pragma unroll
        for (int t = 0; t < 4; t++)
          ldmatrix_x4(f[t], wsm + row * 128 + (((2 * t + (lane >> 4)) ^ swz<S>(row)) << 4));
      }
    } else if constexpr (C == SHFL_PACKED) {
      uint32_t o[4] = {0, 0, 0, 0};
#pragma unroll
      for (int ap = 0; ap < 4; ap++)
#pragma unroll
        for (int w = 0; w < 4; w++) o[w] ^= __shfl_sync(0xffffffffu, comp(a.w[0], w), (lane & ~3) | ap);
      a.w[0] = make_uint4(o[0], o[1], o[2], o[3]);
    }
  }
  uint32_t x = a.w[0].x ^ a.w[0].y ^ a.w[0].z ^ a.w[0].w;
#pragma unroll
  for (int j = 0; j < 16; j++) x ^= f[j >> 2][j & 3];
  out[blockIdx.x * THREADS + threadIdx.x] = x;
}

// Checks the conversions themselves: each lane's fragment registers must hold the tile elements
// mma.m16n8k16's A fragment assigns to it, starting from the blocked distribution. Element
// (row, k) of the 16 x 64 tile is encoded as the 16-bit value row*64 + k.
template <int C>
__global__ void convcheck(unsigned* bad) {
  __shared__ __align__(128) unsigned char sm[8 * 2048];
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const uint32_t wsm = smem_addr(sm) + (threadIdx.x >> 5) * 2048;
  const int rho = g + 8 * (q >> 1), h = q & 1;
  uint32_t f[4][4];
  uint32_t R[16];
#pragma unroll
  for (int i = 0; i < 4; i++)
#pragma unroll
    for (int p = 0; p < 4; p++) {
      const int k = 32 * h + 8 * i + 2 * p;
      R[4 * i + p] = uint32_t(rho * 64 + k) | (uint32_t(rho * 64 + k + 1) << 16);
    }
  if constexpr (C == SHFL) {
#pragma unroll
    for (int b = 0; b < 4; b++) {
      uint32_t v[4];
#pragma unroll
      for (int a2 = 0; a2 < 4; a2++) {
        const uint32_t send = sel4(R[4 * b], R[4 * b + 1], R[4 * b + 2], R[4 * b + 3], (q - a2) & 3);
        v[a2] = __shfl_sync(0xffffffffu, send, (lane & ~3) | ((a2 + q) & 3));
      }
#pragma unroll
      for (int ap = 0; ap < 4; ap++)
        f[2 * (ap & 1) + (b >> 1)][(ap >> 1) + 2 * (b & 1)] = sel4(v[0], v[1], v[2], v[3], (ap - q) & 3);
    }
  } else if constexpr (C == SMEM || C == SMEM_CONFLICT) {
    constexpr bool S = C == SMEM;
    __syncwarp();
#pragma unroll
    for (int i = 0; i < 4; i++)
      sts128(wsm + rho * 128 + (((4 * h + i) ^ swz<S>(rho)) << 4), R[4 * i], R[4 * i + 1], R[4 * i + 2], R[4 * i + 3]);
    __syncwarp();
    const int row = lane & 15;
#pragma unroll
    for (int t = 0; t < 4; t++) ldmatrix_x4(f[t], wsm + row * 128 + (((2 * t + (lane >> 4)) ^ swz<S>(row)) << 4));
  } else if constexpr (C == SHFL_PACKED) {
    // Packed words: word (row, w) of the tile is encoded as row*8 + w; lane's fragment register
    // (t, r) must receive word (g + 8(r%2), 2t + r/2), whose pair q it dequantizes.
    const uint4 P4 = make_uint4(rho * 8 + 4 * h, rho * 8 + 4 * h + 1, rho * 8 + 4 * h + 2, rho * 8 + 4 * h + 3);
#pragma unroll
    for (int ap = 0; ap < 4; ap++)
#pragma unroll
      for (int w = 0; w < 4; w++)
        f[2 * (ap & 1) + (w >> 1)][(ap >> 1) + 2 * (w & 1)] = __shfl_sync(0xffffffffu, comp(P4, w), (lane & ~3) | ap);
    unsigned nbad = 0;
#pragma unroll
    for (int t = 0; t < 4; t++)
#pragma unroll
      for (int r = 0; r < 4; r++) nbad += f[t][r] != uint32_t((g + 8 * (r & 1)) * 8 + 2 * t + (r >> 1));
    atomicAdd(bad, nbad);
    return;
  } else {
#pragma unroll
    for (int j = 0; j < 16; j++) f[j >> 2][j & 3] = R[j];  // no conversion: the negative control
  }
  unsigned nbad = 0;
#pragma unroll
  for (int t = 0; t < 4; t++)
#pragma unroll
    for (int r = 0; r < 4; r++)
#pragma unroll
      for (int e = 0; e < 2; e++) {
        const int row = g + 8 * (r & 1), k = 16 * t + 8 * (r >> 1) + 2 * q + e;
        nbad += ((f[t][r] >> (16 * e)) & 0xffffu) != uint32_t(row * 64 + k);
      }
  atomicAdd(bad, nbad);
}

// ---------------------------------------------------------------- host

static std::vector<std::string> g_json;  // "key": value lines of the JSON record
static void jnum(const std::string& key, double v) {
  char b[256];
  std::snprintf(b, sizeof b, "\"%s\": %.6g", key.c_str(), v);
  g_json.push_back(b);
}

struct Bufs {
  std::vector<uint32_t*> W, Wp;  // rotating copies (row-major packed, fragment-order packed)
  std::vector<__half*> S;
  __half *Wf, *R, *X;
  float* Y;
  int copies;
};

static cudaEvent_t ev0, ev1;

// Median over reps of the mean time of `batch` launches (each launch gets its index, so it can
// rotate through the weight copies and defeat the 50 MB L2), after `warm` launches.
template <class F>
static double time_ns(F launch, int warm, int reps, int batch) {
  for (int i = 0; i < warm; i++) launch(i);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> v;
  int idx = 0;
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(ev0));
    for (int b = 0; b < batch; b++) launch(idx++);
    CK(cudaEventRecord(ev1));
    CK(cudaEventSynchronize(ev1));
    CK(cudaGetLastError());
    float ms;
    CK(cudaEventElapsedTime(&ms, ev0, ev1));
    v.push_back(ms * 1e6 / batch);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <int P, int MODE, int BN, int D>
static void launch_gemm(const Bufs& b, int copy, int N, int split) {
  constexpr int STAGE = (P == F16 ? BM * BK * 2 : 0) + BN * BK * 2;
  constexpr int SMEMB = 2 * STAGE + ((P == SMEM || P == SMEM_CONFLICT) ? 8 * 2048 : 0);
  static bool attr = false;
  if (!attr) {
    CK(cudaFuncSetAttribute(gemm<P, MODE, BN, D>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEMB));
    attr = true;
  }
  const uint32_t* w = P == NATIVE_PREPACKED ? b.Wp[copy] : b.W[copy];
  dim3 grid(M / BM, N / BN, split);
  gemm<P, MODE, BN, D><<<grid, THREADS, SMEMB>>>(w, b.S[copy], b.Wf, b.X, b.Y, KC / split, split > 1);
}

// Checks Y against the double reference on the sampled rows; returns true when within tolerance.
struct CheckResult {
  double max_abs_err, max_abs_ref, rel_l2;
  unsigned long long nans;
  bool ok;
};
static CheckResult check_y(const Bufs& b, int N, int nS, const std::vector<int>& nl, const double* dref) {
  CheckResult c{0, 0, 0, 0, false};
  unsigned long long* dbad;
  CK(cudaMalloc(&dbad, sizeof *dbad));
  CK(cudaMemset(dbad, 0, sizeof *dbad));
  count_nan<<<1024, 256>>>(b.Y, size_t(N) * M, dbad);
  CK(cudaGetLastError());
  CK(cudaMemcpy(&c.nans, dbad, sizeof c.nans, cudaMemcpyDeviceToHost));
  CK(cudaFree(dbad));
  std::vector<double> ref(size_t(nS) * M);
  CK(cudaMemcpy(ref.data(), dref, ref.size() * sizeof(double), cudaMemcpyDeviceToHost));
  std::vector<float> row(M);
  double se = 0, sr = 0;
  for (int i = 0; i < nS; i++) {
    CK(cudaMemcpy(row.data(), b.Y + size_t(nl[i]) * M, M * sizeof(float), cudaMemcpyDeviceToHost));
    for (int m = 0; m < M; m++) {
      const double r = ref[size_t(i) * M + m], e = std::fabs(double(row[m]) - r);
      if (!(e <= c.max_abs_err)) c.max_abs_err = std::isnan(e) ? INFINITY : std::max(c.max_abs_err, e);
      c.max_abs_ref = std::max(c.max_abs_ref, std::fabs(r));
      se += e * e;
      sr += r * r;
    }
  }
  c.rel_l2 = std::sqrt(se / sr);
  c.ok = c.nans == 0 && c.max_abs_err <= 1e-4 * c.max_abs_ref;
  return c;
}

static int g_fail = 0;

template <int P, int MODE, int BN, int D>
static void run_check(const char* name, const Bufs& b, int N, int split, int nS, const std::vector<int>& nl,
                      const double* dref, bool negative) {
  if (split > 1)
    CK(cudaMemset(b.Y, 0, size_t(N) * M * sizeof(float)));
  else
    fill_float<<<1024, 256>>>(b.Y, size_t(N) * M, NAN);
  if (P == F16) {
    dequant_kernel<<<132 * 16, 256>>>(b.W[0], b.S[0], b.Wf);
    CK(cudaGetLastError());
  }
  launch_gemm<P, MODE, BN, D>(b, 0, N, split);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const CheckResult c = check_y(b, N, nS, nl, dref);
  const char* word = negative ? (c.ok ? "MISSED (negative control)" : "CAUGHT (negative control)") : (c.ok ? "PASS" : "FAIL");
  if (negative == c.ok) g_fail++;
  std::printf("%-26s N=%-4d %-8s max|err| %.3e  max|ref| %.3e  rel_l2 %.3e  unwritten %llu  (%d rows x %d checked)\n",
              name, N, word, c.max_abs_err, c.max_abs_ref, c.rel_l2, c.nans, nS, M);
}

template <int P, int MODE, int BN, int D>
static double run_time(const char* key, const Bufs& b, int N, int split) {
  const bool big = N > 64;
  const int batch = big ? 1 : 20, reps = big ? 7 : 9, warm = big ? 2 : 10;
  if (split > 1) CK(cudaMemset(b.Y, 0, size_t(N) * M * sizeof(float)));  // sums keep growing: timing only
  const double ns = time_ns([&](int i) { launch_gemm<P, MODE, BN, D>(b, big ? 0 : i % b.copies, N, split); }, warm,
                            reps, batch);
  std::printf("  %-44s %12.0f ns\n", key, ns);
  jnum(key, ns);
  return ns;
}

template <int BN, int D>
static double time_f16(const char* key, const Bufs& b, int N, int split, bool dq, bool mm) {
  const bool big = N > 64;
  const int batch = big ? 1 : 20, reps = big ? 7 : 9, warm = big ? 2 : 10;
  const double ns = time_ns(
      [&](int i) {
        const int c = big ? 0 : i % b.copies;
        if (dq) dequant_kernel<<<132 * 16, 256>>>(b.W[c], b.S[c], b.Wf);
        if (mm) launch_gemm<F16, FULL, BN, D>(b, c, N, split);
      },
      warm, reps, batch);
  std::printf("  %-44s %12.0f ns\n", key, ns);
  jnum(key, ns);
  return ns;
}

template <int C>
static void conv_time(const char* name) {
  uint32_t* out;
  CK(cudaMalloc(&out, 132 * 8 * THREADS * sizeof(uint32_t)));
  const int iters = 4096;
  struct Cfg {
    const char* what;
    int blocks, threads;
    double warps_per_sm;
  } cfgs[] = {{"all_sms", 132 * 4, THREADS, 32}, {"one_sm", 1, THREADS, 8}, {"one_warp", 1, 32, 1}};
  for (const Cfg& c : cfgs) {
    const double ns =
        time_ns([&](int) { convloop<C><<<c.blocks, c.threads>>>(out, iters); }, 2, 7, 1);
    // ns per conversion of one warp tile on one SM: the SM's time divided by the tiles it converted.
    const double per = ns / (double(iters) * c.warps_per_sm);
    std::printf("  conversion %-14s %-9s %10.0f ns total  %8.2f ns per warp tile per SM\n", name, c.what, ns, per);
    jnum(std::string("conv.") + name + "." + c.what + ".ns_per_tile", per);
  }
  CK(cudaFree(out));
}

template <int C>
static void conv_check(const char* name, bool negative, int total) {
  unsigned* dbad;
  CK(cudaMalloc(&dbad, sizeof *dbad));
  CK(cudaMemset(dbad, 0, sizeof *dbad));
  convcheck<C><<<1, THREADS>>>(dbad);
  CK(cudaGetLastError());
  unsigned bad;
  CK(cudaMemcpy(&bad, dbad, sizeof bad, cudaMemcpyDeviceToHost));
  CK(cudaFree(dbad));
  const bool ok = bad == 0;
  if (negative == ok) g_fail++;
  std::printf("conversion %-14s %s: %u of %d values (8 warps x 32 lanes) wrong\n", name,
              negative ? (ok ? "MISSED (negative control)" : "CAUGHT (negative control)") : (ok ? "PASS" : "FAIL"), bad,
              total);
}

// Everything for one N: checks, whole plans, parts.
template <int BN, int D>
static void run_n(Bufs& b, int N, const std::vector<int>& splits) {
  const int nS = N <= 64 ? N : 64;
  std::vector<int> nl(nS);
  for (int i = 0; i < nS; i++) nl[i] = N <= 64 ? i : int((i * 67L + 13) % N);
  int* dnl;
  double* dref;
  CK(cudaMalloc(&dnl, nS * sizeof(int)));
  CK(cudaMemcpy(dnl, nl.data(), nS * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&dref, size_t(nS) * M * sizeof(double)));
  ref_gemm<<<M / 8, 256>>>(b.R, b.X, dnl, nS, dref);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  std::printf("== N = %d: checks (BN %d, %d rows of Y against a double reference)\n", N, BN, nS);
  const int s0 = splits[0];
  run_check<SHFL, FULL, BN, D>("fused_shfl", b, N, s0, nS, nl, dref, false);
  run_check<SHFL_PACKED, FULL, BN, D>("fused_shfl_packed", b, N, s0, nS, nl, dref, false);
  run_check<SMEM, FULL, BN, D>("fused_smem", b, N, s0, nS, nl, dref, false);
  run_check<SMEM_CONFLICT, FULL, BN, D>("fused_smem_conflict", b, N, s0, nS, nl, dref, false);
  run_check<NATIVE, FULL, BN, D>("fused_native", b, N, s0, nS, nl, dref, false);
  run_check<NATIVE_PREPACKED, FULL, BN, D>("fused_native_prepacked", b, N, s0, nS, nl, dref, false);
  run_check<F16, FULL, BN, D>("unfused", b, N, s0, nS, nl, dref, false);
  run_check<SHFL, NOCONV, BN, D>("fused_shfl without conversion", b, N, s0, nS, nl, dref, true);

  std::printf("== N = %d: whole plans (median ns)\n", N);
  const std::string pre = "N" + std::to_string(N) + ".";
  for (int split : splits) {
    const std::string p = pre + "split" + std::to_string(split) + ".";
    run_time<SHFL, FULL, BN, D>((p + "plan.fused_shfl").c_str(), b, N, split);
    run_time<SHFL_PACKED, FULL, BN, D>((p + "plan.fused_shfl_packed").c_str(), b, N, split);
    run_time<SMEM, FULL, BN, D>((p + "plan.fused_smem").c_str(), b, N, split);
    run_time<SMEM_CONFLICT, FULL, BN, D>((p + "plan.fused_smem_conflict").c_str(), b, N, split);
    run_time<NATIVE, FULL, BN, D>((p + "plan.fused_native").c_str(), b, N, split);
    run_time<NATIVE_PREPACKED, FULL, BN, D>((p + "plan.fused_native_prepacked").c_str(), b, N, split);
    time_f16<BN, D>((p + "plan.unfused").c_str(), b, N, split, true, true);
    std::printf("== N = %d split %d: parts (median ns, whole problem)\n", N, split);
    time_f16<BN, D>((p + "part.unfused.dequant_kernel").c_str(), b, N, split, true, false);
    time_f16<BN, D>((p + "part.unfused.gemm_f16").c_str(), b, N, split, false, true);
    run_time<SHFL, MMAONLY, BN, D>((p + "part.mma_loop").c_str(), b, N, split);
    run_time<SHFL, LOADONLY, BN, D>((p + "part.load.blocked").c_str(), b, N, split);
    run_time<NATIVE, LOADONLY, BN, D>((p + "part.load.native").c_str(), b, N, split);
    run_time<NATIVE_PREPACKED, LOADONLY, BN, D>((p + "part.load.prepacked").c_str(), b, N, split);
    run_time<SHFL, LOADDEQ, BN, D>((p + "part.load_dequant.blocked").c_str(), b, N, split);
    run_time<NATIVE, LOADDEQ, BN, D>((p + "part.load_dequant.native").c_str(), b, N, split);
    run_time<NATIVE_PREPACKED, LOADDEQ, BN, D>((p + "part.load_dequant.prepacked").c_str(), b, N, split);
    run_time<SHFL, PRODUCER, BN, D>((p + "part.producer.fused_shfl").c_str(), b, N, split);
    run_time<SHFL_PACKED, PRODUCER, BN, D>((p + "part.producer.fused_shfl_packed").c_str(), b, N, split);
    run_time<SMEM, PRODUCER, BN, D>((p + "part.producer.fused_smem").c_str(), b, N, split);
    run_time<SMEM_CONFLICT, PRODUCER, BN, D>((p + "part.producer.fused_smem_conflict").c_str(), b, N, split);
    run_time<SHFL, NOCONV, BN, D>((p + "part.no_conversion.blocked").c_str(), b, N, split);
    run_time<SHFL_PACKED, NOCONV, BN, D>((p + "part.no_conversion.shfl_packed").c_str(), b, N, split);
  }
  CK(cudaFree(dnl));
  CK(cudaFree(dref));
}

int main(int argc, char** argv) {
  int dev;
  cudaDeviceProp prop;
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&prop, dev));
  int rt, drv;
  CK(cudaRuntimeGetVersion(&rt));
  CK(cudaDriverGetVersion(&drv));
  std::printf("device: %s, sm_%d%d, %d SMs, L2 %d MB; CUDA runtime %d, driver %d\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, rt, drv);
  CK(cudaEventCreate(&ev0));
  CK(cudaEventCreate(&ev1));

  Bufs b;
  b.copies = 8;  // 8 x 33 MB of weights and scales: well past the L2
  for (int c = 0; c < b.copies; c++) {
    uint32_t *w, *wp;
    __half* s;
    CK(cudaMalloc(&w, size_t(M) * KW * 4));
    CK(cudaMalloc(&wp, size_t(M) * KW * 4));
    CK(cudaMalloc(&s, size_t(M) * KG * 2));
    fill_words<<<1024, 256>>>(w, size_t(M) * KW, 1000 + c);
    fill_half<<<1024, 256>>>(s, size_t(M) * KG, 2000 + c, 0.002f, 0.02f);
    repack<<<1024, 256>>>(w, wp);
    CK(cudaGetLastError());
    b.W.push_back(w);
    b.Wp.push_back(wp);
    b.S.push_back(s);
  }
  const int NMAX = 4096;
  CK(cudaMalloc(&b.Wf, size_t(M) * K * 2));
  CK(cudaMalloc(&b.R, size_t(M) * K * 2));
  CK(cudaMalloc(&b.X, size_t(NMAX) * K * 2));
  CK(cudaMalloc(&b.Y, size_t(NMAX) * M * 4));
  fill_half<<<1024, 256>>>(b.X, size_t(NMAX) * K, 3000, -1.0f, 1.0f);
  ref_dequant<<<4096, 256>>>(b.W[0], b.S[0], b.R);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  // The unfused plan's dequantize kernel against the reference dequantization, bit for bit.
  {
    dequant_kernel<<<132 * 16, 256>>>(b.W[0], b.S[0], b.Wf);
    unsigned long long* dbad;
    CK(cudaMalloc(&dbad, sizeof *dbad));
    CK(cudaMemset(dbad, 0, sizeof *dbad));
    count_mismatch_half<<<1024, 256>>>(b.Wf, b.R, size_t(M) * K, dbad);
    unsigned long long bad;
    CK(cudaMemcpy(&bad, dbad, sizeof bad, cudaMemcpyDeviceToHost));
    CK(cudaFree(dbad));
    if (bad) g_fail++;
    std::printf("dequantize kernel against reference dequantization: %s, %llu of %lld f16 values differ\n",
                bad ? "FAIL" : "PASS", bad, (long long)M * K);
  }
  std::printf("== conversions of the 16x64 warp tile, blocked -> mma A fragments, every lane checked\n");
  conv_check<SHFL>("shfl", false, 8 * 32 * 32);
  conv_check<SMEM>("smem", false, 8 * 32 * 32);
  conv_check<SMEM_CONFLICT>("smem_conflict", false, 8 * 32 * 32);
  conv_check<SHFL_PACKED>("shfl_packed", false, 8 * 32 * 16);
  conv_check<CONV_NONE>("none", true, 8 * 32 * 32);

  run_n<16, 2>(b, 16, {16, 8, 32});
  run_n<64, 1>(b, 4096, {1});

  std::printf("== conversions alone, steady-state loop (4096 conversions per warp)\n");
  conv_time<CONV_NONE>("none");
  conv_time<SHFL>("shfl");
  conv_time<SHFL_PACKED>("shfl_packed");
  conv_time<SMEM>("smem");
  conv_time<SMEM_CONFLICT>("smem_conflict");

  if (argc > 1) {
    FILE* fp = std::fopen(argv[1], "w");
    if (!fp) {
      std::perror(argv[1]);
      return 2;
    }
    std::fprintf(fp, "{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"cuda_runtime\": %d,\n  \"failures\": %d", prop.name,
                 prop.multiProcessorCount, rt, g_fail);
    for (const std::string& l : g_json) std::fprintf(fp, ",\n  %s", l.c_str());
    std::fprintf(fp, "\n}\n");
    std::fclose(fp);
  }
  std::printf("%s: %d check(s) failed\n", g_fail ? "FAILED" : "ALL PASS", g_fail);
  return g_fail ? 1 : 0;
}

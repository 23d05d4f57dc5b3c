// bankcheck.cu measures what one warp-wide shared-memory load costs on the
// GPU, for every access pattern in patterns.txt, and prints the measurement
// next to the wavefront count that cklplan's bank model (package storage)
// predicts. patterns.txt is written by
//
//     go test ./storage -run TestHardwarePatterns -update
//
// one pattern per line: name|width in bytes|predicted wavefronts|32 byte
// addresses (-1 for an inactive lane).
//
// Method: one block of kWarps warps (one SM). Every warp issues the pattern
// kIters x kUnroll times as independent ld.volatile.shared loads from a
// 128-byte-aligned buffer, so that the shared-memory pipeline, not latency,
// bounds the time. The cost of one warp instruction is
//
//     (longest clock64 interval of any warp) / (kIters * kUnroll * kWarps)
//
// which, if the pipeline delivers one 128-byte wavefront per clock, is the
// number of wavefronts. Each pattern runs three times (or argv[1] times);
// the fastest counts. With "st" as argv[2] the warps store instead of load.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)

constexpr int kLanes = 32;
constexpr int kWarps = 16;
constexpr int kIters = 512;
constexpr int kUnroll = 16;
constexpr int kSmemBytes = 48 * 1024;

template <int W>
struct Load;
template <>
struct Load<1> {
  static __device__ __forceinline__ uint32_t at(uint32_t a) {
    uint32_t v;
    asm volatile("ld.volatile.shared.u8 %0, [%1];\n" : "=r"(v) : "r"(a));
    return v;
  }
};
template <>
struct Load<2> {
  static __device__ __forceinline__ uint32_t at(uint32_t a) {
    uint32_t v;
    asm volatile("ld.volatile.shared.u16 %0, [%1];\n" : "=r"(v) : "r"(a));
    return v;
  }
};
template <>
struct Load<4> {
  static __device__ __forceinline__ uint32_t at(uint32_t a) {
    uint32_t v;
    asm volatile("ld.volatile.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(a));
    return v;
  }
};
template <>
struct Load<8> {
  static __device__ __forceinline__ uint32_t at(uint32_t a) {
    uint32_t x, y;
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(x), "=r"(y) : "r"(a));
    return x ^ y;
  }
};
template <>
struct Load<16> {
  static __device__ __forceinline__ uint32_t at(uint32_t a) {
    uint32_t x, y, z, w;
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "r"(a));
    return x ^ y ^ z ^ w;
  }
};

template <int W>
struct Store;
template <>
struct Store<1> {
  static __device__ __forceinline__ void at(uint32_t a, uint32_t v) {
    asm volatile("st.volatile.shared.u8 [%0], %1;\n" ::"r"(a), "r"(v) : "memory");
  }
};
template <>
struct Store<2> {
  static __device__ __forceinline__ void at(uint32_t a, uint32_t v) {
    asm volatile("st.volatile.shared.u16 [%0], %1;\n" ::"r"(a), "r"(v) : "memory");
  }
};
template <>
struct Store<4> {
  static __device__ __forceinline__ void at(uint32_t a, uint32_t v) {
    asm volatile("st.volatile.shared.u32 [%0], %1;\n" ::"r"(a), "r"(v) : "memory");
  }
};
template <>
struct Store<8> {
  static __device__ __forceinline__ void at(uint32_t a, uint32_t v) {
    asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %2};\n" ::"r"(a), "r"(v), "r"(v + 1) : "memory");
  }
};
template <>
struct Store<16> {
  static __device__ __forceinline__ void at(uint32_t a, uint32_t v) {
    asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(a), "r"(v), "r"(v + 1), "r"(v + 2),
                 "r"(v + 3)
                 : "memory");
  }
};

// measureStores is measure for stores: the same pattern, st.volatile.shared
// of the lane's id, and no initialization (so that every shared store the
// profiler counts is one of the pattern's).
template <int W>
__global__ void measureStores(const int* addr, unsigned long long* elapsed, uint32_t* sink) {
  __shared__ __align__(128) unsigned char smem[kSmemBytes];
  const int lane = threadIdx.x % kLanes;
  const int warp = threadIdx.x / kLanes;
  const int a = addr[lane];
  const uint32_t p = uint32_t(__cvta_generic_to_shared(smem)) + uint32_t(a < 0 ? 0 : a);
  __syncthreads();
  const unsigned long long t0 = clock64();
  if (a >= 0) {
    for (int i = 0; i < kIters; ++i) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) Store<W>::at(p, uint32_t(lane + u));
    }
  }
  __syncwarp();
  const unsigned long long t1 = clock64();
  if (lane == 0) elapsed[warp] = t1 - t0;
  __syncthreads();
  sink[threadIdx.x] = a >= 0 ? smem[a] : 0;
}

template <int W>
__global__ void measure(const int* addr, unsigned long long* elapsed, uint32_t* sink) {
  __shared__ __align__(128) unsigned char smem[kSmemBytes];
  for (int i = threadIdx.x; i < kSmemBytes / 4; i += blockDim.x) {
    reinterpret_cast<uint32_t*>(smem)[i] = uint32_t(i) * 2654435761u;
  }
  __syncthreads();
  const int lane = threadIdx.x % kLanes;
  const int warp = threadIdx.x / kLanes;
  const int a = addr[lane];
  const uint32_t p = uint32_t(__cvta_generic_to_shared(smem)) + uint32_t(a < 0 ? 0 : a);
  uint32_t acc0 = 0, acc1 = 0;
  __syncthreads();
  const unsigned long long t0 = clock64();
  if (a >= 0) {
    for (int i = 0; i < kIters; ++i) {
#pragma unroll
      for (int u = 0; u < kUnroll; u += 2) {
        acc0 ^= Load<W>::at(p);
        acc1 ^= Load<W>::at(p);
      }
    }
  }
  __syncwarp();
  const unsigned long long t1 = clock64();
  if (lane == 0) elapsed[warp] = t1 - t0;
  sink[threadIdx.x] = acc0 ^ acc1;
}

static double run(bool stores, int width, const int* dAddr, unsigned long long* dElapsed, uint32_t* dSink) {
  const int threads = kWarps * kLanes;
  switch (width * 2 + (stores ? 1 : 0)) {
    case 2: measure<1><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 4: measure<2><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 8: measure<4><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 16: measure<8><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 32: measure<16><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 3: measureStores<1><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 5: measureStores<2><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 9: measureStores<4><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 17: measureStores<8><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    case 33: measureStores<16><<<1, threads>>>(dAddr, dElapsed, dSink); break;
    default: std::fprintf(stderr, "width %d: want 1, 2, 4, 8 or 16\n", width); std::exit(2);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned long long e[kWarps];
  CHECK(cudaMemcpy(e, dElapsed, sizeof e, cudaMemcpyDeviceToHost));
  unsigned long long longest = 0;
  for (unsigned long long x : e) longest = x > longest ? x : longest;
  return double(longest) / (double(kIters) * kUnroll * kWarps);
}

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  const bool stores = argc > 2 && std::strcmp(argv[2], "st") == 0;
  if (repeats < 1 || (argc > 2 && !stores && std::strcmp(argv[2], "ld") != 0)) {
    std::fprintf(stderr, "usage: bankcheck [REPEATS [ld|st]] < patterns.txt\n");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, sm_%d%d; %d warps x %d iterations x %d %s per pattern, fastest of %d\n",
              prop.name, prop.major, prop.minor, kWarps, kIters, kUnroll, stores ? "stores" : "loads", repeats);
  int* dAddr;
  unsigned long long* dElapsed;
  uint32_t* dSink;
  CHECK(cudaMalloc(&dAddr, kLanes * sizeof(int)));
  CHECK(cudaMalloc(&dElapsed, kWarps * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dSink, kWarps * kLanes * sizeof(uint32_t)));
  std::printf("%9s %9s %7s  %s\n", "predicted", "measured", "ratio", "pattern");
  std::string line;
  int n = 0, exact = 0;
  double worst = 0;
  std::string worstName;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string part;
    while (std::getline(ss, part, '|')) f.push_back(part);
    if (f.size() != 4) {
      std::fprintf(stderr, "bad line: %s\n", line.c_str());
      return 2;
    }
    const int width = std::atoi(f[1].c_str());
    const int predicted = std::atoi(f[2].c_str());
    int addr[kLanes];
    std::stringstream as(f[3]);
    for (int l = 0; l < kLanes; ++l) {
      if (!(as >> addr[l]) || addr[l] >= kSmemBytes || (addr[l] >= 0 && addr[l] % width != 0)) {
        std::fprintf(stderr, "bad address list: %s\n", line.c_str());
        return 2;
      }
    }
    CHECK(cudaMemcpy(dAddr, addr, sizeof addr, cudaMemcpyHostToDevice));
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
      const double m = run(stores, width, dAddr, dElapsed, dSink);
      best = m < best ? m : best;
    }
    const double ratio = best / predicted;
    std::printf("%9d %9.2f %7.2f  %s (%dB)\n", predicted, best, ratio, f[0].c_str(), width);
    ++n;
    if (int(best + 0.5) == predicted) ++exact;
    const double dev = ratio > 1 ? ratio - 1 : 1 - ratio;
    if (dev > worst) {
      worst = dev;
      worstName = f[0];
    }
  }
  std::printf("%d patterns; %d measured within 0.5 of the prediction; largest relative deviation %.0f%% (%s)\n",
              n, exact, 100 * worst, worstName.c_str());
  return 0;
}

// boundary.cu times a kernel boundary on an sm_90 GPU: what splitting one
// kernel's work into K dependent kernels costs over running it as one
// (docs/hardware.md, "The kernel boundary"). Each kernel is a grid that
// fills the chip (4 blocks of 256 threads per SM), every thread running a
// dependent FMA chain of `iters` steps on its own value; the fused kernel
// runs K·iters steps. The boundary is (T_split − T_fused) / K, launched
// from the host on one stream and replayed from a CUDA graph.
// Usage: boundary [OUT.tsv]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

__global__ void work(float* buf, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = buf[i];
  for (int k = 0; k < iters; ++k) x = fmaf(x, 0.999999f, 0.25f);
  buf[i] = x;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  int dev = 0, sms = 0;
  CHECK(cudaSetDevice(dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int threads = 256, blocks = 4 * sms, n = threads * blocks, K = 100, reps = 9;
  float* buf;
  CHECK(cudaMalloc(&buf, n * sizeof(float)));
  std::vector<float> init(n);
  srand(1);
  for (auto& x : init) x = (float)rand() / RAND_MAX;
  CHECK(cudaMemcpy(buf, init.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  FILE* out = argc > 1 ? fopen(argv[1], "w") : nullptr;
  if (out) fprintf(out, "iters\tkernel_us\tfused_us\tsplit_stream_us\tsplit_graph_us\tboundary_stream_us\tboundary_graph_us\n");
  printf("%8s %10s %12s %14s %16s %16s\n", "iters", "kernel_us", "fused_us", "split_stream_us", "boundary_stream", "boundary_graph");
  const int itersList[] = {0, 250, 1250, 5000, 25000};
  for (int iters : itersList) {
    // The fused kernel, K·iters steps; the split run, K kernels of iters.
    auto timeIt = [&](auto body) {
      std::vector<float> t;
      for (int r = 0; r < 2 + reps; ++r) {
        CHECK(cudaEventRecord(a, s));
        body();
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 2) t.push_back(ms * 1000);
      }
      return median(t);
    };
    float fused = timeIt([&] { work<<<blocks, threads, 0, s>>>(buf, K * iters); });
    float single = timeIt([&] { work<<<blocks, threads, 0, s>>>(buf, iters); });
    float split = timeIt([&] {
      for (int k = 0; k < K; ++k) work<<<blocks, threads, 0, s>>>(buf, iters);
    });
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < K; ++k) work<<<blocks, threads, 0, s>>>(buf, iters);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    float graph = timeIt([&] { CHECK(cudaGraphLaunch(ge, s)); });
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    float bs = (split - fused) / K, bg = (graph - fused) / K;
    printf("%8d %10.2f %12.2f %14.2f %16.3f %16.3f\n", iters, single, fused, split, bs, bg);
    if (out) fprintf(out, "%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", iters, single, fused, split, graph, bs, bg);
  }
  // The values stay finite: the chain converges to 0.25 / (1 − 0.999999).
  CHECK(cudaMemcpy(init.data(), buf, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (float x : init)
    if (!std::isfinite(x)) {
      fprintf(stderr, "non-finite result\n");
      return 1;
    }
  if (out) fclose(out);
  return 0;
}

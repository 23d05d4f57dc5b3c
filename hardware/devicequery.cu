// devicequery prints the figures of the GPU that costmodel's targets hold and
// a device query can read: SM count, clocks, memory bus, shared memory per SM
// and per block, the largest cluster (portable and not). The run that sourced
// the h200 target is in docs/hardware.md.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void empty() {}
int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  auto at = [](cudaDeviceAttr a) { int v = 0; cudaDeviceGetAttribute(&v, a, 0); return v; };
  printf("name %s\ncompute_capability %d.%d\nsm_count %d\n", p.name, p.major, p.minor, p.multiProcessorCount);
  printf("max_sm_clock_khz %d\nmemory_clock_khz %d\nmemory_bus_bits %d\n", at(cudaDevAttrClockRate), at(cudaDevAttrMemoryClockRate), at(cudaDevAttrGlobalMemoryBusWidth));
  printf("shared_bytes_per_sm %zu\nshared_bytes_per_block_optin %zu\nl2_bytes %d\ncluster_launch %d\n", p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.l2CacheSize, at(cudaDevAttrClusterLaunch));
  for (int np = 0; np <= 1; np++) {
    if (np) cudaFuncSetAttribute(empty, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaLaunchConfig_t c = {}; c.gridDim = dim3(132 * 16); c.blockDim = dim3(128);
    int n = 0; cudaError_t e = cudaOccupancyMaxPotentialClusterSize(&n, (void *)empty, &c);
    printf("max_cluster_blocks%s %d (%s)\n", np ? "_nonportable" : "", n, cudaGetErrorString(e));
  }
}

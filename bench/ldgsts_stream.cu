// ldgsts_stream.cu: how many L2 sectors do cp.async copies ask for, by the
// shared-memory layout they write? (docs/performance.md, "Swizzled K/V
// tiles".) Each thread block of 128 threads streams 4 MB of contiguous
// 256-byte rows (a d = 128, 16-bit K or V cache) through a ring of STAGES
// slots of ROWS rows, 16 bytes a thread and cp.async, as our kernels do:
//   PAD 16: rows padded by 16 bytes (#fa.block_shared, the padded layout),
//   PAD 0:  unpadded rows,
//   SWZ 1:  unpadded rows, chunk c of row r at c ^ (r % 8) (swizzled),
// with or without the .L2::128B prefetch size, 16 lanes a row or 8 lanes a
// 128-byte segment. On the GPU machine:
//   nvcc -arch=sm_90 -O2 -o ldgsts_stream bench/ldgsts_stream.cu
//   ./ldgsts_stream                       # times (10 launches each)
//   ncu --clock-control none --metrics lts__t_sectors_srcunit_tex_op_read.sum,\
//     lts__t_requests_srcunit_tex_op_read.sum,gpu__time_duration.sum ./ldgsts_stream 1
// On the H100 (2026-12-05): padded rows ask L2 for 50.3 M sectors in 22.0 M
// requests for 1.07 GB (1.5x the 33.6 M sectors copied) and run 3 % slower;
// unpadded and swizzled rows ask for exactly 33.6 M in 8.4 M.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

template <int PAD, int STAGES, int ROWS, int L2PF, int LANES_PER_ROW, int SWZ = 0>
__global__ void stream(const uint8_t *src, size_t bytes_per_cta, float *out) {
  extern __shared__ __align__(128) uint8_t smem[];
  const int tid = threadIdx.x;
  const int rowBytes = 256 + PAD;
  const uint8_t *base = src + blockIdx.x * bytes_per_cta;
  size_t tiles = bytes_per_cta / (ROWS * 256);
  // thread -> (row in round, chunk)
  int row0, chunk;
  if (LANES_PER_ROW == 16) { row0 = tid / 16; chunk = tid % 16; }
  else { int slot = tid / 8; row0 = slot % 8; chunk = tid % 8 + 8 * (slot / 8); }
  auto issue = [&](size_t t, int s) {
    for (int r = row0; r < ROWS; r += 8) {
      const uint8_t *g = base + t * ROWS * 256 + r * 256 + chunk * 16;
      uint32_t d = (uint32_t)__cvta_generic_to_shared(smem + s * ROWS * rowBytes + r * rowBytes + (SWZ ? ((chunk & ~7) | ((chunk ^ r) & 7)) : chunk) * 16);
      if (L2PF) asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(d), "l"(g));
      else asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(g));
    }
    asm volatile("cp.async.commit_group;");
  };
  float acc = 0;
  for (int s = 0; s < STAGES - 1; ++s) issue(s, s);
  for (size_t t = 0; t < tiles; ++t) {
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2));
    __syncthreads();
    int s = t % STAGES;
    acc += *(const float *)(smem + s * ROWS * rowBytes + (tid % ROWS) * rowBytes + (tid / ROWS) * 4);
    __syncthreads();
    if (t + STAGES - 1 < tiles) issue(t + STAGES - 1, (t + STAGES - 1) % STAGES);
    else asm volatile("cp.async.commit_group;");
  }
  if (acc == 12345.f) out[0] = acc;
}

template <int PAD, int STAGES, int ROWS, int L2PF, int LANES, int SWZ = 0>
void run(const char *name, const uint8_t *src, size_t per, int ctas, float *out) {
  extern int g_reps;
  size_t smem = (size_t)STAGES * ROWS * (256 + PAD);
  auto k = stream<PAD, STAGES, ROWS, L2PF, LANES, SWZ>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < (g_reps > 1 ? 3 : 0); ++i) k<<<ctas, 128, smem>>>(src, per, out);
  cudaEventRecord(a);
  for (int i = 0; i < g_reps; ++i) k<<<ctas, 128, smem>>>(src, per, out);
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); ms /= g_reps;
  printf("%-40s smem %6zu B  %.1f us  %.0f GB/s  err=%s\n", name, smem, ms * 1e3,
         per * ctas / ms / 1e6, cudaGetErrorString(cudaGetLastError()));
}

int g_reps = 10;
int main(int argc, char **argv) {
  if (argc > 1) g_reps = 1;
  int ctas = 256; size_t per = 4 << 20;
  uint8_t *src; float *out;
  cudaMalloc(&src, per * ctas); cudaMalloc(&out, 4);
  cudaMemset(src, 1, per * ctas);
  run<16, 6, 128, 1, 16>("pad16 st6 r128 pf 16lanes (ours sm90)", src, per, ctas, out);
  run<0, 6, 128, 1, 16>("pad0 st6 r128 pf 16lanes", src, per, ctas, out);
  run<0, 6, 128, 1, 16, 1>("swizzle st6 r128 pf 16lanes", src, per, ctas, out);
  run<0, 6, 128, 1, 8, 1>("swizzle st6 r128 pf 8lanes", src, per, ctas, out);
  run<0, 6, 128, 0, 16, 1>("swizzle st6 r128 nopf 16lanes", src, per, ctas, out);
  cudaDeviceSynchronize();
  return 0;
}

// SPDX-License-Identifier: MIT
// Compiled with -O3 -fno-math-errno -ffp-contract=off (CMakeLists.txt): -O3 vectorizes the
// loops (GCC's -O2 leaves them scalar), without errno a sqrt vectorizes, and without
// contraction no multiply-add is fused, so every variant rounds as the baseline does. Each
// variant is the same inlined body compiled under a target attribute; the choice is made once,
// by __builtin_cpu_supports, not through ifunc resolvers (which run before the sanitizers'
// runtime is up).
#include "kernels.hpp"

#include <cmath>
#include <cstring>

namespace arbo::plugins::relu_net {

namespace {

#define ARBO_INLINE __attribute__((always_inline)) inline

ARBO_INLINE void adam_body(double* __restrict theta, double* __restrict m1, double* __restrict m2,
                           const double* __restrict g, std::size_t n, double b1, double b2,
                           double step, double c2, double eps) {
  const double a1 = 1.0 - b1;
  const double a2 = 1.0 - b2;
  for (std::size_t i = 0; i < n; ++i) {
    m1[i] = b1 * m1[i] + a1 * g[i];
    m2[i] = b2 * m2[i] + a2 * (g[i] * g[i]);
    theta[i] -= step * m1[i] / (std::sqrt(m2[i]) * c2 + eps);
  }
}

// H > 0: the column height known at compile time (fully unrolled packets); 0: h at run time.
template <std::size_t H>
ARBO_INLINE void gather_body(const double* __restrict W, std::size_t h, const double* __restrict b,
                             const int* index, const double* value, int nnz,
                             double* __restrict out) {
  const std::size_t rows = H > 0 ? H : h;
  for (std::size_t r = 0; r < rows; ++r) out[r] = b[r];
  for (int k = 0; k < nnz; ++k) {
    const double* __restrict w = W + static_cast<std::size_t>(index[k]) * rows;
    const double v = value[k];
    for (std::size_t r = 0; r < rows; ++r) out[r] += v * w[r];
  }
}

template <std::size_t H>
ARBO_INLINE void scatter_body(double* __restrict dW, std::size_t h, const double* __restrict g,
                              const int* index, const double* value, int nnz) {
  const std::size_t rows = H > 0 ? H : h;
  for (int k = 0; k < nnz; ++k) {
    double* __restrict w = dW + static_cast<std::size_t>(index[k]) * rows;
    const double v = value[k];
    for (std::size_t r = 0; r < rows; ++r) w[r] += v * g[r];
  }
}

ARBO_INLINE void gather_any(const double* W, std::size_t h, const double* b, const int* index,
                            const double* value, int nnz, double* out) {
  switch (h) {
    case 8: return gather_body<8>(W, h, b, index, value, nnz, out);
    case 16: return gather_body<16>(W, h, b, index, value, nnz, out);
    case 32: return gather_body<32>(W, h, b, index, value, nnz, out);
    default: return gather_body<0>(W, h, b, index, value, nnz, out);
  }
}

ARBO_INLINE void scatter_any(double* dW, std::size_t h, const double* g, const int* index,
                             const double* value, int nnz) {
  switch (h) {
    case 8: return scatter_body<8>(dW, h, g, index, value, nnz);
    case 16: return scatter_body<16>(dW, h, g, index, value, nnz);
    case 32: return scatter_body<32>(dW, h, g, index, value, nnz);
    default: return scatter_body<0>(dW, h, g, index, value, nnz);
  }
}

struct Kernels {
  void (*adam)(double*, double*, double*, const double*, std::size_t, double, double, double,
               double, double);
  void (*gather)(const double*, std::size_t, const double*, const int*, const double*, int,
                 double*);
  void (*scatter)(double*, std::size_t, const double*, const int*, const double*, int);
};

// One set of the three entry points per instruction set.
#define ARBO_KERNEL_SET(NAME, ATTR)                                                            \
  ATTR void adam_##NAME(double* theta, double* m1, double* m2, const double* g, std::size_t n, \
                        double b1, double b2, double step, double c2, double eps) {            \
    adam_body(theta, m1, m2, g, n, b1, b2, step, c2, eps);                                     \
  }                                                                                            \
  ATTR void gather_##NAME(const double* W, std::size_t h, const double* b, const int* index,   \
                          const double* value, int nnz, double* out) {                         \
    gather_any(W, h, b, index, value, nnz, out);                                               \
  }                                                                                            \
  ATTR void scatter_##NAME(double* dW, std::size_t h, const double* g, const int* index,       \
                           const double* value, int nnz) {                                     \
    scatter_any(dW, h, g, index, value, nnz);                                                  \
  }                                                                                            \
  constexpr Kernels k_##NAME{adam_##NAME, gather_##NAME, scatter_##NAME};

ARBO_KERNEL_SET(baseline, )
#if defined(__x86_64__)
ARBO_KERNEL_SET(avx2, __attribute__((target("avx2"))))
ARBO_KERNEL_SET(avx512f, __attribute__((target("avx512f"))))
#endif

const Kernels* kernels_for(const char* isa) {
#if defined(__x86_64__)
  if (std::strcmp(isa, "avx512f") == 0) return &k_avx512f;
  if (std::strcmp(isa, "avx2") == 0) return &k_avx2;
#endif
  if (std::strcmp(isa, "baseline") == 0) return &k_baseline;
  return nullptr;
}

const char* best_isa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2")) return "avx2";
#endif
  return "baseline";
}

const char* chosen_isa() {
  static const char* const isa = best_isa();
  return isa;
}

const Kernels& chosen() {
  static const Kernels* const k = kernels_for(chosen_isa());
  return *k;
}

}  // namespace

void adam_update(double* theta, double* m1, double* m2, const double* g, std::size_t n, double b1,
                 double b2, double step, double c2, double eps) {
  chosen().adam(theta, m1, m2, g, n, b1, b2, step, c2, eps);
}

void gather_columns(const double* W, std::size_t h, const double* b, const int* index,
                    const double* value, int nnz, double* out) {
  chosen().gather(W, h, b, index, value, nnz, out);
}

void scatter_columns(double* dW, std::size_t h, const double* g, const int* index,
                     const double* value, int nnz) {
  chosen().scatter(dW, h, g, index, value, nnz);
}

const char* kernel_isa() { return chosen_isa(); }

namespace detail {

bool supported(const char* isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (std::strcmp(isa, "avx512f") == 0) return __builtin_cpu_supports("avx512f");
  if (std::strcmp(isa, "avx2") == 0) return __builtin_cpu_supports("avx2");
#endif
  return std::strcmp(isa, "baseline") == 0;
}

void adam_update_on(const char* isa, double* theta, double* m1, double* m2, const double* g,
                    std::size_t n, double b1, double b2, double step, double c2, double eps) {
  kernels_for(isa)->adam(theta, m1, m2, g, n, b1, b2, step, c2, eps);
}

void gather_columns_on(const char* isa, const double* W, std::size_t h, const double* b,
                       const int* index, const double* value, int nnz, double* out) {
  kernels_for(isa)->gather(W, h, b, index, value, nnz, out);
}

void scatter_columns_on(const char* isa, double* dW, std::size_t h, const double* g,
                        const int* index, const double* value, int nnz) {
  kernels_for(isa)->scatter(dW, h, g, index, value, nnz);
}

}  // namespace detail

}  // namespace arbo::plugins::relu_net

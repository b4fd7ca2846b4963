// SPDX-License-Identifier: MIT
// The training's innermost loops (Adam's update, the first layer's sparse gather and scatter),
// compiled for baseline x86-64 and for AVX2 and AVX-512F, the widest the processor has chosen
// once at run time. The project builds for baseline x86-64 (SSE2: two doubles a packet); these
// loops are most of a training step (bench/results/nn-milp/training.md). Every variant computes
// the same operations in the same order per element, without fused multiply-adds, so the
// results are the same to the bit on any processor (tests/relu_net_test.cpp).
#pragma once

#include <cstddef>

namespace arbo::plugins::relu_net {

/// One Adam step (torch.optim.Adam, amsgrad off, no weight decay) over n parameters, in place:
/// m1 = b1 m1 + (1 - b1) g; m2 = b2 m2 + (1 - b2) g^2; theta -= step m1 / (sqrt(m2) c2 + eps),
/// with step = lr / (1 - b1^t) and c2 = 1 / sqrt(1 - b2^t). The arrays do not overlap. O(n).
void adam_update(double* theta, double* m1, double* m2, const double* g, std::size_t n, double b1,
                 double b2, double step, double c2, double eps);

/// out = b + sum_k value[k] W[:, index[k]] for the h-long columns of a column-major W (h rows):
/// a first-layer pre-activation from a sparse input. O(h nnz).
void gather_columns(const double* W, std::size_t h, const double* b, const int* index,
                    const double* value, int nnz, double* out);

/// dW[:, index[k]] += value[k] g for each k: the first layer's weight gradient of a sparse
/// input. O(h nnz).
void scatter_columns(double* dW, std::size_t h, const double* g, const int* index,
                     const double* value, int nnz);

/// The instruction set the dispatch chose: "avx512f", "avx2" or "baseline".
const char* kernel_isa();

namespace detail {
/// The variants themselves, for the test that compares them: `isa` is one of kernel_isa()'s
/// names; a variant the processor cannot run must not be called (supported() says).
bool supported(const char* isa);
void adam_update_on(const char* isa, double* theta, double* m1, double* m2, const double* g,
                    std::size_t n, double b1, double b2, double step, double c2, double eps);
void gather_columns_on(const char* isa, const double* W, std::size_t h, const double* b,
                       const int* index, const double* value, int nnz, double* out);
void scatter_columns_on(const char* isa, double* dW, std::size_t h, const double* g,
                        const int* index, const double* value, int nnz);
}  // namespace detail

}  // namespace arbo::plugins::relu_net

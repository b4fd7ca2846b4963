// SPDX-License-Identifier: MIT
// The libtorch counterpart of relu_net_train_bench: the same data, network (nn::Linear layers,
// ReLU, linear output), MSELoss, torch::optim::Adam(lr 0.01, betas 0.9/0.999, eps 1e-8), 25,000
// epochs of reshuffled batches of 64, one intra-op thread. Written the way the PyTorch C++ API
// is normally used (dense input tensors, autograd). Built only when find_package(Torch) finds
// Debian's libtorch-dev; see bench/results/nn-milp/training.md.
//
// Usage: relu_net_torch_bench [EPOCHS=25000] [HIDDEN=16] [DTYPE=float64|float32] [N...]
#include <chrono>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "random_mlp_data.hpp"

int main(int argc, char** argv) {
  const int epochs = argc > 1 ? std::stoi(argv[1]) : 25000;
  std::vector<int64_t> hidden;
  {
    std::stringstream ss(argc > 2 ? argv[2] : "16");
    std::string w;
    while (std::getline(ss, w, ',')) {
      if (!w.empty()) hidden.push_back(std::stol(w));
    }
  }
  const std::string dtype_name = argc > 3 ? argv[3] : "float64";
  const auto dtype = dtype_name == "float32" ? torch::kFloat32 : torch::kFloat64;
  std::vector<int> ns;
  for (int a = 4; a < argc; ++a) ns.push_back(std::stoi(argv[a]));
  if (ns.empty()) ns = {100, 500, 1000};
  torch::set_num_threads(1);
  torch::manual_seed(7);
  for (int n : ns) {
    const auto data = arbo::bench::random_mlp_data(n, 42);
    // Eigen is column major: transpose into row-major n x 125.
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Xr = data.X;
    torch::Tensor X = torch::from_blob(Xr.data(), {n, 125}, torch::kFloat64).clone().to(dtype);
    torch::Tensor y = torch::from_blob(const_cast<double*>(data.y.data()), {n, 1}, torch::kFloat64)
                          .clone()
                          .to(dtype);
    torch::nn::Sequential net;
    int64_t in = 125;
    for (int64_t h : hidden) {
      net->push_back(torch::nn::Linear(in, h));
      net->push_back(torch::nn::ReLU());
      in = h;
    }
    net->push_back(torch::nn::Linear(in, 1));
    net->to(dtype);
    torch::optim::Adam opt(net->parameters(),
                           torch::optim::AdamOptions(0.01).betas({0.9, 0.999}).eps(1e-8));
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    long long steps = 0;
    double last = 0.0;
    for (int e = 0; e < epochs; ++e) {
      const torch::Tensor perm = torch::randperm(n, torch::kLong);
      double sum = 0.0;
      int batches = 0;
      for (int start = 0; start < n; start += 64) {
        const int m = std::min(64, n - start);
        const torch::Tensor idx = perm.narrow(0, start, m);
        opt.zero_grad();
        const torch::Tensor loss =
            torch::mse_loss(net->forward(X.index_select(0, idx)), y.index_select(0, idx));
        loss.backward();
        opt.step();
        sum += loss.item<double>();
        ++batches;
        ++steps;
      }
      last = sum / batches;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const std::string arch = arbo::bench::hidden_label(hidden);
    std::printf(
        "{\"impl\": \"libtorch-%s\", \"hidden\": [%s], \"n\": %d, \"epochs\": %d, \"steps\": %lld, "
        "\"seconds\": %.3f, \"cpu_seconds\": %.3f, \"cpu_us_per_step\": %.3f, \"loss\": %.4g}\n",
        dtype_name.c_str(), arch.c_str(), n, epochs, steps, s, cpu, 1e6 * cpu / steps, last);
    std::fflush(stdout);
  }
}

// SPDX-License-Identifier: MIT
// Training time of surrogate/relu_net's network (the plugin's own code,
// plugins/surrogates/relu_net/network.hpp): the paper's 25,000 epochs of Adam with batches of
// 64 on RandomMLP(25, 5)-like data, at n = 100, 500, 1,000, one thread. Numbers only; see
// bench/results/nn-milp/training.md.
//
// Usage: relu_net_train_bench [EPOCHS=25000] [HIDDEN=16] [N...]
//   HIDDEN: comma-separated widths ("16", "32", "16,16", "" for linear)
//   prints one JSON object per n on stdout
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "network.hpp"
#include "random_mlp_data.hpp"

using namespace arbo::plugins::relu_net;

int main(int argc, char** argv) {
  const int epochs = argc > 1 ? std::stoi(argv[1]) : 25000;
  std::vector<std::size_t> hidden;
  {
    std::stringstream ss(argc > 2 ? argv[2] : "16");
    std::string w;
    while (std::getline(ss, w, ',')) {
      if (!w.empty()) hidden.push_back(std::stoul(w));
    }
  }
  std::vector<int> ns;
  for (int a = 3; a < argc; ++a) ns.push_back(std::stoi(argv[a]));
  if (ns.empty()) ns = {100, 500, 1000};
  for (int n : ns) {
    const auto data = arbo::bench::random_mlp_data(n, 42);
    SparseRows rows;
    for (int r = 0; r < n; ++r) rows.append_dense(data.X.row(r).transpose());
    Network net(Architecture{125, hidden});
    std::mt19937_64 rng(7);
    net.init_default(rng);
    TrainConfig cfg;
    cfg.epochs = epochs;
    Trainer t;
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const TrainReport r =
        t.train(net, rows, data.y, cfg, [&](int, std::vector<int>& perm) { shuffle(perm, rng); });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    const std::string arch = arbo::bench::hidden_label(hidden);
    std::printf(
        "{\"impl\": \"eigen\", \"hidden\": [%s], \"n\": %d, \"epochs\": %d, \"steps\": %lld, "
        "\"seconds\": %.3f, \"cpu_seconds\": %.3f, \"cpu_us_per_step\": %.3f, \"loss0\": %.4g, "
        "\"loss\": %.4g}\n",
        arch.c_str(), n, epochs, static_cast<long long>(r.steps), s, cpu, 1e6 * cpu / r.steps,
        r.initial_loss, r.final_loss);
    std::fflush(stdout);
  }
}

// SPDX-License-Identifier: MIT
#include "random_mlp.hpp"

#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

#include "portable_random.hpp"

namespace arbo::plugins {

namespace {

constexpr int kPositions = 25;
constexpr int kLetters = 5;
constexpr int kInputs = kPositions * kLetters;
constexpr int kHidden = 128;

void glorot_uniform(Eigen::MatrixXd& w, int fan_in, int fan_out,
                    problems_common::PortableRng& rng) {
  const double limit = std::sqrt(6.0 / (fan_in + fan_out));
  w.resize(fan_in, fan_out);
  for (int i = 0; i < fan_in; ++i) {
    for (int j = 0; j < fan_out; ++j) w(i, j) = limit * (2.0 * rng.uniform() - 1.0);
  }
}

sdk::Space mlp_space() {
  std::vector<sdk::Parameter> p;
  for (int i = 0; i < kPositions; ++i) {
    p.push_back(sdk::Parameter::categorical(fmt::format("p{}", i), {"A", "B", "C", "D", "E"}));
  }
  return sdk::Space(std::move(p));
}

}  // namespace

const sdk::ParamSpecList& RandomMlp::params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::integer("seed",
                              "Seed of the network's weights (PortableRng, identical on every "
                              "machine); the paper used 0, 13, 42 and 77 with TensorFlow's "
                              "generator, whose instances this does not reproduce",
                              0, 0, 4294967295.0),
  };
  return specs;
}

RandomMlp::RandomMlp(const sdk::CreateArgs& args)
    : BenchmarkProblem("random_mlp", mlp_space()),
      seed_(static_cast<std::uint64_t>(args.params.get_int("seed"))) {
  problems_common::PortableRng rng(seed_);
  glorot_uniform(w1_, kInputs, kHidden, rng);
  glorot_uniform(w2_, kHidden, kHidden, rng);
  Eigen::MatrixXd w3;
  glorot_uniform(w3, kHidden, 1, rng);
  w3_ = w3.col(0);
}

sdk::ProblemInfo RandomMlp::info() const {
  sdk::ProblemInfo i;
  i.source = fmt::format(
      "NN+MILP (Papalexopoulos et al.), RandomMLP(25,5), fully connected variant: "
      "125 -> 128 -> 128 -> 1 ReLU network, Glorot-uniform weights, zero biases; own instance "
      "from seed {} (NN+MILP Sec. 4.2, App. B.2); maximized, optimum unknown",
      seed_);
  i.maximize = true;
  return i;
}

void RandomMlp::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  // The first layer on a one-hot input is the sum of one row per position.
  Eigen::VectorXd h1 = Eigen::VectorXd::Zero(kHidden);
  for (int i = 0; i < kPositions; ++i) {
    const long letter = std::lround(x[i]);
    if (letter < 0 || letter >= kLetters) {
      throw sdk::InvalidArgument(
          fmt::format("problem/random_mlp: p{} = {} is not a letter index 0..4", i, x[i]));
    }
    h1 += w1_.row(kLetters * i + static_cast<int>(letter)).transpose();
  }
  h1 = h1.cwiseMax(0.0);
  const Eigen::VectorXd h2 = (w2_.transpose() * h1).cwiseMax(0.0);
  out.objective = w3_.dot(h2);
}

}  // namespace arbo::plugins

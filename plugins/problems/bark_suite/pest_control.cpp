// SPDX-License-Identifier: MIT
#include "pest_control.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

#include "portable_random.hpp"

namespace arbo::plugins {

namespace {

constexpr int kStages = 25;
constexpr int kSimulations = 100;
constexpr double kThreshold = 0.1;
constexpr double kInitBeta = 30.0;
constexpr double kSpreadBeta = 17.0 / 3.0;
// Index 0 is "none"; pesticides 1..4.
constexpr std::array<double, 5> kControlBeta = {0.0, 2.0 / 7.0, 3.0 / 7.0, 3.0 / 7.0, 5.0 / 7.0};
constexpr std::array<double, 5> kTolerance = {0.0, 1.0 / 7.0, 2.5 / 7.0, 2.0 / 7.0, 0.5 / 7.0};
constexpr std::array<double, 5> kPrice = {0.0, 1.0, 0.8, 0.7, 0.5};
constexpr std::array<double, 5> kDiscount = {0.0, 0.2, 0.3, 0.3, 0.0};

sdk::Space pest_space() {
  std::vector<sdk::Parameter> p;
  for (int s = 1; s <= kStages; ++s) {
    p.push_back(
        sdk::Parameter::categorical(fmt::format("stage_{}", s), {"none", "p1", "p2", "p3", "p4"}));
  }
  return sdk::Space(std::move(p));
}

double simulate(const std::array<int, kStages>& h, std::uint64_t seed) {
  problems_common::PortableRng rng(seed);
  std::array<double, kSimulations> cur{};
  for (double& c : cur) c = rng.beta_one(kInitBeta);
  std::array<int, 5> count{};
  for (const int c : h) ++count[static_cast<std::size_t>(c)];
  std::array<double, 5> control_beta = kControlBeta;
  std::array<double, kSimulations> spread{};
  std::array<double, kSimulations> control_u{};
  double price = 0.0;
  double above = 0.0;
  for (int s = 0; s < kStages; ++s) {
    for (double& r : spread) r = rng.beta_one(kSpreadBeta);
    for (double& u : control_u) u = rng.uniform();
    const auto c = static_cast<std::size_t>(h[static_cast<std::size_t>(s)]);
    int n_above = 0;
    for (const double v : cur) n_above += v > kThreshold ? 1 : 0;
    above += static_cast<double>(n_above) / kSimulations;
    if (c > 0) {
      for (int k = 0; k < kSimulations; ++k) {
        const auto i = static_cast<std::size_t>(k);
        const double r = problems_common::PortableRng::beta_one_from(control_u[i], control_beta[c]);
        cur[i] = (1.0 - r) * cur[i];
      }
      control_beta[c] += kTolerance[c] / kStages;
      price += kPrice[c] * (1.0 - kDiscount[c] / kStages * count[c]);
    } else {
      for (int k = 0; k < kSimulations; ++k) {
        const auto i = static_cast<std::size_t>(k);
        cur[i] = spread[i] * (1.0 - cur[i]) + cur[i];
      }
    }
  }
  return price + above;
}

}  // namespace

const sdk::ParamSpecList& PestControl::params() {
  static const sdk::ParamSpecList specs = {
      sdk::ParamSpec::integer("seed",
                              "Seed of the simulator's random numbers (PortableRng, identical on "
                              "every machine); with stochastic = false every evaluation replays "
                              "this stream",
                              0, 0, 4294967295.0),
      sdk::ParamSpec::boolean("stochastic",
                              "Draw a fresh simulator stream for every evaluation from the "
                              "kernel's random engine, making the objective noisy as in the "
                              "reference code",
                              false),
  };
  return specs;
}

PestControl::PestControl(const sdk::CreateArgs& args)
    : BenchmarkProblem("pest_control", pest_space()),
      context_(args.context),
      seed_(static_cast<std::uint64_t>(args.params.get_int("seed"))),
      stochastic_(args.params.get_bool("stochastic")) {}

sdk::ProblemInfo PestControl::info() const {
  sdk::ProblemInfo i;
  i.source =
      "BARK (Boyne et al.), Table 6 PestControl (MCBO; Oh et al. 2019, COMBO), 25 stages x 5 "
      "choices (BARK Sec. 7.3, App. D.2); common random numbers unless stochastic = true; "
      "no published optimum";
  return i;
}

void PestControl::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  std::array<int, kStages> h{};
  for (int s = 0; s < kStages; ++s) {
    const long c = std::lround(x[s]);
    if (c < 0 || c > 4) {
      throw sdk::InvalidArgument(fmt::format(
          "problem/pest_control: stage_{} = {} is not a choice index 0..4", s + 1, x[s]));
    }
    h[static_cast<std::size_t>(s)] = static_cast<int>(c);
  }
  const std::uint64_t seed = stochastic_ ? context_.rng()() : seed_;
  out.objective = simulate(h, seed);
}

}  // namespace arbo::plugins

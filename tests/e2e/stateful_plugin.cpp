// SPDX-License-Identifier: MIT
// Test plugin: a surrogate whose predictions depend on the history of its fits, as an MCMC
// surrogate warm-started from its last sample does. Each fit moves a phase by a draw from
// Context::rng(); the mean is the data's mean plus a sine of the point shifted by the phase.
// `surrogate/chain` saves and restores the phase (sdk::SavesState), `surrogate/chain_unsaved`
// is the same model without the capability, so that a test can show that the state matters:
// a resumed study of the second proposes differently from an uninterrupted one.
#include <charconv>
#include <cmath>
#include <random>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/plugin.hpp>

namespace arbo::plugins {
namespace {

class ChainSurrogate : public sdk::Surrogate {
 public:
  explicit ChainSurrogate(const sdk::CreateArgs& args) : ctx_(args.context) {}
  static const sdk::ParamSpecList& params() {
    static const sdk::ParamSpecList specs;
    return specs;
  }
  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override {
    std::normal_distribution<double> step(0.0, 1.0);
    phase_ += step(ctx_.rng());
    mean_ = data.target(metric).mean();
  }
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    mean.resize(X.rows());
    variance.setOnes(X.rows());
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      mean[i] = mean_ + 10.0 * std::sin(X.row(i).sum() + phase_);
    }
  }

 protected:
  sdk::Context& ctx_;
  double phase_ = 0.0;
  double mean_ = 0.0;
};

class SavedChainSurrogate final : public ChainSurrogate, public sdk::SavesState {
 public:
  using ChainSurrogate::ChainSurrogate;
  static constexpr std::string_view kTag = "chain-v1 ";
  std::string save_state() const override { return fmt::format("{}{:.17g}", kTag, phase_); }
  void restore_state(std::string_view state) override {
    double phase = 0.0;
    const bool tagged = state.substr(0, kTag.size()) == kTag;
    const char* first = state.data() + (tagged ? kTag.size() : 0);
    const char* last = state.data() + state.size();
    const auto [end, ec] = std::from_chars(first, last, phase);
    if (!tagged || ec != std::errc() || end != last || !std::isfinite(phase)) {
      throw sdk::Error(fmt::format("not a saved chain state: '{}'", state));
    }
    phase_ = phase;
  }
};

class UnsavedChainSurrogate final : public ChainSurrogate {
 public:
  using ChainSurrogate::ChainSurrogate;
};

}  // namespace
}  // namespace arbo::plugins

ARBO_PLUGIN_BEGIN("arbo-test-stateful", "0.1.0", "A surrogate whose fits continue each other")
ARBO_COMPONENT(Surrogate, "chain", arbo::plugins::SavedChainSurrogate,
               "Sine of the point shifted by a random walk, saved with the study")
ARBO_COMPONENT(Surrogate, "chain_unsaved", arbo::plugins::UnsavedChainSurrogate,
               "The same random walk, not saved: resumed studies lose it")
ARBO_PLUGIN_END()

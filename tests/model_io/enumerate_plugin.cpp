// SPDX-License-Identifier: MIT
// Test plugin: inner_solver/enumerate, a ModelSolver for `arbo solve` tests that proves
// optimality of small pure-integer models by enumeration.
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/plugin.hpp>

#include "enumerate.hpp"

namespace arbo::test {

class Enumerate final : public sdk::InnerSolver, public sdk::ModelSolver {
 public:
  explicit Enumerate(const sdk::CreateArgs& args)
      : ctx_(args.context), max_points_(args.params.get_int("max_points")) {}

  static const sdk::ParamSpecList& params() {
    static const sdk::ParamSpecList specs{sdk::ParamSpec::integer(
        "max_points", "Largest number of integer points enumerated before giving up", 1000000, 1)};
    return specs;
  }

  sdk::Proposal maximize(const sdk::SolveRequest&) override {
    throw sdk::Error(
        "enumerate solves models (arbo solve) only; it cannot maximize an "
        "acquisition");
  }

  sdk::SolveResult solve(const sdk::Model& model, const sdk::SolveOptions& options) override {
    return enumerate_solve(
        model, options, [this] { return ctx_.cancelled(); }, max_points_);
  }

 private:
  sdk::Context& ctx_;
  std::int64_t max_points_;
};

}  // namespace arbo::test

ARBO_PLUGIN_BEGIN("arbo-test-enumerate", "0.1.0", "Exact enumeration of small integer models")
ARBO_COMPONENT(InnerSolver, "enumerate", arbo::test::Enumerate,
               "Solves small pure-integer models exactly by enumerating every point")
ARBO_PLUGIN_END()

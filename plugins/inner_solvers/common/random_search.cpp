// SPDX-License-Identifier: MIT
#include "random_search.hpp"

#include <fmt/format.h>

namespace arbo::plugins {

sdk::ParamSpecList RandomSearch::make_params(std::int64_t samples, std::int64_t max_tries) {
  return {sdk::ParamSpec::integer(
              "samples",
              "Feasible candidates scored by the acquisition per call; the best one is proposed. "
              "Unused without an acquisition (the first feasible draw is proposed).",
              samples, 1, 1e8),
          FeasibleSampler::max_tries_param(max_tries), FeasibleSampler::projections_param(),
          FeasibleSampler::projection_time_limit_param()};
}

const sdk::ParamSpecList& RandomSearch::params() {
  static const sdk::ParamSpecList specs = make_params(1000, 100000);
  return specs;
}

RandomSearch::RandomSearch(const sdk::CreateArgs& args)
    : samples_(args.params.get_int("samples")),
      max_tries_(args.params.get_int("max_tries")),
      projections_(args.params.get_int("projections")),
      sampler_(args.context, args.params.get_real("projection_time_limit")) {}

sdk::Proposal RandomSearch::maximize(const sdk::SolveRequest& request) {
  if (request.acquisition == nullptr) {
    return sampler_.propose_first_feasible(
        request, max_tries_, projections_,
        "no feasible point in {} draws; projected a uniform draw onto the known constraints");
  }

  // Tiny feasible sets: the sampler tops the pool up with projections of uniform draws.
  const FeasibleSampler::FillCounts counts = sampler_.fill_pool(
      request, samples_, max_tries_, projections_, FeasibleSampler::Mode::Reject);
  const Eigen::MatrixXd& candidates = sampler_.pool();
  if (candidates.rows() == 0) {
    sdk::Proposal result;
    result.note = no_feasible_point_note(counts.tries);
    return result;
  }
  return propose_best(*request.acquisition, candidates, values_,
                      fmt::format("best of {} feasible candidates ({} draws, {} projected)",
                                  candidates.rows(), counts.tries, counts.projected));
}

}  // namespace arbo::plugins

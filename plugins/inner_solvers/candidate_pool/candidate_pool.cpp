// SPDX-License-Identifier: MIT
#include "candidate_pool.hpp"

#include <fmt/format.h>
#include <arbo/sdk/capabilities/acquisition.hpp>

namespace arbo::plugins {

const sdk::ParamSpecList& CandidatePool::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::integer(
          "draws",
          "Candidates per model: the pool asks the acquisition for draws * (1 + number of "
          "black-box constraints) candidates (c-TPE: 24 from each metric's l(x)), or draws that "
          "many uniform points when the acquisition cannot propose candidates.",
          24, 1, 1e7),
      sdk::ParamSpec::integer(
          "rounds",
          "When every proposed candidate violates the known constraints, ask again up to this "
          "many times before falling back to uniform feasible points.",
          10, 1, 1e6),
      sdk::ParamSpec::integer("max_tries",
                              "Most uniform draws per call when looking for points that satisfy "
                              "the known constraints (model-free calls and the fallback).",
                              100000, 1, 1e12)};
  return specs;
}

CandidatePool::CandidatePool(const sdk::CreateArgs& args)
    : ctx_(args.context),
      draws_(args.params.get_int("draws")),
      rounds_(args.params.get_int("rounds")),
      max_tries_(args.params.get_int("max_tries")),
      sampler_(args.context) {}

sdk::Proposal CandidatePool::maximize(const sdk::SolveRequest& request) {
  const auto d = static_cast<Eigen::Index>(request.space.size());
  x_.resize(d);
  filled_ = 0;
  sdk::Proposal result;

  if (request.acquisition == nullptr) {
    // No projections: this solver never used the model solver.
    if (!sampler_.first_feasible(request, max_tries_, 0).found) {
      result.note = "no uniform draw satisfies the known constraints";
      return result;
    }
    result.found = true;
    result.x = sampler_.point();
    result.note = "first uniform point satisfying the known constraints";
    return result;
  }

  sampler_.prepare(request);
  const auto n = static_cast<Eigen::Index>(draws_) *
                 static_cast<Eigen::Index>(1 + request.data.num_constraints());
  pool_.resize(n, d);
  const auto* proposer = dynamic_cast<const sdk::ProposesCandidates*>(request.acquisition);
  std::string source = "uniform";
  if (proposer != nullptr) {
    source = "proposed";
    for (std::int64_t r = 0; r < rounds_ && filled_ == 0; ++r) {
      proposer->candidates(static_cast<std::size_t>(n), ctx_.rng(), proposed_);
      for (Eigen::Index i = 0; i < proposed_.rows(); ++i) {
        x_ = proposed_.row(i).transpose();
        // Snap so that the scored point is the point the kernel will store (inactive
        // coordinates at their defaults, integers on their grid).
        request.space.snap(x_);
        if (!sdk::satisfies(request.constraints, x_) || sampler_.excluded(x_)) continue;
        pool_.row(filled_++) = x_.transpose();
      }
    }
    if (filled_ == 0) source = "uniform fallback";
  }
  if (filled_ == 0) {
    sampler_.fill_pool(request, n, max_tries_, 0, FeasibleSampler::Mode::Reject);
    filled_ = sampler_.pool().rows();
    pool_.topRows(filled_) = sampler_.pool();
  }
  if (filled_ == 0) {
    result.note = "no candidate satisfies the known constraints";
    return result;
  }
  return propose_best(*request.acquisition, pool_.topRows(filled_), values_,
                      fmt::format("best of {} {} candidates", filled_, source));
}

}  // namespace arbo::plugins

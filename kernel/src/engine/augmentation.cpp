// SPDX-License-Identifier: MIT
#include "engine/augmentation.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "arbo/kernel/design.hpp"
#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/random_streams.hpp"
#include "arbo/kernel/study.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"

namespace arbo::kernel {

KnowledgeAugmentation::KnowledgeAugmentation(const Pipeline& pipeline, Components& components,
                                             StudyStore& store, spdlog::logger& logger)
    : pipeline_(pipeline), components_(components), store_(store), logger_(logger) {}

void KnowledgeAugmentation::ensure(bool quiet) {
  const std::vector<std::size_t>& cheap = components_.cheap;
  const sdk::Space& space = components_.space;
  if (cheap.empty() || ready_) return;
  ready_ = true;
  if (const auto stored = store_.meta("augmentation")) {
    // Checked access throughout: damaged metadata is a damaged study (exit 5), never an
    // out-of-range read or an internal error.
    try {
      const auto j = nlohmann::json::parse(*stored, nullptr, false);
      if (j.is_discarded()) throw std::invalid_argument("not valid JSON");
      const auto& xs = j.at("X");
      const auto& cs = j.at("values");
      if (xs.size() != cs.size()) throw std::out_of_range("X and values differ in length");
      X_.resize(static_cast<Eigen::Index>(xs.size()), static_cast<Eigen::Index>(space.size()));
      C_.resize(static_cast<Eigen::Index>(cs.size()), static_cast<Eigen::Index>(cheap.size()));
      for (std::size_t i = 0; i < xs.size(); ++i) {
        if (xs.at(i).size() != space.size() || cs.at(i).size() != cheap.size()) {
          throw std::out_of_range(fmt::format("point {} has the wrong length", i));
        }
        for (std::size_t d = 0; d < space.size(); ++d) {
          X_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(d)) =
              xs.at(i).at(d).get<double>();
        }
        for (std::size_t k = 0; k < cheap.size(); ++k) {
          C_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) =
              cs.at(i).at(k).get<double>();
        }
      }
    } catch (const std::exception& e) {
      throw StudyError(fmt::format("study {}: the metadata 'augmentation' is damaged: {}",
                                   store_.directory().string(), e.what()));
    }
    if (!quiet) {
      logger_.info("knowledge augmentation: read {} stored points of the cheap constraints",
                   X_.rows());
    }
    return;
  }
  const auto points = make_design(
      space, DesignMethod::Random, static_cast<std::size_t>(pipeline_.augmentation.points),
      pipeline_.seed ^ kAugmentationSeedXor,
      [&](const Eigen::VectorXd& x) { return components_.known_violation(x) <= 0.0; },
      components_.known_balance);
  nlohmann::json xs = nlohmann::json::array();
  nlohmann::json cs = nlohmann::json::array();
  std::int64_t failed_points = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const EvalOutcome out = components_.evaluator->evaluate(
        -static_cast<std::int64_t>(i + 1), points[i], params_to_json(space, points[i]));
    if (!out.ok ||
        out.constraints.size() != static_cast<Eigen::Index>(components_.constraints.size())) {
      ++failed_points;
      continue;
    }
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t k : cheap) row.push_back(out.constraints[static_cast<Eigen::Index>(k)]);
    cs.push_back(std::move(row));
    xs.push_back(std::vector<double>(points[i].data(), points[i].data() + points[i].size()));
  }
  store_.set_meta(
      "augmentation",
      nlohmann::json{
          {"constraints", pipeline_.augmentation.cheap_constraints}, {"X", xs}, {"values", cs}}
          .dump());
  logger_.info("knowledge augmentation: evaluated {} points of the cheap constraints ({})",
               points.size(), fmt::join(pipeline_.augmentation.cheap_constraints, ", "));
  if (failed_points > 0) {
    logger_.warn("knowledge augmentation: {} of {} points failed and are not used", failed_points,
                 points.size());
  }
  ready_ = false;  // parse what was stored, so a fresh and a resumed study see the same
  ensure(true);
}

int KnowledgeAugmentation::column(std::size_t m) const {
  const std::vector<std::size_t>& cheap = components_.cheap;
  for (std::size_t k = 0; k < cheap.size(); ++k) {
    if (cheap[k] + 1 == m) return static_cast<int>(k);
  }
  return -1;
}

void KnowledgeAugmentation::fit_partial(std::size_t m, const sdk::Dataset& data,
                                        const sdk::Metric& metric) const {
  const int col = column(m);
  const BlackBoxConstraint& constraint = components_.constraints[m - 1];
  Eigen::VectorXd values(C_.rows());
  for (Eigen::Index i = 0; i < C_.rows(); ++i) values[i] = constraint.normalized(C_(i, col));
  auto* partial =
      dynamic_cast<sdk::FitsPartialObservations*>(components_.surrogates[m].surrogate.get());
  guarded_call(pipeline_.surrogate->id(), "fit_partial",
               [&] { partial->fit_partial(data, metric, X_, values); });
}

}  // namespace arbo::kernel

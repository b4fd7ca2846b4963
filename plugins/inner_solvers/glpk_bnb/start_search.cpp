// SPDX-License-Identifier: MIT
#include "start_search.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <arbo/sdk/acquisition.hpp>
#include <arbo/sdk/constraint.hpp>
#include <arbo/sdk/space.hpp>

namespace arbo::plugins::glpk {
namespace {

constexpr double kMaxEnumerated = 64;

// Candidate values of coordinate j, in encoded units, before snapping.
void candidates(const sdk::SolveRequest& request, std::size_t j, std::vector<double>& out) {
  const sdk::Space& space = request.space;
  const sdk::Parameter& p = space[j];
  const auto jj = static_cast<Eigen::Index>(j);
  out.clear();
  if (p.type == sdk::ParamType::Categorical || p.type == sdk::ParamType::Binary) {
    for (double v = space.lower()[jj]; v <= space.upper()[jj]; v += 1.0) out.push_back(v);
    return;
  }
  if (p.type == sdk::ParamType::Integer && p.upper - p.lower + 1 <= kMaxEnumerated) {
    for (double k = p.lower; k <= p.upper; k += 1.0) out.push_back(p.log_scale ? std::log(k) : k);
    return;
  }
  for (const Eigen::MatrixXd* X : {&request.data.X, &request.data.X_pending}) {
    if (X->cols() != static_cast<Eigen::Index>(space.size())) continue;
    for (Eigen::Index i = 0; i < X->rows(); ++i) {
      if (std::isfinite((*X)(i, jj))) out.push_back((*X)(i, jj));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  // Trees fitted on these rows split midway between consecutive values (XGBoost's exact
  // method): a candidate just past the midpoint lies inside the cell beyond it, not on the
  // threshold, where the model and value() might disagree about the side.
  const std::size_t observed = out.size();
  for (std::size_t k = 0; k + 1 < observed; ++k) {
    out.push_back(out[k] + 0.5 * (1.0 + 1e-3) * (out[k + 1] - out[k]));
  }
  out.push_back(space.lower()[jj]);
  out.push_back(space.upper()[jj]);
}

}  // namespace

StartSearch coordinate_search(const sdk::SolveRequest& request, const Eigen::VectorXd& x0,
                              double v0, std::int64_t max_evaluations,
                              const std::function<bool()>& cancelled) {
  StartSearch s{x0, v0, 0, 0};
  const sdk::Space& space = request.space;
  const sdk::Acquisition* acq = request.acquisition;
  if (acq == nullptr || space.empty() || max_evaluations <= 0) return s;
  const auto d = static_cast<Eigen::Index>(space.size());
  std::vector<double> values;
  Eigen::MatrixXd batch;
  Eigen::VectorXd scores;
  Eigen::VectorXd trial(d);
  bool moved = true;
  while (moved && s.evaluations < max_evaluations && !cancelled()) {
    moved = false;
    for (Eigen::Index j = 0; j < d && s.evaluations < max_evaluations; ++j) {
      if (cancelled()) return s;
      if (!space.is_active(s.x, static_cast<std::size_t>(j))) continue;
      candidates(request, static_cast<std::size_t>(j), values);
      batch.resize(static_cast<Eigen::Index>(values.size()), d);
      Eigen::Index rows = 0;
      for (const double v : values) {
        if (s.evaluations + rows >= max_evaluations) break;
        trial = s.x;
        trial[j] = v;
        space.snap(trial);
        if (trial == s.x || !sdk::satisfies(request.constraints, trial)) continue;
        batch.row(rows++) = trial.transpose();
      }
      if (rows == 0) continue;
      scores.resize(rows);
      acq->values(batch.topRows(rows), scores);
      s.evaluations += rows;
      Eigen::Index best = 0;
      for (Eigen::Index r = 1; r < rows; ++r) {
        if (scores[r] > scores[best]) best = r;
      }
      // Strictly better beyond rounding, so that the search cannot cycle among equal values.
      if (std::isfinite(scores[best]) &&
          scores[best] > s.value + 1e-12 * std::max(1.0, std::abs(s.value))) {
        s.x = batch.row(best).transpose();
        s.value = scores[best];
        ++s.moves;
        moved = true;
      }
    }
  }
  return s;
}

}  // namespace arbo::plugins::glpk

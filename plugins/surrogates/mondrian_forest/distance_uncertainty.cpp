// SPDX-License-Identifier: MIT
#include "distance_uncertainty.hpp"

#include <algorithm>
#include <cmath>

namespace arbo::plugins {

void DistanceUncertainty::configure(const sdk::Space& space, DistanceScaling scaling, double zeta,
                                    bool literal_goodall) {
  space_ = &space;
  scaling_ = scaling;
  zeta_ = zeta;
  literal_goodall_ = literal_goodall;
}

void DistanceUncertainty::fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  const Eigen::Index n = X.rows();
  const Eigen::Index d = X.cols();
  const bool typed = space_ != nullptr && static_cast<Eigen::Index>(space_->size()) == d;
  continuous_.clear();
  categorical_.clear();
  for (Eigen::Index k = 0; k < d; ++k) {
    // Binary coordinates are unordered two-valued categories, so they get Goodall4 too;
    // integers are ordered and count as continuous (ENTMOOT treats them the same way).
    const bool cat =
        typed && ((*space_)[static_cast<std::size_t>(k)].type == sdk::ParamType::Categorical ||
                  (*space_)[static_cast<std::size_t>(k)].type == sdk::ParamType::Binary);
    (cat ? categorical_ : continuous_).push_back(k);
  }

  const auto nc = static_cast<Eigen::Index>(continuous_.size());
  shift_.resize(nc);
  scale_.resize(nc);
  Xc_.resize(n, nc);
  for (Eigen::Index c = 0; c < nc; ++c) {
    const Eigen::Index k = continuous_[static_cast<std::size_t>(c)];
    double shift = 0.0;
    double scale = 1.0;
    if (scaling_ == DistanceScaling::Standard) {
      // Ambiguity: the thesis (Sec. 4.2) does not say how inputs are scaled; ENTMOOT v1, whose
      // distance code the thesis extends (Sec. 4.4), standardizes with the training mean and
      // population std (ddof = 0, sklearn's StandardScaler).
      shift = X.col(k).mean();
      scale = std::sqrt((X.col(k).array() - shift).square().mean());
    } else if (scaling_ == DistanceScaling::Bounds && typed) {
      shift = space_->lower()[k];
      scale = space_->upper()[k] - space_->lower()[k];
    }
    // A constant coordinate (or a fixed parameter) carries no distance; avoid 0/0.
    if (!(scale > 0.0) || !std::isfinite(scale)) scale = 1.0;
    shift_[c] = shift;
    scale_[c] = scale;
    Xc_.col(c) = (X.col(k).array() - shift) / scale;
  }

  const auto nk = static_cast<Eigen::Index>(categorical_.size());
  Xk_.resize(n, nk);
  goodall_.assign(static_cast<std::size_t>(nk), Eigen::VectorXd());
  for (Eigen::Index c = 0; c < nk; ++c) {
    const Eigen::Index k = categorical_[static_cast<std::size_t>(c)];
    const auto& p = (*space_)[static_cast<std::size_t>(k)];
    const auto levels =
        static_cast<Eigen::Index>(p.type == sdk::ParamType::Binary ? 2 : p.choices.size());
    Xk_.col(c) = X.col(k).array().round();
    Eigen::VectorXd counts = Eigen::VectorXd::Zero(levels);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double a = Xk_(i, c);
      if (a >= 0 && a < static_cast<double>(levels)) counts[static_cast<Eigen::Index>(a)] += 1.0;
    }
    // Goodall4: S(a, a) = c(a)(c(a) - 1) / (n(n - 1)); with n < 2 no pair exists, so S = 0.
    // Ambiguity: the thesis (Eq. 4.2) adds the similarity itself, with a 1/D factor, as if it
    // were a distance; ENTMOOT, whose code the thesis extends (Sec. 4.4), adds the
    // non-similarity 1 - S per categorical coordinate, which is positive even between equal
    // categories (0 only for a category all rows share). The thesis's distance to the closest
    // observed point (Sec. 4.2) also means u = 0 at observed points, and the literal form
    // breaks that: measured on func3c (3 categoricals), cwei then re-proposed
    // near-copies of observed infeasible points and found a feasible point on 1 of 5 seeds
    // (random search: 5 of 5). By default equal categories therefore add 0 and different ones
    // 1 - S = 1 (Goodall4's S is 0 between different categories); `categorical_distance =
    // "entmoot"` restores the literal form.
    const double pairs = static_cast<double>(n) * static_cast<double>(n - 1);
    goodall_[static_cast<std::size_t>(c)] =
        pairs > 0.0 ? Eigen::VectorXd(counts.array() * (counts.array() - 1.0) / pairs)
                    : Eigen::VectorXd(Eigen::VectorXd::Zero(levels));
  }

  // Ambiguity: "Min-Max scaling to [0, max|y|]" (Sec. 4.2) could mean scaling over each batch of
  // candidates; that depends on the batch and is degenerate for Nelder-Mead's single points,
  // so the fixed factor max|y| of Eq. 4.3 is used. y is the metric as the kernel gives it
  // (objective in minimization sense, constraints as raw c(x)).
  y_largest_ = n > 0 ? y.cwiseAbs().maxCoeff() : 0.0;
  // Var(y) with ddof = 0 (numpy's default); the cap is zeta * Var(y) of this model's own
  // target, so the objective and every constraint have their own scale.
  const double var = n > 0 ? (y.array() - y.mean()).square().mean() : 0.0;
  cap_ = zeta_ * var;
}

void DistanceUncertainty::evaluate(const Eigen::MatrixXd& Xt, Eigen::VectorXd& u) const {
  const Eigen::Index m = Xt.cols();
  const Eigen::Index n = Xc_.rows();
  u.resize(m);
  // One scratch vector per call; the inner loops run along the n training rows, which
  // vectorizes for any dimension and gives an exact 0 at a training point (no |a|^2 + |b|^2 -
  // 2ab cancellation).
  Eigen::ArrayXd dist(n);
  for (Eigen::Index i = 0; i < m; ++i) {
    dist.setZero();
    for (std::size_t c = 0; c < continuous_.size(); ++c) {
      const auto ci = static_cast<Eigen::Index>(c);
      const double q = (Xt(continuous_[c], i) - shift_[ci]) / scale_[ci];
      dist += (Xc_.col(ci).array() - q).square();
    }
    for (std::size_t c = 0; c < categorical_.size(); ++c) {
      const auto ci = static_cast<Eigen::Index>(c);
      // Unsnapped query codes are rounded to the nearest category; codes no row has (or
      // outside the space) have similarity 0, i.e. non-similarity 1 to every row.
      const double a = std::round(Xt(categorical_[c], i));
      const Eigen::VectorXd& table = goodall_[c];
      const double s = a >= 0 && a < static_cast<double>(table.size())
                           ? table[static_cast<Eigen::Index>(a)]
                           : 0.0;
      if (literal_goodall_) {
        dist += 1.0;
        if (s > 0.0) dist -= s * (Xk_.col(ci).array() == a).cast<double>();
      } else {
        dist += (Xk_.col(ci).array() != a).cast<double>();
      }
    }
    const double nearest = n > 0 ? dist.minCoeff() : 0.0;
    u[i] = std::min(y_largest_ * nearest, cap_);
  }
}

}  // namespace arbo::plugins

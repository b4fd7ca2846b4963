// SPDX-License-Identifier: MIT
#include "distance_uncertainty.hpp"

#include <algorithm>
#include <cmath>

namespace arbo::plugins {
namespace {

// Goodall4's S(a, a) for the category code `a` (0 for a code no row has or outside the table).
double similarity(const Eigen::VectorXd& table, double a) {
  return a >= 0 && a < static_cast<double>(table.size()) ? table[static_cast<Eigen::Index>(a)]
                                                         : 0.0;
}

}  // namespace

void DistanceUncertainty::configure(const sdk::Space& space, DistanceScaling scaling, double zeta,
                                    CategoricalDistance categorical, DistanceUnits units) {
  space_ = &space;
  scaling_ = scaling;
  zeta_ = zeta;
  categorical_distance_ = categorical;
  units_ = units;
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
  self_.resize(n, nk);
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
    // Goodall4 (Eq. 4.2): S(a, a) = c(a)(c(a) - 1) / (n(n - 1)), S(a, b) = 0 for a != b; with
    // n < 2 no pair exists, so S = 0.
    const double pairs = static_cast<double>(n) * static_cast<double>(n - 1);
    Eigen::VectorXd& table = goodall_[static_cast<std::size_t>(c)];
    table = pairs > 0.0 ? Eigen::VectorXd(counts.array() * (counts.array() - 1.0) / pairs)
                        : Eigen::VectorXd(Eigen::VectorXd::Zero(levels));
    for (Eigen::Index i = 0; i < n; ++i) self_(i, c) = similarity(table, Xk_(i, c));
  }
  // Ambiguity: Eq. 4.2 sums the similarity S itself "as the distance", with a 1/D factor, so
  // read literally a point's distance to its own copy would be positive and to any other
  // category 0. A similarity that is a kernel (Goodall4's is: a diagonal matrix with
  // entries S(a) >= 0) induces the squared distance S(a, a) + S(b, b) - 2 S(a, b), which is
  // in the same squared units as Eq. 4.1, is 0 between equal categories (so u = 0 at observed
  // points, the thesis's "distance to the closest previously observed point", Sec. 4.2) and
  // uses the Goodall4 table: mismatches between frequent categories count more. D is "the
  // number of dimensions of the input space" (Sec. 4.2), all coordinates, as printed.
  inv_dim_ = d > 0 ? 1.0 / static_cast<double>(d) : 1.0;

  // Ambiguity: "Min-Max scaling to [0, max|y|]" (Sec. 4.2) could mean scaling over each batch of
  // candidates; that depends on the batch and is degenerate for Nelder-Mead's single points,
  // so the fixed factor max|y| of Eq. 4.3 is used. y is the metric as the kernel gives it
  // (objective in minimization sense, constraints as raw c(x)).
  const double y_largest = n > 0 ? y.cwiseAbs().maxCoeff() : 0.0;
  // Ambiguity (units): the thesis's u is a variance (Eqs. 2.29, 4.6; N(x | M(x), u(x)) in the
  // probability of feasibility, Eq. 3.2) and is clipped at the variance V(y) (Eq. 4.3), but
  // dist * max|y| has the units of y, not y^2: taken literally (`variance_literal`) sigma
  // would not scale with the objective. By default the scale factor is squared, so that sigma
  // = max|y| * sqrt(dist) is the distance "scaled to [0, max|y|]" and u = sigma^2 is capped at
  // zeta * V(y): multiplying y by a constant multiplies sigma by the same constant.
  distance_factor_ = units_ == DistanceUnits::Variance ? y_largest * y_largest : y_largest;
  // Var(y) with ddof = 0 (numpy's default); the cap is zeta * Var(y) of this model's own
  // target, so the objective and every constraint have their own scale.
  const double var = n > 0 ? (y.array() - y.mean()).square().mean() : 0.0;
  cap_ = zeta_ * var;
}

void DistanceUncertainty::evaluate(const Eigen::MatrixXd& Xt, Eigen::VectorXd& variance) const {
  const Eigen::Index m = Xt.cols();
  const Eigen::Index n = Xc_.rows();
  variance.resize(m);
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
      // outside the space) have S = 0.
      const double a = std::round(Xt(categorical_[c], i));
      const double s = similarity(goodall_[c], a);
      const auto differs = (Xk_.col(ci).array() != a).cast<double>();
      switch (categorical_distance_) {
        case CategoricalDistance::Goodall4:
          dist += differs * (s + self_.col(ci).array()) * inv_dim_;
          break;
        case CategoricalDistance::Hamming: dist += differs; break;
        case CategoricalDistance::Entmoot: dist += 1.0 - (1.0 - differs) * s; break;
      }
    }
    const double nearest = n > 0 ? dist.minCoeff() : 0.0;
    const double u = std::min(distance_factor_ * nearest, cap_);
    variance[i] = units_ == DistanceUnits::StdDev ? u * u : u;
  }
}

}  // namespace arbo::plugins

// SPDX-License-Identifier: MIT
#include "parzen.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::tpe {

namespace {

constexpr double kLogEps = -690.7755278982137;  // log(1e-300), the reference code's EPS
constexpr double kHalfLog2Pi = 0.91893853320467274178;
constexpr double kInvSqrt2 = 0.70710678118654752440;

double snap_category(double v, int k) {
  return std::clamp(std::round(v), 0.0, static_cast<double>(k - 1));
}

// numpy.percentile's default (linear interpolation between order statistics). Reorders
// `v`; O(n) with two selections instead of a sort (the fit is on the proposal's hot path).
double percentile(std::vector<double>& v, double p) {
  const double pos = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  // The next order statistic is the smallest value of the upper part.
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (pos - static_cast<double>(lo)) * (b - a);
}

}  // namespace

double log_normal_mass(double a, double b) {
  // Work in the tail where the difference of CDFs does not cancel.
  double mass = 0.0;
  if (a > 0.0) {
    mass = 0.5 * (std::erfc(a * kInvSqrt2) - std::erfc(b * kInvSqrt2));
  } else {
    mass = 0.5 * (std::erfc(-b * kInvSqrt2) - std::erfc(-a * kInvSqrt2));
  }
  return mass > 1e-300 ? std::log(mass) : kLogEps;
}

Encoding::Encoding(const sdk::Space& space) {
  dims_.resize(space.size());
  for (std::size_t d = 0; d < space.size(); ++d) {
    const sdk::Parameter& p = space[d];
    DimModel& m = dims_[d];
    switch (p.type) {
      case sdk::ParamType::Real:
        m.kind = DimModel::Kind::Continuous;
        m.lb = space.lower()[static_cast<Eigen::Index>(d)];
        m.ub = space.upper()[static_cast<Eigen::Index>(d)];
        break;
      case sdk::ParamType::Integer: {
        // A clean integer grid: the kernel's mass on v is its mass on v's cell, so sampling
        // the widened truncated Gaussian and rounding in user units draws exactly that pmf
        // (the reference code's half-offset grid and round-half-even are not reproduced).
        m.kind = DimModel::Kind::Integer;
        m.log_scale = p.log_scale;
        m.ilo = static_cast<std::int64_t>(std::llround(p.lower));
        m.ihi = static_cast<std::int64_t>(std::llround(p.upper));
        const double lo = static_cast<double>(m.ilo) - 0.5;
        const double hi = static_cast<double>(m.ihi) + 0.5;
        m.lb = p.log_scale ? std::log(lo) : lo;
        m.ub = p.log_scale ? std::log(hi) : hi;
        break;
      }
      case sdk::ParamType::Categorical:
        m.kind = DimModel::Kind::Categorical;
        m.choices = static_cast<int>(p.choices.size());
        break;
      case sdk::ParamType::Binary:
        m.kind = DimModel::Kind::Categorical;
        m.choices = 2;
        break;
    }
    m.center = 0.5 * (m.lb + m.ub);
    m.range = m.ub - m.lb;
    if (p.condition) {
      has_conditions_ = true;
      const auto parent = space.index_of(p.condition->parent);
      if (!parent) throw sdk::InvalidArgument("unknown condition parent " + p.name);
      m.parent = static_cast<int>(*parent);
      const sdk::Parameter& pp = space[*parent];
      for (const sdk::Value& v : p.condition->values) {
        if (const auto* s = std::get_if<std::string>(&v)) {
          const auto it = std::find(pp.choices.begin(), pp.choices.end(), *s);
          if (it != pp.choices.end()) m.allowed.push_back(double(it - pp.choices.begin()));
        } else if (const auto* b = std::get_if<bool>(&v)) {
          m.allowed.push_back(*b ? 1.0 : 0.0);
        } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
          const auto x = static_cast<double>(*i);
          m.allowed.push_back(pp.log_scale ? std::log(x) : x);
        } else if (const auto* r = std::get_if<double>(&v)) {
          m.allowed.push_back(pp.log_scale ? std::log(*r) : *r);
        }
      }
    }
  }
}

void Encoding::activity(const Eigen::VectorXd& x, std::vector<std::uint8_t>& active) const {
  active.assign(dims_.size(), 1);
  if (!has_conditions_) return;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    const DimModel& m = dims_[d];
    if (m.parent < 0) continue;
    const auto p = static_cast<std::size_t>(m.parent);
    bool on = active[p] != 0;
    if (on) {
      const double v = x[static_cast<Eigen::Index>(p)];
      on = std::any_of(m.allowed.begin(), m.allowed.end(),
                       [&](double a) { return std::abs(a - v) <= 1e-9 * (1.0 + std::abs(a)); });
    }
    active[d] = on ? 1 : 0;
  }
}

void Encoding::integer_cell(std::size_t d, double x, double& a, double& b) const {
  const DimModel& m = dims_[d];
  double v = std::round(m.log_scale ? std::exp(x) : x);
  v = std::clamp(v, static_cast<double>(m.ilo), static_cast<double>(m.ihi));
  a = m.log_scale ? std::log(v - 0.5) : v - 0.5;
  b = m.log_scale ? std::log(v + 0.5) : v + 0.5;
}

void Parzen::fit(const Encoding& enc, const Eigen::MatrixXd& X,
                 const std::vector<Eigen::Index>& rows, const std::vector<std::uint8_t>& active,
                 const ParzenOptions& options) {
  enc_ = &enc;
  opt_ = options;
  const std::size_t D = enc.dim();
  const auto n = static_cast<Eigen::Index>(rows.size());
  const Eigen::Index B = n + (options.prior ? 1 : 0);
  if (B == 0) throw sdk::InvalidArgument("a Parzen estimator needs a point or the prior");
  // Uniform weights; the prior weighs as much as one observation.
  weights_log_ = Eigen::ArrayXd::Constant(B, -std::log(static_cast<double>(B)));
  bandwidth_.assign(D, 0.0);
  mu_.resize(B, static_cast<Eigen::Index>(D));
  sigma_.resize(B, static_cast<Eigen::Index>(D));
  inv_sigma_.resize(B, static_cast<Eigen::Index>(D));
  log_const_.resize(B, static_cast<Eigen::Index>(D));
  log_other_.resize(B, static_cast<Eigen::Index>(D));
  acc_.resize(B);
  tmp_.resize(B);
  const auto is_active = [&](Eigen::Index r, std::size_t d) {
    return active.empty() || active[static_cast<std::size_t>(r) * D + d] != 0;
  };
  std::vector<double> vals;
  for (std::size_t d = 0; d < D; ++d) {
    const auto dd = static_cast<Eigen::Index>(d);
    const DimModel& m = enc[d];
    if (m.kind == DimModel::Kind::Categorical) {
      const int k = m.choices;
      const double own = k > 1 ? std::log(opt_.top) : 0.0;
      const double other = k > 1 ? std::log((1.0 - opt_.top) / (k - 1)) : 0.0;
      const double uniform = -std::log(static_cast<double>(k));
      for (Eigen::Index b = 0; b < B; ++b) {
        const bool obs = b < n && is_active(rows[static_cast<std::size_t>(b)], d);
        mu_(b, dd) = obs ? snap_category(X(rows[static_cast<std::size_t>(b)], dd), k) : -1.0;
        sigma_(b, dd) = inv_sigma_(b, dd) = 0.0;
        log_const_(b, dd) = obs ? own : uniform;
        log_other_(b, dd) = obs ? other : uniform;
      }
      continue;
    }
    // The reference bandwidth: Silverman-type, on the active observed values plus the domain
    // centre (m = n + 1), clipped to [eps R, 0.5 R]; IQR = 0 gives the minimum.
    vals.clear();
    for (Eigen::Index b = 0; b < n; ++b) {
      const Eigen::Index r = rows[static_cast<std::size_t>(b)];
      if (is_active(r, d)) vals.push_back(std::clamp(X(r, dd), m.lb, m.ub));
    }
    vals.push_back(m.center);
    double h = opt_.max_bandwidth * m.range;
    if (vals.size() >= 2) {
      const auto cnt = static_cast<double>(vals.size());
      double mean = 0.0;
      for (double v : vals) mean += v;
      mean /= cnt;
      double ss = 0.0;
      for (double v : vals) ss += (v - mean) * (v - mean);
      const double sd = std::sqrt(ss / (cnt - 1.0));
      const double iqr = percentile(vals, 0.75) - percentile(vals, 0.25);
      h = 1.059 * std::min(iqr / 1.34, sd) * std::pow(cnt, -0.2);
    }
    h = std::clamp(h, opt_.eps_bandwidth * m.range, opt_.max_bandwidth * m.range);
    bandwidth_[d] = h;
    for (Eigen::Index b = 0; b < B; ++b) {
      const bool obs = b < n && is_active(rows[static_cast<std::size_t>(b)], d);
      const double mu =
          obs ? std::clamp(X(rows[static_cast<std::size_t>(b)], dd), m.lb, m.ub) : m.center;
      const double s = obs ? h : m.range;
      mu_(b, dd) = mu;
      sigma_(b, dd) = s;
      inv_sigma_(b, dd) = 1.0 / s;
      const double log_z = log_normal_mass((m.lb - mu) / s, (m.ub - mu) / s);
      log_const_(b, dd) =
          m.kind == DimModel::Kind::Continuous ? -std::log(s) - kHalfLog2Pi - log_z : -log_z;
      log_other_(b, dd) = 0.0;
    }
  }
}

double Parzen::log_pdf(const Eigen::VectorXd& x, const std::vector<std::uint8_t>& active_x) const {
  const Encoding& enc = *enc_;
  acc_ = weights_log_;
  const Eigen::Index B = acc_.size();
  for (std::size_t d = 0; d < enc.dim(); ++d) {
    if (!active_x.empty() && active_x[d] == 0) continue;
    const auto dd = static_cast<Eigen::Index>(d);
    const DimModel& m = enc[d];
    switch (m.kind) {
      case DimModel::Kind::Continuous: {
        const double xv = std::clamp(x[dd], m.lb, m.ub);
        tmp_ = (xv - mu_.col(dd)) * inv_sigma_.col(dd);
        acc_ += log_const_.col(dd) - 0.5 * tmp_.square();
        break;
      }
      case DimModel::Kind::Integer: {
        double a = 0.0, b = 0.0;
        enc.integer_cell(d, x[dd], a, b);
        for (Eigen::Index k = 0; k < B; ++k) {
          const double mu = mu_(k, dd), is = inv_sigma_(k, dd);
          acc_[k] += log_const_(k, dd) + log_normal_mass((a - mu) * is, (b - mu) * is);
        }
        break;
      }
      case DimModel::Kind::Categorical: {
        const double c = snap_category(x[dd], m.choices);
        acc_ += (mu_.col(dd) == c).select(log_const_.col(dd), log_other_.col(dd));
        break;
      }
    }
  }
  const double top = acc_.maxCoeff();
  if (!std::isfinite(top)) return kLogEps;
  // The exponentials dominate the proposal's time for large data sets; in single precision
  // they run twice as wide (halving the proposal time at n = 1000). Each term is <= 1 with
  // relative error ~1e-7 and the sum is taken in double, so log p is within ~1e-7 of the
  // exact value: far below what the argmax over the candidates can notice.
  return top + std::log((acc_ - top).cast<float>().exp().cast<double>().sum());
}

double Parzen::sample_dim(std::size_t d, Eigen::Index b, std::mt19937_64& rng) const {
  const DimModel& m = (*enc_)[d];
  const auto dd = static_cast<Eigen::Index>(d);
  if (m.kind == DimModel::Kind::Categorical) {
    const int k = m.choices;
    const double own = mu_(b, dd);
    if (own < 0.0 || k == 1) return double(std::uniform_int_distribution<int>(0, k - 1)(rng));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    if (unit(rng) < opt_.top) return own;
    // Uniform over the other k - 1 categories.
    const int pick = std::uniform_int_distribution<int>(0, k - 2)(rng);
    return double(pick >= static_cast<int>(own) ? pick + 1 : pick);
  }
  // Truncated Gaussian by rejection: the centre lies in [lb, ub] and sigma <= R, so at least a
  // third of the draws are accepted; the clamp after 64 misses has probability < 1e-11.
  std::normal_distribution<double> normal(mu_(b, dd), sigma_(b, dd));
  double v = mu_(b, dd);
  for (int t = 0; t < 64; ++t) {
    const double z = normal(rng);
    if (z >= m.lb && z <= m.ub) {
      v = z;
      break;
    }
  }
  if (m.kind == DimModel::Kind::Integer) {
    double u = std::round(m.log_scale ? std::exp(v) : v);
    u = std::clamp(u, static_cast<double>(m.ilo), static_cast<double>(m.ihi));
    return m.log_scale ? std::log(u) : u;
  }
  return v;
}

void Parzen::sample(std::size_t n, std::mt19937_64& rng, bool joint, Eigen::MatrixXd& out,
                    Eigen::Index row0) const {
  const Eigen::Index B = weights_log_.size();
  std::uniform_int_distribution<Eigen::Index> pick(0, B - 1);  // uniform weights
  for (std::size_t i = 0; i < n; ++i) {
    const Eigen::Index r = row0 + static_cast<Eigen::Index>(i);
    const Eigen::Index shared = joint ? pick(rng) : 0;
    for (std::size_t d = 0; d < enc_->dim(); ++d) {
      const Eigen::Index b = joint ? shared : pick(rng);
      out(r, static_cast<Eigen::Index>(d)) = sample_dim(d, b, rng);
    }
  }
}

}  // namespace arbo::plugins::tpe

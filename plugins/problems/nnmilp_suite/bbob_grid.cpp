// SPDX-License-Identifier: MIT
#include "bbob_grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

#include "portable_random.hpp"

namespace arbo::plugins {

namespace {

constexpr int kDim = 10;
constexpr int kLevels = 10;
constexpr int kZeroIndex = 4;  // the level overwritten with 0
constexpr int kMadPoints = 30;
constexpr std::uint64_t kMadSeed = 0;
constexpr double kPi = std::numbers::pi;

const char* function_name(BbobFunction f) {
  switch (f) {
    case BbobFunction::Sphere: return "sphere";
    case BbobFunction::EllipsoidSeparable: return "ellipsoid_separable";
    case BbobFunction::AttractiveSector: return "attractive_sector";
    case BbobFunction::StepEllipsoid: return "step_ellipsoid";
    case BbobFunction::Discus: return "discus";
    case BbobFunction::BentCigar: return "bent_cigar";
    case BbobFunction::Weierstrass: return "weierstrass";
    case BbobFunction::SchaffersF7: return "schaffers_f7";
    case BbobFunction::Schwefel: return "schwefel";
    case BbobFunction::Gallagher21me: return "gallagher_21me";
  }
  return "?";
}

double tosz(double e) {
  if (e == 0.0) return 0.0;
  const double xc = std::log(std::abs(e));
  const double c1 = e > 0 ? 10.0 : 5.5;
  const double c2 = e > 0 ? 7.9 : 3.1;
  return (e > 0 ? 1.0 : -1.0) * std::exp(xc + 0.049 * (std::sin(c1 * xc) + std::sin(c2 * xc)));
}

// Diagonal entry i of BBOB's Lambda^alpha.
double lambda(double alpha, Eigen::Index i, Eigen::Index dim) {
  return std::pow(alpha, 0.5 * (static_cast<double>(i) / static_cast<double>(dim - 1)));
}

Eigen::VectorXd tasy(const Eigen::VectorXd& v, double beta) {
  Eigen::VectorXd out = v;
  const auto dim = static_cast<double>(v.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (v[i] > 0) {
      const double t = static_cast<double>(i) / (dim - 1.0);
      out[i] = std::pow(v[i], 1.0 + beta * t * std::sqrt(v[i]));
    }
  }
  return out;
}

double fpen(const Eigen::VectorXd& v) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    const double e = std::max(0.0, std::abs(v[i]) - 5.0);
    s += e * e;
  }
  return s;
}

constexpr double kSchwefelXopt = 4.2096874633 / 2.0;

// z_i of Schwefel from x_{i-1} (ignored for i = 0) and x_i.
double schwefel_z(Eigen::Index i, Eigen::Index dim, double prev, double cur) {
  const auto b = [](Eigen::Index k) { return k % 2 == 0 ? -1.0 : 1.0; };
  const double two_abs_xopt = 2.0 * kSchwefelXopt;  // 2 |x_opt,i|, the same for every i
  double z_hat = 2.0 * b(i) * cur;
  if (i > 0) z_hat += 0.25 * (2.0 * b(i - 1) * prev - two_abs_xopt);
  return 100.0 * (lambda(10.0, i, dim) * (z_hat - two_abs_xopt) + two_abs_xopt);
}

// One coordinate's share of Schwefel, without the constant.
double schwefel_term(double z, Eigen::Index dim) {
  const double pen = std::max(0.0, std::abs(z / 100.0) - 5.0);
  return -(z * std::sin(std::sqrt(std::abs(z)))) / (100.0 * static_cast<double>(dim)) +
         100.0 * pen * pen;
}

constexpr double kSchwefelConstant = 4.189828872724339;

double gallagher21(const Eigen::VectorXd& x) {
  const Eigen::Index dim = x.size();
  constexpr int num_optima = 21;
  double max_value = -1.0;
  for (int q = 0; q < num_optima; ++q) {
    double w, c_scale, alpha;
    if (q == 0) {
      w = 10.0;
      alpha = 1000.0;
      c_scale = 1.0;
    } else {
      const int p = q - 1;
      w = 1.1 + 8.0 * (q - 1.0) / (num_optima - 2.0);
      alpha = std::pow(1000.0, 2.0 * p / (num_optima - 2));
      c_scale = 1.0 / std::pow(alpha, 0.25);
    }
    double e = 0.0;
    for (Eigen::Index j = 0; j < dim; ++j) {
      double y = 0.0;
      if (q > 0) {
        const double a = (static_cast<double>((q - 1) * dim + j) + 1.0) /
                         static_cast<double>(dim * num_optima + 2);
        y = -5.0 + 10.0 * a;
      }
      const double d = x[j] - y;
      e += lambda(alpha, j, dim) * c_scale * d * d;
    }
    max_value = std::max(max_value, w * std::exp(-e / (2.0 * static_cast<double>(dim))));
  }
  const double t = tosz(10.0 - max_value);
  return t * t + fpen(x);
}

sdk::Space grid_space() {
  static const std::vector<std::string> labels = {"-5",     "-3.8889", "-2.7778", "-1.6667", "0",
                                                  "0.5556", "1.6667",  "2.7778",  "3.8889",  "5"};
  std::vector<sdk::Parameter> p;
  for (int i = 0; i < kDim; ++i)
    p.push_back(sdk::Parameter::categorical(fmt::format("x{}", i), labels));
  return sdk::Space(std::move(p));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

const std::array<double, 10>& BbobGridProblem::grid() {
  static const std::array<double, 10> values = [] {
    std::array<double, 10> v{};
    for (int k = 0; k < kLevels; ++k)
      v[static_cast<std::size_t>(k)] = -5.0 + 10.0 * k / (kLevels - 1);
    v[kZeroIndex] = 0.0;
    return v;
  }();
  return values;
}

double BbobGridProblem::raw_value(BbobFunction f, const Eigen::VectorXd& x) {
  const Eigen::Index dim = x.size();
  switch (f) {
    case BbobFunction::Sphere: return x.squaredNorm();
    case BbobFunction::EllipsoidSeparable: {
      double s = 0.0;
      for (Eigen::Index i = 0; i < dim; ++i) {
        const double z = tosz(x[i]);
        s += std::pow(10.0, 6.0 * static_cast<double>(i) / static_cast<double>(dim - 1)) * z * z;
      }
      return s;
    }
    case BbobFunction::AttractiveSector: {
      double result = 0.0;
      for (Eigen::Index i = 0; i < dim; ++i) {
        const double xopt = i % 2 == 0 ? 1.0 : -1.0;
        const double z = lambda(10.0, i, dim) * (x[i] - xopt);
        const double s = z * xopt > 0 ? 100.0 : 1.0;
        result += (s * z) * (s * z);
      }
      return std::pow(tosz(result), 0.9);
    }
    case BbobFunction::StepEllipsoid: {
      double s = 0.0;
      double z0 = 0.0;
      for (Eigen::Index i = 0; i < dim; ++i) {
        const double z_hat = lambda(10.0, i, dim) * x[i];
        if (i == 0) z0 = z_hat;
        const double z_tilde =
            z_hat > 0.5 ? std::floor(0.5 + z_hat) : std::floor(0.5 + 10.0 * z_hat) / 10.0;
        s += std::pow(10.0, 2.0 * static_cast<double>(i) / (static_cast<double>(dim) - 1.0)) *
             z_tilde * z_tilde;
      }
      return 0.1 * std::max(std::abs(z0) / 1000.0, s) + fpen(x);
    }
    case BbobFunction::Discus: {
      double s = 0.0;
      for (Eigen::Index i = 0; i < dim; ++i) {
        const double z = tosz(x[i]);
        s += (i == 0 ? 1e6 : 1.0) * z * z;
      }
      return s;
    }
    case BbobFunction::BentCigar: {
      const Eigen::VectorXd z = tasy(x, 0.5);
      return z[0] * z[0] + 1e6 * z.tail(dim - 1).squaredNorm();
    }
    case BbobFunction::Weierstrass: {
      constexpr int k_order = 12;
      double f0 = 0.0;
      for (int k = 0; k < k_order; ++k) f0 += std::pow(0.5, k) * std::cos(kPi * std::pow(3.0, k));
      double s = 0.0;
      for (Eigen::Index i = 0; i < dim; ++i) {
        const double z = lambda(0.01, i, dim) * tosz(x[i]);
        for (int k = 0; k < k_order; ++k) {
          s += std::pow(0.5, k) * std::cos(2.0 * kPi * std::pow(3.0, k) * (z + 0.5));
        }
      }
      const double d = s / static_cast<double>(dim) - f0;
      return 10.0 * d * d * d + 10.0 * fpen(x) / static_cast<double>(dim);
    }
    case BbobFunction::SchaffersF7: {
      const Eigen::VectorXd t = tasy(x, 0.5);
      Eigen::VectorXd z(dim);
      for (Eigen::Index i = 0; i < dim; ++i) z[i] = lambda(10.0, i, dim) * t[i];
      double s = 0.0;
      for (Eigen::Index i = 0; i + 1 < dim; ++i) {
        const double si = std::sqrt(z[i] * z[i] + z[i + 1] * z[i + 1]);
        const double sn = std::sin(50.0 * std::pow(si, 0.2));
        s += std::sqrt(si) + std::sqrt(si) * sn * sn;
      }
      const double m = s / (static_cast<double>(dim) - 1.0);
      return m * m + 10.0 * fpen(x);
    }
    case BbobFunction::Schwefel: {
      double total = 0.0;
      for (Eigen::Index i = 0; i < dim; ++i) {
        total += schwefel_term(schwefel_z(i, dim, i > 0 ? x[i - 1] : 0.0, x[i]), dim);
      }
      return total + kSchwefelConstant;
    }
    case BbobFunction::Gallagher21me: return gallagher21(x);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

BbobGridProblem::BbobGridProblem(BbobFunction f)
    : BenchmarkProblem(fmt::format("bbob_{}", function_name(f)), grid_space()), function_(f) {
  problems_common::PortableRng rng(kMadSeed);
  std::vector<double> values;
  Eigen::VectorXd x(kDim);
  for (int p = 0; p < kMadPoints; ++p) {
    for (int i = 0; i < kDim; ++i) x[i] = static_cast<double>(rng.index(kLevels));
    values.push_back(raw_value(f, to_real(x)));
  }
  const double med = median(values);
  for (double& v : values) v = std::abs(v - med);
  const double mad = median(values);
  scale_ = mad > 0.0 ? mad : 1.0;
  find_optimum();
}

Eigen::VectorXd BbobGridProblem::to_real(const Eigen::VectorXd& x) const {
  Eigen::VectorXd z(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const long k = std::lround(x[i]);
    if (k < 0 || k >= kLevels) {
      throw sdk::InvalidArgument(
          fmt::format("problem/{}: x{} = {} is not a level index 0..9", id(), i, x[i]));
    }
    z[i] = grid()[static_cast<std::size_t>(k)];
  }
  return z;
}

void BbobGridProblem::find_optimum() {
  optimizer_ = Eigen::VectorXd::Constant(kDim, kZeroIndex);
  double expected = std::numeric_limits<double>::quiet_NaN();
  if (function_ == BbobFunction::AttractiveSector) {
    // Separable: the sum of (s_i z_i)^2 goes through T_osz and ^0.9, both increasing.
    for (int i = 0; i < kDim; ++i) {
      const double xopt = i % 2 == 0 ? 1.0 : -1.0;
      double best = std::numeric_limits<double>::infinity();
      for (int k = 0; k < kLevels; ++k) {
        const double z = lambda(10.0, i, kDim) * (grid()[static_cast<std::size_t>(k)] - xopt);
        const double s = z * xopt > 0 ? 100.0 : 1.0;
        if ((s * z) * (s * z) < best) {
          best = (s * z) * (s * z);
          optimizer_[i] = k;
        }
      }
    }
  } else if (function_ == BbobFunction::Schwefel) {
    // Coordinate i's term depends on x_{i-1} and x_i only: a chain, solved exactly by DP.
    std::array<double, kLevels> cost{};
    std::vector<std::array<int, kLevels>> from(kDim);
    for (int b = 0; b < kLevels; ++b) {
      cost[static_cast<std::size_t>(b)] =
          schwefel_term(schwefel_z(0, kDim, 0.0, grid()[static_cast<std::size_t>(b)]), kDim);
    }
    for (int i = 1; i < kDim; ++i) {
      std::array<double, kLevels> next{};
      for (int b = 0; b < kLevels; ++b) {
        double best = std::numeric_limits<double>::infinity();
        for (int a = 0; a < kLevels; ++a) {
          const double c = cost[static_cast<std::size_t>(a)] +
                           schwefel_term(schwefel_z(i, kDim, grid()[static_cast<std::size_t>(a)],
                                                    grid()[static_cast<std::size_t>(b)]),
                                         kDim);
          if (c < best) {
            best = c;
            from[static_cast<std::size_t>(i)][static_cast<std::size_t>(b)] = a;
          }
        }
        next[static_cast<std::size_t>(b)] = best;
      }
      cost = next;
    }
    const auto last = std::min_element(cost.begin(), cost.end());
    expected = *last + kSchwefelConstant;
    int k = static_cast<int>(last - cost.begin());
    for (int i = kDim - 1; i >= 0; --i) {
      optimizer_[i] = k;
      if (i > 0) k = from[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)];
    }
  }
  // Every other function is >= 0 with f(0) = 0.
  const double raw = raw_value(function_, to_real(optimizer_));
  if (!std::isnan(expected) && std::abs(raw - expected) > 1e-9 * std::max(1.0, std::abs(raw))) {
    throw sdk::Error(
        fmt::format("problem/{}: the DP optimum {} evaluates to {}", id(), expected, raw));
  }
  optimum_ = raw / scale_;
}

sdk::ProblemInfo BbobGridProblem::info() const {
  sdk::ProblemInfo i;
  i.source = fmt::format(
      "NN+MILP (Papalexopoulos et al.), BBOB(10,10) {}: google/vizier bbob.py definition, seed 0 "
      "(no rotation), on the grid -5 + 10k/9 with v_4 := 0, divided by its MAD over 30 fixed "
      "grid points ({}) (NN+MILP Sec. 4.2, App. B.3); f* exact on the grid",
      function_name(function_), scale_);
  i.optimum = optimum_;
  i.optimizers = {optimizer_};
  return i;
}

void BbobGridProblem::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  out.objective = raw_value(function_, to_real(x)) / scale_;
}

}  // namespace arbo::plugins

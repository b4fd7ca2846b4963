// SPDX-License-Identifier: MIT
#include "alkylation.hpp"

#include <string>

#include <fmt/format.h>

namespace arbo::plugins::leafgp {

namespace {

// Sub-expressions as they appear (textually) in the constraint strings.
constexpr const char* kP = "(x1 + 1.22*x3 - x0)";  // c * x0 = x1 + a
constexpr const char* kD = "(x3*x5 + 1000*x2)";    // 98000 x2 / b

std::vector<sdk::KnownConstraintSpec> alkylation_specs() {
  // Y = x0^2 (1.12 + 0.13167 c - 0.00667 c^2): the alkylate-yield regression times x0.
  const std::string y = fmt::format("1.12*x0^2 + 0.13167*x0*{0} - 0.00667*{0}^2", kP);
  // O = x0^2 D (86.35 + 1.098 c - 0.038 c^2 + 0.325 (b - 89)): the octane regression times
  // x0^2 D.
  const std::string o = fmt::format(
      "86.35*x0^2*{1} + 1.098*x0*{0}*{1} - 0.038*{0}^2*{1} + 0.325*(98000*x2 - 89*{1})*x0^2", kP,
      kD);
  return {
      // g1, g2 (x0 times): 0.99 x3 <= x0 (1.12 + 0.13167 c - 0.00667 c^2) <= (100/99) x3.
      {"g1", fmt::format("0.99*x3*x0 <= {}", y)},
      {"g2", fmt::format("{} <= (100/99)*x3*x0", y)},
      // g3, g4 (x0^2 D times): 0.99 x4 <= 86.35 + 1.098 c - 0.038 c^2 + 0.325 (b - 89)
      // <= (100/99) x4.
      {"g3", fmt::format("0.99*x4*x0^2*{} <= {}", kD, o)},
      {"g4", fmt::format("{} <= (100/99)*x4*x0^2*{}", o, kD)},
      {"g5", "0.9*x5 <= 35.82 - 0.222*x6"},
      {"g6", "35.82 - 0.222*x6 <= (10/9)*x5"},
      {"g7", "0.99*x6 <= 3*x4 - 133"},
      {"g8", "3*x4 - 133 <= (100/99)*x6"},
      // g9, g10: 0 <= a <= 2000.
      {"g9", "1.22*x3 - x0 <= 2000"},
      {"g10", "0 <= 1.22*x3 - x0"},
      // g11, g12 (D times): 85 <= b <= 93.
      {"g11", fmt::format("98000*x2 <= 93*{}", kD)},
      {"g12", fmt::format("85*{} <= 98000*x2", kD)},
      // g13, g14 (x0 times): 3 <= c <= 12.
      {"g13", fmt::format("{} <= 12*x0", kP)},
      {"g14", fmt::format("3*x0 <= {}", kP)},
  };
}

}  // namespace

Alkylation::Alkylation(const sdk::CreateArgs&)
    : KnownConstrainedProblem("alkylation",
                              real_box({{0.0, 2000.0},
                                        {0.0, 16000.0},
                                        {0.0, 120.0},
                                        {0.0, 5000.0},
                                        {90.0, 95.0},
                                        {0.01, 4.0},
                                        {145.0, 162.0}},
                                       0),
                              alkylation_specs()) {}

sdk::ProblemInfo Alkylation::info() const {
  sdk::ProblemInfo i;
  i.source =
      "Alkylation (Sauer, Colville & Burwick 1964; Bracken & McCormick 1968), 7-variable form "
      "of the LEAF-GP reference code tree_kernel_gp after solab-ntu/opt-prob-collect "
      "(LEAF-GP Sec. 5.3, Table 2); the paper gives no optimum: f* is the best of 300 "
      "SLSQP multistarts refined on the active set (a = 2000, x4 = 95, g1, g3, g6, g7 active), "
      "computed for this suite; the optimizer is moved 1e-8 inside every active constraint";
  i.optimum = -1768.806963716;
  i.optimum_is_best_known = true;
  Eigen::VectorXd xs(7);
  xs << 1698.094766834857, 15818.615130519924, 54.10268223426165, 3031.2252187088993, 95.0,
      1.5616363756343616, 153.53535352535354;
  i.optimizers = {xs};
  return i;
}

void Alkylation::evaluate(const Eigen::VectorXd& x, sdk::Evaluation& out) {
  prepare(x, out);
  const double a = 1.22 * x[3] - x[0];
  // Negative profit ($/day): alkylate value minus olefin, recycle, acid and make-up costs.
  out.objective = -(0.063 * x[3] * x[4] - 5.04 * x[0] - 0.035 * x[1] - 10.0 * x[2] - 3.36 * a);
}

void Alkylation::known_values(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
  prepare_known(x, out);
  const double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6];
  // c = p / x0 and b = 98000 x2 / d; both denominators are >= 0 on the box (x5 >= 0.01), so
  // multiplying through keeps every inequality's direction. The reference code divides instead.
  const double p = x1 + 1.22 * x3 - x0;
  const double d = x3 * x5 + 1000 * x2;
  const double x0sq = x0 * x0;
  const double y = 1.12 * x0sq + 0.13167 * x0 * p - 0.00667 * p * p;
  const double o = 86.35 * x0sq * d + 1.098 * x0 * p * d - 0.038 * p * p * d +
                   0.325 * (98000 * x2 - 89 * d) * x0sq;
  out[0] = 0.99 * x3 * x0 - y;
  out[1] = y - (100.0 / 99.0) * x3 * x0;
  out[2] = 0.99 * x4 * x0sq * d - o;
  out[3] = o - (100.0 / 99.0) * x4 * x0sq * d;
  out[4] = 0.9 * x5 - (35.82 - 0.222 * x6);
  out[5] = (35.82 - 0.222 * x6) - (10.0 / 9.0) * x5;
  out[6] = 0.99 * x6 - (3 * x4 - 133);
  out[7] = (3 * x4 - 133) - (100.0 / 99.0) * x6;
  out[8] = (1.22 * x3 - x0) - 2000;
  out[9] = 0 - (1.22 * x3 - x0);
  out[10] = 98000 * x2 - 93 * d;
  out[11] = 85 * d - 98000 * x2;
  out[12] = p - 12 * x0;
  out[13] = 3 * x0 - p;
}

}  // namespace arbo::plugins::leafgp

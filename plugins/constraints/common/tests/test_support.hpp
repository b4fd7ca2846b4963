// SPDX-License-Identifier: MIT
// Helpers shared by the constraint tests: a brute-force model solver for tiny models, a test
// context that hands it out, and the implied values of lifted auxiliary variables.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <arbo/sdk/model.hpp>
#include <arbo/sdk/space.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "polynomial.hpp"
#include "polynomial_rows.hpp"

namespace arbo::constraints_test {

// A row "(a*b - w) / s == 0" (s > 0) defines w; the lifted auxiliaries are exactly such rows.
struct Definition {
  int w = -1;
  int a = -1;
  int b = -1;
};

inline std::vector<Definition> definitions(const sdk::Model& model) {
  std::vector<Definition> out;
  for (const auto& row : model.quadratic_rows()) {
    if (row.sense == sdk::RowSense::Equal && row.rhs == 0.0 && row.quad.size() == 1 &&
        row.linear.size() == 1 && row.quad[0].coef > 0.0 &&
        row.linear[0].coef == -row.quad[0].coef) {
      out.push_back({row.linear[0].var, row.quad[0].var1, row.quad[0].var2});
    }
  }
  return out;
}

// A row's scale as PolynomialRowsConstraint documents it, computed independently: the largest
// |monomial| over a box is the product of every factor's largest |bound| to its power.
inline double expected_row_scale(const plugins::Polynomial& p, const sdk::Space& space) {
  double magnitude = 0.0;
  for (const auto& [m, c] : p.terms) {
    double term = std::abs(c);
    for (int i : m) {
      const sdk::Parameter& q = space[static_cast<std::size_t>(i)];
      term *=
          q.type == sdk::ParamType::Binary ? 1.0 : std::max(std::abs(q.lower), std::abs(q.upper));
    }
    magnitude += term;
  }
  return std::max(1.0, plugins::kScaleFraction * magnitude);
}

// Fills the defined variables of `values` from the others, in row order (a definition only
// uses variables defined before it).
inline void fill_definitions(const std::vector<Definition>& defs, std::vector<double>& values) {
  for (const auto& d : defs) {
    values[static_cast<std::size_t>(d.w)] =
        values[static_cast<std::size_t>(d.a)] * values[static_cast<std::size_t>(d.b)];
  }
}

// Brute force for tiny models: defined variables are computed; the others are enumerated, the
// integers exhaustively and the continuous ones on `steps` + 1 equally spaced points. Optimal
// over that grid (the grid spacing is the error bound the tests allow).
class EnumerationSolver final : public sdk::ModelSolver {
 public:
  explicit EnumerationSolver(int steps = 400) : steps_(steps) {}

  sdk::SolveResult solve(const sdk::Model& model, const sdk::SolveOptions& options) override {
    ++calls;
    const auto defs = definitions(model);
    std::vector<bool> defined(model.num_variables(), false);
    for (const auto& d : defs) defined[static_cast<std::size_t>(d.w)] = true;
    std::vector<std::vector<double>> grid(model.num_variables());
    for (std::size_t i = 0; i < model.num_variables(); ++i) {
      if (defined[i]) continue;
      const sdk::Variable& v = model.variables()[i];
      if (v.type == sdk::VarType::Continuous) {
        for (int k = 0; k <= steps_; ++k) {
          grid[i].push_back(v.upper > v.lower ? v.lower + (v.upper - v.lower) * k / steps_
                                              : v.lower);
        }
      } else {
        for (double z = std::ceil(v.lower); z <= std::floor(v.upper); z += 1.0) {
          grid[i].push_back(z);
        }
      }
    }
    const bool maximize = model.objective().sense == sdk::ObjectiveSense::Maximize;
    sdk::SolveResult best;
    best.status = sdk::SolveStatus::Infeasible;
    std::vector<std::size_t> idx(model.num_variables(), 0);
    std::vector<double> x(model.num_variables(), 0.0);
    while (true) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!defined[i]) x[i] = grid[i][idx[i]];
      }
      fill_definitions(defs, x);
      const sdk::ModelEvaluation e = model.evaluate(x);
      if (e.max_violation() <= options.feasibility_tolerance) {
        const double obj = maximize ? -e.objective : e.objective;
        if (best.x.empty() || obj < (maximize ? -best.objective : best.objective)) {
          best.x = x;
          best.objective = e.objective;
          best.status = sdk::SolveStatus::Optimal;
        }
      }
      std::size_t i = 0;
      for (; i < x.size(); ++i) {
        if (defined[i]) continue;
        if (++idx[i] < grid[i].size()) break;
        idx[i] = 0;
      }
      if (i == x.size()) break;
    }
    return best;
  }

  int calls = 0;

 private:
  int steps_;
};

// Forwards to another solver and keeps the last result, for failure messages.
class RecordingSolver final : public sdk::ModelSolver {
 public:
  explicit RecordingSolver(sdk::ModelSolver& inner) : inner_(inner) {}
  sdk::SolveResult solve(const sdk::Model& model, const sdk::SolveOptions& options) override {
    last = inner_.solve(model, options);
    last_options = options;
    return last;
  }
  // "status optimal, objective ..., bound ..., gap ..., nodes ...".
  std::string summary() const {
    return fmt::format("status {}, objective {}, bound {}, gap {}, nodes {} ({})",
                       sdk::to_string(last.status), last.objective, last.best_bound, last.gap,
                       last.nodes, last.message);
  }
  sdk::SolveResult last;
  sdk::SolveOptions last_options;

 private:
  sdk::ModelSolver& inner_;
};

// A test context whose model_solver() is the given one.
class SolverContext final : public sdk::testing::TestContext {
 public:
  explicit SolverContext(sdk::ModelSolver* solver, std::uint64_t seed = 0)
      : TestContext(seed), solver_(solver) {}
  sdk::ModelSolver* model_solver() override { return solver_; }

 private:
  sdk::ModelSolver* solver_;
};

// Scaled Euclidean distance of the encoded real/integer coordinates plus changed binaries.
inline double projection_cost(const sdk::Space& space, const Eigen::VectorXd& a,
                              const Eigen::VectorXd& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    const double range = space.upper()[k] - space.lower()[k];
    if (space[i].type == sdk::ParamType::Binary) {
      s += std::abs(a[k] - b[k]);
    } else if (space[i].type != sdk::ParamType::Categorical && range > 0) {
      s += std::pow((a[k] - b[k]) / range, 2);
    }
  }
  return s;
}

}  // namespace arbo::constraints_test

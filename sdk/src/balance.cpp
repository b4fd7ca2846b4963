// SPDX-License-Identifier: MIT
#include "arbo/sdk/balance.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "arbo/sdk/capabilities/constraint.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/model.hpp"

namespace arbo::sdk {

namespace {

// The row as a balance pair over coordinates, if it is one.
bool as_pair(const LinearRow& row, const std::vector<int>& coordinate_of, const Space& space,
             BalancePair& out) {
  if (row.sense != RowSense::Equal) return false;
  std::map<int, double> merged;  // repeated variables add up (model.hpp)
  for (const LinearTerm& t : row.terms) merged[t.var] += t.coef;
  double magnitude = 0.0;
  out.a.clear();
  out.b.clear();
  for (const auto& [var, coef] : merged) {
    if (coef == 0.0) continue;
    const int i = var < static_cast<int>(coordinate_of.size())
                      ? coordinate_of[static_cast<std::size_t>(var)]
                      : -1;
    // A conditional coordinate has a canonical value while inactive, which a sampled balance
    // would overwrite: such rows are left to the generic checks.
    if (i < 0) return false;
    const Parameter& p = space[static_cast<std::size_t>(i)];
    if (p.type != ParamType::Binary || p.condition) return false;
    if (magnitude == 0.0) magnitude = std::abs(coef);
    if (std::abs(std::abs(coef) - magnitude) > 1e-9 * magnitude) return false;
    (coef > 0.0 ? out.a : out.b).push_back(i);
  }
  if (out.a.empty() || out.b.empty()) return false;
  return std::abs(row.rhs) <= 1e-9 * magnitude;
}

}  // namespace

BalanceStructure detect_balance_pairs(const Space& space,
                                      const std::vector<const Constraint*>& constraints) {
  BalanceStructure s;
  const std::size_t d = space.size();
  s.in_pair.assign(d, 0);
  s.captured.assign(constraints.size(), 0);
  std::vector<BalancePair> found;
  std::vector<std::size_t> owner;  // constraint of each found pair
  for (std::size_t k = 0; k < constraints.size(); ++k) {
    const auto* f = dynamic_cast<const FormulatesConstraint*>(constraints[k]);
    if (f == nullptr) continue;
    Model model;
    const PointVariables point = add_point_variables(model, space);
    try {
      f->formulate(model, point);
    } catch (const Error&) {
      continue;  // e.g. rows over log-scaled coordinates: left to the generic check
    }
    std::vector<int> coordinate_of(model.num_variables(), -1);
    for (std::size_t i = 0; i < d; ++i)
      coordinate_of[static_cast<std::size_t>(point.x_vars[i])] = static_cast<int>(i);
    bool all = model.quadratic_rows().empty() && model.num_variables() == d &&
               !model.linear_rows().empty();
    BalancePair pair;
    for (const LinearRow& row : model.linear_rows()) {
      if (as_pair(row, coordinate_of, space, pair)) {
        found.push_back(pair);
        owner.push_back(k);
      } else {
        all = false;
      }
    }
    s.captured[k] = all ? 1 : 0;
  }
  // Pairs are sampled (balance_from_unit) and mutated (ConEvo) each on its own, so a coordinate
  // may belong to one pair only.
  std::vector<int> uses(d, 0);
  for (const BalancePair& p : found) {
    for (const Eigen::Index i : p.a) ++uses[static_cast<std::size_t>(i)];
    for (const Eigen::Index i : p.b) ++uses[static_cast<std::size_t>(i)];
  }
  for (std::size_t r = 0; r < found.size(); ++r) {
    const BalancePair& p = found[r];
    const auto shared = [&](Eigen::Index i) { return uses[static_cast<std::size_t>(i)] > 1; };
    if (std::any_of(p.a.begin(), p.a.end(), shared) ||
        std::any_of(p.b.begin(), p.b.end(), shared)) {
      s.captured[owner[r]] = 0;
      continue;
    }
    for (const Eigen::Index i : p.a) s.in_pair[static_cast<std::size_t>(i)] = 1;
    for (const Eigen::Index i : p.b) s.in_pair[static_cast<std::size_t>(i)] = 1;
    s.pairs.push_back(p);
  }
  s.captured_count =
      static_cast<std::size_t>(std::count(s.captured.begin(), s.captured.end(), char{1}));
  return s;
}

void balance_from_unit(const std::vector<BalancePair>& pairs,
                       const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::Ref<Eigen::VectorXd> x) {
  for (const BalancePair& p : pairs) {
    // Coordinate k of the pair (a first, then b) belongs to T, the |b| smallest draws, when
    // fewer than |b| coordinates precede it in (draw, index) order. Counting beats sorting for
    // the pair sizes of practice (tens) and needs no scratch buffer.
    const auto na = static_cast<Eigen::Index>(p.a.size());
    const auto n = na + static_cast<Eigen::Index>(p.b.size());
    const auto at = [&](Eigen::Index k) {
      return k < na ? p.a[static_cast<std::size_t>(k)] : p.b[static_cast<std::size_t>(k - na)];
    };
    const auto nb = n - na;
    for (Eigen::Index k = 0; k < n; ++k) {
      const Eigen::Index i = at(k);
      Eigen::Index before = 0;
      for (Eigen::Index l = 0; l < n; ++l) {
        const Eigen::Index j = at(l);
        before += (u[j] < u[i] || (u[j] == u[i] && j < i)) ? 1 : 0;
      }
      const bool in_t = before < nb;
      // a: 1 inside T; b: 1 outside T.
      x[i] = (k < na) == in_t ? 1.0 : 0.0;
    }
  }
}

}  // namespace arbo::sdk

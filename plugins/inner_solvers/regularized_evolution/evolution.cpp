// SPDX-License-Identifier: MIT
#include "evolution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace arbo::plugins::regevo {

namespace {

double unit(std::mt19937_64& rng) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); }

// A uniform integer of [0, n - 1], n >= 1.
std::int64_t below(std::int64_t n, std::mt19937_64& rng) {
  return std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng);
}

// A uniform value of {lo, ..., hi} other than `current` (hi > lo, current among them).
std::int64_t other_value(std::int64_t lo, std::int64_t hi, std::int64_t current,
                         std::mt19937_64& rng) {
  const std::int64_t k = lo + below(hi - lo, rng);
  return k >= current ? k + 1 : k;
}

}  // namespace

void Population::reset(Eigen::Index capacity, Eigen::Index d) {
  if (X_.rows() != capacity || X_.cols() != d) X_.resize(capacity, d);
  if (score_.size() != capacity) score_.resize(capacity);
  tier_.assign(static_cast<std::size_t>(capacity), 0);
  perm_.clear();
  perm_.reserve(static_cast<std::size_t>(capacity));
  head_ = 0;
  size_ = 0;
}

void Population::push(const double* x, double score, int tier) {
  const Eigen::Index slot = head_;
  std::copy(x, x + X_.cols(), X_.row(slot).data());
  score_[slot] = std::isnan(score) ? -std::numeric_limits<double>::infinity() : score;
  tier_[static_cast<std::size_t>(slot)] = tier;
  head_ = (head_ + 1) % X_.rows();
  if (size_ < X_.rows()) {
    // The permutation stays one of 0 .. size_-1 whatever the shuffles did to it.
    perm_.push_back(size_);
    ++size_;
  }
}

std::pair<Eigen::Index, Eigen::Index> Population::tournament(Eigen::Index t, std::mt19937_64& rng) {
  const auto n = static_cast<std::int64_t>(size_);
  const std::int64_t k = std::min<std::int64_t>(t, n);
  Eigen::Index best = -1;
  Eigen::Index second = -1;
  for (std::int64_t i = 0; i < k; ++i) {
    const std::int64_t j = i + below(n - i, rng);
    std::swap(perm_[static_cast<std::size_t>(i)], perm_[static_cast<std::size_t>(j)]);
    const Eigen::Index s = perm_[static_cast<std::size_t>(i)];
    if (best < 0 || better(s, best)) {
      second = best;
      best = s;
    } else if (second < 0 || better(s, second)) {
      second = s;
    }
  }
  return {best, second < 0 ? best : second};
}

int crossover(const double* a, const double* b, Eigen::Index d, double p_c,
              Eigen::Ref<Eigen::VectorXd> child, std::mt19937_64& rng) {
  const double* from[2] = {a, b};
  int current = unit(rng) < 0.5 ? 0 : 1;
  int switches = 0;
  for (Eigen::Index i = 0; i < d; ++i) {
    child[i] = from[current][i];
    // A switch after the last position would change nothing, so it is not drawn.
    if (i + 1 < d && unit(rng) < p_c) {
      current = 1 - current;
      ++switches;
    }
  }
  return switches;
}

TokenMutator::TokenMutator(const sdk::Space& space, RealMutation real, double real_step)
    : real_(real), real_step_(real_step) {
  const std::size_t d = space.size();
  kind_.resize(d);
  lo_.resize(d);
  hi_.resize(d);
  for (std::size_t i = 0; i < d; ++i) {
    const sdk::Parameter& p = space[i];
    const auto ii = static_cast<Eigen::Index>(i);
    lo_[i] = space.lower()[ii];
    hi_[i] = space.upper()[ii];
    switch (p.type) {
      case sdk::ParamType::Binary: kind_[i] = Kind::Binary; break;
      case sdk::ParamType::Categorical: kind_[i] = Kind::Values; break;
      case sdk::ParamType::Integer:
        if (p.log_scale) {
          kind_[i] = Kind::LogInteger;
          lo_[i] = std::ceil(p.lower);
          hi_[i] = std::floor(p.upper);
        } else {
          kind_[i] = Kind::Values;
        }
        break;
      case sdk::ParamType::Real: kind_[i] = Kind::Real; break;
    }
    if (!(hi_[i] > lo_[i])) kind_[i] = Kind::Fixed;
  }
}

void TokenMutator::change(Eigen::Ref<Eigen::VectorXd> x, Eigen::Index i,
                          std::mt19937_64& rng) const {
  const auto k = static_cast<std::size_t>(i);
  switch (kind_[k]) {
    case Kind::Fixed: return;
    case Kind::Binary: x[i] = x[i] > 0.5 ? 0.0 : 1.0; return;
    case Kind::Values: {
      const auto lo = static_cast<std::int64_t>(lo_[k]);
      const auto hi = static_cast<std::int64_t>(hi_[k]);
      const auto cur = std::clamp(static_cast<std::int64_t>(std::llround(x[i])), lo, hi);
      x[i] = static_cast<double>(other_value(lo, hi, cur, rng));
      return;
    }
    case Kind::LogInteger: {
      const auto lo = static_cast<std::int64_t>(lo_[k]);
      const auto hi = static_cast<std::int64_t>(hi_[k]);
      const auto cur = std::clamp(static_cast<std::int64_t>(std::llround(std::exp(x[i]))), lo, hi);
      x[i] = std::log(static_cast<double>(other_value(lo, hi, cur, rng)));
      return;
    }
    case Kind::Real: {
      const double lo = lo_[k];
      const double hi = hi_[k];
      if (real_ == RealMutation::Uniform) {
        x[i] = lo + (hi - lo) * unit(rng);
        return;
      }
      double v = x[i] + std::normal_distribution<double>(0.0, real_step_ * (hi - lo))(rng);
      // One reflection keeps the step's size near the bounds; the clamp catches steps longer
      // than the range.
      if (v > hi) v = 2.0 * hi - v;
      if (v < lo) v = 2.0 * lo - v;
      x[i] = std::clamp(v, lo, hi);
      return;
    }
  }
}

int TokenMutator::mutate(Eigen::Ref<Eigen::VectorXd> x, double p, std::mt19937_64& rng,
                         const std::vector<char>& skip) const {
  int changed = 0;
  const bool all = skip.empty();
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (!all && skip[static_cast<std::size_t>(i)] != 0) continue;
    if (unit(rng) < p) {
      const double before = x[i];
      change(x, i, rng);
      changed += x[i] != before ? 1 : 0;
    }
  }
  return changed;
}

int BalanceMutator::mutate(Eigen::Ref<Eigen::VectorXd> x, const std::vector<BalancePair>& pairs,
                           double p_m, std::mt19937_64& rng) {
  int flips = 0;
  for (const BalancePair& pair : pairs) {
    const bool a_first = unit(rng) < 0.5;
    const std::vector<Eigen::Index>& plus = a_first ? pair.a : pair.b;
    const std::vector<Eigen::Index>& minus = a_first ? pair.b : pair.a;
    flipped_.clear();
    std::int64_t c = 0;
    for (const Eigen::Index i : plus) {
      if (unit(rng) < p_m) {
        x[i] = x[i] > 0.5 ? 0.0 : 1.0;
        c += x[i] > 0.5 ? 1 : -1;
        flipped_.push_back(i);
      }
    }
    if (c == 0) {
      flips += static_cast<int>(flipped_.size());
      continue;
    }
    // c > 0: c zeros of I- become ones; c < 0: -c ones become zeros.
    const double from = c > 0 ? 0.0 : 1.0;
    pool_.clear();
    for (const Eigen::Index i : minus) {
      if ((x[i] > 0.5) == (from > 0.5)) pool_.push_back(i);
    }
    const std::int64_t need = c > 0 ? c : -c;
    if (static_cast<std::int64_t>(pool_.size()) < need) {
      for (const Eigen::Index i : flipped_) x[i] = x[i] > 0.5 ? 0.0 : 1.0;
      continue;
    }
    // `need` positions uniformly without replacement: a partial Fisher-Yates shuffle.
    const auto n = static_cast<std::int64_t>(pool_.size());
    for (std::int64_t k = 0; k < need; ++k) {
      const std::int64_t j = k + below(n - k, rng);
      std::swap(pool_[static_cast<std::size_t>(k)], pool_[static_cast<std::size_t>(j)]);
      x[pool_[static_cast<std::size_t>(k)]] = 1.0 - from;
    }
    flips += static_cast<int>(flipped_.size() + static_cast<std::size_t>(need));
  }
  return flips;
}

}  // namespace arbo::plugins::regevo

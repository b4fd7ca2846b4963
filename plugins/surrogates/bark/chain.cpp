// SPDX-License-Identifier: MIT
#include "chain.hpp"

#include <cmath>
#include <ctime>
#include <limits>
#include <numbers>

#include <fmt/format.h>
#include <Eigen/LU>
#include <boost/math/special_functions/gamma.hpp>
#include <nlohmann/json.hpp>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::bark {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

bool goes_left(const Rule& rule, const double* x) {
  if (rule.categories != 0) {
    const auto c = static_cast<long long>(std::llround(x[rule.feature]));
    return c >= 0 && c < 64 && ((rule.categories >> c) & 1U) != 0;
  }
  return x[rule.feature] <= rule.threshold;
}

// softplus and its inverse, stable for large arguments.
double softplus(double t) {
  return t > 30.0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t));
}
double inverse_softplus(double s) {
  return s > 30.0 ? s + std::log(-std::expm1(-s)) : std::log(std::expm1(s));
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 4, 4>;
using SmallVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 4, 1>;

}  // namespace

double calibrated_noise_scale(double shape, double probability) {
  // InvGamma(a, b) has CDF F(x) = Q(a, b / x) (upper regularized gamma), so F(1) = q gives
  // b = Q^-1(a, q).
  return boost::math::gamma_q_inv(shape, probability);
}

double log_inv_gamma(double s, double a, double b) {
  return a * std::log(b) - std::lgamma(a) - (a + 1.0) * std::log(s) - b / s;
}

Chain::Chain(const Domain& domain, const ChainConfig& config) : domain_(domain), config_(config) {
  initialize();
}

void Chain::initialize() {
  trees_.assign(static_cast<std::size_t>(config_.num_trees), Tree{});
  noise_ = config_.initial_noise;
}

void Chain::set_trees(std::vector<Tree> trees, double noise) {
  trees_ = std::move(trees);
  noise_ = noise;
}

void Chain::set_data(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  // Renumber every tree's nodes in pre-order (Tree::to_json's order). Node ids decide which
  // leaf a uniform draw picks, so a chain continued in memory and one restored from `state()`
  // must number their nodes alike for the warm start to depend only on the state.
  for (Tree& t : trees_) t = Tree::from_json(t.to_json(), domain_);
  n_ = X.rows();
  xt_ = X.transpose();
  y_ = y;
  const auto n = static_cast<std::size_t>(n_);
  leaf_of_.assign(trees_.size(), std::vector<int>(n, 0));
  counts_.setZero(n_, n_);
  for (std::size_t t = 0; t < trees_.size(); ++t) {
    std::vector<int>& leaves = leaf_of_[t];
    for (Eigen::Index i = 0; i < n_; ++i) {
      leaves[static_cast<std::size_t>(i)] = trees_[t].route(xt_.col(i).data());
    }
    for (Eigen::Index i = 0; i < n_; ++i) {
      for (Eigen::Index j = 0; j < n_; ++j) {
        counts_(i, j) += leaves[static_cast<std::size_t>(i)] == leaves[static_cast<std::size_t>(j)];
      }
    }
  }
  pts_.reserve(n);
  old_lab_.reserve(n);
  new_lab_.reserve(n);
  for (auto& g : group_pts_) g.reserve(n);
  nodes_ws_.reserve(256);
  gs_.resize(n_, 4);
  tmp_.resize(4, n_);
  k_ws_.resize(n_, n_);
  k_inv_.resize(n_, n_);
  linv_.resize(n_, n_);
  z_ws_.resize(n_);
  alpha_.resize(n_);
  llt_ = Eigen::LLT<Eigen::MatrixXd>(n_);
  refresh();
}

Eigen::MatrixXd Chain::gram() const {
  Eigen::MatrixXd k = counts_.cast<double>() * (config_.signal_variance / config_.num_trees);
  k.diagonal().array() += noise_ + config_.jitter;
  return k;
}

void Chain::factorize(double noise, bool keep) {
  k_ws_ = counts_.cast<double>() * (config_.signal_variance / config_.num_trees);
  k_ws_.diagonal().array() += noise + config_.jitter;
  llt_.compute(k_ws_);
  if (llt_.info() != Eigen::Success) {
    throw sdk::Error(
        fmt::format("surrogate/bark: the Gram matrix is not positive definite "
                    "(noise variance {:.3g})",
                    noise));
  }
  if (!keep) return;
  take_factorization();
}

void Chain::take_factorization() {
  // K^-1 = L^-T L^-1. Column j of L^-1 is zero above j, so it is solved on the trailing block
  // only (n^3/6 flops instead of a full triangular solve's n^3/2), and the product is formed
  // as a symmetric rank update of the lower triangle, then mirrored.
  const auto& l = llt_.matrixLLT();
  linv_.setZero();
  for (Eigen::Index j = 0; j < n_; ++j) {
    linv_(j, j) = 1.0;
    l.bottomRightCorner(n_ - j, n_ - j)
        .triangularView<Eigen::Lower>()
        .solveInPlace(linv_.col(j).tail(n_ - j));
  }
  k_inv_.setZero();
  k_inv_.selfadjointView<Eigen::Lower>().rankUpdate(linv_.transpose());
  for (Eigen::Index j = 1; j < n_; ++j) {
    for (Eigen::Index i = 0; i < j; ++i) k_inv_(i, j) = k_inv_(j, i);
  }
  alpha_ = y_;
  llt_.solveInPlace(alpha_);
  log_det_ = 2.0 * l.diagonal().array().log().sum();
  quad_ = y_.dot(alpha_);
  updates_since_factorization_ = 0;
}

void Chain::refresh() {
  if (n_ == 0) return;
  factorize(noise_, true);
}

double Chain::log_likelihood() const {
  return -0.5 * quad_ - 0.5 * log_det_ -
         0.5 * static_cast<double>(n_) * std::log(2.0 * std::numbers::pi);
}

double Chain::log_grow_prior_ratio(int depth) const {
  // p(T*)/p(T) for growing a leaf at depth d, without the rule density (it cancels against
  // the proposal; App. H, eq. (6), where Pr(rule) is printed on the wrong side):
  // alpha (1+d)^-beta (1 - alpha (2+d)^-beta)^2 / (1 - alpha (1+d)^-beta).
  const double a = config_.alpha;
  const double b = config_.beta;
  const double d = depth;
  return std::log(a) + 2.0 * std::log1p(-a * std::pow(2.0 + d, -b)) -
         std::log(std::pow(1.0 + d, b) - a);
}

bool Chain::evaluate_update(double& delta_ll) {
  // Group g = 2 * old side + new side of every affected point. Every column of U (an old or
  // new leaf's indicator restricted to the affected points; the other points keep their
  // leaf) is a union of groups, so K^-1 U, U'K^-1 U and U'alpha follow from the group sums.
  for (auto& g : group_pts_) g.clear();
  for (std::size_t k = 0; k < pts_.size(); ++k) {
    group_pts_[static_cast<std::size_t>(2 * old_lab_[k] + new_lab_[k])].push_back(pts_[k]);
  }
  unsigned nonempty = 0;
  for (int g = 0; g < 4; ++g) {
    if (!group_pts_[static_cast<std::size_t>(g)].empty()) nonempty |= 1U << g;
  }
  std::array<unsigned, 4> cols{};
  std::array<double, 4> sign{};
  int r_old = 0;
  std::array<unsigned, 2> old_masks{}, new_masks{};
  for (int a = 0; a < 2; ++a) {
    const unsigned m = nonempty & ((1U << (2 * a)) | (1U << (2 * a + 1)));
    if (m != 0) old_masks[static_cast<std::size_t>(r_old++)] = m;
  }
  int r_new = 0;
  for (int b = 0; b < 2; ++b) {
    const unsigned m = nonempty & ((1U << b) | (1U << (2 + b)));
    if (m != 0) new_masks[static_cast<std::size_t>(r_new++)] = m;
  }
  // A leaf present before and after with the same points cancels (U_old U_old' = U_new U_new'
  // on it): e.g. a grow whose new split sends every point one way.
  int r = 0;
  std::array<bool, 2> new_used{};
  for (int i = 0; i < r_old; ++i) {
    bool cancelled = false;
    for (int j = 0; j < r_new; ++j) {
      if (!new_used[static_cast<std::size_t>(j)] &&
          new_masks[static_cast<std::size_t>(j)] == old_masks[static_cast<std::size_t>(i)]) {
        new_used[static_cast<std::size_t>(j)] = true;
        cancelled = true;
        break;
      }
    }
    if (!cancelled) {
      cols[static_cast<std::size_t>(r)] = old_masks[static_cast<std::size_t>(i)];
      sign[static_cast<std::size_t>(r++)] = -1.0;
    }
  }
  for (int j = 0; j < r_new; ++j) {
    if (new_used[static_cast<std::size_t>(j)]) continue;
    cols[static_cast<std::size_t>(r)] = new_masks[static_cast<std::size_t>(j)];
    sign[static_cast<std::size_t>(r++)] = 1.0;
  }
  if (r == 0) {
    trivial_ = true;
    delta_ll = 0.0;
    return true;
  }
  trivial_ = false;

  // Only the non-empty groups get a column (grow and prune: 2, change: up to 4), so an
  // accepted move updates K^-1 with rank 2 or up to 4.
  std::array<int, 4> compact{-1, -1, -1, -1};
  ng_ = 0;
  for (int g = 0; g < 4; ++g) {
    if ((nonempty >> g) & 1U) compact[static_cast<std::size_t>(g)] = ng_++;
  }
  // Group sums: gs(:, k) = sum_{i in group k} K^-1(:, i), ag(k) = sum alpha_i,
  // hg(k, l) = sum_{i in group k} gs(i, l). O(n |affected|).
  ag_.setZero();
  Small hg = Small::Zero(ng_, ng_);
  for (int g = 0; g < 4; ++g) {
    const int k = compact[static_cast<std::size_t>(g)];
    if (k < 0) continue;
    auto col = gs_.col(k);
    col.setZero();
    for (int i : group_pts_[static_cast<std::size_t>(g)]) {
      col += k_inv_.col(i);
      ag_[k] += alpha_[i];
    }
  }
  for (int g = 0; g < 4; ++g) {
    const int k = compact[static_cast<std::size_t>(g)];
    if (k < 0) continue;
    for (int i : group_pts_[static_cast<std::size_t>(g)]) hg.row(k) += gs_.row(i).head(ng_);
  }
  // E (r x ng): column masks over groups; D = diag(+-sigma0^2 / m).
  Small e = Small::Zero(r, ng_);
  SmallVec d(r);
  const double scale = config_.signal_variance / config_.num_trees;
  for (int c = 0; c < r; ++c) {
    for (int g = 0; g < 4; ++g) {
      if ((cols[static_cast<std::size_t>(c)] >> g) & 1U)
        e(c, compact[static_cast<std::size_t>(g)]) = 1.0;
    }
    d[c] = sign[static_cast<std::size_t>(c)] * scale;
  }
  const Small m = e * hg * e.transpose();  // U' K^-1 U
  const SmallVec v = e * ag_.head(ng_);    // U' alpha
  // (K + U D U')^-1 = K^-1 - K^-1 U (I + D M)^-1 D U' K^-1 and
  // log|K + U D U'| = log|K| + log|I + D M|: valid when U's columns are dependent (a grow's
  // old leaf is the sum of its new leaves).
  Small a = Small::Identity(r, r) + d.asDiagonal() * m;
  const Eigen::PartialPivLU<Small> lu(a);
  const double det = lu.determinant();
  if (!(det > 0.0) || !std::isfinite(det)) return false;
  Small dd = d.asDiagonal();
  Small c = lu.solve(dd);  // (I + D M)^-1 D = (D^-1 + M)^-1, symmetric
  c = 0.5 * (c + c.transpose()).eval();
  const double delta_quad = -v.dot(c * v);  // y'K*^-1 y - y'K^-1 y
  pending_log_det_ = std::log(det);
  core_.topLeftCorner(ng_, ng_) = e.transpose() * c * e;
  delta_ll = -0.5 * delta_quad - 0.5 * pending_log_det_;
  return std::isfinite(delta_ll);
}

Proposal Chain::propose(int t, MoveKind kind, Rng& rng) {
  Proposal p;
  p.kind = kind;
  p.tree = t;
  p.log_ratio = kNegInf;
  Tree& tree = trees_[static_cast<std::size_t>(t)];
  const std::vector<int>& leaf = leaf_of_[static_cast<std::size_t>(t)];
  pts_.clear();
  old_lab_.clear();
  new_lab_.clear();
  nodes_ws_.clear();
  const auto& nodes = tree.nodes();
  double log_q = 0.0;  // log proposal ratio + log prior ratio (without the rule density)
  if (kind == MoveKind::Grow) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (!nodes[i].is_free() && nodes[i].is_leaf()) nodes_ws_.push_back(static_cast<int>(i));
    }
    const int w0 = static_cast<int>(nodes_ws_.size());
    p.node = nodes_ws_[static_cast<std::size_t>(rng.uniform_int(w0))];
    if (!draw_rule(tree, p.node, domain_, rng, p.rule)) return p;
    for (Eigen::Index i = 0; i < n_; ++i) {
      if (leaf[static_cast<std::size_t>(i)] != p.node) continue;
      pts_.push_back(static_cast<int>(i));
      old_lab_.push_back(0);
      new_lab_.push_back(goes_left(p.rule, xt_.col(i).data()) ? 0 : 1);
    }
    // w1 after the grow: the leaf becomes singly internal; its parent stops being so when
    // the sibling is a leaf.
    const Node& nd = tree.node(p.node);
    int w1_after = tree.num_singly_internal() + 1;
    if (nd.parent >= 0) {
      const Node& par = tree.node(nd.parent);
      const int sibling = par.left == p.node ? par.right : par.left;
      if (tree.node(sibling).is_leaf()) --w1_after;
    }
    log_q = std::log(static_cast<double>(w0)) - std::log(static_cast<double>(w1_after)) +
            log_grow_prior_ratio(nd.depth);
  } else {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (tree.singly_internal(static_cast<int>(i))) nodes_ws_.push_back(static_cast<int>(i));
    }
    const int w1 = static_cast<int>(nodes_ws_.size());
    if (w1 == 0) return p;  // a root-only tree: no prune or change (reference code)
    p.node = nodes_ws_[static_cast<std::size_t>(rng.uniform_int(w1))];
    const Node& nd = tree.node(p.node);
    if (kind == MoveKind::Change && !draw_rule(tree, p.node, domain_, rng, p.rule)) return p;
    for (Eigen::Index i = 0; i < n_; ++i) {
      const int l = leaf[static_cast<std::size_t>(i)];
      if (l != nd.left && l != nd.right) continue;
      pts_.push_back(static_cast<int>(i));
      old_lab_.push_back(l == nd.left ? 0 : 1);
      new_lab_.push_back(kind == MoveKind::Prune ? 0
                                                 : (goes_left(p.rule, xt_.col(i).data()) ? 0 : 1));
    }
    if (kind == MoveKind::Prune) {
      const int w0 = tree.num_leaves();
      log_q = std::log(static_cast<double>(w1)) - std::log(static_cast<double>(w0 - 1)) -
              log_grow_prior_ratio(nd.depth);
    }
  }
  double delta_ll = 0.0;
  if (config_.use_likelihood) {
    if (!evaluate_update(delta_ll)) return p;
  } else {
    trivial_ = true;
  }
  p.valid = true;
  p.delta_ll = delta_ll;
  p.log_ratio = delta_ll + log_q;
  return p;
}

void Chain::apply(const Proposal& p) {
  ++updates_since_factorization_;
  Tree& tree = trees_[static_cast<std::size_t>(p.tree)];
  std::vector<int>& leaf = leaf_of_[static_cast<std::size_t>(p.tree)];
  if (!trivial_) {
    const auto g = gs_.leftCols(ng_);
    const auto core = core_.topLeftCorner(ng_, ng_);
    tmp_.topRows(ng_).noalias() = core * g.transpose();
    k_inv_.noalias() -= g * tmp_.topRows(ng_);
    alpha_.noalias() -= g * (core * ag_.head(ng_));
    log_det_ += pending_log_det_;
    quad_ = y_.dot(alpha_);
  }
  int left = -1, right = -1;
  switch (p.kind) {
    case MoveKind::Grow: left = tree.grow(p.node, p.rule, right); break;
    case MoveKind::Prune:
      tree.prune(p.node);
      left = right = p.node;
      break;
    case MoveKind::Change:
      tree.change(p.node, p.rule);
      left = tree.node(p.node).left;
      right = tree.node(p.node).right;
      break;
  }
  const std::size_t k = pts_.size();
  for (std::size_t a = 0; a < k; ++a) {
    leaf[static_cast<std::size_t>(pts_[a])] = new_lab_[a] == 0 ? left : right;
  }
  // Agreement counts change only between two affected points, by the same amount for every
  // pair of points from groups g and h (g = 2 old side + new side): [same side after] -
  // [same side before], which is 0 within a group.
  for (auto& grp : group_pts_) grp.clear();
  for (std::size_t a = 0; a < k; ++a) {
    group_pts_[static_cast<std::size_t>(2 * old_lab_[a] + new_lab_[a])].push_back(pts_[a]);
  }
  for (int g = 0; g < 4; ++g) {
    for (int h = g + 1; h < 4; ++h) {
      const int delta =
          static_cast<int>((g & 1) == (h & 1)) - static_cast<int>((g >> 1) == (h >> 1));
      if (delta == 0) continue;
      for (int i : group_pts_[static_cast<std::size_t>(g)]) {
        for (int j : group_pts_[static_cast<std::size_t>(h)]) {
          counts_(i, j) += delta;
          counts_(j, i) += delta;
        }
      }
    }
  }
}

bool Chain::tree_step(int t, Rng& rng) {
  const double u = rng.uniform();
  const MoveKind kind = u < 0.25 ? MoveKind::Grow : (u < 0.5 ? MoveKind::Prune : MoveKind::Change);
  const auto ki = static_cast<std::size_t>(kind);
  ++stats_.proposed[ki];
  const Proposal p = propose(t, kind, rng);
  if (!p.valid) {
    ++stats_.invalid[ki];
    return false;
  }
  if (p.log_ratio < 0.0 && !(std::log(rng.uniform()) < p.log_ratio)) return false;
  apply(p);
  ++stats_.accepted[ki];
  return true;
}

bool Chain::noise_step(Rng& rng) {
  ++stats_.noise_proposed;
  const double s = noise_;
  const double s_new = softplus(inverse_softplus(s) + config_.noise_step * rng.normal());
  const double a = config_.noise_shape;
  const double b = config_.noise_scale;
  // Random walk on theta = softplus^-1(sigma^2): the target density of theta is
  // p(sigma^2) g'(theta) with g'(theta) = 1 - exp(-sigma^2) (App. H's final expression is not
  // this ratio; the reference code adds a spurious -(dtheta)^2 / step^2 term).
  double log_ratio = kNegInf;
  bool factorized = false;
  if (s_new > 0.0 && std::isfinite(s_new)) {
    log_ratio = log_inv_gamma(s_new, a, b) - log_inv_gamma(s, a, b) +
                std::log(-std::expm1(-s_new)) - std::log(-std::expm1(-s));
    if (config_.use_likelihood && n_ > 0) {
      k_ws_ = counts_.cast<double>() * (config_.signal_variance / config_.num_trees);
      k_ws_.diagonal().array() += s_new + config_.jitter;
      llt_.compute(k_ws_);
      if (llt_.info() == Eigen::Success) {
        factorized = true;
        z_ws_ = y_;
        llt_.matrixL().solveInPlace(z_ws_);
        const double log_det_new = 2.0 * llt_.matrixLLT().diagonal().array().log().sum();
        log_ratio += -0.5 * (z_ws_.squaredNorm() - quad_) - 0.5 * (log_det_new - log_det_);
      } else {
        log_ratio = kNegInf;
      }
    }
  }
  const bool accept = log_ratio >= 0.0 || std::log(rng.uniform()) < log_ratio;
  if (accept) {
    noise_ = s_new;
    ++stats_.noise_accepted;
    if (factorized) take_factorization();
  } else if (config_.use_likelihood && config_.refresh_at_noise_step &&
             updates_since_factorization_ >= config_.refresh_after_updates) {
    refresh();
  }
  return accept;
}

void Chain::sweep(Rng& rng) {
  // Thread CPU time, so that the split is meaningful on a loaded machine.
  const double t0 = thread_cpu_seconds();
  for (int t = 0; t < config_.num_trees; ++t) tree_step(t, rng);
  const double t1 = thread_cpu_seconds();
  noise_step(rng);
  const double t2 = thread_cpu_seconds();
  stats_.tree_seconds += t1 - t0;
  stats_.noise_seconds += t2 - t1;
}

std::string Chain::state() const {
  nlohmann::json j;
  j["noise"] = noise_;
  nlohmann::json trees = nlohmann::json::array();
  for (const Tree& t : trees_) trees.push_back(t.to_json());
  j["trees"] = std::move(trees);
  return j.dump();
}

void Chain::set_state(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw sdk::InvalidArgument(
        fmt::format("surrogate/bark: chain state is not JSON: {}", e.what()));
  }
  if (!j.is_object() || !j.contains("noise") || !j.contains("trees") || !j["noise"].is_number() ||
      !j["trees"].is_array()) {
    throw sdk::InvalidArgument("surrogate/bark: chain state needs 'noise' and 'trees'");
  }
  const double noise = j["noise"].get<double>();
  if (!(noise > 0.0) || !std::isfinite(noise)) {
    throw sdk::InvalidArgument(
        fmt::format("surrogate/bark: chain state has noise variance {}, not positive", noise));
  }
  if (j["trees"].size() != static_cast<std::size_t>(config_.num_trees)) {
    throw sdk::InvalidArgument(fmt::format("surrogate/bark: chain state has {} trees, expected {}",
                                           j["trees"].size(), config_.num_trees));
  }
  std::vector<Tree> trees;
  trees.reserve(j["trees"].size());
  for (const auto& t : j["trees"]) trees.push_back(Tree::from_json(t, domain_));
  trees_ = std::move(trees);
  noise_ = noise;
  n_ = 0;
}

}  // namespace arbo::plugins::bark

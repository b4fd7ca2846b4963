// SPDX-License-Identifier: MIT
// surrogate/bark. In-process (arbo_bark_core): the split rule, every move's acceptance ratio
// against a brute-force computation, the rank-r updates against fresh factorizations, the
// likelihood-free chain against the exact BART prior, determinism across thread counts, warm
// starts and their serialization, and the prediction against a dense GP per sample. Through
// the real .so: the conformance kit.
#include <bit>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/Cholesky>
#include <nlohmann/json.hpp>

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/dataset.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "bark_model.hpp"
#include "chain.hpp"
#include "forest.hpp"

namespace {

using namespace arbo::plugins::bark;
namespace sdk = arbo::sdk;

constexpr const char* kLibrary = ARBO_PLUGIN_DIR "/libarbo_surrogate_bark.so";

// x0 real [0, 1], x1 integer {1..6} log-scaled, x2 categorical (5 choices), x3 binary,
// x4 integer {-2..3}.
sdk::Space mixed_space() {
  return sdk::Space({sdk::Parameter::real("x0", 0.0, 1.0),
                     sdk::Parameter::integer("x1", 1, 6, true),
                     sdk::Parameter::categorical("x2", {"a", "b", "c", "d", "e"}),
                     sdk::Parameter::binary("x3"), sdk::Parameter::integer("x4", -2, 3)});
}

sdk::Space real_space(int d) {
  std::vector<sdk::Parameter> ps;
  for (int i = 0; i < d; ++i) ps.push_back(sdk::Parameter::real("x" + std::to_string(i), 0.0, 1.0));
  return sdk::Space(ps);
}

Eigen::MatrixXd random_points(const sdk::Space& space, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return sdk::testing::random_points(space, static_cast<std::size_t>(n), rng);
}

Eigen::VectorXd objective(const Eigen::MatrixXd& X) {
  Eigen::VectorXd y(X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    double v = 0.0;
    for (Eigen::Index j = 0; j < X.cols(); ++j)
      v += std::sin(3.0 * X(i, j) + 0.5 * static_cast<double>(j));
    y[i] = v + (X(i, 0) > 0.5 ? 1.0 : 0.0);
  }
  return y;
}

// Dense Gram matrix of a forest: sigma0^2/m * agreements + (noise + jitter) I.
Eigen::MatrixXd dense_gram(const std::vector<Tree>& trees, const Eigen::MatrixXd& X, double noise,
                           const ChainConfig& c) {
  const Eigen::Index n = X.rows();
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(n, n);
  std::vector<double> xi(static_cast<std::size_t>(X.cols())), xj(xi.size());
  for (const Tree& t : trees) {
    for (Eigen::Index i = 0; i < n; ++i) {
      copy_row(X, i, xi.data());
      for (Eigen::Index j = 0; j < n; ++j) {
        copy_row(X, j, xj.data());
        if (t.route(xi.data()) == t.route(xj.data())) k(i, j) += c.signal_variance / c.num_trees;
      }
    }
  }
  k.diagonal().array() += noise + c.jitter;
  return k;
}

double dense_log_likelihood(const Eigen::MatrixXd& k, const Eigen::VectorXd& y) {
  const Eigen::LLT<Eigen::MatrixXd> llt(k);
  const Eigen::VectorXd a = llt.solve(y);
  const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  return -0.5 * y.dot(a) - 0.5 * log_det -
         0.5 * static_cast<double>(y.size()) * std::log(2.0 * M_PI);
}

Eigen::VectorXd standardize(const Eigen::VectorXd& y) {
  const double m = y.mean();
  const double sd = std::max(std::sqrt((y.array() - m).square().mean()), 1e-6);
  return (y.array() - m) / sd;
}

// --- The split rule ---------------------------------------------------------------------

TEST(bark_split_rule, never_produces_an_empty_leaf_subspace) {
  const sdk::Space space = mixed_space();
  const Domain domain = Domain::from_space(space);
  Rng rng(7);
  int leaves_checked = 0;
  int deep_leaves = 0;
  for (int k = 0; k < 3000; ++k) {
    // beta = 0.5 grows deep trees, which exhaust the integer and categorical ranges.
    const Tree t = sample_prior_tree(domain, 0.95, 0.5, rng);
    for (std::size_t id = 0; id < t.nodes().size(); ++id) {
      const Node& n = t.nodes()[id];
      if (n.is_free() || !n.is_leaf()) continue;
      ++leaves_checked;
      deep_leaves += n.depth >= 4 ? 1 : 0;
      for (std::size_t f = 0; f < domain.dim(); ++f) {
        const Subspace s = subspace_of(t, static_cast<int>(id), static_cast<int>(f), domain);
        switch (domain.features[f].kind) {
          case FeatureKind::Continuous: EXPECT_LT(s.lower, s.upper); break;
          case FeatureKind::Integer: EXPECT_LE(s.lower, s.upper); break;
          case FeatureKind::Categorical: EXPECT_NE(s.available, 0U); break;
        }
      }
      // A point of the leaf's box routes to the leaf: build one from the subspaces.
      Eigen::VectorXd x(static_cast<Eigen::Index>(domain.dim()));
      for (std::size_t f = 0; f < domain.dim(); ++f) {
        const Subspace s = subspace_of(t, static_cast<int>(id), static_cast<int>(f), domain);
        const FeatureDomain& fd = domain.features[f];
        const auto j = static_cast<Eigen::Index>(f);
        if (fd.kind == FeatureKind::Continuous) {
          x[j] = 0.5 * (s.lower + s.upper);
        } else if (fd.kind == FeatureKind::Integer) {
          x[j] = fd.log_scale ? std::log(s.upper) : s.upper;
        } else {
          x[j] = std::countr_zero(s.available);
        }
      }
      EXPECT_TRUE(space.contains(x)) << space.describe(x);
      EXPECT_EQ(t.route(x.data()), static_cast<int>(id));
    }
  }
  EXPECT_GT(leaves_checked, 5000);
  EXPECT_GT(deep_leaves, 100);
}

TEST(bark_split_rule, unsplittable_draws_are_rejected) {
  // One binary feature: after a split on it, neither child can split again.
  const Domain domain = Domain::from_space(sdk::Space({sdk::Parameter::binary("b")}));
  Tree t;
  Rng rng(3);
  Rule rule;
  ASSERT_TRUE(draw_rule(t, 0, domain, rng, rule));
  EXPECT_EQ(rule.value, 0.0);
  int right = -1;
  const int left = t.grow(0, rule, right);
  for (int k = 0; k < 20; ++k) {
    EXPECT_FALSE(draw_rule(t, left, domain, rng, rule));
    EXPECT_FALSE(draw_rule(t, right, domain, rng, rule));
  }
}

TEST(bark_split_rule, categorical_subsets_are_uniform_and_non_trivial) {
  const Domain domain =
      Domain::from_space(sdk::Space({sdk::Parameter::categorical("c", {"a", "b", "c", "d"})}));
  Tree t;
  Rng rng(11);
  std::map<std::uint64_t, int> counts;
  const int draws = 28000;
  for (int k = 0; k < draws; ++k) {
    Rule rule;
    ASSERT_TRUE(draw_rule(t, 0, domain, rng, rule));
    ++counts[rule.categories];
  }
  ASSERT_EQ(counts.size(), 14U);  // 2^4 - 2
  for (const auto& [subset, c] : counts) {
    EXPECT_NE(subset, 0U);
    EXPECT_NE(subset, 15U);
    // Binomial(28000, 1/14): sd = 43; 5 sd.
    EXPECT_NEAR(c, draws / 14.0, 215.0);
  }
}

// --- Moves against brute force ------------------------------------------------------------

// Applies p's move to a copy of the trees directly (grow/prune/change), independently of the
// chain's bookkeeping.
std::vector<Tree> apply_copy(const std::vector<Tree>& trees, const Proposal& p) {
  std::vector<Tree> out = trees;
  Tree& t = out[static_cast<std::size_t>(p.tree)];
  int right = -1;
  switch (p.kind) {
    case MoveKind::Grow: t.grow(p.node, p.rule, right); break;
    case MoveKind::Prune: t.prune(p.node); break;
    case MoveKind::Change: t.change(p.node, p.rule); break;
  }
  return out;
}

int count_leaves(const Tree& t) {
  int k = 0;
  for (const Node& n : t.nodes()) k += !n.is_free() && n.is_leaf();
  return k;
}

int count_singly_internal(const Tree& t) {
  int k = 0;
  for (const Node& n : t.nodes()) {
    if (n.is_free() || n.is_leaf()) continue;
    k += t.node(n.left).is_leaf() && t.node(n.right).is_leaf();
  }
  return k;
}

Rule rule_of(const Node& n) {
  Rule r;
  r.feature = n.feature;
  r.value = n.value;
  r.threshold = n.threshold;
  r.categories = n.categories;
  return r;
}

TEST(bark_chain, move_log_ratios_match_brute_force) {
  const sdk::Space space = mixed_space();
  const Domain domain = Domain::from_space(space);
  ChainConfig config;
  config.num_trees = 4;
  const Eigen::MatrixXd X = random_points(space, 12, 5);
  const Eigen::VectorXd y = standardize(objective(X));
  Chain chain(domain, config);
  chain.set_data(X, y);
  Rng rng(17);
  std::array<int, 3> checked{};
  for (int step = 0; step < 3000; ++step) {
    const int t = rng.uniform_int(config.num_trees);
    const auto kind = static_cast<MoveKind>(rng.uniform_int(3));
    const std::vector<Tree> before = chain.trees();
    const double ll_before = dense_log_likelihood(dense_gram(before, X, chain.noise(), config), y);
    const Proposal p = chain.propose(t, kind, rng);
    if (!p.valid) continue;
    const std::vector<Tree> after = apply_copy(before, p);
    const double ll_after = dense_log_likelihood(dense_gram(after, X, chain.noise(), config), y);
    const Tree& tb = before[static_cast<std::size_t>(t)];
    const Tree& ta = after[static_cast<std::size_t>(t)];
    const double d_prior = log_tree_prior(ta, domain, config.alpha, config.beta) -
                           log_tree_prior(tb, domain, config.alpha, config.beta);
    // log q(reverse) - log q(forward); the move-type probabilities are equal both ways.
    double d_q = 0.0;
    switch (p.kind) {
      case MoveKind::Grow:
        d_q = -std::log(count_singly_internal(ta)) -
              (-std::log(count_leaves(tb)) + log_rule_density(tb, p.node, p.rule, domain));
        break;
      case MoveKind::Prune:
        d_q = (-std::log(count_leaves(ta)) +
               log_rule_density(ta, p.node, rule_of(tb.node(p.node)), domain)) +
              std::log(count_singly_internal(tb));
        break;
      case MoveKind::Change:
        d_q = log_rule_density(tb, p.node, rule_of(tb.node(p.node)), domain) -
              log_rule_density(tb, p.node, p.rule, domain);
        break;
    }
    const double expected = (ll_after - ll_before) + d_prior + d_q;
    EXPECT_NEAR(p.delta_ll, ll_after - ll_before, 1e-8 * std::max(1.0, std::abs(ll_before)));
    EXPECT_NEAR(p.log_ratio, expected, 1e-8 * std::max(1.0, std::abs(expected)))
        << "move " << static_cast<int>(p.kind) << " tree " << t << " step " << step;
    ++checked[static_cast<std::size_t>(p.kind)];
    // Move on with the MH decision, so that trees grow and all moves get exercised.
    if (p.log_ratio >= 0.0 || std::log(rng.uniform()) < p.log_ratio) chain.apply(p);
    if (step % 50 == 49) chain.noise_step(rng);
  }
  for (int k = 0; k < 3; ++k) EXPECT_GT(checked[static_cast<std::size_t>(k)], 200) << k;
  // The chain's incremental state still equals a fresh computation.
  const Eigen::MatrixXd k = dense_gram(chain.trees(), X, chain.noise(), config);
  EXPECT_NEAR(chain.log_likelihood(), dense_log_likelihood(k, y), 1e-8);
}

TEST(bark_chain, woodbury_updates_stay_within_1e_8_over_1000_accepted_moves) {
  // Refreshes disabled and no noise move: the update path alone, from the initial
  // factorization through 1,000 accepted tree moves.
  const sdk::Space space = real_space(4);
  const Domain domain = Domain::from_space(space);
  ChainConfig config;
  config.refresh_at_noise_step = false;
  const Eigen::MatrixXd X = random_points(space, 60, 9);
  const Eigen::VectorXd y = standardize(objective(X));
  Chain chain(domain, config);
  chain.set_data(X, y);
  Rng rng(23);
  int accepted = 0;
  int t = 0;
  while (accepted < 1000) {
    accepted += chain.tree_step(t, rng) ? 1 : 0;
    t = (t + 1) % config.num_trees;
  }
  const Eigen::MatrixXd k = dense_gram(chain.trees(), X, chain.noise(), config);
  EXPECT_LT((chain.gram() - k).cwiseAbs().maxCoeff(), 1e-12);  // the counts are exact
  const Eigen::LLT<Eigen::MatrixXd> llt(k);
  const Eigen::MatrixXd k_inv = llt.solve(Eigen::MatrixXd::Identity(k.rows(), k.cols()));
  const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  const double rel_inv = (chain.k_inverse() - k_inv).norm() / k_inv.norm();
  const double rel_det = std::abs(chain.log_det() - log_det) / std::abs(log_det);
  const double rel_alpha = (chain.alpha() - k_inv * y).norm() / (k_inv * y).norm();
  EXPECT_LT(rel_inv, 1e-8);
  EXPECT_LT(rel_det, 1e-8);
  EXPECT_LT(rel_alpha, 1e-8);
  std::printf("after %d accepted moves: rel. error K^-1 %.2e, log|K| %.2e, alpha %.2e\n", accepted,
              rel_inv, rel_det, rel_alpha);
}

// --- The likelihood-free chain reproduces the prior ----------------------------------------

TEST(bark_chain, without_likelihood_samples_the_tree_and_noise_priors) {
  const sdk::Space space = real_space(3);
  const Domain domain = Domain::from_space(space);
  ChainConfig config;
  config.use_likelihood = false;
  config.num_trees = 100;
  Chain chain(domain, config);
  chain.set_data(random_points(space, 5, 1), Eigen::VectorXd::Zero(5));
  // Exact prior moments on a continuous space (every draw splittable): the expected leaves of
  // a subtree rooted at depth d, L(d) = (1 - p_d) + 2 p_d L(d + 1), p_d = alpha (1 + d)^-beta.
  double leaves = 1.0;
  for (int d = 60; d >= 0; --d) {
    const double p = config.alpha * std::pow(1.0 + d, -config.beta);
    leaves = (1.0 - p) + 2.0 * p * leaves;
  }
  const double root_only = 1.0 - config.alpha;
  EXPECT_NEAR(leaves, 2.51, 0.01);  // the digest's value, as a sanity check of the recursion
  Rng rng(31);
  const int burn = 200, sweeps = 6000, every = 5;
  for (int k = 0; k < burn; ++k) chain.sweep(rng);
  // Trees evolve independently without the likelihood, so each tree's time average is an
  // independent estimate: the spread of the m averages gives the Monte-Carlo standard error
  // (autocorrelation included) without batch-size tuning.
  std::vector<double> mean_leaves(static_cast<std::size_t>(config.num_trees), 0.0);
  std::vector<double> frac_root(mean_leaves.size(), 0.0);
  std::vector<double> noise_below_1;
  int kept = 0;
  for (int k = 1; k <= sweeps; ++k) {
    chain.sweep(rng);
    if (k % every != 0) continue;
    ++kept;
    for (std::size_t t = 0; t < mean_leaves.size(); ++t) {
      const int l = count_leaves(chain.trees()[t]);
      mean_leaves[t] += l;
      frac_root[t] += l == 1 ? 1.0 : 0.0;
    }
  }
  const auto mean_and_se = [](std::vector<double> v, double scale) {
    for (double& x : v) x /= scale;
    double m = 0.0;
    for (double x : v) m += x;
    m /= static_cast<double>(v.size());
    double var = 0.0;
    for (double x : v) var += (x - m) * (x - m);
    var /= static_cast<double>(v.size() - 1);
    return std::pair<double, double>{m, std::sqrt(var / static_cast<double>(v.size()))};
  };
  const auto [el, el_se] = mean_and_se(mean_leaves, kept);
  const auto [pr, pr_se] = mean_and_se(frac_root, kept);
  std::printf("E[#leaves] %.4f +- %.4f (exact %.4f); P(root only) %.4f +- %.4f (exact %.4f)\n", el,
              el_se, leaves, pr, pr_se, root_only);
  // 4 standard errors: a false failure has probability about 6e-5.
  EXPECT_NEAR(el, leaves, 4.0 * el_se);
  EXPECT_NEAR(pr, root_only, 4.0 * pr_se);
  EXPECT_LT(el_se, 0.02);  // the test has power: a wrong prior by 0.1 leaves would fail
  // The noise chain targets InvGamma(1.5, b) with b calibrated so that P(sigma^2 < 1) = 0.9;
  // the Jacobian of the softplus walk is what makes it so. Noise moves alone (they do not
  // touch the trees), batch means over 30 batches.
  for (int k = 0; k < 300000; ++k) {
    chain.noise_step(rng);
    noise_below_1.push_back(chain.noise() < 1.0 ? 1.0 : 0.0);
  }
  const int nb = 30;
  const auto bs = noise_below_1.size() / nb;
  std::vector<double> batch(nb, 0.0);
  for (int b = 0; b < nb; ++b) {
    for (std::size_t k = 0; k < bs; ++k)
      batch[static_cast<std::size_t>(b)] += noise_below_1[b * bs + k];
  }
  const auto [pn, pn_se] = mean_and_se(batch, static_cast<double>(bs));
  std::printf("P(sigma^2 < 1) %.4f +- %.4f (target 0.9)\n", pn, pn_se);
  EXPECT_NEAR(pn, 0.9, 4.0 * pn_se + 1e-3);
  EXPECT_LT(pn_se, 0.004);
}

TEST(bark_chain, calibrated_noise_scale) {
  const double b = calibrated_noise_scale(1.5, 0.9);
  EXPECT_NEAR(b, 0.2922, 1e-4);
  // P(InvGamma(1.5, b) < 1) by numerical integration of the density.
  double p = 0.0;
  const int steps = 200000;
  for (int k = 0; k < steps; ++k) {
    const double s = (k + 0.5) / steps;
    p += std::exp(log_inv_gamma(s, 1.5, b)) / steps;
  }
  EXPECT_NEAR(p, 0.9, 1e-6);
}

// --- The model: threads, warm starts, serialization, prediction ----------------------------

BarkConfig small_config(int threads) {
  BarkConfig c;
  c.burn_in = 60;
  c.sweeps = 40;
  c.thinning = 20;
  c.threads = threads;
  return c;
}

TEST(bark_model, identical_for_any_thread_count) {
  const sdk::Space space = mixed_space();
  const Domain domain = Domain::from_space(space);
  const Eigen::MatrixXd X = random_points(space, 25, 2);
  const Eigen::VectorXd y = objective(X);
  const Eigen::MatrixXd Q = random_points(space, 30, 3);
  std::vector<Eigen::VectorXd> means, vars;
  for (int threads : {1, 4, 3}) {
    BarkModel model(domain, small_config(threads));
    std::mt19937_64 rng(99);
    model.fit(X.topRows(20), y.head(20), rng);
    model.fit(X, y, rng);  // a warm-started second fit, too
    Eigen::VectorXd m, v;
    model.predict(Q, m, v);
    ASSERT_EQ(model.samples().size(), 8U);
    means.push_back(m);
    vars.push_back(v);
  }
  for (std::size_t k = 1; k < means.size(); ++k) {
    for (Eigen::Index i = 0; i < Q.rows(); ++i) {
      EXPECT_EQ(means[k][i], means[0][i]);
      EXPECT_EQ(vars[k][i], vars[0][i]);
    }
  }
}

TEST(bark_model, warm_start_continues_from_the_last_state_and_round_trips) {
  const sdk::Space space = mixed_space();
  const Domain domain = Domain::from_space(space);
  const Eigen::MatrixXd X = random_points(space, 30, 4);
  const Eigen::VectorXd y = objective(X);
  const Eigen::MatrixXd Q = random_points(space, 20, 8);

  BarkModel a(domain, small_config(2));
  std::mt19937_64 rng_a(5);
  a.fit(X.topRows(25), y.head(25), rng_a);
  EXPECT_EQ(a.stats().sweeps_per_chain, 100);  // burn-in + sweeps
  const std::vector<std::string> states = a.chain_states();
  // The last sample of each chain is its final state.
  for (std::size_t c = 0; c < a.chains().size(); ++c) {
    const Sample& last = a.samples()[2 * c + 1];
    EXPECT_EQ(last.sweep, 40);
    EXPECT_EQ(last.noise, a.chains()[c].noise());
  }
  const std::mt19937_64 rng_before_second = rng_a;
  a.fit(X, y, rng_a);
  EXPECT_EQ(a.stats().sweeps_per_chain, 40);  // no burn-in

  // Restored from the serialized states, a fresh model continues exactly as `a` did.
  BarkModel b(domain, small_config(1));
  b.set_chain_states(states);
  EXPECT_EQ(b.chain_states(), states);  // the JSON round trip is exact
  std::mt19937_64 rng_b = rng_before_second;
  b.fit(X, y, rng_b);
  EXPECT_EQ(b.stats().sweeps_per_chain, 40);
  Eigen::VectorXd ma, va, mb, vb;
  a.predict(Q, ma, va);
  b.predict(Q, mb, vb);
  for (Eigen::Index i = 0; i < Q.rows(); ++i) {
    EXPECT_EQ(ma[i], mb[i]);
    EXPECT_EQ(va[i], vb[i]);
  }
  EXPECT_EQ(a.chain_states(), b.chain_states());

  // Without the states, the second fit starts from single leaves and burns in: different.
  BarkModel fresh(domain, small_config(1));
  std::mt19937_64 rng_c = rng_before_second;
  fresh.fit(X, y, rng_c);
  EXPECT_EQ(fresh.stats().sweeps_per_chain, 100);
  EXPECT_NE(fresh.chain_states(), a.chain_states());
}

TEST(bark_model, state_round_trip_restores_trees_exactly) {
  const sdk::Space space = mixed_space();
  const Domain domain = Domain::from_space(space);
  BarkModel a(domain, small_config(1));
  std::mt19937_64 rng(12);
  const Eigen::MatrixXd X = random_points(space, 30, 6);
  a.fit(X, objective(X), rng);
  for (const Chain& c : a.chains()) {
    Chain copy(domain, c.config());
    copy.set_state(c.state());
    EXPECT_EQ(copy.noise(), c.noise());
    ASSERT_EQ(copy.trees().size(), c.trees().size());
    copy.set_data(X, standardize(objective(X)));
    for (std::size_t t = 0; t < c.trees().size(); ++t) {
      EXPECT_EQ(copy.trees()[t].to_json(), c.trees()[t].to_json());
      EXPECT_EQ(copy.leaf_of()[t].size(), c.leaf_of()[t].size());
      for (std::size_t i = 0; i < c.leaf_of()[t].size(); ++i) {
        // Node ids may differ (free lists), the partition of the points may not.
        for (std::size_t j = 0; j < i; ++j) {
          EXPECT_EQ(copy.leaf_of()[t][i] == copy.leaf_of()[t][j],
                    c.leaf_of()[t][i] == c.leaf_of()[t][j]);
        }
      }
    }
  }
  Chain bad(domain, a.config().chain);
  EXPECT_THROW(bad.set_state("{\"noise\": 0.1, \"trees\": []}"), sdk::InvalidArgument);
  EXPECT_THROW(bad.set_state("not json"), sdk::InvalidArgument);
}

TEST(bark_model, prediction_matches_a_dense_gp_per_sample) {
  for (bool prior_only : {false, true}) {
    const sdk::Space space = mixed_space();
    const Domain domain = Domain::from_space(space);
    BarkConfig config = small_config(2);
    config.prior_only = prior_only;
    config.prior_samples = 5;
    BarkModel model(domain, config);
    std::mt19937_64 rng(77);
    const Eigen::MatrixXd X = random_points(space, 35, 10);
    const Eigen::VectorXd y = 3.0 * objective(X).array() + 10.0;
    model.fit(X, y, rng);
    const Eigen::MatrixXd Q = random_points(space, 15, 11);
    Eigen::MatrixXd means, vars;
    model.predict_samples(Q, means, vars);
    ASSERT_EQ(static_cast<std::size_t>(means.rows()), model.samples().size());
    EXPECT_EQ(model.samples().size(), prior_only ? 5U : 8U);
    const double mu_y = y.mean();
    const double sd_y = std::sqrt((y.array() - mu_y).square().mean());
    const Eigen::VectorXd ys = (y.array() - mu_y) / sd_y;
    const ChainConfig& cc = config.chain;
    Eigen::VectorXd mix_mean = Eigen::VectorXd::Zero(Q.rows());
    Eigen::VectorXd mix_second = Eigen::VectorXd::Zero(Q.rows());
    for (std::size_t s = 0; s < model.samples().size(); ++s) {
      const Sample& smp = model.samples()[s];
      const Eigen::MatrixXd k = dense_gram(smp.trees, X, smp.noise, cc);
      const Eigen::LLT<Eigen::MatrixXd> llt(k);
      std::vector<double> q(static_cast<std::size_t>(Q.cols())), xi(q.size());
      for (Eigen::Index j = 0; j < Q.rows(); ++j) {
        copy_row(Q, j, q.data());
        Eigen::VectorXd kx = Eigen::VectorXd::Zero(X.rows());
        for (const Tree& t : smp.trees) {
          const int lq = t.route(q.data());
          for (Eigen::Index i = 0; i < X.rows(); ++i) {
            copy_row(X, i, xi.data());
            if (t.route(xi.data()) == lq) kx[i] += cc.signal_variance / cc.num_trees;
          }
        }
        const double mu = kx.dot(llt.solve(ys));
        const double var = cc.signal_variance - kx.dot(llt.solve(kx));
        const auto si = static_cast<Eigen::Index>(s);
        EXPECT_NEAR(means(si, j), mu_y + sd_y * mu, 1e-8 * (std::abs(mu_y) + sd_y));
        EXPECT_NEAR(vars(si, j), sd_y * sd_y * std::max(var, 0.0), 1e-8 * sd_y * sd_y);
        mix_mean[j] += (mu_y + sd_y * mu) / static_cast<double>(model.samples().size());
        mix_second[j] += (sd_y * sd_y * std::max(var, 0.0) + std::pow(mu_y + sd_y * mu, 2)) /
                         static_cast<double>(model.samples().size());
      }
    }
    Eigen::VectorXd m, v;
    model.predict(Q, m, v);
    for (Eigen::Index j = 0; j < Q.rows(); ++j) {
      EXPECT_NEAR(m[j], mix_mean[j], 1e-8 * std::abs(mix_mean[j]));
      EXPECT_NEAR(v[j], mix_second[j] - mix_mean[j] * mix_mean[j], 1e-6);
      EXPECT_GT(v[j], 0.0);
    }
  }
}

TEST(bark_model, posterior_samples_match_the_mixture_moments) {
  const sdk::Space space = real_space(2);
  const Domain domain = Domain::from_space(space);
  BarkModel model(domain, small_config(2));
  std::mt19937_64 rng(41);
  const Eigen::MatrixXd X = random_points(space, 20, 12);
  model.fit(X, objective(X), rng);
  const Eigen::MatrixXd Q = random_points(space, 4, 13);
  Eigen::VectorXd m, v;
  model.predict(Q, m, v);
  Eigen::MatrixXd draws;
  std::mt19937_64 sample_rng(3);
  const int n = 40000;
  model.sample(Q, n, sample_rng, draws);
  ASSERT_EQ(draws.rows(), n);
  for (Eigen::Index j = 0; j < Q.rows(); ++j) {
    const double mean = draws.col(j).mean();
    const double var = (draws.col(j).array() - mean).square().mean();
    // 5 standard errors of the mean; the variance within 5 % (its standard error with 40,000
    // draws of a mixture with light tails is below 1 %).
    EXPECT_NEAR(mean, m[j], 5.0 * std::sqrt(v[j] / n));
    EXPECT_NEAR(var, v[j], 0.05 * v[j]);
  }
}

// --- Through the real .so -------------------------------------------------------------------

TEST(bark_plugin, conformance_kit) { sdk::testing::expect_plugin_conforms(kLibrary); }

TEST(bark_plugin, prior_only_conforms) {
  sdk::testing::ConformanceOptions options;
  options.param_overrides["surrogate/bark"] = {{"prior_only", true}};
  sdk::testing::expect_plugin_conforms(kLibrary, options);
}

TEST(bark_plugin, offers_posterior_samples_and_rejects_bad_parameters) {
  sdk::testing::PluginUnderTest plugin(kLibrary);
  const sdk::ComponentInfo* info = plugin.find(sdk::Kind::Surrogate, "bark");
  ASSERT_NE(info, nullptr);
  const sdk::Space space = real_space(2);
  sdk::testing::TestContext ctx(1);
  const sdk::ParamSet ok = sdk::validate_params(info->params(),
                                                {{"burn_in", std::int64_t{10}},
                                                 {"sweeps", std::int64_t{10}},
                                                 {"thinning", std::int64_t{5}},
                                                 {"noise_prior_scale", std::string("0.2")}},
                                                "surrogate/bark");
  std::unique_ptr<sdk::Component> object(info->create(sdk::CreateArgs{ctx, ok, space}));
  EXPECT_NE(dynamic_cast<sdk::PosteriorSampler*>(object.get()), nullptr);
  for (const auto& [key, value] : std::vector<std::pair<std::string, sdk::ParamValue>>{
           {"noise_prior_scale", std::string("big")},
           {"noise_prior_scale", std::string("-1")},
           {"thinning", std::int64_t{500}}}) {
    const sdk::ParamSet bad =
        sdk::validate_params(info->params(), {{key, value}}, "surrogate/bark");
    EXPECT_THROW(info->create(sdk::CreateArgs{ctx, bad, space}), sdk::ParamError) << key;
  }
}

}  // namespace

// SPDX-License-Identifier: MIT
// surrogate/relu_net: the conformance kit on the real .so; the encoding and its refusals;
// gradients against central differences; training against a numpy reference run from the same
// initial weights and batch orders; the MILP (through the glpk_bnb branch-and-bound) against
// the network's forward pass and against enumeration of small discrete spaces.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arbo/sdk/dataset.hpp>
#include <arbo/sdk/error.hpp>
#include <arbo/sdk/model.hpp>
#include <arbo/sdk/testing/conformance.hpp>

#include "bnb.hpp"
#include "encoding.hpp"
#include "formulation.hpp"
#include "kernels.hpp"
#include "network.hpp"
#include "relu_net.hpp"

namespace {

using namespace arbo;
using namespace arbo::plugins::relu_net;
using sdk::Parameter;
using sdk::Space;

constexpr const char* kLibrary = ARBO_PLUGIN_DIR "/libarbo_surrogate_relu_net.so";

const sdk::ComponentInfo& component() {
  static const auto* p = new sdk::testing::PluginUnderTest(kLibrary);
  const sdk::ComponentInfo* info = p->find(sdk::Kind::Surrogate, "relu_net");
  if (info == nullptr) throw std::runtime_error("no surrogate/relu_net");
  return *info;
}

// The glpk_bnb branch-and-bound as the context's model solver, at gap 0.
class BnbSolver final : public sdk::ModelSolver {
 public:
  sdk::SolveResult solve(const sdk::Model& model, const sdk::SolveOptions& options) override {
    return plugins::glpk::solve_model(model, options);
  }
};

class SolverContext final : public sdk::testing::TestContext {
 public:
  using TestContext::TestContext;
  sdk::ModelSolver* model_solver() override { return solver; }
  sdk::ModelSolver* solver = nullptr;
};

sdk::Dataset dataset(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  sdk::Dataset d;
  d.reset(static_cast<std::size_t>(X.cols()), {});
  for (Eigen::Index r = 0; r < X.rows(); ++r) d.append(X.row(r).transpose(), y[r], {});
  return d;
}

// A mixed discrete space: categoricals, binaries, a one-hot integer.
Space small_space() {
  return Space({Parameter::categorical("c0", {"a", "b", "c"}),
                Parameter::categorical("c1", {"a", "b", "c", "d"}), Parameter::binary("b0"),
                Parameter::integer("n0", 2, 6), Parameter::binary("b1"),
                Parameter::categorical("c2", {"u", "v", "w"})});
}

// Every point of a discrete space, one per row.
Eigen::MatrixXd enumerate(const Space& s) {
  std::vector<std::vector<double>> values;
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::vector<double> v;
    for (double x = s.lower()[static_cast<Eigen::Index>(i)];
         x <= s.upper()[static_cast<Eigen::Index>(i)] + 1e-9; x += 1.0)
      v.push_back(x);
    values.push_back(v);
  }
  std::size_t n = 1;
  for (const auto& v : values) n *= v.size();
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(s.size()));
  for (std::size_t r = 0; r < n; ++r) {
    std::size_t k = r;
    for (std::size_t i = 0; i < s.size(); ++i) {
      X(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(i)) =
          values[i][k % values[i].size()];
      k /= values[i].size();
    }
  }
  return X;
}

// A smooth-ish target with interactions, in encoded units.
double target(const Eigen::VectorXd& x) {
  double v = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i)
    v += std::sin(1.3 * x[i] + 0.4 * static_cast<double>(i));
  return v + 0.5 * x[0] * x[x.size() - 1];
}

// The plugin class in-process (to read its network and formulation).
struct Net {
  Net(const Space& s, const std::map<std::string, sdk::ParamValue>& raw, std::uint64_t seed = 1)
      : ctx(seed),
        params(sdk::validate_params(plugins::ReluNet::params(), raw, "surrogate/relu_net")),
        space(s),
        net(sdk::CreateArgs{ctx, params, space}) {
    ctx.solver = &solver;
  }
  void fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
    sdk::Metric m;
    m.name = "objective";
    net.fit(dataset(X, y), m);
  }
  Eigen::VectorXd predict(const Eigen::MatrixXd& X) const {
    Eigen::VectorXd mean, var;
    net.predict(X, mean, var);
    return mean;
  }
  BnbSolver solver;
  SolverContext ctx;
  sdk::ParamSet params;
  Space space;
  plugins::ReluNet net;
};

Eigen::MatrixXd random_points(const Space& s, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return sdk::testing::random_points(s, n, rng);
}

// ------------------------------------------------------------------------------------------

TEST(ReluNet, Conformance) { sdk::testing::expect_plugin_conforms(kLibrary); }

TEST(ReluNetEncoding, OneHotBinaryScaledWidthsAndValues) {
  const Space s({Parameter::categorical("c", {"a", "b", "c"}), Parameter::binary("f"),
                 Parameter::real("r", -2.0, 6.0), Parameter::integer("small", 1, 4),
                 Parameter::integer("wide", 0, 99), Parameter::integer("lg", 1, 8, true)});
  const Encoding e(s, {});
  // 3 + 1 + 1 + 4 + 1 (100 values > 32: scaled) + 8 (log integer, one-hot over its values).
  EXPECT_EQ(e.width(), 18u);
  EXPECT_EQ(e[4].kind, InputKind::Scaled);
  EXPECT_EQ(e[5].kind, InputKind::OneHot);
  EXPECT_NEAR(e[5].values[2], std::log(3.0), 1e-12);
  Eigen::VectorXd x(6);
  x << 2.0, 1.0, 0.0, 3.0, 33.0, std::log(5.0);
  Eigen::VectorXd dense;
  e.encode_dense(x, dense);
  Eigen::VectorXd expect = Eigen::VectorXd::Zero(18);
  expect[2] = 1.0;          // c = "c"
  expect[3] = 1.0;          // f
  expect[4] = 0.25;         // (0 + 2) / 8
  expect[5 + 2] = 1.0;      // small = 3
  expect[9] = 33.0 / 99.0;  // wide
  expect[10 + 4] = 1.0;     // lg = 5
  EXPECT_LT((dense - expect).norm(), 1e-12) << dense.transpose();
  std::vector<int> idx(e.max_nonzeros());
  std::vector<double> val(e.max_nonzeros());
  const std::size_t nnz = e.encode_sparse(x, idx.data(), val.data());
  Eigen::VectorXd from_sparse = Eigen::VectorXd::Zero(18);
  for (std::size_t k = 0; k < nnz; ++k) from_sparse[idx[k]] = val[k];
  EXPECT_EQ(from_sparse, dense);
}

// The factory (what `arbo check` runs) refuses spaces it cannot encode, naming the parameter.
std::string creation_error(const Space& s, const std::map<std::string, sdk::ParamValue>& raw) {
  sdk::testing::TestContext ctx(1);
  const sdk::ParamSet params =
      sdk::validate_params(component().params(), raw, "surrogate/relu_net");
  try {
    std::unique_ptr<sdk::Component> c(component().create(sdk::CreateArgs{ctx, params, s}));
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "";
}

TEST(ReluNetEncoding, RefusesWhatItCannotEncodeNamingTheParameter) {
  // Finite bounds whose range overflows: no scaling to [0, 1] exists (a Space refuses
  // infinite bounds itself).
  const std::string unbounded =
      creation_error(Space({Parameter::binary("ok"), Parameter::real("huge", -1e308, 1e308)}), {});
  EXPECT_NE(unbounded.find("'huge'"), std::string::npos) << unbounded;
  EXPECT_NE(unbounded.find("relu_net"), std::string::npos) << unbounded;
  std::vector<Parameter> many;
  for (int i = 0; i < 30; ++i)
    many.push_back(Parameter::categorical("g" + std::to_string(i), {"a", "b", "c", "d", "e"}));
  const std::string wide = creation_error(Space(many), {{"max_inputs", std::int64_t{100}}});
  // 20 groups of 5 fit, the 21st (g20) brings the width to 105.
  EXPECT_NE(wide.find("'g20'"), std::string::npos) << wide;
  EXPECT_NE(wide.find("max_inputs = 100"), std::string::npos) << wide;
  EXPECT_EQ(creation_error(Space(many), {}), "");
  const std::string bad_hidden =
      creation_error(Space(many), {{"hidden", std::vector<double>{16.5}}});
  EXPECT_NE(bad_hidden.find("hidden"), std::string::npos) << bad_hidden;
}

// ------------------------------------------------------------------------------------------
// Gradients and training.

struct Problem {
  Network net;
  SparseRows rows;
  Eigen::MatrixXd dense;  // inputs, one row per point
  Eigen::VectorXd y;
};

Problem make_problem(const Space& s, std::vector<std::size_t> hidden, std::size_t n,
                     std::uint64_t seed) {
  const Encoding e(s, {});
  Problem p;
  p.net = Network(Architecture{e.width(), std::move(hidden)});
  std::mt19937_64 rng(seed);
  p.net.init_default(rng);
  const Eigen::MatrixXd X = random_points(s, n, seed + 1);
  p.dense.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(e.width()));
  p.y.resize(static_cast<Eigen::Index>(n));
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    Eigen::VectorXd d;
    e.encode_dense(X.row(r).transpose(), d);
    p.dense.row(r) = d.transpose();
    p.rows.append_dense(d);
    p.y[r] = target(X.row(r).transpose());
  }
  p.y = (p.y.array() - p.y.mean()) / std::sqrt((p.y.array() - p.y.mean()).square().mean());
  return p;
}

Space mixed_space() {
  return Space({Parameter::categorical("c0", {"a", "b", "c"}), Parameter::real("r", -1.0, 3.0),
                Parameter::binary("b0"), Parameter::categorical("c1", {"a", "b", "c", "d"}),
                Parameter::integer("n", 0, 4)});
}

TEST(ReluNetTraining, GradientMatchesCentralDifferences) {
  for (const auto& hidden : std::vector<std::vector<std::size_t>>{{}, {7}, {6, 5}}) {
    Problem p = make_problem(mixed_space(), hidden, 23, 7);
    Trainer t;
    std::vector<int> idx(23);
    for (int i = 0; i < 23; ++i) idx[static_cast<std::size_t>(i)] = (i * 5) % 23;
    Eigen::VectorXd grad;
    t.loss_gradient(p.net, p.rows, p.y, idx.data(), 17, grad);
    Eigen::VectorXd g2;
    const double h = 1e-6;
    double worst = 0.0;
    for (Eigen::Index k = 0; k < p.net.parameters().size(); ++k) {
      const double keep = p.net.parameters()[k];
      p.net.parameters()[k] = keep + h;
      const double up = t.loss_gradient(p.net, p.rows, p.y, idx.data(), 17, g2);
      p.net.parameters()[k] = keep - h;
      const double down = t.loss_gradient(p.net, p.rows, p.y, idx.data(), 17, g2);
      p.net.parameters()[k] = keep;
      const double fd = (up - down) / (2 * h);
      worst = std::max(worst, std::abs(fd - grad[k]) / (1e-4 + std::abs(fd)));
    }
    EXPECT_LT(worst, 1e-5) << "hidden layers " << hidden.size();
    // And the gradient is not trivially zero.
    EXPECT_GT(grad.norm(), 1e-3);
  }
}

// The training's loops run in the widest instruction set the processor has; each variant must
// give the baseline's bits, so that a study resumed on another processor trains the same
// network. Heights of the fixed-size paths (8, 16, 32) and of the run-time one (5, 24), with
// values other than 1 and repeated columns.
TEST(ReluNetKernels, EveryInstructionSetGivesTheBaselinesBits) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto draw = [&](std::size_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = u(rng);
    return v;
  };
  std::vector<std::string> isas;
  for (const char* isa : {"baseline", "avx2", "avx512f"}) {
    if (detail::supported(isa)) isas.emplace_back(isa);
  }
  ASSERT_EQ(isas.front(), "baseline");
  EXPECT_EQ(isas.back(), kernel_isa());
  // Adam over a length that is no multiple of any packet, 50 steps.
  const std::size_t n = 2033;
  const std::vector<double> theta0 = draw(n), grad = draw(n);
  std::vector<std::vector<double>> thetas;
  for (const std::string& isa : isas) {
    std::vector<double> theta = theta0, m1(n, 0.0), m2(n, 0.0);
    double b1t = 1.0, b2t = 1.0;
    for (int t = 0; t < 50; ++t) {
      b1t *= 0.9;
      b2t *= 0.999;
      detail::adam_update_on(isa.c_str(), theta.data(), m1.data(), m2.data(), grad.data(), n, 0.9,
                             0.999, 0.01 / (1.0 - b1t), 1.0 / std::sqrt(1.0 - b2t), 1e-8);
    }
    thetas.push_back(theta);
  }
  for (std::size_t k = 1; k < isas.size(); ++k) EXPECT_EQ(thetas[k], thetas[0]) << isas[k];
  for (const std::size_t h : {5u, 8u, 16u, 24u, 32u}) {
    const std::size_t cols = 40;
    const std::vector<double> W = draw(h * cols), b = draw(h), g = draw(h);
    const std::vector<int> index{3, 0, 39, 3, 17, 22};
    const std::vector<double> value{1.0, 0.5, -2.0, 1.0, 1.0, 0.25};
    std::vector<std::vector<double>> outs, dWs;
    for (const std::string& isa : isas) {
      std::vector<double> out(h), dW(h * cols, 0.125);
      detail::gather_columns_on(isa.c_str(), W.data(), h, b.data(), index.data(), value.data(),
                                static_cast<int>(index.size()), out.data());
      detail::scatter_columns_on(isa.c_str(), dW.data(), h, g.data(), index.data(), value.data(),
                                 static_cast<int>(index.size()));
      outs.push_back(out);
      dWs.push_back(dW);
    }
    // The baseline against the plain sums.
    for (std::size_t r = 0; r < h; ++r) {
      double a = b[r];
      for (std::size_t k = 0; k < index.size(); ++k) a += value[k] * W[index[k] * h + r];
      EXPECT_EQ(outs[0][r], a) << h << " " << r;
    }
    EXPECT_EQ(dWs[0][3 * h], 0.125 + g[0] + g[0]) << h;
    for (std::size_t k = 1; k < isas.size(); ++k) {
      EXPECT_EQ(outs[k], outs[0]) << isas[k] << " h " << h;
      EXPECT_EQ(dWs[k], dWs[0]) << isas[k] << " h " << h;
    }
  }
}

TEST(ReluNetTraining, LossDecreasesAndMatchesNumpyReference) {
  for (const auto& hidden : std::vector<std::vector<std::size_t>>{{8}, {6, 5}}) {
    Problem p = make_problem(mixed_space(), hidden, 150, 11);
    const Eigen::VectorXd theta0 = p.net.parameters();
    TrainConfig cfg;
    cfg.epochs = 40;  // 3 batches per epoch (64, 64, 22)
    std::mt19937_64 rng(3);
    std::vector<std::vector<int>> orders;
    Trainer t;
    const TrainReport r = t.train(p.net, p.rows, p.y, cfg, [&](int, std::vector<int>& perm) {
      shuffle(perm, rng);
      orders.push_back(perm);
    });
    EXPECT_EQ(r.steps, 120);
    const double final_full = t.loss(p.net, p.rows, p.y);
    EXPECT_LT(final_full, 0.5 * r.initial_loss) << r.initial_loss;

    nlohmann::json in;
    in["inputs"] = p.dense.cols();
    in["hidden"] = hidden;
    in["theta"] = std::vector<double>(theta0.data(), theta0.data() + theta0.size());
    in["X"] = nlohmann::json::array();
    for (Eigen::Index r2 = 0; r2 < p.dense.rows(); ++r2) {
      nlohmann::json row = nlohmann::json::array();
      for (Eigen::Index c = 0; c < p.dense.cols(); ++c) row.push_back(p.dense(r2, c));
      in["X"].push_back(row);
    }
    in["y"] = std::vector<double>(p.y.data(), p.y.data() + p.y.size());
    in["perms"] = orders;
    in["batch"] = cfg.batch_size;
    in["lr"] = cfg.learning_rate;
    in["beta1"] = cfg.beta1;
    in["beta2"] = cfg.beta2;
    in["eps"] = cfg.epsilon;
    const auto dir = std::filesystem::temp_directory_path();
    const std::string tag = std::to_string(::getpid()) + "_" + std::to_string(hidden.size());
    const auto in_path = dir / ("relu_net_ref_in_" + tag + ".json");
    const auto out_path = dir / ("relu_net_ref_out_" + tag + ".json");
    std::ofstream(in_path) << in.dump();
    const std::string cmd = std::string("/usr/bin/python3 '") + ARBO_RELU_NET_REFERENCE + "' '" +
                            in_path.string() + "' '" + out_path.string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const nlohmann::json out = nlohmann::json::parse(std::ifstream(out_path));
    std::filesystem::remove(in_path);
    std::filesystem::remove(out_path);
    const std::vector<double> ref = out["theta"].get<std::vector<double>>();
    ASSERT_EQ(ref.size(), static_cast<std::size_t>(p.net.parameters().size()));
    double worst = 0.0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
      worst = std::max(worst, std::abs(ref[k] - p.net.parameters()[static_cast<Eigen::Index>(k)]));
    }
    EXPECT_LT(worst, 1e-9) << "hidden layers " << hidden.size();
    EXPECT_NEAR(out["final_loss"].get<double>(), r.final_loss, 1e-9);
    // The parameters moved (a comparison of untouched weights would prove nothing).
    EXPECT_GT((p.net.parameters() - theta0).norm(), 0.1);
  }
}

TEST(ReluNetTraining, NonFiniteLossFailsNamingThePlugin) {
  Problem p = make_problem(mixed_space(), {4}, 30, 5);
  p.y[3] = std::numeric_limits<double>::quiet_NaN();
  Trainer t;
  TrainConfig cfg;
  cfg.epochs = 3;
  std::mt19937_64 rng(1);
  try {
    t.train(p.net, p.rows, p.y, cfg, [&](int, std::vector<int>& perm) { shuffle(perm, rng); });
    FAIL() << "no error";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("surrogate/relu_net: training diverged"),
              std::string::npos)
        << e.what();
  }
}

TEST(ReluNetTraining, EachFitDrawsAFreshNetworkFromTheIterationStream) {
  const Space s = small_space();
  const Eigen::MatrixXd X = random_points(s, 40, 3);
  Eigen::VectorXd y(X.rows());
  for (Eigen::Index r = 0; r < X.rows(); ++r) y[r] = target(X.row(r).transpose());
  const std::map<std::string, sdk::ParamValue> raw{{"epochs", std::int64_t{50}}};
  Net a(s, raw, 5), b(s, raw, 5), c(s, raw, 6);
  a.fit(X, y);
  b.fit(X, y);
  c.fit(X, y);
  const Eigen::MatrixXd P = random_points(s, 30, 9);
  EXPECT_EQ(a.predict(P), b.predict(P));
  EXPECT_GT((a.predict(P) - c.predict(P)).norm(), 1e-3);
  // A second fit on the same data continues the stream: a new network, not the same one.
  const Eigen::VectorXd first = a.predict(P);
  a.fit(X, y);
  EXPECT_GT((a.predict(P) - first).norm(), 1e-3);
  // Predictions are the network's forward pass on the z-scored scale.
  Eigen::VectorXd d;
  a.net.encoding().encode_dense(P.row(4).transpose(), d);
  EXPECT_NEAR(a.predict(P)[4], a.net.y_mean() + a.net.y_scale() * a.net.network().forward(d),
              1e-12);
}

// ------------------------------------------------------------------------------------------
// The formulation.

struct Solved {
  Eigen::VectorXd x;       // decoded query
  double objective = 0.0;  // model's maximum of -mean
  Formulation f;
};

Solved solve_min_mean(Net& n) {
  sdk::Model model;
  const sdk::PointVariables point = sdk::add_point_variables(model, n.space);
  const auto out = n.net.formulate(model, point);
  EXPECT_EQ(out.mean_offset, n.net.y_mean());  // the z-scoring's shift, not the output bias
  sdk::Objective obj;
  obj.sense = sdk::ObjectiveSense::Maximize;
  for (const auto& t : out.mean) obj.linear.push_back({t.var, -t.coef});
  obj.constant = -out.mean_constant;
  model.set_objective(obj);
  sdk::SolveOptions opt;
  opt.absolute_gap = 0.0;
  opt.relative_gap = 0.0;
  const sdk::SolveResult res = plugins::glpk::solve_model(model, opt);
  EXPECT_EQ(res.status, sdk::SolveStatus::Optimal) << res.message;
  Solved s;
  s.x.resize(static_cast<Eigen::Index>(n.space.size()));
  for (std::size_t i = 0; i < n.space.size(); ++i)
    s.x[static_cast<Eigen::Index>(i)] = res.x[static_cast<std::size_t>(point.x_vars[i])];
  n.ctx.clear_logs();
  EXPECT_TRUE(n.net.decode(model, point, res.x, {}, s.x));
  // decode compares the formulated mean with the forward pass and warns on a mismatch.
  for (const std::string& line : n.ctx.logs())
    EXPECT_EQ(line.find("differs"), std::string::npos) << line;
  s.objective = res.objective;
  s.f = *n.net.last_formulation();
  // The model's own objective at its solution is the value reported.
  EXPECT_NEAR(model.evaluate(res.x).objective, res.objective, 1e-9);
  return s;
}

TEST(ReluNetFormulation, OptimumEqualsEnumerationAndTheForwardPass) {
  const Space s = small_space();
  const Eigen::MatrixXd all = enumerate(s);
  ASSERT_EQ(all.rows(), 3 * 4 * 2 * 5 * 2 * 3);
  const Eigen::MatrixXd X = random_points(s, 60, 21);
  Eigen::VectorXd y(X.rows());
  for (Eigen::Index r = 0; r < X.rows(); ++r) y[r] = target(X.row(r).transpose());
  int with_lps = 0, stable = 0;
  for (const auto& hidden : std::vector<std::vector<double>>{{}, {8}, {16}, {6, 5}, {8, 8}}) {
    for (const std::string bounds : {"lp", "interval"}) {
      SCOPED_TRACE(fmt::format("hidden [{}], bounds {}", fmt::join(hidden, ", "), bounds));
      Net n(s, {{"hidden", hidden}, {"epochs", std::int64_t{300}}, {"bound_tightening", bounds}},
            17);
      n.fit(X, y);
      const Solved sol = solve_min_mean(n);
      ASSERT_TRUE(s.contains(sol.x)) << sol.x.transpose();
      const Eigen::VectorXd mean_all = n.predict(all);
      Eigen::Index best = 0;
      const double min_mean = mean_all.minCoeff(&best);
      // The MILP's optimum is the enumerated one, and its value is the forward pass at the
      // decoded point.
      EXPECT_NEAR(-sol.objective, min_mean, 1e-6);
      EXPECT_NEAR(n.predict(sol.x.transpose())[0], -sol.objective, 1e-6);
      with_lps += sol.f.lp_solves;
      // Bounds hold at every point of the space: L <= pre-activation <= U, and stable neurons
      // keep their sign.
      double worst = 0.0;
      int active = 0, inactive = 0;
      for (const auto& layer : sol.f.neurons)
        for (const auto& nv : layer) {
          active += nv.status == NeuronVars::Status::Active;
          inactive += nv.status == NeuronVars::Status::Inactive;
        }
      for (Eigen::Index r = 0; r < all.rows(); ++r) {
        Eigen::VectorXd d;
        n.net.encoding().encode_dense(all.row(r).transpose(), d);
        const auto pre = n.net.network().pre_activations(d);
        for (std::size_t l = 0; l < pre.size(); ++l)
          for (Eigen::Index j = 0; j < pre[l].size(); ++j) {
            const NeuronVars& nv = sol.f.neurons[l][static_cast<std::size_t>(j)];
            worst = std::max({worst, pre[l][j] - nv.upper, nv.lower - pre[l][j]});
          }
      }
      EXPECT_LE(worst, 1e-9);
      // Bounds from the data's network: some neurons are stable somewhere in the sweep.
      stable += active + inactive;
    }
  }
  // Two-layer networks had their second layer's bounds from LPs, and the stable-neuron
  // branches of the formulation were exercised.
  EXPECT_GT(with_lps, 0);
  EXPECT_GT(stable, 0);
}

TEST(ReluNetFormulation, LpBoundsAreTighterThanIntervalsInLaterLayers) {
  const Space s = small_space();
  const Eigen::MatrixXd X = random_points(s, 60, 22);
  Eigen::VectorXd y(X.rows());
  for (Eigen::Index r = 0; r < X.rows(); ++r) y[r] = target(X.row(r).transpose());
  double lp_width = 0.0, ia_width = 0.0;
  for (const std::string bounds : {"lp", "interval"}) {
    Net n(s,
          {{"hidden", std::vector<double>{8, 8}},
           {"epochs", std::int64_t{300}},
           {"bound_tightening", bounds}},
          4);
    n.fit(X, y);
    const Solved sol = solve_min_mean(n);
    for (std::size_t l = 0; l < sol.f.neurons.size(); ++l)
      for (const auto& nv : sol.f.neurons[l]) {
        if (l == 0) continue;
        (bounds == "lp" ? lp_width : ia_width) += nv.upper - nv.lower;
      }
    if (bounds == "lp") {
      EXPECT_EQ(sol.f.lp_solves, 16);
    }
  }
  EXPECT_LT(lp_width, ia_width);
}

TEST(ReluNetFormulation, ExposesTheEncodingBinaries) {
  const Space s = small_space();
  const Eigen::MatrixXd X = random_points(s, 30, 23);
  Eigen::VectorXd y(X.rows());
  for (Eigen::Index r = 0; r < X.rows(); ++r) y[r] = target(X.row(r).transpose());
  Net n(s, {{"epochs", std::int64_t{50}}}, 4);
  n.fit(X, y);
  sdk::Model model;
  const sdk::PointVariables point = sdk::add_point_variables(model, n.space);
  n.net.formulate(model, point);
  const Formulation& f = *n.net.last_formulation();
  EXPECT_EQ(f.onehot[0].size(), 3u);
  EXPECT_EQ(f.onehot[1].size(), 4u);
  EXPECT_EQ(f.onehot[3].size(), 5u);  // n0 in {2..6}
  EXPECT_TRUE(f.onehot[2].empty());
  EXPECT_EQ(f.binary[2], point.x_vars[2]);
  EXPECT_EQ(f.binary[0], -1);
  for (const auto& g : f.onehot)
    for (int z : g)
      EXPECT_EQ(model.variables()[static_cast<std::size_t>(z)].type, sdk::VarType::Binary);
}

}  // namespace

// SPDX-License-Identifier: MIT
#include "relu_net.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins {

const sdk::ParamSpecList& ReluNet::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::real_list(
          "hidden",
          "Widths of the hidden ReLU layers, input to output; the output is one linear unit. "
          "[16] is the paper's FC(16); [] a linear model, [32] and [16, 16] its ablations "
          "(Table 2).",
          {16.0}),
      sdk::ParamSpec::integer("epochs",
                              "Passes over the data per fit (epochs, not steps: the paper's "
                              "25,000 take ceil(n / batch_size) Adam steps each).",
                              25000, 0, 10000000),
      sdk::ParamSpec::integer("batch_size",
                              "Points per Adam step; each epoch reshuffles the points and the "
                              "last batch holds the remainder.",
                              64, 1, 1000000),
      sdk::ParamSpec::real("learning_rate", "Adam's step size alpha (constant).", 0.01, 1e-12,
                           10.0),
      sdk::ParamSpec::real("adam_beta1", "Adam's first-moment decay.", 0.9, 0.0, 0.999999)
          .as_advanced(),
      sdk::ParamSpec::real("adam_beta2", "Adam's second-moment decay.", 0.999, 0.0, 0.99999999)
          .as_advanced(),
      sdk::ParamSpec::real("adam_epsilon",
                           "Adam's epsilon (PyTorch's default; the paper does not give one and "
                           "TensorFlow's default is 1e-7).",
                           1e-8, 0.0, 1.0)
          .as_advanced(),
      sdk::ParamSpec::integer("max_onehot_values",
                              "Integer parameters with at most this many values are one-hot "
                              "encoded (as the paper encodes every discrete coordinate); wider "
                              "ones enter as one input scaled to [0, 1] and stay integer "
                              "variables of the MILP.",
                              32, 1, 100000),
      sdk::ParamSpec::integer("max_inputs",
                              "Largest network input width (one input per category, per "
                              "one-hot integer value, per binary, per scaled coordinate); a "
                              "space that needs more is refused when the study is created.",
                              4096, 1, 1000000),
      sdk::ParamSpec::choice(
          "bound_tightening",
          "How the big-M constants of each neuron are found: 'lp' (the paper's: per neuron, "
          "max and min of its pre-activation over the LP relaxation of the earlier layers, "
          "through the pipeline's model solver; closed form in the first layer) or "
          "'interval' (interval arithmetic, looser).",
          "lp", {"lp", "interval"}),
  };
  return specs;
}

ReluNet::ReluNet(const sdk::CreateArgs& args) : ctx_(args.context), space_(args.space) {
  const sdk::ParamSet& p = args.params;
  relu_net::EncodingLimits limits;
  limits.max_onehot_values = static_cast<std::size_t>(p.get_int("max_onehot_values"));
  limits.max_inputs = static_cast<std::size_t>(p.get_int("max_inputs"));
  encoding_ = relu_net::Encoding(space_, limits);
  arch_.inputs = encoding_.width();
  for (double w : p.get_real_list("hidden")) {
    if (!(w >= 1.0 && w <= 4096.0 && w == std::floor(w))) {
      throw sdk::ParamError("hidden", fmt::format("surrogate/relu_net: hidden layer widths must "
                                                  "be whole numbers in [1, 4096]; got {}",
                                                  w));
    }
    arch_.hidden.push_back(static_cast<std::size_t>(w));
  }
  train_.epochs = static_cast<int>(p.get_int("epochs"));
  train_.batch_size = static_cast<int>(p.get_int("batch_size"));
  train_.learning_rate = p.get_real("learning_rate");
  train_.beta1 = p.get_real("adam_beta1");
  train_.beta2 = p.get_real("adam_beta2");
  train_.epsilon = p.get_real("adam_epsilon");
  bounds_ = p.get_string("bound_tightening") == "lp" ? relu_net::BoundMethod::Lp
                                                     : relu_net::BoundMethod::Interval;
}

void ReluNet::fit(const sdk::Dataset& data, const sdk::Metric& metric) {
  if (data.size() == 0) throw sdk::Error("surrogate/relu_net: fit needs at least one observation");
  const auto t0 = std::chrono::steady_clock::now();
  // "Re-scale observed rewards before training" (Sec. 4) without a method: z-scores, with the
  // population standard deviation (1 when the targets are constant).
  const Eigen::VectorXd y = data.target(metric);
  y_mean_ = y.mean();
  const double sd = std::sqrt((y.array() - y_mean_).square().mean());
  y_scale_ = sd > 1e-12 * std::max(1.0, std::abs(y_mean_)) ? sd : 1.0;
  const Eigen::VectorXd z = (y.array() - y_mean_) / y_scale_;

  train_rows_.clear();
  nz_index_.resize(encoding_.max_nonzeros());
  nz_value_.resize(encoding_.max_nonzeros());
  for (Eigen::Index r = 0; r < data.X.rows(); ++r) {
    const std::size_t nnz =
        encoding_.encode_sparse(data.X.row(r).transpose(), nz_index_.data(), nz_value_.data());
    train_rows_.index.insert(train_rows_.index.end(), nz_index_.begin(),
                             nz_index_.begin() + static_cast<long>(nnz));
    train_rows_.value.insert(train_rows_.value.end(), nz_value_.begin(),
                             nz_value_.begin() + static_cast<long>(nnz));
    train_rows_.row_ptr.push_back(static_cast<int>(train_rows_.index.size()));
  }

  // A fresh network every fit (Sec. 3.1: the random initialization and batch order are the
  // method's exploration), drawn from the iteration's stream so that --resume repeats it.
  fitted_ = false;
  last_model_ = nullptr;
  net_ = relu_net::Network(arch_);
  std::mt19937_64& rng = ctx_.rng();
  net_.init_default(rng);
  report_ = trainer_.train(
      net_, train_rows_, z, train_,
      [&rng](int, std::vector<int>& perm) { relu_net::shuffle(perm, rng); },
      [this] { return ctx_.cancelled(); });
  const std::int64_t batches = (static_cast<std::int64_t>(data.size()) + train_.batch_size - 1) /
                               std::max(1, train_.batch_size);
  if (report_.steps < batches * train_.epochs) {
    throw sdk::Cancelled("surrogate/relu_net: training interrupted");
  }
  fitted_ = true;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ctx_.debug("relu_net: {} points, {} inputs, {} Adam steps in {:.3f} s; loss {:.4g} -> {:.4g}",
             data.size(), encoding_.width(), report_.steps, seconds, report_.initial_loss,
             report_.final_loss);
}

void ReluNet::predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
                      Eigen::VectorXd& variance) const {
  if (!fitted_) throw sdk::Error("surrogate/relu_net: predict before fit");
  rows_.clear();
  nz_index_.resize(encoding_.max_nonzeros());
  nz_value_.resize(encoding_.max_nonzeros());
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    const std::size_t nnz =
        encoding_.encode_sparse(X.row(r).transpose(), nz_index_.data(), nz_value_.data());
    rows_.index.insert(rows_.index.end(), nz_index_.begin(),
                       nz_index_.begin() + static_cast<long>(nnz));
    rows_.value.insert(rows_.value.end(), nz_value_.begin(),
                       nz_value_.begin() + static_cast<long>(nnz));
    rows_.row_ptr.push_back(static_cast<int>(rows_.index.size()));
  }
  trainer_.outputs(net_, rows_, out_);
  mean = y_mean_ + y_scale_ * out_.array();
  variance.setZero(X.rows());  // allocates only when the size changes
}

sdk::FormulatesSurrogate::Output ReluNet::formulate(sdk::Model& model,
                                                    const sdk::PointVariables& point) const {
  if (!fitted_) throw sdk::Error("surrogate/relu_net: formulate before fit");
  sdk::ModelSolver* solver = ctx_.model_solver();
  last_ = relu_net::formulate(model, point, space_, encoding_, net_, y_mean_, y_scale_, solver,
                              bounds_);
  last_model_ = &model;
  std::size_t unstable = 0, stable = 0;
  for (const auto& layer : last_.neurons) {
    for (const auto& n : layer) {
      (n.status == relu_net::NeuronVars::Status::Unstable ? unstable : stable) += 1;
    }
  }
  ctx_.debug("relu_net: formulated with {} unstable and {} stable neurons ({} bound LPs)", unstable,
             stable, last_.lp_solves);
  return last_.output;
}

bool ReluNet::decode(const sdk::Model& model, const sdk::PointVariables& point,
                     const std::vector<double>& solution,
                     const std::vector<const sdk::Constraint*>& constraints,
                     Eigen::VectorXd& x) const {
  (void)point;
  (void)constraints;
  if (!fitted_ || last_model_ != &model || solution.size() < model.num_variables()) return false;
  relu_net::decode(last_, encoding_, solution, x);
  // The digest's safeguard (wrong big-Ms or numerical trouble show as a model mean that is not
  // the network's): compare the formulated mean at the solution with the forward pass.
  double formulated = last_.output.mean_constant;
  for (const sdk::LinearTerm& t : last_.output.mean) {
    formulated += t.coef * solution[static_cast<std::size_t>(t.var)];
  }
  Eigen::VectorXd mean, var;
  predict(x.transpose(), mean, var);
  if (std::abs(mean[0] - formulated) > 1e-6 * (1.0 + std::abs(mean[0]))) {
    ctx_.warn(
        "relu_net: the model's mean at its solution ({:.10g}) differs from the network's "
        "prediction at the decoded point ({:.10g}); the solution is proposed as decoded",
        formulated, mean[0]);
  }
  return true;
}

}  // namespace arbo::plugins

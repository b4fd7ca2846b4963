// SPDX-License-Identifier: MIT
/// @file
/// @brief The fully connected ReLU network of surrogate/relu_net and its training (NN+MILP,
/// Papalexopoulos et al. 2022, Sec. 4 and App. C): hidden ReLU layers, a linear output, the l2
/// loss, Adam, mini-batches reshuffled every epoch.
///
/// Hand-written on Eigen (decision 28 of docs/decisions.md: measured against libtorch in
/// bench/nn_milp): the first layer gathers the weight columns of the nonzero inputs only, which
/// for one-hot inputs is |groups| columns of |inputs|.
#pragma once

#include <cstddef>
#include <functional>
#include <random>
#include <vector>

#include <Eigen/Core>

namespace arbo::plugins::relu_net {

/// Sizes of a network: `inputs` -> hidden[0] -> ... -> hidden.back() -> 1. `hidden` may be
/// empty (a linear model).
struct Architecture {
  std::size_t inputs = 0;
  std::vector<std::size_t> hidden;
};

/// Inputs of n points in compressed sparse rows: point r has the nonzeros
/// index[row_ptr[r] .. row_ptr[r+1]) with values value[...].
struct SparseRows {
  std::vector<int> row_ptr{0};
  std::vector<int> index;
  std::vector<double> value;
  std::size_t rows() const noexcept { return row_ptr.size() - 1; }
  void clear() {
    row_ptr.assign(1, 0);
    index.clear();
    value.clear();
  }
  /// Appends one point given densely (zeros left out).
  void append_dense(const Eigen::Ref<const Eigen::VectorXd>& x);
};

/// Weights and biases in one contiguous vector (so that Adam updates all parameters in one
/// vectorized pass): layer l (0 = first hidden, last = output) holds W_l (out x in, column
/// major, PyTorch's (out, in) shape) then b_l.
class Network {
 public:
  Network() = default;
  explicit Network(Architecture arch);

  const Architecture& architecture() const noexcept { return arch_; }
  /// Hidden layers + the output layer.
  std::size_t num_layers() const noexcept { return offsets_.size(); }
  Eigen::Index fan_in(std::size_t l) const;
  Eigen::Index fan_out(std::size_t l) const;
  Eigen::Map<Eigen::MatrixXd> weight(std::size_t l);
  Eigen::Map<const Eigen::MatrixXd> weight(std::size_t l) const;
  Eigen::Map<Eigen::VectorXd> bias(std::size_t l);
  Eigen::Map<const Eigen::VectorXd> bias(std::size_t l) const;
  /// Where W_l and b_l start in `parameters()` (a gradient uses the same layout).
  Eigen::Index weight_offset(std::size_t l) const { return offsets_[l]; }
  Eigen::Index bias_offset(std::size_t l) const { return offsets_[l] + fan_out(l) * fan_in(l); }
  /// All parameters (layer by layer: W_l column major, then b_l).
  Eigen::VectorXd& parameters() noexcept { return theta_; }
  const Eigen::VectorXd& parameters() const noexcept { return theta_; }

  /// PyTorch's default initialization of nn.Linear (reset_parameters): W and b uniform on
  /// [-1/sqrt(fan_in), 1/sqrt(fan_in)] (kaiming_uniform_ with a = sqrt(5) gives exactly this
  /// bound), drawn layer by layer, W in PyTorch's row-major (out, in) order, then b. The paper
  /// used TensorFlow (Glorot-uniform kernels, zero biases); the issue asks for PyTorch's.
  void init_default(std::mt19937_64& rng);

  /// Output at one dense input (length inputs). Allocates (tests and formulation checks only;
  /// the batched `predict` of the plugin does not).
  double forward(const Eigen::VectorXd& input) const;
  /// Pre-activations of every hidden layer at one dense input (for tests of the formulation).
  std::vector<Eigen::VectorXd> pre_activations(const Eigen::VectorXd& input) const;

 private:
  Architecture arch_;
  std::vector<Eigen::Index> offsets_;  // start of W_l in theta_
  Eigen::VectorXd theta_;
};

/// Adam and the schedule of Sec. 4 of the paper; the defaults are the paper's.
struct TrainConfig {
  int epochs = 25000;   ///< passes over the data (not steps)
  int batch_size = 64;  ///< the last batch of an epoch holds the remainder
  double learning_rate = 0.01;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;  ///< PyTorch's default (TensorFlow's is 1e-7; the paper gives none)
};

/// What a training run did.
struct TrainReport {
  double initial_loss = 0.0;  ///< mean squared error over all points before the first step
  double final_loss = 0.0;    ///< mean over the last epoch's batches of the batch losses
  std::int64_t steps = 0;     ///< Adam steps taken
};

/// Writes the order of the points for epoch `epoch` into `perm` (a permutation of 0..n-1 on
/// entry: the previous epoch's order, or the identity before the first).
using OrderFunction = std::function<void(int epoch, std::vector<int>& perm)>;

/// Fisher-Yates shuffle of `perm` with Boost.Random's uniform integers (the same draws on
/// every standard library, unlike std::shuffle).
void shuffle(std::vector<int>& perm, std::mt19937_64& rng);

/// Mini-batch Adam on the l2 loss (mean over the batch of squared errors, torch.nn.MSELoss),
/// with workspaces sized once per call: no allocation per step.
class Trainer {
 public:
  /// Loss over points `idx[0..m)` and its gradient (same layout as `Network::parameters`),
  /// written into `grad` (resized once). ReLU'(0) = 0, as PyTorch.
  double loss_gradient(const Network& net, const SparseRows& data, const Eigen::VectorXd& y,
                       const int* idx, int m, Eigen::VectorXd& grad);
  /// Network outputs at every point of `data` into `out` (resized to the number of points),
  /// in blocks of 256 points; no allocation once the workspaces have grown.
  void outputs(const Network& net, const SparseRows& data, Eigen::VectorXd& out);
  /// Mean squared error over all points.
  double loss(const Network& net, const SparseRows& data, const Eigen::VectorXd& y);
  /// Trains `net` in place from its current parameters. `order` chooses each epoch's order;
  /// `stop`, polled every 64 epochs, ends training early when it returns true (the report then
  /// has fewer steps). @throws sdk::Error when a batch loss is not finite, naming the epoch.
  TrainReport train(Network& net, const SparseRows& data, const Eigen::VectorXd& y,
                    const TrainConfig& config, const OrderFunction& order,
                    const std::function<bool()>& stop = {});

 private:
  void resize(const Network& net, int batch);
  // Forward pass of points idx[0..m) into pre_/post_; returns nothing.
  void forward_batch(const Network& net, const SparseRows& data, const int* idx, int m);

  std::vector<Eigen::MatrixXd> pre_;   // per hidden layer: out x batch pre-activations
  std::vector<Eigen::MatrixXd> post_;  // per hidden layer: ReLU outputs
  std::vector<Eigen::MatrixXd> delta_;
  Eigen::RowVectorXd out_;
  Eigen::VectorXd m1_, m2_, grad_;
  std::vector<int> iota_;
  int batch_capacity_ = 0;
};

}  // namespace arbo::plugins::relu_net

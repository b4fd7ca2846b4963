// SPDX-License-Identifier: MIT
#include "network.hpp"

#include "kernels.hpp"

#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include <arbo/sdk/error.hpp>

namespace arbo::plugins::relu_net {

void SparseRows::append_dense(const Eigen::Ref<const Eigen::VectorXd>& x) {
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    if (x[k] != 0.0) {
      index.push_back(static_cast<int>(k));
      value.push_back(x[k]);
    }
  }
  row_ptr.push_back(static_cast<int>(index.size()));
}

Network::Network(Architecture arch) : arch_(std::move(arch)) {
  Eigen::Index size = 0;
  std::size_t in = arch_.inputs;
  for (std::size_t l = 0; l <= arch_.hidden.size(); ++l) {
    const std::size_t out = l < arch_.hidden.size() ? arch_.hidden[l] : 1;
    offsets_.push_back(size);
    size += static_cast<Eigen::Index>(out * in + out);
    in = out;
  }
  theta_ = Eigen::VectorXd::Zero(size);
}

Eigen::Index Network::fan_in(std::size_t l) const {
  return static_cast<Eigen::Index>(l == 0 ? arch_.inputs : arch_.hidden[l - 1]);
}

Eigen::Index Network::fan_out(std::size_t l) const {
  return static_cast<Eigen::Index>(l < arch_.hidden.size() ? arch_.hidden[l] : 1);
}

Eigen::Map<Eigen::MatrixXd> Network::weight(std::size_t l) {
  return {theta_.data() + weight_offset(l), fan_out(l), fan_in(l)};
}
Eigen::Map<const Eigen::MatrixXd> Network::weight(std::size_t l) const {
  return {theta_.data() + weight_offset(l), fan_out(l), fan_in(l)};
}
Eigen::Map<Eigen::VectorXd> Network::bias(std::size_t l) {
  return {theta_.data() + bias_offset(l), fan_out(l)};
}
Eigen::Map<const Eigen::VectorXd> Network::bias(std::size_t l) const {
  return {theta_.data() + bias_offset(l), fan_out(l)};
}

void Network::init_default(std::mt19937_64& rng) {
  for (std::size_t l = 0; l < num_layers(); ++l) {
    // torch.nn.Linear.reset_parameters: kaiming_uniform_(W, a=sqrt(5)) has gain
    // sqrt(2 / (1 + 5)) and bound gain * sqrt(3 / fan_in) = 1 / sqrt(fan_in); the bias is
    // uniform on the same interval. A layer with no inputs (never built) would divide by 0.
    const double bound = 1.0 / std::sqrt(static_cast<double>(std::max<Eigen::Index>(1, fan_in(l))));
    boost::random::uniform_real_distribution<double> u(-bound, bound);
    auto W = weight(l);
    for (Eigen::Index r = 0; r < W.rows(); ++r) {
      for (Eigen::Index c = 0; c < W.cols(); ++c) W(r, c) = u(rng);
    }
    auto b = bias(l);
    for (Eigen::Index r = 0; r < b.size(); ++r) b[r] = u(rng);
  }
}

std::vector<Eigen::VectorXd> Network::pre_activations(const Eigen::VectorXd& input) const {
  std::vector<Eigen::VectorXd> out;
  Eigen::VectorXd h = input;
  for (std::size_t l = 0; l + 1 < num_layers(); ++l) {
    Eigen::VectorXd a = weight(l) * h + bias(l);
    out.push_back(a);
    h = a.cwiseMax(0.0);
  }
  return out;
}

double Network::forward(const Eigen::VectorXd& input) const {
  Eigen::VectorXd h = input;
  for (std::size_t l = 0; l + 1 < num_layers(); ++l) h = (weight(l) * h + bias(l)).cwiseMax(0.0);
  const std::size_t last = num_layers() - 1;
  return (weight(last) * h)(0) + bias(last)(0);
}

void shuffle(std::vector<int>& perm, std::mt19937_64& rng) {
  for (std::size_t i = perm.size(); i > 1; --i) {
    boost::random::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(perm[i - 1], perm[pick(rng)]);
  }
}

void Trainer::resize(const Network& net, int batch) {
  const std::size_t hidden = net.architecture().hidden.size();
  bool same_widths = pre_.size() == hidden;
  for (std::size_t l = 0; same_widths && l < hidden; ++l) {
    same_widths = pre_[l].rows() == net.fan_out(l);
  }
  if (batch_capacity_ < batch || !same_widths) {
    batch = std::max(batch, batch_capacity_);
    pre_.resize(hidden);
    post_.resize(hidden);
    delta_.resize(hidden);
    for (std::size_t l = 0; l < hidden; ++l) {
      pre_[l].resize(net.fan_out(l), batch);
      post_[l].resize(net.fan_out(l), batch);
      delta_[l].resize(net.fan_out(l), batch);
    }
    out_.resize(batch);
    batch_capacity_ = batch;
  }
  if (grad_.size() != net.parameters().size()) grad_.resize(net.parameters().size());
}

void Trainer::forward_batch(const Network& net, const SparseRows& data, const int* idx, int m) {
  const std::size_t hidden = net.architecture().hidden.size();
  // First layer: only the weight columns of the nonzero inputs (one per one-hot group).
  const auto W0 = net.weight(0);
  const auto b0 = net.bias(0);
  for (int s = 0; s < m; ++s) {
    const int r = idx[s];
    if (hidden == 0) {
      double a = b0[0];
      for (int k = data.row_ptr[r]; k < data.row_ptr[r + 1]; ++k)
        a += data.value[k] * W0(0, data.index[k]);
      out_[s] = a;
    } else {
      const int begin = data.row_ptr[r];
      gather_columns(W0.data(), static_cast<std::size_t>(W0.rows()), b0.data(),
                     data.index.data() + begin, data.value.data() + begin,
                     data.row_ptr[r + 1] - begin, pre_[0].col(s).data());
    }
  }
  if (hidden == 0) return;
  post_[0].leftCols(m) = pre_[0].leftCols(m).cwiseMax(0.0);
  for (std::size_t l = 1; l < hidden; ++l) {
    pre_[l].leftCols(m).noalias() = net.weight(l) * post_[l - 1].leftCols(m);
    pre_[l].leftCols(m).colwise() += net.bias(l);
    post_[l].leftCols(m) = pre_[l].leftCols(m).cwiseMax(0.0);
  }
  out_.head(m).noalias() = net.weight(hidden) * post_[hidden - 1].leftCols(m);
  out_.head(m).array() += net.bias(hidden)(0);
}

double Trainer::loss_gradient(const Network& net, const SparseRows& data, const Eigen::VectorXd& y,
                              const int* idx, int m, Eigen::VectorXd& grad) {
  resize(net, m);
  forward_batch(net, data, idx, m);
  const std::size_t hidden = net.architecture().hidden.size();
  if (grad.size() != net.parameters().size()) grad.resize(net.parameters().size());
  // Residuals, then d loss / d out = 2 (out - y) / m (MSELoss with mean reduction).
  double loss = 0.0;
  for (int s = 0; s < m; ++s) {
    const double e = out_[s] - y[idx[s]];
    loss += e * e;
    out_[s] = 2.0 * e / m;
  }
  loss /= m;
  // Gradient maps into `grad`, laid out as the parameters.
  const auto map_w = [&](std::size_t l) {
    return Eigen::Map<Eigen::MatrixXd>(grad.data() + net.weight_offset(l), net.fan_out(l),
                                       net.fan_in(l));
  };
  const auto map_b = [&](std::size_t l) {
    return Eigen::Map<Eigen::VectorXd>(grad.data() + net.bias_offset(l), net.fan_out(l));
  };
  const auto g_out = out_.head(m);
  if (hidden == 0) {
    auto dW = map_w(0);
    dW.setZero();
    for (int s = 0; s < m; ++s) {
      const int r = idx[s];
      for (int k = data.row_ptr[r]; k < data.row_ptr[r + 1]; ++k)
        dW(0, data.index[k]) += data.value[k] * g_out[s];
    }
    map_b(0)(0) = g_out.sum();
    return loss;
  }
  map_w(hidden).noalias() = g_out * post_[hidden - 1].leftCols(m).transpose();
  map_b(hidden)(0) = g_out.sum();
  delta_[hidden - 1].leftCols(m).noalias() = net.weight(hidden).transpose() * g_out;
  for (std::size_t l = hidden; l-- > 0;) {
    auto d = delta_[l].leftCols(m);
    d = (pre_[l].leftCols(m).array() > 0.0).select(d, 0.0);
    map_b(l) = d.rowwise().sum();
    if (l > 0) {
      map_w(l).noalias() = d * post_[l - 1].leftCols(m).transpose();
      delta_[l - 1].leftCols(m).noalias() = net.weight(l).transpose() * d;
    } else {
      auto dW = map_w(0);
      dW.setZero();
      for (int s = 0; s < m; ++s) {
        const int r = idx[s];
        const int begin = data.row_ptr[r];
        scatter_columns(dW.data(), static_cast<std::size_t>(dW.rows()), d.col(s).data(),
                        data.index.data() + begin, data.value.data() + begin,
                        data.row_ptr[r + 1] - begin);
      }
    }
  }
  return loss;
}

void Trainer::outputs(const Network& net, const SparseRows& data, Eigen::VectorXd& out) {
  constexpr int kBlock = 256;
  const int n = static_cast<int>(data.rows());
  if (out.size() != n) out.resize(n);
  const int block = std::max(1, std::min(kBlock, n));
  resize(net, block);
  for (int start = 0; start < n; start += block) {
    const int m = std::min(block, n - start);
    if (static_cast<int>(iota_.size()) < m) iota_.resize(static_cast<std::size_t>(m));
    for (int s = 0; s < m; ++s) iota_[static_cast<std::size_t>(s)] = start + s;
    forward_batch(net, data, iota_.data(), m);
    out.segment(start, m) = out_.head(m).transpose();
  }
}

double Trainer::loss(const Network& net, const SparseRows& data, const Eigen::VectorXd& y) {
  Eigen::VectorXd out;
  outputs(net, data, out);
  return (out - y).squaredNorm() / static_cast<double>(data.rows());
}

TrainReport Trainer::train(Network& net, const SparseRows& data, const Eigen::VectorXd& y,
                           const TrainConfig& config, const OrderFunction& order,
                           const std::function<bool()>& stop) {
  const int n = static_cast<int>(data.rows());
  TrainReport report;
  report.initial_loss = loss(net, data, y);
  const int batch = std::max(1, std::min(config.batch_size, n));
  resize(net, batch);
  const Eigen::Index p = net.parameters().size();
  m1_ = Eigen::VectorXd::Zero(p);
  m2_ = Eigen::VectorXd::Zero(p);
  std::vector<int> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  double b1t = 1.0, b2t = 1.0;
  Eigen::VectorXd& theta = net.parameters();
  for (int epoch = 0; epoch < config.epochs; ++epoch) {
    if (stop && epoch % 64 == 0 && stop()) break;
    order(epoch, perm);
    double epoch_loss = 0.0;
    int batches = 0;
    for (int start = 0; start < n; start += batch) {
      const int m = std::min(batch, n - start);
      const double l = loss_gradient(net, data, y, perm.data() + start, m, grad_);
      if (!std::isfinite(l)) {
        throw sdk::Error(fmt::format(
            "surrogate/relu_net: training diverged: the loss of a batch is {} at epoch {} of {} "
            "(learning_rate = {}); the iteration fails, the study is unchanged",
            l, epoch + 1, config.epochs, config.learning_rate));
      }
      epoch_loss += l;
      ++batches;
      // torch.optim.Adam (amsgrad off, no weight decay): bias-corrected moments, step
      // lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
      b1t *= config.beta1;
      b2t *= config.beta2;
      const double step = config.learning_rate / (1.0 - b1t);
      const double c2 = 1.0 / std::sqrt(1.0 - b2t);
      adam_update(theta.data(), m1_.data(), m2_.data(), grad_.data(), static_cast<std::size_t>(p),
                  config.beta1, config.beta2, step, c2, config.epsilon);
      ++report.steps;
    }
    report.final_loss = epoch_loss / batches;
  }
  return report;
}

}  // namespace arbo::plugins::relu_net

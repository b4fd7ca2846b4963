// SPDX-License-Identifier: MIT
/// @file
/// @brief The MILP of a trained ReLU network (NN+MILP, Papalexopoulos et al. 2022, Sec. 3.2 and
/// App. A): the input encoding as binaries linked to the point variables, and every hidden
/// neuron in the big-M form with its own M0 = U and M1 = -L from bounds on its pre-activation.
#pragma once

#include <vector>

#include <arbo/sdk/capabilities/surrogate.hpp>
#include <arbo/sdk/model.hpp>
#include <arbo/sdk/space.hpp>

#include "encoding.hpp"
#include "network.hpp"

namespace arbo::plugins::relu_net {

/// How the bounds L <= w'h + b <= U of every neuron are found.
enum class BoundMethod {
  /// The paper's: per neuron, max and min of the pre-activation over the LP relaxation of the
  /// encoding and the earlier layers' big-M rows (two LPs per neuron, through the model
  /// solver). In the first layer the relaxation is a product of simplices (one-hot groups) and
  /// intervals, whose LP optimum is the closed form b + sum of per-group extremes: it is used
  /// there without an LP (the same number).
  Lp,
  /// Interval arithmetic through the layers (valid, looser; used when there is no solver).
  Interval,
};

/// One hidden neuron in the model.
struct NeuronVars {
  enum class Status { Inactive, Active, Unstable };
  Status status = Status::Unstable;
  double lower = 0.0;  ///< L (<= pre-activation on the relaxation)
  double upper = 0.0;  ///< U (>= pre-activation)
  int y = -1;          ///< post-activation variable (-1 when stably inactive: y = 0)
  int alpha = -1;      ///< binary "active" of an unstable neuron, else -1
};

/// What `formulate` added, for decoding and for cuts over the encoding.
struct Formulation {
  sdk::FormulatesSurrogate::Output output;
  /// Per coordinate of the space: the binary of each one-hot input (in the order of
  /// `CoordinateEncoding::values`), empty for other coordinates. With `binary`, these are the
  /// binaries of the encoding: the variables a no-good cut over the encoding uses (Sec. 3.3).
  std::vector<std::vector<int>> onehot;
  /// Per coordinate: the point variable when the coordinate is a binary input, else -1.
  std::vector<int> binary;
  /// Per hidden layer, per neuron.
  std::vector<std::vector<NeuronVars>> neurons;
  int lp_solves = 0;  ///< LPs solved for bounds
};

/// Writes the network (predicting y_mean + y_scale * net(encode(x))) into `model` over
/// `point`. `solver` may be null (then `Interval` bounds are used whatever `method` says).
/// Stable neurons get no binary: U <= 0 makes y = 0 (dropped), L >= 0 makes y = w'h + b; the
/// big-M rows assume M0, M1 >= 0, so this is required, not an option (App. A).
/// @throws sdk::Error for a space with conditions (inactive coordinates are not modelled).
Formulation formulate(sdk::Model& model, const sdk::PointVariables& point, const sdk::Space& space,
                      const Encoding& encoding, const Network& net, double y_mean, double y_scale,
                      sdk::ModelSolver* solver, BoundMethod method);

/// The query of a solution: each one-hot coordinate at the value of its largest binary,
/// binaries and integers rounded, reals as solved (Sec. 3: decode z by argmax per group).
void decode(const Formulation& f, const Encoding& encoding, const std::vector<double>& solution,
            Eigen::VectorXd& x);

}  // namespace arbo::plugins::relu_net

// SPDX-License-Identifier: MIT
/// @file
/// @brief Generic acquisitions that only need `Surrogate::predict`: expected improvement (ei),
/// probability of improvement (pi), lower confidence bound (lcb) and constraint-weighted EI
/// (cwei = EI x probability of feasibility).
///
/// All four are written for the kernel's minimization convention (y is minimized) and return a
/// value to *maximize*. One instance is used by one thread at a time; `value` reuses mutable
/// buffers, so scoring a point does not allocate once the buffers have grown.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <arbo/sdk/acquisition.hpp>
#include <arbo/sdk/capabilities/acquisition.hpp>
#include <arbo/sdk/capabilities/surrogate.hpp>

namespace arbo::plugins {

/// Shared plumbing: binding, the one-row buffer of `value`, and block-wise prediction.
class GaussianAcquisition : public sdk::Acquisition {
 public:
  double value(const Eigen::VectorXd& x) const final;
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const final;

 protected:
  explicit GaussianAcquisition(const sdk::CreateArgs& args);

  /// Stores the objective model and the constraint models (when `use_constraints`); throws
  /// when there is no objective model. With `integrate_mixtures`, models with
  /// `sdk::PosteriorMixture` are predicted per component (see `predict_all`).
  void bind_models(const sdk::AcquisitionInputs& inputs, bool use_constraints,
                   bool integrate_mixtures = false);
  /// The incumbent of improvement-based acquisitions: the best feasible y, or, while no
  /// observation is feasible, the smallest observed y. Throws without any observation.
  double improvement_incumbent(const sdk::AcquisitionInputs& inputs) const;

  /// Prediction buffers: the objective model and one pair per constraint model.
  struct Buffers {
    Eigen::VectorXd mean, var;
    std::vector<Eigen::VectorXd> c_mean, c_var;
    Eigen::MatrixXd comp_mean, comp_var;  // components of a mixture model
  };
  /// Predicts every bound model at the rows of `X` into `buf`. A mixture model bound with
  /// `integrate_mixtures` gives, in place of its moment-matched prediction, the average of
  /// its components' means and the square of the average of their standard deviations, so
  /// that mean - kappa * sqrt(var) is the average over the components of mean_s - kappa *
  /// sd_s (the integrated bound; for expected-improvement criteria these are not the
  /// mixture's moments, which is why only lcb asks for it).
  void predict_all(const Eigen::MatrixXd& X, Buffers& buf) const;
  /// Scores the rows of `X` (at most one block) into out.segment(offset, X.rows()), using
  /// `buf` as scratch.
  virtual void score(const Eigen::MatrixXd& X, Buffers& buf, Eigen::Index offset,
                     Eigen::VectorXd& out) const = 0;

  sdk::Context& ctx_;
  const sdk::Surrogate* objective_ = nullptr;
  std::vector<const sdk::Surrogate*> constraints_;
  // Per model (objective, then constraints): its mixture when integrated, else null.
  const sdk::PosteriorMixture* objective_mixture_ = nullptr;
  std::vector<const sdk::PosteriorMixture*> constraint_mixtures_;
  std::vector<double> c_scale_;  // largest |observed value| per constraint: the sd floor's units

 private:
  // Scratch of value() and of values() kept apart so that alternating single points and
  // blocks never reallocates. Mutable because scoring is logically const; one instance is
  // used by one thread.
  mutable Buffers point_, batch_;
  mutable Eigen::MatrixXd row_;    // the one-row matrix of value()
  mutable Eigen::VectorXd one_;    // value()'s output
  mutable Eigen::MatrixXd block_;  // a block of rows of a large values() call
};

/// Improvement-based acquisitions over the incumbent y* (the best feasible y): `criterion` is
/// EI's E[max(y* - xi - Y(x), 0)] or PI's P(Y(x) < y* - xi), both functions of (y* - xi - mu,
/// sd). Black-box constraint models are ignored (acquisition/cwei weights by feasibility).
class ImprovementAcquisition : public GaussianAcquisition {
 public:
  using Criterion = double (*)(double improvement, double sd);
  ImprovementAcquisition(const sdk::CreateArgs& args, Criterion criterion);
  static const sdk::ParamSpecList& params();
  void bind(const sdk::AcquisitionInputs& inputs) override;

 private:
  void score(const Eigen::MatrixXd& X, Buffers& buf, Eigen::Index offset,
             Eigen::VectorXd& out) const override;
  Criterion criterion_;
  double xi_;
  double incumbent_ = 0.0;
};

/// Expected improvement over the incumbent y*: E[max(y* - xi - Y(x), 0)].
class ExpectedImprovement final : public ImprovementAcquisition {
 public:
  explicit ExpectedImprovement(const sdk::CreateArgs& args);
};

/// Probability of improvement: P(Y(x) < y* - xi).
class ProbabilityOfImprovement final : public ImprovementAcquisition {
 public:
  explicit ProbabilityOfImprovement(const sdk::CreateArgs& args);
};

/// Negated lower confidence bound, -(mu - kappa sigma), over the points every black-box
/// constraint model admits (mu_k - constraint_kappa sigma_k <= 0; -infinity elsewhere). For
/// a surrogate whose posterior is a mixture over hyperparameter samples
/// (`sdk::PosteriorMixture`, BARK), the bound averaged over the components, (1/S) sum_s
/// (mu_s - kappa sigma_s): BARK's integrated UCB (Boyne et al., Sec. 6.1). Also writes itself
/// into a model when the surrogates can (`FormulatesSurrogate` with a `stddev_var`, or
/// `FormulatesMixture`): the objective, plus one row per constraint model; and forwards
/// `DecodesSolution` to the objective surrogate (a tree-kernel GP picks the query inside its
/// leaf cell), keeping the query only where the constraint models admit it.
class LowerConfidenceBound final : public GaussianAcquisition,
                                   public sdk::FormulatesAcquisition,
                                   public sdk::DecodesSolution,
                                   public sdk::RespectsBlackBoxConstraints {
 public:
  explicit LowerConfidenceBound(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();
  void bind(const sdk::AcquisitionInputs& inputs) override;
  void formulate(sdk::Model& model, const sdk::PointVariables& point) const override;
  bool decode(const sdk::Model& model, const sdk::PointVariables& point,
              const std::vector<double>& solution,
              const std::vector<const sdk::Constraint*>& constraints,
              Eigen::VectorXd& x) const override;

 private:
  void score(const Eigen::MatrixXd& X, Buffers& buf, Eigen::Index offset,
             Eigen::VectorXd& out) const override;
  /// True when every constraint model admits the point(s) of row `i` of `buf`.
  bool admitted(const Buffers& buf, Eigen::Index i) const;
  double kappa_;
  double constraint_kappa_;
  bool integrate_ = true;  // posterior_mixture = integrate
};

/// Constraint-weighted EI: EI(x) * prod_k P(C_k(x) <= 0), with y* the best feasible y; while no
/// observation is feasible, the probability of feasibility alone.
class ConstrainedExpectedImprovement final : public GaussianAcquisition,
                                             public sdk::RespectsBlackBoxConstraints {
 public:
  explicit ConstrainedExpectedImprovement(const sdk::CreateArgs& args);
  static const sdk::ParamSpecList& params();
  void bind(const sdk::AcquisitionInputs& inputs) override;

 private:
  void score(const Eigen::MatrixXd& X, Buffers& buf, Eigen::Index offset,
             Eigen::VectorXd& out) const override;
  double xi_;
  std::optional<double> incumbent_;
};

}  // namespace arbo::plugins

// SPDX-License-Identifier: MIT
/// @file
/// @brief Optional capabilities of a surrogate: formulating itself into a model, decoding the
/// model's solution, density models, partial observations, posterior samples, mixtures over
/// hyperparameter samples, state that a study keeps between fits.
#pragma once

#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "arbo/sdk/dataset.hpp"
#include "arbo/sdk/export.hpp"
#include "arbo/sdk/model.hpp"

namespace arbo::sdk {

class Constraint;

/// Surrogate that can write its prediction into a model (trees, ReLU networks, tree-kernel GP).
///
/// Needed when the pipeline's inner solver is model-based (`glpk_bnb`): the kernel refuses
/// such a pipeline at start-up, naming this capability, when the surrogate lacks it. A
/// formulating acquisition calls `formulate` once per iteration, after `Surrogate::fit` and
/// `Acquisition::bind`, on the model the solver is building; the mean and standard deviation
/// the formulation expresses must agree with `Surrogate::predict` at every point (the
/// acquisition's `value` and its formulation then agree, which tests check). The template
/// sdk/templates/formulated_surrogate_xyz shows a complete, small example.
class ARBO_SDK_API FormulatesSurrogate {
 public:
  virtual ~FormulatesSurrogate();
  /// Output of `formulate`, in the metric's units (the same units `Surrogate::predict` uses):
  /// - `mean`, `mean_constant`: the predictive mean as an affine expression of model variables;
  /// - `variance_var`: a variable v with convex rows that make v >= sigma^2(x) hold at every
  ///   feasible point (an epigraph, for acquisitions that *penalize* variance), or -1;
  /// - `stddev_var`: a variable s >= 0 with convex rows that make s <= sigma(x) hold (a
  ///   hypograph: s^2 + (x-dependent convex terms) <= const), so that maximizing +kappa*s
  ///   drives s to sigma(x) exactly. UCB/LCB acquisitions use it; -1 when the surrogate has
  ///   no such form;
  /// - `mean_offset`: the part of `mean_constant` that only shifts the predictions, the mean
  ///   of the targets a surrogate standardized (its model in standardized units has no such
  ///   term); NaN when the surrogate declares none. Formulating acquisitions pass it on as
  ///   `Objective::offset`, which sets how solvers measure relative gaps.
  struct Output {
    std::vector<LinearTerm> mean;  ///< terms over variables of `model`
    double mean_constant = 0.0;    ///< constant part of the mean
    double mean_offset = std::numeric_limits<double>::quiet_NaN();  ///< shift in mean_constant
    int variance_var = -1;  ///< index of v (v >= sigma^2(x)), or -1
    int stddev_var = -1;    ///< index of s (0 <= s <= sigma(x)), or -1
  };
  /// Adds variables and rows to `model` linking `point` to the prediction, and returns where
  /// the prediction is. Precondition: `fit` was called; `point.x_vars` has one variable per
  /// coordinate of the space (`add_point_variables`). Adds no objective. Every variable it
  /// adds should have finite bounds (solvers need them for products and big-M rows). Throws
  /// `Error` for a fitted state it cannot express, `InvalidArgument` for a wrong `point`.
  /// Model size: the method's (a tree ensemble: one binary per distinct split, one variable per
  /// leaf).
  virtual Output formulate(Model& model, const PointVariables& point) const = 0;
};

/// Formulating component (a surrogate, or an acquisition forwarding to its surrogates) whose
/// model optimum stands for a region rather than a point, so that it picks the query itself:
/// a tree-kernel GP returns the centre of the optimal leaf cell, projected onto the known
/// constraints. Model-based inner solvers call it after a successful solve; components
/// without it keep the solver's point. The solver asks the *acquisition*, so an acquisition
/// that formulates through its surrogates implements it by forwarding to the objective's
/// surrogate (the stock acquisitions do).
class ARBO_SDK_API DecodesSolution {
 public:
  virtual ~DecodesSolution();
  /// `model` and `point` are those of the component's latest `formulate` call, `solution`
  /// the solver's values of every model variable and `x`, on entry, the point read from
  /// `point.x_vars`. Returns true after overwriting `x` with the query (which must satisfy
  /// `constraints` when the solver's point did); false leaves `x` unchanged.
  virtual bool decode(const Model& model, const PointVariables& point,
                      const std::vector<double>& solution,
                      const std::vector<const Constraint*>& constraints,
                      Eigen::VectorXd& x) const = 0;
};

/// Density model for TPE-style methods: log densities of the good (l) and bad (g) groups.
/// After `fit`, the surrogate splits its observations into a good and a bad group and fits a
/// density to each; density-ratio acquisitions (`acquisition/ctpe`) score x by l(x)/g(x) and
/// sample candidates from l. Densities are over the encoded space, normalized so that they
/// integrate (sum, for discrete coordinates) to 1.
class ARBO_SDK_API DensityModel {
 public:
  virtual ~DensityModel();
  /// log l(x) at encoded point `x`, finite. Precondition: `fit` was called.
  virtual double log_l(const Eigen::VectorXd& x) const = 0;
  /// log g(x) at encoded point `x`, finite. Precondition: `fit` was called.
  virtual double log_g(const Eigen::VectorXd& x) const = 0;
  /// Draws `n` encoded points from l into the rows of `out` (resized to n x d), using only
  /// `rng` (the caller's stream, so the draws are reproducible).
  virtual void sample_l(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const = 0;
};

/// Density model that splits its data into a good and a bad group: reports the realised good
/// fraction gamma_hat = |D^(l)| / |D| of the last fit (c-TPE's relative density ratio needs it;
/// with knowledge augmentation |D| counts the partial observations too). In (0, 1].
class ARBO_SDK_API ReportsGoodFraction {
 public:
  virtual ~ReportsGoodFraction();
  /// gamma_hat of the last `fit` (or `fit_partial`). Precondition: one of them was called.
  virtual double good_fraction() const = 0;
};

/// Surrogate of a black-box constraint that can also learn from *partial* observations: extra
/// points where only this metric was measured (c-TPE's knowledge augmentation of cheap
/// constraints). The kernel calls `fit_partial` instead of `Surrogate::fit` for such a metric,
/// and only on surrogates with this capability, so no other surrogate ever sees those rows.
class ARBO_SDK_API FitsPartialObservations {
 public:
  virtual ~FitsPartialObservations();
  /// Like `Surrogate::fit(data, metric)`, plus rows `X_partial` (p x d, encoded, snapped) with
  /// the metric's values `partial` (p, normalized like `Dataset::C`: <= 0 iff satisfied).
  virtual void fit_partial(const Dataset& data, const Metric& metric,
                           const Eigen::MatrixXd& X_partial, const Eigen::VectorXd& partial) = 0;
};

/// Surrogate whose prediction is constant on regions of the space (the cells where every tree
/// of an ensemble puts a point in the same leaf) and that names one representative point of
/// the region holding x: for a tree-kernel GP, the centre of x's leaf-intersection box, the
/// query LEAF-GP-RND proposes for its best random sample (Thebelt et al. 2022, Sec. 5.2). The
/// kernel calls it on the objective's surrogate after a black-box solve when the pipeline asks
/// for it (`[proposal] representative = true`); it refuses such a pipeline at start-up when
/// the surrogate lacks this capability.
class ARBO_SDK_API RepresentsRegions {
 public:
  virtual ~RepresentsRegions();
  /// The representative point of the region holding `x` (encoded, snapped, length d), itself
  /// in that region and snapped; it may use `Context::rng()` (random rounding of integer
  /// midpoints). It need not satisfy the known constraints: the caller checks. Precondition:
  /// `fit` was called. Cost: one prediction's worth of tree traversals.
  virtual Eigen::VectorXd representative(const Eigen::VectorXd& x) const = 0;
};

/// Surrogate that can draw joint posterior samples of the metric (BARK, ensembles), for
/// sampling acquisitions (Thompson sampling, Monte-Carlo expected improvement). No stock
/// component implements or asks for it yet; it is part of the SDK so that a third-party pair
/// can agree on it without an ABI change.
class ARBO_SDK_API PosteriorSampler {
 public:
  virtual ~PosteriorSampler();
  /// `out` (resized to num_samples x m): joint samples of the metric at the rows of `X`
  /// (m x d), in the metric's units, drawn from `rng` only. Precondition: `fit` was called.
  virtual void sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
                      Eigen::MatrixXd& out) const = 0;
};

/// Surrogate whose posterior is an equal-weight mixture of S Gaussian processes, one per
/// posterior sample of its hyperparameters (BARK: S = 16 forests with their noise levels,
/// Boyne et al. Sec. 6.1), so that an acquisition can be averaged over the samples (Snoek et
/// al. 2012, Eq. 7; BARK's integrated UCB) instead of computed from the moment-matched mixture
/// that `Surrogate::predict` returns. `acquisition/lcb` integrates its bound this way.
class ARBO_SDK_API PosteriorMixture {
 public:
  virtual ~PosteriorMixture();
  /// S >= 1, fixed between two fits. Precondition: `fit` was called.
  virtual std::size_t num_components() const = 0;
  /// Latent mean and variance of every component at the rows of `X` (m x d encoded points):
  /// `mean` and `variance` are resized to m x S, metric units, finite, variance >= 0. Same
  /// rules as `Surrogate::predict` (const, no draws, no per-point allocation). Cost: S
  /// predictions.
  virtual void predict_components(const Eigen::MatrixXd& X, Eigen::MatrixXd& mean,
                                  Eigen::MatrixXd& variance) const = 0;
};

/// A `PosteriorMixture` that writes all its components into one model, sharing what they
/// share (BARK: the split binaries of the union of all samples' trees, Boyne et al. Sec. 6.1),
/// for model-based inner solvers. A model-based pipeline accepts a surrogate with this
/// capability or `FormulatesSurrogate`.
class ARBO_SDK_API FormulatesMixture {
 public:
  virtual ~FormulatesMixture();
  /// As `FormulatesSurrogate::formulate`, once for all components: one `Output` per component,
  /// in the order of `predict_components`, each with the component's latent standard
  /// deviation as `stddev_var`. Model size: the sum of the components' formulations less
  /// what they share.
  virtual std::vector<FormulatesSurrogate::Output> formulate_components(
      Model& model, const PointVariables& point) const = 0;
};

/// Surrogate whose fit continues from its previous one (a Markov chain warm-started from its
/// last sample, as BARK's MCMC does from one BO iteration to the next), so that what it
/// predicts depends on the history of fits and not only on the data and `Context::rng()`.
/// A study must then keep that state with its observations: after every fit of a model-based
/// proposal the kernel calls `save_state` and stores the bytes in the same transaction as the
/// proposal; a study that is resumed (after a crash, `kill -9` included, or a clean stop)
/// hands the latest stored state to `restore_state` before its first fit, so that it proposes
/// exactly what an uninterrupted study proposes. The state is the plugin's own business (any
/// bytes); keep it compact, since every proposal rewrites it.
///
/// Contract: for a fresh instance `b`, `b.restore_state(a.save_state())` followed by
/// `b.fit(data, metric)` must give the same predictions as `a.fit(data, metric)` with the
/// same `Context::rng()` stream (the conformance kit checks it).
class ARBO_SDK_API SavesState {
 public:
  virtual ~SavesState();
  /// The state the next `fit` continues from, as bytes. Called after `fit`; deterministic
  /// (const; no draws from the rng). Cost: proportional to the state's size.
  virtual std::string save_state() const = 0;
  /// Replaces the state with one `save_state` returned, possibly in another process. Called
  /// before `fit`, at most once per process and metric. @throws Error when `state` is not one
  /// this plugin wrote (damaged, or from an incompatible version): the kernel then stops the
  /// resumed study with a message naming the surrogate, rather than continuing from a state
  /// an uninterrupted study never had.
  virtual void restore_state(std::string_view state) = 0;
};

}  // namespace arbo::sdk

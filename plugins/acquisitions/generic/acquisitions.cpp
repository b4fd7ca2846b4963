// SPDX-License-Identifier: MIT
#include "acquisitions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>
#include <arbo/sdk/error.hpp>

namespace arbo::plugins {

namespace {

// Rows predicted per surrogate call in values(): large enough to amortize a call, small
// enough that a surrogate's per-call scratch (a GP's m x n cross-kernel) stays in cache-sized
// megabytes when a solver scores 20,000 candidates at once.
constexpr Eigen::Index kBlockRows = 1024;

// Below this fraction of the values' scale a standard deviation is treated as zero and the
// deterministic limit is used: the Gaussian formulas lose all precision there.
constexpr double kRelativeSdFloor = 1e-12;

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

double normal_cdf(double z) { return 0.5 * std::erfc(-z * kInvSqrt2); }
double normal_pdf(double z) { return kInvSqrt2Pi * std::exp(-0.5 * z * z); }

// Standard deviation from a predicted variance, or 0 when it is below the floor relative to
// `scale` (the magnitudes it is compared with).
double effective_sd(double variance, double scale) {
  const double sd = std::sqrt(std::max(variance, 0.0));
  return sd > kRelativeSdFloor * scale ? sd : 0.0;
}

// E[max(d - e, 0)] with e ~ N(0, sd^2): the expected improvement when the predicted
// improvement is d. At sd = 0 it is max(d, 0).
double expected_improvement(double d, double sd) {
  if (sd == 0.0) return std::max(d, 0.0);
  const double z = d / sd;
  // Cancellation for z << 0 can make the bracket slightly negative.
  return std::max(sd * (z * normal_cdf(z) + normal_pdf(z)), 0.0);
}

// P(improvement > 0); at sd = 0 the indicator of a strict improvement.
double probability_of_improvement(double d, double sd) {
  if (sd == 0.0) return d > 0.0 ? 1.0 : 0.0;
  return normal_cdf(d / sd);
}

// P(C <= 0) for C ~ N(mean, sd^2); at sd = 0 the indicator of mean <= 0 (c = 0 is feasible).
// `scale` is the magnitude of the constraint's observed values: next to a mean of 0 the
// floor needs the constraint's own units.
double probability_feasible(double mean, double variance, double scale) {
  const double sd = effective_sd(variance, std::max(std::abs(mean), scale));
  if (sd == 0.0) return mean <= 0.0 ? 1.0 : 0.0;
  return normal_cdf(-mean / sd);
}

sdk::ParamSpec xi_spec() {
  return sdk::ParamSpec::real(
      "xi",
      "Improvement margin in objective units: an improvement counts only beyond the incumbent "
      "minus xi (scikit-optimize uses 0.01; the Mondrian-forest thesis leaves it unstated).",
      0.0, 0.0);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// GaussianAcquisition

GaussianAcquisition::GaussianAcquisition(const sdk::CreateArgs& args) : ctx_(args.context) {}

void GaussianAcquisition::bind_models(const sdk::AcquisitionInputs& inputs, bool use_constraints,
                                      bool integrate_mixtures) {
  if (inputs.objective == nullptr) {
    throw sdk::Error("needs a surrogate of the objective; add a [surrogate] table to the pipeline");
  }
  const auto mixture = [&](const sdk::Surrogate* s) {
    return integrate_mixtures ? dynamic_cast<const sdk::PosteriorMixture*>(s) : nullptr;
  };
  objective_ = inputs.objective;
  objective_mixture_ = mixture(objective_);
  constraints_.clear();
  constraint_mixtures_.clear();
  c_scale_.clear();
  if (use_constraints) {
    const Eigen::MatrixXd& C = inputs.data.C;
    for (const sdk::Surrogate* c : inputs.constraints) {
      if (c == nullptr) throw sdk::Error("a constraint model is null");
      const auto k = static_cast<Eigen::Index>(constraints_.size());
      c_scale_.push_back(k < C.cols() && C.rows() > 0 ? C.col(k).cwiseAbs().maxCoeff() : 0.0);
      constraints_.push_back(c);
      constraint_mixtures_.push_back(mixture(c));
    }
  }
  for (Buffers* b : {&point_, &batch_}) {
    b->c_mean.resize(constraints_.size());
    b->c_var.resize(constraints_.size());
  }
}

double GaussianAcquisition::improvement_incumbent(const sdk::AcquisitionInputs& inputs) const {
  if (inputs.incumbent) return *inputs.incumbent;
  // No feasible observation yet: improving on the best observed value, feasible or not, is
  // the natural target of an acquisition that ignores feasibility (cwei handles this case
  // with the probability of feasibility instead).
  if (inputs.data.size() == 0) {
    throw sdk::Error("needs at least one observation");
  }
  return inputs.data.y.minCoeff();
}

void GaussianAcquisition::predict_all(const Eigen::MatrixXd& X, Buffers& buf) const {
  const auto predict = [&](const sdk::Surrogate* model, const sdk::PosteriorMixture* mixture,
                           Eigen::VectorXd& mean, Eigen::VectorXd& var) {
    if (mixture == nullptr) {
      model->predict(X, mean, var);
      return;
    }
    mixture->predict_components(X, buf.comp_mean, buf.comp_var);
    mean = buf.comp_mean.rowwise().mean();
    var = buf.comp_var.cwiseMax(0.0).cwiseSqrt().rowwise().mean().array().square().matrix();
  };
  predict(objective_, objective_mixture_, buf.mean, buf.var);
  for (std::size_t k = 0; k < constraints_.size(); ++k)
    predict(constraints_[k], constraint_mixtures_[k], buf.c_mean[k], buf.c_var[k]);
}

double GaussianAcquisition::value(const Eigen::VectorXd& x) const {
  if (objective_ == nullptr) throw sdk::Error("called before bind()");
  if (row_.cols() != x.size()) row_.resize(1, x.size());
  row_.row(0) = x.transpose();
  one_.resize(1);
  score(row_, point_, 0, one_);
  return one_[0];
}

void GaussianAcquisition::values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const {
  if (objective_ == nullptr) {
    throw sdk::Error("called before bind()");
  }
  out.resize(X.rows());
  if (X.rows() <= kBlockRows) {
    score(X, batch_, 0, out);
    return;
  }
  for (Eigen::Index start = 0; start < X.rows(); start += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, X.rows() - start);
    block_ = X.middleRows(start, rows);
    score(block_, batch_, start, out);
  }
}

// ---------------------------------------------------------------------------------------------
// ei, pi

const sdk::ParamSpecList& ImprovementAcquisition::params() {
  static const sdk::ParamSpecList specs{xi_spec()};
  return specs;
}

ImprovementAcquisition::ImprovementAcquisition(const sdk::CreateArgs& args, Criterion criterion)
    : GaussianAcquisition(args), criterion_(criterion), xi_(args.params.get_real("xi")) {}

void ImprovementAcquisition::bind(const sdk::AcquisitionInputs& inputs) {
  // Black-box constraint models are ignored (documented choice): the incumbent is the best
  // feasible y, and acquisition/cwei is the variant that weights by feasibility.
  bind_models(inputs, false);
  incumbent_ = improvement_incumbent(inputs);
  if (!inputs.constraints.empty()) {
    ctx_.debug(
        "ignores {} black-box constraint model(s); acquisition/cwei weights by the "
        "probability of feasibility",
        inputs.constraints.size());
  }
}

void ImprovementAcquisition::score(const Eigen::MatrixXd& X, Buffers& buf, Eigen::Index offset,
                                   Eigen::VectorXd& out) const {
  predict_all(X, buf);
  const double target = incumbent_ - xi_;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const double mu = buf.mean[i];
    const double sd = effective_sd(buf.var[i], std::max(std::abs(mu), std::abs(target)));
    out[offset + i] = criterion_(target - mu, sd);
  }
}

ExpectedImprovement::ExpectedImprovement(const sdk::CreateArgs& args)
    : ImprovementAcquisition(args, &expected_improvement) {}

ProbabilityOfImprovement::ProbabilityOfImprovement(const sdk::CreateArgs& args)
    : ImprovementAcquisition(args, &probability_of_improvement) {}

// ---------------------------------------------------------------------------------------------
// lcb

const sdk::ParamSpecList& LowerConfidenceBound::params() {
  static const sdk::ParamSpecList specs{
      sdk::ParamSpec::real(
          "kappa",
          "Exploration weight: standard deviations subtracted from the predicted mean (the "
          "value maximized is -(mean - kappa * sd)). 1.96 is LEAF-GP's value; the "
          "Mondrian-forest thesis names LCB without a kappa. 0 is pure exploitation.",
          1.96, 0.0),
      sdk::ParamSpec::real(
          "constraint_kappa",
          "Black-box constraints (c_k(x) <= 0 is feasible): a point is admitted when "
          "mean_k(x) - constraint_kappa * sd_k(x) <= 0 for every constraint model k, optimistic "
          "as the bound itself; 0 admits the points whose predicted mean is feasible. In a model "
          "each constraint surrogate formulates itself and adds that row; black-box solvers see "
          "-infinity where a point is not admitted. Not in the LEAF-GP paper, whose problems "
          "have no black-box constraints.",
          1.96, 0.0),
      sdk::ParamSpec::choice(
          "posterior_mixture",
          "For a surrogate whose posterior is a mixture over hyperparameter samples (BARK's 16 "
          "forests): 'integrate' averages the bound over the components, (1/S) sum_s (mean_s - "
          "kappa * sd_s), BARK's integrated UCB (Boyne et al., Sec. 6.1); 'moment_matched' uses "
          "the mixture's mean and standard deviation, as for any surrogate. No effect on other "
          "surrogates.",
          "integrate", {"integrate", "moment_matched"})};
  return specs;
}

LowerConfidenceBound::LowerConfidenceBound(const sdk::CreateArgs& args)
    : GaussianAcquisition(args),
      kappa_(args.params.get_real("kappa")),
      constraint_kappa_(args.params.get_real("constraint_kappa")),
      integrate_(args.params.get_string("posterior_mixture") == "integrate") {}

void LowerConfidenceBound::bind(const sdk::AcquisitionInputs& inputs) {
  bind_models(inputs, true, integrate_);
}

// Within 1e-6 of the constraint's scale (its largest observed |value|, at least 1), the
// model solver's feasibility tolerance: a solver's point on the bound's boundary is admitted.
bool LowerConfidenceBound::admitted(const Buffers& buf, Eigen::Index i) const {
  for (std::size_t k = 0; k < constraints_.size(); ++k) {
    const double sd = std::sqrt(std::max(buf.c_var[k][i], 0.0));
    const double tolerance = 1e-6 * std::max(1.0, c_scale_[k]);
    if (!(buf.c_mean[k][i] - constraint_kappa_ * sd <= tolerance)) return false;
  }
  return true;
}

void LowerConfidenceBound::score(const Eigen::MatrixXd& X, Buffers& buf, Eigen::Index offset,
                                 Eigen::VectorXd& out) const {
  predict_all(X, buf);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    out[offset + i] = admitted(buf, i) ? kappa_ * std::sqrt(std::max(buf.var[i], 0.0)) - buf.mean[i]
                                       : -std::numeric_limits<double>::infinity();
  }
}

namespace {

// A bound mean - weight * sd of one model as a model expression: `mean` + `constant` and the
// standard deviation's terms `sd` (one stddev variable, or the average of a mixture's);
// `offset`, the part of `constant` that only shifts the values (NaN unless every formulated
// part declares one).
struct BoundTerms {
  std::vector<sdk::LinearTerm> mean;
  double constant = 0.0;
  double offset = 0.0;
  std::vector<sdk::LinearTerm> sd;
};

// The formulation of `model` (the objective's surrogate, or a constraint's, as `role` says):
// with `integrate` and a mixture model, the average over its components; otherwise its own.
// With `weight` > 0 it needs the standard deviation's hypograph variables; an Error naming the
// missing capability otherwise.
BoundTerms formulate_model(const sdk::Surrogate* model, const char* role, const char* weight_name,
                           double weight, bool integrate, sdk::Model& m,
                           const sdk::PointVariables& point) {
  const auto no_stddev = [&](const sdk::FormulatesSurrogate::Output& f) {
    return sdk::Error(fmt::format(
        "acquisition/lcb needs the {} surrogate's formulation to provide stddev_var (a variable "
        "s <= sigma(x) that maximizing +{}*s drives to sigma); {}. Use {} = 0 or a black-box "
        "inner solver",
        role, weight_name,
        f.variance_var >= 0 ? "this surrogate only provides variance_var (an upper bound v >= "
                              "sigma^2, which LCB cannot maximize through)"
                            : "this surrogate formulates its mean only",
        weight_name));
  };
  BoundTerms out;
  const auto* mixture = dynamic_cast<const sdk::PosteriorMixture*>(model);
  if (integrate && mixture != nullptr) {
    const auto* f = dynamic_cast<const sdk::FormulatesMixture*>(model);
    if (f == nullptr) {
      throw sdk::Error(fmt::format(
          "acquisition/lcb integrates the bound over the {} surrogate's posterior samples, but "
          "the surrogate cannot write them into a model (capability "
          "arbo::sdk::FormulatesMixture missing). Use posterior_mixture = \"moment_matched\" "
          "or a black-box inner solver",
          role));
    }
    const std::vector<sdk::FormulatesSurrogate::Output> parts = f->formulate_components(m, point);
    if (parts.empty())
      throw sdk::Error(fmt::format("the {} surrogate formulated no component", role));
    const double w = 1.0 / static_cast<double>(parts.size());
    for (const auto& p : parts) {
      if (weight > 0.0 && p.stddev_var < 0) throw no_stddev(p);
      for (const sdk::LinearTerm& t : p.mean) out.mean.push_back({t.var, w * t.coef});
      out.constant += w * p.mean_constant;
      out.offset += w * p.mean_offset;  // NaN as soon as one part declares none
      if (weight > 0.0) out.sd.push_back({p.stddev_var, w});
    }
    return out;
  }
  const auto* surrogate = dynamic_cast<const sdk::FormulatesSurrogate*>(model);
  if (surrogate == nullptr) {
    throw sdk::Error(fmt::format(
        "acquisition/lcb can write itself into a model only when the {} surrogate has the "
        "capability arbo::sdk::FormulatesSurrogate{}; the pipeline's surrogate does not offer it. "
        "Use a black-box inner solver (inner_solver/nelder_mead, sampling or random) or a "
        "surrogate that can formulate itself",
        role,
        mixture != nullptr ? " (or, with posterior_mixture = \"integrate\", FormulatesMixture)"
                           : ""));
  }
  sdk::FormulatesSurrogate::Output f = surrogate->formulate(m, point);
  if (weight > 0.0 && f.stddev_var < 0) throw no_stddev(f);
  out.mean = std::move(f.mean);
  out.constant = f.mean_constant;
  out.offset = f.mean_offset;
  if (weight > 0.0) out.sd.push_back({f.stddev_var, 1.0});
  return out;
}

}  // namespace

void LowerConfidenceBound::formulate(sdk::Model& model, const sdk::PointVariables& point) const {
  if (objective_ == nullptr) throw sdk::Error("called before bind()");
  const BoundTerms f =
      formulate_model(objective_, "objective", "kappa", kappa_, integrate_, model, point);
  // maximize -(mean) + kappa * s: the negated LCB, as in value().
  sdk::Objective objective;
  objective.sense = sdk::ObjectiveSense::Maximize;
  objective.linear.reserve(f.mean.size() + f.sd.size());
  for (const sdk::LinearTerm& t : f.mean) objective.linear.push_back({t.var, -t.coef});
  for (const sdk::LinearTerm& t : f.sd) objective.linear.push_back({t.var, kappa_ * t.coef});
  objective.constant = -f.constant;
  // The surrogate's target mean is a shift: relative gaps are then those of the standardized
  // model the papers solve (LEAF-GP and BARK with Gurobi's MIPGap), not of -mean(y) + ...
  objective.offset = -f.offset;
  model.set_objective(std::move(objective));
  // One row per black-box constraint model: mean_k(x) - constraint_kappa * s_k <= 0, with
  // s_k <= sd_k(x) (the hypograph variable), i.e. mean_k - constraint_kappa * sd_k <= 0.
  for (std::size_t k = 0; k < constraints_.size(); ++k) {
    const BoundTerms g = formulate_model(constraints_[k], "constraint", "constraint_kappa",
                                         constraint_kappa_, integrate_, model, point);
    sdk::LinearRow row{fmt::format("black_box_constraint_{}", k), g.mean, sdk::RowSense::LessEqual,
                       -g.constant};
    for (const sdk::LinearTerm& t : g.sd) row.terms.push_back({t.var, -constraint_kappa_ * t.coef});
    model.add_linear_row(std::move(row));
  }
}

bool LowerConfidenceBound::decode(const sdk::Model& model, const sdk::PointVariables& point,
                                  const std::vector<double>& solution,
                                  const std::vector<const sdk::Constraint*>& constraints,
                                  Eigen::VectorXd& x) const {
  const auto* d = dynamic_cast<const sdk::DecodesSolution*>(objective_);
  Eigen::VectorXd query = x;
  if (d == nullptr || !d->decode(model, point, solution, constraints, query)) return false;
  // The objective's query (its cell's centre) is chosen without the constraint rows: kept only
  // where the constraint models admit it, else the solver's point, which satisfies the rows.
  // value() is -infinity exactly where a constraint model does not admit the point.
  if (!constraints_.empty() && !std::isfinite(value(query))) {
    ctx_.debug(
        "the decoded query is not admitted by the constraint models; the solver's "
        "point is proposed");
    return false;
  }
  x = query;
  return true;
}

// ---------------------------------------------------------------------------------------------
// cwei

const sdk::ParamSpecList& ConstrainedExpectedImprovement::params() {
  static const sdk::ParamSpecList specs{xi_spec()};
  return specs;
}

ConstrainedExpectedImprovement::ConstrainedExpectedImprovement(const sdk::CreateArgs& args)
    : GaussianAcquisition(args), xi_(args.params.get_real("xi")) {}

void ConstrainedExpectedImprovement::bind(const sdk::AcquisitionInputs& inputs) {
  bind_models(inputs, true);
  // The kernel's incumbent is the best *feasible* y; without one, cwei is PoF alone
  // (Gardner et al. 2014, as the thesis does).
  incumbent_ = inputs.incumbent;
}

void ConstrainedExpectedImprovement::score(const Eigen::MatrixXd& X, Buffers& buf,
                                           Eigen::Index offset, Eigen::VectorXd& out) const {
  predict_all(X, buf);
  const double target = incumbent_ ? *incumbent_ - xi_ : 0.0;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    // Independent constraints: PoF is the product of the marginal probabilities.
    double pof = 1.0;
    for (std::size_t k = 0; k < constraints_.size(); ++k)
      pof *= probability_feasible(buf.c_mean[k][i], buf.c_var[k][i], c_scale_[k]);
    if (!incumbent_) {
      out[offset + i] = pof;
      continue;
    }
    const double mu = buf.mean[i];
    const double sd = effective_sd(buf.var[i], std::max(std::abs(mu), std::abs(target)));
    out[offset + i] = expected_improvement(target - mu, sd) * pof;
  }
}

}  // namespace arbo::plugins

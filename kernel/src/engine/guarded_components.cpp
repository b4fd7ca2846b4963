// SPDX-License-Identifier: MIT
#include "engine/guarded_components.hpp"

#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "arbo/kernel/errors.hpp"
#include "arbo/sdk/capabilities/acquisition.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"

namespace arbo::kernel {

void ValueRange::reset() noexcept {
  count_.store(0, std::memory_order_relaxed);
  lowest_.store(std::numeric_limits<double>::infinity(), std::memory_order_relaxed);
  highest_.store(-std::numeric_limits<double>::infinity(), std::memory_order_relaxed);
}

void ValueRange::add(double v) noexcept {
  count_.fetch_add(1, std::memory_order_relaxed);
  if (std::isnan(v)) return;
  double lo = lowest_.load(std::memory_order_relaxed);
  while (v < lo && !lowest_.compare_exchange_weak(lo, v, std::memory_order_relaxed)) {
  }
  double hi = highest_.load(std::memory_order_relaxed);
  while (v > hi && !highest_.compare_exchange_weak(hi, v, std::memory_order_relaxed)) {
  }
}

void FaultRecorder::clear() noexcept {
  const std::lock_guard<std::mutex> lock(mutex_);
  recorded_ = false;
  address_ = nullptr;
}

bool FaultRecorder::matches(const void* address, std::string_view what) const {
  if (!recorded_) return false;
  if (address != nullptr && address == address_ && what == what_) return true;
  return !what_.empty() && what.find(what_) != std::string_view::npos;
}

void FaultRecorder::record(std::string_view component_id, std::string_view method,
                           const std::exception* e) noexcept {
  try {
    const std::string_view what =
        e != nullptr ? std::string_view(e->what())
                     : std::string_view("unknown exception (not derived from std::exception)");
    const std::lock_guard<std::mutex> lock(mutex_);
    if (matches(e, what)) return;  // an inner proxy recorded this exception already
    recorded_ = true;
    address_ = e;
    component_.assign(component_id);
    method_.assign(method);
    what_.assign(what);
  } catch (...) {
    // Out of memory while recording: the guard then blames the calling component.
    try {
      const std::lock_guard<std::mutex> lock(mutex_);
      recorded_ = false;
    } catch (...) {
    }
  }
}

std::optional<std::string> FaultRecorder::blame(const std::exception* e,
                                                std::string_view what) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!matches(e, what)) return std::nullopt;
  return component_error(component_, method_, what_);
}

namespace {

template <class... T>
struct TypeList {};

// Forward<Self, Cap> implements capability Cap by forwarding to the wrapped object's Cap
// through Self::guard. One specialization per capability of the SDK.
template <class Self, class Cap>
class Forward;

template <class Self>
class Forward<Self, sdk::FormulatesSurrogate> : public sdk::FormulatesSurrogate {
 public:
  Output formulate(sdk::Model& model, const sdk::PointVariables& point) const override {
    const Self& s = static_cast<const Self&>(*this);
    return s.guard("formulate", [&] {
      return s.template inner<sdk::FormulatesSurrogate>().formulate(model, point);
    });
  }
};

template <class Self>
class Forward<Self, sdk::FormulatesAcquisition> : public sdk::FormulatesAcquisition {
 public:
  void formulate(sdk::Model& model, const sdk::PointVariables& point) const override {
    const Self& s = static_cast<const Self&>(*this);
    s.guard("formulate",
            [&] { s.template inner<sdk::FormulatesAcquisition>().formulate(model, point); });
  }
};

template <class Self>
class Forward<Self, sdk::DecodesSolution> : public sdk::DecodesSolution {
 public:
  bool decode(const sdk::Model& model, const sdk::PointVariables& point,
              const std::vector<double>& solution,
              const std::vector<const sdk::Constraint*>& constraints,
              Eigen::VectorXd& x) const override {
    const Self& s = static_cast<const Self&>(*this);
    return s.guard("decode", [&] {
      return s.template inner<sdk::DecodesSolution>().decode(model, point, solution, constraints,
                                                             x);
    });
  }
};

template <class Self>
class Forward<Self, sdk::DensityModel> : public sdk::DensityModel {
 public:
  double log_l(const Eigen::VectorXd& x) const override {
    const Self& s = static_cast<const Self&>(*this);
    return s.guard("log_l", [&] { return s.template inner<sdk::DensityModel>().log_l(x); });
  }
  double log_g(const Eigen::VectorXd& x) const override {
    const Self& s = static_cast<const Self&>(*this);
    return s.guard("log_g", [&] { return s.template inner<sdk::DensityModel>().log_g(x); });
  }
  void sample_l(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const override {
    const Self& s = static_cast<const Self&>(*this);
    s.guard("sample_l", [&] { s.template inner<sdk::DensityModel>().sample_l(n, rng, out); });
  }
};

template <class Self>
class Forward<Self, sdk::ReportsGoodFraction> : public sdk::ReportsGoodFraction {
 public:
  double good_fraction() const override {
    const Self& s = static_cast<const Self&>(*this);
    return s.guard("good_fraction",
                   [&] { return s.template inner<sdk::ReportsGoodFraction>().good_fraction(); });
  }
};

template <class Self>
class Forward<Self, sdk::PosteriorSampler> : public sdk::PosteriorSampler {
 public:
  void sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
              Eigen::MatrixXd& out) const override {
    const Self& s = static_cast<const Self&>(*this);
    s.guard("sample",
            [&] { s.template inner<sdk::PosteriorSampler>().sample(X, num_samples, rng, out); });
  }
};

template <class Self>
class Forward<Self, sdk::ProposesCandidates> : public sdk::ProposesCandidates {
 public:
  void candidates(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const override {
    const Self& s = static_cast<const Self&>(*this);
    s.guard("candidates",
            [&] { s.template inner<sdk::ProposesCandidates>().candidates(n, rng, out); });
  }
};

template <class Self>
class Forward<Self, sdk::RepresentsRegions> : public sdk::RepresentsRegions {
 public:
  Eigen::VectorXd representative(const Eigen::VectorXd& x) const override {
    const Self& s = static_cast<const Self&>(*this);
    return s.guard("representative",
                   [&] { return s.template inner<sdk::RepresentsRegions>().representative(x); });
  }
};

template <class Self>
class Forward<Self, sdk::PosteriorMixture> : public sdk::PosteriorMixture {
 public:
  std::size_t num_components() const override {
    const Self& s = static_cast<const Self&>(*this);
    return s.guard("num_components",
                   [&] { return s.template inner<sdk::PosteriorMixture>().num_components(); });
  }
  void predict_components(const Eigen::MatrixXd& X, Eigen::MatrixXd& mean,
                          Eigen::MatrixXd& variance) const override {
    const Self& s = static_cast<const Self&>(*this);
    s.guard("predict_components", [&] {
      s.template inner<sdk::PosteriorMixture>().predict_components(X, mean, variance);
    });
  }
};

template <class Self>
class Forward<Self, sdk::FormulatesMixture> : public sdk::FormulatesMixture {
 public:
  std::vector<sdk::FormulatesSurrogate::Output> formulate_components(
      sdk::Model& model, const sdk::PointVariables& point) const override {
    const Self& s = static_cast<const Self&>(*this);
    return s.guard("formulate_components", [&] {
      return s.template inner<sdk::FormulatesMixture>().formulate_components(model, point);
    });
  }
};

// A marker: nothing to forward.
template <class Self>
class Forward<Self, sdk::RespectsBlackBoxConstraints> : public sdk::RespectsBlackBoxConstraints {};

template <class Self>
class Forward<Self, sdk::FitsPartialObservations> : public sdk::FitsPartialObservations {
 public:
  void fit_partial(const sdk::Dataset& data, const sdk::Metric& metric,
                   const Eigen::MatrixXd& X_partial, const Eigen::VectorXd& partial) override {
    Self& s = static_cast<Self&>(*this);
    s.guard("fit_partial", [&] {
      s.template inner<sdk::FitsPartialObservations>().fit_partial(data, metric, X_partial,
                                                                   partial);
    });
  }
};

// What every proxy shares: the wrapped object, its capability pointers (cast once, here) and
// the guard that records and rethrows.
template <class Base, class... Caps>
class ProxyCore {
 public:
  ProxyCore(std::shared_ptr<Base> inner, std::string id, FaultRecorder& recorder)
      : inner_(std::move(inner)),
        caps_(dynamic_cast<Caps*>(inner_.get())...),
        id_(std::move(id)),
        recorder_(recorder) {}

  template <class Cap>
  Cap& inner() const {
    return *std::get<Cap*>(caps_);
  }
  Base& base() const { return *inner_; }

  template <class F>
  decltype(auto) guard(std::string_view method, F&& f) const {
    try {
      return std::forward<F>(f)();
    } catch (const KernelError&) {
      throw;  // a kernel service's error names its component already
    } catch (const std::exception& e) {
      recorder_.record(id_, method, &e);
      throw;  // the caller sees the original exception, unchanged
    } catch (...) {
      recorder_.record(id_, method, nullptr);
      throw;
    }
  }

 private:
  std::shared_ptr<Base> inner_;
  std::tuple<Caps*...> caps_;
  std::string id_;
  FaultRecorder& recorder_;
};

template <class... Caps>
class GuardedSurrogate final : public sdk::Surrogate,
                               public ProxyCore<sdk::Surrogate, Caps...>,
                               public Forward<GuardedSurrogate<Caps...>, Caps>... {
 public:
  using ProxyCore<sdk::Surrogate, Caps...>::ProxyCore;
  using ProxyCore<sdk::Surrogate, Caps...>::guard;
  using ProxyCore<sdk::Surrogate, Caps...>::inner;

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override {
    this->guard("fit", [&] { this->base().fit(data, metric); });
  }
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    this->guard("predict", [&] { this->base().predict(X, mean, variance); });
  }
};

template <class... Caps>
class GuardedAcquisition final : public sdk::Acquisition,
                                 public ProxyCore<sdk::Acquisition, Caps...>,
                                 public Forward<GuardedAcquisition<Caps...>, Caps>... {
 public:
  using ProxyCore<sdk::Acquisition, Caps...>::guard;
  using ProxyCore<sdk::Acquisition, Caps...>::inner;

  GuardedAcquisition(std::shared_ptr<sdk::Acquisition> acquisition, std::string id,
                     FaultRecorder& recorder, ValueRange& range)
      : ProxyCore<sdk::Acquisition, Caps...>(std::move(acquisition), std::move(id), recorder),
        range_(range) {}

  void bind(const sdk::AcquisitionInputs& inputs) override {
    this->guard("bind", [&] { this->base().bind(inputs); });
  }
  double value(const Eigen::VectorXd& x) const override {
    const double v = this->guard("value", [&] { return this->base().value(x); });
    range_.add(v);
    return v;
  }
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const override {
    this->guard("values", [&] { this->base().values(X, out); });
    for (Eigen::Index i = 0; i < out.size(); ++i) range_.add(out[i]);
  }

 private:
  ValueRange& range_;
};

// Picks, at run time, the instantiation of Proxy over exactly the capabilities in `Rest` that
// `inner` implements (2^|capabilities| instantiations, made at compile time).
// `more` goes to the proxy's constructor after (inner, id, recorder).
template <template <class...> class Proxy, class Base, class... Chosen, class... More>
std::shared_ptr<Base> make_proxy(TypeList<Chosen...>, TypeList<>, std::shared_ptr<Base> inner,
                                 std::string id, FaultRecorder& recorder, More&... more) {
  return std::make_shared<Proxy<Chosen...>>(std::move(inner), std::move(id), recorder, more...);
}

template <template <class...> class Proxy, class Base, class... Chosen, class Next, class... Rest,
          class... More>
std::shared_ptr<Base> make_proxy(TypeList<Chosen...>, TypeList<Next, Rest...>,
                                 std::shared_ptr<Base> inner, std::string id,
                                 FaultRecorder& recorder, More&... more) {
  if (dynamic_cast<Next*>(inner.get()) != nullptr) {
    return make_proxy<Proxy>(TypeList<Chosen..., Next>{}, TypeList<Rest...>{}, std::move(inner),
                             std::move(id), recorder, more...);
  }
  return make_proxy<Proxy>(TypeList<Chosen...>{}, TypeList<Rest...>{}, std::move(inner),
                           std::move(id), recorder, more...);
}

// Every capability of sdk/capabilities/{surrogate,acquisition}.hpp that a surrogate or an
// acquisition may implement and a plugin may look for with dynamic_cast. FormulatesConstraint and
// ProjectsPoints belong to known constraints, which are not proxied.
using SurrogateCapabilities =
    TypeList<sdk::FormulatesSurrogate, sdk::DecodesSolution, sdk::DensityModel,
             sdk::ReportsGoodFraction, sdk::PosteriorSampler, sdk::FitsPartialObservations,
             sdk::RepresentsRegions, sdk::PosteriorMixture, sdk::FormulatesMixture>;
using AcquisitionCapabilities = TypeList<sdk::FormulatesAcquisition, sdk::DecodesSolution,
                                         sdk::ProposesCandidates, sdk::RespectsBlackBoxConstraints>;

}  // namespace

std::shared_ptr<sdk::Surrogate> make_guarded_surrogate(std::shared_ptr<sdk::Surrogate> surrogate,
                                                       std::string component_id,
                                                       FaultRecorder& recorder) {
  return make_proxy<GuardedSurrogate>(TypeList<>{}, SurrogateCapabilities{}, std::move(surrogate),
                                      std::move(component_id), recorder);
}

std::shared_ptr<sdk::Acquisition> make_guarded_acquisition(
    std::shared_ptr<sdk::Acquisition> acquisition, std::string component_id,
    FaultRecorder& recorder, ValueRange& range) {
  return make_proxy<GuardedAcquisition>(TypeList<>{}, AcquisitionCapabilities{},
                                        std::move(acquisition), std::move(component_id), recorder,
                                        range);
}

}  // namespace arbo::kernel

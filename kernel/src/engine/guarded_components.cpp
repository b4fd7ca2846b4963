// SPDX-License-Identifier: MIT
#include "engine/guarded_components.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
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

// Calls a plugin's method; when it throws, records (component id, method, message) and rethrows
// the original exception.
class Guard {
 public:
  Guard(std::string id, FaultRecorder& recorder) : id_(std::move(id)), recorder_(recorder) {}

  template <class F>
  decltype(auto) operator()(std::string_view method, F&& f) const {
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
  std::string id_;
  FaultRecorder& recorder_;
};

// Forward<Cap> implements capability Cap by forwarding to the wrapped object's Cap through the
// proxy's guard. One specialization per capability of the SDK. They are plain classes, not
// templates over the proxy, so that each forwarding body is compiled once however many
// capability combinations the proxies below are instantiated for (2^9 for surrogates).
template <class Cap>
class Forward;

// What each forwarder holds: the wrapped object's capability and the proxy's guard.
template <class Cap>
class ForwardBase : public Cap {
 public:
  ForwardBase(Cap& inner, const Guard& guard) : inner_(inner), guard_(guard) {}

 protected:
  Cap& inner_;
  const Guard& guard_;
};

template <>
class Forward<sdk::FormulatesSurrogate> : public ForwardBase<sdk::FormulatesSurrogate> {
 public:
  using ForwardBase::ForwardBase;
  Output formulate(sdk::Model& model, const sdk::PointVariables& point) const override {
    return guard_("formulate", [&] { return inner_.formulate(model, point); });
  }
};

template <>
class Forward<sdk::FormulatesAcquisition> : public ForwardBase<sdk::FormulatesAcquisition> {
 public:
  using ForwardBase::ForwardBase;
  void formulate(sdk::Model& model, const sdk::PointVariables& point) const override {
    guard_("formulate", [&] { inner_.formulate(model, point); });
  }
};

template <>
class Forward<sdk::DecodesSolution> : public ForwardBase<sdk::DecodesSolution> {
 public:
  using ForwardBase::ForwardBase;
  bool decode(const sdk::Model& model, const sdk::PointVariables& point,
              const std::vector<double>& solution,
              const std::vector<const sdk::Constraint*>& constraints,
              Eigen::VectorXd& x) const override {
    return guard_("decode", [&] { return inner_.decode(model, point, solution, constraints, x); });
  }
};

template <>
class Forward<sdk::DensityModel> : public ForwardBase<sdk::DensityModel> {
 public:
  using ForwardBase::ForwardBase;
  double log_l(const Eigen::VectorXd& x) const override {
    return guard_("log_l", [&] { return inner_.log_l(x); });
  }
  double log_g(const Eigen::VectorXd& x) const override {
    return guard_("log_g", [&] { return inner_.log_g(x); });
  }
  void sample_l(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const override {
    guard_("sample_l", [&] { inner_.sample_l(n, rng, out); });
  }
};

template <>
class Forward<sdk::ReportsGoodFraction> : public ForwardBase<sdk::ReportsGoodFraction> {
 public:
  using ForwardBase::ForwardBase;
  double good_fraction() const override {
    return guard_("good_fraction", [&] { return inner_.good_fraction(); });
  }
};

template <>
class Forward<sdk::PosteriorSampler> : public ForwardBase<sdk::PosteriorSampler> {
 public:
  using ForwardBase::ForwardBase;
  void sample(const Eigen::MatrixXd& X, std::size_t num_samples, std::mt19937_64& rng,
              Eigen::MatrixXd& out) const override {
    guard_("sample", [&] { inner_.sample(X, num_samples, rng, out); });
  }
};

template <>
class Forward<sdk::ProposesCandidates> : public ForwardBase<sdk::ProposesCandidates> {
 public:
  using ForwardBase::ForwardBase;
  void candidates(std::size_t n, std::mt19937_64& rng, Eigen::MatrixXd& out) const override {
    guard_("candidates", [&] { inner_.candidates(n, rng, out); });
  }
};

template <>
class Forward<sdk::RepresentsRegions> : public ForwardBase<sdk::RepresentsRegions> {
 public:
  using ForwardBase::ForwardBase;
  Eigen::VectorXd representative(const Eigen::VectorXd& x) const override {
    return guard_("representative", [&] { return inner_.representative(x); });
  }
};

template <>
class Forward<sdk::PosteriorMixture> : public ForwardBase<sdk::PosteriorMixture> {
 public:
  using ForwardBase::ForwardBase;
  std::size_t num_components() const override {
    return guard_("num_components", [&] { return inner_.num_components(); });
  }
  void predict_components(const Eigen::MatrixXd& X, Eigen::MatrixXd& mean,
                          Eigen::MatrixXd& variance) const override {
    guard_("predict_components", [&] { inner_.predict_components(X, mean, variance); });
  }
};

template <>
class Forward<sdk::FormulatesMixture> : public ForwardBase<sdk::FormulatesMixture> {
 public:
  using ForwardBase::ForwardBase;
  std::vector<sdk::FormulatesSurrogate::Output> formulate_components(
      sdk::Model& model, const sdk::PointVariables& point) const override {
    return guard_("formulate_components",
                  [&] { return inner_.formulate_components(model, point); });
  }
};

// A marker: nothing to forward.
template <>
class Forward<sdk::RespectsBlackBoxConstraints>
    : public ForwardBase<sdk::RespectsBlackBoxConstraints> {
 public:
  using ForwardBase::ForwardBase;
};

template <>
class Forward<sdk::FitsPartialObservations> : public ForwardBase<sdk::FitsPartialObservations> {
 public:
  using ForwardBase::ForwardBase;
  void fit_partial(const sdk::Dataset& data, const sdk::Metric& metric,
                   const Eigen::MatrixXd& X_partial, const Eigen::VectorXd& partial) override {
    guard_("fit_partial", [&] { inner_.fit_partial(data, metric, X_partial, partial); });
  }
};

// What a proxy is built from: the wrapped object, its name in messages, the recorder, and for
// an acquisition the value range its values go to.
template <class Interface>
struct ProxyArgs {
  std::shared_ptr<Interface> inner;
  std::string id;
  FaultRecorder& recorder;
  ValueRange* range = nullptr;
};

// The wrapped object and the guard. The proxies' first base, so that both exist before the
// forwarders that refer to them are built.
template <class Interface>
class ProxyCore {
 protected:
  explicit ProxyCore(ProxyArgs<Interface>& args)
      : inner_(std::move(args.inner)), guard_(std::move(args.id), args.recorder) {}

  std::shared_ptr<Interface> inner_;
  Guard guard_;
};

// The base interfaces' methods, forwarded (plain classes, compiled once).
class SurrogateForward : private ProxyCore<sdk::Surrogate>, public sdk::Surrogate {
 public:
  using Interface = sdk::Surrogate;
  explicit SurrogateForward(ProxyArgs<Interface>& args) : ProxyCore(args) {}

  void fit(const sdk::Dataset& data, const sdk::Metric& metric) override {
    guard_("fit", [&] { inner_->fit(data, metric); });
  }
  void predict(const Eigen::MatrixXd& X, Eigen::VectorXd& mean,
               Eigen::VectorXd& variance) const override {
    guard_("predict", [&] { inner_->predict(X, mean, variance); });
  }

 protected:
  sdk::Surrogate& inner() const { return *inner_; }
  const Guard& guard() const { return guard_; }
};

class AcquisitionForward : private ProxyCore<sdk::Acquisition>, public sdk::Acquisition {
 public:
  using Interface = sdk::Acquisition;
  explicit AcquisitionForward(ProxyArgs<Interface>& args) : ProxyCore(args), range_(*args.range) {}

  void bind(const sdk::AcquisitionInputs& inputs) override {
    guard_("bind", [&] { inner_->bind(inputs); });
  }
  double value(const Eigen::VectorXd& x) const override {
    const double v = guard_("value", [&] { return inner_->value(x); });
    range_.add(v);
    return v;
  }
  void values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const override {
    guard_("values", [&] { inner_->values(X, out); });
    for (Eigen::Index i = 0; i < out.size(); ++i) range_.add(out[i]);
  }

 protected:
  sdk::Acquisition& inner() const { return *inner_; }
  const Guard& guard() const { return guard_; }

 private:
  ValueRange& range_;
};

// A proxy with exactly the capabilities Caps: only a constructor per instantiation.
template <class Core, class... Caps>
class Guarded final : public Core, public Forward<Caps>... {
 public:
  explicit Guarded(ProxyArgs<typename Core::Interface>& args)
      : Core(args), Forward<Caps>(dynamic_cast<Caps&>(Core::inner()), Core::guard())... {}
};

// Select<Mask, TypeList<>, Caps>::Proxy<Core>: Guarded over the capabilities of Caps whose bit
// is set in Mask (bit 0 the first).
template <unsigned Mask, class Chosen, class Rest>
struct Select;

template <unsigned Mask, class... Chosen>
struct Select<Mask, TypeList<Chosen...>, TypeList<>> {
  template <class Core>
  using Proxy = Guarded<Core, Chosen...>;
};

template <unsigned Mask, class... Chosen, class Next, class... Rest>
struct Select<Mask, TypeList<Chosen...>, TypeList<Next, Rest...>>
    : Select<(Mask >> 1U),
             std::conditional_t<(Mask & 1U) != 0, TypeList<Chosen..., Next>, TypeList<Chosen...>>,
             TypeList<Rest...>> {};

template <class Core, class Caps, unsigned Mask>
typename Core::Interface* create_proxy(ProxyArgs<typename Core::Interface>& args) {
  using Proxy = typename Select<Mask, TypeList<>, Caps>::template Proxy<Core>;
  return new Proxy(args);
}

template <class Core, class Caps, unsigned... Masks>
constexpr auto proxy_factories(std::integer_sequence<unsigned, Masks...>) {
  // The element type spelled out: clang's deduction guide for std::array is a fold over the
  // elements, beyond its nesting limit at 512.
  using Factory = typename Core::Interface* (*)(ProxyArgs<typename Core::Interface>&);
  return std::array<Factory, sizeof...(Masks)>{&create_proxy<Core, Caps, Masks>...};
}

// The proxy over exactly the capabilities in Caps that `args.inner` implements, chosen at run
// time from a table of the 2^|Caps| instantiations made at compile time (each only a constructor
// and its tables, so that the file compiles in reasonable time).
template <class Core, class... Caps>
std::shared_ptr<typename Core::Interface> make_proxy(TypeList<Caps...>,
                                                     ProxyArgs<typename Core::Interface> args) {
  static constexpr auto factories = proxy_factories<Core, TypeList<Caps...>>(
      std::make_integer_sequence<unsigned, (1U << sizeof...(Caps))>{});
  unsigned mask = 0;
  unsigned bit = 1;
  ((mask |= dynamic_cast<Caps*>(args.inner.get()) != nullptr ? bit : 0U, bit <<= 1U), ...);
  // Through unique_ptr<Interface>: one shared_ptr control block type for every instantiation.
  return std::unique_ptr<typename Core::Interface>(factories[mask](args));
}

// Every capability of sdk/capabilities/{surrogate,acquisition}.hpp that a surrogate or an
// acquisition may implement and a plugin may look for with dynamic_cast. FormulatesConstraint and
// ProjectsPoints belong to known constraints, which are not proxied; SavesState is called by the
// kernel alone, on the plugin's own object.
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
  return make_proxy<SurrogateForward>(
      SurrogateCapabilities{},
      {std::move(surrogate), std::move(component_id), recorder, /*range=*/nullptr});
}

std::shared_ptr<sdk::Acquisition> make_guarded_acquisition(
    std::shared_ptr<sdk::Acquisition> acquisition, std::string component_id,
    FaultRecorder& recorder, ValueRange& range) {
  return make_proxy<AcquisitionForward>(
      AcquisitionCapabilities{},
      {std::move(acquisition), std::move(component_id), recorder, &range});
}

}  // namespace arbo::kernel

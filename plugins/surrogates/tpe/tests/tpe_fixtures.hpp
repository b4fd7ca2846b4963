// SPDX-License-Identifier: MIT
// Shared by the c-TPE plugins' tests (surrogate/tpe here, acquisition/ctpe and
// inner_solver/candidate_pool in their own folders): components created from their real .so
// files, data sets and random points. The acquisition and the pool are tested on the densities
// of the real surrogate, so all three test folders use these fixtures.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <arbo/sdk/capabilities.hpp>
#include <arbo/sdk/testing/conformance.hpp>

namespace arbo::tpe_test {

using namespace arbo::sdk;
using arbo::sdk::testing::PluginUnderTest;
using arbo::sdk::testing::TestContext;

inline const PluginUnderTest& library(const std::string& file) {
  static std::map<std::string, std::unique_ptr<PluginUnderTest>> loaded;
  auto& p = loaded[file];
  if (!p) p = std::make_unique<PluginUnderTest>(std::string(ARBO_PLUGIN_DIR) + "/" + file);
  return *p;
}

inline const ComponentInfo& info(Kind kind, const std::string& file, const std::string& name) {
  const ComponentInfo* i = library(file).find(kind, name);
  if (i == nullptr) throw std::runtime_error("component not found: " + name);
  return *i;
}

// A component created from its library, with its own context and parameters.
template <class T>
struct Made {
  Made(Kind kind, const std::string& file, const std::string& name, const Space& s,
       const std::map<std::string, ParamValue>& raw = {}, std::uint64_t seed = 7)
      : ctx(seed), space(s) {
    const ComponentInfo& ci = info(kind, file, name);
    params = validate_params(ci.params(), raw, name);
    object.reset(ci.create(CreateArgs{ctx, params, space}));
    ptr = dynamic_cast<T*>(object.get());
    if (ptr == nullptr) throw std::runtime_error("wrong kind: " + name);
  }
  T* operator->() { return ptr; }
  TestContext ctx;
  ParamSet params;
  Space space;
  std::unique_ptr<Component> object;
  T* ptr = nullptr;
};

struct Tpe : Made<Surrogate> {
  explicit Tpe(const Space& s, const std::map<std::string, ParamValue>& raw = {})
      : Made(Kind::Surrogate, "libarbo_surrogate_tpe.so", "tpe", s, raw) {}
  const DensityModel& density() const { return dynamic_cast<const DensityModel&>(*object); }
  double gamma() const { return dynamic_cast<const ReportsGoodFraction&>(*object).good_fraction(); }
};

struct Ctpe : Made<Acquisition> {
  explicit Ctpe(const Space& s, const std::string& mode = "ctpe")
      : Made(Kind::Acquisition, "libarbo_acquisition_ctpe.so", "ctpe", s, {{"mode", mode}}) {}
};

inline Dataset make_data(const Space& space, const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                         const Eigen::MatrixXd& C) {
  Dataset data;
  std::vector<std::string> names;
  for (Eigen::Index j = 0; j < C.cols(); ++j) names.push_back("c" + std::to_string(j));
  data.reset(space.size(), names);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    data.append(X.row(i).transpose(), y[i],
                C.cols() > 0 ? Eigen::VectorXd(C.row(i).transpose()) : Eigen::VectorXd());
  }
  return data;
}

inline Metric objective() { return Metric{}; }
inline Metric constraint(int j) { return Metric{j, "c" + std::to_string(j)}; }

// Uniform random points of a space.
inline Eigen::MatrixXd random_points(const Space& space, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(space.size()));
  Eigen::VectorXd u(static_cast<Eigen::Index>(space.size()));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < u.size(); ++j) u[j] = unit(rng);
    X.row(i) = space.from_unit(u).transpose();
  }
  return X;
}

// The objective and constraint 0 of `data`, each fitted by its own surrogate/tpe.
struct Fitted {
  Fitted(const Space& space, const Dataset& data, bool feasible_split = true)
      : f(space, {{"feasible_split", feasible_split}}), c(space) {
    f->fit(data, objective());
    c->fit(data, constraint(0));
  }
  Tpe f, c;
};

}  // namespace arbo::tpe_test

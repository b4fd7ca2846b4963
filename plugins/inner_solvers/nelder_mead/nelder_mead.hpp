// SPDX-License-Identifier: MIT
/// @file
/// @brief Nelder-Mead minimization, step for step the algorithm of SciPy 1.10's
/// `scipy.optimize.minimize(method="Nelder-Mead")` (`_minimize_neldermead`), including its
/// adaptive coefficients (Gao & Han 2012), its initial simplex, its stopping rules and its
/// clipping of every trial vertex to the bounds.
///
/// Header-only and free of plugin types so that the inner solver, the tests (which compare it
/// iteration by iteration with a recorded SciPy trace) and the benchmark call the same code on
/// plain functions.
///
/// Known departure: SciPy orders vertices with `np.argsort` (quicksort). For n + 1 <= 16 vertices
/// NumPy uses insertion sort, which is stable, as is `std::stable_sort` here; for larger
/// simplices NumPy's introsort may order *equal* function values differently. Traces agree
/// whenever no two vertices tie.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include <Eigen/Core>

namespace arbo::plugins::nelder_mead {

/// Options, with SciPy's names and defaults.
struct Options {
  bool adaptive = true;  ///< Gao-Han coefficients; false: 1, 2, 0.5, 0.5
  double xatol = 1e-4;   ///< stop when every vertex is within xatol of the best (inf-norm) ...
  double fatol = 1e-4;   ///< ... and every value within fatol of the best value
  /// SciPy's rule: when neither is set both are 200 n; when only one is set the other is
  /// unlimited (unless the set one is unlimited, then the other is 200 n).
  std::optional<std::int64_t> maxiter;
  std::optional<std::int64_t> maxfev;
};

enum class Status { Converged, MaxFev, MaxIter, Stopped };

struct Result {
  Eigen::VectorXd x;  ///< best vertex
  double fun = std::numeric_limits<double>::infinity();
  std::int64_t nit = 0;   ///< SciPy's `nit` (starts at 1)
  std::int64_t nfev = 0;  ///< function evaluations
  Status status = Status::Converged;
};

/// Buffers of one run, reused across runs so that restarts do not allocate.
struct Workspace {
  using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  RowMatrix sim, sorted;  // vertices as rows
  Eigen::VectorXd fsim, fsorted, xbar, xr, xe, xc, trial, moved;
  std::vector<int> order;

  void resize(Eigen::Index n) {
    sim.resize(n + 1, n);
    sorted.resize(n + 1, n);
    fsim.resize(n + 1);
    fsorted.resize(n + 1);
    xbar.resize(n);
    xr.resize(n);
    xe.resize(n);
    xc.resize(n);
    trial.resize(n);
    moved.resize(n);
    order.resize(static_cast<std::size_t>(n + 1));
  }
};

/// No observer: used when the caller does not follow the iterations.
struct NoObserver {
  bool operator()(const Eigen::VectorXd&, double, std::int64_t) const { return true; }
};

namespace detail {

// np.clip(x, lower, upper) = min(max(x, lower), upper); infinite bounds leave x unchanged.
inline void clip(Eigen::VectorXd& x, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = std::min(std::max(x[i], lower[i]), upper[i]);
}

// np.argsort + np.take: orders vertices by value, NaN last (as NumPy does), ties in index order.
// After a reflection, expansion or contraction only the last vertex is out of place; moving it
// to its place (after every vertex with a value <= its own) is what a stable sort does, at the
// cost of one block move instead of a full sort and copy.
inline bool before(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

inline void sort_simplex(Workspace& ws) {
  const auto last = ws.fsim.size() - 1;
  bool head_sorted = true;
  for (Eigen::Index k = 0; k + 1 < last && head_sorted; ++k)
    head_sorted = !before(ws.fsim[k + 1], ws.fsim[k]);
  if (head_sorted) {
    const double f = ws.fsim[last];
    Eigen::Index p = last;
    while (p > 0 && before(f, ws.fsim[p - 1])) --p;
    if (p == last) return;
    ws.moved = ws.sim.row(last).transpose();
    for (Eigen::Index k = last; k > p; --k) {
      ws.sim.row(k) = ws.sim.row(k - 1);
      ws.fsim[k] = ws.fsim[k - 1];
    }
    ws.sim.row(p) = ws.moved.transpose();
    ws.fsim[p] = f;
    return;
  }
  std::iota(ws.order.begin(), ws.order.end(), 0);
  const Eigen::VectorXd& fs = ws.fsim;
  std::stable_sort(ws.order.begin(), ws.order.end(),
                   [&fs](int a, int b) { return before(fs[a], fs[b]); });
  for (std::size_t k = 0; k < ws.order.size(); ++k) {
    const auto src = static_cast<Eigen::Index>(ws.order[k]);
    ws.sorted.row(static_cast<Eigen::Index>(k)) = ws.sim.row(src);
    ws.fsorted[static_cast<Eigen::Index>(k)] = ws.fsim[src];
  }
  ws.sim.swap(ws.sorted);
  ws.fsim.swap(ws.fsorted);
}

// SciPy's convergence test, max|v_i - v_0| <= xatol and max|f_0 - f_i| <= fatol, stopping at
// the first difference that decides it. NumPy's max propagates NaN and NaN <= tol is false, so
// a NaN difference (inf - inf) means "not converged".
inline bool converged(const Workspace& ws, double xatol, double fatol) {
  const Eigen::Index n = ws.sim.cols();
  for (Eigen::Index j = 1; j <= n; ++j) {
    const double d = std::abs(ws.fsim[0] - ws.fsim[j]);
    if (!(d <= fatol)) return false;
  }
  for (Eigen::Index j = 1; j <= n; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!(std::abs(ws.sim(j, i) - ws.sim(0, i)) <= xatol)) return false;
    }
  }
  return true;
}

}  // namespace detail

/// Minimizes `f` (callable as `double f(const Eigen::VectorXd&)`) from `x0` within
/// [lower, upper] (use +-infinity for unbounded coordinates: clipping is then the identity, as
/// SciPy without `bounds`).
///
/// `observer(best_x, best_f, nfev)` is called where SciPy calls `callback`: after every pass of
/// the main loop, including the pass that detects convergence and one cut short by `maxfev`.
/// It returns false to stop the run (cancellation), which SciPy's callback cannot do.
///
/// Complexity: O(n) memory traffic per function evaluation plus an O(n log n) sort and an
/// O(n^2) centroid and convergence test per iteration; no allocation once `ws` has size n.
template <class F, class Observer = NoObserver>
Result minimize(F&& f, const Eigen::VectorXd& x0, const Eigen::VectorXd& lower,
                const Eigen::VectorXd& upper, const Options& options, Workspace& ws,
                Observer&& observer = Observer{}) {
  const Eigen::Index n = x0.size();
  const double dim = static_cast<double>(n);
  const double rho = 1.0;
  const double chi = options.adaptive ? 1.0 + 2.0 / dim : 2.0;
  const double psi = options.adaptive ? 0.75 - 1.0 / (2.0 * dim) : 0.5;
  const double sigma = options.adaptive ? 1.0 - 1.0 / dim : 0.5;
  const double nonzdelt = 0.05;
  const double zdelt = 0.00025;
  constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max();

  std::int64_t maxiter = kUnlimited;
  std::int64_t maxfun = kUnlimited;
  if (!options.maxiter && !options.maxfev) {
    maxiter = maxfun = 200 * static_cast<std::int64_t>(n);
  } else if (!options.maxiter) {
    maxfun = *options.maxfev;
    maxiter = maxfun == kUnlimited ? 200 * static_cast<std::int64_t>(n) : kUnlimited;
  } else if (!options.maxfev) {
    maxiter = *options.maxiter;
    maxfun = maxiter == kUnlimited ? 200 * static_cast<std::int64_t>(n) : kUnlimited;
  } else {
    maxiter = *options.maxiter;
    maxfun = *options.maxfev;
  }

  ws.resize(n);
  Result result;
  std::int64_t nfev = 0;
  // SciPy's wrapper raises _MaxFuncCallError instead of calling f once the budget is spent;
  // here a false return plays that role and the caller abandons the rest of the iteration.
  auto call = [&](const Eigen::VectorXd& x, double& out) {
    if (nfev >= maxfun) return false;
    ++nfev;
    out = f(x);
    return true;
  };

  ws.trial = x0;
  detail::clip(ws.trial, lower, upper);
  ws.sim.row(0) = ws.trial.transpose();
  for (Eigen::Index k = 0; k < n; ++k) {
    ws.xr = ws.trial;
    ws.xr[k] = ws.xr[k] != 0.0 ? (1.0 + nonzdelt) * ws.xr[k] : zdelt;
    ws.sim.row(k + 1) = ws.xr.transpose();
  }
  for (Eigen::Index k = 0; k <= n; ++k) {
    ws.xr = ws.sim.row(k).transpose();
    detail::clip(ws.xr, lower, upper);
    ws.sim.row(k) = ws.xr.transpose();
  }
  ws.fsim.setConstant(std::numeric_limits<double>::infinity());
  for (Eigen::Index k = 0; k <= n; ++k) {
    ws.xr = ws.sim.row(k).transpose();
    if (!call(ws.xr, ws.fsim[k])) break;
  }
  detail::sort_simplex(ws);

  std::int64_t iterations = 1;
  bool stopped = false;
  while (nfev < maxfun && iterations < maxiter) {
    bool done = false;
    // One pass of SciPy's `try` block; `break` out of it is SciPy's _MaxFuncCallError.
    do {
      if (detail::converged(ws, options.xatol, options.fatol)) {
        done = true;
        break;
      }
      ws.xbar = ws.sim.row(0).transpose();
      for (Eigen::Index j = 1; j < n; ++j) ws.xbar += ws.sim.row(j).transpose();
      ws.xbar /= dim;
      const auto worst = ws.sim.row(n).transpose();

      ws.xr = (1.0 + rho) * ws.xbar - rho * worst;
      detail::clip(ws.xr, lower, upper);
      double fxr = 0.0;
      if (!call(ws.xr, fxr)) break;
      bool doshrink = false;

      if (fxr < ws.fsim[0]) {
        const double rc = rho * chi;
        ws.xe = (1.0 + rc) * ws.xbar - rc * worst;
        detail::clip(ws.xe, lower, upper);
        double fxe = 0.0;
        if (!call(ws.xe, fxe)) break;
        if (fxe < fxr) {
          ws.sim.row(n) = ws.xe.transpose();
          ws.fsim[n] = fxe;
        } else {
          ws.sim.row(n) = ws.xr.transpose();
          ws.fsim[n] = fxr;
        }
      } else if (fxr < ws.fsim[n - 1]) {
        ws.sim.row(n) = ws.xr.transpose();
        ws.fsim[n] = fxr;
      } else if (fxr < ws.fsim[n]) {
        const double pr = psi * rho;
        ws.xc = (1.0 + pr) * ws.xbar - pr * worst;
        detail::clip(ws.xc, lower, upper);
        double fxc = 0.0;
        if (!call(ws.xc, fxc)) break;
        if (fxc <= fxr) {
          ws.sim.row(n) = ws.xc.transpose();
          ws.fsim[n] = fxc;
        } else {
          doshrink = true;
        }
      } else {
        ws.xc = (1.0 - psi) * ws.xbar + psi * worst;
        detail::clip(ws.xc, lower, upper);
        double fxcc = 0.0;
        if (!call(ws.xc, fxcc)) break;
        if (fxcc < ws.fsim[n]) {
          ws.sim.row(n) = ws.xc.transpose();
          ws.fsim[n] = fxcc;
        } else {
          doshrink = true;
        }
      }
      if (doshrink) {
        bool out_of_budget = false;
        for (Eigen::Index j = 1; j <= n; ++j) {
          ws.trial = ws.sim.row(0).transpose() +
                     sigma * (ws.sim.row(j).transpose() - ws.sim.row(0).transpose());
          detail::clip(ws.trial, lower, upper);
          // SciPy stores the shrunk vertex before evaluating it, so a vertex whose evaluation
          // hits maxfev keeps its new position and its old value.
          ws.sim.row(j) = ws.trial.transpose();
          if (!call(ws.trial, ws.fsim[j])) {
            out_of_budget = true;
            break;
          }
        }
        if (out_of_budget) break;
      }
      ++iterations;
    } while (false);
    // SciPy's `finally`: sort and report, whatever happened above.
    detail::sort_simplex(ws);
    ws.trial = ws.sim.row(0).transpose();
    if (!observer(static_cast<const Eigen::VectorXd&>(ws.trial), ws.fsim[0], nfev)) {
      stopped = true;
      break;
    }
    if (done) break;
  }

  result.x = ws.sim.row(0).transpose();
  // np.min propagates NaN; the sort put any NaN last.
  result.fun = ws.fsim.hasNaN() ? std::numeric_limits<double>::quiet_NaN() : ws.fsim[0];
  result.nit = iterations;
  result.nfev = nfev;
  if (stopped) {
    result.status = Status::Stopped;
  } else if (nfev >= maxfun) {
    result.status = Status::MaxFev;
  } else if (iterations >= maxiter) {
    result.status = Status::MaxIter;
  } else {
    result.status = Status::Converged;
  }
  return result;
}

}  // namespace arbo::plugins::nelder_mead

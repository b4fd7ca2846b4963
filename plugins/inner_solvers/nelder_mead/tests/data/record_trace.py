#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Records SciPy's Nelder-Mead iteration by iteration, for ../trace_test.cpp.

Run with Debian's interpreter (SciPy 1.10):  /usr/bin/python3 record_trace.py > scipy_trace.json

Each case runs scipy.optimize.minimize(method="Nelder-Mead") and records, at every callback (the
best vertex after each pass of SciPy's main loop), the vertex, its value and the number of function
evaluations so far, plus the final result. The objectives use scalar Python arithmetic with
explicit products (no pow, no NumPy reductions) so that the C++ test computes bit-identical values.
"""
import json
import math
import sys

import numpy as np
import scipy
from scipy.optimize import Bounds, minimize


def rosenbrock(x):
    s = 0.0
    for i in range(len(x) - 1):
        a = float(x[i])
        b = float(x[i + 1])
        t = b - a * a
        u = 1.0 - a
        s = s + 100.0 * t * t + u * u
    return s


def himmelblau(x):
    a = float(x[0])
    b = float(x[1])
    p = a * a + b - 11.0
    q = a + b * b - 7.0
    return p * p + q * q


def coupled_quadratic(x):
    # sum_i (i + 1) (x_i - 0.3 i)^2 + 0.5 x_0 x_2
    s = 0.0
    for i in range(len(x)):
        t = float(x[i]) - 0.3 * i
        s = s + (i + 1.0) * t * t
    return s + 0.5 * float(x[0]) * float(x[2])


FUNCTIONS = {"rosenbrock": rosenbrock, "himmelblau": himmelblau,
             "coupled_quadratic": coupled_quadratic}

CASES = [
    # Bounds active: the initial simplex is clipped (1.05 * 1.4 > 1.45) and trial points hit them;
    # a zero coordinate gets SciPy's 0.00025 step.
    dict(name="rosenbrock4_bounded", function="rosenbrock", x0=[-1.2, 0.0, 1.4, 0.9],
         lower=[-1.5] * 4, upper=[1.45] * 4, adaptive=True, maxiter=None, maxfev=None),
    # No bounds, evaluation budget that runs out in the middle of an iteration.
    dict(name="coupled3_maxfev", function="coupled_quadratic", x0=[2.0, -1.0, 0.5],
         lower=None, upper=None, adaptive=True, maxiter=None, maxfev=57),
    # The standard (non-adaptive) coefficients, iteration cap.
    dict(name="himmelblau_standard", function="himmelblau", x0=[0.0, 0.0],
         lower=[-5.0, -5.0], upper=[5.0, 5.0], adaptive=False, maxiter=40, maxfev=None),
    # Five dimensions, adaptive, to convergence (or SciPy's 200 n caps).
    dict(name="rosenbrock5_adaptive", function="rosenbrock", x0=[0.5, -0.3, 0.8, 1.2, -0.7],
         lower=[-2.048] * 5, upper=[2.048] * 5, adaptive=True, maxiter=None, maxfev=None),
]


def run(case):
    f = FUNCTIONS[case["function"]]
    calls = [0]

    def counted(x):
        calls[0] += 1
        return f(x)

    trace = []

    def callback(xk):
        trace.append({"x": [float(v) for v in xk], "f": f(xk), "nfev": calls[0]})

    options = {"adaptive": case["adaptive"]}
    if case["maxiter"] is not None:
        options["maxiter"] = case["maxiter"]
    if case["maxfev"] is not None:
        options["maxfev"] = case["maxfev"]
    bounds = None
    if case["lower"] is not None:
        bounds = Bounds(np.array(case["lower"]), np.array(case["upper"]))
    res = minimize(counted, np.array(case["x0"], dtype=float), method="Nelder-Mead",
                   bounds=bounds, callback=callback, options=options)
    out = dict(case)
    out["trace"] = trace
    out["result"] = {"x": [float(v) for v in res.x], "fun": float(res.fun), "nit": int(res.nit),
                     "nfev": int(res.nfev), "status": int(res.status)}
    return out


def main():
    doc = {"scipy": scipy.__version__, "numpy": np.__version__,
           "python": sys.version.split()[0], "cases": [run(c) for c in CASES]}
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

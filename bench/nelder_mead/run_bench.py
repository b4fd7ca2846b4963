#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Nelder-Mead restarts: arbo's C++ core against SciPy 1.10, and the Mondrian-forest proposal time.

The scheme is the Mondrian-forest thesis's acquisition optimizer ("NM-restart"): evaluate the
function at 20,000 uniform points of the box, run SciPy's adaptive Nelder-Mead (bounds, default
tolerances and caps) from the 5 best, keep the best of the runs and the samples. Both sides do
exactly that on Rosenbrock ([-2.048, 2.048]^d) and Ackley ([-5, 10]^d), d = 10 and 30; SciPy
scores the samples with vectorized NumPy, as a Python user would.

Usage (Debian's interpreter has SciPy):
  /usr/bin/python3 bench/nelder_mead/run_bench.py [--build build] [--reps 5] [--proposal]

Prints a Markdown table of median wall times over the repetitions and the C++ speed-up.
--proposal also runs `nelder_mead_bench proposal` (fit + acquisition optimization per iteration
with surrogate/mondrian_forest, acquisition/cwei and inner_solver/nelder_mead).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy
from scipy.optimize import Bounds, minimize

SAMPLES = 20000
STARTS = 5


def rosenbrock(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


def rosenbrock_rows(X):
    return np.sum(100.0 * (X[:, 1:] - X[:, :-1] ** 2) ** 2 + (1.0 - X[:, :-1]) ** 2, axis=1)


def ackley(x):
    n = x.size
    return float(-20.0 * np.exp(-0.2 * np.sqrt(np.sum(x * x) / n))
                 - np.exp(np.sum(np.cos(2.0 * np.pi * x)) / n) + np.e + 20.0)


def ackley_rows(X):
    n = X.shape[1]
    return (-20.0 * np.exp(-0.2 * np.sqrt(np.sum(X * X, axis=1) / n))
            - np.exp(np.sum(np.cos(2.0 * np.pi * X), axis=1) / n) + np.e + 20.0)


PROBLEMS = [("rosenbrock", rosenbrock, rosenbrock_rows, -2.048, 2.048),
            ("ackley", ackley, ackley_rows, -5.0, 10.0)]


def scipy_restarts(f, f_rows, d, lo, hi, seed):
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    X = rng.uniform(lo, hi, size=(SAMPLES, d))
    fx = f_rows(X)
    order = np.argsort(fx, kind="stable")[:STARTS]
    best = float(fx[order[0]])
    t1 = time.perf_counter()
    bounds = Bounds(np.full(d, lo), np.full(d, hi))
    nfev = 0
    for i in order:
        res = minimize(f, X[i], method="Nelder-Mead", bounds=bounds, options={"adaptive": True})
        nfev += res.nfev
        best = min(best, float(res.fun))
    t2 = time.perf_counter()
    return {"seconds": t2 - t0, "nm_seconds": t2 - t1, "nfev": nfev, "best": best}


def run_scipy(reps):
    rows = []
    for name, f, f_rows, lo, hi in PROBLEMS:
        for d in (10, 30):
            runs = [scipy_restarts(f, f_rows, d, lo, hi, 1000 + r) for r in range(reps)]
            rows.append({"impl": "scipy", "function": name, "d": d, "reps": reps,
                         "seconds": statistics.median(r["seconds"] for r in runs),
                         "nm_seconds": statistics.median(r["nm_seconds"] for r in runs),
                         "nfev": sum(r["nfev"] for r in runs) / reps,
                         "best": statistics.median(r["best"] for r in runs)})
            print(f"  scipy {name} d={d}: {rows[-1]['seconds']:.3f} s", file=sys.stderr)
    return rows


def run_cpp(exe, mode, reps):
    out = subprocess.run([exe, mode, str(reps)], check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(root, "build"), help="CMake build directory")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per case (median reported)")
    ap.add_argument("--proposal", action="store_true", help="also time Mondrian-forest proposals")
    args = ap.parse_args()
    exe = os.path.join(args.build, "bin", "nelder_mead_bench")

    print(f"C++: {exe}; SciPy {scipy.__version__}, NumPy {np.__version__}, "
          f"Python {sys.version.split()[0]}; {args.reps} repetitions, medians", file=sys.stderr)
    cpp = {(r["function"], r["d"]): r for r in run_cpp(exe, "restarts", args.reps)}
    py = {(r["function"], r["d"]): r for r in run_scipy(args.reps)}

    print(f"NM restarts: {SAMPLES} uniform samples + {STARTS} adaptive Nelder-Mead runs "
          f"(median of {args.reps})\n")
    print("| function | d | C++ total s | SciPy total s | ratio | C++ NM s | SciPy NM s | NM ratio "
          "| C++ nfev | SciPy nfev | C++ best | SciPy best |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in cpp:
        c, p = cpp[key], py[key]
        print(f"| {key[0]} | {key[1]} | {c['seconds']:.4f} | {p['seconds']:.3f} | "
              f"{p['seconds'] / c['seconds']:.0f}x | {c['nm_seconds']:.4f} | "
              f"{p['nm_seconds']:.3f} | {p['nm_seconds'] / c['nm_seconds']:.0f}x | "
              f"{c['nfev']:.0f} | {p['nfev']:.0f} | {c['best']:.4g} | {p['best']:.4g} |")

    if args.proposal:
        rows = run_cpp(exe, "proposal", 3)
        print()
        if rows and "skipped" in rows[0]:
            print(f"Proposal time: skipped ({rows[0]['skipped']})")
            return
        print("Proposal time per iteration, surrogate/mondrian_forest (objective + 1 constraint "
              "model) + acquisition/cwei + inner_solver/nelder_mead, median of 3\n")
        print("| d | n | fit + bind s | maximize s | total s | inner_solver/sampling alone s |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['d']} | {r['n']} | {r['fit_seconds']:.4f} | {r['solve_seconds']:.3f} | "
                  f"{r['seconds']:.3f} | {r['sampling_seconds']:.3f} |")


if __name__ == "__main__":
    main()

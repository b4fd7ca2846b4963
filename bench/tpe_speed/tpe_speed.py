#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Proposal time per trial: arbo's c-TPE pipeline against Optuna 3.1's TPESampler, one script.

Both minimise the same 2-D problem (Branin on [-5, 10] x [0, 15], no constraints) for
`--budget` trials. arbo's time is the kernel's `propose_seconds` of each observation (surrogate
fits, acquisition bind, candidate pool: everything between two evaluations except the store
commits); Optuna's is `study.ask()` plus the two `suggest_float` calls (where its TPE samples).
Reported: the median over the trials that see n - 10 .. n + 9 observations, for n = 50, 200 and
1000, and the ratio Optuna / arbo.

Usage: /usr/bin/python3 bench/tpe_speed/tpe_speed.py [--arbo build/bin/arbo] [--budget 1010]
       [--seed 1] [--out bench/results/ctpe/speed.json]
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arbo_export import export_study  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POINTS = (50, 200, 1000)


def branin(x1, x2):
    a, b, c = 1.0, 5.1 / (4 * math.pi ** 2), 5 / math.pi
    r, s, t = 6.0, 10.0, 1 / (8 * math.pi)
    return a * (x2 - b * x1 ** 2 + c * x1 - r) ** 2 + s * (1 - t) * math.cos(x1) + s


def window(times, n):
    # times[i] is the proposal of trial i + 1, made with i observations.
    sel = times[max(0, n - 10): n + 10]
    return statistics.median(sel) if sel else float("nan")


def run_arbo(args):
    with tempfile.TemporaryDirectory() as tmp:
        study = os.path.join(tmp, "study")
        cmd = [args.arbo, "run", os.path.join(ROOT, "configs", "c-tpe.toml"), "--study", study,
               "-q", "--set", "problem.plugin=branin", "--set", f"study.seed={args.seed}",
               "--set", f"study.budget={args.budget}"]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        wall = time.perf_counter() - t0
        obs = sorted(export_study(args.arbo, study), key=lambda o: o["id"])
    return [o["propose_seconds"] for o in obs], wall


def run_optuna(args):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=args.seed)
    study = optuna.create_study(sampler=sampler, direction="minimize")
    times = []
    t_all = time.perf_counter()
    for _ in range(args.budget):
        t0 = time.perf_counter()
        trial = study.ask()
        x1 = trial.suggest_float("x1", -5.0, 10.0)
        x2 = trial.suggest_float("x2", 0.0, 15.0)
        times.append(time.perf_counter() - t0)
        study.tell(trial, branin(x1, x2))
    return times, time.perf_counter() - t_all, optuna.__version__


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arbo", default=os.environ.get("ARBO_CLI", os.path.join(ROOT, "build", "bin", "arbo")))
    ap.add_argument("--budget", type=int, default=1010)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    arbo_times, arbo_wall = run_arbo(args)
    optuna_times, optuna_wall, version = run_optuna(args)
    rows = []
    for n in POINTS:
        a, o = window(arbo_times, n), window(optuna_times, n)
        rows.append({"n": n, "arbo_ms": a * 1e3, "optuna_ms": o * 1e3, "ratio": o / a})
    print(f"proposal time per trial, median of the trials at n-10..n+9 observations "
          f"(Branin 2-D, seed {args.seed}, Optuna {version})")
    print(f"{'n':>6} {'arbo c-TPE ms':>14} {'Optuna TPE ms':>14} {'Optuna/arbo':>12}")
    for r in rows:
        print(f"{r['n']:>6} {r['arbo_ms']:>14.4f} {r['optuna_ms']:>14.3f} {r['ratio']:>12.1f}")
    print(f"whole runs of {args.budget} trials: arbo {arbo_wall:.2f} s (process, store and "
          f"evaluations included), Optuna {optuna_wall:.2f} s")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"optuna_version": version, "budget": args.budget, "seed": args.seed,
                       "rows": rows, "arbo_wall_seconds": arbo_wall,
                       "optuna_wall_seconds": optuna_wall}, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())

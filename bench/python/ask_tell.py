#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ask + tell round trip from Python: arbo (random search, c-TPE) against Optuna's TPESampler,
and the overhead of arbo's Optuna sampler over arbo's native ask/tell, in one script.

Every method minimizes the same 2-D problem (Branin on [-5, 10] x [0, 15], unconstrained) for
`--budget` trials, the objective evaluated outside the timed region:

* arbo native: `study.ask()` + `study.tell(id, y)` through the `arbo` package (pybind11), on a
  study on disk (two SQLite commits per trial, as the CLI's), with the pipeline of
  `configs/quickstart.toml` (random search) or `configs/c-tpe.toml` (c-TPE: surrogate/tpe,
  acquisition/ctpe, candidate_pool). Also reported: the kernel's own proposal time
  (`propose_seconds` of each observation), i.e. what of the round trip is the proposal.
* Optuna: `study.ask()` + the two `suggest_float` calls (where TPE samples) + `study.tell()`,
  in-memory storage, with `TPESampler(seed)` (Optuna's defaults), `RandomSampler(seed)`
  (Optuna's own cost per trial), and `arbo.optuna.ArboSampler` with the c-TPE pipeline (the
  adapter: its time minus arbo's native c-TPE round trip at the same n is its overhead; the
  time inside the sampler's own methods, sample_relative and after_trial, which hold arbo's ask
  and tell, says how much of it is the adapter's code and how much Optuna's trial machinery).

The methods run interleaved, in blocks of `--block` trials (50) of each in turn, so that a
change of the machine's load hits all of them at about the same n alike. (One trial of each in
turn would not do: the trial that follows one of Optuna's pays for the caches Optuna's left cold,
0.2 ms in a test, which doubled arbo's c-TPE time; in blocks only the first trial of a block
pays, outside most medians.) Reported per method: the median round-trip time over the
trials made with n-10 .. n+9 observations, for n = 200 and 1,000 (`--points`), the median over
`--seeds` seeds of those medians, and the ratios. Run under `nice -n 19`; every ratio compares
methods run in the same script under the same load.

Usage: PYTHONPATH=build/python nice -n 19 /usr/bin/python3 bench/python/ask_tell.py
       [--budget 1010] [--seeds 1,2,3] [--points 200,1000] [--block 50] [--optuna-budget N]
       [--out results.json]
"""

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import arbo

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SPACE = """
[problem]
command = ["false"]
[[problem.parameters]]
name = "x1"
type = "real"
low = -5.0
high = 10.0
[[problem.parameters]]
name = "x2"
type = "real"
low = 0.0
high = 15.0
"""

# configs/quickstart.toml's and configs/c-tpe.toml's method tables.
RANDOM = """
[initial_design]
method = "sobol"
size = 8
[inner_solver]
plugin = "random"
"""
CTPE = """
[initial_design]
method = "random"
size = 10
[surrogate]
plugin = "tpe"
gamma_scale = 0.25
feasible_split = true
[acquisition]
plugin = "ctpe"
mode = "ctpe"
[inner_solver]
plugin = "candidate_pool"
draws = 24
"""


def branin(x1, x2):
    b, c = 5.1 / (4 * math.pi ** 2), 5 / math.pi
    return (x2 - b * x1 ** 2 + c * x1 - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10


class ArboNative:
    """arbo's own ask/tell from Python on one pipeline; `step()` makes one trial."""

    def __init__(self, methods, budget, seed, directory):
        toml = f'[study]\nname = "bench"\nseed = {seed}\nbudget = {budget}\n' + SPACE + methods
        self.study = arbo.create_study(directory, toml=toml)
        self.times = []

    def step(self):
        t0 = time.perf_counter()
        id, p = self.study.ask()
        t1 = time.perf_counter()
        y = branin(p["x1"], p["x2"])
        t2 = time.perf_counter()
        self.study.tell(id, y)
        self.times.append((t1 - t0) + (time.perf_counter() - t2))

    def finish(self):
        """The kernel's proposal time of each observation (`propose_seconds`)."""
        propose = [o["propose_seconds"] for o in self.study.observations()]
        self.study.close()
        return propose


class OptunaRun:
    """An Optuna study with `sampler`; `step()` makes one trial (ask, suggests, tell)."""

    def __init__(self, sampler):
        import optuna

        self.study = optuna.create_study(sampler=sampler, direction="minimize")
        self.times = []

    def step(self):
        t0 = time.perf_counter()
        trial = self.study.ask()
        x1 = trial.suggest_float("x1", -5.0, 10.0)
        x2 = trial.suggest_float("x2", 0.0, 15.0)
        t1 = time.perf_counter()
        y = branin(x1, x2)
        t2 = time.perf_counter()
        self.study.tell(trial, y)
        self.times.append((t1 - t0) + (time.perf_counter() - t2))

    def finish(self):
        if hasattr(self.study.sampler, "close"):
            self.study.sampler.close()


def timed_sampler(**kwargs):
    """An ArboSampler whose `.spent[i]` is the time trial i spent in its sample_relative and
    after_trial (arbo's ask and tell plus the adapter's own code)."""
    from arbo.optuna import ArboSampler

    class Timed(ArboSampler):
        def _add(self, trial, dt):
            while len(self.spent) <= trial.number:
                self.spent.append(0.0)
            self.spent[trial.number] += dt

        def sample_relative(self, study, trial, search_space):
            t0 = time.perf_counter()
            out = super().sample_relative(study, trial, search_space)
            self._add(trial, time.perf_counter() - t0)
            return out

        def after_trial(self, study, trial, state, values):
            t0 = time.perf_counter()
            super().after_trial(study, trial, state, values)
            self._add(trial, time.perf_counter() - t0)

    sampler = Timed(**kwargs)
    sampler.spent = []
    return sampler


def window(times, n):
    # times[i] is trial i + 1, made with i observations.
    sel = times[max(0, n - 10): n + 10]
    return statistics.median(sel) if len(sel) == 20 else float("nan")


def commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, default=1010)
    ap.add_argument("--optuna-budget", type=int, default=None,
                    help="trials of Optuna's TPESampler (default: --budget); a smaller one "
                         "measures a prefix")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--block", type=int, default=50,
                    help="trials of one method before the next method's (interleaving)")
    ap.add_argument("--points", default="200,1000")
    ap.add_argument("--out")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    points = [int(n) for n in args.points.split(",")]
    optuna_budget = args.optuna_budget or args.budget

    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    methods = {
        "arbo random (native)": None,
        "arbo c-TPE (native)": None,
        "arbo c-TPE, kernel proposal only": None,
        "Optuna TPESampler": None,
        "Optuna RandomSampler": None,
        "Optuna + ArboSampler(c-TPE)": None,
        "ArboSampler's methods only": None,
    }
    per_seed = {m: [] for m in methods}  # method -> [ {n: median} per seed ]
    walls = {m: 0.0 for m in methods}
    tmp = tempfile.mkdtemp(prefix="arbo-bench-")
    try:
        for seed in seeds:
            sampler = timed_sampler(pipeline=CTPE, seed=seed,
                                    study_dir=os.path.join(tmp, f"sampler-{seed}"))
            runs = {
                "arbo random (native)": ArboNative(RANDOM, args.budget, seed,
                                                   os.path.join(tmp, f"random-{seed}")),
                "arbo c-TPE (native)": ArboNative(CTPE, args.budget, seed,
                                                  os.path.join(tmp, f"ctpe-{seed}")),
                "Optuna TPESampler": OptunaRun(optuna.samplers.TPESampler(seed=seed)),
                "Optuna RandomSampler": OptunaRun(optuna.samplers.RandomSampler(seed=seed)),
                "Optuna + ArboSampler(c-TPE)": OptunaRun(sampler),
            }
            # Blocks of --block trials of each method in turn: a change of the machine's load
            # hits every method at about the same n alike, and only the first trial of a block
            # pays for the caches the previous method's block left cold.
            for start in range(0, args.budget, args.block):
                for name, run in runs.items():
                    stop = min(start + args.block,
                               optuna_budget if name == "Optuna TPESampler" else args.budget)
                    t = time.perf_counter()
                    for _ in range(start, stop):
                        run.step()
                    walls[name] += time.perf_counter() - t
            for name, run in runs.items():
                out = run.finish()
                per_seed[name].append({n: window(run.times, n) for n in points})
                if name == "arbo c-TPE (native)":
                    per_seed["arbo c-TPE, kernel proposal only"].append(
                        {n: window(out, n) for n in points})
            per_seed["ArboSampler's methods only"].append(
                {n: window(sampler.spent, n) for n in points})
            print(f"seed {seed} done", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    med = {m: {n: statistics.median(r[n] for r in per_seed[m]) for n in points} for m in methods}
    span = {m: {n: (min(r[n] for r in per_seed[m]), max(r[n] for r in per_seed[m]))
                for n in points} for m in methods}
    head = (f"ask + tell round trip per trial from Python, ms: median over trials at n-10..n+9 "
            f"observations, median (min-max) over seeds {args.seeds}; Branin 2-D; commit "
            f"{commit()}, Optuna {optuna.__version__}, Python {platform.python_version()}, "
            f"load average {os.getloadavg()[0]:.1f}")
    print(head)
    print(f"{'method':<34}" + "".join(f"{'n = ' + str(n):>24}" for n in points))
    for m in methods:
        cells = []
        for n in points:
            v, (lo, hi) = med[m][n], span[m][n]
            cells.append(f"{v * 1e3:.4f} ({lo * 1e3:.4f}-{hi * 1e3:.4f})")
        print(f"{m:<34}" + "".join(f"{c:>24}" for c in cells))
    ratios = {}
    for n in points:
        tpe = med["Optuna TPESampler"][n]
        ctpe = med["arbo c-TPE (native)"][n]
        sampler = med["Optuna + ArboSampler(c-TPE)"][n]
        ratios[n] = {
            "optuna_tpe_over_arbo_ctpe": tpe / ctpe,
            "optuna_tpe_over_arbo_random": tpe / med["arbo random (native)"][n],
            "optuna_tpe_over_arbo_sampler": tpe / sampler,
            "sampler_overhead_ms": (sampler - ctpe) * 1e3,
            "sampler_methods_over_native_ms": (med["ArboSampler's methods only"][n] - ctpe) * 1e3,
            "optuna_random_ms": med["Optuna RandomSampler"][n] * 1e3,
            "kernel_share_of_ctpe_round_trip": med["arbo c-TPE, kernel proposal only"][n] / ctpe,
        }
        r = ratios[n]
        print(f"n = {n}: Optuna TPE / arbo c-TPE = {r['optuna_tpe_over_arbo_ctpe']:.1f}x "
              f"(goal >= 20x); Optuna TPE / arbo random = "
              f"{r['optuna_tpe_over_arbo_random']:.1f}x; Optuna TPE / Optuna+ArboSampler = "
              f"{r['optuna_tpe_over_arbo_sampler']:.1f}x; ArboSampler overhead over native "
              f"c-TPE = {r['sampler_overhead_ms']:.3f} ms, of which "
              f"{r['sampler_methods_over_native_ms']:.3f} ms in the sampler's methods beyond "
              f"arbo's ask and tell (Optuna's own trial with RandomSampler: "
              f"{r['optuna_random_ms']:.3f} ms); kernel proposal = "
              f"{100 * r['kernel_share_of_ctpe_round_trip']:.0f} % of the c-TPE round trip")
    print("whole runs, s (all seeds): " + ", ".join(f"{m} {w:.1f}" for m, w in walls.items()))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"commit": commit(), "optuna": optuna.__version__,
                       "python": platform.python_version(), "seeds": seeds,
                       "budget": args.budget, "optuna_budget": optuna_budget,
                       "load_average": os.getloadavg(),
                       "ms": {m: {str(n): med[m][n] * 1e3 for n in points} for m in methods},
                       "ms_per_seed": {m: [{str(n): r[n] * 1e3 for n in points}
                                           for r in per_seed[m]] for m in methods},
                       "ratios": {str(n): r for n, r in ratios.items()},
                       "wall_seconds": walls}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

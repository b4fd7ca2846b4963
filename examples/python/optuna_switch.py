# SPDX-License-Identifier: MIT
"""An Optuna script switched to arbo's c-TPE in one line.

    PYTHONPATH=build/python python3 examples/python/optuna_switch.py [--optuna]

Everything below is a plain Optuna script (Debian's python3-optuna): a constrained objective,
``constraints_func``, ``create_study``, ``optimize``, ``best_trial``. The only change from the
Optuna version is the sampler (run with ``--optuna`` for Optuna's own TPESampler).
"""

import math
import sys

import optuna

from arbo.optuna import ArboSampler

# arbo's method tables (configs/c-tpe.toml without its [problem]): the sampler generates the
# search space from Optuna's distributions and the constraints from constraints_func.
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
[inner_solver]
plugin = "candidate_pool"
draws = 24
"""


def objective(trial):
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", -5.0, 5.0)
    scale = trial.suggest_float("scale", 0.1, 10.0, log=True)
    kind = trial.suggest_categorical("kind", ["plain", "shifted"])
    shift = 1.0 if kind == "shifted" else 0.0
    # Feasible inside the disk of radius 2 around the origin.
    trial.set_user_attr("disk", x * x + y * y - 4.0)
    return (x - 1.5 - shift) ** 2 + (y - 1.0) ** 2 + math.log(scale) ** 2


def constraints(trial):
    return (trial.user_attrs["disk"],)


def main() -> int:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if "--optuna" in sys.argv:
        sampler = optuna.samplers.TPESampler(constraints_func=constraints, seed=1)
    else:
        sampler = ArboSampler(CTPE, constraints_func=constraints, seed=1)  # the one-line switch
    study = optuna.create_study(direction="minimize", sampler=sampler)
    study.optimize(objective, n_trials=40)
    feasible = [t for t in study.trials
                if t.value is not None and t.user_attrs["disk"] <= 0.0]
    best = min(feasible, key=lambda t: t.value)
    print(f"{type(sampler).__name__}: {len(study.trials)} trials, {len(feasible)} feasible")
    print(f"best feasible value {best.value:.4f} at {best.params} (trial {best.number})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

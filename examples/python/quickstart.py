# SPDX-License-Identifier: MIT
"""Quickstart: an arbo study from a TOML string, on an objective written in Python.

    PYTHONPATH=build/python python3 examples/python/quickstart.py [STUDY_DIR]

The pipeline declares the search space and the method (a GP with expected improvement,
maximized by Nelder-Mead); ``optimize`` calls the Python function on each proposed point. The
study is a directory like the CLI's: ``arbo show STUDY_DIR`` reads it afterwards, ``arbo run
--resume --study STUDY_DIR --set study.budget=60`` would continue it (with the command below).
"""

import math
import os
import sys
import tempfile

import arbo

PIPELINE = """
[study]
name = "quickstart"
seed = 1
budget = 25
direction = "minimize"

[problem]
command = ["false"]    # the CLI would run this; from Python, optimize() calls branin below

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

[initial_design]
method = "sobol"
size = 6

[surrogate]
plugin = "gp"
restarts = 2

[acquisition]
plugin = "ei"

[inner_solver]
plugin = "nelder_mead"
samples = 2000
starts = 3
"""


def branin(p):
    """The Branin function (minimum 0.397887 at three points)."""
    x1, x2 = p["x1"], p["x2"]
    b, c = 5.1 / (4 * math.pi**2), 5 / math.pi
    return (x2 - b * x1**2 + c * x1 - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10


def main() -> int:
    parent = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="arbo-quickstart-")
    directory = os.path.join(parent, "quickstart.study")
    with arbo.create_study(directory, toml=PIPELINE) as study:
        n = study.optimize(branin, study.budget)
        best = study.best
        params = ", ".join(f"{k}={v:.4f}" for k, v in best["params"].items())
        print(f"{n} evaluations in {directory}")
        print(f"best objective {best['objective']:.4f} at {params} (observation {best['id']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

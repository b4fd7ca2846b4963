# SPDX-License-Identifier: MIT
# Shared fixtures of the arbo package's tests. ctest sets PYTHONPATH to the build tree's
# package, ARBO_CLI to the build's arbo binary and ARBO_SOURCE_DIR to the source tree.
import math
import os
import subprocess

import pytest

import arbo

# An external-function study: the space is declared in the pipeline, the objective comes from
# Python (ask/tell, optimize). The command is never run by them; `arbo run` would run it.
EXTERNAL_TOML = """
[study]
name = "external"
seed = 7
budget = 30
[problem]
command = ["false"]
[[problem.parameters]]
name = "lr"
type = "real"
low = 0.001
high = 0.1
log = true
[[problem.parameters]]
name = "layers"
type = "integer"
low = 1
high = 6
[[problem.parameters]]
name = "opt"
type = "categorical"
choices = ["adam", "sgd"]
[[problem.parameters]]
name = "wd"
type = "binary"
[[black_box_constraints]]
name = "mem"
sense = "<="
threshold = 8.0
[initial_design]
size = 4
[inner_solver]
plugin = "random"
"""


# A study with a model: a GP over a real, a log-scaled real, an integer and a categorical
# parameter, without black-box constraints (EI). The command is never run.
GP_TOML = """
[study]
name = "gp"
seed = 3
budget = 40
direction = "{direction}"
[problem]
command = ["false"]
[[problem.parameters]]
name = "x"
type = "real"
low = 0.0
high = 1.0
[[problem.parameters]]
name = "lr"
type = "real"
low = 0.001
high = 0.1
log = true
[[problem.parameters]]
name = "n"
type = "integer"
low = 1
high = 6
[[problem.parameters]]
name = "opt"
type = "categorical"
choices = ["adam", "sgd"]
[initial_design]
size = 6
[surrogate]
plugin = "gp"
restarts = 1
[acquisition]
plugin = "ei"
[inner_solver]
plugin = "nelder_mead"
samples = 300
starts = 2
"""


def gp_objective(p):
    """What the GP studies are told: smooth in every parameter."""
    return 10.0 + 4.0 * p["x"] + 0.5 * math.log10(p["lr"]) + 0.3 * p["n"] + (
        1.0 if p["opt"] == "sgd" else 0.0)


def gp_study(directory, n=12, direction="minimize"):
    """A GP study with n observations told (gp_objective)."""
    study = arbo.create_study(directory, toml=GP_TOML.format(direction=direction))
    for _ in range(n):
        id, p = study.ask()
        study.tell(id, gp_objective(p))
    return study


@pytest.fixture
def cli():
    """Runs the build's arbo CLI; returns the CompletedProcess (text). `env` replaces the
    environment."""
    exe = os.environ["ARBO_CLI"]

    def run(*args, cwd=None, env=None):
        return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd, env=env,
                              timeout=240)

    return run


@pytest.fixture
def source_dir():
    return os.environ["ARBO_SOURCE_DIR"]

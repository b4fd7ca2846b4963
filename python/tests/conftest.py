# SPDX-License-Identifier: MIT
# Shared fixtures of the arbo package's tests. ctest sets PYTHONPATH to the build tree's
# package, ARBO_CLI to the build's arbo binary and ARBO_SOURCE_DIR to the source tree.
import os
import subprocess

import pytest

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


@pytest.fixture
def cli():
    """Runs the build's arbo CLI; returns the CompletedProcess (text)."""
    exe = os.environ["ARBO_CLI"]

    def run(*args, cwd=None):
        return subprocess.run([exe, *args], capture_output=True, text=True, cwd=cwd, timeout=240)

    return run


@pytest.fixture
def source_dir():
    return os.environ["ARBO_SOURCE_DIR"]

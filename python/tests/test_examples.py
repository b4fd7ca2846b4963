# SPDX-License-Identifier: MIT
# The examples in examples/python run as they are (small budgets), so that they cannot rot.
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.environ["ARBO_SOURCE_DIR"], "examples", "python")


def run(name, *args):
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args],
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_quickstart(tmp_path):
    out = run("quickstart.py", str(tmp_path))
    assert f"25 evaluations in {tmp_path}/quickstart.study" in out, out
    best = float(out.split("best objective ")[1].split()[0])
    assert 0.397887 <= best < 5.0, out  # Branin's minimum is 0.397887


@pytest.mark.parametrize("sampler", ["arbo", "optuna"])
def test_optuna_switch(sampler):
    out = run("optuna_switch.py", *(["--optuna"] if sampler == "optuna" else []))
    name = "ArboSampler" if sampler == "arbo" else "TPESampler"
    assert f"{name}: 40 trials" in out, out
    assert "best feasible value" in out, out


def test_external_loop(tmp_path):
    out = run("external_loop.py", str(tmp_path))
    assert f"24 observations" in out and "best loss" in out, out
    import arbo

    with arbo.open_study(str(tmp_path / "external.study")) as study:
        obs = study.observations()
        assert [o["status"] for o in obs].count("pending") == 0
        assert all(o["origin"] == "ask" for o in obs)
        failed = [o for o in obs if o["status"] == "failed"]
        assert all(o["reason"].startswith("diverged") for o in failed)

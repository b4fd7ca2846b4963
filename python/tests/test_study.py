# SPDX-License-Identifier: MIT
# Studies from Python: creation from a TOML string and a file, ask/tell in user units,
# failures, the best observation, the observations as dicts and as NumPy arrays, optimize.
import math
import os
import signal

import numpy as np
import pytest

import arbo
from conftest import EXTERNAL_TOML


def test_ask_returns_user_units_and_tell_records(tmp_path):
    study = arbo.create_study(str(tmp_path / "s"), toml=EXTERNAL_TOML)
    assert study.parameter_names == ["lr", "layers", "opt", "wd"]
    assert study.constraint_names == ["mem"]
    assert study.budget == 30
    seen_lr = []
    for _ in range(6):
        id, p = study.ask()
        assert set(p) == {"lr", "layers", "opt", "wd"}
        assert isinstance(p["lr"], float) and 0.001 <= p["lr"] <= 0.1
        assert isinstance(p["layers"], int) and not isinstance(p["layers"], bool)
        assert 1 <= p["layers"] <= 6
        assert p["opt"] in ("adam", "sgd")
        assert isinstance(p["wd"], bool)
        seen_lr.append(p["lr"])
        study.tell(id, objective=p["lr"] * p["layers"], constraints={"mem": 2.0 * p["layers"]})
    # Log scale: uniform draws in log(lr) put about half of them below the geometric mean 0.01;
    # a linear scale would put almost none there (its lower tenth is [0.001, 0.0109]).
    assert min(seen_lr) < 0.02
    obs = study.observations()
    assert [o["id"] for o in obs] == [1, 2, 3, 4, 5, 6]
    assert all(o["status"] == "complete" for o in obs)
    for o in obs:
        assert o["constraints"]["mem"] == 2.0 * o["params"]["layers"]
        assert o["feasible"] == (o["constraints"]["mem"] <= 8.0)
        assert o["objective"] == pytest.approx(o["params"]["lr"] * o["params"]["layers"])
    feasible = [o for o in obs if o["feasible"]]
    best = study.best
    assert best is not None
    assert best["objective"] == min(o["objective"] for o in feasible)
    assert best["params"] == next(o["params"] for o in feasible if o["id"] == best["id"])
    assert best["constraints"] == {"mem": 2.0 * best["params"]["layers"]}


def test_tell_failed_and_arrays(tmp_path):
    study = arbo.create_study(str(tmp_path / "s"), toml=EXTERNAL_TOML)
    for k in range(5):
        id, p = study.ask()
        if k == 2:
            study.tell_failed(id, "out of memory")
        else:
            study.tell(id, objective=float(k), constraints={"mem": 9.0 if k == 0 else 1.0})
    id, _ = study.ask()  # left pending
    obs = study.observations()
    assert obs[2]["status"] == "failed" and obs[2]["reason"] == "out of memory"
    assert obs[5]["status"] == "pending"
    assert study.best["id"] == 2  # k = 0 is infeasible (mem 9 > 8)
    a = study.arrays()
    assert a["id"].dtype == np.int64 and list(a["id"]) == [1, 2, 3, 4, 5, 6]
    assert list(a["status"]) == ["complete", "complete", "failed", "complete", "complete",
                                 "pending"]
    assert a["objective"].dtype == np.float64 and a["objective"].shape == (6,)
    np.testing.assert_array_equal(a["objective"][[0, 1, 3, 4]], [0.0, 1.0, 3.0, 4.0])
    assert math.isnan(a["objective"][2]) and math.isnan(a["objective"][5])
    assert a["feasible"].dtype == np.bool_
    assert list(a["feasible"]) == [False, True, False, True, True, False]
    assert a["constraints"].shape == (6, 1) and a["constraint_names"] == ["mem"]
    assert a["constraints"][0, 0] == 9.0 and math.isnan(a["constraints"][2, 0])
    params = a["params"]
    assert params["lr"].dtype == np.float64 and params["lr"].shape == (6,)
    assert params["layers"].dtype == np.float64
    assert params["opt"].dtype == object and set(params["opt"]) <= {"adam", "sgd"}
    for k, o in enumerate(obs):
        assert params["lr"][k] == o["params"]["lr"]
        assert params["opt"][k] == o["params"]["opt"]


def test_create_from_file_quickstart(tmp_path, source_dir):
    file = os.path.join(source_dir, "configs", "quickstart.toml")
    study = arbo.create_study(str(tmp_path / "q"), file, overrides=["study.budget=12"])
    assert study.name == "quickstart" and study.budget == 12
    assert study.parameter_names == ["x1", "x2"]
    assert study.constraint_names == ["disk"]
    id, p = study.ask()
    assert id == 1 and -5.0 <= p["x1"] <= 10.0 and 0.0 <= p["x2"] <= 15.0
    assert 'plugin = "branin_constrained"' in study.pipeline


def test_optimize_records_exceptions_as_failures(tmp_path):
    study = arbo.create_study(str(tmp_path / "s"), toml=EXTERNAL_TOML)
    calls = []

    def f(p):
        calls.append(p)
        if p["opt"] == "sgd":
            raise ValueError(f"sgd diverged at lr={p['lr']}")
        if p["layers"] == 6:
            return {"error": "too deep"}
        return {"objective": p["lr"], "constraints": {"mem": float(p["layers"])}}

    assert study.optimize(f, 12) == 12
    assert len(calls) == 12
    obs = study.observations()
    assert len(obs) == 12
    for o, p in zip(obs, calls):
        assert o["params"] == p
        if p["opt"] == "sgd":
            assert o["status"] == "failed"
            assert o["reason"] == f"ValueError: sgd diverged at lr={p['lr']}"
        elif p["layers"] == 6:
            assert o["status"] == "failed" and o["reason"] == "too deep"
        else:
            assert o["status"] == "complete" and o["objective"] == p["lr"]
    assert any(p["opt"] == "sgd" for p in calls), "the seed must exercise the failing branch"


def test_optimize_stops_at_the_budget_and_with_non_numbers(tmp_path):
    study = arbo.create_study(str(tmp_path / "s"), toml=EXTERNAL_TOML,
                              overrides=["study.budget=5"])
    results = iter([1.0, "nope", float("nan"), None, 2])
    n = study.optimize(lambda p: next(results), 50)
    assert n == 5 and len(study) == 5
    obs = study.observations()
    assert [o["status"] for o in obs] == ["failed"] * 5  # the study has a constraint
    assert "constraint" in obs[0]["reason"]
    assert obs[1]["reason"].startswith("ValueError")  # float("nope")
    assert obs[3]["reason"].startswith("TypeError")  # float(None)
    with pytest.raises(arbo.StudyError, match="budget of 5 evaluations is spent"):
        study.ask()
    study.set_budget(6)
    study.ask()


def test_ctrl_c_leaves_the_observation_pending(tmp_path):
    directory = str(tmp_path / "s")
    study = arbo.create_study(directory, toml=EXTERNAL_TOML)
    seen = []

    def f(p):
        seen.append(p)
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C during the third evaluation
            for _ in range(1000):  # Python's handler raises at the next bytecode
                pass
        return {"objective": 1.0, "constraints": {"mem": 0.0}}

    with pytest.raises(arbo.InterruptedError) as info:
        study.optimize(f, 10)
    assert isinstance(info.value, KeyboardInterrupt) and info.value.exit_code == 130
    obs = study.observations()
    assert [o["status"] for o in obs] == ["complete", "complete", "pending"]
    study.close()
    # Continued from another handle: the pending point is evaluated first.
    again = arbo.open_study(directory)
    again_seen = []

    def g(p):
        again_seen.append(p)
        return {"objective": 2.0, "constraints": {"mem": 0.0}}

    assert again.optimize(g, 2) == 2
    assert again_seen[0] == seen[2]
    obs = again.observations()
    assert [o["status"] for o in obs] == ["complete"] * 4
    assert obs[2]["objective"] == 2.0


def test_context_manager_releases_the_lock(tmp_path):
    directory = str(tmp_path / "s")
    with arbo.create_study(directory, toml=EXTERNAL_TOML) as study:
        study.ask()
    with pytest.raises(arbo.StudyError, match="closed"):
        study.ask()
    with arbo.open_study(directory) as study:
        assert len(study) == 1

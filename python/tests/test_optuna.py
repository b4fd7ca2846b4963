# SPDX-License-Identifier: MIT
# arbo.optuna.ArboSampler with Debian's Optuna: a constrained problem through c-TPE, the
# mapping of float-log/int/categorical values, failed and pruned trials, maximize, the refusal of
# multi-objective studies, seeds, and the one-line switch from TPESampler.
import math
import os

import optuna
import pytest

import arbo
from arbo.optuna import ArboSampler

optuna.logging.set_verbosity(optuna.logging.ERROR)

CTPE_TOML = """
[initial_design]
method = "random"
size = 8
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

RANDOM_TOML = """
[initial_design]
method = "random"
size = 4
[inner_solver]
plugin = "random"
"""


def branin(x1, x2):
    b, c = 5.1 / (4 * math.pi**2), 5 / math.pi
    return (x2 - b * x1**2 + c * x1 - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10


def branin_objective(trial):
    x1 = trial.suggest_float("x1", -5.0, 10.0)
    x2 = trial.suggest_float("x2", 0.0, 15.0)
    return branin(x1, x2)


def disk(trial):
    # Feasible inside the disk of radius 5 around (2.5, 7.5) (Optuna: feasible iff <= 0).
    return ((trial.params["x1"] - 2.5) ** 2 + (trial.params["x2"] - 7.5) ** 2 - 25.0,)


def arbo_trial_ids(study):
    return {t.number: t.system_attrs.get("arbo:observation_id") for t in study.trials}


def test_constrained_branin_with_ctpe(tmp_path):
    sampler = ArboSampler(CTPE_TOML, constraints_func=disk, seed=3, study_dir=str(tmp_path / "s"))
    study = optuna.create_study(sampler=sampler)
    study.optimize(branin_objective, n_trials=30)
    assert len(study.trials) == 30
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    a = sampler.arbo_study
    assert a is not None
    assert a.parameter_names == ["x1", "x2"] and a.constraint_names == ["c0"]
    assert not a.maximize
    # Trial 0 is sampled before the space is known (fallback) and recorded as observation 1, a
    # point arbo did not propose; every later one is proposed by arbo.
    ids = arbo_trial_ids(study)
    assert ids[0] is None
    assert [ids[n] for n in range(1, 30)] == list(range(2, 31))
    ids[0] = 1
    obs = {o["id"]: o for o in a.observations()}
    assert len(obs) == 30
    assert obs[1]["origin"] == "tell"
    assert all(obs[i]["origin"] != "tell" for i in range(2, 31))
    n_infeasible = 0
    for t in study.trials:
        o = obs[ids[t.number]]
        assert o["status"] == "complete"
        assert o["params"] == pytest.approx(t.params)
        assert o["objective"] == pytest.approx(t.value)
        (c,) = t.system_attrs["constraints"]  # stored as Optuna's own samplers do
        assert c == pytest.approx(disk(t)[0])
        assert o["constraints"]["c0"] == pytest.approx(c)
        assert o["feasible"] == (c <= 0.0)
        n_infeasible += not o["feasible"]
    assert n_infeasible > 0  # the disk covers about a third of the box
    feasible = [t for t in study.trials if t.system_attrs["constraints"][0] <= 0.0]
    best = a.best
    assert best is not None and best["feasible"]
    assert best["objective"] == pytest.approx(min(t.value for t in feasible))
    assert disk(study.trials[best["id"] - 1])[0] <= 0.0
    sampler.close()
    # The kept study directory is an ordinary arbo study.
    with arbo.open_study(str(tmp_path / "s")) as reopened:
        assert len(reopened) == 30


def test_distributions_map_back(tmp_path):
    choices = [None, 3, "adam", 2.5]

    def objective(trial):
        lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
        layers = trial.suggest_int("layers", 1, 6)
        width = trial.suggest_int("width", 8, 512, log=True)
        opt = trial.suggest_categorical("opt", choices)
        flag = trial.suggest_categorical("flag", [True, False])
        stepped = trial.suggest_float("stepped", 0.0, 1.0, step=0.25)  # unsupported: fallback
        return lr * layers + width / 1000 + (opt is None) + flag + stepped

    sampler = ArboSampler(RANDOM_TOML, seed=5, study_dir=str(tmp_path / "s"))
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=25)
    a = sampler.arbo_study
    assert a.parameter_names == ["lr", "layers", "width", "opt", "flag"]
    seen = set()
    lrs = []
    for t in study.trials:
        p = t.params
        assert isinstance(p["lr"], float) and 1e-4 <= p["lr"] <= 1e-1
        assert type(p["layers"]) is int and 1 <= p["layers"] <= 6
        assert type(p["width"]) is int and 8 <= p["width"] <= 512
        assert any(p["opt"] is c for c in choices)  # the original objects, not their str
        assert p["flag"] is True or p["flag"] is False
        assert p["stepped"] in (0.0, 0.25, 0.5, 0.75, 1.0)
        seen.add(repr(p["opt"]))
        lrs.append(p["lr"])
    assert seen == {repr(c) for c in choices}
    # Log scale: about half below the geometric mean 3.2e-3; linear would put ~3% there.
    assert sum(lr < 3.2e-3 for lr in lrs) >= 5
    obs = {o["id"]: o for o in a.observations()}
    labels = {None: "None", 3: "3", "adam": "adam", 2.5: "2.5"}
    for t in study.trials[1:]:
        o = obs[t.system_attrs["arbo:observation_id"]]
        assert o["params"]["opt"] == labels[t.params["opt"]]
        assert o["params"]["flag"] == str(t.params["flag"])
        assert o["params"]["layers"] == t.params["layers"]
        assert "stepped" not in o["params"]
    sampler.close()


def test_failed_and_pruned_trials_become_failed_observations(tmp_path):
    def objective(trial):
        x = trial.suggest_float("x", 0.0, 1.0)
        if trial.number % 4 == 2:
            raise RuntimeError("simulated crash")
        if trial.number % 4 == 3:
            trial.report(x, step=0)
            raise optuna.TrialPruned()
        return (x - 0.3) ** 2

    sampler = ArboSampler(RANDOM_TOML, seed=1, study_dir=str(tmp_path / "s"))
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=12, catch=(RuntimeError,))
    states = [t.state for t in study.trials]
    TS = optuna.trial.TrialState
    assert states[2] == TS.FAIL and states[3] == TS.PRUNED and states[6] == TS.FAIL
    obs = {o["id"]: o for o in sampler.arbo_study.observations()}
    assert len(obs) == 12  # trial 0, before the study existed, as a told point
    for t in study.trials[1:]:
        o = obs[t.system_attrs["arbo:observation_id"]]
        if t.state == TS.FAIL:
            assert o["status"] == "failed" and "failed" in o["reason"]
            assert f"trial {t.number}" in o["reason"]
        elif t.state == TS.PRUNED:
            assert o["status"] == "failed" and "pruned" in o["reason"]
        else:
            assert o["status"] == "complete" and o["objective"] == pytest.approx(t.value)
    # An uncaught exception propagates as with any Optuna sampler, and is recorded.
    with pytest.raises(RuntimeError):
        study.optimize(objective, n_trials=3)  # trials 12 and 13 complete, 14 raises
    last = sampler.arbo_study.observations()[-1]
    assert last["status"] == "failed" and "trial 14" in last["reason"]
    sampler.close()


def test_first_trial_failing_defers_the_study(tmp_path):
    def objective(trial):
        x = trial.suggest_float("x", 0.0, 1.0)
        if trial.number == 0:
            raise RuntimeError("first one fails")
        return x

    sampler = ArboSampler(RANDOM_TOML, seed=1, study_dir=str(tmp_path / "s"))
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=5, catch=(RuntimeError,))
    # Trials 0 (failed) and 1 (the first complete) came from the fallback sampler: 1 is
    # recorded as a told point, 0 not at all (arbo had no space yet).
    assert len(sampler.arbo_study) == 4
    assert sampler.arbo_study.observations()[0]["origin"] == "tell"
    sampler.close()


def test_maximize(tmp_path):
    def objective(trial):
        x = trial.suggest_float("x", -2.0, 2.0)
        return -((x - 1.0) ** 2)

    sampler = ArboSampler(RANDOM_TOML, seed=2, study_dir=str(tmp_path / "s"))
    study = optuna.create_study(direction="maximize", sampler=sampler)
    study.optimize(objective, n_trials=15)
    a = sampler.arbo_study
    assert a.maximize
    assert a.best["objective"] == pytest.approx(max(t.value for t in study.trials))
    assert a.best["objective"] > min(t.value for t in study.trials)
    sampler.close()


def test_enqueued_trials_are_recorded_as_told_points(tmp_path):
    sampler = ArboSampler(RANDOM_TOML, constraints_func=disk, seed=6,
                          study_dir=str(tmp_path / "s"))
    study = optuna.create_study(sampler=sampler)
    study.optimize(branin_objective, n_trials=3)
    study.enqueue_trial({"x1": 2.5, "x2": 4.0})
    study.enqueue_trial({"x1": 99.0, "x2": 4.0})  # outside arbo's space: not recorded
    study.optimize(branin_objective, n_trials=3)
    obs = sampler.arbo_study.observations()
    # Trial 0 (the space's), the enqueued trial 3; trial 4 is not; 1, 2 and 5 are arbo's.
    assert [o["origin"] == "tell" for o in obs] == [True, False, False, True, False]
    told = obs[3]
    assert told["params"] == pytest.approx({"x1": 2.5, "x2": 4.0})
    assert told["objective"] == pytest.approx(branin(2.5, 4.0))
    assert told["constraints"]["c0"] == pytest.approx(study.trials[3].system_attrs["constraints"][0])
    sampler.close()


def test_multi_objective_is_refused(tmp_path):
    sampler = ArboSampler(RANDOM_TOML, study_dir=str(tmp_path / "s"))
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=sampler)
    with pytest.raises(ValueError, match="multi-objective"):
        study.optimize(lambda t: (t.suggest_float("x", 0, 1), 1.0), n_trials=2)
    assert sampler.arbo_study is None


def test_pipeline_with_a_problem_table_is_refused():
    with pytest.raises(ValueError, match=r"\[problem\]"):
        ArboSampler('[problem]\nplugin = "branin"\n')
    with pytest.raises(ValueError, match="black_box_constraints"):
        ArboSampler('[[black_box_constraints]]\nname = "c"\n')


def test_pipeline_from_a_file_and_seed_reproduces(tmp_path, source_dir):
    path = os.path.join(source_dir, "configs", "c-tpe.toml")
    with pytest.raises(ValueError, match=r"\[problem\]"):
        ArboSampler(path)  # a runnable pipeline names its problem: not a sampler pipeline
    f = tmp_path / "p.toml"
    f.write_text(RANDOM_TOML)

    def run(seed):
        sampler = ArboSampler(str(f), seed=seed)
        study = optuna.create_study(sampler=sampler)
        study.optimize(branin_objective, n_trials=8)
        sampler.close()
        return [t.params for t in study.trials]

    assert run(11) == run(11)
    assert run(11) != run(12)


def test_cli_shows_the_kept_study(tmp_path, cli):
    sampler = ArboSampler(RANDOM_TOML, constraints_func=disk, seed=4,
                          study_dir=str(tmp_path / "s"))
    study = optuna.create_study(study_name="kept", sampler=sampler)
    study.optimize(branin_objective, n_trials=6)
    sampler.close()
    r = cli("show", str(tmp_path / "s"))
    assert r.returncode == 0, r.stderr
    assert "kept" in r.stdout


def optimize_script(sampler):
    """An ordinary Optuna script; only the sampler differs between the runs below."""
    study = optuna.create_study(direction="minimize", sampler=sampler)
    study.optimize(branin_objective, n_trials=12)
    feasible = [t for t in study.trials if t.system_attrs["constraints"][0] <= 0.0]
    return study, min(feasible, key=lambda t: t.value) if feasible else None


def test_one_line_switch_from_tpe(tmp_path):
    tpe_study, _ = optimize_script(optuna.samplers.TPESampler(constraints_func=disk, seed=1))
    arbo_sampler = ArboSampler(CTPE_TOML, constraints_func=disk, seed=1)
    arbo_study, best = optimize_script(arbo_sampler)
    assert len(tpe_study.trials) == len(arbo_study.trials) == 12
    assert len(arbo_sampler.arbo_study) == 12  # every trial, the first as a told point
    assert best is not None and disk(best)[0] <= 0.0
    arbo_sampler.close()

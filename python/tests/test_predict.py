# SPDX-License-Identifier: MIT
# Study.predict (the objective surrogate's mean and standard deviation in user units and
# direction), Study.parameters (the space), and the parameter docs of arbo.plugins(), which are
# the CLI's text.
import math

import numpy as np
import pytest

import arbo
from conftest import EXTERNAL_TOML, gp_objective, gp_study


@pytest.mark.parametrize("direction", ["minimize", "maximize"])
def test_predict_is_in_user_units_and_direction(tmp_path, direction):
    study = gp_study(str(tmp_path / "s"), n=14, direction=direction)
    points = [o["params"] for o in study.observations()]
    points += [{"x": 0.5, "lr": 0.01, "n": 3, "opt": "adam"},
               {"x": 0.2, "lr": 0.05, "n": 5, "opt": "sgd"}]
    mean, std = study.predict(points)
    assert isinstance(mean, np.ndarray) and mean.dtype == np.float64
    assert mean.shape == (len(points),) and std.shape == (len(points),)
    told = np.array([gp_objective(p) for p in points])
    # The objective, not its negation (the kernel's minimization-sense target): the GP fits
    # this smooth function to well within its range of about 6.
    np.testing.assert_allclose(mean, told, atol=0.4)
    assert (std >= 0).all() and (std < 1.5).all()
    # No observation is recorded, the next proposal is unaffected (tested in C++ too).
    assert len(study) == 14


def test_predict_accepts_numpy_scalars_and_any_mapping(tmp_path):
    study = gp_study(str(tmp_path / "s"), n=8)
    plain = {"x": 0.25, "lr": 0.01, "n": 2, "opt": "sgd"}
    numpy = {"x": np.float64(0.25), "lr": np.float32(0.01), "n": np.int64(2), "opt": "sgd"}

    class Point(dict):
        pass

    a, _ = study.predict([plain])
    b, _ = study.predict((p for p in [numpy, Point(plain)]))
    assert b[0] == pytest.approx(a[0], rel=1e-6) and b[1] == a[0]
    mean, std = study.predict([])
    assert mean.shape == (0,) and std.shape == (0,)


def test_predict_errors(tmp_path):
    study = gp_study(str(tmp_path / "s"), n=0)
    good = {"x": 0.5, "lr": 0.01, "n": 3, "opt": "adam"}
    with pytest.raises(arbo.StudyError, match="no completed observation"):
        study.predict([good])
    id, p = study.ask()
    study.tell(id, gp_objective(p))
    study.predict([good])
    with pytest.raises(arbo.ConfigError, match="point 2: parameter 'opt' is missing"):
        study.predict([good, {"x": 0.5, "lr": 0.01, "n": 3}])
    with pytest.raises(arbo.ConfigError, match="point 1: the study has no parameter 'y'"):
        study.predict([dict(good, y=1.0)])
    with pytest.raises(arbo.ConfigError, match=r"point 1: parameter 'x': 2 is outside \[0, 1\]"):
        study.predict([dict(good, x=2.0)])
    with pytest.raises(arbo.ConfigError, match="parameter 'n': expected an integer"):
        study.predict([dict(good, n=2.5)])
    with pytest.raises(arbo.ConfigError, match="'rmsprop' is not one of the choices"):
        study.predict([dict(good, opt="rmsprop")])
    with pytest.raises(arbo.ConfigError, match="point 1 is a list, not a mapping"):
        study.predict([[0.5, 0.01, 3, "adam"]])
    with pytest.raises(arbo.ConfigError, match="parameter .x.: a complex is not a parameter value"):
        study.predict([dict(good, x=1j)])
    model_free = arbo.create_study(str(tmp_path / "r"), toml=EXTERNAL_TOML)
    with pytest.raises(arbo.ConfigError, match=r"has no \[surrogate\].*inner_solver/random"):
        model_free.predict([{"lr": 0.01, "layers": 2, "opt": "adam", "wd": True}])


def test_parameters_describe_the_space(tmp_path):
    study = arbo.create_study(str(tmp_path / "s"), toml=EXTERNAL_TOML)
    assert study.parameters == [
        {"name": "lr", "type": "real", "low": 0.001, "high": 0.1, "log": True},
        {"name": "layers", "type": "integer", "low": 1, "high": 6, "log": False},
        {"name": "opt", "type": "categorical", "choices": ["adam", "sgd"]},
        {"name": "wd", "type": "binary"},
    ]
    # A problem plugin's space, which the pipeline does not spell out.
    branin = arbo.create_study(str(tmp_path / "b"),
                               toml='[problem]\nplugin = "branin"\n[inner_solver]\n'
                                    'plugin = "random"\n')
    assert [(p["name"], p["low"], p["high"]) for p in branin.parameters] == [
        ("x1", -5.0, 10.0), ("x2", 0.0, 15.0)]


def test_plugin_docs_are_the_cli_text(cli):
    entries = arbo.plugins()
    assert entries and all(e["doc"].startswith(e["summary"] + "\n") for e in entries)
    # `arbo plugins --all`: per component a header line, its library, then its parameters.
    out = cli("plugins", "--all").stdout.splitlines(keepends=True)
    blocks, current = {}, None
    for line in out:
        if not line.startswith(" "):
            current = line.split()[0]
            blocks[current] = []
        elif not line.startswith("    library: "):
            blocks[current].append(line)
    assert set(blocks) == {e["id"] for e in entries}
    for e in entries:
        assert e["doc"] == e["summary"] + "\n" + "".join(blocks[e["id"]]), e["id"]
    gp = next(e for e in entries if e["id"] == "surrogate/gp")
    for p in gp["params"]:
        assert f"    {p['name']} = {p['default']}  ({p['domain']}" in gp["doc"]
        assert p["description"] in gp["doc"]


CONDITIONAL_TOML = """
[study]
seed = 4
budget = 20
[problem]
command = ["false"]
[[problem.parameters]]
name = "optimizer"
type = "categorical"
choices = ["adam", "sgd"]
[[problem.parameters]]
name = "lr"
type = "real"
low = 0.0001
high = 0.1
log = true
active_if = { optimizer = ["sgd"] }
[initial_design]
size = 4
[surrogate]
plugin = "gp"
restarts = 1
[acquisition]
plugin = "ei"
[inner_solver]
plugin = "nelder_mead"
samples = 100
starts = 1
"""


def test_predict_and_parameters_on_a_conditional_space(tmp_path):
    import arbo.visualization as av

    study = arbo.create_study(str(tmp_path / "c"), toml=CONDITIONAL_TOML)
    assert study.parameters[1]["condition"] == {"parent": "optimizer", "values": ["sgd"]}
    for _ in range(8):
        id, p = study.ask()
        study.tell(id, 1.0 if p["optimizer"] == "adam" else 2.0 + math.log10(p["lr"]))
    # lr may be left out where it is inactive, not where it is active; a value given where it
    # is inactive is ignored.
    mean, _ = study.predict([{"optimizer": "adam"}, {"optimizer": "adam", "lr": 0.05}])
    assert mean[0] == mean[1]
    with pytest.raises(arbo.ConfigError, match="parameter 'lr' is missing"):
        study.predict([{"optimizer": "sgd"}])
    # The plot fills a parameter the incumbent leaves inactive with its middle value.
    fig = av.plot_surrogate(study, ["optimizer"])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["adam", "sgd"]

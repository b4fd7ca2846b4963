# SPDX-License-Identifier: MIT
# arbo.visualization: each plot is rendered to a PNG of the requested size, its axes carry the
# study's parameter names and name, and the surrogate plot draws what Study.predict returns.
import matplotlib.image
import numpy as np
import pytest

import arbo
import arbo.visualization as av
from conftest import EXTERNAL_TOML, gp_study


@pytest.fixture
def study(tmp_path):
    s = arbo.create_study(str(tmp_path / "s"), toml=EXTERNAL_TOML)
    for k in range(14):
        id, p = s.ask()
        if k == 5:
            s.tell_failed(id, "out of memory")
            continue
        s.tell(id, objective=p["lr"] * 10 + p["layers"], constraints={"mem": 2.0 * p["layers"]})
    yield s
    s.close()


def test_history_plot(study, tmp_path):
    out = tmp_path / "history.png"
    fig = av.plot_history(study, out=str(out), size=(5.0, 3.0), dpi=80)
    img = matplotlib.image.imread(str(out))
    assert img.shape[:2] == (240, 400)  # (3 in x 80 dpi, 5 in x 80 dpi)
    (ax,) = fig.axes
    assert ax.get_xlabel() == "observation"
    assert ax.get_ylabel() == "objective (minimize)"
    assert "external" in ax.get_title()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["feasible", "infeasible", "failed", "best feasible so far"]
    # The step line is the running minimum over feasible observations.
    obs = study.observations()
    expect, cur = [], np.nan
    for o in obs:
        if o["status"] == "complete" and o["feasible"] and not (o["objective"] >= cur):
            cur = o["objective"]
        expect.append(cur)
    step = next(l for l in ax.get_lines() if l.get_label() == "best feasible so far")
    np.testing.assert_allclose(step.get_ydata(), expect)


def test_slices_plot(study, tmp_path):
    out = tmp_path / "slices.png"
    fig = av.plot_slices(study, out=str(out), dpi=50)
    img = matplotlib.image.imread(str(out))
    # 4 parameters: 3 columns x 2 rows of 3.2 x 2.8 inches at 50 dpi.
    assert img.shape[:2] == (280, 480)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_xlabel() != ""]
    assert [ax.get_xlabel() for ax in panels] == ["lr", "layers", "opt", "wd"]
    assert [ax.get_xscale() for ax in panels] == ["log", "linear", "linear", "linear"]
    opt = panels[2]
    assert [t.get_text() for t in opt.get_xticklabels()] == ["adam", "sgd"]
    assert "external" in fig._suptitle.get_text()
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        av.plot_slices(study, params=["nope"])


def test_slices_with_a_size_and_a_subset(study, tmp_path):
    out = tmp_path / "slices.png"
    fig = av.plot_slices(study, out=str(out), params=["wd", "lr"], size=(4.0, 2.0), dpi=50)
    assert matplotlib.image.imread(str(out)).shape[:2] == (100, 200)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_xlabel() != ""]
    assert [ax.get_xlabel() for ax in panels] == ["wd", "lr"]
    assert [t.get_text() for t in panels[0].get_xticklabels()] == ["false", "true"]


def test_parallel_coordinates(study, tmp_path):
    out = tmp_path / "parallel.png"
    fig = av.plot_parallel_coordinates(study, out=str(out), size=(6.0, 3.0), dpi=60)
    assert matplotlib.image.imread(str(out)).shape[:2] == (180, 360)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "lr", "layers", "opt", "wd", "objective (minimize)"]
    assert "external" in ax.get_title()
    # One line per complete observation (13 of 14: one failed), and the best one on top.
    a = study.arrays()
    complete = a["status"] == "complete"
    lines = [l for l in ax.get_lines() if len(l.get_xdata()) == 5]  # not the axes' own lines
    best = [l for l in lines if l.get_label().startswith("best feasible")]
    assert len(lines) - len(best) == complete.sum() == 13
    assert best and best[0].get_label() == f"best feasible (#{study.best['id']})"
    # The best line's heights: each value on its axis' [0, 1] (lr on a log scale, opt at its
    # choice, wd at 0 or 1, the objective between the smallest and largest).
    p = study.best["params"]
    y = a["objective"][complete]
    expect = [np.log(p["lr"] / 0.001) / np.log(100.0), (p["layers"] - 1) / 5,
              ["adam", "sgd"].index(p["opt"]), float(p["wd"]),
              (study.best["objective"] - y.min()) / (y.max() - y.min())]
    np.testing.assert_allclose(best[0].get_ydata(), expect, atol=1e-12)
    fig = av.plot_parallel_coordinates(study, params=["opt", "lr"])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [
        "opt", "lr", "objective (minimize)"]
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        av.plot_parallel_coordinates(study, params=["nope"])


@pytest.fixture
def gp(tmp_path):
    s = gp_study(str(tmp_path / "gp"), n=12)
    yield s
    s.close()


def test_surrogate_along_one_parameter(gp, tmp_path):
    out = tmp_path / "surrogate.png"
    fig = av.plot_surrogate(gp, ["x"], out=str(out), size=(5.0, 4.0), dpi=40, resolution=25)
    assert matplotlib.image.imread(str(out)).shape[:2] == (160, 200)
    (ax,) = fig.axes
    assert ax.get_xlabel() == "x" and ax.get_ylabel() == "objective (minimize)"
    # The line is Study.predict along x, the other parameters at the incumbent.
    incumbent = gp.best["params"]
    grid = np.linspace(0.0, 1.0, 25)
    mean, std = gp.predict([dict(incumbent, x=float(v)) for v in grid])
    line = next(l for l in ax.get_lines() if l.get_label() == "surrogate mean")
    np.testing.assert_allclose(line.get_xdata(), grid)
    np.testing.assert_allclose(line.get_ydata(), mean)
    band = next(c for c in ax.collections if c.get_label() == "mean ± 2 sd")
    edge = band.get_paths()[0].vertices[:, 1]
    assert edge.min() == pytest.approx((mean - 2 * std).min())
    assert edge.max() == pytest.approx((mean + 2 * std).max())
    incumbent_line = next(l for l in ax.get_lines() if l.get_label() == "incumbent")
    assert incumbent_line.get_xdata()[0] == incumbent["x"]
    # A log parameter gets a log axis; a categorical one a point per choice.
    fig = av.plot_surrogate(gp, ["lr"], resolution=10)
    assert fig.axes[0].get_xlabel() == "lr" and fig.axes[0].get_xscale() == "log"
    fig = av.plot_surrogate(gp, ["opt"], out=str(tmp_path / "opt.png"))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["adam", "sgd"]
    fig = av.plot_surrogate(gp)  # the first parameter
    assert fig.axes[0].get_xlabel() == "x"


def test_surrogate_over_two_parameters(gp, tmp_path):
    out = tmp_path / "surrogate2.png"
    fig = av.plot_surrogate(gp, ["x", "n"], out=str(out), size=(8.0, 3.0), dpi=50,
                            resolution=12)
    assert matplotlib.image.imread(str(out)).shape[:2] == (150, 400)
    panels = [ax for ax in fig.axes if ax.get_xlabel()]
    assert [(ax.get_xlabel(), ax.get_ylabel()) for ax in panels] == [("x", "n"), ("x", "n")]
    assert "mean" in panels[0].get_title() and "standard deviation" in panels[1].get_title()
    # Every integer of n (6 <= 12), 12 values of x.
    mean, _ = gp.predict([dict(gp.best["params"], x=float(u), n=v)
                          for v in range(1, 7) for u in np.linspace(0, 1, 12)])
    # The mean panel's colour bar spans the predicted means.
    lo, hi = [ax for ax in fig.axes if not ax.get_xlabel()][0].get_ylim()
    assert lo <= mean.min() and mean.max() <= hi and hi - lo < 2 * (mean.max() - mean.min())
    with pytest.raises(ValueError, match="one or two parameters"):
        av.plot_surrogate(gp, ["x", "n", "lr"])
    with pytest.raises(ValueError, match="two different parameters"):
        av.plot_surrogate(gp, ["x", "x"])


def test_surrogate_of_a_model_free_study(study):
    with pytest.raises(arbo.ConfigError, match=r"has no \[surrogate\]"):
        av.plot_surrogate(study, ["lr"])

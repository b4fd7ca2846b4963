# SPDX-License-Identifier: MIT
# arbo.visualization: each plot is rendered to a PNG of the requested size, and its axes carry
# the study's parameter names and name.
import matplotlib.image
import numpy as np
import pytest

import arbo
import arbo.visualization as av
from conftest import EXTERNAL_TOML


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

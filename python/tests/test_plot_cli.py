# SPDX-License-Identifier: MIT
# `arbo plot` end to end through the real CLI, which finds the package itself (PYTHONPATH is
# removed from its environment): each kind writes a PNG of the requested size; errors keep the
# CLI's exit codes (usage 2, configuration 3, study 5, python3 or matplotlib missing 7).
import math
import os

import matplotlib.image

from conftest import EXTERNAL_TOML, gp_study

import arbo


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(extra)
    return env


def make_studies(tmp_path):
    external = str(tmp_path / "external")
    with arbo.create_study(external, toml=EXTERNAL_TOML) as s:
        for k in range(8):
            id, p = s.ask()
            s.tell(id, objective=p["lr"] * p["layers"], constraints={"mem": float(k)})
    gp = str(tmp_path / "gp")
    gp_study(gp, n=8).close()
    return external, gp


def test_every_kind_writes_a_png_of_the_requested_size(tmp_path, cli):
    external, gp = make_studies(tmp_path)
    runs = [(external, "history", None), (external, "slices", "lr,opt"),
            (external, "parallel", None), (gp, "surrogate", "x,lr")]
    for directory, kind, params in runs:
        out = str(tmp_path / f"{kind}.png")
        args = ["plot", directory, "--out", out, "--kind", kind, "--size", "641x401"]
        if params:
            args += ["--params", params]
        r = cli(*args, env=clean_env())
        assert r.returncode == 0, (kind, r.stdout, r.stderr)
        assert f"wrote {out} ({kind}, 641x401 pixels)" in r.stdout
        assert matplotlib.image.imread(out).shape[:2] == (401, 641), kind
    # The default kind is the history, and the default size 960x600.
    out = str(tmp_path / "default.png")
    r = cli("plot", gp, "--out", out, env=clean_env())
    assert r.returncode == 0, r.stderr
    assert matplotlib.image.imread(out).shape[:2] == (600, 960)


def test_errors_keep_the_cli_exit_codes(tmp_path, cli):
    external, _ = make_studies(tmp_path)
    out = str(tmp_path / "x.png")

    def plot(*args, **env):
        return cli("plot", *args, env=clean_env(**env))

    r = plot(external, "--out", out, "--kind", "surogate")
    assert r.returncode == 2 and "did you mean surrogate" in r.stderr, r.stderr
    r = plot(external)
    assert r.returncode == 2 and "--out" in r.stderr, r.stderr
    r = plot(external, "--out", out, "--size", "big")
    assert r.returncode == 2 and "WIDTHxHEIGHT" in r.stderr, r.stderr
    r = plot(external, "--out", out, "--kind", "slices", "--params", "lr,nope")
    assert r.returncode == 2 and "no parameter 'nope'" in r.stderr, r.stderr
    r = plot(external, "--out", out, "--kind", "surrogate")
    assert r.returncode == 3 and "has no [surrogate]" in r.stderr, r.stderr
    r = plot(str(tmp_path / "none"), "--out", out)
    assert r.returncode == 5 and "arbo: error:" in r.stderr, r.stderr
    r = plot(external, "--out", str(tmp_path / "no" / "such" / "dir.png"))
    assert r.returncode == 7 and "cannot write" in r.stderr, r.stderr
    # No python3, and a python3 without matplotlib (a package that fails to import shadows it).
    r = plot(external, "--out", out, ARBO_PYTHON=str(tmp_path / "no-python3"))
    assert r.returncode == 7 and "install the Debian package python3" in r.stderr, r.stderr
    fake = tmp_path / "fake" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named matplotlib')\n")
    r = plot(external, "--out", out, PYTHONPATH=str(tmp_path / "fake"))
    assert r.returncode == 7 and "python3-matplotlib" in r.stderr, r.stderr
    assert not os.path.exists(out)


def test_a_study_being_driven_is_drawn_and_read_but_not_written(tmp_path, cli):
    _, gp = make_studies(tmp_path)
    log = os.path.join(gp, "arbo.log")
    # The writer holds the study's lock, as `arbo run` does while it drives the study.
    with arbo.open_study(gp) as driver:
        before = open(log, "rb").read()
        out = str(tmp_path / "live.png")
        r = cli("plot", gp, "--out", out, "--kind", "surrogate", "--params", "x",
                env=clean_env())
        assert r.returncode == 0, r.stderr
        assert matplotlib.image.imread(out).shape[:2] == (600, 960)
        with arbo.open_study(gp, read_only=True) as reader:
            assert len(reader.observations()) == len(driver.observations()) == 8
            point = {"x": 0.5, "lr": 0.01, "n": 2, "opt": "adam"}
            mean, sd = reader.predict([point])
            assert math.isfinite(mean[0]) and sd[0] >= 0.0
            for call in (reader.ask, lambda: reader.tell_point(point, objective=1.0)):
                try:
                    call()
                    raise AssertionError("a read-only study wrote")
                except arbo.StudyError as e:
                    assert "opened to be read only" in str(e), e
        # Nothing was written by the readers: the driver goes on with the study as it was.
        assert open(log, "rb").read() == before
        id, _ = driver.ask()
        driver.tell(id, objective=0.5)
    with arbo.open_study(gp) as s:
        assert len(s.observations()) == 9

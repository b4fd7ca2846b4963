# SPDX-License-Identifier: MIT
# The studies are the CLI's: one made in Python is resumed by `arbo run --resume` and read by
# `arbo show`; one made by the CLI is opened and continued from Python. And plugins().
import json
import os

import arbo
from conftest import EXTERNAL_TOML


def test_python_study_resumed_by_the_cli(tmp_path, cli, source_dir):
    directory = str(tmp_path / "q")
    file = os.path.join(source_dir, "configs", "quickstart.toml")
    study = arbo.create_study(directory, file, overrides=["study.budget=12"])
    asked = []
    for _ in range(3):
        id, p = study.ask()
        asked.append(p)
        study.tell(id, objective=100.0 + id, constraints={"disk": -1.0})
    id, pending = study.ask()  # the CLI evaluates it first
    study.close()
    r = cli("run", "--resume", "--study", directory, "--quiet")
    assert r.returncode == 0, r.stderr
    assert "12 in the study" in r.stdout, r.stdout
    exported = json.loads(cli("export", directory, "--format", "json").stdout)
    assert len(exported) == 12
    assert [o["params"] for o in exported[:4]] == asked + [pending]
    assert [o["objective"] for o in exported[:3]] == [101.0, 102.0, 103.0]
    assert exported[3]["status"] == "complete" and exported[3]["origin"] == "ask"
    show = cli("show", directory)
    assert show.returncode == 0, show.stderr
    assert "observations: 12 (12 complete" in show.stdout, show.stdout
    # And back in Python: the same observations, the CLI's best.
    again = arbo.open_study(directory)
    assert again.observations() == exported
    feasible = [o["objective"] for o in exported if o["feasible"]]
    assert again.best["objective"] == min(feasible)


def test_cli_study_continued_from_python(tmp_path, cli):
    (tmp_path / "p.toml").write_text(EXTERNAL_TOML)
    r = cli("init", "p.toml", "--study", "s", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = cli("ask", "s", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)
    assert cli("tell", "s", "1", "--objective", "0.5", "--constraint", "mem=2",
               cwd=tmp_path).returncode == 0
    study = arbo.open_study(str(tmp_path / "s"))
    assert study.observations()[0]["params"] == first["params"]
    assert study.optimize(lambda p: {"objective": p["lr"], "constraints": {"mem": 1.0}}, 4) == 4
    id, _ = study.ask()
    study.close()
    # The CLI sees Python's results, and tells the pending one.
    assert cli("tell", "s", str(id), "--failed", "later", cwd=tmp_path).returncode == 0
    exported = json.loads(cli("export", "s", "--format", "json", cwd=tmp_path).stdout)
    assert [o["status"] for o in exported] == ["complete"] * 5 + ["failed"]
    assert exported[5]["reason"] == "later"


def test_plugins_lists_components_with_parameter_docs():
    components = {c["id"]: c for c in arbo.plugins()}
    for id in ("inner_solver/random", "problem/branin", "problem/branin_constrained"):
        assert id in components, sorted(components)
    random = components["inner_solver/random"]
    assert random["kind"] == "inner_solver" and random["name"] == "random"
    assert random["summary"] and os.path.isfile(random["library"])
    names = {p["name"]: p for p in random["params"]}
    assert "max_tries" in names
    spec = names["max_tries"]
    assert spec["description"] and spec["domain"] and spec["default"]

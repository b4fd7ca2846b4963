# SPDX-License-Identifier: MIT
# Kernel errors raised as Python exceptions: one class per exit code under arbo.Error, with
# the kernel's messages.
import pytest

import arbo
from conftest import EXTERNAL_TOML


def test_classes_and_exit_codes():
    expected = {arbo.ConfigError: 3, arbo.PluginError: 4, arbo.StudyError: 5,
                arbo.InfeasibleError: 6, arbo.OutputError: 7, arbo.InterruptedError: 130}
    for cls, code in expected.items():
        assert issubclass(cls, arbo.Error) and issubclass(cls, Exception)
        assert cls.exit_code == code
    assert issubclass(arbo.InterruptedError, KeyboardInterrupt)


def test_malformed_toml_names_line_and_key(tmp_path):
    text = "[study]\nseed = 1\nbudget = \"ten\"\n[problem]\nplugin = \"branin\"\n"
    with pytest.raises(arbo.ConfigError) as info:
        arbo.create_study(str(tmp_path / "s"), toml=text)
    message = str(info.value)
    # toml11's format: the key, the source name, the offending line with its number.
    assert "study.budget" in message and "--> <toml>" in message, message
    assert ' 3 | budget = "ten"' in message, message
    assert info.value.exit_code == 3
    with pytest.raises(arbo.ConfigError, match="<toml>"):
        arbo.create_study(str(tmp_path / "s"), toml="[study\nseed = 1\n")


def test_unknown_plugin_and_key(tmp_path):
    text = EXTERNAL_TOML.replace('plugin = "random"', 'plugin = "randon"')
    with pytest.raises(arbo.ConfigError, match="randon") as info:
        arbo.create_study(str(tmp_path / "s"), toml=text)
    assert "random" in str(info.value)  # did you mean
    with pytest.raises(arbo.ConfigError, match="study.budgett"):
        arbo.create_study(str(tmp_path / "s"), toml=EXTERNAL_TOML,
                          overrides=["study.budgett=3"])
    with pytest.raises(arbo.ConfigError, match="missing.toml"):
        arbo.create_study(str(tmp_path / "s"), str(tmp_path / "missing.toml"))
    with pytest.raises(arbo.ConfigError, match="exactly one"):
        arbo.create_study(str(tmp_path / "s"))


def test_study_errors(tmp_path):
    with pytest.raises(arbo.StudyError, match="holds no study") as info:
        arbo.open_study(str(tmp_path / "nowhere"))
    assert info.value.exit_code == 5
    directory = str(tmp_path / "s")
    study = arbo.create_study(directory, toml=EXTERNAL_TOML)
    with pytest.raises(arbo.StudyError, match="already"):
        arbo.create_study(directory, toml=EXTERNAL_TOML)
    id, _ = study.ask()
    study.tell(id, 1.0, {"mem": 1.0})
    with pytest.raises(arbo.StudyError, match=f"observation {id} is not pending"):
        study.tell(id, 1.0, {"mem": 1.0})
    with pytest.raises(arbo.StudyError, match="observation 99 does not exist"):
        study.tell_failed(99, "x")


def test_invalid_results_record_nothing(tmp_path):
    study = arbo.create_study(str(tmp_path / "s"), toml=EXTERNAL_TOML)
    id, _ = study.ask()
    with pytest.raises(arbo.ConfigError, match="constraint 'mem' is missing"):
        study.tell(id, 1.0)
    with pytest.raises(arbo.ConfigError, match="'memory': the study has no such constraint"):
        study.tell(id, 1.0, {"mem": 1.0, "memory": 2.0})
    with pytest.raises(arbo.ConfigError, match="finite"):
        study.tell(id, float("nan"), {"mem": 1.0})
    assert study.observations()[0]["status"] == "pending"
    study.tell(id, 1.0, {"mem": 1.0})
    assert study.observations()[0]["status"] == "complete"

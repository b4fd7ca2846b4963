# SPDX-License-Identifier: MIT
"""arbo: Bayesian optimization studies from Python.

A thin layer over arbo's kernel (the native module ``arbo._arbo``): the studies are the same
SQLite study directories the ``arbo`` CLI makes, so ``arbo run --resume``, ``arbo show`` and
``arbo export`` work on a study made here, and a study made by the CLI opens here.

    import arbo
    study = arbo.create_study("demo.study", "configs/quickstart.toml")
    id, params = study.ask()
    study.tell(id, objective=1.5, constraints={"c1": -0.2})
    study.optimize(lambda p: my_function(**p), 20)
    print(study.best)
    mean, std = study.predict([{"x1": 0.5, "x2": 3.0}])   # the objective's surrogate

Plots are in ``arbo.visualization`` (matplotlib), Optuna's sampler in ``arbo.optuna``.

Errors of the kernel are raised as subclasses of ``arbo.Error`` whose ``exit_code`` is what
the CLI returns for the same error.
"""

from arbo._arbo import (
    ConfigError,
    Error,
    InfeasibleError,
    InterruptedError,
    OutputError,
    PluginError,
    Study,
    StudyError,
    create_study,
    open_study,
    plugins,
)

# arbo.InterruptedError is left out of __all__: a star import would shadow Python's own
# InterruptedError (an OSError).
__all__ = [
    "ConfigError",
    "Error",
    "InfeasibleError",
    "OutputError",
    "PluginError",
    "Study",
    "StudyError",
    "create_study",
    "open_study",
    "plugins",
]

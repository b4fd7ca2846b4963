# SPDX-License-Identifier: MIT
"""Makes a bench script run under Debian's python3 when the interpreter it was started with
cannot import what it needs. tools/install-deps installs python3-matplotlib, python3-optuna and
python3-scipy for /usr/bin/python3, not into a pyenv or venv Python that may come first on PATH
(`#!/usr/bin/env python3`).

  sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # from a bench/ subfolder
  from debian_python import require_modules
  require_modules(["scipy"], "compare.py")
"""

import importlib.util
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
_REEXEC_ENV = "ARBO_BENCH_REEXEC"


def require_modules(modules, script):
    """Returns when every module of `modules` imports here; otherwise re-executes the running
    script (sys.argv[0], same arguments) with /usr/bin/python3 once, saying so on stderr, or
    exits naming the missing modules when that is this interpreter already or it is absent."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return
    if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and \
            os.access(SYSTEM_PYTHON, os.X_OK) and not os.environ.get(_REEXEC_ENV):
        os.environ[_REEXEC_ENV] = "1"
        print(f"{script}: {sys.executable} cannot import {', '.join(missing)}; "
              f"re-running with {SYSTEM_PYTHON}", file=sys.stderr, flush=True)
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.realpath(sys.argv[0])] + sys.argv[1:])
    sys.exit(f"{script}: cannot import {', '.join(missing)} (run tools/install-deps: the Debian "
             f"packages python3-<module> install for {SYSTEM_PYTHON})")

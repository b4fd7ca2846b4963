# SPDX-License-Identifier: MIT
"""A study's observations through the arbo CLI (`arbo export STUDY --format json|csv`), for the
bench scripts.

  sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # from a bench/ subfolder
  from arbo_export import ExportError, export_study
  observations = export_study("build/bin/arbo", study)       # list of dicts, the CLI's order
  text = export_study(["build/bin/arbo", "--plugin-path", d], study, fmt="csv")
"""

import json
import os
import subprocess


class ExportError(RuntimeError):
    """`arbo export` exited non-zero; the message names the study and carries its stderr."""

    def __init__(self, study, returncode, stderr):
        super().__init__(f"arbo export {study}: {stderr.strip()}")
        self.study, self.returncode, self.stderr = study, returncode, stderr


def export_study(arbo, study, fmt="json"):
    """The observations of `study` (a path) as `arbo export` prints them: for fmt "json" the
    parsed list (in the CLI's order, not re-sorted), for "csv" the text. `arbo` is the CLI's
    path or a command prefix (e.g. [path, "--plugin-path", dir]). Raises ExportError when the
    CLI fails, ValueError when its JSON does not parse."""
    if fmt not in ("json", "csv"):
        raise ValueError(f"export_study: format {fmt!r}, not 'json' or 'csv'")
    prefix = [os.fspath(arbo)] if isinstance(arbo, (str, os.PathLike)) else \
        [os.fspath(a) for a in arbo]
    out = subprocess.run(prefix + ["export", os.fspath(study), "--format", fmt],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if out.returncode != 0:
        raise ExportError(study, out.returncode, out.stderr)
    return json.loads(out.stdout) if fmt == "json" else out.stdout

#!/usr/bin/env python3
"""Checks that two builds of arbo propose the same observations: one short study per stock
pipeline is run with each build's CLI and exported as CSV, and every column but the timings
is compared row by row. For refactors that must not change behaviour (issue 22 used it).

    bench/same_observations/same_observations.py BASE_BUILD HEAD_BUILD [--out DIR]

BASE_BUILD and HEAD_BUILD are build folders (each with bin/arbo and its plugins). The studies
run from the repository root with model solves on one thread, so solver certificates (nodes,
LP iterations, bounds) are compared too. Exits 1 naming the first differences, else 0.
"""
import argparse
import csv
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from arbo_export import export_study  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]

# name, pipeline, --set overrides
STUDIES = [
    ("quickstart", "configs/quickstart.toml", ["study.budget=30"]),
    ("mondrian-nm", "configs/mondrian-nm.toml", ["study.budget=40"]),
    ("c-tpe", "configs/c-tpe.toml", ["study.budget=80"]),
    ("leaf-gp", "configs/leaf-gp.toml", ["study.budget=30", "inner_solver.threads=1"]),
    ("leaf-gp-rnd", "configs/leaf-gp-rnd.toml", ["study.budget=30"]),
    ("leaf-gp-g6", "configs/leaf-gp.toml",
     ["study.budget=25", "inner_solver.threads=1", 'problem.plugin="g6_reduced"']),
    ("external", "configs/examples/external_command.toml", ["study.budget=12"]),
]


def is_timing(column):
    return "seconds" in column or column.endswith("_at")


def run_all(build, out):
    arbo = pathlib.Path(build).resolve() / "bin" / "arbo"
    out.mkdir(parents=True, exist_ok=True)
    for name, pipeline, sets in STUDIES:
        study = out / f"{name}.study"
        shutil.rmtree(study, ignore_errors=True)
        args = [str(arbo), "run", pipeline, "--study", str(study)]
        for s in sets:
            args += ["--set", s]
        run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{arbo}: {name} exited {run.returncode}: {run.stderr.strip()[-500:]}")
        csv_text = export_study(arbo, study, fmt="csv")
        (out / f"{name}.csv").write_text(csv_text)


def compare(base, head):
    differences = 0
    for name, _, _ in STUDIES:
        a = list(csv.DictReader((base / f"{name}.csv").open()))
        b = list(csv.DictReader((head / f"{name}.csv").open()))
        columns = [c for c in (a[0].keys() if a else []) if not is_timing(c)]
        diff = [] if len(a) == len(b) else [f"{len(a)} rows against {len(b)}"]
        for i, (x, y) in enumerate(zip(a, b), start=1):
            diff += [f"row {i} {c}: {x.get(c)!r} != {y.get(c)!r}" for c in columns
                     if x.get(c) != y.get(c)]
        print(f"{name}: {len(a)} rows, {len(columns)} columns compared, "
              f"{'identical' if not diff else f'{len(diff)} differences'}")
        for d in diff[:5]:
            print("   ", d)
        differences += len(diff)
    return differences


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("base_build")
    p.add_argument("head_build")
    p.add_argument("--out", help="keep the studies and CSV files here (default: a temp dir)")
    a = p.parse_args()
    out = pathlib.Path(a.out) if a.out else pathlib.Path(tempfile.mkdtemp(prefix="arbo-same-"))
    run_all(a.base_build, out / "base")
    run_all(a.head_build, out / "head")
    sys.exit(1 if compare(out / "base", out / "head") else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Rebuild LEAF-GP acquisition models from a finished study, for solver comparisons.

For every requested observation count n, the study's first n observations are copied into a
scratch study whose stored pipeline asks glpk_bnb to dump its model, and one proposal is made.
The surrogate is refitted on exactly those n observations with the study's seed, so the models
are the same on every run and for every solver variant: only the code that formulates or
solves them changes. (Dumping from a live study instead gives models that depend on earlier
wall-clock-limited solves.)

  model_corpus.py STUDY_DIR OUT_DIR --arbo build/bin/arbo --counts 40,50,60 [--prefix st]

With --replay, nothing is dumped: the proposal is made with the study's own solver settings
(time limit included, and with its starts, which a dumped model file cannot carry), its solver
figures are printed as one JSON line per count, and arbo's debug log is kept in
OUT_DIR/<prefix>_n<n>.log.
"""
import argparse
import json
import pathlib
import re
import shutil
import sqlite3
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("study")
    ap.add_argument("out")
    ap.add_argument("--arbo", default="build/bin/arbo")
    ap.add_argument("--counts", required=True, help="comma-separated observation counts")
    ap.add_argument("--prefix", default="m")
    ap.add_argument("--replay", action="store_true",
                    help="solve with the study's settings and print the solver figures")
    ap.add_argument("--solver", action="append", default=[], metavar="KEY=VALUE",
                    help="with --replay: set an [inner_solver] key (TOML value), e.g. threads=1")
    args = ap.parse_args()
    src = pathlib.Path(args.study) / "study.db"
    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for n in (int(c) for c in args.counts.split(",")):
        work = out / f"_study_{args.prefix}{n}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        db_path = work / "study.db"
        shutil.copy(src, db_path)
        model = out / f"{args.prefix}_n{n}.lp"
        db = sqlite3.connect(db_path)
        (have,) = db.execute("select count(*) from observations where id <= ?", (n,)).fetchone()
        if have < n:
            sys.exit(f"{src} has only {have} observations, fewer than {n}")
        db.execute("delete from observations where id > ?", (n,))
        db.execute("delete from proposal_stats where id > ?", (n,))
        (pipeline,) = db.execute("select value from meta where key = 'pipeline'").fetchone()
        head, sep, solver = pipeline.partition("[inner_solver]")
        if not sep:
            sys.exit("the stored pipeline has no [inner_solver] table")
        if args.replay:
            settings = [setting.partition("=")[::2] for setting in args.solver]
        else:
            # Numbered dumps: a proposal may solve more models after the acquisition (the
            # projection of the cell centre onto the known constraints); the first is the one.
            numbered = out / f"_{args.prefix}_n{n}.{{n}}.lp"
            settings = [("time_limit", "0.01"), ("no_incumbent_retries", "0"),
                        ("dump_model", f'"{numbered}"')]
        solver = re.sub(r'(?m)^dump_model = .*$', "", solver)
        for key, value in settings:
            solver = with_key(solver, key, value)
        db.execute("update meta set value = ? where key = 'pipeline'", (head + sep + solver,))
        db.execute("update meta set value = ? where key = 'budget'", (str(n + 1),))
        db.commit()
        db.close()
        if args.replay:
            replay(args, work, n, out / f"{args.prefix}_n{n}.log")
            continue
        run = subprocess.run([args.arbo, "run", "--study", str(work), "--resume", "-q",
                              "--set", f"study.budget={n + 1}"],
                             capture_output=True, text=True)
        first = out / f"_{args.prefix}_n{n}.0.lp"
        if first.exists():
            first.replace(model)
        for extra in out.glob(f"_{args.prefix}_n{n}.*.lp"):
            extra.unlink()
        if not model.exists():
            sys.exit(f"no model dumped for n = {n}:\n{run.stdout}\n{run.stderr}")
        shutil.rmtree(work)
        print(model)


def with_key(solver, key, value):
    """The [inner_solver] table's text with `key = value` (a TOML value) instead of any earlier
    line for that key."""
    solver = re.sub(rf'(?m)^{re.escape(key)} = .*$', "", solver)
    return solver.replace('plugin = "glpk_bnb"', f'plugin = "glpk_bnb"\n{key} = {value}', 1)


def replay(args, work, n, log):
    with open(log, "w") as f:
        subprocess.run([args.arbo, "-v", "run", "--study", str(work), "--resume", "-q",
                        "--set", f"study.budget={n + 1}"], stdout=f, stderr=subprocess.STDOUT)
    db = sqlite3.connect(work / "study.db")
    row = db.execute("select stats from proposal_stats where id = ?", (n + 1,)).fetchone()
    db.close()
    if row is None:
        sys.exit(f"no proposal made for n = {n}; see {log}")
    stats = json.loads(row[0])
    print(json.dumps({"count": n, **{k: stats.get(k) for k in
                      ("status", "objective", "best_bound", "gap", "nodes", "solve_seconds")}}))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()

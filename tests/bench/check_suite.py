#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ctest driver for bench/run_suite.py: runs a suite into a fresh folder and checks its outputs.

  smoke: bench/suites/smoke.toml. Checks the CSV rows (one per pipeline x problem x seed x
         evaluation, best-so-far and regret recomputed independently), the report and the
         plots; that a rerun into the same folder skips every run and rebuilds an identical
         CSV; that --merge reports the runs of that CSV, byte for byte, from a folder without
         their studies, and leaves out a run stopped part-way; that a protocol split with
         --methods, --problems and --seeds runs only its subset and reports whole with --merge;
         and that the arbo pipelines are deterministic and resumable: a fresh folder run first
         with half the budget and then resumed gives the same values as the first run.
  mixed: a maximization problem with every parameter type, conditions, a black-box and a
         known constraint (test plugin bench_mixed), random search and both Optuna peers.
  suites: every suite under bench/suites passes --check, and a broken one fails it.
"""

import argparse
import csv
import gzip
import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

TIMING = {"propose_seconds", "eval_seconds"}
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print(f"FAIL: {msg}", flush=True)


def run_suite(args, suite, out, *extra, expect_exit=0):
    """Runs run_suite.py and returns its output; stops the test when it exits otherwise than
    `expect_exit`."""
    cmd = [args.python, str(args.source_dir / "bench" / "run_suite.py"), str(suite),
           "--out", str(out), "--arbo", args.arbo] + list(extra)
    print("$ " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       check=False)
    print(p.stdout, end="", flush=True)
    print(f"({time.perf_counter() - t0:.1f} s)", flush=True)
    if p.returncode != expect_exit:
        sys.exit(f"FAIL: run_suite.py exited {p.returncode}, expected {expect_exit}")
    return p.stdout


def read_rows(out):
    with open(out / "results.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def check_rows(rows, problems, methods, seeds, budget):
    """Every (method, problem, seed) has evaluations 1..budget; best/regret are consistent."""
    by_key = {}
    for r in rows:
        by_key.setdefault((r["pipeline"], r["problem"], int(r["seed"])), []).append(r)
    expected = {(m, p, s) for m in methods for p in problems for s in seeds}
    check(set(by_key) == expected, f"runs in CSV {sorted(by_key)} != expected {sorted(expected)}")
    check(len(rows) == len(expected) * budget, f"{len(rows)} rows, expected {len(expected) * budget}")
    for key, rs in by_key.items():
        m, p, s = key
        info = problems[p]
        maximize = info["direction"] == "maximize"
        check([int(r["evaluation"]) for r in rs] == list(range(1, budget + 1)),
              f"{key}: evaluation indices")
        best = best_violation = None
        for r in rs:
            if r["objective"] != "":
                # Every evaluated point has its violation: within the known constraints'
                # tolerance when feasible, positive when not.
                check(r["violation"] != "", f"{key} eval {r['evaluation']}: no violation")
                if r["violation"] != "":
                    viol = float(r["violation"])
                    check(0 <= viol <= 1e-6 if r["feasible"] == "1" else viol > 0,
                          f"{key} eval {r['evaluation']}: violation {viol}, feasible "
                          f"{r['feasible']}")
            if r["objective"] != "" and r["feasible"] == "1":
                v = float(r["objective"])
                if best is None or (v > best if maximize else v < best):
                    best, best_violation = v, r["violation"]
            if best is None:
                check(r["best_feasible"] == "" and r["regret"] == "", f"{key}: best before feasible")
                check(r["best_violation"] == "", f"{key}: best violation before feasible")
            else:
                check(float(r["best_feasible"]) == best, f"{key} eval {r['evaluation']}: best")
                check(r["best_violation"] == best_violation,
                      f"{key} eval {r['evaluation']}: best_violation")
                check(math.isclose(float(r["regret"]), abs(best - info["optimum"]), rel_tol=0,
                                   abs_tol=1e-12), f"{key} eval {r['evaluation']}: regret")
            check(float(r["propose_seconds"]) >= 0 and float(r["eval_seconds"]) >= 0,
                  f"{key}: negative time")
        check(best is not None, f"{key}: no feasible point in {budget} evaluations")
    return by_key


def check_report(out, problems, methods, extra_phrases=()):
    report = (out / "report.md").read_text(encoding="utf-8")
    for phrase in ["median final regret", "Optuna 3.", "machine:", "repository commit when this report was written:", "command:",
                   "found feasible", "IQR", "median proposal time",
                   "constraint violation of the final best"] + list(extra_phrases):
        check(phrase in report, f"report.md lacks '{phrase}'")
    for p in problems:
        check(f"## {p}" in report, f"report.md has no section for {p}")
        png = out / "plots" / f"{p}.png"
        check(png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no PNG plot {png}")
        check(f"plots/{p}.png" in report, f"report.md does not show the plot of {p}")
    for m in methods:
        check(f"| {m} |" in report, f"report.md has no row for {m}")
    check("## Errors\n\nNone." in report, "report.md lists errors")
    return report


def without_timings(rows, methods):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in rows
            if r["pipeline"] in methods]


def smoke(args):
    suite = args.source_dir / "bench" / "suites" / "smoke.toml"
    first, second = args.work_dir / "first", args.work_dir / "second"
    run_suite(args, suite, first)
    problems = {p["name"]: p for p in json.loads((first / "problems.json").read_text())}
    names = ["branin_constrained", "hartmann6"]
    methods = ["random", "optuna-tpe", "optuna-random"]
    rows = read_rows(first)
    check_rows(rows, {n: problems[n] for n in names}, methods, [1, 2], 20)
    check_report(first, names, methods)
    for p in names:
        check((first / "studies" / "random" / p / "seed1" / "study.db").exists(),
              f"no study directory for random/{p}/seed1")

    # Resumable: nothing reruns, and the CSV is rebuilt byte for byte from what is on disk.
    csv_before = (first / "results.csv").read_bytes()
    log = run_suite(args, suite, first, "--report-only", "--no-plots")
    check("report from 12 finished runs of 12" in log, "--report-only did not see the 12 runs")
    check((first / "results.csv").read_bytes() == csv_before, "--report-only changed results.csv")
    log = run_suite(args, suite, first)
    check(log.count("skipped (finished)") == 12, "a rerun did not skip all 12 finished runs")
    check((first / "results.csv").read_bytes() == csv_before, "a rerun changed results.csv")

    # Merged: a fresh folder with no study on disk reports the runs of an earlier results.csv
    # (here gzip-compressed, as committed reports keep it) byte for byte; a run cut short there
    # is left out.
    cut = [r for r in rows if not (r["pipeline"] == "random" and r["problem"] == "hartmann6"
                                   and r["seed"] == "2" and int(r["evaluation"]) > 10)]
    with gzip.open(args.work_dir / "cut.csv.gz", "wt", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(cut)
    merged = args.work_dir / "merged"
    log = run_suite(args, suite, merged, "--report-only", "--no-plots", "--merge", str(first))
    check("report from 0 finished runs of 12, and 12 runs merged" in log and
          (merged / "results.csv").read_bytes() == csv_before,
          "--merge of a whole results.csv did not give it back byte for byte")
    log = run_suite(args, suite, merged, "--report-only", "--no-plots", "--merge",
                    str(args.work_dir / "cut.csv.gz"))
    check("and 11 runs merged" in log and
          read_rows(merged) == [r for r in cut if r["problem"] != "hartmann6" or
                                r["pipeline"] != "random" or r["seed"] != "2"],
          "--merge took a run that stopped part-way")

    # Split: a runner given --seeds/--problems runs only that subset; the folder it wrote,
    # reported with --merge of the rest, is the whole protocol again (arbo values identical).
    split = args.work_dir / "split"
    log = run_suite(args, suite, split, "--seeds", "2", "--problems", "hartmann6", "--dry-run")
    check(log.count(": to run") == 3 and all(f"{m} / hartmann6 / seed 2: to run" in log
                                             for m in methods),
          "--seeds 2 --problems hartmann6 did not list exactly the 3 runs of seed 2 on hartmann6")
    log = run_suite(args, suite, split, "--seeds", "2", "--no-peers", "--no-plots")
    check("only --seeds 2 = 2 runs" in log and
          not (split / "studies" / "random" / "hartmann6" / "seed1").exists(),
          "--seeds 2 ran other seeds")
    log = run_suite(args, suite, split, "--report-only", "--no-plots", "--merge", str(first))
    check("report from 2 finished runs of 12, and 10 runs merged" in log and
          without_timings(read_rows(split), methods) == without_timings(rows, methods),
          "a protocol split with --seeds did not report whole with --merge")
    log = run_suite(args, suite, split, "--methods", "random,optuna-tpe", "--seeds", "1",
                    "--dry-run")
    check(log.count(": to run") == 4 and "optuna-random" not in log.split("\n", 1)[1],
          "--methods random,optuna-tpe --seeds 1 did not list exactly their 4 runs of seed 1")
    for bad, name in ((["--seeds", "3"], "--seeds 3"), (["--problems", "g7"], "--problems g7"),
                      (["--methods", "leaf_gp"], "--methods leaf_gp")):
        log = run_suite(args, suite, split, *bad, "--dry-run", expect_exit=1)
        check(f"{name}: not a" in log, f"{name} (not in the suite) was not named as an error")

    # Deterministic and resumable arbo pipelines: half the budget, then resumed to the full one.
    run_suite(args, suite, second, "--no-peers", "--budget", "10", "--no-plots")
    # Stopped part-way (10 of 20 evaluations): a report of the finished runs has none of them.
    log = run_suite(args, suite, second, "--no-peers", "--report-only", "--no-plots")
    check("report from 0 finished runs of 4" in log and read_rows(second) == [],
          "--report-only counted unfinished runs")
    log = run_suite(args, suite, second, "--no-peers")
    check("skipped" not in log, "studies stopped at 10 evaluations were not resumed")
    check(without_timings(read_rows(second), ["random"]) == without_timings(rows, ["random"]),
          "arbo pipelines: a resumed rerun gave different values")


def mixed(args):
    suite_dir = args.work_dir
    suite_dir.mkdir(parents=True, exist_ok=True)
    suite = suite_dir / "mixed.toml"
    pipeline = args.source_dir / "configs" / "quickstart.toml"
    suite.write_text(f"""name = "mixed"
budget = 12
initial_design = 4
seeds = 2
problems = ["bench_mixed"]
peers = ["optuna-tpe", "optuna-random"]
[set]
inner_solver.samples = 7
[pipelines]
random.file = "{pipeline}"
random.set.initial_design.method = "random"
""")
    out = suite_dir / "out"
    run_suite(args, suite, out, "--plugin-path", args.test_plugin_dir)
    problems = {p["name"]: p for p in json.loads((out / "problems.json").read_text())}
    methods = ["random", "optuna-tpe", "optuna-random"]
    rows = read_rows(out)
    by_key = check_rows(rows, {"bench_mixed": problems["bench_mixed"]}, methods, [1, 2], 12)
    check_report(out, ["bench_mixed"], methods,
                 ["Known constraints (bench_mixed)", "maximize", "f* = 2",
                  "inner_solver.samples = 7", 'initial_design.method = "random"'])
    for key, rs in by_key.items():
        check(all(r["objective"] != "" for r in rs), f"{key}: failed evaluations")
    study = out / "studies" / "random" / "bench_mixed" / "seed1"
    shown = subprocess.run([args.arbo, "--plugin-path", args.test_plugin_dir, "show", str(study)],
                           stdout=subprocess.PIPE, text=True, check=False).stdout
    check("direction: maximize" in shown, "the runner did not set the problem's direction")
    pipeline_shown = subprocess.run(
        [args.arbo, "--plugin-path", args.test_plugin_dir, "show", str(study), "--pipeline"],
        stdout=subprocess.PIPE, text=True, check=False).stdout
    check("samples = 7" in pipeline_shown, "the suite's [set] did not reach the study:\n"
          + pipeline_shown)
    check('method = "random"' in pipeline_shown,
          "the pipeline's own set did not reach the study:\n" + pipeline_shown)

    # The comparison scripts read the direction from the best-so-far columns: on this maximized
    # problem, the method with the highest mean final best scores 1.
    def script(name, *extra, target=out):
        p = subprocess.run([args.python, str(args.source_dir / "bench" / name), *extra,
                            str(target)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           check=False)
        check(p.returncode == 0, f"{name} exited {p.returncode}:\n{p.stdout}")
        return p.stdout
    table = script("compare.py", "--reference", "random")
    check("| bench_mixed (max) | 12 |" in table, "compare.py did not see a maximized problem:\n"
          + table)
    finals = {m: [max(float(r["best_feasible"]) for r in rs if r["best_feasible"])
                  for (mm, _, _), rs in by_key.items() if mm == m] for m in methods}
    top = max(methods, key=lambda m: sum(finals[m]) / len(finals[m]))
    scores = script("nn_milp/score.py", "--exact", "random", "--heuristic", "optuna-tpe",
                    "--model-free", "optuna-random", "--timing", "4", "--initial", "4",
                    "--at", "6,40")
    row = next((line for line in scores.splitlines() if line.startswith("| bench_mixed (max)")),
               "")
    cells = row.split(" | ")[3:]
    header = next(line for line in scores.splitlines() if line.startswith("| problem | E |"))
    col = header.split(" | ")[3:]
    check(len(cells) == len(col) and "**1**" in cells[[c.strip(" |") for c in col].index(top)],
          f"score.py did not give {top} (highest mean final best) the score 1:\n{scores}")
    check("on 1 of 1 problems" in scores or "on 0 of 1 problems" in scores,
          "score.py printed no exact-against-heuristic count:\n" + scores)
    # --at 6,40: the comparison at 6 evaluations and at the common budget (12); 40 is beyond it.
    budgets = [line.split(" | ")[1] for line in scores.splitlines()
               if line.startswith("| bench_mixed | ") and line.split(" | ")[1].isdigit()]
    check(budgets == ["6", "12"], f"score.py --at 6,40 compared at {budgets}, not [6, 12]:\n"
          + scores)

    # proposal_distance.py reads an export named METHOD__PROBLEM__seedS.csv: one row for the
    # study, its 12 - 4 proposals after the initial design.
    export = suite_dir / "random__bench_mixed__seed1.csv"
    with open(export, "w") as f:
        subprocess.run([args.arbo, "--plugin-path", args.test_plugin_dir, "export", str(study),
                        "--format", "csv"], stdout=f, check=True)
    distances = script("nn_milp/proposal_distance.py", "--initial", "4", target=export)
    check("| bench_mixed | random | " in distances
          and distances.strip().splitlines()[-1].split(" | ")[4] == "8",
          f"proposal_distance.py did not summarize the 8 proposals of the study:\n{distances}")


def suites(args):
    """Every committed suite passes run_suite.py --check (its pipelines, problems, [set] and
    per-pipeline set keys are valid together), and a broken one fails it, naming what is
    wrong."""
    committed = sorted((args.source_dir / "bench" / "suites").glob("*.toml"))
    check(len(committed) > 0, "no suite under bench/suites")
    for suite in committed:
        out = run_suite(args, suite, args.work_dir / suite.stem, "--check")
        check(" 0 failed" in out, f"{suite.name}: --check reported failures")
    bad = args.work_dir / "bad.toml"
    pipeline = (args.source_dir / "configs" / "quickstart.toml").resolve()
    bad.write_text(f'name = "bad"\nbudget = 10\nseeds = [1]\nproblems = ["branin", "nosuch"]\n'
                   f'[set]\ninner_solver.projection_time_limt = 1.0\n'
                   f'[pipelines]\nrandom.file = "{pipeline}"\n'
                   f'random.set.model_solver.plugin = "glpk_bnb"\n')
    out = run_suite(args, bad, args.work_dir / "bad", "--check", expect_exit=1)
    check("nosuch: problem is not loaded" in out, "the unknown problem is not named")
    check("random / branin: arbo check exit" in out and "projection_time_limt" in out,
          "the unknown [set] key is not named")
    check("2 failed" in out, "a broken suite: not 2 failures")
    # A pipeline table must name its file, and only file and set.
    typo = args.work_dir / "typo.toml"
    typo.write_text(f'name = "typo"\nbudget = 10\nseeds = [1]\nproblems = ["branin"]\n'
                    f'[pipelines]\nrandom.fil = "{pipeline}"\n')
    out = run_suite(args, typo, args.work_dir / "typo", "--check", expect_exit=1)
    check("pipelines.random" in out and "fil" in out, "a misspelt pipeline table is not named")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("which", choices=["smoke", "mixed", "suites"])
    ap.add_argument("--arbo", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--source-dir", type=Path, required=True)
    ap.add_argument("--work-dir", type=Path, required=True)
    ap.add_argument("--test-plugin-dir", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    args.work_dir.mkdir(parents=True)
    t0 = time.perf_counter()
    {"smoke": smoke, "mixed": mixed, "suites": suites}[args.which](args)
    print(f"{args.which}: {len(failures)} failure(s), {time.perf_counter() - t0:.1f} s")
    if failures:
        sys.exit(1)
    shutil.rmtree(args.work_dir, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-iteration solver statistics of studies whose solver stores a certificate (LEAF-GP, BARK),
written by bench/run_suite.py: reads `arbo export --format json` of every study under
OUT/studies/PIPELINE/PROBLEM/seedS and prints markdown tables (fit time, model size, solve time,
nodes, gap, status; fraction proven within --gap and median solve time).

  bench/leafgp/solver_stats.py OUT [--arbo build/bin/arbo] [--pipeline leaf_gp] [--csv FILE]
                               [--finished] [--merge CSV] [--gap G] [--block N]

--csv also writes one row per model-based iteration (gzip-compressed when FILE ends in .gz).
--finished skips studies the runner has not marked done (a protocol still running).
--merge CSV (repeatable) adds the rows of an earlier --csv output for the studies that are not on
disk under OUT, so that a protocol whose study directories are gone is still counted whole.
--block N adds, per pipeline and problem, the solve and fit statistics by blocks of N evaluations
(how an iteration's cost grows with the observations, and with the no-good cuts that exclude them).
"""
import argparse
import csv
import gzip
import itertools
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arbo_export import ExportError, export_study  # noqa: E402


def quantile(v, p):
    """The p-quantile of v, linear between order statistics (numpy's default); nan if empty."""
    v = sorted(v)
    if not v:
        return float("nan")
    pos = p * (len(v) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def quantiles(v):
    return quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75)


def parse_cell(text):
    """A CSV cell of --csv back to what the export gave: "" stays "" (no value), numbers
    become int or float, anything else (the status) stays a string."""
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--arbo", default="build/bin/arbo")
    ap.add_argument("--pipeline", action="append")
    ap.add_argument("--csv")
    ap.add_argument("--finished", action="store_true", help="only studies marked done")
    ap.add_argument("--gap", type=float, default=1e-4,
                    help="the relative gap a solve must reach to count as proven (default 1e-4, "
                         "LEAF-GP's; 0.1 for BARK's 10 %% target)")
    ap.add_argument("--merge", action="append", metavar="CSV",
                    help="an earlier --csv output: its studies that are not on disk under OUT "
                         "join the tables (and --csv); repeatable")
    ap.add_argument("--block", type=int, default=0, metavar="N",
                    help="also the statistics by blocks of N evaluations")
    args = ap.parse_args()
    if args.block < 0:
        raise SystemExit(f"solver_stats.py: --block must be at least 1 (0: no blocks), not {args.block}")
    fields = ["pipeline", "problem", "seed", "evaluation", "fit_seconds", "solve_seconds",
              "status", "nodes", "lp_iterations", "gap", "objective", "best_bound", "variables",
              "binaries", "integers", "linear_rows", "quadratic_rows"]
    table = []  # one row per model-based iteration, `fields`; "" where the solver gave none
    root = Path(args.out) / "studies"
    pipelines = args.pipeline or sorted(p.name for p in root.iterdir() if p.is_dir())
    on_disk = set()
    for pipe in pipelines:
        for prob in sorted(p for p in (root / pipe).iterdir() if p.is_dir()):
            for study in sorted(prob.glob("seed*")):
                if not (study / "study.db").exists():
                    continue
                if args.finished:
                    status = study.with_name(study.name + ".status.json")
                    if not status.exists() or json.loads(status.read_text()).get("state") != "done":
                        continue
                try:
                    observations = export_study(args.arbo, study)
                except ExportError:
                    continue
                on_disk.add((pipe, prob.name, study.name[4:]))
                for o in observations:
                    if "solver" in o:
                        table.append(dict({k: o["solver"].get(k, "") for k in fields[4:]},
                                          pipeline=pipe, problem=prob.name,
                                          seed=study.name[4:], evaluation=o["id"]))
    for path in args.merge or []:
        # An earlier --csv: its studies that are not on disk here (a protocol whose study
        # directories are gone, or that went on elsewhere).
        with (gzip.open if path.endswith(".gz") else open)(path, "rt", newline="") as f:
            for r in csv.DictReader(f):
                if (not args.pipeline or r["pipeline"] in args.pipeline) and \
                        (r["pipeline"], r["problem"], r["seed"]) not in on_disk:
                    table.append({k: parse_cell(r[k]) if k in fields[4:] else r[k]
                                  for k in fields})
    table.sort(key=lambda t: (t["pipeline"], t["problem"], int(t["seed"]), int(t["evaluation"])))
    rows, every = [], []  # (pipeline, problem, seeds, stats) per problem; (pipeline, stats)
    for (pipe, prob), group in itertools.groupby(table, lambda t: (t["pipeline"], t["problem"])):
        group = list(group)
        stats = [{k: t[k] for k in fields[4:] if t[k] != ""} for t in group]
        rows.append((pipe, prob, len({t["seed"] for t in group}), stats))
        every += [(pipe, st) for st in stats]
    pipelines = list(dict.fromkeys(pipe for pipe, *_ in rows))
    if args.csv:
        opener = gzip.open if args.csv.endswith(".gz") else open
        with opener(args.csv, "wt", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(table)
    print(f"| pipeline | problem | seeds | iterations | proven (optimal, gap <= {args.gap:g}) | "
          "solve s median [IQR] | solve s max | fit s median | nodes median [max] | "
          "binaries median [max] | linear rows median [max] | final gap of unproven, median |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for pipe, prob, seeds, st in rows:
        has_cert = [s for s in st if "status" in s]
        proven = [s for s in has_cert if s["status"] == "optimal" and
                  s.get("gap") is not None and s["gap"] <= args.gap]
        solve = [s["solve_seconds"] for s in st]
        fit = [s["fit_seconds"] for s in st]
        q1, med, q3 = quantiles(solve)
        if has_cert:
            nodes = [s["nodes"] for s in has_cert]
            bins = [s.get("binaries", 0) for s in has_cert]
            lrows = [s.get("linear_rows", 0) for s in has_cert]
            unproven = [s["gap"] if s.get("gap") is not None else float("inf")
                        for s in has_cert if s not in proven]
            print(f"| {pipe} | {prob} | {seeds} | {len(st)} | "
                  f"{len(proven)}/{len(has_cert)} ({100 * len(proven) / len(has_cert):.0f} %) | "
                  f"{med:.2f} [{q1:.2f}, {q3:.2f}] | {max(solve):.2f} | "
                  f"{statistics.median(fit):.3f} | {statistics.median(nodes):.0f} "
                  f"[{max(nodes)}] | {statistics.median(bins):.0f} [{max(bins)}] | "
                  f"{statistics.median(lrows):.0f} [{max(lrows)}] | "
                  f"{(statistics.median(unproven) if unproven else float('nan')):.3g} |")
        else:
            print(f"| {pipe} | {prob} | {seeds} | {len(st)} | (no certificate) | "
                  f"{med:.3f} [{q1:.3f}, {q3:.3f}] | {max(solve):.3f} | "
                  f"{statistics.median(fit):.3f} | - | - | - | - |")
    for pipe in pipelines:
        st = [s for p, s in every if p == pipe and "status" in s]
        if not st:
            continue
        proven = [s for s in st if s["status"] == "optimal" and s.get("gap") is not None
                  and s["gap"] <= args.gap]
        solve = [s["solve_seconds"] for s in st]
        print(f"\n{pipe}, all problems: {len(proven)}/{len(st)} iterations proven within gap {args.gap:g} "
              f"({100 * len(proven) / len(st):.1f} %), median solve time "
              f"{statistics.median(solve):.2f} s, 95th percentile {quantile(solve, 0.95):.2f} s, "
              f"status counts: " + ", ".join(
                  f"{k} {sum(1 for s in st if s['status'] == k)}"
                  for k in sorted({s['status'] for s in st})))
    if args.block:
        print_blocks(table, args.block, args.gap)


def print_blocks(table, block, gap):
    """Per pipeline and problem, the solves by blocks of `block` evaluations (over every seed)."""
    print(f"\n| pipeline | problem | evaluations | solves | proven (optimal, gap <= {gap:g}) | "
          "solve s median | 95th pct | max | nodes median | linear rows median | fit s median |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    key = lambda t: (t["pipeline"], t["problem"], (int(t["evaluation"]) - 1) // block)
    for (pipe, prob, b), group in itertools.groupby(sorted(table, key=key), key):
        st = [t for t in group if t["status"] != ""]
        if not st:
            continue
        proven = sum(1 for t in st if t["status"] == "optimal" and t["gap"] != ""
                     and t["gap"] <= gap)
        solve = [t["solve_seconds"] for t in st]
        print(f"| {pipe} | {prob} | {b * block + 1}-{(b + 1) * block} | {len(st)} | "
              f"{proven}/{len(st)} | {statistics.median(solve):.2f} | "
              f"{quantile(solve, 0.95):.2f} | {max(solve):.2f} | "
              f"{statistics.median(t['nodes'] for t in st):.0f} | "
              f"{statistics.median(t['linear_rows'] for t in st):.0f} | "
              f"{statistics.median(t['fit_seconds'] for t in st):.2f} |")


if __name__ == "__main__":
    main()

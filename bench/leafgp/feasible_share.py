#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per problem and pipeline of one or more bench/run_suite.py outputs: how many seeds found a
feasible point, the median final regret (best value where f* is unknown), and the share of the
model's proposals (the evaluations after the initial design) that were feasible, pooled over
seeds. The initial design sizes come from the suite file ([initial_design] default and
per-problem entries, or a plain number). A study found in several outputs is taken from the
last one given.

  bench/leafgp/feasible_share.py --suite SUITE.toml OUT1 [OUT2 ...]
"""
import argparse
import csv
import gzip
import math
import statistics
import tomllib
from collections import defaultdict
from pathlib import Path


def rows_of(out):
    for name in ("results.csv", "results.csv.gz"):
        path = Path(out) / name
        if path.exists():
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rt", newline="") as f:
                return list(csv.DictReader(f))
    raise SystemExit(f"feasible_share.py: no results.csv(.gz) in {out}")


def design_sizes(suite):
    with open(suite, "rb") as f:
        design = tomllib.load(f).get("initial_design", 0)
    if isinstance(design, int):
        return defaultdict(lambda: design)
    sizes = defaultdict(lambda: int(design.get("default", 0)))
    for key, value in design.items():
        if key != "default":
            sizes[key] = int(value)
    return sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", required=True, help="the suite file (for the design sizes)")
    ap.add_argument("outputs", nargs="+")
    args = ap.parse_args()
    design = design_sizes(args.suite)
    studies = {}
    for out in args.outputs:
        per = defaultdict(list)
        for r in rows_of(out):
            per[(r["problem"], r["pipeline"], r["seed"])].append(r)
        studies.update(per)
    table = defaultdict(lambda: {"seeds": 0, "found": 0, "finals": [], "model": 0, "feasible": 0})
    for (problem, pipeline, _), rows in studies.items():
        rows.sort(key=lambda r: int(r["evaluation"]))
        t = table[(problem, pipeline)]
        t["seeds"] += 1
        last = rows[-1]
        final = last["regret"] or last["best_feasible"]
        t["found"] += final != ""
        t["finals"].append(float(final) if final != "" else math.inf)
        for r in rows:
            if int(r["evaluation"]) > design[problem]:
                t["model"] += 1
                t["feasible"] += r["feasible"] in ("1", "true", "True")
    pipelines = sorted({p for _, p in table})
    print("| problem | " + " | ".join(pipelines) + " |")
    print("|---|" + "---|" * len(pipelines))
    for problem in sorted({p for p, _ in table}):
        cells = []
        for pipeline in pipelines:
            t = table.get((problem, pipeline))
            if t is None:
                cells.append("-")
                continue
            med = statistics.median(t["finals"])
            med_s = "no feasible" if math.isinf(med) else f"{med:.4g}"
            share = f"{100 * t['feasible'] / t['model']:.0f} %" if t["model"] else "-"
            cells.append(f"{t['found']}/{t['seeds']} feasible; {med_s}; {share} feasible proposals")
        print(f"| {problem} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

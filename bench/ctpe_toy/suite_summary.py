#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summary of a c-TPE suite run (bench/suites/ctpe.toml): c-TPE against every other method.

Reads the runner's results.csv (or .csv.gz) and prints, per problem, the median final regret
of each method (a seed without a feasible point counts as +inf) and, for c-TPE against each
other method, win / loss / tie by a two-sided Mann-Whitney U test at p < 0.05 on the final
regret (at `--at` evaluations, default the last), plus the totals.

Usage: /usr/bin/python3 bench/ctpe_toy/suite_summary.py RESULTS.csv[.gz] [--at 200]
       [--ref ctpe]
"""

import argparse
import collections
import csv
import gzip
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from debian_python import require_modules  # noqa: E402

require_modules(["scipy"], "suite_summary.py")
from scipy.stats import mannwhitneyu  # noqa: E402


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        yield from csv.DictReader(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--at", type=int, default=0, help="evaluation to compare at (0 = last)")
    ap.add_argument("--ref", default="ctpe")
    args = ap.parse_args()
    # (problem, method, seed) -> regret at the chosen evaluation
    final = {}
    last_eval = collections.defaultdict(int)
    for row in read(args.results):
        key = (row["problem"], row["pipeline"], int(row["seed"]))
        e = int(row["evaluation"])
        if args.at and e > args.at:
            continue
        if e >= last_eval[key]:
            last_eval[key] = e
            final[key] = float(row["regret"]) if row["regret"] not in ("", None) else math.inf
    problems = sorted({k[0] for k in final})
    methods = sorted({k[1] for k in final}, key=lambda m: (m != args.ref, m))
    others = [m for m in methods if m != args.ref]
    print("| problem | " + " | ".join(methods) + " |")
    print("|---|" + "---|" * len(methods))
    totals = {m: [0, 0, 0] for m in others}
    marks = {}
    for p in problems:
        cells = []
        ref = [v for (pp, m, _), v in final.items() if pp == p and m == args.ref]
        for m in methods:
            vals = [v for (pp, mm, _), v in final.items() if pp == p and mm == m]
            med = statistics.median(vals) if vals else math.nan
            cell = "inf" if math.isinf(med) else f"{med:.3g}"
            if m != args.ref and vals and ref:
                if sorted(vals) == sorted(ref):
                    res = 2
                else:
                    stat = mannwhitneyu(ref, vals, alternative="two-sided")
                    if stat.pvalue < 0.05:
                        res = 0 if statistics.median(ref) < med or (
                            statistics.median(ref) == med and stat.statistic < len(ref) * len(vals) / 2) else 1
                    else:
                        res = 2
                totals[m][res] += 1
                cell += {0: " (-)", 1: " (+)", 2: ""}[res]
            cells.append(cell)
        print(f"| {p} | " + " | ".join(cells) + " |")
    print()
    print(f"Median final regret over seeds (inf: no feasible point in half the seeds or more). "
          f"(-): {args.ref} significantly better than this method, (+): significantly worse "
          f"(Mann-Whitney U, p < 0.05).")
    print()
    print(f"| {args.ref} vs | wins | losses | ties |")
    print("|---|---|---|---|")
    for m in others:
        w, l, t = totals[m]
        print(f"| {m} | {w} | {l} | {t} |")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Side-by-side table of several bench/run_suite.py outputs (results.csv): per problem and
method, the median (and IQR) over seeds of the best feasible value after E evaluations, where E
is the smallest budget any method of that problem reached in every one of its seeds; then, per
problem, the one-sided Mann-Whitney p-value of "the reference method's values are lower"
(minimized problems) against each other method. Reads results.csv or results.csv.gz. A study
(problem, method, seed) found in several outputs is taken from the last one given, so a rerun
replaces the study it reruns.

  bench/compare.py [--reference METHOD] OUT1 OUT2 ...

--reference names the method the p-values test (default leaf_gp, the LEAF-GP suites' name);
it is listed first, then the LEAF-GP suites' usual order, then the rest alphabetically.
"""
import argparse
import csv
import gzip
import math
import os
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from debian_python import require_modules  # noqa: E402

require_modules(["scipy"], "compare.py")


def q(v, p):
    v = sorted(v)
    pos = p * (len(v) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(v) - 1)
    a, b = v[lo], v[hi]
    if math.isinf(a) or math.isinf(b):
        return a if pos == lo else b
    return a + (pos - lo) * (b - a)


def main():
    ap = argparse.ArgumentParser(description="Side-by-side table of run_suite.py outputs.")
    ap.add_argument("--reference", default="leaf_gp",
                    help="the method whose values the one-sided tests compare (default leaf_gp)")
    ap.add_argument("outputs", nargs="+", help="run_suite.py output folders")
    args = ap.parse_args()
    ref = args.reference
    runs = defaultdict(dict)  # (problem, method) -> seed -> [(evaluation, best, regret)]
    source = {}  # (problem, method, seed) -> output it is taken from
    for out in args.outputs:
        path = f"{out}/results.csv"
        opener = open if os.path.exists(path) else gzip.open
        with opener(path if os.path.exists(path) else path + ".gz", "rt") as f:
            for r in csv.DictReader(f):
                key = (r["problem"], r["pipeline"])
                best = float(r["best_feasible"]) if r["best_feasible"] not in ("", "nan") else math.inf
                if source.get(key + (r["seed"],)) != out:
                    source[key + (r["seed"],)] = out
                    runs[key][r["seed"]] = []
                runs[key][r["seed"]].append((int(r["evaluation"]), best))
    problems = sorted({p for p, _ in runs})
    finals_of = {}
    order = [ref] + [m for m in ["leaf_gp", "leaf_gp_rnd", "random", "mondrian", "optuna-tpe"]
                     if m != ref]
    methods = [m for m in order if any(k[1] == m for k in runs)]
    methods += sorted({m for _, m in runs} - set(methods))
    print("| problem | E | " + " | ".join(methods) + " |")
    print("|---|---|" + "---|" * len(methods))
    for p in problems:
        ms = [m for m in methods if (p, m) in runs]
        E = min(max(e for e, _ in rows) for m in ms for rows in runs[(p, m)].values())
        # Per method, each seed's best value within the first E evaluations.
        finals_of[p] = {m: [min([b for e, b in rows if e <= E] or [math.inf])
                            for rows in runs[(p, m)].values()] for m in ms}
        cells = []
        for m in methods:
            finals = finals_of[p].get(m)
            if finals is None:
                cells.append("-")
                continue
            med = q(finals, 0.5)
            cells.append(f"{med:.4g} [{q(finals, 0.25):.4g}, {q(finals, 0.75):.4g}] (n={len(finals)})")
        print(f"| {p} | {E} | " + " | ".join(cells) + " |")
    if not any(ref in f for f in finals_of.values()):
        return
    from scipy.stats import mannwhitneyu
    print()
    print(f"One-sided Mann-Whitney p of \"{ref} better\" (lower best value; no feasible point "
          "counts as +inf):")
    print()
    others = [m for m in methods if m != ref]
    print("| problem | " + " | ".join(others) + " |")
    print("|---|" + "---|" * len(others))
    for p, f in finals_of.items():
        if ref not in f:
            continue
        cells = []
        for m in others:
            if m not in f:
                cells.append("-")
                continue
            # inf is not a number to rank for scipy: map it above every finite value.
            top = max([v for v in f[ref] + f[m] if math.isfinite(v)] or [0.0])
            a = [v if math.isfinite(v) else abs(top) * 10 + 1 for v in f[ref]]
            b = [v if math.isfinite(v) else abs(top) * 10 + 1 for v in f[m]]
            cells.append(f"{mannwhitneyu(a, b, alternative='less').pvalue:.3g}")
        print(f"| {p} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

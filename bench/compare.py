#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Side-by-side table of several bench/run_suite.py outputs (results.csv): per problem and
method, the median (and IQR) over seeds of the best feasible value after E evaluations, where E
is the smallest budget any method of that problem reached in every one of its seeds; then, per
problem, the one-sided Mann-Whitney p-value of "the reference method's values are better"
against each other method. Reads results.csv or results.csv.gz. A study (problem, method,
seed) found in several outputs is taken from the last one given, so a rerun replaces the study
it reruns.

"Better" is lower on minimized problems and higher on maximized ones. results.csv does not
name the direction; it is read from the best-so-far columns themselves (they only decrease when
minimizing, only increase when maximizing); a problem whose best values never move is taken as
minimized, which changes nothing since every value ties.

  bench/compare.py [--reference METHOD] OUT1 OUT2 ...

--reference names the method the p-values test (default leaf_gp, the LEAF-GP suites' name);
it is listed first, then the LEAF-GP suites' usual order, then the rest alphabetically.

The loading and the tests are also used by other bench scripts (bench/nn_milp/score.py).
"""
import argparse
import csv
import gzip
import math
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from debian_python import require_modules  # noqa: E402


def q(v, p):
    v = sorted(v)
    pos = p * (len(v) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(v) - 1)
    a, b = v[lo], v[hi]
    if math.isinf(a) or math.isinf(b):
        return a if pos == lo else b
    return a + (pos - lo) * (b - a)


class Runs:
    """The studies of several run_suite outputs. `rows[(problem, method)][seed]` is the list of
    (evaluation, best feasible so far, propose seconds) of one study, in evaluation order; a
    study without a feasible point so far has best = worst (+inf minimized, -inf maximized).
    `sign[problem]` is +1 when the problem is minimized, -1 when maximized."""

    def __init__(self, outputs):
        raw = defaultdict(dict)
        source = {}
        for out in outputs:
            path = f"{out}/results.csv"
            if not os.path.exists(path) and not os.path.exists(path + ".gz"):
                raise SystemExit(f"{out}: no results.csv or results.csv.gz there")
            opener = open if os.path.exists(path) else gzip.open
            with opener(path if os.path.exists(path) else path + ".gz", "rt") as f:
                for r in csv.DictReader(f):
                    key = (r["problem"], r["pipeline"])
                    if source.get(key + (r["seed"],)) != out:
                        source[key + (r["seed"],)] = out
                        raw[key][r["seed"]] = []
                    best = float(r["best_feasible"]) if r["best_feasible"] not in ("", "nan") \
                        else None
                    secs = float(r["propose_seconds"]) if r.get("propose_seconds") else 0.0
                    raw[key][r["seed"]].append((int(r["evaluation"]), best, secs))
        self.sign = {}
        for (p, _), seeds in raw.items():
            for rows in seeds.values():
                vals = [b for _, b, _ in rows if b is not None]
                up = any(b > a for a, b in zip(vals, vals[1:]))
                down = any(b < a for a, b in zip(vals, vals[1:]))
                if up and down:
                    raise SystemExit(f"{p}: a best-so-far column both rises and falls")
                if up or down:
                    s = -1 if up else 1
                    if self.sign.setdefault(p, s) != s:
                        raise SystemExit(f"{p}: studies disagree on the direction")
        self.rows = {}
        for (p, m), seeds in raw.items():
            worst = math.inf * self.sign.setdefault(p, 1)
            self.rows[(p, m)] = {
                s: sorted((e, worst if b is None else b, t) for e, b, t in rows)
                for s, rows in seeds.items()}

    def problems(self):
        return sorted({p for p, _ in self.rows})

    def methods(self, problem=None):
        return sorted({m for p, m in self.rows if problem in (None, p)})

    def common_budget(self, problem, methods):
        """The largest E that every study of `methods` on `problem` reached."""
        return min(max(e for e, _, _ in rows) for m in methods
                   for rows in self.rows[(problem, m)].values())

    def finals(self, problem, methods, budget):
        """Per method, each seed's best value within the first `budget` evaluations."""
        worst = math.inf * self.sign[problem]
        out = {}
        for m in methods:
            vals = []
            for rows in self.rows[(problem, m)].values():
                within = [b for e, b, _ in rows if e <= budget]
                vals.append(within[-1] if within else worst)
            out[m] = vals
        return out

    def better_p(self, problem, a, b, alternative="better"):
        """Mann-Whitney p-value of "values `a` are better than `b`" on `problem` (one-sided),
        or of "they differ" with alternative="two-sided". No feasible point is worse than every
        feasible value."""
        require_modules(["scipy"], "compare.py")
        from scipy.stats import mannwhitneyu
        s = self.sign[problem]
        finite = [abs(v) for v in a + b if math.isfinite(v)]
        top = max(finite or [0.0]) * 10 + 1
        # Minimized scale: lower is better; inf (no feasible point) ranks above every value.
        aa = [s * v if math.isfinite(v) else top for v in a]
        bb = [s * v if math.isfinite(v) else top for v in b]
        alt = "less" if alternative == "better" else alternative
        return mannwhitneyu(aa, bb, alternative=alt).pvalue


def main():
    ap = argparse.ArgumentParser(description="Side-by-side table of run_suite.py outputs.")
    ap.add_argument("--reference", default="leaf_gp",
                    help="the method whose values the one-sided tests compare (default leaf_gp)")
    ap.add_argument("outputs", nargs="+", help="run_suite.py output folders")
    args = ap.parse_args()
    ref = args.reference
    runs = Runs(args.outputs)
    order = [ref] + [m for m in ["leaf_gp", "leaf_gp_rnd", "random", "mondrian", "optuna-tpe"]
                     if m != ref]
    all_methods = runs.methods()
    methods = [m for m in order if m in all_methods]
    methods += [m for m in all_methods if m not in methods]
    print("| problem | E | " + " | ".join(methods) + " |")
    print("|---|---|" + "---|" * len(methods))
    finals_of = {}
    for p in runs.problems():
        ms = [m for m in methods if (p, m) in runs.rows]
        E = runs.common_budget(p, ms)
        finals_of[p] = runs.finals(p, ms, E)
        cells = []
        for m in methods:
            finals = finals_of[p].get(m)
            if finals is None:
                cells.append("-")
                continue
            cells.append(f"{q(finals, 0.5):.4g} [{q(finals, 0.25):.4g}, {q(finals, 0.75):.4g}] "
                         f"(n={len(finals)})")
        direction = "max" if runs.sign[p] < 0 else "min"
        print(f"| {p} ({direction}) | {E} | " + " | ".join(cells) + " |")
    if not any(ref in f for f in finals_of.values()):
        return
    print()
    print(f"One-sided Mann-Whitney p of \"{ref} better\" (lower best value when minimizing, "
          "higher when maximizing; no feasible point is worse than any value):")
    print()
    others = [m for m in methods if m != ref]
    print("| problem | " + " | ".join(others) + " |")
    print("|---|" + "---|" * len(others))
    for p, f in finals_of.items():
        if ref not in f:
            continue
        cells = [f"{runs.better_p(p, f[ref], f[m]):.3g}" if m in f else "-" for m in others]
        print(f"| {p} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

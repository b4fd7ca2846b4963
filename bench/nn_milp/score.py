#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""NN+MILP's report tables (issue 26) from bench/run_suite.py outputs of
bench/suites/nn_milp.toml (or any suite with the same method names):

1. per problem, the mean over seeds of each method's final best value, and the paper's
   normalized score (Papalexopoulos et al. 2022, Sec. 5): score_a = (R_a - worst) / (best -
   worst) over the methods' means R, so the best method scores 1 and the worst 0; the same for
   the area under the best-so-far curve (AUC). Both over the first E evaluations, E being the
   budget every study of the problem reached; the AUC includes the shared initial points (the
   paper does not say; they are the same for every arbo pipeline of a seed, so they shift every
   method's area alike); a study's AUC is the mean of its best-so-far values, with a study that
   has no feasible point yet counting as its worst later value.
2. the paper's central comparison, the exact inner solve against the heuristic one on the same
   surrogate (--exact against --heuristic): per problem, both means and the one-sided
   Mann-Whitney p-values of "exact better" and of "heuristic better", and the count of
   problems whose exact mean is at least as good (the paper: 22 of 30 unconstrained problems);
   with --at, the same at smaller budgets too (the paper's Ising claim is per n: 100, 200, 400).
3. with --model-free, each model-based method against it (the paper's "both >> ConEvo" on
   Ising), one-sided.
4. with --timing, the median seconds per proposal (propose_seconds: fit and inner solve) by
   blocks of evaluations, per problem and method, to show how an iteration's cost grows with N.

  bench/nn_milp/score.py OUT [OUT ...] [--exact nn-milp] [--heuristic nn-regevo]
                         [--model-free regevo] [--methods A,B,...] [--timing 100]
                         [--initial 50] [--at 100,200]

A study found in several outputs is taken from the last one given (bench/compare.py's rule).
Better is lower on minimized problems and higher on maximized ones (RandomMLP and Ising are
maximized).
"""
import argparse
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from compare import Runs  # noqa: E402


def normalized(means, sign):
    """(R - worst) / (best - worst) per method, over the methods with a finite mean; a method
    with no feasible point in some seed (an infinite mean) scores 0; 1 for all when all tie."""
    finite = [sign * v for v in means.values() if math.isfinite(v)]  # minimized scale
    if not finite:
        return {m: 0.0 for m in means}
    best, worst = min(finite), max(finite)
    return {m: 0.0 if not math.isfinite(v) else 1.0 if worst == best
            else (worst - sign * v) / (worst - best) for m, v in means.items()}


def auc(rows, budget, sign):
    """Mean best-so-far over evaluations 1..budget; before the first feasible point a study
    counts its first feasible value (the worst it reports)."""
    vals = [b for e, b, _ in rows if e <= budget]
    finite = [v for v in vals if math.isfinite(v)]
    if not finite:
        return math.inf * sign
    first = finite[0]
    return statistics.fmean(v if math.isfinite(v) else first for v in vals)


def fmt(v):
    if v is None:
        return "-"
    if not math.isfinite(v):
        return "no feasible"
    return f"{v:.4g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outputs", nargs="+", help="run_suite.py output folders")
    ap.add_argument("--exact", default="nn-milp", help="the exact-solve method (nn-milp)")
    ap.add_argument("--heuristic", default="nn-regevo",
                    help="the same surrogate with a heuristic inner solver (nn-regevo)")
    ap.add_argument("--model-free", default="regevo",
                    help="the model-free baseline of table 3 (regevo); '' for none")
    ap.add_argument("--methods", default="",
                    help="comma-separated methods to keep (default all): the normalized score "
                    "depends on which methods it spans")
    ap.add_argument("--initial", type=int, default=50,
                    help="shared initial points, left out of the timing table (50)")
    ap.add_argument("--timing", type=int, default=0, metavar="BLOCK",
                    help="also the median propose seconds per BLOCK evaluations")
    ap.add_argument("--at", default="", metavar="E,E,...",
                    help="also compare --exact and --heuristic at these numbers of evaluations "
                    "(each below a problem's common budget; larger ones are left out)")
    args = ap.parse_args()
    try:
        at = sorted({int(e) for e in args.at.split(",") if e.strip()})
    except ValueError:
        raise SystemExit(f"score.py: --at: not a comma-separated list of integers: {args.at!r}")
    if any(e < 1 for e in at):
        raise SystemExit(f"score.py: --at: evaluation counts start at 1: {args.at!r}")
    runs = Runs(args.outputs)
    methods = runs.methods()
    if args.methods:
        keep = args.methods.split(",")
        unknown = [m for m in keep if m not in methods]
        if unknown:
            raise SystemExit(f"score.py: --methods: {', '.join(unknown)} not in the outputs "
                             f"({', '.join(methods)})")
        methods = keep
    first = [m for m in (args.exact, args.heuristic, args.model_free) if m in methods]
    methods = first + [m for m in methods if m not in first]

    print("## Final best value (mean over seeds) and normalized score; normalized AUC\n")
    print("| problem | E | seeds | " + " | ".join(methods) + " |")
    print("|---|---|---|" + "---|" * len(methods))
    finals_of, budgets = {}, {}
    score_sum = {m: [] for m in methods}
    auc_sum = {m: [] for m in methods}
    for p in runs.problems():
        ms = [m for m in methods if (p, m) in runs.rows]
        E = runs.common_budget(p, ms)
        budgets[p] = E
        finals_of[p] = runs.finals(p, ms, E)
        sign = runs.sign[p]
        means = {m: statistics.fmean(v) for m, v in finals_of[p].items()}
        aucs = {m: statistics.fmean(auc(r, E, sign) for r in runs.rows[(p, m)].values())
                for m in ms}
        score, ascore = normalized(means, sign), normalized(aucs, sign)
        cells = []
        for m in methods:
            if m not in means:
                cells.append("-")
                continue
            cells.append(f"{fmt(means[m])}; **{fmt(score[m])}**; {fmt(ascore[m])}")
            score_sum[m].append(score[m])
            auc_sum[m].append(ascore[m])
        n = sorted({len(v) for v in finals_of[p].values()})
        direction = "max" if sign < 0 else "min"
        print(f"| {p} ({direction}) | {E} | {'/'.join(map(str, n))} | " + " | ".join(cells) + " |")
    print("| mean score; mean AUC score | | | " + " | ".join(
        f"{fmt(statistics.fmean(score_sum[m]))}; {fmt(statistics.fmean(auc_sum[m]))}"
        if score_sum[m] else "-" for m in methods) + " |")
    print("\nEach cell: mean final best; **normalized score**; normalized AUC score.")

    ex, he = args.exact, args.heuristic
    pairs = [p for p in runs.problems() if ex in finals_of[p] and he in finals_of[p]]
    if pairs:
        print(f"\n## {ex} against {he} (the same surrogate, exact against heuristic inner "
              "solve)\n")
        print(f"| problem | evaluations | {ex} mean | {he} mean | p({ex} better) | "
              f"p({he} better) |")
        print("|---|---|---|---|---|---|")
        wins = 0
        for p in pairs:
            for E in [e for e in at if e < budgets[p]] + [budgets[p]]:
                f = finals_of[p] if E == budgets[p] else runs.finals(p, [ex, he], E)
                a, b = f[ex], f[he]
                sign = runs.sign[p]
                if E == budgets[p]:
                    wins += sign * statistics.fmean(a) <= sign * statistics.fmean(b)
                print(f"| {p} | {E} | {fmt(statistics.fmean(a))} | {fmt(statistics.fmean(b))} | "
                      f"{runs.better_p(p, a, b):.3g} | {runs.better_p(p, b, a):.3g} |")
        print(f"\n{ex}'s mean (at each problem's common budget) is at least as good as {he}'s on "
              f"{wins} of {len(pairs)} problems (the paper: 22 of 30 unconstrained problems).")

    mf = args.model_free
    others = [m for m in methods if m != mf and m in (ex, he)]
    if mf and any(mf in f for f in finals_of.values()) and others:
        print(f"\n## Model-based against {mf} (one-sided p of \"better than {mf}\")\n")
        print("| problem | " + " | ".join(others) + " |")
        print("|---|" + "---|" * len(others))
        for p, f in finals_of.items():
            if mf not in f:
                continue
            cells = [f"{runs.better_p(p, f[m], f[mf]):.3g}" if m in f else "-" for m in others]
            print(f"| {p} | " + " | ".join(cells) + " |")

    if args.timing > 0:
        block = args.timing
        print(f"\n## Median seconds per proposal (fit and inner solve), by blocks of {block} "
              "evaluations (model proposals only: the shared initial points cost nothing)\n")
        last = max(max(e for e, _, _ in rows) for seeds in runs.rows.values()
                   for rows in seeds.values())
        edges = list(range(0, last, block))
        print("| problem | method | " + " | ".join(f"{a + 1}-{a + block}" for a in edges) + " |")
        print("|---|---|" + "---|" * len(edges))
        for p in runs.problems():
            for m in methods:
                if (p, m) not in runs.rows:
                    continue
                cells = []
                for a in edges:
                    secs = [t for rows in runs.rows[(p, m)].values() for e, _, t in rows
                            if a < e <= a + block and e > args.initial]
                    cells.append(f"{statistics.median(secs):.3g}" if secs else "-")
                print(f"| {p} | {m} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

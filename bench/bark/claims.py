#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The BARK paper's qualitative claims (Boyne et al., Sec. 7.2-7.3, Fig. 5 and 6) that the
problems of bench/suites/bark_reduced.toml can test, each as a one-sided Mann-Whitney test on
the final best values (bench/compare.py's budget and tests), with a verdict:

- "reproduced": the claimed direction has p < ALPHA;
- "opposite": the other direction has p < ALPHA;
- "tie": neither direction has p < ALPHA (the lower median is named, nothing more).

A claim of being "competitive" is reproduced when the rival is not better at p < ALPHA.
Every row names the seeds of both methods and, with --build, the builds that ran them.

  bench/bark/claims.py OUT [OUT ...] [--gp gp-ucb-alt-onehot] [--alpha 0.05]
                       [--build METHOD=COMMIT ...] [--default-build COMMIT]

--gp names the method standing for the paper's GP-RBF.
"""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from compare import Runs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outputs", nargs="+", help="run_suite.py output folders")
    ap.add_argument("--gp", default="gp-ucb-alt-onehot",
                    help="the method standing for the paper's GP-RBF")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--build", action="append", default=[], metavar="METHOD=COMMIT",
                    help="the build that ran a method's studies; repeatable")
    ap.add_argument("--default-build", default="?",
                    help="the build of every method --build does not name")
    args = ap.parse_args()
    runs = Runs(args.outputs)
    gp, alpha = args.gp, args.alpha
    builds = dict(b.split("=", 1) for b in args.build)
    finals = {}
    for p in runs.problems():
        ms = runs.methods(p)
        finals[p] = runs.finals(p, ms, runs.common_budget(p, ms))

    def median(p, m):
        return statistics.median(finals[p][m])

    def verdict(p, a, b):
        """(p of "a better than b", p of "b better than a", verdict for "a better")."""
        pa = runs.better_p(p, finals[p][a], finals[p][b])
        pb = runs.better_p(p, finals[p][b], finals[p][a])
        if pa < alpha:
            return pa, pb, "reproduced"
        if pb < alpha:
            return pa, pb, "opposite"
        lower = runs.sign[p] * median(p, a) < runs.sign[p] * median(p, b)
        return pa, pb, f"tie ({a if lower else b} has the lower median)"

    rows = []
    for p in ("tree_function", "tree_function_cat"):
        if p not in finals or "bark" not in finals[p]:
            continue
        others = [m for m in finals[p] if m != "bark"]
        tests = {m: verdict(p, "bark", m) for m in others}
        worst = max(others, key=lambda m: tests[m][0])
        beaten = [m for m in others if tests[m][2] == "reproduced"]
        rows.append((f"BARK strongest on {p} (Fig. 5)", p,
                     f"bark better than each of {len(others)} methods",
                     f"max {tests[worst][0]:.3g} ({worst})",
                     "reproduced" if len(beaten) == len(others) else
                     f"partly: better than {len(beaten)} of {len(others)} at p < {alpha}; "
                     f"not {', '.join(m for m in others if m not in beaten)}",
                     ["bark"] + others))
    p = "discrete_rosenbrock10"
    if p in finals and gp in finals[p]:
        pa, pb, v = verdict(p, gp, "bark")
        rows.append(("GP-RBF beats BARK on DiscreteRosenbrock (Fig. 5)", p,
                     f"{gp} better than bark", f"{pa:.3g} (reverse {pb:.3g})", v, ["bark", gp]))
    for p in finals:
        if "bark-prior" in finals[p] and "bark" in finals[p]:
            pa, pb, v = verdict(p, "bark", "bark-prior")
            rows.append(("BARK beats BARKPrior (Sec. 7.3, Fig. 6)", p,
                         "bark better than bark-prior", f"{pa:.3g} (reverse {pb:.3g})", v,
                         ["bark", "bark-prior"]))
    for p in finals:
        if "leaf-gp" in finals[p] and "bark" in finals[p]:
            pa, pb, v = verdict(p, "bark", "leaf-gp")
            rows.append(("BARK consistently beats LeafGP (Sec. 7.3)", p,
                         "bark better than leaf-gp", f"{pa:.3g} (reverse {pb:.3g})", v,
                         ["bark", "leaf-gp"]))
    p = "pest_control"
    if p in finals and gp in finals[p]:
        pa, pb, _ = verdict(p, "bark", gp)
        rows.append(("BARK highly competitive with GP-RBF where GP-RBF alternates (Fig. 6)", p,
                     f"{gp} not better than bark", f"{pb:.3g} (bark better: {pa:.3g})",
                     "reproduced (a tie or better)" if pb >= alpha else "opposite", ["bark", gp]))

    def seeds_and_builds(p, methods):
        def seeds(m):
            return ",".join(sorted(runs.rows[(p, m)], key=int))
        return "; ".join(f"{m}: seeds {seeds(m)}, build {builds.get(m, args.default_build)}"
                         for m in methods)

    print(f"| claim (paper) | problem | test (one-sided Mann-Whitney, final best) | p | "
          f"verdict at alpha = {alpha} | seeds and builds |")
    print("|---|---|---|---|---|---|")
    for claim, p, test, pv, v, methods in rows:
        print(f"| {claim} | {p} | {test} | {pv} | {v} | {seeds_and_builds(p, methods)} |")
    print()
    print("Medians of the final best values:")
    print()
    methods = sorted({m for f in finals.values() for m in f})
    print("| problem | n | " + " | ".join(methods) + " |")
    print("|---|---|" + "---|" * len(methods))
    for p, f in finals.items():
        n = sorted({len(v) for v in f.values()})
        print(f"| {p} | {'/'.join(map(str, n))} | " +
              " | ".join(f"{median(p, m):.4g}" if m in f else "-" for m in methods) + " |")


if __name__ == "__main__":
    main()

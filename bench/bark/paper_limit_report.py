#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tables of bench/bark/paper_limit.sh's solves: per problem and snapshot, how many of the solves
at the paper's 100 s reached the 10 % relative gap (status optimal: glpk_bnb's measure; and by
the paper's measure, see paper_gap), their times, nodes, gaps and model sizes, beside the 10 s
solves of the snapshot's own study at the same iterations (different models once the
trajectories part, the same N).

  bench/bark/paper_limit_report.py OUT [--arbo build/bin/arbo] [--csv FILE]
"""
import argparse
import csv
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arbo_export import export_study  # noqa: E402


def paper_gap(s, ys):
    """The solve's final gap as the paper's Gurobi measures it on its standardized model:
    (bound - incumbent) / |incumbent - c|, c = -mean(y) the constant that the model's negated
    LCB carries (the surrogate's y mean, y as minimized: the studies here minimize; BARK's fit
    standardizes y). glpk_bnb's own measure (sdk::SolveOptions) divides by
    min(|incumbent|, |incumbent - c|): never looser, stricter
    where the incumbent in the objective's units is nearer zero than in standardized units
    (DiscreteRosenbrock). Needs the observations fitted, in order; None without a bound."""
    inc, bound = s.get("objective"), s.get("best_bound")
    if inc is None or bound is None or not ys:
        return None
    base = abs(inc + statistics.mean(ys))
    return (bound - inc) / base if base > 0 else float("inf")


def solves(observations, first_id, last_id):
    """The model iterations with first_id <= id <= last_id (ids in order, one worker)."""
    rows, ys = [], []
    for o in sorted(observations, key=lambda o: o["id"]):
        s = o.get("solver")
        if first_id <= o["id"] <= last_id and o.get("origin") == "model" and s:
            rows.append({"id": o["id"], "status": s.get("status"), "gap": s.get("gap"),
                         "paper_gap": paper_gap(s, ys), "seconds": s.get("solve_seconds"),
                         "nodes": s.get("nodes"), "binaries": s.get("binaries"),
                         "rows": s.get("linear_rows")})
        if o.get("status") == "complete" and o.get("objective") is not None:
            ys.append(o["objective"])
    return rows


def med(v, fmt="{:.2f}"):
    v = [x for x in v if x is not None]
    return fmt.format(statistics.median(v)) if v else "-"


def reached(rows):
    return sum(r["status"] == "optimal" for r in rows)


def reached_paper(rows):
    return sum(r["paper_gap"] is not None and r["paper_gap"] <= 0.1 for r in rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--arbo", default="build/bin/arbo")
    ap.add_argument("--csv", help="also write one row per solve")
    a = ap.parse_args()
    out = Path(a.out)
    table, flat = [], []
    total = {"100": [0, 0, 0], "10": [0, 0, 0]}
    for prob in sorted(p for p in out.iterdir() if (p / "base").is_dir()):
        base = export_study(a.arbo, prob / "base")
        runs = (p for p in prob.glob("t100_*") if p.is_dir())
        for t in sorted(runs, key=lambda p: int(p.name.split("_")[1])):
            if not (t / "study.db").exists():
                continue
            k = t.name.split("_")[1]
            n = len(export_study(a.arbo, prob / f"snap{k}"))
            at100 = solves(export_study(a.arbo, t), n + 1, 10**9)
            at10 = solves(base, n + 1, n + len(at100)) if at100 else []
            for lim, rows in (("100", at100), ("10", at10)):
                total[lim][0] += reached(rows)
                total[lim][1] += len(rows)
                total[lim][2] += reached_paper(rows)
                for r in rows:
                    flat.append({"problem": prob.name, "snapshot_n": n, "limit_s": lim, **r})
            open_gaps = [r["gap"] for r in at100 if r["status"] != "optimal"]
            table.append(
                f"| {prob.name} | {n}-{n + len(at100) - 1} | {reached(at100)} / {len(at100)} | "
                f"{reached_paper(at100)} / {len(at100)} | "
                f"{med([r['seconds'] for r in at100])} | {med([r['nodes'] for r in at100], '{:.0f}')} | "
                f"{med(open_gaps, '{:.3f}')} | {med([r['binaries'] for r in at100], '{:.0f}')} | "
                f"{med([r['rows'] for r in at100], '{:.0f}')} | "
                + (f"{reached(at10)} / {len(at10)} ({reached_paper(at10)} by the paper's measure) |"
                   if at10 else "(no later iterations) |"))
    print("| problem | N (observations each model is fitted on) | at the 10 % gap within 100 s | "
          "... by the paper's measure of the gap | "
          "solve s median | nodes median | final gap of the others, median | binaries median | "
          "linear rows median | the 10 s study at the same N: at the 10 % gap |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(table))
    for lim in ("100", "10"):
        r, n, rp = total[lim]
        if n:
            print(f"\n{lim} s: {r} of {n} solves at the 10 % gap ({100.0 * r / n:.0f} %); "
                  f"{rp} ({100.0 * rp / n:.0f} %) by the paper's measure")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(flat[0].keys()) if flat else ["problem"])
            w.writeheader()
            w.writerows(flat)


if __name__ == "__main__":
    main()

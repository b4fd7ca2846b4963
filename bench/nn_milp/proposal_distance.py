#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How far a method's proposals land from what it has observed: per study (an `arbo export
--format csv` file, gzip or not), for every proposal after the initial design, the Hamming
distance (number of parameters that differ) to the nearest earlier point and to the best earlier
point, summarized per method and problem over the studies given.

NN+MILP maximizes a ReLU network exactly; a ReLU network extrapolates linearly, so its maximizer
can sit far from the data (Papalexopoulos et al. 2022, App. D), while NN+RegEvo's inner search
starts from the observations. This measures that difference on the studies themselves.

  bench/nn_milp/proposal_distance.py EXPORT.csv[.gz] ... [--initial 50] [--minimize P,P,...]

Each file's name must be METHOD__PROBLEM__seedS.csv[.gz] (what the commands of
bench/results/nn-milp/n300/README.md write); a problem is maximized unless --minimize names it.
"""
import argparse
import csv
import gzip
import re
import statistics
from pathlib import Path


def load(path):
    """(parameter values, objective or None) per evaluation, in id order."""
    with (gzip.open if path.suffix == ".gz" else open)(path, "rt", newline="") as f:
        reader = csv.DictReader(f)
        keys = reader.fieldnames
        if not keys or "origin" not in keys or "objective" not in keys:
            raise SystemExit(f"{path}: not an `arbo export --format csv` file (no origin and "
                             "objective columns)")
        params = keys[keys.index("origin") + 1:keys.index("objective")]
        rows = sorted(reader, key=lambda r: int(r["id"]))
    return [([r[k] for k in params], float(r["objective"]) if r["objective"] else None)
            for r in rows]


def distances(points, initial, sign):
    """Per proposal after `initial`: (to the nearest earlier point, to the best earlier one)."""
    out = []
    for i in range(initial, len(points)):
        x = points[i][0]
        earlier = points[:i]
        nearest = min(sum(a != b for a, b in zip(x, p)) for p, _ in earlier)
        scored = [(p, v) for p, v in earlier if v is not None]
        best = max(scored, key=lambda pv: sign * pv[1])[0] if scored else None
        out.append((nearest, sum(a != b for a, b in zip(x, best)) if best else None))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("exports", nargs="+", type=Path)
    ap.add_argument("--initial", type=int, default=50, help="initial design size (50)")
    ap.add_argument("--minimize", default="", help="comma-separated problems that are minimized")
    args = ap.parse_args()
    minimized = set(filter(None, args.minimize.split(",")))
    groups = {}
    for path in args.exports:
        m = re.fullmatch(r"(.+)__(.+)__seed(\d+)\.csv(\.gz)?", path.name)
        if not m:
            raise SystemExit(f"{path}: the name must be METHOD__PROBLEM__seedS.csv[.gz]")
        method, problem = m.group(1), m.group(2)
        points = load(path)
        sign = -1 if problem in minimized else 1
        g = groups.setdefault((problem, method), {"seeds": [], "near": [], "best": [], "dim": 0})
        g["seeds"].append(int(m.group(3)))
        g["dim"] = len(points[0][0]) if points else 0
        for near, best in distances(points, args.initial, sign):
            g["near"].append(near)
            if best is not None:
                g["best"].append(best)
    print("| problem | method | parameters | seeds | proposals | to the nearest earlier point: "
          "median, mean | to the best earlier point: median, mean |")
    print("|---|---|---|---|---|---|---|")
    for (problem, method), g in sorted(groups.items()):
        near, best = g["near"], g["best"]
        if not near:
            continue
        print(f"| {problem} | {method} | {g['dim']} | {','.join(map(str, sorted(g['seeds'])))} | "
              f"{len(near)} | {statistics.median(near):g}, {statistics.fmean(near):.2f} | "
              + (f"{statistics.median(best):g}, {statistics.fmean(best):.2f} |" if best
                 else "- |"))


if __name__ == "__main__":
    main()

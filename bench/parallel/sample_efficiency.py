#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What parallel evaluation costs in evaluations: best-so-far regret against evaluations with
[study] workers q = 1 and q = 4, for the Mondrian, c-TPE and LEAF-GP pipelines on three suite
problems (issue 27, "Measured").

  nice -n 19 bench/parallel/sample_efficiency.py --arbo build/bin/arbo [-j 2]
      [--problems P ...] [--methods M ...] [--seeds S ...] [--q Q ...] [--report-only]

Each problem plugin runs as an external command (problem_command.py around `arbo problem eval`,
the same C++ objective), since `workers` applies to commands only; the generated pipeline
declares the plugin's parameters and black-box constraints (problems with known constraints are
refused). The command hands its result back only after the previous observation's, so every
proposal k sees observations k-q+1 .. k-1 pending, as with equally long evaluations.

Studies go to --work (default /tmp/arbo_sample_efficiency; a finished study is reused, an
unfinished one is run again from scratch). The raw rows (one per evaluation, in observation-id
order) are merged into --csv: the runs of this call replace those with the same (problem,
method, q, seed), the others are kept, and the tables of --md (between its "tables begin" and
"tables end" markers; the text around them is kept) are rebuilt from the whole CSV.
"""

import argparse
import concurrent.futures
import csv
import gzip
import io
import json
import math
import os
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import toml  # python3-toml (Debian): writes the generated pipelines

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arbo_export import ExportError, export_study  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
INF = float("inf")

# N evaluations (initial design included) and the initial design size, per problem.
PROBLEMS = {
    "branin_constrained": {"budget": 40, "initial": 8},
    "hartmann6": {"budget": 50, "initial": 10},
    "styblinski_tang10": {"budget": 50, "initial": 10},
}
# Pipeline file and the --set overrides of each method. LEAF-GP's branch-and-bound gets one
# thread: two studies run at once on the 2-core machine.
METHODS = {
    "mondrian-nm": ("configs/mondrian-nm.toml", {}),
    "c-tpe": ("configs/c-tpe.toml", {}),
    "leaf-gp": ("configs/leaf-gp.toml", {"inner_solver": {"threads": 1}}),
}
SEEDS = [1, 2, 3, 4, 5]
QS = [1, 4]
# pending: observations proposed before this one and not yet recorded when it was proposed
# (their finished_at after its created_at): q - 1 in steady state with problem_command.py.
FIELDS = ["problem", "method", "q", "seed", "evaluation", "obs_id", "origin", "pending",
          "objective", "feasible", "best_feasible", "regret", "propose_seconds",
          "study_seconds"]


def merge(base, extra):
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v


def space_parameters(info):
    params = []
    for p in info["space"]:
        if p.get("condition"):
            raise SystemExit(f"{info['name']}: conditional parameters are not supported here")
        q = {"name": p["name"], "type": p["type"]}
        if p["type"] in ("real", "integer"):
            q["low"], q["high"] = p["low"], p["high"]
            if p.get("log"):
                q["log"] = True
        elif p["type"] == "categorical":
            q["choices"] = p["choices"]
        params.append(q)
    return params


class Runner:
    def __init__(self, args):
        self.args = args
        self.arbo = str(Path(args.arbo).resolve())
        self.work = Path(args.work).resolve()
        self.lock = threading.Lock()
        out = subprocess.run([self.arbo, "problems", "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"arbo problems --json failed: {out.stderr.strip()}")
        self.info = {p["name"]: p for p in json.loads(out.stdout) if "error" not in p}
        for name in PROBLEMS:
            p = self.info[name]
            if p["known_constraints"]:
                raise SystemExit(f"{name} has known constraints, which a command cannot declare")
            if p["optimum"] is None or p["direction"] != "minimize":
                raise SystemExit(f"{name}: no known optimum or not minimized")

    def pipeline(self, problem, method, q, seed, gate):
        path, sets = METHODS[method]
        with open(REPO / path, "rb") as f:
            doc = tomllib.load(f)
        info = self.info[problem]
        doc["study"].update(name=f"{method}-{problem}-q{q}-s{seed}", seed=seed,
                            budget=PROBLEMS[problem]["budget"], workers=q,
                            direction="minimize")
        doc["problem"] = {
            "command": [sys.executable, str(HERE / "problem_command.py"), self.arbo, problem,
                        str(gate)],
            "timeout": 3600.0,
            "parameters": space_parameters(info),
        }
        if info["constraints"]:
            doc["black_box_constraints"] = [{"name": c, "sense": "<=", "threshold": 0.0}
                                            for c in info["constraints"]]
        doc.setdefault("initial_design", {})["size"] = PROBLEMS[problem]["initial"]
        merge(doc, sets)
        return toml.dumps(doc)

    def export(self, study):
        try:
            return sorted(export_study(self.arbo, study), key=lambda o: o["id"])
        except ExportError:
            return None

    def finished(self, study, budget):
        if not (study / "study.db").exists():
            return None
        obs = self.export(study)
        if obs is None or len(obs) < budget or any(o["status"] == "pending" for o in obs):
            return None
        return obs

    def run_one(self, problem, method, q, seed):
        budget = PROBLEMS[problem]["budget"]
        job = self.work / problem / method / f"q{q}" / f"s{seed}"
        study = job / "study"
        obs = self.finished(study, budget)
        seconds = None
        reused = obs is not None
        if obs is None:
            shutil.rmtree(job, ignore_errors=True)
            (job / "gate").mkdir(parents=True)
            (job / "pipeline.toml").write_text(self.pipeline(problem, method, q, seed,
                                                             job / "gate"))
            t0 = time.monotonic()
            with open(job / "run.log", "w") as log:
                rc = subprocess.run([self.arbo, "run", str(job / "pipeline.toml"), "--study",
                                     str(study)], stdout=log, stderr=subprocess.STDOUT,
                                    check=False).returncode
            seconds = time.monotonic() - t0
            (job / "seconds").write_text(f"{seconds:.2f}\n")
            if rc != 0:
                self.say(f"FAILED {problem} {method} q={q} seed={seed}: exit {rc}, see "
                         f"{job / 'run.log'}")
                return []
            obs = self.finished(study, budget)
            if obs is None:
                self.say(f"FAILED {problem} {method} q={q} seed={seed}: study not complete")
                return []
        elif (job / "seconds").exists():
            seconds = float((job / "seconds").read_text())
        ids = [o["id"] for o in obs]
        if ids != list(range(1, len(ids) + 1)):
            self.say(f"WARNING {problem} {method} q={q} seed={seed}: ids are not 1..N: {ids}")
        opt = self.info[problem]["optimum"]
        rows, best = [], INF
        for n, o in enumerate(obs[:budget], start=1):
            pending = sum(1 for p in obs[:n - 1] if p["finished_at"] > o["created_at"])
            ok = o["status"] == "complete"
            feasible = bool(ok and o["feasible"])
            if feasible:
                best = min(best, o["objective"])
            rows.append({
                "problem": problem, "method": method, "q": q, "seed": seed, "evaluation": n,
                "obs_id": o["id"], "origin": o.get("origin", ""), "pending": pending,
                "objective": repr(o["objective"]) if ok else "",
                "feasible": int(feasible),
                "best_feasible": repr(best) if best < INF else "",
                "regret": repr(best - opt) if best < INF else "",
                "propose_seconds": f"{float(o['propose_seconds']):.6f}",
                "study_seconds": f"{seconds:.2f}" if seconds is not None else "",
            })
        final = rows[-1]["regret"] if rows else ""
        result = f"final regret {float(final):.4g}" if final else "no feasible point"
        took = " (reused)" if reused else f" ({seconds:.0f} s)"
        self.say(f"done {problem} {method} q={q} seed={seed}: {result}{took}")
        return rows

    def say(self, text):
        with self.lock:
            print(text, flush=True)


def open_text(path, mode):
    if path.suffix == ".gz":
        # mtime 0: the same rows give the same bytes (no change to commit after a --report-only)
        return io.TextIOWrapper(gzip.GzipFile(path, mode[0] + "b", mtime=0), encoding="utf-8",
                                newline="")
    return open(path, mode, newline="", encoding="utf-8")


def read_csv(path):
    if not path.exists():
        return []
    with open_text(path, "r") as f:
        return list(csv.DictReader(f))


def write_csv(path, rows):
    key = lambda r: (r["problem"], r["method"], int(r["q"]), int(r["seed"]), int(r["evaluation"]))
    rows = sorted(rows, key=key)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open_text(path, "w") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


# ---------------------------------------------------------------------------------- report

def quantile(values, q):
    """Linear-interpolation quantile; +inf (no feasible point yet) sorts last."""
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(v) - 1)
    if v[hi] == INF or v[lo] == INF:
        return INF if pos > lo or v[lo] == INF else v[lo]
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def fmt(v):
    if v == INF:
        return "inf"
    if v == 0:
        return "0"
    return f"{v:.3g}" if abs(v) >= 1e-3 else f"{v:.2e}"


def curves(rows):
    """{(problem, method, q): {seed: [regret after evaluation 1..N]}}"""
    out = {}
    for r in rows:
        k = (r["problem"], r["method"], int(r["q"]))
        out.setdefault(k, {}).setdefault(int(r["seed"]), []).append(
            (int(r["evaluation"]), float(r["regret"]) if r["regret"] != "" else INF))
    return {k: {s: [v for _, v in sorted(c)] for s, c in d.items()} for k, d in out.items()}


def median_curve(per_seed):
    n = min(len(c) for c in per_seed.values())
    return [quantile([c[i] for c in per_seed.values()], 0.5) for i in range(n)]


def sign_test(a, b):
    """Two-sided exact sign test of paired values; equal pairs dropped. None without pairs."""
    wins = sum(x < y for x, y in zip(a, b))
    n = wins + sum(x > y for x, y in zip(a, b))
    if n == 0:
        return None
    k = min(wins, n - wins)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def first_reaching(curve, target):
    for i, v in enumerate(curve):
        if v <= target:
            return i + 1
    return None


def report(rows, md_path, csv_path):
    cur = curves(rows)
    lines = [
        "<!-- Generated by bench/parallel/sample_efficiency.py from "
        f"{csv_path.name}: do not edit by hand between the markers. -->",
        "",
        "Regret = best feasible objective so far (by observation id) minus the problem's "
        "optimum; `inf` = no feasible point yet. Median over seeds, [25th-75th percentile]. "
        "\"feasible\" = seeds with a feasible point after N evaluations. \"q=4 needs\" = the "
        "first evaluation count at which the median q = 4 curve reaches the median final regret "
        "of q = 1 (as a fraction of N; \"not reached\" if it does not within N); \"q=1 "
        "reaches q=4's final\" = the converse, the first evaluation count at which the median "
        "q = 1 curve reaches the median final regret of q = 4 (when q = 4 is worse, N over "
        "this count is what q = 4 pays in evaluations). \"seeds q=4 <= q=1\": seeds on which "
        "q = 4's final regret is at most q = 1's (same seed, same initial design), and the "
        "two-sided exact sign test of the paired final regrets (equal pairs dropped). Verdict: "
        "\"tie\" when the final IQRs overlap, otherwise the better q.",
        "",
    ]
    problems = [p for p in PROBLEMS if any(k[0] == p for k in cur)]
    for problem in problems:
        budget = PROBLEMS[problem]["budget"]
        marks = sorted({PROBLEMS[problem]["initial"] + 2, budget // 4, budget // 2,
                        (3 * budget) // 4})
        lines += [f"### {problem} (N = {budget}, initial design {PROBLEMS[problem]['initial']})",
                  "",
                  "| method | q | seeds | feasible | final regret, median [IQR] | "
                  + " | ".join(f"n={m}" for m in marks)
                  + " | q=4 needs | q=1 reaches q=4's final | seeds q=4 <= q=1, sign test "
                  "| verdict |",
                  "|---|---:|---:|---:|---|" + "---:|" * len(marks) + "---|---|---:|---|"]
        for method in METHODS:
            finals = {}
            for q in QS:
                per_seed = cur.get((problem, method, q))
                if not per_seed:
                    continue
                fin = [c[-1] for c in per_seed.values()]
                finals[q] = (quantile(fin, 0.25), quantile(fin, 0.5), quantile(fin, 0.75),
                             median_curve(per_seed))
            for q in QS:
                per_seed = cur.get((problem, method, q))
                if not per_seed:
                    continue
                lo, med, hi, mc = finals[q]
                fin = [c[-1] for c in per_seed.values()]
                cells = [method, str(q), str(len(per_seed)), str(sum(v < INF for v in fin)),
                         f"{fmt(med)} [{fmt(lo)}, {fmt(hi)}]"]
                cells += [fmt(mc[m - 1]) if m <= len(mc) else "" for m in marks]
                needs = reaches = paired = verdict = ""
                if q == 4 and 1 in finals:
                    target = finals[1][1]
                    n4 = first_reaching(mc, target) if target < INF else None
                    needs = (f"{n4} ({n4 / budget:.2f} N)" if n4 is not None
                             else "not reached" if target < INF else "-")
                    n1 = first_reaching(finals[1][3], med) if med < INF else None
                    reaches = (f"{n1} ({n1 / budget:.2f} N)" if n1 is not None
                               else "not reached" if med < INF else "-")
                    # Paired by seed: both runs share the initial design.
                    q1 = cur[(problem, method, 1)]
                    common = [s for s in per_seed if s in q1]
                    p = sign_test([per_seed[s][-1] for s in common],
                                  [q1[s][-1] for s in common])
                    paired = (f"{sum(per_seed[s][-1] <= q1[s][-1] for s in common)}"
                              f"/{len(common)}, p = {'-' if p is None else f'{p:.2g}'}")
                    lo1, _, hi1, _ = finals[1]
                    if hi < lo1:
                        verdict = "q=4 better"
                    elif hi1 < lo:
                        verdict = "q=1 better"
                    else:
                        verdict = "tie"
                cells += [needs, reaches, paired, verdict]
                lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    # Proposal time: the model stage's median seconds per proposal, and median study wall time.
    lines += ["### Time per study, and points pending at each model proposal", "",
              "| problem | method | q | pending at model proposals | "
              "median s per model proposal | median study wall (s) |",
              "|---|---|---:|---|---:|---:|"]
    groups = {}
    for r in rows:
        g = groups.setdefault((r["problem"], r["method"], int(r["q"])),
                              {"p": [], "w": {}, "n": set()})
        if r["origin"] == "model":
            g["p"].append(float(r["propose_seconds"]))
            if r.get("pending", "") != "":
                g["n"].add(int(r["pending"]))
        if r["study_seconds"]:
            g["w"][r["seed"]] = float(r["study_seconds"])
    for problem in problems:
        for method in METHODS:
            for q in QS:
                g = groups.get((problem, method, q))
                if not g:
                    continue
                wall = list(g["w"].values())
                pend = ", ".join(map(str, sorted(g["n"]))) or "-"
                prop = fmt(quantile(g["p"], 0.5)) if g["p"] else "-"
                med_wall = f"{quantile(wall, 0.5):.0f}" if wall else "-"
                lines.append(f"| {problem} | {method} | {q} | {pend} | {prop} | {med_wall} |")
    lines.append("")
    # Only the part between the markers is rewritten: the text around it is written by hand.
    begin, end = "<!-- tables begin -->", "<!-- tables end -->"
    text = md_path.read_text() if md_path.exists() else f"{begin}\n{end}\n"
    if begin not in text or end not in text:
        raise SystemExit(f"{md_path}: no '{begin}' ... '{end}' markers")
    head, rest = text.split(begin, 1)
    md_path.write_text(head + begin + "\n" + "\n".join(lines) + rest[rest.index(end):])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arbo", default=os.environ.get("ARBO_CLI", str(REPO / "build/bin/arbo")))
    ap.add_argument("--work", default="/tmp/arbo_sample_efficiency")
    ap.add_argument("--csv", default=str(HERE / "results" / "sample_efficiency.csv.gz"))
    ap.add_argument("--md", default=str(HERE / "results" / "sample_efficiency.md"))
    ap.add_argument("--problems", nargs="+", choices=list(PROBLEMS), default=list(PROBLEMS))
    ap.add_argument("--methods", nargs="+", choices=list(METHODS), default=list(METHODS))
    ap.add_argument("--seeds", nargs="+", type=int, default=SEEDS)
    ap.add_argument("--q", nargs="+", type=int, choices=QS, default=QS)
    ap.add_argument("-j", "--jobs", type=int, default=1, help="studies run at once")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    csv_path, md_path = Path(args.csv), Path(args.md)

    if not args.report_only:
        runner = Runner(args)
        jobs = [(p, m, q, s) for m in args.methods for p in args.problems for s in args.seeds
                for q in args.q]
        new_rows = []

        def save():
            keys = {(r["problem"], r["method"], str(r["q"]), str(r["seed"])) for r in new_rows}
            old = [r for r in read_csv(csv_path)
                   if (r["problem"], r["method"], r["q"], r["seed"]) not in keys]
            write_csv(csv_path, old + new_rows)

        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(runner.run_one, *j) for j in jobs]
            for f in concurrent.futures.as_completed(futures):
                rows = f.result()
                with runner.lock:
                    new_rows += rows
                    save()  # partial results survive an interrupted run
    report(read_csv(csv_path), md_path, csv_path)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Optuna peer: runs one Optuna study on an arbo problem and writes its evaluations as CSV.

The search space is rebuilt from `arbo problems --json`; every point is evaluated by one
persistent `arbo problem eval NAME` subprocess, so Optuna is scored by exactly the C++
objective arbo's own pipelines see.

Samplers: `tpe` is `optuna.samplers.TPESampler(seed=S)` with Optuna's defaults (3.1 on
Debian 12), plus `constraints_func` when the problem has constraints; `random` is
`optuna.samplers.RandomSampler(seed=S)`. Optuna has no notion of *known* constraints: for TPE a
violated known constraint is reported through `constraints_func` like a black-box one (so the
point is infeasible and the evaluation counts against the budget); RandomSampler ignores all
constraints, as it ignores the objective.

Output CSV columns: evaluation, objective, feasible, violation, propose_seconds, eval_seconds,
error (violation: `arbo problem eval`'s largest constraint violation, 0 when none).
`propose_seconds` is the sampler's time for the trial (study.ask() plus the suggest calls);
`eval_seconds` is the round trip to the evaluator. A JSON status file records the Optuna version.

Usage (the bench runner calls it; it runs on its own too):
  optuna_peer.py --arbo build/bin/arbo --problem branin --sampler tpe --seed 1 --budget 100 \
      --out branin_tpe_1.csv [--problems-json problems.json] [--noise SD] [--plugin-path DIR]
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
import warnings

# Equality constraints are satisfied within this tolerance, as in `arbo problem eval`.
KNOWN_TOLERANCE = 1e-6


def arbo_cmd(args, *rest):
    cmd = [args.arbo]
    for p in args.plugin_path or []:
        cmd += ["--plugin-path", p]
    return cmd + list(rest)


def load_problem(args):
    if args.problems_json:
        with open(args.problems_json, encoding="utf-8") as f:
            problems = json.load(f)
    else:
        out = subprocess.run(arbo_cmd(args, "problems", "--json"), stdout=subprocess.PIPE,
                             check=False, text=True)
        problems = json.loads(out.stdout)
    name = args.problem.removeprefix("problem/")
    for p in problems:
        if p.get("name") == name:
            if "error" in p:
                sys.exit(f"optuna_peer: problem {name} failed to load: {p['error']}")
            return p
    sys.exit(f"optuna_peer: no problem called '{name}' is loaded")


def is_active(param, values):
    cond = param.get("condition")
    if not cond:
        return True
    parent = cond["parent"]
    # A parent that is itself inactive was never suggested, so it is absent from `values`.
    return parent in values and values[parent] in cond["values"]


def suggest(trial, space):
    """Suggests the active parameters, in declaration order (parents precede children)."""
    values = {}
    for p in space:
        if not is_active(p, values):
            continue
        name, kind = p["name"], p["type"]
        if kind == "real":
            values[name] = trial.suggest_float(name, p["low"], p["high"], log=p["log"])
        elif kind == "integer":
            values[name] = trial.suggest_int(name, p["low"], p["high"], log=p["log"])
        elif kind == "categorical":
            values[name] = trial.suggest_categorical(name, p["choices"])
        elif kind == "binary":
            values[name] = trial.suggest_categorical(name, [False, True])
        else:
            raise ValueError(f"parameter {name}: unknown type {kind}")
    return values


class Evaluator:
    """One `arbo problem eval` process, spoken to line by line."""

    def __init__(self, args):
        cmd = arbo_cmd(args, "problem", "eval", args.problem, "--seed", str(args.seed))
        if args.noise > 0:
            cmd += ["--noise", repr(args.noise)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)

    def __call__(self, params):
        self.proc.stdin.write(json.dumps({"params": params}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"arbo problem eval exited (code {self.proc.wait()})")
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def constraint_values(problem, result):
    """Values for Optuna's constraints_func (feasible iff all <= 0): black-box ones as they are,
    known ones as their excess (|g| for equalities), 0 when satisfied within the tolerance."""
    vals = [float(result["constraints"][n]) for n in problem["constraints"]]
    for k in problem["known_constraints"]:
        g = float(result["known_constraints"][k["name"]])
        excess = abs(g) if "==" in k["expression"] else g
        vals.append(excess if excess > KNOWN_TOLERANCE else min(excess, 0.0))
    return vals


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arbo", required=True, help="path of the arbo CLI")
    ap.add_argument("--plugin-path", action="append", help="extra plugin directory for arbo")
    ap.add_argument("--problem", required=True, help="problem component name")
    ap.add_argument("--problems-json", help="output of 'arbo problems --json' (else: ask arbo)")
    ap.add_argument("--sampler", choices=["tpe", "random"], required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--budget", type=int, required=True, help="number of evaluations")
    ap.add_argument("--noise", type=float, default=0.0, help="objective noise SD (default 0)")
    ap.add_argument("--out", required=True, help="CSV to write (a .json status goes beside it)")
    args = ap.parse_args()

    import optuna  # imported late so that --help works without it
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)

    problem = load_problem(args)
    constrained = bool(problem["constraints"] or problem["known_constraints"])
    if args.sampler == "tpe":
        kwargs = {"seed": args.seed}
        if constrained:
            kwargs["constraints_func"] = lambda t: t.user_attrs["constraints"]
        sampler = optuna.samplers.TPESampler(**kwargs)
    else:
        sampler = optuna.samplers.RandomSampler(seed=args.seed)
    study = optuna.create_study(direction=problem["direction"], sampler=sampler)

    evaluator = Evaluator(args)
    rows = []
    t_start = time.perf_counter()
    try:
        for i in range(1, args.budget + 1):
            t0 = time.perf_counter()
            trial = study.ask()
            params = suggest(trial, problem["space"])
            t1 = time.perf_counter()
            result = evaluator(params)
            t2 = time.perf_counter()
            row = {"evaluation": i, "objective": "", "feasible": 0, "violation": "",
                   "propose_seconds": t1 - t0, "eval_seconds": t2 - t1, "error": ""}
            if "error" in result or not math.isfinite(result.get("objective", math.nan)):
                row["error"] = result.get("error", "non-finite objective")
                # A failed trial gives TPE nothing to learn from, like a failed arbo observation.
                study.tell(trial, state=TrialState.FAIL)
            else:
                row["objective"] = result["objective"]
                row["feasible"] = 1 if result["feasible"] else 0
                if result.get("violation") is not None:
                    row["violation"] = float(result["violation"])
                if constrained:
                    trial.set_user_attr("constraints", constraint_values(problem, result))
                study.tell(trial, result["objective"])
            rows.append(row)
    finally:
        evaluator.close()

    tmp = args.out + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["evaluation", "objective", "feasible", "violation",
                                          "propose_seconds", "eval_seconds", "error"])
        w.writeheader()
        for r in rows:
            w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in r.items()})
    os.replace(tmp, args.out)
    status = {
        "state": "done",
        "budget": args.budget,
        "optuna_version": optuna.__version__,
        "sampler": type(sampler).__name__,
        "constraints_func": args.sampler == "tpe" and constrained,
        "known_constraints_as_black_box": args.sampler == "tpe" and bool(problem["known_constraints"]),
        "wall_seconds": time.perf_counter() - t_start,
    }
    with open(os.path.splitext(args.out)[0] + ".json", "w", encoding="utf-8") as f:
        json.dump(status, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)  # nothing was written: the runner reruns this peer from scratch

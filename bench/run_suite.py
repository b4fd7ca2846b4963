#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs a benchmark suite: every (pipeline, problem, seed) as an arbo study, plus Optuna peers,
then writes results.csv, report.md and one regret plot per problem into the output folder.

  bench/run_suite.py bench/suites/smoke.toml --out /tmp/smoke [--arbo build/bin/arbo] [-j N]

Rerunning with the same --out is resumable: finished studies are skipped, unfinished ones are
resumed with `arbo run --resume`, and the CSV, report and plots are rebuilt from what is on
disk. --merge adds the runs of an earlier results.csv whose studies are not on disk (a protocol
continued on another machine). See bench/README.md for the suite format and the outputs.
"""

import argparse
import concurrent.futures
import csv
import datetime
import fcntl
import fnmatch
import gzip
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from arbo_export import export_study
from debian_python import require_modules

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    sys.exit("run_suite.py needs Python 3.11 or later (tomllib)")

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
PEERS = {"optuna-tpe": "tpe", "optuna-random": "random"}
EXIT_INFEASIBLE = 6
EXIT_INTERRUPTED = 130
# violation: the evaluated point's largest constraint violation (`arbo problem eval`; 0 when
# none, "" for a failed evaluation); best_violation: that of the best feasible point so far.
# Points within the known constraints' 1e-6 tolerance are feasible with a violation > 0.
CSV_FIELDS = ["pipeline", "problem", "seed", "evaluation", "objective", "feasible",
              "best_feasible", "regret", "propose_seconds", "eval_seconds", "violation",
              "best_violation"]
# The header before the violation columns; such files (--merge) read with them empty.
CSV_FIELDS_V1 = CSV_FIELDS[:-2]


# ---------------------------------------------------------------------------------------------
# Suite


class Suite:
    def __init__(self, path, args):
        self.path = Path(path).resolve()
        with open(self.path, "rb") as f:
            data = tomllib.load(f)
        known = {"name", "description", "budget", "initial_design", "seeds", "problems",
                 "peers", "pipelines", "noise", "order", "set"}
        unknown = set(data) - known
        if unknown:
            raise SystemExit(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; "
                             f"valid: {', '.join(sorted(known))}")
        self.name = data.get("name", self.path.stem)
        self.description = data.get("description", "")
        # `budget`, `initial_design` and `seeds` take one value for every problem, or a table
        # with a `default` and per-problem overrides (protocols that differ by problem, e.g. 16
        # initial points on the 20-D problems, 20 seeds on a few headline problems, or the BARK
        # paper's 100 iterations after a design of min(2D, 30) points). --budget overrides all.
        self.budget_of = per_problem(path, "budget",
                                     args.budget if args.budget else data.get("budget", 100), int)
        self.budget = self.budget_of(None)
        self.initial_design_of = per_problem(path, "initial_design", data.get("initial_design", 10),
                                             int)
        self.seeds_of = per_problem(path, "seeds", data.get("seeds", 5), seed_list)
        self.initial_design = self.initial_design_of(None)
        self.seeds = self.seeds_of(None)
        # Entries may be shell-style patterns ("bbob_*"), expanded against the loaded problems.
        self.problem_patterns = [str(p) for p in data.get("problems", [])]
        self.problems = []
        self.noise = float(data.get("noise", 0.0))
        # `[set]` overrides pipeline keys of every arbo run the suite creates (a setting that
        # only some problems need, such as a lower projection time limit on Alkylation, without
        # a copy of each pipeline file): `inner_solver.threads = 1` under [set] (a nested
        # table in TOML) becomes --set inner_solver.threads=1.
        self.sets = set_args(path, "set", data.get("set", {}))
        # "seed" runs every method and problem of one seed before the next seed, so that a long
        # protocol stopped part-way (and resumed later) has covered every problem evenly.
        self.order = str(data.get("order", "problem"))
        if self.order not in ("problem", "seed"):
            raise SystemExit(f"{path}: order must be \"problem\" or \"seed\", not '{self.order}'")
        # A pipeline is a file (`name = "FILE"`), or a file and the keys its runs override
        # (`[pipelines.NAME]` with `file = "FILE"` and `set.KEY = VALUE`, the same form as the
        # suite's [set]): a variant of a stock pipeline in configs/ (another initial design, an
        # ablation) is written as that file and its differences, not as a copy.
        self.pipelines = {}
        self.pipeline_sets = {}
        for name, entry in data.get("pipelines", {}).items():
            if isinstance(entry, dict):
                unknown = set(entry) - {"file", "set"}
                if unknown or "file" not in entry:
                    raise SystemExit(f"{path}: pipelines.{name}: give file = \"...\" and "
                                     f"optionally a set table"
                                     + (f", not {', '.join(sorted(unknown))}" if unknown else ""))
                file = entry["file"]
                self.pipeline_sets[name] = set_args(path, f"pipelines.{name}.set",
                                                    entry.get("set", {}))
            else:
                file = entry
                self.pipeline_sets[name] = {}
            p = Path(file)
            self.pipelines[name] = p if p.is_absolute() else (self.path.parent / p).resolve()
            if not self.pipelines[name].is_file():
                raise SystemExit(f"{path}: pipeline {name}: no file {self.pipelines[name]}")
        self.peers = [] if args.no_peers else [str(p) for p in data.get("peers", [])]
        for p in self.peers:
            if p not in PEERS:
                raise SystemExit(f"{path}: unknown peer '{p}'; valid: {', '.join(PEERS)}")
            if p in self.pipelines:
                raise SystemExit(f"{path}: pipeline name '{p}' is reserved for the peer")
        if not self.problem_patterns or not (self.pipelines or self.peers):
            raise SystemExit(f"{path}: a suite needs problems and pipelines or peers")
        for p in {None, *self.initial_design_of.overrides, *self.budget_of.overrides}:
            if self.initial_design_of(p) > self.budget_of(p):
                raise SystemExit(f"{path}: initial_design ({self.initial_design_of(p)}) > budget "
                                 f"({self.budget_of(p)})" + (f" on {p}" if p else ""))

    def methods(self):
        return list(self.pipelines) + self.peers


def set_args(path, where, table):
    """A [set] table as {"a.b": "value"}: nested tables become dotted keys, strings and
    booleans are quoted as TOML values (the form `arbo --set a.b=value` reads)."""
    sets = {}

    def flatten(prefix, t):
        for key, value in t.items():
            name = f"{prefix}{key}"
            if isinstance(value, dict):
                flatten(name + ".", value)
            elif isinstance(value, list):
                raise SystemExit(f"{path}: {where}.{name}: give a number, string or boolean")
            else:
                sets[name] = json.dumps(value) if isinstance(value, (str, bool)) else repr(value)
    if not isinstance(table, dict):
        raise SystemExit(f"{path}: {where} must be a table")
    flatten("", table)
    return sets


def seed_list(value):
    return list(range(1, int(value) + 1)) if isinstance(value, int) else [int(s) for s in value]


def per_problem(path, key, value, cast):
    """A suite value given once or as {default = ..., <problem> = ...}; returns f(problem)."""
    if isinstance(value, dict):
        if "default" not in value:
            raise SystemExit(f"{path}: table '{key}' needs a 'default' entry")
        table = {k: cast(v) for k, v in value.items()}
    else:
        table = {"default": cast(value)}

    def lookup(problem):
        return table.get(problem, table["default"]) if problem else table["default"]

    lookup.values = table.values
    lookup.overrides = {k: v for k, v in table.items() if k != "default"}
    return lookup


# ---------------------------------------------------------------------------------------------
# Jobs


def int_list(text):
    """argparse type of --seeds: "101,103" -> [101, 103]."""
    try:
        return [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of integers")


def name_list(text):
    """argparse type of --methods and --problems: "g7,g10" -> ["g7", "g10"]."""
    names = [v.strip() for v in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"'{text}' has an empty name")
    return names


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_json(path, data):
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def last_error_line(log_path):
    try:
        lines = Path(log_path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    errors = [l for l in lines if "error" in l.lower()]
    return (errors or lines or [""])[-1].strip()


class Job:
    def __init__(self, runner, method, problem, seed):
        self.runner, self.method, self.problem, self.seed = runner, method, problem, seed
        self.is_peer = method in PEERS
        base = runner.out / ("peers" if self.is_peer else "studies") / method / problem
        self.base = base
        self.stem = f"seed{seed}"
        self.status_path = base / f"{self.stem}.status.json"
        self.log_path = base / f"{self.stem}.log"
        self.study_dir = base / self.stem          # arbo pipelines
        self.csv_path = base / f"{self.stem}.csv"  # peers

    def label(self):
        return f"{self.method} / {self.problem} / seed {self.seed}"

    def status(self):
        return read_json(self.status_path) or {}

    def is_done(self, budget):
        st = self.status()
        return st.get("state") == "done" and st.get("budget", 0) >= budget

    def run(self):
        r = self.runner
        budget = r.suite.budget_of(self.problem)
        st = self.status()
        if r.stopping.is_set():
            return "not started (interrupted)"
        if self.is_done(budget):
            return "skipped (finished)"
        if st.get("state") == "error" and not r.args.retry_errors:
            return f"skipped (recorded error, exit {st.get('exit_code')}; --retry-errors reruns it)"
        self.base.mkdir(parents=True, exist_ok=True)
        cmd = self.peer_command() if self.is_peer else self.arbo_command()
        t0 = time.perf_counter()
        with open(self.log_path, "a", encoding="utf-8") as log:
            log.write(f"$ {shlex.join(cmd)}\n")
            log.flush()
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
            with r.lock:
                r.procs.add(proc)
            rc = proc.wait()
            with r.lock:
                r.procs.discard(proc)
        wall = time.perf_counter() - t0
        if r.stopping.is_set() and rc != 0:
            return "interrupted (resumed on the next run)"
        state = {"budget": budget, "exit_code": rc, "wall_seconds": wall, "command": cmd}
        if rc == 0 and (self.is_peer or self.count_finished() >= budget):
            state["state"] = "done"
            write_json(self.status_path, state)
            return f"done in {wall:.1f} s"
        if rc == EXIT_INTERRUPTED or rc < 0:  # Ctrl-C, or killed by a signal
            return "interrupted (resumed on the next run)"
        if rc == 0:
            # A time limit stopped it; the next run resumes it.
            return f"stopped with {self.count_finished()} of {budget} evaluations"
        state["state"] = "error"
        state["error"] = last_error_line(self.log_path)
        write_json(self.status_path, state)
        return f"error (exit {rc}): {state['error']}"

    def arbo_command(self):
        r = self.runner
        s = r.suite
        base = r.arbo_cmd()
        if (self.study_dir / "study.db").exists():
            return base + ["run", "--resume", "--study", str(self.study_dir), "--quiet",
                           "--set", f"study.budget={s.budget_of(self.problem)}"]
        return (base + ["run", str(s.pipelines[self.method]), "--study", str(self.study_dir),
                        "--quiet"] + self.fresh_set_args())

    def check_command(self):
        """`arbo check` of the pipeline with the overrides a fresh run of this job gives."""
        return (self.runner.arbo_cmd() + ["check", str(self.runner.suite.pipelines[self.method])]
                + self.fresh_set_args())

    def fresh_set_args(self):
        """The --set arguments that a new study of this job is started with."""
        s = self.runner.suite
        info = self.runner.problem_info[self.problem]
        sets = {
            "problem.plugin": json.dumps(self.problem),
            "study.seed": str(self.seed),
            "study.budget": str(s.budget_of(self.problem)),
            "initial_design.size": str(s.initial_design_of(self.problem)),
            "study.direction": json.dumps(info["direction"]),
            "study.name": json.dumps(f"{self.method}-{self.problem}-seed{self.seed}"),
        }
        if s.noise > 0:
            sets["problem.noise"] = repr(s.noise)
        sets.update(s.pipeline_sets[self.method])
        sets.update(s.sets)
        return [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]

    def peer_command(self):
        r = self.runner
        s = r.suite
        cmd = [sys.executable, str(BENCH_DIR / "optuna_peer.py"), "--arbo", r.arbo,
               "--problem", self.problem, "--problems-json", str(r.out / "problems.json"),
               "--sampler", PEERS[self.method], "--seed", str(self.seed),
               "--budget", str(s.budget_of(self.problem)), "--out", str(self.csv_path)]
        for p in r.args.plugin_path or []:
            cmd += ["--plugin-path", p]
        if s.noise > 0:
            cmd += ["--noise", repr(s.noise)]
        return cmd

    def export(self):
        """Observations of an arbo study as `arbo export --format json` prints them."""
        if not (self.study_dir / "study.db").exists():
            return []
        return sorted(export_study(self.runner.arbo_cmd(), self.study_dir),
                      key=lambda o: o["id"])

    def count_finished(self):
        return sum(1 for o in self.export() if o["status"] != "pending")

    def raw_rows(self):
        """(objective or None, feasible, violation or None, propose_seconds, eval_seconds) per
        evaluation."""
        budget = self.runner.suite.budget_of(self.problem)
        rows = []
        if self.is_peer:
            if not self.csv_path.exists():
                return rows
            with open(self.csv_path, newline="", encoding="utf-8") as f:
                for r in csv.DictReader(f):
                    obj = float(r["objective"]) if r["objective"] != "" else None
                    viol = r.get("violation", "")
                    rows.append((obj, r["feasible"] == "1", float(viol) if viol else None,
                                 float(r["propose_seconds"]), float(r["eval_seconds"])))
        else:
            done = [o for o in self.export() if o["status"] != "pending"][:budget]
            viols = self.violations([o["params"] for o in done if o["status"] == "complete"])
            for o in done:
                ok = o["status"] == "complete"
                rows.append((o["objective"] if ok else None, bool(ok and o["feasible"]),
                             viols.pop(0) if ok else None, float(o["propose_seconds"]),
                             float(o["eval_seconds"])))
        return rows[:budget]

    def violations(self, points):
        """The largest constraint violation of each point (`arbo problem eval`, one process for
        all of them); None where it gives none."""
        if not points:
            return []
        text = "".join(json.dumps({"params": p}) + "\n" for p in points)
        out = subprocess.run(self.runner.arbo_cmd() + ["problem", "eval", self.problem],
                             input=text, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"arbo problem eval {self.problem}: {out.stderr.strip()}")
        result = [json.loads(line).get("violation") for line in out.stdout.splitlines()]
        if len(result) != len(points):
            raise RuntimeError(f"arbo problem eval {self.problem}: {len(result)} answers for "
                               f"{len(points)} points")
        return result


# ---------------------------------------------------------------------------------------------
# Runner


class Runner:
    def __init__(self, args):
        self.args = args
        self.suite = Suite(args.suite, args)
        require_modules(["matplotlib"] + (["optuna"] if self.suite.peers else []), "run_suite")
        self.out = Path(args.out).resolve()
        self.arbo = str(Path(args.arbo).resolve()) if args.arbo else self.default_arbo()
        self.problem_info = {}
        self.errors = []  # (method, problem, seed or None, message)
        self.lock = threading.Lock()
        self.procs = set()  # running children, interrupted with us
        self.stopping = threading.Event()

    @staticmethod
    def default_arbo():
        env = os.environ.get("ARBO_CLI")
        cand = Path(env) if env else REPO_DIR / "build" / "bin" / "arbo"
        if not cand.exists():
            raise SystemExit(f"run_suite: no arbo CLI at {cand}; build it or pass --arbo PATH")
        return str(cand)

    def arbo_cmd(self):
        cmd = [self.arbo]
        for p in self.args.plugin_path or []:
            cmd += ["--plugin-path", p]
        return cmd

    def load_problems(self):
        out = subprocess.run(self.arbo_cmd() + ["problems", "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, check=False)
        try:
            problems = json.loads(out.stdout)
        except ValueError:
            raise SystemExit(f"run_suite: 'arbo problems --json' failed (exit {out.returncode}): "
                             f"{out.stderr.strip()}")
        self.out.mkdir(parents=True, exist_ok=True)
        write_json(self.out / "problems.json", problems)
        by_name = {p["name"]: p for p in problems}
        names = []
        for pattern in self.suite.problem_patterns:
            if any(c in pattern for c in "*?["):
                matches = sorted(n for n in by_name if fnmatch.fnmatchcase(n, pattern))
                if not matches:
                    self.errors.append(("all", pattern, None, "pattern matches no loaded problem"))
                names += matches
            else:
                names.append(pattern)
        self.suite.problems = list(dict.fromkeys(names))  # without repeats, in order
        for name in self.suite.problems:
            p = by_name.get(name)
            if p is None:
                self.errors.append(("all", name, None, "problem is not loaded (no such component)"))
            elif "error" in p:
                self.errors.append(("all", name, None, f"problem failed to load: {p['error']}"))
            else:
                self.problem_info[name] = p
        for flag, given, allowed in self.subset_filters():
            for value in given or []:
                if value not in allowed:
                    raise SystemExit(f"run_suite: --{flag} {value}: not a value of the suite's "
                                     f"{flag} ({', '.join(map(str, allowed))})")

    def subset_filters(self):
        """(flag, values given, the suite's values) of --methods, --problems and --seeds."""
        seeds = sorted({s for p in self.suite.problems for s in self.suite.seeds_of(p)})
        return [("methods", self.args.methods, self.suite.methods()),
                ("problems", self.args.problems, self.suite.problems),
                ("seeds", self.args.seeds, seeds)]

    def jobs(self):
        # --methods / --problems / --seeds keep a subset of the suite's runs: a protocol split
        # between machines or runners (each with its own --out, reported whole later with --merge), or
        # the rerun of a few studies, without a suite file per subset.
        methods, problems, seeds = self.args.methods, self.args.problems, self.args.seeds
        jobs = [Job(self, m, p, s) for m in self.suite.methods() if not methods or m in methods
                for p in self.suite.problems
                if p in self.problem_info and (not problems or p in problems)
                for s in self.suite.seeds_of(p) if not seeds or s in seeds]
        if self.suite.order == "seed":
            rank = {s: k for k, s in enumerate(sorted({j.seed for j in jobs}))}
            jobs.sort(key=lambda j: rank[j.seed])  # stable: method and problem order kept
        return jobs

    def subset_note(self):
        parts = [f"--{flag} {','.join(map(str, given))}"
                 for flag, given, _ in self.subset_filters() if given]
        return f", only {' '.join(parts)}" if parts else ""

    def run(self):
        s = self.suite
        self.out.mkdir(parents=True, exist_ok=True)
        if self.args.report_only:
            return self.report_only()
        # Two runners on one folder would fight over the same studies; the lock dies with us.
        self.lock_file = open(self.out / ".run_suite.lock", "w")
        try:
            fcntl.flock(self.lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SystemExit(f"run_suite: another run_suite.py is using {self.out}")
        self.load_problems()
        shutil.copyfile(s.path, self.out / "suite.toml")
        jobs = self.jobs()
        workers = self.args.jobs or os.cpu_count() or 1
        print(f"suite {s.name}: {len(s.methods())} methods x {len(self.problem_info)} problems x "
              f"{len(s.seeds)} seeds (default){self.subset_note()} = {len(jobs)} runs of "
              f"{s.budget} evaluations, {workers} in parallel -> {self.out}", flush=True)
        if self.args.check:
            return self.check(jobs)
        if self.args.dry_run:
            for j in jobs:
                st = j.status()
                print(f"  {j.label()}: {st.get('state', 'to run')}")
            for m, p, seed, msg in self.errors:
                print(f"  error: {m} / {p}: {msg}")
            return
        t0 = time.perf_counter()
        done = 0
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
        try:
            futures = {pool.submit(j.run): j for j in jobs}
            for fut in concurrent.futures.as_completed(futures):
                j = futures[fut]
                try:
                    msg = fut.result()
                except Exception as e:  # a runner bug must not lose the other studies
                    msg = f"error: {e}"
                done += 1
                print(f"[{done}/{len(jobs)}] {j.label()}: {msg}", flush=True)
        except KeyboardInterrupt:
            # Children stop cleanly on SIGINT (arbo keeps its study resumable); a Ctrl-C in a
            # terminal has sent them one already, a `kill -INT` to this process has not.
            self.stopping.set()
            with self.lock:
                for proc in self.procs:
                    if proc.poll() is None:
                        proc.send_signal(signal.SIGINT)
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown()
        run_seconds = time.perf_counter() - t0
        for j in jobs:
            st = j.status()
            if st.get("state") == "error":
                self.errors.append((j.method, j.problem, j.seed,
                                    f"exit {st.get('exit_code')}: {st.get('error', '')}"))
        plots = self.write_outputs(jobs, run_seconds)
        print(f"wrote {self.out / 'results.csv'}, {self.out / 'report.md'} and "
              f"{len(plots)} plots ({time.perf_counter() - t0:.1f} s)", flush=True)

    def check(self, jobs):
        """Runs `arbo check` on each (pipeline, problem) of the suite with the overrides its
        runs get (seeds only change a number, so one seed stands for all); exits 1 naming
        every failure and every problem that did not load. Runs no study."""
        failed = [f"{m} / {p}: {msg}" for m, p, _, msg in self.errors]
        seen = set()
        for j in jobs:
            if j.is_peer or (j.method, j.problem) in seen:
                continue
            seen.add((j.method, j.problem))
            out = subprocess.run(j.check_command(), stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, check=False)
            if out.returncode != 0:
                failed.append(f"{j.method} / {j.problem}: arbo check exit {out.returncode}: "
                              f"{out.stdout.strip()}")
        for f in failed:
            print(f"  error: {f}", flush=True)
        print(f"{self.suite.path}: {len(seen)} pipeline/problem pairs checked, "
              f"{len(failed)} failed", flush=True)
        if failed:
            sys.exit(1)

    def write_outputs(self, jobs, run_seconds):
        """results.csv, the plots and report.md from `jobs`; returns the plots."""
        results = self.collect(jobs)
        write_csv(self.out / "results.csv", results)
        plots = {} if self.args.no_plots else make_plots(self, results)
        write_report(self, jobs, results, plots, run_seconds)
        return plots

    def report_only(self):
        """results.csv and report.md from the finished runs alone; runs nothing, takes no lock
        (a runner may be working in the folder), and leaves the unfinished runs as they are."""
        if not self.out.is_dir():
            raise SystemExit(f"run_suite: {self.out} does not exist")
        self.load_problems()
        jobs = [j for j in self.jobs() if j.is_done(self.suite.budget_of(j.problem))]
        merged = len(self.merged_runs())
        print(f"suite {self.suite.name}: report from {len(jobs)} finished runs of "
              f"{len(self.jobs())}" + (f", and {merged} runs merged from --merge" if merged else ""),
              flush=True)
        self.write_outputs(jobs, None)
        print(f"wrote {self.out / 'results.csv'} and {self.out / 'report.md'}", flush=True)

    def collect(self, jobs):
        """results[method][problem][seed] = list of CSV row dicts."""
        results = {}
        for j in jobs:
            info = self.problem_info[j.problem]
            maximize = info["direction"] == "maximize"
            fstar = info.get("optimum")
            rows, best, best_viol = [], None, None
            for i, (obj, feas, viol, tp, te) in enumerate(j.raw_rows(), start=1):
                if obj is not None and feas and (best is None or
                                                 (obj > best if maximize else obj < best)):
                    best, best_viol = obj, viol
                rows.append({
                    "pipeline": j.method, "problem": j.problem, "seed": j.seed, "evaluation": i,
                    "objective": "" if obj is None else repr(float(obj)),
                    "feasible": 1 if feas else 0,
                    "best_feasible": "" if best is None else repr(float(best)),
                    "regret": "" if best is None or fstar is None else repr(abs(best - fstar)),
                    "propose_seconds": repr(tp), "eval_seconds": repr(te),
                    "violation": "" if viol is None else repr(float(viol)),
                    "best_violation": "" if best is None or best_viol is None
                    else repr(float(best_viol)),
                })
            results.setdefault(j.method, {}).setdefault(j.problem, {})[j.seed] = rows
        for (method, problem, seed), rows in self.merged_runs().items():
            results.setdefault(method, {}).setdefault(problem, {})[seed] = rows
        # The suite's order, whichever runs came from disk and which from --merge.
        return {m: {p: results[m][p] for p in self.suite.problems if p in results[m]}
                for m in self.suite.methods() if m in results}

    def merged_runs(self):
        """{(method, problem, seed): CSV rows} of the --merge files: the suite's runs that are
        not finished on disk here and that reached the budget there (their first `budget`
        evaluations, as written there). The first file that has a run whole gives it."""
        budget = self.suite.budget_of
        wanted = {(j.method, j.problem, j.seed) for j in self.jobs()
                  if not j.is_done(budget(j.problem))}
        runs = {}
        for path in self.args.merge or []:
            found = {}
            for row in read_results_csv(path):
                key = (row["pipeline"], row["problem"], int(row["seed"]))
                if key in wanted and key not in runs:
                    found.setdefault(key, []).append(row)
            for key, rows in found.items():
                rows.sort(key=lambda r: int(r["evaluation"]))
                if len(rows) >= budget(key[1]):  # a run stopped part-way there is not merged
                    runs[key] = rows[:budget(key[1])]
        return runs


def read_results_csv(path):
    """The rows of a results.csv written by this runner: PATH is the file, its .gz copy, or an
    output folder holding either. Exits with a message naming PATH when there is none, or when
    its header is not this runner's."""
    path = Path(path)
    cands = [path / "results.csv", path / "results.csv.gz"] if path.is_dir() else [path]
    found = next((c for c in cands if c.is_file()), None)
    if found is None:
        raise SystemExit(f"run_suite: --merge {path}: no results.csv or results.csv.gz there")
    opener = gzip.open if found.suffix == ".gz" else open
    with opener(found, "rt", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames not in (CSV_FIELDS, CSV_FIELDS_V1):
            raise SystemExit(f"run_suite: --merge {found}: header {reader.fieldnames} is not "
                             f"a results.csv header ({','.join(CSV_FIELDS)})")
        return [{k: r.get(k, "") for k in CSV_FIELDS} for r in reader]


def write_csv(path, results):
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for method in results:
            for problem in results[method]:
                for seed in sorted(results[method][problem]):
                    w.writerows(results[method][problem][seed])
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# Statistics, plots, report

INF = float("inf")


def quantile(values, q):
    """Linear-interpolation quantile where +inf (no feasible point) sorts last."""
    v = sorted(values)
    if not v:
        return None
    pos = q * (len(v) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(v) - 1)
    if v[hi] == INF or v[lo] == INF:
        return INF if pos > lo or v[lo] == INF else v[lo]
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def metric_of(row, use_regret):
    key = "regret" if use_regret else "best_feasible"
    return float(row[key]) if row[key] != "" else INF


def curves(runner, results, method, problem):
    """Per evaluation: (q25, median, q75) of the regret (or best value) over seeds."""
    use_regret = runner.problem_info[problem].get("optimum") is not None
    maximize = runner.problem_info[problem]["direction"] == "maximize"
    per_seed = results.get(method, {}).get(problem, {})
    n = max((len(r) for r in per_seed.values()), default=0)
    out = []
    for i in range(n):
        vals = []
        for rows in per_seed.values():
            if i < len(rows):
                v = metric_of(rows[i], use_regret)
                # Without f*, a larger best is better when maximizing: flip so inf stays worst.
                vals.append(-v if (maximize and not use_regret and v != INF) else v)
        qs = [quantile(vals, q) for q in (0.25, 0.5, 0.75)]
        if maximize and not use_regret:
            qs = [-x if x not in (None, INF) else x for x in reversed(qs)]
        out.append(qs)
    return out


def make_plots(runner, results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    plot_dir = runner.out / "plots"
    plot_dir.mkdir(exist_ok=True)
    plots = {}
    for problem in runner.suite.problems:
        if problem not in runner.problem_info:
            continue
        info = runner.problem_info[problem]
        use_regret = info.get("optimum") is not None
        series = {m: curves(runner, results, m, problem) for m in runner.suite.methods()}
        finite = [v for c in series.values() for q in c for v in q
                  if v is not None and v != INF and v == v]
        positive = [v for v in finite if v > 0]
        log = use_regret and positive and (max(positive) / min(positive) > 20)
        floor = min(positive) / 10 if positive else 1e-12
        fig, ax = plt.subplots(figsize=(7, 4.5), dpi=100)
        for method, c in series.items():
            if not c:
                continue
            xs = list(range(1, len(c) + 1))

            def clean(v):
                if v is None or v == INF or v != v:
                    return float("nan")
                return max(v, floor) if log else v

            med = [clean(q[1]) for q in c]
            lo = [clean(q[0]) for q in c]
            hi = [clean(q[2]) for q in c]
            # Best-so-far curves are step functions of the evaluation count.
            line, = ax.plot(xs, med, label=method, linewidth=1.6, drawstyle="steps-post")
            ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0,
                            step="post")
        if log:
            ax.set_yscale("log")
            # Label minor ticks too: a curve spanning less than a decade has no major label.
            ax.yaxis.set_minor_formatter(matplotlib.ticker.LogFormatterSciNotation(
                labelOnlyBase=False, minor_thresholds=(2, 0.5)))
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_xlabel("evaluation")
        ax.set_ylabel("best feasible regret |best - f*|" if use_regret else "best feasible value")
        star = " (best known)" if info.get("optimum_is_best_known") else ""
        title = f"{problem}: median and IQR over {len(runner.suite.seeds_of(problem))} seeds"
        if use_regret:
            title += f", f* = {info['optimum']:.6g}{star}"
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = plot_dir / f"{problem}.png"
        fig.savefig(path, metadata={"Software": None})
        plt.close(fig)
        plots[problem] = path
    return plots


def fmt_num(v):
    if v is None:
        return "-"
    if v == INF:
        return "no feasible"
    return f"{v:.4g}"


def machine_info():
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    try:
        uname = subprocess.run(["uname", "-a"], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        uname = " ".join(platform.uname())
    return uname, os.cpu_count(), mem


def git_commit():
    try:
        sha = subprocess.run(["git", "-C", str(REPO_DIR), "rev-parse", "HEAD"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             check=True).stdout.strip()
        # diff-index reads the index without rewriting it (unlike `git status`).
        dirty = subprocess.run(["git", "-C", str(REPO_DIR), "diff-index", "--quiet", "HEAD", "--"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               check=False).returncode != 0
        return sha + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def optuna_version(jobs):
    for j in jobs:
        if j.is_peer:
            meta = read_json(j.csv_path.with_suffix(".json"))
            if meta and meta.get("optuna_version"):
                return meta["optuna_version"]
    try:
        import importlib.metadata
        return importlib.metadata.version("optuna")
    except Exception:
        return "not installed"


def describe_problem(info):
    t = info["types"]
    types = ", ".join(f"{n} {k}" for k, n in t.items() if n)
    parts = [f"dimension {info['dimension']} ({types})"]
    if info["constraints"]:
        parts.append(f"{len(info['constraints'])} black-box constraint(s)")
    if info["known_constraints"]:
        parts.append(f"{len(info['known_constraints'])} known constraint(s)")
    if info.get("optimum") is not None:
        parts.append(f"f* = {info['optimum']:.10g}" +
                     (" (best known)" if info.get("optimum_is_best_known") else ""))
    else:
        parts.append("f* unknown (best value reported instead of regret)")
    parts.append(info["direction"])
    return "; ".join(parts)


def write_report(runner, jobs, results, plots, run_seconds):
    s = runner.suite
    uname, cores, mem = machine_info()
    methods = s.methods()
    lines = [f"# Benchmark report: {s.name}", ""]
    if s.description:
        lines += [s.description, ""]
    try:
        suite_rel = s.path.relative_to(REPO_DIR)
    except ValueError:
        suite_rel = s.path
    lines += [
        f"- suite: `{suite_rel}` ({len(s.problems)} problems, seeds {s.seeds}"
        + "".join(f", {len(v)} seeds on {k}" for k, v in s.seeds_of.overrides.items())
        + f", budget {s.budget} evaluations"
        + "".join(f", {v} on {k}" for k, v in s.budget_of.overrides.items())
        + f", initial design {s.initial_design}"
        + "".join(f", {v} on {k}" for k, v in s.initial_design_of.overrides.items())
        + (f", objective noise SD {s.noise}" if s.noise > 0 else "")
        + "".join(f", {k} = {v}" for k, v in s.sets.items()) + ")",
        f"- pipelines: " + ", ".join(
            f"`{m}` ({p.relative_to(REPO_DIR) if p.is_relative_to(REPO_DIR) else p}"
            + "".join(f", {k} = {v}" for k, v in s.pipeline_sets[m].items()) + ")"
            for m, p in s.pipelines.items()) if s.pipelines else "- pipelines: none",
        f"- peers: {', '.join(s.peers) if s.peers else 'none'}",
        f"- command: `{shlex.join([Path(sys.argv[0]).name] + sys.argv[1:])}` "
        f"(run from `{os.getcwd()}`)",
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}; "
        + (f"this invocation took {run_seconds:.1f} s" if run_seconds is not None else
         f"report only (--report-only), from the {len(jobs)} finished runs")
        + (f"; runs not on disk merged from {', '.join(f'`{m}`' for m in runner.args.merge)}"
           if runner.args.merge else ""),
        f"- machine: `{uname}`; {cores} cores; {mem} memory",
        f"- repository commit when this report was written: {git_commit()} (the runs may come "
        f"from earlier builds); CLI `{runner.arbo}`",
        f"- Python {platform.python_version()}; Optuna {optuna_version(jobs)}",
        "",
        "Regret is |best feasible value so far - f*|. Medians and interquartile ranges are over "
        "seeds; a seed that found no feasible point counts as infinite regret (\"no feasible\").",
        "",
        "## Summary: median final regret (best value where f* is unknown)",
        "",
        "| problem | " + " | ".join(methods) + " |",
        "|---|" + "---|" * len(methods),
    ]
    summary = {}
    for problem in s.problems:
        if problem not in runner.problem_info:
            continue
        cells = []
        for m in methods:
            st = stats(runner, results, m, problem)
            summary[(m, problem)] = st
            cells.append((fmt_num(st["median"]) if st["n"] else "-") + error_note(runner, m, problem))
        lines.append(f"| {problem} | " + " | ".join(cells) + " |")
    lines.append("")
    for problem in s.problems:
        lines += [f"## {problem}", ""]
        info = runner.problem_info.get(problem)
        if info is None:
            lines += ["Not run: the problem is not available (see Errors).", ""]
            continue
        use_regret = info.get("optimum") is not None
        what = "regret" if use_regret else "best value"
        lines += [describe_problem(info) + ".", ""]
        if info.get("source"):
            lines += [f"Source: {info['source']}", ""]
        lines += [f"| pipeline | seeds | found feasible | final {what}: median | IQR (25%-75%) "
                  f"| constraint violation of the final best | median proposal time per iteration |",
                  "|---|---|---|---|---|---|---|"]
        for m in methods:
            st = summary[(m, problem)]
            if st["n"] == 0:
                lines.append(f"| {m} | 0 | - | - | - | - | - |")
                continue
            lines.append(
                f"| {m} | {st['n']}{error_note(runner, m, problem)} | {st['feasible']}/{st['n']} | "
                f"{fmt_num(st['median'])} | "
                f"{fmt_num(st['q25'])} - {fmt_num(st['q75'])} | "
                f"{fmt_violation(st['violations'])} | "
                f"{fmt_time(st['propose_median'])} |")
        lines.append("")
        if problem in plots:
            lines += [f"![{problem}](plots/{plots[problem].name})", ""]
    lines += ["## Notes", ""]
    if s.peers:
        lines += [
            "- Optuna peers run in `bench/optuna_peer.py`: `TPESampler(seed=S)` with Optuna's "
            "defaults (for 3.1: 10 random startup trials, univariate Parzen estimators, 24 EI "
            "candidates), with `constraints_func` on constrained problems; `RandomSampler(seed=S)`."
            " Their startup phase is Optuna's own, not the suite's initial design. Every point is "
            "evaluated by `arbo problem eval`, the same C++ objective arbo's pipelines use. "
            "Their proposal time is the sampler's time per trial (`ask` plus the suggest calls).",
        ]
        kc = [p for p in s.problems if p in runner.problem_info
              and runner.problem_info[p]["known_constraints"]]
        if kc:
            lines.append(
                "- Known constraints (" + ", ".join(kc) + "): Optuna has no notion of them. TPE "
                "gets a violated known constraint through `constraints_func`, as if it were "
                "black-box, so such a point is infeasible and its evaluation counts against the "
                "budget; RandomSampler ignores them. arbo's pipelines never propose such points.")
    lines += ["- Times are wall-clock seconds on the machine above, with up to "
              f"{runner.args.jobs or cores} runs in parallel; compare them within one report only.",
              "- Per-evaluation data: `results.csv`; each arbo study is a normal study directory "
              "under `studies/<pipeline>/<problem>/seed<S>` (`arbo show`, `arbo export`).", ""]
    lines += ["## Errors", ""]
    if runner.errors:
        for m, p, seed, msg in runner.errors:
            where = f"{m} / {p}" + (f" / seed {seed}" if seed is not None else "")
            lines.append(f"- {where}: {msg}")
    else:
        lines.append("None.")
    lines.append("")
    (runner.out / "report.md").write_text("\n".join(lines), encoding="utf-8")


def error_note(runner, method, problem):
    n = sum(1 for m, p, seed, _ in runner.errors if m == method and p == problem and seed)
    return f" ({n} failed, see Errors)" if n else ""


def fmt_time(v):
    if v is None:
        return "-"
    return f"{v * 1000:.3g} ms" if v < 1 else f"{v:.3g} s"


def stats(runner, results, method, problem):
    info = runner.problem_info[problem]
    use_regret = info.get("optimum") is not None
    maximize = info["direction"] == "maximize"
    per_seed = results.get(method, {}).get(problem, {})
    finals, feasible, times, violations = [], 0, [], []
    for rows in per_seed.values():
        if not rows:
            finals.append(INF)
            continue
        v = metric_of(rows[-1], use_regret)
        if v != INF:
            feasible += 1
            if rows[-1].get("best_violation", "") != "":
                violations.append(float(rows[-1]["best_violation"]))
        finals.append(-v if (maximize and not use_regret and v != INF) else v)
        times += [float(r["propose_seconds"]) for r in rows]
    qs = [quantile(finals, q) for q in (0.25, 0.5, 0.75)]
    if maximize and not use_regret:
        qs = [-x if x not in (None, INF) else x for x in reversed(qs)]
    return {"n": len(per_seed), "feasible": feasible, "q25": qs[0], "median": qs[1],
            "q75": qs[2], "propose_median": quantile(times, 0.5) if times else None,
            "violations": violations}


def fmt_violation(values):
    """The final best values' constraint violations: "0" when none violates anything, else the
    largest and how many seeds violate (within the known constraints' 1e-6 tolerance, or the
    point would not count as feasible); "-" when unknown."""
    if not values:
        return "-"
    positive = [v for v in values if v > 0]
    if not positive:
        return "0"
    return f"{max(positive):.2g} ({len(positive)} of {len(values)} seeds)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite", help="suite TOML file")
    ap.add_argument("--out", required=True, help="output folder (reused: resumes)")
    ap.add_argument("--arbo", help="arbo CLI (default: $ARBO_CLI, else build/bin/arbo)")
    ap.add_argument("--plugin-path", action="append", help="extra plugin directory for arbo")
    ap.add_argument("-j", "--jobs", type=int, default=0,
                    help="runs in parallel (default: number of cores)")
    ap.add_argument("--budget", type=int, help="override the suite's budget")
    ap.add_argument("--no-peers", action="store_true", help="skip the Optuna peers")
    ap.add_argument("--no-plots", action="store_true", help="skip the plots")
    ap.add_argument("--dry-run", action="store_true",
                    help="list the runs and their state, run nothing")
    ap.add_argument("--check", action="store_true",
                    help="validate every pipeline of the suite on every problem with `arbo "
                         "check` and the suite's overrides, run nothing; exit 1 on a failure")
    ap.add_argument("--report-only", action="store_true",
                    help="rebuild results.csv and report.md from the finished runs, run nothing")
    ap.add_argument("--merge", action="append", metavar="PATH",
                    help="also report the runs of an earlier results.csv (file, .gz, or output "
                         "folder) that are not on disk here; repeatable")
    ap.add_argument("--seeds", type=int_list, metavar="S,S,...",
                    help="only the runs of these seeds (each must be one of the suite's)")
    ap.add_argument("--methods", type=name_list, metavar="M,M,...",
                    help="only the runs of these pipelines or peers (each one of the suite's)")
    ap.add_argument("--problems", type=name_list, metavar="P,P,...",
                    help="only the runs on these problems (each must be one of the suite's)")
    ap.add_argument("--retry-errors", action="store_true",
                    help="rerun studies whose error was recorded (default: keep the error)")
    # A runner started with `&` from a non-interactive shell inherits SIGINT ignored, and a
    # `kill -INT` then did nothing; SIGTERM killed it and left its studies running. Both now
    # stop the suite the same way: the running studies get SIGINT and stay resumable.
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    try:
        Runner(ap.parse_args()).run()
    except KeyboardInterrupt:
        # The studies are intact: arbo and the peers got the same SIGINT.
        sys.exit("run_suite: interrupted; rerun the same command to resume")


if __name__ == "__main__":
    main()

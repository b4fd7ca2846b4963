#!/usr/bin/env python3
"""How the kernel's cost grows with the number of observations, through the real CLI.

    bench/kernel_overhead/scaling.py [BUILD_DIR=build] [--sizes 1000,10000,100000]
                                     [--extra 2000] [--repeats 3] [--label TEXT]
                                     [--out FILE.json]

For each size N a random search of N evaluations is run (configs/quickstart.toml: constrained
Branin, `inner_solver/random`, `--quiet`), then, on copies of that complete study:

- resume:        `arbo run --resume` with nothing left to do: process start, plugin loading,
                 opening the study and rebuilding its dataset from N observations;
- per iteration: `arbo run --resume --set study.budget=N+EXTRA`: the loop's wall time (as
                 the run's summary line prints it) over EXTRA, the cost of one evaluation in
                 a study of about N observations (random search on Branin: the plugins'
                 share is microseconds, the rest is the kernel and its two SQLite commits);
- show:          `arbo show` (reads every observation once: the floor for a resume).

Each figure is the median of REPEATS runs. The smallest size is the baseline: the report gives
every figure as a ratio to it, so machines and loads compare. A kernel whose per-iteration cost
does not grow with the study has per-iteration ratios near 1; resume ratios then grow like N
(reading the observations), as show's do.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "configs" / "quickstart.toml"


# The summary line of `arbo run`: "<termination>: E evaluations in this run, ..., S s".
SUMMARY = re.compile(r"(\d+) evaluations in this run, .*, ([0-9.]+) s$", re.M)


def timed(args):
    """Wall time of the command, and its standard output."""
    t0 = time.perf_counter()
    out = subprocess.run(args, check=True, stdout=subprocess.PIPE, text=True, cwd=ROOT).stdout
    return time.perf_counter() - t0, out


def loop_seconds_per_evaluation(out):
    m = SUMMARY.search(out)
    if not m or int(m.group(1)) == 0:
        sys.exit(f"no evaluations in the run's summary: {out!r}")
    return float(m.group(2)) / int(m.group(1))


def median_of(repeats, make_args, study, scratch, measure):
    """Median of `measure(wall, stdout)` of `make_args(copy)` over fresh copies of `study`."""
    values = []
    for _ in range(repeats):
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(study, scratch)
        values.append(measure(*timed(make_args(scratch))))
    shutil.rmtree(scratch, ignore_errors=True)
    return statistics.median(values)


def commit_of(build):
    """The build's type and the commit of the source tree it was configured from."""
    source, build_type = ROOT, "unknown"
    cache = pathlib.Path(build) / "CMakeCache.txt"
    if cache.exists():
        for line in cache.read_text().splitlines():
            if line.startswith("CMAKE_BUILD_TYPE:"):
                build_type = line.split("=", 1)[1]
            elif line.startswith("CMAKE_HOME_DIRECTORY:"):
                source = pathlib.Path(line.split("=", 1)[1])
    try:
        commit = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(source), "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        if dirty:
            commit += "+changes"
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return commit, build_type


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--extra", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", help="also write the results as JSON to this file")
    ap.add_argument("--label", help="names the build in the report (default: the commit of "
                    "the source tree it was configured from, which may have moved since)")
    a = ap.parse_args()
    arbo = str(pathlib.Path(a.build).resolve() / "bin" / "arbo")
    sizes = [int(s) for s in a.sizes.split(",")]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="arbo_scaling_"))
    rows = []
    try:
        for n in sizes:
            study = tmp / f"s{n}"
            create, _ = timed([arbo, "run", str(PIPELINE), "--study", str(study), "--quiet",
                               "--set", f"study.budget={n}"])
            scratch = tmp / "copy"
            resume = median_of(a.repeats, lambda s: [arbo, "run", "--resume", "--study", str(s),
                                                     "--quiet"], study, scratch,
                               lambda wall, out: wall)
            per_iteration = median_of(a.repeats,
                                      lambda s: [arbo, "run", "--resume", "--study", str(s),
                                                 "--quiet", "--set",
                                                 f"study.budget={n + a.extra}"],
                                      study, scratch,
                                      lambda wall, out: loop_seconds_per_evaluation(out))
            show = statistics.median(timed([arbo, "show", str(study)])[0]
                                     for _ in range(a.repeats))
            rows.append({"observations": n, "create_seconds": create, "resume_seconds": resume,
                         "per_iteration_ms": 1e3 * per_iteration, "show_seconds": show})
            shutil.rmtree(study)
            print(f"  {n}: created in {create:.2f} s, resume {resume:.3f} s, "
                  f"{1e3 * per_iteration:.4f} ms / iteration, show {show:.3f} s", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    base = rows[0]
    for r in rows:
        for key in ("create_seconds", "resume_seconds", "per_iteration_ms", "show_seconds"):
            r[key.rsplit("_", 1)[0] + "_ratio"] = r[key] / base[key] if base[key] > 0 else None
    src, build_type = commit_of(a.build)
    if a.label:
        src = a.label
    meta = {"date": datetime.date.today().isoformat(), "commit": src, "build": str(a.build),
            "build_type": build_type, "machine": platform.machine(),
            "cpus": os.cpu_count(), "load_average": os.getloadavg(),
            "python": platform.python_version(), "pipeline": str(PIPELINE.relative_to(ROOT)),
            "extra": a.extra, "repeats": a.repeats}
    print(f"arbo kernel scaling: {arbo} ({build_type}, commit {src}), random search on "
          f"constrained Branin, median of {a.repeats}; ratios against {base['observations']} "
          "observations")
    print(f"| observations | create (s) | per iteration (ms) | ratio | resume (s) | ratio "
          f"| show (s) | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['observations']} | {r['create_seconds']:.2f} | {r['per_iteration_ms']:.4f} "
              f"| {r['per_iteration_ratio']:.2f} | {r['resume_seconds']:.3f} "
              f"| {r['resume_ratio']:.2f} | {r['show_seconds']:.3f} | {r['show_ratio']:.2f} |")
    if a.out:
        pathlib.Path(a.out).write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()

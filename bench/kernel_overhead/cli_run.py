#!/usr/bin/env python3
"""Peak memory and wall time of a real `arbo run` (the CLI process, plugins loaded from .so files).

Usage: bench/kernel_overhead/cli_run.py [BUILD_DIR=build] [EVALS=1000]
Runs a random-search study of EVALS evaluations on hartmann6 and prints the child's peak
resident memory (getrusage RUSAGE_CHILDREN) and wall time per evaluation.
"""
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
evals = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
arbo = os.path.abspath(os.path.join(build, "bin", "arbo"))
tmp = tempfile.mkdtemp(prefix="arbo_cli_bench_")
try:
    pipeline = os.path.join(tmp, "p.toml")
    with open(pipeline, "w") as f:
        f.write(f'[study]\nseed = 1\nbudget = {evals}\n[problem]\nplugin = "hartmann6"\n'
                '[initial_design]\nsize = 10\n[inner_solver]\nplugin = "random"\n')
    t0 = time.perf_counter()
    subprocess.run([arbo, "run", pipeline, "--study", os.path.join(tmp, "s"), "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    db_mb = os.path.getsize(os.path.join(tmp, "s", "study.db")) / 2**20
    print(f"arbo run, {evals} evaluations (hartmann6, random search)")
    print(f"  wall time              {wall:.3f} s  ({1e3 * wall / evals:.3f} ms / evaluation, "
          f"process start and plugin loading included)")
    print(f"  peak resident memory   {rss_mb:.1f} MB  (target < 50 MB)")
    print(f"  study database         {db_mb:.2f} MB")
finally:
    shutil.rmtree(tmp)

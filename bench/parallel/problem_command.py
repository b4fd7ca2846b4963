#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A built-in problem plugin as an external command, for sample_efficiency.py.

  problem_command.py ARBO PROBLEM GATE_DIR   (stdin: the study's {"id": N, "params": {...}})

Evaluates the point with `ARBO problem eval PROBLEM` (the same C++ objective as the plugin; its
output line is a result the study's parser accepts: "objective" and "constraints" by name, the
other keys ignored), then prints that line only after observation N - 1's command has exited.
The results thus reach the study in observation order whatever the commands' durations, so
that with q workers proposal k sees exactly observations k-q+1 .. k-1 pending (in steady
state) and a run is reproducible. Observation ids of a fresh study are 1, 2, ...; GATE_DIR
must be empty when the study starts.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

WAIT_LIMIT = 3600.0  # seconds: a predecessor that never ends (a bug) does not hang the study


def wait_for_predecessor(gate, obs_id):
    if obs_id <= 1:
        return
    marker = gate / f"done_{obs_id - 1}"
    t0 = time.monotonic()
    while not marker.exists():
        if time.monotonic() - t0 > WAIT_LIMIT:
            print(f"problem_command: observation {obs_id - 1} never finished", file=sys.stderr)
            return
        time.sleep(0.01)
    pid = int(marker.read_text())
    # Until the driver has reaped it (a zombie keeps its /proc entry), then a margin for the
    # driver's thread to queue it as finished before this command's exit is seen.
    while Path(f"/proc/{pid}").exists():
        if time.monotonic() - t0 > WAIT_LIMIT:
            return
        time.sleep(0.01)
    time.sleep(0.05)


def main():
    arbo, problem, gate = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    line = sys.stdin.readline()
    obs_id = int(json.loads(line)["id"])
    try:
        out = subprocess.run([arbo, "problem", "eval", problem], input=line,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             check=False)
        answer = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
        if out.returncode != 0 or not answer:
            answer = json.dumps({"error": f"arbo problem eval exited {out.returncode}: "
                                          f"{out.stderr.strip()[-500:]}"})
        wait_for_predecessor(gate, obs_id)
        print(answer, flush=True)
    finally:
        tmp = gate / f".done_{obs_id}.{os.getpid()}"
        tmp.write_text(str(os.getpid()))
        tmp.rename(gate / f"done_{obs_id}")


if __name__ == "__main__":
    main()

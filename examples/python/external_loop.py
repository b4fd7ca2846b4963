# SPDX-License-Identifier: MIT
"""Ask, evaluate elsewhere, tell: arbo proposes the points, something else evaluates them.

    PYTHONPATH=build/python python3 examples/python/external_loop.py [STUDY_DIR]

"Elsewhere" is here a separate process per point (as a cluster job or a lab measurement would
be), three at a time: points asked and not yet told are pending, and arbo proposes the next
ones distinct from them. A job that fails is told as failed, with its reason. Halfway the
study is closed and opened again, as a script that runs once a day would; the CLI reads the
same study (``arbo show STUDY_DIR``, ``arbo tell STUDY_DIR ID --objective V``).
"""

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import arbo

PIPELINE = """
[study]
name = "external-loop"
seed = 2
budget = 24
direction = "minimize"

[problem]
command = ["false"]    # not run: the points are told back by this script

[[problem.parameters]]
name = "step"
type = "real"
low = 0.0
high = 1.0

[[problem.parameters]]
name = "depth"
type = "integer"
low = 1
high = 8

[[problem.parameters]]
name = "solver"
type = "categorical"
choices = ["stable", "unstable"]

[[black_box_constraints]]
name = "memory"
sense = "<="
threshold = 10.0

[initial_design]
size = 6

[surrogate]
plugin = "tpe"

[acquisition]
plugin = "ctpe"

[inner_solver]
plugin = "candidate_pool"
"""

# The evaluation, run in its own process: reads the point as JSON, prints the results.
EVALUATOR = r"""
import json, sys
p = json.load(sys.stdin)
if p["solver"] == "unstable" and p["step"] > 0.6:
    sys.exit("diverged: step too large for the unstable solver")
loss = (p["step"] - 0.3) ** 2 + 0.05 * (p["depth"] - 4) ** 2
loss += 0.0 if p["solver"] == "unstable" else 0.1
print(json.dumps({"loss": loss, "memory": 2.0 * p["depth"]}))
"""

BATCH = 3


def evaluate_elsewhere(params):
    """(results, None), or (None, reason) when the job failed."""
    r = subprocess.run([sys.executable, "-c", EVALUATOR], input=json.dumps(params),
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        lines = r.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit {r.returncode}"
    return json.loads(r.stdout), None


def run_rounds(study, rounds):
    """Asks BATCH points, evaluates them at once, tells each result; `rounds` times."""
    with ThreadPoolExecutor(BATCH) as pool:
        for _ in range(rounds):
            left = study.budget - len(study)
            if left <= 0:
                return
            batch = [study.ask() for _ in range(min(BATCH, left))]
            results = pool.map(lambda item: evaluate_elsewhere(item[1]), batch)
            for (id, params), (result, error) in zip(batch, results):
                if error is not None:
                    study.tell_failed(id, error)
                else:
                    study.tell(id, result["loss"], constraints={"memory": result["memory"]})


def main() -> int:
    parent = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="arbo-external-")
    directory = os.path.join(parent, "external.study")
    with arbo.create_study(directory, toml=PIPELINE) as study:
        run_rounds(study, 4)
    with arbo.open_study(directory) as study:  # the next day
        run_rounds(study, 100)
        obs = study.observations()
        failed = sum(o["status"] == "failed" for o in obs)
        best = study.best
        print(f"{len(obs)} observations ({failed} failed) in {directory}")
        print(f"best loss {best['objective']:.4f} at {best['params']} "
              f"(memory {best['constraints']['memory']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

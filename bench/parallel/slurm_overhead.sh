#!/usr/bin/env bash
# Submission-to-result overhead of [problem] executor = "slurm" on a local single-node cluster
# (tests/slurm/cluster.sh, started and stopped here; root, as the cluster's slurmd needs):
# random search, N evaluations of a command that answers at once, run locally and then as
# Slurm jobs, with workers = 1 and 2, one after the other in this script. The overhead per
# evaluation is the Slurm run's wall time per evaluation minus the local run's.
# Usage: bench/parallel/slurm_overhead.sh [path/to/arbo] [N]   (default: build/bin/arbo, 40)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
ARBO=$(realpath "${1:-build/bin/arbo}")
N=${2:-40}
WORK=$(mktemp -d)
CLUSTER="$WORK/cluster"
trap '"$SRC/tests/slurm/cluster.sh" stop "$CLUSTER" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
"$SRC/tests/slurm/cluster.sh" start "$CLUSTER" >/dev/null
export SLURM_CONF="$CLUSTER/slurm.conf"
cd "$WORK"
cat > obj.py <<'PY'
import json, sys
p = json.load(sys.stdin)["params"]
print((p["x"] - 0.3) ** 2)
PY
pipeline() {  # executor workers poll
  cat <<TOML
[study]
seed = 1
budget = $N
workers = $2
[problem]
command = ["python3", "obj.py"]
timeout = 600
executor = "$1"
[[problem.parameters]]
name = "x"
type = "real"
low = 0.0
high = 1.0
TOML
  [ "$1" = slurm ] && printf '[problem.slurm]\npoll = %s\n' "$3"
  printf '[initial_design]\nsize = 2\n[inner_solver]\nplugin = "random"\n'
}
run() {  # name executor workers poll -> seconds per evaluation
  pipeline "$2" "$3" "$4" > "$1.toml"
  local t0 t1
  t0=$(date +%s.%N)
  "$ARBO" run "$1.toml" --study "$1.study" --quiet > /dev/null
  t1=$(date +%s.%N)
  echo "($t1 - $t0) / $N" | bc -l
}
# Where an evaluation's time goes, from the job's files (mtimes) and the study's timestamps:
# proposal recorded -> sbatch answered (job_id), -> the job started (started), -> the command
# ended (exit_code), -> the driver recorded the result (finished_at). Medians over the run.
phases() {  # study dir
  "$ARBO" export "$1" --format json | /usr/bin/python3 -c '
import json, os, statistics, sys
study = sys.argv[1]
rows = {"submit": [], "queue": [], "run": [], "collect": []}
for o in json.load(sys.stdin):
    d = os.path.join(study, "slurm", str(o["id"]))
    m = lambda f: os.stat(os.path.join(d, f)).st_mtime
    rows["submit"].append(m("job_id") - o["created_at"])
    rows["queue"].append(m("started") - m("job_id"))
    rows["run"].append(m("exit_code") - m("started"))
    rows["collect"].append(o["finished_at"] - m("exit_code"))
print("    medians: proposal->sbatch answered %.0f ms, ->job started %.0f ms (Slurm scheduler), "
      "->command ended %.0f ms, ->result recorded %.0f ms" %
      tuple(1000 * statistics.median(rows[k]) for k in ("submit", "queue", "run", "collect")))
' "$1"
}
echo "N = $N evaluations per run; $("$ARBO" --version 2>/dev/null || echo '?'); $(sbatch --version)"
for q in 1 2; do
  local_s=$(run local$q local $q 1)
  for poll in 1 10; do
    slurm_s=$(run slurm${q}_$poll slurm $q $poll)
    printf 'workers = %d, poll = %2s s: local %6.1f ms/eval, slurm %6.1f ms/eval, overhead %6.1f ms/eval (wall / N)\n' \
      "$q" "$poll" "$(echo "$local_s * 1000" | bc -l)" "$(echo "$slurm_s * 1000" | bc -l)" \
      "$(echo "($slurm_s - $local_s) * 1000" | bc -l)"
    phases "slurm${q}_$poll.study"
  done
done

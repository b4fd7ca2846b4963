#!/bin/sh
# The driver's own cost per evaluation of an external command: random search (a proposal costs
# microseconds) over N evaluations of `/bin/sh -c 'echo 1'`, with workers = 1, 4 and 8, against
# the same command started N times by a plain shell loop in this script (the cost of a process
# that any evaluator pays). Driver overhead = (arbo wall - fixed cost of a run) / (N - 2) - the
# loop's time per command, the fixed cost measured by a run of the 2 initial points alone.
# Usage: bench/parallel/driver_overhead.sh [path/to/arbo] [N]   (default: build/bin/arbo, 500)
set -eu
ARBO=$(realpath "${1:-build/bin/arbo}")
N=${2:-500}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "$0")/lib.sh"
cd "$WORK"
t0=$(date +%s.%N)
i=0
while [ $i -lt "$N" ]; do
  echo '{"id": 1, "params": {"x": 0.5}}' | /bin/sh -c 'echo 1' > /dev/null
  i=$((i + 1))
done
t1=$(date +%s.%N)
loop=$(echo "($t1 - $t0) / $N" | bc -l)
printf 'shell loop: %.2f ms per command\n' "$(echo "$loop * 1000" | bc -l)"
# What a run costs whatever its length (loading the plugins, creating the study): a study of
# its 2 initial points only, subtracted from each run below.
fixed=$(run_random p0 1 2 '"echo 1"')
printf 'fixed cost of a run: %.0f ms\n' "$(echo "$fixed * 1000" | bc -l)"
for q in 1 4 8; do
  per=$(echo "($(run_random p$q "$q" "$N" '"echo 1"') - $fixed) / ($N - 2)" | bc -l)
  printf 'workers = %d: %.2f ms per evaluation, driver overhead %.2f ms per evaluation\n' \
    "$q" "$(echo "$per * 1000" | bc -l)" "$(echo "($per - $loop) * 1000" | bc -l)"
done

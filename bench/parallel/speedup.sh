#!/bin/sh
# Wall-clock speed-up of [study] workers: random search, 24 evaluations of an external command
# that sleeps 1 s, with q = 1, 2, 4 and 8, each measured in this script; ratios against q = 1.
# Usage: bench/parallel/speedup.sh [path/to/arbo]   (default: build/bin/arbo)
set -eu
ARBO=$(realpath "${1:-build/bin/arbo}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$(dirname "$0")/lib.sh"
cd "$WORK"
cat > obj.py <<'PY'
import json, sys, time
p = json.load(sys.stdin)["params"]
time.sleep(1.0)
print((p["x"] - 0.3) ** 2)
PY
base=""
for q in 1 2 4 8; do
  wall=$(run_random p$q "$q" 24 '["python3", "obj.py"]')
  [ -z "$base" ] && base=$wall
  printf 'workers = %d: %6.2f s wall, speed-up %.2f x\n' "$q" "$wall" "$(echo "$base / $wall" | bc -l)"
done

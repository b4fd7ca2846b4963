#!/bin/bash
# Two builds of arbo side by side on the same models, one model at a time, one build per core,
# so that both see the same contention. Prints one line per model and build:
#   model build status nodes lp_iterations seconds gap
# usage: bench/solver/compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR LIMIT_S THREADS MODEL.lp...
# (a build directory holds bin/arbo and lib/; THREADS is glpk_bnb's `threads` for each solve)
set -euo pipefail
old=$1 new=$2 limit=$3 threads=$4
shift 4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for model in "$@"; do
  name=$(basename "$model")
  for build in old new; do
    dir=$old
    [ "$build" = new ] && dir=$new
    LD_LIBRARY_PATH="$dir/lib" "$dir/bin/arbo" solve "$model" --time-limit "$limit" \
      --set "threads=$threads" --json > "$scratch/$build.json" 2>/dev/null &
  done
  wait
  for build in old new; do
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], d["status"].replace(" ", "_"), d["nodes"], d["lp_iterations"],
      round(d["seconds"], 2), d.get("gap"))' "$scratch/$build.json" "$name" "$build"
  done
done

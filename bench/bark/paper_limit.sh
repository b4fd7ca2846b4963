#!/bin/bash
# SPDX-License-Identifier: MIT
# BARK's acquisition solves at the paper's limit (100 s, 10 % relative gap) at several points of
# a study, without running whole studies at 100 s per iteration (100 iterations would take about
# 3 hours each):
#   1. one BARK study per problem (configs/bark.toml, seed 1, bark_reduced100's design sizes and
#      solver settings: 10 s solves, one thread, no retries) is run to SNAPS model iterations,
#      and its store copied at each (OUT/PROBLEM/snapK);
#   2. a copy of each snapshot is resumed for SOLVES more iterations with 100 s solves
#      (OUT/PROBLEM/t100_K). A study refuses a changed pipeline on resume, so the copy's stored
#      pipeline has its inner_solver.time_limit rewritten from 10 to 100 with sqlite3 (the only
#      change; the surrogate's chain state and the observations are the snapshot's).
# bench/bark/paper_limit_report.py OUT tabulates the certificates. Two problems run at a time
# (JOBS), one single-threaded solve each.
#   bench/bark/paper_limit.sh OUT ARBO
#   env: SNAPS="10 35 60 85" SOLVES=5 JOBS=2 PROBLEMS="tree_function:20 ... pest_control:30"
set -u
OUT=${1:?usage: paper_limit.sh OUT ARBO}
A=${2:?usage: paper_limit.sh OUT ARBO}
SNAPS=${SNAPS:-"10 35 60 85"}
SOLVES=${SOLVES:-5}
JOBS=${JOBS:-2}
PROBLEMS=${PROBLEMS:-"tree_function:20 tree_function_cat:30 discrete_rosenbrock10:20 discrete_ackley13:26 pest_control:30"}
C=$(cd "$(dirname "$0")/../.." && pwd)/configs/bark.toml
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SETS='--set initial_design.method="random" --set inner_solver.no_incumbent_retries=0 --set inner_solver.threads=1 --set study.seed=1'

snapshots() {  # PROBLEM DESIGN: the 10 s study and its snapshots
  local p=$1 i=$2 d=$OUT/$1/base k
  mkdir -p "$OUT/$p"
  for k in $SNAPS; do
    [ -d "$OUT/$p/snap$k" ] && continue
    eval "$A" run "$C" --study "$d" $([ -d "$d" ] && echo --resume) --set "problem.plugin=\\\"$p\\\"" \
      --set initial_design.size="$i" --set study.budget=$((i + k)) --set inner_solver.time_limit=10.0 \
      $SETS -q >> "$OUT/$p/base.out" 2>&1 || { echo "$p: the 10 s study failed (rc $?)" >&2; return 1; }
    cp -a "$d" "$OUT/$p/snap$k"
  done
}

at_limit() {  # PROBLEM DESIGN K: SOLVES iterations at 100 s from snapshot K
  local p=$1 i=$2 k=$3 d=$OUT/$1/t100_$3
  if [ ! -d "$d" ]; then
    cp -a "$OUT/$p/snap$k" "$d.tmp"
    sqlite3 "$d.tmp/study.db" "update meta set value = replace(value, char(10)||'time_limit = 10.0'||char(10), char(10)||'time_limit = 100.0'||char(10)) where key='pipeline'"
    mv "$d.tmp" "$d"
  fi
  eval "$A" run "$C" --study "$d" --resume --set "problem.plugin=\\\"$p\\\"" --set initial_design.size="$i" \
    --set study.budget=$((i + k + SOLVES)) --set inner_solver.time_limit=100.0 $SETS -q >> "$d.out" 2>&1 ||
    echo "$p snapshot $k: the 100 s study failed (rc $?)" >&2
}

export -f snapshots at_limit
export OUT A C SETS SNAPS SOLVES
printf '%s\n' $PROBLEMS | tr ':' ' ' | xargs -P "$JOBS" -L 1 bash -c 'snapshots "$0" "$1"'
for k in $(printf '%s\n' $SNAPS | sort -rn); do
  for pi in $PROBLEMS; do echo "${pi%%:*} ${pi##*:} $k"; done
done | xargs -P "$JOBS" -L 1 bash -c 'at_limit "$0" "$1" "$2"'

#!/usr/bin/env bash
# Usage: new_plugin_test.sh BUILD_DIR SOURCE_DIR CXX ARBO
# tools/new-plugin makes a plugin from a template outside the tree; it configures and builds
# against the build tree's SDK package, passes its own tests, and the CLI loads it. Then the
# tool's refusals: an unknown kind, a name that is not snake_case, an existing folder.
set -euo pipefail
build=$1 src=$2 cxx=$3 arbo=$4
work=$(mktemp -d /tmp/arbo_new_plugin_test.XXXXXX)
trap 'rm -rf "$work"' EXIT
tool=$src/tools/new-plugin

"$tool" inner_solver my_solver "$work/my_solver"
[ -f "$work/my_solver/inner_solver_my_solver.cpp" ] || { ls "$work/my_solver"; echo "files not renamed"; exit 1; }
if grep -rn 'xyz\|Xyz\|XYZ\|TEMPLATE:' "$work/my_solver"; then
  echo "the copy still names the template"; exit 1
fi
grep -q 'class InnerSolverMySolver' "$work/my_solver/inner_solver_my_solver.hpp"
grep -q '"inner-solver-my-solver"' "$work/my_solver/inner_solver_my_solver_plugin.cpp"

cmake -S "$work/my_solver" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DArboSDK_DIR="$build/sdk" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" >/dev/null
ctest --test-dir "$work/build" --output-on-failure >/dev/null
so=$(find "$work/build" -name '*.so' | head -n 1)
[ -n "$so" ] || { echo "no plugin built"; exit 1; }
"$arbo" --plugin-path "$(dirname "$so")" plugins > "$work/plugins.txt"
grep -q '^inner_solver/my_solver ' "$work/plugins.txt" || { cat "$work/plugins.txt"; echo "not loaded"; exit 1; }

expect_refusal() {  # expect_refusal MESSAGE ARGS...: the tool exits non-zero and says MESSAGE
  local message=$1; shift
  if "$tool" "$@" 2> "$work/err.txt"; then echo "new-plugin $* succeeded"; exit 1; fi
  grep -q "$message" "$work/err.txt" || { cat "$work/err.txt"; exit 1; }
}
expect_refusal "unknown kind 'solver'" solver x "$work/a"
expect_refusal "must be snake_case" surrogate MyModel "$work/b"
expect_refusal "already exists" surrogate my_model "$work/my_solver"
echo "new-plugin test passed"

#!/usr/bin/env bash
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CXX
set -euo pipefail
build=$1 src=$2 cxx=$3
work=$(mktemp -d /tmp/arbo_install_test.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
arbo=$prefix/bin/arbo
"$arbo" --version
"$arbo" plugins > "$work/plugins.txt"
grep -q '^problem/branin ' "$work/plugins.txt" || { cat "$work/plugins.txt"; echo "installed arbo does not find its plugins"; exit 1; }

# A third-party plugin: the installed surrogate template, copied and renamed by the installed
# new-plugin tool, built against the installed SDK only.
"$prefix/share/arbo/sdk/new-plugin" surrogate my_model "$work/my_surrogate"
cmake -S "$work/my_surrogate" -B "$work/my_build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/my_build" >/dev/null
so=$(find "$work/my_build" -name '*.so' | head -n 1)
[ -n "$so" ] || { echo "the template built no plugin"; exit 1; }
# The template's conformance tests must exist and run: an SDK installed without its testing
# library would otherwise pass here with no test at all.
ctest --test-dir "$work/my_build" --output-on-failure --no-tests=error >/dev/null
"$arbo" --plugin-path "$(dirname "$so")" plugins > "$work/plugins2.txt"
grep -q '^surrogate/my_model ' "$work/plugins2.txt" || { cat "$work/plugins2.txt"; echo "third-party plugin not loaded"; exit 1; }

# A real study with the installed CLI.
cd "$work"
"$arbo" run "$src/configs/quickstart.toml" --study q --quiet --set study.budget=15 > run.txt
grep -q 'budget reached: 15 evaluations' run.txt || { cat run.txt; exit 1; }
# The Python package, where Debian's python3 looks in that prefix (python/CMakeLists.txt), finds
# the installed plugins and makes a study the installed CLI reads. Only in builds that make it
# (ARBO_BUILD_PYTHON, the 4th argument; the sanitizer build does not, see tools/build-sanitized).
if [ "${4:-ON}" != ON ]; then
  echo "install test passed (no Python package in this build)"
  exit 0
fi
pydir=$(find "$prefix/lib" -path '*-packages/arbo/__init__.py' | head -n 1)
[ -n "$pydir" ] || { echo "the arbo Python package is not installed"; exit 1; }
PYTHONPATH=$(dirname "$(dirname "$pydir")") /usr/bin/python3 - "$work/py.study" <<'PY'
import sys
import arbo
assert "problem/branin" in {c["id"] for c in arbo.plugins()}, arbo.plugins()
study = arbo.create_study(sys.argv[1], toml='[study]\nbudget = 3\n[problem]\nplugin = "branin"\n'
                          '[initial_design]\nsize = 2\n[inner_solver]\nplugin = "random"\n')
study.optimize(lambda p: p["x1"] ** 2, 3)
PY
"$arbo" show "$work/py.study" | grep -q 'observations: 3 (3 complete' || { "$arbo" show "$work/py.study"; exit 1; }
[ -f "$(dirname "$pydir")/__init__.pyi" ] || { echo "the package's type stub is not installed"; exit 1; }
# `arbo plot` of the installed CLI runs the installed package, found beside the executable.
env -u PYTHONPATH "$arbo" plot "$work/py.study" --out "$work/h.png" --size 320x200 > plot.txt 2>&1 ||
  { cat plot.txt; echo "arbo plot failed in the install tree"; exit 1; }
grep -q "wrote $work/h.png (history, 320x200 pixels)" plot.txt || { cat plot.txt; exit 1; }
echo "install test passed"

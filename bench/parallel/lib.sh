# Shared by speedup.sh and driver_overhead.sh: one study of random search (a proposal costs
# microseconds) over one real parameter, 2 initial points, seed 1, with the given command.
# Needs $ARBO. Usage: run_random NAME WORKERS BUDGET COMMAND_TOML; prints the wall seconds.
run_random() {
  cat > "$1.toml" <<TOML
[study]
seed = 1
budget = $3
workers = $2
[problem]
command = $4
[[problem.parameters]]
name = "x"
type = "real"
low = 0.0
high = 1.0
[initial_design]
size = 2
[inner_solver]
plugin = "random"
TOML
  _t0=$(date +%s.%N)
  "$ARBO" run "$1.toml" --study "$1.study" --quiet > /dev/null
  _t1=$(date +%s.%N)
  echo "$_t1 - $_t0" | bc -l
}

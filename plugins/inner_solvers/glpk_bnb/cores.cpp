// SPDX-License-Identifier: MIT
#include "cores.hpp"

#ifdef __linux__
#include <sched.h>
#endif

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace arbo::plugins::glpk {

namespace {

namespace fs = std::filesystem;

// Whole cores of a quota of `quota` microseconds per `period`; 0 for none or nonsense.
int cores_of(double quota, double period) {
  if (!(quota > 0.0) || !(period > 0.0)) return 0;
  return std::max(1, static_cast<int>(std::ceil(quota / period - 1e-9)));
}

// cgroup v2: "max 100000" (no limit) or "150000 100000".
int read_cpu_max(const fs::path& dir) {
  std::ifstream in(dir / "cpu.max");
  std::string quota;
  double period = 0.0;
  if (!(in >> quota >> period) || quota == "max") return 0;
  try {
    return cores_of(std::stod(quota), period);
  } catch (const std::exception&) {
    return 0;
  }
}

// cgroup v1: a quota of -1 means no limit.
int read_cfs(const fs::path& dir) {
  std::ifstream q(dir / "cpu.cfs_quota_us");
  std::ifstream p(dir / "cpu.cfs_period_us");
  double quota = 0.0;
  double period = 0.0;
  if (!(q >> quota) || !(p >> period)) return 0;
  return cores_of(quota, period);
}

void take(int& best, int limit) {
  if (limit > 0) best = best == 0 ? limit : std::min(best, limit);
}

bool lists_cpu(const std::string& controllers) {
  std::stringstream in(controllers);
  std::string name;
  while (std::getline(in, name, ','))
    if (name == "cpu") return true;
  return false;
}

}  // namespace

int cgroup_cpu_limit(std::istream& self_cgroup, const fs::path& root) {
  int best = 0;
  std::string line;
  // Each line is "hierarchy-id:controllers:path"; v2 is "0::path".
  while (std::getline(self_cgroup, line)) {
    const auto a = line.find(':');
    const auto b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const fs::path group = fs::path(line.substr(b + 1)).relative_path();
    if (line.compare(0, a, "0") == 0 && controllers.empty()) {
      // A limit on any ancestor group caps this one too.
      for (fs::path dir = root / group;; dir = dir.parent_path()) {
        take(best, read_cpu_max(dir));
        if (dir == root || !dir.has_relative_path() || dir.parent_path() == dir) break;
      }
    } else if (lists_cpu(controllers)) {
      // Inside a container the hierarchy's root is the container's own group, while the
      // listed path may be the host's; look at both.
      for (const char* mount : {"cpu", "cpu,cpuacct", "cpuacct,cpu"}) {
        take(best, read_cfs(root / mount));
        if (!group.empty()) take(best, read_cfs(root / mount / group));
      }
    }
  }
  return best;
}

int available_cores() {
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cores = std::max(1, CPU_COUNT(&set));
  std::ifstream self("/proc/self/cgroup");
  take(cores, cgroup_cpu_limit(self, "/sys/fs/cgroup"));
#endif
  return cores;
}

}  // namespace arbo::plugins::glpk

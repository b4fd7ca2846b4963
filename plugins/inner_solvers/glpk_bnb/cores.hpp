// SPDX-License-Identifier: MIT
/// @file
/// @brief How many cores the process may use: its CPU affinity and its cgroup's CPU quota.
#pragma once

#include <filesystem>
#include <istream>

namespace arbo::plugins::glpk {

/// The CPU bandwidth limit of the process's control groups, in whole cores (a quota of 1.5
/// cores counts as 2), or 0 when none applies. `self_cgroup` is the text of
/// `/proc/self/cgroup`; `root` is where the cgroup file systems are mounted (`/sys/fs/cgroup`).
/// Reads `cpu.max` (cgroup v2) of the process's group and every group above it, and
/// `cpu.cfs_quota_us` / `cpu.cfs_period_us` (v1) of the `cpu` hierarchy, both at the
/// hierarchy's root (a container's own view) and at the listed path; the smallest limit wins.
/// Missing or unreadable files mean no limit. Never throws.
int cgroup_cpu_limit(std::istream& self_cgroup, const std::filesystem::path& root);

/// Cores this process may use: the CPU affinity mask (a container's cpuset), capped by the
/// cgroup quota (docker `--cpus`, which sets no cpuset), at least 1.
int available_cores();

}  // namespace arbo::plugins::glpk

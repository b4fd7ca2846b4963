// SPDX-License-Identifier: MIT
// How many threads `threads = 0` gives: the cgroup CPU quota read from a fake cgroup tree.
#include <algorithm>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "common/temp_dir.hpp"
#include "cores.hpp"

namespace {

using arbo::plugins::glpk::available_cores;
using arbo::plugins::glpk::cgroup_cpu_limit;

class CgroupTree : public arbo::test::TempDirTest {
 protected:
  CgroupTree() : TempDirTest("arbo_cores_") {}

  int limit(const std::string& self_cgroup) {
    std::istringstream in(self_cgroup);
    return cgroup_cpu_limit(in, dir_);
  }
};

TEST_F(CgroupTree, no_files_means_no_limit) {
  EXPECT_EQ(limit("0::/\n"), 0);
  EXPECT_EQ(limit("1:cpu:/\n0::/user.slice\n"), 0);
  EXPECT_EQ(limit(""), 0);
  EXPECT_EQ(limit("garbage without colons\n"), 0);
}

TEST_F(CgroupTree, v2_quota_rounds_up_to_whole_cores) {
  const std::pair<const char*, int> cases[] = {{"max 100000\n", 0},
                                               {"150000 100000\n", 2},
                                               {"200000 100000\n", 2},
                                               {"20000 100000\n", 1},
                                               {"nonsense 100000\n", 0}};
  for (const auto& [cpu_max, cores] : cases) {
    write("cpu.max", cpu_max);
    EXPECT_EQ(limit("0::/\n"), cores) << cpu_max;
  }
}

TEST_F(CgroupTree, v2_the_tightest_group_on_the_way_up_wins) {
  write("system.slice/docker-1.scope/cpu.max", "max 100000\n");
  write("system.slice/cpu.max", "300000 100000\n");
  write("cpu.max", "max 100000\n");
  EXPECT_EQ(limit("0::/system.slice/docker-1.scope\n"), 3);
  write("system.slice/docker-1.scope/cpu.max", "100000 100000\n");
  EXPECT_EQ(limit("0::/system.slice/docker-1.scope\n"), 1);
}

TEST_F(CgroupTree, v1_quota_at_the_mount_or_the_listed_path) {
  write("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  write("cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(limit("3:cpu,cpuacct:/docker/abc\n"), 0);
  write("cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n");
  write("cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(limit("3:cpu,cpuacct:/docker/abc\n"), 3);
  // A container sees its own group at the mount's root.
  write("cpu,cpuacct/cpu.cfs_quota_us", "100000\n");
  EXPECT_EQ(limit("3:cpu,cpuacct:/docker/abc\n"), 1);
  // Other controllers' hierarchies are not read.
  EXPECT_EQ(limit("4:cpuacct:/\n"), 0);
}

TEST(glpk_bnb_cores, this_process_may_use_between_one_core_and_all_of_them) {
  EXPECT_GE(available_cores(), 1);
  EXPECT_LE(available_cores(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace

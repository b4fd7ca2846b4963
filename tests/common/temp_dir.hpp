// SPDX-License-Identifier: MIT
// A test fixture with its own empty scratch directory.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace arbo::test {

/// A fixture with its own empty directory `dir_`, named after the test and kept when the test
/// fails, for a look at what the command left there.
class TempDirTest : public ::testing::Test {
 protected:
  /// `prefix` names the directory: <tmp>/<prefix><pid>_<test name>.
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (prefix_ + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  /// Writes `text` to `name` under `dir_`, creating the folders on the way.
  void write(const std::string& name, const std::string& text) {
    std::filesystem::create_directories((dir_ / name).parent_path());
    std::ofstream(dir_ / name) << text;
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace arbo::test

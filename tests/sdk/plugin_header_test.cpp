// SPDX-License-Identifier: MIT
// Tests of the phase-1 plugin handshake check (check_plugin_header).
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "arbo/sdk/plugin.hpp"

namespace arbo::sdk {
namespace {

constexpr PluginTable kEmptyTable{0, nullptr};

arbo_plugin_header_v1 good_header() {
  return detail::make_header("test-plugin", "1.2.3", "a test", &kEmptyTable);
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

TEST(PluginHeader, MadeHeaderPasses) {
  const arbo_plugin_header_v1 h = good_header();
  EXPECT_EQ(check_plugin_header(&h), "");
  EXPECT_EQ(h.struct_size, sizeof(arbo_plugin_header_v1));
  EXPECT_EQ(h.abi_version, static_cast<std::uint32_t>(ARBO_PLUGIN_ABI_VERSION));
  EXPECT_STREQ(h.plugin_name, "test-plugin");
  EXPECT_STREQ(h.plugin_version, "1.2.3");
  EXPECT_STREQ(h.description, "a test");
  EXPECT_EQ(h.cpp_table, &kEmptyTable);
  EXPECT_STREQ(h.build_fingerprint, sdk_build_fingerprint());
  // The header can be built at compile time, as the plugin macros do.
  static constexpr arbo_plugin_header_v1 kConst = detail::make_header("c", "0", "d", &kEmptyTable);
  EXPECT_EQ(check_plugin_header(&kConst), "");
}

TEST(PluginHeader, NullHeader) { expect_contains(check_plugin_header(nullptr), "null header"); }

TEST(PluginHeader, LayoutMismatch) {
  arbo_plugin_header_v1 h = good_header();
  h.struct_size += 8;
  std::string msg = check_plugin_header(&h);
  expect_contains(msg, "header layout mismatch");
  expect_contains(msg, fmt::format("struct size {}", sizeof(arbo_plugin_header_v1) + 8));
  h = good_header();
  h.struct_align = 1;
  msg = check_plugin_header(&h);
  expect_contains(msg, "header layout mismatch");
  expect_contains(msg, "alignment 1");
}

TEST(PluginHeader, AbiMismatch) {
  arbo_plugin_header_v1 h = good_header();
  h.abi_version = ARBO_PLUGIN_ABI_VERSION + 1;
  expect_contains(check_plugin_header(&h),
                  fmt::format("ABI version mismatch: plugin has {}, host expects {}",
                              ARBO_PLUGIN_ABI_VERSION + 1, ARBO_PLUGIN_ABI_VERSION));
}

TEST(PluginHeader, SdkVersion) {
  arbo_plugin_header_v1 h = good_header();
  h.sdk_major = ARBO_SDK_VERSION_MAJOR + 1;
  std::string msg = check_plugin_header(&h);
  expect_contains(msg, "SDK version mismatch");
  expect_contains(msg, fmt::format("SDK {}.{}.{}", ARBO_SDK_VERSION_MAJOR + 1,
                                   ARBO_SDK_VERSION_MINOR, ARBO_SDK_VERSION_PATCH));
  expect_contains(msg, ARBO_SDK_VERSION_STRING);

  h = good_header();
  h.sdk_minor = ARBO_SDK_VERSION_MINOR + 1;  // built against a newer SDK than the host
  expect_contains(check_plugin_header(&h), "SDK version mismatch");

  h = good_header();
  h.sdk_patch = ARBO_SDK_VERSION_PATCH + 5;  // patch levels never matter
  EXPECT_EQ(check_plugin_header(&h), "");
  if (ARBO_SDK_VERSION_MINOR > 0) {
    h = good_header();
    h.sdk_minor = ARBO_SDK_VERSION_MINOR - 1;  // an older minor loads
    EXPECT_EQ(check_plugin_header(&h), "");
  }
}

TEST(PluginHeader, FingerprintMismatch) {
  arbo_plugin_header_v1 h = good_header();
  h.build_fingerprint = "clang-99;libc++-1;boost-0;eigen-0.0.0;eigen-align-0;sdk-0";
  std::string msg = check_plugin_header(&h);
  expect_contains(msg, "build fingerprint mismatch");
  expect_contains(msg, "plugin 'clang-99;");
  expect_contains(msg, fmt::format("host '{}'", kBuildFingerprint));
  // A fingerprint that only extends the host's is still different.
  const std::string longer = std::string(kBuildFingerprint) + "+x";
  h.build_fingerprint = longer.c_str();
  expect_contains(check_plugin_header(&h), "build fingerprint mismatch");
  h.build_fingerprint = nullptr;
  expect_contains(check_plugin_header(&h), "plugin '(null)'");
}

TEST(PluginHeader, MissingTable) {
  arbo_plugin_header_v1 h = good_header();
  h.cpp_table = nullptr;
  expect_contains(check_plugin_header(&h), "no component table");
}

TEST(PluginHeader, ChecksRunInDocumentedOrder) {
  // Several fields wrong at once: the layout is reported first, then the ABI, then the SDK.
  arbo_plugin_header_v1 h = good_header();
  h.struct_size = 4;
  h.abi_version = 999;
  h.sdk_major = 999;
  h.build_fingerprint = "x";
  expect_contains(check_plugin_header(&h), "layout");
  h.struct_size = sizeof(arbo_plugin_header_v1);
  expect_contains(check_plugin_header(&h), "ABI version");
  h.abi_version = ARBO_PLUGIN_ABI_VERSION;
  expect_contains(check_plugin_header(&h), "SDK version");
  h.sdk_major = ARBO_SDK_VERSION_MAJOR;
  expect_contains(check_plugin_header(&h), "fingerprint");
}

}  // namespace
}  // namespace arbo::sdk

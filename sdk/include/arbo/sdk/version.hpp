// SPDX-License-Identifier: MIT
/// @file
/// @brief SDK version and the plugin ABI integer.
#pragma once

/// SDK semantic version. A plugin built against SDK `major.minor` loads into a kernel with the
/// same major and a minor >= the plugin's.
#define ARBO_SDK_VERSION_MAJOR 0
#define ARBO_SDK_VERSION_MINOR 1
#define ARBO_SDK_VERSION_PATCH 0

/// Monotonically increasing integer. Bump it on ANY change to `arbo_plugin_header_v1`, the
/// entry signature, `ComponentInfo`/`PluginTable`, or the layout or set of virtual functions of
/// any SDK interface class. The kernel requires equality.
#define ARBO_PLUGIN_ABI_VERSION 2

#define ARBO_DETAIL_STR2(x) #x
#define ARBO_DETAIL_STR(x) ARBO_DETAIL_STR2(x)

/// "major.minor.patch" as a string literal.
#define ARBO_SDK_VERSION_STRING           \
  ARBO_DETAIL_STR(ARBO_SDK_VERSION_MAJOR) \
  "." ARBO_DETAIL_STR(ARBO_SDK_VERSION_MINOR) "." ARBO_DETAIL_STR(ARBO_SDK_VERSION_PATCH)

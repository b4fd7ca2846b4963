// SPDX-License-Identifier: MIT
/// @file
/// @brief SDK version and the plugin ABI integer.
///
/// Two numbers decide whether a plugin loads (plugin_abi.h, `check_plugin_header`):
/// - the SDK version, for the *API*: what a plugin may call and derive from. A plugin built
///   against SDK major.minor loads into a kernel with the same major and a minor >= the
///   plugin's (new minors only add, e.g. capability classes and free functions);
/// - the ABI integer, for the *binary layout* the handshake and the interfaces rely on. It
///   must be equal.
/// Both are compiled into the plugin's header by `ARBO_PLUGIN_BEGIN`; changing either means
/// rebuilding every plugin, which the loader's message says.
#pragma once

/// SDK semantic version. A plugin built against SDK `major.minor` loads into a kernel with the
/// same major and a minor >= the plugin's. The patch level is informative only.
#define ARBO_SDK_VERSION_MAJOR 0
#define ARBO_SDK_VERSION_MINOR 1
#define ARBO_SDK_VERSION_PATCH 0

/// Monotonically increasing integer. Bump it on ANY change to `arbo_plugin_header_v1`, the
/// entry signature, `ComponentInfo`/`PluginTable`, or the layout or set of virtual functions of
/// any SDK interface class. The kernel requires equality.
/// History: 1, the first handshake; 2, `SolveOptions::starts` (decision 16 of
/// docs/decisions.md), which changed the layout of a struct passed to `ModelSolver::solve`;
/// 3, exclusion of evaluated points (`SolveRequest::exclude_evaluated`, `Proposal::exhausted`,
/// `Model`'s value indicators); 4, `Objective::offset` and
/// `FormulatesSurrogate::Output::mean_offset` (how relative gaps are measured).
#define ARBO_PLUGIN_ABI_VERSION 4

// Stringification helpers for the version string and the fingerprint (fingerprint.hpp).
#define ARBO_DETAIL_STR2(x) #x
#define ARBO_DETAIL_STR(x) ARBO_DETAIL_STR2(x)

/// "major.minor.patch" as a string literal.
#define ARBO_SDK_VERSION_STRING           \
  ARBO_DETAIL_STR(ARBO_SDK_VERSION_MAJOR) \
  "." ARBO_DETAIL_STR(ARBO_SDK_VERSION_MINOR) "." ARBO_DETAIL_STR(ARBO_SDK_VERSION_PATCH)

/* SPDX-License-Identifier: MIT */
/**
 * @file
 * @brief Phase 1 of the plugin handshake: a C-layout header every plugin library exports.
 *
 * A plugin library exports exactly one symbol, the Boost.DLL alias `arbo_plugin_entry_v1` in
 * section `arboplug`, pointing to a `noexcept` function of type `arbo_plugin_entry_fn`. The
 * function allocates nothing, cannot throw, and returns a pointer to constant static data.
 *
 * The kernel reads this header with C semantics only and checks, in order:
 *   1. `struct_size == sizeof(arbo_plugin_header_v1)` and `struct_align` likewise;
 *   2. `abi_version == ARBO_PLUGIN_ABI_VERSION`;
 *   3. `sdk_major == ARBO_SDK_VERSION_MAJOR` and `sdk_minor <= ARBO_SDK_VERSION_MINOR`;
 *   4. `build_fingerprint` equals the kernel's own (compiler, standard library ABI, Boost and
 *      Eigen versions, Eigen alignment).
 * Only when all pass does it read `cpp_table` (phase 2, a `const arbo::sdk::PluginTable*`).
 * Every failure is reported with the library path and both values side by side.
 *
 * ABI: append-only. Never reorder or remove fields; bump ARBO_PLUGIN_ABI_VERSION on change.
 * `struct_size` and `struct_align` come first in every version, so a host can always read
 * them and refuse a header of another shape before touching the rest.
 *
 * Plugins never fill this struct by hand: `ARBO_PLUGIN_BEGIN`/`ARBO_PLUGIN_END` (plugin.hpp)
 * build it as constant data with the values the plugin was compiled with. The header is
 * plain C so that any host (a C tool listing plugins, a newer kernel) can read phase 1
 * without sharing a C++ ABI with the plugin.
 */
#ifndef ARBO_SDK_PLUGIN_ABI_H_
#define ARBO_SDK_PLUGIN_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct arbo_plugin_header_v1 {
  uint32_t struct_size;          /**< sizeof(arbo_plugin_header_v1) as the plugin saw it   */
  uint32_t struct_align;         /**< alignof(arbo_plugin_header_v1) as the plugin saw it  */
  uint32_t abi_version;          /**< ARBO_PLUGIN_ABI_VERSION the plugin was built with     */
  uint32_t sdk_major;            /**< ARBO_SDK_VERSION_MAJOR                                */
  uint32_t sdk_minor;            /**< ARBO_SDK_VERSION_MINOR                                */
  uint32_t sdk_patch;            /**< ARBO_SDK_VERSION_PATCH                                */
  const char* build_fingerprint; /**< arbo::sdk::kBuildFingerprint                           */
  const char* plugin_name;       /**< library name, e.g. "arbo-stock-problems"              */
  const char* plugin_version;    /**< library version, e.g. "1.0.0"                        */
  const char* description;       /**< one line                                              */
  const void* cpp_table;         /**< const arbo::sdk::PluginTable*, read after all checks  */
} arbo_plugin_header_v1;

/** Signature of the exported entry. Must not throw (it is called through C), allocate, or
 *  depend on anything initialised at load time: it returns the address of constant data. */
typedef const arbo_plugin_header_v1* (*arbo_plugin_entry_fn)(void);

/** Name of the Boost.DLL alias and of the section it lives in (8 bytes at most). The "_v1"
 *  in the alias name versions the entry itself: a new entry signature gets a new name. */
#define ARBO_PLUGIN_ENTRY_NAME "arbo_plugin_entry_v1"
#define ARBO_PLUGIN_SECTION_NAME "arboplug"

#ifdef __cplusplus
}
#endif

#endif /* ARBO_SDK_PLUGIN_ABI_H_ */

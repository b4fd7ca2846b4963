// SPDX-License-Identifier: MIT
// An ordinary shared object that happens to sit in a plugin directory: no arbo symbols at all.
extern "C" __attribute__((visibility("default"))) int plain_library_answer() { return 42; }

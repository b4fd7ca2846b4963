// SPDX-License-Identifier: MIT
/// @file
/// @brief Symbol visibility for the SDK library.
///
/// Everything in arbo is compiled with `-fvisibility=hidden`. Classes whose typeinfo must be
/// unique across shared objects (the plugin interfaces, the exception types) are marked
/// `ARBO_SDK_API`, so `dynamic_cast` and `catch` work between the kernel and plugins (P5).
#pragma once

#define ARBO_SDK_API __attribute__((visibility("default")))

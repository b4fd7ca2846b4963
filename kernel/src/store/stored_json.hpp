// SPDX-License-Identifier: MIT
// Reading the JSON texts a study stores (params, proposer versions, solver statistics), for the
// readers of a study: `arbo show`, `arbo export` and `observations_json`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace arbo::kernel {

/// The stored JSON `what` of observation `id` of the study in `dir` (named in the message).
/// @throws StudyError if `text` is not valid JSON: damaged text is a damaged study (exit 5),
/// never an internal error.
nlohmann::json stored_json(const std::string& dir, std::int64_t id, std::string_view what,
                           const std::string& text);

}  // namespace arbo::kernel

// SPDX-License-Identifier: MIT
// Out-of-line destructors: the key functions that give each exported interface exactly one
// vtable and typeinfo, in libarbo_sdk.so (pitfall P5).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "arbo/sdk/acquisition.hpp"
#include "arbo/sdk/capabilities/acquisition.hpp"
#include "arbo/sdk/capabilities/constraint.hpp"
#include "arbo/sdk/capabilities/inner_solver.hpp"
#include "arbo/sdk/capabilities/problem.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"
#include "arbo/sdk/constraint.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/excerpt.hpp"
#include "arbo/sdk/inner_solver.hpp"
#include "arbo/sdk/plugin.hpp"
#include "arbo/sdk/problem.hpp"
#include "arbo/sdk/surrogate.hpp"

namespace arbo::sdk {

Error::Error(const std::string& message) : std::runtime_error(message) {}
Error::~Error() = default;
ParamError::ParamError(std::string key, const std::string& message)
    : Error(message), key_(std::move(key)) {}
ParamError::~ParamError() = default;
InvalidArgument::InvalidArgument(const std::string& message) : Error(message) {}
InvalidArgument::~InvalidArgument() = default;
Cancelled::Cancelled(const std::string& message) : Error(message) {}
Cancelled::~Cancelled() = default;

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Back up over UTF-8 continuation bytes (10xxxxxx) to the start of a character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return fmt::format("{}... ({} bytes)", text.substr(0, cut), text.size());
}

std::string excerpt_lines(std::string_view text, std::size_t max_line_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), std::size_t{1} << 16));
  while (!text.empty()) {
    const auto nl = text.find('\n');
    out += excerpt(text.substr(0, nl), max_line_bytes);
    if (nl == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(nl + 1);
  }
  return out;
}

Context::~Context() = default;
Component::~Component() = default;
Surrogate::~Surrogate() = default;
Acquisition::~Acquisition() = default;
InnerSolver::~InnerSolver() = default;
Constraint::~Constraint() = default;
Problem::~Problem() = default;
ModelSolver::~ModelSolver() = default;
FormulatesSurrogate::~FormulatesSurrogate() = default;
FormulatesAcquisition::~FormulatesAcquisition() = default;
FormulatesConstraint::~FormulatesConstraint() = default;
DecodesSolution::~DecodesSolution() = default;
DensityModel::~DensityModel() = default;
ReportsGoodFraction::~ReportsGoodFraction() = default;
FitsPartialObservations::~FitsPartialObservations() = default;
RepresentsRegions::~RepresentsRegions() = default;
PosteriorSampler::~PosteriorSampler() = default;
SavesState::~SavesState() = default;
PosteriorMixture::~PosteriorMixture() = default;
FormulatesMixture::~FormulatesMixture() = default;
ProposesCandidates::~ProposesCandidates() = default;
RespectsBlackBoxConstraints::~RespectsBlackBoxConstraints() = default;
ProjectsPoints::~ProjectsPoints() = default;
ReportsRowExcesses::~ReportsRowExcesses() = default;
HasKnownConstraints::~HasKnownConstraints() = default;
IgnoresDataWithoutModel::~IgnoresDataWithoutModel() = default;
ExcludesEvaluated::~ExcludesEvaluated() = default;

void Acquisition::values(const Eigen::MatrixXd& X, Eigen::VectorXd& out) const {
  out.resize(X.rows());
  Eigen::VectorXd row(X.cols());
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    row = X.row(i).transpose();
    out[i] = value(row);
  }
}

std::string Constraint::describe() const { return "known constraint"; }

bool satisfies(const std::vector<const Constraint*>& constraints, const Eigen::VectorXd& x,
               double tolerance) {
  for (const Constraint* c : constraints) {
    if (!(c->violation(x) <= tolerance)) return false;  // NaN counts as violated
  }
  return true;
}

std::vector<std::string> Problem::constraint_names() const { return {}; }

const char* to_string(Kind kind) noexcept {
  switch (kind) {
    case Kind::Surrogate: return "surrogate";
    case Kind::Acquisition: return "acquisition";
    case Kind::InnerSolver: return "inner_solver";
    case Kind::Constraint: return "constraint";
    case Kind::Problem: return "problem";
  }
  return "unknown";
}

std::optional<Kind> kind_from_string(std::string_view name) noexcept {
  for (Kind k :
       {Kind::Surrogate, Kind::Acquisition, Kind::InnerSolver, Kind::Constraint, Kind::Problem}) {
    if (name == to_string(k)) return k;
  }
  return std::nullopt;
}

const char* sdk_build_fingerprint() noexcept { return kBuildFingerprint; }

std::string check_plugin_header(const arbo_plugin_header_v1* h) {
  if (h == nullptr) return "entry returned a null header";
  // struct_size and struct_align are the first two fields in every version of the header, so
  // they are safe to read before anything else.
  if (h->struct_size != sizeof(arbo_plugin_header_v1) ||
      h->struct_align != alignof(arbo_plugin_header_v1)) {
    return fmt::format(
        "header layout mismatch: plugin has struct size {} / alignment {}, host expects {} / {}",
        h->struct_size, h->struct_align, sizeof(arbo_plugin_header_v1),
        alignof(arbo_plugin_header_v1));
  }
  if (h->abi_version != ARBO_PLUGIN_ABI_VERSION) {
    return fmt::format("ABI version mismatch: plugin has {}, host expects {}", h->abi_version,
                       ARBO_PLUGIN_ABI_VERSION);
  }
  if (h->sdk_major != ARBO_SDK_VERSION_MAJOR || h->sdk_minor > ARBO_SDK_VERSION_MINOR) {
    return fmt::format(
        "SDK version mismatch: plugin built against SDK {}.{}.{}, host has {} (needs the same "
        "major and a minor no newer than the host's)",
        h->sdk_major, h->sdk_minor, h->sdk_patch, ARBO_SDK_VERSION_STRING);
  }
  if (h->build_fingerprint == nullptr ||
      std::strcmp(h->build_fingerprint, kBuildFingerprint) != 0) {
    return fmt::format("build fingerprint mismatch: plugin '{}', host '{}'",
                       h->build_fingerprint ? h->build_fingerprint : "(null)", kBuildFingerprint);
  }
  if (h->cpp_table == nullptr) return "header has no component table";
  return {};
}

}  // namespace arbo::sdk

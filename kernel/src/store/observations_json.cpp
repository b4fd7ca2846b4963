// SPDX-License-Identifier: MIT
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/study_store.hpp"
#include "store/stored_json.hpp"

namespace arbo::kernel {

nlohmann::json stored_json(const std::string& dir, std::int64_t id, std::string_view what,
                           const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    throw StudyError(fmt::format("study {}: observation {} is damaged: its {} are not valid JSON",
                                 dir, id, what));
  }
  return j;
}

std::string observations_json(const StudyStore& store) {
  const std::string dir = store.directory().string();
  const auto cnames = store.names("constraint_names");
  const auto obs = store.observations();
  const auto stats = store.proposal_stats();
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& o : obs) {
    nlohmann::json j{
        {"id", o.id},
        {"status", to_string(o.status)},
        {"origin", o.origin},
        {"params", stored_json(dir, o.id, "params", o.params_json)},
        {"propose_seconds", o.propose_seconds},
        {"eval_seconds", o.eval_seconds},
        {"created_at", o.created_at},
        {"proposed_by", o.proposed_by_json.empty()
                            ? nlohmann::json(nullptr)
                            : stored_json(dir, o.id, "proposer versions", o.proposed_by_json)}};
    if (o.status == ObsStatus::Complete) {
      j["objective"] = o.objective;
      j["feasible"] = o.feasible;
      nlohmann::json c = nlohmann::json::object();
      for (std::size_t k = 0; k < cnames.size(); ++k) {
        c[cnames[k]] = o.constraints[static_cast<Eigen::Index>(k)];
      }
      j["constraints"] = c;
    }
    if (o.status == ObsStatus::Failed) j["reason"] = o.reason;
    if (o.status != ObsStatus::Pending) j["finished_at"] = o.finished_at;
    // Model-based proposals: fit/solve times, model size, nodes, gap and solver status.
    if (const auto it = stats.find(o.id); it != stats.end()) {
      j["solver"] = stored_json(dir, o.id, "solver statistics", it->second);
    }
    arr.push_back(std::move(j));
  }
  // A failure reason may quote a command's output in any encoding: replaced, never fatal.
  return arr.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace arbo::kernel

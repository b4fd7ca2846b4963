// SPDX-License-Identifier: MIT
// `arbo ask`, `tell`, `show`, `export`. `show` and `export` read the store only, so they work
// without any plugin (for example on a machine that only archives studies).
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/study.hpp"
#include "cli/cli.hpp"
#include "cli/common.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace arbo::cli {

namespace {

kernel::StudyStore open_store(const std::string& dir) {
  if (!kernel::StudyStore::exists(dir)) {
    throw kernel::StudyError(fmt::format("{} holds no study", dir));
  }
  return kernel::StudyStore::open(dir);
}

std::vector<std::string> json_names(const kernel::StudyStore& store, const std::string& key) {
  std::vector<std::string> names;
  if (auto text = store.meta(key)) {
    for (const auto& n : nlohmann::json::parse(*text)) names.push_back(n.get<std::string>());
  }
  return names;
}

bool better(double a, double b, bool maximize) { return maximize ? a > b : a < b; }

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string json_value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return format_number(v.get<double>());
  return v.dump();
}

}  // namespace

int cmd_ask(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts("arbo ask DIR");
  std::string dir;
  opts.add_options()("help,h", "show this help")("dir", po::value(&dir), "study directory");
  po::variables_map vm;
  if (!parse_args(args, opts, {required_arg("dir")}, vm)) return kernel::kExitOk;
  kernel::PluginRegistry registry = load_registry(g);
  auto study = kernel::Study::open(dir, registry, g.verbose);
  if (study->observation_count() >= study->pipeline().budget) {
    throw kernel::StudyError(fmt::format(
        "{}: the budget of {} evaluations is spent; extend it with 'arbo run --resume --study {} "
        "--set study.budget=N'",
        dir, study->pipeline().budget, dir));
  }
  const kernel::Observation o = study->ask();
  std::cout << fmt::format("{{\"id\": {}, \"params\": {}}}\n", o.id, o.params_json);
  return kernel::kExitOk;
}

int cmd_tell(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts(
      "arbo tell DIR ID (--objective V [--constraint NAME=V]... | --json TEXT | --failed REASON)");
  std::string dir, json_text, failed;
  std::int64_t id = 0;
  std::optional<double> objective;
  std::vector<std::string> cons;
  opts.add_options()("help,h", "show this help")("dir", po::value(&dir), "study directory")(
      "id", po::value(&id), "observation id from 'arbo ask'")("objective", po::value<double>(),
                                                              "the objective value")(
      "constraint", po::value(&cons)->composing(), "a black-box constraint value: NAME=VALUE")(
      "json", po::value(&json_text), "the result as JSON, as an external command prints it")(
      "failed", po::value(&failed), "the evaluation failed, for this reason");
  po::variables_map vm;
  if (!parse_args(args, opts, {required_arg("dir"), required_arg("id")}, vm))
    return kernel::kExitOk;
  if (vm.count("objective")) objective = vm["objective"].as<double>();
  const int modes = (objective ? 1 : 0) + (vm.count("json") ? 1 : 0) + (vm.count("failed") ? 1 : 0);
  if (modes != 1) throw po::error("give exactly one of --objective, --json, --failed");
  if (!cons.empty() && !objective) throw po::error("--constraint goes with --objective");

  kernel::PluginRegistry registry = load_registry(g);
  auto study = kernel::Study::open(dir, registry, g.verbose);
  kernel::EvalOutcome out;
  if (vm.count("failed")) {
    out.reason = failed.empty() ? "reported failed by the user" : failed;
  } else if (vm.count("json")) {
    out = study->outcome_from_json(json_text);
  } else {
    nlohmann::json j;
    j["objective"] = *objective;
    nlohmann::json c = nlohmann::json::object();
    for (const auto& s : cons) {
      const auto eq = s.find('=');
      if (eq == std::string::npos)
        throw po::error(fmt::format("--constraint {}: expected NAME=VALUE", s));
      try {
        c[s.substr(0, eq)] = std::stod(s.substr(eq + 1));
      } catch (const std::exception&) {
        throw po::error(fmt::format("--constraint {}: value is not a number", s));
      }
    }
    for (const auto& [name, v] : c.items()) {
      bool known = false;
      for (const auto& bc : study->constraints()) known = known || bc.name == name;
      if (!known)
        throw kernel::ConfigError(
            fmt::format("--constraint {}: the study has no such constraint", name));
    }
    j["constraints"] = c;
    out = study->outcome_from_json(j.dump());
    if (!out.ok) throw kernel::ConfigError(out.reason);
  }
  study->tell(id, out);
  std::cout << fmt::format("observation {} recorded as {}\n", id, out.ok ? "complete" : "failed");
  return kernel::kExitOk;
}

int cmd_show(const std::vector<std::string>& args, const Globals&) {
  po::options_description opts("arbo show DIR [options]");
  std::string dir;
  bool show_pipeline = false;
  opts.add_options()("help,h", "show this help")("dir", po::value(&dir), "study directory")(
      "pipeline", po::bool_switch(&show_pipeline), "print the resolved pipeline (TOML)");
  po::variables_map vm;
  if (!parse_args(args, opts, {required_arg("dir")}, vm)) return kernel::kExitOk;
  kernel::StudyStore store = open_store(dir);
  if (show_pipeline) {
    std::cout << store.meta("pipeline").value_or("");
    return kernel::kExitOk;
  }
  const bool maximize = store.meta("direction").value_or("minimize") == "maximize";
  const auto cnames = json_names(store, "constraint_names");
  const auto obs = store.observations();
  std::int64_t complete = 0, failed = 0, pending = 0, feasible = 0;
  std::optional<kernel::Observation> best;
  std::vector<const kernel::Observation*> improvements;
  for (const auto& o : obs) {
    if (o.status == kernel::ObsStatus::Pending) ++pending;
    if (o.status == kernel::ObsStatus::Failed) ++failed;
    if (o.status != kernel::ObsStatus::Complete) continue;
    ++complete;
    if (!o.feasible) continue;
    ++feasible;
    if (!best || better(o.objective, best->objective, maximize)) {
      best = o;
      improvements.push_back(&o);
    }
  }
  std::cout << fmt::format("study {} ({})\n", store.meta("name").value_or("?"), dir);
  std::cout << fmt::format("direction: {}, budget: {}\n", maximize ? "maximize" : "minimize",
                           store.meta("budget").value_or("?"));
  std::cout << fmt::format("observations: {} ({} complete, {} feasible, {} failed, {} pending)\n",
                           obs.size(), complete, feasible, failed, pending);
  if (best) {
    std::cout << fmt::format("best feasible: {} at observation {}\n  params: {}\n",
                             format_number(best->objective), best->id, best->params_json);
    for (std::size_t k = 0; k < cnames.size(); ++k) {
      std::cout << fmt::format("  {} = {}\n", cnames[k],
                               format_number(best->constraints[static_cast<Eigen::Index>(k)]));
    }
  } else {
    std::cout << "best feasible: none yet\n";
  }
  std::cout << "\nprogress (observations that improved the best feasible value):\n";
  std::cout << fmt::format("{:>8}  {:>8}  {:<20}  {}\n", "obs", "origin", "best", "params");
  for (const auto* o : improvements) {
    std::cout << fmt::format("{:>8}  {:>8}  {:<20}  {}\n", o->id, o->origin,
                             format_number(o->objective), o->params_json);
  }
  return kernel::kExitOk;
}

int cmd_export(const std::vector<std::string>& args, const Globals&) {
  po::options_description opts("arbo export DIR --format csv|json [options]");
  std::string dir, format = "csv", output;
  opts.add_options()("help,h", "show this help")("dir", po::value(&dir), "study directory")(
      "format", po::value(&format), "csv or json (default csv)")(
      "output,o", po::value(&output), "file to write (default: standard output)");
  po::variables_map vm;
  if (!parse_args(args, opts, {required_arg("dir")}, vm)) return kernel::kExitOk;
  if (format != "csv" && format != "json") {
    throw po::error(fmt::format("--format {}: expected csv or json", format));
  }
  kernel::StudyStore store = open_store(dir);
  const auto pnames = json_names(store, "parameter_names");
  const auto cnames = json_names(store, "constraint_names");
  std::ofstream file;
  if (!output.empty()) {
    file.open(output);
    if (!file) throw kernel::StudyError(fmt::format("cannot write {}", output));
  }
  std::ostream& out = output.empty() ? std::cout : file;
  const auto obs = store.observations();
  if (format == "json") {
    const auto stats = store.proposal_stats();
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& o : obs) {
      nlohmann::json j{
          {"id", o.id},
          {"status", kernel::to_string(o.status)},
          {"origin", o.origin},
          {"params", nlohmann::json::parse(o.params_json)},
          {"propose_seconds", o.propose_seconds},
          {"eval_seconds", o.eval_seconds},
          {"created_at", o.created_at},
          {"proposed_by", o.proposed_by_json.empty() ? nlohmann::json(nullptr)
                                                     : nlohmann::json::parse(o.proposed_by_json)}};
      if (o.status == kernel::ObsStatus::Complete) {
        j["objective"] = o.objective;
        j["feasible"] = o.feasible;
        nlohmann::json c = nlohmann::json::object();
        for (std::size_t k = 0; k < cnames.size(); ++k) {
          c[cnames[k]] = o.constraints[static_cast<Eigen::Index>(k)];
        }
        j["constraints"] = c;
      }
      if (o.status == kernel::ObsStatus::Failed) j["reason"] = o.reason;
      if (o.status != kernel::ObsStatus::Pending) j["finished_at"] = o.finished_at;
      // Model-based proposals: fit/solve times, model size, nodes, gap and solver status.
      if (const auto it = stats.find(o.id); it != stats.end()) {
        j["solver"] = nlohmann::json::parse(it->second);
      }
      arr.push_back(std::move(j));
    }
    out << arr.dump(2) << "\n";
    return kernel::kExitOk;
  }
  // Model-based proposals' statistics (fit/solve times, model size, nodes, gap, status) as
  // one `solver_<key>` column per key any observation has, in key order; empty where absent.
  std::map<std::int64_t, nlohmann::json> stats;
  std::set<std::string> stat_keys;
  for (const auto& [id, text] : store.proposal_stats()) {
    nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object()) continue;
    for (const auto& item : j.items()) stat_keys.insert(item.key());
    stats.emplace(id, std::move(j));
  }
  out << "id,status,origin";
  for (const auto& p : pnames) out << "," << csv_escape(p);
  out << ",objective,feasible";
  for (const auto& c : cnames) out << "," << csv_escape(c);
  out << ",propose_seconds,eval_seconds,created_at,finished_at,reason";
  for (const auto& k : stat_keys) out << "," << csv_escape("solver_" + k);
  out << "\n";
  for (const auto& o : obs) {
    const auto params = nlohmann::json::parse(o.params_json);
    out << o.id << "," << kernel::to_string(o.status) << "," << o.origin;
    for (const auto& p : pnames) {
      out << ",";
      if (auto it = params.find(p); it != params.end()) out << csv_escape(json_value_text(*it));
    }
    const bool done = o.status == kernel::ObsStatus::Complete;
    out << "," << (done ? format_number(o.objective) : "") << ","
        << (done ? (o.feasible ? "1" : "0") : "");
    for (std::size_t k = 0; k < cnames.size(); ++k) {
      out << "," << (done ? format_number(o.constraints[static_cast<Eigen::Index>(k)]) : "");
    }
    out << "," << format_number(o.propose_seconds) << "," << format_number(o.eval_seconds) << ","
        << fmt::format("{:.3f}", o.created_at) << ","
        << (o.status == kernel::ObsStatus::Pending ? "" : fmt::format("{:.3f}", o.finished_at))
        << "," << csv_escape(o.reason);
    const auto st = stats.find(o.id);
    for (const auto& k : stat_keys) {
      out << ",";
      if (st == stats.end()) continue;
      if (auto it = st->second.find(k); it != st->second.end()) {
        out << csv_escape(json_value_text(*it));
      }
    }
    out << "\n";
  }
  return kernel::kExitOk;
}

}  // namespace arbo::cli

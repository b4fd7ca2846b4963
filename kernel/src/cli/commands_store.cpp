// SPDX-License-Identifier: MIT
// `arbo ask`, `tell`, `show`, `export`. `show` and `export` read the store only, so they work
// without any plugin (for example on a machine that only archives studies).
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/study.hpp"
#include "arbo/sdk/error.hpp"
#include "arbo/sdk/excerpt.hpp"
#include "cli/cli.hpp"
#include "cli/common.hpp"
#include "cli/output.hpp"
#include "engine/evaluation_output.hpp"
#include "store/stored_json.hpp"
#include "util/clock.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace arbo::cli {

namespace {

// A duration for people: "42 s", "17 min", "5 h 3 min", "2 d 4 h".
std::string format_duration(double seconds) {
  const auto s = static_cast<long long>(seconds);
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min", s / 60);
  if (s < 86400) return fmt::format("{} h {} min", s / 3600, s % 3600 / 60);
  return fmt::format("{} d {} h", s / 86400, s % 86400 / 3600);
}

// `show` and `export` only read: they never write to the study, and read one on a read-only
// file system.
kernel::StudyStore open_store(const std::string& dir) {
  if (!kernel::StudyStore::exists(dir)) {
    throw kernel::StudyError(fmt::format("{} holds no study", dir));
  }
  return kernel::StudyStore::open_read_only(dir);
}

using kernel::stored_json;

// `s` with every invalid UTF-8 sequence replaced by U+FFFD, as the JSON export writes it: a
// failure reason quotes a command's output, whatever its encoding.
std::string valid_utf8(const std::string& s) {
  const std::string quoted =
      nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

// True when `a` and `b` name the same file (device and inode).
bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {};
  struct stat sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// Refuses an --output inside the study directory (symbolic links and `..` resolved, a final
// link followed even when its target does not exist yet), in the study directory under another
// name (a bind mount), or one of the study's files under another name (a hard link): opening it
// for writing would truncate the database being read, its log or its lock. A usage error: the
// study is fine, the argument is not.
void refuse_output_in_study(const std::string& dir, const std::string& output) {
  std::error_code ec;
  const fs::path study = fs::canonical(dir, ec);
  if (ec) return;  // no such directory: opening the study says so, and there is nothing to harm
  fs::path out = fs::absolute(output, ec);
  for (int hops = 0; hops < 40 && fs::is_symlink(out, ec); ++hops) {
    const fs::path target = fs::read_symlink(out, ec);
    if (ec) break;
    out = target.is_absolute() ? target : out.parent_path() / target;
  }
  out = fs::weakly_canonical(out, ec);
  bool inside = !ec && (std::mismatch(study.begin(), study.end(), out.begin(), out.end()).first ==
                            study.end() ||
                        same_file(out.parent_path(), study));
  for (const auto& entry : fs::directory_iterator(study, ec)) {
    inside = inside || same_file(entry.path(), output);
  }
  if (inside) {
    throw po::error(fmt::format(
        "--output {} is inside the study directory {}, whose files it would overwrite; write the "
        "export elsewhere",
        output, dir));
  }
}

// `text` as a finite number, the whole of it; else `refuse` is called with a message naming
// `what`.
template <class Refuse>
double read_finite(const std::string& text, const std::string& what, const Refuse& refuse) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    refuse(fmt::format("{} = '{}': expected a finite number", what, sdk::excerpt(text)));
  }
  return v;
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
  const kernel::Observation o = study->ask();
  std::cout << fmt::format("{{\"id\": {}, \"params\": {}}}\n", o.id, o.params_json);
  return kernel::kExitOk;
}

int cmd_tell(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts(
      "arbo tell DIR (ID | --params JSON) (--objective V [--constraint NAME=V]... | --json TEXT "
      "| --failed REASON)\n\n"
      "Records the result of observation ID (from 'arbo ask'), or, with --params, of a point the\n"
      "study did not propose (an earlier experiment: it becomes a new observation with origin\n"
      "'tell' and counts toward the budget).\n\noptions");
  std::string dir, json_text, failed, objective, params_text;
  std::int64_t id = 0;
  std::vector<std::string> cons;
  opts.add_options()("help,h", "show this help")("dir", po::value(&dir), "study directory")(
      "id", po::value(&id), "observation id from 'arbo ask'")(
      "params", po::value(&params_text),
      "instead of ID: the point's parameter values as a JSON object by name")(
      "objective", po::value(&objective), "the objective value")(
      "constraint", po::value(&cons)->composing(), "a black-box constraint value: NAME=VALUE")(
      "json", po::value(&json_text), "the result as JSON, as an external command prints it")(
      "failed", po::value(&failed), "the evaluation failed, for this reason");
  po::variables_map vm;
  if (!parse_args(args, opts, {required_arg("dir"), optional_arg("id")}, vm))
    return kernel::kExitOk;
  const bool told_point = vm.count("params") > 0;
  if (told_point == (vm.count("id") > 0)) throw po::error("give exactly one of ID and --params");
  const bool has_objective = vm.count("objective") > 0;
  const int modes =
      (has_objective ? 1 : 0) + (vm.count("json") ? 1 : 0) + (vm.count("failed") ? 1 : 0);
  if (modes != 1) throw po::error("give exactly one of --objective, --json, --failed");
  if (!cons.empty() && !has_objective) throw po::error("--constraint goes with --objective");

  kernel::PluginRegistry registry = load_registry(g);
  auto study = kernel::Study::open(dir, registry, g.verbose);
  // A user's typo must never consume an evaluation: only --failed or {"error": ...} records a
  // failed one. Anything else that is not a complete result is refused (exit 3) before the
  // study is touched, so a pending observation stays pending.
  const std::string subject =
      told_point ? std::string("the point of --params") : fmt::format("observation {}", id);
  const auto refuse = [&](const std::string& what) {
    throw kernel::ConfigError(
        fmt::format("{}; nothing was recorded for {} (to record a failed evaluation, use "
                    "--failed REASON or --json '{{\"error\": REASON}}')",
                    what, subject));
  };
  // The point of --params, checked before anything is recorded.
  std::vector<sdk::Value> point;
  if (told_point) {
    std::string error;
    const auto parsed = kernel::parse_bounded_json(params_text, error);
    if (!parsed) refuse(fmt::format("--params: {}", error));
    try {
      point = values_of_params(study->space(), *parsed);
      // Refused here, before the study is touched.
      kernel::encode_user_point(study->space(), point);
    } catch (const sdk::InvalidArgument& e) {
      refuse(fmt::format("--params: {}", e.what()));
    }
  }
  kernel::EvalOutcome out;
  if (vm.count("failed")) {
    out.reason = failed.empty() ? "reported failed by the user" : failed;
  } else {
    std::string text = json_text;
    if (has_objective) {
      nlohmann::json j;
      j["objective"] = read_finite(objective, "--objective", refuse);
      nlohmann::json c = nlohmann::json::object();
      for (const auto& s : cons) {
        const auto eq = s.find('=');
        if (eq == std::string::npos) {
          refuse(fmt::format("--constraint {}: expected NAME=VALUE", sdk::excerpt(s)));
        }
        const std::string name = s.substr(0, eq);
        bool known = false;
        for (const auto& bc : study->constraints()) known = known || bc.name == name;
        if (!known) {
          refuse(
              fmt::format("--constraint {}: the study has no such constraint", sdk::excerpt(name)));
        }
        if (c.contains(name)) {
          refuse(fmt::format("--constraint {} is given twice; give each constraint once",
                             sdk::excerpt(name)));
        }
        c[name] = read_finite(s.substr(eq + 1), fmt::format("--constraint {}", name), refuse);
      }
      for (const auto& bc : study->constraints()) {
        if (!c.contains(bc.name)) {
          refuse(fmt::format("constraint '{}' is missing: give --constraint {}=VALUE", bc.name,
                             bc.name));
        }
      }
      j["constraints"] = c;
      text = j.dump();
    }
    const kernel::EvaluationResult r =
        kernel::read_evaluation_result(text, study->constraints(), "--json");
    if (r.kind == kernel::ResultKind::Invalid) {
      // Reasons about the text as a whole already begin with "--json".
      const std::string& reason = r.outcome.reason;
      refuse(has_objective || reason.rfind("--json", 0) == 0 ? reason
                                                             : fmt::format("--json: {}", reason));
    }
    out = r.outcome;
  }
  if (told_point) id = study->tell_point(point, out).id;
  if (!told_point) study->tell(id, out);
  std::cout << fmt::format("observation {} recorded as {}{}\n", id, out.ok ? "complete" : "failed",
                           told_point ? " (a told point)" : "");
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
  const auto cnames = store.names("constraint_names");
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
  // The params shown (the best one is the last improvement) are stored text: damaged, they
  // are a damaged study, as in export.
  for (const auto* o : improvements) stored_json(dir, o->id, "params", o->params_json);
  std::cout << fmt::format("study {} ({})\n", store.meta("name").value_or("?"), dir);
  std::cout << fmt::format("direction: {}, budget: {}\n", maximize ? "maximize" : "minimize",
                           store.meta("budget").value_or("?"));
  std::cout << fmt::format("observations: {} ({} complete, {} feasible, {} failed, {} pending)\n",
                           obs.size(), complete, feasible, failed, pending);
  // Whether anything drives the study now, and when it last recorded a result: what someone
  // watching a long headless study asks first.
  const auto budget = std::strtoll(store.meta("budget").value_or("0").c_str(), nullptr, 10);
  const auto left = budget - static_cast<long long>(obs.size() - static_cast<std::size_t>(pending));
  if (kernel::StudyLock::held(dir)) {
    std::cout << "state: running (an arbo process holds the study's lock: a run, or an ask or "
                 "tell)\n";
  } else if (left <= 0) {
    std::cout << "state: the budget is reached\n";
  } else {
    std::cout << fmt::format(
        "state: not running; {} evaluation{} left{} (arbo run --resume --study {})\n", left,
        left == 1 ? "" : "s",
        pending > 0 ? fmt::format(", {} of them pending from an earlier run", pending) : "", dir);
  }
  // Points proposed or told again (the stored params of the same point are the same text).
  std::set<std::string_view> seen;
  std::size_t repeats = 0;
  for (const auto& o : obs) repeats += seen.insert(o.params_json).second ? 0 : 1;
  if (repeats > 0) {
    std::cout << fmt::format(
        "repeats: {} of {} observations repeat an earlier point ([proposal] exclude_evaluated "
        "forbids repeats on discrete spaces)\n",
        repeats, obs.size());
  }
  const kernel::Observation* last = nullptr;
  for (const auto& o : obs) {
    if (o.status != kernel::ObsStatus::Pending && (!last || o.finished_at > last->finished_at)) {
      last = &o;
    }
  }
  if (last != nullptr && last->finished_at > 0.0) {
    const auto t = static_cast<std::time_t>(last->finished_at);
    const double ago = std::max(0.0, kernel::unix_now() - last->finished_at);
    std::cout << fmt::format("last result: observation {} at {:%Y-%m-%d %H:%M:%S} UTC ({} ago)\n",
                             last->id, fmt::gmtime(t), format_duration(ago));
  }
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
  if (!output.empty()) refuse_output_in_study(dir, output);
  kernel::StudyStore store = open_store(dir);
  const auto pnames = store.names("parameter_names");
  const auto cnames = store.names("constraint_names");
  std::optional<OutputFile> file;
  if (!output.empty()) file.emplace(output);
  std::ostream& out = file ? file->stream() : std::cout;
  // What was written is checked at the end: --output here, standard output in main().
  const auto finish = [&file] {
    if (file) file->close();
  };
  if (format == "json") {
    out << kernel::observations_json(store) << "\n";
    finish();
    return kernel::kExitOk;
  }
  const auto obs = store.observations();
  // Model-based proposals' statistics (fit/solve times, model size, nodes, gap, status) as
  // one `solver_<key>` column per key any observation has, in key order; empty where absent.
  std::map<std::int64_t, nlohmann::json> stats;
  std::set<std::string> stat_keys;
  for (const auto& [id, text] : store.proposal_stats()) {
    nlohmann::json j = stored_json(dir, id, "solver statistics", text);
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
    const auto params = stored_json(dir, o.id, "params", o.params_json);
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
        << "," << csv_escape(valid_utf8(o.reason));
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
  finish();
  return kernel::kExitOk;
}

}  // namespace arbo::cli

// SPDX-License-Identifier: MIT
// `arbo run`, `arbo check`, `arbo plugins`: the commands that load plugins.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "arbo/kernel/errors.hpp"
#include "arbo/kernel/guarded_call.hpp"
#include "arbo/kernel/pipeline.hpp"
#include "arbo/kernel/plugin_registry.hpp"
#include "arbo/kernel/study.hpp"
#include "arbo/sdk/excerpt.hpp"
#include "cli/cli.hpp"
#include "cli/common.hpp"
#include "cli/output.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace arbo::cli {

namespace {

// The stored pipeline with budget, time limit and workers neutralized: what must match on
// resume.
std::string comparable(kernel::Pipeline p) {
  p.budget = 0;
  p.time_limit_seconds = 0;
  p.workers = 1;
  p.source_path.clear();
  p.problem.working_directory.clear();
  return kernel::to_toml(p);
}

std::string trim_blanks(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") + 1 - first);
}

void print_summary(const kernel::RunSummary& s, kernel::Study& study) {
  std::cout << fmt::format(
      "{}: {} evaluations in this run, {} in the study ({} failed), {:.2f} s\n",
      kernel::to_string(s.termination), s.evaluations, s.total, s.failed, s.wall_seconds);
  if (auto best = study.best()) {
    std::cout << fmt::format("best feasible: {} = {} at observation {}: {}\n",
                             study.pipeline().maximize ? "max" : "min",
                             format_number(best->objective), best->id, best->params_json);
  } else {
    std::cout << "no feasible observation yet\n";
  }
  std::cout << fmt::format("study: {}\n", study.store().directory().string());
}

}  // namespace

int cmd_run(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts("arbo run FILE [options]");
  std::string file, study_dir;
  std::vector<std::string> sets;
  bool resume = false, quiet = false, cancel_on_exit = false;
  opts.add_options()("help,h", "show this help")("study", po::value(&study_dir),
                                                 "study directory (default: ./<file stem>.study)")(
      "resume", po::bool_switch(&resume), "continue the study in --study (or the default dir)")(
      "cancel-on-exit", po::bool_switch(&cancel_on_exit),
      "executor = \"slurm\": scancel the study's running jobs when the run is interrupted "
      "(default: they go on, and --resume collects them)")(
      "set", po::value(&sets)->composing(), "override a pipeline value: KEY.PATH=VALUE")(
      "quiet,q", po::bool_switch(&quiet), "no per-evaluation output")("file", po::value(&file),
                                                                      "pipeline TOML file");
  po::variables_map vm;
  if (!parse_args(args, opts, {optional_arg("file")}, vm)) return kernel::kExitOk;
  if (file.empty() && !(resume && !study_dir.empty())) {
    throw po::error("a pipeline FILE is required (or --resume --study DIR)");
  }
  if (study_dir.empty()) study_dir = fs::path(file).stem().string() + ".study";

  kernel::PluginRegistry registry = load_registry(g);
  std::unique_ptr<kernel::Study> study;
  if (resume) {
    if (!kernel::StudyStore::exists(study_dir)) {
      throw kernel::StudyError(fmt::format("--resume: {} holds no study", sdk::excerpt(study_dir)));
    }
    study = kernel::Study::open(study_dir, registry, g.verbose);
    if (!file.empty()) {
      kernel::Pipeline p = kernel::load_pipeline(file, sets, kernel::lookup_from(registry));
      if (comparable(p) != comparable(study->pipeline())) {
        throw kernel::ConfigError(
            fmt::format("{} does not match the pipeline stored in {}; only study.budget, "
                        "study.time_limit and study.workers may change on resume (see 'arbo "
                        "show {} --pipeline')",
                        sdk::excerpt(file), sdk::excerpt(study_dir), sdk::excerpt(study_dir)));
      }
      study->set_limits(p.budget, p.time_limit_seconds, p.workers);
    } else if (!sets.empty()) {
      // Without a file, --set may extend the stored study's limits. The values go through
      // the pipeline loader like any --set (one parser, one validation): the stored pipeline
      // with the overrides applied is loaded and must differ only in those limits.
      for (const auto& s : sets) {
        const auto eq = s.find('=');
        const std::string key = eq == std::string::npos ? s : trim_blanks(s.substr(0, eq));
        if (eq == std::string::npos ||
            (key != "study.budget" && key != "study.time_limit" && key != "study.workers")) {
          throw kernel::ConfigError(fmt::format(
              "--set {}: on resume without a FILE only study.budget, study.time_limit and "
              "study.workers can be set",
              sdk::excerpt(s)));
        }
      }
      const kernel::Pipeline p =
          kernel::parse_pipeline(kernel::to_toml(study->pipeline()),
                                 (fs::path(study_dir) / "study.db").string() + " [stored pipeline]",
                                 sets, kernel::lookup_from(registry));
      study->set_limits(p.budget, p.time_limit_seconds, p.workers);
    }
  } else {
    const std::string text = kernel::read_pipeline_file(file);
    kernel::Pipeline p = kernel::parse_pipeline(text, file, sets, kernel::lookup_from(registry));
    study = kernel::Study::create(study_dir, std::move(p), text, registry, g.verbose);
  }

  catch_interrupts();
  // A closed pipe on stdout must not kill the study half-way through an evaluation: the write
  // fails instead, and the run goes on (see below).
  signal(SIGPIPE, SIG_IGN);
  const bool tty = isatty(STDOUT_FILENO) != 0;
  kernel::RunOptions options;
  options.interrupt = &interrupt_flag();
  options.cancel_on_exit = cancel_on_exit;
  const std::vector<std::string> cnames = [&] {
    std::vector<std::string> n;
    for (const auto& c : study->constraints()) n.push_back(c.name);
    return n;
  }();
  if (!quiet) {
    // Progress is written a line at a time, so that a log or a pipe shows every finished
    // evaluation. Output that cannot be written (a full disk, a reader gone) does not stop the
    // study: evaluations are what costs, the study keeps every result and 'arbo show' reports
    // them. It is said once on stderr, and the run exits 7 at the end (main()).
    options.on_progress = [&](const kernel::ProgressEvent& ev) {
      if (!std::cout) return;  // failed before, and said so
      const kernel::Observation& o = *ev.observation;
      const std::string best = ev.best ? format_number(*ev.best) : "-";
      if (tty) {
        std::cout << fmt::format(
                         "\r[{:>5}/{}] best {:<14} last {:<14} {:8.1f} s", ev.done, ev.budget, best,
                         o.status == kernel::ObsStatus::Complete ? format_number(o.objective)
                                                                 : "failed",
                         ev.elapsed_seconds)
                  << std::flush;
      } else {
        std::cout << describe_observation(o, cnames) << " best=" << best << "\n" << std::flush;
      }
      if (!std::cout) {
        std::cerr << fmt::format(
            "arbo: warning: {}; the study goes on ('arbo show {}' reports it)\n", stdout_error(),
            study_dir);
      }
    };
  }
  const kernel::RunSummary summary = study->run(options);
  if (tty && !quiet) std::cout << "\n";
  print_summary(summary, *study);
  if (summary.termination == kernel::Termination::Interrupted) {
    std::cout << fmt::format("resume with: arbo run --resume --study {}\n", study_dir);
    return kernel::kExitInterrupted;
  }
  return kernel::kExitOk;
}

int cmd_init(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts("arbo init FILE [options]");
  std::string file, study_dir;
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")("study", po::value(&study_dir),
                                                 "study directory (default: ./<file stem>.study)")(
      "set", po::value(&sets)->composing(), "override a pipeline value: KEY.PATH=VALUE")(
      "file", po::value(&file), "pipeline TOML file");
  po::variables_map vm;
  if (!parse_args(args, opts, {optional_arg("file")}, vm)) return kernel::kExitOk;
  if (file.empty()) throw po::error("a pipeline FILE is required");
  if (study_dir.empty()) study_dir = fs::path(file).stem().string() + ".study";
  kernel::PluginRegistry registry = load_registry(g);
  const std::string text = kernel::read_pipeline_file(file);
  kernel::Pipeline p = kernel::parse_pipeline(text, file, sets, kernel::lookup_from(registry));
  kernel::Study::create(study_dir, std::move(p), text, registry, g.verbose);
  std::cout << fmt::format("created study {}; next: arbo ask {}\n", study_dir, study_dir);
  return kernel::kExitOk;
}

int cmd_check(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts("arbo check FILE [options]");
  std::string file;
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")("set", po::value(&sets)->composing(),
                                                 "override a pipeline value: KEY.PATH=VALUE")(
      "file", po::value(&file), "pipeline TOML file");
  po::variables_map vm;
  if (!parse_args(args, opts, {optional_arg("file")}, vm)) return kernel::kExitOk;
  if (file.empty()) throw po::error("a pipeline FILE is required");
  kernel::PluginRegistry registry = load_registry(g);
  const kernel::Pipeline p = kernel::load_pipeline(file, sets, kernel::lookup_from(registry));
  // Creating every component catches what only a plugin can judge (a known constraint's
  // expression, a missing formulation capability); a scratch study does exactly that and is
  // removed again.
  {
    std::string scratch = (fs::temp_directory_path() / "arbo-check-XXXXXX").string();
    if (mkdtemp(scratch.data()) == nullptr) {
      throw kernel::StudyError(fmt::format("cannot create a scratch directory in {}",
                                           fs::temp_directory_path().string()));
    }
    struct Cleanup {
      std::string dir;
      ~Cleanup() {
        std::error_code ec;
        fs::remove_all(dir, ec);
      }
    } cleanup{scratch};
    kernel::Study::create(fs::path(scratch) / "study", p, "", registry, g.verbose);
  }
  std::string problem = p.problem.plugin ? p.problem.plugin->id()
                                         : fmt::format("command '{}'", p.problem.command.front());
  std::string model = p.surrogate ? fmt::format("{} + {} + {}", p.surrogate->id(),
                                                p.acquisition->id(), p.inner_solver.id())
                                  : fmt::format("model-free, {}", p.inner_solver.id());
  std::cout << fmt::format("{}: ok: {} on {}, {} evaluations ({} {} initial), seed {}\n", file,
                           model, problem, p.budget, p.design_size, kernel::to_string(p.design),
                           p.seed);
  return kernel::kExitOk;
}

int cmd_plugins(const std::vector<std::string>& args, const Globals& g) {
  po::options_description opts("arbo plugins [options]");
  bool params = false, all = false;
  opts.add_options()("help,h", "show this help")("params", po::bool_switch(&params),
                                                 "show each component's parameters")(
      "all", po::bool_switch(&all), "include advanced parameters");
  po::variables_map vm;
  if (!parse_args(args, opts, {}, vm)) return kernel::kExitOk;
  kernel::PluginRegistry registry = load_registry(g);
  for (const kernel::ComponentEntry* e : registry.components()) {
    std::cout << fmt::format("{:<32} {} {}  {}\n", e->id, e->plugin_name, e->plugin_version,
                             e->info.summary);
    if (!params && !all) continue;
    std::cout << fmt::format("    library: {}\n", e->library_path);
    std::cout << kernel::format_parameters(*e, all);
  }
  return kernel::kExitOk;
}

}  // namespace arbo::cli

// SPDX-License-Identifier: MIT
/// @file
/// @brief StudyStore (SQLite3 C API) and StudyLock (flock).
#include "arbo/kernel/study_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "arbo/kernel/errors.hpp"
#include "util/clock.hpp"

namespace arbo::kernel {

namespace {

namespace fs = std::filesystem;

constexpr int kSchemaVersion = 1;
constexpr const char* kDbName = "study.db";
constexpr int kBusyTimeoutMs = 5000;

constexpr const char* kSchemaSql = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE observations (
  id              INTEGER PRIMARY KEY,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'complete', 'failed')),
  origin          TEXT NOT NULL,
  x               BLOB NOT NULL,
  params          TEXT NOT NULL,
  objective       REAL,
  constraints     BLOB,
  feasible        INTEGER,
  reason          TEXT,
  proposed_by     TEXT,
  propose_seconds REAL,
  eval_seconds    REAL,
  created_at      REAL NOT NULL,
  finished_at     REAL
);
)sql";

// Tables beside `observations`, each added to a study created before it existed when that
// study is opened (see `open_impl`); builds that predate a table ignore it, and an empty table
// reads like a missing one.
// - proposal_stats: the statistics of each model-based proposal (JSON), by observation id;
// - surrogate_states: the state of each surrogate with sdk::SavesState after its latest fit,
//   one row per metric (0 the objective, 1 + k black-box constraint k), written with the
//   proposal it belongs to and replaced by the next.
struct SideTable {
  const char* name;
  const char* columns;
};
constexpr SideTable kSideTables[] = {
    {"proposal_stats", "id INTEGER PRIMARY KEY, stats TEXT NOT NULL"},
    {"surrogate_states", "metric INTEGER PRIMARY KEY, id INTEGER NOT NULL, state BLOB NOT NULL"},
};

constexpr const char* kSelectColumns =
    "SELECT id, status, origin, x, params, objective, constraints, feasible, reason, "
    "proposed_by, propose_seconds, eval_seconds, created_at, finished_at FROM observations";

// Vectors are stored as raw little-endian IEEE doubles, independent of the host's byte order,
// so a study directory can be copied between machines.
std::string encode_doubles(const Eigen::VectorXd& v) {
  std::string out(static_cast<std::size_t>(v.size()) * 8, '\0');
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, &v[i], 8);
    for (int b = 0; b < 8; ++b) {
      out[static_cast<std::size_t>(i) * 8 + static_cast<std::size_t>(b)] =
          static_cast<char>((bits >> (8 * b)) & 0xffu);
    }
  }
  return out;
}

std::optional<ObsStatus> status_from_string(std::string_view s) {
  if (s == "pending") return ObsStatus::Pending;
  if (s == "complete") return ObsStatus::Complete;
  if (s == "failed") return ObsStatus::Failed;
  return std::nullopt;
}

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

// Returns a kept statement to its initial state when a call leaves, even by an exception, so
// the next call starts clean and no read transaction stays open.
class ResetGuard {
 public:
  explicit ResetGuard(sqlite3_stmt* s) : s_(s) {}
  ~ResetGuard() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  ResetGuard(const ResetGuard&) = delete;
  ResetGuard& operator=(const ResetGuard&) = delete;

 private:
  sqlite3_stmt* s_;
};

// True when `text` is one JSON object. A SAX pass that builds nothing: the cheapest full check.
bool is_json_object(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{' && nlohmann::json::accept(text);
}

// Removes a database and its companions (write-ahead log, shared memory, rollback journal).
void remove_database_files(const fs::path& db_path, std::error_code& ec) {
  ec.clear();
  for (const char* suffix : {"-wal", "-shm", "-journal", ""}) {
    std::error_code one;
    fs::remove(fs::path(db_path.string() + suffix), one);
    if (one && !ec) ec = one;
  }
}

// The value of a one-integer query; nullopt when it fails (not a database, no such table).
std::optional<std::int64_t> query_int(sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) return std::nullopt;
  Stmt s(raw);
  if (sqlite3_step(s.get()) != SQLITE_ROW) return std::nullopt;
  return sqlite3_column_int64(s.get(), 0);
}

// What an open database holds (see StudyDirState). An interrupted creation is provably empty:
// either no table at all (killed before the creation committed), or the arbo schema with its
// version and no other metadata and no observation (older builds committed the schema before
// the pipeline; this one commits created_at with the schema). Anything it cannot read is a
// Study, for `open` to say what is wrong with it.
StudyDirState classify(sqlite3* db) {
  const auto entries = query_int(db, "SELECT COUNT(*) FROM sqlite_master");
  if (!entries) return StudyDirState::Study;
  if (*entries == 0) return StudyDirState::Interrupted;
  const auto version = query_int(db, "SELECT COUNT(*) FROM meta WHERE key = 'schema_version'");
  const auto other_meta = query_int(db, "SELECT COUNT(*) FROM meta WHERE key <> 'schema_version'");
  const auto observations = query_int(db, "SELECT COUNT(*) FROM observations");
  if (version == 1 && other_meta == 0 && observations == 0) return StudyDirState::Interrupted;
  return StudyDirState::Study;
}

StudyError already_holds_a_study(const fs::path& dir) {
  return StudyError(fmt::format(
      "study directory {} already holds a study; use --resume or another --study directory",
      dir.string()));
}

StudyError interrupted_creation(const fs::path& dir) {
  return StudyError(fmt::format(
      "{} holds no study: its creation did not complete (it was interrupted, or is still "
      "running) and no observation was stored; create the study again without --resume "
      "('arbo run FILE --study {}' or 'arbo init'), which clears what is left, or remove the "
      "directory",
      dir.string(), dir.string()));
}

// True when `path` is on a file system mounted read-only: nobody can write the study there, so
// reading it as immutable is safe.
bool on_read_only_file_system(const fs::path& path) {
  struct statvfs st {};
  return ::statvfs(path.c_str(), &st) == 0 && (st.f_flag & ST_RDONLY) != 0;
}

}  // namespace

const char* to_string(ObsStatus status) noexcept {
  switch (status) {
    case ObsStatus::Pending: return "pending";
    case ObsStatus::Complete: return "complete";
    case ObsStatus::Failed: return "failed";
  }
  return "unknown";
}

struct StudyStore::Impl {
  fs::path dir;
  fs::path db_path;
  sqlite3* db = nullptr;
  // Kept prepared statements. Declared after `db` so they are finalized before it closes.
  Stmt insert_pending, insert_stats, insert_state, insert_finished, update_complete, update_fail;
  Stmt select_status, select_all, select_one, count_status, set_meta, get_meta, select_stats;
  Stmt select_states;
  // Between create_uncommitted and commit_creation: the database is this store's own
  // uncommitted creation, removed again if the store is destroyed before the commit.
  bool creating = false;
  // The length every stored point, and every complete observation's constraint values, must
  // have: the study's parameters and black-box constraints (metadata), -1 when not recorded.
  Eigen::Index n_params = -1;
  Eigen::Index n_constraints = -1;

  Impl(fs::path d, fs::path p) : dir(std::move(d)), db_path(std::move(p)) {}
  ~Impl() {
    insert_pending.reset();
    insert_stats.reset();
    insert_state.reset();
    insert_finished.reset();
    update_complete.reset();
    update_fail.reset();
    select_status.reset();
    select_all.reset();
    select_one.reset();
    count_status.reset();
    set_meta.reset();
    get_meta.reset();
    select_stats.reset();
    select_states.reset();
    if (db != nullptr) sqlite3_close(db);  // rolls back an uncommitted creation
    if (creating) {
      std::error_code ignored;
      remove_database_files(db_path, ignored);
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  [[noreturn]] void fail(std::string_view operation) const {
    throw StudyError(fmt::format("study {}: {} failed: {}", db_path.string(), operation,
                                 db ? sqlite3_errmsg(db) : "out of memory"));
  }

  void check(int rc, std::string_view operation) const {
    if (rc != SQLITE_OK) fail(operation);
  }

  void exec(const char* sql, std::string_view operation) const {
    check(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), operation);
  }

  Stmt prepare(const char* sql, std::string_view operation) const {
    sqlite3_stmt* s = nullptr;
    check(sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr), operation);
    return Stmt(s);
  }

  // Steps a statement that returns no rows.
  void run(sqlite3_stmt* s, std::string_view operation) const {
    if (sqlite3_step(s) != SQLITE_DONE) fail(operation);
  }

  // Steps a statement that returns at most one row; true when it returned one.
  bool step_row(sqlite3_stmt* s, std::string_view operation) const {
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(operation);
  }

  void bind_text(sqlite3_stmt* s, int i, const std::string& v, std::string_view op) const {
    check(sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT), op);
  }
  void bind_double(sqlite3_stmt* s, int i, double v, std::string_view op) const {
    check(sqlite3_bind_double(s, i, v), op);
  }
  void bind_int(sqlite3_stmt* s, int i, std::int64_t v, std::string_view op) const {
    check(sqlite3_bind_int64(s, i, v), op);
  }
  void bind_vector(sqlite3_stmt* s, int i, const Eigen::VectorXd& v, std::string_view op) const {
    // A null pointer would bind SQL NULL; an empty vector must stay an empty BLOB.
    if (v.size() == 0) {
      check(sqlite3_bind_zeroblob(s, i, 0), op);
      return;
    }
    const std::string bytes = encode_doubles(v);
    check(sqlite3_bind_blob(s, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT),
          op);
  }

  std::string column_text(sqlite3_stmt* s, int i) const {
    const auto* p = sqlite3_column_text(s, i);
    if (p == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(p),
                       static_cast<std::size_t>(sqlite3_column_bytes(s, i)));
  }

  [[noreturn]] void damaged(std::int64_t id, std::string_view what) const {
    throw StudyError(
        fmt::format("study {}: observation {} is damaged: {}", db_path.string(), id, what));
  }

  Eigen::VectorXd column_vector(sqlite3_stmt* s, int i, std::int64_t id,
                                std::string_view what) const {
    const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(s, i));
    const int n = sqlite3_column_bytes(s, i);
    if (n % 8 != 0) {
      damaged(id, fmt::format("its {} vector has {} bytes, not a multiple of 8", what, n));
    }
    Eigen::VectorXd v(n / 8);
    for (Eigen::Index k = 0; k < v.size(); ++k) {
      std::uint64_t bits = 0;
      for (int b = 0; b < 8; ++b) {
        bits |= static_cast<std::uint64_t>(p[k * 8 + b]) << (8 * b);
      }
      std::memcpy(&v[k], &bits, 8);
    }
    return v;
  }

  Observation read_row(sqlite3_stmt* s) const {
    Observation o;
    o.id = sqlite3_column_int64(s, 0);
    const std::string status = column_text(s, 1);
    const auto st = status_from_string(status);
    if (!st) {
      throw StudyError(fmt::format("study {}: observation {} has an unknown status '{}'",
                                   db_path.string(), o.id, status));
    }
    o.status = *st;
    o.origin = column_text(s, 2);
    o.x = column_vector(s, 3, o.id, "point");
    if (n_params >= 0 && o.x.size() != n_params) {
      damaged(o.id, fmt::format("its point has {} coordinates, the study has {} parameters",
                                o.x.size(), n_params));
    }
    o.params_json = column_text(s, 4);
    // A pending observation's params are sent as they are to the evaluation that a resumed run
    // repeats. Finished ones are only parsed by readers (export, show), which report damage
    // the same way: checking every row here would cost a full JSON pass per observation on
    // every load.
    if (o.status == ObsStatus::Pending && !is_json_object(o.params_json)) {
      damaged(o.id, "its params are not a JSON object");
    }
    o.objective = sqlite3_column_double(s, 5);  // NULL reads as 0.0
    o.constraints = column_vector(s, 6, o.id, "constraint");
    if (o.status == ObsStatus::Complete) {
      if (sqlite3_column_type(s, 5) == SQLITE_NULL)
        damaged(o.id, "it is complete without an objective");
      if (n_constraints >= 0 && o.constraints.size() != n_constraints) {
        damaged(o.id, fmt::format("it has {} constraint values, the study has {} constraints",
                                  o.constraints.size(), n_constraints));
      }
    }
    o.feasible = sqlite3_column_int64(s, 7) != 0;
    o.reason = column_text(s, 8);
    o.proposed_by_json = column_text(s, 9);
    o.propose_seconds = sqlite3_column_double(s, 10);
    o.eval_seconds = sqlite3_column_double(s, 11);
    o.created_at = sqlite3_column_double(s, 12);
    o.finished_at = sqlite3_column_double(s, 13);
    return o;
  }

  // Per-connection settings. WAL with synchronous=NORMAL makes every committed transaction
  // survive a crash or SIGKILL of the process (the WAL is written before COMMIT returns); only
  // power loss or an OS crash can lose the last commits, which would need synchronous=FULL at
  // the price of an fsync per commit.
  void configure() {
    check(sqlite3_busy_timeout(db, kBusyTimeoutMs), "setting busy_timeout");
    sqlite3_stmt* raw = nullptr;
    check(sqlite3_prepare_v2(db, "PRAGMA journal_mode=WAL", -1, &raw, nullptr),
          "setting journal_mode=WAL");
    Stmt s(raw);
    if (!step_row(s.get(), "setting journal_mode=WAL") || column_text(s.get(), 0) != "wal") {
      throw StudyError(
          fmt::format("study {}: the database cannot be switched to WAL mode", db_path.string()));
    }
    s.reset();
    exec("PRAGMA synchronous=NORMAL", "setting synchronous=NORMAL");
    exec("PRAGMA foreign_keys=ON", "setting foreign_keys=ON");
  }

  // A metadata array of names; nullopt when the key is absent.
  std::optional<std::vector<std::string>> names(const std::string& key) const {
    const std::string op = fmt::format("meta('{}')", key);
    sqlite3_stmt* s = get_meta.get();
    ResetGuard guard(s);
    bind_text(s, 1, key, op);
    if (!step_row(s, op)) return std::nullopt;
    const auto j = nlohmann::json::parse(column_text(s, 0), nullptr, false);
    const auto damaged_meta = [&] {
      return StudyError(
          fmt::format("study {}: the metadata '{}' is damaged (not a JSON array of names)",
                      db_path.string(), key));
    };
    if (!j.is_array()) throw damaged_meta();
    std::vector<std::string> out;
    for (const auto& n : j) {
      if (!n.is_string()) throw damaged_meta();
      out.push_back(n.get<std::string>());
    }
    return out;
  }

  void load_dimensions() {
    const auto count = [&](const char* key) -> Eigen::Index {
      const auto n = names(key);
      return n ? static_cast<Eigen::Index>(n->size()) : -1;
    };
    n_params = count("parameter_names");
    n_constraints = count("constraint_names");
  }

  bool has_table(const char* name) const {
    sqlite3_stmt* raw = nullptr;
    check(sqlite3_prepare_v2(
              db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &raw,
              nullptr),
          "reading the schema");
    Stmt s(raw);
    bind_text(s.get(), 1, name, "reading the schema");
    if (!step_row(s.get(), "reading the schema")) fail("reading the schema");
    return sqlite3_column_int(s.get(), 0) != 0;
  }

  void prepare_all() {
    insert_pending = prepare(
        "INSERT INTO observations (status, origin, x, params, proposed_by, propose_seconds, "
        "created_at) VALUES ('pending', ?1, ?2, ?3, ?4, ?5, ?6)",
        "preparing add_pending");
    insert_stats = prepare("INSERT OR REPLACE INTO proposal_stats (id, stats) VALUES (?1, ?2)",
                           "preparing add_pending (statistics)");
    insert_state =
        prepare("INSERT OR REPLACE INTO surrogate_states (metric, id, state) VALUES (?1, ?2, ?3)",
                "preparing add_pending (surrogate states)");
    insert_finished = prepare(
        "INSERT INTO observations (status, origin, x, params, objective, constraints, feasible, "
        "reason, proposed_by, propose_seconds, eval_seconds, created_at, finished_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        "preparing add_finished");
    // The status test in WHERE makes the check and the write one atomic statement.
    update_complete = prepare(
        "UPDATE observations SET status = 'complete', objective = ?2, constraints = ?3, "
        "feasible = ?4, eval_seconds = ?5, finished_at = ?6 "
        "WHERE id = ?1 AND status = 'pending'",
        "preparing complete");
    update_fail = prepare(
        "UPDATE observations SET status = 'failed', reason = ?2, eval_seconds = ?3, "
        "finished_at = ?4 WHERE id = ?1 AND status = 'pending'",
        "preparing fail");
    select_status =
        prepare("SELECT status FROM observations WHERE id = ?1", "preparing status query");
    select_all = prepare(fmt::format("{} ORDER BY id", kSelectColumns).c_str(),
                         "preparing observations query");
    select_one = prepare(fmt::format("{} WHERE id = ?1", kSelectColumns).c_str(),
                         "preparing observation query");
    count_status =
        prepare("SELECT COUNT(*) FROM observations WHERE status = ?1", "preparing count query");
    set_meta = prepare(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        "preparing set_meta");
    get_meta = prepare("SELECT value FROM meta WHERE key = ?1", "preparing meta query");
    select_stats = prepare("SELECT id, stats FROM proposal_stats ORDER BY id",
                           "preparing proposal statistics query");
    select_states = prepare("SELECT metric, state FROM surrogate_states ORDER BY metric",
                            "preparing surrogate states query");
  }

  // Runs `body` in one write transaction: committed when it returns, rolled back when it
  // throws, so a crash leaves all of its writes or none.
  template <class F>
  void transaction(std::string_view operation, F&& body) {
    exec("BEGIN IMMEDIATE", operation);
    try {
      body();
      exec("COMMIT", operation);
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  // Explains why an UPDATE ... WHERE status = 'pending' changed nothing.
  [[noreturn]] void not_pending(std::int64_t id, std::string_view operation) const {
    sqlite3_stmt* s = select_status.get();
    ResetGuard guard(s);
    bind_int(s, 1, id, operation);
    if (!step_row(s, operation)) {
      throw StudyError(
          fmt::format("study {}: {}: observation {} does not exist", dir.string(), operation, id));
    }
    throw StudyError(fmt::format("study {}: {}: observation {} is not pending (status {})",
                                 dir.string(), operation, id, column_text(s, 0)));
  }

  void check_params_json(const Observation& obs, std::string_view operation) const {
    if (!is_json_object(obs.params_json)) {
      throw StudyError(fmt::format("study {}: {}: params is not a JSON object: '{}'", dir.string(),
                                   operation, obs.params_json));
    }
  }
};

StudyStore::StudyStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StudyStore::StudyStore(StudyStore&&) noexcept = default;
StudyStore& StudyStore::operator=(StudyStore&&) noexcept = default;
StudyStore::~StudyStore() = default;

bool StudyStore::exists(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / kDbName, ec);
}

void StudyStore::create_directory(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st) && !fs::is_directory(st)) {
    throw StudyError(fmt::format(
        "cannot create study directory {}: it exists and is not a directory", dir.string()));
  }
  fs::create_directories(dir, ec);
  if (ec) {
    throw StudyError(
        fmt::format("cannot create study directory {}: {}", dir.string(), ec.message()));
  }
}

StudyDirState StudyStore::inspect(const fs::path& dir) {
  const fs::path db_path = dir / kDbName;
  if (!exists(dir)) return StudyDirState::Missing;
  // Read-write when the file allows it, so that SQLite can roll back what a killed writer left
  // in a rollback journal; SQLite falls back to reading on a read-only file.
  sqlite3* db = nullptr;
  StudyDirState state = StudyDirState::Study;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, kBusyTimeoutMs);
    state = classify(db);
  }
  sqlite3_close(db);
  return state;
}

StudyStore StudyStore::create(const fs::path& dir) {
  StudyStore store = create_uncommitted(dir);
  store.commit_creation();
  return store;
}

StudyStore StudyStore::create_uncommitted(const fs::path& dir) {
  const fs::path db_path = dir / kDbName;
  std::error_code ec;
  switch (inspect(dir)) {
    case StudyDirState::Missing: break;
    case StudyDirState::Study: throw already_holds_a_study(dir);
    case StudyDirState::Interrupted:
      // It holds no observation (see classify): start again from nothing.
      remove_database_files(db_path, ec);
      if (ec) {
        throw StudyError(fmt::format("cannot remove the interrupted creation {}: {}",
                                     db_path.string(), ec.message()));
      }
      break;
  }
  create_directory(dir);
  // O_EXCL makes "does a study exist" and "claim the file" one atomic step, so two concurrent
  // creates cannot both succeed and a failed create only ever removes its own file. An empty
  // file is a valid empty SQLite database.
  const int fd = ::open(db_path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == EEXIST) throw already_holds_a_study(dir);
    throw StudyError(fmt::format("cannot create {}: {}", db_path.string(), std::strerror(err)));
  }
  ::close(fd);
  // From here the file is ours: the Impl removes it if the creation does not complete.
  auto impl = std::make_unique<Impl>(dir, db_path);
  impl->creating = true;
  const int rc = sqlite3_open_v2(db_path.c_str(), &impl->db, SQLITE_OPEN_READWRITE, nullptr);
  impl->check(rc, "creating the database");
  impl->configure();
  // One transaction from the schema to commit_creation: until it commits, the file holds no
  // table, which every reader and the next creation recognize as an interrupted creation.
  impl->exec("BEGIN IMMEDIATE", "creating the schema (begin)");
  impl->exec(kSchemaSql, "creating the schema");
  for (const SideTable& t : kSideTables) {
    impl->exec(fmt::format("CREATE TABLE {} ({})", t.name, t.columns).c_str(),
               "creating the schema");
  }
  // created_at with the schema: a bare schema_version is what older builds left when killed
  // before their next commit (see classify), never a study made by this one.
  impl->exec(fmt::format("INSERT INTO meta (key, value) VALUES ('schema_version', '{}'), "
                         "('created_at', '{}')",
                         kSchemaVersion, unix_now())
                 .c_str(),
             "writing the schema version");
  impl->prepare_all();
  return StudyStore(std::move(impl));
}

void StudyStore::commit_creation() {
  if (!impl_->creating) return;
  impl_->exec("COMMIT", "creating the study (commit)");
  impl_->creating = false;
  impl_->load_dimensions();
}

StudyStore StudyStore::open_impl(const fs::path& dir, bool read_only) {
  const fs::path db_path = dir / kDbName;
  if (!exists(dir)) {
    std::error_code ec;
    const fs::file_status st = fs::status(dir, ec);
    if (fs::exists(st) && !fs::is_directory(st)) {
      throw StudyError(fmt::format("no study in {}: it is not a directory", dir.string()));
    }
    throw StudyError(fmt::format("no study in {} ({} is missing)", dir.string(), db_path.string()));
  }
  auto impl = std::make_unique<Impl>(dir, db_path);
  if (read_only) {
    // A reader of a study in WAL mode needs its shared-memory file, which it cannot create on
    // a read-only file system; there nobody can write the study either, so it is read as
    // immutable, unless a write-ahead log holds commits not yet in the database file.
    std::error_code ec;
    const auto wal_size = fs::file_size(fs::path(db_path.string() + "-wal"), ec);
    const bool immutable = on_read_only_file_system(db_path) && (ec || wal_size == 0);
    std::string uri = "file:";
    for (const char c : fs::absolute(db_path).string()) {
      // Percent-encode what a URI path cannot hold literally.
      if (c == '%' || c == '?' || c == '#') {
        uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
      } else {
        uri += c;
      }
    }
    if (immutable) uri += "?immutable=1";
    impl->check(
        sqlite3_open_v2(uri.c_str(), &impl->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
        "opening the database");
  } else {
    impl->check(sqlite3_open_v2(db_path.c_str(), &impl->db, SQLITE_OPEN_READWRITE, nullptr),
                "opening the database");
  }
  impl->check(sqlite3_busy_timeout(impl->db, kBusyTimeoutMs), "setting busy_timeout");
  const auto not_arbo = [&](const std::string& why) {
    return StudyError(fmt::format("{} is not an arbo study ({})", db_path.string(), why));
  };
  // Identify the file before any pragma writes to it.
  {
    sqlite3_stmt* raw = nullptr;
    const int prc = sqlite3_prepare_v2(impl->db,
                                       "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
                                       "AND name IN ('meta', 'observations')",
                                       -1, &raw, nullptr);
    Stmt s(raw);
    // A reader cannot roll back a hot rollback journal. A study only ever has one while its
    // creation switches the empty database to WAL: that creation was interrupted.
    const auto hot_journal = [&] {
      return sqlite3_extended_errcode(impl->db) == SQLITE_READONLY_ROLLBACK;
    };
    if (prc == SQLITE_NOTADB) throw not_arbo(sqlite3_errmsg(impl->db));
    if (prc != SQLITE_OK && hot_journal()) throw interrupted_creation(dir);
    impl->check(prc, "reading the schema");
    const int src = sqlite3_step(s.get());
    if (src == SQLITE_NOTADB) throw not_arbo(sqlite3_errmsg(impl->db));
    if (src != SQLITE_ROW && hot_journal()) throw interrupted_creation(dir);
    if (src != SQLITE_ROW) impl->fail("reading the schema");
    const int tables = sqlite3_column_int(s.get(), 0);
    s.reset();
    if (classify(impl->db) == StudyDirState::Interrupted) throw interrupted_creation(dir);
    if (tables != 2) throw not_arbo("it has no meta/observations tables");
  }
  {
    sqlite3_stmt* raw = nullptr;
    impl->check(sqlite3_prepare_v2(impl->db, "SELECT value FROM meta WHERE key = 'schema_version'",
                                   -1, &raw, nullptr),
                "reading the schema version");
    Stmt s(raw);
    if (!impl->step_row(s.get(), "reading the schema version")) {
      throw not_arbo("it has no schema_version");
    }
    const std::string text = impl->column_text(s.get(), 0);
    int version = 0;
    try {
      std::size_t used = 0;
      version = std::stoi(text, &used);
      if (used != text.size()) throw std::invalid_argument(text);
    } catch (const std::exception&) {
      throw not_arbo(fmt::format("schema_version '{}' is not an integer", text));
    }
    if (version > kSchemaVersion) {
      throw StudyError(fmt::format(
          "study {} has schema version {}, newer than this build of arbo understands ({}); "
          "use a newer arbo",
          db_path.string(), version, kSchemaVersion));
    }
    if (version < 1) throw not_arbo(fmt::format("schema_version {} is invalid", version));
  }
  if (!read_only) impl->configure();
  // A study made before one of the side tables existed: add it now (only if missing, so
  // opening a current study never writes). A reader adds it as a temporary table, which reads
  // like a missing one and writes nothing to the study.
  for (const SideTable& t : kSideTables) {
    if (impl->has_table(t.name)) continue;
    const std::string sql =
        fmt::format("CREATE {}TABLE {} ({})", read_only ? "TEMP " : "", t.name, t.columns);
    impl->exec(sql.c_str(),
               read_only ? "reading the schema" : fmt::format("adding the table {}", t.name));
  }
  impl->prepare_all();
  impl->load_dimensions();
  return StudyStore(std::move(impl));
}

StudyStore StudyStore::open(const fs::path& dir) { return open_impl(dir, false); }

StudyStore StudyStore::open_read_only(const fs::path& dir) { return open_impl(dir, true); }

void StudyStore::set_meta(const std::string& key, const std::string& value) {
  sqlite3_stmt* s = impl_->set_meta.get();
  ResetGuard guard(s);
  const std::string op = fmt::format("set_meta('{}')", key);
  impl_->bind_text(s, 1, key, op);
  impl_->bind_text(s, 2, value, op);
  impl_->run(s, op);
}

std::vector<std::string> StudyStore::names(const std::string& key) const {
  return impl_->names(key).value_or(std::vector<std::string>{});
}

std::optional<std::string> StudyStore::meta(const std::string& key) const {
  sqlite3_stmt* s = impl_->get_meta.get();
  ResetGuard guard(s);
  const std::string op = fmt::format("meta('{}')", key);
  impl_->bind_text(s, 1, key, op);
  if (!impl_->step_row(s, op)) return std::nullopt;
  return impl_->column_text(s, 0);
}

// Each write below is a single statement in autocommit mode, i.e. its own transaction, committed
// when sqlite3_step returns SQLITE_DONE, except add_pending with statistics (one transaction).

std::int64_t StudyStore::add_pending(const Observation& obs) {
  constexpr std::string_view op = "add_pending";
  impl_->check_params_json(obs, op);
  std::int64_t id = 0;
  const auto insert = [&] {
    sqlite3_stmt* s = impl_->insert_pending.get();
    ResetGuard guard(s);
    impl_->bind_text(s, 1, obs.origin, op);
    impl_->bind_vector(s, 2, obs.x, op);
    impl_->bind_text(s, 3, obs.params_json, op);
    impl_->bind_text(s, 4, obs.proposed_by_json, op);
    impl_->bind_double(s, 5, obs.propose_seconds, op);
    impl_->bind_double(s, 6, obs.created_at > 0 ? obs.created_at : unix_now(), op);
    impl_->run(s, op);
    id = sqlite3_last_insert_rowid(impl_->db);
  };
  if (obs.stats_json.empty() && obs.surrogate_states.empty()) {
    insert();
    return id;
  }
  impl_->transaction(op, [&] {
    insert();
    if (!obs.stats_json.empty()) {
      sqlite3_stmt* s = impl_->insert_stats.get();
      ResetGuard guard(s);
      impl_->bind_int(s, 1, id, op);
      impl_->bind_text(s, 2, obs.stats_json, op);
      impl_->run(s, op);
    }
    for (const auto& [metric, state] : obs.surrogate_states) {
      sqlite3_stmt* s = impl_->insert_state.get();
      ResetGuard guard(s);
      impl_->bind_int(s, 1, metric, op);
      impl_->bind_int(s, 2, id, op);
      impl_->check(sqlite3_bind_blob64(s, 3, state.data(), state.size(), SQLITE_TRANSIENT), op);
      impl_->run(s, op);
    }
  });
  return id;
}

void StudyStore::complete(std::int64_t id, double objective, const Eigen::VectorXd& constraints,
                          bool feasible, double eval_seconds) {
  const std::string op = fmt::format("complete({})", id);
  // SQLite stores a bound NaN as NULL, which would read back as 0.0: a silent wrong value.
  if (std::isnan(objective)) {
    throw StudyError(fmt::format("study {}: {}: objective is NaN; record a failure instead",
                                 impl_->dir.string(), op));
  }
  sqlite3_stmt* s = impl_->update_complete.get();
  ResetGuard guard(s);
  impl_->bind_int(s, 1, id, op);
  impl_->bind_double(s, 2, objective, op);
  impl_->bind_vector(s, 3, constraints, op);
  impl_->bind_int(s, 4, feasible ? 1 : 0, op);
  impl_->bind_double(s, 5, eval_seconds, op);
  impl_->bind_double(s, 6, unix_now(), op);
  impl_->run(s, op);
  if (sqlite3_changes(impl_->db) != 1) impl_->not_pending(id, op);
}

void StudyStore::fail(std::int64_t id, const std::string& reason, double eval_seconds) {
  const std::string op = fmt::format("fail({})", id);
  sqlite3_stmt* s = impl_->update_fail.get();
  ResetGuard guard(s);
  impl_->bind_int(s, 1, id, op);
  impl_->bind_text(s, 2, reason, op);
  impl_->bind_double(s, 3, eval_seconds, op);
  impl_->bind_double(s, 4, unix_now(), op);
  impl_->run(s, op);
  if (sqlite3_changes(impl_->db) != 1) impl_->not_pending(id, op);
}

std::int64_t StudyStore::add_finished(const Observation& obs) {
  constexpr std::string_view op = "add_finished";
  if (obs.status == ObsStatus::Pending) {
    throw StudyError(fmt::format("study {}: {}: observation is pending; use add_pending",
                                 impl_->dir.string(), op));
  }
  const bool ok = obs.status == ObsStatus::Complete;
  if (ok && std::isnan(obs.objective)) {
    throw StudyError(fmt::format("study {}: {}: objective is NaN; record a failure instead",
                                 impl_->dir.string(), op));
  }
  impl_->check_params_json(obs, op);
  sqlite3_stmt* s = impl_->insert_finished.get();
  ResetGuard guard(s);
  const double now = unix_now();
  impl_->bind_text(s, 1, to_string(obs.status), op);
  impl_->bind_text(s, 2, obs.origin, op);
  impl_->bind_vector(s, 3, obs.x, op);
  impl_->bind_text(s, 4, obs.params_json, op);
  if (ok) {
    impl_->bind_double(s, 5, obs.objective, op);
    impl_->bind_vector(s, 6, obs.constraints, op);
    impl_->bind_int(s, 7, obs.feasible ? 1 : 0, op);
  } else {
    impl_->bind_text(s, 8, obs.reason, op);
  }
  impl_->bind_text(s, 9, obs.proposed_by_json, op);
  impl_->bind_double(s, 10, obs.propose_seconds, op);
  impl_->bind_double(s, 11, obs.eval_seconds, op);
  impl_->bind_double(s, 12, obs.created_at > 0 ? obs.created_at : now, op);
  impl_->bind_double(s, 13, obs.finished_at > 0 ? obs.finished_at : now, op);
  impl_->run(s, op);
  return sqlite3_last_insert_rowid(impl_->db);
}

std::vector<Observation> StudyStore::observations() const {
  constexpr std::string_view op = "reading observations";
  sqlite3_stmt* s = impl_->select_all.get();
  ResetGuard guard(s);
  std::vector<Observation> out;
  while (impl_->step_row(s, op)) out.push_back(impl_->read_row(s));
  return out;
}

std::vector<Observation> StudyStore::observations(ObsStatus status) const {
  const std::string op = fmt::format("reading {} observations", to_string(status));
  // Prepared per call, not kept: it runs once per `run` (the pending ones to re-run).
  Stmt s =
      impl_->prepare(fmt::format("{} WHERE status = ?1 ORDER BY id", kSelectColumns).c_str(), op);
  impl_->bind_text(s.get(), 1, to_string(status), op);
  std::vector<Observation> out;
  while (impl_->step_row(s.get(), op)) out.push_back(impl_->read_row(s.get()));
  return out;
}

std::optional<Observation> StudyStore::observation(std::int64_t id) const {
  const std::string op = fmt::format("reading observation {}", id);
  sqlite3_stmt* s = impl_->select_one.get();
  ResetGuard guard(s);
  impl_->bind_int(s, 1, id, op);
  if (!impl_->step_row(s, op)) return std::nullopt;
  return impl_->read_row(s);
}

std::int64_t StudyStore::count(ObsStatus status) const {
  const std::string op = fmt::format("counting {} observations", to_string(status));
  sqlite3_stmt* s = impl_->count_status.get();
  ResetGuard guard(s);
  impl_->bind_text(s, 1, to_string(status), op);
  if (!impl_->step_row(s, op)) impl_->fail(op);
  return sqlite3_column_int64(s, 0);
}

std::map<std::int64_t, std::string> StudyStore::proposal_stats() const {
  constexpr std::string_view op = "reading proposal statistics";
  sqlite3_stmt* s = impl_->select_stats.get();
  ResetGuard guard(s);
  std::map<std::int64_t, std::string> out;
  while (impl_->step_row(s, op)) out.emplace(sqlite3_column_int64(s, 0), impl_->column_text(s, 1));
  return out;
}

std::map<int, std::string> StudyStore::surrogate_states() const {
  constexpr std::string_view op = "reading surrogate states";
  sqlite3_stmt* s = impl_->select_states.get();
  ResetGuard guard(s);
  std::map<int, std::string> out;
  while (impl_->step_row(s, op)) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(s, 1));
    const auto n = static_cast<std::size_t>(sqlite3_column_bytes(s, 1));
    out.emplace(sqlite3_column_int(s, 0), p == nullptr ? std::string() : std::string(p, n));
  }
  return out;
}

const fs::path& StudyStore::directory() const noexcept { return impl_->dir; }

StudyLock::StudyLock(const fs::path& dir, double wait_seconds) {
  const fs::path path = dir / "lock";
  fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int err = errno;
    if (err == EROFS) {
      throw StudyError(fmt::format(
          "cannot lock study {}: it is on a read-only file system ('arbo show' and 'arbo "
          "export' can read it)",
          dir.string()));
    }
    throw StudyError(
        fmt::format("cannot open lock file {}: {}", path.string(), std::strerror(err)));
  }
  // flock locks belong to the open file description, so a second StudyLock conflicts even
  // within the same process, and the OS drops the lock when the process dies. A short wait
  // lets a resume follow a killed driver whose evaluation supervisor is still ending the
  // command (it keeps the lock until then), and lets parallel `ask`/`tell` calls take turns.
  const Clock::time_point start = Clock::now();
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK && seconds_since(start) < wait_seconds) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (err == EINTR) continue;
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      throw StudyError(fmt::format(
          "study {} is in use by another arbo process{}", dir.string(),
          wait_seconds > 0 ? fmt::format(" (still after {:g} s)", wait_seconds) : std::string()));
    }
    throw StudyError(fmt::format("cannot lock {}: {}", path.string(), std::strerror(err)));
  }
}

bool StudyLock::held(const fs::path& dir) {
  const int fd = ::open((dir / "lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  int rc = 0;
  do {
    rc = ::flock(fd, LOCK_SH | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  const bool busy = rc != 0 && errno == EWOULDBLOCK;
  if (rc == 0) ::flock(fd, LOCK_UN);
  ::close(fd);
  return busy;
}

StudyLock::~StudyLock() {
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
}

}  // namespace arbo::kernel

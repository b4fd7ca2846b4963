// SPDX-License-Identifier: MIT
// Reading a study's observations straight from its database, for end-to-end tests that compare
// a broken-and-resumed study with an uninterrupted one.
#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>

namespace arbo::test {

// id, status, params and objective (hexadecimal, exact) of every observation of the study
// database `db`, one line each; empty when it cannot be read.
inline std::string observation_rows(const std::filesystem::path& db) {
  sqlite3* h = nullptr;
  std::string out;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, "SELECT id, status, params, objective FROM observations ORDER BY id",
                           -1, &st, nullptr) == SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW) {
        out += fmt::format("{} {} {} {:a}\n", sqlite3_column_int64(st, 0),
                           reinterpret_cast<const char*>(sqlite3_column_text(st, 1)),
                           reinterpret_cast<const char*>(sqlite3_column_text(st, 2)),
                           sqlite3_column_double(st, 3));
      }
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return out;
}

}  // namespace arbo::test

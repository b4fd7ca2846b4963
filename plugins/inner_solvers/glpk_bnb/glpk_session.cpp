// SPDX-License-Identifier: MIT
#include "glpk_session.hpp"

#include <atomic>

#include <fmt/format.h>

namespace arbo::plugins::glpk {

namespace {

std::mutex& glpk_mutex() {
  static std::mutex m;
  return m;
}

std::atomic<std::uint64_t>& generation_counter() {
  static std::atomic<std::uint64_t> g{0};
  return g;
}

// GLPK's output is short; a runaway stream must not grow memory without bound.
constexpr std::size_t kMaxBuffered = 64 * 1024;

}  // namespace

GlpkSession::GlpkSession(LogFn log, bool exclusive)
    : lock_(glpk_mutex(), std::defer_lock), log_(std::move(log)) {
  if (exclusive) lock_.lock();
}

bool GlpkSession::thread_local_environments() noexcept { return arbo_glpk_thread_local() != 0; }

GlpkSession::~GlpkSession() {
  // GLPK's environment is per thread and is never released on its own (P13); every problem of
  // this session has been deleted by now, so freeing it loses nothing.
  arbo_glpk_free_env();
}

std::uint64_t GlpkSession::generation() noexcept { return generation_counter().load(); }

int GlpkSession::term_hook(void* info, const char* text) {
  // Called from inside GLPK: must not throw, and returns before any error jump happens.
  auto* self = static_cast<GlpkSession*>(info);
  try {
    if (self->output_.size() < kMaxBuffered) self->output_ += text;
  } catch (...) {
  }
  return 1;  // GLPK prints nothing itself
}

void GlpkSession::flush() {
  if (output_.empty()) return;
  last_output_ = output_;
  if (log_) {
    std::size_t start = 0;
    while (start < output_.size()) {
      std::size_t end = output_.find('\n', start);
      if (end == std::string::npos) end = output_.size();
      if (end > start) log_(std::string_view(output_).substr(start, end - start));
      start = end + 1;
    }
  }
  output_.clear();
}

void GlpkSession::fail(const char* what) {
  generation_counter().fetch_add(1);
  std::string text = last_output_;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  throw GlpkError(fmt::format("GLPK failed in {}: {}", what,
                              text.empty() ? std::string("(no message)") : text));
}

}  // namespace arbo::plugins::glpk

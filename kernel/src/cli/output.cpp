// SPDX-License-Identifier: MIT
#include "cli/output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "arbo/kernel/errors.hpp"

namespace arbo::cli {

namespace {

std::string write_error(const std::string& what, int error) {
  return fmt::format("cannot write {}: {}", what, std::strerror(error));
}

// Never destroyed: std::cout may be flushed by static destructors after main() returns.
FdOutBuffer* g_stdout = nullptr;

}  // namespace

FdOutBuffer::FdOutBuffer(int fd) : fd_(fd), line_buffered_(fd >= 0 && isatty(fd) != 0) {
  setp(buf_.data(), buf_.data() + buf_.size());
}

FdOutBuffer::~FdOutBuffer() { drain(); }

bool FdOutBuffer::drain() {
  const char* p = pbase();
  const char* const end = pptr();
  while (error_ == 0 && p < end) {
    const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(end - p));
    if (n > 0) {
      p += n;
    } else if (n < 0 && errno != EINTR) {
      error_ = errno;
    }
  }
  setp(buf_.data(), buf_.data() + buf_.size());
  return error_ == 0;
}

FdOutBuffer::int_type FdOutBuffer::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  if (line_buffered_ && traits_type::to_char_type(c) == '\n' && !drain()) {
    return traits_type::eof();
  }
  return c;
}

std::streamsize FdOutBuffer::xsputn(const char* s, std::streamsize n) {
  if (error_ != 0) return 0;
  const std::streamsize put = std::streambuf::xsputn(s, n);
  if (line_buffered_ && std::memchr(s, '\n', static_cast<std::size_t>(put)) != nullptr) drain();
  return error_ == 0 ? put : 0;
}

int FdOutBuffer::sync() { return drain() ? 0 : -1; }

void capture_stdout() {
  if (g_stdout != nullptr) return;
  g_stdout = new FdOutBuffer(STDOUT_FILENO);
  std::cout.rdbuf(g_stdout);
}

std::string stdout_error() {
  std::cout.flush();
  if (g_stdout == nullptr || g_stdout->error() == 0) return {};
  return write_error("standard output", g_stdout->error());
}

OutputFile::OutputFile(const std::string& path)
    : path_(path),
      fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)),
      open_error_(fd_ < 0 ? errno : 0),
      buffer_(fd_),
      stream_(&buffer_) {
  if (fd_ < 0) throw kernel::OutputError(write_error(path_, open_error_));
}

OutputFile::~OutputFile() {
  if (fd_ < 0) return;
  stream_.flush();  // before the descriptor goes, so that the buffer has nothing left for it
  ::close(fd_);
}

void OutputFile::close() {
  stream_.flush();
  int error = buffer_.error();
  // A network or full file system may report a failed write only at close.
  if (::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  if (error != 0) throw kernel::OutputError(write_error(path_, error));
}

}  // namespace arbo::cli

// SPDX-License-Identifier: MIT
// Output that reports its write errors: standard output and `--output` files. The standard
// streams cannot say why a write failed, and every command's output is its result: a full disk
// or a closed pipe must be an error (exit 7), not a silent success.
#pragma once

#include <array>
#include <ostream>
#include <streambuf>
#include <string>

namespace arbo::cli {

/// A buffer that writes to a descriptor with write(2) and keeps the first error (its errno);
/// after one it discards what follows. Line-buffered on a terminal, else flushed when full.
class FdOutBuffer final : public std::streambuf {
 public:
  explicit FdOutBuffer(int fd);
  ~FdOutBuffer() override;
  FdOutBuffer(const FdOutBuffer&) = delete;
  FdOutBuffer& operator=(const FdOutBuffer&) = delete;

  /// errno of the first failed write, 0 if none.
  int error() const noexcept { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool drain();

  int fd_;
  bool line_buffered_;
  int error_ = 0;
  std::array<char, 1 << 16> buf_{};
};

/// Routes std::cout through an FdOutBuffer on descriptor 1, for the life of the process.
void capture_stdout();

/// Flushes standard output; "cannot write standard output: <reason>" if a write failed since
/// capture_stdout(), else empty.
std::string stdout_error();

/// The file of `--output FILE`, created or truncated, not inherited by child processes.
class OutputFile {
 public:
  /// @throws kernel::OutputError "cannot write FILE: <reason>" if it cannot be opened.
  explicit OutputFile(const std::string& path);
  /// Closes the file if close() was not called, silently: the error path of a command.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() noexcept { return stream_; }
  /// Flushes and closes the file. @throws kernel::OutputError "cannot write FILE: <reason>"
  /// if any write or the close failed.
  void close();

 private:
  std::string path_;
  int fd_;
  int open_error_;
  FdOutBuffer buffer_;
  std::ostream stream_;
};

}  // namespace arbo::cli

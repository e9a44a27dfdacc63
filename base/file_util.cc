#include "base/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/host_memory.h"

namespace base {
namespace {

absl::Status ErrnoStatus(int error, absl::string_view what,
                         const std::string& path) {
  return absl::ErrnoToStatus(error, absl::StrCat(what, " ", path));
}

absl::Status CheckRegular(const struct stat& info, const std::string& path,
                          int64_t max_size) {
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read ", path, ": not a regular file"));
  }
  if (info.st_size > max_size) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot read %s: %d bytes, more than the limit of %d",
                        path, info.st_size, max_size));
  }
  return absl::OkStatus();
}

// Closes on every path out of a function.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;

  int get() const { return fd_; }
  // Closes now, so that an error of close (a failed write-back) is seen.
  int Close() {
    int result = close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

absl::Status ReadAll(int fd, const std::string& path, int64_t size_hint,
                     int64_t max_size, std::string* contents) {
  contents->resize(size_hint + 1);
  int64_t used = 0;
  while (true) {
    if (used == contents->size()) contents->resize(2 * contents->size());
    ssize_t n = read(fd, contents->data() + used, contents->size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, "cannot read", path);
    if (n == 0) break;
    used += n;
    // The file may have grown since it was measured.
    if (used > max_size) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "cannot read %s: more than the limit of %d bytes", path, max_size));
    }
  }
  contents->resize(used);
  return absl::OkStatus();
}

absl::Status WriteAll(int fd, const std::string& path,
                      absl::string_view contents) {
  while (!contents.empty()) {
    ssize_t n = write(fd, contents.data(), contents.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, "cannot write", path);
    contents.remove_prefix(n);
  }
  return absl::OkStatus();
}

// Unique among this process's calls, and across processes by the pid.
std::string TemporaryPathFor(const std::string& path) {
  static std::atomic<int64_t> counter{0};
  return absl::StrCat(path, ".tmp.", getpid(), ".", counter.fetch_add(1), ".",
                      absl::ToUnixNanos(absl::Now()));
}

// Creates `path`, which must not exist, and writes `contents`; removes it
// again when that fails.
absl::Status WriteNewFile(const std::string& path, absl::string_view contents) {
  ScopedFd fd(
      open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (fd.get() < 0) return ErrnoStatus(errno, "cannot create", path);
  absl::Status status = WriteAll(fd.get(), path, contents);
  if (fd.Close() != 0 && status.ok()) {
    status = ErrnoStatus(errno, "cannot write", path);
  }
  if (!status.ok()) unlink(path.c_str());
  return status;
}

}  // namespace

absl::StatusOr<std::string> ReadFileToString(const std::string& path,
                                             int64_t max_size) {
  // stat before open: opening a FIFO blocks until a writer comes, and
  // opening a device can have effects of its own.
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return ErrnoStatus(errno, "cannot read", path);
  }
  if (absl::Status status = CheckRegular(info, path, max_size); !status.ok()) {
    return status;
  }
  // O_NONBLOCK and a second check: the path may have been replaced since.
  ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) return ErrnoStatus(errno, "cannot read", path);
  if (fstat(fd.get(), &info) != 0) {
    return ErrnoStatus(errno, "cannot read", path);
  }
  if (absl::Status status = CheckRegular(info, path, max_size); !status.ok()) {
    return status;
  }
  // Refused up front rather than thrown as std::bad_alloc part way, which
  // would pass for a file cut short.
  if (absl::Status status = CheckHostAllocation(
          info.st_size + 1, absl::StrCat("reading ", path));
      !status.ok()) {
    return status;
  }
  std::string contents;
  if (absl::Status status =
          ReadAll(fd.get(), path, info.st_size, max_size, &contents);
      !status.ok()) {
    return status;
  }
  return contents;
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents) {
  std::string temporary = TemporaryPathFor(path);
  if (absl::Status status = WriteNewFile(temporary, contents); !status.ok()) {
    return status;
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    absl::Status status = absl::ErrnoToStatus(
        errno, absl::StrCat("cannot rename ", temporary, " to ", path));
    unlink(temporary.c_str());
    return status;
  }
  return absl::OkStatus();
}

absl::Status CreateDirectories(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return absl::ErrnoToStatus(error.value(),
                               absl::StrCat("cannot create directory ", path));
  }
  return absl::OkStatus();
}

}  // namespace base

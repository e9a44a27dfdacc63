#ifndef BASE_FILE_UTIL_H_
#define BASE_FILE_UTIL_H_

// Reading and writing whole files, for every layer (stream_executor
// included). Errors name the path and carry the system's reason, with one
// meaning per code:
//   NOT_FOUND           the path does not exist
//   INVALID_ARGUMENT    it exists but is not a regular file (a directory,
//                       FIFO, device or socket: reading those can block or
//                       never end)
//   RESOURCE_EXHAUSTED  the file is larger than the caller's limit
//   others              as absl::ErrnoToStatus maps the system's errno
//                       (PERMISSION_DENIED for EACCES, ...)

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace base {

// No file this project reads (HLO text, .npy arrays, presets, kernel
// images, bench results) comes near it; a larger one is a wrong path.
inline constexpr int64_t kDefaultMaxFileSize = int64_t{1} << 30;

// The contents of the regular file at `path` (symbolic links followed), at
// most `max_size` bytes.
absl::StatusOr<std::string> ReadFileToString(
    const std::string& path, int64_t max_size = kDefaultMaxFileSize);

// Writes `contents` to a new file beside `path`, then renames it over
// `path`: a concurrent reader sees the old file or the complete new one,
// never a part. On failure the new file is removed and `path` is left as it
// was. (Atomic against failures of this process, not against power loss:
// nothing is synced.)
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

// Creates `path` and its missing parents; OK if it is already a directory.
absl::Status CreateDirectories(const std::string& path);

}  // namespace base

#endif  // BASE_FILE_UTIL_H_

#ifndef STREAM_EXECUTOR_ROCM_ROCM_LIBRARY_H_
#define STREAM_EXECUTOR_ROCM_ROCM_LIBRARY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "stream_executor/gpu/dso_loader.h"

namespace stream_executor::rocm {

// Where ROCm installs its libraries when they are not on the loader's path.
inline constexpr char kRocmLibraryDir[] = "/opt/rocm/lib";

// The HIP runtime: the development link first (it names the release the
// headers came from), then the ROCm 5 and 6 sonames.
inline constexpr const char* kHipRuntimeSonames[] = {
    "libamdhip64.so", "libamdhip64.so.5", "libamdhip64.so.6"};

// `sonames` as the dynamic loader finds them (LD_LIBRARY_PATH, ld.so.cache),
// then the same names under kRocmLibraryDir.
std::vector<std::string> RocmLibraryCandidates(
    absl::Span<const char* const> sonames);

// A ROCm library opened at run time, with typed lookups whose errors name the
// library. Nothing links against ROCm, so that binaries built with
// --config=rocm start anywhere and report the platform unavailable instead.
// Copyable; the handle is never closed (see gpu::OpenLibrary).
class RocmLibrary {
 public:
  // Opens the first of RocmLibraryCandidates(sonames) that loads.
  // FAILED_PRECONDITION naming every candidate and dlerror() when none does.
  static absl::StatusOr<RocmLibrary> Open(
      absl::string_view display_name, absl::Span<const char* const> sonames);

  // FAILED_PRECONDITION naming the library and the symbol when it is missing.
  template <typename Fn>
  absl::Status Resolve(const char* symbol, Fn* out) const {
    return gpu::ResolveFunction(handle_, display_name_, symbol, out);
  }

  // The first of `symbols` the library exports, for entry points that ROCm
  // renamed between releases.
  template <typename Fn>
  absl::Status ResolveFirstOf(absl::Span<const char* const> symbols,
                              Fn* out) const {
    absl::Status status = absl::InvalidArgumentError("no symbols to resolve");
    for (const char* symbol : symbols) {
      status = Resolve(symbol, out);
      if (status.ok()) break;
    }
    return status;
  }

  // Leaves `*out` null when the symbol is missing: for entry points that only
  // some releases export, where the caller has a fallback.
  template <typename Fn>
  void ResolveOptional(const char* symbol, Fn* out) const {
    if (!Resolve(symbol, out).ok()) *out = nullptr;
  }

  // Whether this library is the one named `soname` (by its DT_SONAME): tells
  // the release behind an unversioned development link.
  bool HasSoname(const char* soname) const;

 private:
  RocmLibrary(void* handle, absl::string_view display_name)
      : handle_(handle), display_name_(display_name) {}

  void* handle_;
  std::string display_name_;
};

// Runs `kLoad` on the first call only and returns its result on every call.
// Each loader builds a process-wide table, and a process gains no library,
// driver or device later, so a failure is final too. Thread-safe.
template <auto kLoad>
auto LoadOnce() {
  static const auto* result = new decltype(kLoad())(kLoad());
  return *result;
}

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_ROCM_LIBRARY_H_

#ifndef STREAM_EXECUTOR_GPU_DSO_LOADER_H_
#define STREAM_EXECUTOR_GPU_DSO_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace stream_executor::gpu {

// Opens the first of `candidates` (sonames or absolute paths) that dlopen
// accepts. GPU libraries are loaded at run time so that binaries start on
// machines without them; a missing library is FAILED_PRECONDITION naming the
// library and every dlerror() seen. Handles are never closed: the libraries
// keep process-wide state and may run code at exit.
absl::StatusOr<void*> OpenLibrary(absl::string_view display_name,
                                  absl::Span<const std::string> candidates);

// The candidates for a library with `soname`: the soname itself (the dynamic
// loader's search path, LD_LIBRARY_PATH included), then the same file in each
// of `directories`.
std::vector<std::string> LibraryCandidates(
    absl::string_view soname, absl::Span<const std::string> directories);

// dlsym with a FAILED_PRECONDITION naming the library and symbol.
absl::StatusOr<void*> ResolveSymbol(void* library,
                                    absl::string_view display_name,
                                    const char* symbol);

// Resolves `symbol` into a typed function pointer.
template <typename Fn>
absl::Status ResolveFunction(void* library, absl::string_view display_name,
                             const char* symbol, Fn* out) {
  absl::StatusOr<void*> address = ResolveSymbol(library, display_name, symbol);
  if (!address.ok()) return address.status();
  *out = reinterpret_cast<Fn>(*address);
  return absl::OkStatus();
}

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_DSO_LOADER_H_

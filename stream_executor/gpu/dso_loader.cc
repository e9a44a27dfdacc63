#include "stream_executor/gpu/dso_loader.h"

#include <dlfcn.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"

namespace stream_executor::gpu {

absl::StatusOr<void*> OpenLibrary(absl::string_view display_name,
                                  absl::Span<const std::string> candidates) {
  std::vector<std::string> errors;
  for (const std::string& candidate : candidates) {
    // RTLD_GLOBAL lets a later library (cuBLAS after cuBLASLt) find symbols
    // of one loaded before it.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle != nullptr) {
      VLOG(1) << "Loaded " << display_name << " from " << candidate;
      return handle;
    }
    const char* error = dlerror();
    errors.push_back(error != nullptr ? error : candidate + ": unknown error");
  }
  return absl::FailedPreconditionError(absl::StrCat(
      display_name, " library not found (tried ",
      absl::StrJoin(candidates, ", "), "): ", absl::StrJoin(errors, "; ")));
}

std::vector<std::string> LibraryCandidates(
    absl::string_view soname, absl::Span<const std::string> directories) {
  std::vector<std::string> candidates = {std::string(soname)};
  for (const std::string& directory : directories) {
    candidates.push_back(absl::StrCat(directory, "/", soname));
  }
  return candidates;
}

absl::StatusOr<void*> ResolveSymbol(void* library,
                                    absl::string_view display_name,
                                    const char* symbol) {
  dlerror();  // Clears a stale error so that the one below is ours.
  void* address = dlsym(library, symbol);
  if (address == nullptr) {
    const char* error = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat(display_name, " library lacks symbol ", symbol, ": ",
                     error != nullptr ? error : "null address"));
  }
  return address;
}

}  // namespace stream_executor::gpu

#include "stream_executor/rocm/rocm_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace stream_executor::rocm {

std::vector<std::string> RocmLibraryCandidates(
    absl::Span<const char* const> sonames) {
  std::vector<std::string> candidates(sonames.begin(), sonames.end());
  for (const char* soname : sonames) {
    candidates.push_back(absl::StrCat(kRocmLibraryDir, "/", soname));
  }
  return candidates;
}

absl::StatusOr<RocmLibrary> RocmLibrary::Open(
    absl::string_view display_name, absl::Span<const char* const> sonames) {
  ASSIGN_OR_RETURN(
      void* handle,
      gpu::OpenLibrary(display_name, RocmLibraryCandidates(sonames)));
  return RocmLibrary(handle, display_name);
}

bool RocmLibrary::HasSoname(const char* soname) const {
  // With RTLD_NOLOAD the loader only looks among loaded objects, matching
  // their DT_SONAME as well as the names they were opened by.
  void* loaded = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  if (loaded == nullptr) return false;
  dlclose(loaded);  // Drops the reference RTLD_NOLOAD took.
  return loaded == handle_;
}

}  // namespace stream_executor::rocm

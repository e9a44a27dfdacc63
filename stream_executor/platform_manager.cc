#include "stream_executor/platform_manager.h"

#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"

namespace stream_executor {
namespace {

struct Registry {
  absl::Mutex mu;
  std::map<std::string, std::unique_ptr<Platform>> platforms ABSL_GUARDED_BY(mu);
};

Registry& GetRegistry() {
  // Leaked on purpose: platforms outlive every static that may use them.
  static Registry* registry = new Registry;
  return *registry;
}

}  // namespace

absl::Status PlatformManager::RegisterPlatform(
    std::unique_ptr<Platform> platform) {
  Registry& r = GetRegistry();
  std::string key = absl::AsciiStrToLower(platform->Name());
  absl::MutexLock lock(&r.mu);
  if (r.platforms.count(key)) {
    return absl::AlreadyExistsError("platform already registered: " + key);
  }
  r.platforms.emplace(key, std::move(platform));
  return absl::OkStatus();
}

absl::StatusOr<Platform*> PlatformManager::PlatformWithName(
    absl::string_view name) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.platforms.find(absl::AsciiStrToLower(name));
  if (it == r.platforms.end()) {
    std::vector<std::string> names;
    for (const auto& [key, _] : r.platforms) names.push_back(key);
    return absl::NotFoundError(absl::StrCat(
        "platform \"", name, "\" is not built into this binary; registered: ",
        absl::StrJoin(names, ", "),
        " (build with --config=cuda or --config=rocm for GPU platforms)"));
  }
  return it->second.get();
}

absl::StatusOr<Platform*> PlatformManager::AvailablePlatformWithName(
    absl::string_view name) {
  ASSIGN_OR_RETURN(Platform * platform, PlatformWithName(name));
  absl::Status available = platform->Availability();
  if (!available.ok()) {
    return absl::Status(available.code(),
                        absl::StrCat("platform \"", name,
                                     "\" is unavailable: ", available.message()));
  }
  return platform;
}

std::vector<std::string> PlatformManager::ListPlatformNames() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  std::vector<std::string> names;
  for (const auto& [key, _] : r.platforms) names.push_back(key);
  return names;
}

absl::StatusOr<Platform*> PlatformManager::DefaultPlatform() {
  for (const char* name : {"cuda", "rocm", "host"}) {
    auto platform = AvailablePlatformWithName(name);
    if (platform.ok()) return platform;
  }
  return absl::NotFoundError(
      "no platform is available; the host platform is not linked in");
}

}  // namespace stream_executor
